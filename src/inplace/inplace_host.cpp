// CPU in-place transpose (OpenMP). Squares: tile pairs staged in two L1 buffers
// and written back transposed. Rectangles with a blocked plan (inplace_blocks.hpp):
// one parallel region per call whose phases are work-shared loops; each slab is
// transposed once into its neighbour's place (one into the workspace), and the slot
// walk uses the slab held in the workspace as its marks. Other rectangles: the
// passes of inplace_map.hpp, each a per-line permutation through the caller's
// workspace (rows: a workspace row per thread; columns: bands of columns, a thread's
// own, transposed into its part of the workspace and back). A larger workspace gives
// wider bands and more row threads; the algorithm stays in place whatever its size.
// Assumes a validated, non-empty, packed desc and a thread count from
// check_host_options.
#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "../cpu/kernels.hpp"
#include "inplace_blocks.hpp"
#include "inplace_internal.hpp"
#include "inplace_map.hpp"

namespace xpose::detail {
namespace {

using byte = unsigned char;
using inplace::c2r_map;
using inplace::step;

inline index_t thread_id() {
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}

template <int ES>
inline void put(byte* dst, const byte* src) {
  std::memcpy(dst, src, ES);
}

// Tile edge, measured on the 2-core EPYC (against 64, 64, 64, 32, 32): 128 for 1-
// and 2-byte elements, 44 for 16 (rows of 704 bytes; as fast as 64), 64 and 32 for
// 4 and 8 bytes (larger ones ran slower). The two staged tiles take at most 64 KiB
// of the stack, as the out-of-place backend's staging does.
template <int ES>
constexpr index_t square_tile() {
  return ES <= 2 ? 128 : ES == 4 ? 64 : ES == 8 ? 32 : 44;
}

// The tile pairs of `count` n x n squares back to back at a, shared among the
// threads of the enclosing parallel region (or run by the caller alone outside
// one). Each pair prefetches the next one's rows: a tile row is one or two cache
// lines, each in its own page, which the hardware prefetchers do not follow (8192^2
// u8: 0.57 of the out-of-place without, 1.1 with and with the fixed-size row copies).
template <int ES>
void square_tiles(byte* squares, index_t n, index_t count) {
  constexpr index_t T = square_tile<ES>();
  const index_t nt = (n + T - 1) / T, pairs = nt * (nt + 1) / 2;
  const index_t ld = n * ES;
  alignas(64) byte ta[T * T * ES], tb[T * T * ES];  // (T, T) tiles (ti, tj) and (tj, ti)
  // A pair's rows: tile (ti, tj) is h x w at A, its partner (tj, ti) w x h at B (the same tile on the diagonal).
  struct pair_at {
    byte *A, *B;
    index_t h, w;
    bool diag;
  };
  auto pair_of = [&](index_t q) {
    byte* a = squares + q / pairs * n * ld;
    index_t ti = 0, tj = 0;
    inplace::tile_pair(q % pairs, &ti, &tj);
    const index_t r0 = ti * T, c0 = tj * T;
    return pair_at{a + r0 * ld + c0 * ES, a + c0 * ld + r0 * ES, std::min(T, n - r0), std::min(T, n - c0), ti == tj};
  };
  // Slice s of 4 of the next pair's rows, issued one after each of this pair's four steps: all of them at the pair's
  // start stalled its own reads behind them (as the out-of-place tiles' prefetch did, docs/RESULTS.md "CPU backend").
  auto prefetch_slice = [&](const pair_at& x, int s) {
    for (index_t i = x.h * s / 4; i < x.h * (s + 1) / 4; ++i) cpu::prefetch_run<true>(x.A + i * ld, x.w * ES);
    if (!x.diag)
      for (index_t i = x.w * s / 4; i < x.w * (s + 1) / 4; ++i) cpu::prefetch_run<true>(x.B + i * ld, x.h * ES);
  };
  // rows x cols of the square at src into a tile; whole tile rows by fixed-size
  // copies (inline vector moves, not a call or a rep movs per row).
  auto stage = [ld](byte* tile, const byte* src, index_t rows, index_t cols) {
    if (cols == T)
      for (index_t i = 0; i < rows; ++i) std::memcpy(tile + i * T * ES, src + i * ld, T * ES);
    else
      for (index_t i = 0; i < rows; ++i) std::memcpy(tile + i * T * ES, src + i * ld, static_cast<std::size_t>(cols * ES));
  };
#pragma omp for schedule(dynamic, 4)
  for (index_t q = 0; q < count * pairs; ++q) {
    const pair_at x = pair_of(q);
    const bool next = q + 1 < count * pairs;
    const pair_at nx = next ? pair_of(q + 1) : x;
    stage(ta, x.A, x.h, x.w);
    if (next) prefetch_slice(nx, 0);
    if (!x.diag) stage(tb, x.B, x.w, x.h);
    if (next) prefetch_slice(nx, 1);
    // B = A^T; A = B^T (a diagonal tile is its own partner: B == A, tb unused),
    // through the out-of-place backend's SIMD micro-tiles, single-threaded.
    matrix_desc t = matrix_desc::packed(x.h, x.w, ES);
    t.ld_in = T;
    t.ld_out = n;
    blocked_transpose(ta, x.B, t, 1);
    if (next) prefetch_slice(nx, 2);
    if (!x.diag) {
      t = matrix_desc::packed(x.w, x.h, ES);
      t.ld_in = T;
      t.ld_out = n;
      blocked_transpose(tb, x.A, t, 1);
    }
    if (next) prefetch_slice(nx, 3);
  }
}

template <int ES>
void square(byte* a, index_t n, int threads) {
  const index_t nt = (n + square_tile<ES>() - 1) / square_tile<ES>();
#pragma omp parallel num_threads(threads) if (nt > 1)
  square_tiles<ES>(a, n, 1);
}

// Out-of-place transpose of rows x cols (pitches ld_in, ld_out) on this thread.
template <int ES>
void transpose_one(const byte* in, index_t ld_in, byte* out, index_t ld_out, index_t rows, index_t cols) {
  matrix_desc d = matrix_desc::packed(rows, cols, ES);
  d.ld_in = ld_in;
  d.ld_out = ld_out;
  blocked_transpose(in, out, d, 1);
}

// One pass on the R x C grid at g, one parallel region each; lines (rows, or bands
// of columns) are independent, so each thread takes whole lines through its own
// part of the workspace and no thread waits for another before the pass ends (a
// join per band waited for preempted threads on a loaded machine, docs/MODEL.md
// "In-place transpose: traffic per method").
template <int ES>
void pass(byte* g, const c2r_map& m, step s, byte* ws, index_t ws_elems, int threads) {
  const index_t R = m.R, C = m.C, ld = C * ES;
  if (!s.along_columns()) {
    // One workspace row per thread: at most as many threads as rows fit.
    const int nt = static_cast<int>(std::min<index_t>(threads, std::max<index_t>(1, std::min(R, ws_elems / C))));
#pragma omp parallel num_threads(nt)
    {
      byte* tmp = ws + thread_id() * ld;
#pragma omp for schedule(dynamic, 1)
      for (index_t i = 0; i < R; ++i) {
        byte* row = g + i * ld;
        if (s.kind == inplace::step_kind::shuffle && m.shuffle_is_blocked()) {
          // c = R: a blocked transpose (c2r_map::blocked_dst), runs of b read or
          // written in order instead of the cursor's branches per element.
          for (index_t k = 0; k < R; ++k) {
            byte* strided = (s.gather ? tmp : row) + m.blocked_dst(i, k, 0) * ES;  // + t*R
            byte* run = (s.gather ? row : tmp) + k * m.b * ES;                      // + t
            if (s.gather)
              for (index_t t = 0; t < m.b; ++t) put<ES>(strided + t * R * ES, run + t * ES);
            else
              for (index_t t = 0; t < m.b; ++t) put<ES>(run + t * ES, strided + t * R * ES);
          }
        } else {
          inplace::for_row(m, s.kind, i, 0, C, [&](index_t j, index_t src) {
            if (s.gather) put<ES>(tmp + j * ES, row + src * ES);
            else put<ES>(tmp + src * ES, row + j * ES);
          });
        }
        std::memcpy(row, tmp, static_cast<std::size_t>(ld));
      }
    }
    return;
  }
  // Column passes: bands of columns, a thread's own band at a time, whose edges fall
  // on cache lines of each row where the band is wide enough.
  auto band_width = [](index_t w) {
    constexpr index_t line = ES >= 64 ? 1 : 64 / ES;
    return w > line ? w - w % line : w;
  };
  if (R <= 64) {
    // Few rows: gather a band of whole row segments straight into the workspace (the
    // sources are a handful of rows read front to back), then copy the rows back.
    const int nt = static_cast<int>(std::min<index_t>(threads, std::max<index_t>(1, ws_elems / R)));
    const index_t w = std::min(C, band_width(ws_elems / nt / R)), bands = (C + w - 1) / w;
#pragma omp parallel num_threads(nt)
    {
      byte* part = ws + thread_id() * w * R * ES;
#pragma omp for schedule(dynamic, 1)
      for (index_t q = 0; q < bands; ++q) {
        const index_t j0 = q * w, cw = std::min(w, C - j0);
        for (index_t i = 0; i < R; ++i)
          inplace::for_row(m, s.kind, i, j0, cw, [&](index_t j, index_t src) {
            if (s.gather) put<ES>(part + (i * cw + j - j0) * ES, g + src * ld + j * ES);
            else put<ES>(part + (src * cw + j - j0) * ES, g + i * ld + j * ES);
          });
        for (index_t i = 0; i < R; ++i)
          std::memcpy(g + i * ld + j0 * ES, part + i * cw * ES, static_cast<std::size_t>(cw * ES));
      }
    }
    return;
  }
  // Longer columns: the band is transposed into the workspace (each column becomes a
  // contiguous line), every line permuted through a line of its own, and the band
  // transposed back: streaming accesses only (a direct gather walks diagonals, a
  // cache line and a page per element).
  const index_t slots = ws_elems / R;  // >= 2: the host workspace has one extra line
  const int nt = static_cast<int>(std::min<index_t>(threads, std::max<index_t>(1, slots / 2)));
  const index_t w = std::min(C, band_width(slots / nt - 1)), bands = (C + w - 1) / w;
#pragma omp parallel num_threads(nt)
  {
    byte* band = ws + thread_id() * (w + 1) * R * ES;  // (w, R): the band's columns as rows
    byte* tmp = band + w * R * ES;                     // a line of R
#pragma omp for schedule(dynamic, 1)
    for (index_t q = 0; q < bands; ++q) {
      const index_t j0 = q * w, cw = std::min(w, C - j0);
      transpose_one<ES>(g + j0 * ES, C, band, R, R, cw);
      for (index_t l = 0; l < cw; ++l) {
        byte* line = band + l * R * ES;
        inplace::for_column(m, s.kind, j0 + l, 0, R, [&](index_t i, index_t src) {
          if (s.gather) put<ES>(tmp + i * ES, line + src * ES);
          else put<ES>(tmp + src * ES, line + i * ES);
        });
        std::memcpy(line, tmp, static_cast<std::size_t>(R * ES));
      }
      transpose_one<ES>(band, R, g + j0 * ES, C, cw, R);
    }
  }
}

// The cycle of slot y of a grid (src(): the slot each slot pulls from) walked whole in
// g, once per piece of the slot held in L1.
template <class Grid>
void walk_whole_cycle(byte* g, const Grid& grid, index_t y, std::size_t sb) {
  constexpr std::size_t piece = 4096;
  alignas(64) byte tmp[piece];
  for (std::size_t o = 0; o < sb; o += piece) {
    const std::size_t len = std::min(piece, sb - o);
    std::memcpy(tmp, g + y * sb + o, len);
    index_t cur = y;
    for (index_t s = grid.src(cur); s != y; s = grid.src(cur)) {
      std::memcpy(g + cur * sb + o, g + s * sb + o, len);
      cur = s;
    }
    std::memcpy(g + cur * sb + o, tmp, len);
  }
}

// The slot walks of inplace_blocks.hpp under a walk map (turned_grid, mark_walk) on the
// grid at g (slots of sb bytes), the held slots' workspace ws, shared among the threads
// of the enclosing region: where the map reads held content from the workspace (row
// slabs, marks) the held slots' places in g are free; where it writes held content
// there (column slabs) their places in g keep the old. Either way a held slot's old
// content stays readable to the end: a walk starts at each held slot and pulls slot
// after slot until the next held one; a cycle without one is walked whole by its
// smallest slot.
template <class Map>
void slot_walks(byte* g, const Map& map, std::size_t sb, byte* ws) {
  const index_t N = map.count();
  const bool writes = map.writes_held();
  auto from = [&](index_t y) -> const byte* { return !writes && map.held(y) ? ws + map.held_slot(y) * sb : g + y * sb; };
  auto to = [&](index_t y) { return writes && map.held(y) ? ws + map.held_slot(y) * sb : g + y * sb; };
#pragma omp for schedule(dynamic, 16)
  for (index_t y = 0; y < N; ++y) {
    const int role = inplace::walk_role(map, y);
    if (role == 1) {
      for (index_t cur = y;;) {
        const index_t s = map.src(cur);
        std::memcpy(to(cur), from(s), sb);
        if (map.held(s)) break;
        cur = s;
      }
    } else if (role == 2) {
      walk_whole_cycle(g, map, y, sb);  // a cycle without held slots (all in g)
    }
  }
}

// Square slabs' slot transpose: the marks saved into ws, then the walks (no saves for
// other slabs: turned_grid holds the slabs that went round).
void marked_slot_transpose(byte* g, const inplace::slot_grid& grid, std::size_t sb, byte* ws) {
  const index_t N = grid.count(), S = inplace::slot_mark_every;
#pragma omp for schedule(static)
  for (index_t b = 0; b < (N + S - 1) / S; ++b)
    if (const index_t y = inplace::slot_grid::mark_of(b); y < N) std::memcpy(ws + b * sb, g + y * sb, sb);
  slot_walks(g, inplace::mark_walk{grid}, sb, ws);
}

// Pieces of a slab transpose for the threads: an eighth of the slab, 64 KiB to
// 1 MiB (one piece per slab of a MiB ran each such slab on one thread).
inline index_t piece_bytes(index_t slab_bytes) {
  return std::clamp(slab_bytes / 8, index_t{64} << 10, index_t{1} << 20);
}

// A side of a piece: a run of at least a few lines of either side, multiples of 64
// elements (whole cache lines of output where rows allow).
inline index_t piece_side(index_t want, index_t side) {
  want = std::max<index_t>(1, std::min(want, side));
  return want > 64 && want < side ? want - want % 64 : want;
}

// The rows x cols matrix at from (packed) transposed to `to`, shared among the
// threads of the enclosing region in pieces (at least 256 columns or all of them,
// then as many rows as fill the piece), each by the out-of-place backend on one
// thread: one barrier, where a parallel region per piece waited at every join for
// a preempted thread on a loaded machine (docs/MODEL.md "In-place transpose:
// traffic per method").
template <int ES>
void transpose_shared(const byte* from, byte* to, index_t rows, index_t cols) {
  const index_t bytes = piece_bytes(rows * cols * ES);
  const index_t pw = piece_side(std::max<index_t>(256, bytes / (rows * ES)), cols);
  const index_t ph = piece_side(bytes / (pw * ES), rows);
  const index_t nw = (cols + pw - 1) / pw, pieces = nw * ((rows + ph - 1) / ph);
#pragma omp for schedule(dynamic, 1)
  for (index_t q = 0; q < pieces; ++q) {
    const index_t r0 = q / nw * ph, c0 = q % nw * pw;
    matrix_desc d = matrix_desc::packed(std::min(ph, rows - r0), std::min(pw, cols - c0), ES);
    d.ld_in = cols;
    d.ld_out = rows;
    blocked_transpose(from + (r0 * cols + c0) * ES, to + (c0 * rows + r0) * ES, d, 1);
  }
}

// One matrix by the blocked plan (inplace_blocks.hpp), shared among the threads of
// the enclosing region. Slabs that are not squares go round one place, the
// workspace holding one: row slabs 0 -> ws, s -> s - 1, and the slot walk reads
// slab 0 from ws; column slabs: the slot walk leaves them one place on, slab k - 1
// in ws, then s + 1 -> s and ws -> k - 1. Each slab is transposed once, straight
// into the place it ends in, and the slot walk needs no saved marks: 4M of traffic
// against 6M + M/8 through the workspace and back (docs/MODEL.md, "In-place
// transpose: traffic per method").
template <int ES>
void blocked(byte* a, const inplace::block_plan& p, byte* ws) {
  const auto sb = static_cast<std::size_t>(p.slot * ES);
  const index_t se = p.slab_elems(), k = p.k, h = p.slab_rows, w = p.slab_cols;
  auto slab = [&](index_t s) { return a + s * se * ES; };
  if (p.square) {  // squares transpose in place: the plain slot grid
    if (p.slots_first()) marked_slot_transpose(a, p.grid, sb, ws);
    square_tiles<ES>(a, h, k);
    if (!p.slots_first()) marked_slot_transpose(a, p.grid, sb, ws);
    return;
  }
  const inplace::turned_grid grid = p.turned();  // one slab held
  if (p.slots_first()) {
    slot_walks(a, grid, sb, ws);
    for (index_t s = 0; s + 1 < k; ++s) transpose_shared<ES>(slab(s + 1), slab(s), h, w);
    transpose_shared<ES>(ws, slab(k - 1), h, w);
  } else {
    transpose_shared<ES>(slab(0), ws, h, w);
    for (index_t s = 1; s < k; ++s) transpose_shared<ES>(slab(s), slab(s - 1), h, w);
    slot_walks(a, grid, sb, ws);
  }
}

// A rectangle without a blocked plan by the split plan (inplace_blocks.hpp): the last r
// rows C transposed into the workspace, the rest B in place by its own plan (or as a
// square), B^T's rows spread to the pitch m from the last chunk backwards through the
// rest of the workspace, C^T's rows into the gaps.
template <int ES>
void split(byte* a, index_t m, index_t n, const inplace::split_plan& sp, byte* ws, int threads) {
  const index_t r = sp.r, mb = sp.rows_b;
  byte* ct = ws;  // C^T: n x r
  byte* rest = ws + r * n * ES;
  blocked_transpose(a + mb * n * ES, ct, matrix_desc::packed(r, n, ES), threads);
  if (mb == n) {
    square<ES>(a, n, threads);
  } else {
#pragma omp parallel num_threads(threads)
    blocked<ES>(a, sp.b, rest);
  }
  // Each chunk's places start at lo * m, behind the rows lo .. hi - 1 it holds and past
  // the rows before lo, still unread at lo * mb.
  const index_t per = (sp.ws - r * n) / mb, row = mb * ES;
  for (index_t hi = n; hi > 0;) {
    const index_t lo = hi > per ? hi - per : 0;
#pragma omp parallel num_threads(threads) if (threads > 1 && hi - lo > 64)
    {
#pragma omp for schedule(static)
      for (index_t j = lo; j < hi; ++j) std::memcpy(rest + (j - lo) * row, a + j * row, static_cast<std::size_t>(row));
#pragma omp for schedule(static)
      for (index_t j = lo; j < hi; ++j) std::memcpy(a + j * m * ES, rest + (j - lo) * row, static_cast<std::size_t>(row));
    }
    hi = lo;
  }
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (index_t j = 0; j < n; ++j)
    std::memcpy(a + (j * m + mb) * ES, ct + j * r * ES, static_cast<std::size_t>(r * ES));
}

template <int ES>
void run(byte* data, const matrix_desc& d, byte* ws, std::size_t ws_bytes, int threads) {
  const index_t one = d.rows * d.cols;
  const inplace::rect_plan plan = inplace::make_rect_plan(d.rows, d.cols);
  const inplace::block_plan bp = inplace::make_block_plan(d.rows, d.cols, ES, false);
  if (bp.kind != inplace::block_kind::none) {
    // One parallel region for every matrix: the phases are work-shared loops.
#pragma omp parallel num_threads(threads)
    for (index_t b = 0; b < d.batch; ++b) blocked<ES>(data + b * one * ES, bp, ws);
    return;
  }
  if (d.rows != d.cols && d.rows > 1 && d.cols > 1)
    if (const inplace::split_plan sp = inplace::make_split_plan(d.rows, d.cols, ES, false); sp.r > 0) {
      for (index_t b = 0; b < d.batch; ++b) split<ES>(data + b * one * ES, d.rows, d.cols, sp, ws, threads);
      return;
    }
  for (index_t b = 0; b < d.batch; ++b) {
    byte* a = data + b * one * ES;
    if (d.rows == d.cols) {
      square<ES>(a, d.rows, threads);
    } else if (d.rows == 1 || d.cols == 1) {
      // A vector is its own transpose in memory.
    } else {
      for (int k = 0; k < plan.steps; ++k)
        pass<ES>(a, plan.map, plan.s[k], ws, static_cast<index_t>(ws_bytes / ES), threads);
    }
  }
}

}  // namespace

void inplace_host(void* data, const matrix_desc& d, void* workspace, std::size_t workspace_bytes,
                  int threads) noexcept {
#if !defined(_OPENMP)
  threads = 1;
#endif
  auto* p = static_cast<byte*>(data);
  auto* w = static_cast<byte*>(workspace);
  switch (d.elem_size) {
    case 1: run<1>(p, d, w, workspace_bytes, threads); break;
    case 2: run<2>(p, d, w, workspace_bytes, threads); break;
    case 4: run<4>(p, d, w, workspace_bytes, threads); break;
    case 8: run<8>(p, d, w, workspace_bytes, threads); break;
    default: run<16>(p, d, w, workspace_bytes, threads); break;
  }
}

}  // namespace xpose::detail
