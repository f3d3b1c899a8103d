// Index maps of the N-d kernels, __host__ __device__: the GPU kernels call them,
// the CPU tests check on the host that they cover every element exactly once.
// Offsets are in elements (or in wider units, see copy_map) and 64-bit.
#pragma once

#include "xpose/plan.hpp"
#include "fast_div.hpp"

#include <algorithm>

namespace xpose::detail {

/// Units in output order (a unit is one element, or several when copy_unit widens
/// contiguous runs); the last dim is a run of `run` units. Div is fast_div (64-bit
/// indices) or fast_div32 (every index below 2^32: one 32-bit multiply-high per digit
/// instead of a 64-bit one); offsets are 64-bit either way.
template <class Div>
struct copy_map_t {
  using word = decltype(Div{}.d);
  static constexpr int max_outer = layout::max_rank - 1;
  int outer_rank = 0;
  Div outer_n[max_outer];
  index_t outer_is[max_outer] = {}, outer_os[max_outer] = {};
  Div run;
  index_t is = 0, os = 0;  // strides of the run, in units
  index_t total = 0;       // units moved

  XPOSE_HD void element(index_t i, index_t* in_off, index_t* out_off) const {
    word rem = 0;
    word q = run.divmod(static_cast<word>(i), &rem);
    index_t io = static_cast<index_t>(rem) * is, oo = static_cast<index_t>(rem) * os;
    for (int k = outer_rank - 1; k >= 0; --k) {
      q = outer_n[k].divmod(q, &rem);
      io += static_cast<index_t>(rem) * outer_is[k];
      oo += static_cast<index_t>(rem) * outer_os[k];
    }
    *in_off = io, *out_off = oo;
  }
};
using copy_map = copy_map_t<fast_div>;
using copy_map32 = copy_map_t<fast_div32>;

/// The unit a copy kernel thread moves in its j-th slot (block `blk`, thread `tid`,
/// THREADS threads, K slots): block blk covers units [blk*THREADS*K, (blk+1)*THREADS*K),
/// consecutive threads consecutive units (coalesced), K independent loads per thread.
template <int THREADS, int K>
XPOSE_HD inline index_t copy_slot(index_t blk, int tid, int j) {
  return blk * (static_cast<index_t>(THREADS) * K) + tid + static_cast<index_t>(j) * THREADS;
}

/// Packed tiles (cuTT's "packed" idea) for the vector tile kernel: the tile's A side
/// runs over a group of input dims contiguous in the input (input fastest first), its
/// B side over a group contiguous in the output (output fastest first), so that a tile
/// row stays one contiguous run where the fastest dims are short (48, 32, 15). With the
/// combined indices a (A group) and b (B group), element (a, b) of a tile is read at
/// io + a * a_is + b_in(b) and written at oo + a_out(a) + b * b_os, (io, oo) the offsets
/// of the outer dims. Tile t = (outer, ta, tb), tb fastest; Div as in copy_map_t.
template <class Div>
struct vtile_map_t {
  using word = decltype(Div{}.d);
  static constexpr int max_dims = layout::max_rank;
  int outer_rank = 0, ga = 0, gb = 0;  // outer dims, dims of the A and B groups
  Div outer_n[max_dims];
  index_t outer_is[max_dims] = {}, outer_os[max_dims] = {};
  Div a_n[max_dims];                   // A group: extents, fastest first
  index_t a_os[max_dims] = {};         // their output strides
  Div b_n[max_dims];                   // B group: extents, fastest first
  index_t b_is[max_dims] = {};         // their input strides
  index_t a_is = 1, b_os = 1;          // strides of a (input) and b (output)
  index_t n_a = 0, n_b = 0;            // combined extents
  Div tiles_b, tiles_a;
  index_t tiles = 0;

  /// Offsets of the outer dims of tile t and its origin (a0, b0).
  XPOSE_HD void tile(index_t t, index_t* in_off, index_t* out_off, index_t* a0, index_t* b0, int ta_size,
                     int tb_size) const {
    word rem = 0;
    word q = tiles_b.divmod(static_cast<word>(t), &rem);
    *b0 = static_cast<index_t>(rem) * tb_size;
    q = tiles_a.divmod(q, &rem);
    *a0 = static_cast<index_t>(rem) * ta_size;
    index_t io = 0, oo = 0;
    for (int k = outer_rank - 1; k >= 0; --k) {
      q = outer_n[k].divmod(q, &rem);
      io += static_cast<index_t>(rem) * outer_is[k];
      oo += static_cast<index_t>(rem) * outer_os[k];
    }
    *in_off = io, *out_off = oo;
  }
  /// Output offset of combined A index a (< n_a): its digits dotted with the output strides.
  XPOSE_HD index_t a_out(index_t a) const { return dot_digits(a_n, a_os, ga, a); }
  /// Input offset of combined B index b (< n_b).
  XPOSE_HD index_t b_in(index_t b) const { return dot_digits(b_n, b_is, gb, b); }

