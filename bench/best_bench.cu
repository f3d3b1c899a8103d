// best_bench: xpose `best` against cudaMemcpyAsync (same bytes), cuBLAS geam
// (f32/f64/c64/c128) and cublasLtMatrixTransform (f16/i8, f32) on the shapes of
// issue 4. Every route's output is checked on the GPU against the definition before
// it is timed; a route that fails its check or its call prints FAIL / n/a.
// Output: one CSV line per (case, route) on stdout:
//   case,dtype,rows,cols,batch,route,median_us,min_us,max_us,gbs,ratio_to_memcpy,check
// GB/s are decimal and count bytes read + written (2 * batch*rows*cols*elem).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <xpose/xpose.hpp>
#include <xpose/registry.hpp>

#include "../src/cuda/best_async.cuh"
#include "../src/cuda/best_direct.cuh"
#include "../src/cuda/best_kernels.cuh"
#include "../src/cuda/best_realign.cuh"
#include "../src/cuda/best_pipe.cuh"
#include "../src/cuda/best_skew.cuh"
#include "../src/cuda/best_slab.cuh"
#include "../src/cuda/policy.hpp"
#include "bench_util.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

struct dtype {
  const char* name;
  int bytes;
};

// Mismatch count of out (batch x cols x rows, packed) against in (batch x rows x cols).
template <int E>
__global__ void check_kernel(const unsigned char* in, const unsigned char* out, long long rows, long long cols,
                             long long batch, unsigned long long* bad) {
  const long long n = rows * cols * batch;
  for (long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x; o < n; o += (long long)gridDim.x * blockDim.x) {
    const long long b = o / (rows * cols), rem = o - b * rows * cols;
    const long long c = rem / rows, r = rem - c * rows;
    const unsigned char* x = in + (b * rows * cols + r * cols + c) * E;
    const unsigned char* y = out + o * E;
    bool same = true;
    for (int i = 0; i < E; ++i) same &= x[i] == y[i];
    if (!same) atomicAdd(bad, 1ull);
  }
}

// Random bytes; with fp_elem > 1, the top byte of every fp_elem-byte word (and of
// each 8-byte half) has its two high bits cleared, so that floats are finite, not
// NaN (cuBLAS canonicalises NaN payloads, which a bitwise check would flag).
__global__ void fill_kernel(unsigned char* p, size_t n, unsigned seed, int fp_elem) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u + seed;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    unsigned char b = static_cast<unsigned char>(x >> 24);
    const int w = fp_elem > 8 ? 8 : fp_elem;
    if (fp_elem > 1 && i % w == static_cast<size_t>(w - 1)) b &= 0x3F;
    p[i] = b;
  }
}

unsigned long long count_bad(const unsigned char* in, const unsigned char* out, long long r, long long c, long long b,
                             int es, unsigned long long* dbad) {
  CK(cudaMemset(dbad, 0, 8));
  switch (es) {
    case 1: check_kernel<1><<<2048, 256>>>(in, out, r, c, b, dbad); break;
    case 2: check_kernel<2><<<2048, 256>>>(in, out, r, c, b, dbad); break;
    case 4: check_kernel<4><<<2048, 256>>>(in, out, r, c, b, dbad); break;
    case 8: check_kernel<8><<<2048, 256>>>(in, out, r, c, b, dbad); break;
    default: check_kernel<16><<<2048, 256>>>(in, out, r, c, b, dbad); break;
  }
  CK(cudaGetLastError());
  unsigned long long h = 0;
  CK(cudaMemcpy(&h, dbad, 8, cudaMemcpyDeviceToHost));
  return h;
}

struct timing {
  double med = 0, mn = 0, mx = 0;
  bool ok = false;
};

// Median of `reps` individually event-timed calls after `warm` warm-ups. For tiny
// cases each sample is the mean over `inner` back-to-back calls.
timing time_it(const std::function<bool()>& f, int warm, int reps, int inner, cudaStream_t st) {
  timing t;
  for (int i = 0; i < warm; ++i)
    if (!f()) return t;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> v;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a, st));
    for (int j = 0; j < inner; ++j) f();
    CK(cudaEventRecord(b, st));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    v.push_back(1000.0 * ms / inner);
  }
  std::sort(v.begin(), v.end());
  t.med = v[v.size() / 2];
  t.mn = v.front();
  t.mx = v.back();
  t.ok = true;
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return t;
}

// The same calls captured `inner` times into one graph; per-call time of a replay.
timing time_graph(const std::function<bool()>& f, int reps, int inner, cudaStream_t st) {
  timing t;
  cudaGraph_t g;
  if (cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal) != cudaSuccess) return t;
  bool ok = true;
  for (int j = 0; j < inner; ++j) ok &= f();
  if (cudaStreamEndCapture(st, &g) != cudaSuccess || !ok) {
    cudaGetLastError();
    return t;
  }
  cudaGraphExec_t ex;
  CK(cudaGraphInstantiate(&ex, g, 0));
  auto launch = [&] { return cudaGraphLaunch(ex, st) == cudaSuccess; };
  t = time_it(launch, 3, reps, 1, st);
  t.med /= inner, t.mn /= inner, t.mx /= inner;
  cudaGraphExecDestroy(ex);
  cudaGraphDestroy(g);
  return t;
}

// Tile-kernel sweep (grid and cache-hint choices of the policy), square 256 MiB.
template <int E, int Hint>
void sweep_one(unsigned char* in, unsigned char* out, cudaStream_t st, int sms, bool full_grid) {
  constexpr xpose::detail::best_tile t = xpose::detail::best_tile_for(E);
  constexpr int smem = t.rows * t.chunks * 16, tc = t.chunks * 16 / E;
  auto kernel = xpose::detail::best::tile_kernel<E, t.rows, t.chunks, t.threads, t.micro_bytes, t.min_blocks, 16, Hint>;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, t.threads, smem));
  const long long R = 16384, C = (256ll << 20) / E / R;
  xpose::detail::best::tile_args a{};
  a.in = in, a.out = out, a.rows = R, a.cols = C, a.batch = 1;
  a.ld_in = C * E, a.ld_out = R * E, a.stride_in = a.stride_out = R * C * E;
  a.tiles_c = (C + tc - 1) / tc;
  a.tiles_per_mat = a.tiles_c * ((R + t.rows - 1) / t.rows);
  a.total = a.tiles_per_mat;
  const unsigned grid = full_grid ? static_cast<unsigned>(a.total) : static_cast<unsigned>(std::min<long long>(a.total, 1ll * occ * sms));
  auto f = [&] {
    kernel<<<grid, t.threads, smem, st>>>(a);
    return cudaGetLastError() == cudaSuccess;
  };
  auto mc = [&] { return cudaMemcpyAsync(out, in, R * C * E, cudaMemcpyDeviceToDevice, st) == cudaSuccess; };
  const timing tm = time_it(mc, 3, 20, 1, st);
  const timing tk = time_it(f, 3, 20, 1, st);
  std::printf("sweep,E=%d,hint=%d,grid=%s(%u; occ %d),%.3f us,%.1f GB/s,ratio %.3f\n", E, Hint,
              full_grid ? "full" : "persistent", grid, occ, tk.med, 2.0 * R * C * E / (tk.med * 1e3), tm.med / tk.med);
  std::fflush(stdout);
}

// Skewed realigning tile (best_skew.cuh) at other geometries than the table's, on the
// ragged 256 MiB case (16383 x (n/16383 + 1): rows not a multiple of 16 bytes), each
// checked exactly, then timed against memcpy of the same bytes (`best_bench --skew`).
template <int E, int TR, int NCH, int NT, int MW, int MB>
void skew_one(unsigned char* in, unsigned char* out, cudaStream_t st, unsigned long long* dbad) {
  constexpr int smem = xpose::detail::best_skew_smem(E, xpose::detail::best_tile{TR, NCH, NT, MW, MB});
  auto kernel = xpose::detail::skew::skew_kernel<E, TR, NCH, NT, MW, MB>;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, NT, smem));
  const long long R = 16383, C = (256ll << 20) / E / R + 1;
  const xpose::matrix_desc d = xpose::matrix_desc::packed(R, C, E);
  const auto a = xpose::detail::skew::make_args<E>(in, out, d, in + R * C * E, {TR, NCH, NT, MW, MB});
  auto f = [&] {
    kernel<<<static_cast<unsigned>(a.total), NT, smem, st>>>(a);
    return cudaGetLastError() == cudaSuccess;
  };
  CK(cudaMemset(out, 0xFF, R * C * E));
  f();
  CK(cudaStreamSynchronize(st));
  const unsigned long long bad = count_bad(in, out, R, C, 1, E, dbad);
  auto mc = [&] { return cudaMemcpyAsync(out, in, R * C * E, cudaMemcpyDeviceToDevice, st) == cudaSuccess; };
  const timing tm = time_it(mc, 3, 20, 1, st);
  const timing tk = time_it(f, 3, 20, 1, st);
  std::printf("skew,E=%d,%lldx%lld,tile %dx%d nt %d mw %d minb %d (occ %d, smem %d),%.3f us,%.1f GB/s,ratio %.3f,%s\n", E,
              R, C, TR, NCH, NT, MW, MB, occ, smem, tk.med, 2.0 * R * C * E / (tk.med * 1e3), tm.med / tk.med,
              bad ? "FAIL" : "exact");
  std::fflush(stdout);
}

