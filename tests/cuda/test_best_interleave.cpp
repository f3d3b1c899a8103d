// GPU tests of the register-interleave slab route (best_interleave.cuh, switch
// best_interleave_default): run under the policy that takes it (best or best_next),
// every short side of best_interleave_sides, 4- and 8-byte elements, gather
// (C x HW -> HW x C) and scatter; long sides of whole and ragged 16-byte units, padded
// rows, gapped batches, NCHW sizes; pointers offset by one element fall back to the slab
// kernels. Each case asserts the path, then checks the whole output extent bitwise.
// Skip without a GPU.
#include <utility>
#include <vector>

#include "best_check.hpp"

using namespace xpose_test;
using xpose::detail::best_path;

namespace {

constexpr bool on = !xpose::detail::best_interleave_default;  // candidate flag that takes the route

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
      // Aligned 32-64 row f32 gathers keep the tile (best_f32_rows_tile_default).
      const bool f32_rows = es == 4 && c >= 32 && xpose::detail::best_f32_rows_tile_default;
      const auto gather = f32_rows ? std::nullopt : std::optional(best_path::slab_interleave_gather);
      const best_path scatter = c <= xpose::detail::best_interleave_scatter_max ? best_path::slab_interleave_scatter
                                                                                : best_path::slab_scatter;
      // (Sides above 16 of whole chunks: the pipelined micro-block kernels where
      // best_pipe_wide_default has this flag take them, or_wide.)
      auto g = [&](const matrix_desc& d) { return or_wide(gather, d, true, 0, 0, on); };
      auto sc = [&](const matrix_desc& d) { return or_wide(scatter, d, false, 0, 0, on); };
      // Aligned packed batches: whole units, several warp tiles per row.
      for (index_t hw : {8200, 12544})
        for (index_t batch : {1, 3}) {
          const matrix_desc dg = matrix_desc::packed(c, hw, es, batch), ds = matrix_desc::packed(hw, c, es, batch);
          check_best(dg, seed + hw, 0, 0, g(dg), on);
          check_best(ds, seed + hw + 1, 0, 0, sc(ds), on);
        }
      // Ragged last unit: rows padded to whole chunks, packed side of L*C elements with
      // batch strides rounded up to whole chunks plus a gap.
      for (index_t hw : {1001, 3137}) {
        const index_t ld = (hw + k - 1) / k * k + k, rows_side = c * ld + k, packed_side = (hw * c + k - 1) / k * k + k;
        const matrix_desc dg = laid_out(c, hw, es, ld, c, rows_side, packed_side),
                          ds = laid_out(hw, c, es, c, ld, packed_side, rows_side);
        check_best(dg, seed + 2, 0, 0, g(dg), on);
        check_best(ds, seed + 3, 0, 0, sc(ds), on);
      }
      // A pointer off by one element: the slab kernels or the realigning gather.
      check_best(matrix_desc::packed(c, 8200, es, 2), seed + 4, 1, 0, best_path::slab_gather, on);
      check_best(matrix_desc::packed(c, 8200, es, 2), seed + 5, 0, 1, best_path::slab_gather, on);
      check_best(matrix_desc::packed(8200, c, es, 2), seed + 6, 1, 0, best_path::slab_scatter, on);
      check_best(matrix_desc::packed(8200, c, es, 2), seed + 7, 0, 1, best_path::slab_scatter, on);
      if (HasFatalFailure()) return;
    }
  }
}

// The realigning gather (switch best_interleave_realign_default): rows of odd length,
// pointers off by elements, gapped batches with odd gaps.
TEST(BestInterleave, RealignedGathers) {
  REQUIRE_GPU();
  constexpr bool realign = !xpose::detail::best_interleave_realign_default;
  for (int es : {4, 8})
    for (index_t c : xpose::detail::best_interleave_sides) {
      if (es == 4 && c >= 32 && xpose::detail::best_f32_rows_tile_default) continue;  // (the tile, when aligned)
      if (c > xpose::detail::best_interleave_realign_max) continue;  // (realigned: the slab kernels)
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 89 + es);
      for (index_t hw : {8201, 3137}) {
        check_best(matrix_desc::packed(c, hw, es, 3), seed + hw, 0, 0, best_path::slab_interleave_gather, realign);
        check_best(padded(c, hw, es, 2, 1, 0, 1), seed + hw + 1, 1, 0, best_path::slab_interleave_gather, realign);
      }
      for (auto [oi, oo] : std::vector<std::pair<index_t, index_t>>{{1, 0}, {0, 1}, {3, 1}})
        check_best(matrix_desc::packed(c, 8200, es, 2), seed + static_cast<std::uint64_t>(oi * 4 + oo), oi, oo,
                   best_path::slab_interleave_gather, realign);
      if (HasFatalFailure()) return;
    }
  for (int es : {4, 8})
    for (index_t c : {3, 16})
      check_best(matrix_desc::packed(c, 50177, es, 5), static_cast<std::uint64_t>(c + es), 0, 0,
                 best_path::slab_interleave_gather, realign);
}

// NCHW <-> NHWC of 224 x 224 images at the sweep's channel counts (grid-stride-free
// launches of thousands of blocks).
TEST(BestInterleave, ImageBatches) {
  REQUIRE_GPU();
  for (int es : {4, 8})
    for (index_t c : {2, 3, 4, 16, 24}) {
      const matrix_desc dg = matrix_desc::packed(c, 50176, es, 7), ds = matrix_desc::packed(50176, c, es, 7);
      check_best(dg, static_cast<std::uint64_t>(c + es), 0, 0,
                 or_wide(best_path::slab_interleave_gather, dg, true, 0, 0, on), on);
      check_best(ds, static_cast<std::uint64_t>(c + es + 1), 0, 0,
                 or_wide(c <= xpose::detail::best_interleave_scatter_max ? best_path::slab_interleave_scatter
                                                                         : best_path::slab_scatter,
                         ds, false, 0, 0, on),
                 on);
      if (HasFatalFailure()) return;
    }
}
