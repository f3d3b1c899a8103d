// GPU tests of the row-fitted tile for 4-8 byte gathers of 24 and 32 rows (route tile_fit):
// full and partial last tiles, batches, padded rows and gapped batches of whole chunks,
// pointers offset by whole chunks, the sweep's shapes; and layouts just outside the class
// (input or output one element off, odd row lengths, 16 / 48 rows). The output's whole extent
// (padding and gaps poisoned) checked bitwise. Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;

// Full tiles, a partial last tile (columns not a multiple of the tile's 256 bytes), batches.
TEST(BestFitWide, Tiles) {
  REQUIRE_GPU();
  for (int es : {4, 8}) {
    const index_t k = 16 / es, tc = 256 / es;
    for (index_t rows : {24, 32}) {
      const std::uint64_t seed = static_cast<std::uint64_t>(rows * 17 + es);
      check_best(matrix_desc::packed(rows, 64 * tc, es), seed);
      check_best(matrix_desc::packed(rows, 40 * tc + k, es), seed + 2);
      check_best(matrix_desc::packed(rows, 20 * tc + tc - k, es, 3), seed + 4);
      check_best(matrix_desc::packed(rows, 4 * rows, es, 2), seed + 6);  // the shortest rows taken
      if (HasFatalFailure()) return;
    }
  }
}

// Pointers offset by whole chunks, padded rows and gapped batches of whole chunks: every row
// still 16-byte aligned on both sides.
TEST(BestFitWide, Layouts) {
  REQUIRE_GPU();
  for (int es : {4, 8}) {
    const index_t k = 16 / es;
    for (index_t rows : {24, 32}) {
      const std::uint64_t seed = static_cast<std::uint64_t>(400 + rows + es);
      check_best(matrix_desc::packed(rows, 3000 * k, es, 2), seed, k, 0);
      check_best(matrix_desc::packed(rows, 3000 * k, es, 2), seed + 2, 0, 3 * k);
      check_best(padded(rows, 1500 * k + k, es, 3, k, 0, 0), seed + 4);
      check_best(padded(rows, 1500 * k, es, 2, 0, k, 0), seed + 6);
      check_best(padded(rows, 1500 * k, es, 3, 2 * k, k, 5 * k), seed + 8, k, k);
      if (HasFatalFailure()) return;
    }
  }
}

// Outside the class, next to it: one element off on either side, odd row lengths, output rows
// of a partial chunk, the rows the rule leaves (16, 20, 28, 48), short rows, 1-2 byte elements.
TEST(BestFitWide, NotTaken) {
  REQUIRE_GPU();
  for (int es : {4, 8}) {
    const index_t k = 16 / es;
    for (index_t rows : {24, 32}) {
      const std::uint64_t seed = static_cast<std::uint64_t>(500 + rows + es);
      check_best(matrix_desc::packed(rows, 2048 * k, es, 2), seed, 1, 0);
      check_best(matrix_desc::packed(rows, 2048 * k, es, 2), seed + 1, 0, 1);
      check_best(matrix_desc::packed(rows, 2048 * k + 1, es, 2), seed + 2);
      check_best(padded(rows, 2048 * k, es, 2, 1, 0, 0), seed + 3);
      check_best(padded(rows, 2048 * k, es, 2, 0, 1, 0), seed + 4);
      check_best(matrix_desc::packed(rows, 3 * rows, es, 4), seed + 5);
      if (HasFatalFailure()) return;
    }
    for (index_t rows : {16, 20, 28, 48}) check_best(matrix_desc::packed(rows, 2048 * k, es, 2), 520 + rows);
    if (HasFatalFailure()) return;
  }
  check_best(matrix_desc::packed(32, 8192, 2, 2), 530);
  check_best(matrix_desc::packed(24, 8192, 1, 2), 531);
}

// The sweep's shapes (16-32 MiB), as the sweep runs them.
TEST(BestFitWide, LargeCalls) {
  REQUIRE_GPU();
  check_best(matrix_desc::packed(32, 131072, 8), 600);
  check_best(matrix_desc::packed(32, 262144, 4), 601);
  check_best(matrix_desc::packed(24, 50176, 8, 3), 602);
  check_best(matrix_desc::packed(24, 50176, 4, 6), 603);
  check_best(matrix_desc::packed(32, 50176, 8, 2), 604);
  check_best(matrix_desc::packed(32, 50176, 4, 5), 605);
}
