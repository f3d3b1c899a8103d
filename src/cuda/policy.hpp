// Dispatch policy: which registered variant the plain API runs, and how the fast
// path `best` shapes its work, as data. Each entry cites the measurement that chose
// it (docs/RESULTS.md, "Fast path (best)").
#pragma once

#include <xpose/view.hpp>

namespace xpose::detail {

/// What xpose::transpose() / execute() run for a 2-D plan on a device of compute
/// capability `cc` (major*10+minor) with `elem_size`-byte elements.
enum class default_kernel { best, tiled_padded };

constexpr default_kernel default_kernel_for(int cc, int /*elem_size*/) {
  // `best` for every element size on the architectures it is built and tested for
  // (sm_80, sm_90): on the H200 it beats tiled_padded on every case of the comparison
  // (docs/RESULTS.md, "Fast path (best)"). Older devices keep the padded tile.
  return cc >= 80 ? default_kernel::best : default_kernel::tiled_padded;
}

/// Tile of `best`'s tiled kernel for E-byte elements: `rows` input rows x `chunks`
/// 16-byte chunks per row (chunks*16/E columns), `threads` per block. Constraints:
/// best_tile_valid below.
struct best_tile {
  int rows;
  int chunks;
  int threads;
  int micro_bytes;  ///< bytes per row of a thread's register block: 16, or 8 (half the registers)
  int min_blocks;   ///< __launch_bounds__ minimum resident blocks per SM (caps registers)
};

/// The one statement of a tile's geometric constraints (tile_kernel and
/// realign_tile_kernel static_assert it; the CPU tests check every table entry).
/// k = 16/E rows per micro-block; RPS rows per load step; the realigning kernel's
/// shuffle groups (a tile row, an output row segment) must lie inside one warp;
/// out_aligned: its stores are not shifted (no output row segment group).
constexpr bool best_tile_valid(int elem_size, best_tile t, bool realign, bool out_aligned = false) {
  if (elem_size <= 0 || 16 % elem_size != 0 || t.chunks <= 0 || t.threads <= 0) return false;
  if (t.micro_bytes != 8 && t.micro_bytes != 16) return false;
  if (t.micro_bytes < elem_size) return false;
  const int k = 16 / elem_size, H = 16 / t.micro_bytes;
  if (t.threads % t.chunks != 0) return false;
  const int RPS = t.threads / t.chunks, RN = t.rows / k;
  bool ok = t.rows % RPS == 0 && t.rows % k == 0 && (RN * t.chunks * H) % t.threads == 0 && t.chunks >= 8;
  if (realign) ok = ok && 32 % t.chunks == 0 && (out_aligned || 32 % (H * RN) == 0) && t.threads % 32 == 0;
  return ok;
}

constexpr best_tile best_tile_for(int elem_size) {
  // Every tile side is at least 256 contiguous bytes on both sides, and every thread
  // keeps several 16-byte loads in flight before its first shared store (Little's law
  // over the SMs; docs/RESULTS.md "Fast path (best)": sweep, what was tried).
  switch (elem_size) {
    case 1: return {256, 16, 256, 8, 2};  // 16 loads per thread, 16x8-byte register blocks (16x16 spilled)
    case 2: return {128, 16, 256, 16, 3};  // 8 loads per thread, 8x8 half-word micro-blocks
    case 4: return {64, 16, 256, 16, 4};   // 4 loads, 4x4 words (renaming only)
    case 8: return {64, 16, 256, 16, 4};   // 4 loads, 2 micro-blocks of 2x2 per thread
    default: return {32, 32, 256, 16, 4};  // 16-byte elements: 4 loads, 4 chunks per thread
  }
}

/// tile_half (switch best_half_default): 1-byte elements in 128-row tiles (8 loads per thread, the
/// realigning tile's geometry) instead of 256: a 32 MiB square has 4x more tiles,
/// so the last wave of 256-row tiles (529 tiles on 132 SMs at 5760^2) does not idle
/// the GPU (docs/RESULTS.md "Shape classes (issue 12)", squares).
constexpr best_tile best_tile_half_for(int /*elem_size*/) { return {128, 16, 256, 8, 2}; }

/// Tile for the narrow-access path (A < 16: a pointer, leading dimension or stride
/// not 16-byte aligned). One-byte elements halve the tile: the full tile's single-byte
/// loads spilled at any register cap.
constexpr best_tile best_tile_narrow_for(int elem_size) {
  if (elem_size == 1) return {128, 16, 256, 8, 1};
  if (elem_size == 2) return {128, 16, 256, 8, 1};  // 8-byte register blocks: fewer registers
  const best_tile t = best_tile_for(elem_size);
  return {t.rows, t.chunks, t.threads, t.micro_bytes, 1};  // narrow accesses need more registers
}

/// Tile of the realigning path: tile_kernel's geometry with room for the extra chunk
/// per row (register arrays twice the loads), so i8 uses half the rows.
constexpr best_tile best_tile_realign_for(int elem_size) {
  switch (elem_size) {
    case 1: return {128, 16, 256, 8, 2};   // 8 loads (+8 neighbour chunks), 16x8-byte blocks
    case 2: return {128, 16, 256, 16, 2};  // 8 loads, 8x8 half-words
    case 4: return {64, 16, 256, 16, 3};   // 4 loads, 4x4 words
    default: return {64, 16, 256, 16, 3};  // 8 bytes: 4 loads, 2x2 blocks
  }
}

/// __launch_bounds__ minimum blocks of the cp.async skewed tile (registers per thread
/// capped at 64K / (256 * this); ptxas, sm_90: 5 blocks spilled 8-32 bytes for 1, 2 and
/// 8-byte elements), and its cover buffers: at 4 blocks per SM two fit (about 52 KiB a
/// block), so the next tile's copies are in flight during the whole current tile.
constexpr int best_skew_async_min_blocks(int /*elem_size*/) { return 4; }
constexpr int best_skew_async_stages = 2;

/// Tile of the skewed realigning path (best_skew.cuh, candidate policy): TR owned
/// input rows (plus a halo of 16/E rows) x `chunks` 16-byte chunks; output row
/// segments of TR*E bytes start where the output row is 16-byte aligned, so that every
/// store is a whole aligned 16-byte chunk except at the matrix's first and last rows.
/// Loads and shifts: all of a thread's chunks in flight before its shared stores.
constexpr best_tile best_tile_skew_for(int elem_size) {
  switch (elem_size) {
    // Rows + halo = whole load steps (no idle last step). Register caps: 128 rows x 16
    // chunks of i8 (9 loads + 9 neighbours per thread) and 128 x 8 at 3 blocks per SM
    // spilled (ptxas, sm_80 / sm_90). Not measured yet: bench/best_bench --skew times
    // other geometries side by side.
    case 1: return {112, 8, 256, 8, 3};    // 4 loads (+ neighbours), 32 KiB shared
    case 2: return {120, 16, 256, 16, 2};  // 8 loads, 64 KiB
    case 4: return {60, 16, 256, 16, 4};   // 4 loads, 32 KiB
    default: return {62, 16, 256, 16, 4};  // 8 bytes: 4 loads, 32 KiB
  }
}

/// Shared bytes of a skewed tile: the realigned input rows (TR + 16/E, NCH chunks each)
/// and the transposed rows (TC = NCH*16/E rows of TR/(16/E) + 1 chunks).
constexpr int best_skew_smem(int elem_size, best_tile t, int oa = 16) {
  const int k = 16 / elem_size, ar = t.rows + oa / elem_size;  // rows read (halo oa/E rows)
  return ar * t.chunks * 16 + t.chunks * k * (ar / k) * 16;
}

/// The skewed tile's constraints (skew_kernel static_asserts it; the CPU tests check
/// every table entry): whole micro-blocks, whole load steps of NT/chunks rows, a row's
/// lanes (shuffle group) inside one warp, at most 227 KiB of shared memory.
constexpr bool best_skew_tile_valid(int elem_size, best_tile t) {
  if (elem_size <= 0 || elem_size > 8 || 16 % elem_size != 0 || t.chunks <= 0 || t.threads <= 0) return false;
  // (4-byte rows: the cp.async form only, whose micro-block rows are single shifted words.)
  if (t.micro_bytes != 4 && t.micro_bytes != 8 && t.micro_bytes != 16) return false;
  if (t.micro_bytes < elem_size) return false;
  const int k = 16 / elem_size;
  return t.rows > 0 && t.rows % k == 0 && t.threads % t.chunks == 0 && t.threads % 32 == 0 && 32 % t.chunks == 0 &&
         best_skew_smem(elem_size, t) <= 227 * 1024;
}

/// Shared bytes of the cp.async form of the skewed tile (skew_async_kernel): `stages`
/// buffers of the input rows' aligned covers (TR (+ 16/E halo rows) x (chunks + 1)
/// chunks, plus one chunk of shift per `best_skew_cover_period` row blocks) and the transposed rows (TC rows of RB
/// chunks, RB = rows read / (16/E)).
/// Row blocks (k = 16/E rows) per chunk of shift in the cp.async skewed tile's cover
/// layout: the period of R*k*(chunks + 1) mod 8, so that the rows' chunk slots of 8
/// consecutive row blocks differ (skew::cover_word).
constexpr int best_skew_cover_period(int elem_size, int chunks) {
  const int m = (16 / elem_size * (chunks + 1)) % 8;
  return m == 0 ? 1 : m % 4 == 0 ? 2 : m % 2 == 0 ? 4 : 8;
}

constexpr int best_skew_async_smem(int elem_size, best_tile t, bool halo, int stages, int oa = 16) {
  const int k = 16 / elem_size, ar = t.rows + (halo ? oa / elem_size : 0);
  const int shift = (ar / k + best_skew_cover_period(elem_size, t.chunks) - 1) / best_skew_cover_period(elem_size, t.chunks);
  return stages * (ar * (t.chunks + 1) + shift) * 16 + t.chunks * k * (ar / k) * 16;
}

/// Tile of the cp.async skewed tile (route realign_skew_async): `rows` read per tile
/// (owned rows plus the halo where the output rows are not 16-byte aligned; without it,
/// every output row starts aligned and the tile owns all of them). About 34 KiB of
/// shared memory a block (6 blocks per SM where registers allow); the register form's
/// tiles were capped at 2-4 blocks by their staged loads ("Session 5", call 4: its u8 /
/// f16 rows at 0.66).
constexpr best_tile best_tile_skew_async_for(int elem_size, bool halo) {
  const int k = 16 / elem_size, h = halo ? k : 0;
  switch (elem_size) {
    // Micro-block rows of 4 (u8) and 8 (f16) bytes: one micro-block per thread (8-16
    // byte rows left half the threads idle in phase 2) and fewer registers.
    case 1: return {128 - h, 8, 256, 4, best_skew_async_min_blocks(elem_size)};
    case 2: return {128 - h, 8, 256, 8, best_skew_async_min_blocks(elem_size)};
    default: return {64 - h, 16, 256, 16, best_skew_async_min_blocks(elem_size)};  // 4 and 8 bytes
  }
}

/// Blocks per tile walk of the resident skewed async tiles: as many as fit (`resident`),
/// fewer where that evens the tiles per block (every block walks ceil(total / resident)
/// tiles): the last round then has no few-block tail.
constexpr long long best_balanced_grid(long long total, long long resident) {
  if (total <= resident || resident <= 0) return total;
  const long long rounds = (total + resident - 1) / resident;
  return (total + rounds - 1) / rounds;
}

/// Shape classes of the 16-byte (aligned) tile path for 1- and 2-byte elements, whose
/// standard tiles are mostly empty on small or skinny matrices (docs/RESULTS.md "Fast
/// path (best)", second round). few_rows: rows <= 32; narrow: rows <= 64, or rows of
/// <= 128 bytes.
enum class best_shape { standard, few_rows, narrow };

/// docs/RESULTS.md "Fast path (best)", second round. To switch the small tiles off
/// (every shape back to the standard tile), set this to false.
constexpr bool best_small_tiles_enabled = true;

constexpr best_shape best_shape_for(int elem_size, long long rows, long long cols) {
  if (!best_small_tiles_enabled || elem_size > 2) return best_shape::standard;
  if (rows <= 32) return best_shape::few_rows;
  if (rows <= 64 || cols * elem_size <= 128) return best_shape::narrow;
  return best_shape::standard;
}

/// Tile of a shape class (16-byte path). Small tiles run 64 threads per block, many
/// blocks per SM; each thread still keeps several 16-byte loads in flight.
constexpr best_tile best_tile_shaped(int elem_size, best_shape s) {
  if (s == best_shape::few_rows)  // 32 rows x 256 bytes, 8 KiB
    return elem_size == 1 ? best_tile{32, 16, 64, 8, 8} : best_tile{32, 16, 64, 16, 8};
  if (s == best_shape::narrow)  // 64 rows x 128 bytes, 8 KiB
    return elem_size == 1 ? best_tile{64, 8, 64, 8, 8} : best_tile{64, 8, 64, 16, 8};
  return best_tile_for(elem_size);
}

/// Blocks launched: one per tile up to this many (then the kernels' grid-stride loop).
/// A persistent grid of resident blocks measured slower (docs/RESULTS.md, "Fast path
/// (best)", what was tried).
constexpr long long best_grid_limit = 0x7fffffff;

// ---- shape classes and the path table (docs/RESULTS.md, "Shape classes (issue 12)") ----

/// Every route `best` can take. One classification (best_path_for) picks it from the
/// shape, the layout and the alignment of pointers, leading dimensions and strides.
enum class best_path : int {
  copy,          ///< a vector whose layouts coincide: one cudaMemcpyAsync
  slab_gather,   ///< few rows, packed output, any alignment (best_slab.cuh)
  slab_scatter,  ///< few cols, packed input, any alignment (best_slab.cuh)
  slab_whole,    ///< batch of small packed matrices, several per block (best_slab.cuh)
  tile,          ///< 16-byte tile (best_kernels.cuh), standard geometry
  tile_few_rows, ///< 16-byte tile, 32-row geometry (1-2 byte elements)
  tile_narrow,   ///< 16-byte tile, 128-byte-row geometry (1-2 byte elements)
  realign,       ///< realigning tile (best_realign.cuh): element-aligned rows, 16-byte accesses
  tile_access,   ///< tile with A-byte accesses, A = the alignment (< 16)
  tile_half,     ///< 16-byte tile of 1-byte elements with half the rows (best_tile_half_for)
  slab_gather_micro,   ///< slab_gather, packed side through register micro-blocks (best_slab.cuh)
  slab_scatter_micro,  ///< slab_scatter, packed side through register micro-blocks
  slab_whole_micro,    ///< slab_whole, matrices of whole 16-byte chunks through register micro-blocks
  realign_skew,  ///< skewed realigning tile (best_skew.cuh): whole aligned chunks on both sides
  slab_gather_pipe,   ///< slab_gather, grouped, on resident blocks with the next slab's loads in flight (best_pipe.cuh)
  slab_scatter_pipe,  ///< slab_scatter, the same
  slab_gather_micro_pipe,   ///< slab_gather_micro, the same
  slab_scatter_micro_pipe,  ///< slab_scatter_micro, the same
  tile_async,        ///< 1-byte 16-byte tile, loads by cp.async (best_async.cuh, best_tile_async_for)
  tile_async_batch,  ///< the same kernel, several 64 x 64 1-byte matrices per block
  realign_async,     ///< 1-2 byte element-aligned rows: cover chunks by cp.async, shift on shared reads
  slab_interleave_gather,   ///< slab_gather of 4-8 byte elements, aligned: register interleave (best_interleave.cuh)
  slab_interleave_scatter,  ///< slab_scatter, the same
  slab_whole_micro_pipe,    ///< slab_whole_micro on resident blocks, the next slab's loads in flight (best_pipe.cuh)
  slab_scatter_micro_halo,  ///< slab_scatter_micro_pipe with a halo: unaligned output rows as whole chunks
  slab_scatter_pipe_halo,   ///< slab_scatter_pipe, the same
  tile_async_pipe,          ///< tile_async on resident blocks, the next tiles' loads in flight (best_async.cuh)
  tile_async_pipe_batch,    ///< tile_async_batch, the same
  slab_gather_micro_shift,  ///< slab_gather_micro_pipe reading raw (unaligned) rows shifted: no realigning pass
  slab_gather_pipe_shift,   ///< slab_gather_pipe, the same
  realign_skew_async,       ///< element-aligned rows: skewed tile with cp.async cover loads (best_skew.cuh)
  tile_fit,                 ///< 1-2 byte gathers of 33-128 rows: 16-byte tile of the gather's rows (best_tile_fit_for)
  realign_fit,              ///< tile_fit for input rows off the 16-byte grid: the realigning tile, stores unshifted
  slab_scatter_direct,      ///< 1-2 byte grouped scatter (group: the side): staging -> registers -> output (best_direct.cuh)
  realign_skew_sector,      ///< realign_skew_async, owned output segments starting on 32-byte sectors, taller tiles
  realign_skew_fit,         ///< realign_skew on the half-width tile (8 bytes; 4 bytes where it pads the matrix less: best_skew_fit_path)
  realign_skew_async_fit,   ///< 8-byte realign_skew_async on the 48-row tile where it pads the matrix less (best_skew_fit_path)
};

constexpr const char* best_path_name(best_path p) {
  switch (p) {
    case best_path::copy: return "copy";
    case best_path::slab_gather: return "slab_gather";
    case best_path::slab_scatter: return "slab_scatter";
    case best_path::slab_whole: return "slab_whole";
    case best_path::tile: return "tile";
    case best_path::tile_few_rows: return "tile_few_rows";
    case best_path::tile_narrow: return "tile_narrow";
    case best_path::realign: return "realign";
    case best_path::tile_access: return "tile_access";
    case best_path::tile_half: return "tile_half";
    case best_path::slab_gather_micro: return "slab_gather_micro";
    case best_path::slab_scatter_micro: return "slab_scatter_micro";
    case best_path::slab_whole_micro: return "slab_whole_micro";
    case best_path::realign_skew: return "realign_skew";
    case best_path::slab_gather_pipe: return "slab_gather_pipe";
    case best_path::slab_scatter_pipe: return "slab_scatter_pipe";
    case best_path::slab_gather_micro_pipe: return "slab_gather_micro_pipe";
    case best_path::slab_scatter_micro_pipe: return "slab_scatter_micro_pipe";
    case best_path::tile_async: return "tile_async";
    case best_path::tile_async_batch: return "tile_async_batch";
    case best_path::realign_async: return "realign_async";
    case best_path::slab_interleave_gather: return "slab_interleave_gather";
    case best_path::slab_interleave_scatter: return "slab_interleave_scatter";
    case best_path::slab_whole_micro_pipe: return "slab_whole_micro_pipe";
    case best_path::slab_scatter_micro_halo: return "slab_scatter_micro_halo";
    case best_path::slab_scatter_pipe_halo: return "slab_scatter_pipe_halo";
    case best_path::tile_async_pipe: return "tile_async_pipe";
    case best_path::tile_async_pipe_batch: return "tile_async_pipe_batch";
    case best_path::slab_gather_micro_shift: return "slab_gather_micro_shift";
    case best_path::slab_gather_pipe_shift: return "slab_gather_pipe_shift";
    case best_path::realign_skew_async: return "realign_skew_async";
    case best_path::tile_fit: return "tile_fit";
    case best_path::realign_fit: return "realign_fit";
    case best_path::slab_scatter_direct: return "slab_scatter_direct";
    case best_path::realign_skew_sector: return "realign_skew_sector";
    case best_path::realign_skew_fit: return "realign_skew_fit";
    case best_path::realign_skew_async_fit: return "realign_skew_async_fit";
  }
  return "?";
}

/// Shape-class thresholds for one architecture and element size.
struct best_class_policy {
  int slab_max_short;     ///< slab paths: short side <= this many elements ...
  int slab_max_short_bytes;  ///< ... and <= this many bytes
  int slab_bytes;         ///< bytes of one slab (shared memory is about this plus padding)
  int whole_max_bytes;    ///< slab_whole: matrices of at most this many bytes
  bool keep_few_rows_tile;  ///< aligned, 32-64 rows: the measured small tiles instead of a gather slab
  bool realign;           ///< realigning tile for element-aligned layouts (else the A-byte tile)
  int slab_group_max;     ///< gather / scatter slabs with a short side in best_slab_group_sides up
                          ///< to this: the grouped kernel (best_slab.cuh); 0 = element by element
};

/// The table: per compute capability (sm_80 and sm_90 share it until measured apart)
/// and element size. Slab sides: docs/RESULTS.md "Shape classes (issue 12)"; the
/// 32-row tile and the realigning path: "Fast path (best)", second round. f64 takes the
/// realigning path (was the 8-byte tile) so that the sweep measures it against the
/// rows of "Fast path (best)"; set realign false for E = 8 to go back.
/// Second round ("Shape classes (issue 12)", second round): slab_group_max > 0 sends
/// 1-4 byte gather / scatter slabs of small short sides to the grouped kernel (the
/// element-by-element interleave was issue-bound); set it to 0 for an element size to
/// go back to the first-round kernel. E = 8 whole matrices capped at 4 KiB (was 8 KiB).
/// `candidate` selects the next table under measurement (variant `best_next`, run side
/// by side with `best` by `xpose-bench sweep --candidate`); it equals the current table
/// except where an entry says otherwise.
constexpr best_class_policy best_class_policy_for(int /*cc*/, int elem_size, bool /*candidate*/ = false) {
  switch (elem_size) {
    case 1: return {128, 128, 16384, 16384, true, true, 32};
    // Grouped slabs per element size from the second-round sweep ("Shape classes (issue
    // 12)", second round): u8 gains for every short side; f16 for short sides up to 16;
    // f32 lost on every short side, so it keeps the first-round kernel.
    // f16 matrices of up to 4 KiB (32 x 32): 64 x 64 batches ran 0.836 of memcpy as whole
    // matrices against 0.963 on the 64-row tile (same run, before/after of session 3).
    case 2: return {128, 256, 16384, 4096, true, true, 16};
    case 4: return {64, 256, 16384, 8192, false, true, 0};
    // E = 8: 32x32 matrices (8 KiB) go to the tile: slab_whole places their elements
    // 256 bytes apart in shared memory (one bank); the tile runs 64x64 batches at copy speed.
    case 8: return {32, 256, 16384, 4096, false, true, 0};
    // 16-byte elements: slabs for short sides up to 16 (256 bytes); 32 x N c128 ran 0.835
    // as a slab against 0.958 on the tile (same run, before/after of session 3).
    default: return {32, 256, 16384, 4096, false, false, 0};
  }
}

/// Short sides that have a grouped slab kernel (best.cu instantiates exactly these, for
/// 1-4 byte elements). Up to 8 a group holds S 16-byte chunks in registers; S 16-byte
/// chunks for S = 12, 16 took 130-150 registers (u8 gather spilled), so larger sides
/// group 4-byte words (multiples of 4 only). Registers are capped for
/// best_slab_group_min_blocks blocks per SM: 3 (80 registers) spilled for S = 4-8 gathers.
constexpr int best_slab_group_sides[] = {2, 3, 4, 5, 6, 8, 12, 16, 24, 32};
constexpr int best_slab_group_min_blocks = 2;

/// The grouped kernel's short side for a slab of short side s (0: none).
constexpr int best_slab_group_for(const best_class_policy& p, int elem_size, long long s) {
  if (elem_size > 4) return 0;
  for (int g : best_slab_group_sides)
    if (g == s && g <= p.slab_group_max) return g;
  return 0;
}

/// The switch of the micro-block routes (slab_gather_micro, slab_scatter_micro,
/// slab_whole_micro): false, only the candidate policy (`best_next`) takes them; true,
/// the default policy (`best`) takes them and `best_next` runs the previous slab kernels
/// instead, for comparison. best_micro_candidate: the `candidate` flag under which the
/// micro routes are on (the tests assert through it, so they hold in both states).
constexpr bool best_micro_default = true;
constexpr bool best_micro_candidate = !best_micro_default;
constexpr bool best_micro_on(bool candidate) { return candidate == best_micro_candidate; }

/// The same switch for the skewed realigning tile (realign_skew, where best_skew_wins)
/// and for the 1-byte half tile (tile_half): true, `best` takes the route and `best_next`
/// the one it replaced (docs/RESULTS.md "Shape classes (issue 12)", third round).
constexpr bool best_skew_default = true;
constexpr bool best_half_default = true;
/// Aligned 32-64 row f32 matrices on the tile instead of the gather slab (the pre-core
/// route): the tile won every such row side by side, sweep and before/after alike
/// (docs/RESULTS.md "Session 4", issue 11's last row), so on (best_next takes the slab).
constexpr bool best_f32_rows_tile_default = true;
/// Tiny 1-2 byte matrices (at most best_tiny_bytes, at least 64 rows and 128 bytes a row)
/// on the narrow tile (64 rows x 128 bytes): several blocks a call instead of one or two
/// big tiles or a slab, for the latency-bound calls. On: side by side in session 4's call 4
/// (docs/RESULTS.md "Session 4", final tree) a 64 KiB graph node of 128x512 u8 / 128x256 f16
/// ran 0.51 / 0.57 of a memcpy node's speed on the slab / big tile, 0.68 / 0.87 on it.
constexpr bool best_tiny_narrow_default = true;
constexpr long long best_tiny_bytes = 64 * 1024;
/// A tiny call: one matrix (unbatched) of at most best_tiny_bytes (the tiny rules' size test).
constexpr bool best_tiny_call(const matrix_desc& d) {
  return d.batch <= 1 && d.rows * d.cols * d.elem_size <= best_tiny_bytes;
}
/// Tiny 4-8 byte matrices on the same narrow tile (switch best_tiny_wide_default): 64 x 64
/// f32 is one standard tile (one block); the narrow tile spreads it over blocks and ran the
/// same or faster side by side, in a stream and in a CUDA graph (docs/RESULTS.md "Session
/// 6", call 2).
constexpr bool best_tiny_wide_default = true;
/// Tiny 4-8 byte matrices on a smaller narrow tile (switch best_tiny_small_default; route
/// tile_narrow either way): 32 rows x 128 bytes by 64 threads (4 KiB a block, four times the
/// blocks of the 16 KiB tile) with the late wait, for calls bound by one block's latency and
/// bandwidth (a 64 KiB f64 / c64 call is four blocks on 132 SMs; session 7's final sweep ran
/// them at 0.89-0.91 of memcpy, PyTorch's copy kernel at 0.92-0.96). On: side by side in session 8's
/// final call (docs/RESULTS.md "Session 8") it ran every tiny 4-8 byte row of the sweep faster in a
/// stream (f32 64x64 0.838 -> 0.876, 128x128 0.877 -> 0.912, f64 64x32 0.873 -> 0.915, c64 64x32
/// 0.838 -> 0.872 of memcpy, against the 16 KiB narrow tile, both waiting late); `best_next` runs the
/// routes before the tiny rules (both switches flip), so the 16 KiB tile no longer runs tiny 4-8 byte
/// calls (best_tiny_small_takes; larger narrow shapes keep it).
constexpr bool best_tiny_small_default = true;
constexpr best_tile best_tile_tiny_small_for(int /*elem_size*/) { return {32, 8, 64, 16, 8}; }
/// Batches of small 4-8 byte matrices of at most 32 rows (and rows of at most 512 bytes)
/// that reach the tile on the 32-row few-rows tile (switch best_few_rows_wide_default): on
/// the 64-row tile half of every block idles (4096 x 32x32 f64 / c64: 0.84-0.86 of memcpy
/// on it, 0.95-0.96 on the few-rows tile side by side, docs/RESULTS.md "Session 6", call 2).
constexpr bool best_few_rows_wide_default = true;
/// tile_half only below this many standard 1-byte tiles (256 x 256) per call.
constexpr long long best_half_max_tiles = 768;
/// The cp.async skewed tile (realign_skew_async) for element-aligned 1-8 byte layouts
/// that reach the tiles, where best_skew_async_fits, in place of realign, realign_skew
/// and realign_async. On: it won those rows side by side (docs/RESULTS.md "Session 6",
/// the cp.async skewed tile); false: only `best_next` takes it.
constexpr bool best_skew_async_default = true;
/// Whether a route with switch `route_default` is on under the `candidate` flag.
constexpr bool best_route_on(bool route_default, bool candidate) { return candidate != route_default; }
/// Whether the tiny rule (the narrow tile) takes E-byte elements under the flag.
constexpr bool best_tiny_narrow_on(int elem_size, bool candidate) {
  return elem_size <= 2 ? best_route_on(best_tiny_narrow_default, candidate)
                        : elem_size <= 8 && (best_route_on(best_tiny_wide_default, candidate) ||
                                             best_route_on(best_tiny_small_default, candidate));
}
/// Whether tile_narrow runs d on the small tile: tiny (unbatched, at most best_tiny_bytes) 4-8
/// byte calls where the switch is on under the flag. Larger narrow shapes (best_shape::narrow)
/// keep the 16 KiB tile: only tiny calls were measured on the small one.
constexpr bool best_tiny_small_takes(const matrix_desc& d, bool candidate) {
  return best_route_on(best_tiny_small_default, candidate) && d.elem_size >= 4 && d.elem_size <= 8 &&
         best_tiny_call(d);
}
/// Programmatic dependent launch (sm_90+): best's kernels start with a wait on the work
/// before them and release the next launch at once, so that back-to-back calls (streams
/// and CUDA graphs) overlap one launch with the previous kernel's tail. Only for grids of
/// at most best_dependent_launch_max_blocks (about one wave: the calls whose time is
/// mostly launch latency); larger calls launch plainly, so their measurements are
/// untouched. Measured on tiny graph nodes (docs/RESULTS.md "Session 4": 1.9 -> 1.5 us
/// a node); not a route, so `best_next` keeps it too.
constexpr bool best_dependent_launch = true;
constexpr long long best_dependent_launch_max_blocks = 256;
constexpr bool best_dependent_launch_on(int cc, long long grid) {
  return best_dependent_launch && cc >= 90 && grid <= best_dependent_launch_max_blocks;
}
/// Late wait (switch best_late_wait_default): the narrow tile (the
/// route of tiny 1-2 byte calls) releases the next launch at once and waits for the work
/// before it only just before its first load, its index math overlapping that work's
/// tail; for the tiny graph node of 64 x 256 u8 at 1.51x a memcpy node (docs/RESULTS.md
/// "Session 5", call 4). On: side by side (docs/RESULTS.md "Session 6", sq round 1, sweep
/// --graph) that node ran 0.657 -> 0.906 of a memcpy node, 64 x 128 f16 0.863 -> 1.207;
/// best_next waits first. Not a route: the same path name either way.
constexpr bool best_late_wait_default = true;

/// Pipelined slabs (best_pipe.cuh: slab_gather_pipe / slab_scatter_pipe, grouped, and
/// slab_gather_micro_pipe): the slab kernels' phases on resident blocks whose next slab's
/// loads (cp.async, no registers) are in flight while the current slab is interleaved and
/// stored. 1-2 byte elements. On in `best` where the side-by-side run measured it faster
/// (docs/RESULTS.md "Session 4", pipelined slabs): every grouped gather;
/// grouped scatters whose unpipelined kernel runs at most 3 blocks per SM (more
/// registers than 64: best_pipe_scatter_side); micro-block gathers with aligned rows and
/// short sides of at least 64 bytes (unaligned rows add a realigning pass: no gain).
/// best_next runs the kernels they replaced.
constexpr bool best_pipe_default = true;
/// Micro-block scatters on the pipelined kernel (slab_scatter_micro_pipe), taken only
/// where the output rows are 16-byte aligned: there it was faster, with unaligned output
/// rows slower (docs/RESULTS.md "Session 4", final tree; "Session 5").
constexpr bool best_pipe_micro_scatter_default = true;
/// Batches of small matrices on the pipelined kernel (slab_whole_micro_pipe): where the
/// micro-block whole-matrix route runs (1-2 byte elements), the next slab's input in
/// flight by cp.async while the block transposes and stores the current one. On: it won
/// every u8 / f16 8x8-32x32 batch side by side (docs/RESULTS.md "Session 5", call 2);
/// best_next runs the unpipelined kernels.
constexpr bool best_pipe_whole_default = true;
/// Micro-block gathers that run unpipelined (rows under 64 bytes, or not all 16-byte
/// aligned) on the pipelined grouped kernel where their short side has one (f16 24 and
/// 32 rows, where the micro-block gather ran well below the grouped pipelined gathers of
/// neighbouring sides: docs/RESULTS.md "Session 5", call 1). On: it won all three sweep
/// rows side by side ("Session 5", call 3); best_next runs the micro-block gather.
constexpr bool best_pipe_short_default = true;
/// Short sides with a pipelined kernel (best.cu instantiates exactly these): the
/// grouped sides and 7 (7 x N ran element by element).
/// (best_short_pipe_group below: the side that replaces a micro-block gather.)
constexpr int best_pipe_sides[] = {2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32};
constexpr int best_pipe_max_elem = 2;
/// Register cap of a pipelined grouped kernel as blocks per SM (gather: its shared
/// memory fits 3): 3 (80 registers) except the u8 scatter of 8 columns, the f16 one with a
/// halo (best_scatter_halo_default) and the f16 gather of 8 rows that shifts its raw rows
/// (halo with gather: best_gather_shift_default), which spilled there (ptxas, sm_90, nvcc 13.0).
constexpr int best_pipe_min_blocks(int elem_size, bool gather, int side, bool halo = false) {
  if (side != 8) return 3;
  return (gather ? elem_size == 2 && halo : elem_size == 1 || (elem_size == 2 && halo)) ? 2 : 3;
}
/// Grouped scatters that the pipelined kernel takes: the unpipelined kernel needs more
/// than 64 registers (ptxas: u8 4-8, 16-32; f16 5-8, 24, 32) or has none (7). The others
/// run 4-5 blocks per SM already and measured slower pipelined (docs/RESULTS.md
/// "Session 4", pipelined slabs). Side 5 only to unaligned output rows (out_aligned
/// false): with aligned ones it lost (u8 and f16, HW = 50176; "Session 4", review).
constexpr bool best_pipe_scatter_side(int elem_size, long long s, bool out_aligned = false) {
  if (s == 5 && out_aligned) return false;
  if (elem_size == 1) return s == 4 || s == 5 || s == 6 || s == 7 || s == 8 || s == 16 || s == 24 || s == 32;
  return s == 5 || s == 6 || s == 7 || s == 8 || s == 24 || s == 32;
}

/// The route of micro-block path m (slab_gather_micro / slab_scatter_micro) under the
/// flag: its pipelined kernel where that is on (gather: rows_aligned, every input segment
/// 16-byte aligned, and short sides s of at least 64 bytes; scatter: rows_aligned, every
/// output row 16-byte aligned).
constexpr best_path best_micro_route(best_path m, int elem_size, bool candidate, long long s, bool rows_aligned) {
  if (elem_size > best_pipe_max_elem) return m;
  if (m == best_path::slab_gather_micro)
    return best_route_on(best_pipe_default, candidate) && rows_aligned && s * elem_size >= 64
               ? best_path::slab_gather_micro_pipe
               : m;
  return best_route_on(best_pipe_micro_scatter_default, candidate) && rows_aligned ? best_path::slab_scatter_micro_pipe
                                                                                   : m;
}
/// Micro-block kernels on the pipelined kernel: 8-byte micro-block rows for 1-2 byte
/// elements (no loads held in registers: the u8 gather fits them at 3 blocks per SM,
/// where its unpipelined kernel spilled and took 4-byte rows); blocks per SM as the
/// shared memory allows: 3 (gather), 4 (scatter).
/// (4-8 byte elements: 16-byte rows, best_pipe_micro_width_for.)
constexpr int best_pipe_micro_width = 8;
constexpr int best_pipe_micro_min_blocks(bool gather) { return gather ? 3 : 4; }
/// Widest element of the pipelined micro-block kernels (slab_gather_micro_pipe,
/// slab_scatter_micro_pipe, slab_scatter_micro_halo): 4-8 byte elements take them through
/// best_pipe_wide_fits only. Their micro-block rows: one 16-byte chunk of k = 16/E rows
/// (4 x 4 words or 2 x 2 pairs: register renaming only).
constexpr int best_pipe_micro_max_elem = 8;
constexpr int best_pipe_micro_width_for(int elem_size) { return elem_size >= 4 ? 16 : best_pipe_micro_width; }

/// Halo scatters (slab_scatter_micro_halo, slab_scatter_pipe_halo; best_pipe.cuh with
/// H): pipelined scatter slabs to output rows that are not 16-byte aligned also load
/// the next slab's first 16/E positions, so each owns the aligned output chunks that
/// start in its segments and stores them whole, instead of two ragged chunks per
/// segment written in pieces by two blocks. On: it won every u8 / f16 micro-block and
/// grouped pipelined scatter to odd HW side by side (docs/RESULTS.md "Session 5", call
/// 3); best_next runs the kernels without it.
constexpr bool best_scatter_halo_default = true;
/// Scatter route r (slab_scatter_micro or slab_scatter_pipe) under the flag: its halo
/// kernel where the halo switch has the flag take it, 1-2 byte elements, output rows not
/// all 16-byte aligned.
constexpr best_path best_halo_route(best_path r, int elem_size, bool candidate, bool out_aligned) {
  if (!best_route_on(best_scatter_halo_default, candidate) || elem_size > best_pipe_max_elem || out_aligned) return r;
  return r == best_path::slab_scatter_micro  ? best_path::slab_scatter_micro_halo
         : r == best_path::slab_scatter_pipe ? best_path::slab_scatter_pipe_halo
                                             : r;
}

/// Slab length (long-side elements, a multiple of k = 16/E) of a pipelined launch of
/// `resident` blocks over `batch` matrices of long side L, from the table's span0: the
/// shortest multiple of k that keeps the rounds of slabs per block (ceil(slabs /
/// resident)) what span0 gives, so that the last round is as full as the matrices allow
/// instead of a few blocks streaming alone (a 32 MiB call is 5-8 rounds). Never longer
/// than span0 (the shared memory is sized for it).
constexpr long long best_pipe_span(long long span0, long long L, long long batch, long long resident, long long k) {
  if (span0 >= L || resident < 1 || batch < 1) return span0;
  const long long slabs = batch * ((L + span0 - 1) / span0);
  const long long rounds = (slabs + resident - 1) / resident;
  const long long per_mat = rounds * resident / batch;  // slabs per matrix that fit the rounds
  if (per_mat < 1) return span0;
  const long long span = ((L + per_mat - 1) / per_mat + k - 1) / k * k;
  return span < span0 ? span : span0;
}

/// Spans of the pipelined micro-block scatters to aligned output rows (slab_scatter_micro_pipe) in
/// whole 64-byte units (switch best_scatter_span64_default; true: `best` takes them, `best_next` the
/// spans of before): best_pipe_span's span rounded down to a multiple of 64 bytes per output row
/// where that leaves at least one unit and the span is shorter than the row. Why: each slab writes
/// `span` bytes to every output row it touches; a span that is not a whole number of 64-byte
/// half-lines splits sectors between two blocks' slabs. Measured (session 11, GPU call 1, same-node
/// A/B against session 10's tree, three rounds, fractions of memcpy): u8 6x50176x96 0.831 -> 0.932,
/// f16 3x50176x96 0.829 -> 0.911, u8 5x50176x128 0.879 -> 0.902, f16 6x50176x48 0.887 -> 0.905; the
/// other micro_pipe rows of the HWxC and skinny classes within -0.012..+0.015. Not for the halo form
/// (slab_scatter_micro_halo, unaligned rows), where it lost: f16 2x50177x128 0.932 -> 0.761, u8
/// 13x50177x48 0.884 -> 0.744, and 0.02-0.06 on seven more rows. Tried, not kept (call 3): the
/// table's span rounded down first, then balanced in whole units (never more rounds than that
/// span): level on the median of the 14 micro_pipe rows (+0.01), f16 6x50176x48 0.896 -> 0.855 in
/// all three rounds.
constexpr bool best_scatter_span64_default = true;
/// The span (elements) of a micro-block scatter under the span switch (candidate flag): `span`
/// rounded down to a multiple of 64 / E elements where that leaves at least one unit; else span.
constexpr long long best_scatter_span64(long long span, int elem_size, bool candidate) {
  if (!best_route_on(best_scatter_span64_default, candidate) || elem_size > 8) return span;
  const long long unit = 64 / elem_size;
  return span > unit ? span / unit * unit : span;
}

/// The pipelined kernel's short side for a gather / scatter slab of short side s under
/// the `candidate` flag (0: none, or the route is off there). rows_aligned: every row of
/// the long side 16-byte aligned (gather: input rows; scatter: output rows). Gathers of 2
/// unaligned rows keep the grouped kernel (measured slower pipelined, same section: the
/// realigning pass costs about as much as the rest of the interleave).
constexpr int best_pipe_group_for(int elem_size, long long s, bool candidate, bool gather, bool rows_aligned = true) {
  if (!best_route_on(best_pipe_default, candidate) || elem_size > best_pipe_max_elem) return 0;
  if (!gather && !best_pipe_scatter_side(elem_size, s, rows_aligned)) return 0;
  if (gather && s == 2 && !rows_aligned) return 0;
  for (int g : best_pipe_sides)
    if (g == s) return g;
  return 0;
}

/// The pipelined grouped kernel's side that replaces micro-block gather route m (as
/// best_micro_route gives it where the pipelined routes are on) of short side s under the
/// flag (switch best_pipe_short_default): m unpipelined and a kernel for s; else 0.
constexpr int best_short_pipe_group(best_path m, int elem_size, long long s, bool candidate, bool rows_aligned) {
  if (!best_route_on(best_pipe_short_default, candidate) || m != best_path::slab_gather_micro) return 0;
  return best_pipe_group_for(elem_size, s, !best_pipe_default, true, rows_aligned);
}

/// Halo scatters of the other pipelined sides (switch best_halo_sides_default): 1-2 byte
/// scatters to output rows not all 16-byte aligned whose side the default policy keeps on
/// the unpipelined grouped kernel (not best_pipe_scatter_side) and is at least
/// best_halo_side_min (u8 12; f16 4, 12, 16), on the pipelined halo kernel of that side
/// (slab_scatter_pipe_halo). Sides 2 and 3 stay: there the halo kernel tied or lost
/// (docs/RESULTS.md "Session 6", call 1).
constexpr bool best_halo_sides_default = true;
constexpr long long best_halo_side_min = 4;
constexpr int best_halo_side(int elem_size, long long s, bool candidate, bool out_aligned) {
  if (!best_route_on(best_halo_sides_default, candidate) || elem_size > best_pipe_max_elem || out_aligned ||
      s < best_halo_side_min || best_pipe_scatter_side(elem_size, s, out_aligned))
    return 0;
  for (int g : best_pipe_sides)
    if (g == s) return g;
  return 0;
}

/// Direct scatters (slab_scatter_direct, best_direct.cuh; switch best_scatter_direct_default):
/// 1-2 byte scatters that the default policy runs on a grouped kernel go staging -> registers
/// -> output: no rows area, no write phase, the output rows' 16-byte phase by one shuffle and
/// window per chunk; best_scatter_direct_depth staging buffers. On where it won side by side
/// (GPU call of session 7, checkpoint 1, same run, best -> best_next): 16-byte aligned output
/// rows of u8 sides 4-6 (167x50176x4 0.849 -> 0.878, 133x50176x5 0.926 -> 0.937, 111x50176x6
/// 0.859 -> 0.902) and f16 sides 5-6 (66x50176x5 0.870 -> 0.890, 55x50176x6 0.787 -> 0.859).
/// It lost to unaligned rows (odd HW: 0.02-0.13 below the halo kernels), to sides 2, 3 and f16
/// 4 (the unpipelined grouped kernel: 0.05-0.08) and side 8 (0.03-0.04). best_next runs the
/// routes it replaced.
constexpr bool best_scatter_direct_default = true;
constexpr int best_scatter_direct_depth = 3;
constexpr bool best_scatter_direct_on(int elem_size, bool candidate) {
  return best_route_on(best_scatter_direct_default, candidate) && elem_size <= best_pipe_max_elem;
}
/// The sides and rows the direct switch takes (above): aligned output rows, u8 4-6, f16 5-6.
constexpr bool best_scatter_direct_fits(int elem_size, int side, bool out_aligned) {
  return out_aligned && side <= 6 && side >= (elem_size == 1 ? 4 : 5);
}
/// Register cap of the direct kernel as blocks per SM (its shared memory fits 4).
constexpr int best_scatter_direct_min_blocks(int side) { return side <= 4 ? 4 : 3; }
/// The direct kernel's side for scatter route r of group g (as the policy without the
/// direct routes takes it) to output rows all aligned or not, or 0: best_scatter_direct_fits.
constexpr int best_scatter_direct_side(best_path r, int group, int elem_size, bool out_aligned) {
  const bool grouped = r == best_path::slab_scatter_pipe || r == best_path::slab_scatter_pipe_halo ||
                       r == best_path::slab_scatter;
  if (elem_size > best_pipe_max_elem || !grouped || group < 2) return 0;
  return best_scatter_direct_fits(elem_size, group, out_aligned) ? group : 0;
}

/// Direct scatters at two staging buffers (switch best_scatter_direct2_default; true: `best` takes
/// it, `best_next` the routes it replaced): the direct kernel (best_direct.cuh, one slab in flight
/// instead of two) at best_scatter_direct2_slab's size for the 1-2 byte scatter sides and rows where
/// the kernel-alone bench (best_bench --scatter, three rounds, docs/RESULTS.md "Session 10: HWxC
/// scatters") ran it >= 0.01 of memcpy above `best`'s route in every round: odd HW u8 2 (0.845 ->
/// 0.863) and 4 (0.825 -> 0.845), f16 2 (0.841 -> 0.905), 4 (0.860 -> 0.910) and 6 (0.857 -> 0.879);
/// aligned rows f16 6 (0.845 -> 0.937). Depth 3 (the direct route's) ran below depth 2 on every row
/// measured. Switched on in session 11 after session 10's final call ran it side by side on all six
/// rows (sweep --candidate: +0.02 to +0.08 of memcpy each).
constexpr bool best_scatter_direct2_default = true;
constexpr bool best_scatter_direct2_on(int elem_size, bool candidate) {
  return best_route_on(best_scatter_direct2_default, candidate) && elem_size <= best_pipe_max_elem;
}
/// Bytes per slab of the two-buffer direct kernel of (elem_size, side): one size per kernel (its
/// resident blocks are counted at it); 0: none.
constexpr int best_scatter_direct2_slab(int elem_size, long long side) {
  if (elem_size == 1) return side == 2 || side == 4 ? 16384 : 0;
  if (elem_size == 2) return side == 2 || side == 4 || side == 6 ? 24576 : 0;
  return 0;
}
/// Whether the two-buffer direct kernel takes a scatter of that side to output rows aligned or not.
constexpr bool best_scatter_direct2_takes(int elem_size, long long side, bool out_aligned) {
  return best_scatter_direct2_slab(elem_size, side) > 0 && (!out_aligned || (elem_size == 2 && side == 6));
}
/// The grouped scatter routes the two-buffer direct kernel replaces (its side: the route's group).
constexpr bool best_scatter_direct2_replaces(best_path p) {
  return p == best_path::slab_scatter || p == best_path::slab_scatter_pipe || p == best_path::slab_scatter_pipe_halo ||
         p == best_path::slab_scatter_direct;
}
/// The two-buffer direct kernel's staging buffers (best_choice::slab > 0; 0: the direct route's,
/// best_scatter_direct_depth).
constexpr int best_scatter_direct2_depth = 2;

/// Slab sizes of the 1-2 byte scatters to output rows off the 16-byte grid (odd HW; switch
/// best_scatter_slab_default): the halo scatters (slab_scatter_pipe_halo, slab_scatter_micro_halo)
/// and the unpipelined grouped scatter of sides 2-3 (slab_scatter, moved to the halo kernel) at the
/// bytes per slab of best_scatter_slab_table instead of the class table's. Why: those kernels are
/// instruction and latency bound, about 30 us a call; their speed moves by up to 0.07 of memcpy
/// with the slab size, not monotonically, per element size and side (docs/RESULTS.md "Session 9",
/// scatter slab sizes). On: every entry beat main's kernel by >= 0.01 of memcpy in each of three
/// rounds of the kernel-alone bench (session 9's call 2); `best_next` runs the class table's slabs.
constexpr bool best_scatter_slab_default = true;
constexpr bool best_scatter_slab_on(int elem_size, bool candidate) {
  return best_route_on(best_scatter_slab_default, candidate) && elem_size <= best_pipe_max_elem;
}
/// Bytes per slab of kernel (elem_size, side) under the slab switch: micro, the micro-block halo
/// kernel for short side `side`; else the grouped halo kernel of that side (sides 2-3: in place of
/// the unpipelined grouped scatter) where pipelined, the unpipelined grouped scatter where not (no
/// entry won: best_bench --slab). 0: no entry (the class table's slab, the route it had). Entries:
/// the rows whose best size won by 0.01 of memcpy or more in each of the three rounds of the session 9
/// bench (docs/RESULTS.md "Session 9", scatter slab sizes).
constexpr int best_scatter_slab_table(int elem_size, long long side, bool pipelined, bool micro = false) {
  if (elem_size > best_pipe_max_elem || !pipelined) return 0;
  if (micro) return side == 96 ? 20480 : elem_size == 1 && (side == 48 || side == 128) ? 32768 : 0;
  if (elem_size != 1) return 0;
  return side == 2 ? 16384 : side == 5 ? 20480 : side == 3 || side == 6 || side == 24 ? 24576 : 0;
}
/// The route under the slab switch from b, the default flag's route for a 1-2 byte scatter of
/// `cols` columns: b's kernel (or, sides 2-3, the halo kernel of the side) with best_choice::slab
/// bytes per slab where best_scatter_slab_table has an entry; else slab 0 (b stands).
struct best_scatter_slab_pick {
  best_path path;
  int slab;
};
constexpr best_scatter_slab_pick best_scatter_slab_route(best_path p, int group, int elem_size, bool out_aligned,
                                                         long long cols, bool batched = true) {
  if (elem_size > best_pipe_max_elem || out_aligned) return {p, 0};
  if (p == best_path::slab_scatter_micro_halo) return {p, best_scatter_slab_table(elem_size, cols, true, true)};
  if (p == best_path::slab_scatter_pipe_halo && group >= 2) return {p, best_scatter_slab_table(elem_size, group, true)};
  if (p == best_path::slab_scatter && (group == 2 || group == 3)) {
    // (Batches only: the one-matrix u8 11184810 x 3 ran 0.964 unpipelined, 0.885 on the halo kernel
    // at 24 KiB in session 9's final sweep; the table's entries were measured on batches.)
    if (const int sb = batched ? best_scatter_slab_table(elem_size, group, true) : 0)
      return {best_path::slab_scatter_pipe_halo, sb};
    return {p, best_scatter_slab_table(elem_size, group, false)};
  }
  return {p, 0};
}

/// Shift gathers (slab_gather_micro_shift, slab_gather_pipe_shift; best_pipe.cuh with H
/// for gathers): 1-2 byte gathers whose input rows are not all 16-byte aligned (odd HW,
/// offset pointers, padded rows) load each segment's aligned cover chunks by cp.async
/// like the pipelined gathers, and the middle phase reads those raw rows shifted
/// (row_phase, ld_row_words) instead of a realigning shared pass first. On where the
/// side-by-side run measured them faster (docs/RESULTS.md "Session 6", shift gathers):
/// the pipelined grouped gathers and the 2-row grouped gather of up to
/// best_gather_shift_max_side rows, and the f16 micro-block gathers; u8 micro-block
/// gathers, sides 24 and 32 and aligned rows keep their routes (lost or tied there).
/// best_next runs the routes they replace.
constexpr bool best_gather_shift_default = true;
constexpr int best_gather_shift_max_side = 16;
constexpr int best_gather_shift_micro_elem = 2;  // (u8 micro-block gathers lost)
/// Load buffers of the shift kernels: 3 (two slabs in flight, in the shared memory that
/// the realigning kernels spent on their rows area) where the kernel's registers keep it
/// at as many blocks per SM as with 2 (u8 micro-block and 5-8, 24, 32 rows: ptxas, sm_90),
/// else 2 (one block more per SM); best.cu asks the occupancy of both at the first call.
constexpr int best_gather_shift_depth = 3;
constexpr bool best_gather_shift_on(int elem_size, bool candidate) {
  return best_route_on(best_gather_shift_default, candidate) && elem_size <= best_pipe_max_elem;
}
/// The u8 24-row shift gathers (switch best_gather_shift24_default; true: `best` takes them,
/// `best_next` the realigning kernel): u8 gathers of 24 rows off the 16-byte grid (odd HW, offset pointers) run the shift kernel
/// at best_gather_slab_for's 24 KiB slabs (2 load buffers, 3 blocks per SM) in place of the
/// realigning pipelined kernel (16 KiB: its rows area drops it to 2 blocks per SM at 24 KiB).
/// Why: best_bench --gather timed u8 27x24x50177 at 0.91 of memcpy on it, 0.82-0.84 on the
/// realigning kernel (docs/RESULTS.md "Session 9", larger gather slabs). sm_90+ (the slab's).
/// On: it won in all three side-by-side measurements of docs/RESULTS.md "Session 10", u8 gathers
/// below 0.85; `best_next` runs the routes it replaced.
constexpr bool best_gather_shift24_default = true;
constexpr int best_gather_shift24_side = 24;
constexpr bool best_gather_shift24_on(int elem_size, int cc, bool candidate) {
  return best_route_on(best_gather_shift24_default, candidate) && elem_size == 1 && cc >= 90;
}
/// The shift route for gather route r of group g that the policy without the shift routes
/// takes, or r itself; rows_aligned: every input row 16-byte aligned; side24: the u8 24-row
/// shift gathers on (best_gather_shift24_on).
constexpr best_path best_gather_shift_route(best_path r, int group, int elem_size, bool rows_aligned,
                                            bool side24 = false) {
  if (elem_size > best_pipe_max_elem || rows_aligned) return r;
  if (r == best_path::slab_gather_micro)
    return elem_size == best_gather_shift_micro_elem ? best_path::slab_gather_micro_shift : r;
  const bool wide = side24 && elem_size == 1 && group == best_gather_shift24_side;
  if ((r == best_path::slab_gather_pipe || (r == best_path::slab_gather && group == 2)) &&
      (group <= best_gather_shift_max_side || wide))
    return best_path::slab_gather_pipe_shift;
  return r;
}

// ---- the cp.async tile (best_async.cuh; routes tile_async, tile_async_batch) ----

/// A tile of async_tile_kernel: the tile_kernel geometry `t` and the tiles each block
/// owns (`tpb`, consecutive in the flat tile index, one cp.async group each).
struct best_async_tile {
  best_tile t;
  int tpb;
};

/// The async tile's constraints (async_tile_kernel static_asserts it; the CPU tests check
/// every table entry): 1, 2, 4 or 8-byte elements, whole load steps and micro-blocks per block,
/// RN = rows/k a power of two (async_slot's swizzle), at most 227 KiB of shared memory.
constexpr bool best_async_tile_valid(int elem_size, best_async_tile a) {
  const best_tile t = a.t;
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8) return false;
  if (t.chunks != 4 && t.chunks != 8 && t.chunks != 16) return false;
  if (t.micro_bytes != 4 && t.micro_bytes != 8 && t.micro_bytes != 16) return false;
  if (t.micro_bytes < elem_size || t.threads <= 0 || t.threads % t.chunks != 0 || a.tpb < 1 || a.tpb > 8) return false;
  const int k = 16 / elem_size, H = 16 / t.micro_bytes, RPS = t.threads / t.chunks, RN = t.rows / k;
  return t.rows % RPS == 0 && t.rows % k == 0 && RN > 0 && (RN & (RN - 1)) == 0 &&
         (a.tpb * RN * t.chunks * H) % t.threads == 0 && a.tpb * t.rows * t.chunks * 16 <= 227 * 1024;
}

