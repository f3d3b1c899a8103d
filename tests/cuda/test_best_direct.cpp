// GPU tests of the 1-2 byte scatters of the HW x C -> C x HW class (the direct scatter,
// slab_scatter_direct, best_direct.cuh, and the slab and pipelined scatters beside it): every
// side of the class, 1-2 byte elements, output rows aligned and not (odd HW, pointers one
// element off, padded rows, gapped batches), many slabs per resident block; the output's whole
// extent (padding and gaps poisoned) checked bitwise. Skip without a GPU.
#include <utility>

#include "best_check.hpp"

using namespace xpose_test;
// Every grouped and micro-block side of the class: odd HW, aligned HW, both pointers one
// element off, the output k - 1 elements off, padded output rows, gapped batches.
TEST(BestDirect, Sides) {
  REQUIRE_GPU();
  for (int es : {1, 2})
    for (index_t c : {2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 48, 64, 96, 128}) {
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 41 + es);
      const index_t k = 16 / es;
      // Packed, aligned buffers (matrices above the whole-matrix slab's 16 KiB): odd and aligned HW.
      check_best(matrix_desc::packed(16385, c, es, 3), seed, 0, 0);
      check_best(matrix_desc::packed(16384, c, es, 3), seed + 1, 0, 0);
      check_best(matrix_desc::packed(8200, c, es, 2), seed + 2, 1, 1);
      check_best(matrix_desc::packed(8200, c, es, 2), seed + 3, 0, k - 1);
      check_best(padded(3137, c, es, 3, 0, 0, 3), seed + 4, 0, 0);
      check_best(padded(8192, c, es, 3, 0, 3, 0), seed + 5, 0, 0);
      check_best(padded(8192, c, es, 3, 0, 0, 2 * k), seed + 6, 0, 0);
      if (HasFatalFailure()) return;
    }
}

// Many slabs per resident block: 2 x 16 MiB per call, odd and aligned HW.
TEST(BestDirect, LongCalls) {
  REQUIRE_GPU();
  for (int es : {1, 2})
    for (index_t c : {2, 4, 5, 6, 8, 24, 64}) {
      const index_t n = (index_t{16} << 20) / (c * es) / 16 * 16;
      check_best(matrix_desc::packed(n + 3, c, es, 2), static_cast<std::uint64_t>(300 + c), 0, 0);
      check_best(matrix_desc::packed(n, c, es, 2), static_cast<std::uint64_t>(320 + c), 0, 0);
      if (HasFatalFailure()) return;
    }
}

// The sweep's HW x C scatter rows, as the sweep runs them.
TEST(BestDirect, SweepRows) {
  REQUIRE_GPU();
  check_best(matrix_desc::packed(50177, 2, 1, 256), 400, 0, 0);
  check_best(matrix_desc::packed(50177, 6, 1, 111), 401, 0, 0);
  check_best(matrix_desc::packed(50177, 24, 1, 27), 402, 0, 0);
  check_best(matrix_desc::packed(50177, 128, 1, 5), 403, 0, 0);
  check_best(matrix_desc::packed(50176, 96, 1, 6), 404, 0, 0);
  check_best(matrix_desc::packed(50176, 6, 2, 55), 405, 0, 0);
  check_best(matrix_desc::packed(50177, 2, 2, 167), 406, 0, 0);
  check_best(matrix_desc::packed(50176, 96, 2, 3), 407, 0, 0);
  check_best(matrix_desc::packed(50176, 5, 2, 66), 408, 0, 0);
  check_best(matrix_desc::packed(50177, 4, 2, 83), 409, 0, 0);
  check_best(matrix_desc::packed(50176, 4, 1, 167), 410, 0, 0);
  check_best(matrix_desc::packed(50176, 5, 1, 133), 411, 0, 0);
  check_best(matrix_desc::packed(50176, 6, 1, 111), 412, 0, 0);
}