void skew_sweep(unsigned char* in, unsigned char* out, cudaStream_t st, unsigned long long* dbad) {
  // Production tiles first (best_tile_skew_for), then the alternatives.
  skew_one<1, 112, 8, 256, 8, 3>(in, out, st, dbad);
  skew_one<1, 128, 8, 256, 8, 2>(in, out, st, dbad);
  skew_one<1, 240, 8, 256, 8, 2>(in, out, st, dbad);
  skew_one<1, 112, 16, 512, 8, 1>(in, out, st, dbad);
  skew_one<1, 112, 8, 128, 8, 4>(in, out, st, dbad);
  skew_one<2, 120, 16, 256, 16, 2>(in, out, st, dbad);
  skew_one<2, 128, 8, 256, 16, 2>(in, out, st, dbad);
  skew_one<2, 248, 8, 256, 16, 2>(in, out, st, dbad);
  skew_one<2, 120, 8, 128, 16, 4>(in, out, st, dbad);
  skew_one<2, 120, 8, 256, 8, 4>(in, out, st, dbad);  // f32's shape in bytes: 4 blocks/SM, 63 registers
  skew_one<4, 60, 16, 256, 16, 4>(in, out, st, dbad);
  skew_one<4, 64, 16, 256, 16, 3>(in, out, st, dbad);
  skew_one<4, 124, 16, 256, 16, 2>(in, out, st, dbad);
  skew_one<4, 124, 8, 128, 16, 4>(in, out, st, dbad);
  skew_one<8, 62, 16, 256, 16, 4>(in, out, st, dbad);
  skew_one<8, 30, 16, 256, 16, 4>(in, out, st, dbad);
  skew_one<8, 126, 16, 256, 16, 2>(in, out, st, dbad);
}

// The cp.async tile (best_async.cuh) at other geometries than the table's, and the
// register tile it replaces, on 1-byte squares of 32 MiB / 256 MiB and 8192 x 64 x 64:
// each checked exactly, then timed with the L2 flushed before every call (as `xpose-bench
// sweep`) against memcpy of the same bytes, flushed the same way (`best_bench --async`).
struct async_case {
  long long R, C, B;
};

struct async_env {
  unsigned char *in, *out, *scratch;
  size_t scratch_bytes;
  cudaStream_t st;
  unsigned long long* dbad;
};

void async_report(const char* what, const async_case& c, int occ, int smem, const std::function<void()>& f,
                  const async_env& env, int E = 1) {
  const size_t bytes = static_cast<size_t>(c.R * c.C * c.B) * E;
  CK(cudaMemset(env.out, 0xFF, bytes));
  f();
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(env.st));
  const unsigned long long bad = count_bad(env.in, env.out, c.R, c.C, c.B, E, env.dbad);
  const double tm = flushed_us([&] { cudaMemcpyAsync(env.out, env.in, bytes, cudaMemcpyDeviceToDevice, env.st); },
                               env.scratch, env.scratch_bytes, env.st);
  const double tk = flushed_us(f, env.scratch, env.scratch_bytes, env.st);
  std::printf("async,E=%d,%lldx%lldx%lld,%s (occ %d, smem %d),%.3f us,%.1f GB/s,ratio %.3f,%s\n", E, c.B, c.R, c.C,
              what, occ, smem, tk, 2.0 * bytes / (tk * 1e3), tm / tk, bad ? "FAIL" : "exact");
  std::fflush(stdout);
}

xpose::detail::best::tile_args async_tile_args(const async_case& c, int TR, int TC, const async_env& env, int E = 1) {
  xpose::detail::best::tile_args a{};
  a.in = env.in, a.out = env.out, a.rows = c.R, a.cols = c.C, a.batch = c.B;
  a.ld_in = c.C * E, a.ld_out = c.R * E, a.stride_in = a.stride_out = c.R * c.C * E;
  a.tiles_c = (c.C + TC - 1) / TC;
  a.tiles_per_mat = a.tiles_c * ((c.R + TR - 1) / TR);
  a.total = a.tiles_per_mat * c.B;
  return a;
}

template <int TR, int NCH, int NT, int MW, int MB, int TPB, int E = 1>
void async_one(const async_case& c, const async_env& env) {
  constexpr int smem = TPB * TR * NCH * 16;
  auto kernel = xpose::detail::async_tile::async_tile_kernel<E, TR, NCH, NT, MW, MB, TPB>;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, NT, smem));
  const xpose::detail::async_tile::args a{async_tile_args(c, TR, NCH * 16 / E, env, E), 0};
  const unsigned grid = static_cast<unsigned>((a.t.total + TPB - 1) / TPB);
  char what[96];
  std::snprintf(what, sizeof what, "async %dx%d nt %d mw %d minb %d tpb %d", TR, NCH, NT, MW, MB, TPB);
  async_report(what, c, occ, smem, [&] { kernel<<<grid, NT, smem, env.st>>>(a); }, env, E);
}

template <int TR, int NCH, int NT, int MB, int E = 1, int MW = 8>
void register_tile_one(const async_case& c, const async_env& env) {
  constexpr int smem = TR * NCH * 16;
  auto kernel = xpose::detail::best::tile_kernel<E, TR, NCH, NT, MW, MB, 16>;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, NT, smem));
  const auto a = async_tile_args(c, TR, NCH * 16 / E, env, E);
  char what[96];
  std::snprintf(what, sizeof what, "tile_kernel %dx%d nt %d mw %d minb %d", TR, NCH, NT, MW, MB);
  async_report(what, c, occ, smem, [&] { kernel<<<static_cast<unsigned>(a.total), NT, smem, env.st>>>(a); }, env, E);
}

// `best` and `best_next` (the candidate policy: the async routes while their switches
// are off) through the library, timed the same way.
void variant_one(const char* name, const async_case& c, int E, const async_env& env) {
  const xpose::matrix_desc d = xpose::matrix_desc::packed(c.R, c.C, E, c.B);
  async_report(name, c, 0, 0, [&] { (void)xpose::transpose_variant(name, env.in, env.out, d, {}, env.st); }, env, E);
}

template <int E, int TR, int NCH, int NT, int MB>
void async_realign_one(const async_case& c, const async_env& env) {
  constexpr int smem = xpose::detail::best_async_realign_smem(xpose::detail::best_tile{TR, NCH, NT, 4, MB});
  auto kernel = xpose::detail::async_tile::async_realign_kernel<E, TR, NCH, NT, MB>;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, NT, smem));
  const xpose::detail::async_tile::realign_args a{async_tile_args(c, TR, NCH * 16 / E, env, E),
                                                  env.in + c.R * c.C * c.B * E, 0};
  char what[96];
  std::snprintf(what, sizeof what, "async realign %dx%d nt %d minb %d", TR, NCH, NT, MB);
  async_report(what, c, occ, smem, [&] { kernel<<<static_cast<unsigned>(a.t.total), NT, smem, env.st>>>(a); }, env, E);
}

// The pipelined async tile (async_pipe_kernel) at geometry (TR, NCH, NT, MW, MB, TPB, S):
// resident blocks (occupancy x SMs, at most one per group), as best.cu launches it.
template <int TR, int NCH, int NT, int MW, int MB, int TPB, int S, int E = 1>
void async_pipe_one(const async_case& c, const async_env& env) {
  constexpr int smem = S * TPB * TR * NCH * 16;
  auto kernel = xpose::detail::async_tile::async_pipe_kernel<E, TR, NCH, NT, MW, MB, TPB, S>;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int occ = 0, dev = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, NT, smem));
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const xpose::detail::async_tile::args a{async_tile_args(c, TR, NCH * 16 / E, env, E), 0};
  const long long groups = (a.t.total + TPB - 1) / TPB, n = static_cast<long long>(occ) * sms;
  const unsigned grid = static_cast<unsigned>(groups < n ? groups : n);
  char what[112];
  std::snprintf(what, sizeof what, "pipe %dx%d nt %d mw %d minb %d tpb %d stages %d", TR, NCH, NT, MW, MB, TPB, S);
  async_report(what, c, occ, smem, [&] { kernel<<<grid, NT, smem, env.st>>>(a); }, env, E);
}

