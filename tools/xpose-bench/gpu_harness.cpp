// GPU harness: for each case and variant, poison the output with 0xFF, run once,
// compare bitwise with the CPU reference (a wrong variant is not timed), then time
// warm-ups + repetitions with CUDA events. Working sets under 4x L2 get the L2
// flushed (a 2xL2 scratch write) before every timed repetition.
#include <algorithm>
#include <dlfcn.h>
#include <cstring>
#include <random>
#include <string>

#include "bench.hpp"

#if defined(XPOSE_HAS_CUDA)
#include <cuda_runtime.h>

namespace xbench {
namespace {

std::string cuda_msg(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

#define BENCH_CUDA(x)                                                                              \
  do {                                                                                             \
    const cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) usage_error(std::string(#x) + " failed: " + cuda_msg(e_));              \
  } while (0)

struct device_buffer {
  unsigned char* p = nullptr;
  explicit device_buffer(size_t n) { BENCH_CUDA(cudaMalloc(&p, n ? n : 1)); }
  ~device_buffer() { cudaFree(p); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};

std::vector<unsigned char> random_input(size_t n, std::uint64_t seed) {
  std::vector<unsigned char> v(n);
  std::mt19937_64 g(seed);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const std::uint64_t x = g();
    std::memcpy(v.data() + i, &x, 8);
  }
  for (; i < n; ++i) v[i] = static_cast<unsigned char>(g());
  return v;
}

// The first element where got differs from want, as "flat index i (row r, col c)"
// of the output layout; "" when identical.
std::string first_bad(const std::vector<unsigned char>& got, const std::vector<unsigned char>& want,
                      const case_spec& c, bool transposed) {
  const size_t es = static_cast<size_t>(c.dtype.bytes);
  const index_t n = c.rows * c.cols * c.batch;
  for (index_t i = 0; i < n; ++i)
    if (std::memcmp(got.data() + static_cast<size_t>(i) * es, want.data() + static_cast<size_t>(i) * es, es) != 0) {
      const index_t per = c.rows * c.cols, b = i / per, k = i % per;
      const index_t ocols = transposed ? c.rows : c.cols;
      return "first mismatch at flat index " + std::to_string(i) + " (batch " + std::to_string(b) + ", row " +
             std::to_string(k / ocols) + ", col " + std::to_string(k % ocols) + ")";
    }
  return "";
}

}  // namespace

bool gpu_usable(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    // Without a driver the runtime reports "driver version is insufficient": say
    // what is actually missing when libcuda cannot be loaded at all.
    void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (driver == nullptr) driver = dlopen("libcuda.so.1", RTLD_LAZY);
    if (driver == nullptr) *why = "no CUDA driver: libcuda.so.1 not found";
    else *why = cuda_msg(e);
    if (driver != nullptr) dlclose(driver);
    return false;
  }
  if (n == 0) {
    *why = "no CUDA device";
    return false;
  }
  return true;
}

long long gpu_free_bytes() {
  size_t f = 0, t = 0;
  return cudaMemGetInfo(&f, &t) == cudaSuccess ? static_cast<long long>(f) : 0;
}

long long gpu_l2_bytes() {
  int dev = 0, l2 = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
  return l2;
}

int run_gpu(const options& o, std::vector<row>& rows, run_meta& meta) {
  BENCH_CUDA(cudaSetDevice(o.device));
  cudaDeviceProp prop{};
  BENCH_CUDA(cudaGetDeviceProperties(&prop, o.device));
  int mem_khz = 0, bus_bits = 0, drv = 0, rt = 0;
  cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, o.device);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, o.device);
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  meta.backend = "gpu";
  meta.device = prop.name;
  meta.cc = prop.major * 10 + prop.minor;
  meta.l2_bytes = prop.l2CacheSize;
  meta.driver = "CUDA driver API " + std::to_string(drv / 1000) + "." + std::to_string(drv % 1000 / 10);
  meta.runtime = std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10);
  if (o.peak_gbs > 0) {
    meta.peak_gbs = o.peak_gbs;
    meta.peak_source = "--peak-gbs";
  } else {
    // DDR: two transfers per clock; bus width in bits.
    meta.peak_gbs = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    meta.peak_source = "memory clock " + std::to_string(mem_khz / 1000) + " MHz x " + std::to_string(bus_bits) +
                       "-bit bus x 2 (DDR)";
  }

  // Which variants: the registry's ladder order, or the user's list.
  std::vector<const xpose::variant_info*> list;
  if (o.variants.empty()) {
    for (const auto& v : xpose::variants())
      list.push_back(&v);  // the whole ladder and the fast path
  } else {
    for (const auto& n : o.variants) list.push_back(xpose::find_variant(n));
  }
  // The ratios need copy (same block shape) and memcpy in the same run.
  auto has = [&](const char* n) {
    return std::any_of(list.begin(), list.end(), [&](auto* v) { return std::string(v->name) == n; });
  };
  if (!has("copy")) list.insert(list.begin(), xpose::find_variant("copy"));
  if (!has("memcpy")) list.insert(list.begin(), xpose::find_variant("memcpy"));

  // Preflight: every case must fit before anything runs.
  const long long l2 = prop.l2CacheSize;
  const long long free_b = gpu_free_bytes();
  for (const case_spec& c : o.cases) {
    const double need = bytes_moved(c) + 2.0 * static_cast<double>(l2) + (64 << 20);
    if (need > static_cast<double>(free_b))
      usage_error("size " + c.label() + " needs " + std::to_string(static_cast<long long>(need / 1e6)) +
                  " MB of GPU memory, the device has " + std::to_string(free_b / 1000000) + " MB free");
  }

  cudaEvent_t start, stop;
  BENCH_CUDA(cudaEventCreate(&start));
  BENCH_CUDA(cudaEventCreate(&stop));
  cudaStream_t stream;
  BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const bool show_progress = o.cases.size() > 1 && isatty_stderr();
  int rc = 0;
  bool any_flush = false, any_big = false;
  for (size_t ci = 0; ci < o.cases.size(); ++ci) {
    const case_spec& c = o.cases[ci];
    if (show_progress) progress(ci, o.cases.size(), c.label());
    const size_t es = static_cast<size_t>(c.dtype.bytes);
    const size_t n = static_cast<size_t>(c.rows * c.cols * c.batch) * es;
    const xpose::matrix_desc d = xpose::matrix_desc::packed(c.rows, c.cols, c.dtype.bytes, c.batch);
    std::vector<row> case_rows;
    if (n == 0) {
      for (auto* v : list) {
        row r;
        r.variant = v->name;
        r.backend = "gpu";
        r.spec = c;
        r.block = v->uses_block_shape ? std::to_string(o.block.block_x) + "x" + std::to_string(o.block.block_y) : "-";
        r.check = "exact (empty)";
        r.exact = true;
        case_rows.push_back(r);
      }
      rows.insert(rows.end(), case_rows.begin(), case_rows.end());
      continue;
    }
    const bool flush = 2.0 * static_cast<double>(n) < 4.0 * static_cast<double>(l2);
    (flush ? any_flush : any_big) = true;
    device_buffer din(n), dout(n), scratch(flush ? static_cast<size_t>(2 * l2) : 1);
    const auto in = random_input(n, 0x9E3779B97F4A7C15ull ^ n);
    std::vector<unsigned char> transposed(n), got(n);
    if (const xpose::status rs = xpose::transpose_reference(in.data(), transposed.data(), d); !rs.ok())
      usage_error("the reference rejected " + c.label() + ": " + rs.message());
    BENCH_CUDA(cudaMemcpy(din.p, in.data(), n, cudaMemcpyHostToDevice));

    for (auto* v : list) {
      row r;
      r.variant = v->name;
      r.backend = "gpu";
      r.spec = c;
      r.block = v->uses_block_shape ? std::to_string(o.block.block_x) + "x" + std::to_string(o.block.block_y) : "-";
      if (!xpose::supports_elem_size(*v, c.dtype.bytes) || meta.cc < v->min_cc) {
        r.check = "unsupported here";
        case_rows.push_back(r);
        continue;
      }
      auto launch = [&] { return xpose::transpose_variant(v->name, din.p, dout.p, d, o.block, stream); };
      // 1. Correct before timed: poison, run once, compare every element bitwise.
      BENCH_CUDA(cudaMemsetAsync(dout.p, 0xFF, n, stream));
      xpose::status s = launch();
      const cudaError_t e = cudaStreamSynchronize(stream);
      if (!s.ok() || e != cudaSuccess) {
        r.check = "FAILED: " + std::string(s.ok() ? cuda_msg(e) : s.message());
        rc = 1;
        case_rows.push_back(r);
        if (e != cudaSuccess) usage_error("CUDA error, cannot continue: " + cuda_msg(e));
        continue;
      }
      BENCH_CUDA(cudaMemcpy(got.data(), dout.p, n, cudaMemcpyDeviceToHost));
      const std::string bad = first_bad(got, v->transposes ? transposed : in, c, v->transposes);
      if (!bad.empty()) {
        r.check = "FAILED: " + bad;
        rc = 1;
        case_rows.push_back(r);
        continue;
      }
      r.exact = true;
      r.check = "exact";
      // 2. Time: warm-ups, then one event pair per repetition.
      // The same call was checked above; timed runs are identical launches.
      for (int i = 0; i < o.warmup; ++i) (void)launch();
      for (int i = 0; i < o.reps; ++i) {
        if (flush) BENCH_CUDA(cudaMemsetAsync(scratch.p, i & 0xFF, static_cast<size_t>(2 * l2), stream));
        BENCH_CUDA(cudaEventRecord(start, stream));
        (void)launch();
        BENCH_CUDA(cudaEventRecord(stop, stream));
        BENCH_CUDA(cudaEventSynchronize(stop));
        float ms = 0;
        BENCH_CUDA(cudaEventElapsedTime(&ms, start, stop));
        r.samples_ms.push_back(ms);
      }
      BENCH_CUDA(cudaGetLastError());
      r.timed = true;
      summarize(r);
      case_rows.push_back(r);
    }
    fill_ratios(case_rows, "copy", "memcpy", meta.peak_gbs);
    rows.insert(rows.end(), case_rows.begin(), case_rows.end());
  }
  if (show_progress) progress_done();
  meta.cache_note = std::string(any_big ? "working sets >= 4x L2 are not flushed" : "") +
                    (any_big && any_flush ? "; " : "") +
                    (any_flush ? "working sets < 4x L2: L2 flushed (2x L2 scratch write) before every timed rep" : "");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  return rc;
}

}  // namespace xbench

#else  // built without CUDA

namespace xbench {
bool gpu_usable(std::string* why) {
  *why = "xpose was built without CUDA";
  return false;
}
long long gpu_free_bytes() { return 0; }
long long gpu_l2_bytes() { return 0; }
int run_gpu(const options&, std::vector<row>&, run_meta&) { usage_error("no GPU backend in this build"); }
}  // namespace xbench

#endif
