// interleave_bench: the register-interleave slab kernel (src/cuda/best_interleave.cuh)
// at other geometries than the table's (best_geom.hpp), on the sweep's channel-shuffle cases
// (batch x C x 50176 and back, 32 MiB per buffer), against cudaMemcpyAsync of the same
// bytes and the registered variant best, in one run. L2 is flushed before
// every timed call; every output is checked bitwise against the CPU reference.
// Output, one line per (case, route):
//   case,route,median_us,GB/s,ratio_to_memcpy,check
#include <cuda_runtime.h>
#include <xpose/registry.hpp>
#include <xpose/xpose.hpp>

#include "../src/cuda/best_interleave.cuh"
#include "../src/cuda/best_geom.hpp"
#include "bench_util.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace xpose::detail;

struct bench {
  unsigned char *in = nullptr, *out = nullptr, *flush = nullptr;
  std::size_t flush_bytes = 0;
  cudaStream_t st{};
  std::vector<unsigned char> host_in, want;
  xpose::matrix_desc d{};
  std::string name;
  double memcpy_us = 0;

  // Median of 11 calls, each after writing twice the L2 (so both buffers start in DRAM).
  double time_us(const std::function<void()>& f) { return flushed_us(f, flush, flush_bytes, st, 1, 11); }

  bool exact() {
    std::vector<unsigned char> got(want.size());
    CK(cudaMemcpy(got.data(), out, got.size(), cudaMemcpyDeviceToHost));
    return std::memcmp(got.data(), want.data(), want.size()) == 0;
  }

  void report(const std::string& route, const std::function<void()>& f) {
    CK(cudaMemset(out, 0xFF, want.size()));
    f();
    CK(cudaStreamSynchronize(st));
    CK(cudaGetLastError());
    const bool ok = exact();
    const double us = time_us(f);
    const double bytes = 2.0 * static_cast<double>(want.size());
    std::printf("%s,%s,%.2f,%.1f,%.3f,%s\n", name.c_str(), route.c_str(), us, bytes / (us * 1e3),
                memcpy_us > 0 ? memcpy_us / us : 1.0, ok ? "exact" : "FAIL");
    std::fflush(stdout);
  }
};

// The kernel for C rows at U units per lane, NT threads, TPW warp tiles per warp (Any:
// the realigning gather, for HW = 50177).
template <int E, int C, bool Gather, int U, int NT, int TPW, bool Any>
void geometry(bench& b) {
  constexpr auto kernel = ilv::interleave_kernel<E, C, U, Gather, NT, Any>;
  constexpr int smem = NT / 32 * ilv::shape<E, C, U>::stage_bytes;
  const ilv::args a = ilv::make_args<E>(Gather, b.in, b.out, b.d, b.in + b.want.size(), U, Any);
  if (smem > 48 * 1024) CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const long long per_block = NT / 32 * TPW;  // warp tiles per block
  const unsigned grid = static_cast<unsigned>((a.total + per_block - 1) / per_block);
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, NT, smem));
  char route[96];
  std::snprintf(route, sizeof route, "U=%d NT=%d TPW=%d (occ %d smem %d)", U, NT, TPW, occ, smem);
  b.report(route, [&] { kernel<<<grid, NT, smem, b.st>>>(a); });
}

template <int E, int C, bool Gather, long long hw = 50176>
void one_case(bench& b, const char* dtype) {
  constexpr bool Any = hw * E % 16 != 0;
  const long long batch = std::min<long long>(256, (32ll << 20) / (C * hw * E));
  b.d = Gather ? xpose::matrix_desc::packed(C, hw, E, batch) : xpose::matrix_desc::packed(hw, C, E, batch);
  b.name = std::to_string(batch) + "x" + (Gather ? std::to_string(C) + "x" + std::to_string(hw)
                                                 : std::to_string(hw) + "x" + std::to_string(C)) +
           " " + dtype;
  const std::size_t n = static_cast<std::size_t>(C * hw * batch * E);
  b.host_in.resize(n);
  std::mt19937 rng(static_cast<unsigned>(C * 7 + E));
  for (auto& x : b.host_in) x = static_cast<unsigned char>(rng());
  b.want.assign(n, 0);
  if (!xpose::transpose_reference(b.host_in.data(), b.want.data(), b.d).ok()) std::exit(1);
  CK(cudaMemcpy(b.in, b.host_in.data(), n, cudaMemcpyHostToDevice));
  b.memcpy_us = 0;
  b.memcpy_us = b.time_us([&] { CK(cudaMemcpyAsync(b.out, b.in, n, cudaMemcpyDeviceToDevice, b.st)); });
  std::printf("%s,memcpy,%.2f,%.1f,1.000,-\n", b.name.c_str(), b.memcpy_us, 2.0 * n / (b.memcpy_us * 1e3));
  b.report("best", [&] {
    if (!xpose::transpose_variant("best", b.in, b.out, b.d, {32, 8}, b.st).ok()) std::exit(1);
  });
  constexpr int U = best_interleave_units(C), NT = best_interleave_threads(C);
  geometry<E, C, Gather, U, NT, 1, Any>(b);  // the table's
  geometry<E, C, Gather, U, NT, 4, Any>(b);  // fewer, longer-lived blocks
  geometry<E, C, Gather, U * 2, NT, 1, Any>(b);
  if constexpr (U > 1) geometry<E, C, Gather, U / 2, NT, 1, Any>(b);
  geometry<E, C, Gather, U, 2 * NT, 1, Any>(b);
}

}  // namespace

int main() {
  bench b;
  const std::size_t buf = 32u << 20;
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  b.flush_bytes = 2 * static_cast<std::size_t>(l2);
  CK(cudaMalloc(&b.in, buf));
  CK(cudaMalloc(&b.out, buf));
  CK(cudaMalloc(&b.flush, b.flush_bytes));
  CK(cudaStreamCreateWithFlags(&b.st, cudaStreamNonBlocking));
  std::printf("case,route,median_us,GB/s,ratio_to_memcpy,check\n");
  one_case<4, 2, true>(b, "f32");
  one_case<4, 3, true>(b, "f32");
  one_case<4, 4, true>(b, "f32");
  one_case<4, 8, true>(b, "f32");
  one_case<4, 16, true>(b, "f32");
  one_case<4, 24, true>(b, "f32");
  one_case<8, 2, true>(b, "f64");
  one_case<8, 3, true>(b, "f64");
  one_case<8, 24, true>(b, "f64");
  one_case<4, 3, true, 50177>(b, "f32");
  one_case<4, 8, true, 50177>(b, "f32");
  one_case<8, 3, true, 50177>(b, "f64");
  one_case<4, 3, false>(b, "f32");
  one_case<8, 4, false>(b, "f64");
  return 0;
}
