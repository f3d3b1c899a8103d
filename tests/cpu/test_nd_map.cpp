// The GPU kernels' index maps and thread slots (src/core/nd_map.hpp) run on the
// host: emulating the tile and copy kernels thread by thread with them, for every
// shape of the tile tables (src/cuda/nd/policy_nd.hpp) and both index widths, must
// reproduce the reference permutation exactly.
#include <gtest/gtest.h>
#include <xpose/xpose.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "core/core.hpp"
#include "core/elem.hpp"
#include "core/nd_map.hpp"
#include "cuda/nd/nd_route.hpp"
#include "cuda/nd/policy_nd.hpp"
#include "permute_ref.hpp"
#include "test_util.hpp"

namespace {

using namespace xpose::detail;
using xpose::index_t;

// nd_ptile_kernel<E, S> on the host (8-16 byte elements, one per lane), thread by thread and step by step as the
// kernel runs them: per tile, the row bases, every thread's loads into registers, the writes into a poisoned shared
// tile, then every thread's stores from the tile. Every global access is checked against the exact extents of the
// views (in_elems, out_elems elements from the pointers) and every output element counted in `writes`.
template <int E, int S, class Map>
void emulate_ptile(const xpose::plan& p, const unsigned char* in, index_t in_elems, unsigned char* out,
                   index_t out_elems, std::vector<int>& writes) {
  constexpr int K = ptile_k(E), NT = nd_ptile_threads, LA = nd_ptile_for(S).la, LB = nd_ptile_for(S).lb;
  constexpr int TA = ptile_side(E, LA), TB = ptile_side(E, LB);
  constexpr int SA = ptile_steps(TB, LA, NT), SB = ptile_steps(TA, LB, NT);
  static_assert(K == 1 && TA + TB <= NT, "one element per lane, one row base per thread");
  const Map m = make_ptile_map<Map>(p, S);
  int bad = 0;
  auto load = [&](index_t off, void* dst) {
    if (off < 0 || off >= in_elems) return void(++bad);
    std::memcpy(dst, in + off * E, static_cast<std::size_t>(E));
  };
  auto store = [&](index_t off, const void* src) {
    if (off < 0 || off >= out_elems) return void(++bad);
    std::memcpy(out + off * E, src, static_cast<std::size_t>(E));
    ++writes[static_cast<std::size_t>(off)];
  };
  std::vector<unsigned char> sm(static_cast<std::size_t>(ptile_smem_words(E, LA, TB) * E));
  std::vector<index_t> in_row(TB), out_row(TA);
  std::vector<unsigned char> reg(static_cast<std::size_t>(NT * SA * E));
  for (index_t t = 0; t < m.tiles; ++t) {
    index_t io, oo, a0, b0;
    m.tile(t, &io, &oo, &a0, &b0, TA, TB);
    const int na = static_cast<int>(m.n_a - a0 < TA ? m.n_a - a0 : TA);
    const int nb = static_cast<int>(m.n_b - b0 < TB ? m.n_b - b0 : TB);
    for (int b = 0; b < TB; ++b) in_row[b] = b < nb ? io + m.b_in(b0 + b) + a0 * m.a_is : 0;
    for (int a = 0; a < TA; ++a) out_row[a] = a < na ? oo + m.a_out(a0 + a) + b0 * m.b_os : 0;
    std::memset(sm.data(), 0xA5, sm.size());
    for (int tid = 0; tid < NT; ++tid)
      for (int j = 0; j < SA; ++j) {
        const ptile_slot s = ptile_slot_of<LA, NT>(tid, j);
        unsigned char* v = reg.data() + (static_cast<std::size_t>(tid) * SA + j) * E;
        std::memset(v, 0, E);
        if (s.row < nb && s.w < na) load(in_row[s.row] + s.w * m.a_is, v);
      }
    for (int tid = 0; tid < NT; ++tid)
      for (int j = 0; j < SA; ++j) {
        const ptile_slot s = ptile_slot_of<LA, NT>(tid, j);
        if (s.row >= nb) continue;
        const std::size_t w = static_cast<std::size_t>(ptile_word<K, LA>(s.w, s.row)) * E;
        if (w + E > sm.size()) return void(ADD_FAILURE() << "shared tile overrun");
        std::memcpy(&sm[w], reg.data() + (static_cast<std::size_t>(tid) * SA + j) * E, E);
      }
    for (int tid = 0; tid < NT; ++tid)
      for (int j = 0; j < SB; ++j) {
        const ptile_slot s = ptile_slot_of<LB, NT>(tid, j);
        if (s.row < na && s.w < nb)
          store(out_row[s.row] + s.w * m.b_os, &sm[static_cast<std::size_t>(ptile_elem<K, LA>(s.row, s.w)) * E]);
      }
  }
  EXPECT_EQ(bad, 0) << "accesses outside the views";
}

template <class Map>
void emulate_ptile_shape(const xpose::plan& p, int s, const unsigned char* in, index_t in_elems, unsigned char* out,
                         index_t out_elems, std::vector<int>& writes) {
  static_assert(nd_ptile_shapes == 3, "one case per shape");
  ASSERT_GE(p.in.elem_size, 8) << "the packed tile runs 8-16 byte elements";
  auto run = [&](auto e) {
    constexpr int E = decltype(e)::value;
    if (s == 1) emulate_ptile<E, 1, Map>(p, in, in_elems, out, out_elems, writes);
    else if (s == 2) emulate_ptile<E, 2, Map>(p, in, in_elems, out, out_elems, writes);
    else emulate_ptile<E, 0, Map>(p, in, in_elems, out, out_elems, writes);
  };
  if (p.in.elem_size == 8) run(std::integral_constant<int, 8>{});
  else run(std::integral_constant<int, 16>{});
}

// nd_rtile_kernel<E> on the host, as emulate_ptile: per tile the span bases, every
// thread's loads of the input spans (whole aligned words, elements at their ends) into
// the poisoned shared tile, then every thread's output word gathered from it and stored.
// in/out: the views' pointers; offsets in elements of the row plan q.
template <int E>
void emulate_rtile(const xpose::plan& q, index_t R, const unsigned char* in, index_t in_elems, unsigned char* out,
                   index_t out_elems, std::vector<int>& writes, bool wide) {
  constexpr int K = ptile_k(E), V = K * E, NT = rtile_threads, W = rtile_words(E), S = W / NT;
  vtile_groups grp;
  const rtile_geom g = make_rtile_geom(q, R, &grp);
  const vtile_map m = make_vtile_map_on<vtile_map>(q, grp, g.ta, g.tb);
  const vtile_map32 m32 = make_vtile_map_on<vtile_map32>(q, grp, g.ta, g.tb);
  EXPECT_TRUE(vtile_fits32(m));
  EXPECT_LE(g.ta + g.tb, NT);
  EXPECT_LE(g.tb * g.sw, W);
  EXPECT_LE(g.ta * g.ow, W);
  const int in_e = static_cast<int>(reinterpret_cast<std::uintptr_t>(in) / E % K);
  const int out_e = static_cast<int>(reinterpret_cast<std::uintptr_t>(out) / E % K);
  int bad = 0;
  auto load = [&](index_t off, int n, void* dst) {
    if (off < 0 || off + n > in_elems) return void(++bad);
    std::memcpy(dst, in + off * E, static_cast<std::size_t>(n * E));
  };
  auto store = [&](index_t off, int n, const void* src) {
    if (off < 0 || off + n > out_elems) return void(++bad);
    std::memcpy(out + off * E, src, static_cast<std::size_t>(n * E));
    for (int i = 0; i < n; ++i) ++writes[static_cast<std::size_t>(off + i)];
  };
  std::vector<unsigned char> sm(static_cast<std::size_t>(W * V));
  std::vector<index_t> in_row(NT), out_row(NT);
  std::vector<int> reg_e(NT);
  for (index_t t = 0; t < m.tiles; ++t) {
    index_t io, oo, a0, b0;
    if (wide) m.tile(t, &io, &oo, &a0, &b0, g.ta, g.tb);
    else m32.tile(t, &io, &oo, &a0, &b0, g.ta, g.tb);
    const int na = static_cast<int>(m.n_a - a0 < g.ta ? m.n_a - a0 : g.ta);
    const int nb = static_cast<int>(m.n_b - b0 < g.tb ? m.n_b - b0 : g.tb);
    for (int b = 0; b < nb; ++b) {
      in_row[b] = io + (wide ? m.b_in(b0 + b) : m32.b_in(b0 + b)) + a0 * m.a_is;
      reg_e[b] = b * g.sw * K + ptile_shift<K>(in_e, in_row[b], true);
    }
    for (int a = 0; a < na; ++a) out_row[a] = oo + (wide ? m.a_out(a0 + a) : m32.a_out(a0 + a)) + b0 * m.b_os;
    std::memset(sm.data(), 0xA5, sm.size());
    const int span_a = na * g.R, span_b = nb * g.R;
    for (int tid = 0; tid < NT; ++tid)
      for (int j = 0; j < S; ++j) {
        std::uint32_t w = 0;
        const int jr = static_cast<int>(g.sw_div.divmod(static_cast<std::uint32_t>(j * NT + tid), &w));
        unsigned char v[16] = {};
        if (jr < nb) {
          const index_t row = in_row[jr];
          if (K == 1) {
            if (static_cast<int>(w) < span_a) load(row + w, 1, v);
          } else {
            const int e = static_cast<int>(w) * K - ptile_shift<K>(in_e, row, true);
            if (e >= 0 && e + K <= span_a) {
              if ((reinterpret_cast<std::uintptr_t>(in) + static_cast<std::uintptr_t>((row + e) * E)) % 4 != 0) ++bad;
              load(row + e, K, v);
            } else if (e < span_a) {
              for (int i = 0; i < K; ++i)
                if (e + i >= 0 && e + i < span_a) load(row + e + i, 1, v + i * E);
            }
          }
        }
        std::memcpy(&sm[static_cast<std::size_t>(j * NT + tid) * V], v, V);
      }
    for (int tid = 0; tid < NT; ++tid)
      for (int j = 0; j < S; ++j) {
        std::uint32_t w = 0;
        const int i = static_cast<int>(g.ow_div.divmod(static_cast<std::uint32_t>(j * NT + tid), &w));
        if (i >= na) continue;
        const index_t row = out_row[i];
        const int so = ptile_shift<K>(out_e, row, true), e0 = static_cast<int>(w) * K - so;
        if (e0 >= span_b) continue;
        std::uint32_t c = 0;
        const int e = e0 < 0 ? 0 : e0;
        int jj = static_cast<int>(g.r_div.divmod(static_cast<std::uint32_t>(e), &c));
        auto elem = [&](unsigned char* dst) {
          const std::size_t at = static_cast<std::size_t>(reg_e[jj] + i * g.R + static_cast<int>(c)) * E;
          if (at + E > sm.size()) return void(++bad);
          std::memcpy(dst, &sm[at], E);
        };
        if (K == 1) {
          unsigned char x[16];
          elem(x);
          store(row + e, 1, x);
          continue;
        }
        unsigned char x[4] = {};
        for (int k = 0; k < K; ++k) {
          if (e0 + k < 0 || e0 + k >= span_b) continue;
          elem(x + k * E);
          if (++c == static_cast<std::uint32_t>(g.R)) c = 0, ++jj;
        }
        if (e0 >= 0 && e0 + K <= span_b) {
          if ((reinterpret_cast<std::uintptr_t>(out) + static_cast<std::uintptr_t>((row + e0) * E)) % 4 != 0) ++bad;
          store(row + e0, K, x);
        } else {
          for (int k = 0; k < K; ++k)
            if (e0 + k >= 0 && e0 + k < span_b) store(row + e0 + k, 1, x + k * E);
        }
      }
  }
  EXPECT_EQ(bad, 0) << "accesses outside the views or the shared tile, or unaligned words";
}

// nd_copy_kernel on the host: blocks of nd_copy_threads threads, nd_copy_units slots each.
template <class Map>
void emulate_copy(const xpose::plan& p, const unsigned char* in, unsigned char* out) {
  const int unit = copy_unit(p, in, out);
  const Map m = make_copy_map<Map>(p, unit);
  for (index_t blk = 0; copy_slot<nd_copy_threads, nd_copy_units>(blk, 0, 0) < m.total; ++blk)
    for (int tid = 0; tid < nd_copy_threads; ++tid)
      for (int j = 0; j < nd_copy_units; ++j) {
        const index_t i = copy_slot<nd_copy_threads, nd_copy_units>(blk, tid, j);
        if (i >= m.total) continue;
        index_t io, oo;
        m.element(i, &io, &oo);
        std::memcpy(out + oo * unit, in + io * unit, static_cast<std::size_t>(unit));
      }
}

struct nd_case {
  xpose_test::perm_case c;
  xpose::plan p;
  std::vector<unsigned char> in, want;
};

bool make_case(std::mt19937_64& g, int iter, const xpose_test::perm_case& c, nd_case* out) {
  out->c = c;
  if (!xpose::make_plan(c.in, c.out, c.axes, c.in.rank, {}, &out->p).ok()) return false;
  const std::int64_t es = c.in.elem_size;
  out->in = xpose_test::random_bytes(static_cast<std::size_t>(xpose_test::span_elems(c.in) * es), iter);
  out->want.assign(static_cast<std::size_t>(xpose_test::span_elems(c.out) * es), 0xFF);
  xpose_test::reference_permute(out->in.data(), out->want.data(), c.in, c.out, c.axes, false);
  (void)g;
  return true;
}

using xpose_test::shuffled_case;

// The plan of a packed permutation (row-major extents, np.transpose axes).
xpose::plan plan_of(std::vector<index_t> ext, std::vector<int> axes, int es = 4, bool conj = false) {
  const int r = static_cast<int>(ext.size());
  const xpose::layout in = xpose::layout::packed(r, ext.data(), es);
  xpose::plan p;
  EXPECT_TRUE(xpose::make_plan(in, xpose::permuted_packed(in, axes.data(), r), axes.data(), r, {conj}, &p).ok());
  return p;
}

// Runs the packed tile's emulation (shape s; -1: the shape of nd_ptile_shape; 32-bit
// divisors unless wide) on a case with both views placed `shift` elements past an aligned allocation of exactly
// their extent; the output poisoned with 0xFF must equal the reference byte for byte
// and every element of the output view be written exactly once.
void check_ptile(const nd_case& k, int s, int shift, const char* what, bool wide = false) {
  const xpose::plan& p = k.p;
  const index_t es = p.in.elem_size;
  const index_t ni = xpose_test::span_elems(k.c.in), no = xpose_test::span_elems(k.c.out);
  std::vector<unsigned char> ib(static_cast<std::size_t>((ni + shift) * es)), ob(static_cast<std::size_t>((no + shift) * es), 0xFF);
  std::memcpy(ib.data() + shift * es, k.in.data(), k.in.size());
  std::vector<int> writes(static_cast<std::size_t>(no), 0);
  const int sh = s < 0 ? nd_ptile_shape(p) : s;
  ASSERT_TRUE(vtile_fits32(make_ptile_map(p, sh)));
  if (wide) emulate_ptile_shape<vtile_map>(p, sh, ib.data() + shift * es, ni, ob.data() + shift * es, no, writes);
  else emulate_ptile_shape<vtile_map32>(p, sh, ib.data() + shift * es, ni, ob.data() + shift * es, no, writes);
  const std::vector<unsigned char> got(ob.begin() + shift * es, ob.end());
  ASSERT_EQ(got, k.want) << what << " shape " << s << " shift " << shift << " es " << es << " rank " << p.out.rank;
  index_t n = 0;
  for (int w : writes) {
    ASSERT_LE(w, 1) << what << " an element written twice";
    n += w;
  }
  ASSERT_EQ(n, p.count) << what;
}

TEST(NdMap, PackedTileEveryShapeAndShiftAndTheCopyRealiseThePermutation) {
  std::mt19937_64 g(31);
  int nd = 0, copies = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const int es = 8 << (g() % 2);  // the packed tile's element sizes
    nd_case k;
    ASSERT_TRUE(make_case(g, iter, xpose_test::random_case(g, 2 + static_cast<int>(g() % 7), es, 5000, g() % 2), &k));
    const xpose::plan& p = k.p;
    if (p.algo == xpose::algorithm::permute_nd) {
      const int s = static_cast<int>(g() % nd_ptile_shapes), shift = static_cast<int>(g() % 4);
      ASSERT_NO_FATAL_FAILURE(check_ptile(k, s, shift, "random", true));
      ASSERT_NO_FATAL_FAILURE(check_ptile(k, -1, 0, "random"));
      ++nd;
    } else if (p.algo == xpose::algorithm::strided_copy) {
      for (int wide = 0; wide < 2; ++wide) {
        std::vector<unsigned char> got(k.want.size(), 0xFF);
        if (wide) emulate_copy<copy_map>(p, k.in.data(), got.data());
        else emulate_copy<copy_map32>(p, k.in.data(), got.data());
        ASSERT_EQ(got, k.want) << "iter " << iter << " wide " << wide;
      }
      ++copies;
    }
  }
  EXPECT_GT(nd, 50);
  EXPECT_GT(copies, 10);
}