 private:
  /// The digits of x over extents n[0..g) (fastest first; the last takes the quotient)
  /// dotted with strides s.
  XPOSE_HD static index_t dot_digits(const Div (&n)[max_dims], const index_t (&s)[max_dims], int g, index_t x) {
    word q = static_cast<word>(x), rem = 0;
    index_t off = 0;
    for (int k = 0; k < g - 1; ++k) {
      q = n[k].divmod(q, &rem);
      off += static_cast<index_t>(rem) * s[k];
    }
    return off + static_cast<index_t>(q) * s[g - 1];
  }
};
using vtile_map = vtile_map_t<fast_div>;
using vtile_map32 = vtile_map_t<fast_div32>;

/// Slots of the vector tile kernel (the tile geometry of `best`: TB rows of NCH
/// 16-byte chunks, K = 16/E elements per chunk, NT threads). The j-th load of thread
/// tid is chunk c of tile row b (elements a = c*K .. c*K+K-1 of input row b); the
/// micro-block m = h + H*(R + RN*C) (read_micro's order, best_kernels.cuh) writes the
/// KK output rows a = C*K + h*KK + i, i < KK, each with the K elements b .. b+K-1 from b = R*K.
struct vtile_slot {
  int a, b;  // load: a = first element of the chunk; store: first output row
};
template <int K, int NCH, int NT>
XPOSE_HD inline vtile_slot vtile_load_slot(int tid, int j) {
  return {(tid % NCH) * K, tid / NCH + j * (NT / NCH)};
}
template <int K, int KK, int H, int RN>
XPOSE_HD inline vtile_slot vtile_store_slot(int m) {
  const int h = m % H, R = (m / H) % RN, C = m / (H * RN);
  return {C * K + h * KK, R * K};
}

/// Row offsets computed once per warp (the vector tile on 32-bit maps): with W = 32/NCH load rows
/// per warp and step, lane l < W*L of warp w computes load row vtile_warp_row(w, l), and
/// thread lane's j-th load row (vtile_load_slot(tid, j).b) is the one lane
/// vtile_row_lane(lane, j) computed.
template <int NCH, int RPS>
XPOSE_HD inline int vtile_warp_row(int warp, int lane) {
  constexpr int W = 32 / NCH;
  return warp * W + lane % W + lane / W * RPS;
}
template <int NCH>
XPOSE_HD inline int vtile_row_lane(int lane, int j) {
  return lane / NCH + j * (32 / NCH);
}

/// Fraction of the slots of tiles of t elements that an extent n fills.
inline double tile_fill(index_t n, int t) { return static_cast<double>(n) / static_cast<double>((n + t - 1) / t * t); }

/// Host: the groups of the packed tile map of a permute_nd plan for tiles of ta x tb
/// elements: the A group is a prefix of the input's dims (fastest first), the B group one
/// of the output's, each contiguous on its side, the two disjoint; of these, the pair
/// whose tiles leave the fewest slots idle (tile_fill of both sides), then the fewest
/// dims. pack = false keeps one dim per side. ga, gb: dims per group; na, nb: extents.
struct vtile_groups {
  int ga = 1, gb = 1;
  index_t na = 0, nb = 0;
};
inline vtile_groups make_vtile_groups(const plan& p, int ta, int tb, bool pack) {
  const int r = p.out.rank;
  int out_of[layout::max_rank] = {};  // input dim -> output dim
  for (int k = 0; k < r; ++k) out_of[p.axes[k]] = k;
  vtile_groups g;
  g.na = p.in.extents[r - 1], g.nb = p.out.extents[r - 1];
  double best = tile_fill(g.na, ta) * tile_fill(g.nb, tb);
  index_t a_ext = 1;
  for (int i = 0; pack && i < r; ++i) {  // A group: input dims r-1 .. r-1-i
    const int j = r - 1 - i;
    if (out_of[j] == r - 1 || (i > 0 && p.in.strides[j] != p.in.extents[j + 1] * p.in.strides[j + 1])) break;
    a_ext *= p.in.extents[j];
    index_t b_ext = 1;
    for (int h = 0; h < r; ++h) {  // B group: output dims r-1 .. r-1-h
      const int k = r - 1 - h;
      if (p.axes[k] >= j || (h > 0 && p.out.strides[k] != p.out.extents[k + 1] * p.out.strides[k + 1])) break;
      b_ext *= p.out.extents[k];
      const double f = tile_fill(a_ext, ta) * tile_fill(b_ext, tb);
      if (f > best + 1e-12 || (f > best - 1e-12 && i + h + 2 < g.ga + g.gb))
        best = f, g.ga = i + 1, g.gb = h + 1, g.na = a_ext, g.nb = b_ext;
    }
  }
  return g;
}

/// Host: the packed tile map of a permute_nd plan for tiles of ta x tb elements on the
/// groups grp (A: input dims r-1 .. r-grp.ga, B: output dims r-1 .. r-grp.gb).
template <class Map = vtile_map>
inline Map make_vtile_map_on(const plan& p, const vtile_groups& grp, index_t ta, index_t tb) {
  using Div = decltype(Map{}.tiles_a);
  using W = typename Map::word;
  Map m;
  const int r = p.out.rank;
  int out_of[layout::max_rank] = {};  // input dim -> output dim
  for (int k = 0; k < r; ++k) out_of[p.axes[k]] = k;
  const int ga = grp.ga, gb = grp.gb;
  const index_t na = grp.na, nb = grp.nb;
  char side[layout::max_rank] = {};  // per input dim: 'a', 'b' or 0 (outer)
  for (int i = 0; i < ga; ++i) side[r - 1 - i] = 'a';
  for (int h = 0; h < gb; ++h) side[p.axes[r - 1 - h]] = 'b';
  m.ga = ga, m.gb = gb, m.n_a = na, m.n_b = nb;
  m.a_is = p.in.strides[r - 1], m.b_os = p.out.strides[r - 1];
  for (int i = 0; i < ga; ++i) {
    const int j = r - 1 - i;
    m.a_n[i] = Div(static_cast<W>(p.in.extents[j]));
    m.a_os[i] = p.out.strides[out_of[j]];
  }
  for (int i = 0; i < gb; ++i) {
    const int k = r - 1 - i;
    m.b_n[i] = Div(static_cast<W>(p.out.extents[k]));
    m.b_is[i] = p.in.strides[p.axes[k]];
  }
  index_t outer = 1;
  for (int k = 0; k < r; ++k) {
    if (side[p.axes[k]] != 0) continue;
    m.outer_n[m.outer_rank] = Div(static_cast<W>(p.out.extents[k]));
    m.outer_is[m.outer_rank] = p.in.strides[p.axes[k]];
    m.outer_os[m.outer_rank] = p.out.strides[k];
    ++m.outer_rank;
    outer *= p.out.extents[k];
  }
  const index_t t_a = (na + ta - 1) / ta, t_b = (nb + tb - 1) / tb;
  m.tiles_a = Div(static_cast<W>(t_a));
  m.tiles_b = Div(static_cast<W>(t_b));
  m.tiles = outer * t_a * t_b;
  return m;
}

/// Host: the packed tile map of a permute_nd plan for tiles of ta x tb elements, on the
/// groups of make_vtile_groups.
template <class Map = vtile_map>
inline Map make_vtile_map(const plan& p, int ta, int tb, bool pack) {
  return make_vtile_map_on<Map>(p, make_vtile_groups(p, ta, tb, pack), ta, tb);
}

/// True when the vector tile kernel can move map m's tiles in 16-byte chunks of
/// k = 16/E elements: unit strides along a (input) and b (output), both combined
/// extents and every other stride multiples of k, both pointers 16-byte aligned.
template <class Map>
inline bool vtile_vector_ok(const Map& m, int elem_size, const void* in, const void* out) {
  const index_t k = 16 / elem_size;
  bool ok = m.a_is == 1 && m.b_os == 1 && m.n_a % k == 0 && m.n_b % k == 0 &&
            reinterpret_cast<std::uintptr_t>(in) % 16 == 0 && reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
  for (int i = 0; i < m.outer_rank; ++i) ok = ok && m.outer_is[i] % k == 0 && m.outer_os[i] % k == 0;
  for (int i = 0; i < m.ga; ++i) ok = ok && m.a_os[i] % k == 0;
  for (int i = 0; i < m.gb; ++i) ok = ok && m.b_is[i] % k == 0;
  return ok;
}

/// Host: a strided_copy plan whose kept run (R elements of E bytes, unit strides both
/// sides) is U = R*E/16 16-byte chunks, U in {1, 2, 4, 8}, seen as a permutation of runs:
/// rank r-1, strides in runs. False where it is not one (other strides not whole runs,
/// the remaining fastest dims not contiguous runs on their side, or the same dim).
inline bool runs_plan(const plan& p, plan* q, int* chunks) {
  const int r = p.out.rank, E = p.in.elem_size;
  if (p.algo != algorithm::strided_copy || p.conjugate || r < 3 || p.in.strides[r - 1] != 1 || p.out.strides[r - 1] != 1)
    return false;
  const index_t R = p.out.extents[r - 1];
  const index_t U = R * E / 16;
  if ((R * E) % 16 != 0 || (U != 1 && U != 2 && U != 4 && U != 8)) return false;
  *q = p;
  q->algo = algorithm::permute_nd;
  q->in.rank = q->out.rank = r - 1;
  q->count = p.count / R;
  for (int k = 0; k < r - 1; ++k) {
    if (p.in.strides[k] % R != 0 || p.out.strides[k] % R != 0) return false;
    q->in.strides[k] = p.in.strides[k] / R, q->out.strides[k] = p.out.strides[k] / R;
  }
  *chunks = static_cast<int>(R * E / 16);
  return q->axes[r - 2] != r - 2 && q->in.strides[r - 2] == 1 && q->out.strides[r - 2] == 1;
}

/// Slots of the run tile kernel (TA x TB runs of U chunks, NT threads): the j-th load of
/// thread tid is chunk c of tile row b (run a = c / U), the j-th store chunk d of output
/// row a (run b = d / U, chunk u = d % U of it).
struct run_slot {
  int row, col;
};
template <int TA, int TB, int U, int NT>
XPOSE_HD inline run_slot run_load_slot(int tid, int j) {
  const int q = tid + j * NT;
  return {q / (TA * U), q % (TA * U)};
}
template <int TA, int TB, int U, int NT>
XPOSE_HD inline run_slot run_store_slot(int tid, int j) {
  const int q = tid + j * NT;
  return {q / (TB * U), q % (TB * U)};
}

/// Words of V = max(E, 4) bytes, K = V/E elements each (the row tile, nd_rtile_kernel; the packed tile,
/// nd_ptile_kernel, runs 8-16 byte elements: K = 1): a warp moves >= 128 contiguous bytes per access on both sides
/// for every element size. Element a of a contiguous row lies at "virtual" position a + sh of the row's V-aligned
/// words (sh = the row's first element's position in its word, ptile_shift): a thread loads or stores one aligned
/// word (whole, or element by element at the row's ragged ends), and a funnel shift with the next (loads) or
/// previous (stores) lane's word moves between virtual and unshifted words. The packed tile's shared tile holds
/// rows: element (a, b) at ptile_elem.
constexpr int ptile_k(int elem_size) { return elem_size < 4 ? 4 / elem_size : 1; }
/// Elements of a tile side covered by `lanes` words at any shift (lanes*K - K + 1).
constexpr int ptile_side(int elem_size, int lanes) { return lanes * ptile_k(elem_size) - ptile_k(elem_size) + 1; }
/// Steps of NT threads over `rows` rows of `lanes` lanes each.
constexpr int ptile_steps(int rows, int lanes, int threads) { return (rows + threads / lanes - 1) / (threads / lanes); }
/// Words of the shared tile of TB rows of LA words, one word of skew per K rows
/// (element (a, b) of the tile at ptile_elem): the store side's reads of a column, K
/// rows per lane, hit distinct banks.
constexpr int ptile_smem_words(int elem_size, int la, int tb) { return tb * la + (tb - 1) / ptile_k(elem_size); }
template <int K, int LA>
XPOSE_HD inline int ptile_word(int w, int b) { return b * LA + b / K + w; }
template <int K, int LA>
XPOSE_HD inline int ptile_elem(int a, int b) { return ptile_word<K, LA>(0, b) * K + a; }

/// The j-th load of thread tid: word w of tile row b (LA lanes per row); the j-th store:
/// word w of output row a (LB lanes per row).
struct ptile_slot {
  int row, w;
};
template <int L, int NT>
XPOSE_HD inline ptile_slot ptile_slot_of(int tid, int j) {
  return {tid / L + j * (NT / L), tid % L};
}

/// Position of element offset `off` (elements from a base whose own position in its
/// word is base_e) in its K-element word; 0 where the side is not contiguous.
template <int K>
XPOSE_HD inline int ptile_shift(int base_e, index_t off, bool contiguous) {
  return contiguous ? static_cast<int>((static_cast<index_t>(base_e) + off) & (K - 1)) : 0;
}

/// The low 32 bits of (hi:lo) >> s, s in [0, 32] (the GPU's clamped funnel shift).
XPOSE_HD inline std::uint32_t ptile_funnel(std::uint32_t lo, std::uint32_t hi, int s) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_rc(lo, hi, static_cast<unsigned>(s));
#else
  return s <= 0 ? lo : s >= 32 ? hi : (lo >> s) | (hi << (32 - s));
#endif
}

