// Blocked in-place transpose of rectangles, once for the CPU, the GPU
// and the tests. One side is cut into k slabs; each slab is transposed on its own
// (squares in place; other slabs out of place, each straight into a place `held`
// slabs round, the first ones into the workspace), and the slabs' lines, all of one
// length, are permuted as the transpose of a grid of slots: every move copies a
// whole slot (a contiguous run of `slot` elements), so each pass runs at copy speed
// (docs/MODEL.md, "In-place transpose: traffic per method").
//
//   row slabs (k | rows, h = rows/k): A = (k, h, cols) -> slabs -> (k, cols, h),
//       slot grid k x cols of h elements -> (cols, k, h) = A^T;
//   column slabs (k | cols, w = cols/k): A = (rows, k, w): slot grid rows x k of w
//       elements -> (k, rows, w) -> slabs -> (k, w, rows) = A^T.
//
// The slot transpose of an R x C grid (slot x = i*C + j goes to j*R + i) follows
// its cycles backwards (pulls: slot y takes the content of src(y)). Some slots are
// held: their old content stays readable in one place while their new content goes
// to another (the workspace on one side). Square slabs hold the marks, one slot of
// every S at a hashed offset (slot_grid::mark_of), saved into the workspace first;
// other slabs hold the slots of the slabs that went round into or out of the
// workspace (turned_grid), which costs no saves. A walk starts at each held slot and
// pulls slot after slot until the next held one; walks are disjoint, so they all run
// at once; a cycle without a held slot is walked whole by its smallest slot
// (walk_role).
#pragma once

#include <initializer_list>

#include "inplace_map.hpp"

namespace xpose::detail::inplace {

/// A mark every slot_mark_every slots: ceil(N / 16) saved slots, a sixteenth of the
/// matrix plus one slot.
constexpr index_t slot_mark_every = 16;
/// Slots shorter than this are not worth the method (the old decomposition runs).
constexpr index_t min_slot_bytes = 64;
/// Square slabs need slots (the short side's lines) of at least this: when each slot move
/// took a block, 10^7 x 16 f32 (64-byte slots) ran at 0.007 of the out-of-place `best` on
/// an H200 as square slabs, 0.28 as other slabs (like 10^7 x 8). Not measured again since
/// the walks run in teams of 32-256 lanes.
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
};

/// The square slabs' walk map: the plain grid, the marks held (saved into workspace
/// slot y / S before the walks; their places in the matrix are then free).
struct mark_walk {
  slot_grid grid;
  XPOSE_HD index_t count() const { return grid.count(); }
  XPOSE_HD index_t src(index_t y) const { return grid.src(y); }
  XPOSE_HD static bool held(index_t y) { return slot_grid::marked(y); }
  XPOSE_HD static index_t held_slot(index_t y) { return udiv(y, slot_mark_every); }
  XPOSE_HD static bool writes_held() { return false; }  // held content is read from the workspace
  XPOSE_HD static index_t first() { return 0; }
};

/// The slot grid's pull map with the slabs `shift / slots-per-slab` places round:
/// the slot transpose of a grid whose slabs sit that many places back before it
/// (row slabs, before = false: y pulls src(y) - shift, and the last places are held:
/// their content is in the workspace, their places free) or must end that many places
/// on after it (column slabs, before = true: y pulls src(y - shift), and the first
/// places are held: their new content goes to the workspace, their old stays), mod
/// R*C. The rotation lets every slab be transposed straight into its final place
/// (row slabs: slab s -> s - held, the first `held` into the workspace; column slabs:
/// s + held -> s, the workspace into the last `held` places).
struct turned_grid {
  slot_grid grid;
  bool before = false;
  index_t shift = 0;  // held slots: held slabs x slots per slab
  XPOSE_HD index_t count() const { return grid.count(); }
  XPOSE_HD index_t src(index_t y) const {
    const index_t n = grid.count();
    if (before) return grid.src(y >= shift ? y - shift : y - shift + n);
    const index_t x = grid.src(y);
    return x >= shift ? x - shift : x - shift + n;
  }
  XPOSE_HD bool held(index_t y) const { return before ? y < shift : y >= grid.count() - shift; }
  XPOSE_HD index_t held_slot(index_t y) const { return before ? y : y - (grid.count() - shift); }
  XPOSE_HD bool writes_held() const { return before; }
  XPOSE_HD index_t first() const { return before ? 0 : grid.count() - shift; }
};

