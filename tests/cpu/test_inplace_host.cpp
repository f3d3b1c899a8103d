// In-place transpose on the CPU: the decomposition's index maps, the
// host backend against the out-of-place oracle, and every rejected argument.
#include <cstring>
#include <random>

#include "inplace/inplace_blocks.hpp"
#include "inplace/inplace_map.hpp"
#include "inplace_cases.hpp"

using namespace xpose_test;
namespace ip = xpose::detail::inplace;

namespace {

// Applies the plan's passes to a grid of indices, exactly as their definitions say.
std::vector<index_t> simulate(index_t rows, index_t cols) {
  const ip::rect_plan p = ip::make_rect_plan(rows, cols);
  const index_t R = p.map.R, C = p.map.C;
  std::vector<index_t> a(static_cast<std::size_t>(rows * cols)), t(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<index_t>(i);
  for (int k = 0; k < p.steps; ++k) {
    const ip::step s = p.s[k];
    for (index_t i = 0; i < R; ++i)
      for (index_t j = 0; j < C; ++j) {
        const index_t src = ip::step_src(p.map, s.kind, i, j);
        const index_t at = s.along_columns() ? src * C + j : i * C + src;
        if (s.gather) t[i * C + j] = a[at];
        else t[at] = a[i * C + j];
      }
    a.swap(t);
  }
  return a;
}

xpose::status host_run(unsigned char* data, const matrix_desc& d, std::size_t ws_bytes, int threads) {
  // Poisoned, with a guard after the workspace that must stay as it was.
  std::vector<unsigned char> ws(ws_bytes + 16 + 64, 0xA5);
  unsigned char* w = ws.data() + (16 - reinterpret_cast<std::uintptr_t>(ws.data()) % 16) % 16;
  xpose::host_options o;
  o.threads = threads;
  const xpose::status st = xpose::transpose_inplace_host(data, d, ws_bytes ? w : nullptr, ws_bytes, o);
  for (int i = 0; i < 48; ++i) EXPECT_EQ(w[ws_bytes + i], 0xA5) << "wrote past the workspace";
  return st;
}

}  // namespace

TEST(InplaceMap, PlanRealisesTheTransposeForEveryShapeUpTo48) {
  for (index_t m = 1; m <= 48; ++m)
    for (index_t n = 1; n <= 48; ++n) {
      if (m == n) continue;
      const auto a = simulate(m, n);
      for (index_t i = 0; i < m; ++i)
        for (index_t j = 0; j < n; ++j)
          ASSERT_EQ(a[static_cast<std::size_t>(j * m + i)], i * n + j) << m << "x" << n << " at " << i << "," << j;
    }
}

TEST(InplaceMap, PlanRealisesTheTransposeForLargerCoprimeAndSharedFactors) {
  const std::pair<index_t, index_t> shapes[] = {{97, 1009}, {1009, 97}, {120, 1000}, {1000, 120}, {7, 3001}, {2048, 6}};
  for (auto [m, n] : shapes) {
    const auto a = simulate(m, n);
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) ASSERT_EQ(a[static_cast<std::size_t>(j * m + i)], i * n + j) << m << "x" << n;
  }
}

TEST(InplaceMap, BlockedShuffleIsTheShuffleWhenTheShortSideDividesTheLong) {
  const std::pair<index_t, index_t> shapes[] = {{2, 2}, {2, 10}, {3, 12}, {4, 40}, {7, 7 * 13}, {16, 160}, {32, 320}, {5, 5}};
  int blocked = 0;
  for (auto [R, C] : shapes) {
    const ip::c2r_map m = ip::c2r_map::make(R, C);
    ASSERT_TRUE(m.shuffle_is_blocked()) << R << "x" << C;
    ++blocked;
    for (index_t i = 0; i < R; ++i)
      for (index_t k = 0; k < R; ++k)
        for (index_t t = 0; t < m.b; ++t)
          ASSERT_EQ(m.shuffle_src(i, m.blocked_dst(i, k, t)), k * m.b + t) << R << "x" << C << " " << i << "," << k << "," << t;
  }
  EXPECT_FALSE(ip::c2r_map::make(4, 6).shuffle_is_blocked());
  EXPECT_FALSE(ip::c2r_map::make(3, 10).shuffle_is_blocked());
  EXPECT_EQ(blocked, 8);
}

TEST(InplaceMap, RowCursorMatchesClosedForms) {
  for (index_t R = 1; R <= 24; ++R)
    for (index_t C = R; C <= 60; ++C) {
      const ip::c2r_map m = ip::c2r_map::make(R, C);
      for (auto kind : {ip::step_kind::rotate, ip::step_kind::shuffle, ip::step_kind::column})
        for (index_t i = 0; i < R; ++i)
          for (index_t j0 = 0; j0 < C; j0 += 5)
            ip::for_row(m, kind, i, j0, C - j0, [&](index_t j, index_t src) {
              ASSERT_EQ(src, ip::step_src(m, kind, i, j)) << R << "x" << C << " kind " << static_cast<int>(kind);
            });
    }
}

