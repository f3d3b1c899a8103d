// Host emulation of the skewed realigning tile (src/cuda/best_skew.cuh, routes
// realign_skew*): every block's three phases run thread by
// thread on host buffers, in the order the kernel's barriers impose, against the CPU
// reference. Every element size, the production tiles and small ones (many tiles,
// ragged edges, tiles that own nothing), pointers offset by every residue, padded
// leading dimensions and gapped batches; the input is allocated to its exact extent
// (ASan in the sanitize preset sees any overrun) and the output is poisoned, so a
// store outside the matrix's elements fails the test.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <tuple>

#include "cuda/best_skew.cuh"
#include "cuda/policy.hpp"
#include "test_util.hpp"

using namespace xpose::detail;
using xpose_test::in_elems;
using xpose_test::out_elems;
using xpose_test::padded;
using xpose_test::random_bytes;

namespace {

using skew::u8;

template <int E, int TR, int NCH, int NT, int MW, int OA = 16>
void emulate(const skew::args& a) {
  using g = skew::geom<E, TR, NCH, NT, MW, true, OA>;
  std::vector<u8> store(static_cast<std::size_t>(g::smem) + 16);
  u8* sm = store.data() + (16 - reinterpret_cast<std::uintptr_t>(store.data()) % 16) % 16;
  for (long long t = 0; t < a.total; ++t) {
    const skew::tile p = skew::tile_at<E, TR, g::TC, g::AR>(a, t);
    std::fill(sm, sm + g::smem, static_cast<u8>(0xCD));
    for (int tid = 0; tid < NT; ++tid) skew::load_phase<E, TR, NCH, NT, MW, OA>(a, p, sm, tid);
    for (int tid = 0; tid < NT; ++tid) skew::mid_phase<E, TR, NCH, NT, MW, OA>(sm, tid);
    for (int tid = 0; tid < NT; ++tid) skew::store_phase<E, TR, NCH, NT, MW, true, OA>(a, p, sm + g::a_bytes, tid);
  }
}

// The cp.async form (skew_async_kernel): covers copied unshifted (the host copy reads
// only bytes inside the input view, as copy_chunk_clamped does), shifted on the reads.
// OA: the sector-aligned form (realign_skew_sector); every tile is emulated once (`seen`).
template <int E, int TR, int NCH, int NT, int MW, bool Halo, int OA = 16>
void emulate_async(const skew::args& a) {
  using g = skew::geom<E, TR, NCH, NT, MW, Halo, OA>;
  std::vector<u8> store(static_cast<std::size_t>(g::smem_async) + 16);
  u8* sm = store.data() + (16 - reinterpret_cast<std::uintptr_t>(store.data()) % 16) % 16;
  u8* const bt = sm + g::cover_bytes;
  std::set<const u8*> seen;  // (tiles' output corners: distinct)
  for (long long t = 0; t < a.total; ++t) {
    const skew::tile p = skew::tile_at<E, TR, g::TC, g::AR>(a, t);
    ASSERT_TRUE(seen.insert(p.out).second) << "tile " << t << " emulated twice";
    std::fill(sm, sm + g::smem_async, static_cast<u8>(0xCD));
    for (int tid = 0; tid < NT; ++tid)
      skew::cover_phase<E, TR, NCH, NT, MW, Halo, OA>(a, p, tid, [&](int off, const u8* src) {
        ASSERT_EQ(off % 16, 0);
        ASSERT_LE(off + 16, g::cover_bytes);
        bytes::st16(sm + off, bytes::load_clamped<E>(src, a.in, a.in_end));
      });
    for (int tid = 0; tid < NT; ++tid) skew::cover_mid_phase<E, TR, NCH, NT, MW, Halo, OA>(a, p, sm, bt, tid);
    for (int tid = 0; tid < NT; ++tid) skew::store_phase<E, TR, NCH, NT, MW, Halo, OA>(a, p, bt, tid);
  }
}

// Runs tile T (template arguments) on d with input / output offset by off_in / off_out
// elements from a 16-byte boundary; compares the whole output buffer.
// Form: 0 the register form, 1 the cp.async form with the halo, 2 without it (aligned
// output rows only), 3 with the 32-byte sector halo (realign_skew_sector), 5 the register
// form with the 32-byte sector halo (not routed).
template <int E, int TR, int NCH, int NT, int MW, int Form = 0>
void check(const xpose::matrix_desc& d, long long off_in, long long off_out) {
  SCOPED_TRACE(xpose_test::shape_name(d) + " offsets " + std::to_string(off_in) + "/" + std::to_string(off_out) +
               " tile " + std::to_string(TR) + "x" + std::to_string(NCH) + " nt " + std::to_string(NT));
  const std::size_t ni = static_cast<std::size_t>(in_elems(d)) * E, no = static_cast<std::size_t>(out_elems(d)) * E;
  const std::size_t oi = static_cast<std::size_t>(off_in) * E, oo = static_cast<std::size_t>(off_out) * E;
  const auto src = random_bytes(ni, static_cast<std::uint64_t>(d.rows * 131 + d.cols * 7 + off_in));
  std::unique_ptr<u8[]> in(new u8[oi + ni]), out(new u8[oo + no]);  // new[]: 16-byte aligned, exact size
  std::memcpy(in.get() + oi, src.data(), ni);
  std::memset(out.get(), 0xFF, oo + no);
  std::vector<u8> want(no, 0xFF);
  ASSERT_TRUE(xpose::transpose_reference(src.data(), want.data(), d).ok());
  const best_tile t{TR, NCH, NT, MW, 1};
  const skew::args a = skew::make_args<E>(in.get() + oi, out.get() + oo, d, in.get() + oi + ni, t);
  if constexpr (Form == 0) emulate<E, TR, NCH, NT, MW>(a);
  else if constexpr (Form == 3) emulate_async<E, TR, NCH, NT, MW, true, 32>(a);
  else if constexpr (Form == 5) emulate<E, TR, NCH, NT, MW, 32>(a);
  else emulate_async<E, TR, NCH, NT, MW, Form == 1>(a);
  if (::testing::Test::HasFatalFailure()) return;
  ASSERT_EQ(xpose_test::first_mismatch(out.get() + oo, want.data(), d), "");
  ASSERT_EQ(std::memcmp(out.get() + oo, want.data(), no), 0) << "padding or gap bytes were written";
  for (std::size_t i = 0; i < oo; ++i) ASSERT_EQ(out[i], 0xFF) << "byte before the output written";
}

template <int E, int TR, int NCH, int NT, int MW, int Form = 0>
void cases() {
  constexpr long long k = 16 / E, TC = NCH * k;
  const std::vector<std::pair<long long, long long>> shapes = {
      {TR + 1, TC + 3}, {2 * TR + k - 1, 2 * TC - 1}, {TR - 1, TC + 1}, {3, TC + 5}, {TR + k + 3, 2},
      {1, 9}, {k + 1, 1}, {2 * TR + 1, TC}, {2 * k, 3 * TC + 1}};
  for (auto [r, c] : shapes) {
    if constexpr (Form == 2) {  // without the halo: every output row 16-byte aligned
      const long long ra = (r + k - 1) / k * k;
      for (long long o = 0; o < k; ++o) {
        check<E, TR, NCH, NT, MW, Form>(padded(r, c, E, 1, 1, ra - r, 0), o, 0);
        if (::testing::Test::HasFatalFailure()) return;
      }
      check<E, TR, NCH, NT, MW, Form>(padded(r, c, E, 3, 3, ra - r + k, 2 * k), 1, 0);
      check<E, TR, NCH, NT, MW, Form>(padded(r, c, E, 2, 0, ra - r, k), k - 1, 0);  // aligned input rows, offset pointer
      if (::testing::Test::HasFatalFailure()) return;
      continue;
    }
    // (Sector halo: output pointers at every element residue of 32 bytes.)
    constexpr long long no = Form == 3 || Form == 5 ? 2 * k : k;
    for (long long o = 0; o < no; ++o) {
      check<E, TR, NCH, NT, MW, Form>(xpose::matrix_desc::packed(r, c, E), o % k, (o * 3 + 1) % no);
      if (::testing::Test::HasFatalFailure()) return;
    }
    check<E, TR, NCH, NT, MW, Form>(xpose::matrix_desc::packed(r, c, E, 3), 1, 0);
    check<E, TR, NCH, NT, MW, Form>(padded(r, c, E, 2, 1, 3, 5), 0, 1);
    check<E, TR, NCH, NT, MW, Form>(padded(r, c, E, 3, k, 1, 1), k - 1, 0);  // aligned rows, odd output
    check<E, TR, NCH, NT, MW, Form>(padded(r, c, E, 2, 3, k, 0), 2, 0);      // odd rows, aligned output rows
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The production tile of best_tile_skew_for (the one best.cu launches).
template <int E>
void production() {
  constexpr best_tile T = best_tile_skew_for(E);
  static_assert(best_skew_tile_valid(E, T));
  cases<E, T.rows, T.chunks, T.threads, T.micro_bytes>();
  // Larger than one tile each way, odd sizes (the sweep's R x (R+1), (R-1) x (R+3)).
  constexpr long long k = 16 / E;
  for (auto [r, c] : {std::pair<long long, long long>{3 * T.rows + 5, 3 * T.chunks * k + 1},
                      {4 * T.rows - 1, 2 * T.chunks * k + 3}}) {
    check<E, T.rows, T.chunks, T.threads, T.micro_bytes>(xpose::matrix_desc::packed(r, c, E), 0, 0);
    check<E, T.rows, T.chunks, T.threads, T.micro_bytes>(xpose::matrix_desc::packed(r, c, E, 2), 1, k - 1);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The production tiles of best_tile_skew_async_for, with and without the halo.
template <int E, bool Halo>
void production_async() {
  constexpr best_tile T = best_tile_skew_async_for(E, Halo);
  static_assert(best_skew_tile_valid(E, T));
  constexpr int F = Halo ? 1 : 2;
  cases<E, T.rows, T.chunks, T.threads, T.micro_bytes, F>();
  constexpr long long k = 16 / E;
  const long long r = 3 * T.rows + (Halo ? 5 : 2 * k), c = 3 * T.chunks * k + 1;
  check<E, T.rows, T.chunks, T.threads, T.micro_bytes, F>(xpose::matrix_desc::packed(r, c, E), 0, 0);
  check<E, T.rows, T.chunks, T.threads, T.micro_bytes, F>(xpose::matrix_desc::packed(r, c, E, 2), 1, 0);
  if (Halo) check<E, T.rows, T.chunks, T.threads, T.micro_bytes, F>(xpose::matrix_desc::packed(r - 1, c, E, 2), 1, k - 1);
}

// The production tiles of realign_skew_sector (sector halo): several tiles each way, ragged edges.
template <int E>
void production_sector() {
  constexpr best_tile S = best_tile_skew_sector_for(E);
  static_assert(best_skew_tile_valid(E, S) && (S.rows * E) % best_skew_sector_bytes == 0);
  constexpr int F = 3;
  constexpr long long k = 16 / E;
  const long long c = 3 * S.chunks * k + 1;
  for (long long o = 0; o < 2 * k; o += 3) {
    check<E, S.rows, S.chunks, S.threads, S.micro_bytes, F>(xpose::matrix_desc::packed(3 * S.rows + 5, c, E), 1, o);
    check<E, S.rows, S.chunks, S.threads, S.micro_bytes, F>(xpose::matrix_desc::packed(2 * S.rows - 1, c, E, 2), 0, o);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Bank model of the cp.async form's phase 2, for every warp, row shift and micro-block
// row i: 16-byte rows, the two chunks each lane reads (a quarter warp per wavefront) on 8
// distinct 16-byte slots; narrower rows, each word y a lane reads (a warp per wavefront)
// on distinct banks, at most 2-way for 8-byte rows (f16: lanes differ in 2 words of 4
// inside a chunk). Cover rows start on chunk boundaries (cp.async).
// (OA = 32: realign_skew_sector's tiles.)
// (Fit: the fitted 48-row tile, best_tile_skew_async_fit_for; no halo.)
template <int E, bool Halo, int OA = 16, bool Fit = false>
void check_cover_banks() {
  constexpr best_tile T = Fit         ? best_tile_skew_async_fit_for(E)
                          : OA > 16   ? best_tile_skew_sector_for(E)
                                      : best_tile_skew_async_for(E, Halo);
  using g = skew::geom<E, T.rows, T.chunks, T.threads, T.micro_bytes, Halo, OA>;
  auto word_of = [&](int r) { return skew::cover_word<E, T.rows, T.chunks, T.threads, T.micro_bytes, Halo, OA>(r); };
  for (int r = 0; r < g::AR; ++r) {
    ASSERT_EQ(word_of(r) % 4, 0);
    ASSERT_LE((word_of(r) + 4 * (T.chunks + 1)) * 4, g::cover_bytes);
    if (r > 0) ASSERT_GE(word_of(r), word_of(r - 1) + 4 * (T.chunks + 1));  // rows do not overlap
  }
  const int group = T.micro_bytes == 16 ? 8 : 32, limit = T.micro_bytes == 8 ? 2 : 1;
  for (int w0 = 0; w0 < g::NM; w0 += group)
    for (int off = 0; off < 16; off += E)
      for (int i = 0; i < g::k; ++i)
        for (int y = 0; y < (T.micro_bytes == 16 ? 2 : g::KW + 1); ++y) {
          std::vector<std::set<int>> bank(32);
          for (int m = w0; m < w0 + group && m < g::NM; ++m) {
            int R, h, C;
            g::micro(m, R, h, C);
            const int base = word_of(R * g::k + i) + C * 4;
            if (T.micro_bytes == 16) {
              for (int q = 0; q < 4; ++q) bank[(base + 4 * y + q) % 32].insert(base + 4 * y + q);
            } else {
              const int word = base + h * g::KW + y + off / 4;
              bank[word % 32].insert(word);
            }
          }
          for (const auto& b : bank)
            ASSERT_LE(b.size(), static_cast<std::size_t>(limit)) << "E " << E << " lanes " << w0 << " i " << i << " y " << y;
        }
}

}  // namespace

TEST(BestSkewAsync, TilesAreValid) {
  for (int E : {1, 2, 4, 8})
    for (bool halo : {false, true}) {
      const best_tile t = best_tile_skew_async_for(E, halo);
      EXPECT_TRUE(best_skew_tile_valid(E, t)) << E;
      // The register bound's blocks per SM fit in shared memory (228 KiB, 1 KiB reserved a block).
      EXPECT_LE(t.min_blocks * (best_skew_async_smem(E, t, halo, best_skew_async_stages) + 1024), 228 * 1024) << E;
      EXPECT_EQ(t.rows + (halo ? 16 / E : 0), E <= 2 ? 128 : 64) << E;  // rows read
    }
  EXPECT_FALSE(best_skew_tile_valid(1, best_tile{112, 8, 256, 2, 1}));  // 2-byte micro-block rows
}

TEST(BestSkewAsync, CoverReadsFreeOfBankConflicts) {
  check_cover_banks<1, true>();
  check_cover_banks<1, false>();
  check_cover_banks<2, true>();
  check_cover_banks<2, false>();
  check_cover_banks<4, true>();
  check_cover_banks<4, false>();
  check_cover_banks<8, true>();
  check_cover_banks<8, false>();
  check_cover_banks<1, true, 32>();  // (realign_skew_sector's tiles)
  check_cover_banks<2, true, 32>();
  check_cover_banks<4, true, 32>();
  check_cover_banks<8, true, 32>();
  check_cover_banks<best_skew_async_fit_elem, false, 16, true>();  // (realign_skew_async_fit's tiles)
}

TEST(BestSkewSector, TilesAreValid) {
  for (int E : {1, 2, 4, 8}) {
    const best_tile t = best_tile_skew_sector_for(E);
    EXPECT_TRUE(best_skew_tile_valid(E, t)) << E;
    EXPECT_EQ(t.rows * E % best_skew_sector_bytes, 0) << E;  // every tile's segments start on a sector
    const int smem = best_skew_async_smem(E, t, true, best_skew_async_stages, best_skew_sector_bytes);
    EXPECT_LE(t.min_blocks * (smem + 1024), 228 * 1024) << E;
  }
}

TEST(BestSkewSectorEmulation, Production1) { production_sector<1>(); }
TEST(BestSkewSectorEmulation, Production2) { production_sector<2>(); }
TEST(BestSkewSectorEmulation, Production4) { production_sector<4>(); }
TEST(BestSkewSectorEmulation, Production8) { production_sector<8>(); }
// Small sector tiles: threads wrap over rows, covers, micro-blocks and slots.
TEST(BestSkewSectorEmulation, SmallTiles) {
  cases<1, 32, 2, 32, 4, 3>();
  cases<2, 16, 2, 32, 8, 3>();
  cases<4, 8, 2, 32, 16, 3>();
  cases<8, 4, 4, 32, 16, 3>();
  cases<8, 12, 2, 32, 16, 3>();
  cases<1, 32, 2, 32, 8, 5>();
  cases<2, 16, 4, 32, 16, 5>();
  cases<4, 8, 2, 32, 16, 5>();
  cases<8, 12, 4, 64, 8, 5>();
  cases<2, 16, 4, 32, 4, 2>();  // (2-byte elements in 4-byte micro-block rows, no halo)
}

TEST(BestSkewAsync, BalancedGrid) {
  EXPECT_EQ(best_balanced_grid(100, 792), 100);
  EXPECT_EQ(best_balanced_grid(792, 792), 792);
  EXPECT_EQ(best_balanced_grid(2392, 792), 598);  // 4 tiles a block instead of 3 rounds and 16 tiles
  EXPECT_EQ(best_balanced_grid(2275, 792), 759);
  for (long long total : {793LL, 1000LL, 5000LL, 123457LL})
    for (long long res : {132LL, 528LL, 792LL}) {
      const long long g = best_balanced_grid(total, res);
      EXPECT_LE(g, res);
      EXPECT_EQ((total + g - 1) / g, (total + res - 1) / res) << total << " " << res;  // no extra round
    }
}

TEST(BestSkewAsyncEmulation, Production1) {
  production_async<1, true>();
  production_async<1, false>();
}
TEST(BestSkewAsyncEmulation, Production2) {
  production_async<2, true>();
  production_async<2, false>();
}
TEST(BestSkewAsyncEmulation, Production4) {
  production_async<4, true>();
  production_async<4, false>();
}
TEST(BestSkewAsyncEmulation, Production8) {
  production_async<8, true>();
  production_async<8, false>();
}
// Small tiles: threads wrap over rows, covers, micro-blocks and slots several times.
TEST(BestSkewAsyncEmulation, SmallTiles) {
  cases<1, 16, 2, 32, 4, 1>();
  cases<1, 32, 2, 32, 4, 2>();
  cases<2, 8, 2, 32, 8, 1>();
  cases<2, 16, 4, 32, 16, 2>();
  cases<4, 4, 2, 32, 16, 1>();
  cases<4, 12, 4, 64, 4, 1>();
  cases<8, 2, 2, 32, 16, 1>();
  cases<8, 6, 4, 32, 8, 2>();
}

TEST(BestSkew, TilesAreValid) {
  for (int E : {1, 2, 4, 8}) {
    EXPECT_TRUE(best_skew_tile_valid(E, best_tile_skew_for(E))) << E;
    EXPECT_LE(best_skew_smem(E, best_tile_skew_for(E)), 227 * 1024) << E;
  }
  // valid() can fail: rows not whole chunks of elements, threads not a multiple of chunks, 16-byte elements.
  EXPECT_FALSE(best_skew_tile_valid(1, best_tile{100, 8, 256, 8, 1}));
  EXPECT_FALSE(best_skew_tile_valid(4, best_tile{64, 12, 256, 16, 1}));
  EXPECT_FALSE(best_skew_tile_valid(4, best_tile{64, 64, 256, 16, 1}));  // a row's lanes span two warps
  EXPECT_FALSE(best_skew_tile_valid(16, best_tile{32, 16, 256, 16, 1}));
  EXPECT_FALSE(best_skew_tile_valid(1, best_tile{4096, 16, 256, 8, 1}));  // shared memory
}

TEST(BestSkewEmulation, Production1) { production<1>(); }
TEST(BestSkewEmulation, Production2) { production<2>(); }
TEST(BestSkewEmulation, Production4) { production<4>(); }
TEST(BestSkewEmulation, Production8) { production<8>(); }

// The fitted tiles (routes realign_skew_fit, realign_skew_async_fit): the
// half-width register tile, the 48-row cp.async tile without the halo (8 bytes); the sweep's 96-column /
// 96-row shapes scaled down (whole and partial tiles, batches, pointers one element off).
template <int E>
void production_fit() {
  constexpr best_tile T = best_tile_skew_fit_for(E), A = best_tile_skew_async_fit_for(E);
  static_assert(best_skew_tile_valid(E, T) && best_skew_tile_valid(E, A));
  cases<E, T.rows, T.chunks, T.threads, T.micro_bytes>();
  constexpr long long k = 16 / E, tc = T.chunks * k;
  check<E, T.rows, T.chunks, T.threads, T.micro_bytes>(xpose::matrix_desc::packed(5 * T.rows + 7, 3 * tc, E), 0, 0);
  check<E, T.rows, T.chunks, T.threads, T.micro_bytes>(xpose::matrix_desc::packed(2 * T.rows - 1, 5 * tc, E, 2), 1, k - 1);
  if constexpr (E == best_skew_async_fit_elem) {
    cases<E, A.rows, A.chunks, A.threads, A.micro_bytes, 2>();
    check<E, A.rows, A.chunks, A.threads, A.micro_bytes, 2>(xpose::matrix_desc::packed(2 * A.rows, 40 * k + 1, E), 0, 0);
    check<E, A.rows, A.chunks, A.threads, A.micro_bytes, 2>(xpose::matrix_desc::packed(40, 40 * k - 1, E, 2), 1, 0);
  }
}
TEST(BestSkewEmulation, Fitted4) { production_fit<4>(); }
TEST(BestSkewEmulation, Fitted8) { production_fit<8>(); }

// Small tiles: one row block plus the halo, 2-4 chunks per row, a warp or two of threads
// (threads wrap over the rows, micro-blocks and output slots several times per tile).
TEST(BestSkewEmulation, SmallTiles) {
  cases<1, 16, 2, 32, 8>();
  cases<1, 32, 4, 64, 16>();
  cases<2, 8, 2, 32, 16>();
  cases<2, 16, 4, 32, 8>();
  cases<4, 4, 2, 32, 16>();
  cases<4, 12, 4, 64, 8>();
  cases<8, 2, 2, 32, 16>();
  cases<8, 6, 4, 32, 8>();
}

// The fitted skewed tiles of 4-8 byte element-aligned layouts (realign_skew_fit,
// realign_skew_async_fit): their tables, and where they pad less (best_skew_pads_less).
TEST(BestSkewFit, Tiles) {
  for (int E : {4, 8}) {
    const best_tile f = best_tile_skew_fit_for(E), t = best_tile_skew_for(E);
    EXPECT_TRUE(best_skew_tile_valid(E, f)) << E;
    // Half the chunks and threads, twice the blocks: the same loads per thread, rows owned.
    EXPECT_EQ(f.chunks * 2, t.chunks);
    EXPECT_EQ(f.threads * 2, t.threads);
    EXPECT_EQ(f.rows, t.rows);
    EXPECT_EQ(best_skew_smem(E, f) * 2, best_skew_smem(E, t)) << E;
    if (E != best_skew_async_fit_elem) continue;
    const best_tile a = best_tile_skew_async_fit_for(E);
    EXPECT_TRUE(best_skew_tile_valid(E, a)) << E;
    EXPECT_EQ(a.rows, 48);
    EXPECT_EQ(a.rows % (16 / E), 0);
    EXPECT_LT(best_skew_async_smem(E, a, false, best_skew_async_stages),
              best_skew_async_smem(E, best_tile_skew_async_for(E, false), false, best_skew_async_stages));
  }
}

TEST(BestSkewFit, PadsLess) {
  // 96 rows: two 48-row tiles against a 64-row and a half-empty one (25% less).
  const best_tile a48 = best_tile_skew_async_fit_for(8), a64 = best_tile_skew_async_for(8, false);
  EXPECT_TRUE(best_skew_pads_less(xpose::matrix_desc::packed(96, 50177, 8), a48, a64));
  EXPECT_FALSE(best_skew_pads_less(xpose::matrix_desc::packed(128, 50177, 8), a48, a64));
  EXPECT_FALSE(best_skew_pads_less(xpose::matrix_desc::packed(2048, 2049, 8), a48, a64));
  EXPECT_FALSE(best_skew_pads_less(xpose::matrix_desc::packed(100, 4001, 8), a48, a64));  // 144 against 128 rows
  // 96 columns of f32: three 32-column tiles against a 64-column and a half-empty one.
  const best_tile h = best_tile_skew_fit_for(4), s = best_tile_skew_for(4);
  EXPECT_TRUE(best_skew_pads_less(xpose::matrix_desc::packed(50177, 96, 4), h, s));
  EXPECT_FALSE(best_skew_pads_less(xpose::matrix_desc::packed(2879, 2883, 4), h, s));  // 2912 against 2944 columns
  EXPECT_FALSE(best_skew_pads_less(xpose::matrix_desc::packed(50177, 128, 4), h, s));
}
