// GPU tests of the lean form of the pipelined grouped gathers (pipe_kernel A, switch
// best_gather_lean_default; routes slab_gather_pipe / slab_gather_pipe_shift) under the flag
// that has it on: 1-2 byte gathers whose input rows or packed output matrices are off the
// 16-byte grid (odd HW over batches, input / output pointers one element off, padded rows,
// gapped batches), every pipelined side, many slabs per resident block, the sweep's rows.
// The output's whole extent (padding and gaps poisoned) checked bitwise, the route asserted
// to be one that the lean form takes. Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;
using xpose::detail::best_path;

namespace {

constexpr bool lean = !xpose::detail::best_gather_lean_default;

// d at these element offsets under the lean flag: best.cu must run it in the lean form exactly
// where the layout is one the lean form takes (layout false: aligned input rows of a side with a
// shift kernel, which runs the flag's own route) and its rows are at most
// best_gather_lean_max_bytes a position (best_gather_lean_takes); checked bitwise either way.
void check_lean(const matrix_desc& d, std::uint64_t seed, index_t off_in, index_t off_out, bool layout = true) {
  const auto in = static_cast<unsigned long long>(off_in * d.elem_size),
             out = static_cast<unsigned long long>(off_out * d.elem_size);
  const bool want = layout && d.rows * d.elem_size <= xpose::detail::best_gather_lean_max_bytes;
  ASSERT_EQ(xpose::detail::best_gather_lean_takes(d, in, out, 90, lean), want) << shape_name(d);
  check_best(d, seed, off_in, off_out, xpose::detail::best_path_for(d, in, out, 90, lean).path, lean);
}

}  // namespace

// Every pipelined side, 1- and 2-byte elements: odd long sides over batches (each matrix's
// output at its own phase), both pointers one element off, the output alone off (aligned
// input rows: the realigning kernel's slabs), padded input rows, gapped batches.
TEST(BestLean, GroupedGathers) {
  REQUIRE_GPU();
  for (int es : {1, 2}) {
    const index_t k = 16 / es;
    for (index_t c : xpose::detail::best_pipe_sides) {
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 43 + es);
      check_lean(matrix_desc::packed(c, 8201, es, 3), seed, 0, 0);
      check_lean(matrix_desc::packed(c, 8200, es, 2), seed + 1, 1, 1);
      // (Aligned input rows: the lean form of the realigning kernel, sides without a shift kernel.)
      check_lean(matrix_desc::packed(c, 8192, es, 3), seed + 2, 0, 1, xpose::detail::best_gather_lean_kernel(es, false, static_cast<int>(c)));
      check_lean(padded(c, 3137, es, 3, 0, 0, 3), seed + 3, 0, 0);
      check_lean(padded(c, 8192, es, 3, 3, 0, 0), seed + 4, 0, 3);
      check_lean(padded(c, 8192, es, 2, 0, 0, k + 1), seed + 5, 0, 0);
      check_lean(matrix_desc::packed(c, 12345, es, 7), seed + 6, k - 1, 0);
      if (HasFatalFailure()) return;
    }
  }
}

// Many slabs per resident block (2 x 16-24 MiB per call), odd long sides.
TEST(BestLean, LargeCalls) {
  REQUIRE_GPU();
  for (int es : {1, 2}) {
    const index_t n = (index_t{1} << 20) / es + 3;
    check_lean(matrix_desc::packed(8, n, es, 2), 230, 1, 1);
    check_lean(matrix_desc::packed(2, 4 * n, es, 2), 231, 1, 0);
    check_lean(matrix_desc::packed(5, n, es, 3), 232, 0, 0);
    check_lean(matrix_desc::packed(6, n / 4 + 1, es, 11), 233, 0, 0);
    if (HasFatalFailure()) return;
  }
}

// The sweep's rows below 0.85 (session 7's final sweep) that the lean form takes, as the
// sweep runs them (packed, aligned buffers).
TEST(BestLean, SweepRows) {
  REQUIRE_GPU();
  check_lean(matrix_desc::packed(6, 50177, 1, 111), 240, 0, 0);
  check_lean(matrix_desc::packed(8, 50177, 1, 83), 241, 0, 0);
  check_lean(matrix_desc::packed(5, 50177, 1, 133), 242, 0, 0);
  check_lean(matrix_desc::packed(2, 50177, 1, 256), 243, 0, 0);
  check_lean(matrix_desc::packed(3, 50177, 1, 222), 244, 0, 0);
  check_lean(matrix_desc::packed(4, 50177, 1, 167), 245, 0, 0);
  check_lean(matrix_desc::packed(24, 50177, 1, 27), 246, 0, 0);
  check_lean(matrix_desc::packed(2, 50177, 2, 167), 247, 0, 0);
}
