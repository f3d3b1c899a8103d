// Geometry of the 2-D fast path `best`'s kernels: tile structs and their validity checks (the
// kernels static_assert them; the CPU tests check every table entry), shared-memory sizes, the
// tables of tiles, micro-blocks and slab sides the kernels are instantiated for, and the route
// names. Which route a call takes: route_table.hpp. Measurements that chose the numbers:
// docs/RESULTS.md, "2-D: route measurements".
#pragma once

namespace xpose::detail {

// ---- route names ----

/// Every route `best` can take (route_table.hpp picks one per call).
enum class best_path : int {
  copy,                      ///< a vector whose layouts coincide: one cudaMemcpyAsync
  slab_gather,               ///< few rows, packed output (best_slab.cuh), grouped or element by element
  slab_scatter,              ///< few columns, packed input (best_slab.cuh)
  slab_whole,                ///< batch of small packed matrices, several per block (best_slab.cuh)
  tile,                      ///< 16-byte tile (best_kernels.cuh), standard geometry
  tile_few_rows,             ///< 16-byte tile, 32-row geometry
  tile_narrow,               ///< 16-byte tile, 128-byte-row geometry
  realign,                   ///< realigning tile (best_realign.cuh): element-aligned rows, 16-byte accesses
  slab_scatter_micro,        ///< slab_scatter, packed side through register micro-blocks
  realign_skew,              ///< skewed realigning tile (best_skew.cuh)
  slab_gather_pipe,          ///< grouped gather on resident blocks, next slab's loads in flight (best_pipe.cuh)
  slab_scatter_pipe,         ///< grouped scatter, the same
  slab_gather_micro_pipe,    ///< micro-block gather, the same
  slab_scatter_micro_pipe,   ///< micro-block scatter, the same
  tile_async,                ///< 16-byte tile, loads by cp.async (best_async.cuh)
  tile_async_batch,          ///< the same kernel, several 64 x 64 matrices per block
  realign_async,             ///< realigning tile, cover chunks by cp.async, shift on shared reads
  slab_interleave_gather,    ///< 4-8 byte gather by register interleave (best_interleave.cuh)
  slab_interleave_scatter,   ///< 4-8 byte scatter, the same
  slab_whole_micro_pipe,     ///< small matrices of whole chunks, micro-blocks, pipelined (best_pipe.cuh)
  slab_scatter_micro_halo,   ///< slab_scatter_micro_pipe with a halo: unaligned output rows as whole chunks
  slab_scatter_pipe_halo,    ///< slab_scatter_pipe, the same
  tile_async_pipe,           ///< tile_async on resident blocks, the next tiles' loads in flight
  tile_async_pipe_batch,     ///< tile_async_batch, the same
  slab_gather_pipe_shift,    ///< slab_gather_pipe reading raw (unaligned) rows shifted
  realign_skew_async,        ///< skewed tile with cp.async cover loads (best_skew.cuh)
  tile_fit,                  ///< 16-byte tile of a gather's rows (best_tile_fit_for)
  realign_fit,               ///< tile_fit for input rows off the 16-byte grid: the realigning tile
  slab_scatter_direct,       ///< 1-2 byte grouped scatter: staging -> registers -> output (best_direct.cuh)
  realign_skew_sector,       ///< realign_skew_async, owned output segments on 32-byte sectors, taller tiles
  realign_skew_fit,          ///< realign_skew on the half-width tile
  realign_skew_async_fit,    ///< 8-byte realign_skew_async on the 48-row tile
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
    case best_path::slab_scatter_micro: return "slab_scatter_micro";
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

// ---- the 16-byte tile and the realigning tile (best_kernels.cuh, best_realign.cuh) ----

/// A tile for E-byte elements: `rows` input rows x `chunks` 16-byte chunks per row
/// (chunks*16/E columns), `threads` per block.
struct best_tile {
  int rows;
  int chunks;
  int threads;
  int micro_bytes;  ///< bytes per row of a thread's register block: 16, or 8 (half the registers)
  int min_blocks;   ///< __launch_bounds__ minimum resident blocks per SM (caps registers)
};

constexpr bool operator==(const best_tile& a, const best_tile& b) {
  return a.rows == b.rows && a.chunks == b.chunks && a.threads == b.threads && a.micro_bytes == b.micro_bytes &&
         a.min_blocks == b.min_blocks;
}

/// A tile's geometric constraints (tile_kernel and realign_tile_kernel static_assert it).
/// k = 16/E rows per micro-block; RPS rows per load step; the realigning kernel's shuffle
/// groups (a tile row, an output row segment) lie inside one warp; out_aligned: its stores
/// are not shifted (no output row segment group).
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

/// The standard tile: every side at least 256 contiguous bytes, several 16-byte loads in
/// flight per thread before its first shared store ("2-D: the tile, one block per tile").
constexpr best_tile best_tile_for(int elem_size) {
  switch (elem_size) {
    case 1: return {256, 16, 256, 8, 2};   // 16 loads per thread, 16x8-byte register blocks (16x16 spilled)
    case 2: return {128, 16, 256, 16, 3};  // 8 loads per thread, 8x8 half-word micro-blocks
    case 4: return {64, 16, 256, 16, 4};   // 4 loads, 4x4 words (renaming only)
    case 8: return {64, 16, 256, 16, 4};   // 4 loads, 2 micro-blocks of 2x2 per thread
    default: return {32, 32, 256, 16, 4};  // 16-byte elements: 4 loads, 4 chunks per thread
  }
}

/// The small tiles ("2-D: small and narrow tiles for few rows"): 64 threads per block, many
/// blocks per SM. few_rows: 32 rows x 256 bytes; narrow: 64 rows x 128 bytes.
enum class best_shape { standard, few_rows, narrow };
constexpr best_tile best_tile_shaped(int elem_size, best_shape s) {
  if (s == best_shape::few_rows) return elem_size == 1 ? best_tile{32, 16, 64, 8, 8} : best_tile{32, 16, 64, 16, 8};
  if (s == best_shape::narrow) return elem_size == 1 ? best_tile{64, 8, 64, 8, 8} : best_tile{64, 8, 64, 16, 8};
  return best_tile_for(elem_size);
}

/// Tiny 4-8 byte calls: 32 rows x 128 bytes by 64 threads ("2-D: tiny calls and CUDA graphs").
constexpr best_tile best_tile_tiny_small_for(int /*elem_size*/) { return {32, 8, 64, 16, 8}; }

/// The realigning tile: tile_kernel's geometry with room for the extra chunk per row.
constexpr best_tile best_tile_realign_for(int elem_size) {
  switch (elem_size) {
    case 1: return {128, 16, 256, 8, 2};   // 8 loads (+8 neighbour chunks), 16x8-byte blocks
    case 2: return {128, 16, 256, 16, 2};  // 8 loads, 8x8 half-words
    case 4: return {64, 16, 256, 16, 3};   // 4 loads, 4x4 words
    default: return {64, 16, 256, 16, 3};  // 8 bytes: 4 loads, 2x2 blocks
  }
}

/// Blocks launched: one per tile up to this many (then the kernels' grid-stride loop).
constexpr long long best_grid_limit = 0x7fffffff;

// ---- the row-fitted tile (routes tile_fit, realign_fit; "2-D: row-fitted tiles") ----

constexpr long long best_fit_tile_min_rows = 33;  ///< 1-2 byte gathers of 33-128 rows
constexpr long long best_fit_tile_max_rows = 128;
constexpr int best_fit_tile_step = 16;
constexpr long long best_fit_wide_min_rows = 24;  ///< 4-8 byte gathers of 24 and 32 rows
constexpr long long best_fit_wide_max_rows = 32;
constexpr int best_fit_wide_step = 8;
constexpr int best_fit_dense_elem = 2;         ///< the dense form: 2-byte elements ...
constexpr int best_fit_dense_max_rows = 112;   ///< ... tiles of at most this many rows
constexpr int best_fit_deep48_min_blocks = 6;  ///< u8 deep form, 48 aligned rows
constexpr int best_fit_deep96r_min_blocks = 5; ///< u8 deep form, 96 realigning rows

/// Rows of the fitted tile of a gather of `rows` E-byte rows (u8 112 on the 128-row tile:
/// the 112-row tile took 155 registers).
constexpr int best_fit_tile_rows(int elem_size, long long rows) {
  const int step = elem_size >= 4 ? best_fit_wide_step : best_fit_tile_step;
  const int r = static_cast<int>((rows + step - 1) / step * step);
  return elem_size == 1 && r == 112 ? 128 : r;
}

/// Shared bytes of a fitted tile (the realigning kernel's deep form holds a chunk per row after it).
constexpr int best_fit_smem(best_tile t, bool realign, bool deep) {
  return t.rows * t.chunks * 16 + (realign && deep ? t.rows * 16 : 0);
}

/// Fitted tile of TR rows: 16 chunks a row, 2*TR threads (8 loads each); blocks per SM for 512
/// threads per SM (384 for u8 tiles of 3, 5, 7 micro-block rows: they spilled at 512). Dense
/// (2-byte elements): the most blocks that compiled without spills. Deep (u8 48 aligned, 96
/// realigning rows) and u8 96 aligned rows: TR threads of 16 loads.
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

// ---- skewed realigning tiles (best_skew.cuh; "2-D: skewed realigning tiles") ----

/// The register skewed tile: TR owned input rows (plus a halo of 16/E rows) x `chunks` chunks;
/// rows + halo whole load steps. 128 x 16 u8 chunks and 128 x 8 at 3 blocks per SM spilled.
constexpr best_tile best_tile_skew_for(int elem_size) {
  switch (elem_size) {
    case 1: return {112, 8, 256, 8, 3};    // 4 loads (+ neighbours), 32 KiB shared
    case 2: return {120, 16, 256, 16, 2};  // 8 loads, 64 KiB
    case 4: return {60, 16, 256, 16, 4};   // 4 loads, 32 KiB
    default: return {62, 16, 256, 16, 4};  // 8 bytes: 4 loads, 32 KiB
  }
}

/// Shared bytes of a skewed tile: the realigned input rows (TR + oa/E, chunks each) and the
/// transposed rows (chunks*16/E rows of (TR + oa/E)/(16/E) chunks).
constexpr int best_skew_smem(int elem_size, best_tile t, int oa = 16) {
  const int k = 16 / elem_size, ar = t.rows + oa / elem_size;
  return ar * t.chunks * 16 + t.chunks * k * (ar / k) * 16;
}

/// The skewed tile's constraints (skew_kernel static_asserts it): whole micro-blocks and load
/// steps, a row's lanes inside one warp, at most 227 KiB of shared memory. (4-byte micro-block
/// rows: the cp.async form only.)
constexpr bool best_skew_tile_valid(int elem_size, best_tile t) {
  if (elem_size <= 0 || elem_size > 8 || 16 % elem_size != 0 || t.chunks <= 0 || t.threads <= 0) return false;
  if (t.micro_bytes != 4 && t.micro_bytes != 8 && t.micro_bytes != 16) return false;
  if (t.micro_bytes < elem_size) return false;
  const int k = 16 / elem_size;
  return t.rows > 0 && t.rows % k == 0 && t.threads % t.chunks == 0 && t.threads % 32 == 0 && 32 % t.chunks == 0 &&
         best_skew_smem(elem_size, t) <= 227 * 1024;
}

/// Row blocks (k = 16/E rows) per chunk of shift in the cp.async skewed tile's cover layout:
/// the period of R*k*(chunks + 1) mod 8, so that 8 consecutive row blocks' chunk slots differ.
constexpr int best_skew_cover_period(int elem_size, int chunks) {
  const int m = (16 / elem_size * (chunks + 1)) % 8;
  return m == 0 ? 1 : m % 4 == 0 ? 2 : m % 2 == 0 ? 4 : 8;
}

/// Shared bytes of the cp.async skewed tile: `stages` buffers of the rows' aligned covers (plus
/// a chunk of shift per best_skew_cover_period row blocks) and the transposed rows.
constexpr int best_skew_async_smem(int elem_size, best_tile t, bool halo, int stages, int oa = 16) {
  const int k = 16 / elem_size, ar = t.rows + (halo ? oa / elem_size : 0);
  const int shift = (ar / k + best_skew_cover_period(elem_size, t.chunks) - 1) / best_skew_cover_period(elem_size, t.chunks);
  return stages * (ar * (t.chunks + 1) + shift) * 16 + t.chunks * k * (ar / k) * 16;
}

/// The cp.async skewed tile: rows read per tile (owned rows plus the halo where output rows
/// are not 16-byte aligned), 4 blocks per SM (5 spilled), two cover buffers.
constexpr int best_skew_async_stages = 2;
constexpr best_tile best_tile_skew_async_for(int elem_size, bool halo) {
  const int k = 16 / elem_size, h = halo ? k : 0;
  switch (elem_size) {
    case 1: return {128 - h, 8, 256, 4, 4};  // 4-byte micro-block rows: one micro-block per thread
    case 2: return {128 - h, 8, 256, 8, 4};
    default: return {64 - h, 16, 256, 16, 4};  // 4 and 8 bytes
  }
}

/// realign_skew_sector: owned output segments start on 32-byte sectors (a halo of 32/E rows);
/// 1-2 bytes: 256 rows read by 512 threads, 2 blocks per SM. Instantiated for 1-2 bytes.
constexpr int best_skew_sector_bytes = 32;
constexpr int best_skew_sector_max_elem = 2;
constexpr best_tile best_tile_skew_sector_for(int elem_size) {
  switch (elem_size) {
    case 1: return {224, 8, 512, 4, 2};
    case 2: return {240, 8, 512, 8, 2};
    case 4: return {56, 16, 256, 16, 4};
    default: return {60, 16, 256, 16, 4};  // 8 bytes
  }
}

/// realign_skew_fit: half the chunks and threads of best_tile_skew_for, twice the blocks per SM.
constexpr best_tile best_tile_skew_fit_for(int elem_size) {
  const best_tile t = best_tile_skew_for(elem_size);
  return {t.rows, t.chunks / 2, t.threads / 2, t.micro_bytes, 2 * t.min_blocks};
}

/// realign_skew_async_fit: 48 rows read in place of 64, 8-byte elements only (the 4-byte tile's
/// 12 row blocks put two cover reads of a quarter warp on one bank).
constexpr int best_skew_async_fit_elem = 8;
constexpr best_tile best_tile_skew_async_fit_for(int elem_size) {
  const best_tile t = best_tile_skew_async_for(elem_size, false);
  return {48, t.chunks, t.threads, t.micro_bytes, t.min_blocks};
}

/// Blocks of a resident tile walk: as many as fit (`resident`), fewer where that evens the
/// tiles per block, so that the last round has no few-block tail.
constexpr long long best_balanced_grid(long long total, long long resident) {
  if (total <= resident || resident <= 0) return total;
  const long long rounds = (total + resident - 1) / resident;
  return (total + rounds - 1) / rounds;
}

// ---- cp.async tiles (best_async.cuh; "2-D: cp.async tiles for squares and batches") ----

/// A tile of async_tile_kernel: tile_kernel geometry `t` and `tpb` tiles per block.
struct best_async_tile {
  best_tile t;
  int tpb;
};

/// The async tile's constraints: 1-8 byte elements, whole load steps and micro-blocks, RN =
/// rows/k a power of two (async_slot's swizzle), at most 227 KiB of shared memory.
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

/// Tiles of tile_async / tile_async_batch: batches of 33-64 x 33-64 matrices one per 64 x 64
/// tile, else 128 x 256 bytes.
constexpr best_async_tile best_tile_async_for(int elem_size, bool batch) {
  if (elem_size == 2) return batch ? best_async_tile{{64, 8, 128, 16, 8}, 2} : best_async_tile{{128, 16, 256, 16, 4}, 1};
  return batch ? best_async_tile{{64, 4, 128, 8, 8}, 4} : best_async_tile{{128, 16, 256, 8, 4}, 1};
}

/// The pipelined async tile: a best_async_tile group per stage.
struct best_async_pipe {
  best_async_tile a;
  int stages;
};
constexpr int best_async_pipe_smem(best_async_pipe p) { return p.stages * p.a.tpb * p.a.t.rows * p.a.t.chunks * 16; }
constexpr bool best_async_pipe_valid(int elem_size, best_async_pipe p) {
  return best_async_tile_valid(elem_size, p.a) && p.stages >= 2 && p.stages <= 4 &&
         best_async_pipe_smem(p) <= 227 * 1024;
}
/// Geometry of tile_async_pipe(_batch): u8 128 x 128-byte tiles, three stages; f16 128 x 128,
/// two stages; f16 64 x 64 batches 2 a group; f32 tile_kernel's 64-row x 256-byte tile, three
/// stages.
constexpr best_async_pipe best_tile_async_pipe_for(int elem_size, bool batch) {
  if (elem_size == 4) return best_async_pipe{{{64, 16, 256, 16, 4}, 1}, 3};
  if (batch) return elem_size == 1 ? best_async_pipe{{{64, 4, 128, 8, 6}, 4}, 2} : best_async_pipe{{{64, 8, 128, 16, 6}, 2}, 2};
  return elem_size == 1 ? best_async_pipe{{{128, 8, 128, 8, 6}, 1}, 3} : best_async_pipe{{{128, 16, 256, 16, 3}, 1}, 2};
}

/// The realigning async tile (async_realign_kernel): 4-byte micro-block rows, one output row
/// segment per warp (H * RN = 32 lanes), RN <= 8, at most one cover chunk per thread besides its own.
constexpr bool best_async_realign_valid(int elem_size, best_tile t) {
  if ((elem_size != 1 && elem_size != 2) || t.micro_bytes != 4 || t.chunks <= 0 || t.threads <= 0) return false;
  if (t.threads % t.chunks != 0) return false;
  const int k = 16 / elem_size, RPS = t.threads / t.chunks, RN = t.rows / k;
  return t.rows % RPS == 0 && t.rows % k == 0 && t.rows <= t.threads && RN * 4 == 32 &&
         (RN * t.chunks * 4) % t.threads == 0;
}
/// Shared bytes: rows of chunks + 1 chunks and 7 chunks of row-block shift.
constexpr int best_async_realign_smem(best_tile t) { return (t.rows * (t.chunks + 1) + 7) * 16; }
/// Output row segments of 128 bytes, 256-byte input rows.
constexpr best_tile best_tile_async_realign_for(int elem_size) {
  return elem_size == 1 ? best_tile{128, 16, 256, 4, 5} : best_tile{64, 16, 256, 4, 6};
}

// ---- slab kernels (best_slab.cuh, best_pipe.cuh, best_direct.cuh, best_interleave.cuh) ----

/// Threads per slab block and 16-byte load items each keeps in flight.
constexpr int best_slab_threads = 256;
constexpr int best_slab_unroll = 4;

/// Short sides with a grouped slab kernel (1-4 byte elements), its register cap as blocks per SM.
constexpr int best_slab_group_sides[] = {2, 3, 4, 5, 6, 8, 12, 16, 24, 32};
constexpr int best_slab_group_min_blocks = 2;

/// Micro-block slab kernels: bytes per micro-block row and blocks per SM (scatter: 4; whole
/// matrices: 3, u8 4-byte rows, whose 8-byte rows spilled at 3).
struct best_micro {
  int width;
  int min_blocks;
};
constexpr best_micro best_slab_micro_for(int elem_size, bool scatter) {
  const int w = elem_size >= 4 ? 16 : 8;
  if (scatter) return {w, 4};
  return {elem_size == 1 ? 4 : w, 3};
}

/// Pipelined slabs ("2-D: pipelined slabs"): grouped kernels of these short sides, 1-2 byte
/// elements; micro-block kernels up to 8-byte elements (rows of 8 bytes for 1-2 byte
/// elements, one 16-byte chunk for 4-8), 3 (gather) / 4 (scatter) blocks per SM.
constexpr int best_pipe_sides[] = {2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32};
constexpr int best_pipe_max_elem = 2;
constexpr int best_pipe_micro_max_elem = 8;
constexpr int best_pipe_micro_width = 8;
constexpr int best_pipe_micro_width_for(int elem_size) { return elem_size >= 4 ? 16 : best_pipe_micro_width; }
constexpr int best_pipe_micro_min_blocks(bool gather) { return gather ? 3 : 4; }

/// Register cap of a pipelined grouped kernel as blocks per SM: 3 (80 registers), 2 for the
/// u8 scatter of 8 columns, the f16 halo scatter of 8 and the f16 shift gather of 8 rows
/// (they spilled at 3).
constexpr int best_pipe_min_blocks(int elem_size, bool gather, int side, bool halo = false) {
  if (side != 8) return 3;
  return (gather ? elem_size == 2 && halo : elem_size == 1 || (elem_size == 2 && halo)) ? 2 : 3;
}

/// Shift gathers' load buffers: 3, or 2 where the occupancy query finds more blocks at 2.
constexpr int best_gather_shift_depth = 3;
/// Grouped gathers of sides up to this have a shift kernel (larger: the realigning one).
constexpr int best_gather_shift_max_side = 16;
/// The gather kernels with a lean form ("2-D: shift and lean gathers from unaligned rows"):
/// rows of at most best_gather_lean_max_bytes, the shift kernels and the realigning kernels
/// of the sides without one.
constexpr long long best_gather_lean_max_bytes = 12;
constexpr bool best_gather_lean_kernel(int elem_size, bool shift, int group) {
  return group * elem_size <= best_gather_lean_max_bytes && (shift || group > best_gather_shift_max_side);
}

/// Slab length (long-side elements, a multiple of k = 16/E) of a pipelined launch of
/// `resident` blocks over `batch` matrices of long side L: the shortest multiple of k that
/// keeps the rounds of slabs per block what span0 gives, so that the last round is as full
/// as the matrices allow. Never longer than span0 (the shared memory is sized for it).
constexpr long long best_pipe_span(long long span0, long long L, long long batch, long long resident, long long k) {
  if (span0 >= L || resident < 1 || batch < 1) return span0;
  const long long slabs = batch * ((L + span0 - 1) / span0);
  const long long rounds = (slabs + resident - 1) / resident;
  const long long per_mat = rounds * resident / batch;  // slabs per matrix that fit the rounds
  if (per_mat < 1) return span0;
  const long long span = ((L + per_mat - 1) / per_mat + k - 1) / k * k;
  return span < span0 ? span : span0;
}

/// Direct scatters ("2-D: slab scatters of 1-2 byte elements"): 3 staging buffers (u8 sides
/// 4-6, f16 5-6) or 2 (best_scatter_direct2_slab's sides and slab bytes); blocks per SM.
constexpr int best_scatter_direct_depth = 3;
constexpr int best_scatter_direct2_depth = 2;
constexpr int best_scatter_direct_min_blocks(int side) { return side <= 4 ? 4 : 3; }
constexpr int best_scatter_direct2_slab(int elem_size, long long side) {
  if (elem_size == 1) return side == 2 || side == 4 ? 16384 : 0;
  if (elem_size == 2) return side == 2 || side == 4 || side == 6 ? 24576 : 0;
  return 0;
}

/// Register-interleave slabs ("2-D: register-interleave slabs (4-8 byte channel shuffles)"):
/// short sides with a kernel (every C up to 16, then multiples of 4), threads per block (one
/// warp tile each; sides above 16 halve the block: staging under 48 KiB), units (16 bytes of
/// each row) per lane; scatters up to best_interleave_scatter_max.
constexpr int best_interleave_sides[] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 24, 28, 32};
constexpr int best_interleave_threads(long long s) { return s > 16 ? 64 : 128; }
constexpr int best_interleave_units(long long s) { return s == 2 ? 2 : 1; }
constexpr int best_interleave_scatter_max = 16;

}  // namespace xpose::detail