// Ranks 2-8 of odd and prime extents (the short fastest dims that left one-dim tile sides
// mostly idle), every element size, input views of shuffled strides with gaps, both
// views at every alignment shift of a word, every packed tile shape.
TEST(NdMap, PackedTileOddAndPrimeExtentsStridedViews) {
  std::mt19937_64 g(7);
  int nd = 0;
  for (int iter = 0; iter < 120; ++iter) {
    const int es = 8 << (g() % 2), r = 2 + static_cast<int>(g() % 7);
    const xpose_test::perm_case c = xpose_test::prime_case(g, r, es, 4000);
    nd_case k;
    if (!make_case(g, iter, c, &k) || k.p.algo != xpose::algorithm::permute_nd) continue;
    for (int s = 0; s < nd_ptile_shapes; ++s)
      ASSERT_NO_FATAL_FAILURE(check_ptile(k, s, static_cast<int>((iter + s) % 4), "prime", (iter + s) % 2 == 0));
    ++nd;
  }
  EXPECT_GT(nd, 40);
}

// The row tile's class: strided copies of kept rows under 128 bytes (1-31 elements of
// every size) that lie back to back on both sides, ranks 3-6 of odd extents, output
// views with gaps between outer dims, both views at every shift of a word, both index
// widths; every such plan that the run tile cannot take routes to the row tile.
TEST(NdMap, RowTileShortKeptRows) {
  std::mt19937_64 g(13);
  int taken = 0, widened = 0;
  for (int iter = 0; iter < 300; ++iter) {
    const int es = 1 << (g() % 5), r = 3 + static_cast<int>(g() % 4);
    std::vector<index_t> ext(static_cast<std::size_t>(r));
    index_t n = 1;
    for (int q = 0; q < r; ++q) {
      ext[static_cast<std::size_t>(q)] = 1 + static_cast<index_t>(g() % (q == r - 1 ? 31 : 23));
      n *= ext[static_cast<std::size_t>(q)];
    }
    if (n > 60000) continue;
    xpose_test::perm_case c;
    c.in = xpose::layout::packed(r, ext.data(), es);
    for (int q = 0; q < r; ++q) c.axes[q] = q;
    for (int q = r - 2; q > 0; --q) std::swap(c.axes[q], c.axes[g() % (q + 1)]);  // the last axis kept
    c.out = xpose::permuted_packed(c.in, c.axes, r);
    if (iter % 3 == 1) {  // gaps after the output's two fastest dims
      c.out.strides[r - 3] += static_cast<index_t>(1 + g() % 5);
      for (int q = r - 4; q >= 0; --q) c.out.strides[q] = c.out.strides[q + 1] * c.out.extents[q + 1];
    }
    nd_case k;
    if (!make_case(g, iter, c, &k)) continue;
    const int shift = iter % 4;
    const index_t ni = xpose_test::span_elems(k.c.in), no = xpose_test::span_elems(k.c.out);
    // allocations aligned to 16 bytes (std::vector<__int128>-like): a shift of 0 widens the unit
    std::vector<std::uint64_t> ibw(static_cast<std::size_t>(((ni + shift) * es + 7) / 8 + 2)), obw(static_cast<std::size_t>(((no + shift) * es + 7) / 8 + 2));
    unsigned char* ib = reinterpret_cast<unsigned char*>(ibw.data() + (reinterpret_cast<std::uintptr_t>(ibw.data()) % 16 ? 1 : 0));
    unsigned char* ob = reinterpret_cast<unsigned char*>(obw.data() + (reinterpret_cast<std::uintptr_t>(obw.data()) % 16 ? 1 : 0));
    std::memset(ob, 0xFF, static_cast<std::size_t>((no + shift) * es));
    std::memcpy(ib + shift * es, k.in.data(), k.in.size());
    const nd_route rt = nd_route_of(k.p, ib + shift * es, ob + shift * es);
    if (rt.kernel != nd_kernel::rtile) continue;
    const xpose::plan& q = rt.q;
    const index_t R = rt.R;
    widened += q.in.elem_size > es;
    std::vector<int> writes(static_cast<std::size_t>(no * es / q.in.elem_size), 0);
    const index_t qe = q.in.elem_size;
    with_elem_size(q.in.elem_size, [&](auto e) {
      emulate_rtile<decltype(e)::value>(q, R, ib + shift * es, ni * es / qe, ob + shift * es, no * es / qe, writes, iter % 2 == 0);
    });
    const std::vector<unsigned char> got(ob + shift * es, ob + (shift + no) * es);
    ASSERT_EQ(got, k.want) << "iter " << iter << " es " << es << " R " << R << " rank " << r;
    index_t cnt = 0;
    for (int w : writes) {
      ASSERT_LE(w, 1) << "an element written twice";
      cnt += w;
    }
    ASSERT_EQ(cnt * qe, k.p.count * es);
    ++taken;
  }
  EXPECT_GT(taken, 20);
  EXPECT_GE(widened, 2);
}

