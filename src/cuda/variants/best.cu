// Fast path `best`: best_path_for (policy.hpp) picks the path from the shape, layout and
// alignment; this file fills the kernel arguments once and launches one block per tile
// or slab. No allocation, no host sync, stream-ordered, graph-capturable.
// Kernels: best_kernels.cuh (tile), best_realign.cuh (realigning tile), best_slab.cuh.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <iterator>
#include <utility>

#include "../best_async.cuh"
#include "../best_direct.cuh"
#include "../best_interleave.cuh"
#include "../best_kernels.cuh"
#include "../best_pipe.cuh"
#include "../best_realign.cuh"
#include "../best_skew.cuh"
#include "../best_slab.cuh"
#include "../policy.hpp"

namespace xpose::detail {
namespace {

using best::tile_args;
using best::u8;

// Blocks of a kernel resident per SM on device `dev`: checks once per kernel and device
// that a block of `smem` bytes fits (raising the dynamic shared-memory limit when it needs
// > 48 KiB) and caches the count; the first call's smem must be the kernel's largest.
// Per call: a relaxed atomic read. Slot: another cache for the same kernel at another
// block size (pipe_path: 1-4 for its slab pair and the shift gathers' two buffers, resident_slots_at;
// 5-10 for the scatter slab table's sizes, 2 + SB / 4096). The limit is only ever raised, so that a
// slot asked later never lowers an earlier one's.
template <auto kernel, int Slot = 0>
status resident_blocks(int dev, int threads, int smem, int* blocks) {
  static std::atomic<int> occ_cache[64];  // per kernel (template argument), slot and device
  int occ = (dev >= 0 && dev < 64) ? occ_cache[dev].load(std::memory_order_relaxed) : 0;
  if (occ == 0) {
    if (smem > 48 * 1024) {
      cudaFuncAttributes fa{};
      if (status s = cuda_status(cudaFuncGetAttributes(&fa, kernel), "cudaFuncGetAttributes"); !s.ok()) return s;
      if (smem > fa.maxDynamicSharedSizeBytes)
        if (status s = cuda_status(
                cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem),
                "cudaFuncSetAttribute");
            !s.ok())
          return s;
    }
    if (status s = cuda_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, threads, smem),
                               "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
        !s.ok())
      return s;
    if (occ < 1)
      return status::make(status_code::unsupported_variant, "best: a %d-byte block does not fit this device", smem);
    if (dev >= 0 && dev < 64) occ_cache[dev].store(occ, std::memory_order_relaxed);
  }
  *blocks = occ;
  return {};
}

// Grid of a kernel: one block per tile up to best_grid_limit, once resident_blocks has
// checked that a block fits.
template <auto kernel>
status grid_for(int dev, int threads, int smem, index_t work, unsigned* grid) {
  int occ = 0;
  if (status s = resident_blocks<kernel>(dev, threads, smem, &occ); !s.ok()) return s;
  *grid = static_cast<unsigned>(work < best_grid_limit ? work : best_grid_limit);
  return {};
}

