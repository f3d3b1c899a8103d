// GPU tests of the shift gathers (route slab_gather_pipe_shift, best_pipe.cuh with H for
// gathers) and the gathers beside them: 1-2 byte gathers whose input rows are off the 16-byte
// grid (odd HW, input pointers 1 to k - 1 elements off, both pointers one element off, padded
// input rows, gapped batches), many slabs per resident block; the output's whole extent
// (padding and gaps poisoned) checked bitwise. Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;

namespace {

// A grouped gather of side c with unaligned input rows: odd HW, both pointers one element
// off, padded input rows, gapped batches (2 rows: the unpipelined grouped kernel without the
// shift kernel).
void grouped_shift_layouts(int es, index_t c, std::uint64_t seed) {
  check_best(matrix_desc::packed(c, 8201, es, 3), seed, 0, 0);
  check_best(matrix_desc::packed(c, 8200, es, 2), seed + 1, 1, 1);
  check_best(padded(c, 3137, es, 3, 0, 0, 3), seed + 2, 0, 0);
  check_best(padded(c, 8192, es, 3, 3, 0, 0), seed + 3, 0, 3);
  check_best(padded(c, 8192, es, 2, 0, 0, 16 / es + 1), seed + 4, 0, 0);
}

}  // namespace

// Gathers of every short side of whole chunks from the micro-block threshold up, unaligned
// rows, and aligned rows of more than 64.
TEST(BestShift, MicroGathers) {
  REQUIRE_GPU();
  for (int es : {1, 2}) {
    const index_t k = 16 / es;
    const index_t smin = es == 1 ? 48 : 24;  // the micro-block gather sides (route_table.hpp micro_side)
    for (index_t c = smin; c <= 128; c += c < 64 ? k : 32) {
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 37 + es);
      check_best(matrix_desc::packed(c, 8201, es, 3), seed, 0, 0);
      check_best(matrix_desc::packed(c, 8200, es, 3), seed + 1, 1, k);
      check_best(matrix_desc::packed(c, 8192, es, 2), seed + 2, k - 1, 0);
      check_best(padded(c, 8192, es, 3, 5, 0, 2 * k), seed + 3, 0, 0);
      check_best(padded(c, 8201, es, 3, 1, 0, 2 * k), seed + 4, 3, k);
      // (Aligned 32-64 rows keep the small tile: keep_few_rows_tile.)
      if (c * es >= 64 && c > 64)
        check_best(matrix_desc::packed(c, 8192, es, 3), seed + 5, 0, 0);
      if (HasFatalFailure()) return;
    }
  }
  // Every input offset from the 16-byte grid.
  for (index_t oi = 1; oi < 16; ++oi) {
    check_best(matrix_desc::packed(64, 4096, 1, 2), 170 + oi, oi, 0);
    if (oi < 8) check_best(matrix_desc::packed(64, 4096, 2, 2), 190 + oi, oi, 0);
  }
  // Many slabs per resident block: 2 x 16 MiB per call.
  check_best(matrix_desc::packed(96, (index_t{1} << 24) / 96 + 1, 1, 2), 200, 0, 0);
  check_best(matrix_desc::packed(64, (index_t{1} << 23) / 64 + 1, 2, 2), 201, 1, 0);
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
    check_best(matrix_desc::packed(8, n, es, 2), 210, 0, 1);
    check_best(matrix_desc::packed(2, 4 * n, es, 2), 211, 1, 0);
    check_best(matrix_desc::packed(5, n, es, 3), 212, 0, 0);
  }
}

// The sweep's 1-2 byte gathers of unaligned rows, as the sweep runs them (packed, aligned buffers).
TEST(BestShift, SweepRows) {
  REQUIRE_GPU();
  check_best(matrix_desc::packed(128, 50177, 2, 2), 221, 0, 0);
  check_best(matrix_desc::packed(48, 50177, 2, 6), 229, 0, 0);
  check_best(matrix_desc::packed(3, 50177, 1, 222), 223, 0, 0);
  check_best(matrix_desc::packed(12, 50177, 1, 55), 224, 0, 0);
  check_best(matrix_desc::packed(4, 50177, 2, 83), 226, 0, 0);
  check_best(matrix_desc::packed(2, 50177, 1, 256), 227, 0, 0);
  check_best(matrix_desc::packed(2, 50177, 2, 167), 228, 0, 0);
  check_best(matrix_desc::packed(48, 50177, 1, 13), 220, 0, 0);
  check_best(matrix_desc::packed(96, 50176, 2, 3), 222, 0, 0);
  check_best(matrix_desc::packed(24, 50177, 1, 27), 225, 0, 0);
}
