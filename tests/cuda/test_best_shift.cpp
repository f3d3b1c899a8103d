// GPU tests of the shift gathers (routes slab_gather_micro_shift / slab_gather_pipe_shift,
// best_pipe.cuh with H for gathers; switch best_gather_shift_default) under the flag that
// has them on: 1-2 byte gathers whose input rows are off the 16-byte grid (odd HW, input
// pointers 1 to k - 1 elements off, both pointers one element off, padded input rows,
// gapped batches), many slabs per resident block; the output's whole extent (padding and
// gaps poisoned) checked bitwise, the path asserted (best_gather_shift_route: where the
// route is on; the other rows keep the route it would replace, also asserted). Skip
// without a GPU.
#include "best_check.hpp"

using namespace xpose_test;
using xpose::detail::best_path;

namespace {

constexpr bool on = !xpose::detail::best_gather_shift_default;
constexpr best_path micro = best_path::slab_gather_micro_shift;
constexpr best_path grouped = best_path::slab_gather_pipe_shift;

// The route of a gather of unaligned rows whose route without the shift kernels is r (group g)
// under the flag `on` (u8 24 rows: where best_gather_shift24_on has that flag take them).
best_path shifted(best_path r, int g, int es) {
  return xpose::detail::best_gather_shift_route(r, g, es, false, xpose::detail::best_gather_shift24_on(es, 90, on));
}

// A grouped gather of side c with unaligned input rows: odd HW, both pointers one element
// off, padded input rows, gapped batches (2 rows: the unpipelined grouped kernel without the
// shift kernel).
void grouped_shift_layouts(int es, index_t c, std::uint64_t seed) {
  const best_path want = shifted(c == 2 ? best_path::slab_gather : best_path::slab_gather_pipe, static_cast<int>(c), es);
  check_best(matrix_desc::packed(c, 8201, es, 3), seed, 0, 0, want, on);
  check_best(matrix_desc::packed(c, 8200, es, 2), seed + 1, 1, 1, want, on);
  check_best(padded(c, 3137, es, 3, 0, 0, 3), seed + 2, 0, 0, want, on);
  check_best(padded(c, 8192, es, 3, 3, 0, 0), seed + 3, 0, 3, want, on);
  check_best(padded(c, 8192, es, 2, 0, 0, 16 / es + 1), seed + 4, 0, 0, want, on);
}

}  // namespace

// Micro-block gathers: every short side of whole chunks from the micro-block threshold up
// (sides with a pipelined grouped kernel take that one), unaligned rows: f16 on the shift
// kernel, u8 on the micro-block gather; aligned rows of more than 64 (the pipelined
// micro-block gather) never on the shift kernel.
TEST(BestShift, MicroGathers) {
  REQUIRE_GPU();
  using xpose::detail::best_pipe_group_for;
  for (int es : {1, 2}) {
    const index_t k = 16 / es;
    const index_t smin = xpose::detail::best_slab_micro_min(90, es, xpose::detail::best_micro_candidate,
                                                            best_path::slab_gather_micro);
    ASSERT_GT(smin, 0);
    for (index_t c = smin; c <= 128; c += c < 64 ? k : 32) {
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 37 + es);
      // (Without the shift kernels: the pipelined grouped gather where best_pipe_short_default has one.)
      const bool short_pipe = xpose::detail::best_route_on(xpose::detail::best_pipe_short_default, on) &&
                              best_pipe_group_for(es, c, !xpose::detail::best_pipe_default, true, false) == c;
      const best_path want =
          shifted(short_pipe ? best_path::slab_gather_pipe : best_path::slab_gather_micro, static_cast<int>(c), es);
      check_best(matrix_desc::packed(c, 8201, es, 3), seed, 0, 0, want, on);
      check_best(matrix_desc::packed(c, 8200, es, 3), seed + 1, 1, k, want, on);
      check_best(matrix_desc::packed(c, 8192, es, 2), seed + 2, k - 1, 0, want, on);
      check_best(padded(c, 8192, es, 3, 5, 0, 2 * k), seed + 3, 0, 0, want, on);
      check_best(padded(c, 8201, es, 3, 1, 0, 2 * k), seed + 4, 3, k, want, on);
      // (Aligned 32-64 rows keep the small tile: keep_few_rows_tile.)
      if (c * es >= 64 && c > 64)
        check_best(matrix_desc::packed(c, 8192, es, 3), seed + 5, 0, 0, best_path::slab_gather_micro_pipe, on);
      if (HasFatalFailure()) return;
    }
  }
  // Every input offset from the 16-byte grid.
  for (index_t oi = 1; oi < 16; ++oi) {
    check_best(matrix_desc::packed(64, 4096, 1, 2), 170 + oi, oi, 0, shifted(best_path::slab_gather_micro, 0, 1), on);
    if (oi < 8) check_best(matrix_desc::packed(64, 4096, 2, 2), 190 + oi, oi, 0, micro, on);
  }
  // Many slabs per resident block: 2 x 16 MiB per call.
  check_best(matrix_desc::packed(96, (index_t{1} << 24) / 96 + 1, 1, 2), 200, 0, 0,
             shifted(best_path::slab_gather_micro, 0, 1), on);
  check_best(matrix_desc::packed(64, (index_t{1} << 23) / 64 + 1, 2, 2), 201, 1, 0, micro, on);
}

