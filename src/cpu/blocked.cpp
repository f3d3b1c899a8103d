// Fast CPU backend: out-of-place transpose by shape class, threaded with OpenMP, on
// the vector kernels of kernels_hwy.cpp (Highway, dispatched at run time).
//  - vectors (a row or a column, both sides contiguous): a copy;
//  - batches of tiny matrices (at most 128 bytes, output packed, the input's within 128
//    bytes): byte permutations of whole chunks of matrices (table lookups over up to
//    eight 16-byte blocks, the input's gaps read and left out);
//  - batches of small matrices with packed outputs (up to 8 KiB each): many whole
//    matrices per work item, 2..4 rows or columns (2..8 for 1-byte elements on vector
//    targets) by the (de)interleave kernels, the others by the micro-tiles;
//  - 2..4 rows or columns with a packed short side (2..8 for 1-2 byte elements on vector
//    targets, kernel_set::interleave_max): the (de)interleaves (Highway's, byte table
//    lookups past 4), streamed as runs of chunks;
//  - batches of small matrices of 8-64 KiB with packed outputs: whole matrices per item;
//  - everything else: macro tiles transposed into an L1 staging buffer by vector
//    micro-tiles, then copied out row segment by row segment.
// Outputs larger than the caches are written with non-temporal stores (as large
// memcpys are), from a staging buffer so that every line is streamed whole where the
// layout allows. Problems under serial_bytes run on the calling thread. Pointers need
// only be aligned to the element size. Assumes a validated, non-empty desc.
#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "../internal.hpp"
#include "kernels.hpp"

namespace xpose {
const char* cpu_backend_target() noexcept { return detail::cpu::kernels().target; }
}  // namespace xpose

namespace xpose::detail {
namespace {

using cpu::byte;

// Below this many bytes moved, a fork/join costs more than the second thread gains.
constexpr index_t serial_bytes = index_t{256} << 10;
// Work item size of the copy and (de)interleave paths; staging of small matrices.
constexpr index_t chunk_bytes = index_t{16} << 10;
constexpr index_t batch_stage_bytes = index_t{64} << 10;
// Batches of small matrices: whole matrices per work item up to about this many bytes (staged output in L1: 64 KiB
// items ran 1.1-1.4x the time on 16x16-64x64 u8 and 32x32 f16 batches, docs/RESULTS.md "CPU backend").
constexpr index_t batch_item_bytes = index_t{8} << 10;

/// Runs body(item) for item in [0, total): dynamic chunks of 8 items (on the shared
/// 2-core dev machine static halves stalled whenever one thread was preempted,
/// docs/RESULTS.md "CPU backend"); streamed lines are fenced before the barrier.
template <class F>
void for_items(index_t total, int threads, bool stream, const F& body) {
  const cpu::kernel_set& k = cpu::kernels();
  if (threads > 1 && total > 1) {
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(dynamic, 8)
      for (index_t t = 0; t < total; ++t) body(t);
      if (stream) k.fence();
    }
    return;
  }
  for (index_t t = 0; t < total; ++t) body(t);
  if (stream) k.fence();
}

/// What every path needs: byte pitches (0 where unused, so that an unused huge
/// leading dimension is never multiplied) and the copy-out.
struct layout {
  const byte* in;
  byte* out;
  index_t rows, cols, batch;
  index_t lds, ldd, sbi, sbo;  // bytes
  int es, e;                   // element size and its log2
  bool stream;
  const cpu::kernel_set* k;

