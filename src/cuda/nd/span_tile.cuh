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