TEST(InplaceMap, ColumnCursorMatchesClosedForms) {
  for (index_t R = 1; R <= 30; ++R)
    for (index_t C = R; C <= 70; ++C) {
      const ip::c2r_map m = ip::c2r_map::make(R, C);
      for (auto kind : {ip::step_kind::rotate, ip::step_kind::column})
        for (index_t j = 0; j < C; ++j)
          for (index_t i0 = 0; i0 < R; i0 += 4)
            ip::for_column(m, kind, j, i0, R - i0, [&](index_t i, index_t src) {
              ASSERT_EQ(src, ip::step_src(m, kind, i, j)) << R << "x" << C << " kind " << static_cast<int>(kind);
            });
    }
}

TEST(InplaceMap, TilePairsEnumerateTheUpperTriangle) {
  for (index_t p = 0; p < 200000; ++p) {
    index_t ti = -1, tj = -1;
    ip::tile_pair(p, &ti, &tj);
    ASSERT_LE(ti, tj);
    ASSERT_EQ(tj * (tj + 1) / 2 + ti, p);
  }
  const index_t big = (index_t{1} << 40) + 12345;  // exact beyond double's comfort
  index_t ti = 0, tj = 0;
  ip::tile_pair(big, &ti, &tj);
  EXPECT_EQ(tj * (tj + 1) / 2 + ti, big);
  EXPECT_LE(ti, tj);
}

namespace {

// The swizzled square tile of the GPU (square_pairs_swz), replayed thread by thread:
// chunk stores by (tx, ty), word reads and the register transpose; checks the tile
// comes out transposed and that no warp access conflicts on a bank.
template <int E>
void check_swizzled_tile() {
  constexpr int V = 16 / E, TS = 8 * V, P = 4 / E;
  std::vector<std::uint8_t> src(static_cast<std::size_t>(TS) * 128);
  std::uint64_t x = 0x9e3779b97f4a7c15ull;
  for (auto& b : src) b = static_cast<std::uint8_t>((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 56);
  std::vector<std::uint32_t> sm(static_cast<std::size_t>(TS) * 32, 0);
  for (int r = 0; r < TS; ++r) {  // stores: row r by the 8 threads tx of one ty, one chunk each
    bool seen[8] = {};
    for (int tx = 0; tx < 8; ++tx) {
      const int slot = ip::square_chunk_slot(r, tx, V);
      ASSERT_TRUE(slot >= 0 && slot < 8 && !seen[slot]) << "E=" << E << " row " << r;
      seen[slot] = true;
      std::memcpy(&sm[static_cast<std::size_t>(r) * 32 + slot * 4], &src[static_cast<std::size_t>(r) * 128 + tx * 16], 16);
    }
  }
  for (int warp = 0; warp < 8; ++warp)
    for (int q = 0; q < V; ++q) {  // word reads: one per lane per q, 32 distinct banks
      bool bank[32] = {};
      for (int lane = 0; lane < 32; ++lane) {
        const int tx = lane % 8, ty = warp * 4 + lane / 8, w = ip::square_word_slot(tx * V, ty, V);
        ASSERT_EQ(ip::square_word_slot(tx * V + q, ty, V), w) << "E=" << E;
        const int b = static_cast<int>((static_cast<std::size_t>(tx * V + q) * 32 + w) % 32);
        ASSERT_FALSE(bank[b]) << "E=" << E << " warp " << warp << " q " << q;
        bank[b] = true;
      }
    }
  for (int ty = 0; ty < 32; ++ty)
    for (int tx = 0; tx < 8; ++tx) {
      const int x0 = tx * V, w = ip::square_word_slot(x0, ty, V);
      std::uint32_t in[V], out[P][4];
      for (int q = 0; q < V; ++q) in[q] = sm[static_cast<std::size_t>(x0 + q) * 32 + w];
      ip::words_to_chunks<E>(in, out);
      for (int p = 0; p < P; ++p) {  // output chunk: tile column ty*P + p, rows x0 .. x0+V-1
        std::uint8_t got[16], want[16];
        std::memcpy(got, out[p], 16);
        for (int q = 0; q < V; ++q)
          std::memcpy(want + q * E, &src[static_cast<std::size_t>(x0 + q) * 128 + (ty * P + p) * E], E);
        ASSERT_EQ(std::memcmp(got, want, 16), 0) << "E=" << E << " tx " << tx << " ty " << ty << " p " << p;
      }
    }
}

}  // namespace

TEST(InplaceMap, SwizzledSquareTilesTransposeWithoutBankConflicts) {
  check_swizzled_tile<1>();
  check_swizzled_tile<2>();
  check_swizzled_tile<4>();
  EXPECT_EQ(ip::byte_perm(0x33221100u, 0x77665544u, 0x7531u), 0x77553311u);
  EXPECT_EQ(ip::byte_perm(0x33221100u, 0x77665544u, 0x0246u), 0x00224466u);
}

TEST(InplaceMap, FixedDivisorsMatchDivision) {
  std::vector<index_t> ds;
  for (index_t d = 1; d <= 3000; ++d) ds.push_back(d);
  for (int l = 12; l <= 40; ++l)
    for (index_t o : {-1, 0, 1}) ds.push_back((index_t{1} << l) + o);
  std::mt19937_64 g(7);
  for (int k = 0; k < 3000; ++k) ds.push_back(1 + static_cast<index_t>(g() % ((std::uint64_t{1} << 31) - 1)));
  for (index_t d : ds) {
    const ip::divisor v = ip::divisor::make(d);
    std::vector<index_t> as = {0, 1, d - 1, d, d + 1, 2 * d - 1, (index_t{1} << 31) - 1, index_t{1} << 31,
                               (index_t{1} << 31) + 5, index_t{1} << 40};
    for (int k = 0; k < 64; ++k) as.push_back(static_cast<index_t>(g() % (std::uint64_t{1} << 31)));
    for (int k = 0; k < 8; ++k) as.push_back(d * static_cast<index_t>(g() % 4096) + static_cast<index_t>(g() % 3) - 1);
    for (index_t a : as) {
      if (a < 0) continue;
      ASSERT_EQ(v.div(a), a / d) << a << " / " << d;
      ASSERT_EQ(v.mod(a), a % d) << a << " % " << d;
    }
    for (int k = 0; k < (d < (index_t{1} << 31) ? 64 : 0); ++k) {  // mulmod: x, y < d < 2^31
      const index_t x = k < 4 ? d - 1 - k % 2 : static_cast<index_t>(g() % static_cast<std::uint64_t>(d));
      const index_t y = k < 4 ? d - 1 - k / 2 : static_cast<index_t>(g() % static_cast<std::uint64_t>(d));
      if (x < 0 || y < 0) continue;
      const index_t want = static_cast<index_t>(static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y) %
                                                static_cast<std::uint64_t>(d));  // < 2^62: exact
      ASSERT_EQ(v.mulmod(x, y), want) << x << " * " << y << " mod " << d;
    }
  }
}