// The aligned 1-2 byte squares and 64 x 64 batches of issue 12 (`best_bench --sq`): best,
// best_next, the async tile of the table and pipelined geometries, `rounds` times over.
void sq_sweep(const async_env& env, int rounds) {
  const async_case u8sq{5760, 5760, 1}, u8b{64, 64, 8192}, f16sq{4096, 4096, 1}, f16b{64, 64, 4096};
  const async_case u8b32{32, 32, 32768}, u8b16{16, 16, 131072}, f16b32{32, 32, 16384};
  for (int round = 0; round < rounds; ++round) {
    std::printf("# round %d\n", round);
    variant_one("best", u8sq, 1, env);
    variant_one("best_next", u8sq, 1, env);
    async_one<128, 16, 256, 8, 4, 1>(u8sq, env);  // tile_async
    async_pipe_one<128, 16, 256, 8, 3, 1, 2>(u8sq, env);  // first table entry
    async_pipe_one<128, 16, 256, 8, 2, 1, 3>(u8sq, env);
    async_pipe_one<64, 16, 128, 8, 8, 1, 2>(u8sq, env);
    async_pipe_one<64, 16, 128, 8, 6, 1, 3>(u8sq, env);
    async_pipe_one<128, 8, 128, 8, 6, 1, 3>(u8sq, env);  // tile_async_pipe (table)
    variant_one("best", u8b, 1, env);
    variant_one("best_next", u8b, 1, env);
    async_one<64, 4, 128, 8, 8, 4>(u8b, env);  // tile_async_batch
    async_pipe_one<64, 4, 128, 8, 6, 4, 2>(u8b, env);  // (table entry, not routed)
    async_pipe_one<64, 4, 128, 8, 4, 4, 3>(u8b, env);
    async_pipe_one<64, 4, 64, 8, 8, 2, 2>(u8b, env);
    async_pipe_one<64, 4, 64, 8, 8, 2, 3>(u8b, env);
    variant_one("best", f16sq, 2, env);
    variant_one("best_next", f16sq, 2, env);
    async_one<128, 16, 256, 16, 4, 1, 2>(f16sq, env);  // tile_async, 2-byte (best_next)
    async_pipe_one<128, 16, 256, 16, 3, 1, 2, 2>(f16sq, env);  // tile_async_pipe (table)
    async_pipe_one<128, 16, 256, 16, 2, 1, 3, 2>(f16sq, env);
    async_pipe_one<64, 16, 128, 16, 6, 1, 3, 2>(f16sq, env);
    variant_one("best", f16b, 2, env);
    variant_one("best_next", f16b, 2, env);
    async_one<64, 8, 128, 16, 8, 2, 2>(f16b, env);  // tile_async_batch, 2-byte (best_next)
    async_pipe_one<64, 8, 128, 16, 6, 2, 2, 2>(f16b, env);  // tile_async_pipe_batch (table)
    async_pipe_one<64, 8, 128, 16, 4, 2, 3, 2>(f16b, env);
    async_pipe_one<64, 8, 64, 16, 8, 1, 2, 2>(f16b, env);
    for (const async_case& c : {u8b32, u8b16}) {
      variant_one("best", c, 1, env);
      variant_one("best_next", c, 1, env);
    }
    variant_one("best", f16b32, 2, env);
    variant_one("best_next", f16b32, 2, env);
  }
}

// One 4-8 byte case of `best_bench --sqw`: best, best_next and the pipelined geometries.
template <int E>
void sqw_case(const async_case& c, const async_env& env) {
  variant_one("best", c, E, env);
  variant_one("best_next", c, E, env);
  async_pipe_one<64, 16, 256, 16, 4, 1, 3, E>(c, env);  // table (f32)
  async_pipe_one<64, 16, 256, 16, 4, 1, 2, E>(c, env);
  async_pipe_one<32, 16, 256, 16, 4, 2, 3, E>(c, env);
  async_pipe_one<64, 8, 128, 16, 8, 1, 3, E>(c, env);
  async_pipe_one<128, 16, 256, 16, 2, 1, 2, E>(c, env);
}

// The 4-8 byte aligned squares and 64 x 64 batches (`best_bench --sqw`), `rounds` times
// over; f32 4096^2 and 8192^2 for the upper end of the pipelined tile's range.
void sqw_sweep(const async_env& env, int rounds) {
  const async_case f32sq{2880, 2880, 1}, f32b{64, 64, 2048}, f64sq{2048, 2048, 1}, f64b{64, 64, 1024};
  const async_case f32l{4096, 4096, 1}, f32xl{8192, 8192, 1};
  for (int round = 0; round < rounds; ++round) {
    std::printf("# round %d\n", round);
    for (const async_case& c : {f32sq, f32b, f32l, f32xl}) sqw_case<4>(c, env);
    for (const async_case& c : {f64sq, f64b}) sqw_case<8>(c, env);
  }
}

// 4-8 byte gathers of 24 and 32 rows (`best_bench --wrows [rounds]`): best, best_next (the
// row-fitted tile, switch best_fit_wide_default) and other tile geometries: register tiles of
// the rows x 256 / 512 bytes with 2 or 4 threads a row, the 64-row tile, the pipelined async
// tile of 32 rows (power-of-two row blocks only); 16 and 48 rows for the rule's edges.
template <int E>
void wrows_case(const async_case& c, const async_env& env) {
  variant_one("best", c, E, env);
  variant_one("best_next", c, E, env);
  if (c.R == 24) {
    register_tile_one<24, 16, 48, 10, E, 16>(c, env);  // fitted (best_tile_fit_for)
    register_tile_one<24, 16, 96, 8, E, 16>(c, env);
    register_tile_one<24, 32, 96, 5, E, 16>(c, env);
    register_tile_one<32, 16, 64, 8, E, 16>(c, env);  // (a quarter of the rows empty)
  } else if (c.R == 32) {
    register_tile_one<32, 16, 64, 8, E, 16>(c, env);  // fitted = few-rows tile
    register_tile_one<32, 16, 128, 8, E, 16>(c, env);
    register_tile_one<32, 32, 128, 4, E, 16>(c, env);
    register_tile_one<32, 32, 256, 4, E, 16>(c, env);
    async_pipe_one<32, 16, 128, 16, 8, 1, 3, E>(c, env);
    async_pipe_one<32, 16, 64, 16, 8, 2, 2, E>(c, env);
  } else if (c.R == 16) {
    register_tile_one<16, 16, 32, 16, E, 16>(c, env);
    register_tile_one<16, 16, 64, 8, E, 16>(c, env);
  } else if (c.R == 48) {
    register_tile_one<48, 16, 96, 5, E, 16>(c, env);
  }
  register_tile_one<64, 16, 256, 4, E, 16>(c, env);  // the standard tile
}

void wrows_sweep(const async_env& env, int rounds) {
  for (int round = 0; round < rounds; ++round) {
    std::printf("# round %d\n", round);
    for (const async_case& c : {async_case{32, 262144, 1}, async_case{24, 50176, 6}, async_case{32, 50176, 5},
                                async_case{24, 262144, 1}, async_case{16, 524288, 1}, async_case{48, 50176, 3}})
      wrows_case<4>(c, env);
    for (const async_case& c : {async_case{32, 131072, 1}, async_case{24, 50176, 3}, async_case{32, 50176, 2},
                                async_case{32, 1024, 128}, async_case{16, 262144, 1}, async_case{48, 50176, 2}})
      wrows_case<8>(c, env);
  }
}

// The 4-8 byte single matrices below 0.86 of memcpy on the skewed tiles and slabs
// (`best_bench --fit [rounds]`, branch w9): best, best_next (one of them the fitted skewed tiles,
// switch best_skew_fit_default) and other geometries of the skewed tiles, each checked
// exactly and timed with the L2 flushed against memcpy of the same bytes.
template <int E>
xpose::detail::skew::args fit_skew_args(const async_case& c, xpose::detail::best_tile t, const async_env& env) {
  const xpose::matrix_desc d = xpose::matrix_desc::packed(c.R, c.C, E, c.B);
  return xpose::detail::skew::make_args<E>(env.in, env.out, d, env.in + c.R * c.C * c.B * E, t);
}

// Raises kernel's shared-memory limit to smem; its blocks per SM (occ) at nt threads, and
// the resident blocks of the device (occ x SMs).
template <class K>
long long fit_resident(K kernel, int nt, int smem, int* occ) {
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int dev = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(occ, kernel, nt, smem));
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return static_cast<long long>(*occ) * sms;
}

// The register skewed tile (halo): one block per tile as best.cu launches it, or
// (Resident) as many blocks as fit, evened by best_balanced_grid, walking the tiles.
template <int E, int TR, int NCH, int NT, int MW, int MB, bool Resident = false>
void fit_skew_one(const async_case& c, const async_env& env) {
  constexpr xpose::detail::best_tile t{TR, NCH, NT, MW, MB};
  constexpr int smem = xpose::detail::best_skew_smem(E, t);
  auto kernel = xpose::detail::skew::skew_kernel<E, TR, NCH, NT, MW, MB>;
  int occ = 0;
  const long long resident = fit_resident(kernel, NT, smem, &occ);
  const auto a = fit_skew_args<E>(c, t, env);
  const long long grid = Resident ? xpose::detail::best_balanced_grid(a.total, resident) : a.total;
  char what[112];
  std::snprintf(what, sizeof what, "skew %dx%d nt %d mw %d minb %d%s tiles %lld grid %lld", TR, NCH, NT, MW, MB,
                Resident ? " resident" : "", static_cast<long long>(a.total), grid);
  async_report(what, c, occ, smem, [&] { kernel<<<static_cast<unsigned>(grid), NT, smem, env.st>>>(a); }, env, E);
}

