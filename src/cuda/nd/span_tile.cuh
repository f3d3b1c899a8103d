// The span tile kernel (span_map_t, src/core/span_map.hpp): every N-d permutation the vector tile does not move,
// whatever its extents, strides, alignment and element size. Persistent blocks step over tiles; each thread
// computes its slots' tile offsets once (32-bit, from the tile's 64-bit origin), then per tile loads its slots of
// the tile in input order into registers, writes them to the shared tile and stores its slots in output order
// from there. The next tile's loads are issued before the current tile's stores, so that loads stay in flight
// across tiles; thread 0 computes the origin of the tile after next into shared memory meanwhile. Slots past a
// cut dim's last tile are masked by edge bits computed with the offsets. (Measured against this: cp.async for
// 4-16 byte elements with three tiles in flight, 0.61 against 0.70 median of a copy; a double-buffered tile with
// a ring of 32 tile origins, 0.70 against 0.71 at 4-16 bytes, 0.36 against 0.41 at 1-2 bytes with 7 slots;
// docs/RESULTS.md "N-d: the span tile".)
#pragma once

#include <type_traits>

#include "../../core/elem.hpp"
#include "../../core/span_map.hpp"

namespace xpose::detail {

// Off: unsigned where every tile offset fits (span_offsets_fit32) and Map is span_map32, else index_t with span_map
// (span_wide_blocks per SM).
template <int E, bool Conj, class Map, class Off>
__global__ void __launch_bounds__(span_threads, sizeof(Off) == 8 ? span_wide_blocks(E) : span_min_blocks(E))
    nd_span_kernel(const Map m, const void* __restrict__ in_v, void* __restrict__ out_v) {
  using T = typename uint_of<E>::type;
  constexpr int NT = span_threads, R = span_slots(E);
  static_assert(4 * R <= 32, "four edge bits per slot in one word");
  __shared__ T sm[span_smem_elems(span_max_elems(E), 1)];
  __shared__ index_t info_base[2][2];  // tiles ahead: input and output origin
  __shared__ int info_short[2];        // and short cuts
  const T* __restrict__ in = static_cast<const T*>(in_v);
  T* __restrict__ out = static_cast<T*>(out_v);
  const int tid = static_cast<int>(threadIdx.x);
  const index_t G = gridDim.x;
  index_t t = blockIdx.x;
  if (t >= m.tiles) return;
  auto info = [&](index_t u, int b) {
    int sc = 0;
    m.tile(u, &info_base[b][0], &info_base[b][1], &sc);
    info_short[b] = sc;
  };
  if (tid == 0) {
    info(t, 0);
    if (t + G < m.tiles) info(t + G, 1);
  }
  const int V = m.V, nk = (V - tid + NT - 1) / NT;  // this thread's slots in a tile (k < nk)
  Off ioff[R], ooff[R];
  unsigned ridx[(R + 1) / 2] = {};  // shared read index of slot k: 16 bits at 16 * (k % 2) of word k / 2
  unsigned edge = 0;                // slot k: bits 4k (load) and 4k+2 (store) per cut past that cut's last tile
#pragma unroll
  for (int k = 0; k < R; ++k) {
    const int p = tid + k * NT;
    ioff[k] = ooff[k] = 0;
    if (k < nk) {
      int i = 0;
      ioff[k] = static_cast<Off>(m.in_off(p));
      ooff[k] = static_cast<Off>(m.out_off(p, &i));
      ridx[k / 2] |= static_cast<unsigned>(m.smem(i)) << (16 * (k % 2));
      edge |= static_cast<unsigned>(m.edge_bits(p)) << (4 * k);
    }
  }
  __syncthreads();
  T v[R];
  auto load = [&](index_t base, int sc) {
    const T* __restrict__ src = in + base;
#pragma unroll
    for (int k = 0; k < R; ++k)
      if (k < nk && ((edge >> (4 * k)) & sc) == 0) v[k] = src[ioff[k]];
  };
  index_t ob = info_base[0][1];
  int sc = info_short[0];
  load(info_base[0][0], sc);
  for (int it = 0;; ++it) {
#pragma unroll
    for (int k = 0; k < R; ++k)
      if (k < nk) sm[m.smem(tid + k * NT)] = v[k];
    __syncthreads();  // the tile is in shared memory; the next tile's origin is written
    const index_t tn = t + G;
    index_t obn = 0;
    int scn = 0;
    if (tn < m.tiles) {
      const int b = (it + 1) & 1;
      obn = info_base[b][1], scn = info_short[b];
      load(info_base[b][0], scn);
    }
    if (tid == 0 && tn + G < m.tiles) info(tn + G, it & 1);  // its slot was last read before this barrier
    T* __restrict__ dst = out + ob;
#pragma unroll
    for (int k = 0; k < R; ++k)
      if (k < nk && ((edge >> (4 * k + 2)) & sc) == 0) dst[ooff[k]] = pass<E, Conj>(sm[(ridx[k / 2] >> (16 * (k % 2))) & 0xffffu]);
    if (tn >= m.tiles) break;
    __syncthreads();  // the shared tile is read before the next tile's writes
    t = tn, ob = obn, sc = scn;
  }
}

}  // namespace xpose::detail