/// Tiles of the async route: `batch` for batches of 33-64 x 33-64 one-byte matrices (one
/// matrix per 64 x 64-byte tile, 4 per block: 16 KiB contiguous on both sides), else the
/// half tile's geometry (128 x 256 bytes). Without register-staged loads the 1-byte
/// tile_kernel's cap of 2 blocks per SM (128 registers) goes away: 16 x 8-byte
/// micro-blocks at 64 registers, 4 blocks of 32 KiB (8 of 16 KiB) per SM. The geometry
/// that won `best_bench --async` (docs/RESULTS.md "Session 4": the 1-byte async tile;
/// 4-byte micro-block rows at 5 blocks per SM, 64- and 256-row tiles, 8 matrices per
/// block lost).
/// 2-byte elements (switch best_async_f16_default): the same bytes, 16-byte micro-block
/// rows (8 x 8 half-words), 2 matrices of 64 x 64 per batch block: measured once in
/// session 4 (docs/RESULTS.md "Session 4", the 1-byte async tile: "measured once, not
/// routed").
constexpr best_async_tile best_tile_async_for(int elem_size, bool batch) {
  if (elem_size == 2) return batch ? best_async_tile{{64, 8, 128, 16, 8}, 2} : best_async_tile{{128, 16, 256, 16, 4}, 1};
  return batch ? best_async_tile{{64, 4, 128, 8, 8}, 4} : best_async_tile{{128, 16, 256, 8, 4}, 1};
}