// TTC-like extents (48, 28, 15, 112: partial tiles), scaled down further, 8- and 16-byte elements.
TEST(NdMap, PackedTileTtcLikeShapes) {
  std::mt19937_64 g(5);
  const std::vector<std::vector<index_t>> shapes = {{28, 48, 3, 12}, {48, 7, 5, 12}, {15, 4, 8, 3, 15},
                                                    {5, 3, 112, 7},  {144, 5, 47},   {49, 6, 96}, {3, 250, 3, 7}};
  int iter = 0;
  for (const auto& sh : shapes)
    for (int es : {8, 16})
      for (int perm = 0; perm < 2; ++perm, ++iter) {
        nd_case k;
        ASSERT_TRUE(make_case(g, iter, shuffled_case(g, sh, es), &k));
        if (k.p.algo == xpose::algorithm::permute_nd) ASSERT_NO_FATAL_FAILURE(check_ptile(k, -1, iter % 4, "ttc"));
      }
}

// The chooser packs short fastest dims into full tile sides (8-byte elements: 32-element sides), an exact 32 x 32
// transpose fills its tile, and a 7-element input side takes the thin 8 x 32 shape.
TEST(NdPolicy, PackedTileFillsShortFastestDims) {
  auto fill = [](const xpose::plan& p) {
    const int s = nd_ptile_shape(p), E = p.in.elem_size;
    const vtile_map m = make_ptile_map(p, s);
    return tile_fill(m.n_a, ptile_side(E, nd_ptile_for(s).la)) * tile_fill(m.n_b, ptile_side(E, nd_ptile_for(s).lb));
  };
  EXPECT_EQ(nd_ptile_shape(plan_of({32, 32}, {1, 0}, 8)), 0);
  EXPECT_DOUBLE_EQ(fill(plan_of({32, 32}, {1, 0}, 8)), 1.0);
  // A: 5*5*5 = 125 over 32-element sides (0.98), B: 100 (0.78): packed groups, not one dim per side (5/32)
  EXPECT_GE(fill(plan_of({100, 5, 5, 5}, {3, 2, 1, 0}, 8)), 0.75);
  // A: 7 of the square's 32 columns (0.22), 7 of the thin 8 x 32 tile's 8 (0.875, over 2x): the thin one
  EXPECT_EQ(nd_ptile_shape(plan_of({3, 4000, 7}, {2, 1, 0}, 8)), 2);
  EXPECT_GE(fill(plan_of({3, 4000, 7}, {2, 1, 0}, 8)), 0.8);
  // every shape fits its shared tile, row bases and registers (nd_ptile_kernel)
  for (int e = 8; e <= 16; e *= 2)
    for (int s = 0; s < nd_ptile_shapes; ++s) {
      const int ta = ptile_side(e, nd_ptile_for(s).la), tb = ptile_side(e, nd_ptile_for(s).lb);
      EXPECT_LE(ta + tb, nd_ptile_threads);
      EXPECT_LE(ptile_smem_words(e, nd_ptile_for(s).la, tb) * e + (ta + tb) * 8, 48 * 1024);
    }
}

