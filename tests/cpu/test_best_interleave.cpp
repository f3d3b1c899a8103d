// Host-side checks of the register-interleave slab kernels (best_interleave.cuh): the
// kernel's two warp phases run on host buffers, tile by tile, lane by lane, against
// the CPU reference (every short side with a kernel, 4- and 8-byte elements, ragged long sides,
// batches with gaps, padded rows), on layouts inside the route table's interleave condition;
// the staging skews.
#include <gtest/gtest.h>

#include <iterator>
#include <memory>
#include <utility>

#include "cuda/best_interleave.cuh"
#include "cuda/route_table.hpp"
#include "test_util.hpp"

using namespace xpose::detail;
using xpose_test::in_elems;
using xpose_test::out_elems;
using xpose_test::padded;
using xpose_test::random_bytes;

namespace {

using ilv::u8;

// Runs every warp tile of interleave_kernel<E, C, U, Gather, Any> on the host: all
// lanes' phase 1, then all lanes' phase 2 (the __syncwarp between them).
template <int E, int C, int U, bool Gather, bool Any = false>
void emulate(const ilv::args& a) {
  using S = ilv::shape<E, C, U>;
  std::vector<u8> store(S::stage_bytes + 16);
  u8* st = store.data() + (16 - reinterpret_cast<std::uintptr_t>(store.data()) % 16) % 16;
  for (long long t = 0; t < a.total; ++t) {
    const ilv::tile p = ilv::tile_at<E, C, U, Gather>(a, t);
    std::fill(st, st + S::stage_bytes, static_cast<u8>(0xCD));
    for (int lane = 0; lane < 32; ++lane) ilv::phase1<E, C, U, Gather, Any>(a, p, st, lane);
    for (int lane = 0; lane < 32; ++lane) ilv::phase2<E, C, U, Gather, Any>(a, p, st, lane);
  }
}

// Input / output placed off_in / off_out elements past a 16-byte boundary; the kernel
// best.cu launches for that layout (the realigning gather where a boundary is off).
template <int E, int C, int U = best_interleave_units(C)>
void check(bool gather, const xpose::matrix_desc& d, long long off_in = 0, long long off_out = 0) {
  SCOPED_TRACE(std::string(gather ? "gather " : "scatter ") + xpose_test::shape_name(d) + " U " + std::to_string(U) +
               " offsets " + std::to_string(off_in) + "/" + std::to_string(off_out));
  const std::size_t ni = static_cast<std::size_t>(in_elems(d)) * E, no = static_cast<std::size_t>(out_elems(d)) * E;
  const std::size_t oi = static_cast<std::size_t>(off_in) * E, oo = static_cast<std::size_t>(off_out) * E;
  const auto src = random_bytes(ni, static_cast<std::uint64_t>(d.rows * 31 + d.cols + C + off_in));
  // new[] of bytes: 16-byte aligned; the input ends at the allocation's end (ASan in the
  // sanitize preset sees any read past the view).
  std::unique_ptr<u8[]> in(new u8[oi + ni]), out(new u8[oo + no]);
  u8* const pin = in.get() + oi;
  u8* const pout = out.get() + oo;
  std::memcpy(pin, src.data(), ni);
  std::memset(out.get(), 0xFF, oo + no);
  std::vector<u8> want(no, 0xFF);
  ASSERT_TRUE(xpose::transpose_reference(src.data(), want.data(), d).ok());
  const auto ia = reinterpret_cast<std::uintptr_t>(pin), oa = reinterpret_cast<std::uintptr_t>(pout);
  const route_facts f = route_facts_for(d, ia, oa, 90);
  const bool aligned = gather ? f.ira && f.pout : f.ora && f.pin;
  // (Scatters above best_interleave_scatter_max and realigned gathers above
  // best_interleave_realign_max keep the slab kernels; the kernel is still exact.)
  if (gather ? aligned || C <= best_interleave_realign_max : C <= best_interleave_scatter_max)
    ASSERT_TRUE(route_detail::interleave(f, gather));
  const ilv::args a = ilv::make_args<E>(gather, pin, pout, d, pin + ni, U, gather && !aligned);
  if (!gather) emulate<E, C, U, false>(a);
  else if (aligned) emulate<E, C, U, true>(a);
  else emulate<E, C, U, true, true>(a);
  ASSERT_EQ(xpose_test::first_mismatch(pout, want.data(), d), "");
  ASSERT_EQ(std::memcmp(pout, want.data(), no), 0) << "padding or gap bytes were written";
  for (std::size_t i = 0; i < oo; ++i) ASSERT_EQ(out[i], 0xFF) << "a byte before the output was written";
}

// rows x cols, batch 2, with the given leading dimensions and batch strides.
xpose::matrix_desc laid_out(long long rows, long long cols, int E, long long ld_in, long long ld_out, long long stride_in,
                            long long stride_out) {
  xpose::matrix_desc d = padded(rows, cols, E, 2, ld_in - cols, ld_out - rows, 0);
  d.stride_in = stride_in, d.stride_out = stride_out;
  return d;
}

// Every short side C, long sides of whole and ragged units and of several warp tiles,
// packed and padded / gapped batches whose 16-byte boundaries stay aligned.
template <int E, int C>
void cases() {
  constexpr long long k = 16 / E;
  const long long tile_positions = 32LL * best_interleave_units(C) * k;
  for (long long L : {k, 3 * k + 1, 5 * k, tile_positions - 1, tile_positions + k + 1, 2 * tile_positions + 3}) {
    const long long pad = (k - L % k) % k;  // rows side padded to whole 16-byte rows
    if (pad == 0) {
      check<E, C>(true, xpose::matrix_desc::packed(C, L, E, 3));
      check<E, C>(false, xpose::matrix_desc::packed(L, C, E, 3));
    }
    // Rows padded to whole units (plus one), batch strides: whole chunks and a chunk's gap.
    const long long rows_side = C * (L + pad + k) + k, packed_side = (L * C + k - 1) / k * k + k;
    check<E, C>(true, laid_out(C, L, E, L + pad + k, C, rows_side, packed_side));
    check<E, C>(false, laid_out(L, C, E, C, L + pad + k, packed_side, rows_side));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The realigning gather: rows of any length (ld = L), pointers off by elements, packed
// and gapped batches (odd gaps).
template <int E, int C>
void realign_cases() {
  constexpr long long k = 16 / E;
  const long long tile_positions = 32LL * best_interleave_units(C) * k;
  for (long long L : {k + 1, 3 * k + 1, tile_positions - 1, tile_positions + 1, 2 * tile_positions + 3})
    for (auto [oi, oo] : {std::pair<long long, long long>{0, 0}, {1, 0}, {0, 1}, {k - 1, 1}}) {
      check<E, C>(true, xpose::matrix_desc::packed(C, L, E, 3), oi, oo);
      check<E, C>(true, padded(C, L, E, 2, 1, 0, 1), oi, oo);
      if (::testing::Test::HasFatalFailure()) return;
    }
}

template <int E, std::size_t... Is>
void every_side(std::index_sequence<Is...>) {
  (cases<E, best_interleave_sides[Is]>(), ...);
  (realign_cases<E, best_interleave_sides[Is]>(), ...);
}

}  // namespace

TEST(BestInterleave, EveryShortSideIsExact) {
  every_side<4>(std::make_index_sequence<std::size(best_interleave_sides)>{});
  every_side<8>(std::make_index_sequence<std::size(best_interleave_sides)>{});
}

TEST(BestInterleave, OtherUnitCountsAreExact) {
  check<4, 3, 1>(true, laid_out(3, 1001, 4, 1004, 3, 3 * 1004, 3 * 1001 + 1));
  check<4, 3, 3>(false, laid_out(1001, 3, 4, 3, 1004, 3 * 1001 + 1, 3 * 1004));
  check<8, 5, 2>(true, laid_out(5, 301, 8, 302, 5, 5 * 302 + 4, 5 * 301 + 1));
  check<8, 5, 2>(false, laid_out(301, 5, 8, 5, 302, 5 * 301 + 1, 5 * 302 + 4));
  // Row groups with several units per lane, and a last batch of items short of IB.
  check<4, 24, 2>(true, laid_out(24, 1001, 4, 1004, 24, 24 * 1004, 24 * 1001));
  check<4, 24, 2>(false, laid_out(1001, 24, 4, 24, 1004, 24 * 1001, 24 * 1004));
  static_assert(ilv::shape<8, 20, 1>::NI % ilv::shape<8, 20, 1>::IB != 0, "covers a partial item batch");
  check<8, 20, 1>(true, laid_out(20, 301, 8, 302, 20, 20 * 302, 20 * 301));
  check<8, 20, 1>(false, laid_out(301, 20, 8, 20, 302, 20 * 301, 20 * 302));
}

// The staging skew keeps a quarter warp's packed-order 16-byte accesses at most 2-way
// (conflict-free where C is odd or a power of two); a skew of 0 would be C-way.
TEST(BestInterleave, StagingSkews) {
  for (int C : best_interleave_sides) {
    const int P = ilv::stage_skew(C);
    EXPECT_LE(ilv::stage_conflicts(C, P), (C & (C - 1)) == 0 || C % 2 == 1 ? 1 : 2) << C;
  }
  EXPECT_EQ(ilv::stage_conflicts(4, 0), 4);
  using S2 = ilv::shape<4, 2, 4>;
  using S16 = ilv::shape<8, 16, 1>;
  using S32 = ilv::shape<4, 32, 1>;
  EXPECT_EQ(S2::RP % 8, ilv::stage_skew(2));
  EXPECT_GE(S2::RP, S2::NU);
  // The largest blocks' staging fits the default 48 KiB of shared memory.
  EXPECT_LE(best_interleave_threads(16) / 32 * S16::stage_bytes, 48 * 1024);
  EXPECT_LE(best_interleave_threads(32) / 32 * S32::stage_bytes, 48 * 1024);
  EXPECT_EQ(S32::G, 4);
  EXPECT_EQ(S32::NG, 8);
}
