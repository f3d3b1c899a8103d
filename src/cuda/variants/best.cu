// Fast path `best`: picks a path from the shape and the alignment seen at run time
// (degenerate copy, few-rows slab, few-columns slab, or the tiled kernel with the
// widest global access that pointers, leading dimensions and strides allow) and
// launches one block per tile. No allocation, no host sync,
// stream-ordered, graph-capturable. Kernels: src/cuda/best_kernels.cuh.
#include <atomic>
#include <cstdint>

#include "../best_kernels.cuh"
#include "../best_realign.cuh"
#include "../policy.hpp"

namespace xpose::detail {
namespace {

using best::slab_args;
using best::tile_args;
using best::u8;

// Largest power of two <= 16 dividing x (16 for x == 0).
int align16(std::uint64_t x) {
  if (x == 0) return 16;
  const std::uint64_t low = x & (~x + 1);
  return low >= 16 ? 16 : static_cast<int>(low);
}

// Grid of a kernel: checks once per kernel and device that a block fits (raising the
// dynamic shared-memory limit when the tile needs > 48 KiB), then one block per tile.
template <auto kernel>
status grid_for(int threads, int smem, index_t work, unsigned* grid) {
  static std::atomic<int> occ_cache[64];  // per kernel (template argument) and device
  int dev = 0;
  if (status s = cuda_status(cudaGetDevice(&dev), "cudaGetDevice"); !s.ok()) return s;
  int occ = (dev >= 0 && dev < 64) ? occ_cache[dev].load(std::memory_order_relaxed) : 0;
  if (occ == 0) {
    if (smem > 48 * 1024)
      if (status s = cuda_status(
              cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem),
              "cudaFuncSetAttribute");
          !s.ok())
        return s;
    if (status s = cuda_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, threads, smem),
                               "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
        !s.ok())
      return s;
    if (occ < 1)
      return status::make(status_code::unsupported_variant, "best: a %d-byte tile does not fit this device", smem);
    if (dev >= 0 && dev < 64) occ_cache[dev].store(occ, std::memory_order_relaxed);
  }
  // One tile per block (the loop in the kernels covers what exceeds the grid limit):
  // measured on the H200, 256 MiB squares, 0.94-0.95x memcpy against 0.89x for a
  // persistent grid of resident blocks (docs/RESULTS.md, sweep).
  *grid = static_cast<unsigned>(work < best_grid_limit ? work : best_grid_limit);
  return {};
}

template <int E, int A>
status launch_tile(const tile_args& a, cudaStream_t stream) {
  constexpr best_tile t = A == 16 ? best_tile_for(E) : best_tile_narrow_for(E);
  constexpr int smem = t.rows * t.chunks * 16;
  constexpr auto kernel = best::tile_kernel<E, t.rows, t.chunks, t.threads, t.micro_bytes, (A == 16 ? t.min_blocks : 1), A>;
  unsigned grid = 0;
  if (status s = grid_for<kernel>(t.threads, smem, a.total, &grid); !s.ok()) return s;
  kernel<<<grid, t.threads, smem, stream>>>(a);
  return launch_status("best tile kernel launch");
}

// Realigning tile path: any E-aligned layout, 16-byte accesses at aligned addresses.
template <int E>
status realign_path(const void* in, void* out, const matrix_desc& d, cudaStream_t stream) {
  constexpr best_tile t = best_tile_realign_for(E);
  constexpr int tc = t.chunks * 16 / E;
  constexpr int smem = t.rows * t.chunks * 16;
  best::realign_args ra{};
  tile_args& a = ra.t;
  a.in = static_cast<const u8*>(in);
  a.out = static_cast<u8*>(out);
  a.rows = d.rows, a.cols = d.cols, a.batch = d.batch;
  a.ld_in = d.ld_in * E, a.ld_out = d.ld_out * E;
  a.stride_in = d.stride_in * E, a.stride_out = d.stride_out * E;
  a.tiles_c = (d.cols + tc - 1) / tc;
  a.tiles_per_mat = a.tiles_c * ((d.rows + t.rows - 1) / t.rows);
  a.total = a.tiles_per_mat * d.batch;
  // One past the last input byte: loads never leave [in, in_end) (memcheck, initcheck).
  ra.in_end = a.in + (d.batch - 1) * a.stride_in + (d.rows - 1) * a.ld_in + d.cols * E;
  constexpr auto kernel = best::realign_tile_kernel<E, t.rows, t.chunks, t.threads, t.micro_bytes, t.min_blocks>;
  unsigned grid = 0;
  if (status s = grid_for<kernel>(t.threads, smem, a.total, &grid); !s.ok()) return s;
  kernel<<<grid, t.threads, smem, stream>>>(ra);
  return launch_status("best realign kernel launch");
}