// The cp.async skewed tile (no halo: output rows aligned), S cover buffers, resident
// blocks evened by best_balanced_grid (as best.cu launches it).
template <int E, int TR, int NCH, int NT, int MW, int MB, int S = 2>
void fit_skew_async_one(const async_case& c, const async_env& env) {
  constexpr xpose::detail::best_tile t{TR, NCH, NT, MW, MB};
  constexpr int smem = xpose::detail::best_skew_async_smem(E, t, false, S);
  auto kernel = xpose::detail::skew::skew_async_kernel<E, TR, NCH, NT, MW, MB, false, S>;
  int occ = 0;
  const long long resident = fit_resident(kernel, NT, smem, &occ);
  const auto a = fit_skew_args<E>(c, t, env);
  const long long grid = xpose::detail::best_balanced_grid(a.total, resident);
  char what[112];
  std::snprintf(what, sizeof what, "skew_async %dx%d nt %d mw %d minb %d stages %d tiles %lld grid %lld", TR, NCH, NT,
                MW, MB, S, static_cast<long long>(a.total), grid);
  async_report(what, c, occ, smem, [&] { kernel<<<static_cast<unsigned>(grid), NT, smem, env.st>>>(a); }, env, E);
}

// The row-fitted realigning tile (realign_fit's kernel) for 4-8 byte gathers of TR rows.
template <int E, int TR>
void fit_realign_one(const async_case& c, const async_env& env) {
  constexpr xpose::detail::best_tile T = xpose::detail::best_tile_fit_for(E, TR, true);
  constexpr int smem = T.rows * T.chunks * 16;
  auto kernel = xpose::detail::best::realign_tile_kernel<E, T.rows, T.chunks, T.threads, T.micro_bytes, T.min_blocks, true>;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, T.threads, smem));
  const xpose::detail::best::realign_args ra{async_tile_args(c, TR, T.chunks * 16 / E, env, E),
                                             env.in + c.R * c.C * c.B * E};
  char what[96];
  std::snprintf(what, sizeof what, "realign_fit %dx%d nt %d minb %d", T.rows, T.chunks, T.threads, T.min_blocks);
  async_report(what, c, occ, smem, [&] { kernel<<<static_cast<unsigned>(ra.t.total), T.threads, smem, env.st>>>(ra); },
               env, E);
}

// Rows unaligned on the output side (the register skewed tile with its halo).
template <int E>
void fit_halo_case(const async_case& c, const async_env& env) {
  variant_one("best", c, E, env);
  variant_one("best_next", c, E, env);
  constexpr int tr = E == 4 ? 60 : 62, tr2 = E == 4 ? 124 : 126, tr3 = E == 4 ? 28 : 30;
  fit_skew_one<E, tr, 16, 256, 16, 4>(c, env);        // realign_skew (best_tile_skew_for)
  fit_skew_one<E, tr, 16, 256, 16, 4, true>(c, env);  // the same, resident blocks
  fit_skew_one<E, tr, 8, 128, 16, 8>(c, env);         // realign_skew_fit (best_tile_skew_fit_for)
  fit_skew_one<E, tr, 8, 128, 16, 8, true>(c, env);
  fit_skew_one<E, tr2, 8, 256, 16, 4>(c, env);
  fit_skew_one<E, tr2, 16, 512, 16, 2>(c, env);
  fit_skew_one<E, tr3, 16, 128, 16, 8>(c, env);
  fit_skew_one<E, tr3, 8, 64, 16, 16>(c, env);
}

// Output rows aligned (the cp.async skewed tile without the halo).
template <int E>
void fit_async_case(const async_case& c, const async_env& env) {
  variant_one("best", c, E, env);
  variant_one("best_next", c, E, env);
  fit_skew_async_one<E, 64, 16, 256, 16, 4>(c, env);  // realign_skew_async (best_tile_skew_async_for)
  fit_skew_async_one<E, 48, 16, 256, 16, 4>(c, env);  // realign_skew_async_fit
  fit_skew_async_one<E, 32, 16, 256, 16, 4>(c, env);
  fit_skew_async_one<E, 64, 16, 256, 16, 4, 1>(c, env);
  fit_skew_async_one<E, 48, 16, 256, 16, 4, 1>(c, env);
  fit_skew_async_one<E, 64, 8, 128, 16, 8>(c, env);
  fit_skew_async_one<E, 96, 16, 384, 16, 2>(c, env);
  fit_skew_one<E, E == 4 ? 60 : 62, 16, 256, 16, 4>(c, env);  // the register tile (halo form)
  if (c.R == 96) fit_realign_one<E, 96>(c, env);
  if (c.R == 96) fit_realign_one<E, 48>(c, env);
}

// The slab scatter (best_slab.cuh, one block per slab) of short side SS (0: element by
// element), MW-byte micro-blocks (0: none), at `bytes` per slab.
template <int E, int SS, int MW, int MINB>
void fit_slab_one(const async_case& c, int bytes, const async_env& env) {
  namespace sl = xpose::detail::slab;
  auto kernel = sl::slab_kernel<E, sl::scatter, xpose::detail::best_slab_threads, xpose::detail::best_slab_unroll, SS,
                                MINB, MW>;
  const xpose::matrix_desc d = xpose::matrix_desc::packed(c.R, c.C, E, c.B);
  const sl::args a = sl::make_args<E>(sl::scatter, env.in, env.out, d, env.in + c.R * c.C * c.B * E, bytes,
                                      SS > 0);
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, a.smem));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, xpose::detail::best_slab_threads, a.smem));
  char what[112];
  std::snprintf(what, sizeof what, "slab_scatter ss %d mw %d minb %d bytes %d span %lld slabs %lld", SS, MW, MINB,
                bytes, static_cast<long long>(a.span), static_cast<long long>(a.total));
  async_report(what, c, occ, a.smem,
               [&] { kernel<<<static_cast<unsigned>(a.total), xpose::detail::best_slab_threads, a.smem, env.st>>>(a); },
               env, E);
}

void fit_sweep(const async_env& env, int rounds) {
  for (int round = 0; round < rounds; ++round) {
    std::printf("# round %d\n", round);
    for (const async_case& c : {async_case{50177, 96, 1}, async_case{2879, 2883, 1}, async_case{4999, 6007, 1}})
      fit_halo_case<4>(c, env);
    for (const async_case& c : {async_case{2047, 2051, 1}, async_case{50177, 96, 1}}) fit_halo_case<8>(c, env);
    for (const async_case& c : {async_case{96, 50177, 1}, async_case{2048, 2049, 1}, async_case{128, 50177, 1}})
      fit_async_case<8>(c, env);
    fit_async_case<4>(async_case{96, 50177, 1}, env);
    // The f32 slab scatters (no library candidate of this branch): slab sizes of the element
    // kernel (the route; 16 KiB the table's), the micro-block kernel, the grouped 12-column kernel.
    for (const async_case& c : {async_case{50176, 48, 3}, async_case{50177, 12, 13}}) {
      variant_one("best", c, 4, env);
      variant_one("best_next", c, 4, env);
      for (int bytes : {8192, 16384, 24576, 32768, 40960}) fit_slab_one<4, 0, 0, 1>(c, bytes, env);
      for (int bytes : {16384, 32768}) fit_slab_one<4, 0, 16, 4>(c, bytes, env);
      if (c.C == 12)
        for (int bytes : {16384, 32768}) fit_slab_one<4, 12, 0, xpose::detail::best_slab_group_min_blocks>(c, bytes, env);
    }
  }
}

// A 1-2 byte scatter's pipelined kernel of best.cu (pipe_kernel: grouped side SS, or micro-block
// rows MW with SS = 0; H: the halo kernel) at `slab_bytes` slabs, launched as pipe_path does
// with that slab size in the table: resident blocks as many as fit at the kernel's largest block
// at that size (pipe_smem_max), slabs shortened for a full last round (best_pipe_span).
// NT threads a block; fewer: resident blocks per SM fewer than fit; balance false: the table's
// span (no best_pipe_span).
template <int E, int SS, int MW, int MINB, bool H, int NT = xpose::detail::best_slab_threads>
void scatter_pipe_one(const async_case& c, const async_env& env, int slab_bytes, int fewer = 0, bool balance = true) {
  namespace xd = xpose::detail;
  constexpr int nt = NT;
  auto kernel = xd::slab::pipe_kernel<E, xd::slab::scatter, nt, SS, MINB, MW, H>;
  xd::best_class_policy pol = xd::best_class_policy_for(90, E);
  pol.slab_bytes = slab_bytes;
  const long long side = SS > 0 ? SS : std::min(pol.slab_max_short, pol.slab_max_short_bytes / E);
  const int smem_max = xd::slab::pipe_smem_max<E>(xd::slab::scatter, side, slab_bytes, MW > 0, H);
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max));
  int occ = 0, dev = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, nt, smem_max));
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const xpose::matrix_desc d = xpose::matrix_desc::packed(c.R, c.C, E, c.B);
  const unsigned char* end = env.in + c.R * c.C * c.B * E;
  auto make = [&](int bytes) {
    return xd::slab::make_pipe_args<E>(xd::slab::scatter, env.in, env.out, d, end, bytes, MW > 0, H);
  };
  xd::slab::args a = make(xd::best_slab_bytes_for(pol, d.elements() * E));
  const long long n = static_cast<long long>(std::max(occ - fewer, 1)) * sms;
  const long long span = balance ? xd::best_pipe_span(a.span, a.L, a.batch, n, 16 / E) : a.span;
  if (span < a.span) a = make(static_cast<int>((span + (H ? 16 / E : 0)) * a.S * E));
  const unsigned grid = static_cast<unsigned>(a.total < n ? a.total : n);
  char what[192];
  std::snprintf(what, sizeof what,
                  "scatter pipe side %d mw %d halo %d nt %d minb %d fewer %d balance %d slab %d span %lld grid %u "
                  "rounds %lld",
                  SS, MW, H ? 1 : 0, NT, MINB, fewer, balance ? 1 : 0, slab_bytes,
                  static_cast<long long>(a.span), grid, static_cast<long long>((a.total + grid - 1) / grid));
  async_report(what, c, occ, a.smem, [&] { kernel<<<grid, nt, a.smem, env.st>>>(a); }, env, E);
}