/// The pipelined async tile (async_pipe_kernel, route tile_async_pipe): a best_async_tile
/// group per stage, `stages` stages per resident block.
struct best_async_pipe {
  best_async_tile a;
  int stages;
};

constexpr int best_async_pipe_smem(best_async_pipe p) { return p.stages * p.a.tpb * p.a.t.rows * p.a.t.chunks * 16; }

/// The pipelined tile's constraints (async_pipe_kernel static_asserts it; the CPU tests
/// check every table entry): a valid async group per stage, 2-4 stages, at most 227 KiB.
constexpr bool best_async_pipe_valid(int elem_size, best_async_pipe p) {
  return best_async_tile_valid(elem_size, p.a) && p.stages >= 2 && p.stages <= 4 &&
         best_async_pipe_smem(p) <= 227 * 1024;
}

/// Geometry of tile_async_pipe (docs/RESULTS.md "Session 6", sq round 1: best_bench --sq,
/// three rounds, L2 flushed, same run): u8 matrices in 128-row x 128-byte tiles, three
/// stages, 4 blocks of 48 KiB per SM (0.950-0.958 of memcpy at 5760^2, against 0.917-0.932
/// for 128 x 256 bytes in two stages and 0.901-0.911 on the async tile); f16 matrices in
/// 128 x 128 tiles, two stages, 3 blocks of 64 KiB (4096^2: 0.955-0.962, async tile
/// 0.938-0.942); f16 64 x 64 batches 2 a group, two stages, 6 blocks of 32 KiB
/// (0.983-0.986, async batch tile 0.965-0.975). The u8 batch entry is not routed (equal to
/// the async batch tile). 70-76 registers (ptxas, sm_90, nvcc 13.0). 4-byte elements
/// (switch best_async_pipe_f32_default; matrices and batches alike): tile_kernel's 64-row
/// x 256-byte tile, three stages of 16 KiB, 4 blocks per SM (52 registers); of the five
/// geometries timed (docs/RESULTS.md "Session 7", best_bench --sqw) the best or within a
/// point of it at 32 MiB.
constexpr best_async_pipe best_tile_async_pipe_for(int elem_size, bool batch) {
  if (elem_size == 4) return best_async_pipe{{{64, 16, 256, 16, 4}, 1}, 3};
  if (batch) return elem_size == 1 ? best_async_pipe{{{64, 4, 128, 8, 6}, 4}, 2} : best_async_pipe{{{64, 8, 128, 16, 6}, 2}, 2};
  return elem_size == 1 ? best_async_pipe{{{128, 8, 128, 8, 6}, 1}, 3} : best_async_pipe{{{128, 16, 256, 16, 3}, 1}, 2};
}

