// Blocked in-place transpose of rectangles, once for the CPU, the GPU
// and the tests. One side is cut into k slabs; each slab is transposed on its own
// (squares in place, other slabs out of place through the workspace and copied
// back), and the slabs' lines, all of one length, are permuted as the transpose of
// a grid of slots: every move copies a whole slot (a contiguous run of `slot`
// elements), so each pass runs at copy speed (docs/MODEL.md, "In-place transpose:
// traffic per method").
//
//   row slabs (k | rows, h = rows/k): A = (k, h, cols) -> slabs -> (k, cols, h),
//       slot grid k x cols of h elements -> (cols, k, h) = A^T;
//   column slabs (k | cols, w = cols/k): A = (rows, k, w): slot grid rows x k of w
//       elements -> (k, rows, w) -> slabs -> (k, w, rows) = A^T.
//
// The slot transpose of an R x C grid (slot x = i*C + j goes to j*R + i) follows
// its cycles backwards (pulls: slot y takes the content of src(y)). One slot of
// every S (at a hashed offset, slot_grid::mark_of) is a mark: its content is saved first, and the walk that starts at a
// mark pulls slot after slot until the next mark, whose saved content it takes
// last. Walks are disjoint, so they all run at once; a cycle without a mark is
// walked whole by its smallest slot through one slot of registers. Workspace:
// ceil(R*C / S) slots.
#pragma once

#include <initializer_list>

#include "inplace_map.hpp"

namespace xpose::detail::inplace {

/// A mark every slot_mark_every slots: ceil(N / 16) saved slots, a sixteenth of the
/// matrix plus one slot.
constexpr index_t slot_mark_every = 16;
/// Slots shorter than this are not worth the method (the old decomposition runs).
constexpr index_t min_slot_bytes = 64;
/// Square slabs need slots (the short side's lines) of at least this: the slot moves run
/// a block per slot, and 10^7 x 16 f32 (64-byte slots) ran at 0.007 of the out-of-place
/// `best` on an H200 as square slabs, 0.28 as slabs through the workspace (like 10^7 x 8;
/// docs/RESULTS.md "In-place transposes").
constexpr index_t min_square_slot_bytes = 512;

/// The slot grid R x C and its pull map.
struct slot_grid {
  index_t R = 1, C = 1;
  XPOSE_HD index_t count() const { return R * C; }
  /// The slot whose content goes to y.
  XPOSE_HD index_t src(index_t y) const { return umod(y, R) * C + udiv(y, R); }
  /// The mark of the b-th run of slot_mark_every slots (a hashed offset in it: a
  /// fixed offset would miss whole cycles, e.g. the odd slots' ones when R*C - 1 and
  /// C are even and odd); its content is saved in workspace slot b.
  XPOSE_HD static index_t mark_of(index_t b) {
    return b * slot_mark_every + static_cast<index_t>((static_cast<std::uint32_t>(b) * 0x9E3779B1u) >> 28);
  }
  XPOSE_HD static bool marked(index_t y) { return mark_of(udiv(y, slot_mark_every)) == y; }
  /// What the walk from y does: 1 = y is a mark (walk to the next mark); 2 = y is
  /// the smallest slot of a cycle of length >= 2 without marks (walk it whole);
  /// 0 = nothing (a fixed point, or another walk covers y).
  XPOSE_HD int role(index_t y) const {
    const index_t s0 = src(y);
    if (s0 == y) return 0;
    if (marked(y)) return 1;
    for (index_t s = s0; s != y; s = src(s))
      if (s < y || marked(s)) return 0;
    return 2;
  }
};

enum class block_kind { none, row_slabs, col_slabs };

struct block_plan {
  block_kind kind = block_kind::none;
  index_t k = 0;                       // slabs
  index_t slab_rows = 0, slab_cols = 0;  // one slab (contiguous), before its transpose
  bool square = false;                 // slabs are squares: transposed in place, no workspace
  slot_grid grid;
  index_t slot = 0;  // elements per slot
  bool slots_first() const { return kind == block_kind::col_slabs; }
  index_t slab_elems() const { return slab_rows * slab_cols; }
  index_t saves() const { return (grid.count() + slot_mark_every - 1) / slot_mark_every; }
  /// Workspace in elements: the saved slots, or a slab when slabs go through it.
  index_t workspace_elems() const {
    const index_t s = saves() * slot;
    return square || slab_elems() < s ? s : slab_elems();
  }
};

/// Smallest divisor of n that is at least lo, 0 if none (O(sqrt n)).
inline index_t divisor_at_least(index_t n, index_t lo) {
  index_t best = 0;
  for (index_t f = 1; f * f <= n; ++f) {
    if (n % f != 0) continue;
    for (const index_t d : {f, n / f})
      if (d >= lo && (best == 0 || d < best)) best = d;
  }
  return best;
}

/// The blocked plan of a rows x cols matrix of elem_size bytes, or kind none when
/// it has none (squares, vectors, and shapes without a divisor giving slots of
/// min_slot_bytes and slabs of at most a quarter: then the decomposition runs).
inline block_plan make_block_plan(index_t rows, index_t cols, index_t elem_size) {
  block_plan p;
  if (rows == cols || rows <= 1 || cols <= 1) return p;
  auto rows_slabs = [&](index_t k, bool square) {
    p.kind = block_kind::row_slabs;
    p.k = k;
    p.slab_rows = rows / k;
    p.slab_cols = cols;
    p.square = square;
    p.grid = {k, cols};
    p.slot = rows / k;
  };
  auto col_slabs = [&](index_t k, bool square) {
    p.kind = block_kind::col_slabs;
    p.k = k;
    p.slab_rows = rows;
    p.slab_cols = cols / k;
    p.square = square;
    p.grid = {rows, k};
    p.slot = cols / k;
  };
  // Square slabs when the short side divides the long one (and its lines are long
  // enough): no slab goes through the workspace.
  if (rows % cols == 0 && cols * elem_size >= min_square_slot_bytes) {
    rows_slabs(rows / cols, true);
    return p;
  }
  if (cols % rows == 0 && rows * elem_size >= min_square_slot_bytes) {
    col_slabs(cols / rows, true);
    return p;
  }
  // Slabs of at most a quarter (k >= 4), the longest slots.
  const index_t kr = divisor_at_least(rows, 4), kc = divisor_at_least(cols, 4);
  const index_t sr = kr ? rows / kr : 0, sc = kc ? cols / kc : 0;
  if ((sr >= sc ? sr : sc) * elem_size < min_slot_bytes) return p;
  // Ties take the larger k (the smaller slab): a matrix and its transpose get the
  // same (k, slot) and so the same workspace.
  if (sr > sc || (sr == sc && kr >= kc)) rows_slabs(kr, false);
  else col_slabs(kc, false);
  return p;
}

}  // namespace xpose::detail::inplace