TEST(InplaceMap, ModularHelpers) {
  EXPECT_EQ(ip::mod_inverse(3, 7), 5);
  EXPECT_EQ(ip::mod_inverse(1, 1), 0);
  const index_t m = (index_t{1} << 61) - 1, x = m - 2, y = m - 3;  // (−2)(−3) = 6 mod m
  EXPECT_EQ(ip::mulmod(x, y, m), 6);
  EXPECT_EQ(ip::mulmod(123456789, 987654321, 1000000007), 259106859);
  const index_t big = (index_t{1} << 40) + 5;  // the 64-bit branches of the divisions
  EXPECT_EQ(ip::udiv(big, 3), big / 3);
  EXPECT_EQ(ip::umod(big, 7), big % 7);
  EXPECT_EQ(ip::udiv(4000000000, 7), 4000000000 / 7);  // 32-bit unsigned branch
}

// The slot transpose's walks (inplace_blocks.hpp), run on slot indices: the marks
// saved first, each walk from a mark to the next, each markless cycle whole from its
// smallest slot. Every slot must be written exactly once and the grid transposed.
TEST(InplaceBlocks, SlotWalksTransposeEveryGrid) {
  std::mt19937_64 g(34);
  std::vector<std::pair<index_t, index_t>> grids;
  for (index_t R = 1; R <= 24; ++R)
    for (index_t C = 1; C <= 24; ++C) grids.push_back({R, C});
  for (int t = 0; t < 60; ++t) grids.push_back({1 + static_cast<index_t>(g() % 400), 1 + static_cast<index_t>(g() % 400)});
  grids.push_back({4, 4000});
  grids.push_back({50000, 4});
  grids.push_back({5, 999});
  for (const auto& [R, C] : grids) {
    const ip::slot_grid grid{R, C};
    const index_t N = grid.count(), S = ip::slot_mark_every;
    std::vector<index_t> a(static_cast<std::size_t>(N)), saved(static_cast<std::size_t>((N + S - 1) / S), -1);
    std::vector<int> writes(a.size(), 0);
    for (index_t y = 0; y < N; ++y) a[y] = y;
    for (index_t b = 0; b < (N + S - 1) / S; ++b)
      if (ip::slot_grid::mark_of(b) < N) saved[b] = a[ip::slot_grid::mark_of(b)];
    // Marks reach every long cycle: a grid whose odd slots' cycles avoid every
    // multiple of S (R*C odd, C odd) has no markless cycle longer than S here.
    index_t longest_markless = 0;
    for (index_t y = 0; y < N; ++y)
      if (ip::walk_role(ip::mark_walk{grid}, y) == 2) {
        index_t len = 1;
        for (index_t s = grid.src(y); s != y; s = grid.src(s)) ++len;
        longest_markless = std::max(longest_markless, len);
      }
    if (R == 5 && C == 999) EXPECT_LE(longest_markless, 4 * S);
    for (index_t y = 0; y < N; ++y) {
      const int role = ip::walk_role(ip::mark_walk{grid}, y);
      if (role == 1) {
        for (index_t cur = y;;) {
          const index_t s = grid.src(cur);
          ++writes[cur];
          if (ip::slot_grid::marked(s)) {
            a[cur] = saved[s / S];
            break;
          }
          a[cur] = a[s];
          cur = s;
        }
      } else if (role == 2) {
        const index_t tmp = a[y];
        index_t cur = y;
        for (index_t s = grid.src(cur); s != y; s = grid.src(cur)) {
          ++writes[cur];
          a[cur] = a[s];
          cur = s;
        }
        ++writes[cur];
        a[cur] = tmp;
      }
    }
    for (index_t i = 0; i < R; ++i)
      for (index_t j = 0; j < C; ++j) {
        const index_t y = j * R + i;  // where slot i*C + j goes
        ASSERT_EQ(a[y], i * C + j) << R << "x" << C;
        // A marked fixed point takes its saved copy back; other fixed points are not touched.
        ASSERT_EQ(writes[y], grid.src(y) == y && !ip::slot_grid::marked(y) ? 0 : 1) << R << "x" << C << " slot " << y;
      }
  }
}