/// Switch of the async routes (best_route_on): true, `best` takes them and `best_next`
/// the routes they replaced, for 1-byte aligned matrices of fewer than
/// best_half_max_tiles standard tiles (was tile_half, or tile) and 33-64 x 33-64 batches
/// (was slab_whole_micro): faster on both in two same-run comparisons (docs/RESULTS.md
/// "Session 4": the 1-byte async tile). Larger matrices keep the 256-row register tile,
/// which beat every async geometry tried at 16384^2. false: only `best_next` takes them.
constexpr bool best_async_default = true;

/// The realigning async tile (async_realign_kernel, route realign_async): 4-byte
/// micro-block rows (the shared reads shift by words), one output row segment per warp
/// (H * RN = 32 lanes: store_realigned's shuffle), row blocks RN <= 8 (the row-block
/// shift of async_realign_row_word), at most one cover chunk per thread besides its own
/// (rows <= threads).
constexpr bool best_async_realign_valid(int elem_size, best_tile t) {
  if ((elem_size != 1 && elem_size != 2) || t.micro_bytes != 4 || t.chunks <= 0 || t.threads <= 0) return false;
  if (t.threads % t.chunks != 0) return false;
  const int k = 16 / elem_size, RPS = t.threads / t.chunks, RN = t.rows / k;
  return t.rows % RPS == 0 && t.rows % k == 0 && t.rows <= t.threads && RN * 4 == 32 &&
         (RN * t.chunks * 4) % t.threads == 0;
}

/// Shared bytes of a realigning async tile: rows of chunks + 1 chunks and 7 chunks of row-block shift.
constexpr int best_async_realign_smem(best_tile t) { return (t.rows * (t.chunks + 1) + 7) * 16; }

/// Tiles of realign_async: output row segments of 128 bytes (8 row blocks of 16 bytes),
/// 256-byte input rows; 8 (E = 1) / 4 (E = 2) cover chunks per thread in flight (128-byte
/// input rows lost: docs/RESULTS.md "Session 4", the async realigning tile).
constexpr best_tile best_tile_async_realign_for(int elem_size) {
  return elem_size == 1 ? best_tile{128, 16, 256, 4, 5} : best_tile{64, 16, 256, 4, 6};
}

/// Switch of realign_async (best_route_on; true: `best` takes it, `best_next` the
/// realigning tile it replaced): 1-2 byte element-aligned layouts whose output rows are
/// 16-byte aligned (there the realigning tile ran, best_skew_wins), where it was faster
/// in two same-run comparisons. Output rows not aligned keep realign_skew: realign_async
/// stores their segments with partial end chunks and lost there (docs/RESULTS.md
/// "Session 4", the async realigning tile). false: only `best_next` takes it.
constexpr bool best_async_realign_default = true;

/// Whether every output row (and batch) of d starts 16-byte aligned at out_addr.
constexpr bool best_out_rows_aligned(const matrix_desc& d, unsigned long long out_addr) {
  const long long E = d.elem_size;
  auto a16 = [](unsigned long long x) {  // x % 16 == 0 (best_align16 below, not yet declared)
    return (x & 15u) == 0;
  };
  return a16(out_addr) && a16(static_cast<unsigned long long>(d.ld_out * E)) &&
         (d.batch <= 1 || a16(static_cast<unsigned long long>(d.stride_out * E)));
}

/// The same for every input row.
constexpr bool best_in_rows_aligned(const matrix_desc& d, unsigned long long in_addr) {
  matrix_desc t = d;  // the input's rows as an output's: pointer, leading dimension, batch stride
  t.ld_out = d.ld_in, t.stride_out = d.stride_in;
  return best_out_rows_aligned(t, in_addr);
}

/// p, or the two-buffer direct route where best_scatter_direct2_default has `candidate` take d in
/// place of p, a grouped scatter route of side d.cols (the tests assert routes through it).
constexpr best_path best_scatter_direct2_or(best_path p, const matrix_desc& d, unsigned long long out_addr,
                                            bool candidate) {
  return best_scatter_direct2_replaces(p) && best_scatter_direct2_on(d.elem_size, candidate) &&
                 best_scatter_direct2_takes(d.elem_size, d.cols, best_out_rows_aligned(d, out_addr))
             ? best_path::slab_scatter_direct
             : p;
}

