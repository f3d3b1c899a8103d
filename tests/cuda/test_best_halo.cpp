// GPU tests of the halo scatters (routes slab_scatter_micro_halo / slab_scatter_pipe_halo,
// best_pipe.cuh with a halo): 1-2 byte scatters to output rows off the 16-byte grid (odd HW,
// output pointers 1 to k - 1 elements off, padded rows, gapped batches), last slabs shorter
// than the halo, many slabs per resident block; the output's whole extent (padding and gaps
// poisoned) checked bitwise. Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;

namespace {

// A grouped scatter of side c to unaligned output rows: odd HW, both pointers one element off,
// gapped batches, padded output rows.
void grouped_halo_layouts(int es, index_t c, std::uint64_t seed) {
  check_best(matrix_desc::packed(8201, c, es, 3), seed, 0, 0);
  check_best(matrix_desc::packed(8200, c, es, 2), seed + 1, 1, 1);
  check_best(padded(3137, c, es, 3, 0, 0, 3), seed + 2, 0, 0);
  check_best(padded(8192, c, es, 3, 0, 3, 0), seed + 3, 3, 0);
}

}  // namespace

// Micro-block scatters: every short side of whole chunks from the micro-block threshold up.
TEST(BestHalo, MicroScatters) {
  REQUIRE_GPU();
  for (int es : {1, 2}) {
    const index_t k = 16 / es;
    const index_t smin = es == 1 ? 32 : 24;  // the micro-block scatter sides (route_table.hpp micro_side)
    for (index_t c = smin; c <= 128; c += c < 64 ? k : 32) {
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 23 + es);
      check_best(matrix_desc::packed(8201, c, es, 3), seed, 0, 0);
      check_best(matrix_desc::packed(8200, c, es, 3), seed + 1, k, 1);
      check_best(matrix_desc::packed(8192, c, es, 2), seed + 2, 0, k - 1);
      check_best(padded(8192, c, es, 3, 0, 5, 2 * k), seed + 3, 0, 0);
      check_best(padded(8201, c, es, 3, 0, 1, 2 * k), seed + 4, k, 3);
      check_best(matrix_desc::packed(8192, c, es, 3), seed + 5, 0, 0);
      if (HasFatalFailure()) return;
    }
  }
  // Every output offset from the 16-byte grid.
  for (index_t oo = 1; oo < 16; ++oo) {
    check_best(matrix_desc::packed(4096, 64, 1, 2), 170 + oo, 0, oo);
    if (oo < 8) check_best(matrix_desc::packed(4096, 64, 2, 2), 190 + oo, 0, oo);
  }
}

// Pipelined grouped scatters (best_pipe_scatter_side) to unaligned output rows; the input
// at any offset.
TEST(BestHalo, GroupedScatters) {
  REQUIRE_GPU();
  for (int es : {1, 2})
    for (index_t c : {4, 5, 6, 7, 8, 16, 24, 32}) {
      const index_t smin = es == 1 ? 32 : 24;  // the micro-block scatter sides (route_table.hpp micro_side)
      // (Sides of whole chunks from the micro-block threshold up: the micro-block kernel.)
      if (!xpose::detail::best_pipe_scatter_side(es, c) || (c >= smin && (c * es) % 16 == 0)) continue;
      grouped_halo_layouts(es, c, static_cast<std::uint64_t>(c * 29 + es));
      if (HasFatalFailure()) return;
    }
  // Many slabs per resident block: 2 x 16 MiB per call.
  for (int es : {1, 2}) {
    const index_t n = (index_t{2} << 20) / es + 3;
    check_best(matrix_desc::packed(n, 8, es, 2), 210, 0, 1);
    check_best(matrix_desc::packed(n, 6, es, 2), 211, 0, 0);
  }
}

// The halo kernel of the sides without a pipelined scatter of their own, from
// best_halo_side_min up (u8 12; f16 4, 12, 16); the sweep's rows too.
TEST(BestHalo, UnpipelinedSides) {
  REQUIRE_GPU();
  for (int es : {1, 2})
    for (index_t c : {2, 3, 4, 12, 16}) {
      if (xpose::detail::best_pipe_scatter_side(es, c) || c < xpose::detail::best_halo_side_min) continue;
      grouped_halo_layouts(es, c, static_cast<std::uint64_t>(c * 31 + es));
      if (HasFatalFailure()) return;
    }
  check_best(matrix_desc::packed(50177, 12, 1, 55), 230, 0, 0);
  check_best(matrix_desc::packed(50177, 16, 2, 20), 231, 0, 0);
  check_best(matrix_desc::packed(50177, 4, 2, 83), 232, 0, 0);
}

// The sweep's slowest unaligned scatter rows, as the sweep runs them (packed, aligned buffers).
TEST(BestHalo, SweepRows) {
  REQUIRE_GPU();
  check_best(matrix_desc::packed(50177, 128, 2, 2), 220, 0, 0);
  check_best(matrix_desc::packed(50177, 96, 1, 6), 221, 0, 0);
  check_best(matrix_desc::packed(50177, 8, 1, 83), 222, 0, 0);
  check_best(matrix_desc::packed(50177, 128, 1, 5), 223, 0, 0);
  check_best(matrix_desc::packed(50177, 24, 1, 27), 224, 0, 0);
  check_best(matrix_desc::packed(50177, 48, 1, 13), 225, 0, 0);
}
