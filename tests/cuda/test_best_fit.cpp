// GPU tests of the row-fitted tile (routes tile_fit / realign_fit): 1-2 byte gathers of 33-128
// rows (every row count whose output rows are whole 16-byte chunks, padded tiles for f16),
// aligned and odd input rows, input pointers 1 to k - 1 elements off, padded input rows, gapped
// batches, partial last tiles, many tiles per call, and layouts next to the class. The output's
// whole extent (padding and gaps poisoned) checked bitwise. Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;

// Every row count of the class (whole 16-byte output rows, 33-128 rows), aligned and odd
// input rows, partial last tiles (columns not a multiple of the tile's).
TEST(BestFit, EveryRowCount) {
  REQUIRE_GPU();
  for (int es : {1, 2}) {
    const index_t k = 16 / es;
    for (index_t c = es == 1 ? 48 : 40; c <= 128; c += k) {
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 31 + es);
      check_best(matrix_desc::packed(c, 8192, es, 3), seed, 0, 0);
      check_best(matrix_desc::packed(c, 8192 + 3 * k + 8 / es, es, 2), seed + 2, 0, 0);
      check_best(matrix_desc::packed(c, 4096 + k, es, 2), seed + 4, 0, 0);
      check_best(matrix_desc::packed(c, 8201, es, 3), seed + 6, 0, 0);
      if (HasFatalFailure()) return;
    }
  }
}

// Input pointers off the 16-byte grid by every element offset, the output at aligned
// offsets; padded input rows; gapped batches (gaps of whole chunks keep the output rows
// aligned; odd gaps move the input only).
TEST(BestFit, Layouts) {
  REQUIRE_GPU();
  for (int es : {1, 2}) {
    const index_t k = 16 / es;
    for (index_t oi = 1; oi < k; ++oi)
      check_best(matrix_desc::packed(48, 4096, es, 2), 300 + static_cast<std::uint64_t>(oi), oi, 0);
    check_best(matrix_desc::packed(64, 4096, es, 2), 320, 1, k);
    check_best(matrix_desc::packed(96, 4097, es, 2), 321, k - 1, 2 * k);
    check_best(matrix_desc::packed(128, 4096, es, 2), 322, k, k);
    // Padded input rows (aligned and not), output rows padded by whole chunks.
    check_best(padded(48, 4096, es, 3, k, 0, 0), 330, 0, 0);
    check_best(padded(80, 4096, es, 3, 3, 0, 0), 331, 0, 0);
    check_best(padded(64, 3000, es, 2, 5, k, 0), 332, 1, 0);
    check_best(padded(96, 2560, es, 2, 0, 2 * k, 0), 333, 0, k);
    // Gapped batches: whole chunks (aligned input rows) and whole chunks on an odd row length.
    check_best(padded(48, 4096, es, 3, 0, 0, k), 340, 0, 0);
    check_best(padded(112, 4099, es, 3, 0, 0, 3 * k), 341, 0, 0);
    if (HasFatalFailure()) return;
  }
}

// Many tiles per call (2 x 16-24 MiB), the sweep's row counts as the sweep runs them.
TEST(BestFit, LargeCalls) {
  REQUIRE_GPU();
  check_best(matrix_desc::packed(48, 50176, 1, 13), 350, 0, 0);
  check_best(matrix_desc::packed(48, 50177, 1, 13), 351, 0, 0);
  check_best(matrix_desc::packed(96, 50177, 1, 6), 352, 0, 0);
  check_best(matrix_desc::packed(128, 50176, 1, 5), 353, 0, 0);
  check_best(matrix_desc::packed(96, 50176, 2, 3), 354, 0, 0);
  check_best(matrix_desc::packed(128, 50177, 2, 2), 355, 0, 0);
  check_best(matrix_desc::packed(48, 50177, 2, 6), 356, 0, 0);
  check_best(matrix_desc::packed(64, (index_t{1} << 24) / 64 + 1, 1, 1), 357, 1, 0);
}

// Next to the class: other row counts, short rows, 4-byte elements, output rows off the grid.
TEST(BestFit, NotTaken) {
  REQUIRE_GPU();
  {
    for (const matrix_desc& d :
         {matrix_desc::packed(32, 8192, 1, 2), matrix_desc::packed(129, 8192, 1, 2), matrix_desc::packed(40, 8192, 1, 2),
          matrix_desc::packed(65, 8192, 2, 2), matrix_desc::packed(64, 200, 1, 2), matrix_desc::packed(64, 8192, 4, 2)}) {
      check_best(d, 360, 0, 0);
    }
    // Output rows off the grid (output pointer one element off).
    const matrix_desc d = matrix_desc::packed(64, 8192, 2, 2);
    check_best(d, 361, 0, 1);
    if (HasFatalFailure()) return;
  }
}
