// GPU tests of the two-buffer direct scatter (slab_scatter_direct at best_scatter_direct2_slab's
// slabs) on every side and row kind of its table (odd HW, input 1 and 15 elements off, output 1
// and 15 elements off, padded rows with gapped batches, one matrix, the sweep's rows), and of the
// f32 12-column micro-block scatter to unaligned rows. The whole output extent checked bitwise.
// Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;

namespace {
index_t batch_of(index_t hw, index_t c, int es, index_t mib) { return (mib << 20) / (hw * c * es) + 1; }
}  // namespace

TEST(BestScatterDirect2, Sides) {
  REQUIRE_GPU();
  for (int es : {1, 2})
    for (index_t c : {2, 3, 4, 5, 6, 7, 8}) {
      if (xpose::detail::best_scatter_direct2_slab(es, c) == 0) continue;
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 47 + es) * 16;
      check_best(matrix_desc::packed(50177, c, es, batch_of(50177, c, es, 9)), seed, 0, 0);
      check_best(matrix_desc::packed(40001, c, es, batch_of(40001, c, es, 9)), seed + 2, 1, 0);
      check_best(matrix_desc::packed(40000, c, es, batch_of(40000, c, es, 9)), seed + 4, 0, 1);
      check_best(matrix_desc::packed(40000, c, es, batch_of(40000, c, es, 9)), seed + 6, 15, 15);
      check_best(matrix_desc::packed(40000, c, es, batch_of(40000, c, es, 9)), seed + 8, 0, 0);  // aligned rows
      check_best(padded(30011, c, es, batch_of(30011, c, es, 9), 0, 3, 5), seed + 10, 0, 1);
      check_best(matrix_desc::packed(1000003, c, es), seed + 12, 0, 0);  // one matrix
      check_best(matrix_desc::packed(3001, c, es, 2), seed + 14, 0, 0);   // a few slabs
      if (HasFatalFailure()) return;
    }
}

// The sweep's rows it was measured on, as the sweep runs them.
TEST(BestScatterDirect2, SweepRows) {
  REQUIRE_GPU();
  check_best(matrix_desc::packed(50177, 2, 1, 256), 600, 0, 0);
  check_best(matrix_desc::packed(50177, 4, 1, 167), 602, 0, 0);
  check_best(matrix_desc::packed(50177, 2, 2, 167), 604, 0, 0);
  check_best(matrix_desc::packed(50177, 4, 2, 83), 606, 0, 0);
  check_best(matrix_desc::packed(50177, 6, 2, 55), 608, 0, 0);
  check_best(matrix_desc::packed(50176, 6, 2, 55), 610, 0, 0);
}

// f32 12-column scatters to unaligned rows: odd HW (the sweep's row), the output 1 and 15
// elements off, padded output rows with gapped batches (whole chunks), a batch of one.
TEST(BestScatterDirect2, F32Micro) {
  REQUIRE_GPU();
  check_best(matrix_desc::packed(50177, 12, 4, 13), 700, 0, 0);
  check_best(matrix_desc::packed(40000, 12, 4, 5), 701, 0, 1);
  check_best(matrix_desc::packed(40000, 12, 4, 5), 702, 0, 15);
  check_best(padded(30011, 12, 4, 3, 0, 3, 8), 703, 0, 0);
  check_best(matrix_desc::packed(70001, 12, 4), 704, 0, 0);
}