// The turned walks of inplace_blocks.hpp (turned_grid) on slot labels, for slabs
// held one place round and several (the GPU holds a quarter): row slabs start with
// the slabs `held` places back and the first ones in the workspace; column slabs end
// with them `held` places on and the last ones in the workspace. Every slot written
// exactly once, the grid transposed.
TEST(InplaceBlocks, TurnedWalksTransposeEveryGrid) {
  std::mt19937_64 g(35);
  int whole = 0;
  for (int t = 0; t < 600; ++t) {
    const index_t k = 4 + static_cast<index_t>(g() % 40), other = 1 + static_cast<index_t>(g() % 300);
    const bool before = t % 2 == 1;  // column slabs
    const ip::slot_grid grid = before ? ip::slot_grid{other, k} : ip::slot_grid{k, other};
    const index_t N = grid.count(), per = N / k, held = 1 + static_cast<index_t>(g() % (k / 4));
    const ip::turned_grid map{grid, before, held * per};
    std::vector<index_t> a(static_cast<std::size_t>(N)), ws(static_cast<std::size_t>(map.shift), -1);
    std::vector<int> writes(a.size() + ws.size(), 0);
    for (index_t y = 0; y < N; ++y) a[y] = before ? y : (y + map.shift) % N;  // row slabs: already round
    if (!before)
      for (index_t y = N - map.shift; y < N; ++y) ws[map.held_slot(y)] = (y + map.shift) % N;
    auto from = [&](index_t y) { return !before && map.held(y) ? ws[map.held_slot(y)] : a[y]; };
    auto put = [&](index_t y, index_t v) {
      if (before && map.held(y)) {
        ws[map.held_slot(y)] = v;
        ++writes[N + map.held_slot(y)];
      } else {
        a[y] = v;
        ++writes[y];
      }
    };
    for (index_t y = 0; y < N; ++y) {
      const int role = ip::walk_role(map, y);
      if (role == 1) {
        for (index_t cur = y;;) {
          const index_t s = map.src(cur);
          put(cur, from(s));
          if (map.held(s)) break;
          cur = s;
        }
      } else if (role == 2) {
        ++whole;
        const index_t tmp = a[y];
        index_t cur = y;
        for (index_t s = map.src(cur); s != y; s = map.src(cur)) {
          put(cur, a[s]);
          cur = s;
        }
        put(cur, tmp);
      }
    }
    SCOPED_TRACE(std::to_string(grid.R) + "x" + std::to_string(grid.C) + " held " + std::to_string(held) +
                 (before ? " column slabs" : " row slabs"));
    for (index_t y = 0; y < N; ++y) {
      if (before) {  // position y holds the transposed grid's slot y - shift (mod N)
        const index_t v = map.held(y) ? ws[map.held_slot(y)] : a[y];
        ASSERT_EQ(v, grid.src((y - map.shift + N) % N)) << y;
      } else {
        ASSERT_EQ(a[y], grid.src(y)) << y;
      }
    }
    for (index_t y = 0; y < N; ++y) {
      const bool to_ws = before && map.held(y);
      const int w = to_ws ? writes[N + map.held_slot(y)] : writes[y];
      ASSERT_EQ(w, map.src(y) == y && !map.held(y) ? 0 : 1) << "slot " << y;
      if (to_ws) ASSERT_EQ(writes[y], 0) << "a held slot's old content must stay";
    }
  }
  EXPECT_GT(whole, 0) << "no cycle without held slots drawn: the whole-cycle walk went untested";
}