/// The row tile (nd_rtile_kernel): a strided copy whose kept rows (R elements, unit
/// stride on both sides, R*E < 128 bytes) lie back to back along the input's fastest
/// outer dim and along the output's (both strides R), seen as a permutation q of rows
/// (rank r-1, strides in elements). A tile of ta x tb rows (input-fastest x
/// output-fastest; q's packed groups) reads tb input spans of ta*R elements and writes ta
/// output spans of tb*R elements, each in aligned words of max(E, 4) bytes (elements at
/// the spans' ends). Input span j's words lie in the shared tile as loaded (words
/// [j*sw, (j+1)*sw), its first element at position sh_j of its first word); an output
/// word gathers its elements (row j, element i*R + c of span j) from there.
inline constexpr int rtile_bytes = 16384, rtile_threads = 256;
constexpr int rtile_words(int elem_size) { return rtile_bytes / (elem_size < 4 ? 4 : elem_size); }
struct rtile_geom {
  int R = 1, ta = 1, tb = 1, sw = 1, ow = 1;  // row elements, tile rows, words per input and output span
  fast_div32 r_div, sw_div, ow_div;
};
/// Words covering n elements at any position of the first in its word.
constexpr int rtile_span_words(int n, int elem_size) { return (n + 2 * ptile_k(elem_size) - 2) / ptile_k(elem_size); }
/// Host: the row plan q of a strided copy of the row tile's class and its row length R.
inline bool rtile_plan(const plan& p, plan* q, index_t* R) {
  const int r = p.out.rank, E = p.in.elem_size;
  if (p.algo != algorithm::strided_copy || r < 3 || p.in.strides[r - 1] != 1 || p.out.strides[r - 1] != 1) return false;
  *R = p.out.extents[r - 1];
  if (*R * E >= 128) return false;
  *q = p;
  q->algo = algorithm::permute_nd;
  q->in.rank = q->out.rank = r - 1;
  q->count = p.count / *R;
  return q->axes[r - 2] != r - 2 && q->in.strides[r - 2] == *R && q->out.strides[r - 2] == *R;
}
/// Host: row plan q (rows of R elements) in units of `unit` bytes (row_unit of its strided
/// copy, a multiple of the element size dividing the rows' bytes and every stride).
inline void rtile_widen(plan* q, index_t* R, int unit) {
  const int E = q->in.elem_size;
  if (unit <= E) return;
  const index_t f = unit / E;
  for (int k = 0; k < q->in.rank; ++k) q->in.strides[k] /= f, q->out.strides[k] /= f;
  q->in.elem_size = q->out.elem_size = unit;
  *R /= f;
}
/// Host: the row tile's groups and geometry for row plan q: square tiles of about
/// rtile_bytes * 0.8 where the extents allow, a short side's slack given to the other;
/// both sides' spans within the shared tile, ta + tb row bases within the block.
inline rtile_geom make_rtile_geom(const plan& q, index_t R, vtile_groups* g) {
  const int E = q.in.elem_size, W = rtile_words(E);
  const index_t L = R * E, cap = rtile_bytes * 4 / 5;
  index_t t = 1;
  while ((t + 1) * (t + 1) * L <= cap) ++t;
  *g = make_vtile_groups(q, static_cast<int>(t), static_cast<int>(t), true);
  index_t ta = g->na < t ? g->na : t, tb = g->nb < t ? g->nb : t;
  if (ta < t) tb = std::min<index_t>(g->nb, cap / (ta * L));
  if (tb < t) ta = std::min<index_t>(g->na, cap / (tb * L));
  auto fits = [&] {
    return ta + tb <= rtile_threads && tb * rtile_span_words(static_cast<int>(ta * R), E) <= W &&
           ta * rtile_span_words(static_cast<int>(tb * R), E) <= W;
  };
  while (!fits()) (ta > tb ? ta : tb) -= 1;
  rtile_geom m;
  m.R = static_cast<int>(R), m.ta = static_cast<int>(ta), m.tb = static_cast<int>(tb);
  m.sw = rtile_span_words(m.ta * m.R, E), m.ow = rtile_span_words(m.tb * m.R, E);
  m.r_div = fast_div32(static_cast<std::uint32_t>(m.R));
  m.sw_div = fast_div32(static_cast<std::uint32_t>(m.sw));
  m.ow_div = fast_div32(static_cast<std::uint32_t>(m.ow));
  return m;
}