// Multiprocessors of device `dev`, cached per device.
status sm_count(int dev, int* sms) {
  static std::atomic<int> cache[64];
  int n = (dev >= 0 && dev < 64) ? cache[dev].load(std::memory_order_relaxed) : 0;
  if (n == 0) {
    if (status s = cuda_status(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute");
        !s.ok())
      return s;
    if (dev >= 0 && dev < 64) cache[dev].store(n, std::memory_order_relaxed);
  }
  *sms = n;
  return {};
}

// Blocks of a kernel resident on the whole device (resident_blocks per SM x SMs): the grid of
// the kernels whose blocks stride over their work (slabs, tiles, groups).
template <auto kernel, int Slot = 0>
status resident_slots(int dev, int threads, int smem, long long* slots) {
  int occ = 0, sms = 0;
  if (status s = resident_blocks<kernel, Slot>(dev, threads, smem, &occ); !s.ok()) return s;
  if (status s = sm_count(dev, &sms); !s.ok()) return s;
  *slots = static_cast<long long>(occ) * sms;
  return {};
}

// resident_slots in cache slot `slot` (1-4; slot 0 must be asked first, at the kernel's largest block).
template <auto kernel>
status resident_slots_at(int dev, int threads, int smem, int slot, long long* slots) {
  switch (slot) {
    case 1: return resident_slots<kernel, 1>(dev, threads, smem, slots);
    case 2: return resident_slots<kernel, 2>(dev, threads, smem, slots);
    case 3: return resident_slots<kernel, 3>(dev, threads, smem, slots);
    default: return resident_slots<kernel, 4>(dev, threads, smem, slots);
  }
}

// Where a launch goes: the current device, read once per call, and its compute capability.
struct target {
  int dev, cc;
  cudaStream_t stream;
  bool candidate;  // the policy under measurement (variant best_next)
};

// Dependent: the kernel begins with bytes::dependent_launch_entry(), so on sm_90+ a small
// grid may be launched as a programmatic dependent of the work before it in the stream
// (or graph): its launch overlaps that work's tail (best_dependent_launch_on, policy.hpp).
// Only kernels with that entry may pass true: without the wait they would race.
template <auto kernel, bool Dependent = false, class Args>
status launch(int threads, int smem, index_t work, const Args& a, const target& tg, const char* what) {
  unsigned grid = 0;
  if (status s = grid_for<kernel>(tg.dev, threads, smem, work, &grid); !s.ok()) return s;
  cudaStream_t stream = tg.stream;
  if (Dependent && best_dependent_launch_on(tg.cc, grid)) {
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(grid), cfg.blockDim = dim3(static_cast<unsigned>(threads));
    cfg.dynamicSmemBytes = static_cast<size_t>(smem), cfg.stream = stream;
    cfg.attrs = attr, cfg.numAttrs = 1;
    return cuda_status(cudaLaunchKernelEx(&cfg, kernel, a), what);
  }
  kernel<<<grid, threads, smem, stream>>>(a);
  return launch_status(what);
}

// Tile arguments, filled in one place for every tile path.
template <int E>
tile_args make_tile_args(const void* in, void* out, const matrix_desc& d, best_tile t) {
  const index_t tc = t.chunks * 16 / E;
  tile_args a{};
  a.in = static_cast<const u8*>(in);
  a.out = static_cast<u8*>(out);
  a.rows = d.rows, a.cols = d.cols, a.batch = d.batch;
  a.ld_in = d.ld_in * E, a.ld_out = d.ld_out * E;
  a.stride_in = d.stride_in * E, a.stride_out = d.stride_out * E;
  a.tiles_c = (d.cols + tc - 1) / tc;
  a.tiles_per_mat = a.tiles_c * ((d.rows + t.rows - 1) / t.rows);
  a.total = a.tiles_per_mat * d.batch;
  return a;
}

// One past the last input byte: loads never leave [in, in_end) (memcheck, initcheck).
const void* input_end(const void* in, const matrix_desc& d) {
  return static_cast<const u8*>(in) + in_extent(d) * d.elem_size;
}

// Which table entry a tile path uses (C++17: a tile cannot be a template argument).
enum tile_kind { standard_tile, few_rows_tile, narrow_tile, access_tile, half_tile };
template <int E, int K>
constexpr best_tile tile_of() {
  if constexpr (K == few_rows_tile) return best_tile_shaped(E, best_shape::few_rows);
  else if constexpr (K == narrow_tile) return best_tile_shaped(E, best_shape::narrow);
  else if constexpr (K == access_tile) return best_tile_narrow_for(E);
  else if constexpr (K == half_tile) return best_tile_half_for(E);
  else return best_tile_for(E);
}

template <int E, int A, int K>
status tile_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr best_tile T = tile_of<E, K>();
  constexpr auto kernel = best::tile_kernel<E, T.rows, T.chunks, T.threads, T.micro_bytes, T.min_blocks, A>;
  const tile_args a = make_tile_args<E>(in, out, d, T);
  const char* what = "best tile kernel launch";
  // Tiny 4-8 byte calls on the small narrow tile (switch best_tiny_small_default), waiting late.
  if constexpr (K == narrow_tile && A == 16 && E >= 4 && E <= 8)
    if (best_tiny_small_takes(d, tg.candidate)) {
      constexpr best_tile S = best_tile_tiny_small_for(E);
      static_assert(best_tile_valid(E, S, false), "the small narrow tile");
      constexpr auto small = best::tile_kernel<E, S.rows, S.chunks, S.threads, S.micro_bytes, S.min_blocks, A, 0, true>;
      const tile_args b = make_tile_args<E>(in, out, d, S);
      return launch<small, true>(S.threads, S.rows * S.chunks * 16, b.total, b, tg, what);
    }
  // The narrow tile (tiny 1-2 byte calls) waiting late (switch best_late_wait_default).
  if constexpr (K == narrow_tile && A == 16)
    if (best_route_on(best_late_wait_default, tg.candidate)) {
      constexpr auto late = best::tile_kernel<E, T.rows, T.chunks, T.threads, T.micro_bytes, T.min_blocks, A, 0, true>;
      return launch<late, true>(T.threads, T.rows * T.chunks * 16, a.total, a, tg, what);
    }
  return launch<kernel, true>(T.threads, T.rows * T.chunks * 16, a.total, a, tg, what);
}

// The cp.async tile (1-2 byte elements; best_tile_async_for): one block per tpb tiles.
template <int E, bool Batch>
status async_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr best_async_tile T = best_tile_async_for(E, Batch);
  constexpr best_tile t = T.t;
  constexpr auto kernel = async_tile::async_tile_kernel<E, t.rows, t.chunks, t.threads, t.micro_bytes, t.min_blocks, T.tpb>;
  async_tile::args a{make_tile_args<E>(in, out, d, t), 0};
  // One block per group of tpb tiles; more groups than one grid holds: further launches.
  const index_t groups = (a.t.total + T.tpb - 1) / T.tpb;
  for (; a.group0 < groups; a.group0 += best_grid_limit)
    if (status s = launch<kernel>(t.threads, T.tpb * t.rows * t.chunks * 16, groups - a.group0, a, tg,
                                  "best async tile kernel launch");
        !s.ok())
      return s;
  return {};
}

// The pipelined cp.async tile (1-4 byte elements; best_tile_async_pipe_for): resident
// blocks (as many as fit, cached per kernel and device) stride over the groups.
template <int E, bool Batch>
status async_pipe_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr best_async_pipe P = best_tile_async_pipe_for(E, Batch);
  constexpr best_tile t = P.a.t;
  constexpr auto kernel =
      async_tile::async_pipe_kernel<E, t.rows, t.chunks, t.threads, t.micro_bytes, t.min_blocks, P.a.tpb, P.stages>;
  constexpr int smem = best_async_pipe_smem(P);
  const async_tile::args a{make_tile_args<E>(in, out, d, t), 0};
  long long n = 0;
  if (status s = resident_slots<kernel>(tg.dev, t.threads, smem, &n); !s.ok()) return s;
  const index_t groups = (a.t.total + P.a.tpb - 1) / P.a.tpb;
  return launch<kernel>(t.threads, smem, groups < n ? groups : n, a, tg, "best async pipe kernel launch");
}

