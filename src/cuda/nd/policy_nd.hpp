// Tiles of the N-d kernels as data: per element size and shape, the vector tile, the
// packed tile and the run tile of permute_nd and strided copies, with their
// constraints checked at compile time.
#pragma once

namespace xpose::detail {

/// Geometry of the vector tile (nd_vtile_kernel, on best's tile scheme: rows of 16-byte
/// chunks, k x k register micro-blocks; best_kernels.cuh): rows along B, chunks along
/// A, threads, bytes per register-block row (16, or 8: half the registers) and the
/// blocks per SM its registers must allow (__launch_bounds__).
struct nd_geom {
  int rows;
  int chunks;
  int threads;
  int micro_bytes;
  int min_blocks;
};

/// The constraints of best::tile_geom on a geometry (k = 16/E rows per micro-block,
/// RPS rows per load step; whole micro-blocks per thread pass).
constexpr bool nd_geom_valid(int elem_size, nd_geom t) {
  if (elem_size <= 0 || 16 % elem_size != 0 || t.chunks <= 0 || t.threads <= 0) return false;
  if ((t.micro_bytes != 8 && t.micro_bytes != 16) || t.micro_bytes < elem_size) return false;
  const int k = 16 / elem_size, H = 16 / t.micro_bytes;
  if (t.threads % t.chunks != 0) return false;
  const int RPS = t.threads / t.chunks, RN = t.rows / k;
  return t.rows % RPS == 0 && t.rows % k == 0 && (RN * t.chunks * H) % t.threads == 0 && t.chunks >= 8;
}

/// The full vector tile per element size, 2 to 16 bytes (shape 0 of nd_vtile_for): the
/// 2-D path's 256-thread tile as measured for it (docs/RESULTS.md "2-D transposes (`best`)").
constexpr nd_geom nd_vtile_base(int elem_size) {
  switch (elem_size) {
    case 2: return {128, 16, 256, 16, 3};
    case 4: return {64, 16, 256, 16, 4};
    case 8: return {64, 16, 256, 16, 4};
    default: return {32, 32, 256, 16, 4};
  }
}

/// The packed tile (nd_ptile_kernel, permute_nd.cu; words and shifts: ptile_* in
/// src/core/nd_map.hpp): every permute_nd plan the vector tile cannot move (1-byte
/// elements, odd extents, unaligned pointers or strides, conjugation). Shape s: lanes
/// (words of max(E, 4) bytes) per input row and per output row, 256 threads; the sides
/// are ptile_side(E, lanes) elements (E = 1: 125 x 125, 125 x 29, 29 x 125). A plan
/// takes the square shape unless a thin one fills over nd_ptile_thin_gain times its slots
/// (nd_ptile_shape, nd_route.hpp): a thin tile moves a quarter of the elements per block
/// and barrier (one per thread for 4-16 byte elements), at 0.34-0.44 of a copy even
/// where it fills every slot (docs/RESULTS.md, "N-d: known slow and why").
struct nd_pgeom {
  int la, lb;
};
inline constexpr int nd_ptile_shapes = 3, nd_ptile_threads = 256;
inline constexpr double nd_ptile_thin_gain = 2.0;
constexpr nd_pgeom nd_ptile_for(int s) {
  if (s == 1) return {32, 8};
  if (s == 2) return {8, 32};
  return {32, 32};
}
/// Register bound in blocks of 256 threads per SM: under a bound of 2 blocks (128
/// registers) ptxas took 86 (sm_80) and 78 (sm_90) for the 1-byte 125 x 125 tile (16
/// loads per thread), 70 and 48 for 2-byte tiles, at most 56 and 45 for the rest; 3
/// blocks (85 registers) for the first, 4 (64) for the others: 29-78 registers, no
/// spills on sm_80 and sm_90.
constexpr int nd_ptile_min_blocks(int elem_size, int s) { return elem_size == 1 && s == 0 ? 3 : 4; }

/// Block size of the strided-copy kernel, and units (<= 16 bytes each) per thread:
/// all nd_copy_units loads of a thread are issued before its first store, so a
/// block keeps up to 256 x 4 x 16 B = 16 KiB in flight (1 reverts to one unit per thread).
constexpr int nd_copy_threads = 256;
constexpr int nd_copy_units = 4;

/// Tiles of the vector tile kernel for E-byte elements (2 to 16 bytes), shape v:
/// 0: `best`'s 16-byte tile (rows along B, 16-byte chunks along A);
/// 1: half its rows, 2: half its chunks (128 threads: the same loads per thread, twice
/// the blocks per SM); 3: a quarter of its rows (64 threads), 4: a quarter of the rows
/// and half the chunks (32 threads), 5: an eighth of the rows (32 threads): short B
/// sides (f16: 32 or 16 rows where 64 or 128 leave half or a quarter idle on 15-, 32-,
/// 48- and 96-element sides). Every shape keeps the loads per thread and the blocks'
/// register budget. Which shape a plan takes: nd_vtile_choice (nd_route.hpp). Static
/// shared memory. docs/RESULTS.md, "N-d: kernel choice".
inline constexpr int nd_vtile_shapes = 6;
constexpr nd_geom nd_vtile_for(int elem_size, int v = 0) {
  constexpr int row_div[nd_vtile_shapes] = {1, 2, 1, 4, 4, 8}, chunk_div[nd_vtile_shapes] = {1, 1, 2, 1, 2, 1};
  nd_geom t = nd_vtile_base(elem_size);
  const int r = row_div[v], c = chunk_div[v];
  t.rows /= r, t.chunks /= c, t.threads /= r * c, t.min_blocks *= r * c;
  return t;
}

/// The vector tile's shape choice (nd_vtile_choice, docs/RESULTS.md "N-d: kernel
/// choice"): packed sides over one dim per side only where they fill over
/// nd_pack_gain times the slots (packing costs where it gains little fill); 4- to
/// 16-byte elements take shape 0 where it fills at least nd_full_fill of its slots (it
/// ran ahead of the 128-thread shapes on fully filled tiles, behind them on partly
/// filled ones); else the 128-thread shapes 1-2, or a short-B shape 3-5 where the
/// 128-thread choice is packed or fills at most nd_flat_fill, and the short shape fills
/// nd_short_gain times its slots (a 32-thread block keeps at most half an SM's warps,
/// so a small gain does not pay).
inline constexpr double nd_pack_gain = 1.15, nd_full_fill = 0.99, nd_flat_fill = 0.6, nd_short_gain = 1.10;

/// Run tile (strided copies whose kept run is U = 1, 2, 4 or 8 16-byte chunks): 32 runs
/// along A x 64/U along B (half: 32/U, where that fills more of its slots: TTC case 44's
/// 103-run side fills 80% of 32-run tiles, 92% of 16-run ones), 256 threads; the shared
/// rows padded by one run so that a quarter warp's 16-byte reads of a column hit 8 bank
/// groups. Row bases are computed once per warp. docs/RESULTS.md, "N-d: kernel choice".
inline constexpr int nd_run_tile_a = 32, nd_run_threads = 256;
constexpr int nd_run_tile_b(int chunks, bool half = false) { return (half ? 32 : 64) / chunks; }
/// The run tile's register bound in blocks per SM for runs of `chunks` chunks (its 34
/// KiB tile allows 6): unbounded it took 120-173 registers, 2 blocks per SM (ncu, TTC
/// case 44); 4 blocks (64 registers) spilled at 2 chunks on sm_80 and at 4 and 8 chunks
/// on sm_90 (ptxas). The half tile (4 chunks per thread, 17 KiB): 5 blocks per SM (6
/// spilled on sm_80).
constexpr int nd_run_min_blocks(int chunks, bool half = false) { return half ? 5 : chunks == 1 ? 4 : 3; }

/// Every vector tile: best's constraints, static shared memory, at most 32 resident
/// blocks per SM and 2048 threads under its register bound, and at most one load row
/// per lane of a warp (TB <= NT: the row offsets the kernel shuffles, 32 % NCH == 0).
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