/// True when a map over n positions can use the 32-bit divisors: every divisor and
/// every dividend of its decomposition is at most n.
inline bool fits32(index_t n) { return n >= 1 && n <= static_cast<index_t>(0xffffffffu); }

/// Host: the copy map of a strided_copy plan in units of `unit` bytes (a multiple
/// of the element size when the run is contiguous on both sides, see copy_unit).
/// Map: copy_map, or copy_map32 when fits32(count * E / unit).
template <class Map = copy_map>
inline Map make_copy_map(const plan& p, int unit) {
  using Div = decltype(Map{}.run);
  Map m;
  const int r = p.out.rank, E = p.in.elem_size;
  const index_t scale = unit / E;  // elements per unit (1 unless widened)
  for (int k = 0; k < r - 1; ++k) {
    m.outer_n[m.outer_rank] = Div(static_cast<typename Map::word>(p.out.extents[k]));
    m.outer_is[m.outer_rank] = p.in.strides[p.axes[k]] / scale;
    m.outer_os[m.outer_rank] = p.out.strides[k] / scale;
    ++m.outer_rank;
  }
  const index_t run = p.out.extents[r - 1] / scale;
  m.run = Div(static_cast<typename Map::word>(run));
  m.is = scale > 1 ? 1 : p.in.strides[r - 1];
  m.os = scale > 1 ? 1 : p.out.strides[r - 1];
  m.total = p.count / scale;
  return m;
}

