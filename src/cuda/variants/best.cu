// Fast path `best`: route_for (route_table.hpp) gives the route of a call, its kernel and every
// launch parameter; this file launches it (the kernel instantiation the route names, grids from
// the device's occupancy). No allocation, no host sync, stream-ordered, graph-capturable.
// Kernels: best_kernels.cuh (tile), best_realign.cuh (realigning tile), best_slab.cuh.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>

#include "../best_async.cuh"
#include "../best_direct.cuh"
#include "../best_interleave.cuh"
#include "../best_kernels.cuh"
#include "../best_pipe.cuh"
#include "../best_realign.cuh"
#include "../best_skew.cuh"
#include "../best_slab.cuh"
#include "../best_launch.hpp"

namespace xpose::detail {
namespace {

using best::tile_args;
using best::u8;

// A fixed table of 32-bit keys to int values shared by threads without locks: entries fill
// front to back and are never removed; a key of no_memo, or a full table, computes each time.
constexpr unsigned no_memo = ~0u;
template <int N>
struct memo {
  std::atomic<unsigned long long> e[N];  // (key + 1) << 32 | value; 0: empty

  template <class F>
  status get(unsigned key, int* value, F&& compute) {
    const unsigned long long k = (static_cast<unsigned long long>(key) + 1) << 32, hi = ~0xffffffffull;
    if (key != no_memo)
      for (auto& x : e) {
        const unsigned long long v = x.load(std::memory_order_relaxed);
        if (v == 0) break;
        if ((v & hi) == k) return *value = static_cast<int>(v & 0xffffffffu), status{};
      }
    if (status s = compute(value); !s.ok()) return s;
    if (key != no_memo)
      for (auto& x : e) {
        unsigned long long v = 0;
        if (x.compare_exchange_strong(v, k | static_cast<unsigned>(*value), std::memory_order_relaxed) ||
            (v & hi) == k)
          break;
      }
    return {};
  }
};

// Whether a block of `smem` bytes of a kernel (of `threads` threads, its one block size) fits on
// device `dev`: raises the kernel's dynamic shared-memory limit where a block needs > 48 KiB
// (only ever raised) and checks that one block is resident. Cached per kernel and device as the
// largest block checked (a smaller one fits too; up to 48 KiB checked at 48 KiB, which holds for
// kernels without static shared memory: none of best's has any).
template <auto kernel>
status kernel_fits(int dev, int threads, int smem) {
  static std::atomic<int> checked[64];
  static std::mutex raise;
  const int want = std::max(smem, 48 * 1024);
  const bool cached = dev >= 0 && dev < 64;
  // (Acquire / release: a launch that finds the limit raised is ordered after the raise.)
  if (cached && checked[dev].load(std::memory_order_acquire) >= want) return {};
  std::lock_guard<std::mutex> lock(raise);
  if (want > 48 * 1024) {
    cudaFuncAttributes fa{};
    if (status s = cuda_status(cudaFuncGetAttributes(&fa, kernel), "cudaFuncGetAttributes"); !s.ok()) return s;
    if (want > fa.maxDynamicSharedSizeBytes)
      if (status s = cuda_status(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, want),
                                 "cudaFuncSetAttribute");
          !s.ok())
        return s;
  }
  int occ = 0;
  if (status s = cuda_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, threads, want),
                             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
      !s.ok())
    return s;
  if (occ < 1)
    return status::make(status_code::unsupported_variant, "best: a %d-byte block does not fit this device", smem);
  if (cached && checked[dev].load(std::memory_order_relaxed) < want) checked[dev].store(want, std::memory_order_release);
  return {};
}