// The realigning tile with cp.async (1-2 byte elements; best_tile_async_realign_for).
template <int E>
status async_realign_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr best_tile t = best_tile_async_realign_for(E);
  constexpr auto kernel = async_tile::async_realign_kernel<E, t.rows, t.chunks, t.threads, t.min_blocks>;
  async_tile::realign_args a{make_tile_args<E>(in, out, d, t), static_cast<const u8*>(input_end(in, d)), 0};
  for (; a.tile0 < a.t.total; a.tile0 += best_grid_limit)
    if (status s = launch<kernel>(t.threads, best_async_realign_smem(t), a.t.total - a.tile0, a, tg,
                                  "best async realign kernel launch");
        !s.ok())
      return s;
  return {};
}

template <int E>
status realign_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr best_tile T = best_tile_realign_for(E);
  constexpr auto kernel = best::realign_tile_kernel<E, T.rows, T.chunks, T.threads, T.micro_bytes, T.min_blocks>;
  const best::realign_args ra{make_tile_args<E>(in, out, d, T), static_cast<const u8*>(input_end(in, d))};
  return launch<kernel, true>(T.threads, T.rows * T.chunks * 16, ra.t.total, ra, tg, "best realign kernel launch");
}

// The row-fitted tile of TR rows (route tile_fit; realign_fit: Realign, input rows off the
// 16-byte grid; Dense: best_fit_dense_default's form, 2-byte elements), one block per tile.
template <int E, int TR, bool Realign, bool Dense>
status fit_path_rows(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr best_tile T = best_tile_fit_for(E, TR, Realign, Dense);
  const tile_args a = make_tile_args<E>(in, out, d, T);
  if constexpr (Realign) {
    constexpr auto kernel = best::realign_tile_kernel<E, T.rows, T.chunks, T.threads, T.micro_bytes, T.min_blocks, true>;
    const best::realign_args ra{a, static_cast<const u8*>(input_end(in, d))};
    return launch<kernel, true>(T.threads, T.rows * T.chunks * 16, a.total, ra, tg, "best fitted realign kernel launch");
  } else {
    constexpr auto kernel = best::tile_kernel<E, T.rows, T.chunks, T.threads, T.micro_bytes, T.min_blocks, 16>;
    return launch<kernel, true>(T.threads, T.rows * T.chunks * 16, a.total, a, tg, "best fitted tile kernel launch");
  }
}

template <int E, int TR, bool Realign>
status fit_path_form(const void* in, void* out, const matrix_desc& d, const target& tg) {
  if constexpr (E == best_fit_dense_elem && TR <= best_fit_dense_max_rows) {
    // Both switches equal: the fitted tile runs only under the flag that has the dense form on
    // (best_fit_tile_on), so the plain 2-byte form of these rows is not built.
    if constexpr (best_fit_tile_default == best_fit_dense_default) return fit_path_rows<E, TR, Realign, true>(in, out, d, tg);
    else if (best_fit_dense_on(E, TR, tg.candidate)) return fit_path_rows<E, TR, Realign, true>(in, out, d, tg);
  }
  return fit_path_rows<E, TR, Realign, false>(in, out, d, tg);
}

static_assert(best_fit_tile_min_rows > 32 && best_fit_tile_max_rows <= 128, "fit_path's tiles: 48 to 128 rows");
static_assert(best_fit_wide_min_rows == 24 && best_fit_wide_max_rows == 32, "fit_path's 4-8 byte tiles: 24, 32 rows");
template <int E, bool Realign>
status fit_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  // 4-8 bytes (best_fit_wide_fits): aligned rows, one form.
  if constexpr ((E == 4 || E == 8) && !Realign) {
    switch (best_fit_tile_rows(E, d.rows)) {
      case 24: return fit_path_rows<E, 24, false, false>(in, out, d, tg);
      case 32: return fit_path_rows<E, 32, false, false>(in, out, d, tg);
      default: break;
    }
  }
  if constexpr (E <= 2) {
    switch (best_fit_tile_rows(E, d.rows)) {
      case 48: return fit_path_form<E, 48, Realign>(in, out, d, tg);
      case 64: return fit_path_form<E, 64, Realign>(in, out, d, tg);
      case 80: return fit_path_form<E, 80, Realign>(in, out, d, tg);
      case 96: return fit_path_form<E, 96, Realign>(in, out, d, tg);
      case 112:
        if constexpr (E == 2) return fit_path_form<E, 112, Realign>(in, out, d, tg);
        break;
      case 128: return fit_path_form<E, 128, Realign>(in, out, d, tg);
      default: break;
    }
  }
  return status::make(status_code::unsupported_variant, "best: no fitted tile for %d rows", static_cast<int>(d.rows));
}

// Skewed realigning tile (candidate policy): shared memory above 48 KiB for 1-2 byte
// elements (grid_for raises the limit once per device).
// Fit: best_tile_skew_fit_for's half-width tile (route realign_skew_fit).
template <int E, bool Fit = false>
status skew_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr best_tile T = Fit ? best_tile_skew_fit_for(E) : best_tile_skew_for(E);
  constexpr auto kernel = skew::skew_kernel<E, T.rows, T.chunks, T.threads, T.micro_bytes, T.min_blocks>;
  const skew::args a = skew::make_args<E>(in, out, d, input_end(in, d), T);
  return launch<kernel, true>(T.threads, best_skew_smem(E, T), a.total, a, tg, "best skewed realign kernel launch");
}

