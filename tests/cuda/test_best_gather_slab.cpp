// GPU tests of the u8 pipelined grouped gathers of 8-24 rows at their larger slabs
// (best_gather_slab_for, sm_90+: the shift kernels and aligned input rows): every such side,
// aligned and odd long sides, batches, pointers 1 and 15 elements off, the output off, padded
// rows, gapped batches, many slabs per resident block, the sweep's rows. The output's whole
// extent checked bitwise. Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;

TEST(BestGatherSlab, Sides) {
  REQUIRE_GPU();
  for (index_t c : xpose::detail::best_pipe_sides) {
    if (c < xpose::detail::best_gather_slab_min_side || c > xpose::detail::best_gather_slab_max_side) continue;
    const std::uint64_t seed = static_cast<std::uint64_t>(c * 47);
    check_best(matrix_desc::packed(c, 50177, 1, 3), seed, 0, 0);
    check_best(matrix_desc::packed(c, 50176, 1, 2), seed + 1, 0, 0);
    check_best(matrix_desc::packed(c, 50176, 1, 2), seed + 2, 1, 1);
    check_best(matrix_desc::packed(c, 40001, 1, 5), seed + 3, 15, 0);
    check_best(matrix_desc::packed(c, 40000, 1, 3), seed + 4, 0, 1);
    check_best(padded(c, 30001, 1, 3, 0, 0, 5), seed + 5, 0, 0);
    check_best(padded(c, 30000, 1, 3, 3, 0, 0), seed + 6, 0, 3);
    check_best(matrix_desc::packed(c, 1000, 1, 1), seed + 7, 0, 0);  // one short slab
    if (HasFatalFailure()) return;
  }
}

// Many slabs per resident block: 16-24 MiB calls.
TEST(BestGatherSlab, LargeCalls) {
  REQUIRE_GPU();
  const index_t n = (index_t{1} << 20) + 1;
  check_best(matrix_desc::packed(8, n, 1, 2), 250, 1, 1);
  check_best(matrix_desc::packed(24, n, 1, 1), 251, 0, 0);
  check_best(matrix_desc::packed(12, n - 1, 1, 2), 252, 0, 0);
}

// The sweep's u8 rows of these sides (and their aligned / odd twins), as the sweep runs them.
TEST(BestGatherSlab, SweepRows) {
  REQUIRE_GPU();
  check_best(matrix_desc::packed(24, 50177, 1, 27), 260, 0, 0);
  check_best(matrix_desc::packed(24, 50176, 1, 27), 261, 0, 0);
  check_best(matrix_desc::packed(12, 50176, 1, 55), 262, 0, 0);
  check_best(matrix_desc::packed(12, 50177, 1, 55), 263, 0, 0);
  check_best(matrix_desc::packed(8, 50177, 1, 83), 264, 0, 0);
  check_best(matrix_desc::packed(8, 50176, 1, 83), 265, 0, 0);
}
