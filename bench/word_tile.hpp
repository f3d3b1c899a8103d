// Experiment (not part of the library): the word tile, for N-d permutations of 1- and 2-byte elements whose input's
// fastest dims (A) and output's fastest dims (B) are disjoint. A tile is A x B (the slowest dim of each cut to a
// length): a 2-D matrix of LB rows (B's digits in output order) of LA elements (A's digits in input order, one input
// run each). Shared memory holds row j at byte 4 + j * Pb, Pb = E * odd >= LA * E + 6, so that
//  - loads are aligned 4-byte words: each word slot (row j, word w) loads the one or two aligned global words that
//    hold the 4 bytes of the row that fall on an aligned shared word, funnel-shifts them into place and stores one
//    shared word (bytes past the row's ends land in the row's padding);
//  - stores are aligned 4-byte words: output run q (A's digits in output order) is column c(q) of the tile, its
//    element j at 4 + j * Pb + c(q) * E, a constant step Pb, so a word of 4 / E consecutive run elements is 4 / E
//    shared loads at steps of Pb from one base (lanes 4 / E rows apart: Pb / E odd, no bank conflicts); the at most two
//    words a run shares with its neighbours store their own elements one by one.
// Per element moved: about a quarter (E = 1) of a shared load, funnel shift, shared store and address each side,
// where the span tile spends a load, two shared accesses and a store per element.
// Each thread holds its slots' offsets from kernel start (the tile's origin varies; the slots do not), the
// validity of each slot per kind of tile (which cut dims the tile leaves short) as one bit; persistent blocks, the
// next tile's loads in flight while the current tile is stored (as the span tile).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/span_map.hpp"
#include "xpose/plan.hpp"

#if defined(__CUDACC__)
#define WT_HD __host__ __device__ __forceinline__
#else
#define WT_HD inline
#endif

namespace wt {

using xpose::index_t;
using xpose::detail::span_choice;
using xpose::detail::span_map32;

constexpr int NT = 256;           // threads a block
constexpr int RMAX = 8;           // word slots a thread at most (a byte of mask bits per kind)
constexpr int SMEM = 12 * 1024;   // shared tile bytes at most (4 blocks an SM)
constexpr int MAXD = 8;           // dims a side

struct geom {
  int E = 1;
  int LA = 0, LB = 0;        // whole tile: row length (A), run length (B), elements
  int LAs = 0, LBs = 0;      // the same in a tile short in A's cut, B's cut
  int bitA = 0, bitB = 0;    // span_map32::tile's short bit of A's cut, of B's cut (0: none)
  int Pb = 0;                // shared row pitch, bytes
  int nwl = 0, nws = 0;      // word slots a row, a run
  int nb = 0, na = 0;        // B dims, A dims, output order, fastest first
  int b_len[MAXD] = {}, a_len[MAXD] = {};
  long long b_is[MAXD] = {};   // B dims' input strides, elements
  long long a_os[MAXD] = {};   // A dims' output strides, elements
  int a_pitch[MAXD] = {};      // A dims' pitch in the row (input order)
  long long in_lo = 0, in_hi = 0;  // the input's bytes from `in`: [in_lo, in_hi)
  long long row_span = 0;      // the largest row offset from the tile's input origin plus the row, bytes
  int smem_bytes = 0;
  double pred = 0;
  span_choice c;             // the tile's dims and lengths (for the outer digits: make_span_map)
};

WT_HD std::uint32_t funnel(std::uint32_t lo, std::uint32_t hi, int sh_bytes) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_r(lo, hi, 8 * sh_bytes);
#else
  const std::uint64_t v = (static_cast<std::uint64_t>(hi) << 32) | lo;
  return static_cast<std::uint32_t>(v >> (8 * sh_bytes));
#endif
}

/// One thread's slots: computed once, used for every tile. R load and R store word slots.
template <int R>
struct slots {
  static constexpr int RL = R, RS = R;
  int dgl[RL];               // load slot: byte offset of its 4 bytes from the tile's input origin
  unsigned sw[(RL + 1) / 2]; // its shared word's byte address, 16 bits a slot
  int dgo[RS];               // store slot: byte offset of its run from the tile's output origin
  unsigned sp[RS];           // shared byte address of its word at start alignment 0 | 4 w << 16
  unsigned lmask = 0, smask = 0;  // bit 8 * sc + k: slot k moves in a tile of kind sc
};

