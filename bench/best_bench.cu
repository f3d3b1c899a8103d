// best_bench: xpose `best` against cudaMemcpyAsync (same bytes), cuBLAS geam
// (f32/f64/c64/c128) and cublasLtMatrixTransform (f16/i8, f32) on a fixed set of large,
// ragged, skinny, batched and tiny shapes. Every route's output is checked on the GPU
// against the definition before it is timed; a route that fails its check or its call
// prints FAIL / n/a.
//   best_bench [--quick]
//   best_bench --route ROW E ROWSxCOLS[xBATCH] [ROUNDS]
// --route measures one row of the route table (src/cuda/route_table.hpp; ROW: its name or
// index, `best_bench --route list` prints them) against the route the table takes: the row's
// route is forced on the packed layout (launch_best_route), whether its condition holds or not,
// and timed beside memcpy and `best`, ROUNDS times.
// Output: one CSV line per (case, route) on stdout:
//   case,dtype,rows,cols,batch,route,median_us,min_us,max_us,gbs,ratio_to_memcpy,check
// GB/s are decimal and count bytes read + written (2 * batch*rows*cols*elem).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <xpose/xpose.hpp>
#include <xpose/registry.hpp>

#include "../src/cuda/best_launch.hpp"
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


// `--route ROW E ROWSxCOLS[xBATCH] [ROUNDS]`: memcpy, `best` and table row ROW's route forced on
// the packed layout, each checked, then timed, ROUNDS times (one CSV line per round and route).
int route_mode(int argc, char** argv, cudaStream_t st) {
  namespace xd = xpose::detail;
  if (argc > 2 && std::string(argv[2]) == "list") {
    for (int i = 0; i < xd::route_row_count; ++i)
      std::printf("%d\t%s\t%s\n", i, xd::route_rows()[i].name, xd::route_rows()[i].section);
    return 0;
  }
  long long R = 0, C = 0, B = 1;
  const int E = argc > 3 ? std::atoi(argv[3]) : 0;
  if (argc < 5 || std::sscanf(argv[4], "%lldx%lldx%lld", &R, &C, &B) < 2 || R < 1 || C < 1 || B < 1 ||
      (E != 1 && E != 2 && E != 4 && E != 8 && E != 16)) {
    std::fprintf(stderr, "usage: best_bench --route ROW|list E ROWSxCOLS[xBATCH] [ROUNDS]\n");
    return 2;
  }
  int row = -1;
  for (int i = 0; i < xd::route_row_count; ++i)
    if (std::string(argv[2]) == xd::route_rows()[i].name || std::string(argv[2]) == std::to_string(i)) row = i;
  if (row < 0) {
    std::fprintf(stderr, "best_bench: no table row %s (best_bench --route list)\n", argv[2]);
    return 2;
  }
  const int rounds = argc > 5 ? std::atoi(argv[5]) : 3;
  const xpose::matrix_desc d = xpose::matrix_desc::packed(R, C, E, B);
  const size_t bytes = static_cast<size_t>(R * C * B) * E;
  unsigned char *in = nullptr, *out = nullptr;
  unsigned long long* dbad = nullptr;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&out, bytes));
  CK(cudaMalloc(&dbad, 8));
  fill_kernel<<<4096, 256>>>(in, bytes, 12345u, E == 1 ? 1 : E);
  CK(cudaDeviceSynchronize());
  int dev = 0, major = 0, minor = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  CK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  const xd::route_facts f = xd::route_facts_for(d, reinterpret_cast<std::uintptr_t>(in),
                                                reinterpret_cast<std::uintptr_t>(out), major * 10 + minor);
  const xd::route taken = xd::route_for(f);
  xd::route forced = xd::route_rows()[row].make(f);
  forced.row = row;
  std::printf("# table row %d (%s) for this layout; forced row %d (%s, %s), its condition %s\n", taken.row,
              xd::best_path_name(taken.path), row, xd::route_rows()[row].name, xd::best_path_name(forced.path),
              xd::route_rows()[row].when(f) ? "holds" : "does not hold");
  const bool tiny = bytes <= (64 << 10);
  const int warm = tiny ? 20 : 3, reps = tiny ? 15 : 20, inner = tiny ? 200 : 1;
  std::printf("case,dtype,rows,cols,batch,route,median_us,min_us,max_us,gbs,ratio_to_memcpy,check\n");
  const std::string name = "row" + std::to_string(row);
  for (int round = 0; round < rounds; ++round) {
    auto mcpy = [&] { return cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, st) == cudaSuccess; };
    const timing m = time_it(mcpy, warm, reps, inner, st);
    auto line = [&](const char* route, const timing& t, const char* check) {
      if (!t.ok) return (void)std::printf("%s,E%d,%lld,%lld,%lld,%s,,,,,,%s\n", name.c_str(), E, R, C, B, route, check);
      std::printf("%s,E%d,%lld,%lld,%lld,%s,%.3f,%.3f,%.3f,%.1f,%.3f,%s\n", name.c_str(), E, R, C, B, route, t.med,
                  t.mn, t.mx, 2.0 * bytes / (t.med * 1e3), m.med / t.med, check);
    };
    line("memcpy", m, "-");
    const std::pair<const char*, const xd::route*> runs[] = {{"best", nullptr}, {xd::best_path_name(forced.path), &forced}};
    for (const auto& [label, r] : runs) {
      auto call = [&, r = r] { return xd::launch_best_route(in, out, d, r, st).ok(); };
      CK(cudaMemset(out, 0xFF, bytes));
      if (!call()) {
        cudaGetLastError();
        line(label, timing{}, "n/a (launch failed)");
        continue;
      }
      CK(cudaStreamSynchronize(st));
      const unsigned long long bad = count_bad(in, out, R, C, B, E, dbad);
      line(label, bad ? timing{} : time_it(call, warm, reps, inner, st), bad ? "FAIL" : "ok");
    }
    std::fflush(stdout);
  }
  cudaFree(in);
  cudaFree(out);
  cudaFree(dbad);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  if (argc > 2 && std::string(argv[1]) == "--route" && std::string(argv[2]) == "list") return route_mode(argc, argv, nullptr);
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  if (argc > 1 && std::string(argv[1]) == "--route") return route_mode(argc, argv, st);
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
  cublasDestroy(blas);
  cublasLtDestroy(lt);
  cudaFree(in);
  cudaFree(out);
  cudaFree(dbad);
  return 0;
}