// The plan of every shape: a quarter of the matrix at most, slabs that tile it, a
// slot grid that realises the transpose, and the size query saying exactly that.
TEST(InplaceBlocks, PlansStayWithinAQuarterAndTheQueryIsHonest) {
  std::mt19937_64 g(3434);
  for (int t = 0; t < 4000; ++t) {
    index_t m = 1000 + static_cast<index_t>(g() % 49001), n = 1000 + static_cast<index_t>(g() % 49001);
    if (t % 4 == 1) n = 2 + static_cast<index_t>(g() % 15);  // skinny
    if (t % 4 == 2) m = n * (2 + static_cast<index_t>(g() % 20));  // the short side divides the long one
    if (t % 8 == 3) std::swap(m, n);
    const int es = elem_sizes()[g() % 5];
    const ip::block_plan p = ip::make_block_plan(m, n, es, false), pd = ip::make_block_plan(m, n, es, true);
    const auto M = static_cast<std::size_t>(m * n * es);
    const std::size_t q = inplace_ws(matrix_desc::packed(m, n, es, 3), false);
    const std::size_t qd = inplace_ws(matrix_desc::packed(m, n, es), true);
    ASSERT_EQ(p.kind, pd.kind);
    if (p.kind == ip::block_kind::none) {
      EXPECT_FALSE(m % n == 0 && n * es >= ip::min_square_slot_bytes) << m << "x" << n;
      EXPECT_FALSE(n % m == 0 && m * es >= ip::min_square_slot_bytes) << m << "x" << n;
      auto slot = [](index_t side) {
        const index_t k = ip::divisor_at_least(side, 4);
        return k ? side / k : 0;
      };
      EXPECT_LT(std::max(slot(m), slot(n)) * es, ip::min_slot_bytes) << m << "x" << n;
      continue;
    }
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " es " + std::to_string(es));
    EXPECT_EQ(q, static_cast<std::size_t>(p.workspace_elems() * es));  // the host runs a batch's matrices in turn
    EXPECT_EQ(qd, static_cast<std::size_t>(pd.workspace_elems() * es));
    EXPECT_EQ(3 * qd, inplace_ws(matrix_desc::packed(m, n, es, 3), true));  // the device runs a batch at once
    // Batches of 4 or more on the device: a quarter of their matrices, whole (groups through the workspace).
    const index_t B = 4 + t % 61;
    EXPECT_EQ(inplace_ws(matrix_desc::packed(m, n, es, B), true), static_cast<std::size_t>(B / 4) * M);
    EXPECT_EQ(inplace_ws(matrix_desc::packed(m, n, es, B), false), q) << "the host runs a batch's matrices in turn";
    EXPECT_EQ(q, inplace_ws(matrix_desc::packed(n, m, es), false)) << "the transpose asks for the same";
    EXPECT_EQ(qd, inplace_ws(matrix_desc::packed(n, m, es), true)) << "the transpose asks for the same";
    EXPECT_LE(4 * q, M);
    EXPECT_LE(4 * qd, M);
    EXPECT_LE(q, qd);
    if (p.square) {
      EXPECT_EQ(q, qd);
    } else {
      // The host holds one slab; the device a quarter of them: ceil(k / held) <= 7 groups.
      EXPECT_EQ(p.held, 1);
      EXPECT_GE(pd.held, 1);
      EXPECT_LE(4 * pd.held, pd.k);
      EXPECT_LE((pd.k + pd.held - 1) / pd.held, 7);
      EXPECT_EQ(pd.turned().shift * pd.k, pd.grid.count() * pd.held);
    }
    EXPECT_EQ(p.k * p.slab_elems(), m * n);
    EXPECT_EQ(p.grid.count() * p.slot, m * n);
    EXPECT_GE(p.slot * es, ip::min_slot_bytes);
    EXPECT_EQ(p.square, p.slab_rows == p.slab_cols);
    if (!p.square) EXPECT_GE(p.k, 4);
    if (p.kind == ip::block_kind::row_slabs) {
      EXPECT_EQ(p.slab_cols, n);
      EXPECT_EQ(p.grid.R, p.k);
      EXPECT_EQ(p.grid.C, n);
    } else {
      EXPECT_EQ(p.slab_rows, m);
      EXPECT_EQ(p.grid.R, m);
      EXPECT_EQ(p.grid.C, p.k);
    }
  }
  // Squares need nothing.
  EXPECT_EQ(inplace_ws(matrix_desc::packed(4096, 4096, 4), true), 0u);
  EXPECT_EQ(inplace_ws(matrix_desc::packed(4096, 4096, 2), false), 0u);
}