// The cp.async skewed tile: no halo where every output row starts 16-byte aligned.
// Resident blocks (as many as fit, evened by best_balanced_grid) walk the tiles.
// OA > 16: owned output segments start OA-byte aligned (realign_skew_sector's tiles).
// Fit: best_tile_skew_async_fit_for's 48-row tile (route realign_skew_async_fit, no halo).
template <int E, bool Halo, int OA = 16, int S = best_skew_async_stages, bool Fit = false>
status skew_async_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  static_assert(!Fit || (!Halo && OA == 16), "the fitted async tile: no halo");
  constexpr best_tile T = Fit ? best_tile_skew_async_fit_for(E)
                          : OA > 16 ? best_tile_skew_sector_for(E)
                                    : best_tile_skew_async_for(E, Halo);
  constexpr int smem = best_skew_async_smem(E, T, Halo, S, OA);
  constexpr auto kernel =
      skew::skew_async_kernel<E, T.rows, T.chunks, T.threads, T.micro_bytes, T.min_blocks, Halo, S, OA>;
  const skew::args a = skew::make_args<E>(in, out, d, input_end(in, d), T);
  long long n = 0;
  if (status s = resident_slots<kernel>(tg.dev, T.threads, smem, &n); !s.ok()) return s;
  const long long grid = best_balanced_grid(a.total, n);
  return launch<kernel, true>(T.threads, smem, grid, a, tg, "best skewed async kernel launch");
}

// SS > 0: the grouped kernel for short side SS (best_choice::group); MW > 0: micro-blocks
// of MW-byte rows, MINB blocks per SM (best_slab_micro_for). SB > 0: slabs of SB bytes
// (best_scatter_slab_table) in place of the class table's.
template <int E, int M, int SS = 0, int MW = 0, int MINB = 1, int SB = 0>
status slab_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr int nt = best_slab_threads;
  constexpr int minb = SS > 0 ? best_slab_group_min_blocks : MINB;
  constexpr auto kernel = slab::slab_kernel<E, M, nt, best_slab_unroll, SS, minb, MW>;
  best_class_policy pol = best_class_policy_for(tg.cc, E, tg.candidate);
  if (M == slab::scatter && MW > 0 && (d.ld_out * E) % 16 != 0) pol.slab_bytes = best_slab_micro_ragged_bytes_for(E);
  if (SB > 0) pol.slab_bytes = SB;
  const int bytes = best_slab_bytes_for(pol, d.elements() * E);
  const slab::args a =
      slab::make_args<E>(M, in, out, d, input_end(in, d), bytes, SS > 0 || (MW > 0 && M == slab::whole));
  // Slab blocks stay under 48 KiB (table: slab and whole-matrix bytes), so grid_for's
  // cached fit check holds for every short side.
  if (a.smem > 48 * 1024) return status::make(status_code::unsupported_variant, "best: slab of %d bytes", a.smem);
  return launch<kernel, true>(nt, a.smem, a.total, a, tg, "best slab kernel launch");
}

// The grouped scatter of side SS at slab bytes sb_bytes (best_choice::slab: the slab table's
// entry, a compile-time size; 0: the class table's).
template <int E, int M, int SS>
status slab_path_sized(const void* in, void* out, const matrix_desc& d, int sb_bytes, const target& tg) {
  constexpr int sb = M == slab::scatter ? best_scatter_slab_table(E, SS, false) : 0;
  if (sb_bytes == 0) return slab_path<E, M, SS>(in, out, d, tg);
  if constexpr (sb > 0)
    if (sb_bytes == sb) return slab_path<E, M, SS, 0, 1, sb>(in, out, d, tg);
  return status::make(status_code::unsupported_variant, "best: no %d-byte slabs for side %d", sb_bytes, SS);
}

// Gather / scatter slab: the grouped kernel of best_slab_group_sides, or element by element.
template <int E, int M>
status slab_path_grouped(const void* in, void* out, const matrix_desc& d, int group, const target& tg, int sb_bytes = 0) {
  if constexpr (E <= 4) {
    switch (group) {
      case 0: break;
      case 2: return slab_path_sized<E, M, 2>(in, out, d, sb_bytes, tg);
      case 3: return slab_path_sized<E, M, 3>(in, out, d, sb_bytes, tg);
      case 4: return slab_path<E, M, 4>(in, out, d, tg);
      case 5: return slab_path<E, M, 5>(in, out, d, tg);
      case 6: return slab_path<E, M, 6>(in, out, d, tg);
      case 8: return slab_path<E, M, 8>(in, out, d, tg);
      case 12: return slab_path<E, M, 12>(in, out, d, tg);
      case 16: return slab_path<E, M, 16>(in, out, d, tg);
      case 24: return slab_path<E, M, 24>(in, out, d, tg);
      case 32: return slab_path<E, M, 32>(in, out, d, tg);
      default: return status::make(status_code::unsupported_variant, "best: no grouped slab kernel for %d", group);
    }
  }
  return slab_path<E, M>(in, out, d, tg);
}

// Micro-block slab kernel of path P (1-4 byte elements; best_slab_micro_for).
template <int E, int M, best_path P>
status micro_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  if constexpr (E <= 4) {
    constexpr best_micro mc = best_slab_micro_for(E, P);
    return slab_path<E, M, 0, mc.width, mc.min_blocks>(in, out, d, tg);
  }
  return status::make(status_code::unsupported_variant, "best: no %d-byte micro-block slab kernel", E);
}

// Pipelined slab (best_pipe.cuh): grouped (short side SS) or micro-block gather (MW-byte
// rows, any short side up to the table's): resident blocks, as many as fit at the largest
// slab's shared memory (the limit and the block count are cached per kernel and device).
// H: scatter slabs with a halo (slab_scatter_micro_halo, slab_scatter_pipe_halo); gathers
// that shift their raw rows (slab_gather_micro_shift, slab_gather_pipe_shift).
// A: grouped gathers in the lean form (best_gather_lean_on): slabs of a.out_lags.
// SB > 0: slabs of SB bytes (best_scatter_slab_table) in place of the class table's; their
// resident blocks in a cache slot of their own per size.
template <int E, int M, int SS, int MW = 0, int MINB = best_pipe_min_blocks(E, M == slab::gather, SS), bool H = false,
          bool A = false, int SB = 0>