template <int R>
WT_HD void init_slots(const geom& g, int tid, slots<R>* s) {
  constexpr int RL = R, RS = R;
  const int E = g.E;
  s->lmask = s->smask = 0;
#pragma unroll
  for (int k = 0; k < (RL + 1) / 2; ++k) s->sw[k] = 0;
#pragma unroll
  for (int k = 0; k < RL; ++k) {
    const int f = tid + k * NT;
    s->dgl[k] = 0;
    if (f < g.LB * g.nwl) {
      const int j = f / g.nwl, wi = f % g.nwl;
      const int rs = 4 + j * g.Pb, sw = (rs & ~3) + 4 * wi, cw = sw - rs;
      long long rel = 0;
      int q = j;
      for (int d = 0; d < g.nb; ++d) {
        rel += static_cast<long long>(q % g.b_len[d]) * g.b_is[d];
        q /= g.b_len[d];
      }
      s->dgl[k] = static_cast<int>(rel * E + cw);
      s->sw[k / 2] |= static_cast<unsigned>(sw) << (16 * (k % 2));
      for (int sc = 0; sc < 4; ++sc) {
        const int la = (sc & g.bitA) ? g.LAs : g.LA, lb = (sc & g.bitB) ? g.LBs : g.LB;
        if (j < lb && cw < la * E) s->lmask |= 1u << (8 * sc + k);
      }
    }
  }
#pragma unroll
  for (int k = 0; k < RS; ++k) {
    const int f = tid + k * NT;
    s->dgo[k] = 0, s->sp[k] = 0;
    if (f < g.LA * g.nws) {
      const int q = f / g.nws, w = f % g.nws;
      long long rel = 0;
      int c = 0, x = q;
      for (int d = 0; d < g.na; ++d) {
        const int digit = x % g.a_len[d];
        rel += static_cast<long long>(digit) * g.a_os[d];
        c += digit * g.a_pitch[d];
        x /= g.a_len[d];
      }
      s->dgo[k] = static_cast<int>(rel * E);
      s->sp[k] = static_cast<unsigned>(4 + c * E + (4 * w / E) * g.Pb) | (static_cast<unsigned>(4 * w) << 16);
      for (int sc = 0; sc < 4; ++sc) {
        const int la = (sc & g.bitA) ? g.LAs : g.LA;
        if (c < la) s->smask |= 1u << (8 * sc + k);
      }
    }
  }
}

/// Loads of one tile: two aligned words per slot (the second where the slot's bytes cross into it), clamped to the
/// input's words where the tile lies near the input's ends.
template <int R>
WT_HD void load_tile(const geom& g, const slots<R>& s, std::uint64_t tin, int sc, std::uint64_t lo, std::uint64_t hi,
                     std::uint32_t* v0, std::uint32_t* v1) {
  constexpr int RL = R;
  // Near the input's ends ([lo, hi): its bytes) the 8 bytes are read one by one, those inside only.
  const bool edge = tin < lo + 16 || tin + static_cast<std::uint64_t>(g.row_span) + 16 > hi;
  const unsigned lm = s.lmask >> (8 * sc);
#pragma unroll
  for (int k = 0; k < RL; ++k) {
    if (lm & (1u << k)) {
      const std::uint64_t a0 = (tin + static_cast<std::int64_t>(s.dgl[k])) & ~std::uint64_t{3};
      if (!edge) {
#if defined(__CUDA_ARCH__)
        v0[k] = __ldg(reinterpret_cast<const unsigned*>(a0));
        v1[k] = __ldg(reinterpret_cast<const unsigned*>(a0 + 4));
#else
        std::memcpy(&v0[k], reinterpret_cast<const void*>(a0), 4);
        std::memcpy(&v1[k], reinterpret_cast<const void*>(a0 + 4), 4);
#endif
      } else {
        std::uint64_t v = 0;
        for (int b = 0; b < 8; ++b) {
          const std::uint64_t a = a0 + b;
          if (a >= lo && a < hi) {
#if defined(__CUDA_ARCH__)
            v |= static_cast<std::uint64_t>(__ldg(reinterpret_cast<const unsigned char*>(a))) << (8 * b);
#else
            v |= static_cast<std::uint64_t>(*reinterpret_cast<const unsigned char*>(a)) << (8 * b);
#endif
          }
        }
        v0[k] = static_cast<std::uint32_t>(v), v1[k] = static_cast<std::uint32_t>(v >> 32);
      }
    }
  }
}