  void copy_out(byte* dst, const byte* src, index_t n) const {
    if (stream) k->stream_copy(dst, src, n);
    else std::memcpy(dst, src, static_cast<std::size_t>(n));
  }
  const byte* src(index_t b, index_t r, index_t c) const { return in + b * sbi + r * lds + c * es; }
  byte* dst(index_t b, index_t r, index_t c) const { return out + b * sbo + c * ldd + r * es; }
};

int log2_of(int es) { return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : es == 8 ? 3 : 4; }

// Vectors whose two sides are contiguous: one copy per matrix, in chunks.
void run_copy(const layout& L, int threads) {
  const index_t n = L.rows * L.cols * L.es;
  const index_t chunks = (n + chunk_bytes * 4 - 1) / (chunk_bytes * 4);
  for_items(L.batch * chunks, threads, L.stream, [&](index_t t) {
    const index_t b = t / chunks, lo = (t % chunks) * chunk_bytes * 4, len = std::min(n - lo, chunk_bytes * 4);
    L.copy_out(L.out + b * L.sbo + lo, L.in + b * L.sbi + lo, len);
  });
}

// Streamed (de)interleaves: a work item is a run of chunks (about 16 runs a thread, dynamic scheduling for a preempted
// thread's share), so that each output row's pieces go front to back through cpu::stream_piece and no line is shared
// by two items' pieces but at a run's ends. chunk(b, ch, first, last, staged, line) moves chunk ch of matrix b through
// the thread's staging buffer and its line buffers (one per output row).
template <class F>
void for_chunk_runs(const layout& L, index_t chunks, int threads, const F& chunk) {
  const index_t G = std::max<index_t>(1, chunks * L.batch / (16 * std::max(threads, 1))), runs = (chunks + G - 1) / G;
#pragma omp parallel num_threads(threads) if (threads > 1 && L.batch * runs > 1)
  {
    alignas(64) byte staged[chunk_bytes];
    alignas(64) byte line[cpu::interleave_k_max][64];
#pragma omp for schedule(dynamic, 1)
    for (index_t it = 0; it < L.batch * runs; ++it) {
      const index_t b = it / runs, c0 = (it % runs) * G, c1 = std::min(chunks, c0 + G);
      for (index_t ch = c0; ch < c1; ++ch) chunk(b, ch, ch == c0, ch + 1 == c1, staged, line);
    }
    L.k->fence();
  }
}

// k = 2..interleave_max rows into packed output rows of k (AoS from SoA); chunks of w columns, whole output lines.
void run_interleave(const layout& L, int threads) {
  const int k = static_cast<int>(L.rows);
  const index_t w = std::max<index_t>(64, chunk_bytes / (k * L.es) / 64 * 64), chunks = (L.cols + w - 1) / w;
  if (!L.stream) {
    for_items(L.batch * chunks, threads, false, [&](index_t t) {
      const index_t b = t / chunks, c0 = (t % chunks) * w;
      L.k->interleave[L.e](L.src(b, 0, c0), L.lds, k, L.dst(b, 0, c0), std::min(w, L.cols - c0));
    });
    return;
  }
  for_chunk_runs(L, chunks, threads, [&](index_t b, index_t ch, bool first, bool last, byte* staged, byte(*line)[64]) {
    const index_t col = ch * w, n = std::min(w, L.cols - col);
    L.k->interleave[L.e](L.src(b, 0, col), L.lds, k, staged, n);
    cpu::stream_piece(*L.k, line[0], L.dst(b, 0, col), staged, n * k * L.es, first, last);  // the output is one run
  });
}

// Packed input rows of k = 2..interleave_max columns into k output rows (SoA from AoS); chunks of w rows.
void run_deinterleave(const layout& L, int threads) {
  const int k = static_cast<int>(L.cols);
  const index_t w = std::max<index_t>(64, chunk_bytes / (k * L.es) / 64 * 64), chunks = (L.rows + w - 1) / w;
  if (!L.stream) {
    for_items(L.batch * chunks, threads, false, [&](index_t t) {
      const index_t b = t / chunks, r0 = (t % chunks) * w, n = std::min(w, L.rows - r0);
      L.k->deinterleave[L.e](L.src(b, r0, 0), k, L.dst(b, r0, 0), L.ldd, n);
    });
    return;
  }
  for_chunk_runs(L, chunks, threads, [&](index_t b, index_t ch, bool first, bool last, byte* staged, byte(*line)[64]) {
    const index_t r0 = ch * w, n = std::min(w, L.rows - r0);
    L.k->deinterleave[L.e](L.src(b, r0, 0), k, staged, n * L.es, n);
    // The next chunk's input, a slice after each output row's piece (as run_tiled's tiles).
    const index_t nn = last ? 0 : std::min(w, L.rows - r0 - w) * k * L.es;
    for (int c = 0; c < k; ++c) {
      cpu::stream_piece(*L.k, line[c], L.dst(b, r0, c), staged + c * n * L.es, n * L.es, first, last);
      const index_t a = nn * c / k / 64 * 64, e = nn * (c + 1) / k;
      if (e > a) cpu::prefetch_run<false>(L.src(b, r0 + w, 0) + a, e - a);
    }
  });
}

/// Matrices per tiny_batch chunk of a batch of tiny matrices with packed outputs: chunks of at most four 16-byte
/// blocks a side where a matrix fits in them (their tables stay in registers), else eight; 0 where one matrix's
/// input (its rows' span) exceeds eight blocks or chunks would start under 16 bytes apart.
index_t tiny_chunk_matrices(index_t rows, index_t cols, index_t es, index_t lds, index_t sbi) {
  const index_t per = rows * cols * es, span1 = (rows - 1) * lds + cols * es;
  if (per > cpu::tiny_max || sbi < rows * lds) return 0;  // inputs must lie apart, in order
  const index_t cap = per <= cpu::tiny_max / 2 ? cpu::tiny_max / 2 : cpu::tiny_max;
  index_t m = cap / per;
  while (m > 1 && (m - 1) * sbi + span1 > cap) --m;
  return span1 <= cpu::tiny_max && m * sbi >= 16 ? m : 0;
}

// Batches of tiny matrices (output packed, at most cpu::tiny_max bytes each; input rows
// and matrices at any pitch, the chunk's input span at most tiny_max): m whole matrices
// per chunk, each chunk one byte permutation of at most eight 16-byte blocks (tiny_batch;
// the input's gaps are read with it and left out), staged per item and copied out.
void run_tiny_batch(const layout& L, index_t m, int threads) {
  const index_t E = L.es, R = L.rows, C = L.cols, per = R * C * E, bytes = m * per;
  const index_t in_stride = m * L.sbi, in_span = (m - 1) * L.sbi + (R - 1) * L.lds + C * E;
  alignas(16) byte masks[8][8][16];
  std::memset(masks, 0x80, sizeof masks);
  std::uint64_t pairs = 0;
  for (index_t j = 0; j < bytes; ++j) {  // output byte j of a chunk: its input byte
    const index_t k = j / per, t = j % per, e = t / E, b = t % E, c = e / R, r = e % R;
    const index_t from = k * L.sbi + r * L.lds + c * E + b;
    masks[j / 16][from / 16][j % 16] = static_cast<byte>(from % 16);
    pairs |= std::uint64_t{1} << (8 * (j / 16) + from / 16);
  }
  const index_t chunks = L.batch / m, per_item = std::max<index_t>(1, chunk_bytes / bytes);
  const index_t items = (chunks + per_item - 1) / per_item;
  for_items(items, threads, L.stream, [&](index_t t) {
    alignas(64) byte staged[chunk_bytes + cpu::tiny_max];
    const index_t c0 = t * per_item, n = std::min(per_item, chunks - c0);
    L.k->tiny_batch(L.in + c0 * in_stride, in_stride, in_span, staged, n, bytes, masks, pairs);
    L.copy_out(L.out + c0 * bytes, staged, n * bytes);
  });
  for (index_t b = chunks * m; b < L.batch; ++b)  // the matrices after the last whole chunk
    L.k->block[L.e](L.src(b, 0, 0), L.lds, L.dst(b, 0, 0), L.ldd, L.rows, L.cols);
}

// Batches of small matrices with packed outputs: m whole matrices per item, staged
// back to back when streaming so that the item's output is one contiguous copy; each
// matrix by the (de)interleave for 2..interleave_max rows (or packed columns), else the micro-tiles.
void run_small_batch(const layout& L, int threads) {
  const index_t per = L.rows * L.cols * L.es;
  const index_t m = std::max<index_t>(1, batch_item_bytes / per), items = (L.batch + m - 1) / m;
  // 5..8 rows or columns by the byte tables for 1-byte elements only: 2-byte ones keep the micro-tiles, whose 8 x 8
  // tiles hold such small matrices whole (random batches of 5..8 x 9..120 f16: 0.85-0.91 against the tables' 0.71-0.86).
  const index_t kmax = L.es == 1 ? L.k->interleave_max[0] : 4;
  const bool inter = L.rows >= 2 && L.rows <= kmax, deinter = !inter && L.cols >= 2 && L.cols <= kmax && L.lds == L.cols * L.es;
  for_items(items, threads, L.stream, [&](index_t t) {
    alignas(64) byte staged[batch_stage_bytes];
    const index_t b0 = t * m, nb = std::min(m, L.batch - b0);
    byte* o = L.dst(b0, 0, 0);
    byte* to = L.stream ? staged : o;
    for (index_t i = 0; i < nb; ++i) {
      if (inter) L.k->interleave[L.e](L.src(b0 + i, 0, 0), L.lds, static_cast<int>(L.rows), to + i * per, L.cols);
      else if (deinter) L.k->deinterleave[L.e](L.src(b0 + i, 0, 0), static_cast<int>(L.cols), to + i * per, L.ldd, L.rows);
      else L.k->block[L.e](L.src(b0 + i, 0, 0), L.lds, to + i * per, L.ldd, L.rows, L.cols);
    }
    if (L.stream) L.copy_out(o, staged, nb * per);
  });
}

/// Macro tile in elements (rows x cols of the input); at most 32 KiB, staged per thread.
struct tile_shape {
  index_t rows, cols;
  bool stage_input;  ///< copy the input rows to a buffer before the kernel reads them
};

// Chosen by measurement at 8192^2 on the 2-core EPYC (docs/RESULTS.md): output
// segments of 256-512 bytes (whole lines for the streaming stores), input segments
// of 128-512 bytes. One-byte micro-tiles read 32 rows that, at a power-of-two
// leading dimension, share one L1 set (8 ways) and thrash, so that size first copies
// its input rows contiguously when the pitch crowds the sets; for 2 bytes (16 rows)
// the extra copy cost more than it saved.
constexpr tile_shape tile_for(int es) {
  switch (es) {
    case 1: return {256, 128, true};  // 256-byte output pieces: ~10% over 128x128
    case 2: return {128, 128, false};
    case 4: return {64, 128, false};
    case 8: return {32, 64, false};
    default: return {32, 32, false};
  }
}
constexpr index_t max_tile_bytes = 32 << 10;
constexpr index_t whole_row_bytes = 1024;  // run_tiled: 32 or more columns per whole-rows tile

inline void prefetch_rows(const byte* src, index_t lds, index_t rows, index_t row_bytes) {
  for (index_t i = 0; i < rows; ++i) cpu::prefetch_run<false>(src + i * lds, row_bytes);
}

// Streamed outputs whose rows do not start on cache lines (odd row lengths): a work item is a panel of output rows
// (input columns), its tiles taken strip after strip, so that each output row is written front to back by one
// thread, piece by piece through cpu::stream_piece (whole lines streamed, none read before it is written; pieces of
// whole strips are TR * es >= 64 bytes).
void run_panels(const layout& L, index_t TR, index_t TC, bool stage_in, int threads) {
  const index_t es = L.es, ntr = (L.rows + TR - 1) / TR, ntc = (L.cols + TC - 1) / TC;
  // Input rows of at most 1 KiB: a panel takes them whole (P column tiles side by side, strip by strip), so that the
  // input lines two column tiles share are read once (478689x85 f32: 1.37x the time of the row strips with one tile a
  // panel, 0.93x with both). Longer rows: one tile a panel (44359x3776 u8: 0.55x against 0.66x with 1 KiB panels).
  constexpr index_t max_panel_rows = 512;
  const index_t P = ntc * TC * es <= 1024 && ntc * TC <= max_panel_rows ? ntc : 1;
  const index_t npc = (ntc + P - 1) / P, panels = L.batch * npc;
  // Strips per item: whole panels where there are enough of them to share among the threads.
  const index_t G = std::max<index_t>(1, std::min(ntr, panels * ntr / (16 * std::max(threads, 1))));
  const index_t groups = (ntr + G - 1) / G, items = panels * groups;
  const cpu::kernel_set& k = *L.k;
#pragma omp parallel num_threads(threads) if (threads > 1 && items > 1)
  {
    alignas(64) byte staged_out[max_tile_bytes];  // (TC, TR) transposed tile
    alignas(64) byte staged_in[max_tile_bytes];   // (TR, TC) input tile
    alignas(64) byte pending[max_panel_rows][64];  // per output row of the panel: the line its last piece ended in
#pragma omp for schedule(dynamic, 1)
    for (index_t it = 0; it < items; ++it) {
      const index_t pn = it / groups, g = it % groups, b = pn / npc, p0 = (pn % npc) * P * TC;
      const index_t pc = std::min(P * TC, L.cols - p0);  // the panel's columns
      const index_t s0 = g * G, s1 = std::min(ntr, s0 + G);
      for (index_t st = s0; st < s1; ++st) {
        const index_t r0 = st * TR, nr = std::min(TR, L.rows - r0);
        const bool first = st == s0, last = st + 1 == s1;
        for (index_t c0 = p0; c0 < p0 + pc; c0 += TC) {
          const index_t nc = std::min(TC, p0 + pc - c0);
          const byte* src = L.src(b, r0, c0);
          if (c0 + TC < p0 + pc) prefetch_rows(src + TC * es, L.lds, nr, std::min(TC, p0 + pc - c0 - TC) * es);
          else if (!last) prefetch_rows(L.src(b, r0 + TR, p0), L.lds, std::min(TR, L.rows - r0 - TR), std::min(TC, pc) * es);
          index_t ls = L.lds;
          if (stage_in) {
            for (index_t i = 0; i < nr; ++i)
              std::memcpy(staged_in + i * TC * es, src + i * L.lds, static_cast<std::size_t>(nc * es));
            src = staged_in;
            ls = TC * es;
          }
          const index_t ldt = TR * es, n = nr * es;
          k.block[L.e](src, ls, staged_out, ldt, nr, nc);
          for (index_t j = 0; j < nc; ++j)
            cpu::stream_piece(k, pending[c0 - p0 + j], L.dst(b, r0, c0 + j), staged_out + j * ldt, n, first, last);
        }
      }
    }
    k.fence();
  }
}

void run_tiled(layout L, int threads) {
  const tile_shape shape = tile_for(L.es);
  const index_t es = L.es;
  // Narrow matrices (N x 32) trade tile columns for rows: longer output pieces.
  index_t TC = std::min(shape.cols, L.cols), TR = shape.rows * (shape.cols / TC);
  // Packed output rows of more than TR elements but at most whole_row_bytes: a tile takes every row and as many
  // columns as fit the staging buffer, so that its output is one contiguous run, streamed whole, where rows of odd
  // lengths otherwise share their first and last lines with the next tile's and take ordinary stores.
  if (L.rows > TR && L.ldd == L.rows * es && L.rows * es <= whole_row_bytes) {
    TR = L.rows;
    TC = std::min(L.cols, max_tile_bytes / (L.rows * es));
  }
  // Row strips start where output row pieces start on a cache line: a piece that
  // covers only part of its first and last lines halves the streaming-store rate
  // (8192^2 fp32, output 32 bytes off a line: 17 vs 21 GB/s). The phase is common to
  // every output row when the row pitch (and batch stride) are whole lines.
  const bool lines_align = L.ldd % 64 == 0 && L.sbo % 64 == 0;
  // A matrix of at most TR rows with packed output rows (5..64 x N): a tile's output
  // is one contiguous run, staged at the output's pitch and copied out at once
  // instead of as rows of a few bytes each.
  const bool whole = L.rows <= TR && (L.cols == 1 || L.ldd == L.rows * es);
  // Streamed outputs whose rows do not start on cache lines (odd row lengths) run as panels, each output row written
  // front to back by one thread with only whole lines streamed (run_panels); 4-8 byte elements in pieces of 512 bytes
  // there (twice the rows, half the columns: 6007x6001 f32 0.92 -> 0.86 of the time of 256-byte pieces, 2473x6789 f64
  // 0.92 -> 0.81; u8 and f16 were faster with 256).
  if (L.stream && !lines_align && !whole && TR * es >= 64) {
    const index_t f = (es == 4 || es == 8) && TC >= 2 ? 2 : 1;  // the tile stays within the staging buffers
    return run_panels(L, TR * f, TC / f, shape.stage_input && cpu::crowds_l1_sets(L.lds), threads);
  }
  const index_t phase_bytes = static_cast<index_t>((64 - reinterpret_cast<std::uintptr_t>(L.out) % 64) % 64);
  const index_t phase = lines_align && !whole && phase_bytes / es < L.rows ? phase_bytes / es : 0;  // rows, < TR
  const index_t ntr = phase ? 1 + (L.rows - phase + TR - 1) / TR : (L.rows + TR - 1) / TR;
  const index_t ntc = (L.cols + TC - 1) / TC;
  const index_t per_matrix = ntr * ntc, total = L.batch * per_matrix;

  struct tile {
    const byte* src;
    byte* dst;
    index_t rows, cols;
  };
  auto tile_at = [&](index_t t) {
    const index_t b = t / per_matrix, rem = t % per_matrix;
    const index_t strip = rem / ntc, c0 = (rem % ntc) * TC;
    const index_t r0 = phase == 0 ? strip * TR : strip == 0 ? 0 : phase + (strip - 1) * TR;
    const index_t r1 = phase != 0 && strip == 0 ? phase : std::min(r0 + TR, L.rows);
    return tile{L.src(b, r0, c0), L.dst(b, r0, c0), r1 - r0, std::min(TC, L.cols - c0)};
  };

  const bool direct = !L.stream && !cpu::crowds_l1_sets(L.ldd);
  const bool stage_in = shape.stage_input && cpu::crowds_l1_sets(L.lds);  // the same conflict on the read side
  // Tiles run row strip by row strip (column tiles fastest), so each thread reads
  // input rows front to back.
  for_items(total, threads, L.stream, [&](index_t t) {
    alignas(64) byte staged_out[max_tile_bytes];  // (TC, TR) transposed tile
    alignas(64) byte staged_in[max_tile_bytes];   // (TR, TC) input tile
    const tile x = tile_at(t);
    const bool has_next = t + 1 < total;
    const tile next = has_next ? tile_at(t + 1) : x;
    // The next tile's input rows: spread over this tile's output pieces where it copies them out one by one, so that
    // the reads overlap the streamed writes (issued at once, the prefetches stalled until most of them had landed and
    // the tile's reads and writes ran one after the other: 8192^2 u8 7.1 -> 5.1 ms, docs/RESULTS.md "CPU backend").
    const bool piecewise = !direct && !whole;
    if (has_next && !piecewise) prefetch_rows(next.src, L.lds, next.rows, next.cols * es);
    if (has_next && !L.stream)  // and its output rows, written in place
      for (index_t j = 0; j < next.cols; ++j) cpu::prefetch_run<true>(next.dst + j * L.ldd, next.rows * es);
    const byte* src = x.src;
    index_t ls = L.lds;
    if (stage_in) {
      for (index_t i = 0; i < x.rows; ++i)
        std::memcpy(staged_in + i * TC * es, x.src + i * L.lds, static_cast<std::size_t>(x.cols * es));
      src = staged_in;
      ls = TC * es;
    }
    // Without streaming the tile goes straight to the output, unless its rows crowd
    // into a few L1 sets.
    if (direct) return L.k->block[L.e](src, ls, x.dst, L.ldd, x.rows, x.cols);
    const index_t ldt = whole ? L.rows * es : TR * es;
    L.k->block[L.e](src, ls, staged_out, ldt, x.rows, x.cols);
    if (whole) return L.copy_out(x.dst, staged_out, x.cols * ldt);
    for (index_t j = 0; j < x.cols; ++j) {
      L.copy_out(x.dst + j * L.ldd, staged_out + j * ldt, x.rows * es);
      if (has_next) {
        const index_t a = j * next.rows / x.cols, b = (j + 1) * next.rows / x.cols;
        prefetch_rows(next.src + a * L.lds, L.lds, b - a, next.cols * es);
      }
    }
  });
}

}  // namespace

