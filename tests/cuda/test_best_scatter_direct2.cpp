// GPU tests of session 10's scatter candidates (policy.hpp), under both flags, the whole output extent
// checked bitwise and the route asserted: the two-buffer direct kernel (switch
// best_scatter_direct2_default) on every side and row kind its table takes (odd HW, input 1 and 15
// elements off, output 1 and 15 elements off, padded rows with gapped batches, one matrix, the sweep's
// rows), and the f32 12-column micro-block scatter (switch best_f32_micro_scatter_default). Skip
// without a GPU.
#include "best_check.hpp"

using namespace xpose_test;
using xpose::detail::best_path;

namespace {

// d under both flags: under the flag that has the two-buffer direct kernel on, slab_scatter_direct at
// the table's slab where it takes d's side and rows in place of a grouped slab scatter of that side
// (the default flag's route; small u8 matrices run whole-matrix slabs); under the other never at a slab.
// Returns how many of the two calls asserted the two-buffer route.
int direct2_case(const matrix_desc& d, std::uint64_t seed, index_t off_in, index_t off_out) {
  namespace xd = xpose::detail;
  constexpr bool on = !xd::best_scatter_direct2_default;
  const int E = d.elem_size;
  const auto in = static_cast<unsigned long long>(off_in * E), out = static_cast<unsigned long long>(off_out * E);
  int asserted = 0;
  for (bool flag : {false, true}) {
    SCOPED_TRACE(std::string(flag ? "best_next" : "best"));
    const xd::best_choice c = xd::best_path_for(d, in, out, 90, flag);
    std::optional<best_path> want;
    const xd::best_choice b = xd::best_path_for(d, in, out, 90, !on);  // (the route it replaces)
    const bool grouped = b.group == d.cols && xd::best_path_base(b.path) == best_path::slab_scatter &&
                         b.path != best_path::slab_interleave_scatter;
    if (flag == on && grouped && xd::best_scatter_direct2_takes(E, d.cols, xd::best_out_rows_aligned(d, out))) {
      EXPECT_EQ(c.slab, xd::best_scatter_direct2_slab(E, d.cols));
      want = best_path::slab_scatter_direct;
      ++asserted;
    } else {
      EXPECT_FALSE(c.path == best_path::slab_scatter_direct && c.slab > 0);
    }
    check_best(d, seed + (flag ? 1 : 0), off_in, off_out, want, flag);
    if (::testing::Test::HasFatalFailure()) return asserted;
  }
  return asserted;
}

index_t batch_of(index_t hw, index_t c, int es, index_t mib) { return (mib << 20) / (hw * c * es) + 1; }

}  // namespace

TEST(BestScatterDirect2, Sides) {
  REQUIRE_GPU();
  int sides = 0, asserted = 0;
  for (int es : {1, 2})
    for (index_t c : {2, 3, 4, 5, 6, 7, 8}) {
      if (xpose::detail::best_scatter_direct2_slab(es, c) == 0) continue;
      ++sides;
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 47 + es) * 16;
      asserted += direct2_case(matrix_desc::packed(50177, c, es, batch_of(50177, c, es, 9)), seed, 0, 0);
      asserted += direct2_case(matrix_desc::packed(40001, c, es, batch_of(40001, c, es, 9)), seed + 2, 1, 0);
      asserted += direct2_case(matrix_desc::packed(40000, c, es, batch_of(40000, c, es, 9)), seed + 4, 0, 1);
      asserted += direct2_case(matrix_desc::packed(40000, c, es, batch_of(40000, c, es, 9)), seed + 6, 15, 15);
      asserted += direct2_case(matrix_desc::packed(40000, c, es, batch_of(40000, c, es, 9)), seed + 8, 0, 0);  // aligned rows
      asserted += direct2_case(padded(30011, c, es, batch_of(30011, c, es, 9), 0, 3, 5), seed + 10, 0, 1);
      asserted += direct2_case(matrix_desc::packed(1000003, c, es), seed + 12, 0, 0);  // one matrix
      asserted += direct2_case(matrix_desc::packed(3001, c, es, 2), seed + 14, 0, 0);   // a few slabs
      if (HasFatalFailure()) return;
    }
  EXPECT_GT(sides, 0);
  // (Every side of the table is taken on its unaligned layouts: at least one assertion a side.)
  EXPECT_GE(asserted, sides);
}

// The sweep's rows it was measured on (issue 12), as the sweep runs them.
TEST(BestScatterDirect2, SweepRows) {
  REQUIRE_GPU();
  direct2_case(matrix_desc::packed(50177, 2, 1, 256), 600, 0, 0);
  direct2_case(matrix_desc::packed(50177, 4, 1, 167), 602, 0, 0);
  direct2_case(matrix_desc::packed(50177, 2, 2, 167), 604, 0, 0);
  direct2_case(matrix_desc::packed(50177, 4, 2, 83), 606, 0, 0);
  direct2_case(matrix_desc::packed(50177, 6, 2, 55), 608, 0, 0);
  direct2_case(matrix_desc::packed(50176, 6, 2, 55), 610, 0, 0);
}

// f32 12-column scatters to unaligned rows (switch best_f32_micro_scatter_default) under both flags:
// the micro-block slab scatter under the flag that has it on, asserted; odd HW (the sweep's row), the
// output 1 and 15 elements off, padded output rows with gapped batches (whole chunks), a batch of one.
TEST(BestScatterDirect2, F32Micro) {
  REQUIRE_GPU();
  constexpr bool f32_on = !xpose::detail::best_f32_micro_scatter_default;
  struct lay {
    matrix_desc d;
    index_t oo;
  };
  std::uint64_t seed = 700;
  for (const lay& l : {lay{matrix_desc::packed(50177, 12, 4, 13), 0}, lay{matrix_desc::packed(40000, 12, 4, 5), 1},
                       lay{matrix_desc::packed(40000, 12, 4, 5), 15}, lay{padded(30011, 12, 4, 3, 0, 3, 8), 0},
                       lay{matrix_desc::packed(70001, 12, 4), 0}})
    for (bool flag : {false, true}) {
      SCOPED_TRACE(std::string(flag ? "best_next" : "best"));
      const auto c = xpose::detail::best_path_for(l.d, 0, static_cast<unsigned long long>(l.oo * 4), 90, flag);
      EXPECT_EQ(c.path == best_path::slab_scatter_micro, flag == f32_on);
      check_best(l.d, seed++, 0, l.oo, flag == f32_on ? std::optional<best_path>(best_path::slab_scatter_micro) : std::nullopt,
                 flag);
      if (HasFatalFailure()) return;
    }
}