/// Lean form of the pipelined grouped gathers (switch best_gather_lean_default; true: `best` takes
/// it, `best_next` the plain form; same routes, slab_gather_pipe / slab_gather_pipe_shift, pipe_kernel's A):
/// where the packed output of some matrix starts off the 16-byte grid (odd HW) or the input
/// rows are off it (best_gather_lean_fits), the slab boundaries of each matrix move back by
/// up to 16/E - 1 positions so that every slab but a matrix's first stores whole staging
/// chunks (slab::align_out_slabs; the write phase's windows cost as many instructions as the
/// middle phase's), and the shift gathers' row windows branch on their word offset instead of
/// selecting. Why: the odd-HW shift gathers issued at the aligned kernels' rate but ran 1.4x
/// their instructions (ncu, u8 111x6x50177 against 111x6x50176; docs/RESULTS.md "Session 8",
/// lean gathers). On for rows of at most best_gather_lean_max_bytes per position (u8 sides 2-12,
/// f16 2-6): side by side in GPU call 2 (docs/RESULTS.md "Session 8") those odd-HW gathers ran
/// 4-11% faster (u8 111x6x50177 0.788 -> 0.870, f16 55x6x50177 0.840 -> 0.932); wider rows tied
/// or lost (u8 16 rows 0.922 -> 0.872, f16 8 rows 0.913 -> 0.901). `best_next` runs the old form.
constexpr bool best_gather_lean_default = true;
constexpr long long best_gather_lean_max_bytes = 12;
constexpr bool best_gather_lean_on(int elem_size, bool candidate) {
  return best_route_on(best_gather_lean_default, candidate) && elem_size <= best_pipe_max_elem;
}
/// The gather kernels that have a lean form: of sides of at most best_gather_lean_max_bytes, the
/// shift kernels and the realigning pipelined kernels of the sides without one (above
/// best_gather_shift_max_side; none at 12 bytes). (The realigning kernels of the shift sides run
/// aligned input rows only, and their u8 / f16 8-row form spilled.)
constexpr bool best_gather_lean_kernel(int elem_size, bool shift, int group) {
  return group * elem_size <= best_gather_lean_max_bytes && (shift || group > best_gather_shift_max_side);
}
/// Whether a grouped pipelined gather of d has anything for the lean form to change: input
/// rows off the 16-byte grid, or a matrix's packed output (aligned rows elsewhere: the kernels
/// best runs, unchanged).
constexpr bool best_gather_lean_fits(const matrix_desc& d, unsigned long long in_addr, unsigned long long out_addr) {
  if (d.rows * d.elem_size > best_gather_lean_max_bytes) return false;
  return !best_in_rows_aligned(d, in_addr) || out_addr % 16 != 0 ||
         (d.batch > 1 && (d.stride_out * d.elem_size) % 16 != 0);
}

/// Larger slabs for the u8 pipelined grouped gathers (switch best_gather_slab_default; `best_next`
/// runs the table's slabs): sides of best_gather_slab_min_side to _max_side rows stream slabs
/// of best_gather_slab_bytes instead of the table's, where their blocks still fit as many per SM
/// as their registers allow (3, best_pipe_min_blocks): the shift kernels (2 load buffers) and the
/// plain kernels with aligned input rows (no rows area of their own; the realigning ones, 4 areas,
/// would drop to 2). Why: held to 3 blocks per SM by registers, they leave shared memory for more
/// bytes in flight per block; the halo scatter of 24 u8 columns ran 0.923 of memcpy at 24 KiB
/// slabs against 0.836 at 16 KiB (docs/RESULTS.md "Session 8", GPU call 2, sc8). Same kernels,
/// same route names. sm_90+ only (sm_80's 164 KiB a multiprocessor holds 2 such blocks). On:
/// side by side (docs/RESULTS.md "Session 9", larger gather slabs) u8 83x8x50177, 55x12x50176 and
/// 55x12x50177 ran 3-6% faster; the other sides' rows within +-1.7%.
constexpr bool best_gather_slab_default = true;
constexpr int best_gather_slab_bytes = 24576;
constexpr int best_gather_slab_min_side = 8;
constexpr int best_gather_slab_max_side = 24;  // (32 aligned rows: 384 bytes over a third of an SM)
/// The switch's slab for a pipelined kernel (grouped gather / scatter side `side`, 0: micro-block
/// or whole; shift: the gathers' shift kernel) of `table_bytes` in the table, for input rows all
/// 16-byte aligned or not: the larger slab where the switch applies, else the table's.
constexpr int best_gather_slab_for(int elem_size, bool gather, int side, int table_bytes, bool shift,
                                   bool rows_aligned) {
  return gather && elem_size == 1 && side >= best_gather_slab_min_side && side <= best_gather_slab_max_side &&
                 table_bytes < best_gather_slab_bytes && (shift || rows_aligned)
             ? best_gather_slab_bytes
             : table_bytes;
}
/// Slab bytes of that kernel under the flag on compute capability cc.
constexpr int best_pipe_slab_bytes(int elem_size, bool gather, int side, int table_bytes, bool shift,
                                   bool rows_aligned, bool candidate, int cc) {
  return best_route_on(best_gather_slab_default, candidate) && cc >= 90
             ? best_gather_slab_for(elem_size, gather, side, table_bytes, shift, rows_aligned)
             : table_bytes;
}

/// Whether a batch of small matrices takes tile_async_batch: 1-byte (2-byte: f16 = true),
/// 33-64 rows and columns (the 64 x 64 tile at least a quarter used), 16-byte accesses.
constexpr bool best_async_batch_fits(const matrix_desc& d, int access, bool f16 = false) {
  return (d.elem_size == 1 || (f16 && d.elem_size == 2)) && d.batch > 1 && access == 16 && d.rows > 32 &&
         d.rows <= 64 && d.cols > 32 && d.cols <= 64;
}

/// 2-byte elements on the async routes (switch best_async_f16_default; false: only
/// `best_next` takes them): 64 x 64 batches on the batch tile (in place of tile_narrow)
/// and aligned matrices of fewer than best_half_max_tiles tiles of 256 rows x 256 bytes
/// (the 1-byte tile_async range; in place of tile). Session 4's
/// one measurement: 4096 x 64 x 64 0.969 of memcpy against 0.945, 4096^2 0.945 against
/// 0.939 (docs/RESULTS.md "Session 4", the 1-byte async tile).
constexpr bool best_async_f16_default = false;
/// The pipelined async tile (switch best_async_pipe_default; true: `best` takes it,
/// `best_next` the routes it replaced) where it won side by side (docs/RESULTS.md
/// "Session 6", sq round 1, sweep --candidate: u8 5760^2 0.903 -> 0.929 on the first
/// geometry, f16 4096^2 0.947 -> 0.978, f16 4096 x 64 x 64 0.949 -> 0.991): 1-2 byte
/// aligned matrices of the async range (in place of tile_async / tile) and f16 33-64 x
/// 33-64 batches (in place of tile_narrow), of at least best_async_pipe_min_bytes (measured
/// at 32 MiB; 64 KiB f16 lost: 0.724 against 0.897 on the narrow tile). u8 batches keep
/// the async batch tile (0.961 against 0.959).
constexpr bool best_async_pipe_default = true;
constexpr long long best_async_pipe_min_bytes = 16ll << 20;
/// The pipelined async tile for 4-byte aligned matrices and batches that take the
/// standard tile and fill its 64 x 64 elements on both sides (squares, 64 x 64 batches,
/// larger matrices: where it was measured; 48-row gathers such as 3 x 48 x 50176 keep the
/// register tile; switch best_async_pipe_f32_default; true: `best` takes it, `best_next`
/// the tile) of best_async_pipe_min_bytes to best_async_pipe_f32_max_bytes. Side by side (docs/RESULTS.md
/// "Session 7", call 1; fractions of memcpy, three rounds, L2 flushed): 2880^2 0.946-0.961 ->
/// 0.963-0.967, 2048 x 64 x 64 0.949-0.951 -> 0.962-0.971, 4096^2 (64 MiB) equal, 8192^2
/// (256 MiB: 31 waves of the tile, where the pipeline's head and tail matter least) 0.945 ->
/// 0.90; 8-byte squares and 64 x 64 batches equal or 1-3 points slower (not routed).
constexpr bool best_async_pipe_f32_default = true;
constexpr long long best_async_pipe_f32_max_bytes = 64ll << 20;
/// Whether the pipelined tile's route takes a matrix (or batch) of `bytes` with E-byte elements.
constexpr bool best_async_pipe_fits(int elem_size, bool batch, long long bytes) {
  return bytes >= best_async_pipe_min_bytes && (elem_size == 2 || (elem_size == 1 && !batch));
}
/// Large f16 batches of 33-64 x 33-64 on the unpipelined cp.async batch tile (tile_async_batch, one
/// block per group of matrices, the u8 batches' route) instead of the pipelined one (switch
/// best_async_f16_big_default; true: `best` takes it from best_async_f16_big_min_bytes per buffer
/// up). Why: the pipelined tile's resident blocks stride over the call and lose at large calls.
/// Measured (session 11, GPU call 1, `xpose-bench --variants memcpy,best,best_next`, best_next =
/// the unpipelined tile at every size; fractions of memcpy, pipelined -> unpipelined): 64x64 x 4096
/// (32 MiB) 0.986 -> 0.972; x 10000 (78 MiB) 0.952 -> 0.960; x 16384 (128 MiB) 0.895 -> 0.952;
/// x 32768 (256 MiB) 0.866 -> 0.955; 40x64 x 52428 (256 MiB) 0.792 -> 0.900; 48x64 x 6000 (35 MiB)
/// 0.918 -> 0.934. `best_next` runs the unpipelined tile at every size (best_async_pipe_default and
/// best_async_f16_default flipped).
constexpr bool best_async_f16_big_default = true;
constexpr long long best_async_f16_big_min_bytes = 64ll << 20;
constexpr bool best_async_f16_big_fits(const matrix_desc& d, int access, bool candidate) {
  return best_route_on(best_async_f16_big_default, candidate) && d.elem_size == 2 &&
         best_async_batch_fits(d, access, true) && d.batch * d.rows * d.cols * 2 >= best_async_f16_big_min_bytes;
}

/// The route a micro-block path refines (slab_gather_micro -> slab_gather, ...); other
/// paths unchanged.
constexpr best_path best_path_base(best_path p) {
  return p == best_path::slab_gather_micro || p == best_path::slab_gather_pipe ||
                 p == best_path::slab_gather_micro_pipe || p == best_path::slab_interleave_gather ||
                 p == best_path::slab_gather_micro_shift || p == best_path::slab_gather_pipe_shift
             ? best_path::slab_gather
         : p == best_path::slab_scatter_micro || p == best_path::slab_scatter_pipe ||
                 p == best_path::slab_scatter_micro_pipe || p == best_path::slab_interleave_scatter ||
                 p == best_path::slab_scatter_micro_halo || p == best_path::slab_scatter_pipe_halo ||
                 p == best_path::slab_scatter_direct
             ? best_path::slab_scatter
         : p == best_path::slab_whole_micro || p == best_path::slab_whole_micro_pipe ? best_path::slab_whole
                                                                                   : p;
}

/// Micro-block slabs (slab_kernel with MW > 0, best_slab.cuh): gather (p =
/// slab_gather_micro) / scatter (slab_scatter_micro) slabs whose short side S is a
/// multiple of 16/E and at least this many elements, with every slab's packed side
/// 16-byte aligned, move the packed side as k x 16-byte register micro-transposes
/// (k = 16/E rows per 16-byte chunk) instead of element by element. 0: off. Candidate
/// policy only. Thresholds from the first side-by-side run (docs/RESULTS.md "Shape
/// classes (issue 12)", third round): u8 gathers keep the grouped kernel at 32, f32
/// gathers the first-round kernel below 16, f32 scatters everywhere (they lost).
constexpr int best_slab_micro_min(int /*cc*/, int elem_size, bool candidate, best_path p) {
  if (!best_micro_on(candidate)) return 0;
  const bool gather = p == best_path::slab_gather_micro;
  switch (elem_size) {
    case 1: return gather ? 48 : 32;
    case 2: return 24;
    case 4: return gather ? 16 : 0;
    default: return 0;
  }
}

/// Whole-matrix micro-blocks (slab_whole_micro): batches of small packed matrices whose
/// sides are multiples of 16/E, both ranges 16-byte aligned, staged as swizzled chunks
/// and transposed through registers instead of placed element by element (1-byte
/// batches at 0.52 of memcpy: docs/RESULTS.md "Shape classes (issue 12)", second round).
/// Widest element of the whole-matrix micro-block route: 4-byte batches ran 0.81-0.85 of
/// memcpy on it against 0.86-0.87 on slab_whole in the final-tree side-by-side run
/// (docs/RESULTS.md "Session 3", call 2), so f32 keeps slab_whole.
constexpr int best_whole_micro_max_elem = 2;

constexpr bool best_slab_whole_micro(int /*cc*/, int elem_size, bool candidate) {
  return best_micro_on(candidate) && elem_size <= best_whole_micro_max_elem;
}

/// Micro-block kernel of a path (slab_gather_micro, slab_scatter_micro,
/// slab_whole_micro) and element size: bytes per micro-block row (registers: 16/E rows x
/// width) and the register cap as blocks per SM. Chosen from ptxas (sm_90, nvcc 13.0):
/// the widest rows that fit 3 blocks (u8 8-byte rows spilled at 3 in the gather, whose
/// read phase keeps 4 chunk pairs in flight, and in whole) and 4 for the scatter, whose
/// loads are the micro-blocks themselves. Not measured yet.
struct best_micro {
  int width;
  int min_blocks;
};
constexpr best_micro best_slab_micro_for(int elem_size, best_path p) {
  const int w = elem_size >= 4 ? 16 : 8;
  if (p == best_path::slab_scatter_micro) return {w, 4};
  return {elem_size == 1 ? 4 : w, 3};
}

/// Slab bytes of a micro-block scatter whose output segments are not 16-byte aligned:
/// each segment's two ragged end chunks (partial stores, shared with the neighbouring
/// slabs) are 2 of 9 chunks at 16 KiB and u8 C = 128; twice the span halves that share
/// (scatters to odd HW stayed at 0.60-0.78 against 0.81-0.85 aligned: "Shape classes
/// (issue 12)", third round; not measured yet). Blocks stay under 40 KiB of shared memory.
constexpr int best_slab_micro_ragged_bytes = 32768;
/// ... by element size: 4-byte elements (the route of best_f32_micro_scatter_fits only) 16 KiB,
/// where w9's kernel bench ran f32 13 x 50177 x 12 faster than at 32 KiB (docs/RESULTS.md "Session 9").
constexpr int best_slab_micro_ragged_bytes_for(int elem_size) {
  return elem_size == 4 ? 16384 : best_slab_micro_ragged_bytes;
}

/// Register-interleave slabs (slab_interleave_gather / _scatter, best_interleave.cuh):
/// 4- and 8-byte elements, a short side in best_interleave_sides, every
/// 16-byte unit aligned (input or output rows, the packed range, batch strides; the long
/// side may end in a partial unit). Switch: best_route_on(best_interleave_default, ..);
/// on: it won every aligned gather and every scatter up to 16 side by side (f32 gathers
/// 0.73-0.77 -> 0.92-0.98 of memcpy; docs/RESULTS.md "Session 4", channel shuffles of
/// 4-8 byte elements); best_next runs the slab kernels.
constexpr bool best_interleave_default = true;
/// Short sides with a kernel: every C up to 16 (one register rename per unit), then
/// multiples of 4 (rows in groups of 16/E).
constexpr int best_interleave_sides[] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 24, 28, 32};
constexpr bool best_interleave_side(long long s) {
  for (int c : best_interleave_sides)
    if (c == s) return true;
  return false;
}
/// Threads per block (one warp tile each) and units (16 bytes of each row) per lane:
/// one unit (C chunks in flight), two for C = 2 (bench/interleave_bench, session 4 GPU
/// call 3: fewer units per lane, more resident warps, ran 1-2% faster; 8 chunks per
/// lane and 4 tiles per warp slower).
/// (Short sides above 16 halve the block: its staging stays under 48 KiB.)
constexpr int best_interleave_threads(long long s) { return s > 16 ? 64 : 128; }
constexpr int best_interleave_units(long long s) { return s == 2 ? 2 : 1; }
/// Scatters only up to this short side: above it the slab kernels ran as fast or
/// faster (f32 5 x 50176 x 32: 0.822 of memcpy against 0.912; same run, call 3).
constexpr int best_interleave_scatter_max = 16;

/// Whether a gather (rows short, ld_out == rows) or scatter (cols short, ld_in == cols)
/// slab has every 16-byte boundary the aligned kernel needs: the rows side's pointer
/// and ld * E, the packed side's pointer, batch strides.
constexpr bool best_interleave_aligned(const matrix_desc& d, bool gather, unsigned long long in_addr,
                                       unsigned long long out_addr) {
  const auto a16 = [](unsigned long long x) { return x % 16 == 0; };
  // The rows side whole; the packed side's pointer and batch stride.
  const unsigned long long packed_stride =
      static_cast<unsigned long long>((gather ? d.stride_out : d.stride_in) * d.elem_size);
  return (gather ? best_in_rows_aligned(d, in_addr) : best_out_rows_aligned(d, out_addr)) &&
         a16(gather ? out_addr : in_addr) && (d.batch <= 1 || a16(packed_stride));
}