// The unpipelined grouped scatter of side SS (slab_kernel, one block per slab) at `slab_bytes`.
template <int E, int SS>
void scatter_slab_one(const async_case& c, const async_env& env, int slab_bytes) {
  namespace xd = xpose::detail;
  constexpr int nt = xd::best_slab_threads;
  auto kernel = xd::slab::slab_kernel<E, xd::slab::scatter, nt, xd::best_slab_unroll, SS, xd::best_slab_group_min_blocks>;
  const xpose::matrix_desc d = xpose::matrix_desc::packed(c.R, c.C, E, c.B);
  const xd::slab::args a =
      xd::slab::make_args<E>(xd::slab::scatter, env.in, env.out, d, env.in + c.R * c.C * c.B * E, slab_bytes, true);
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, a.smem));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, nt, a.smem));
  char what[128];
  std::snprintf(what, sizeof what, "scatter slab side %d slab %d span %lld", SS, slab_bytes, static_cast<long long>(a.span));
  async_report(what, c, occ, a.smem, [&] { kernel<<<static_cast<unsigned>(a.total), nt, a.smem, env.st>>>(a); }, env, E);
}

constexpr int scatter_slabs[] = {12288, 16384, 20480, 24576, 32768};

// One row of `best_bench --slab`: best, best_next (the slab table, best_scatter_slab_default),
// then the route's kernel at every size of scatter_slabs: grouped side SS (H: the halo kernel;
// U: also the unpipelined grouped kernel, up to 24 KiB) or micro-block (SS = 0).
template <int E, int SS, bool H, bool U = false>
void scatter_slab_case(const async_case& c, const async_env& env) {
  namespace xd = xpose::detail;
  for (const char* v : {"best", "best_next"}) variant_one(v, c, E, env);
  for (int sb : scatter_slabs) {
    if constexpr (SS > 0)
      scatter_pipe_one<E, SS, 0, xd::best_pipe_min_blocks(E, false, SS, H), H>(c, env, sb);
    else
      scatter_pipe_one<E, 0, xd::best_pipe_micro_width_for(E), xd::best_pipe_micro_min_blocks(false), H>(c, env, sb);
    if constexpr (U && SS > 0)
      if (sb <= 24576) scatter_slab_one<E, SS>(c, env, sb);
  }
}

// 1-2 byte scatters to odd HW, the sweep's rows below 0.85 of memcpy, and aligned twins
// (`best_bench --slab [rounds]`): the slab size of their kernels (issue 12; switch
// best_scatter_slab_default).
void slab_sweep(const async_env& env, int rounds) {
  for (int round = 0; round < rounds; ++round) {
    std::printf("# round %d\n", round);
    scatter_slab_case<1, 2, true, true>({50177, 2, 256}, env);
    scatter_slab_case<1, 4, true>({50177, 4, 167}, env);
    scatter_slab_case<1, 6, true>({50177, 6, 111}, env);
    scatter_slab_case<2, 6, true>({50177, 6, 55}, env);
    scatter_slab_case<1, 24, true>({50177, 24, 27}, env);
    scatter_slab_case<2, 2, true, true>({50177, 2, 167}, env);
    scatter_slab_case<1, 0, true>({50177, 128, 5}, env);
    scatter_slab_case<1, 0, true>({50177, 96, 6}, env);
    scatter_slab_case<2, 0, true>({50177, 96, 3}, env);
    scatter_slab_case<2, 4, true>({50177, 4, 83}, env);
    scatter_slab_case<1, 5, true>({50177, 5, 133}, env);
    scatter_slab_case<1, 3, true, true>({50177, 3, 222}, env);
    scatter_slab_case<1, 8, true>({50177, 8, 83}, env);
    scatter_slab_case<1, 0, true>({50177, 48, 13}, env);
    // Aligned twins (their kernels without a halo).
    scatter_slab_case<1, 24, false>({50176, 24, 27}, env);
    scatter_slab_case<1, 0, false>({50176, 96, 6}, env);
    scatter_slab_case<2, 6, false>({50176, 6, 55}, env);
  }
}

// ---- 1-byte gathers C x HW -> HW x C below 0.85 (`best_bench --gather [rounds]`) ----

// best / best_next with the route each takes (policy.hpp best_path_for) in the line.
void routed_one(const char* name, const async_case& c, int E, const async_env& env) {
  namespace xd = xpose::detail;
  const xpose::matrix_desc d = xpose::matrix_desc::packed(c.R, c.C, E, c.B);
  const xd::best_choice ch = xd::best_path_for(d, reinterpret_cast<std::uintptr_t>(env.in),
                                               reinterpret_cast<std::uintptr_t>(env.out), 90,
                                               std::string(name) == "best_next");
  char what[96];
  std::snprintf(what, sizeof what, "%s %s/g%d", name, xd::best_path_name(ch.path), ch.group);
  async_report(what, c, 0, 0, [&] { (void)xpose::transpose_variant(name, env.in, env.out, d, {}, env.st); }, env, E);
}

// A pipelined grouped gather (pipe_kernel of side SS; H: the shift form; A: the lean form) at `slab_bytes` slabs and `depth` load buffers (shift form),
// launched as best.cu's pipe_path does: resident blocks at this slab, the span balanced over
// the last round (best_pipe_span), the lean form's slab lags; the production instantiation.
template <int E, int SS, bool H, bool A>
void gpipe_one(const async_case& c, const async_env& env, int slab_bytes, int depth = 2) {
  namespace xd = xpose::detail;
  constexpr int nt = xd::best_slab_threads;
  constexpr int minb = xd::best_pipe_min_blocks(E, true, SS, H);
  auto kernel = xd::slab::pipe_kernel<E, xd::slab::gather, nt, SS, minb, 0, H, A>;
  const xpose::matrix_desc d = xpose::matrix_desc::packed(c.R, c.C, E, c.B);
  const unsigned char* end = env.in + c.R * c.C * c.B * E;
  auto make = [&](int bytes) {
    return xd::slab::make_pipe_args<E>(xd::slab::gather, env.in, env.out, d, end, bytes, false, H, depth);
  };
  xd::slab::args a = make(slab_bytes);
  int occ = 0, dev = 0, sms = 0, optin = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  // (The device's limit, never lower: best / best_next launch the same kernel in this process.)
  CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, nt, a.smem));
  const long long n = static_cast<long long>(occ) * sms;
  const long long span = xd::best_pipe_span(a.span, a.L + (A ? 16 / E - 1 : 0), a.batch, n, 16 / E);
  if (span < a.span) a = make(static_cast<int>(span * a.S * E));
  const unsigned grid = static_cast<unsigned>(a.total < n ? a.total : n);
  char what[128];
  std::snprintf(what, sizeof what, "gather pipe side %d shift %d lean %d minb %d depth %d slab %d span %lld", SS, H, A,
                minb, depth, slab_bytes, static_cast<long long>(a.span));
  if (occ < 1) {
    std::printf("async,E=%d,%lldx%lldx%lld,%s,n/a (block does not fit)\n", E, c.B, c.R, c.C, what);
    return;
  }
  if constexpr (A) {
    xd::slab::lean_args la{a, 0};
    xd::slab::align_out_slabs<E>(la);
    async_report(what, c, occ, a.smem, [&] { kernel<<<grid, nt, a.smem, env.st>>>(la); }, env, E);
  } else {
    async_report(what, c, occ, a.smem, [&] { kernel<<<grid, nt, a.smem, env.st>>>(a); }, env, E);
  }
}

// The fitted realigning tile (route realign_fit: input rows off the 16-byte grid, output rows
// 16-byte aligned, which the caller guarantees) at geometry (TR, NCH, NT, MW, MB): one block per tile, as fit_path launches it.
// XS: the form that holds the chunk after each row's cover in shared memory (best_realign.cuh).
template <int TR, int NCH, int NT, int MB, int E = 1, int MW = 8, bool XS = false>
void realign_fit_one(const async_case& c, const async_env& env) {
  constexpr int smem = TR * NCH * 16 + (XS ? TR * 16 : 0);
  auto kernel = xpose::detail::best::realign_tile_kernel<E, TR, NCH, NT, MW, MB, true, XS>;
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, NT, smem));
  const xpose::detail::best::realign_args ra{async_tile_args(c, TR, NCH * 16 / E, env, E),
                                             env.in + c.R * c.C * c.B * E};
  char what[96];
  std::snprintf(what, sizeof what, "realign_fit %dx%d nt %d mw %d minb %d%s", TR, NCH, NT, MW, MB, XS ? " xs" : "");
  async_report(what, c, occ, smem, [&] { kernel<<<static_cast<unsigned>(ra.t.total), NT, smem, env.st>>>(ra); }, env, E);
}