status pipe_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr int nt = best_slab_threads;
  constexpr auto kernel = slab::pipe_kernel<E, M, nt, SS, MINB, MW, H, A>;
  constexpr int slot = SB > 0 ? 2 + SB / 4096 : 0;  // (one per slab size, clear of resident_slots_at's 1-4)
  static_assert(SB == 0 || slot > 4, "the scatter slab table's cache slots");
  best_class_policy pol = best_class_policy_for(tg.cc, E, tg.candidate);
  if (SB > 0) pol.slab_bytes = SB;
  // The largest block of this kernel, once (the table does not change at run time): the
  // resident blocks are counted at it, and its shared-memory limit raised to it. Shift
  // gathers: best_gather_shift_depth load buffers where that keeps as many blocks per SM
  // as two (registers bound them), else two. 16-byte micro-block gathers: shifted rows.
  // Slabs: the table's or the larger ones of best_gather_slab_default (best_pipe_slab_bytes, by
  // flag, device and layout: plain gathers take them for aligned rows only, so their largest block
  // is an aligned one); the blocks of each are counted at their own largest block (slots 1-4),
  // the kernel's limit raised once, at the largest of both (slot 0).
  constexpr bool shift = H && M == slab::gather, shifted = slab::pipe_shifted(MW);
  constexpr int deepest = shift ? best_gather_shift_depth : 2;
  const long long side = SS > 0 ? SS : std::min(pol.slab_max_short, pol.slab_max_short_bytes / E);
  const int slabs[2] = {pol.slab_bytes, best_gather_slab_for(E, M == slab::gather, SS, pol.slab_bytes, shift, !shift)};
  const bool big_aligned = M == slab::gather && !shift && slabs[1] != slabs[0];
  const auto smem_at = [&](int i, int depth) {
    return slab::pipe_smem_max<E>(M, side, slabs[i], MW > 0, H, depth, shifted, i == 1 && big_aligned);
  };
  static const int smem_deep[2] = {smem_at(0, deepest), smem_at(1, deepest)};
  static const int smem_two[2] = {smem_at(0, 2), smem_at(1, 2)};
  static const int smem_top = std::max(smem_deep[0], smem_deep[1]);
  const bool aligned = best_in_rows_aligned(d, reinterpret_cast<std::uintptr_t>(in));
  const int c = best_pipe_slab_bytes(E, M == slab::gather, SS, pol.slab_bytes, shift, aligned, tg.candidate, tg.cc) !=
                        slabs[0]
                    ? 1
                    : 0;
  long long n = 0;
  // (SB > 0: scatters only, c = 0: one slot of the size's own, slot.)
  static_assert(SB == 0 || M == slab::scatter, "slab sizes of the scatter slab table");
  if (status s = resident_slots<kernel, slot>(tg.dev, nt, smem_top, &n); !s.ok()) return s;
  if (smem_deep[c] < smem_top)
    if (status s = resident_slots_at<kernel>(tg.dev, nt, smem_deep[c], 1 + 2 * c, &n); !s.ok()) return s;
  int depth = deepest, smem_max = smem_deep[c];
  if (shift && smem_two[c] < smem_deep[c]) {
    long long n_two = 0;
    if (status s = resident_slots_at<kernel>(tg.dev, nt, smem_two[c], 2 + 2 * c, &n_two); !s.ok()) return s;
    if (n_two > n) depth = 2, smem_max = smem_two[c], n = n_two;
  }
  best_class_policy call = pol;
  call.slab_bytes = slabs[c];
  slab::args a = slab::make_pipe_args<E>(M, in, out, d, input_end(in, d), best_slab_bytes_for(call, d.elements() * E),
                                         MW > 0, H, depth, shifted);
  // Slabs shortened so that the last round of slabs per block is as full as it can be
  // (gather / scatter: whole matrices keep the table's slab).
  // (A: room for the slab boundaries' lag, 16/E - 1 positions, in the last slab of a matrix.)
  const long long span = M == slab::whole ? a.span : best_pipe_span(a.span, a.L + (A ? 16 / E - 1 : 0), a.batch, n, 16 / E);
  if (span < a.span)
    a = slab::make_pipe_args<E>(M, in, out, d, input_end(in, d),
                                static_cast<int>((span + (H && M == slab::scatter ? 16 / E : 0)) * a.S * E), MW > 0, H,
                                depth, shifted);
  if (a.smem > smem_max)
    return status::make(status_code::unsupported_variant, "best: pipelined slab of %d bytes", a.smem);
  if constexpr (A) {
    slab::lean_args la{a, 0};
    slab::align_out_slabs<E>(la);
    return launch<kernel>(nt, a.smem, a.total < n ? a.total : n, la, tg, "best lean gather kernel launch");
  } else {
    return launch<kernel>(nt, a.smem, a.total < n ? a.total : n, a, tg, "best pipelined slab kernel launch");
  }
}

// The halo scatter of side SS or micro-block rows MW (SS = 0) at SB bytes per slab where the slab
// table runs it at that size (best_scatter_slab_uses).
template <int E, int SS, int MW, int MINB, int SB>
status halo_path_at(const void* in, void* out, const matrix_desc& d, const target& tg) {
  if constexpr (best_scatter_slab_uses(E, SS, SB))
    return pipe_path<E, slab::scatter, SS, MW, MINB, true, false, SB>(in, out, d, tg);
  return status::make(status_code::unsupported_variant, "best: no %d-byte halo slabs for side %d", SB, SS);
}