/// Widest unit (bytes, a multiple of the element size, <= 16) in which a
/// strided_copy plan can move its runs: the run contiguous on both sides, and run
/// length, outer strides and both pointers multiples of it. Conjugation keeps elements.
inline int copy_unit(const plan& p, const void* in, const void* out) {
  const int r = p.out.rank, E = p.in.elem_size;
  if (p.conjugate || p.in.strides[r - 1] != 1 || p.out.strides[r - 1] != 1) return E;
  std::uint64_t bits = static_cast<std::uint64_t>(p.out.extents[r - 1]) * E;
  bits |= reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out);
  for (int k = 0; k < r - 1; ++k)
    bits |= static_cast<std::uint64_t>(p.in.strides[p.axes[k]] * E) | static_cast<std::uint64_t>(p.out.strides[k] * E);
  int u = 16;
  while (u > E && bits % static_cast<std::uint64_t>(u) != 0) u /= 2;
  return u;
}

}  // namespace xpose::detail

namespace xpose::detail {

/// The row stream of a strided copy whose kept run (the fastest dim, unit stride on
/// both sides) is row_bytes long: work items are (row, slice) pairs, rows in output
/// order over the outer dims, a slice the output's 16-byte aligned chunks
/// [slice * chunks, (slice + 1) * chunks) of the row (the first and last chunk of a
/// row may be partial). Offsets in bytes, 64-bit; Div as in copy_map_t (fast_div32
/// when fits32(items)).
template <class Div>
struct row_map_t {
  using word = decltype(Div{}.d);
  static constexpr int max_outer = layout::max_rank - 1;
  int outer_rank = 0;
  Div outer_n[max_outer];
  index_t outer_is[max_outer] = {}, outer_os[max_outer] = {};  // bytes
  Div slices;                 // slices per row
  index_t row_bytes = 0;
  index_t items = 0;          // rows * slices

