// Index maps of the teaching ladder: which element each thread reads and writes,
// in global and shared memory. Kernels call these on the GPU; the access model and
// the bijection tests call the very same functions on the host.
// Assumes a 32x32 tile per block and 32 threads along x; block_y divides 32.
#pragma once

#include "xpose/config.hpp"

namespace xpose::maps {

/// Edge of the ladder's square tile, in elements.
inline constexpr int ladder_tile = 32;

/// Access pattern of a ladder variant (the registry's `pattern` field).
enum class pattern : int {
  copy = 0,          // read (r0+i, c0+tx), write the same offset
  copy_shared = 1,   // the same through a shared tile, slot [i][tx] both ways
  naive = 2,         // read (r0+i, c0+tx), write out(c0+tx, r0+i): strided store
  naive_read = 3,    // read (r0+tx, c0+i): strided load, write out(c0+i, r0+tx)
  tiled = 4,         // stage in smem [i][tx], read back [tx][i]: 32-way conflicts
  tiled_padded = 5,  // the same with a pitch of 33: conflict-free
  diagonal = 6,      // tiled_padded with diagonal block order
};
inline constexpr int pattern_count = 7;

/// A (row, col) pair.
struct rc {
  index_t r;
  index_t c;
};

XPOSE_HD constexpr bool transposes(pattern p) {
  return p != pattern::copy && p != pattern::copy_shared;
}
XPOSE_HD constexpr bool uses_smem(pattern p) {
  return p == pattern::copy_shared || p == pattern::tiled || p == pattern::tiled_padded ||
         p == pattern::diagonal;
}
/// Row pitch of the shared tile in elements: one column of padding breaks the
/// transposed read's 32-way bank conflict.
XPOSE_HD constexpr int smem_pitch(pattern p) {
  return (p == pattern::tiled_padded || p == pattern::diagonal) ? ladder_tile + 1 : ladder_tile;
}

/// Tile (bx, by) of a grid of gx x gy tiles as the kernel visits it. The diagonal
/// order (NVIDIA's transpose sample) spreads concurrently running blocks across
/// memory partitions; it is a bijection on [0,gx) x [0,gy) for any gx, gy.
struct tile_xy {
  index_t x;
  index_t y;
};
XPOSE_HD constexpr tile_xy visit_tile(pattern p, index_t bx, index_t by, index_t gx, index_t gy) {
  if (p != pattern::diagonal) return {bx, by};
  const index_t bid = bx + gx * by;  // linear launch order
  const index_t y = bid % gy;
  const index_t x = (bid / gy + y) % gx;
  return {x, y};
}

/// Input coordinate loaded by thread tx at step i (row offset i = ty + k*block_y)
/// of the tile whose top-left input element is (r0, c0).
XPOSE_HD constexpr rc load_coord(pattern p, index_t r0, index_t c0, int tx, int i) {
  return p == pattern::naive_read ? rc{r0 + tx, c0 + i} : rc{r0 + i, c0 + tx};
}

/// Output coordinate stored by thread tx at step i. For transposes it is a
/// coordinate of the cols x rows output; for copies, of the input-shaped output.
XPOSE_HD constexpr rc store_coord(pattern p, index_t r0, index_t c0, int tx, int i) {
  switch (p) {
    case pattern::copy:
    case pattern::copy_shared: return {r0 + i, c0 + tx};
    case pattern::naive: return {c0 + tx, r0 + i};
    default: return {c0 + i, r0 + tx};  // naive_read, tiled, tiled_padded, diagonal
  }
}

/// Shared-tile slot (row, col) written after the load of thread tx, step i.
XPOSE_HD constexpr rc smem_store_slot(pattern, int tx, int i) { return {i, tx}; }

/// Shared-tile slot (row, col) read before the store of thread tx, step i.
XPOSE_HD constexpr rc smem_load_slot(pattern p, int tx, int i) {
  return p == pattern::copy_shared ? rc{i, tx} : rc{tx, i};
}

/// Element offset of a slot in the shared tile.
XPOSE_HD constexpr index_t smem_offset(pattern p, rc slot) {
  return slot.r * smem_pitch(p) + slot.c;
}

/// Element offsets in global memory. Input (b, r, c); transposed output (b, c, r)
/// stored as row c, column r; copies mirror the input's layout.
XPOSE_HD constexpr index_t in_offset(index_t b, rc x, index_t ld_in, index_t stride_in) {
  return b * stride_in + x.r * ld_in + x.c;
}
XPOSE_HD constexpr index_t out_offset(pattern p, index_t b, rc y, index_t ld_in, index_t ld_out,
                                      index_t stride_in, index_t stride_out) {
  return transposes(p) ? b * stride_out + y.r * ld_out + y.c : b * stride_in + y.r * ld_in + y.c;
}

/// Number of 32-element tiles along an extent.
XPOSE_HD constexpr index_t tiles(index_t n) { return (n + ladder_tile - 1) / ladder_tile; }

}  // namespace xpose::maps
