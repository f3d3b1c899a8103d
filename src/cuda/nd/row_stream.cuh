// The row stream of strided copies (nd_row_stream_kernel); launched by permute_nd.cu.
#pragma once

#include <cstdint>

#include "../../core/elem.hpp"
#include "../../core/nd_map.hpp"

namespace xpose::detail {

// The row stream (strided copies, row_unit > 0): G lanes per work item of row_map,
// B items per warp and batch (row_batch: 32, fewer where the items would leave the GPU's
// warps idle): lane l < B computes the offsets of item batch * B + l once (one digit
// decomposition per item, none per byte) and shuffles them to the G lanes of the item's
// step. Every whole 16-byte aligned chunk of the output row is one
// 128-bit store; its source bytes come from the one or two aligned 16-byte input
// chunks covering them, realigned by word selects and funnel shifts (the shift
// (in - out) mod 16 is fixed per row and a multiple of the unit W). The bytes of chunks
// whose input pair would reach outside the row (at most two per row end: the partial
// chunks, and a whole one whose pair straddles the row's first or last byte) move in
// W-byte units (spread over the item's G lanes where W < 8: 1-4 byte rows ran 0.48-0.67
// -> 0.64-0.78 of a copy, 8-byte ones 0.67-0.80 -> 0.57-0.72), so no byte outside the
// row is read (compute-sanitizer initcheck).
// K chunks per lane and item, every load issued before the first store.
inline constexpr int row_threads = 256, row_k = 4;

template <int W>
__device__ __forceinline__ uint4 realign(const uint4 lo, const uint4 hi, unsigned m) {
  const std::uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  std::uint32_t x[6], y[5];
#pragma unroll
  for (int j = 0; j < 6; ++j) x[j] = (m & 8u) ? w[j + 2] : w[j];
#pragma unroll
  for (int j = 0; j < 5; ++j) y[j] = (m & 4u) ? x[j + 1] : x[j];
  if constexpr (W >= 4) return make_uint4(y[0], y[1], y[2], y[3]);
  const unsigned b = (m & 3u) * 8u;
  return make_uint4(__funnelshift_r(y[0], y[1], b), __funnelshift_r(y[1], y[2], b), __funnelshift_r(y[2], y[3], b),
                    __funnelshift_r(y[3], y[4], b));
}

template <int W, int G, class Map>
__global__ void __launch_bounds__(row_threads, 2)
    nd_row_stream_kernel(const Map m, const int B, const unsigned char* __restrict__ in,
                         unsigned char* __restrict__ out) {
  using T = typename uint_of<W>::type;
  constexpr int K = row_k, IPS = 32 / G;  // items per step
  const int lane = static_cast<int>(threadIdx.x) % 32, sub = lane % G, grp = lane / G;
  const index_t warps = static_cast<index_t>(gridDim.x) * (row_threads / 32);
  const index_t L = m.row_bytes;
  const int steps = B / IPS;  // B: a power of two from IPS to 32
  for (index_t batch = (static_cast<index_t>(blockIdx.x) * row_threads + threadIdx.x) / 32; batch * B < m.items;
       batch += warps) {
    const index_t first = batch * B;
    index_t my_io = 0, my_oo = 0;
    int my_slice = 0;
    if (lane < B && first + lane < m.items) m.item(first + lane, &my_io, &my_oo, &my_slice);
#pragma unroll 1
    for (int s = 0; s < steps; ++s) {
      const int src = s * IPS + grp;
      const index_t io = __shfl_sync(0xffffffffu, my_io, src), oo = __shfl_sync(0xffffffffu, my_oo, src);
      const int slice = __shfl_sync(0xffffffffu, my_slice, src);
      if (first + src >= m.items) continue;
      const unsigned char* i = in + io;
      unsigned char* o = out + oo;
      const int oa = static_cast<int>(reinterpret_cast<std::uintptr_t>(o) % 16);
      const unsigned sh = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(i) - oa) % 16u;
      const index_t nc = (oa + L + 15) / 16;
      uint4 lo[K], hi[K];
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const index_t c = static_cast<index_t>(slice) * (G * K) + k * G + sub;
        const index_t off = 16 * c - oa;  // of the chunk's first byte, from the row's
        lo[k] = hi[k] = make_uint4(0, 0, 0, 0);
        if (c < nc && row_chunk_whole(off, L, sh)) {
          const uint4* a = reinterpret_cast<const uint4*>(i + off - sh);
          lo[k] = a[0];
          if (sh != 0) hi[k] = a[1];
        }
      }
      // The row's ends, the bytes before its first whole chunk and after its last (row_ends): units under 8 bytes
      // spread over the item's G lanes, the head by slice 0, the tail by the row's last slice; 8-byte units (two
      // per chunk) by the lane of their chunk, below.
      index_t head = 0, tail = 0;
      row_ends(L, oa, sh, &head, &tail);
      if (W < 8 && slice == 0) {
#pragma unroll 4
        for (index_t b = sub * W; b < head; b += G * W) *reinterpret_cast<T*>(o + b) = *reinterpret_cast<const T*>(i + b);
      }
      if (W < 8 && slice == (nc - 1) / (G * K)) {
#pragma unroll 4
        for (index_t b = tail + sub * W; b < L; b += G * W) *reinterpret_cast<T*>(o + b) = *reinterpret_cast<const T*>(i + b);
      }
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const index_t c = static_cast<index_t>(slice) * (G * K) + k * G + sub;
        const index_t off = 16 * c - oa;
        if (c >= nc) continue;
        if (row_chunk_whole(off, L, sh)) {
          *reinterpret_cast<uint4*>(o + off) = realign<W>(lo[k], hi[k], sh);
        } else if (W >= 8) {
#pragma unroll
          for (int e = 0; e < 16 / W; ++e) {
            const index_t b = off + e * W;
            if (b >= 0 && b < L) *reinterpret_cast<T*>(o + b) = *reinterpret_cast<const T*>(i + b);
          }
        }
      }
    }
  }
}

}  // namespace xpose::detail
