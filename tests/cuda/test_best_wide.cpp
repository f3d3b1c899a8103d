// GPU tests of the 4-8 byte slabs on the pipelined micro-block kernels (slab_gather_micro_pipe,
// slab_scatter_micro_pipe, slab_scatter_micro_halo with 16-byte micro-block rows) and the routes
// beside them: short sides 18-64 of whole chunks, odd long sides (gather rows / scatter output
// rows off the 16-byte grid: the realigning pass, the halo), pointers one element off, padded
// rows, gapped batches, many slabs per resident block and the sweep's rows; the output's whole
// extent (padding and gaps poisoned) checked bitwise. Skip without a GPU.
#include <utility>
#include <vector>

#include "best_check.hpp"

using namespace xpose_test;

namespace {

// Short sides of whole 16-byte chunks above the interleave kernels', per element size.
std::vector<index_t> sides(int es) {
  return es == 4 ? std::vector<index_t>{20, 24, 28, 32, 48, 64} : std::vector<index_t>{18, 20, 24, 32};
}

}  // namespace

// Gathers (s rows, packed output): aligned rows, odd rows (realigning pass), the input one
// element off, padded input rows with gapped batches; the packed output off the grid is
// exact too.
TEST(BestWide, Gathers) {
  REQUIRE_GPU();
  for (int es : {4, 8})
    for (index_t s : sides(es)) {
      const index_t k = 16 / es;
      const std::uint64_t seed = static_cast<std::uint64_t>(s * 19 + es);
      // (Aligned rows: the route where best_pipe_wide_aligned takes them.)
      const matrix_desc aligned = matrix_desc::packed(s, 8192, es, 3);
      check_best(aligned, seed, 0, 0);
      check_best(matrix_desc::packed(s, 8201, es, 3), seed + 1, 0, 0);
      check_best(matrix_desc::packed(s, 8200, es, 2), seed + 2, 1, 0);
      check_best(padded(s, 8192, es, 3, 3, 0, 2 * k), seed + 3, 0, 0);
      check_best(padded(s, 4099, es, 2, 1, 0, k), seed + 4, k - 1, 0);
      check_best(matrix_desc::packed(s, 8200, es, 2), seed + 5, 1, 1);
      if (HasFatalFailure()) return;
    }
}

// Scatters (s columns, packed input): aligned output rows (the pipelined micro-block
// scatter), odd output rows, output one element off, padded output rows and gapped
// batches (the halo kernel); the packed input off the grid.
TEST(BestWide, Scatters) {
  REQUIRE_GPU();
  for (int es : {4, 8})
    for (index_t s : sides(es)) {
      const index_t k = 16 / es;
      const std::uint64_t seed = static_cast<std::uint64_t>(s * 23 + es);
      const matrix_desc aligned = matrix_desc::packed(8192, s, es, 3), aligned_padded = padded(8192, s, es, 2, 0, k, k);
      check_best(aligned, seed, 0, 0);
      check_best(matrix_desc::packed(8201, s, es, 3), seed + 1, 0, 0);
      check_best(matrix_desc::packed(8200, s, es, 2), seed + 2, 0, 1);
      check_best(padded(8192, s, es, 3, 0, 5, 2 * k), seed + 3, 0, 0);
      check_best(padded(8201, s, es, 2, 0, 1, 2 * k), seed + 4, 0, k - 1);
      check_best(aligned_padded, seed + 5, 0, 0);
      check_best(matrix_desc::packed(8200, s, es, 2), seed + 6, 1, 1);
      if (HasFatalFailure()) return;
    }
  // Every output offset from the 16-byte grid; slabs shorter than the halo at the end.
  for (int es : {4, 8})
    for (index_t oo = 1; oo < 16 / es; ++oo) {
      check_best(matrix_desc::packed(4096, 32, es, 2), static_cast<std::uint64_t>(300 + oo + es), 0, oo);
      check_best(matrix_desc::packed(4097, 24, es, 1), static_cast<std::uint64_t>(320 + oo + es), 0, oo);
    }
}

// The sweep's rows this route is for (packed, aligned buffers): many slabs per resident block.
TEST(BestWide, SweepRows) {
  REQUIRE_GPU();
  check_best(matrix_desc::packed(50177, 64, 4, 2), 400, 0, 0);
  check_best(matrix_desc::packed(50177, 48, 4, 3), 401, 0, 0);
  check_best(matrix_desc::packed(50177, 32, 4, 5), 402, 0, 0);
  check_best(matrix_desc::packed(50177, 24, 4, 6), 403, 0, 0);
  check_best(matrix_desc::packed(50176, 64, 4, 2), 404, 0, 0);
  check_best(matrix_desc::packed(64, 50177, 4, 2), 405, 0, 0);
  check_best(matrix_desc::packed(48, 50177, 4, 3), 406, 0, 0);
  check_best(matrix_desc::packed(32, 50177, 4, 5), 407, 0, 0);
  check_best(matrix_desc::packed(24, 50177, 4, 6), 408, 0, 0);
  check_best(matrix_desc::packed(32, 50176, 4, 5), 409, 0, 0);
  check_best(matrix_desc::packed(24, 50176, 4, 6), 410, 0, 0);
  check_best(matrix_desc::packed(32, 262144, 4), 411, 0, 0);
  check_best(matrix_desc::packed(32, 131072, 8), 412, 0, 0);
  check_best(matrix_desc::packed(24, 50176, 8, 3), 413, 0, 0);
  check_best(matrix_desc::packed(24, 50177, 8, 3), 414, 0, 0);
  check_best(matrix_desc::packed(50177, 32, 8, 3), 415, 0, 0);
  check_best(matrix_desc::packed(50176, 24, 8, 3), 416, 0, 0);
  check_best(matrix_desc::packed(32, 50176, 8, 2), 417, 0, 0);
  check_best(matrix_desc::packed(48, 50176, 4, 3), 418, 0, 0);
}

