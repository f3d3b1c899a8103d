// The span tile of the N-d plans (nd_span_kernel, src/cuda/nd/span_tile.cuh), __host__ __device__: its index map
// and its planner. A tile is a sub-volume over a set of whole dims, the input's fastest dims and the output's
// fastest dims together (they may overlap: a batch of small transposes is one tile), of which at most two (the
// slowest of each side) are cut into lengths; any integer extents, any strides. Threads hold their slots' tile
// offsets from kernel start: slot p (p = tid + k * threads) reads the p-th element of the tile in input order into
// shared index p, and writes the p-th element in output order from the shared index of its digits, so that each
// warp reads runs contiguous in the input and writes runs contiguous in the output whatever the extents.
// The planner (span_choose) enumerates the sets and lengths and keeps the one its cost model (span_predict,
// docs/MODEL.md "N-d plans: the span tile's time model") predicts fastest: a per-slot cost by element size times
// the slots per element moved (idle slots, the cut dims' last tiles), plus the sectors that short runs waste on
// either side. docs/RESULTS.md, "N-d: the span tile". The CPU backend runs the same tiles for thin 2-D tiles.
#pragma once

#include <algorithm>
#include <cstdint>

#include "fast_div.hpp"
#include "xpose/plan.hpp"

namespace xpose::detail {

/// Threads of a span tile block, slots per thread by element size (a tile holds at most span_slots * span_threads
/// elements: 2048 of 1-4 bytes, 1024 of 8-16; 2-16 KiB, padded up to 24 KiB). Each slot holds its two offsets,
/// its shared index and its value in registers, and one bit per kind of tile that says whether it moves: at most 64
/// registers (4 blocks per SM) without spills on sm_80 or sm_90 (5 blocks spill; 12 or 16 slots of 1-2 bytes at 2
/// blocks per SM ran slower).
inline constexpr int span_threads = 256;
constexpr int span_slots(int elem_size) { return elem_size <= 4 ? 8 : 4; }
constexpr int span_max_elems(int elem_size) { return span_slots(elem_size) * span_threads; }
/// Blocks per SM the kernel's registers are bounded for (__launch_bounds__).
constexpr int span_min_blocks(int) { return 4; }
/// The same for 64-bit slot offsets (tiles beyond 2^32 or tile offsets beyond 2^31): twice the registers per slot.
constexpr int span_wide_blocks(int) { return 2; }

/// The span tile's time per slot at full sectors against a copy's time per element (span_predict), by element
/// size: fitted on random plans (docs/RESULTS.md "N-d: the span tile"); 16 bytes extrapolated from 4 and 8.
constexpr double span_cost_per_slot(int elem_size) {
  return elem_size == 1 ? 2.44 : elem_size == 2 ? 1.85 : elem_size == 4 ? 1.485 : elem_size == 8 ? 1.366 : 1.30;
}

/// A planned tile: its dims (input dim indices, input order: fastest first) and their tile lengths (the whole
/// extent, or a cut), with the cost model's predicted fraction of a device copy.
struct span_choice {
  int ns = 0;
  int dims[layout::max_rank] = {};
  index_t len[layout::max_rank] = {};
  double pred = 0;
};

/// The tile's map. Div: fast_div, or fast_div32 where the tile count fits 32 bits (the outer digits, once per
/// tile). In-tile indices and the cut dims' digits are 32-bit.
template <class Div>
struct span_map_t {
  using word = decltype(Div{}.d);
  using div = Div;
  static constexpr int max_dims = layout::max_rank;
  int ns = 0;                       // dims of the tile
  int V = 0;                        // elements of a whole tile
  fast_div32 in_n[max_dims];        // tile lengths in input order (fastest first)
  index_t in_is[max_dims] = {};     // their input strides
  fast_div32 out_n[max_dims];       // tile lengths in output order
  int out_pitch[max_dims] = {};     // their pitch in the tile's input order index
  index_t out_os[max_dims] = {};    // their output strides
  int pad_shift = 31;               // shared index of tile index i: i + (i >> pad_shift)
  int ncut = 0;                     // cut dims (0-2)
  fast_div32 cut_in_pitch[2], cut_out_pitch[2], cut_len[2];  // per cut dim: pitch in either order, tile length
  int cut_rem[2] = {};              // the length of its last tile
  int outer_rank = 0;               // outer digits, fastest first: dims outside the tile, and the cut dims' tiles
  Div outer_n[max_dims];
  int short_at[max_dims] = {};      // per outer digit: the cut bit its last value leaves short (0: none)
  index_t outer_is[max_dims] = {}, outer_os[max_dims] = {};
  index_t tiles = 0;

