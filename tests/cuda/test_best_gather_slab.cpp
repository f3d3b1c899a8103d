// GPU tests of the larger slabs of the u8 pipelined grouped gathers (switch
// best_gather_slab_default; same kernels and route names, slabs of best_gather_slab_bytes on
// sm_90+ for the shift kernels and aligned input rows) under both flags: every side the switch
// takes, aligned and odd long sides, batches, pointers 1 and 15 elements off, the output off,
// padded rows, gapped batches, many slabs per resident block, the sweep's rows. The output's
// whole extent checked bitwise. Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;
using xpose::detail::best_path;

namespace {

constexpr bool on = !xpose::detail::best_gather_slab_default;

// d at these element offsets under `flag`; returns whether best.cu ran it on a grouped pipelined
// gather with the larger slabs (on sm_90+: best_pipe_slab_bytes).
bool check_slab(const matrix_desc& d, std::uint64_t seed, index_t off_in, index_t off_out, bool flag) {
  namespace xd = xpose::detail;
  const auto in = static_cast<unsigned long long>(off_in * d.elem_size),
             out = static_cast<unsigned long long>(off_out * d.elem_size);
  const xd::best_choice c = xd::best_path_for(d, in, out, 90, flag);
  check_best(d, seed, off_in, off_out, c.path, flag);
  const bool shift = c.path == best_path::slab_gather_pipe_shift;
  const int table = xd::best_class_policy_for(90, d.elem_size).slab_bytes;
  return (shift || c.path == best_path::slab_gather_pipe) &&
         xd::best_pipe_slab_bytes(d.elem_size, true, c.group, table, shift, xd::best_in_rows_aligned(d, in), flag, 90) !=
             table;
}

}  // namespace

TEST(BestGatherSlab, Sides) {
  REQUIRE_GPU();
  for (bool flag : {false, true}) {
    int big = 0;
    for (index_t c : xpose::detail::best_pipe_sides) {
      if (c < xpose::detail::best_gather_slab_min_side || c > xpose::detail::best_gather_slab_max_side) continue;
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 47 + flag);
      big += check_slab(matrix_desc::packed(c, 50177, 1, 3), seed, 0, 0, flag);
      big += check_slab(matrix_desc::packed(c, 50176, 1, 2), seed + 1, 0, 0, flag);
      big += check_slab(matrix_desc::packed(c, 50176, 1, 2), seed + 2, 1, 1, flag);
      big += check_slab(matrix_desc::packed(c, 40001, 1, 5), seed + 3, 15, 0, flag);
      big += check_slab(matrix_desc::packed(c, 40000, 1, 3), seed + 4, 0, 1, flag);
      big += check_slab(padded(c, 30001, 1, 3, 0, 0, 5), seed + 5, 0, 0, flag);
      big += check_slab(padded(c, 30000, 1, 3, 3, 0, 0), seed + 6, 0, 3, flag);
      big += check_slab(matrix_desc::packed(c, 1000, 1, 1), seed + 7, 0, 0, flag);  // one short slab
      if (HasFatalFailure()) return;
    }
    EXPECT_EQ(big > 10, flag == on) << "flag " << flag << ": " << big;
  }
}

// Many slabs per resident block: 16-24 MiB calls.
TEST(BestGatherSlab, LargeCalls) {
  REQUIRE_GPU();
  for (bool flag : {false, true}) {
    const index_t n = (index_t{1} << 20) + 1;
    check_slab(matrix_desc::packed(8, n, 1, 2), 250, 1, 1, flag);
    check_slab(matrix_desc::packed(24, n, 1, 1), 251, 0, 0, flag);
    check_slab(matrix_desc::packed(12, n - 1, 1, 2), 252, 0, 0, flag);
    if (HasFatalFailure()) return;
  }
}

// The sweep's u8 rows of the switch's sides (and their aligned / odd twins), as the sweep runs them.
TEST(BestGatherSlab, SweepRows) {
  REQUIRE_GPU();
  for (bool flag : {false, true}) {
    const bool b = flag == on;  // (the flag that has the switch on)
    // (Realigning: kept; the shift kernel's larger slabs where best_gather_shift24_default has the flag take it.)
    EXPECT_EQ(check_slab(matrix_desc::packed(24, 50177, 1, 27), 260, 0, 0, flag),
              xpose::detail::best_gather_shift24_on(1, 90, flag));
    EXPECT_EQ(check_slab(matrix_desc::packed(24, 50176, 1, 27), 261, 0, 0, flag), b);
    EXPECT_EQ(check_slab(matrix_desc::packed(12, 50176, 1, 55), 262, 0, 0, flag), b);
    EXPECT_EQ(check_slab(matrix_desc::packed(12, 50177, 1, 55), 263, 0, 0, flag), b);
    EXPECT_EQ(check_slab(matrix_desc::packed(8, 50177, 1, 83), 264, 0, 0, flag), b);
    EXPECT_EQ(check_slab(matrix_desc::packed(8, 50176, 1, 83), 265, 0, 0, flag), b);
  }
}