// Pipelined grouped gathers of every pipelined side (2 rows: the unpipelined grouped kernel
// without the shift kernel) with unaligned input rows; the output at any offset.
TEST(BestShift, GroupedGathers) {
  REQUIRE_GPU();
  for (int es : {1, 2})
    for (index_t c : xpose::detail::best_pipe_sides) {
      grouped_shift_layouts(es, c, static_cast<std::uint64_t>(c * 41 + es));
      if (HasFatalFailure()) return;
    }
  // Many slabs per resident block: 2 x 16 MiB per call.
  for (int es : {1, 2}) {
    const index_t n = (index_t{1} << 20) / es + 3;
    check_best(matrix_desc::packed(8, n, es, 2), 210, 0, 1, grouped, on);
    check_best(matrix_desc::packed(2, 4 * n, es, 2), 211, 1, 0, grouped, on);
    check_best(matrix_desc::packed(5, n, es, 3), 212, 0, 0, grouped, on);
  }
}

// The sweep's 1-2 byte gathers of round 1, as the sweep runs them (packed, aligned buffers):
// the winners on the shift kernels, the others on their routes.
TEST(BestShift, SweepRows) {
  REQUIRE_GPU();
  check_best(matrix_desc::packed(128, 50177, 2, 2), 221, 0, 0, micro, on);
  check_best(matrix_desc::packed(48, 50177, 2, 6), 229, 0, 0, micro, on);
  check_best(matrix_desc::packed(3, 50177, 1, 222), 223, 0, 0, grouped, on);
  check_best(matrix_desc::packed(12, 50177, 1, 55), 224, 0, 0, grouped, on);
  check_best(matrix_desc::packed(4, 50177, 2, 83), 226, 0, 0, grouped, on);
  check_best(matrix_desc::packed(2, 50177, 1, 256), 227, 0, 0, grouped, on);
  check_best(matrix_desc::packed(2, 50177, 2, 167), 228, 0, 0, grouped, on);
  check_best(matrix_desc::packed(48, 50177, 1, 13), 220, 0, 0, best_path::slab_gather_micro, on);
  check_best(matrix_desc::packed(96, 50176, 2, 3), 222, 0, 0, best_path::slab_gather_micro_pipe, on);
  check_best(matrix_desc::packed(24, 50177, 1, 27), 225, 0, 0, shifted(best_path::slab_gather_pipe, 24, 1), on);
}
