// GPU tests of the u8 gathers C x HW -> HW x C of 24 rows on the shift kernel (slab_gather_pipe_shift
// at the larger slabs where the input rows are off the 16-byte grid: odd and aligned long sides,
// batches, input pointers 1 and 15 elements off, the output off, padded rows, gapped batches,
// partial and many slabs per resident block, the sweep's row) and of the deep form of the u8
// fitted tiles (48 aligned rows; 96 realigning rows, the chunk after each row's cover in shared
// memory: row counts that round to those tiles, partial tiles, input pointers off, padded input
// rows, gapped batches, the sweep's rows). The output's whole extent (padding and gaps poisoned)
// checked bitwise. Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;

TEST(BestShift24, Layouts) {
  REQUIRE_GPU();
  {
    const std::uint64_t s = 500;
    check_best(matrix_desc::packed(24, 50177, 1, 3), s, 0, 0);
    check_best(matrix_desc::packed(24, 50176, 1, 2), s + 1, 0, 0);  // (aligned rows: kept)
    check_best(matrix_desc::packed(24, 50176, 1, 2), s + 2, 1, 1);
    check_best(matrix_desc::packed(24, 40001, 1, 5), s + 3, 15, 0);
    check_best(matrix_desc::packed(24, 40000, 1, 3), s + 4, 0, 1);  // (output off only: kept)
    check_best(matrix_desc::packed(24, 40003, 1, 3), s + 5, 0, 7);
    check_best(padded(24, 30000, 1, 3, 3, 0, 0), s + 6, 0, 3);
    check_best(padded(24, 30001, 1, 3, 0, 0, 5), s + 7, 0, 0);
    check_best(matrix_desc::packed(24, 3001, 1, 7), s + 8, 0, 0);  // (partial slabs)
    check_best(matrix_desc::packed(24, 50177, 1, 1), s + 9, 1, 0);
    if (HasFatalFailure()) return;
  }
}

// Many slabs per resident block (16-24 MiB calls) and the sweep's row.
TEST(BestShift24, LargeCallsAndSweepRow) {
  REQUIRE_GPU();
  {
    const index_t n = (index_t{1} << 20) + 1;
    check_best(matrix_desc::packed(24, n, 1, 1), 520, 0, 0);
    check_best(matrix_desc::packed(24, n - 1, 1, 1), 521, 15, 1);
    check_best(matrix_desc::packed(24, 50177, 1, 27), 522, 0, 0);
    if (HasFatalFailure()) return;
  }
}

TEST(BestFitDeep, Layouts) {
  REQUIRE_GPU();
  {
    const std::uint64_t s = 600;
    // 48 aligned rows (and 33-47: the 48-row tile, partial).
    check_best(matrix_desc::packed(48, 8192, 1, 3), s, 0, 0);
    check_best(padded(40, 8192, 1, 3, 0, 8, 0), s + 1, 0, 0);
    check_best(matrix_desc::packed(48, 4096 + 16, 1, 2), s + 2, 16, 16);
    check_best(matrix_desc::packed(48, 4100, 1, 2), s + 3, 0, 0);
    check_best(padded(48, 4096, 1, 3, 16, 0, 0), s + 4, 0, 0);
    check_best(padded(48, 4096, 1, 3, 0, 0, 16), s + 5, 0, 0);
    check_best(matrix_desc::packed(48, 3008, 1, 1), s + 6, 0, 0);  // (partial last tile)
    // 96 realigning rows (and 81-95: the 96-row tile, partial).
    check_best(matrix_desc::packed(96, 8201, 1, 3), s + 10, 0, 0);
    check_best(padded(90, 8201, 1, 2, 0, 6, 0), s + 11, 0, 0);
    check_best(matrix_desc::packed(96, 4096, 1, 2), s + 12, 1, 0);
    check_best(matrix_desc::packed(96, 4097, 1, 2), s + 13, 15, 32);
    check_best(padded(96, 3000, 1, 2, 5, 16, 0), s + 14, 0, 0);
    check_best(padded(96, 4099, 1, 3, 0, 0, 48), s + 15, 0, 0);
    check_best(matrix_desc::packed(96, 2601, 1, 1), s + 16, 0, 0);  // (partial last tile)
    check_best(matrix_desc::packed(96, 50176, 1, 2), s + 17, 0, 0);  // (aligned: own tile)
    if (HasFatalFailure()) return;
  }
}

// Many tiles per call (16-24 MiB) and the sweep's rows.
TEST(BestFitDeep, LargeCallsAndSweepRows) {
  REQUIRE_GPU();
  {
    check_best(matrix_desc::packed(48, 50176, 1, 13), 700, 0, 0);
    check_best(matrix_desc::packed(96, 50177, 1, 6), 701, 0, 0);
    check_best(matrix_desc::packed(96, (index_t{1} << 24) / 96 + 1, 1, 1), 702, 1, 0);
    check_best(matrix_desc::packed(48, (index_t{1} << 24) / 48 / 16 * 16, 1, 1), 703, 0, 0);
    if (HasFatalFailure()) return;
  }
}