// ... at slab bytes sb_bytes (best_choice::slab: a slab table entry, one of best_scatter_slab_sizes;
// 0: the class table's).
template <int E, int SS, int MW, int MINB, std::size_t... Is>
status halo_path_sized(const void* in, void* out, const matrix_desc& d, int sb_bytes, const target& tg,
                       std::index_sequence<Is...>) {
  if (sb_bytes == 0) return pipe_path<E, slab::scatter, SS, MW, MINB, true>(in, out, d, tg);
  status s = status::make(status_code::unsupported_variant, "best: no %d-byte halo slabs for side %d", sb_bytes, SS);
  (void)((sb_bytes == best_scatter_slab_sizes[Is] ? (s = halo_path_at<E, SS, MW, MINB, best_scatter_slab_sizes[Is]>(in, out, d, tg), true)
                                                  : false) ||
         ...);
  return s;
}

template <int E, int SS, int MW, int MINB>
status halo_path_sized(const void* in, void* out, const matrix_desc& d, int sb_bytes, const target& tg) {
  return halo_path_sized<E, SS, MW, MINB>(in, out, d, sb_bytes, tg,
                                          std::make_index_sequence<std::size(best_scatter_slab_sizes)>{});
}

template <int E, int M, int SS, bool H>
status pipe_path_group(const void* in, void* out, const matrix_desc& d, const target& tg, int sb_bytes = 0) {
  constexpr int minb = best_pipe_min_blocks(E, M == slab::gather, SS, H);
  if constexpr (M == slab::scatter && H) {
    return halo_path_sized<E, SS, 0, minb>(in, out, d, sb_bytes, tg);
  } else {
    if constexpr (M == slab::gather && best_gather_lean_kernel(E, H, SS)) {
      const auto ia = reinterpret_cast<std::uintptr_t>(in), oa = reinterpret_cast<std::uintptr_t>(out);
      if (best_gather_lean_on(E, best_gather_form_flag(d, ia, oa, tg.cc, tg.candidate)) && best_gather_lean_fits(d, ia, oa))
        return pipe_path<E, M, SS, 0, minb, H, true>(in, out, d, tg);
    }
    return pipe_path<E, M, SS, 0, minb, H>(in, out, d, tg);
  }
}

template <int E, int M, bool H = false>
status pipe_path_side(const void* in, void* out, const matrix_desc& d, int group, const target& tg, int sb_bytes = 0) {
  if constexpr (E <= best_pipe_max_elem) {
    switch (group) {
      case 2: return pipe_path_group<E, M, 2, H>(in, out, d, tg, sb_bytes);
      case 3: return pipe_path_group<E, M, 3, H>(in, out, d, tg, sb_bytes);
      case 4: return pipe_path_group<E, M, 4, H>(in, out, d, tg, sb_bytes);
      case 5: return pipe_path_group<E, M, 5, H>(in, out, d, tg, sb_bytes);
      case 6: return pipe_path_group<E, M, 6, H>(in, out, d, tg, sb_bytes);
      case 7: return pipe_path_group<E, M, 7, H>(in, out, d, tg, sb_bytes);
      case 8: return pipe_path_group<E, M, 8, H>(in, out, d, tg, sb_bytes);
      case 12: return pipe_path_group<E, M, 12, H>(in, out, d, tg, sb_bytes);
      case 16: return pipe_path_group<E, M, 16, H>(in, out, d, tg, sb_bytes);
      case 24: return pipe_path_group<E, M, 24, H>(in, out, d, tg, sb_bytes);
      case 32: return pipe_path_group<E, M, 32, H>(in, out, d, tg, sb_bytes);
      default: break;
    }
  }
  return status::make(status_code::unsupported_variant, "best: no pipelined slab kernel for %d", group);
}

// Direct scatter (best_direct.cuh) of short side SS: resident blocks, as many as fit at
// the largest slab's shared memory; slabs shortened for a full last round (best_pipe_span).
// SB > 0: SB-byte slabs at two staging buffers (best_scatter_direct2_slab).
template <int E, int SS, int SB = 0>
status direct_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr int nt = best_slab_threads, depth = best_scatter_direct_depth_for(SB);
  constexpr auto kernel = slab::direct_kernel<E, nt, SS, best_scatter_direct_min_blocks(SS), depth>;
  best_class_policy pol = best_class_policy_for(tg.cc, E, tg.candidate);
  if (SB > 0) pol.slab_bytes = SB;
  static const int smem_max = slab::direct_smem_max<E>(SS, pol.slab_bytes, depth);
  long long n = 0;
  if (status s = resident_slots<kernel>(tg.dev, nt, smem_max, &n); !s.ok()) return s;
  const void* end = input_end(in, d);
  slab::args a = slab::make_direct_args<E>(in, out, d, end, best_slab_bytes_for(pol, d.elements() * E), depth);
  const long long span = best_pipe_span(a.span, a.L, a.batch, n, 16 / E);
  if (span < a.span) a = slab::make_direct_args<E>(in, out, d, end, static_cast<int>((span + 16 / E) * a.S * E), depth);
  if (a.smem > smem_max) return status::make(status_code::unsupported_variant, "best: direct slab of %d bytes", a.smem);
  return launch<kernel>(nt, a.smem, a.total < n ? a.total : n, a, tg, "best direct scatter kernel launch");
}

// ... at sb_bytes (best_choice::slab: the two-buffer kernel's size for the side; 0: the direct route's).
// P: the side has the direct route's kernel (best_scatter_direct_fits' sides).
template <int E, int SS, bool P>
status direct_path_sized(const void* in, void* out, const matrix_desc& d, int sb_bytes, const target& tg) {
  constexpr int sb = best_scatter_direct2_slab(E, SS);
  if constexpr (P)
    if (sb_bytes == 0) return direct_path<E, SS>(in, out, d, tg);
  if constexpr (sb > 0)
    if (sb_bytes == sb) return direct_path<E, SS, sb>(in, out, d, tg);
  return status::make(status_code::unsupported_variant, "best: no %d-byte direct slabs for side %d", sb_bytes, SS);
}