// Calls f(io, oo, a0, b0, na, nb) for every tile of a vtile_map (its offsets, origin and
// the extents left from it), the emulated shared tile poisoned before each.
template <class Map, class F>
void each_vtile(const Map& m, int ta, int tb, std::vector<unsigned char>& tile, F&& f) {
  for (index_t t = 0; t < m.tiles; ++t) {
    index_t io, oo, a0, b0;
    m.tile(t, &io, &oo, &a0, &b0, ta, tb);
    std::memset(tile.data(), 0xA5, tile.size());
    f(io, oo, a0, b0, m.n_a - a0, m.n_b - b0);
  }
}

// nd_vtile_kernel<E, V, Rows> on the host: per tile, every thread's loads
// (vtile_load_slot: the k = 16/E elements of one chunk of a tile row) fill a poisoned
// logical tile (b, a), then every micro-block's stores (vtile_store_slot: kk output rows
// of k elements) write it out. Rows: a load's row offset is the one its warp's lane
// vtile_row_lane(lane, j) computed for row vtile_warp_row(warp, lane) (offsets of rows
// past the tile's end are never read, so the emulation leaves them poisoned); the
// stores read a per-tile table of output row offsets. The swizzled shared tile and the
// register micro-transposes between them are best's (tests/cuda/test_best.cpp; the GPU
// tests run this kernel whole).
template <int E, int V, bool Rows, class Map>
void emulate_vtile(const xpose::plan& p, bool pack, const unsigned char* in, unsigned char* out) {
  constexpr nd_geom bt = nd_vtile_for(E, V);
  constexpr int k = 16 / E, NCH = bt.chunks, NT = bt.threads, TA = NCH * k, TB = bt.rows;
  constexpr int H = 16 / bt.micro_bytes, kk = bt.micro_bytes / E, RN = TB / k;
  constexpr int RPS = NT / NCH, L = TB / RPS, MPT = RN * NCH * H / NT, W = 32 / NCH;
  static_assert(NT % 32 == 0 && W * L <= 32, "nd_vtile_table_valid");
  const Map m = make_vtile_map<Map>(p, TA, TB, pack);
  std::vector<unsigned char> tile(static_cast<std::size_t>(TA * TB * E));
  std::vector<index_t> lane_row(NT), out_row(TA);
  each_vtile(m, TA, TB, tile, [&](index_t io, index_t oo, index_t a0, index_t b0, index_t na, index_t nb) {
    std::fill(lane_row.begin(), lane_row.end(), -(index_t{1} << 40));  // poison: a wrong lane reads far outside
    std::fill(out_row.begin(), out_row.end(), -(index_t{1} << 40));
    for (int tid = 0; tid < NT && Rows; ++tid) {
      const int r = vtile_warp_row<NCH, RPS>(tid / 32, tid % 32);
      if (tid % 32 < W * L && r < nb) lane_row[static_cast<std::size_t>(tid)] = io + m.b_in(b0 + r) + a0;
    }
    for (int a = 0; a < TA && Rows; ++a)
      if (a < na) out_row[static_cast<std::size_t>(a)] = oo + m.a_out(a0 + a) + b0;
    for (int tid = 0; tid < NT; ++tid)
      for (int j = 0; j < L; ++j) {
        const vtile_slot s = vtile_load_slot<k, NCH, NT>(tid, j);
        if (s.a >= na || s.b >= nb) continue;
        const index_t row = Rows ? lane_row[static_cast<std::size_t>(tid - tid % 32 + vtile_row_lane<NCH>(tid % 32, j))]
                                 : io + m.b_in(b0 + s.b) + a0;
        ASSERT_GE(row, 0) << "tid " << tid << " j " << j;
        std::memcpy(&tile[static_cast<std::size_t>((s.b * TA + s.a) * E)], in + (row + s.a) * E, k * E);
      }
    for (int tid = 0; tid < NT; ++tid)
      for (int q = 0; q < MPT; ++q) {
        const vtile_slot s = vtile_store_slot<k, kk, H, RN>(tid + q * NT);
        if (s.b >= nb) continue;
        for (int i = 0; i < kk; ++i) {
          if (s.a + i >= na) continue;
          const index_t row = Rows ? out_row[static_cast<std::size_t>(s.a + i)] : oo + m.a_out(a0 + s.a + i) + b0;
          for (int e = 0; e < k; ++e)
            std::memcpy(out + (row + s.b + e) * E, &tile[static_cast<std::size_t>(((s.b + e) * TA + s.a + i) * E)], E);
        }
      }
  });
}

// Runs the emulation of tile shape v on packed sides or not (v = -1: the route's shape
// and packing, nd_vtile_choice) when the kernel would run (16-byte chunks possible;
// nullptr stands for 16-byte aligned pointers); false when the plan takes another tile.
template <class Map, bool Rows = false>
bool emulate_vtile_any(const xpose::plan& p, bool pack, const unsigned char* in, unsigned char* out, int v = -1) {
  const int E = p.in.elem_size;
  if (E < 2) return false;
  if (v < 0) {
    const vtile_choice c = nd_vtile_choice(p);
    v = c.v, pack = c.pack;
  }
  const nd_geom bt = nd_vtile_for(E, v);
  if (!vtile_vector_ok(make_vtile_map<Map>(p, bt.chunks * 16 / E, bt.rows, pack), E, nullptr, nullptr)) return false;
  with_elem_size(E, [&](auto e) {
    constexpr int EE = decltype(e)::value;
    static_assert(nd_vtile_shapes == 6, "one case per shape");
    if constexpr (EE >= 2) {
      switch (v) {
        case 1: return emulate_vtile<EE, 1, Rows, Map>(p, pack, in, out);
        case 2: return emulate_vtile<EE, 2, Rows, Map>(p, pack, in, out);
        case 3: return emulate_vtile<EE, 3, Rows, Map>(p, pack, in, out);
        case 4: return emulate_vtile<EE, 4, Rows, Map>(p, pack, in, out);
        case 5: return emulate_vtile<EE, 5, Rows, Map>(p, pack, in, out);
        default: return emulate_vtile<EE, 0, Rows, Map>(p, pack, in, out);
      }
    }
  });
  return true;
}

// Packed layouts (some with strides padded by multiples of 16 elements, which stop a
// group from growing) whose input-fastest and output-fastest extents are multiples of
// 8: most take the vector tile for every element size of 2 to 16 bytes.
xpose_test::perm_case vector_friendly_case(std::mt19937_64& g, int es) {
  static const index_t any[] = {1, 2, 3, 5, 7, 15, 16, 28, 32, 48}, mult8[] = {8, 16, 24, 32, 48, 64, 96, 112};
  xpose_test::perm_case c;
  const int r = 2 + static_cast<int>(g() % 5);
  for (int q = 0; q < r; ++q) c.axes[q] = q;
  for (int q = r - 1; q > 0; --q) std::swap(c.axes[q], c.axes[g() % (q + 1)]);
  index_t ext[xpose::layout::max_rank];
  for (int q = 0; q < r; ++q) ext[q] = any[g() % 10];
  ext[r - 1] = mult8[g() % 8];
  ext[c.axes[r - 1]] = mult8[g() % 8];
  index_t n = 1;
  for (int q = 0; q < r; ++q) n *= ext[q];
  for (int q = 0; q < r && n > 60000; ++q)  // small enough to emulate: shrink the other dims
    if (q != r - 1 && q != c.axes[r - 1]) n = n / ext[q] * std::min<index_t>(ext[q], 3), ext[q] = std::min<index_t>(ext[q], 3);
  c.in = xpose::layout::packed(r, ext, es);
  const bool pad = g() % 3 == 0;
  for (int q = r - 2; q >= 0 && pad; --q) c.in.strides[q] = c.in.strides[q + 1] * ext[q + 1] + 16 * static_cast<index_t>(g() % 2);
  c.out = xpose::permuted_packed(c.in, c.axes, r);
  return c;
}