// check_inplace of d through the host run on 1 and 3 threads, with the size query's
// workspace and the input seeds seed() draws.
template <class Seed>
void check_on_1_and_3_threads(const matrix_desc& d, Seed seed) {
  for (int threads : {1, 3}) {
    const auto st = check_inplace(
        d, inplace_ws(d, false),
        [threads](unsigned char* p, const matrix_desc& dd, std::size_t w) { return host_run(p, dd, w, threads); }, seed());
    EXPECT_TRUE(st.ok()) << d.rows << "x" << d.cols << " es " << d.elem_size << " threads " << threads << ": "
                         << st.message();
  }
}

// The blocked method end to end: row and column slabs, square slabs, random
// shapes with a plan, one and three threads, the exact workspace (poisoned).
TEST(InplaceHost, BlockedPlansEndToEnd) {
  std::vector<inplace_shape> shapes{{200, 100, 1}, {100, 300, 2}, {64, 512, 1}, {1000, 8, 1}, {6, 1200, 1},
                                    {3, 4096, 1},  {4096, 3, 1},  {360, 240, 1}, {240, 360, 2}, {1001, 77, 1},
                                    {77, 1001, 1}, {16, 999, 1},  {999, 16, 1}};
  std::mt19937_64 g(343);
  while (shapes.size() < 30) {
    const index_t m = 2 + static_cast<index_t>(g() % 500), n = 2 + static_cast<index_t>(g() % 500);
    if (ip::make_block_plan(m, n, 4, false).kind != ip::block_kind::none) shapes.push_back({m, n, 1 + static_cast<index_t>(g() % 2)});
  }
  int planned = 0;
  for (const auto& s : shapes)
    for (int es : elem_sizes()) {
      const matrix_desc d = matrix_desc::packed(s.rows, s.cols, es, s.batch);
      planned += ip::make_block_plan(s.rows, s.cols, es, false).kind != ip::block_kind::none;
      check_on_1_and_3_threads(d, [&] { return g(); });
    }
  EXPECT_GT(planned, 120);
}

// Rectangles without a blocked plan (both sides prime or nearly) split off their last
// rows: every such shape of 1,000-50,000 a side finds a split within a quarter of the
// matrix, and the host's split run is exact, with B a blocked plan, square slabs and a
// square, on 1 and 3 threads with the exact workspace.
TEST(InplaceHost, SplitPlansForShapesWithoutABlockedPlan) {
  std::mt19937_64 g(4343);
  int none = 0;
  for (int t = 0; t < 20000 && none < 300; ++t) {
    const index_t m = 1000 + static_cast<index_t>(g() % 49001), n = 1000 + static_cast<index_t>(g() % 49001);
    const int es = elem_sizes()[g() % 5];
    if (m == n || ip::make_block_plan(m, n, es, false).kind != ip::block_kind::none) continue;
    ++none;
    const ip::split_plan sp = ip::make_split_plan(m, n, es, false);
    ASSERT_GT(sp.r, 0) << m << "x" << n << " es " << es;
    EXPECT_EQ(sp.rows_b, m - sp.r);
    EXPECT_TRUE(sp.rows_b == n || sp.b.kind != ip::block_kind::none);
    EXPECT_LE(sp.r * n + std::max(sp.b_ws, 16 * sp.rows_b), sp.ws);  // C^T, then B's workspace or 16 rows of B^T
    for (index_t r = 1; r < sp.r; ++r) {  // the fewest rows: no smaller split leaves a plan (or a square) that fits
      const ip::block_plan b = ip::make_block_plan(m - r, n, es, false);
      const bool planned = m - r == n || b.kind != ip::block_kind::none;
      const index_t need = r * n + std::max(m - r == n ? 0 : b.workspace_elems(), 16 * (m - r));
      EXPECT_TRUE(!planned || 4 * need > m * n) << m << "x" << n << " es " << es << " r " << r;
    }
    EXPECT_EQ(inplace_ws(matrix_desc::packed(m, n, es), false), static_cast<std::size_t>(sp.ws * es));
  }
  EXPECT_GE(none, 100);
  // End to end: shapes without a plan whose B is a blocked plan (row or column slabs),
  // square slabs, or a square (m - r = n).
  std::vector<inplace_shape> shapes;
  int square_b = 0, square_slabs = 0, slabs = 0;
  for (int t = 0; t < 400000 && (shapes.size() < 24 || square_b < 2 || square_slabs < 2); ++t) {
    const index_t m = 300 + static_cast<index_t>(g() % 1700), n = 300 + static_cast<index_t>(g() % 1700);
    if (m == n || ip::make_block_plan(m, n, 1, false).kind != ip::block_kind::none) continue;
    const ip::split_plan sp = ip::make_split_plan(m, n, 1, false);
    if (sp.r == 0) continue;
    const bool sq = sp.rows_b == n, sqs = !sq && sp.b.square;
    if (shapes.size() >= 24 && !(sq && square_b < 2) && !(sqs && square_slabs < 2)) continue;
    square_b += sq, square_slabs += sqs, slabs += !sq && !sqs;
    shapes.push_back({m, n, 1 + static_cast<index_t>(g() % 2)});
  }
  EXPECT_GE(square_b, 2);
  EXPECT_GE(square_slabs, 2);
  EXPECT_GE(slabs, 10);
  for (const auto& s : shapes) {
    const matrix_desc d = matrix_desc::packed(s.rows, s.cols, 1, s.batch);
    ASSERT_GT(ip::make_split_plan(s.rows, s.cols, 1, false).r, 0);
    check_on_1_and_3_threads(d, [&] { return g(); });
  }
}