  /// Byte offsets of item t's row and its slice.
  XPOSE_HD void item(index_t t, index_t* in_off, index_t* out_off, int* slice) const {
    word rem = 0;
    word q = slices.divmod(static_cast<word>(t), &rem);
    *slice = static_cast<int>(rem);
    index_t io = 0, oo = 0;
    for (int k = outer_rank - 1; k >= 0; --k) {
      q = outer_n[k].divmod(q, &rem);
      io += static_cast<index_t>(rem) * outer_is[k];
      oo += static_cast<index_t>(rem) * outer_os[k];
    }
    *in_off = io, *out_off = oo;
  }
};
using row_map = row_map_t<fast_div>;
using row_map32 = row_map_t<fast_div32>;

/// The normal form of a strided copy: the widest unit (a power of two <= 16 bytes)
/// dividing the row's bytes, every outer stride in bytes and both pointers; 0 where the
/// run is not contiguous on both sides or the plan conjugates (the element copy keeps
/// those).
inline int row_unit(const plan& p, const void* in, const void* out) {
  const int r = p.out.rank, E = p.in.elem_size;
  if (p.algo != algorithm::strided_copy || p.conjugate || p.in.strides[r - 1] != 1 || p.out.strides[r - 1] != 1) return 0;
  std::uint64_t bits = static_cast<std::uint64_t>(p.out.extents[r - 1]) * static_cast<std::uint64_t>(E);
  bits |= reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out);
  for (int k = 0; k < r - 1; ++k)
    bits |= static_cast<std::uint64_t>(p.in.strides[p.axes[k]] * E) | static_cast<std::uint64_t>(p.out.strides[k] * E);
  int u = 1;
  while (u < 16 && bits % static_cast<std::uint64_t>(2 * u) == 0) u *= 2;
  return u;
}