  /// The input and output offsets of tile t's origin, and which cut dims it leaves short (bit c: cut c's last
  /// tile, cut_rem[c] < its length).
  XPOSE_HD void tile(index_t t, index_t* io, index_t* oo, int* short_cuts) const {
    word q = static_cast<word>(t), rem = 0;
    index_t i = 0, o = 0;
    int sc = 0;
    for (int k = 0; k < outer_rank; ++k) {
      const word n = outer_n[k].d;
      q = outer_n[k].divmod(q, &rem);
      i += static_cast<index_t>(rem) * outer_is[k];
      o += static_cast<index_t>(rem) * outer_os[k];
      if (rem + 1 == n) sc |= short_at[k];
    }
    *io = i, *oo = o, *short_cuts = sc;
  }
  /// The edge bits of tile index p (input order) for the load side (bits 0-1) and of the output-order element
  /// p for the store side (bits 2-3): bit c where the element lies past cut c's last tile.
  XPOSE_HD int edge_bits(int p) const {
    int b = 0;
    for (int c = 0; c < ncut; ++c) {
      std::uint32_t d = 0;
      cut_len[c].divmod(cut_in_pitch[c].div(static_cast<std::uint32_t>(p)), &d);
      if (static_cast<int>(d) >= cut_rem[c]) b |= 1 << c;
      cut_len[c].divmod(cut_out_pitch[c].div(static_cast<std::uint32_t>(p)), &d);
      if (static_cast<int>(d) >= cut_rem[c]) b |= 4 << c;
    }
    return b;
  }
  /// The input offset (from the tile's origin) of tile index p (input order).
  XPOSE_HD index_t in_off(int p) const {
    std::uint32_t q = static_cast<std::uint32_t>(p), rem = 0;
    index_t off = 0;
    for (int k = 0; k < ns - 1; ++k) {
      q = in_n[k].divmod(q, &rem);
      off += static_cast<index_t>(rem) * in_is[k];
    }
    return off + static_cast<index_t>(q) * in_is[ns - 1];
  }
  /// The output offset of the q-th element of the tile in output order, and its tile index (input order).
  XPOSE_HD index_t out_off(int q, int* idx) const {
    std::uint32_t x = static_cast<std::uint32_t>(q), rem = 0;
    index_t off = 0;
    int i = 0;
    for (int k = 0; k < ns - 1; ++k) {
      x = out_n[k].divmod(x, &rem);
      off += static_cast<index_t>(rem) * out_os[k];
      i += static_cast<int>(rem) * out_pitch[k];
    }
    *idx = i + static_cast<int>(x) * out_pitch[ns - 1];
    return off + static_cast<index_t>(x) * out_os[ns - 1];
  }
  XPOSE_HD int smem(int i) const { return i + (i >> pad_shift); }
};
using span_map = span_map_t<fast_div>;
using span_map32 = span_map_t<fast_div32>;

/// Shared elements a tile of V elements takes with padding shift ps.
constexpr int span_smem_elems(int V, int ps) { return V + (ps < 31 ? (V >> ps) : 0) + 1; }

/// Host: whether every tile offset of choice c fits 31 bits on both sides (the kernel's 32-bit slot offsets).
inline bool span_offsets_fit32(const plan& p, const span_choice& c) {
  int out_of[layout::max_rank] = {};
  for (int k = 0; k < p.out.rank; ++k) out_of[p.axes[k]] = k;
  index_t si = 0, so = 0;
  for (int j = 0; j < c.ns; ++j) {
    const int d = c.dims[j];
    if (p.in.strides[d] < 0 || p.out.strides[out_of[d]] < 0) return false;
    si += (c.len[j] - 1) * p.in.strides[d], so += (c.len[j] - 1) * p.out.strides[out_of[d]];
  }
  return si < (index_t{1} << 31) && so < (index_t{1} << 31);
}

/// Host: the span map of plan p on choice c.
template <class Map = span_map>
inline Map make_span_map(const plan& p, const span_choice& c) {
  using W = typename Map::word;
  using Div = typename Map::div;
  Map m;
  const int r = p.out.rank;
  int slot_of[layout::max_rank];  // input dim -> position in c.dims, or -1
  std::fill(slot_of, slot_of + layout::max_rank, -1);
  for (int j = 0; j < c.ns; ++j) slot_of[c.dims[j]] = j;
  m.ns = c.ns;
  index_t V = 1;
  int pitch[layout::max_rank] = {};
  for (int j = 0; j < c.ns; ++j) {
    pitch[j] = static_cast<int>(V);
    m.in_n[j] = fast_div32(static_cast<std::uint32_t>(c.len[j]));
    m.in_is[j] = p.in.strides[c.dims[j]];
    V *= c.len[j];
  }
  m.V = static_cast<int>(V);
  // Output order: output dims fastest first, those in the tile.
  int n = 0, cut_seen = 0;
  index_t opitch = 1;
  int out_pitch_of[layout::max_rank] = {};
  for (int k = r - 1; k >= 0; --k) {
    const int j = slot_of[p.axes[k]];
    if (j < 0) continue;
    m.out_n[n] = fast_div32(static_cast<std::uint32_t>(c.len[j]));
    m.out_pitch[n] = pitch[j];
    m.out_os[n] = p.out.strides[k];
    out_pitch_of[j] = static_cast<int>(opitch);
    opitch *= c.len[j];
    ++n;
  }
  // Padding: the store side's lanes step the fastest output dim's pitch; an even pitch 2^a * odd would put
  // lanes 2^a apart in one bank, so pad one element per 2^a (the step becomes odd).
  const int p0 = m.out_pitch[0];
  if (c.ns > 1 && p0 > 1 && p0 % 2 == 0) {
    int a = 0;
    while (((p0 >> a) & 1) == 0) ++a;
    m.pad_shift = a;
  }
  // Outer digits in output order, fastest first: a cut dim's tile index where the dim is.
  for (int k = r - 1; k >= 0; --k) {
    const int d = p.axes[k], j = slot_of[d];
    const index_t ext = p.in.extents[d];
    if (j >= 0 && c.len[j] == ext) continue;
    const index_t len = j >= 0 ? c.len[j] : 1;
    if (j >= 0) {
      const int ci = cut_seen++;
      m.cut_in_pitch[ci] = fast_div32(static_cast<std::uint32_t>(pitch[j]));
      m.cut_out_pitch[ci] = fast_div32(static_cast<std::uint32_t>(out_pitch_of[j]));
      m.cut_len[ci] = fast_div32(static_cast<std::uint32_t>(len));
      m.cut_rem[ci] = static_cast<int>(ext - (ext - 1) / len * len);
      if (m.cut_rem[ci] < len) m.short_at[m.outer_rank] = 1 << ci;
    }
    m.outer_n[m.outer_rank] = Div(static_cast<W>((ext + len - 1) / len));
    m.outer_is[m.outer_rank] = p.in.strides[d] * len;
    m.outer_os[m.outer_rank] = p.out.strides[k] * len;
    ++m.outer_rank;
  }
  m.ncut = cut_seen;
  index_t tiles = 1;
  for (int k = 0; k < m.outer_rank; ++k) tiles *= static_cast<index_t>(m.outer_n[k].d);
  m.tiles = tiles;
  return m;
}

/// Host: the span tile's planner. Candidates: the input's fastest a dims with the output's fastest b dims
/// (a, b >= 1), the slowest of each side cut to a length where the whole set exceeds span_max_elems; of these
/// the one span_predict rates fastest. in, out: the pointers (their alignment enters the sector count), or null.
double span_predict(const plan& p, const span_choice& c, const void* in, const void* out);

namespace span_detail {
inline index_t gcd(index_t a, index_t b) {
  while (b != 0) {
    const index_t t = a % b;
    a = b, b = t;
  }
  return a;
}
/// The bytes of tile c that one run of a side carries and the bytes its sectors span (ord: that side's dims, fastest
/// first, as input dims; stride: their strides on that side), and the byte granule the runs start on (<= 32). A run is
/// the tile's longest contiguous one, continued over the next dim of the tile where that dim's steps leave gaps of
/// less than a sector (a view of every other column pair: the sectors between are fetched whole either way).
inline void span_run(const plan& p, const span_choice& c, const int* ord, const index_t* stride, int E,
                     std::uintptr_t base, index_t* used, index_t* spanned, index_t* granule) {
  const int r = p.out.rank;
  index_t len_of[layout::max_rank] = {};
  for (int j = 0; j < c.ns; ++j) len_of[c.dims[j]] = c.len[j];
  index_t elems = 1, expect = 1;
  int k = 0;
  for (; k < r; ++k) {
    const int d = ord[k];
    if (len_of[d] == 0 || stride[k] != expect) break;
    elems *= len_of[d];
    expect = stride[k] * p.in.extents[d];
    if (len_of[d] != p.in.extents[d]) {
      ++k;
      break;
    }
  }
  index_t u = elems * E, sp = elems * E;
  int gap = -1;  // the dim that continues the run over gaps
  if (k < r && len_of[ord[k]] > 1 && stride[k] >= elems && (stride[k] - elems) * E < 32) {
    gap = k;
    u = elems * len_of[ord[k]] * E;
    sp = ((len_of[ord[k]] - 1) * stride[k] + elems) * E;
  }
  index_t g = 32;
  if (base % 32 != 0) g = gcd(g, static_cast<index_t>(base % 32));
  for (int h = 0; h < r; ++h) {
    const int d = ord[h];
    if ((h < k && len_of[d] == p.in.extents[d]) || (h == gap && len_of[d] == p.in.extents[d])) continue;  // inside
    const index_t step = stride[h] * E * (len_of[d] != 0 && len_of[d] != p.in.extents[d] ? len_of[d] : 1);
    if (step != 0) g = gcd(g, step % 32 == 0 ? 32 : step % 32);
  }
  *used = u, *spanned = sp, *granule = g;
}
/// span_run on both sides of tile c: the input's (u_i, sp_i, g_i) and the output's (u_o, sp_o, g_o).
inline void span_runs(const plan& p, const span_choice& c, const void* in, const void* out, index_t* u_i,
                      index_t* sp_i, index_t* g_i, index_t* u_o, index_t* sp_o, index_t* g_o) {
  const int r = p.out.rank, E = p.in.elem_size;
  int iord[layout::max_rank], oord[layout::max_rank];
  index_t is[layout::max_rank], os[layout::max_rank];
  for (int k = 0; k < r; ++k) {
    iord[k] = r - 1 - k, is[k] = p.in.strides[r - 1 - k];
    oord[k] = p.axes[r - 1 - k], os[k] = p.out.strides[r - 1 - k];
  }
  span_run(p, c, iord, is, E, reinterpret_cast<std::uintptr_t>(in), u_i, sp_i, g_i);
  span_run(p, c, oord, os, E, reinterpret_cast<std::uintptr_t>(out), u_o, sp_o, g_o);
}
}  // namespace span_detail

inline double span_predict(const plan& p, const span_choice& c, const void* in, const void* out) {
  using namespace span_detail;
  const int E = p.in.elem_size;
  index_t u_i = 0, u_o = 0, sp_i = 0, sp_o = 0, g_i = 0, g_o = 0;
  span_runs(p, c, in, out, &u_i, &sp_i, &g_i, &u_o, &sp_o, &g_o);
  // Sectors per run: a run spanning n bytes from a multiple of g touches (n + 32 - g) / 32 of them on average, of
  // which it uses u bytes.
  auto eff = [&](index_t u, index_t n, index_t g) {
    return static_cast<double>(u) / (static_cast<double>(n) + 32.0 - static_cast<double>(std::min<index_t>(g, 32)));
  };
  const double ei = eff(u_i, sp_i, g_i), eo = eff(u_o, sp_o, g_o);
  double V = 1, work = 1;  // elements of a tile; slots processed per element moved (cut dims' last tiles)
  for (int j = 0; j < c.ns; ++j) {
    V *= static_cast<double>(c.len[j]);
    const index_t n = p.in.extents[c.dims[j]], L = c.len[j];
    work *= static_cast<double>((n + L - 1) / L * L) / static_cast<double>(n);
  }
  const double slots = static_cast<double>((static_cast<index_t>(V) + span_threads - 1) / span_threads * span_threads);
  // Time per byte against a copy's: the kernel's own time per slot at full sectors (span_cost_per_slot, by element
  // size: it issues about 12 instructions per slot and keeps few bytes in flight per register) times the slots per
  // element moved, plus the sectors that short runs waste, the output's (partial sectors written) weighing four
  // times the input's. Fitted on the 44 random plans of docs/RESULTS.md "N-d: the span tile".
  const double t = span_cost_per_slot(E) * work * slots / V + 0.80 * (1.0 / eo - 1.0) + 0.19 * (1.0 / ei - 1.0);
  return 1.0 / t;
}

/// Host: the span tile choice of a permute_nd or strided_copy plan (see span_predict).
inline span_choice span_choose(const plan& p, const void* in = nullptr, const void* out = nullptr) {
  const int r = p.out.rank, E = p.in.elem_size;
  const index_t vmax = span_max_elems(E);
  span_choice best;
  best.pred = -1;
  auto consider = [&](span_choice& c) {
    c.pred = span_predict(p, c, in, out);
    if (c.pred > best.pred + 1e-9) best = c;
  };
  // Lengths to cut a dim of extent n to, given the room left: the most that fits, balanced over its tiles, and
  // powers of two between 8 and that.
  auto balanced = [](index_t n, index_t most) {
    const index_t tiles = (n + most - 1) / most;
    return (n + tiles - 1) / tiles;
  };
  for (int a = 1; a <= r; ++a) {
    for (int b = 1; b <= r; ++b) {
      bool in_set[layout::max_rank] = {};
      for (int k = 0; k < a; ++k) in_set[r - 1 - k] = true;
      for (int k = 0; k < b; ++k) in_set[p.axes[r - 1 - k]] = true;
      const int sa = r - a, sb = p.axes[r - b];  // the slowest of each side: the dims that may be cut
      index_t rest = 1;
      for (int d = 0; d < r; ++d)
        if (in_set[d] && d != sa && d != sb) rest *= p.in.extents[d];
      if (rest > vmax) break;  // more output dims only add volume
      span_choice c;
      for (int d = r - 1; d >= 0; --d)
        if (in_set[d]) c.dims[c.ns] = d, c.len[c.ns] = p.in.extents[d], ++c.ns;
      auto set_len = [&](int d, index_t L) {
        for (int j = 0; j < c.ns; ++j)
          if (c.dims[j] == d) c.len[j] = L;
      };
      const index_t na = p.in.extents[sa], nb = p.in.extents[sb];
      if (sa == sb) {
        set_len(sa, balanced(na, std::min(na, vmax / rest)));
        consider(c);
        continue;
      }
      const index_t room = vmax / rest;  // for na' * nb'
      index_t cand[8];
      int nc = 0;
      cand[nc++] = std::min(na, room);
      for (index_t L = 8; L < std::min(na, room) && nc < 8; L *= 2) cand[nc++] = L;
      for (int i = 0; i < nc; ++i) {
        const index_t La = balanced(na, cand[i]);
        const index_t Lb = std::min(nb, room / La);
        if (Lb < 1) continue;
        set_len(sa, La), set_len(sb, balanced(nb, Lb));
        consider(c);
      }
    }
  }
  return best;
}

}  // namespace xpose::detail