// The fitted u8 tile at geometry (TR, NCH, NT, MB): the realigning one for odd input rows (a
// realigning block must be whole warps), else the aligned one.
template <int TR, int NCH, int NT, int MB>
void fit_one(const async_case& c, bool odd, const async_env& env) {
  if (!odd) register_tile_one<TR, NCH, NT, MB, 1, 8>(c, env);
  else if constexpr (NT % 32 == 0) realign_fit_one<TR, NCH, NT, MB>(c, env);
}

// The fitted tile of 48 / 96 u8 rows (the session-8 table's first; 96 rows now take the last,
// best_tile_fit_for) and other thread mappings: 512-byte-wide tiles (32 chunks a row), 16 loads a
// thread, fewer threads.
template <int TR>
void gfit_case(const async_case& c, bool odd, const async_env& env) {
  if constexpr (TR == 48) {
    fit_one<48, 16, 96, 4>(c, odd, env);
    fit_one<48, 32, 96, 4>(c, odd, env);
    fit_one<48, 32, 192, 2>(c, odd, env);
    fit_one<48, 16, 48, 8>(c, odd, env);
  } else {
    fit_one<96, 16, 192, 2>(c, odd, env);
    fit_one<96, 32, 384, 1>(c, odd, env);
    fit_one<96, 32, 192, 2>(c, odd, env);
    fit_one<96, 16, 96, 4>(c, odd, env);
  }
}

// The grouped pipelined gather of side SS at slabs of 12-32 KiB (production kernel of the
// row's route: H, A), and for the shift form 2 and 3 load buffers.
template <int E, int SS, bool H, bool A>
void gslab_case(const async_case& c, const async_env& env) {
  for (int slab : {12288, 16384, 18432, 20480, 24576, 32768}) {
    if (H) {
      gpipe_one<E, SS, H, A>(c, env, slab, 2);
      gpipe_one<E, SS, H, A>(c, env, slab, 3);
    } else {
      gpipe_one<E, SS, H, A>(c, env, slab);
    }
  }
}

void gather_sweep(const async_env& env, int rounds) {
  const async_case g24o{24, 50177, 27}, g24a{24, 50176, 27}, g12a{12, 50176, 55}, g12o{12, 50177, 55};
  const async_case g8o{8, 50177, 83}, g8a{8, 50176, 83}, g16a{16, 50176, 41}, g32o{32, 50177, 20};
  const async_case f96o{96, 50177, 6}, f96a{96, 50176, 6}, f48a{48, 50176, 13}, f48o{48, 50177, 13};
  const async_case h5o{5, 50177, 66};
  auto both = [&](const async_case& c, int E) {
    routed_one("best", c, E, env);
    routed_one("best_next", c, E, env);
  };
  for (int round = 0; round < rounds; ++round) {
    std::printf("# round %d\n", round);
    both(g24o, 1);  // slab_gather_pipe/g24 (realigning pass)
    gslab_case<1, 24, false, false>(g24o, env);
    gslab_case<1, 24, true, false>(g24o, env);  // the shift kernel of 24 rows (not routed: session 6)
    // (No fitted tile or micro-block gather for 24 u8 rows: their output rows are off the 16-byte grid.)
    both(g24a, 1);
    gslab_case<1, 24, false, false>(g24a, env);
    both(g12a, 1);  // slab_gather_pipe/g12
    gslab_case<1, 12, false, false>(g12a, env);
    both(g12o, 1);  // slab_gather_pipe_shift/g12, lean
    gslab_case<1, 12, true, true>(g12o, env);
    both(g8o, 1);  // slab_gather_pipe_shift/g8, lean
    gslab_case<1, 8, true, true>(g8o, env);
    both(g8a, 1);
    gslab_case<1, 8, false, false>(g8a, env);
    both(g16a, 1);
    gslab_case<1, 16, false, false>(g16a, env);
    both(g32o, 1);
    gslab_case<1, 32, false, false>(g32o, env);
    both(h5o, 2);  // f16 slab_gather_pipe_shift/g5, lean
    gslab_case<2, 5, true, true>(h5o, env);
    for (const async_case& c : {f96o, f96a}) {
      both(c, 1);
      gfit_case<96>(c, c.C % 16 != 0, env);
    }
    for (const async_case& c : {f48a, f48o}) {
      both(c, 1);
      gfit_case<48>(c, c.C % 16 != 0, env);
    }
  }
}

// The u8 gathers below 0.85 after session 9 (`best_bench --gather10 [rounds]`, branch ga10): best,
// best_next (the candidates: best_gather_shift24_default, best_fit_deep48_default,
// best_fit_deep96r_default), each row's production kernel, the candidate's kernel and neighbours.
void gather10_sweep(const async_env& env, int rounds) {
  const async_case g24o{24, 50177, 27}, f96o{96, 50177, 6}, f48a{48, 50176, 13}, f48o{48, 50177, 13};
  const async_case g2o{2, 50177, 256};
  auto both = [&](const async_case& c) {
    routed_one("best", c, 1, env);
    routed_one("best_next", c, 1, env);
  };
  for (int round = 0; round < rounds; ++round) {
    std::printf("# round %d\n", round);
    both(g24o);
    gpipe_one<1, 24, false, false>(g24o, env, 16384);  // production: the realigning kernel, 16 KiB
    for (int slab : {20480, 24576, 32768}) gpipe_one<1, 24, true, false>(g24o, env, slab, 2);  // shift (24 KiB: candidate)
    both(f96o);
    realign_fit_one<96, 16, 192, 2>(f96o, env);  // production
    realign_fit_one<96, 16, 96, 4>(f96o, env);   // ga9's (spills 12 bytes)
    realign_fit_one<96, 16, 96, 5, 1, 8, true>(f96o, env);   // candidate (deep96r)
    realign_fit_one<96, 16, 96, 4, 1, 8, true>(f96o, env);   // (spills 8 bytes, sm_90)
    realign_fit_one<96, 16, 192, 2, 1, 8, true>(f96o, env);  // production geometry, XS
    both(f48a);
    register_tile_one<48, 16, 96, 4, 1, 8>(f48a, env);  // production
    register_tile_one<48, 16, 48, 6, 1, 8>(f48a, env);  // candidate (deep48)
    register_tile_one<48, 16, 48, 8, 1, 8>(f48a, env);  // ga9's (spills on sm_80)
    both(f48o);
    realign_fit_one<48, 16, 96, 4>(f48o, env);  // production
    realign_fit_one<48, 16, 96, 4, 1, 8, true>(f48o, env);
    both(g2o);  // slab_gather_pipe_shift/g2 (lean)
    gslab_case<1, 2, true, true>(g2o, env);
  }
}

// ---- 1-2 byte scatters below 0.85 (`best_bench --scatter [rounds]`, branch sc10) ----

// The direct scatter (best_direct.cuh) of side SS, DEPTH staging buffers, at `slab_bytes`
// slabs, launched as best.cu's direct_path does (resident blocks at that size's largest block,
// slabs balanced over the last round); odd HW too (its stores own whole chunks as the halo's).
template <int E, int SS, int DEPTH>
void scatter_direct_one(const async_case& c, const async_env& env, int slab_bytes) {
  namespace xd = xpose::detail;
  constexpr int nt = xd::best_slab_threads, minb = xd::best_scatter_direct_min_blocks(SS);
  auto kernel = xd::slab::direct_kernel<E, nt, SS, minb, DEPTH>;
  const int smem_max = xd::slab::direct_smem_max<E>(SS, slab_bytes, DEPTH);
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max));
  int occ = 0, dev = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, nt, smem_max));
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const xpose::matrix_desc d = xpose::matrix_desc::packed(c.R, c.C, E, c.B);
  const unsigned char* end = env.in + c.R * c.C * c.B * E;
  xd::slab::args a = xd::slab::make_direct_args<E>(env.in, env.out, d, end, slab_bytes, DEPTH);
  const long long n = static_cast<long long>(occ) * sms;
  const long long span = xd::best_pipe_span(a.span, a.L, a.batch, n, 16 / E);
  if (span < a.span)
    a = xd::slab::make_direct_args<E>(env.in, env.out, d, end, static_cast<int>((span + 16 / E) * a.S * E), DEPTH);
  const unsigned grid = static_cast<unsigned>(a.total < n ? a.total : n);
  char what[160];
  std::snprintf(what, sizeof what, "scatter direct side %d depth %d minb %d slab %d span %lld grid %u rounds %lld", SS,
                DEPTH, minb, slab_bytes, static_cast<long long>(a.span), grid,
                static_cast<long long>((a.total + grid - 1) / grid));
  async_report(what, c, occ, a.smem, [&] { kernel<<<grid, nt, a.smem, env.st>>>(a); }, env, E);
}