/// Output chunks a row of row_bytes in units of `unit` bytes may touch at most (its
/// start at any multiple of the unit within a chunk).
inline index_t row_chunks_max(index_t row_bytes, int unit) { return (row_bytes + 16 - unit + 15) / 16; }

/// Lanes per row of the row stream (K chunks per lane per item): the fewest of
/// 2, 4, 8, 16, 32 whose G * K chunks cover a row, else 32.
/// Whether chunk [off, off + 16) of a row of L bytes moves as one realigned 128-bit
/// store (nd_row_stream_kernel): its aligned input pair [off - sh, off - sh + 32) (one
/// chunk when the shift sh is 0) lies inside the row, so no byte outside it is read.
XPOSE_HD inline bool row_chunk_whole(index_t off, index_t L, unsigned sh) {
  return off >= 0 && off + 16 <= L && (sh == 0 || (off >= static_cast<index_t>(sh) && off - sh + 32 <= L));
}

/// The row's ends that do not move as whole chunks (nd_row_stream_kernel): row_chunk_whole holds exactly on the
/// chunks covering bytes [*head, *tail) of the row (output alignment oa, shift sh); bytes [0, *head) and
/// [*tail, L) move in units. Where no chunk is whole, *head = *tail = L.
XPOSE_HD inline void row_ends(index_t L, int oa, unsigned sh, index_t* head, index_t* tail) {
  const index_t lo = sh == 0 ? 0 : static_cast<index_t>(sh), hi = sh == 0 ? L - 16 : L + static_cast<index_t>(sh) - 32;
  const index_t c_first = (lo + oa + 15) / 16, c_last = hi + oa >= 0 ? (hi + oa) / 16 : -1;
  *head = c_first <= c_last ? 16 * c_first - oa : L;
  *tail = c_first <= c_last ? 16 * (c_last + 1) - oa : L;
}

inline int row_lanes(index_t row_bytes, int unit, int k) {
  int g = 2;
  while (g < 32 && static_cast<index_t>(g) * k < row_chunks_max(row_bytes, unit)) g *= 2;
  return g;
}

/// Items per warp of the row stream (nd_row_stream_kernel's B): 32, halved down to the items per step (ips) while
/// the items would give fewer warps than the GPU holds (64 per SM), so that short work still fills it.
inline int row_batch(index_t items, int ips, int sms) {
  int b = 32;
  while (b > ips && items / b < static_cast<index_t>(sms) * 64) b /= 2;
  return b;
}

