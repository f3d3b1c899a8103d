// GPU tests of the direct scatter (slab_scatter_direct, best_direct.cuh; switch
// best_scatter_direct_default: aligned output rows of u8 sides 4-6 and f16 5-6): staging ->
// registers -> output, one shuffle per word for the rows' phase; every side of the class
// HW x C -> C x HW, 1-2 byte elements, checked under both flags (one of them has the switch take
// its rows, the other the routes it replaced). Output rows aligned and not (odd HW, pointers one
// element off, padded rows, gapped batches), many slabs per resident block; the output's whole
// extent (padding and gaps poisoned) checked bitwise, the path asserted. Skip without a GPU.
#include <utility>

#include "best_check.hpp"

using namespace xpose_test;
using xpose::detail::best_path;

namespace {

bool is_new(best_path p) { return p == best_path::slab_scatter_direct; }

// d at these offsets under both flags (the switch has one of them take its route), each
// checked, its route asserted as best_path_for gives it; 1 if either flag takes the direct route
// (at the direct route's depth).
int check_new(const matrix_desc& d, std::uint64_t seed, index_t off_in, index_t off_out) {
  const auto in = static_cast<unsigned long long>(off_in * d.elem_size);
  const auto out = static_cast<unsigned long long>(off_out * d.elem_size);
  bool any = false;
  for (bool flag : {false, true}) {
    const xpose::detail::best_choice c = xpose::detail::best_path_for(d, in, out, 90, flag);
    check_best(d, seed, off_in, off_out, c.path, flag);
    // (slab > 0: the two-buffer kernel of best_scatter_direct2_default, run and checked, not counted.)
    any = any || (is_new(c.path) && c.slab == 0);
  }
  return any ? 1 : 0;
}

// Whether the direct route (at its own depth) runs side c to output rows aligned or not under
// either flag: its switch takes the side there and the two-buffer kernel's switch
// (best_scatter_direct2_default) does not take it first.
bool direct_runs(int es, index_t c, bool aligned) {
  namespace xd = xpose::detail;
  for (bool f : {false, true})
    if (xd::best_scatter_direct_on(es, f) && xd::best_scatter_direct_fits(es, static_cast<int>(c), aligned) &&
        !(xd::best_scatter_direct2_on(es, f) && xd::best_scatter_direct2_takes(es, c, aligned)))
      return true;
  return false;
}

}  // namespace

// Every grouped and micro-block side of the class: odd HW, aligned HW, both pointers one
// element off, the output k - 1 elements off, padded output rows, gapped batches.
TEST(BestDirect, Sides) {
  REQUIRE_GPU();
  int taken = 0, sides = 0;
  for (int es : {1, 2})
    for (index_t c : {2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 48, 64, 96, 128}) {
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 41 + es);
      const index_t k = 16 / es;
      // Packed, aligned buffers (matrices above the whole-matrix slab's 16 KiB): the direct route
      // exactly for its sides to aligned output rows (HW 16384), never to odd HW.
      const bool fits = direct_runs(es, c, true);
      sides += fits;
      EXPECT_EQ(check_new(matrix_desc::packed(16385, c, es, 3), seed, 0, 0), 0) << es << " " << c;
      EXPECT_EQ(check_new(matrix_desc::packed(16384, c, es, 3), seed + 1, 0, 0), fits ? 1 : 0) << es << " " << c;
      taken += check_new(matrix_desc::packed(8200, c, es, 2), seed + 2, 1, 1);
      taken += check_new(matrix_desc::packed(8200, c, es, 2), seed + 3, 0, k - 1);
      taken += check_new(padded(3137, c, es, 3, 0, 0, 3), seed + 4, 0, 0);
      taken += check_new(padded(8192, c, es, 3, 0, 3, 0), seed + 5, 0, 0);
      taken += check_new(padded(8192, c, es, 3, 0, 0, 2 * k), seed + 6, 0, 0);
      if (HasFatalFailure()) return;
    }
  // (u8 4-6 / f16 5, and f16 6 where the two-buffer kernel does not take it, with aligned output
  // rows among the other layouts.)
  EXPECT_GE(sides, 4);
  EXPECT_GE(taken, sides);
}

// Many slabs per resident block: 2 x 16 MiB per call, odd and aligned HW; the direct route for
// the aligned rows of its sides (direct_runs: u8 4-6, f16 5), never the odd ones.
TEST(BestDirect, LongCalls) {
  REQUIRE_GPU();
  int taken = 0, want = 0;
  for (int es : {1, 2})
    for (index_t c : {2, 4, 5, 6, 8, 24, 64}) {
      const index_t n = (index_t{16} << 20) / (c * es) / 16 * 16;
      EXPECT_EQ(check_new(matrix_desc::packed(n + 3, c, es, 2), static_cast<std::uint64_t>(300 + c), 0, 0), 0);
      taken += check_new(matrix_desc::packed(n, c, es, 2), static_cast<std::uint64_t>(320 + c), 0, 0);
      want += direct_runs(es, c, true);
      if (HasFatalFailure()) return;
    }
  EXPECT_GE(want, 4);
  EXPECT_EQ(taken, want);
}

// The sweep's rows of the class below 0.85 (session 6, call 3) and those the direct route
// takes (aligned u8 4-6, f16 5; f16 6 where the two-buffer kernel does not take it), as the
// sweep runs them.
TEST(BestDirect, SweepRows) {
  REQUIRE_GPU();
  int taken = 0;
  taken += check_new(matrix_desc::packed(50177, 2, 1, 256), 400, 0, 0);
  taken += check_new(matrix_desc::packed(50177, 6, 1, 111), 401, 0, 0);
  taken += check_new(matrix_desc::packed(50177, 24, 1, 27), 402, 0, 0);
  taken += check_new(matrix_desc::packed(50177, 128, 1, 5), 403, 0, 0);
  taken += check_new(matrix_desc::packed(50176, 96, 1, 6), 404, 0, 0);
  taken += check_new(matrix_desc::packed(50176, 6, 2, 55), 405, 0, 0);
  taken += check_new(matrix_desc::packed(50177, 2, 2, 167), 406, 0, 0);
  taken += check_new(matrix_desc::packed(50176, 96, 2, 3), 407, 0, 0);
  taken += check_new(matrix_desc::packed(50176, 5, 2, 66), 408, 0, 0);
  taken += check_new(matrix_desc::packed(50177, 4, 2, 83), 409, 0, 0);
  taken += check_new(matrix_desc::packed(50176, 4, 1, 167), 410, 0, 0);
  taken += check_new(matrix_desc::packed(50176, 5, 1, 133), 411, 0, 0);
  taken += check_new(matrix_desc::packed(50176, 6, 1, 111), 412, 0, 0);
  int want = 0;
  for (auto [c, es] : {std::pair<index_t, int>{4, 1}, {5, 1}, {6, 1}, {5, 2}, {6, 2}}) want += direct_runs(es, c, true);
  EXPECT_GE(want, 4);
  EXPECT_EQ(taken, want);
}