namespace xpose::detail {

// The span tile in words (span_words, src/core/span_map.hpp; 1-2 byte elements, unit-stride fastest dims on both
// sides): the element kernel's persistent blocks, tile origins and prefetch, with 4-byte word slots. Each thread
// holds its load slots' run offsets, shared words and edge bits, and its store slots' run offsets, shared byte
// addresses and edge bits, from kernel start (32-bit offsets where Off is unsigned).
template <int E, class Map, class Off>
__global__ void __launch_bounds__(span_threads, span_word_blocks)
    nd_span_words_kernel(const Map m, const span_words w, const unsigned char* __restrict__ in,
                         unsigned char* __restrict__ out) {
  using T = typename uint_of<E>::type;
  constexpr int NT = span_threads, RI = span_word_in_slots, RO = span_word_out_slots, PW = 4 / E;
  static_assert(E == 1 || E == 2, "1-2 byte elements");
  __shared__ std::uint32_t sm[span_word_smem];
  __shared__ index_t info_base[2][2];
  __shared__ int info_short[2];
  const unsigned char* smb = reinterpret_cast<const unsigned char*>(sm);
  const int tid = static_cast<int>(threadIdx.x);
  // The lane's element order within a store word: rotated by lane group, so that a warp's gathers hit 32 banks.
  const int rot = (tid % 32) >> (E == 1 ? 3 : 4);
  const unsigned in_a = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(in) % 4);
  const unsigned out_a = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(out) % 4);
  const index_t G = gridDim.x;
  index_t t = blockIdx.x;
  if (t >= m.tiles) return;
  auto info = [&](index_t u, int b) {
    int sc = 0;
    m.tile(u, &info_base[b][0], &info_base[b][1], &sc);
    info_short[b] = sc;
  };
  if (tid == 0) {
    info(t, 0);
    if (t + G < m.tiles) info(t + G, 1);
  }
  const int nki = (w.in_slots - tid + NT - 1) / NT, nko = (w.out_slots - tid + NT - 1) / NT;
  Off ioff[RI], ooff[RO];
  unsigned iw[RI], ow[RO];  // load: shared word (low 16 bits), word in run (high); store: shared byte, word in run
  unsigned iedge = 0, oedge = 0;  // 2 bits per slot: cut c past its last tile
#pragma unroll
  for (int k = 0; k < RI; ++k) {
    ioff[k] = 0, iw[k] = 0;
    if (k < nki) {
      index_t off = 0;
      int sw = 0, wd = 0, e = 0;
      w.in_slot(m, tid + k * NT, &off, &sw, &wd, &e);
      ioff[k] = static_cast<Off>(off);
      iw[k] = static_cast<unsigned>(sw) | (static_cast<unsigned>(wd) << 16);
      iedge |= static_cast<unsigned>(e) << (2 * k);
    }
  }