// 16-byte tile of a shape class (policy: best_shape_for).
template <int E, best_shape S>
status launch_shaped(tile_args a, const matrix_desc& d, cudaStream_t stream) {
  constexpr best_tile t = best_tile_shaped(E, S);
  constexpr int tc = t.chunks * 16 / E;
  constexpr int smem = t.rows * t.chunks * 16;
  a.tiles_c = (d.cols + tc - 1) / tc;
  a.tiles_per_mat = a.tiles_c * ((d.rows + t.rows - 1) / t.rows);
  a.total = a.tiles_per_mat * d.batch;
  constexpr auto kernel = best::tile_kernel<E, t.rows, t.chunks, t.threads, t.micro_bytes, t.min_blocks, 16>;
  unsigned grid = 0;
  if (status s = grid_for<kernel>(t.threads, smem, a.total, &grid); !s.ok()) return s;
  kernel<<<grid, t.threads, smem, stream>>>(a);
  return launch_status("best tile kernel launch");
}

template <int E>
status tile_path(const void* in, void* out, const matrix_desc& d, int access, cudaStream_t stream) {
  if constexpr (E <= 2) {
    const best_shape sh = best_shape_for(E, d.rows, d.cols);
    if (access == 16 && sh != best_shape::standard) {
      tile_args a{};
      a.in = static_cast<const u8*>(in);
      a.out = static_cast<u8*>(out);
      a.rows = d.rows, a.cols = d.cols, a.batch = d.batch;
      a.ld_in = d.ld_in * E, a.ld_out = d.ld_out * E;
      a.stride_in = d.stride_in * E, a.stride_out = d.stride_out * E;
      return sh == best_shape::few_rows ? launch_shaped<E, best_shape::few_rows>(a, d, stream)
                                        : launch_shaped<E, best_shape::narrow>(a, d, stream);
    }
  }
  const best_tile t = access == 16 ? best_tile_for(E) : best_tile_narrow_for(E);
  const int tc = t.chunks * 16 / E;
  tile_args a{};
  a.in = static_cast<const u8*>(in);
  a.out = static_cast<u8*>(out);
  a.rows = d.rows, a.cols = d.cols, a.batch = d.batch;
  a.ld_in = d.ld_in * E, a.ld_out = d.ld_out * E;
  a.stride_in = d.stride_in * E, a.stride_out = d.stride_out * E;
  a.tiles_c = (d.cols + tc - 1) / tc;
  a.tiles_per_mat = a.tiles_c * ((d.rows + t.rows - 1) / t.rows);
  a.total = a.tiles_per_mat * d.batch;
  // access >= E: validation guarantees element alignment.
  if (access >= 16) return launch_tile<E, 16>(a, stream);
  if constexpr (E <= 4) {
    if (access == 8) return launch_tile<E, 8>(a, stream);
    if (access == 4) return launch_tile<E, 4>(a, stream);
  }
  if constexpr (E == 1) {
    if (access == 2) return launch_tile<E, 2>(a, stream);
  }
  return launch_tile<E, E>(a, stream);
}

