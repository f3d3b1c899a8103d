// GPU tests of the register-interleave slabs (best_interleave.cuh) and the routes beside them:
// every short side of best_interleave_sides, 4- and 8-byte elements, gather (C x HW -> HW x C)
// and scatter; long sides of whole and ragged 16-byte units, padded rows, gapped batches, NCHW
// sizes; pointers offset by one element. The whole output extent checked bitwise. Skip without
// a GPU.
#include <utility>
#include <vector>

#include "best_check.hpp"

using namespace xpose_test;

namespace {

// rows x cols, batch 2, given leading dimensions and batch strides.
matrix_desc laid_out(index_t rows, index_t cols, int es, index_t ld_in, index_t ld_out, index_t stride_in,
                     index_t stride_out) {
  matrix_desc d = padded(rows, cols, es, 2, ld_in - cols, ld_out - rows, 0);
  d.stride_in = stride_in, d.stride_out = stride_out;
  return d;
}

}  // namespace

TEST(BestInterleave, EveryShortSide) {
  REQUIRE_GPU();
  for (int es : {4, 8}) {
    const index_t k = 16 / es;
    for (index_t c : xpose::detail::best_interleave_sides) {
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 97 + es);
      // Aligned packed batches: whole units, several warp tiles per row.
      for (index_t hw : {8200, 12544})
        for (index_t batch : {1, 3}) {
          const matrix_desc dg = matrix_desc::packed(c, hw, es, batch), ds = matrix_desc::packed(hw, c, es, batch);
          check_best(dg, seed + hw, 0, 0);
          check_best(ds, seed + hw + 1, 0, 0);
        }
      // Ragged last unit: rows padded to whole chunks, packed side of L*C elements with
      // batch strides rounded up to whole chunks plus a gap.
      for (index_t hw : {1001, 3137}) {
        const index_t ld = (hw + k - 1) / k * k + k, rows_side = c * ld + k, packed_side = (hw * c + k - 1) / k * k + k;
        const matrix_desc dg = laid_out(c, hw, es, ld, c, rows_side, packed_side),
                          ds = laid_out(hw, c, es, c, ld, packed_side, rows_side);
        check_best(dg, seed + 2, 0, 0);
        check_best(ds, seed + 3, 0, 0);
      }
      // A pointer off by one element: the slab kernels or the realigning gather.
      check_best(matrix_desc::packed(c, 8200, es, 2), seed + 4, 1, 0);
      check_best(matrix_desc::packed(c, 8200, es, 2), seed + 5, 0, 1);
      check_best(matrix_desc::packed(8200, c, es, 2), seed + 6, 1, 0);
      check_best(matrix_desc::packed(8200, c, es, 2), seed + 7, 0, 1);
      if (HasFatalFailure()) return;
    }
  }
}

// The realigning gather: rows of odd length,
// pointers off by elements, gapped batches with odd gaps.
TEST(BestInterleave, RealignedGathers) {
  REQUIRE_GPU();
  for (int es : {4, 8})
    for (index_t c : xpose::detail::best_interleave_sides) {
      if (es == 4 && c >= 32) continue;  // (the tile, when aligned)
      if (c > xpose::detail::best_interleave_realign_max) continue;  // (realigned: the slab kernels)
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 89 + es);
      for (index_t hw : {8201, 3137}) {
        check_best(matrix_desc::packed(c, hw, es, 3), seed + hw, 0, 0);
        check_best(padded(c, hw, es, 2, 1, 0, 1), seed + hw + 1, 1, 0);
      }
      for (auto [oi, oo] : std::vector<std::pair<index_t, index_t>>{{1, 0}, {0, 1}, {3, 1}})
        check_best(matrix_desc::packed(c, 8200, es, 2), seed + static_cast<std::uint64_t>(oi * 4 + oo), oi, oo);
      if (HasFatalFailure()) return;
    }
  for (int es : {4, 8})
    for (index_t c : {3, 16})
      check_best(matrix_desc::packed(c, 50177, es, 5), static_cast<std::uint64_t>(c + es), 0, 0);
}

// NCHW <-> NHWC of 224 x 224 images at the sweep's channel counts (grid-stride-free
// launches of thousands of blocks).
TEST(BestInterleave, ImageBatches) {
  REQUIRE_GPU();
  for (int es : {4, 8})
    for (index_t c : {2, 3, 4, 16, 24}) {
      const matrix_desc dg = matrix_desc::packed(c, 50176, es, 7), ds = matrix_desc::packed(50176, c, es, 7);
      check_best(dg, static_cast<std::uint64_t>(c + es), 0, 0);
      check_best(ds, static_cast<std::uint64_t>(c + es + 1), 0, 0);
      if (HasFatalFailure()) return;
    }
}