void blocked_transpose(const void* in, void* out, const matrix_desc& d, int threads) noexcept {
#if defined(_OPENMP)
  if (threads <= 0) threads = omp_get_max_threads();
#else
  threads = 1;
#endif
  const index_t es = d.elem_size;
  layout L{static_cast<const byte*>(in), static_cast<byte*>(out), d.rows, d.cols, d.batch,
           d.rows > 1 ? d.ld_in * es : 0, d.cols > 1 ? d.ld_out * es : 0,
           d.batch > 1 ? d.stride_in * es : 0, d.batch > 1 ? d.stride_out * es : 0,
           d.elem_size, log2_of(d.elem_size), false, &cpu::kernels()};
  const index_t moved = d.rows * d.cols * d.batch * es;
  if (moved < serial_bytes) threads = 1;
  L.stream = L.ldd * (d.cols - 1) + L.sbo * (d.batch - 1) + d.rows * es >= cpu::stream_min_bytes;

  const bool in_packed = d.rows == 1 || d.ld_in == d.cols;    // a matrix's input is one run
  const bool out_packed = d.cols == 1 || d.ld_out == d.rows;  // and its output
  const index_t per = d.rows * d.cols;
  if ((d.rows == 1 || d.cols == 1) && in_packed && out_packed) {
    if (d.batch == 1 || (d.stride_in == per && d.stride_out == per)) {
      L.rows = 1, L.cols = per * d.batch, L.batch = 1;  // one run over every matrix
    }
    return run_copy(L, threads);
  }
  if (d.batch > 1 && out_packed && d.stride_out == per && L.k->tiny_batch != nullptr)
    if (const index_t m = tiny_chunk_matrices(d.rows, d.cols, es, L.lds, L.sbi); m > 0) return run_tiny_batch(L, m, threads);
  // Batches of small matrices: whole matrices per item. Past an item's bytes, 2..4 rows or columns keep their
  // (de)interleave paths (long rows in 16 KiB pieces); below.
  const bool batch_out = d.batch > 1 && out_packed && d.stride_out == per;
  if (batch_out && per * es <= batch_item_bytes) return run_small_batch(L, threads);
  // Matrices of at most 64 KiB with 5..8 rows or columns stay whole (run_small_batch): one item's (de)interleave of
  // a 7 x 903 f16 matrix wrote rows of 1806 bytes through stream_piece (0.50 of memcpy against 0.74).
  const bool staged = batch_out && per * es <= batch_stage_bytes;
  const index_t kmax = staged ? 4 : L.k->interleave_max[L.e];
  if (d.rows >= 2 && d.rows <= kmax && out_packed) return run_interleave(L, threads);
  if (d.cols >= 2 && d.cols <= kmax && in_packed) return run_deinterleave(L, threads);
  if (staged) return run_small_batch(L, threads);
  run_tiled(L, threads);
}

}  // namespace xpose::detail