/// Gathers at any element-aligned layout (rows not a multiple of 16 bytes, HW = 50177;
/// pointers offset by elements): the realigning form of the gather kernel. Switch of its
/// own, so that the side-by-side run separates it from the aligned kernel. Its first form
/// (two loads per row unit) lost to the slab kernels on every HW = 50177 gather; the
/// shuffle form (each row's second chunk from the next lane) won up to side 16
/// (docs/RESULTS.md "Session 4", final tree and review; "Session 5"); above side 16
/// (8-byte C = 24, 32, HW = 50177) it lost, hence best_interleave_realign_max.
constexpr bool best_interleave_realign_default = true;
constexpr int best_interleave_realign_max = 16;

/// Whether the register-interleave kernel takes a gather / scatter slab under `candidate`
/// (aligned layouts: switch best_interleave_default; realigned gathers: its own switch).
constexpr bool best_interleave_fits(const matrix_desc& d, bool gather, unsigned long long in_addr,
                                    unsigned long long out_addr, bool candidate) {
  const long long E = d.elem_size, s = gather ? d.rows : d.cols;
  if ((E != 4 && E != 8) || !best_interleave_side(s) || (!gather && s > best_interleave_scatter_max)) return false;
  if (best_interleave_aligned(d, gather, in_addr, out_addr)) return best_route_on(best_interleave_default, candidate);
  return gather && s <= best_interleave_realign_max && best_route_on(best_interleave_realign_default, candidate) &&
         in_addr % E == 0 && out_addr % E == 0;
}

/// Slab paths only where the long side is at least this many times the short side.
constexpr long long best_slab_min_aspect = 4;

/// Small transposes (tiny, or few slabs) take smaller slabs so that the work spreads
/// over at least this many blocks, down to best_slab_min_bytes per slab: a tiny call
/// then costs about one round trip per block (docs/RESULTS.md, "Shape classes
/// (issue 12)", tiny in a graph).
constexpr long long best_slab_min_blocks = 256;
constexpr int best_slab_min_bytes = 2048;

/// Bytes per slab for a transpose of `total_bytes` under table entry p.
constexpr int best_slab_bytes_for(const best_class_policy& p, long long total_bytes) {
  const long long spread = total_bytes / best_slab_min_blocks;
  return spread >= p.slab_bytes ? p.slab_bytes
                                : spread <= best_slab_min_bytes ? best_slab_min_bytes : static_cast<int>(spread);
}

/// Threads per slab block and 16-byte load items each keeps in flight.
constexpr int best_slab_threads = 256;
constexpr int best_slab_unroll = 4;

/// Candidate policy only: rows not a multiple of 16 bytes take the skewed realigning
/// tile (best_skew.cuh) instead of best_realign.cuh's. false: the candidate keeps the
/// realigning tile.
constexpr bool best_skew_enabled = true;

/// Largest power of two <= 16 dividing x (16 for x == 0).
constexpr int best_align16(unsigned long long x) {
  if (x == 0) return 16;
  const unsigned long long low = x & (~x + 1);
  return low >= 16 ? 16 : static_cast<int>(low);
}

/// Candidate policy, element-aligned layouts: the skewed realigning tile or the
/// realigning tile (docs/RESULTS.md "Shape classes (issue 12)", third round: the skewed
/// tile won on every odd-row case except (a) 1-2 byte elements whose output rows are
/// already 16-byte aligned, where the realigning tile has no partial chunks to save
/// and skips the halo and the extra shared pass, and (b) row counts that the skewed
/// tile covers with more than 10% more padded rows than the realigning tile (128 rows
/// of f32: three 60-row tiles against two of 64)).
constexpr bool best_skew_wins(const matrix_desc& d, unsigned long long out_addr) {
  const long long E = d.elem_size;
  if (!best_skew_enabled || E > 8) return false;
  if (E <= 2 && best_out_rows_aligned(d, out_addr)) return false;
  const long long ts = best_tile_skew_for(d.elem_size).rows, tr = best_tile_realign_for(d.elem_size).rows;
  return (d.rows + ts - 1) / ts * ts * 10 <= (d.rows + tr - 1) / tr * tr * 11;
}

/// Where the cp.async skewed tile won (docs/RESULTS.md "Session 6", the cp.async skewed
/// tile): without the halo (output rows 16-byte aligned) for 1, 4 and 8-byte elements;
/// with it for 2-byte elements only. It lost to realign_skew with the halo for 1, 4 and
/// 8 bytes, and was within 2% below realign_async for aligned f16 output rows.
constexpr bool best_skew_async_fits(const matrix_desc& d, unsigned long long out_addr) {
  const bool aligned = best_out_rows_aligned(d, out_addr);
  return d.elem_size <= 8 && (d.elem_size == 2 ? !aligned : aligned);
}
/// The form best_skew_async_fits implies: the halo for 2-byte elements only (the only
/// form best.cu instantiates per element size).
constexpr bool best_skew_async_halo(int elem_size) { return elem_size == 2; }

// ---- element-aligned rows on the sector-aligned skewed tile (issue 12, branch odd) ----
/// Where output rows are not 16-byte aligned, realign_skew_sector: the cp.async skewed tile
/// whose owned output segments start on 32-byte L2 sectors (rho_c < 32/E: a halo of 32/E
/// rows), in taller 1-2 byte tiles (256 rows read: the halo a smaller part, segments of
/// 224 / 480 bytes). Switch true (after two side-by-side calls):
/// `best` takes them where best_skew_sector_fits, `best_next` the routes above (GPU calls 1
/// and 2 of session 7: the sector tiles u8 0.70 -> 0.75 / 0.74, f16 0.74 -> 0.80, the
/// register tile with sectors f32 / f64 unchanged; a diagonal tile walk lost 4-8%
/// everywhere).
constexpr bool best_skew_sector_default = true;
constexpr int best_skew_sector_bytes = 32;

/// Tiles of realign_skew_sector (rows owned; read: + 32/E halo rows). 1-2 bytes: 256 rows
/// read (halo 32 / 16 rows) by 512 threads, 2 blocks per SM (each thread's work as in
/// best_tile_skew_async_for's 128-row tile); 4-8 bytes: 64 rows read, 4 blocks per SM.
constexpr best_tile best_tile_skew_sector_for(int elem_size) {
  switch (elem_size) {
    case 1: return {224, 8, 512, 4, 2};
    case 2: return {240, 8, 512, 8, 2};  // (4-byte rows: 0.759 against 0.797, call 2)
    case 4: return {56, 16, 256, 16, 4};
    default: return {60, 16, 256, 16, 4};  // 8 bytes
  }
}
/// Where GPU call 2 measured them faster (docs/RESULTS.md, "Rows unaligned on both
/// sides"): the sector tile for elements of at most best_skew_sector_max_elem bytes whose
/// output rows are not all aligned (a words tile for aligned f16 rows lost: "Session 7").
/// best.cu instantiates only these.
constexpr int best_skew_sector_max_elem = 2;
/// Whether the sector switch takes an element-aligned layout (route realign_skew_sector).
constexpr bool best_skew_sector_fits(const matrix_desc& d, unsigned long long out_addr) {
  return !best_out_rows_aligned(d, out_addr) && d.elem_size <= best_skew_sector_max_elem;
}

// ---- 4-8 byte skewed tiles fitted to the matrix (issue 12, branch w9) ----
/// Switch best_skew_fit_default (true: `best` takes it, `best_next` the routes of before): where
/// `best` would run a 4-8 byte element-aligned layout on a skewed tile (realign_skew,
/// realign_skew_async) whose tiles pad the matrix by at least 10% more than the alternative tile
/// below, the alternative (best_skew_fit_path); 8-byte layouts on realign_skew take the half-width
/// tile everywhere (best_skew_fit_any_elem). The sweep's single 32-40 MiB matrices f32 1x50177x96
/// (64-column tiles over 96 columns) and f64 / c64 1x96x50177 (64-row tiles over 96 rows) ran
/// 0.82-0.85 of memcpy with half their tiles half empty (docs/RESULTS.md "Session 8", final call).
/// On: side by side (docs/RESULTS.md "Session 9", fitted skewed tiles) f32 1x50177x96 0.890 ->
/// 1.018, f64 / c64 1x50177x48 0.95-0.98 -> 1.07-1.10, f64 / c64 1x96x50177 0.85-0.88 -> 0.90-0.92.
constexpr bool best_skew_fit_default = true;
/// Elements whose realign_skew runs the half-width tile whatever it pads (best_bench --fit: f64
/// 2047x2051 0.929 -> 0.957, 50177x96 0.965 -> 0.991; f32 within +-1%, so 4-byte layouts take it only
/// where it pads less).
constexpr int best_skew_fit_any_elem = 8;
/// The register skewed tile's alternative (route realign_skew_fit): half the chunks and threads
/// of best_tile_skew_for, twice the blocks per SM (the same loads per thread).
constexpr best_tile best_tile_skew_fit_for(int elem_size) {
  const best_tile t = best_tile_skew_for(elem_size);
  return {t.rows, t.chunks / 2, t.threads / 2, t.micro_bytes, 2 * t.min_blocks};
}
/// The cp.async skewed tile's alternative without the halo (route realign_skew_async_fit):
/// 48 rows read in place of 64 (96 rows: two whole tiles, not a whole and a half one). For
/// 8-byte elements only (24 row blocks): the 4-byte tile's 12 row blocks put two cover reads
/// of a quarter warp on one bank (BestSkewAsync.CoverReadsFreeOfBankConflicts).
constexpr int best_skew_async_fit_elem = 8;
constexpr best_tile best_tile_skew_async_fit_for(int elem_size) {
  const best_tile t = best_tile_skew_async_for(elem_size, false);
  return {48, t.chunks, t.threads, t.micro_bytes, t.min_blocks};
}
/// Elements of one matrix a tiling of (tr owned rows) x (tc columns) covers, padding included.
constexpr long long best_tiled_area(const matrix_desc& d, long long tr, long long tc) {
  return (d.rows + tr - 1) / tr * tr * ((d.cols + tc - 1) / tc * tc);
}
/// Whether tile a pads d at least 10% less than tile b (both E-byte skewed tiles).
constexpr bool best_skew_pads_less(const matrix_desc& d, best_tile a, best_tile b) {
  const long long k = 16 / d.elem_size;
  return best_tiled_area(d, a.rows, a.chunks * k) * 10 <= best_tiled_area(d, b.rows, b.chunks * k) * 9;
}
/// The fitted form of the skewed route that `best` (the default flag's other switches) takes
/// for the 4-8 byte element-aligned layout d, or best_path::copy where it takes none or the
/// alternative tile does not pad d less (8 bytes on realign_skew: always the half-width tile;
/// 4-8 bytes: the class table's realign flag is set).
constexpr best_path best_skew_fit_path(const matrix_desc& d, unsigned long long out_addr) {
  if (d.elem_size != 4 && d.elem_size != 8) return best_path::copy;
  const int E = d.elem_size;
  if (best_route_on(best_skew_async_default, false) && best_skew_async_fits(d, out_addr))
    return E == best_skew_async_fit_elem && !best_skew_async_halo(E) &&
                   best_skew_pads_less(d, best_tile_skew_async_fit_for(E), best_tile_skew_async_for(E, false))
               ? best_path::realign_skew_async_fit
               : best_path::copy;
  if (best_route_on(best_skew_default, false) && best_skew_wins(d, out_addr))
    return E == best_skew_fit_any_elem || best_skew_pads_less(d, best_tile_skew_fit_for(E), best_tile_skew_for(E))
               ? best_path::realign_skew_fit
               : best_path::copy;
  return best_path::copy;
}
/// p, or the fitted skewed route where p is a realigning route of d (realign: under the flag
/// whose other switches are off; realign_skew, realign_skew_async: their fitted forms) and the
/// switch has `candidate` take d (the tests assert routes through it).
constexpr best_path best_skew_fit_or(best_path p, const matrix_desc& d, unsigned long long out_addr, bool candidate) {
  const best_path f = best_route_on(best_skew_fit_default, candidate) ? best_skew_fit_path(d, out_addr) : best_path::copy;
  const bool ours = p == best_path::realign || (p == best_path::realign_skew && f == best_path::realign_skew_fit) ||
                    (p == best_path::realign_skew_async && f == best_path::realign_skew_async_fit);
  return ours && f != best_path::copy ? f : p;
}

/// 4-8 byte slabs on the pipelined micro-block kernels (switch best_pipe_wide_default):
/// gathers and scatters of a short side above the register-interleave kernels' (> 16,
/// whole 16-byte chunks per position: f32 20-64, f64 / c64 18-32) with the packed side
/// 16-byte aligned, where the side-by-side run measured them faster (docs/RESULTS.md
/// "Session 6", 4-8 byte slabs): every layout whose rows (gather: input; scatter: output)
/// are not all 16-byte aligned (odd HW: the shifted gather, the halo scatter, in place of
/// the unpipelined micro-block gather, the slab gather and the element-by-element scatter);
/// with aligned rows only best_pipe_wide_aligned's cases. On: best_next runs the routes
/// they replaced.
constexpr bool best_pipe_wide_default = true;
constexpr long long best_pipe_wide_min_side = 17;
/// Aligned rows ("Session 6", 4-8 byte slabs): f32 gathers of 32 rows (the 32-row tile lost;
/// 48 and 64 rows kept the tile, 24 the interleave gather); 8-byte gathers of 24 rows and of
/// sides the interleave gather has no kernel for, or of rows a multiple of 512 KiB apart
/// (the interleave gather's power-of-two loss, "Session 5" call 2's probe; 32 rows of
/// 50176 kept it); f32 scatters of 256-byte positions (64 columns; 24-48 tied, 8-byte lost).
constexpr bool best_pipe_wide_aligned(long long E, bool gather, long long s, long long row_bytes) {
  if (!gather) return E == 4 && s * E >= 256;
  if (E == 4) return s == 32;
  return s == 24 || !best_interleave_side(s) || row_bytes % (512 * 1024) == 0;
}
/// The layouts the 4-8 byte pipelined micro-block kernels take (any row alignment): a short
/// side of whole 16-byte chunks from min_side up to the table's, the packed side aligned.
constexpr bool best_pipe_wide_layout(const matrix_desc& d, bool gather, unsigned long long in_addr,
                                     unsigned long long out_addr, long long min_side) {
  const long long E = d.elem_size, s = gather ? d.rows : d.cols;
  const best_class_policy p = best_class_policy_for(0, d.elem_size);
  if ((E != 4 && E != 8) || s < min_side || s > p.slab_max_short || s * E > p.slab_max_short_bytes || (s * E) % 16 != 0)
    return false;
  const unsigned long long packed = gather ? out_addr : in_addr;
  const auto packed_stride = static_cast<unsigned long long>((gather ? d.stride_out : d.stride_in) * E);
  return packed % 16 == 0 && (d.batch <= 1 || packed_stride % 16 == 0);
}
constexpr bool best_pipe_wide_fits(const matrix_desc& d, bool gather, unsigned long long in_addr,
                                   unsigned long long out_addr, bool candidate) {
  if (!best_route_on(best_pipe_wide_default, candidate) ||
      !best_pipe_wide_layout(d, gather, in_addr, out_addr, best_pipe_wide_min_side))
    return false;
  const long long E = d.elem_size, s = gather ? d.rows : d.cols;
  const bool rows_aligned = gather ? best_in_rows_aligned(d, in_addr) : best_out_rows_aligned(d, out_addr);
  return !rows_aligned || best_pipe_wide_aligned(E, gather, s, (gather ? d.ld_in : d.ld_out) * E);
}

/// f32 scatters of 8 and 16 columns (positions of 2 and 4 whole 16-byte chunks) to output
/// rows not all 16-byte aligned, on the halo micro-block scatter (switch
/// best_pipe_wide_small_default) in place of the element-by-element slab scatter: 20 x 50177
/// x 8 and 10 x 50177 x 16 ran 0.872 -> 0.939 and 0.824 -> 0.914 of memcpy side by side; 4
/// and 12 columns lost (0.892 -> 0.877, 0.874 -> 0.842; docs/RESULTS.md "Session 7"). 8-byte
/// elements keep slab_scatter (0.93-1.02 there). Second round: 0.862 -> 0.947, 0.837 ->
/// 0.913. On: `best_next` runs the slab scatter.
constexpr bool best_pipe_wide_small_default = true;
constexpr bool best_pipe_wide_small_fits(const matrix_desc& d, unsigned long long in_addr,
                                         unsigned long long out_addr, bool candidate) {
  return best_route_on(best_pipe_wide_small_default, candidate) && d.elem_size == 4 && (d.cols == 8 || d.cols == 16) &&
         best_pipe_wide_layout(d, false, in_addr, out_addr, 8) && !best_out_rows_aligned(d, out_addr);
}

