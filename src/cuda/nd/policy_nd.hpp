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

/// The full vector tile per element size (shape 0 of nd_vtile_for): the 2-D path's
/// 256-thread tile as measured for it (docs/RESULTS.md "Fast path (best)").
constexpr nd_geom nd_vtile_base(int elem_size) {
  switch (elem_size) {
    case 1: return {256, 16, 256, 8, 2};
    case 2: return {128, 16, 256, 16, 3};
    case 4: return {64, 16, 256, 16, 4};
    case 8: return {64, 16, 256, 16, 4};
    default: return {32, 32, 256, 16, 4};
  }
}

/// nd_index32: 32-bit fast divisors when every index of a map fits (false: 64-bit only;
/// docs/RESULTS.md, "N-d permutation (issue 17)").
inline constexpr bool nd_index32 = true;

/// The packed tile (nd_ptile_kernel, permute_nd.cu; words and shifts: ptile_* in
/// src/core/nd_map.hpp): every permute_nd plan the vector tile cannot move (1-byte
/// elements, odd extents, unaligned pointers or strides, conjugation). Shape s: lanes
/// (words of max(E, 4) bytes) per input row and per output row, 256 threads; the sides
/// are ptile_side(E, lanes) elements (E = 1: 125 x 125, 125 x 29, 29 x 125). The
/// launcher takes the shape whose packed sides (make_vtile_groups) fill the most slots.
struct nd_pgeom {
  int la, lb;
};
inline constexpr int nd_ptile_shapes = 3, nd_ptile_threads = 256;
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

/// Kernels of permute_nd, for the same-run comparison of `xpose-bench ttc --ab`
/// (src/cuda/nd/nd_candidate.hpp selects one at run time; internal, not public API):
/// policy: the packed tile (nd_ptile_kernel, shapes above) for every permute_nd plan;
/// vtile: the vector tile kernel on packed sides (make_vtile_map, pack = true);
/// vtile_flat: the same kernel with one dim per side (pack = false);
/// vtile_small: vtile that may also take the quarter tile (shape 3: 32x32 for f32);
/// vtile_tuned: the 128-thread shapes (1, 2) only, packed sides only where they fill
/// over 1.15x the slots of one dim per side (first H200 A/B, docs/RESULTS.md);
/// vtile_fit: vtile_tuned's choice, or the short-B shapes (4-6: a quarter or an eighth
/// of the rows) where they fill nd_fit_gain times the slots (2-byte elements: 15-, 32-,
/// 48- and 96-element B sides); the run tile's Fit variant (row bases shared by warp,
/// register bound nd_fit_run_min_blocks) for runs of at most nd_fit_run_chunks 16-byte
/// chunks (longer runs: the policy copy);
/// vtile_rows: vtile_fit's choices, the tile kernel computing each row offset once per
/// warp (loads) or block (stores) instead of once per chunk (packed groups cost a
/// divide per digit; the f16 tile issued an instruction on 65% of cycles under ncu);
/// vtile_rows_packed: vtile_rows on vtile's (packed) choice instead of vtile_tuned's;
/// vtile_rows_occ: vtile_rows_auto with 2- and 4-byte tiles under tighter register bounds
/// (nd_vtile_occ_min_blocks; other element sizes: vtile_rows_auto);
/// vtile_rows_auto: the Rows kernel on vtile_tuned's choice, taking a short-B shape only
/// where that base is packed or fills at most nd_auto_flat_fill (second H200 A/B: a flat
/// base of 352-608-element A sides and ~70% fill ran faster than the short shapes that
/// filled it; docs/RESULTS.md, "N-d permutation (issue 17)"), the Fit run tile;
/// vtile_rows_wide: vtile_rows_auto, except that 4- to 16-byte elements take best's
/// 256-thread shape 0 where it fills at least nd_wide_fill of its slots (f32 A/Bs: shape
/// 0 ran ahead of the 128-thread shapes on fully filled rank-3 and rank-5 reversals,
/// behind them on partly filled tiles; f16 behind either way).
/// Shapes vtile cannot move in 16-byte chunks, 1-byte elements and conjugation take
/// the packed tile.
enum class nd_kernel : int {
  policy = 0,
  vtile = 1,
  vtile_flat = 2,
  vtile_small = 3,
  vtile_tuned = 4,
  vtile_fit = 5,
  vtile_rows = 6,
  vtile_rows_packed = 7,
  vtile_rows_occ = 8,
  vtile_rows_auto = 9,
  vtile_rows_wide = 10
};
inline constexpr int nd_kernel_count = 11;

