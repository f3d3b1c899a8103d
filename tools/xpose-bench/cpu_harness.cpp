// CPU harness: the fast CPU backend against a memcpy of the same bytes (threaded
// like the transpose), a naive loop, and OpenBLAS ?omatcopy where it is built in.
// Same rules as the GPU: checked bitwise against the reference before timing.
#include <algorithm>
#include <chrono>
#include <functional>
#include <cstring>
#include <random>

#include <omp.h>

#include "bench.hpp"

#if defined(XPOSE_HAVE_OPENBLAS)
#include <cblas.h>
#endif

namespace xbench {
namespace {

using clock_type = std::chrono::steady_clock;

// Finite values for floating types (BLAS peers multiply by alpha = 1, which would
// quiet NaN payloads); random bytes otherwise.
std::vector<unsigned char> cpu_input(const case_spec& c, size_t n) {
  std::vector<unsigned char> v(n);
  std::mt19937_64 g(42);
  if (c.dtype.floating && (c.dtype.bytes == 4 || c.dtype.bytes == 8 || c.dtype.bytes == 16)) {
    if (c.dtype.bytes == 4 || (c.dtype.bytes == 8 && c.dtype.name == "c64")) {
      for (size_t i = 0; i + 4 <= n; i += 4) {
        const float f = static_cast<float>(static_cast<std::int32_t>(g() % 2000001) - 1000000) / 7.0f;
        std::memcpy(v.data() + i, &f, 4);
      }
    } else {
      for (size_t i = 0; i + 8 <= n; i += 8) {
        const double x = static_cast<double>(static_cast<std::int64_t>(g() % 2000001) - 1000000) / 7.0;
        std::memcpy(v.data() + i, &x, 8);
      }
    }
    return v;
  }
  for (auto& b : v) b = static_cast<unsigned char>(g());
  return v;
}

void threaded_memcpy(void* dst, const void* src, size_t n, int threads) {
  const size_t chunk = ((n / static_cast<size_t>(threads)) + 4095) & ~size_t{4095};
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    const size_t lo = std::min(n, chunk * static_cast<size_t>(t)), hi = std::min(n, lo + chunk);
    if (hi > lo) std::memcpy(static_cast<char*>(dst) + lo, static_cast<const char*>(src) + lo, hi - lo);
  }
}

// The textbook loop: one thread, element by element, strided writes.
template <class T>
void naive_loop(const T* in, T* out, index_t rows, index_t cols, index_t batch) {
  for (index_t b = 0; b < batch; ++b)
    for (index_t r = 0; r < rows; ++r)
      for (index_t c = 0; c < cols; ++c) out[b * rows * cols + c * rows + r] = in[b * rows * cols + r * cols + c];
}

void naive_any(const void* in, void* out, const case_spec& c) {
  switch (c.dtype.bytes) {
    case 1: naive_loop(static_cast<const std::uint8_t*>(in), static_cast<std::uint8_t*>(out), c.rows, c.cols, c.batch); break;
    case 2: naive_loop(static_cast<const std::uint16_t*>(in), static_cast<std::uint16_t*>(out), c.rows, c.cols, c.batch); break;
    case 4: naive_loop(static_cast<const std::uint32_t*>(in), static_cast<std::uint32_t*>(out), c.rows, c.cols, c.batch); break;
    case 8: naive_loop(static_cast<const std::uint64_t*>(in), static_cast<std::uint64_t*>(out), c.rows, c.cols, c.batch); break;
    default: {
      struct e16 { std::uint64_t a, b; };
      naive_loop(static_cast<const e16*>(in), static_cast<e16*>(out), c.rows, c.cols, c.batch);
    }
  }
}

#if defined(XPOSE_HAVE_OPENBLAS)
// OpenBLAS's out-of-place scaled transpose for the types it has; false if none.
bool openblas_supports(const case_spec& c) {
  return (c.dtype.name == "f32" || c.dtype.name == "f64" || c.dtype.name == "c64" || c.dtype.name == "c128");
}
void openblas_run(const void* in, void* out, const case_spec& c) {
  const auto R = static_cast<blasint>(c.rows), C = static_cast<blasint>(c.cols);
  const size_t per = static_cast<size_t>(c.rows * c.cols) * static_cast<size_t>(c.dtype.bytes);
  for (index_t b = 0; b < c.batch; ++b) {
    const auto* s = static_cast<const char*>(in) + per * static_cast<size_t>(b);
    auto* d = static_cast<char*>(out) + per * static_cast<size_t>(b);
    if (c.dtype.name == "f32")
      cblas_somatcopy(CblasRowMajor, CblasTrans, R, C, 1.0f, reinterpret_cast<const float*>(s), C, reinterpret_cast<float*>(d), R);
    else if (c.dtype.name == "f64")
      cblas_domatcopy(CblasRowMajor, CblasTrans, R, C, 1.0, reinterpret_cast<const double*>(s), C, reinterpret_cast<double*>(d), R);
    else if (c.dtype.name == "c64") {
      const float one[2] = {1.0f, 0.0f};
      cblas_comatcopy(CblasRowMajor, CblasTrans, R, C, one, reinterpret_cast<const float*>(s), C, reinterpret_cast<float*>(d), R);
    } else {
      const double one[2] = {1.0, 0.0};
      cblas_zomatcopy(CblasRowMajor, CblasTrans, R, C, one, reinterpret_cast<const double*>(s), C, reinterpret_cast<double*>(d), R);
    }
  }
}
#endif

}  // namespace