// Slabs of several MiB: the slab transposes run in pieces of about a MiB (cut
// along both sides, remainder pieces included; skinny slabs along the long side),
// batches in the same parallel region.
TEST(InplaceHost, BlockedSlabsLargerThanAPiece) {
  const std::pair<inplace_shape, int> cases[] = {{{3001, 1204, 1}, 2}, {{1204, 3001, 1}, 8}, {{1208, 2999, 1}, 8},
                                                 {{2999, 1208, 2}, 2}, {{600000, 3, 1}, 4}, {{3, 600000, 1}, 4}};
  std::mt19937_64 g(3434);
  for (const auto& [s, es] : cases) {
    const matrix_desc d = matrix_desc::packed(s.rows, s.cols, es, s.batch);
    const ip::block_plan p = ip::make_block_plan(s.rows, s.cols, es, false);
    ASSERT_TRUE(p.kind != ip::block_kind::none && !p.square) << s.rows << "x" << s.cols;
    ASSERT_GT(p.slab_elems() * es, index_t{1} << 20) << s.rows << "x" << s.cols;
    check_on_1_and_3_threads(d, [&] { return g(); });
  }
}

TEST(InplaceHost, EveryShapeEveryElementSizeExactWorkspace) {
  for (const auto& s : inplace_shapes())
    for (int es : elem_sizes()) {
      const matrix_desc d = matrix_desc::packed(s.rows, s.cols, es, s.batch);
      const std::size_t ws = inplace_ws(d, false);
      if (s.rows == s.cols || s.rows <= 1 || s.cols <= 1) EXPECT_EQ(ws, 0u);
      const auto st = check_inplace(d, ws, [](unsigned char* p, const matrix_desc& dd, std::size_t w) {
        return host_run(p, dd, w, 0);
      }, static_cast<std::uint64_t>(s.rows * 31 + s.cols + es));
      EXPECT_TRUE(st.ok()) << st.message();
    }
}

// The short side divides the long one: the row shuffle takes the blocked loops.
TEST(InplaceHost, BlockedShuffleWhenTheShortSideDividesTheLong) {
  const inplace_shape shapes[] = {{4, 4000, 1}, {4000, 4, 1}, {16, 1600, 2}, {1600, 16, 1}, {7, 2100, 1},
                                  {2100, 7, 1}, {128, 256, 1}, {256, 128, 1}, {3, 30000, 1}, {30000, 3, 1}};
  for (const auto& s : shapes)
    for (int es : elem_sizes()) {
      const matrix_desc d = matrix_desc::packed(s.rows, s.cols, es, s.batch);
      ASSERT_TRUE(ip::make_rect_plan(s.rows, s.cols).map.shuffle_is_blocked());
      check_on_1_and_3_threads(d, [&] { return static_cast<std::uint64_t>(s.rows * 17 + s.cols + es); });
    }
}

TEST(InplaceHost, LargerWorkspacesAndThreadCounts) {
  for (const auto& s : inplace_shapes())
    for (int es : {1, 4, 16}) {
      const matrix_desc d = matrix_desc::packed(s.rows, s.cols, es, s.batch);
      const std::size_t ws = inplace_ws(d, false);
      const std::size_t full = static_cast<std::size_t>(s.rows * s.cols * es);
      for (std::size_t w : {ws + ws / 2 + es, full, full + 64})
        for (int threads : {1, 3}) {
          const auto st = check_inplace(d, w, [threads](unsigned char* p, const matrix_desc& dd, std::size_t ww) {
            return host_run(p, dd, ww, threads);
          });
          EXPECT_TRUE(st.ok()) << st.message();
        }
    }
}

TEST(InplaceHost, RandomShapes) {
  std::mt19937_64 g(14);
  for (int t = 0; t < 60; ++t) {
    const index_t m = 1 + static_cast<index_t>(g() % 700), n = 1 + static_cast<index_t>(g() % 700);
    const int es = elem_sizes()[g() % 5];
    const index_t batch = 1 + static_cast<index_t>(g() % 2);
    const matrix_desc d = matrix_desc::packed(m, n, es, batch);
    const auto st = check_inplace(d, inplace_ws(d, false), [](unsigned char* p, const matrix_desc& dd, std::size_t w) {
      return host_run(p, dd, w, 0);
    }, g());
    EXPECT_TRUE(st.ok()) << st.message();
  }
}