/// What the walk from y does under a walk map (mark_walk, turned_grid): 1 = y is held
/// (walk to the next held slot, y itself when it pulls from itself); 2 = y is the smallest slot of a cycle of length >= 2
/// without held slots (walk it whole); 0 = nothing (a fixed point, or another walk
/// covers y).
template <class Map>
XPOSE_HD int walk_role(const Map& m, index_t y) {
  if (m.held(y)) return 1;  // even a fixed point: its content changes place
  const index_t s0 = m.src(y);
  if (s0 == y) return 0;
  for (index_t s = s0; s != y; s = m.src(s))
    if (s < y || m.held(s)) return 0;
  return 2;
}

enum class block_kind { none, row_slabs, col_slabs };

struct block_plan {
  block_kind kind = block_kind::none;
  index_t k = 0;                       // slabs
  index_t slab_rows = 0, slab_cols = 0;  // one slab (contiguous), before its transpose
  bool square = false;                 // slabs are squares: transposed in place, no workspace
  index_t held = 0;                    // other slabs: how many the workspace holds (their places round)
  slot_grid grid;
  index_t slot = 0;  // elements per slot
  bool slots_first() const { return kind == block_kind::col_slabs; }
  index_t slab_elems() const { return slab_rows * slab_cols; }
  index_t saves() const { return (grid.count() + slot_mark_every - 1) / slot_mark_every; }
  /// The walk map of other slabs: `held` slabs round.
  turned_grid turned() const { return {grid, slots_first(), held * (grid.count() / k)}; }
  /// Workspace in elements: the saved marks (square slabs), else the held slabs.
  index_t workspace_elems() const { return square ? saves() * slot : held * slab_elems(); }
};

/// Slabs the workspace holds when they are not squares. The CPU holds one: its
/// threads walk the slots one walk each, and the slabs go round one place in k
/// transposes. The GPU holds a quarter (k / 4, at most a quarter of the matrix): its
/// slabs go round in ceil(k / held) <= 7 launches, and its walks, one per held slot,
/// are k / held <= 7 slots long on average (one slab held, the walks of a 43-slab
/// plan would average 43 dependent slot copies).
inline index_t held_slabs(index_t k, bool device) { return device ? k / 4 : 1; }  // k >= 4

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

/// The blocked plan of a rows x cols matrix of elem_size bytes on the GPU (device) or
/// the CPU, or kind none when it has none (squares, vectors, and shapes without a
/// divisor giving slots of min_slot_bytes and slabs of at most a quarter: then the
/// decomposition runs).
inline block_plan make_block_plan(index_t rows, index_t cols, index_t elem_size, bool device) {
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
  p.held = held_slabs(p.k, device);
  return p;
}

/// Rectangles without a blocked plan (both sides prime or nearly): the last r rows
/// split off. A = [B; C] with B the first rows - r rows (a plan, or a square) and C the
/// last r: C is transposed into the workspace (C^T, cols x r), B in place with its own
/// plan (B^T, cols x (rows - r), packed), then B^T's rows are spread to the pitch `rows`
/// from the last backwards through the rest of the workspace (each chunk's places are
/// behind the rows still unread once the chunk is held), and C^T's rows fill the gaps:
/// A^T. About 6M of traffic (the plan's 4M, the spreading 2M).
struct split_plan {
  index_t r = 0;       // rows split off; 0: no split plan
  index_t rows_b = 0;  // rows of B
  block_plan b;        // B's plan (kind none: B is a square)
  index_t b_ws = 0;    // elements of B's plan's workspace
  index_t ws = 0;      // the workspace: a quarter of the matrix (C^T, then B's workspace and the spreading's chunks)
};

/// The split plan of a rows x cols matrix without a blocked plan: the fewest rows r <= 64
/// whose removal leaves a square or a blocked plan, with C^T and B's workspace (or 16 rows
/// of B^T) within a quarter of the matrix. r = 0 when none (small matrices: the
/// decomposition runs).
inline split_plan make_split_plan(index_t rows, index_t cols, index_t elem_size, bool device) {
  split_plan sp;
  const index_t quarter = rows * cols / 4;
  for (index_t r = 1; r <= 64 && rows - r >= 2; ++r) {
    const index_t m = rows - r;
    const block_plan b = make_block_plan(m, cols, elem_size, device);
    if (m != cols && b.kind == block_kind::none) continue;
    const index_t b_ws = m == cols ? 0 : b.workspace_elems();
    // C^T, and after it B's workspace, then at least 16 rows of B^T a chunk of the spreading.
    if (r * cols + (b_ws > 16 * m ? b_ws : 16 * m) > quarter) continue;
    sp.r = r;
    sp.rows_b = m;
    sp.b = b;
    sp.b_ws = b_ws;
    sp.ws = quarter;
    return sp;
  }
  return sp;
}

}  // namespace xpose::detail::inplace