/// f32 scatters of 12 columns (3 whole 16-byte chunks a position) to output rows not all 16-byte
/// aligned on the micro-block slab scatter (slab_scatter_micro, one block per slab, 16-byte
/// micro-block rows, best_slab_micro_ragged_bytes_for slabs; switch best_f32_micro_scatter_default)
/// in place of the element-by-element slab scatter: w9's kernel bench ran 13 x 50177 x 12 at
/// 0.940 / 0.926 against 0.907 / 0.913 (docs/RESULTS.md "Session 9", next steps; the halo micro-block
/// kernel lost on 12 columns in session 7). On: side by side 0.882 -> 0.913 (docs/RESULTS.md "Session
/// 10: HWxC scatters"); best_next runs the element kernel.
constexpr bool best_f32_micro_scatter_default = true;
constexpr bool best_f32_micro_scatter_fits(const matrix_desc& d, unsigned long long in_addr,
                                           unsigned long long out_addr, bool candidate) {
  return best_route_on(best_f32_micro_scatter_default, candidate) && d.elem_size == 4 && d.cols == 12 &&
         best_pipe_wide_layout(d, false, in_addr, out_addr, 12) && !best_out_rows_aligned(d, out_addr);
}

/// 4-8 byte batches of small packed matrices on the pipelined whole-matrix micro-block
/// kernel (slab_whole_micro_pipe, 16-byte micro-block rows; switch
/// best_pipe_whole_wide_default): both sides whole 16-byte chunks (16/E x 16/E element
/// blocks), both pointers aligned, matrices of at most best_pipe_whole_wide_max_bytes (8 KiB:
/// also the 32 x 32 8-byte batches that the table sends to the tile). On: it won or tied
/// every f32 / f64 / c64 8x8-32x32 batch side by side (docs/RESULTS.md "Session 6", 4-8 byte
/// slabs); best_next runs slab_whole / the tile. Not the matrices best_pipe_whole_wide_cap sends
/// to the few-rows tile.
constexpr bool best_pipe_whole_wide_default = true;
constexpr long long best_pipe_whole_wide_max_bytes = 8192;
/// Packed batches of 8-byte matrices of whole chunks, more than 4 KiB and at most 8 KiB,
/// that the few-rows tile's batch rule covers (<= 32 rows of <= 512 bytes: 32 x 32, 16 x 64),
/// on that tile instead of the pipelined whole-matrix kernel
/// (switch best_pipe_whole_wide_cap_default): 4096 x 32 x 32 f64 / c64 ran 1-3 points faster
/// on tile_few_rows in session 6's calls 2 and 3 than on slab_whole_micro_pipe in call 4
/// (docs/RESULTS.md "Session 6", call 4); side by side in session 7 (two rounds): f64 0.928 ->
/// 0.929, 0.939 -> 0.938; c64 0.912 -> 0.940, 0.962 -> 0.976. On: `best_next` runs the
/// whole-matrix kernel.
constexpr bool best_pipe_whole_wide_cap_default = true;
constexpr long long best_pipe_whole_wide_cap_bytes = 4096;
constexpr bool best_pipe_whole_wide_cap(const matrix_desc& d, unsigned long long in_addr, unsigned long long out_addr,
                                        bool candidate) {
  const long long E = d.elem_size, mat = d.rows * d.cols;
  return best_route_on(best_pipe_whole_wide_cap_default, candidate) && E == 8 && d.batch > 1 && d.ld_in == d.cols &&
         d.ld_out == d.rows && d.stride_in == mat && d.stride_out == mat && mat * E > best_pipe_whole_wide_cap_bytes &&
         mat * E <= best_pipe_whole_wide_max_bytes && d.rows <= 32 && d.cols * E <= 512 && (d.rows * E) % 16 == 0 &&
         (d.cols * E) % 16 == 0 && in_addr % 16 == 0 && out_addr % 16 == 0;
}
constexpr bool best_pipe_whole_wide_fits(const matrix_desc& d, unsigned long long in_addr, unsigned long long out_addr,
                                         bool candidate) {
  const long long E = d.elem_size, mat = d.rows * d.cols;
  return best_route_on(best_pipe_whole_wide_default, candidate) && (E == 4 || E == 8) && d.batch > 1 &&
         d.ld_in == d.cols && d.ld_out == d.rows && d.stride_in == mat && d.stride_out == mat && d.rows > 1 &&
         d.cols > 1 && (d.rows * E) % 16 == 0 && (d.cols * E) % 16 == 0 && mat * E <= best_pipe_whole_wide_max_bytes &&
         in_addr % 16 == 0 && out_addr % 16 == 0 && !best_pipe_whole_wide_cap(d, in_addr, out_addr, candidate);
}

/// The pipelined micro-block route of a 4-8 byte slab that best_pipe_wide_fits: gathers
/// slab_gather_micro_pipe, scatters slab_scatter_micro_pipe to aligned output rows, else
/// the halo kernel.
constexpr best_path best_pipe_wide_route(const matrix_desc& d, bool gather, unsigned long long out_addr) {
  return gather                                ? best_path::slab_gather_micro_pipe
         : best_out_rows_aligned(d, out_addr) ? best_path::slab_scatter_micro_pipe
                                              : best_path::slab_scatter_micro_halo;
}

// ---- the row-fitted tile (routes tile_fit, realign_fit; best.cu fit_path) ----

/// Row-fitted tile (switch best_fit_tile_default): 1-2 byte gathers of
/// best_fit_tile_min_rows..best_fit_tile_max_rows rows, at least best_slab_min_aspect
/// times as many columns, every output row 16-byte aligned, run a tile of their rows
/// (rounded up to best_fit_tile_step) x 256 bytes, whose output is whole aligned chunks.
/// Input rows off the 16-byte grid: the realigning tile (cover chunks, shuffle, funnel
/// shift; best_realign.cuh), its stores unshifted. On: it beat every route it replaced on
/// the sweep's 48-128 row gathers, 16 of 16 (u8 13x48x50176 0.727 -> 0.841 on tile_narrow's
/// place, f16 3x96x50176 0.785 -> 0.879); 16 and 32 rows lost or tied (u8 41x16 0.904 ->
/// 0.570: one-warp blocks), so they keep their routes (docs/RESULTS.md "Session 7", the
/// row-fitted tile). best_next runs the fitted tile's dense form (best_fit_dense_default).
constexpr bool best_fit_tile_default = true;
constexpr long long best_fit_tile_min_rows = 33;
constexpr long long best_fit_tile_max_rows = 128;
constexpr int best_fit_tile_step = 16;

/// Dense form of the fitted tile for 2-byte elements (switch best_fit_dense_default; false:
/// only `best_next` takes it): more blocks per SM where ptxas fits the kernel in fewer
/// registers without spilling (80-96 registers for aligned rows, 96 realigning; sm_90 and
/// sm_80). f16 only: session 7's call 2 measured it faster on 5 of 8 f16 rows (3x96x50177
/// 0.837 -> 0.921), and u8 48-row tiles on the realigning kernel slower (docs/RESULTS.md
/// "Session 7", the row-fitted tile, round 2). On: side by side in session 8's call 2 f16
/// 3x96x50177 0.855 -> 0.942, 3x96x50176 0.905 -> 0.932, the other f16 fitted rows within +-1.5%
/// (docs/RESULTS.md "Session 8"); `best_next` runs the plain form. Tiles of at most
/// best_fit_dense_max_rows rows: 128-row tiles ran slower dense in both runs that timed them (f16
/// 2x128x50177 0.950 -> 0.944 in session 8's call 2; 0.935 -> 0.889, two rounds each, in session 9's
/// same-node comparison of session 7's tree with this one), so they keep the plain form.
constexpr bool best_fit_dense_default = true;
constexpr int best_fit_dense_elem = 2;
constexpr int best_fit_dense_max_rows = 112;
/// Whether a fitted tile of tile_rows rows runs the dense form under the flag.
constexpr bool best_fit_dense_on(int elem_size, int tile_rows, bool candidate) {
  return best_route_on(best_fit_dense_default, candidate) && elem_size == best_fit_dense_elem &&
         tile_rows <= best_fit_dense_max_rows;
}
constexpr bool best_fit_tile_on(bool candidate) {
  return best_route_on(best_fit_tile_default, candidate) || best_route_on(best_fit_dense_default, candidate);
}

/// 4-8 byte gathers of 24 and 32 rows on the row-fitted tile (switch best_fit_wide_default):
/// aligned rows on both sides, at least best_slab_min_aspect times as many columns; a tile of
/// exactly their rows x 256 bytes (best_tile_fit_for: 2*rows threads of 8 loads; 32 rows: the
/// few-rows tile), whose stores are whole output rows of a warp's row blocks, in place of the
/// pipelined micro-block gather (64-byte pieces 512 bytes apart) and the interleave gather,
/// which ran 0.82-0.88 of memcpy on these rows (docs/RESULTS.md "Session 7", final call;
/// the 1-2 byte 32-row gathers on the same tile 0.93-0.97). On: side by side (docs/RESULTS.md
/// "Session 8", call 2) f32 32 x 262144 0.827 -> 0.960, f64 / c64 32 x 131072 0.82-0.83 -> 0.95,
/// 24-row gathers 0.83-0.87 -> 0.95-0.96; `best_next` takes the routes it replaced.
constexpr bool best_fit_wide_default = true;
constexpr long long best_fit_wide_min_rows = 24;
constexpr long long best_fit_wide_max_rows = 32;
constexpr int best_fit_wide_step = 8;
constexpr bool best_fit_wide_fits(const matrix_desc& d, unsigned long long in_addr, unsigned long long out_addr,
                                  bool candidate) {
  return best_route_on(best_fit_wide_default, candidate) && (d.elem_size == 4 || d.elem_size == 8) &&
         d.rows >= best_fit_wide_min_rows && d.rows <= best_fit_wide_max_rows && d.rows % best_fit_wide_step == 0 &&
         d.rows * best_slab_min_aspect <= d.cols && best_in_rows_aligned(d, in_addr) &&
         best_out_rows_aligned(d, out_addr);
}

/// Rows of the fitted tile of a gather of `rows` E-byte rows (u8: 112 on the 128-row tile:
/// the 112-row tile took 155 registers, one block per SM; ptxas sm_90; 4-8 bytes: multiples
/// of best_fit_wide_step).
constexpr int best_fit_tile_rows(int elem_size, long long rows) {
  const int step = elem_size >= 4 ? best_fit_wide_step : best_fit_tile_step;
  const int r = static_cast<int>((rows + step - 1) / step * step);
  return elem_size == 1 && r == 112 ? 128 : r;
}

/// Fitted tile of TR rows (a multiple of 16; 4-8 bytes: best_fit_wide_fits' 24 or 32): 16
/// chunks a row, 2*TR threads (8 loads and one 16-byte row's micro-blocks each). Blocks per SM
/// (__launch_bounds__): 512 threads per SM as the small tiles (64 registers a thread spilled 16-168 bytes, ptxas sm_90), 384 for u8 tiles
/// of 3, 5, 7 micro-block rows (they spilled 24-28 bytes at 512); the dense form (2-byte
/// elements): the most blocks that compiled without spills (ptxas sm_90, nvcc 13.0; rows 48-128).
/// u8 96 aligned rows: rows threads of 16 loads, 4 blocks per SM (best_bench --gather: 6x96x50176
/// 0.876 -> 0.929 of memcpy; the realigning form spilled 12 bytes at 4 blocks, ptxas sm_90;
/// docs/RESULTS.md "Session 9", larger gather slabs).
/// Deep form (deep: best_fit_deep_on) of the u8 fitted tiles of 48 aligned rows and 96 realigning
/// rows: rows threads of 16 loads (as the 96 aligned rows' tile); 6 blocks of 48 threads per SM
/// (8 spilled 60 bytes on sm_80), 5 of 96 realigning ones holding the chunk after each row's
/// cover in shared memory (best_realign.cuh XS; 4 blocks on sm_80; holding it in registers, 4
/// blocks spilled 12 bytes on sm_90; ptxas, nvcc 13.0). Why: best_bench --gather timed
/// 13x48x50176 at 0.87 of memcpy on 48 threads (8 blocks) against 0.84-0.85, 6x96x50177 at 0.86
/// on 96 threads (4 blocks, spilling) against 0.84 (docs/RESULTS.md "Session 9", larger gather
/// slabs). 96 realigning rows: sm_90+ (measured there). On: both won in all three side-by-side
/// measurements of docs/RESULTS.md "Session 10", u8 gathers below 0.85; `best_next` runs the
/// plain form.
constexpr bool best_fit_deep48_default = true;
constexpr bool best_fit_deep96r_default = true;
constexpr int best_fit_deep48_min_blocks = 6;
constexpr int best_fit_deep96r_min_blocks = 5;
constexpr bool best_fit_deep_on(int elem_size, int tile_rows, bool realign, int cc, bool candidate) {
  if (elem_size != 1) return false;
  if (tile_rows == 48 && !realign) return best_route_on(best_fit_deep48_default, candidate);
  return tile_rows == 96 && realign && cc >= 90 && best_route_on(best_fit_deep96r_default, candidate);
}
/// Shared bytes of a fitted tile t (deep: its deep form; realign: the realigning kernel, whose
/// deep form holds a chunk per row after the tile).
constexpr int best_fit_smem(best_tile t, bool realign, bool deep) {
  return t.rows * t.chunks * 16 + (realign && deep ? t.rows * 16 : 0);
}
constexpr best_tile best_tile_fit_for(int elem_size, int rows, bool realign, bool dense = false, bool deep_form = false) {
  deep_form = deep_form && elem_size == 1;
  const bool deep = deep_form || (elem_size == 1 && rows == 96 && !realign);
  const int nt = deep ? rows : 2 * rows, i = rows / 16 - 3;  // i: 48, 64, 80, 96, 112, 128 rows
  constexpr int f16_tile[6] = {6, 6, 4, 3, 2, 3}, f16_realign[6] = {6, 5, 4, 3, 2, 2};
  int mb = (elem_size == 1 && (rows & (rows - 1)) != 0 ? 384 : 512) / nt;
  if (deep_form) mb = realign ? best_fit_deep96r_min_blocks : best_fit_deep48_min_blocks;
  if (dense && elem_size == best_fit_dense_elem && i >= 0 && i < 6) mb = realign ? f16_realign[i] : f16_tile[i];
  return {rows, 16, nt, elem_size == 1 ? 8 : 16, mb < 1 ? 1 : mb};
}

/// The fitted-tile route of d (tile_fit where every input row is 16-byte aligned, else
/// realign_fit), or best_path::copy where it does not fit or its switch is off.
constexpr best_path best_fit_tile_route(const matrix_desc& d, unsigned long long in_addr, unsigned long long out_addr,
                                        bool candidate) {
  if (d.elem_size == 4 || d.elem_size == 8)
    return best_fit_wide_fits(d, in_addr, out_addr, candidate) ? best_path::tile_fit : best_path::copy;
  if (!best_fit_tile_on(candidate) || d.elem_size > 2 || d.rows < best_fit_tile_min_rows ||
      d.rows > best_fit_tile_max_rows || d.rows * best_slab_min_aspect > d.cols || !best_out_rows_aligned(d, out_addr))
    return best_path::copy;
  return best_in_rows_aligned(d, in_addr) ? best_path::tile_fit : best_path::realign_fit;
}

/// The fitted tile's route where it takes d under `candidate`, else p (the route the policy
/// takes there without it; the tests assert routes through it).
constexpr best_path best_fit_tile_or(best_path p, const matrix_desc& d, unsigned long long in_addr,
                                     unsigned long long out_addr, bool candidate) {
  const best_path f = best_fit_tile_route(d, in_addr, out_addr, candidate);
  return f != best_path::copy ? f : p;
}

/// What `best` runs for a validated, non-empty desc with input / output at the given
/// addresses: the path, the global access width (16, or the alignment for
/// tile_access) and, for slab_gather / slab_scatter, the grouped kernel's short side
/// (0: element by element). The one place where the decision is made: launch_best, the
/// tests and xpose-bench all call it.
struct best_choice {
  best_path path;
  int access;
  int group;
  int slab = 0;  ///< bytes per slab where best_scatter_slab_route sets them (0: the class table's)
};