template <int R>
WT_HD void put_tile(const geom&, const slots<R>& s, std::uint64_t tin, int sc, const std::uint32_t* v0,
                    const std::uint32_t* v1, unsigned char* sm) {
  constexpr int RL = R;
  const unsigned lm = s.lmask >> (8 * sc);
#pragma unroll
  for (int k = 0; k < RL; ++k) {
    if (lm & (1u << k)) {
      const int sh = static_cast<int>((tin + static_cast<std::int64_t>(s.dgl[k])) & 3);
      const unsigned a = (s.sw[k / 2] >> (16 * (k % 2))) & 0xffffu;
      *reinterpret_cast<std::uint32_t*>(sm + a) = funnel(v0[k], v1[k], sh);
    }
  }
}

template <int E, int R>
WT_HD void store_tile(const geom& g, const slots<R>& s, std::uint64_t tout, int sc, const unsigned char* sm) {
  using T = std::conditional_t<E == 1, std::uint8_t, std::uint16_t>;
  constexpr int RS = R;
  const int LBb = ((sc & g.bitB) ? g.LBs : g.LB) * E, Pb = g.Pb;
  const unsigned smk = s.smask >> (8 * sc);
#pragma unroll
  for (int k = 0; k < RS; ++k) {
    if (!(smk & (1u << k))) continue;
    const std::uint64_t gq = tout + static_cast<std::int64_t>(s.dgo[k]);
    const int sa = static_cast<int>(gq & 3), w4 = static_cast<int>(s.sp[k] >> 16);
    const int j0 = w4 - sa;  // bytes into the run
    if (j0 >= LBb) continue;
    const std::uint64_t wa = gq - sa + w4;
    const int a0 = static_cast<int>(s.sp[k] & 0xffffu) - (sa / E) * Pb;
    if (j0 >= 0 && j0 + 4 <= LBb) {
      std::uint32_t word;
      if constexpr (E == 1) {
        const std::uint32_t b0 = sm[a0], b1 = sm[a0 + Pb], b2 = sm[a0 + 2 * Pb], b3 = sm[a0 + 3 * Pb];
        word = b0 | (b1 << 8) | (b2 << 16) | (b3 << 24);
      } else {
        const std::uint32_t h0 = *reinterpret_cast<const std::uint16_t*>(sm + a0);
        const std::uint32_t h1 = *reinterpret_cast<const std::uint16_t*>(sm + a0 + Pb);
        word = h0 | (h1 << 16);
      }
      *reinterpret_cast<std::uint32_t*>(wa) = word;
    } else {
#pragma unroll
      for (int e = 0; e < 4 / E; ++e) {
        const int jb = j0 + e * E;
        if (jb >= 0 && jb < LBb)
          *reinterpret_cast<T*>(wa + e * E) = *reinterpret_cast<const T*>(sm + a0 + e * Pb);
      }
    }
  }
}

