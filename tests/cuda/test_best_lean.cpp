// GPU tests of the lean form of the pipelined grouped gathers (pipe_kernel A; routes
// slab_gather_pipe / slab_gather_pipe_shift with route::lean): 1-2 byte gathers whose input rows
// or packed output matrices are off the 16-byte grid (odd HW over batches, input / output
// pointers one element off, padded rows, gapped batches), every pipelined side, many slabs per
// resident block, the sweep's rows. The output's whole extent (padding and gaps poisoned)
// checked bitwise. Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;

// Every pipelined side, 1- and 2-byte elements: odd long sides over batches (each matrix's
// output at its own phase), both pointers one element off, the output alone off (aligned
// input rows: the realigning kernel's slabs), padded input rows, gapped batches.
TEST(BestLean, GroupedGathers) {
  REQUIRE_GPU();
  for (int es : {1, 2}) {
    const index_t k = 16 / es;
    for (index_t c : xpose::detail::best_pipe_sides) {
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 43 + es);
      check_best(matrix_desc::packed(c, 8201, es, 3), seed, 0, 0);
      check_best(matrix_desc::packed(c, 8200, es, 2), seed + 1, 1, 1);
      // (Aligned input rows: the lean form of the realigning kernel, sides without a shift kernel.)
      check_best(matrix_desc::packed(c, 8192, es, 3), seed + 2, 0, 1);
      check_best(padded(c, 3137, es, 3, 0, 0, 3), seed + 3, 0, 0);
      check_best(padded(c, 8192, es, 3, 3, 0, 0), seed + 4, 0, 3);
      check_best(padded(c, 8192, es, 2, 0, 0, k + 1), seed + 5, 0, 0);
      check_best(matrix_desc::packed(c, 12345, es, 7), seed + 6, k - 1, 0);
      if (HasFatalFailure()) return;
    }
  }
}

// Many slabs per resident block (2 x 16-24 MiB per call), odd long sides.
TEST(BestLean, LargeCalls) {
  REQUIRE_GPU();
  for (int es : {1, 2}) {
    const index_t n = (index_t{1} << 20) / es + 3;
    check_best(matrix_desc::packed(8, n, es, 2), 230, 1, 1);
    check_best(matrix_desc::packed(2, 4 * n, es, 2), 231, 1, 0);
    check_best(matrix_desc::packed(5, n, es, 3), 232, 0, 0);
    check_best(matrix_desc::packed(6, n / 4 + 1, es, 11), 233, 0, 0);
    if (HasFatalFailure()) return;
  }
}

// The sweep's odd-HW gather rows, as the sweep runs them (packed, aligned buffers).
TEST(BestLean, SweepRows) {
  REQUIRE_GPU();
  check_best(matrix_desc::packed(6, 50177, 1, 111), 240, 0, 0);
  check_best(matrix_desc::packed(8, 50177, 1, 83), 241, 0, 0);
  check_best(matrix_desc::packed(5, 50177, 1, 133), 242, 0, 0);
  check_best(matrix_desc::packed(2, 50177, 1, 256), 243, 0, 0);
  check_best(matrix_desc::packed(3, 50177, 1, 222), 244, 0, 0);
  check_best(matrix_desc::packed(4, 50177, 1, 167), 245, 0, 0);
  check_best(matrix_desc::packed(24, 50177, 1, 27), 246, 0, 0);
  check_best(matrix_desc::packed(2, 50177, 2, 167), 247, 0, 0);
}
