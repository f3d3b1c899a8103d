// GPU tests of the fitted skewed tiles for 4-8 byte element-aligned layouts (routes
// realign_skew_fit, realign_skew_async_fit): partial tiles both ways, batches, pointers offset by
// one element, the sweep's shapes. The output's whole extent checked bitwise. Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;

// The half-width register tile: 32-column (f32) / 16-column (8-byte) tiles, ragged rows,
// a partial last tile column, batches, the output pointer one element off.
TEST(BestSkewFit, RegisterTile) {
  REQUIRE_GPU();
  check_best(matrix_desc::packed(1001, 96, 4), 11, 0, 0);
  check_best(matrix_desc::packed(1001, 96, 4, 2), 13, 0, 0);
  check_best(matrix_desc::packed(1000, 96, 4), 15, 0, 1);
  check_best(matrix_desc::packed(999, 160, 4, 3), 17, 1, 0);
  check_best(matrix_desc::packed(777, 48, 8, 3), 19, 0, 0);
  check_best(matrix_desc::packed(778, 48, 8, 2), 21, 0, 1);
  check_best(matrix_desc::packed(301, 80, 8), 23, 0, 0);
}

// The 48-row cp.async tile (8 bytes): 96 rows (two whole tiles), 40 rows (one partial tile),
// batches, the input pointer one element off.
TEST(BestSkewFit, AsyncTile) {
  REQUIRE_GPU();
  check_best(matrix_desc::packed(96, 1001, 8), 31, 0, 0);
  check_best(matrix_desc::packed(96, 1001, 8, 3), 33, 0, 0);
  check_best(matrix_desc::packed(96, 1000, 8, 2), 35, 1, 0);
  check_best(matrix_desc::packed(40, 1001, 8, 2), 37, 0, 0);
  check_best(matrix_desc::packed(96, 999, 8, 2), 39, 3, 0);
  check_best(matrix_desc::packed(144, 333, 8), 41, 0, 0);  // 3 tiles of 48 against 3 of 64 (192 rows)
}

// The sweep's rows (19-39 MB), as the sweep runs them.
TEST(BestSkewFit, LargeCalls) {
  REQUIRE_GPU();
  check_best(matrix_desc::packed(50177, 96, 4), 51, 0, 0);
  check_best(matrix_desc::packed(96, 50177, 8), 53, 0, 0);
  check_best(matrix_desc::packed(96, 50177, 4), 55, 0, 0);
}