template <int E>
status direct_path_side(const void* in, void* out, const matrix_desc& d, int group, const target& tg, int sb_bytes = 0) {
  if constexpr (E <= best_pipe_max_elem) {
    switch (group) {
      // (The sides best_scatter_direct_side gives: best_scatter_direct_fits; side 2: best_scatter_direct2_slab.)
      case 2: return direct_path_sized<E, 2, false>(in, out, d, sb_bytes, tg);
      case 4: return direct_path_sized<E, 4, true>(in, out, d, sb_bytes, tg);
      case 5: return direct_path_sized<E, 5, true>(in, out, d, sb_bytes, tg);
      case 6: return direct_path_sized<E, 6, true>(in, out, d, sb_bytes, tg);
      default: break;
    }
  }
  return status::make(status_code::unsupported_variant, "best: no direct scatter kernel for %d", group);
}

// Register-interleave slab (best_interleave.cuh) for short side C, one kernel per C.
template <int E, bool Gather, int C>
status interleave_path_c(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr int U = best_interleave_units(C), nt = best_interleave_threads(C);
  // Gathers: the realigning form where a 16-byte boundary is off (best_interleave_fits).
  const bool any =
      Gather && !best_interleave_aligned(d, true, reinterpret_cast<std::uintptr_t>(in), reinterpret_cast<std::uintptr_t>(out));
  const ilv::args a = ilv::make_args<E>(Gather, in, out, d, input_end(in, d), U, any);
  constexpr int smem = nt / 32 * ilv::shape<E, C, U>::stage_bytes;
  const index_t blocks = (a.total + nt / 32 - 1) / (nt / 32);
  const char* what = "best interleave kernel launch";
  if constexpr (Gather) {
    if (any) return launch<ilv::interleave_kernel<E, C, U, true, nt, true>, true>(nt, smem, blocks, a, tg, what);
    return launch<ilv::interleave_kernel<E, C, U, true, nt>, true>(nt, smem, blocks, a, tg, what);
  } else if constexpr (C <= best_interleave_scatter_max) {
    return launch<ilv::interleave_kernel<E, C, U, false, nt>, true>(nt, smem, blocks, a, tg, what);
  } else {
    return status::make(status_code::unsupported_variant, "best: no interleave scatter for %d columns", C);
  }
}

template <int E, bool Gather, std::size_t... Is>
status interleave_path(const void* in, void* out, const matrix_desc& d, const target& tg, std::index_sequence<Is...>) {
  const index_t c = Gather ? d.rows : d.cols;
  status s = status::make(status_code::unsupported_variant, "best: no interleave kernel for %d rows", static_cast<int>(c));
  (void)((c == best_interleave_sides[Is]
              ? (s = interleave_path_c<E, Gather, best_interleave_sides[Is]>(in, out, d, tg), true)
              : false) ||
         ...);
  return s;
}

template <int E, bool Gather>
status interleave_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  if constexpr (E == 4 || E == 8)
    return interleave_path<E, Gather>(in, out, d, tg, std::make_index_sequence<std::size(best_interleave_sides)>{});
  return status::make(status_code::unsupported_variant, "best: no %d-byte interleave kernel", E);
}

// Tile with A-byte accesses (A < 16, the alignment the layout allows).
template <int E>
status access_path(const void* in, void* out, const matrix_desc& d, int access, const target& tg) {
  if constexpr (E <= 4) {
    if (access == 8) return tile_path<E, 8, access_tile>(in, out, d, tg);
    if (access == 4) return tile_path<E, 4, access_tile>(in, out, d, tg);
  }
  if constexpr (E == 1) {
    if (access == 2) return tile_path<E, 2, access_tile>(in, out, d, tg);
  }
  return tile_path<E, E, access_tile>(in, out, d, tg);
}