// Blocks of a kernel resident per SM on device `dev` at blocks of `smem` bytes (kernel_fits
// first), cached per kernel, device and block size (a table per device: a kernel runs at a few
// block sizes, slab sizes x load buffers): per call a few relaxed atomic reads.
template <auto kernel>
status resident_blocks(int dev, int threads, int smem, int* blocks) {
  if (status s = kernel_fits<kernel>(dev, threads, smem); !s.ok()) return s;
  static memo<8> occ[64];
  const bool cached = dev >= 0 && dev < 64;
  return occ[cached ? dev : 0].get(cached ? static_cast<unsigned>(smem) : no_memo, blocks, [&](int* n) {
    return cuda_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, kernel, threads, smem),
                       "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  });
}

// Grid of a kernel: one block per tile up to best_grid_limit, once kernel_fits has checked
// that a block fits.
template <auto kernel>
status grid_for(int dev, int threads, int smem, index_t work, unsigned* grid) {
  if (status s = kernel_fits<kernel>(dev, threads, smem); !s.ok()) return s;
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
template <auto kernel>
status resident_slots(int dev, int threads, int smem, long long* slots) {
  int occ = 0, sms = 0;
  if (status s = resident_blocks<kernel>(dev, threads, smem, &occ); !s.ok()) return s;
  if (status s = sm_count(dev, &sms); !s.ok()) return s;
  *slots = static_cast<long long>(occ) * sms;
  return {};
}

// The largest block of a slab kernel at `bytes` per slab (compute: pipe_smem_max or
// direct_smem_max, a loop over the kernel's sides and layouts), memoized per kernel. Key:
// bytes, the largest short side, the load buffers and a flag (no_memo where they do not fit).
template <auto kernel, class F>
status slab_block_smem(int bytes, long long side, int depth, bool flag, int* smem, F&& compute) {
  static memo<16> cache;
  const bool fits = bytes >= 0 && bytes < (1 << 17) && side >= 0 && side < 1024 && depth >= 0 && depth < 4;
  const unsigned key = fits ? static_cast<unsigned>(bytes) | static_cast<unsigned>(side) << 17 |
                                  static_cast<unsigned>(depth) << 27 | (flag ? 1u << 29 : 0u)
                            : no_memo;
  return cache.get(key, smem, [&](int* v) { return *v = compute(), status{}; });
}

// Where a launch goes: the current device, read once per call, and its compute capability.
struct target {
  int dev, cc;
  cudaStream_t stream;
  const route& r;  // the call's route (route_for)
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
enum tile_kind { standard_tile, few_rows_tile, narrow_tile };
template <int E, int K>
constexpr best_tile tile_of() {
  if constexpr (K == few_rows_tile) return best_tile_shaped(E, best_shape::few_rows);
  else if constexpr (K == narrow_tile) return best_tile_shaped(E, best_shape::narrow);
  else return best_tile_for(E);
}

template <int E, int A, int K>
status tile_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr best_tile T = tile_of<E, K>();
  constexpr auto kernel = best::tile_kernel<E, T.rows, T.chunks, T.threads, T.micro_bytes, T.min_blocks, A>;
  const tile_args a = make_tile_args<E>(in, out, d, T);
  const char* what = "best tile kernel launch";
  // Tiny 4-8 byte calls on the small narrow tile, waiting late.
  if constexpr (K == narrow_tile && A == 16 && E >= 4 && E <= 8)
    if (tg.r.tile == best_tile_tiny_small_for(E)) {
      constexpr best_tile S = best_tile_tiny_small_for(E);
      static_assert(best_tile_valid(E, S, false), "the small narrow tile");
      constexpr auto small = best::tile_kernel<E, S.rows, S.chunks, S.threads, S.micro_bytes, S.min_blocks, A, 0, true>;
      const tile_args b = make_tile_args<E>(in, out, d, S);
      return launch<small, true>(S.threads, S.rows * S.chunks * 16, b.total, b, tg, what);
    }
  // The narrow tile waiting late.
  if constexpr (K == narrow_tile && A == 16)
    if (tg.r.late) {
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
// 16-byte grid; Dense: the dense form, 2-byte elements; Deep: the deep
// form, u8), one block per tile.
template <int E, int TR, bool Realign, bool Dense, bool Deep = false>
status fit_path_rows(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr best_tile T = best_tile_fit_for(E, TR, Realign, Dense, Deep);
  if (!(tg.r.tile == T) || tg.r.deep != (Realign && Deep))
    return status::make(status_code::unsupported_variant, "best: no fitted tile of %d rows in this form", TR);
  const tile_args a = make_tile_args<E>(in, out, d, T);
  if constexpr (Realign) {
    constexpr auto kernel =
        best::realign_tile_kernel<E, T.rows, T.chunks, T.threads, T.micro_bytes, T.min_blocks, true, Deep>;
    const best::realign_args ra{a, static_cast<const u8*>(input_end(in, d))};
    return launch<kernel, true>(T.threads, best_fit_smem(T, true, Deep), a.total, ra, tg,
                                "best fitted realign kernel launch");
  } else {
    constexpr auto kernel = best::tile_kernel<E, T.rows, T.chunks, T.threads, T.micro_bytes, T.min_blocks, 16>;
    return launch<kernel, true>(T.threads, T.rows * T.chunks * 16, a.total, a, tg, "best fitted tile kernel launch");
  }
}

template <int E, int TR, bool Realign>
status fit_path_form(const void* in, void* out, const matrix_desc& d, const target& tg) {
  // The form whose tile the route names (2-byte tiles of up to best_fit_dense_max_rows: the dense
  // form only; u8 48 aligned and 96 realigning rows: the deep form or the plain one).
  if constexpr (E == best_fit_dense_elem && TR <= best_fit_dense_max_rows) {
    return fit_path_rows<E, TR, Realign, true>(in, out, d, tg);
  } else {
    if constexpr (E == 1 && ((TR == 48 && !Realign) || (TR == 96 && Realign)))
      if (tg.r.tile == best_tile_fit_for(E, TR, Realign, false, true))
        return fit_path_rows<E, TR, Realign, false, true>(in, out, d, tg);
    return fit_path_rows<E, TR, Realign, false>(in, out, d, tg);
  }
}

static_assert(best_fit_tile_min_rows > 32 && best_fit_tile_max_rows <= 128, "fit_path's tiles: 48 to 128 rows");
static_assert(best_fit_wide_min_rows == 24 && best_fit_wide_max_rows == 32, "fit_path's 4-8 byte tiles: 24, 32 rows");
template <int E, bool Realign>
status fit_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  // 4-8 bytes: aligned rows, one form.
  if constexpr ((E == 4 || E == 8) && !Realign) {
    switch (tg.r.tile.rows) {
      case 24: return fit_path_rows<E, 24, false, false>(in, out, d, tg);
      case 32: return fit_path_rows<E, 32, false, false>(in, out, d, tg);
      default: break;
    }
  }
  if constexpr (E <= 2) {
    switch (tg.r.tile.rows) {
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

// Skewed realigning tile: shared memory above 48 KiB for 1-2 byte
// elements (kernel_fits raises the limit once per device).
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

// SS > 0: the grouped kernel for short side SS (route::side); MW > 0: micro-blocks
// of MW-byte rows, MINB blocks per SM (best_slab_micro_for); the route's bytes per slab.
template <int E, int M, int SS = 0, int MW = 0, int MINB = 1>
status slab_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr int nt = best_slab_threads;
  constexpr int minb = SS > 0 ? best_slab_group_min_blocks : MINB;
  constexpr auto kernel = slab::slab_kernel<E, M, nt, best_slab_unroll, SS, minb, MW>;
  const int bytes = tg.r.call_slab;
  const slab::args a =
      slab::make_args<E>(M, in, out, d, input_end(in, d), bytes, SS > 0 || (MW > 0 && M == slab::whole));
  // Slab blocks stay under 48 KiB (table: slab and whole-matrix bytes).
  if (a.smem > 48 * 1024) return status::make(status_code::unsupported_variant, "best: slab of %d bytes", a.smem);
  return launch<kernel, true>(nt, a.smem, a.total, a, tg, "best slab kernel launch");
}

// Gather / scatter slab: the grouped kernel of best_slab_group_sides, or element by element.
template <int E, int M>
status slab_path_grouped(const void* in, void* out, const matrix_desc& d, int group, const target& tg) {
  if constexpr (E <= 4) {
    switch (group) {
      case 0: break;
      case 2: return slab_path<E, M, 2>(in, out, d, tg);
      case 3: return slab_path<E, M, 3>(in, out, d, tg);
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

// Micro-block slab scatter (1-4 byte elements; best_slab_micro_for).
template <int E, int M>
status micro_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  if constexpr (E <= 4) {
    constexpr best_micro mc = best_slab_micro_for(E, true);
    return slab_path<E, M, 0, mc.width, mc.min_blocks>(in, out, d, tg);
  }
  return status::make(status_code::unsupported_variant, "best: no %d-byte micro-block slab kernel", E);
}

// Pipelined slab (best_pipe.cuh): grouped (short side SS) or micro-block gather (MW-byte
// rows, any short side up to the table's): resident blocks, as many as fit at the largest
// block of the call's slab size (counted per kernel, device and block size).
// H: scatter slabs with a halo (slab_scatter_micro_halo, slab_scatter_pipe_halo); gathers
// that shift their raw rows (slab_gather_pipe_shift).
// A: grouped gathers in the lean form (route::lean): slabs of a.out_lags.
// The route's slab bytes, load buffers (route_depth: 2 where the occupancy query finds more blocks
// at 2), lean form and 64-byte spans.
template <int E, int M, int SS, int MW = 0, int MINB = best_pipe_min_blocks(E, M == slab::gather, SS), bool H = false,
          bool A = false>
status pipe_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr int nt = best_slab_threads;
  constexpr auto kernel = slab::pipe_kernel<E, M, nt, SS, MINB, MW, H, A>;
  constexpr bool gather = M == slab::gather, shift = H && gather, shifted = slab::pipe_shifted(MW);
  const best_class_policy pol = best_class_policy_for(tg.cc, E);
  // The route's slab bytes; plain gathers above the table's take them for aligned input rows only,
  // so their largest block at that size is an aligned one: big.
  const int bytes = tg.r.slab;
  const bool big = gather && !shift && bytes != pol.slab_bytes;
  const long long side = SS > 0 ? SS : std::min(pol.slab_max_short, pol.slab_max_short_bytes / E);
  // The largest block of this kernel at these slabs (over its sides; 16-byte micro-block gathers:
  // shifted rows); the resident blocks are counted at it. Shift gathers: best_gather_shift_depth load
  // buffers where that keeps as many blocks per SM as two (registers bound them), else two.
  const auto smem_at = [&](int depth, int* smem) {
    return slab_block_smem<kernel>(bytes, side, depth, big, smem, [&] {
      return slab::pipe_smem_max<E>(M, side, bytes, MW > 0, H, depth, shifted, big);
    });
  };
  int depth = tg.r.depth, smem_max = 0;
  long long n = 0;
  if (status s = smem_at(depth, &smem_max); !s.ok()) return s;
  if (status s = resident_slots<kernel>(tg.dev, nt, smem_max, &n); !s.ok()) return s;
  if (depth > 2) {
    int smem_two = 0;
    long long n_two = 0;
    if (status s = smem_at(2, &smem_two); !s.ok()) return s;
    if (smem_two < smem_max) {
      if (status s = resident_slots<kernel>(tg.dev, nt, smem_two, &n_two); !s.ok()) return s;
      if (route_depth(tg.r, n, n_two) == 2) depth = 2, smem_max = smem_two, n = n_two;
    }
  }
  slab::args a = slab::make_pipe_args<E>(M, in, out, d, input_end(in, d), tg.r.call_slab, MW > 0, H, depth, shifted);
  // Slabs shortened so that the last round of slabs per block is as full as it can be
  // (gather / scatter: whole matrices keep the table's slab).
  // (A: room for the slab boundaries' lag, 16/E - 1 positions, in the last slab of a matrix.)
  // (Micro-block scatters to aligned rows: in whole 64-byte units per output row, best_scatter_span64.)
  long long span = M == slab::whole ? a.span : best_pipe_span(a.span, a.L + (A ? 16 / E - 1 : 0), a.batch, n, 16 / E);
  if constexpr (M == slab::scatter && MW > 0 && !H && E <= 8)
    if (tg.r.span64 && span < a.L && span > 64 / E) span = span / (64 / E) * (64 / E);
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

template <int E, int M, int SS, bool H>
status pipe_path_group(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr int minb = best_pipe_min_blocks(E, M == slab::gather, SS, H);
  if constexpr (M == slab::gather && best_gather_lean_kernel(E, H, SS)) {
    if (tg.r.lean)
      return pipe_path<E, M, SS, 0, minb, H, true>(in, out, d, tg);
  }
  return pipe_path<E, M, SS, 0, minb, H>(in, out, d, tg);
}

template <int E, int M, bool H = false>
status pipe_path_side(const void* in, void* out, const matrix_desc& d, int group, const target& tg) {
  if constexpr (E <= best_pipe_max_elem) {
    switch (group) {
      case 2: return pipe_path_group<E, M, 2, H>(in, out, d, tg);
      case 3: return pipe_path_group<E, M, 3, H>(in, out, d, tg);
      case 4: return pipe_path_group<E, M, 4, H>(in, out, d, tg);
      case 5: return pipe_path_group<E, M, 5, H>(in, out, d, tg);
      case 6: return pipe_path_group<E, M, 6, H>(in, out, d, tg);
      case 7: return pipe_path_group<E, M, 7, H>(in, out, d, tg);
      case 8: return pipe_path_group<E, M, 8, H>(in, out, d, tg);
      case 12: return pipe_path_group<E, M, 12, H>(in, out, d, tg);
      case 16: return pipe_path_group<E, M, 16, H>(in, out, d, tg);
      case 24: return pipe_path_group<E, M, 24, H>(in, out, d, tg);
      case 32: return pipe_path_group<E, M, 32, H>(in, out, d, tg);
      default: break;
    }
  }
  return status::make(status_code::unsupported_variant, "best: no pipelined slab kernel for %d", group);
}

// Direct scatter (best_direct.cuh) of short side SS, Depth staging buffers: resident blocks, as
// many as fit at the largest block of the call's slab size; slabs shortened for a full last round
// (best_pipe_span). The route's slab bytes.
template <int E, int SS, int Depth = best_scatter_direct_depth>
status direct_path(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr int nt = best_slab_threads;
  constexpr auto kernel = slab::direct_kernel<E, nt, SS, best_scatter_direct_min_blocks(SS), Depth>;
  const int bytes = tg.r.slab;
  int smem_max = 0;
  if (status s = slab_block_smem<kernel>(bytes, SS, Depth, false, &smem_max,
                                         [&] { return slab::direct_smem_max<E>(SS, bytes, Depth); });
      !s.ok())
    return s;
  long long n = 0;
  if (status s = resident_slots<kernel>(tg.dev, nt, smem_max, &n); !s.ok()) return s;
  const void* end = input_end(in, d);
  slab::args a = slab::make_direct_args<E>(in, out, d, end, tg.r.call_slab, Depth);
  const long long span = best_pipe_span(a.span, a.L, a.batch, n, 16 / E);
  if (span < a.span) a = slab::make_direct_args<E>(in, out, d, end, static_cast<int>((span + 16 / E) * a.S * E), Depth);
  if (a.smem > smem_max) return status::make(status_code::unsupported_variant, "best: direct slab of %d bytes", a.smem);
  return launch<kernel>(nt, a.smem, a.total < n ? a.total : n, a, tg, "best direct scatter kernel launch");
}

// ... at the route's staging buffers (route::depth: best_scatter_direct_depth or the two-buffer
// kernel's best_scatter_direct2_depth). P: the side has the direct route's kernel
// (best_scatter_direct_fits' sides, policy.hpp); D2: it has a two-buffer kernel.
template <int E, int SS, bool P>
status direct_path_sized(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr bool D2 = best_scatter_direct2_slab(E, SS) > 0;
  if constexpr (P)
    if (tg.r.depth == best_scatter_direct_depth) return direct_path<E, SS>(in, out, d, tg);
  if constexpr (D2)
    if (tg.r.depth == best_scatter_direct2_depth) return direct_path<E, SS, best_scatter_direct2_depth>(in, out, d, tg);
  return status::make(status_code::unsupported_variant, "best: no %d-buffer direct slabs for side %d", tg.r.depth, SS);
}

template <int E>
status direct_path_side(const void* in, void* out, const matrix_desc& d, int group, const target& tg) {
  if constexpr (E <= best_pipe_max_elem) {
    switch (group) {
      // (The direct route's sides: best_scatter_direct_fits; side 2: best_scatter_direct2_slab.)
      case 2: return direct_path_sized<E, 2, false>(in, out, d, tg);
      case 4: return direct_path_sized<E, 4, true>(in, out, d, tg);
      case 5: return direct_path_sized<E, 5, true>(in, out, d, tg);
      case 6: return direct_path_sized<E, 6, true>(in, out, d, tg);
      default: break;
    }
  }
  return status::make(status_code::unsupported_variant, "best: no direct scatter kernel for %d", group);
}

// Register-interleave slab (best_interleave.cuh) for short side C, one kernel per C.
template <int E, bool Gather, int C>
status interleave_path_c(const void* in, void* out, const matrix_desc& d, const target& tg) {
  constexpr int U = best_interleave_units(C), nt = best_interleave_threads(C);
  // Gathers: the realigning form where the route says so (a 16-byte boundary is off).
  const bool any = Gather && tg.r.realign;
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

// forced: a route to launch in place of route_for's (launch_best_route).
template <int E>
status launch_best_e(const void* in, void* out, const matrix_desc& d, cudaStream_t stream, const route* forced) {
  int dev = 0, cc = 0;
  if (status s = current_device(&dev, &cc); !s.ok()) return s;
  const route r =
      forced ? *forced : route_for(d, reinterpret_cast<std::uintptr_t>(in), reinterpret_cast<std::uintptr_t>(out), cc);
  const target tg{dev, cc, stream, r};
  switch (r.path) {
    case best_path::copy:
      return cuda_status(
          cudaMemcpyAsync(out, in, static_cast<size_t>(d.elements()) * E, cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpyAsync");
    case best_path::slab_gather: return slab_path_grouped<E, slab::gather>(in, out, d, r.side, tg);
    case best_path::slab_scatter: return slab_path_grouped<E, slab::scatter>(in, out, d, r.side, tg);
    case best_path::slab_whole: return slab_path<E, slab::whole>(in, out, d, tg);
    case best_path::slab_scatter_micro:
      return micro_path<E, slab::scatter>(in, out, d, tg);
    case best_path::slab_whole_micro_pipe:
      if constexpr (E <= best_pipe_micro_max_elem) {
        constexpr best_micro mc = best_slab_micro_for(E, false);
        return pipe_path<E, slab::whole, 0, mc.width, mc.min_blocks>(in, out, d, tg);
      }
      break;
    case best_path::realign:
      if constexpr (E < 16) return realign_path<E>(in, out, d, tg);
      break;
    case best_path::realign_skew:
      if constexpr (E <= 8) return skew_path<E>(in, out, d, tg);
      break;
    case best_path::tile_few_rows:
      if constexpr (E <= 8) return tile_path<E, 16, few_rows_tile>(in, out, d, tg);
      break;
    case best_path::tile_narrow:
      if constexpr (E <= 8) return tile_path<E, 16, narrow_tile>(in, out, d, tg);
      break;
    case best_path::tile: return tile_path<E, 16, standard_tile>(in, out, d, tg);
    case best_path::slab_gather_pipe: return pipe_path_side<E, slab::gather>(in, out, d, r.side, tg);
    case best_path::slab_scatter_pipe: return pipe_path_side<E, slab::scatter>(in, out, d, r.side, tg);
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
    case best_path::realign_skew_async:  // (aligned output rows of 1, 4 and 8-byte elements: no halo)
      if constexpr (E <= 8 && E != 2) return skew_async_path<E, false>(in, out, d, tg);
      break;
    case best_path::realign_skew_sector:
      if constexpr (E <= best_skew_sector_max_elem) return skew_async_path<E, true, best_skew_sector_bytes>(in, out, d, tg);
      break;
    case best_path::realign_async:
      if constexpr (E <= 2) return async_realign_path<E>(in, out, d, tg);
      break;
    case best_path::realign_skew_fit:
      if constexpr (E == 4 || E == 8) return skew_path<E, true>(in, out, d, tg);
      break;
    case best_path::realign_skew_async_fit:
      if constexpr (E == best_skew_async_fit_elem) return skew_async_path<E, false, 16, best_skew_async_stages, true>(in, out, d, tg);
      break;
    case best_path::tile_fit: return fit_path<E, false>(in, out, d, tg);
    case best_path::realign_fit: return fit_path<E, true>(in, out, d, tg);
    case best_path::slab_interleave_gather: return interleave_path<E, true>(in, out, d, tg);
    case best_path::slab_interleave_scatter: return interleave_path<E, false>(in, out, d, tg);
    case best_path::slab_scatter_pipe_halo: return pipe_path_side<E, slab::scatter, true>(in, out, d, r.side, tg);
    case best_path::slab_gather_pipe_shift: return pipe_path_side<E, slab::gather, true>(in, out, d, r.side, tg);
    case best_path::slab_scatter_micro_halo:
      if constexpr (E <= best_pipe_micro_max_elem)
        return pipe_path<E, slab::scatter, 0, best_pipe_micro_width_for(E), best_pipe_micro_min_blocks(false), true>(
            in, out, d, tg);
      break;
    case best_path::slab_scatter_direct: return direct_path_side<E>(in, out, d, r.side, tg);
    default: break;
  }
  return status::make(status_code::unsupported_variant, "best: path %s has no %d-byte kernel",
                      best_path_name(r.path), E);
}

}  // namespace

status launch_best_route(const void* in, void* out, const matrix_desc& d, const route* r, cudaStream_t stream) {
  switch (d.elem_size) {
    case 1: return launch_best_e<1>(in, out, d, stream, r);
    case 2: return launch_best_e<2>(in, out, d, stream, r);
    case 4: return launch_best_e<4>(in, out, d, stream, r);
    case 8: return launch_best_e<8>(in, out, d, stream, r);
    case 16: return launch_best_e<16>(in, out, d, stream, r);
    default: return status::make(status_code::unsupported_elem_size, "element size %d", d.elem_size);
  }
}

status launch_best(const void* in, void* out, const matrix_desc& d, const launch_options&, cudaStream_t stream) {
  return launch_best_route(in, out, d, nullptr, stream);
}

}  // namespace xpose::detail