/// The library's default N-d kernel, one line to flip (docs/RESULTS.md, "N-d permutation
/// (issue 17)" and "Session 5"): vtile_rows_wide, i.e. vtile_rows_auto (session 4: f16
/// on the 43 cases it can change, median of a copy up from vtile's; the short-run strided
/// copies up most) with best's 256-thread tile for fully filled 4-16 byte tiles (session
/// 5: f32, all 11 TTC cases where the two differ ran faster; f64 equal or faster);
/// nd_kernel::vtile_rows_auto reverts it. `xpose-bench ttc --ab` times the others beside it.
inline constexpr nd_kernel nd_kernel_default = nd_kernel::vtile_rows_wide;

/// Candidates that run the tile kernel's row-offset variant (Rows, permute_nd.cu).
constexpr bool nd_kernel_rows(nd_kernel k) {
  return k == nd_kernel::vtile_rows || k == nd_kernel::vtile_rows_packed || k == nd_kernel::vtile_rows_occ ||
         k == nd_kernel::vtile_rows_auto || k == nd_kernel::vtile_rows_wide;
}

constexpr const char* nd_kernel_name(nd_kernel k) {
  switch (k) {
    case nd_kernel::vtile: return "vtile";
    case nd_kernel::vtile_flat: return "vtile_flat";
    case nd_kernel::vtile_small: return "vtile_small";
    case nd_kernel::vtile_tuned: return "vtile_tuned";
    case nd_kernel::vtile_fit: return "vtile_fit";
    case nd_kernel::vtile_rows: return "vtile_rows";
    case nd_kernel::vtile_rows_packed: return "vtile_rows_packed";
    case nd_kernel::vtile_rows_occ: return "vtile_rows_occ";
    case nd_kernel::vtile_rows_auto: return "vtile_rows_auto";
    case nd_kernel::vtile_rows_wide: return "vtile_rows_wide";
    default: return "policy";
  }
}

/// Tiles of the vector tile kernel for E-byte elements (2 to 16 bytes), shape v:
/// 0: `best`'s 16-byte tile (rows along B, 16-byte chunks along A);
/// 1: half its rows, 2: half its chunks (128 threads: the same loads per thread, twice
/// the blocks per SM); 3: half of both (64 threads; candidate vtile_small only);
/// 4: a quarter of its rows (64 threads), 5: a quarter of the rows and half the chunks
/// (32 threads), 6: an eighth of the rows (32 threads): short B sides (f16: 32 or 16
/// rows where 64 or 128 leave half or a quarter idle on 15-, 32-, 48- and 96-element
/// sides; candidates vtile_fit, vtile_rows). Every shape keeps the loads per thread and
/// the blocks' register budget. The launcher takes the shape whose packed sides leave
/// the fewest tile slots idle (nd_vtile_best, nd_candidate.hpp). Static shared memory.
/// docs/RESULTS.md, "N-d permutation (issue 17)".
inline constexpr int nd_vtile_shapes = 7;
constexpr nd_geom nd_vtile_for(int elem_size, int v = 0) {
  nd_geom t = nd_vtile_base(elem_size);
  if (v == 1 || v == 3) t.rows /= 2, t.threads /= 2, t.min_blocks *= 2;
  if (v == 2 || v == 3) t.chunks /= 2, t.threads /= 2, t.min_blocks *= 2;
  if (v == 4 || v == 5) t.rows /= 4, t.threads /= 4, t.min_blocks *= 4;
  if (v == 5) t.chunks /= 2, t.threads /= 2, t.min_blocks *= 2;
  if (v == 6) t.rows /= 8, t.threads /= 8, t.min_blocks *= 8;
  return t;
}

/// vtile_rows_occ: the register bound of 2-byte vector tiles, 4/3 of best's (3 blocks of
/// 256 threads per SM: 80 registers, 24 warps on the H200 (ncu, TTC case 48); 64
/// registers, 32 warps), of 4-byte ones 5/4 (60 registers, 32 warps; 48, 40 warps);
/// spill-free on sm_80 and sm_90; other sizes keep theirs.
constexpr int nd_vtile_occ_min_blocks(int elem_size, int v) {
  const int b = nd_vtile_for(elem_size, v).min_blocks;
  const int occ = elem_size == 2 ? b * 4 / 3 : elem_size == 4 ? b * 5 / 4 : b;
  return occ < 32 ? occ : 32;  // 32 resident blocks per SM at most
}