#pragma unroll
  for (int k = 0; k < RO; ++k) {
    ooff[k] = 0, ow[k] = 0;
    if (k < nko) {
      index_t off = 0;
      int sb = 0, c = 0, e = 0;
      w.out_slot(m, tid + k * NT, &off, &sb, &c, &e);
      ooff[k] = static_cast<Off>(off);
      ow[k] = static_cast<unsigned>(sb) | (static_cast<unsigned>(c) << 16);
      oedge |= static_cast<unsigned>(e) << (2 * k);
    }
  }
  __syncthreads();
  std::uint32_t v[RI];
  // Byte offsets within a tile in Off's width (unsigned: span_offsets_fit32, no negative strides); the tile's
  // origin in 64 bits.
  auto load = [&](index_t base, int sc) {
    const int Li = w.in_len(sc) * E;
    const unsigned char* __restrict__ src = in + base * E;
    const unsigned ta = in_a + static_cast<unsigned>(base * E);
    const index_t lo_ok = w.in_lo - base * E, hi_ok = w.in_hi - base * E;  // the view's bytes from the tile origin
#pragma unroll
    for (int k = 0; k < RI; ++k) {
      const int b0 = 4 * static_cast<int>(iw[k] >> 16);
      if (k >= nki || ((iedge >> (2 * k)) & sc) != 0 || b0 >= Li) continue;
      const Off A = ioff[k] * E + static_cast<Off>(b0);
      const int nb = Li - b0 < 4 ? Li - b0 : 4;
      const unsigned a = (ta + static_cast<unsigned>(A)) % 4u;
      const Off lo = A - a;
      const bool two = static_cast<int>(a) + nb > 4;
      if (static_cast<index_t>(lo) >= lo_ok && static_cast<index_t>(lo) + (two ? 8 : 4) <= hi_ok) {
        const std::uint32_t l = *reinterpret_cast<const std::uint32_t*>(src + lo);
        const std::uint32_t h = two ? *reinterpret_cast<const std::uint32_t*>(src + lo + 4) : 0u;
        v[k] = __funnelshift_r(l, h, 8 * a);
      } else {
        std::uint32_t x = 0;
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (j < nb) x |= static_cast<std::uint32_t>(src[A + j]) << (8 * j);
        v[k] = x;
      }
    }
  };
  index_t ob = info_base[0][1];
  int sc = info_short[0];
  load(info_base[0][0], sc);
  for (int it = 0;; ++it) {
#pragma unroll
    for (int k = 0; k < RI; ++k)
      if (k < nki) sm[iw[k] & 0xffffu] = v[k];
    __syncthreads();  // the tile is in shared memory; the next tile's origin is written
    const index_t tn = t + G;
    index_t obn = 0;
    int scn = 0;
    if (tn < m.tiles) {
      const int b = (it + 1) & 1;
      obn = info_base[b][1], scn = info_short[b];
      load(info_base[b][0], scn);
    }
    if (tid == 0 && tn + G < m.tiles) info(tn + G, it & 1);  // its slot was last read before this barrier
    const int no = w.out_len(sc), Lo = no * E;
    unsigned char* __restrict__ dst = out + ob * E;
    const unsigned oa = out_a + static_cast<unsigned>(ob * E);
#pragma unroll
    for (int k = 0; k < RO; ++k) {
      if (k >= nko || ((oedge >> (2 * k)) & sc) != 0) continue;
      const Off B = ooff[k] * E;  // the run's first byte from the tile origin
      const int x0 = 4 * static_cast<int>(ow[k] >> 16) - static_cast<int>((oa + static_cast<unsigned>(B)) % 4u);
      if (x0 >= Lo) continue;
      const int sb = static_cast<int>(ow[k] & 0xffffu), e0 = x0 / E;
      std::uint32_t x = 0;
#pragma unroll
      for (int j = 0; j < PW; ++j) {
        const int jj = (j + rot) % PW, e = e0 + jj;
        if (e >= 0 && e < no)
          x |= static_cast<std::uint32_t>(*reinterpret_cast<const T*>(smb + sb + e * w.out_step)) << (8 * E * jj);
      }
      if (x0 >= 0 && x0 + 4 <= Lo) {
        *reinterpret_cast<std::uint32_t*>(dst + B + x0) = x;
      } else {
#pragma unroll
        for (int j = 0; j < PW; ++j) {
          const int e = e0 + j;
          if (e >= 0 && e < no) *reinterpret_cast<T*>(dst + B + e * E) = static_cast<T>(x >> (8 * E * j));
        }
      }
    }
    if (tn >= m.tiles) break;
    __syncthreads();  // the shared tile is read before the next tile's writes
    t = tn, ob = obn, sc = scn;
  }
}

}  // namespace xpose::detail