/// Whether a contiguous copy (algorithm::copy) of these bytes between these pointers runs the row stream over its
/// one row instead of cudaMemcpyAsync: pointers that differ modulo 16 bytes, one of them off the 4-byte grid, from 1
/// MiB. Measured on an H200 (docs/RESULTS.md "N-d: strided copies"): there the driver's copy ran at 0.63-0.74 of an
/// aligned one and the row stream at 0.88-1.00; with both pointers on the 4-byte grid the driver's ran at 0.96-0.99
/// and the row stream's 8-byte units at 0.76-0.91, so those keep the driver's.
inline bool copy_takes_row_stream(index_t bytes, const void* in, const void* out) {
  const auto i = reinterpret_cast<std::uintptr_t>(in), o = reinterpret_cast<std::uintptr_t>(out);
  return bytes >= (index_t{1} << 20) && (i - o) % 16 != 0 && (i % 4 != 0 || o % 4 != 0);
}

/// Whether a strided copy whose normal form has this unit and row length takes the row
/// stream: rows of at least 128 bytes whose unit is below 16 bytes. Measured on the
/// H200 (random draws and TTC-57 f32, same run, bitwise exact): 128-8,000-byte rows of
/// 1- and 2-byte units 0.24-0.81 of a copy where the element copy took 0.11-0.21;
/// 16-byte units (rows and strides whole chunks) 0.66-0.83 where the run tile and the
/// 16-byte element copy took 0.85-1.08, and rows under 128 bytes of 8-byte units
/// 0.17-0.55 against 0.51-0.84: those keep the element copy and the run tile.
inline bool row_stream_takes(int unit, index_t row_bytes) { return unit > 0 && unit < 16 && row_bytes >= 128; }

/// Whether a strided copy whose normal form has this unit (row_unit, or the element size where that is 0) and
/// row length takes the span tile over rows in units (widen_rows): rows under 128 bytes of 1-4 byte units. Measured
/// on the H100 (random draws, same run, bitwise exact; docs/RESULTS.md "N-d: strided copies"): 2-4 byte units
/// 0.56-0.78 -> 0.61-0.77 against the row tile, 1-byte units 0.32-0.40 -> 0.29-0.46; 8-16 byte units 0.67-0.89
/// where the row tile and the element copy took 0.77-0.97, so those keep them.
inline bool span_takes_rows(int unit, index_t row_bytes) { return unit <= 4 && row_bytes < 128; }

/// Host: strided copy p (kept rows of R elements at unit strides on both sides) in units of `unit` bytes
/// (row_unit: a power of two, a multiple of the element size, dividing the rows' bytes, every stride and both
/// pointers): the same copy, with rows of R * E / unit units and every other stride in units.
inline plan widen_rows(const plan& p, int unit) {
  plan q = p;
  const int r = p.out.rank, E = p.in.elem_size;
  if (unit <= E) return q;
  const index_t f = unit / E;
  for (int k = 0; k < r - 1; ++k) q.in.strides[k] /= f, q.out.strides[k] /= f;
  q.in.extents[r - 1] /= f, q.out.extents[r - 1] /= f;
  q.in.elem_size = q.out.elem_size = unit;
  q.count /= f;
  return q;
}

/// Host: the row map of a strided copy (row_unit = unit > 0) for slices of `chunks` chunks.
template <class Map = row_map>
inline Map make_row_map(const plan& p, int unit, int chunks) {
  using Div = decltype(Map{}.slices);
  using W = typename Map::word;
  Map m;
  const int r = p.out.rank, E = p.in.elem_size;
  index_t rows = 1;
  for (int k = 0; k < r - 1; ++k) {
    m.outer_n[m.outer_rank] = Div(static_cast<W>(p.out.extents[k]));
    m.outer_is[m.outer_rank] = p.in.strides[p.axes[k]] * E;
    m.outer_os[m.outer_rank] = p.out.strides[k] * E;
    ++m.outer_rank;
    rows *= p.out.extents[k];
  }
  m.row_bytes = p.out.extents[r - 1] * E;
  const index_t sl = (row_chunks_max(m.row_bytes, unit) + chunks - 1) / chunks;
  m.slices = Div(static_cast<W>(sl));
  m.items = rows * sl;
  return m;
}

}  // namespace xpose::detail