TEST(NdMap, VectorTileOnPackedAndFlatSidesRealisesThePermutation) {
  std::mt19937_64 g(73);
  int ran = 0, packed = 0;
  for (int iter = 0; iter < 300; ++iter) {
    const int es = 2 << (g() % 4);
    nd_case k;
    ASSERT_TRUE(make_case(g, iter, vector_friendly_case(g, es), &k));
    const xpose::plan& p = k.p;
    if (p.algo != xpose::algorithm::permute_nd) continue;
    for (int pack = 0; pack < 2; ++pack)
      for (int rows = 0; rows < 2; ++rows) {  // the kernel's variants: Rows on 32-bit maps, plain on 64-bit ones
        std::vector<unsigned char> got(k.want.size(), 0xFF);
        const int v = static_cast<int>(g() % nd_vtile_shapes);
        const bool did = rows ? emulate_vtile_any<vtile_map32, true>(p, pack, k.in.data(), got.data(), v)
                              : emulate_vtile_any<vtile_map>(p, pack, k.in.data(), got.data(), v);
        if (!did) continue;
        ASSERT_EQ(got, k.want) << "iter " << iter << " es " << es << " pack " << pack << " rows " << rows << " v " << v;
        ++ran;
        const vtile_map m = make_vtile_map<vtile_map>(p, 64, 64, true);
        packed += pack && (m.ga > 1 || m.gb > 1);
      }
  }
  EXPECT_GT(ran, 200);
  EXPECT_GT(packed, 20);
}

TEST(NdMap, VectorTileOnTtcLikeShapes) {
  std::mt19937_64 g(11);
  const std::vector<std::vector<index_t>> shapes = {{28, 48, 7, 3, 48}, {48, 7, 5, 48},  {15, 4, 32, 3, 5, 32},
                                                    {5, 3, 112, 7, 32}, {96, 5, 15, 8}, {15, 3, 32, 5, 32, 16}};
  int iter = 0, ran = 0;
  for (const auto& sh : shapes)
    for (int es : {2, 4, 8, 16})
      for (int perm = 0; perm < 4; ++perm, ++iter) {
        const xpose_test::perm_case c = shuffled_case(g, sh, es);
        nd_case k;
        ASSERT_TRUE(make_case(g, iter, c, &k));
        if (k.p.algo != xpose::algorithm::permute_nd) continue;
        for (int rows = 0; rows < 2; ++rows) {  // the route's shape: Rows on 32-bit maps, plain on 64-bit ones
          if (!xpose_test::sampled_case()) continue;
          std::vector<unsigned char> got(k.want.size(), 0xFF);
          const bool did = rows ? emulate_vtile_any<vtile_map32, true>(k.p, false, k.in.data(), got.data())
                                : emulate_vtile_any<vtile_map>(k.p, false, k.in.data(), got.data());
          if (!did) continue;
          ASSERT_EQ(got, k.want) << "shape " << iter << " es " << es << " rows " << rows;
          ++ran;
        }
      }
  EXPECT_GT(ran, xpose_test::sample_every() == 1 ? 80 : 0);
}

// The groups on TTC case 30 (row-major 28x48x28x28x48, axes 4,0,3,2,1) with 64x64
// tiles: each 48-element side takes the 28 beside it (48 * 28 = 21 tiles of 64
// exactly); flat keeps one dim per side; 384-element sides need no packing.
TEST(NdMap, VectorTileGroupsOnTtcShapes) {
  const xpose::plan p30 = plan_of({28, 48, 28, 28, 48}, {4, 0, 3, 2, 1});
  const vtile_map m = make_vtile_map<vtile_map>(p30, 64, 64, true);
  EXPECT_EQ(m.ga, 2);
  EXPECT_EQ(m.gb, 2);
  EXPECT_EQ(m.n_a, 48 * 28);
  EXPECT_EQ(m.n_b, 48 * 28);
  EXPECT_EQ(m.outer_rank, 1);
  EXPECT_EQ(m.tiles, 28 * 21 * 21);
  const vtile_map f = make_vtile_map<vtile_map>(p30, 64, 64, false);
  EXPECT_EQ(f.ga + f.gb, 2);
  EXPECT_EQ(f.n_a, 48);
  EXPECT_EQ(f.tiles, 28 * 28 * 28);
  const vtile_map m9 = make_vtile_map<vtile_map>(plan_of({384, 355, 384}, {2, 1, 0}), 64, 64, true);
  EXPECT_EQ(m9.ga + m9.gb, 2);
  EXPECT_TRUE(vtile_vector_ok(m, 4, nullptr, nullptr));
  EXPECT_FALSE(vtile_vector_ok(m, 4, reinterpret_cast<const void*>(std::uintptr_t{8}), nullptr));
  // Case 45 (f32): the 64x64 tile would leave half its rows idle on the 32-element B
  // side (its neighbour went to A); the 32-row shape fills its slots.
  const xpose::plan p45 = plan_of({15, 15, 32, 15, 15, 32}, {1, 4, 0, 5, 3, 2});
  EXPECT_EQ(nd_vtile_choice(p45).v, 1);
  // The 128-thread shapes: packed on cases 30 and 45 (one dim per side fills 56% and
  // 50%), not on 34 and 46 (75% and 88%: packing gains too little).
  const xpose::plan p34 = plan_of({28, 28, 48, 4, 352}, {1, 3, 0, 4, 2});
  const xpose::plan p46 = plan_of({15, 15, 32, 15, 5, 112}, {1, 4, 0, 5, 3, 2});
  for (const auto& [pl, packs] : {std::pair{p30, true}, std::pair{p45, true}, std::pair{p34, false}, std::pair{p46, false}}) {
    const vtile_choice c = nd_vtile_pack_or_flat(pl, 1, 3);
    EXPECT_EQ(c.pack, packs);
    EXPECT_TRUE(c.v == 1 || c.v == 2);
  }
  // Packed sides on the best of shapes 0-2 fill >= 95% of the tile slots on these TTC
  // cases (15, 30, 32, 45, 54, 56) in f32 and f64 (f16's 128- and 64-element sides leave
  // a quarter of the slots idle on case 15's 96-element sides; the route may still keep
  // one dim per side where that fills enough, nd_vtile_choice).
  const std::vector<std::pair<std::vector<index_t>, std::vector<int>>> ttc = {
      {{75, 96, 75, 96}, {3, 0, 2, 1}},           {{28, 48, 28, 28, 48}, {4, 0, 3, 2, 1}},
      {{28, 352, 28, 4, 48}, {4, 0, 3, 2, 1}},    {{15, 15, 32, 15, 15, 32}, {1, 4, 0, 5, 3, 2}},
      {{32, 15, 15, 15, 15, 32}, {5, 4, 3, 2, 1, 0}}, {{112, 15, 15, 15, 5, 32}, {5, 4, 3, 2, 1, 0}}};
  for (const auto& [ext, axes] : ttc)
    for (int es : {4, 8}) {
      const int r = static_cast<int>(ext.size());
      const xpose::plan p = plan_of(ext, axes, es);
      const vtile_choice c = nd_vtile_best(p, true, 0, 3);
      const nd_geom t = nd_vtile_for(es, c.v);
      const int ta = t.chunks * 16 / es, tb = t.rows;
      const vtile_map mt = make_vtile_choice_map(p, c);
      EXPECT_GE(tile_fill(mt.n_a, ta) * tile_fill(mt.n_b, tb), 0.95) << "rank " << r << " es " << es;
      EXPECT_TRUE(vtile_vector_ok(mt, es, nullptr, nullptr));
    }
}