template <int E, bool FewRows>
status slab_path(const void* in, void* out, const matrix_desc& d, cudaStream_t stream) {
  constexpr int span = best_slab_bytes / E;  // long-side elements per slab
  constexpr int nt = best_slab_threads;
  slab_args a{};
  a.in = static_cast<const u8*>(in);
  a.out = static_cast<u8*>(out);
  a.rows = d.rows, a.cols = d.cols, a.batch = d.batch;
  a.ld_in = d.ld_in * E, a.ld_out = d.ld_out * E;
  a.stride_in = d.stride_in * E, a.stride_out = d.stride_out * E;
  const index_t long_side = FewRows ? d.cols : d.rows, short_side = FewRows ? d.rows : d.cols;
  a.slabs_per_mat = (long_side + span - 1) / span;
  a.total = a.slabs_per_mat * d.batch;
  a.pitch = best_slab_bytes + 16;  // 16-byte pad: rows start 4 banks apart
  const int smem = static_cast<int>(short_side) * a.pitch;
  constexpr auto kernel =
      FewRows ? best::slab_rows_kernel<E, span, nt, 16, 16> : best::slab_cols_kernel<E, span, nt, 16, 16>;
  unsigned grid = 0;
  // Occupancy is read for the largest slab (short side = the policy's maximum).
  if (status s = grid_for<kernel>(nt, best_slab_max_short_side * a.pitch, a.total, &grid); !s.ok())
    return s;
  kernel<<<grid, nt, smem, stream>>>(a);
  return launch_status("best slab kernel launch");
}

template <int E>
status launch_best_e(const void* in, void* out, const matrix_desc& d, cudaStream_t stream) {
  const auto pi = reinterpret_cast<std::uintptr_t>(in), po = reinterpret_cast<std::uintptr_t>(out);
  const bool batched = d.batch > 1;
  const index_t mat = d.rows * d.cols;

  // A vector or a batch of vectors whose input and output layouts coincide: a copy.
  const bool same_layout =
      (d.rows == 1 && (d.cols == 1 || d.ld_out == 1) && (!batched || (d.stride_in == mat && d.stride_out == mat))) ||
      (d.cols == 1 && (d.rows == 1 || d.ld_in == 1) && (!batched || (d.stride_in == mat && d.stride_out == mat)));
  if (same_layout)
    return cuda_status(cudaMemcpyAsync(out, in, static_cast<size_t>(d.elements()) * E, cudaMemcpyDeviceToDevice, stream),
                       "cudaMemcpyAsync");

  int access = 16;
  for (std::uint64_t x : {static_cast<std::uint64_t>(pi), static_cast<std::uint64_t>(po),
                          static_cast<std::uint64_t>(d.ld_in * E), static_cast<std::uint64_t>(d.ld_out * E)})
    access = access < align16(x) ? access : align16(x);
  if (batched)
    for (std::uint64_t x : {static_cast<std::uint64_t>(d.stride_in * E), static_cast<std::uint64_t>(d.stride_out * E)})
      access = access < align16(x) ? access : align16(x);

  if (access == 16) {
    // Slabs need 16-byte alignment of both sides and a packed long side.
    if (d.rows <= best_slab_max_short_side && d.ld_out == d.rows && (!batched || d.stride_out == mat))
      return slab_path<E, true>(in, out, d, stream);
    if (d.cols <= best_slab_max_short_side && d.ld_in == d.cols && (!batched || d.stride_in == mat))
      return slab_path<E, false>(in, out, d, stream);
  }
  if constexpr (E < 16)
    if (access < 16 && best_realign_enabled(E)) return realign_path<E>(in, out, d, stream);
  return tile_path<E>(in, out, d, access, stream);
}

}  // namespace

status launch_best(const void* in, void* out, const matrix_desc& d, const launch_options&, cudaStream_t stream) {
  switch (d.elem_size) {
    case 1: return launch_best_e<1>(in, out, d, stream);
    case 2: return launch_best_e<2>(in, out, d, stream);
    case 4: return launch_best_e<4>(in, out, d, stream);
    case 8: return launch_best_e<8>(in, out, d, stream);
    case 16: return launch_best_e<16>(in, out, d, stream);
    default: return status::make(status_code::unsupported_elem_size, "element size %d", d.elem_size);
  }
}

}  // namespace xpose::detail
