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

/// Realigning tile path (best_realign.cuh) for E-byte elements when a pointer, leading
/// dimension or stride is not 16-byte aligned: 16-byte accesses at aligned addresses,
/// shifted in registers, instead of the narrow-access tile (A-byte accesses), which
/// measured 0.08x (i8), 0.19x (f16), 0.43-0.46x (f32) memcpy on the H200 ragged shapes;
/// the realigning path measured 0.41x / 0.47x / 0.62x on 16383x16385 (H200, 2026-11-29,
/// exact in every GPU test). To switch the path off (back to the narrow tile), make this
/// function return false. f64 stays on the narrow tile (8-byte accesses, 0.80x) until
/// the realigned path is measured against it.
constexpr bool best_realign_enabled(int elem_size) { return elem_size <= 4; }

/// Tile of the realigning path: tile_kernel's geometry with room for the extra chunk
/// per row (register arrays twice the loads), so i8 uses 128 rows (8 loads per thread).
constexpr best_tile best_tile_realign_for(int elem_size) {
  switch (elem_size) {
    case 1: return {128, 16, 256, 8, 2};   // 32 KiB, 8 loads (+8 neighbour chunks), 16x8-byte blocks
    case 2: return {128, 16, 256, 16, 2};  // 32 KiB, 8 loads, 8x8 half-words
    case 4: return {64, 16, 256, 16, 3};   // 16 KiB, 4 loads, 4x4 words
    default: return {64, 16, 256, 16, 3};  // 8 bytes (when enabled): 16 KiB, 4 loads, 2x2 blocks
  }
}

/// Shape classes of the 16-byte (aligned) tile path for 1- and 2-byte elements, whose
/// standard tiles (i8 256x256, f16 128x128) are mostly empty on small or skinny
/// matrices (H200: i8 64x64 batches 0.08-0.11x memcpy, 32xN / Nx32 0.09-0.19x; f16
/// 0.33-0.50x). few_rows: rows <= 32; narrow: rows <= 64, or rows of <= 128 bytes.
enum class best_shape { standard, few_rows, narrow };

/// Measured on the H200 (2026-11-29): 32xN i8 0.19 -> 0.89x memcpy, f16 0.50 -> 0.91x;
/// 10000x64x64 i8 0.11 -> 0.33x. To switch the small tiles off (every shape back to the
/// standard tile), set this to false.
constexpr bool best_small_tiles_enabled = true;

constexpr best_shape best_shape_for(int elem_size, long long rows, long long cols) {
  if (!best_small_tiles_enabled || elem_size > 2) return best_shape::standard;
  if (rows <= 32) return best_shape::few_rows;
  if (rows <= 64 || cols * elem_size <= 128) return best_shape::narrow;
  return best_shape::standard;
}

/// Tile of a shape class (16-byte path). Small tiles run 64 threads per block, many
/// blocks per SM; each thread still keeps 8 16-byte loads in flight.
constexpr best_tile best_tile_shaped(int elem_size, best_shape s) {
  if (s == best_shape::few_rows)  // 32 rows x 256 bytes, 8 KiB
    return elem_size == 1 ? best_tile{32, 16, 64, 8, 8} : best_tile{32, 16, 64, 16, 8};
  if (s == best_shape::narrow)  // 64 rows x 128 bytes, 8 KiB
    return elem_size == 1 ? best_tile{64, 8, 64, 8, 8} : best_tile{64, 8, 64, 16, 8};
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
