// Host emulation of the skewed realigning tile (src/cuda/best_skew.cuh, path
// realign_skew of the candidate policy): every block's three phases run thread by
// thread on host buffers, in the order the kernel's barriers impose, against the CPU
// reference. Every element size, the production tiles and small ones (many tiles,
// ragged edges, tiles that own nothing), pointers offset by every residue, padded
// leading dimensions and gapped batches; the input is allocated to its exact extent
// (ASan in the sanitize preset sees any overrun) and the output is poisoned, so a
// store outside the matrix's elements fails the test.
#include <gtest/gtest.h>

#include <memory>

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

template <int E, int TR, int NCH, int NT, int MW>
void emulate(const skew::args& a) {
  using g = skew::geom<E, TR, NCH, NT, MW>;
  std::vector<u8> store(static_cast<std::size_t>(g::smem) + 16);
  u8* sm = store.data() + (16 - reinterpret_cast<std::uintptr_t>(store.data()) % 16) % 16;
  for (long long t = 0; t < a.total; ++t) {
    const skew::tile p = skew::tile_at<E, TR, g::TC, g::AR>(a, t);
    std::fill(sm, sm + g::smem, static_cast<u8>(0xCD));
    for (int tid = 0; tid < NT; ++tid) skew::load_phase<E, TR, NCH, NT, MW>(a, p, sm, tid);
    for (int tid = 0; tid < NT; ++tid) skew::mid_phase<E, TR, NCH, NT, MW>(sm, tid);
    for (int tid = 0; tid < NT; ++tid) skew::store_phase<E, TR, NCH, NT, MW>(a, p, sm, tid);
  }
}

// Runs tile T (template arguments) on d with input / output offset by off_in / off_out
// elements from a 16-byte boundary; compares the whole output buffer.
template <int E, int TR, int NCH, int NT, int MW>
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
  emulate<E, TR, NCH, NT, MW>(a);
  ASSERT_EQ(xpose_test::first_mismatch(out.get() + oo, want.data(), d), "");
  ASSERT_EQ(std::memcmp(out.get() + oo, want.data(), no), 0) << "padding or gap bytes were written";
  for (std::size_t i = 0; i < oo; ++i) ASSERT_EQ(out[i], 0xFF) << "byte before the output written";
}

template <int E, int TR, int NCH, int NT, int MW>
void cases() {
  constexpr long long k = 16 / E, TC = NCH * k;
  const std::vector<std::pair<long long, long long>> shapes = {
      {TR + 1, TC + 3}, {2 * TR + k - 1, 2 * TC - 1}, {TR - 1, TC + 1}, {3, TC + 5}, {TR + k + 3, 2},
      {1, 9}, {k + 1, 1}, {2 * TR + 1, TC}};
  for (auto [r, c] : shapes) {
    for (long long o = 0; o < k; ++o) {
      check<E, TR, NCH, NT, MW>(xpose::matrix_desc::packed(r, c, E), o, (o * 3 + 1) % k);
      if (::testing::Test::HasFatalFailure()) return;
    }
    check<E, TR, NCH, NT, MW>(xpose::matrix_desc::packed(r, c, E, 3), 1, 0);
    check<E, TR, NCH, NT, MW>(padded(r, c, E, 2, 1, 3, 5), 0, 1);
    check<E, TR, NCH, NT, MW>(padded(r, c, E, 3, k, 1, 1), k - 1, 0);  // aligned rows, odd output
    check<E, TR, NCH, NT, MW>(padded(r, c, E, 2, 3, k, 0), 2, 0);      // odd rows, aligned output rows
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

}  // namespace

TEST(BestSkewPolicy, TilesAreValid) {
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

TEST(BestSkewPolicy, CandidateTakesTheSkewedTile) {
  using xpose::matrix_desc;
  // The flag under which the skewed route is on (best_skew_default: best, else best_next)
  // and the one under which the realigning tile stays.
  const bool on = !best_skew_default, off = best_skew_default;
  const best_path skew = best_skew_enabled ? best_path::realign_skew : best_path::realign;
  for (int E : {1, 2, 4, 8}) {
    const best_choice c = best_path_for(matrix_desc::packed(16383, 16385, E), 0, 0, 90, on);
    EXPECT_EQ(c.path, skew) << E;
    EXPECT_EQ(best_path_for(matrix_desc::packed(16383, 16385, E), 0, 0, 90, off).path, best_path::realign) << E;
    // Aligned rows stay on a tile under both (1-byte elements: the half tile under its switch).
    for (bool f : {false, true}) {
      const best_path t = best_path_for(matrix_desc::packed(16384, 16384, E), 0, 0, 90, f).path;
      EXPECT_TRUE(t == best_path::tile || (E == 1 && t == best_path::tile_half)) << E << " " << best_path_name(t);
    }
  }
  EXPECT_EQ(best_path_for(matrix_desc::packed(4095, 4097, 16), 8, 0, 90, on).path, best_path::tile_access);
  // The measured exceptions (RESULTS "Shape classes (issue 12)", third round): 1-2 byte
  // elements with 16-byte aligned output rows, and row counts the skewed tile pads more.
  auto cand = [&](const matrix_desc& d, unsigned long long out = 0) { return best_path_for(d, 0, out, 90, on).path; };
  // (Aligned output rows of 1-2 byte elements: realign_async where its switch is on.)
  const best_path aligned_out = best_route_on(best_async_realign_default, on) ? best_path::realign_async : best_path::realign;
  EXPECT_EQ(cand(matrix_desc::packed(5760, 5761, 1)), aligned_out);
  EXPECT_EQ(cand(matrix_desc::packed(5760, 5761, 1), 3), skew);  // output pointer offset: rows unaligned
  EXPECT_EQ(cand(matrix_desc::packed(5759, 5763, 1)), skew);
  EXPECT_EQ(cand(matrix_desc::packed(4096, 4097, 2)), aligned_out);
  EXPECT_EQ(cand(matrix_desc::packed(4095, 4099, 2)), skew);
  EXPECT_EQ(cand(matrix_desc::packed(2880, 2881, 4)), skew);  // aligned output rows: still the skewed tile
  EXPECT_EQ(cand(matrix_desc::packed(2048, 2049, 8)), skew);
  EXPECT_EQ(cand(matrix_desc::packed(96, 50177, 4)), skew);
  EXPECT_EQ(cand(matrix_desc::packed(128, 50177, 4)), best_path::realign);  // 3 x 60 rows against 2 x 64
  EXPECT_EQ(cand(matrix_desc::packed(50177, 128, 4)), skew);
  EXPECT_STREQ(best_path_name(best_path::realign_skew), "realign_skew");
}

TEST(BestSkewEmulation, Production1) { production<1>(); }
TEST(BestSkewEmulation, Production2) { production<2>(); }
TEST(BestSkewEmulation, Production4) { production<4>(); }
TEST(BestSkewEmulation, Production8) { production<8>(); }

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