/// Host: the word tile's geometry for plan p (a permute_nd plan of 1- or 2-byte elements), or false where no
/// disjoint tile fits. Chooses the candidate of the highest predicted fraction of a copy.
inline bool choose(const xpose::plan& p, const void* in, const void* out, int R, geom* best) {
  const int RL = R, RS = R;
  using namespace xpose::detail;
  const int r = p.out.rank, E = p.in.elem_size;
  if (E > 2 || p.conjugate) return false;
  for (int k = 0; k < r; ++k)
    if (p.in.strides[k] < 0) return false;
  // The input's byte range.
  long long hi = 0;
  for (int k = 0; k < r; ++k) hi += (p.in.extents[k] - 1) * p.in.strides[k];
  best->pred = -1;
  bool found = false;
  for (int a = 1; a < r; ++a) {
    // A: the input's fastest a dims, contiguous in the input.
    bool ok = true;
    index_t expect = 1;
    for (int k = 0; k < a; ++k) {
      const int d = r - 1 - k;
      if (p.in.strides[d] != expect) ok = false;
      expect *= p.in.extents[d];
    }
    if (!ok) break;
    for (int b = 1; a + b <= r; ++b) {
      bool inA[xpose::layout::max_rank] = {}, inB[xpose::layout::max_rank] = {};
      for (int k = 0; k < a; ++k) inA[r - 1 - k] = true;
      bool disjoint = true;
      index_t oexp = 1;
      for (int k = 0; k < b; ++k) {
        const int d = p.axes[r - 1 - k];
        if (inA[d]) disjoint = false;
        inB[d] = true;
        if (p.out.strides[r - 1 - k] != oexp) disjoint = false;
        oexp *= p.in.extents[d];
      }
      if (!disjoint) break;
      const int sa = r - a, sb = p.axes[r - b];
      index_t restA = 1, restB = 1;
      for (int d = 0; d < r; ++d) {
        if (inA[d] && d != sa) restA *= p.in.extents[d];
        if (inB[d] && d != sb) restB *= p.in.extents[d];
      }
      const index_t na = p.in.extents[sa], nb = p.in.extents[sb];
      auto cands = [](index_t n, index_t most, index_t* out_c) {
        int m = 0;
        if (most < 1) return 0;
        const index_t top = std::min(n, most);
        const index_t tiles = (n + top - 1) / top;
        out_c[m++] = (n + tiles - 1) / tiles;
        for (index_t L = 2; L < top && m < 12; L *= 2) {
          const index_t t = (n + L - 1) / L;
          out_c[m++] = (n + t - 1) / t;
        }
        return m;
      };
      index_t ca[16], cb[16];
      const int nca = cands(na, SMEM / E / restA, ca);
      for (int ia = 0; ia < nca; ++ia) {
        const index_t LA = restA * ca[ia];
        if (LA * E + 6 > SMEM) continue;
        int Pe = static_cast<int>(LA + (6 + E - 1) / E);
        if (Pe % 2 == 0) ++Pe;
        const int Pb = Pe * E;
        const int ncb = cands(nb, (SMEM - 16) / Pb / restB, cb);
        for (int ib = 0; ib < ncb; ++ib) {
          const index_t LB = restB * cb[ib];
          geom g;
          g.E = E, g.LA = static_cast<int>(LA), g.LB = static_cast<int>(LB), g.Pb = Pb;
          g.smem_bytes = static_cast<int>((8 + LB * Pb + 15) / 16 * 16);
          if (g.smem_bytes > SMEM || LB < 2) continue;
          int nwl = 0;
          for (int j = 0; j < 4; ++j) {
            const int x = 4 + j * Pb;
            nwl = std::max(nwl, (((x + static_cast<int>(LA) * E + 3) & ~3) - (x & ~3)) / 4);
          }
          g.nwl = nwl;
          g.nws = static_cast<int>((4 - E + LB * E + 3) / 4);
          if (LB * nwl > RL * NT || LA * g.nws > RS * NT) continue;
          // The tile's dims (input order, fastest first) and the cut lengths.
          span_choice c;
          for (int d = r - 1; d >= 0; --d) {
            if (!inA[d] && !inB[d]) continue;
            c.dims[c.ns] = d;
            c.len[c.ns] = d == sa ? ca[ia] : d == sb ? cb[ib] : p.in.extents[d];
            ++c.ns;
          }
          if (!span_offsets_fit32(p, c)) continue;
          const index_t remA = na - (na - 1) / ca[ia] * ca[ia], remB = nb - (nb - 1) / cb[ib] * cb[ib];
          g.LAs = static_cast<int>(restA * remA), g.LBs = static_cast<int>(restB * remB);
          const bool cutB = cb[ib] < nb, cutA = ca[ia] < na;
          g.bitB = cutB ? 1 : 0;
          g.bitA = cutA ? (cutB ? 2 : 1) : 0;
          // B dims in output order, fastest first; A dims in output order, fastest first.
          g.nb = g.na = 0;
          index_t pitch_of[xpose::layout::max_rank] = {};
          index_t pch = 1;
          for (int d = r - 1; d >= 0; --d)
            if (inA[d]) pitch_of[d] = pch, pch *= (d == sa ? ca[ia] : p.in.extents[d]);
          long long rowmax = 0;
          for (int k = r - 1; k >= 0; --k) {
            const int d = p.axes[k];
            const index_t len = d == sa ? ca[ia] : d == sb ? cb[ib] : p.in.extents[d];
            if (inB[d]) {
              if (g.nb == MAXD) goto next;
              g.b_len[g.nb] = static_cast<int>(len), g.b_is[g.nb] = p.in.strides[d], ++g.nb;
              rowmax += (len - 1) * p.in.strides[d];
            } else if (inA[d]) {
              if (g.na == MAXD) goto next;
              g.a_len[g.na] = static_cast<int>(len), g.a_os[g.na] = p.out.strides[k];
              g.a_pitch[g.na] = static_cast<int>(pitch_of[d]), ++g.na;
            }
          }
          g.row_span = (rowmax + LA) * E;
          g.in_lo = 0, g.in_hi = (hi + 1) * E;
          {
            // Prediction: the span tile's sector terms on this tile, words moved per element at a cost fitted
            // to nothing yet (1 = a copy's time per byte at full sectors), the cut dims' idle tails.
            index_t u_i, sp_i, g_i, u_o, sp_o, g_o;
            span_detail::span_runs(p, c, in, out, &u_i, &sp_i, &g_i, &u_o, &sp_o, &g_o);
            auto eff = [](index_t u, index_t n, index_t gg) {
              return static_cast<double>(u) / (static_cast<double>(n) + 32.0 - static_cast<double>(std::min<index_t>(gg, 32)));
            };
            const double ei = eff(u_i, sp_i, g_i), eo = eff(u_o, sp_o, g_o);
            const double V = static_cast<double>(LA * LB) * E;
            const double words = static_cast<double>(LB * nwl + LA * g.nws) / (2.0 * V / 4.0);
            double work = 1;
            for (int j = 0; j < c.ns; ++j) {
              const index_t n = p.in.extents[c.dims[j]], L = c.len[j];
              work *= static_cast<double>((n + L - 1) / L * L) / static_cast<double>(n);
            }
            const double t = work * words + 0.80 * (1.0 / eo - 1.0) + 0.19 * (1.0 / ei - 1.0);
            g.pred = 1.0 / t;
          }
          g.c = c;
          if (g.pred > best->pred + 1e-9) *best = g, found = true;
        next:;
        }
      }
    }
  }
  return found;
}

