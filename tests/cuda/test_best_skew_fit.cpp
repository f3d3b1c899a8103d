// GPU tests of the fitted skewed tiles for 4-8 byte element-aligned layouts (routes
// realign_skew_fit, realign_skew_async_fit; switch best_skew_fit_default) under both flags:
// under the flag that takes them, the fitted tile (partial tiles both ways, batches, pointers
// offset by one element, the sweep's shapes), the path asserted; under the other, the skewed
// routes of before. The output's whole extent checked bitwise. Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;
using xpose::detail::best_path;

namespace {

constexpr bool on = !xpose::detail::best_skew_fit_default;

// d (input / output off_in / off_out elements past a 256-byte boundary) under both flags: the
// fitted route f under `on`, exact both ways.
void both(const matrix_desc& d, best_path f, std::uint64_t seed, index_t off_in = 0, index_t off_out = 0) {
  ASSERT_EQ(xpose::detail::best_skew_fit_path(d, static_cast<unsigned long long>(off_out * d.elem_size)), f)
      << shape_name(d);
  check_best(d, seed, off_in, off_out, f, on);
  check_best(d, seed + 1, off_in, off_out, std::nullopt, !on);
}

}  // namespace

// The half-width register tile: 32-column (f32) / 16-column (8-byte) tiles, ragged rows,
// a partial last tile column, batches, the output pointer one element off.
TEST(BestSkewFit, RegisterTile) {
  REQUIRE_GPU();
  const best_path f = best_path::realign_skew_fit;
  both(matrix_desc::packed(1001, 96, 4), f, 11);
  both(matrix_desc::packed(1001, 96, 4, 2), f, 13);
  both(matrix_desc::packed(1000, 96, 4), f, 15, 0, 1);
  both(matrix_desc::packed(999, 160, 4, 3), f, 17, 1, 0);
  both(matrix_desc::packed(777, 48, 8, 3), f, 19);
  both(matrix_desc::packed(778, 48, 8, 2), f, 21, 0, 1);
  both(matrix_desc::packed(301, 80, 8), f, 23);
}

// The 48-row cp.async tile (8 bytes): 96 rows (two whole tiles), 40 rows (one partial tile),
// batches, the input pointer one element off.
TEST(BestSkewFit, AsyncTile) {
  REQUIRE_GPU();
  const best_path f = best_path::realign_skew_async_fit;
  both(matrix_desc::packed(96, 1001, 8), f, 31);
  both(matrix_desc::packed(96, 1001, 8, 3), f, 33);
  both(matrix_desc::packed(96, 1000, 8, 2), f, 35, 1, 0);
  both(matrix_desc::packed(40, 1001, 8, 2), f, 37);
  both(matrix_desc::packed(96, 999, 8, 2), f, 39, 3, 0);
  both(matrix_desc::packed(144, 333, 8), f, 41);  // 3 tiles of 48 against 3 of 64 (192 rows)
}

// The sweep's rows (19-39 MB), as the sweep runs them.
TEST(BestSkewFit, LargeCalls) {
  REQUIRE_GPU();
  both(matrix_desc::packed(50177, 96, 4), best_path::realign_skew_fit, 51);
  both(matrix_desc::packed(96, 50177, 8), best_path::realign_skew_async_fit, 53);
  // (4-byte rows: the 64-row tile under both flags.)
  ASSERT_EQ(xpose::detail::best_skew_fit_path(matrix_desc::packed(96, 50177, 4), 0), best_path::copy);
  for (bool cand : {false, true}) check_best(matrix_desc::packed(96, 50177, 4), 55, 0, 0, std::nullopt, cand);
}
