// Tiles of the N-d kernels as data: per compute capability and element size, the
// tile of permute_nd (elements along the input's fastest dim x the output's fastest
// dim) and the block size, with the constraints of a tile checked once in valid().
#pragma once

namespace xpose::detail {

struct nd_tile {
  int tile_a;   ///< elements along A, the input's fastest dim (a power of two)
  int tile_b;   ///< elements along B, the output's fastest dim (a power of two)
  int threads;  ///< per block
  int elem_size;

  /// Both tile sides powers of two, whole passes of the block over the tile, the
  /// shared tile (padded by one element per row) within the 48 KiB static limit.
  constexpr bool valid() const {
    const auto pow2 = [](int x) { return x > 0 && (x & (x - 1)) == 0; };
    return pow2(tile_a) && pow2(tile_b) && threads % 32 == 0 && threads <= 1024 &&
           (tile_a * tile_b) % threads == 0 && (tile_a + 1) * tile_b * elem_size <= 48 * 1024;
  }
};

/// The tile for a device of compute capability `cc` and E-byte elements. Each side
/// spans >= 128 bytes where the element size allows (one full line per row on both
/// global sides). A starting point, not yet tuned: docs/RESULTS.md, "N-d permutation"
/// records what the TTC set measured with it.
constexpr nd_tile nd_tile_for(int cc, int elem_size) {
  (void)cc;  // one table for sm_80 and sm_90 until a measurement separates them
  switch (elem_size) {
    case 1: return {128, 64, 256, 1};
    case 2: return {64, 64, 256, 2};
    case 4: return {32, 32, 256, 4};
    case 8: return {32, 32, 256, 8};
    default: return {16, 16, 256, 16};
  }
}

static_assert(nd_tile_for(90, 1).valid() && nd_tile_for(90, 2).valid() && nd_tile_for(90, 4).valid() &&
                  nd_tile_for(90, 8).valid() && nd_tile_for(90, 16).valid(),
              "every nd tile satisfies its constraints");

/// Block size of the strided-copy kernel (one unit per thread per step).
constexpr int nd_copy_threads = 256;

}  // namespace xpose::detail