/// The 1-2 byte scatter route under the direct switch (best_scatter_direct_on), from b, the
/// route the policy takes without it: the direct kernel for its sides, else b.
constexpr best_choice best_scatter_new_route(const best_choice& b, int elem_size, bool out_aligned) {
  if (const int g = best_scatter_direct_side(b.path, b.group, elem_size, out_aligned))
    return {best_path::slab_scatter_direct, 16, g};
  return b;
}

constexpr best_choice best_path_for(const matrix_desc& d, unsigned long long in_addr, unsigned long long out_addr,
                                    int cc = 90, bool candidate = false) {
  const long long E = d.elem_size;
  const bool batched = d.batch > 1;
  const long long mat = d.rows * d.cols;
  // A vector or a batch of vectors whose input and output layouts coincide.
  const bool packed_batch = !batched || (d.stride_in == mat && d.stride_out == mat);
  if (packed_batch && ((d.rows == 1 && (d.cols == 1 || d.ld_out == 1)) || (d.cols == 1 && d.ld_in == 1)))
    return {best_path::copy, 16, 0};

  int access = 16;
  const unsigned long long parts[6] = {in_addr, out_addr, static_cast<unsigned long long>(d.ld_in * E),
                                       static_cast<unsigned long long>(d.ld_out * E),
                                       static_cast<unsigned long long>(batched ? d.stride_in * E : 0),
                                       static_cast<unsigned long long>(batched ? d.stride_out * E : 0)};
  for (unsigned long long x : parts) access = access < best_align16(x) ? access : best_align16(x);

  const best_class_policy p = best_class_policy_for(cc, d.elem_size, candidate);
  // Tiny matrices: the narrow tile, several blocks (best_tiny_narrow_default, best_tiny_wide_default).
  if (best_tiny_narrow_on(d.elem_size, candidate) && access == 16 && best_tiny_call(d) && d.rows >= 64 &&
      d.cols * E >= 128)
    return {best_path::tile_narrow, 16, 0};
  // 1-2 byte 64 x 64 batches on the cp.async tile (switches best_async_default, f16:
  // best_async_f16_default; pipelined: best_async_pipe_default).
  const bool pipe_on = best_route_on(best_async_pipe_default, candidate);
  const bool async_on = E == 1 ? best_route_on(best_async_default, candidate)
                               : E == 2 && best_route_on(best_async_f16_default, candidate);
  const long long bytes = d.batch * d.rows * d.cols * E;
  // Large f16 batches on the unpipelined batch tile (switch best_async_f16_big_default).
  if (best_async_f16_big_fits(d, access, candidate)) return {best_path::tile_async_batch, 16, 0};
  if (pipe_on && best_async_batch_fits(d, access, true) && best_async_pipe_fits(d.elem_size, true, bytes))
    return {best_path::tile_async_pipe_batch, 16, 0};
  if (async_on && best_async_batch_fits(d, access, true)) return {best_path::tile_async_batch, 16, 0};
  // 8-byte matrices above 4 KiB on the few-rows tile (switch best_pipe_whole_wide_cap_default).
  if (best_pipe_whole_wide_cap(d, in_addr, out_addr, candidate)) return {best_path::tile_few_rows, 16, 0};
  // 4-8 byte batches on the pipelined whole-matrix kernel (switch best_pipe_whole_wide_default).
  if (best_pipe_whole_wide_fits(d, in_addr, out_addr, candidate)) return {best_path::slab_whole_micro_pipe, 16, 0};
  // Many small matrices, both sides packed: several whole matrices per block.
  if (batched && d.ld_in == d.cols && d.ld_out == d.rows && d.stride_in == mat && d.stride_out == mat &&
      mat * E <= p.whole_max_bytes && d.rows > 1 && d.cols > 1) {
    // Micro-blocks: rows of whole row pieces, output pieces of 16 bytes (or 8 with 8-byte
    // micro-block rows), both ranges aligned.
    const long long w = best_slab_micro_for(d.elem_size, best_path::slab_whole_micro).width;
    const bool pieces = (d.rows * E) % 16 == 0 || ((d.rows * E) % 8 == 0 && w <= 8);
    // The pipelined kernel (switch best_pipe_whole_default) where the micro route runs
    // under the default flag of the micro switch.
    const bool whole_pipe = best_route_on(best_pipe_whole_default, candidate) && E <= best_pipe_max_elem;
    if (best_slab_whole_micro(cc, d.elem_size, whole_pipe ? best_micro_candidate : candidate) && pieces &&
        (d.cols * E) % w == 0 && (mat * E) % 16 == 0 && best_align16(in_addr) == 16 && best_align16(out_addr) == 16)
      return {whole_pipe ? best_path::slab_whole_micro_pipe : best_path::slab_whole_micro, 16, 0};
    return {best_path::slab_whole, 16, 0};
  }
  // 1-2 byte gathers of 33-128 rows on the row-fitted tile (switch best_fit_tile_default).
  if (const best_path f = best_fit_tile_route(d, in_addr, out_addr, candidate); f != best_path::copy) return {f, 16, 0};
  // One short side with the other side packed: slabs, any alignment.
  auto short_ok = [&](long long s) { return s <= p.slab_max_short && s * E <= p.slab_max_short_bytes; };
  // The 1-2 byte small tiles cover 32 to 64 rows (best_shape_for).
  // (best_f32_rows_tile_default: 4-byte elements too, measured side by side.)
  const bool keep_rows = p.keep_few_rows_tile || (E == 4 && best_route_on(best_f32_rows_tile_default, candidate));
  const bool keep_tile = keep_rows && access == 16 && d.rows >= 32 && d.rows <= 64;
  // Near-square small matrices keep the tile (64 x 64 f32-c128 batches: "Fast path (best)").
  // Micro-block slabs: a short side of whole 16-byte chunks and an aligned packed side.
  // Where the pipelined route is on, the micro-block slabs follow the default policy's
  // switch (the side-by-side run then times the pipelined kernels alone).
  auto micro_flag = [](bool c) {
    return best_route_on(best_pipe_default, c) || best_route_on(best_pipe_micro_scatter_default, c) ? false : c;
  };
  // Gather input rows all 16-byte aligned (the pipelined micro-block gather needs no realigning pass).
  const bool rows_aligned = best_in_rows_aligned(d, in_addr);
  auto micro_ok = [&](best_path m, long long s, unsigned long long packed_addr, long long packed_stride, bool c) {
    const int micro_min = best_slab_micro_min(cc, d.elem_size, micro_flag(c), m);
    return micro_min > 0 && s >= micro_min && (s * E) % 16 == 0 && best_align16(packed_addr) == 16 &&
           (!batched || best_align16(static_cast<unsigned long long>(packed_stride * E)) == 16);
  };
  // 4-8 byte slabs of long short sides on the pipelined micro-block kernels (switch best_pipe_wide_default).
  const bool wide_gather = best_pipe_wide_fits(d, true, in_addr, out_addr, candidate);
  if (short_ok(d.rows) && d.rows * best_slab_min_aspect <= d.cols && d.ld_out == d.rows && (!keep_tile || wide_gather)) {
    if (wide_gather) return {best_pipe_wide_route(d, true, out_addr), 16, 0};
    auto gather_route = [&](bool c) -> best_choice {
      if (best_interleave_fits(d, true, in_addr, out_addr, c)) return {best_path::slab_interleave_gather, 16, 0};
      // Where the default policy runs the unpipelined micro-block gather: the pipelined
      // grouped kernel of that side, if any (switch best_pipe_short_default).
      if (best_route_on(best_pipe_short_default, c) &&
          micro_ok(best_path::slab_gather_micro, d.rows, out_addr, d.stride_out, best_micro_candidate))
        if (const int g = best_short_pipe_group(
                best_micro_route(best_path::slab_gather_micro, d.elem_size, !best_pipe_default, d.rows, rows_aligned),
                d.elem_size, d.rows, c, rows_aligned))
          return {best_path::slab_gather_pipe, 16, g};
      if (micro_ok(best_path::slab_gather_micro, d.rows, out_addr, d.stride_out, c))
        return {best_micro_route(best_path::slab_gather_micro, d.elem_size, c, d.rows, rows_aligned), 16, 0};
      if (const int g = best_pipe_group_for(d.elem_size, d.rows, c, true, rows_aligned))
        return {best_path::slab_gather_pipe, 16, g};
      return {best_path::slab_gather, 16, best_slab_group_for(best_class_policy_for(cc, d.elem_size, c), d.elem_size, d.rows)};
    };
    const best_choice g = gather_route(candidate);
    // Shift gathers (switch best_gather_shift_default) in place of the route the policy
    // takes without them (the default flag's other routes).
    if (!best_gather_shift_on(d.elem_size, candidate)) return g;
    const best_choice b = candidate ? gather_route(false) : g;
    const best_path s = best_gather_shift_route(b.path, b.group, d.elem_size, rows_aligned,
                                                best_gather_shift24_on(d.elem_size, cc, candidate));
    return s != b.path ? best_choice{s, 16, b.group} : g;
  }
  if (short_ok(d.cols) && d.cols * best_slab_min_aspect <= d.rows && d.ld_in == d.cols) {
    if (best_pipe_wide_fits(d, false, in_addr, out_addr, candidate)) return {best_pipe_wide_route(d, false, out_addr), 16, 0};
    // f32 8 and 16 columns to unaligned rows on the halo kernel (switch best_pipe_wide_small_default).
    if (best_pipe_wide_small_fits(d, in_addr, out_addr, candidate)) return {best_path::slab_scatter_micro_halo, 16, 0};
    // f32 12 columns to unaligned rows on the micro-block slab scatter (switch best_f32_micro_scatter_default).
    if (best_f32_micro_scatter_fits(d, in_addr, out_addr, candidate)) return {best_path::slab_scatter_micro, 16, 0};
    if (best_interleave_fits(d, false, in_addr, out_addr, candidate)) return {best_path::slab_interleave_scatter, 16, 0};
    const bool out_aligned = best_out_rows_aligned(d, out_addr);
    auto scatter_route = [&](bool c) -> best_choice {
      // Halo scatters: the micro-block and pipelined grouped scatters to unaligned rows.
      if (micro_ok(best_path::slab_scatter_micro, d.cols, in_addr, d.stride_in, c))
        return {best_halo_route(best_micro_route(best_path::slab_scatter_micro, d.elem_size, c, d.cols, out_aligned), E,
                                c, out_aligned),
                16, 0};
      if (const int g = best_pipe_group_for(d.elem_size, d.cols, c, false, out_aligned))
        return {best_halo_route(best_path::slab_scatter_pipe, E, c, out_aligned), 16, g};
      // Sides the default keeps unpipelined, to unaligned rows (switch best_halo_sides_default).
      if (const int g = best_halo_side(d.elem_size, d.cols, c, out_aligned)) return {best_path::slab_scatter_pipe_halo, 16, g};
      return {best_path::slab_scatter, 16, best_slab_group_for(best_class_policy_for(cc, d.elem_size, c), d.elem_size, d.cols)};
    };
    auto scatter_choice = [&](bool c) -> best_choice {
      const best_choice r = scatter_route(c);
      // The direct scatter (switch best_scatter_direct_default) in place of the route the policy
      // takes without it (the default flag's other routes).
      if (!best_scatter_direct_on(d.elem_size, c)) return r;
      const best_choice b = scatter_route(false);  // (the routes it replaces: the default flag's)
      const best_choice n = best_scatter_new_route(b, d.elem_size, out_aligned);
      return n.path != b.path ? n : r;
    };
    const best_choice r = scatter_choice(candidate);
    const best_choice b = candidate ? scatter_choice(false) : r;
    // The two-buffer direct kernel (switch best_scatter_direct2_default) in place of the default flag's
    // grouped route of its sides.
    if (best_scatter_direct2_on(d.elem_size, candidate) && b.group >= 2 && b.group == d.cols &&
        best_scatter_direct2_replaces(b.path) && best_scatter_direct2_takes(d.elem_size, b.group, out_aligned))
      return {best_path::slab_scatter_direct, 16, b.group, best_scatter_direct2_slab(d.elem_size, b.group)};
    // Scatters to unaligned rows at the slab table's sizes (switch best_scatter_slab_default), in
    // place of the route the policy takes without it (the default flag's).
    if (!best_scatter_slab_on(d.elem_size, candidate)) return r;
    const best_scatter_slab_pick k =
        best_scatter_slab_route(b.path, b.group, d.elem_size, out_aligned, d.cols, d.batch > 1);
    return k.slab > 0 ? best_choice{k.path, 16, b.group, k.slab} : r;
  }

  // 4-8 byte element-aligned layouts on the fitted skewed tiles (switch best_skew_fit_default).
  if (access < 16 && best_route_on(best_skew_fit_default, candidate))
    if (const best_path f = best_skew_fit_path(d, out_addr); f != best_path::copy) return {f, access, 0};
  // Element-aligned layouts on the sector-aligned skewed tiles (switch best_skew_sector_default).
  if (access < 16 && best_route_on(best_skew_sector_default, candidate) && best_skew_sector_fits(d, out_addr))
    return {best_path::realign_skew_sector, access, 0};
  // Element-aligned layouts on the cp.async skewed tile (switch best_skew_async_default).
  if (access < 16 && best_route_on(best_skew_async_default, candidate) && best_skew_async_fits(d, out_addr))
    return {best_path::realign_skew_async, access, 0};
  // 1-2 byte element-aligned layouts with aligned output rows on the async realigning
  // tile (switch best_async_realign_default).
  if (access < 16 && E <= 2 && best_route_on(best_async_realign_default, candidate) && best_out_rows_aligned(d, out_addr))
    return {best_path::realign_async, access, 0};
  // The skewed realigning tile where it measured faster (switch best_skew_default).
  if (access < 16 && p.realign && best_route_on(best_skew_default, candidate) && best_skew_wins(d, out_addr))
    return {best_path::realign_skew, access, 0};
  if (access < 16) return {p.realign ? best_path::realign : best_path::tile_access, access, 0};
  if (best_route_on(best_few_rows_wide_default, candidate) && (E == 4 || E == 8) && batched && d.rows <= 32 &&
      d.cols * E <= 512)
    return {best_path::tile_few_rows, 16, 0};
  switch (best_shape_for(d.elem_size, d.rows, d.cols)) {
    case best_shape::few_rows: return {best_path::tile_few_rows, 16, 0};
    case best_shape::narrow: return {best_path::tile_narrow, 16, 0};
    default: {
      // The half tile where 256-row tiles leave a mostly idle last wave: 5760^2 (529 tiles)
      // ran 0.79 of memcpy against 0.75, 8192^2 (1024 tiles) 0.892 against 0.935 (session 3).
      // (Tiles of 256 rows x 256 bytes: the 1-byte standard tile; the async routes' range.)
      const long long tiles = (d.rows + 255) / 256 * ((d.cols * E + 255) / 256) * d.batch;
      const bool half = best_route_on(best_half_default, candidate) && E == 1 && tiles < best_half_max_tiles;
      if (E <= 2 && tiles < best_half_max_tiles) {
        if (pipe_on && best_async_pipe_fits(d.elem_size, false, bytes)) return {best_path::tile_async_pipe, 16, 0};
        if (async_on) return {best_path::tile_async, 16, 0};
      }
      if (E == 4 && best_route_on(best_async_pipe_f32_default, candidate) && bytes >= best_async_pipe_min_bytes &&
          bytes <= best_async_pipe_f32_max_bytes && d.rows >= 64 && d.cols >= 64)
        return {best_path::tile_async_pipe, 16, 0};
      return {half ? best_path::tile_half : best_path::tile, 16, 0};
    }
  }
}

/// Whether best.cu runs d's route in the lean form under `candidate` (pipe_path_group: the
/// switch, best_gather_lean_fits and a lean kernel for the route's side).
constexpr bool best_gather_lean_takes(const matrix_desc& d, unsigned long long in_addr, unsigned long long out_addr,
                                      int cc, bool candidate) {
  if (!best_gather_lean_on(d.elem_size, candidate) || !best_gather_lean_fits(d, in_addr, out_addr)) return false;
  const best_choice o = best_path_for(d, in_addr, out_addr, cc, candidate);
  const bool shift = o.path == best_path::slab_gather_pipe_shift;
  return (shift || o.path == best_path::slab_gather_pipe) && best_gather_lean_kernel(d.elem_size, shift, o.group);
}

}  // namespace xpose::detail
