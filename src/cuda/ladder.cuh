// The teaching ladder's kernel, one template for every rung: each thread loads and
// stores through the index maps of include/xpose/index_map.hpp, so the access
// model evaluates exactly what runs. Assumes blockDim = (32, 8) or (32, 32).
#pragma once

#include "common.cuh"
#include "xpose/index_map.hpp"

namespace xpose::detail {

struct ladder_args {
  index_t rows, cols, ld_in, ld_out, batch, stride_in, stride_out;
  index_t tiles_x, tiles_y;  // 32x32 tiles over the input's columns and rows
};

template <class T, maps::pattern P, int BlockY>
__global__ void __launch_bounds__(32 * BlockY, 1) ladder_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                            ladder_args a) {
  constexpr int tile_edge = maps::ladder_tile;
  constexpr int per_thread = tile_edge / BlockY;  // elements each thread moves per tile
  constexpr bool staged = maps::uses_smem(P);
  __shared__ T tile[staged ? tile_edge * maps::smem_pitch(P) : 1];  // (32, 32 or 33)
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  for (index_t b = blockIdx.z; b < a.batch; b += gridDim.z)
    for (index_t gy = blockIdx.y; gy < a.tiles_y; gy += gridDim.y)
      for (index_t gx = blockIdx.x; gx < a.tiles_x; gx += gridDim.x) {
        const maps::tile_xy t = maps::visit_tile(P, gx, gy, a.tiles_x, a.tiles_y);
        const index_t r0 = t.y * tile_edge, c0 = t.x * tile_edge;
        // All loads are issued before the first store: per_thread loads in flight.
        T v[per_thread];
#pragma unroll
        for (int k = 0; k < per_thread; ++k) {
          const maps::rc x = maps::load_coord(P, r0, c0, tx, ty + k * BlockY);
          if (x.r < a.rows && x.c < a.cols) v[k] = in[maps::in_offset(b, x, a.ld_in, a.stride_in)];
        }
#pragma unroll
        for (int k = 0; k < per_thread; ++k) {
          const int i = ty + k * BlockY;
          const maps::rc x = maps::load_coord(P, r0, c0, tx, i);
          if (!(x.r < a.rows && x.c < a.cols)) continue;
          if constexpr (staged) {
            tile[maps::smem_offset(P, maps::smem_store_slot(P, tx, i))] = v[k];
          } else {
            const maps::rc y = maps::store_coord(P, r0, c0, tx, i);
            out[maps::out_offset(P, b, y, a.ld_in, a.ld_out, a.stride_in, a.stride_out)] = v[k];
          }
        }
        if constexpr (staged) {
          __syncthreads();
#pragma unroll
          for (int k = 0; k < per_thread; ++k) {
            const int i = ty + k * BlockY;
            const maps::rc y = maps::store_coord(P, r0, c0, tx, i);
            const bool inside = maps::transposes(P) ? (y.r < a.cols && y.c < a.rows)
                                                    : (y.r < a.rows && y.c < a.cols);
            if (inside)
              out[maps::out_offset(P, b, y, a.ld_in, a.ld_out, a.stride_in, a.stride_out)] =
                  tile[maps::smem_offset(P, maps::smem_load_slot(P, tx, i))];
          }
          __syncthreads();  // the tile is reused by the block's next iteration
        }
      }
}

/// Launches rung P for the element size in `d`.
template <maps::pattern P>
status launch_ladder(const void* in, void* out, const matrix_desc& d, const launch_options& l,
                     cudaStream_t stream) {
  if (l.block_x != 32 || (l.block_y != 8 && l.block_y != 32))
    return status::make(status_code::invalid_argument,
                        "block %dx%d: the ladder runs 32x8 (4 elements per thread) or 32x32 threads",
                        l.block_x, l.block_y);
  ladder_args a{d.rows, d.cols, d.ld_in, d.ld_out, d.batch, d.stride_in, d.stride_out,
                maps::tiles(d.cols), maps::tiles(d.rows)};
  const dim3 grid(clamp_grid(a.tiles_x, 0x7fffffff), clamp_grid(a.tiles_y, 65535),
                  clamp_grid(a.batch, 65535));
  const dim3 block(32, static_cast<unsigned>(l.block_y));
  return with_elem_type(d.elem_size, [&](auto tag) {
    using T = decltype(tag);
    if (l.block_y == 8)
      ladder_kernel<T, P, 8><<<grid, block, 0, stream>>>(static_cast<const T*>(in), static_cast<T*>(out), a);
    else
      ladder_kernel<T, P, 32><<<grid, block, 0, stream>>>(static_cast<const T*>(in), static_cast<T*>(out), a);
    return launch_status("ladder kernel launch");
  });
}

}  // namespace xpose::detail
