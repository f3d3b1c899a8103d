// Dispatch policy: the variant the plain API runs, and the thresholds and tables the 2-D route table
// (route_table.hpp) reads, each citing the docs/RESULTS.md section that chose it. Geometry: best_geom.hpp.
#pragma once

#include <xpose/view.hpp>

#include "best_geom.hpp"

namespace xpose::detail {

/// What xpose::transpose() / execute() run for a 2-D plan on compute capability `cc` (major*10+minor):
/// `best` from sm_80 (built and tested for sm_80 and sm_90; "2-D: the shape sweep"), else the padded tile.
enum class default_kernel { best, tiled_padded };
constexpr default_kernel default_kernel_for(int cc, int /*elem_size*/) {
  return cc >= 80 ? default_kernel::best : default_kernel::tiled_padded;
}

/// Programmatic dependent launch (sm_90+) for grids of about one wave at most ("2-D: tiny calls and CUDA graphs"):
/// kernels wait on the prior work and release the next launch at once, overlapping the previous kernel's tail.
constexpr long long best_dependent_launch_max_blocks = 256;
constexpr bool best_dependent_launch_on(int cc, long long grid) {
  return cc >= 90 && grid <= best_dependent_launch_max_blocks;
}

// ---- layout facts ----
/// Largest power of two <= 16 dividing x (16 for x == 0).
constexpr int best_align16(unsigned long long x) {
  if (x == 0) return 16;
  const unsigned long long low = x & (~x + 1);
  return low >= 16 ? 16 : static_cast<int>(low);
}
/// Whether every output row (and batch) of d starts 16-byte aligned at out_addr.
constexpr bool best_out_rows_aligned(const matrix_desc& d, unsigned long long out_addr) {
  const long long E = d.elem_size;
  const auto a16 = [](unsigned long long x) { return (x & 15u) == 0; };
  return a16(out_addr) && a16(static_cast<unsigned long long>(d.ld_out * E)) &&
         (d.batch <= 1 || a16(static_cast<unsigned long long>(d.stride_out * E)));
}
/// The same for every input row.
constexpr bool best_in_rows_aligned(const matrix_desc& d, unsigned long long in_addr) {
  matrix_desc t = d;  // the input's rows as an output's: pointer, leading dimension, batch stride
  t.ld_out = d.ld_in, t.stride_out = d.stride_in;
  return best_out_rows_aligned(t, in_addr);
}

// ---- shape classes and slabs ("2-D: slab kernels (gather, scatter, whole matrices)") ----
/// Shape-class thresholds for one element size (sm_80 and sm_90 share them).
struct best_class_policy {
  int slab_max_short;        ///< slab paths: short side <= this many elements ...
  int slab_max_short_bytes;  ///< ... and <= this many bytes
  int slab_bytes;            ///< bytes of one slab (shared memory is about this plus padding)
  int whole_max_bytes;       ///< slab_whole: matrices of at most this many bytes
  int slab_group_max;        ///< grouped slab kernel for short sides in best_slab_group_sides up to this; 0 none
};
/// Grouped slabs: u8 every short side, f16 up to 16, f32 none (it lost on every side). Whole matrices: f16 up
/// to 4 KiB (64 x 64 batches ran faster on the tile); f64 up to 4 KiB (32 x 32 f64 places its elements 256
/// bytes apart in shared memory, one bank); 16-byte elements short sides up to 16.
constexpr best_class_policy best_class_policy_for(int /*cc*/, int elem_size) {
  switch (elem_size) {
    case 1: return {128, 128, 16384, 16384, 32};
    case 2: return {128, 256, 16384, 4096, 16};
    case 4: return {64, 256, 16384, 8192, 0};
    case 8: return {32, 256, 16384, 4096, 0};
    default: return {32, 256, 16384, 4096, 0};
  }
}
/// The grouped kernel's short side for a slab of short side s (0: none).
constexpr int best_slab_group_for(const best_class_policy& p, int elem_size, long long s) {
  if (elem_size > 4) return 0;
  for (int g : best_slab_group_sides)
    if (g == s && g <= p.slab_group_max) return g;
  return 0;
}
/// Batches of small matrices whose input has gaps (padded rows, matrices apart) take the whole-matrix slab where
/// a matrix's input stride is at most this many times its elements: the slab reads the gaps with the matrices.
constexpr long long best_whole_max_read = 4;
/// Slab paths only where the long side is at least this many times the short side.
constexpr long long best_slab_min_aspect = 4;
/// 8-16 byte gathers (few rows, output packed) of up to this many rows take the gather slab, past the class's
/// slab_max_short of 32, where the table would take the realigning tiles (access < 16: 33-253 rows, random layouts
/// on an H100: 0.89-0.99 of memcpy against 0.66-0.86 over two draws); 16-byte aligned layouts keep the tile (16-byte
/// elements: the tile 0.92-1.02 against the slab's 0.92-0.98); their scatters keep the tiles (the scatter slab
/// 0.70-0.93 against 0.92-0.97).
constexpr long long best_gather_wide_max_rows = 256;
/// 1-2 byte scatters (few columns, input packed) whose columns hold at least this many bytes leave the scatter slab
/// for the realigning tiles (33-119 columns, 20 random batches on an H100: 0.46-0.75 of memcpy -> 0.63-0.83 on the
/// sector tile, f16 75-87 columns level); u8 rows of 39-47 columns stay (0.53 against 0.45-0.52).
constexpr long long best_scatter_slab_max_bytes_narrow = 64;
/// Small transposes take smaller slabs, down to best_slab_min_bytes, to spread over >= best_slab_min_blocks blocks.
constexpr long long best_slab_min_blocks = 256;
constexpr int best_slab_min_bytes = 2048;
constexpr int best_slab_bytes_for(const best_class_policy& p, long long total_bytes) {
  const long long spread = total_bytes / best_slab_min_blocks;
  return spread >= p.slab_bytes ? p.slab_bytes
                                : spread <= best_slab_min_bytes ? best_slab_min_bytes : static_cast<int>(spread);
}
/// Micro-block scatters to output segments not 16-byte aligned: twice the slab (each segment's two ragged end
/// chunks a smaller share); f32 16 KiB.
constexpr int best_slab_micro_ragged_bytes_for(int elem_size) { return elem_size == 4 ? 16384 : 32768; }

// ---- small calls ("2-D: tiny calls and CUDA graphs", "2-D: small and narrow tiles for few rows") ----
/// Tiny calls: one matrix of at most this many bytes (at least 64 rows of 128 bytes).
constexpr long long best_tiny_bytes = 64 * 1024;
/// 1-byte squares of fewer than this many 256 x 256 tiles on the cp.async tiles.
constexpr long long best_half_max_tiles = 768;

// ---- cp.async tiles ("2-D: cp.async tiles for squares and batches") ----
/// The pipelined async tile from 16 MiB; f32 up to 64 MiB (at 256 MiB the plain tile won); f16 64 x 64 batches
/// back on the unpipelined batch tile from 64 MiB (the resident blocks lost at large calls).
constexpr long long best_async_pipe_min_bytes = 16ll << 20;
constexpr long long best_async_pipe_f32_max_bytes = 64ll << 20;
constexpr long long best_async_f16_big_min_bytes = 64ll << 20;

// ---- pipelined slabs ("2-D: pipelined slabs", "2-D: halo scatters to unaligned rows") ----
/// Grouped scatters the pipelined kernel takes: the unpipelined one needs more than 64 registers (u8 4-8,
/// 16-32; f16 5-8, 24, 32) or has none (7); side 5 only to unaligned output rows (with aligned ones it lost).
constexpr bool best_pipe_scatter_side(int elem_size, long long s, bool out_aligned = false) {
  if (s == 5 && out_aligned) return false;
  if (elem_size == 1) return s == 4 || s == 5 || s == 6 || s == 7 || s == 8 || s == 16 || s == 24 || s == 32;
  return s == 5 || s == 6 || s == 7 || s == 8 || s == 24 || s == 32;
}
/// Halo scatters of the other pipelined sides from this side up (sides 2 and 3 tied or lost).
constexpr long long best_halo_side_min = 4;
/// u8 gathers of 24 unaligned rows on the shift kernel (sm_90+: its 24 KiB slabs).
constexpr int best_gather_shift24_side = 24;
/// sm_90+: u8 pipelined grouped gathers of 8-24 rows stream 24 KiB slabs where their blocks still fit 3 per SM
/// (the shift kernels; the plain ones with aligned input rows) ("2-D: shift and lean gathers from unaligned rows").
constexpr int best_gather_slab_bytes = 24576;
constexpr int best_gather_slab_min_side = 8;
constexpr int best_gather_slab_max_side = 24;
constexpr int best_gather_slab_for(int elem_size, bool gather, int side, int table_bytes, bool shift, bool rows_aligned) {
  return gather && elem_size == 1 && side >= best_gather_slab_min_side && side <= best_gather_slab_max_side &&
                 table_bytes < best_gather_slab_bytes && (shift || rows_aligned)
             ? best_gather_slab_bytes
             : table_bytes;
}
/// 4-8 byte slabs on the pipelined micro-block kernels ("2-D: 4-8 byte pipelined micro-block slabs"): short
/// sides above the interleave kernels' (from 17), every layout whose rows are not all 16-byte aligned; with aligned
/// rows only these: f32 gathers of 32 rows; 8-byte gathers of 24 rows, of sides without an interleave kernel, or
/// of rows a multiple of 512 KiB apart; f32 scatters of 256-byte positions.
constexpr long long best_pipe_wide_min_side = 17;
constexpr bool best_pipe_wide_aligned(long long E, bool gather, long long s, long long row_bytes) {
  if (!gather) return E == 4 && s * E >= 256;
  if (E == 4) return s == 32;
  bool interleave = false;
  for (int c : best_interleave_sides) interleave = interleave || c == s;
  return s == 24 || !interleave || row_bytes % (512 * 1024) == 0;
}
/// 4-8 byte batches of packed matrices of whole chunks up to 8 KiB on the whole-matrix pipe.
constexpr long long best_pipe_whole_wide_max_bytes = 8192;

// ---- 1-2 byte scatters ("2-D: slab scatters of 1-2 byte elements") ----
/// The direct kernel's sides: aligned output rows, u8 4-6, f16 5-6.
constexpr bool best_scatter_direct_fits(int elem_size, int side, bool out_aligned) {
  return out_aligned && side <= 6 && side >= (elem_size == 1 ? 4 : 5);
}
/// The two-buffer direct kernel (best_scatter_direct2_slab's sides): unaligned output rows, aligned f16 6 columns.
constexpr bool best_scatter_direct2_takes(int elem_size, long long side, bool out_aligned) {
  return best_scatter_direct2_slab(elem_size, side) > 0 && (!out_aligned || (elem_size == 2 && side == 6));
}
/// Bytes per slab by side of halo scatters to unaligned output rows (micro: micro-block kernel); 0: class table's.
constexpr int best_scatter_slab_table(int elem_size, long long side, bool pipelined, bool micro = false) {
  if (elem_size > best_pipe_max_elem || !pipelined) return 0;
  if (micro) return side == 96 ? 20480 : elem_size == 1 && (side == 48 || side == 128) ? 32768 : 0;
  if (elem_size != 1) return 0;
  return side == 2 ? 16384 : side == 5 ? 20480 : side == 3 || side == 6 || side == 24 ? 24576 : 0;
}

// ---- register-interleave slabs ("2-D: register-interleave slabs (4-8 byte channel shuffles)") ----
/// Realigning interleave gathers (a 16-byte boundary off) up to this side (above it they lost).
constexpr int best_interleave_realign_max = 16;

// ---- skewed tiles ("2-D: skewed realigning tiles") ----
/// Whether tile a pads d's matrix at least 10% less than tile b (both E-byte skewed tiles).
constexpr bool best_skew_pads_less(const matrix_desc& d, best_tile a, best_tile b) {
  const long long k = 16 / d.elem_size;
  const auto area = [&](long long tr, long long tc) { return (d.rows + tr - 1) / tr * tr * ((d.cols + tc - 1) / tc * tc); };
  return area(a.rows, a.chunks * k) * 10 <= area(b.rows, b.chunks * k) * 9;
}

}  // namespace xpose::detail