// nd_run_tile_kernel<U, Half> on the host, through the map of runs_plan: the loads
// (run_load_slot) fill a poisoned tile of 16-byte chunks, the stores (run_store_slot)
// write it out; the row of a thread's j-th load (store) is the one its warp's lane j
// computed, that is the slot of the warp's first thread. Half: the half tile.
template <int U, bool Half>
void emulate_run_tile(const xpose::plan& q, const unsigned char* in, unsigned char* out) {
  constexpr int TA = nd_run_tile_a, TB = nd_run_tile_b(U, Half), NT = nd_run_threads, per = TA * TB * U / NT;
  const vtile_map32 m = make_vtile_map<vtile_map32>(q, TA, TB, true);
  std::vector<unsigned char> tile(static_cast<std::size_t>(TB * TA * U * 16));
  each_vtile(m, TA, TB, tile, [&](index_t io, index_t oo, index_t a0, index_t b0, index_t na, index_t nb) {
    for (int tid = 0; tid < NT; ++tid)
      for (int j = 0; j < per; ++j) {
        const run_slot s = run_load_slot<TA, TB, U, NT>(tid, j);
        const int row = run_load_slot<TA, TB, U, NT>(tid - tid % 32, j).row;
        if (s.row < nb && s.col / U < na)
          std::memcpy(&tile[static_cast<std::size_t>((s.row * TA * U + s.col) * 16)],
                      in + ((io + m.b_in(b0 + row) + a0) * U + s.col) * 16, 16);
      }
    for (int tid = 0; tid < NT; ++tid)
      for (int j = 0; j < per; ++j) {
        const run_slot s = run_store_slot<TA, TB, U, NT>(tid, j);
        const int row = run_store_slot<TA, TB, U, NT>(tid - tid % 32, j).row;
        const int b = s.col / U;
        if (s.row < na && b < nb)
          std::memcpy(out + ((oo + m.a_out(a0 + row) + b0) * U + s.col) * 16,
                      &tile[static_cast<std::size_t>((b * TA * U + s.row * U + s.col % U) * 16)], 16);
      }
  });
}

void emulate_run_tile_any(int u, bool half, const xpose::plan& q, const unsigned char* in, unsigned char* out) {
  auto run = [&](auto uc) {
    constexpr int U = decltype(uc)::value;
    if (half) emulate_run_tile<U, true>(q, in, out);
    else emulate_run_tile<U, false>(q, in, out);
  };
  if (u == 1) run(std::integral_constant<int, 1>{});
  else if (u == 2) run(std::integral_constant<int, 2>{});
  else if (u == 4) run(std::integral_constant<int, 4>{});
  else run(std::integral_constant<int, 8>{});
}

// Strided copies whose kept run is 16 to 128 bytes (TTC cases 42-44 have 64), packed
// or padded by whole runs, every element size: the run tile realises them.
TEST(NdMap, RunTileRealisesShortRunStridedCopies) {
  std::mt19937_64 g(43);
  static const index_t any[] = {1, 2, 3, 5, 7, 15, 16, 28, 32, 33};
  int ran = 0;
  for (int iter = 0; iter < 200; ++iter) {
    const int es = 1 << (g() % 5), chunks = 1 << (g() % 4);
    const int r = 3 + static_cast<int>(g() % 4);
    xpose_test::perm_case c;
    index_t ext[xpose::layout::max_rank];
    index_t n = 1;
    for (int q = 0; q < r - 1; ++q) n *= (ext[q] = any[g() % 10]);
    ext[r - 1] = chunks * 16 / es;
    for (int q = 0; q < r - 1 && n > 20000; ++q) n = n / ext[q] * 2, ext[q] = 2;
    for (int q = 0; q < r; ++q) c.axes[q] = q;
    for (int q = r - 2; q > 0; --q) std::swap(c.axes[q], c.axes[g() % (q + 1)]);
    c.in = xpose::layout::packed(r, ext, es);
    if (g() % 3 == 0)
      for (int q = r - 2; q >= 0; --q) c.in.strides[q] = c.in.strides[q + 1] * ext[q + 1] + ext[r - 1] * static_cast<index_t>(g() % 2);
    c.out = xpose::permuted_packed(c.in, c.axes, r);
    nd_case k;
    ASSERT_TRUE(make_case(g, iter, c, &k));
    xpose::plan q;
    int u = 0;
    if (!runs_plan(k.p, &q, &u)) continue;
    for (int half = 0; half < 2; ++half) {
      std::vector<unsigned char> got(k.want.size(), 0xFF);
      emulate_run_tile_any(u, half, q, k.in.data(), got.data());
      ASSERT_EQ(got, k.want) << "iter " << iter << " es " << es << " chunks " << u << " half " << half;
    }
    ++ran;
  }
  EXPECT_GT(ran, 60);
}

// nd_row_stream_kernel<W, G> on the host (addresses taken as byte offsets from bases
// whose residues mod 16 are drawn): every item's lanes and chunks as the kernel takes
// them, the full chunks' sources rebuilt from the aligned 16-byte input chunks with the
// row's shift (those chunks inside the row), the row's ends unit by unit over the lanes; every
// output byte written once, equal to the reference. Random kept rows of every length and shift, padded views.
TEST(NdMap, RowStreamCoversEveryRowByteOnce) {
  std::mt19937_64 g(5);
  const int sizes[] = {1, 2, 4, 8, 16};
  for (int iter = 0; iter < 300; ++iter) {
    const int es = sizes[g() % 5], rank = 2 + static_cast<int>(g() % 4);
    xpose_test::perm_case c;
    c.in.rank = c.out.rank = rank;
    c.in.elem_size = c.out.elem_size = es;
    for (int k = 0; k < rank; ++k) c.in.extents[k] = 1 + static_cast<index_t>(g() % 6);
    c.in.extents[rank - 1] = 1 + static_cast<index_t>(g() % 300);
    index_t st = 1;
    for (int k = rank - 1; k >= 0; --k) c.in.strides[k] = st, st *= c.in.extents[k] + (k < rank - 1 ? static_cast<index_t>(g() % 3) : 0);
    for (int k = 0; k < rank; ++k) c.axes[k] = k;
    for (int k = rank - 2; k > 0; --k) std::swap(c.axes[k], c.axes[g() % (k + 1)]);
    c.out = xpose::permuted_packed(c.in, c.axes, rank);
    xpose::plan p;
    ASSERT_TRUE(xpose::make_plan(c.in, c.out, c.axes, rank, {}, &p).ok());
    if (p.algo != xpose::algorithm::strided_copy) continue;
    const std::size_t ni = static_cast<std::size_t>(xpose_test::span_elems(c.in) * es);
    const std::size_t no = static_cast<std::size_t>(xpose_test::span_elems(c.out) * es);
    const std::size_t pi = static_cast<std::size_t>(g() % (16 / es)) * es, po = static_cast<std::size_t>(g() % (16 / es)) * es;
    const auto src = xpose_test::random_bytes(ni + 64, static_cast<std::uint64_t>(iter));
    std::vector<unsigned char> want(no, 0xFF), got(no + 64, 0xFF);
    std::vector<int> writes(no, 0);
    xpose_test::reference_permute(src.data() + 16 + pi, want.data(), c.in, c.out, c.axes, false);
    // Bases: input at 16 + pi, output at po in buffers aligned to 16 bytes.
    const int u = row_unit(p, reinterpret_cast<const void*>(16 + pi), reinterpret_cast<const void*>(64 + po));
    ASSERT_GT(u, 0);
    const index_t L = p.out.extents[p.out.rank - 1] * es;
    const int G = row_lanes(L, u, 4), K = 4;
    const row_map m = make_row_map<row_map>(p, u, G * K);
    EXPECT_EQ(m.row_bytes, L);
    for (index_t t = 0; t < m.items; ++t) {
      index_t io = 0, oo = 0;
      int slice = 0;
      m.item(t, &io, &oo, &slice);
      const index_t ia = 16 + static_cast<index_t>(pi) + io, oa_full = static_cast<index_t>(po) + oo;  // addresses
      const int oa = static_cast<int>(oa_full % 16);
      const index_t sh = ((ia - oa) % 16 + 16) % 16;
      ASSERT_EQ(sh % u, 0);
      const index_t nc = (oa + L + 15) / 16;
      ASSERT_LE(nc, row_chunks_max(L, u));
      for (int sub = 0; sub < G; ++sub)
        for (int k = 0; k < K; ++k) {
          const index_t ch = static_cast<index_t>(slice) * G * K + k * G + sub, off = 16 * ch - oa;
          if (ch >= nc) continue;
          if (row_chunk_whole(off, L, static_cast<unsigned>(sh))) {
            ASSERT_EQ((oa_full + off) % 16, 0);
            const index_t a = ia + off - sh;  // aligned source chunk
            ASSERT_EQ(a % 16, 0);
            // The aligned pair the kernel loads lies inside the row (initcheck: no
            // uninitialised byte beside the row is read).
            ASSERT_GE(a, ia);
            ASSERT_LE(a + (sh != 0 ? 32 : 16), ia + L);
            for (int b = 0; b < 16; ++b) {
              got[static_cast<std::size_t>(oo + off + b)] = src[static_cast<std::size_t>(a + sh + b)];
              ++writes[static_cast<std::size_t>(oo + off + b)];
            }
          } else if (u >= 8) {  // 8-16 byte units: by the chunk's lane
            for (int e = 0; e < 16 / u; ++e) {
              const index_t b = off + e * u;
              if (b < 0 || b >= L) continue;
              for (int x = 0; x < u; ++x) {
                got[static_cast<std::size_t>(oo + b + x)] = src[static_cast<std::size_t>(ia + b + x)];
                ++writes[static_cast<std::size_t>(oo + b + x)];
              }
            }
          }
        }
      // Units under 8 bytes at the ends: b = sub * u, sub * u + G * u, ... of [0, head) by slice 0 and of
      // [tail, L) by the last slice.
      index_t head = 0, tail = 0;
      row_ends(L, oa, static_cast<unsigned>(sh), &head, &tail);
      ASSERT_TRUE(head % u == 0 && tail % u == 0 && head <= tail && tail <= L);
      ASSERT_LE(head, 48);
      ASSERT_GE(tail, L - 48);
      auto unit_at = [&](index_t b) {
        for (int x = 0; x < u; ++x) {
          got[static_cast<std::size_t>(oo + b + x)] = src[static_cast<std::size_t>(ia + b + x)];
          ++writes[static_cast<std::size_t>(oo + b + x)];
        }
      };
      for (int sub = 0; sub < G && u < 8; ++sub) {
        if (slice == 0)
          for (index_t b = sub * u; b < head; b += G * u) unit_at(b);
        if (slice == (nc - 1) / (G * K))
          for (index_t b = tail + sub * u; b < L; b += G * u) unit_at(b);
      }
    }
    for (std::size_t i = 0; i < no; ++i) {
      ASSERT_EQ(got[i], want[i]) << "byte " << i << " iter " << iter;
      ASSERT_EQ(writes[i], 1) << "byte " << i << " iter " << iter;  // a packed output: every byte once
    }
  }
}