int run_cpu(const options& o, std::vector<row>& rows, run_meta& meta) {
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  meta.backend = "cpu";
  meta.threads = threads;
  meta.device = "CPU, " + std::to_string(threads) + " threads (OpenMP)";
  meta.cache_note = "CPU: buffers are not flushed from cache; use sizes well beyond the last-level cache";
  struct cpu_variant {
    std::string name;
    bool transposes;
  };
  std::vector<cpu_variant> list;
  const std::vector<std::string> all = {"memcpy", "naive_loop", "xpose_cpu"
#if defined(XPOSE_HAVE_OPENBLAS)
                                        , "openblas"
#endif
  };
  for (const auto& n : o.variants.empty() ? all : o.variants) list.push_back({n, n != "memcpy"});
  if (std::none_of(list.begin(), list.end(), [](auto& v) { return v.name == "memcpy"; }))
    list.insert(list.begin(), {"memcpy", false});

  int rc = 0;
  const bool show_progress = o.cases.size() > 1 && isatty_stderr();
  for (size_t ci = 0; ci < o.cases.size(); ++ci) {
    const case_spec& c = o.cases[ci];
    if (show_progress) progress(ci, o.cases.size(), c.label());
    const size_t n = static_cast<size_t>(c.rows * c.cols * c.batch) * static_cast<size_t>(c.dtype.bytes);
    const xpose::matrix_desc d = xpose::matrix_desc::packed(c.rows, c.cols, c.dtype.bytes, c.batch);
    const auto in = cpu_input(c, n);
    std::vector<unsigned char> want(n), out(n);
    if (n) xpose::transpose_reference(in.data(), want.data(), d);
    std::vector<row> case_rows;
    for (const auto& v : list) {
      row r;
      r.variant = v.name;
      r.backend = "cpu";
      r.spec = c;
      r.block = "-";
      std::function<void()> run;
      if (v.name == "memcpy") run = [&] { threaded_memcpy(out.data(), in.data(), n, threads); };
      else if (v.name == "naive_loop") run = [&] { naive_any(in.data(), out.data(), c); };
      else if (v.name == "xpose_cpu") run = [&] { xpose::transpose_host(in.data(), out.data(), d, {threads}); };
#if defined(XPOSE_HAVE_OPENBLAS)
      else if (v.name == "openblas") {
        if (!openblas_supports(c)) {
          r.check = "unsupported here";
          case_rows.push_back(r);
          continue;
        }
        run = [&] { openblas_run(in.data(), out.data(), c); };
      }
#endif
      if (n == 0) {
        r.exact = true;
        r.check = "exact (empty)";
        case_rows.push_back(r);
        continue;
      }
      std::memset(out.data(), 0xFF, n);
      run();
      const auto& expect = v.transposes ? want : in;
      if (std::memcmp(out.data(), expect.data(), n) != 0) {
        size_t i = 0;
        const size_t es = static_cast<size_t>(c.dtype.bytes);
        while (std::memcmp(out.data() + i * es, expect.data() + i * es, es) == 0) ++i;
        const index_t ocols = v.transposes ? c.rows : c.cols, per = c.rows * c.cols;
        r.check = "FAILED: first mismatch at flat index " + std::to_string(i) + " (row " +
                  std::to_string(static_cast<index_t>(i) % per / ocols) + ", col " +
                  std::to_string(static_cast<index_t>(i) % per % ocols) + ")";
        rc = 1;
        case_rows.push_back(r);
        continue;
      }
      r.exact = true;
      r.check = "exact";
      for (int i = 0; i < o.warmup; ++i) run();
      for (int i = 0; i < o.reps; ++i) {
        const auto t0 = clock_type::now();
        run();
        r.samples_ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
      }
      r.timed = true;
      summarize(r);
      case_rows.push_back(r);
    }
    fill_ratios(case_rows, "memcpy", "memcpy", 0);
    rows.insert(rows.end(), case_rows.begin(), case_rows.end());
  }
  if (show_progress) progress_done();
  return rc;
}

}  // namespace xbench
