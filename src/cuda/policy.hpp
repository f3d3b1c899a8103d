// Dispatch policy: which registered variant the plain API runs, and how the fast
// path `best` shapes its work, as data. Each entry cites the measurement that chose
// it (docs/RESULTS.md, "Fast path (best)").
#pragma once

namespace xpose::detail {

/// Variant run by xpose::transpose() for a device of compute capability `cc`
/// (major*10+minor) and `elem_size`-byte elements.
constexpr const char* default_variant(int cc, int /*elem_size*/) {
  // `best` for every element size on the architectures it is built and tested for
  // (sm_80, sm_90): on the H200 it beats tiled_padded on every case of the comparison
  // (docs/RESULTS.md, "Fast path (best)"). Older devices keep the padded tile.
  return cc >= 80 ? "best" : "tiled_padded";
}

/// Tile of `best`'s tiled kernel for E-byte elements: `rows` input rows x `chunks`
/// 16-byte chunks per row (chunks*16/E columns), `threads` per block. Constraints
/// (checked by static_assert in best_kernels.cuh): threads % chunks == 0,
/// chunks >= 8, (rows / (16/E)) * chunks a multiple of threads.
struct best_tile {
  int rows;
  int chunks;
  int threads;
  int micro_bytes;  ///< bytes per row of a thread's register block: 16, or 8 (half the registers)
  int min_blocks;   ///< __launch_bounds__ minimum resident blocks per SM (caps registers)
};
constexpr best_tile best_tile_for(int elem_size) {
  // Every tile side is >= 256 contiguous bytes on the input side (16 chunks of 16 B)
  // and >= 256 B along output rows (rows*E), and every thread keeps 4-16 16-byte
  // loads in flight before the first shared store (H200 needs ~24 KB in flight per SM
  // to reach 4.2 TB/s: Little's law with ~0.7 us latency over 132 SMs).
  switch (elem_size) {
    case 1: return {256, 16, 256, 8, 2};  // 64 KiB tile, 16 loads per thread, 16x8-byte register blocks (16x16 spilled at 128 registers)
    case 2: return {128, 16, 256, 16, 3};  // 32 KiB, 8 loads per thread, 8x8 half-word micro-blocks
    case 4: return {64, 16, 256, 16, 4};   // 16 KiB, 4 loads, 4x4 words (renaming only)
    case 8: return {64, 16, 256, 16, 4};   // 16 KiB, 4 loads, 2 micro-blocks of 2x2 per thread
    default: return {32, 32, 256, 16, 4};  // 16-byte elements: 16 KiB, 4 loads, 4 chunks per thread
  }
}

/// Tile for the narrow-access path (A < 16: a pointer, leading dimension or stride
/// not 16-byte aligned). One-byte elements halve the tile: 16 chunks of 16 single-byte
/// loads per thread spilled even at 255 registers.
constexpr best_tile best_tile_narrow_for(int elem_size) {
  if (elem_size == 1) return {128, 16, 256, 8, 1};
  if (elem_size == 2) return {128, 16, 256, 8, 1};  // 8-byte register blocks: 196 -> fewer registers
  return best_tile_for(elem_size);
}

/// Blocks launched: one per tile up to this many (then the kernels' grid-stride loop).
/// A persistent grid of resident blocks measured 5-6% slower on the H200.
constexpr long long best_grid_limit = 0x7fffffff;

/// Short side (rows, or cols) up to which `best` moves a whole slab of it through
/// shared memory when the other side is packed (the tile would be mostly empty).
constexpr int best_slab_max_short_side = 16;
/// Bytes of the long side per slab: 2 KiB, so a slab of 16 rows is 32 KiB of shared memory.
constexpr int best_slab_bytes = 2048;
constexpr int best_slab_threads = 256;

}  // namespace xpose::detail