/// vtile_rows_auto, vtile_rows_occ: a flat base (one dim per side) takes a short-B shape
/// only at or below this fill.
inline constexpr double nd_auto_flat_fill = 0.6;
/// vtile_rows_wide: shape 0 from this fill of its slots up.
inline constexpr double nd_wide_fill = 0.99;

/// vtile_fit and vtile_rows take shapes 4-6 where they fill this many times the slots
/// of their base choice: a 32-thread block keeps at most half an SM's warps (32 blocks
/// per SM), so a small gain does not pay (the gain alone did not separate winners from
/// losers on the H200: vtile_rows_auto adds the base's packing and fill; docs/RESULTS.md,
/// "N-d permutation (issue 17)").
inline constexpr double nd_fit_gain = 1.10;

/// Run tile (strided copies whose kept run is U = 1, 2, 4 or 8 16-byte chunks, candidate
/// vtile): 32 runs along A x 64/U along B, 256 threads, 8 chunks per thread; the shared
/// rows padded by one run so that a quarter warp's 16-byte reads of a column hit 8 bank
/// groups. Unmeasured: docs/RESULTS.md, "N-d permutation (issue 17)".
inline constexpr int nd_run_tile_a = 32, nd_run_threads = 256;
/// The run tile runs under candidates vtile, vtile_tuned, vtile_fit and vtile_rows*, and
/// only while this is true (the strided_copy rows of `ttc --ab` show whether it beats the
/// policy copy).
inline constexpr bool nd_run_tile = true;
/// half (the run tile's Fit variant, where it fills more of its slots: TTC case 44's
/// 103-run side fills 80% of 32-run tiles, 92% of 16-run ones): half the rows.
constexpr int nd_run_tile_b(int chunks, bool half = false) { return (half ? 32 : 64) / chunks; }
/// vtile_fit and vtile_rows*: the run tile for runs of at most this many chunks; longer
/// ones keep the policy copy (the unbounded run tile lost to it on f32 128-byte runs,
/// TTC cases 27 and 29, docs/RESULTS.md "N-d permutation (issue 17)"; the Fit run tile
/// matched or beat it there, so runs of up to 8 chunks take it; the `policy` column of
/// `ttc --ab` times the policy copy beside it).
inline constexpr int nd_fit_run_chunks = 8;
/// vtile_fit and vtile_rows*: the run tile's register bound in blocks per SM for runs of
/// `chunks` chunks (its 34 KiB tile allows 6): unbounded it took 120-173 registers, 2
/// blocks per SM (ncu, TTC case 44); 4 blocks (64 registers) spilled at 2 chunks on
/// sm_80 and at 4 and 8 chunks on sm_90 (ptxas).
/// The half tile (4 chunks per thread, 17 KiB): 5 blocks per SM (6 spilled on sm_80).
constexpr int nd_fit_run_min_blocks(int chunks, bool half = false) { return half ? 5 : chunks == 1 ? 4 : 3; }

/// Every vector tile: best's constraints, static shared memory, at most 32 resident
/// blocks per SM and 2048 threads under its register bound, and at most one load row
/// per lane of a warp (TB <= NT: the row offsets vtile_rows shuffles, 32 % NCH == 0).
constexpr bool nd_vtile_table_valid() {
  for (int e = 2; e <= 16; e *= 2)
    for (int v = 0; v < nd_vtile_shapes; ++v) {
      const nd_geom t = nd_vtile_for(e, v);
      if (!nd_geom_valid(e, t) || t.rows * t.chunks * 16 > 48 * 1024) return false;
      const int occ = nd_vtile_occ_min_blocks(e, v);
      if (t.min_blocks > 32 || t.min_blocks * t.threads > 2048 || t.rows > t.threads || 32 % t.chunks != 0) return false;
      if (occ > 32 || occ * t.threads > 2048) return false;
    }
  return true;
}
static_assert(nd_vtile_table_valid(), "every vector tile fits static shared memory");

}  // namespace xpose::detail