// One row of `best_bench --scatter`: best / best_next with their routes, then grouped side SS's
// pipelined kernel (H: the halo kernel, odd HW; else aligned rows) at slabs of 8-32 KiB, with a
// block per SM fewer, unbalanced, at 128 threads (the same registers),
// the direct kernel (sides up to 8) at depths 3 and 2, and (U) the unpipelined grouped kernel.
template <int E, int SS, bool H, bool U = false>
void scatter_tune_case(const async_case& c, const async_env& env) {
  namespace xd = xpose::detail;
  constexpr int minb = xd::best_pipe_min_blocks(E, false, SS, H);
  routed_one("best", c, E, env);
  routed_one("best_next", c, E, env);
  for (int sb : {8192, 10240, 12288, 14336, 16384, 18432, 20480, 24576, 28672, 32768})
    scatter_pipe_one<E, SS, 0, minb, H>(c, env, sb);
  for (int sb : {16384, 24576}) {
    scatter_pipe_one<E, SS, 0, minb, H>(c, env, sb, 1);
    scatter_pipe_one<E, SS, 0, minb, H>(c, env, sb, 0, false);
  }
  for (int sb : {8192, 12288, 16384}) scatter_pipe_one<E, SS, 0, 2 * minb, H, xd::best_slab_threads / 2>(c, env, sb);
  if constexpr (SS <= 8) {
    for (int sb : {12288, 16384, 20480, 24576}) scatter_direct_one<E, SS, 3>(c, env, sb);
    for (int sb : {16384, 24576}) scatter_direct_one<E, SS, 2>(c, env, sb);
  }
  if constexpr (U)
    for (int sb : {12288, 16384, 20480}) scatter_slab_one<E, SS>(c, env, sb);
}

// The HWxC rows below 0.85 of session 9's final sweep (issue 12) and aligned twins, `rounds`
// times over: what makes a scatter slab fast (slab size, rounds per block, blocks per SM, block
// size, the direct kernel; session 10 also ran each block's slabs in order, a kernel knob since
// removed: docs/RESULTS.md "Session 10: HWxC scatters").
void scatter_tune_sweep(const async_env& env, int rounds) {
  for (int round = 0; round < rounds; ++round) {
    std::printf("# round %d\n", round);
    scatter_tune_case<1, 4, true>({50177, 4, 167}, env);
    scatter_tune_case<1, 4, false>({50176, 4, 167}, env);
    scatter_tune_case<2, 4, true>({50177, 4, 83}, env);
    scatter_tune_case<2, 2, true, true>({50177, 2, 167}, env);
    scatter_tune_case<2, 6, true>({50177, 6, 55}, env);
    scatter_tune_case<2, 6, false>({50176, 6, 55}, env);
    scatter_tune_case<1, 6, true>({50177, 6, 111}, env);
    scatter_tune_case<1, 2, true, true>({50177, 2, 256}, env);
    scatter_tune_case<1, 12, true>({50177, 12, 55}, env);
    scatter_tune_case<1, 8, true>({50177, 8, 83}, env);
  }
}