/// Host: runs the tile map on the host, thread by thread, as the kernel does (the emulator's check).
template <int E, int R>
inline void emulate(const geom& g, const span_map32& m, const void* in, void* out, long long in_lo_bytes) {
  static slots<R> st[NT];
  static std::uint32_t v0[NT][R], v1[NT][R];
  static unsigned char sm[SMEM + 64];
  for (int t = 0; t < NT; ++t) init_slots(g, t, &st[t]);
  const std::uint64_t base_in = reinterpret_cast<std::uint64_t>(in), base_out = reinterpret_cast<std::uint64_t>(out);
  const std::uint64_t lo = base_in + in_lo_bytes, hi = base_in + g.in_hi;
  for (index_t tile = 0; tile < m.tiles; ++tile) {
    index_t io = 0, oo = 0;
    int sc = 0;
    m.tile(tile, &io, &oo, &sc);
    const std::uint64_t tin = base_in + io * E, tout = base_out + oo * E;
    std::memset(sm, 0xA5, sizeof sm);
    for (int t = 0; t < NT; ++t) load_tile(g, st[t], tin, sc, lo, hi, v0[t], v1[t]);
    for (int t = 0; t < NT; ++t) put_tile(g, st[t], tin, sc, v0[t], v1[t], sm);
    for (int t = 0; t < NT; ++t) store_tile<E, R>(g, st[t], tout, sc, sm);
  }
}

}  // namespace wt
