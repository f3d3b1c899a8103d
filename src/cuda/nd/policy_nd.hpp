// Tiles of the N-d kernels as data, per element size and shape: the vector and packed tiles of permute_nd and
// the run tile of strided copies, their constraints checked at compile time. docs/RESULTS.md, "N-d: kernel choice".
#pragma once

namespace xpose::detail {

/// Vector tile geometry (nd_vtile_kernel on best's scheme, best_kernels.cuh): rows along B, 16-byte chunks along A,
/// threads, bytes per k x k register-block row (16, or 8: half the registers), blocks per SM (__launch_bounds__).
struct nd_geom {
  int rows;
  int chunks;
  int threads;
  int micro_bytes;
  int min_blocks;
};
/// best::tile_geom's constraints (k = 16/E rows per micro-block, RPS rows per load step, whole micro-blocks a pass).
constexpr bool nd_geom_valid(int elem_size, nd_geom t) {
  if (elem_size <= 0 || 16 % elem_size != 0 || t.chunks <= 0 || t.threads <= 0) return false;
  if ((t.micro_bytes != 8 && t.micro_bytes != 16) || t.micro_bytes < elem_size) return false;
  const int k = 16 / elem_size, H = 16 / t.micro_bytes;
  if (t.threads % t.chunks != 0) return false;
  const int RPS = t.threads / t.chunks, RN = t.rows / k;
  return t.rows % RPS == 0 && t.rows % k == 0 && (RN * t.chunks * H) % t.threads == 0 && t.chunks >= 8;
}

/// The full vector tile (nd_vtile_for's shape 0) by element size: best's 256-thread tile as measured for it
/// (docs/RESULTS.md "2-D transposes (`best`)").
constexpr nd_geom nd_vtile_base(int elem_size) {
  switch (elem_size) {
    case 2: return {128, 16, 256, 16, 3};
    case 4: return {64, 16, 256, 16, 4};
    case 8: return {64, 16, 256, 16, 4};
    default: return {32, 32, 256, 16, 4};
  }
}

/// The packed tile (nd_ptile_kernel, permute_nd.cu; tile geometry: ptile_* in src/core/nd_map.hpp) takes the
/// permute_nd plans of 8-16 byte elements the vector tile cannot move (odd extents, unaligned pointers or strides,
/// conjugation) where its shape fills at least nd_ptile_min_fill of the slots: there it ran at 0.75-0.96 of a copy,
/// the span tile at 0.62-0.74; everywhere else the span tile ran ahead (docs/RESULTS.md "N-d: the span tile").
/// Shape s: lanes (one element each) per input row and per output row, 256 threads; sides of ptile_side(E, lanes)
/// elements (32 x 32, 32 x 8, 8 x 32). Which shape: nd_ptile_shape (nd_route.hpp): the square unless a thin one
/// fills over nd_ptile_thin_gain times its slots, as a thin tile moves a quarter of the elements per block and
/// barrier and ran at 0.34-0.44 of a copy at full fill.
struct nd_pgeom {
  int la, lb;
};
inline constexpr int nd_ptile_shapes = 3, nd_ptile_threads = 256;
inline constexpr double nd_ptile_thin_gain = 2.0, nd_ptile_min_fill = 0.75;
constexpr nd_pgeom nd_ptile_for(int s) {
  if (s == 1) return {32, 8};
  if (s == 2) return {8, 32};
  return {32, 32};
}
/// Register bound in blocks of 256 threads per SM: 4 (64 registers); ptxas took at most 56 (sm_80) and 45 (sm_90)
/// for 8-16 byte tiles, no spills.
inline constexpr int nd_ptile_min_blocks = 4;

/// The strided-copy kernel's block size and units (<= 16 bytes each) per thread, all loaded before its first
/// store: up to 256 x 4 x 16 B = 16 KiB in flight per block (1 reverts to one unit per thread).
constexpr int nd_copy_threads = 256;
constexpr int nd_copy_units = 4;

/// The vector tile kernel's tiles for E-byte elements (2 to 16 bytes) by shape v: 0: `best`'s 16-byte tile; 1: half
/// its rows, 2: half its chunks (128 threads, twice the blocks per SM); for short B sides 3: a quarter of its rows
/// (64 threads), 4: a quarter of the rows and half the chunks (32 threads), 5: an eighth of the rows (32 threads)
/// (f16: 32 or 16 rows where 64 or 128 leave half or a quarter idle on 15-, 32-, 48- and 96-element sides). Every
/// shape keeps the loads per thread and the register budget, in static shared memory; nd_vtile_choice picks one.
inline constexpr int nd_vtile_shapes = 6;
constexpr nd_geom nd_vtile_for(int elem_size, int v = 0) {
  constexpr int row_div[nd_vtile_shapes] = {1, 2, 1, 4, 4, 8}, chunk_div[nd_vtile_shapes] = {1, 1, 2, 1, 2, 1};
  nd_geom t = nd_vtile_base(elem_size);
  const int r = row_div[v], c = chunk_div[v];
  t.rows /= r, t.chunks /= c, t.threads /= r * c, t.min_blocks *= r * c;
  return t;
}

/// nd_vtile_choice's thresholds ("N-d: kernel choice"): packed sides over one dim per side only where they fill over
/// nd_pack_gain times the slots (packing costs where it gains little); 4-16 byte elements take shape 0 where it fills
/// >= nd_full_fill (it ran ahead of the 128-thread shapes on full tiles, behind them on partly filled ones); else
/// shapes 1-2, or a short-B shape 3-5 where that choice is packed or fills <= nd_flat_fill and the short shape fills
/// over nd_short_gain times as much (a 32-thread block keeps at most half an SM's warps: a small gain does not pay).
inline constexpr double nd_pack_gain = 1.15, nd_full_fill = 0.99, nd_flat_fill = 0.6, nd_short_gain = 1.10;

/// Run tile (strided copies whose kept run is U = 1, 2, 4 or 8 16-byte chunks; "N-d: kernel choice"): 32 runs
/// along A x 64/U along B (half: 32/U, where that fills more of its slots: TTC case 44's 103-run side fills 80% of
/// 32-run tiles, 92% of 16-run ones), 256 threads; shared rows padded by one run so that a quarter warp's 16-byte
/// reads of a column hit 8 bank groups. Row bases are computed once per warp.
inline constexpr int nd_run_tile_a = 32, nd_run_threads = 256;
constexpr int nd_run_tile_b(int chunks, bool half = false) { return (half ? 32 : 64) / chunks; }
/// Its register bound in blocks per SM (the 34 KiB tile allows 6): unbounded it took 120-173 registers, 2 blocks
/// per SM (ncu, TTC case 44); 4 blocks (64 registers) spilled at 2 chunks on sm_80 and at 4 and 8 chunks on sm_90
/// (ptxas). The half tile (4 chunks per thread, 17 KiB): 5 blocks per SM (6 spilled on sm_80).
constexpr int nd_run_min_blocks(int chunks, bool half = false) { return half ? 5 : chunks == 1 ? 4 : 3; }

/// Every vector tile: best's constraints, static shared memory, <= 32 resident blocks and 2048 threads per SM under
/// its register bound, <= one load row per warp lane (TB <= NT: the row offsets the kernel shuffles; 32 % NCH == 0).
constexpr bool nd_vtile_table_valid() {
  for (int e = 2; e <= 16; e *= 2)
    for (int v = 0; v < nd_vtile_shapes; ++v) {
      const nd_geom t = nd_vtile_for(e, v);
      if (!nd_geom_valid(e, t) || t.rows * t.chunks * 16 > 48 * 1024) return false;
      if (t.min_blocks > 32 || t.min_blocks * t.threads > 2048 || t.rows > t.threads || 32 % t.chunks != 0) return false;
    }
  return true;
}
static_assert(nd_vtile_table_valid(), "every vector tile fits static shared memory");

}  // namespace xpose::detail
