// CPU executor of plans: one memcpy, strided copies of contiguous runs, the blocked
// 2-D backend for batched matrices, and blocked N-d permutation (tiles along the
// input's and the output's fastest dims, OpenMP threads over tiles and outer dims).
// Assumes a validated, non-empty plan and checked pointers.
#include <algorithm>
#include <array>
#include <cstring>
#include <initializer_list>
#include <type_traits>
#include <utility>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "../core/core.hpp"
#include "../core/elem.hpp"
#include "../core/span_map.hpp"
#include "../internal.hpp"
#include "kernels.hpp"

namespace xpose::detail {
namespace {

using cpu::byte;

// Offsets of a flat index over `r` dims (outermost first), walked by next().
struct odometer {
  int r = 0;
  index_t n[layout::max_rank] = {}, is[layout::max_rank] = {}, os[layout::max_rank] = {};
  index_t i[layout::max_rank] = {};
  index_t in_off = 0, out_off = 0;

  void add(index_t extent, index_t in_stride, index_t out_stride) {
    n[r] = extent, is[r] = in_stride, os[r] = out_stride, ++r;
  }
  index_t count() const {
    index_t c = 1;
    for (int k = 0; k < r; ++k) c *= n[k];
    return c;
  }
  void seek(index_t flat) {
    in_off = out_off = 0;
    for (int k = r - 1; k >= 0; --k) {
      i[k] = flat % n[k], flat /= n[k];
      in_off += i[k] * is[k], out_off += i[k] * os[k];
    }
  }
  void next() {
    for (int k = r - 1; k >= 0; --k) {
      in_off += is[k], out_off += os[k];
      if (++i[k] < n[k]) return;
      in_off -= n[k] * is[k], out_off -= n[k] * os[k];
      i[k] = 0;
    }
  }
};

int resolve_threads(int threads) {
#if defined(_OPENMP)
  return threads <= 0 ? omp_get_max_threads() : threads;
#else
  (void)threads;
  return 1;
#endif
}

void parallel_memcpy(byte* dst, const byte* src, index_t bytes, int threads) {
  constexpr index_t chunk = index_t{1} << 20;
  const index_t n = (bytes + chunk - 1) / chunk;
#pragma omp parallel for num_threads(threads) schedule(static) if (n > 1)
  for (index_t c = 0; c < n; ++c)
    std::memcpy(dst + c * chunk, src + c * chunk, static_cast<std::size_t>(std::min(chunk, bytes - c * chunk)));
}

// Unit-stride permutations as 2-D tiles. A tile element is W bytes: one element
// (permute_nd: the input's fastest dim and the output's both contiguous), or a whole
// kept row of a strided copy. The tile's A side runs over a group of input dims
// contiguous in the input (input fastest first), its B side over a group of output dims
// contiguous in the output (output fastest first), the two disjoint (the GPU's packed
// tile, src/core/nd_map.hpp): with combined indices i (A) and j (B), tile element
// (j, i) is input i W + in_B(j) and output j W + out_A(i), where in_B and out_A dot the
// digits of j and i with the other side's strides (bytes). Short fastest dims are
// packed so that tile sides are whole lines. Input rows j are evenly spaced in runs of
// the B group's fastest dim, output rows i in runs of A's: runs shorter than a
// micro-tile are gathered into an L1 buffer (input) or staged and copied out row by row
// (output); longer runs go straight through the micro-tiles.
struct digits {  // a group of dims, fastest first: extents and the other side's strides (bytes)
  int g = 0;
  index_t n[layout::max_rank] = {}, s[layout::max_rank] = {};
  int dim[layout::max_rank] = {};  // their output dims
  index_t off(index_t x) const {
    index_t o = 0;
    for (int k = 0; k + 1 < g; ++k) o += (x % n[k]) * s[k], x /= n[k];
    return o + x * s[g - 1];
  }
};

struct unit_tiles {
  digits a, b;                    // A: input dims (strides: output), B: output dims (strides: input)
  index_t W = 0, NA = 0, NB = 0;  // element bytes; combined extents
  index_t TI = 0, TJ = 0, ni = 0, nj = 0;  // tile sides (elements), tile counts
  bool ok() const { return a.g > 0; }
};

// Tile side for n elements: about `target` elements, whole micro-tiles (`edge`), the
// tiles of one side about equal (75 -> 40 + 35 rather than 64 + 11).
inline index_t tile_side(index_t n, index_t target, index_t edge) {
  const index_t k = (n + target - 1) / target, even = (n + k - 1) / k;
  return std::min(n, (even + edge - 1) / edge * edge);
}

// Tiles over input dims r - lvl, r - lvl - 1, ... (A) and output dims r - lvl, ... (B),
// with tile elements of `unit` plan elements of E bytes; !ok() when the layout does not
// allow them. Of the group pairs, the one whose runs come closest to the side target
// on both sides (min(run bytes, target) multiplied), then the fewest dims: one dim per
// side wherever it already reaches the target.
unit_tiles plan_unit_tiles(const plan& p, int lvl, index_t unit, index_t E) {
  const int r = p.out.rank, d = r - lvl;
  unit_tiles u{};
  if (d < 0 || p.in.strides[d] != unit || p.out.strides[d] != unit || p.axes[d] == d) return u;
  int out_of[layout::max_rank] = {};  // input dim -> output dim
  for (int k = 0; k < r; ++k) out_of[p.axes[k]] = k;
  const index_t W = unit * E;
  // Side targets: 256 bytes (whole lines on both sides, tiles of 4..32 KiB, as the 2-D
  // backend's macro tiles, docs/RESULTS.md "CPU backend"); wide elements (kept rows)
  // 1 KiB, for fewer pages per tile.
  const index_t side_bytes = W > 16 ? 1024 : 256;
  double best = -1;
  int best_ga = 0, best_gb = 0;
  index_t na = 1;
  for (int ga = 1; ga <= d + 1; ++ga) {  // A: input dims d .. d - ga + 1
    const int j = d - ga + 1;
    if (out_of[j] == d || (ga > 1 && p.in.strides[j] != p.in.extents[j + 1] * p.in.strides[j + 1])) break;
    na *= p.in.extents[j];
    index_t nb = 1;
    for (int gb = 1; gb <= d + 1; ++gb) {  // B: output dims d .. d - gb + 1, their input dims outside A
      const int k = d - gb + 1;
      if ((p.axes[k] <= d && p.axes[k] >= j) || (gb > 1 && p.out.strides[k] != p.out.extents[k + 1] * p.out.strides[k + 1]))
        break;
      nb *= p.out.extents[k];
      const double f = static_cast<double>(std::min(na * W, side_bytes)) * static_cast<double>(std::min(nb * W, side_bytes));
      if (f > best + 0.5 || (f > best - 0.5 && ga + gb < best_ga + best_gb)) best = f, best_ga = ga, best_gb = gb;
    }
  }
  if (best_ga == 0) return u;
  u.W = W, u.NA = 1, u.NB = 1;
  u.a.g = best_ga, u.b.g = best_gb;
  for (int i = 0; i < best_ga; ++i) {
    const int j = d - i;
    u.a.n[i] = p.in.extents[j], u.a.s[i] = p.out.strides[out_of[j]] * E, u.a.dim[i] = out_of[j];
    u.NA *= u.a.n[i];
  }
  for (int i = 0; i < best_gb; ++i) {
    const int k = d - i;
    u.b.n[i] = p.out.extents[k], u.b.s[i] = p.in.strides[p.axes[k]] * E, u.b.dim[i] = k;
    u.NB *= u.b.n[i];
  }
  const index_t target = W == 1 ? 128 : std::max<index_t>(4, side_bytes / W), edge = W >= 16 ? 1 : 32 / W;
  u.TI = tile_side(u.NA, target, edge), u.TJ = tile_side(u.NB, target, edge);
  u.ni = (u.NA + u.TI - 1) / u.TI, u.nj = (u.NB + u.TJ - 1) / u.TJ;
  return u;
}

// W bytes (W >= 16) as overlapping 16-byte pieces: W / 16 + 1 moves a row whatever W, where pieces of a power of two
// dividing W took up to W moves (37-byte rows: 37).
inline void copy_overlapped(byte* to, const byte* from, index_t W) {
  auto piece = [&](index_t at) {
    std::uint64_t v[2];
    std::memcpy(v, from + at, 16);
    std::memcpy(to + at, v, 16);
  };
  for (index_t q = 0; q + 16 < W; q += 16) piece(q);
  piece(W - 16);
}
// n bytes, inline: overlapping moves of the widest power of two up to 16 not above n (two where n is under 16, n / 16
// + 1 from 16), where a memcpy call per row of a tile's gathered or staged rows of a few dozen bytes cost about as much
// as the row's bytes.
inline void copy_short(byte* to, const byte* from, index_t n) {
  auto two = [&](auto v) {
    constexpr index_t k = sizeof(v);
    std::memcpy(&v, from, k);
    decltype(v) u;
    std::memcpy(&u, from + n - k, k);
    std::memcpy(to, &v, k);
    std::memcpy(to + n - k, &u, k);
  };
  if (n >= 16) return copy_overlapped(to, from, n);
  if (n >= 8) return two(std::uint64_t{});
  if (n >= 4) return two(std::uint32_t{});
  if (n >= 2) return two(std::uint16_t{});
  if (n == 1) *to = *from;
}
// The transpose of a rows x cols block of kept rows that no vector micro-tile moves: rows of a constant W < 32 bytes
// are one inline copy each (a few moves, where 3-byte rows took three byte moves and a loop), longer ones
// overlapping 16-byte pieces (W = 0: the run-time width w).
// A row of W bytes whose width is not a power of two moves as one wider move (4, 8 or 16 bytes) where the bytes past
// it are the next row of the same block on both sides (not the block's last output row or last input column): the
// spill is rewritten by the next row's move, and one load and store replace two or three (3-byte rows: 2 + 2 moves).
template <int W>
void rows_block(const byte* s, index_t lds, byte* d, index_t ldd, index_t rows, index_t cols, index_t w) {
  constexpr int M = W <= 4 ? 4 : W <= 8 ? 8 : 16;
  for (index_t c = 0; c < cols; ++c) {
    byte* o = d + c * ldd;
    const byte* in = s + c * W;
    index_t r = 0;
    if constexpr (W > 0 && W < 16 && M != W)
      if (c + 1 < cols)
        for (; r + 1 < rows; ++r) {
          byte v[M];
          std::memcpy(v, in + r * lds, M);
          std::memcpy(o + r * W, v, M);
        }
    for (; r < rows; ++r) {
      if constexpr (W > 0) std::memcpy(o + r * W, in + r * lds, W);
      else copy_overlapped(o + r * w, s + r * lds + c * w, w);
    }
  }
}
using rows_block_fn = void (*)(const byte*, index_t, byte*, index_t, index_t, index_t, index_t);
template <int... Ws>
constexpr std::array<rows_block_fn, sizeof...(Ws)> rows_blocks(std::integer_sequence<int, Ws...>) {
  return {{&rows_block<Ws>...}};
}
/// rows_block_of[W] for W < 32; [0]: the run-time width (W >= 32).
constexpr std::array<rows_block_fn, 32> rows_block_of = rows_blocks(std::make_integer_sequence<int, 32>{});

// Calls f(k, offset) for rows k0 .. k0 + n - 1 (k counted from 0) of a group: row
// k0 + k lies at g.off(k0 + k) bytes. Divisions once, then digit steps.
template <class F>
void group_rows(const digits& g, index_t k0, index_t n, const F& f) {
  index_t c[layout::max_rank], x = k0, off = 0;  // digits 0 .. g - 1 set below (a zeroed array cost a rep stos per call)
  for (int q = 0; q + 1 < g.g; ++q) c[q] = x % g.n[q], off += c[q] * g.s[q], x /= g.n[q];
  c[g.g - 1] = x, off += x * g.s[g.g - 1];
  for (index_t k = 0; k < n; ++k) {
    f(k, off);
    int q = 0;
    for (; q + 1 < g.g && c[q] + 1 == g.n[q]; ++q) off -= c[q] * g.s[q], c[q] = 0;
    ++c[q], off += g.s[q];
  }
}

// Calls f(offset, bytes) for the lines to prefetch of rows k0 .. k0 + n - 1 of a group, each `len` bytes: rows less
// than a line apart (rows of 13 bytes side by side) as one span per run of the group's fastest digit, others one by one.
template <class F>
void group_spans(const digits& g, index_t k0, index_t n, index_t len, const F& f) {
  const index_t s0 = g.s[0];
  if (s0 < 0 || s0 - len >= 64) return group_rows(g, k0, n, [&](index_t, index_t o) { f(o, len); });
  for (index_t k = 0; k < n;) {  // a run: the rows up to the end of this digit-0 cycle
    const index_t m = std::min(n - k, g.n[0] - (k0 + k) % g.n[0]);
    f(g.off(k0 + k), (m - 1) * s0 + len);
    k += m;
  }
}

// Runs the tiles of u; `outer` enumerates every other dim (offsets in plan elements of E bytes).
void permute_unit(const unit_tiles& u, odometer outer, const byte* in, byte* out, index_t E, index_t moved,
                  int threads) {
  const cpu::kernel_set& k = cpu::kernels();
  const index_t W = u.W;
  const int e = W == 1 ? 0 : W == 2 ? 1 : W == 4 ? 2 : W == 8 ? 3 : W == 16 ? 4 : -1;
  auto block = [&](const byte* s, index_t lds, byte* d, index_t ldd, index_t rows, index_t cols) {
    if (e >= 0) k.block[e](s, lds, d, ldd, rows, cols);
    else rows_block_of[W < 32 ? static_cast<std::size_t>(W) : 0](s, lds, d, ldd, rows, cols, W);
  };
  const index_t tiles = u.ni * u.nj, total = outer.count() * tiles;
  if (moved < (index_t{256} << 10)) threads = 1;  // no fork/join for small work
  struct tile {
    const byte* src;  // input row j0, element i0
    byte* dst;        // output row i0 (a0, a1), element j0
    index_t i0, j0, ti, tj;
  };
  // A cursor over the outer dims: consecutive tiles step it where seek() divides once per outer dim.
  struct cursor {
    odometer o;
    index_t at = -1;  // the outer index o points to
  };
  auto tile_at = [&](cursor& c, index_t t) {
    const index_t q = t / tiles;
    if (q != c.at) {
      if (c.at >= 0 && q == c.at + 1) c.o.next();
      else c.o.seek(q);
      c.at = q;
    }
    const odometer& o = c.o;
    const index_t rem = t - q * tiles, j0 = (rem / u.ni) * u.TJ, i0 = (rem % u.ni) * u.TI;
    return tile{in + o.in_off * E + i0 * W, out + o.out_off * E + j0 * W, i0, j0, std::min(u.TI, u.NA - i0),
                std::min(u.TJ, u.NB - j0)};
  };
  auto in_row = [&](const byte* s, index_t j) { return s + u.b.off(j); };
  auto out_row = [&](byte* d, index_t i) { return d + u.a.off(i); };
  const index_t nA0 = u.a.n[0], nB0 = u.b.n[0];  // runs of evenly spaced rows
  const bool crowded = cpu::crowds_l1_sets(u.a.s[0]);
  // A tile's rows split into runs of nA0 (output side) or nB0 (input side) leave each run's last micro-tile partial;
  // where that costs over a quarter more micro-tiles (of a 32-byte micro-tile's edge) than the whole tile, the rows
  // go through L1 instead (staged, gathered), so that the block sees the tile whole. Only 1-4 byte units (edges of
  // 8-32 elements): wider ones lose little to a partial micro-tile and more to the copies; kept rows that no
  // micro-tile moves (e < 0) take any block whole.
  auto ragged = [&](index_t n) {
    if (e < 0 || W > 4) return false;
    const index_t edge = 32 / W;
    return (n + edge - 1) / edge * edge * 4 > 5 * n;
  };
  const bool stage_runs = ragged(nA0), gather_runs = ragged(nB0);
  // Chunks of about 1 MiB of tiles (at least 16 tiles, at least 8 chunks a thread): the prefetch of tile t + 1 serves
  // its own thread, and the threads take turns at the chunk counter and at the lines their tiles share less often (two
  // threads, tiles of 0.7-3 KiB: 0.59-0.75 of the time with chunks of 16 tiles).
  const index_t tile_bytes = std::max<index_t>(1, u.TI * u.TJ * W);
  const index_t chunk = std::max<index_t>(16, std::min((index_t{1} << 20) / tile_bytes, total / (8 * threads)));
#pragma omp parallel num_threads(threads) if (threads > 1 && total > 1)
  {
    alignas(64) byte gathered[32 << 10];  // (TJ, TI) input rows
    alignas(64) byte staged[32 << 10];    // (TI, TJ) output rows
    cursor here{outer}, ahead{outer};
#pragma omp for schedule(dynamic, chunk)
    for (index_t t = 0; t < total; ++t) {
      const tile x = tile_at(here, t);
      if (t + 1 < total) {  // the next tile's rows, both sides, while this one is worked on
        const tile n = tile_at(ahead, t + 1);
        cpu::line_prefetcher<false> pin;
        cpu::line_prefetcher<true> pout;
        group_spans(u.b, n.j0, n.tj, n.ti * W, [&](index_t o, index_t bytes) { pin(n.src + o, bytes); });
        group_spans(u.a, n.i0, n.ti, n.tj * W, [&](index_t o, index_t bytes) { pout(n.dst + o, bytes); });
      }
      // Input rows: runs of evenly spaced rows (one b1 each), or gathered when the
      // runs are shorter than a micro-tile.
      const bool gather = x.j0 % nB0 + x.tj > nB0 && (nB0 < 16 || gather_runs);
      if (gather)
        group_rows(u.b, x.j0, x.tj, [&](index_t j, index_t o) {
          copy_short(gathered + j * x.ti * W, x.src + o, x.ti * W);
        });
      // Output rows: straight to the output, in runs of evenly spaced rows, unless they
      // crowd L1 sets or the runs are shorter than a micro-tile (16 bytes of rows): then
      // staged and copied out row by row.
      const bool stage = crowded || (x.i0 % nA0 + x.ti > nA0 && (nA0 * W < 16 || stage_runs));
      for (index_t j = 0; j < x.tj;) {
        const index_t nj = gather ? x.tj : std::min(x.tj - j, nB0 - (x.j0 + j) % nB0);
        const byte* rows = gather ? gathered : in_row(x.src, x.j0 + j);
        const index_t lds = gather ? x.ti * W : u.b.s[0];
        if (stage) {
          block(rows, lds, staged + j * W, x.tj * W, nj, x.ti);
        } else {
          for (index_t i = 0; i < x.ti;) {
            const index_t ni = std::min(x.ti - i, nA0 - (x.i0 + i) % nA0);
            block(rows + i * W, lds, out_row(x.dst, x.i0 + i) + j * W, u.a.s[0], nj, ni);
            i += ni;
          }
        }
        j += nj;
      }
      if (stage)
        group_rows(u.a, x.i0, x.ti, [&](index_t i, index_t o) {
          copy_short(x.dst + o, staged + i * x.tj * W, x.tj * W);
        });
    }
  }
}

// The dims of a plan other than those in `skip`, as an odometer in the input's order
// (largest input stride first), so that consecutive slices continue the input's runs.
odometer outer_dims(const plan& p, std::initializer_list<int> skip, const unit_tiles* u = nullptr) {
  bool in_tile[layout::max_rank] = {};  // per output dim
  for (const int k : skip) in_tile[k] = true;
  if (u != nullptr) {
    for (int i = 0; i < u->a.g; ++i) in_tile[u->a.dim[i]] = true;
    for (int i = 0; i < u->b.g; ++i) in_tile[u->b.dim[i]] = true;
  }
  odometer o;
  const int r = p.out.rank;
  for (int j = 0; j < r; ++j)
    for (int k = 0; k < r; ++k)
      if (p.axes[k] == j && !in_tile[k]) o.add(p.out.extents[k], p.in.strides[j], p.out.strides[k]);
  return o;
}

template <int E, bool Conj>
void permute_span(const plan& p, const byte* in_b, byte* out_b, int threads);
constexpr index_t cpu_span_thin = 12, cpu_span_thin_bytes = 32, cpu_span_row_bytes = 16;  // permute_span below

// Identity order with the last dim shared: rows of L elements, in output order. The
// input runs are scattered, which the hardware prefetchers do not follow: the rows
// about 4 KiB ahead are prefetched (input for reading, output for writing).
template <int E, bool Conj>
void strided_copy(const plan& p, const byte* in, byte* out, int threads) {
  using T = typename uint_of<E>::type;
  const int r = p.out.rank;
  const index_t L = p.out.extents[r - 1], is = p.in.strides[r - 1], os = p.out.strides[r - 1];
  const bool runs = !Conj && is == 1 && os == 1;
  if (runs && L * E < 256) {  // short rows: tiles of whole rows, fewer pages per line
    const unit_tiles u = plan_unit_tiles(p, 2, L, E);
    if (u.ok()) return permute_unit(u, outer_dims(p, {r - 1}, &u), in, out, E, p.count * E, threads);
    // Rows that cannot tile (gaps between them on the input: a view's rows of 3 f32 at a pitch of 4) and are short:
    // the span tile's gather, where the row loop's per-row work dwarfed the moves (12-byte rows: 0.28 of its time).
    if (L <= cpu_span_thin && L * E <= cpu_span_row_bytes) return permute_span<E, Conj>(p, in, out, threads);
  }
  odometer rows;
  for (int k = 0; k < r - 1; ++k) rows.add(p.out.extents[k], p.in.strides[p.axes[k]], p.out.strides[k]);
  const index_t nrows = rows.count();
  const index_t per = std::max<index_t>(1, (index_t{1} << 16) / (L * E));  // rows per work item
  const index_t items = (nrows + per - 1) / per;
  const index_t ahead_rows = std::max<index_t>(1, (index_t{4} << 10) / (L * E));
  // A packed output of at least cpu::stream_min_bytes is one run that each work item writes a piece of front to back:
  // its rows of 256 bytes or more go out through cpu::stream_piece (whole lines streamed, the lines two rows share
  // carried between them), so that no output line is read before it is written (rows of 128-512 bytes 0.65-0.73 of
  // the time of plain copies; a view's 79-byte rows took 1.6x with it).
  bool packed_out = true;
  for (index_t k = r - 1, n = 1; k >= 0 && packed_out; n *= p.out.extents[k], --k) packed_out = p.out.strides[k] == n;
  const bool stream = runs && packed_out && L * E >= 256 && p.count * E >= cpu::stream_min_bytes;
  const cpu::kernel_set& kk = cpu::kernels();
#pragma omp parallel num_threads(threads) firstprivate(rows) if (items > 1)
  {
    alignas(64) cpu::byte line[64];
#pragma omp for schedule(static)
    for (index_t w = 0; w < items; ++w) {
      const index_t r0 = w * per, r1 = std::min(nrows, r0 + per);
      rows.seek(r0);
      odometer ahead = rows;
      const bool prefetch = runs && r0 + ahead_rows < nrows;
      if (prefetch) ahead.seek(r0 + ahead_rows);
      for (index_t row = r0; row < r1; ++row, rows.next()) {
        const T* s = reinterpret_cast<const T*>(in) + rows.in_off;
        T* d = reinterpret_cast<T*>(out) + rows.out_off;
        if (prefetch && row + ahead_rows < nrows) {
          cpu::prefetch_run<false>(in + ahead.in_off * E, L * E);
          if (!stream) cpu::prefetch_run<true>(out + ahead.out_off * E, L * E);
          ahead.next();
        }
        if (stream)
          cpu::stream_piece(kk, line, reinterpret_cast<cpu::byte*>(d), reinterpret_cast<const cpu::byte*>(s), L * E,
                            row == r0, row + 1 == r1);
        else if (runs) std::memcpy(d, s, static_cast<std::size_t>(L * E));
        else
          for (index_t c = 0; c < L; ++c) d[c * os] = pass<E, Conj>(s[c * is]);
      }
    }
    if (stream) kk.fence();
  }
}

// The span tile on the CPU (src/core/span_map.hpp, the GPU planner's tile): per tile, every element in output order
// read from its input offset through tables built once per call (a tile's input is its runs, in cache after their
// first touch); tiles split over the threads in contiguous ranges. Scalar, so it runs behind the SIMD tiles except
// where those are thin: a side of at most cpu_span_thin elements and cpu_span_thin_bytes bytes (a batch of 5 x 11
// transposes: 11 x 5 tiles), and for short kept rows that cannot tile (strided_copy). Measured (docs/RESULTS.md "CPU backend"): sides of 4-11 elements and 7-32 bytes
// 1.2-3.8x faster; 30 one-byte elements and 8 eight-byte ones slower.
template <int E, bool Conj>
void permute_span(const plan& p, const byte* in_b, byte* out_b, int threads) {
  using T = typename uint_of<E>::type;
  const span_choice c = span_choose(p, in_b, out_b);
  span_map m = make_span_map<span_map>(p, c);
  // Tiles in the order of the side whose runs are shorter (the map's is the output's): the lines those runs share
  // with the neighbouring tiles are then still in cache when the next tile reads or writes them (a batch of 7 x 11
  // u8 blocks, 77-byte input runs 31 KB apart against 2002-byte output runs: 0.05 -> 0.14 of memcpy).
  index_t ui = 0, uo = 0, sp = 0, g = 0;
  span_detail::span_runs(p, c, in_b, out_b, &ui, &sp, &g, &uo, &sp, &g);
  if (ui < uo) {  // outer digits by input stride, smallest first
    for (int a = 1; a < m.outer_rank; ++a)
      for (int k = a; k > 0; --k) {
        auto mag = [](index_t v) { return v < 0 ? -v : v; };
        if (mag(m.outer_is[k]) >= mag(m.outer_is[k - 1])) break;
        std::swap(m.outer_n[k], m.outer_n[k - 1]), std::swap(m.outer_is[k], m.outer_is[k - 1]);
        std::swap(m.outer_os[k], m.outer_os[k - 1]), std::swap(m.short_at[k], m.short_at[k - 1]);
      }
  }
  const int V = m.V;
  constexpr int VMAX = span_max_elems(1);  // the most any element size's tile holds (span_map.hpp)
  static_assert(span_max_elems(2) <= VMAX && span_max_elems(4) <= VMAX && span_max_elems(8) <= VMAX &&
                    span_max_elems(16) <= VMAX,
                "one table size");
  const T* in = reinterpret_cast<const T*>(in_b);
  T* out = reinterpret_cast<T*>(out_b);
  const index_t tiles = m.tiles;
  if (p.count * E < (index_t{256} << 10)) threads = 1;
  // Offsets of 32 bits where every tile offset fits (tables of 16 KiB, where 64-bit ones fill the 32 KiB of L1 that
  // the tile's lines need too), else 64.
  const bool fit32 = span_offsets_fit32(p, c);
  // A tile moves run by run along its output runs: one offset per run, a table of the input offset per element (a
  // gather into a store stream), 1-4 byte elements gathered 8 bytes at a time into a register and stored at once:
  // one store per 8 bytes, where a store per element was the limit (37x230x410x7x11 u8, CPU time at one thread:
  // 163 -> 79 ms; docs/RESULTS.md "CPU backend": "The span tile run by run").
  struct runs_t {
    std::int64_t at[VMAX];
    std::uint16_t len[VMAX];
    int n = 0;
    void add(index_t o) {
      if (n > 0 && at[n - 1] + len[n - 1] == o) ++len[n - 1];
      else at[n] = o, len[n] = 1, ++n;
    }
  };
  auto run = [&](auto* ioff, auto* ooff) {
    using off_t = std::remove_pointer_t<decltype(ioff)>;
    unsigned char edge[VMAX];
    // The input runs give the lines to prefetch for the next tile while this one is moved: the hardware prefetchers
    // do not follow a tile's dozens of short runs (61x47x103x9x5 f32, axes 2,0,1,4,3: 12.9-14.8 -> 6.0-6.8 ms;
    // 37x230x410x7x11 u8 114-119 -> 69-74 ms).
    runs_t rin, rout;
    for (int q = 0; q < V; ++q) {
      rin.add(m.in_off(q));
      int i = 0;
      const index_t o = m.out_off(q, &i);  // output-order q is input-order i
      rout.add(o);
      ooff[q] = static_cast<off_t>(o);
      ioff[q] = static_cast<off_t>(m.in_off(i));
      edge[q] = static_cast<unsigned char>(m.edge_bits(q) >> 2);
    }
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && tiles > 1)
    for (index_t t = 0; t < tiles; ++t) {
      index_t ib = 0, ob = 0;
      int sc = 0;
      m.tile(t, &ib, &ob, &sc);
      if (t + 1 < tiles) {
        index_t ibn = 0, obn = 0;
        int scn = 0;
        m.tile(t + 1, &ibn, &obn, &scn);
        cpu::line_prefetcher<false> pin;
        const byte* next = in_b + ibn * E;
        for (int k = 0; k < rin.n; ++k) pin(next + rin.at[k] * E, index_t{rin.len[k]} * E);
      }
      // Locals: 1-byte stores may alias anything, so captured values would be reloaded for every element.
      const T* __restrict__ s = in + ib;
      T* __restrict__ d = out + ob;
      const off_t* __restrict__ io = ioff;
      if (sc == 0) {
        const std::int64_t* __restrict__ ra = rout.at;
        const std::uint16_t* __restrict__ rl = rout.len;
        const int nr = rout.n;
        for (int k = 0, q = 0; k < nr; ++k) {
          T* __restrict__ dr = d + ra[k];
          const int L = rl[k];
          const off_t* __restrict__ ik = io + q;
          int j = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
          if constexpr (E <= 4) {  // 8 bytes of the run gathered into a register, one store
            constexpr int P = 8 / E;
            for (; j + P <= L; j += P) {
              std::uint64_t w = 0;
              for (int u = 0; u < P; ++u) w |= std::uint64_t{s[ik[j + u]]} << (8 * E * u);
              std::memcpy(dr + j, &w, 8);
            }
          }
#endif
          for (; j < L; ++j) dr[j] = pass<E, Conj>(s[ik[j]]);
          q += L;
        }
      } else {  // a cut tile: the elements inside it
        const off_t* __restrict__ oo = ooff;
        const unsigned char* __restrict__ eg = edge;
        const int n = V;
        for (int q = 0; q < n; ++q)
          if ((eg[q] & sc) == 0) d[oo[q]] = pass<E, Conj>(s[io[q]]);
      }
    }
  };
  if (fit32) {
    std::uint32_t ioff[VMAX], ooff[VMAX];  // on the caller's stack: the host path allocates nothing
    run(ioff, ooff);
  } else {
    index_t ioff[VMAX], ooff[VMAX];
    run(ioff, ooff);
  }
}

// General permutation: A is the input's fastest dim, B the output's; every other
// dim is outer, enumerated in the input's order (largest input stride first), so
// consecutive slices continue the input's contiguous runs.
template <int E, bool Conj>
void permute_nd(const plan& p, const byte* in, byte* out, int threads) {
  using T = typename uint_of<E>::type;
  constexpr index_t TS = E >= 8 ? 8 : 64 / E;  // a tile row is >= one 64-byte line
  const int r = p.out.rank, A = input_fastest(p), B = r - 1;
  const index_t isA = p.in.strides[p.axes[A]], osB = p.out.strides[B];
  if (!Conj && isA == 1 && osB == 1) {
    const unit_tiles u = plan_unit_tiles(p, 1, 1, E);
    // Thin tiles (a side of at most cpu_span_thin elements and cpu_span_thin_bytes bytes) leave the SIMD micro-tiles
    // in their fringes; the span tile takes those plans.
    const index_t side = std::min(u.TI, u.TJ);
    if (u.ok() && side <= cpu_span_thin && side * u.W <= cpu_span_thin_bytes)
      return permute_span<E, Conj>(p, in, out, threads);
    if (u.ok()) return permute_unit(u, outer_dims(p, {}, &u), in, out, E, p.count * E, threads);
  }
  odometer outer = outer_dims(p, {A, B});
  // Strided (or conjugating) fastest dims: element loops over TS x TS tiles.
  const index_t nA = p.out.extents[A], nB = p.out.extents[B];
  const index_t osA = p.out.strides[A], isB = p.in.strides[p.axes[B]];
  const index_t ta = (nA + TS - 1) / TS, tb = (nB + TS - 1) / TS, tiles = ta * tb;
  const index_t total = outer.count() * tiles;
#pragma omp parallel num_threads(threads) firstprivate(outer) if (total > 1)
  {
#if defined(_OPENMP)
    const index_t nt = omp_get_num_threads(), me = omp_get_thread_num();
#else
    const index_t nt = 1, me = 0;
#endif
    const index_t t0 = total * me / nt, t1 = total * (me + 1) / nt;
    index_t o = t0 / tiles, rem = t0 % tiles;
    outer.seek(o);
    for (index_t t = t0; t < t1; ++t) {
      const index_t a0 = (rem / tb) * TS, b0 = (rem % tb) * TS;
      const T* s = reinterpret_cast<const T*>(in) + outer.in_off + a0 * isA + b0 * isB;
      T* d = reinterpret_cast<T*>(out) + outer.out_off + a0 * osA + b0 * osB;
      const index_t na = std::min(TS, nA - a0), nb = std::min(TS, nB - b0);
      for (index_t a = 0; a < na; ++a)
        for (index_t b = 0; b < nb; ++b) d[a * osA + b * osB] = pass<E, Conj>(s[a * isA + b * isB]);
      if (++rem == tiles) rem = 0, outer.next();
    }
  }
}

}  // namespace

void execute_plan_cpu(const plan& p, const void* in_v, void* out_v, int threads) noexcept {
  threads = resolve_threads(threads);
  const auto* in = static_cast<const byte*>(in_v);
  auto* out = static_cast<byte*>(out_v);
  switch (p.algo) {
    case algorithm::empty: return;
    case algorithm::copy: return parallel_memcpy(out, in, p.count * p.in.elem_size, threads);
    case algorithm::transpose_2d: return blocked_transpose(in, out, p.desc, threads);
    default: break;
  }
  with_elem_size(p.in.elem_size, [&](auto e) {
    constexpr int E = decltype(e)::value;
    constexpr bool complex = E == 8 || E == 16;
    const bool conj = complex && p.conjugate;
    if (p.algo == algorithm::strided_copy)
      conj ? strided_copy<E, complex>(p, in, out, threads) : strided_copy<E, false>(p, in, out, threads);
    else
      conj ? permute_nd<E, complex>(p, in, out, threads) : permute_nd<E, false>(p, in, out, threads);
  });
}

}  // namespace xpose::detail