TEST(InplaceHost, DeviceSizedWorkspaceIsAtLeastTheHostOne) {
  const matrix_desc d = matrix_desc::packed(3000, 7000, 4);
  EXPECT_GE(inplace_ws(d, true), inplace_ws(d, false));
  EXPECT_LE(inplace_ws(d, true), static_cast<std::size_t>(3000) * 7000 * 4);
}

// Every rejection names its cause and leaves the data as it was (check_inplace
// compares the bytes after a failed run).
TEST(InplaceHost, RejectionsAreNamedAndTouchNothing) {
  using sc = xpose::status_code;
  const matrix_desc d = matrix_desc::packed(40, 70, 4, 2);
  const std::size_t ws = inplace_ws(d, false);
  ASSERT_GT(ws, 0u);
  auto run_ws = [](std::size_t pass_bytes, bool null_ws) {
    return [=](unsigned char* p, const matrix_desc& dd, std::size_t w) {
      std::vector<unsigned char> buf(w + 16);
      xpose::host_options o;
      return xpose::transpose_inplace_host(p, dd, null_ws ? nullptr : buf.data(), pass_bytes, o);
    };
  };
  EXPECT_EQ(check_inplace(d, ws, run_ws(ws - 1, false)).code(), sc::workspace_too_small);
  EXPECT_EQ(check_inplace(d, ws, run_ws(ws, true)).code(), sc::null_pointer);
  // Misaligned data, and a misaligned workspace.
  EXPECT_EQ(check_inplace(d, ws, [](unsigned char* p, const matrix_desc& dd, std::size_t) {
              return xpose::transpose_inplace_host(p + 1, dd, nullptr, 0);
            }).code(),
            sc::misaligned);
  EXPECT_EQ(check_inplace(d, ws, [](unsigned char* p, const matrix_desc& dd, std::size_t w) {
              std::vector<unsigned char> buf(w + 16);
              return xpose::transpose_inplace_host(p, dd, buf.data() + 1, w);
            }).code(),
            sc::misaligned);
  // A workspace inside the data.
  const matrix_desc wide = matrix_desc::packed(4, 4000, 4);
  const std::size_t wide_ws = inplace_ws(wide, false);
  ASSERT_LT(wide_ws + 64, std::size_t{64000});
  EXPECT_EQ(check_inplace(wide, 0, [=](unsigned char* p, const matrix_desc& dd, std::size_t) {
              return xpose::transpose_inplace_host(p, dd, p + 64, wide_ws);
            }).code(),
            sc::overlap);
  // Null data; non-packed descs; bad element size; negative sizes.
  EXPECT_EQ(xpose::transpose_inplace_host(nullptr, matrix_desc::packed(3, 3, 4), nullptr, 0).code(), sc::null_pointer);
  matrix_desc padded = matrix_desc::packed(8, 8, 4);
  padded.ld_in = 9;
  EXPECT_EQ(check_inplace(matrix_desc::packed(8, 8, 4), 0, [&](unsigned char* p, const matrix_desc&, std::size_t) {
              return xpose::transpose_inplace_host(p, padded, nullptr, 0);
            }).code(),
            sc::not_packed);
  matrix_desc gapped = matrix_desc::packed(8, 8, 4, 2);
  gapped.stride_out += 1;
  std::size_t b = 0;
  EXPECT_EQ(xpose::inplace_workspace_size(gapped, false, &b).code(), sc::not_packed);
  matrix_desc odd = matrix_desc::packed(8, 8, 3);
  EXPECT_EQ(xpose::inplace_workspace_size(odd, true, &b).code(), sc::unsupported_elem_size);
  EXPECT_EQ(xpose::inplace_workspace_size(matrix_desc::packed(-1, 8, 4), true, &b).code(), sc::negative_size);
  EXPECT_EQ(xpose::inplace_workspace_size(matrix_desc::packed(1ll << 40, 1ll << 30, 4), true, &b).code(),
            sc::size_overflow);
  EXPECT_EQ(xpose::inplace_workspace_size(d, false, nullptr).code(), sc::null_pointer);
  // An empty matrix is a no-op, even with null pointers.
  EXPECT_TRUE(xpose::transpose_inplace_host(nullptr, matrix_desc::packed(0, 8, 4), nullptr, 0).ok());
}

TEST(InplaceHost, DeviceEntryValidatesWithoutAGpu) {
  if (xpose::device_count() > 0) GTEST_SKIP() << "a GPU is present: tests/cuda/test_inplace.cpp covers it";
  using sc = xpose::status_code;
  std::vector<unsigned char> a(40 * 70 * 4);
  EXPECT_EQ(xpose::transpose_inplace(a.data(), matrix_desc::packed(40, 70, 4), nullptr, 0).code(), sc::null_pointer);
  const auto s = xpose::transpose_inplace(a.data(), matrix_desc::packed(40, 40, 4), nullptr, 0);
  EXPECT_TRUE(s.code() == sc::no_device || s.code() == sc::not_device_memory) << xpose::to_string(s.code());
}