void async_sweep(const async_env& env) {
  // Odd rows with aligned output rows (realign_async's cases): the sweep's shapes.
  const async_case u8odd{5760, 5761, 1}, f16odd{4096, 4097, 1};
  variant_one("best", u8odd, 1, env);
  variant_one("best_next", u8odd, 1, env);
  async_realign_one<1, 128, 16, 256, 5>(u8odd, env);  // production (best_tile_async_realign_for)
  variant_one("best", f16odd, 2, env);
  variant_one("best_next", f16odd, 2, env);
  async_realign_one<2, 64, 16, 256, 6>(f16odd, env);  // production
  // 1-byte squares: 32 MiB (tile_half's range), 64 MiB and 256 MiB (the tile's).
  for (const async_case c : {async_case{5760, 5760, 1}, async_case{8192, 8192, 1}, async_case{16384, 16384, 1}}) {
    variant_one("best", c, 1, env);
    variant_one("best_next", c, 1, env);
    register_tile_one<256, 16, 256, 2>(c, env);  // tile
    async_one<128, 16, 256, 8, 4, 1>(c, env);    // production (best_tile_async_for)
    async_one<256, 16, 256, 8, 3, 1>(c, env);
    async_one<256, 16, 256, 16, 2, 1>(c, env);
    async_one<64, 16, 128, 8, 8, 1>(c, env);
    async_one<128, 16, 256, 16, 2, 2>(c, env);  // 16 x 16-byte micro-blocks
  }
  const async_case b{64, 64, 8192};
  variant_one("best", b, 1, env);
  variant_one("best_next", b, 1, env);
  async_one<64, 4, 128, 8, 8, 4>(b, env);  // production
  async_one<64, 4, 64, 8, 16, 2>(b, env);
  async_one<64, 4, 64, 8, 12, 4>(b, env);
  async_one<64, 4, 128, 16, 4, 8>(b, env);  // 16 x 16-byte micro-blocks
  // 2-byte elements on the async tile (not routed): squares and 64 x 64 batches against best.
  for (const async_case c : {async_case{4096, 4096, 1}, async_case{16384, 8192, 1}}) {
    variant_one("best", c, 2, env);
    async_one<128, 16, 256, 16, 4, 1, 2>(c, env);
    async_one<64, 16, 256, 16, 4, 2, 2>(c, env);
  }
  const async_case b2{64, 64, 4096};
  variant_one("best", b2, 2, env);
  async_one<64, 8, 128, 16, 8, 2, 2>(b2, env);
  async_one<64, 8, 128, 16, 6, 4, 2>(b2, env);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  const bool skew_only = argc > 1 && std::string(argv[1]) == "--skew";
  const bool async_only = argc > 1 && std::string(argv[1]) == "--async";
  const bool sq_only = argc > 1 && std::string(argv[1]) == "--sq";  // [rounds]
  const bool sqw_only = argc > 1 && std::string(argv[1]) == "--sqw";  // [rounds]
  const bool wrows_only = argc > 1 && std::string(argv[1]) == "--wrows";  // [rounds]
  const bool fit_only = argc > 1 && std::string(argv[1]) == "--fit";  // [rounds]
  const bool slab_only = argc > 1 && std::string(argv[1]) == "--slab";  // [rounds]
  const bool gather_only = argc > 1 && std::string(argv[1]) == "--gather";  // [rounds]
  const bool gather10_only = argc > 1 && std::string(argv[1]) == "--gather10";  // [rounds]
  const bool scatter_only = argc > 1 && std::string(argv[1]) == "--scatter";  // [rounds]
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cublasHandle_t blas;
  cublasLtHandle_t lt;
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS || cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cuBLAS init failed\n");
    return 1;
  }
  cublasSetStream(blas, st);
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  std::printf("# device %s, %d SMs, L2 %d MB, CUDA driver %d, runtime %d\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20, drv, rt);

  const std::vector<dtype> dts = {{"i8", 1}, {"f16", 2}, {"f32", 4}, {"f64", 8}, {"c128", 16}};
  struct shape {
    const char* cls;
    long long r, c, b;
  };
  const long long big = 256ll << 20;  // bytes per buffer of the large cases
  size_t maxbytes = 0;
  std::vector<std::pair<dtype, shape>> cases;
  for (const dtype& d : dts) {
    const long long n = big / d.bytes;  // elements per buffer
    std::vector<shape> s = {
        {"square", 16384, n / 16384, 1},
        {"ragged", 16383, n / 16383 + 1, 1},
        {"tall32", n / 32, 32, 1},
        {"wide32", 32, n / 32, 1},
        {"rows3", 3, n / 3 + 1, 1},
        {"cols3", n / 3 + 1, 3, 1},
        {"vector1xN", 1, n, 1},
        {"batch64", 64, 64, n / 4096},
        {"tiny", 64, 64 * 16 / d.bytes, 1},     // 16 KiB
        {"tiny64K", 128, 128 * 4 / d.bytes, 1},  // 64 KiB
        {"batch10000x64x64", 64, 64, 10000},
    };
    if (d.bytes == 4) s.push_back({"skinny100000x32", 100000, 32, 1});
    if (d.bytes == 4) s.push_back({"skinny32x100000", 32, 100000, 1});
    if (d.bytes == 4) s.push_back({"skinny3x1000003", 3, 1000003, 1});
    if (d.bytes == 4) s.push_back({"ragged16383x16385", 16383, 16385, 1});
    for (auto& x : s) {
      if (quick && std::string(x.cls) != "square" && std::string(x.cls) != "tiny") continue;
      cases.push_back({d, x});
      maxbytes = std::max(maxbytes, static_cast<size_t>(x.r * x.c * x.b * d.bytes));
    }
  }
  unsigned char *in = nullptr, *out = nullptr;
  unsigned long long* dbad = nullptr;
  CK(cudaMalloc(&in, maxbytes));
  CK(cudaMalloc(&out, maxbytes));
  CK(cudaMalloc(&dbad, 8));
  if (async_only || sq_only || sqw_only || wrows_only || fit_only || slab_only || gather_only || gather10_only || scatter_only) {  // the 256 MiB square is in `cases`, so the buffers hold it
    fill_kernel<<<4096, 256>>>(in, maxbytes, 12345u, 1);
    unsigned char* scratch = nullptr;
    const size_t scratch_bytes = 2 * static_cast<size_t>(prop.l2CacheSize);
    CK(cudaMalloc(&scratch, scratch_bytes));
    CK(cudaDeviceSynchronize());
    if (sq_only) sq_sweep(async_env{in, out, scratch, scratch_bytes, st, dbad}, argc > 2 ? std::atoi(argv[2]) : 3);
    else if (sqw_only) sqw_sweep(async_env{in, out, scratch, scratch_bytes, st, dbad}, argc > 2 ? std::atoi(argv[2]) : 3);
    else if (slab_only) slab_sweep(async_env{in, out, scratch, scratch_bytes, st, dbad}, argc > 2 ? std::atoi(argv[2]) : 2);
    else if (wrows_only) wrows_sweep(async_env{in, out, scratch, scratch_bytes, st, dbad}, argc > 2 ? std::atoi(argv[2]) : 2);
    else if (fit_only) fit_sweep(async_env{in, out, scratch, scratch_bytes, st, dbad}, argc > 2 ? std::atoi(argv[2]) : 3);
    else if (gather_only) gather_sweep(async_env{in, out, scratch, scratch_bytes, st, dbad}, argc > 2 ? std::atoi(argv[2]) : 2);
    else if (gather10_only) gather10_sweep(async_env{in, out, scratch, scratch_bytes, st, dbad}, argc > 2 ? std::atoi(argv[2]) : 3);
    else if (scatter_only) scatter_tune_sweep(async_env{in, out, scratch, scratch_bytes, st, dbad}, argc > 2 ? std::atoi(argv[2]) : 3);
    else async_sweep(async_env{in, out, scratch, scratch_bytes, st, dbad});
    cudaFree(scratch);
    cudaFree(in);
    cudaFree(out);
    cudaFree(dbad);
    return 0;
  }
  if (skew_only) {  // the ragged case is in `cases`, so the buffers hold it
    fill_kernel<<<4096, 256>>>(in, maxbytes, 12345u, 1);
    CK(cudaDeviceSynchronize());
    skew_sweep(in, out, st, dbad);
    cudaFree(in);
    cudaFree(out);
    cudaFree(dbad);
    return 0;
  }
  int cur_fp = -1;

  std::printf("case,dtype,rows,cols,batch,route,median_us,min_us,max_us,gbs,ratio_to_memcpy,check\n");
  for (auto& cs : cases) {
    const dtype d = cs.first;
    const shape s = cs.second;
    const long long R = s.r, C = s.c, B = s.b;
    const size_t bytes = static_cast<size_t>(R * C * B) * d.bytes;
    const int fp = d.bytes == 1 ? 1 : d.bytes;  // i8: raw bytes; others are floats
    if (fp != cur_fp) {
      fill_kernel<<<4096, 256>>>(in, maxbytes, 12345u, fp);
      CK(cudaDeviceSynchronize());
      cur_fp = fp;
    }
    const bool tiny = bytes <= (64 << 10);
    const int warm = tiny ? 20 : 3, reps = tiny ? 15 : (bytes > (1u << 30) ? 10 : 20), inner = tiny ? 200 : 1;
    double memcpy_us = 0;
    auto report = [&](const char* route, const timing& t, const std::string& check) {
      if (!t.ok) {
        std::printf("%s,%s,%lld,%lld,%lld,%s,,,,,,%s\n", s.cls, d.name, R, C, B, route, check.c_str());
        return;
      }
      const double gbs = 2.0 * bytes / (t.med * 1e3);
      std::printf("%s,%s,%lld,%lld,%lld,%s,%.3f,%.3f,%.3f,%.1f,%.3f,%s\n", s.cls, d.name, R, C, B, route, t.med, t.mn,
                  t.mx, gbs, memcpy_us > 0 ? memcpy_us / t.med : 1.0, check.c_str());
      std::fflush(stdout);
    };
    auto checked = [&](const char* route, const std::function<bool()>& f) {
      CK(cudaMemset(out, 0xFF, bytes));
      if (!f()) {
        cudaGetLastError();
        report(route, timing{}, "n/a (call failed)");
        return;
      }
      CK(cudaStreamSynchronize(st));
      const unsigned long long bad = count_bad(in, out, R, C, B, d.bytes, dbad);
      if (bad) {
        report(route, timing{}, "FAIL " + std::to_string(bad) + " bad");
        return;
      }
      report(route, time_it(f, warm, reps, inner, st), "ok");
      if (tiny) {
        const std::string g = std::string(route) + "_graph";
        report(g.c_str(), time_graph(f, reps, inner, st), "ok");
      }
    };

    // The bar: the driver's copy of the same bytes.
    auto mcpy = [&] { return cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, st) == cudaSuccess; };
    {
      timing t = time_it(mcpy, warm, reps, inner, st);
      memcpy_us = t.med;
      report("memcpy", t, "-");
      if (tiny) report("memcpy_graph", time_graph(mcpy, reps, inner, st), "-");
    }
    const xpose::matrix_desc desc = xpose::matrix_desc::packed(R, C, d.bytes, B);
    checked("best", [&] { return xpose::transpose_variant("best", in, out, desc, {}, st).ok(); });
    if (bytes >= (64 << 20) || tiny)
      checked("tiled_padded", [&] { return xpose::transpose_variant("tiled_padded", in, out, desc, {}, st).ok(); });

    // cuBLAS geam: row-major R x C input = column-major C x R (lda = C); output column-major R x C.
    if (B == 1 && (d.bytes == 4 || d.bytes == 8 || d.bytes == 16)) {
      checked("cublas_geam", [&] {
        cublasStatus_t r = CUBLAS_STATUS_NOT_SUPPORTED;
        const int m = static_cast<int>(R), n = static_cast<int>(C);
        if (d.bytes == 4) {
          const float one = 1, zero = 0;
          r = cublasSgeam(blas, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, (const float*)in, n, &zero, (const float*)out, m,
                          (float*)out, m);
        } else if (d.bytes == 8) {
          const double one = 1, zero = 0;
          r = cublasDgeam(blas, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, (const double*)in, n, &zero,
                          (const double*)out, m, (double*)out, m);
        } else {
          const cuDoubleComplex one = {1, 0}, zero = {0, 0};
          r = cublasZgeam(blas, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, (const cuDoubleComplex*)in, n, &zero,
                          (const cuDoubleComplex*)out, m, (cuDoubleComplex*)out, m);
        }
        return r == CUBLAS_STATUS_SUCCESS;
      });
    }
    // cublasLtMatrixTransform (f16, i8, f32), batched through the layouts' batch attributes.
    if (d.bytes <= 4 && R < (1ll << 31) && C < (1ll << 31)) {
      const cudaDataType ty = d.bytes == 1 ? CUDA_R_8I : d.bytes == 2 ? CUDA_R_16F : CUDA_R_32F;
      cublasLtMatrixTransformDesc_t td = nullptr;
      cublasLtMatrixLayout_t la = nullptr, lc = nullptr;
      bool ok = cublasLtMatrixTransformDescCreate(&td, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS;
      const cublasOperation_t opT = CUBLAS_OP_T;
      ok = ok && cublasLtMatrixTransformDescSetAttribute(td, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, &opT, sizeof opT) ==
                     CUBLAS_STATUS_SUCCESS;
      ok = ok && cublasLtMatrixLayoutCreate(&la, ty, C, R, C) == CUBLAS_STATUS_SUCCESS;
      ok = ok && cublasLtMatrixLayoutCreate(&lc, ty, R, C, R) == CUBLAS_STATUS_SUCCESS;
      if (ok && B > 1) {
        const int bc = static_cast<int>(B);
        const long long so = R * C;
        ok = cublasLtMatrixLayoutSetAttribute(la, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc, sizeof bc) == 0 &&
             cublasLtMatrixLayoutSetAttribute(lc, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc, sizeof bc) == 0 &&
             cublasLtMatrixLayoutSetAttribute(la, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &so, sizeof so) == 0 &&
             cublasLtMatrixLayoutSetAttribute(lc, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &so, sizeof so) == 0;
      }
      if (ok) {
        checked("cublaslt_transform", [&] {
          const float one = 1, zero = 0;
          return cublasLtMatrixTransform(lt, td, &one, in, la, &zero, nullptr, nullptr, out, lc, st) ==
                 CUBLAS_STATUS_SUCCESS;
        });
      } else {
        report("cublaslt_transform", timing{}, "n/a (descriptor)");
      }
      if (la) cublasLtMatrixLayoutDestroy(la);
      if (lc) cublasLtMatrixLayoutDestroy(lc);
      if (td) cublasLtMatrixTransformDescDestroy(td);
    }
  }
  if (!quick) {
    std::printf("# sweep: tile kernel, square 256 MiB, grid persistent|full x hint 0|1\n");
    const int sms = prop.multiProcessorCount;
    for (int fg = 0; fg < 2; ++fg) {
      sweep_one<1, 0>(in, out, st, sms, fg), sweep_one<1, 1>(in, out, st, sms, fg);
      sweep_one<2, 0>(in, out, st, sms, fg), sweep_one<2, 1>(in, out, st, sms, fg);
      sweep_one<4, 0>(in, out, st, sms, fg), sweep_one<4, 1>(in, out, st, sms, fg);
      sweep_one<8, 0>(in, out, st, sms, fg), sweep_one<8, 1>(in, out, st, sms, fg);
      sweep_one<16, 0>(in, out, st, sms, fg), sweep_one<16, 1>(in, out, st, sms, fg);
    }
  }
  cublasDestroy(blas);
  cublasLtDestroy(lt);
  cudaFree(in);
  cudaFree(out);
  cudaFree(dbad);
  return 0;
}

