// The span tile kernel (span_map_t, src/core/span_map.hpp): every N-d permutation the vector tile does not move,
// whatever its extents, strides, alignment and element size. Persistent blocks step over tiles; each thread
// computes its slots' tile offsets once (32-bit, from the tile's 64-bit origin), then per tile loads its slots of
// the tile in input order into registers, writes them to the shared tile and stores its slots in output order
// from there. The next tile's loads are issued before the current tile's stores, so that loads stay in flight
// across tiles; thread 0 computes the origin of the tile after next into shared memory meanwhile. Which slots move
// is one bit per slot and kind of tile (the cut dims its origin leaves short), computed with the offsets.
// (Measured against this: cp.async for 4-16 byte elements with three tiles in flight, 0.61 against 0.70 median of
// a copy; a double-buffered tile with a ring of 32 tile origins, 0.70 against 0.71 at 4-16 bytes, 0.36 against
// 0.41 at 1-2 bytes with 7 slots; this kernel double-buffered, 0.93 of its fraction at 1-2 bytes on an H100;
// docs/RESULTS.md "N-d: the span tile".)
#pragma once

#include <type_traits>

#include "../../core/elem.hpp"
#include "../../core/span_map.hpp"

namespace xpose::detail {

// Global loads and stores through pointers held in registers (span_ldg / span_stg): without them the compiler
// adds each slot's offset to `in` or `out` reloaded from the constant bank (the slots' registers leave none for
// them), an instruction more per slot; __ldg and st.global keep the global (non-coherent) load and the plain store.
template <class T>
__device__ __forceinline__ T span_ldg(const T* p) {
  if constexpr (sizeof(T) == 16) {
    const ulonglong2 v = __ldg(reinterpret_cast<const ulonglong2*>(p));
    return T{v.x, v.y};
  } else {
    return __ldg(p);
  }
}
template <class T>
__device__ __forceinline__ void span_stg(T* p, T v) {
  if constexpr (sizeof(T) == 1)
    asm volatile("st.global.u8 [%0], %1;" ::"l"(p), "r"(static_cast<unsigned>(v)) : "memory");
  else if constexpr (sizeof(T) == 2) asm volatile("st.global.u16 [%0], %1;" ::"l"(p), "h"(v) : "memory");
  else if constexpr (sizeof(T) == 4) asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  else if constexpr (sizeof(T) == 8) asm volatile("st.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
  else asm volatile("st.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(v.lo), "l"(v.hi) : "memory");
}

// Off: unsigned where every tile offset fits (span_offsets_fit32) and Map is span_map32, else index_t with span_map
// (span_wide_blocks per SM).
template <int E, bool Conj, class Map, class Off>
__global__ void __launch_bounds__(span_threads, sizeof(Off) == 8 ? span_wide_blocks(E) : span_min_blocks(E))
    nd_span_kernel(const Map m, const void* __restrict__ in_v, void* __restrict__ out_v) {
  using T = typename uint_of<E>::type;
  constexpr int NT = span_threads, R = span_slots(E);
  static_assert(R <= 8, "a byte of slot bits per kind of tile");
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
  // The slots each kind of tile moves, by its short cuts sc (0-3): bit 8 * sc + k of lmask where slot k's element
  // (input order) lies inside the tile, of smask where its output-order element does. One bit test per slot and
  // side, where testing the edge bits and the slot count per slot took twice the slot's own instructions.
  unsigned lmask = 0, smask = 0;
#pragma unroll
  for (int k = 0; k < R; ++k) {
    const int p = tid + k * NT;
    ioff[k] = ooff[k] = 0;
    if (k < nk) {
      int i = 0;
      ioff[k] = static_cast<Off>(m.in_off(p));
      ooff[k] = static_cast<Off>(m.out_off(p, &i));
      ridx[k / 2] |= static_cast<unsigned>(m.smem(i)) << (16 * (k % 2));
      const int e = m.edge_bits(p);
      for (int sc = 0; sc < 4; ++sc) {
        if ((e & sc) == 0) lmask |= 1u << (8 * sc + k);
        if (((e >> 2) & sc) == 0) smask |= 1u << (8 * sc + k);
      }
    }
  }
  __syncthreads();
  T v[R];
  auto load = [&](index_t base, int sc) {
    const T* __restrict__ src = in + base;
    asm("" : "+l"(src));
    const unsigned lm = lmask >> (8 * sc);
#pragma unroll
    for (int k = 0; k < R; ++k)
      if (lm & (1u << k)) v[k] = span_ldg(src + ioff[k]);
  };
  index_t ob = info_base[0][1];
  int sc = info_short[0];
  load(info_base[0][0], sc);
  for (int it = 0;; ++it) {
    const unsigned lm = lmask >> (8 * sc);  // the slots loaded: the others' elements are never read
#pragma unroll
    for (int k = 0; k < R; ++k)
      if (lm & (1u << k)) sm[m.smem(tid + k * NT)] = v[k];
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
    asm("" : "+l"(dst));
    const unsigned smk = smask >> (8 * sc);
#pragma unroll
    for (int k = 0; k < R; ++k)
      if (smk & (1u << k)) span_stg(dst + ooff[k], pass<E, Conj>(sm[(ridx[k / 2] >> (16 * (k % 2))) & 0xffffu]));
    if (tn >= m.tiles) break;
    __syncthreads();  // the shared tile is read before the next tile's writes
    t = tn, ob = obn, sc = scn;
  }
}

}  // namespace xpose::detail