// The row stream's route (row_stream_takes): rows of 128 bytes and more in units below
// 16 bytes; whole-chunk rows and short rows keep the element copy and the run tile.
TEST(NdPolicy, RowStreamTakesLongRowsOfNarrowUnits) {
  EXPECT_TRUE(row_stream_takes(1, 128));
  EXPECT_TRUE(row_stream_takes(8, 8000));
  EXPECT_FALSE(row_stream_takes(8, 120));
  EXPECT_FALSE(row_stream_takes(16, 1472));  // TTC case 3 in f32
  EXPECT_FALSE(row_stream_takes(0, 4096));   // conjugation, non-unit run strides
  EXPECT_EQ(row_chunks_max(1472, 16), 92);
  EXPECT_EQ(row_chunks_max(72, 8), 5);
  EXPECT_EQ(row_lanes(128, 16, 4), 2);
  EXPECT_EQ(row_lanes(1472, 4, 4), 32);
}

// Contiguous copies between pointers apart modulo 16 bytes, one of them off the 4-byte grid, take the row stream
// from 1 MiB (copy_takes_row_stream); pointers equal modulo 16, both on the 4-byte grid, and smaller copies keep
// cudaMemcpyAsync.
TEST(NdPolicy, MisalignedCopiesTakeTheRowStream) {
  auto at = [](std::uintptr_t a) { return reinterpret_cast<const void*>(a); };
  EXPECT_TRUE(copy_takes_row_stream(index_t{1} << 20, at(4096 + 1), at(8192)));
  EXPECT_TRUE(copy_takes_row_stream(index_t{1} << 30, at(4096 + 10), at(8192 + 2)));  // 8 apart, 2-byte grid
  EXPECT_TRUE(copy_takes_row_stream(index_t{1} << 30, at(4096 + 8), at(8192 + 6)));
  EXPECT_FALSE(copy_takes_row_stream(index_t{1} << 30, at(4096 + 8), at(8192 + 4)));  // both on the 4-byte grid
  EXPECT_FALSE(copy_takes_row_stream(index_t{1} << 30, at(4096 + 3), at(8192 + 19)));  // 16 apart
  EXPECT_FALSE(copy_takes_row_stream(index_t{1} << 30, at(4096), at(8192)));
  EXPECT_FALSE(copy_takes_row_stream((index_t{1} << 20) - 1, at(4096 + 1), at(8192)));
}

// The row stream's items per warp (row_batch): a power of two from the items per step to 32 (so that B / ips steps
// of ips items take each of a warp's B items once), 32 where the items fill the GPU's warps, fewer where they would not.
TEST(NdPolicy, RowStreamBatchFillsTheGpu) {
  EXPECT_EQ(row_batch(100000000, 1, 132), 32);
  EXPECT_EQ(row_batch(71485, 1, 132), 8);   // 29x493x8711 u8 rows in 2 KiB slices: 8935 warps, not 2234
  EXPECT_EQ(row_batch(158389, 2, 132), 16);
  EXPECT_EQ(row_batch(10, 16, 132), 16);    // never below the items of one step
  for (int ips : {1, 2, 4, 8, 16})
    for (index_t items : {index_t{1}, index_t{999}, index_t{123457}, index_t{1} << 30}) {
      const int B = row_batch(items, ips, 114);
      ASSERT_TRUE(B >= ips && B <= 32 && (B & (B - 1)) == 0 && B % ips == 0);
      EXPECT_TRUE(B == 32 || items / (2 * B) < index_t{114} * 64);  // twice B would not fill the warps
      EXPECT_TRUE(B == ips || items / B >= index_t{114} * 64);       // B does, unless it is one step's
    }
}

// The route (nd_route_of): TTC case 30 in f32 from aligned pointers takes the vector
// tile, the packed tile from a misaligned pointer, in 1-byte elements and conjugated;
// the run tile case 42 (64-byte runs).
TEST(NdPolicy, RouteOfTtcCases) {
  const void* aligned = nullptr;
  const void* odd = reinterpret_cast<const void*>(std::uintptr_t{4});
  const xpose::plan p30 = plan_of({28, 48, 28, 28, 48}, {4, 0, 3, 2, 1});
  const xpose::plan p42 = plan_of({15, 15, 32, 15, 32, 16}, {4, 1, 0, 3, 2, 5});
  ASSERT_EQ(p30.algo, xpose::algorithm::permute_nd);
  ASSERT_EQ(p42.algo, xpose::algorithm::strided_copy);
  EXPECT_EQ(nd_route_of(p30, aligned, aligned).kernel, nd_kernel::vtile);
  EXPECT_EQ(nd_route_of(p30, odd, aligned).kernel, nd_kernel::span);
  EXPECT_EQ(nd_route_of(plan_of({28, 48, 28, 28, 48}, {4, 0, 3, 2, 1}, 1), aligned, aligned).kernel, nd_kernel::span);
  // c64 conjugated: the packed tile fills its 32 x 32 square (48 = 32 + 16 over 28 * 48 sides) to 0.75 or more
  EXPECT_EQ(nd_route_of(plan_of({28, 48, 28, 28, 48}, {4, 0, 3, 2, 1}, 8, true), aligned, aligned).kernel, nd_kernel::ptile);
  EXPECT_EQ(nd_route_of(plan_of({28, 48, 28, 28, 48}, {4, 0, 3, 2, 1}, 8, true), odd, aligned).kernel, nd_kernel::ptile);
  // f64 with a 3-element output-fastest side: the packed tile fills under 0.75, the span tile takes it
  EXPECT_EQ(nd_route_of(plan_of({31, 7, 5, 23, 3, 37}, {3, 0, 1, 2, 5, 4}, 8), odd, odd).kernel, nd_kernel::span);
  const nd_route r42 = nd_route_of(p42, aligned, aligned);
  EXPECT_EQ(r42.kernel, nd_kernel::run_tile);
  EXPECT_EQ(r42.chunks, 4);
  EXPECT_EQ(nd_route_of(p42, odd, aligned).kernel, nd_kernel::span);  // 64-byte rows, not whole chunks there
}

