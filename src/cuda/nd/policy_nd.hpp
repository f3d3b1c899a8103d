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

  /// Both tile sides powers of two that divide the block (a thread keeps one column
  /// on each side), whole passes of the block over the tile, the shared tile (padded
  /// by one element per row) within the 48 KiB static limit.
  constexpr bool valid() const {
    const auto pow2 = [](int x) { return x > 0 && (x & (x - 1)) == 0; };
    return pow2(tile_a) && pow2(tile_b) && threads % 32 == 0 && threads <= 1024 && threads % tile_a == 0 &&
           threads % tile_b == 0 && (tile_a * tile_b) % threads == 0 &&
           (tile_a + 1) * tile_b * elem_size <= 48 * 1024;
  }
};

/// Shape classes of permute_nd: a fastest dim shorter than half the square tile's
/// side leaves most of a square tile empty, so the tile is halved along it (and, for
/// 4- to 16-byte elements, doubled along the other: same elements per block).
enum class nd_shape { square, narrow_a, narrow_b };

/// The tile for a device of compute capability `cc`, E-byte elements and a shape
/// class. The square tile spans >= 128 bytes per side where the element size allows
/// (one full line per row on both global sides); 4- to 16-byte elements use 128-thread
/// blocks so that each thread keeps 8 (4, 2) loads in flight and 16 blocks fit an SM
/// (bytes in flight per SM, the same argument as best_tile_for in policy.hpp).
/// A starting point, not yet tuned: docs/RESULTS.md, "N-d permutation" records what
/// the TTC set measured with it.
constexpr nd_tile nd_tile_for(int cc, int elem_size, nd_shape shape = nd_shape::square) {
  (void)cc;  // one table for sm_80 and sm_90 until a measurement separates them
  nd_tile t{};
  switch (elem_size) {
    case 1: t = {64, 64, 256, 1}; break;  // 128x64: 32 loads and 128-171 registers per thread
    case 2: t = {64, 64, 256, 2}; break;
    case 4: t = {32, 32, 128, 4}; break;
    case 8: t = {32, 32, 128, 8}; break;
    default: t = {16, 16, 128, 16}; break;
  }
  // 1- and 2-byte tiles only shrink: doubling a side doubled the loads (and the
  // 64-bit addresses) a thread keeps live, 96-128 registers per thread.
  const bool keep_area = elem_size >= 4;
  if (shape == nd_shape::narrow_a) t.tile_a /= 2, t.tile_b *= keep_area ? 2 : 1;
  if (shape == nd_shape::narrow_b) t.tile_b /= 2, t.tile_a *= keep_area ? 2 : 1;
  return t;
}

/// The class of a permutation whose fastest dims have nA (input) and nB (output) elements.
constexpr nd_shape nd_shape_for(int cc, int elem_size, long long n_a, long long n_b) {
  const nd_tile sq = nd_tile_for(cc, elem_size);
  if (2 * n_a <= sq.tile_a && n_b > sq.tile_b) return nd_shape::narrow_a;
  if (2 * n_b <= sq.tile_b && n_a > sq.tile_a) return nd_shape::narrow_b;
  return nd_shape::square;
}

constexpr bool nd_table_valid() {
  for (int e = 1; e <= 16; e *= 2)
    for (nd_shape s : {nd_shape::square, nd_shape::narrow_a, nd_shape::narrow_b})
      if (!nd_tile_for(90, e, s).valid()) return false;
  return true;
}
static_assert(nd_table_valid(), "every nd tile satisfies its constraints");

/// Block size of the strided-copy kernel (one unit per thread per step).
constexpr int nd_copy_threads = 256;

}  // namespace xpose::detail