template <int E>
status launch_best_e(const void* in, void* out, const matrix_desc& d, cudaStream_t stream, bool candidate) {
  int dev = 0, cc = 0;
  if (status s = current_device(&dev, &cc); !s.ok()) return s;
  const target tg{dev, cc, stream, candidate};
  const best_choice c = best_path_for(d, reinterpret_cast<std::uintptr_t>(in), reinterpret_cast<std::uintptr_t>(out),
                                      tg.cc, candidate);
  switch (c.path) {
    case best_path::copy:
      return cuda_status(
          cudaMemcpyAsync(out, in, static_cast<size_t>(d.elements()) * E, cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpyAsync");
    case best_path::slab_gather: return slab_path_grouped<E, slab::gather>(in, out, d, c.group, tg);
    case best_path::slab_scatter: return slab_path_grouped<E, slab::scatter>(in, out, d, c.group, tg, c.slab);
    case best_path::slab_whole: return slab_path<E, slab::whole>(in, out, d, tg);
    case best_path::slab_gather_micro: return micro_path<E, slab::gather, best_path::slab_gather_micro>(in, out, d, tg);
    case best_path::slab_scatter_micro:
      return micro_path<E, slab::scatter, best_path::slab_scatter_micro>(in, out, d, tg);
    case best_path::slab_whole_micro:
      if constexpr (E <= best_whole_micro_max_elem)
        return micro_path<E, slab::whole, best_path::slab_whole_micro>(in, out, d, tg);
      break;
    case best_path::slab_whole_micro_pipe:  // (4-8 bytes: best_pipe_whole_wide_fits)
      if constexpr (E <= best_pipe_micro_max_elem) {
        constexpr best_micro mc = best_slab_micro_for(E, best_path::slab_whole_micro);
        return pipe_path<E, slab::whole, 0, mc.width, mc.min_blocks>(in, out, d, tg);
      }
      break;
    case best_path::realign:
      if constexpr (E < 16) return realign_path<E>(in, out, d, tg);
      break;
    case best_path::realign_skew:
      if constexpr (E <= 8) return skew_path<E>(in, out, d, tg);
      break;
    case best_path::tile_access: return access_path<E>(in, out, d, c.access, tg);
    case best_path::tile_few_rows:
      if constexpr (E <= 8) return tile_path<E, 16, few_rows_tile>(in, out, d, tg);
      break;
    case best_path::tile_narrow:
      if constexpr (E <= 8) return tile_path<E, 16, narrow_tile>(in, out, d, tg);
      break;
    case best_path::tile: return tile_path<E, 16, standard_tile>(in, out, d, tg);
    case best_path::slab_gather_pipe: return pipe_path_side<E, slab::gather>(in, out, d, c.group, tg);
    case best_path::slab_scatter_pipe: return pipe_path_side<E, slab::scatter>(in, out, d, c.group, tg);
    case best_path::slab_gather_micro_pipe:
      if constexpr (E <= best_pipe_micro_max_elem)
        return pipe_path<E, slab::gather, 0, best_pipe_micro_width_for(E), best_pipe_micro_min_blocks(true)>(in, out, d,
                                                                                                            tg);
      break;
    case best_path::slab_scatter_micro_pipe:
      if constexpr (E <= best_pipe_micro_max_elem)
        return pipe_path<E, slab::scatter, 0, best_pipe_micro_width_for(E), best_pipe_micro_min_blocks(false)>(in, out,
                                                                                                              d, tg);
      break;
    case best_path::tile_half:
      if constexpr (E == 1) return tile_path<E, 16, half_tile>(in, out, d, tg);
      break;
    case best_path::tile_async:
      if constexpr (E <= 2) return async_path<E, false>(in, out, d, tg);
      break;
    case best_path::tile_async_batch:
      if constexpr (E <= 2) return async_path<E, true>(in, out, d, tg);
      break;
    case best_path::tile_async_pipe:
      if constexpr (E <= 4) return async_pipe_path<E, false>(in, out, d, tg);
      break;
    case best_path::tile_async_pipe_batch:
      if constexpr (E <= 2) return async_pipe_path<E, true>(in, out, d, tg);
      break;
    case best_path::realign_skew_async:  // (the form best_skew_async_fits routes here)
      if constexpr (E <= 8) return skew_async_path<E, best_skew_async_halo(E)>(in, out, d, tg);
      break;
    case best_path::realign_skew_sector:
      if constexpr (E <= best_skew_sector_max_elem) return skew_async_path<E, true, best_skew_sector_bytes>(in, out, d, tg);
      break;
    case best_path::realign_async:
      if constexpr (E <= 2) return async_realign_path<E>(in, out, d, tg);
      break;
    case best_path::realign_skew_fit:  // (4-8 bytes: best_skew_fit_path)
      if constexpr (E == 4 || E == 8) return skew_path<E, true>(in, out, d, tg);
      break;
    case best_path::realign_skew_async_fit:
      if constexpr (E == best_skew_async_fit_elem) return skew_async_path<E, false, 16, best_skew_async_stages, true>(in, out, d, tg);
      break;
    case best_path::tile_fit: return fit_path<E, false>(in, out, d, tg);
    case best_path::realign_fit: return fit_path<E, true>(in, out, d, tg);
    case best_path::slab_interleave_gather: return interleave_path<E, true>(in, out, d, tg);
    case best_path::slab_interleave_scatter: return interleave_path<E, false>(in, out, d, tg);
    case best_path::slab_scatter_pipe_halo:
      return pipe_path_side<E, slab::scatter, true>(in, out, d, c.group, tg, c.slab);
    case best_path::slab_gather_pipe_shift: return pipe_path_side<E, slab::gather, true>(in, out, d, c.group, tg);
    case best_path::slab_gather_micro_shift:
      if constexpr (E <= best_pipe_max_elem)
        return pipe_path<E, slab::gather, 0, best_pipe_micro_width, best_pipe_micro_min_blocks(true), true>(in, out, d,
                                                                                                           tg);
      break;
    case best_path::slab_scatter_micro_halo:
      if constexpr (E <= best_pipe_micro_max_elem)
        return halo_path_sized<E, 0, best_pipe_micro_width_for(E), best_pipe_micro_min_blocks(false)>(in, out, d,
                                                                                                     c.slab, tg);
      break;
    case best_path::slab_scatter_direct: return direct_path_side<E>(in, out, d, c.group, tg, c.slab);
  }
  return status::make(status_code::unsupported_variant, "best: path %s has no %d-byte kernel",
                      best_path_name(c.path), E);
}

status launch_best_policy(const void* in, void* out, const matrix_desc& d, cudaStream_t stream, bool candidate) {
  switch (d.elem_size) {
    case 1: return launch_best_e<1>(in, out, d, stream, candidate);
    case 2: return launch_best_e<2>(in, out, d, stream, candidate);
    case 4: return launch_best_e<4>(in, out, d, stream, candidate);
    case 8: return launch_best_e<8>(in, out, d, stream, candidate);
    case 16: return launch_best_e<16>(in, out, d, stream, candidate);
    default: return status::make(status_code::unsupported_elem_size, "element size %d", d.elem_size);
  }
}

}  // namespace

status launch_best(const void* in, void* out, const matrix_desc& d, const launch_options&, cudaStream_t stream) {
  return launch_best_policy(in, out, d, stream, false);
}

// The candidate policy (best_class_policy_for(.., candidate = true)), for side-by-side
// measurement before a table change lands.
status launch_best_next(const void* in, void* out, const matrix_desc& d, const launch_options&,
                        cudaStream_t stream) {
  return launch_best_policy(in, out, d, stream, true);
}

}  // namespace xpose::detail