// TTC case 44 (103-run side): the run tile takes the half tile in f16 (32-byte runs:
// 103 fills 80% of 32-run tiles, 92% of 16-run ones) and in f32 (64-byte runs: 92% of
// 16, 99% of 8); case 42 (32-run sides) fills the full tile and keeps it.
TEST(NdPolicy, RunTileTakesTheHalfTileWhereItFillsMore) {
  for (int es : {2, 4}) {
    const nd_route r44 = nd_route_of(plan_of({15, 15, 103, 15, 10, 16}, {4, 1, 0, 3, 2, 5}, es), nullptr, nullptr);
    const nd_route r42 = nd_route_of(plan_of({15, 15, 32, 15, 32, 16}, {4, 1, 0, 3, 2, 5}, es), nullptr, nullptr);
    ASSERT_EQ(r44.kernel, nd_kernel::run_tile);
    EXPECT_TRUE(r44.half) << es;
    EXPECT_EQ(r44.chunks, 16 * es / 16);
    EXPECT_EQ(make_vtile_map<vtile_map>(r44.q, nd_run_tile_a, nd_run_tile_b(r44.chunks, true), true).n_b, 103);
    ASSERT_EQ(r42.kernel, nd_kernel::run_tile);
    EXPECT_FALSE(r42.half) << es;
  }
}

// The short-B shapes on the f16 TTC cases whose 32-, 48- and 96-element B sides leave
// half or a quarter of the 64- and 128-row tiles idle (cases 15, 33, 48, 49; H200 f16
// 0.68-0.83 of a copy on those tiles): a shape of 32 or 16 rows fills >= 0.93 of its
// slots; where the 128-thread shapes already fill (case 54), their shape stays. The
// route runs them on the vector tile.
TEST(NdPolicy, ShortRowShapesFillTheF16Floor) {
  struct ttc_case {
    std::vector<index_t> ext;
    std::vector<int> axes;
    double full_fill;  // at most, on shapes 0-2
  };
  const std::vector<ttc_case> cases = {{{75, 96, 75, 96}, {3, 0, 2, 1}, 0.76},
                                       {{28, 28, 48, 28, 48}, {1, 3, 0, 4, 2}, 0.76},
                                       {{15, 15, 15, 32, 15, 32}, {2, 0, 4, 1, 5, 3}, 0.5},
                                       {{15, 15, 15, 32, 5, 112}, {2, 0, 4, 1, 5, 3}, 0.5}};
  for (const auto& c : cases) {
    const xpose::plan p = plan_of(c.ext, c.axes, 2);
    ASSERT_EQ(p.algo, xpose::algorithm::permute_nd);
    EXPECT_LE(nd_vtile_best(p, true, 0, 3).fill, c.full_fill);
    const vtile_choice ch = nd_vtile_choice(p);
    EXPECT_GE(ch.v, 3);
    EXPECT_GE(ch.fill, 0.93);
    EXPECT_EQ(nd_route_of(p, nullptr, nullptr).kernel, nd_kernel::vtile);
  }
  EXPECT_LT(nd_vtile_choice(plan_of({32, 15, 15, 15, 15, 32}, {5, 4, 3, 2, 1, 0}, 2)).v, 3);
}

// A short-B shape only over a packed 128-thread choice or one that fills at most
// nd_flat_fill; flat choices that fill more keep their shape (f16 cases 19, 22, 34 and
// f32 cases 21, 55 ran faster on them than on the short shapes). 4- to 16-byte elements
// take shape 0 where it fills: f32 case 9 (384x355x384), not in f16, nor f32 case 33
// (tiles 75% full).
TEST(NdPolicy, ShapeChoiceKeepsFlatChoicesThatFill) {
  struct pick {
    std::vector<index_t> ext;
    std::vector<int> axes;
    int es;
    bool short_b;
  };
  const std::vector<pick> picks = {
      {{75, 96, 12, 608}, {2, 0, 3, 1}, 2, false},          {{75, 12, 96, 608}, {1, 0, 3, 2}, 2, false},
      {{28, 28, 48, 4, 352}, {1, 3, 0, 4, 2}, 2, false},    {{75, 75, 96, 96}, {1, 0, 3, 2}, 4, false},
      {{32, 15, 15, 15, 5, 112}, {5, 4, 3, 2, 1, 0}, 4, false}, {{75, 96, 75, 96}, {3, 0, 2, 1}, 2, true},
      {{75, 75, 96, 96}, {1, 0, 3, 2}, 2, true},            {{28, 28, 48, 28, 48}, {1, 3, 0, 4, 2}, 4, true}};
  for (const auto& c : picks) {
    const xpose::plan p = plan_of(c.ext, c.axes, c.es);
    const vtile_choice half = nd_vtile_pack_or_flat(p, 1, 3), a = nd_vtile_choice(p);
    EXPECT_EQ(a.v >= 3, c.short_b) << "es " << c.es << " rank " << p.in.rank;
    if (!c.short_b) EXPECT_EQ(a.v, half.v);
    if (c.short_b) EXPECT_TRUE(half.pack || half.fill <= nd_flat_fill);
  }
  EXPECT_EQ(nd_vtile_choice(plan_of({384, 355, 384}, {2, 1, 0}, 4)).v, 0);
  EXPECT_NE(nd_vtile_choice(plan_of({384, 355, 384}, {2, 1, 0}, 2)).v, 0);
  EXPECT_NE(nd_vtile_choice(plan_of({28, 28, 48, 28, 48}, {1, 3, 0, 4, 2}, 4)).v, 0);
}

// Every vector tile shape keeps the thread geometry the Rows variant relies on: a warp's
// W = 32/NCH load rows per step times L steps fit its lanes, and the lanes' rows
// (vtile_warp_row) are exactly the rows the warp's threads load (vtile_row_lane).
template <int E, int V>
void check_row_lanes() {
  constexpr nd_geom bt = nd_vtile_for(E, V);
  constexpr int k = 16 / E, NCH = bt.chunks, NT = bt.threads, RPS = NT / NCH, L = bt.rows / RPS;
  for (int tid = 0; tid < NT; ++tid)
    for (int j = 0; j < L; ++j) {
      const int lane = vtile_row_lane<NCH>(tid % 32, j);
      ASSERT_LT(lane, 32 / NCH * L) << "E " << E << " v " << V;
      const int row = vtile_warp_row<NCH, RPS>(tid / 32, lane);
      EXPECT_EQ(row, (vtile_load_slot<k, NCH, NT>(tid, j).b)) << "E " << E << " v " << V;
    }
}
template <int E, int... V>
void check_row_lanes_all(std::integer_sequence<int, V...>) {
  (check_row_lanes<E, V>(), ...);
}

TEST(NdPolicy, RowLanesCoverEveryLoadRowOfTheirWarp) {
  const auto shapes = std::make_integer_sequence<int, nd_vtile_shapes>{};
  check_row_lanes_all<2>(shapes);
  check_row_lanes_all<4>(shapes);
  check_row_lanes_all<8>(shapes);
  check_row_lanes_all<16>(shapes);
}

}  // namespace