// 4-8 byte batches on the pipelined whole-matrix kernel: square and non-square matrices of whole chunks up to 8 KiB,
// batches leaving a ragged last slab, many slabs per resident block; an element offset or a
// gapped batch leaves the route (still exact).
TEST(BestWide, WholeBatches) {
  REQUIRE_GPU();
  for (int es : {4, 8})
    for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{{8, 8}, {16, 16}, {32, 32}, {12, 12}, {24, 16}, {16, 32}}) {
      if (r * c * es > 8192) continue;
      const std::uint64_t seed = static_cast<std::uint64_t>(r * 7 + c + es);
      for (index_t batch : {2, 7, 301, 4099}) {
        const matrix_desc d = matrix_desc::packed(r, c, es, batch);
        check_best(d, seed + static_cast<std::uint64_t>(batch), 0, 0);
      }
      check_best(matrix_desc::packed(r, c, es, 301), seed + 1, 1, 0);
      check_best(padded(r, c, es, 301, 0, 0, 16 / es), seed + 2, 0, 0);
      if (HasFatalFailure()) return;
    }
  // The sweep's batch rows (32 MiB).
  std::uint64_t seed = 500;
  for (const matrix_desc& d : {matrix_desc::packed(32, 32, 8, 4096), matrix_desc::packed(32, 32, 4, 8192),
                               matrix_desc::packed(16, 16, 4, 32768), matrix_desc::packed(8, 8, 4, 131072),
                               matrix_desc::packed(16, 16, 8, 16384)})
    check_best(d, seed++, 0, 0);
}

// 8-byte gathers of rows at least 512 KiB apart, gapped batches, rows off the grid.
TEST(BestWide, FarGathers) {
  REQUIRE_GPU();
  {
    for (index_t s : sides(8)) {
      const std::uint64_t seed = static_cast<std::uint64_t>(s * 29);
      check_best(matrix_desc::packed(s, 65536, 8, 2), seed, 0, 0);
      check_best(matrix_desc::packed(s, 65538, 8, 1), seed + 1, 0, 0);
      check_best(padded(s, 65536, 8, 2, 2, 0, 6), seed + 2, 0, 0);
      check_best(matrix_desc::packed(s, 65538, 8, 1), seed + 3, 1, 0);
      if (HasFatalFailure()) return;
    }
    check_best(matrix_desc::packed(32, 131074, 8), 621, 0, 0);
  }
}

// Small: f32 scatters of 8 and 16 columns to unaligned output rows on the halo kernel (odd HW,
// the output one to three elements off, padded output rows, gapped batches).
TEST(BestWide, SmallScatters) {
  REQUIRE_GPU();
  for (index_t s : {8, 16}) {
    const std::uint64_t seed = static_cast<std::uint64_t>(s * 31);
    check_best(matrix_desc::packed(8201, s, 4, 3), seed, 0, 0);
    check_best(matrix_desc::packed(8200, s, 4, 2), seed + 1, 0, 1);
    check_best(matrix_desc::packed(4097, s, 4, 1), seed + 2, 0, 3);
    check_best(padded(8201, s, 4, 2, 0, 1, 8), seed + 3, 0, 2);
    check_best(matrix_desc::packed(5, s, 4, 7), seed + 4, 0, 1);
    check_best(matrix_desc::packed(8200, s, 4, 2), seed + 5, 1, 1);
    if (HasFatalFailure()) return;
  }
  check_best(matrix_desc::packed(50177, 16, 4, 10), 631, 0, 0);
  check_best(matrix_desc::packed(50177, 8, 4, 20), 632, 0, 0);
  check_best(matrix_desc::packed(50177, 12, 4, 13), 633, 0, 0);  // (12 columns lost)
}

// Cap: 8-byte matrices above 4 KiB on the few-rows tile; the gapped batch leaves it.
TEST(BestWide, WholeCap) {
  REQUIRE_GPU();
  for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{{32, 32}, {16, 64}, {32, 24}}) {
    const std::uint64_t seed = static_cast<std::uint64_t>(r * 11 + c);
    for (index_t batch : {2, 7, 301})
      check_best(matrix_desc::packed(r, c, 8, batch), seed + static_cast<std::uint64_t>(batch), 0, 0);
    check_best(padded(r, c, 8, 301, 0, 0, 2), seed + 1, 0, 0);
    if (HasFatalFailure()) return;
  }
  check_best(matrix_desc::packed(32, 32, 8, 4096), 640, 0, 0);
}
