// xpose-bench --inplace: the in-place transpose against the out-of-place
// `best` (GPU) or CPU backend on the same matrix in the same run, a copy of the
// same bytes, and (CPU) OpenBLAS ?imatcopy. Every method is checked bitwise against
// the reference before it is timed. GB/s count 2 x matrix bytes per transpose (one
// read and one write of every element) for every method, in-place or not.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>

#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(XPOSE_HAS_CUDA)
#include <cuda_runtime.h>
#endif
#include "inplace/inplace_blocks.hpp"
#include "openblas.hpp"

#include "bench.hpp"
#include "cli.hpp"

namespace xbench {
namespace {

struct ip_case {
  std::string kind;  // square | random | skinny | given
  index_t rows, cols, batch;
  dtype_info dt;
};

struct ip_row {
  ip_case c;
  std::string method, check = "-";
  double ws_mib = 0, inplace_gbs = 0, best_gbs = 0, copy_gbs = 0, blas_gbs = 0;
  std::string blas_check = "-";
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double gbs(const ip_case& c, double ms) {
  const double bytes = 2.0 * static_cast<double>(c.rows) * c.cols * c.batch * c.dt.bytes;
  return ms > 0 ? bytes / ms / 1e6 : 0;
}

// Exact small integers for floating types (BLAS multiplies by alpha = 1: NaN
// payloads would not survive), random bytes otherwise; threaded in 64 chunks of
// fixed seeds (a GiB in well under a second).
std::vector<unsigned char> input(const ip_case& c, std::size_t n) {
  std::vector<unsigned char> v(n);
  const bool f64 = c.dt.name == "f64" || c.dt.name == "c128";
  const bool f32 = c.dt.name == "f32" || c.dt.name == "c64";
  const std::size_t unit = f64 ? 8 : f32 ? 4 : 1, per = (n / unit + 63) / 64 * unit;
#pragma omp parallel for num_threads(std::min(64, xpose::host_threads(0))) schedule(dynamic)
  for (index_t k = 0; k < 64; ++k) {
    std::mt19937_64 g(42 + static_cast<std::uint64_t>(k));
    const std::size_t lo = std::min(n, per * static_cast<std::size_t>(k)), hi = std::min(n, lo + per);
    for (std::size_t i = lo; i < hi;) {
      const auto x = static_cast<std::int64_t>(g() % 2000001) - 1000000;
      if (f64 && i + 8 <= hi) {
        const double y = static_cast<double>(x);
        std::memcpy(v.data() + i, &y, 8), i += 8;
      } else if (f32 && i + 4 <= hi) {
        const float y = static_cast<float>(x);
        std::memcpy(v.data() + i, &y, 4), i += 4;
      } else {
        v[i++] = static_cast<unsigned char>(x);
      }
    }
  }
  return v;
}

std::string method_of(const ip_case& c, std::size_t ws, bool device) {
  if (c.rows == c.cols) return "square tile pairs";
  if (c.rows == 1 || c.cols == 1) return "vector (no-op)";
  // A workspace of whole matrices takes them in groups (inplace.cu, run).
  const auto mb = static_cast<std::size_t>(c.rows * c.cols * c.dt.bytes);
  if (device && ws >= mb)
    return "groups of " + std::to_string(std::min<std::size_t>(ws / mb, static_cast<std::size_t>(c.batch))) +
           " via workspace";
  const auto p = xpose::detail::inplace::make_block_plan(c.rows, c.cols, c.dt.bytes, device);
  if (p.kind != xpose::detail::inplace::block_kind::none)
    return (p.square ? std::string("square slabs") : std::to_string(p.k) + " slabs " + std::to_string(p.held) + " round") +
           " + slots " + std::to_string(p.grid.R) + "x" + std::to_string(p.grid.C);
  if (const auto sp = xpose::detail::inplace::make_split_plan(c.rows, c.cols, c.dt.bytes, device); sp.r > 0)
      return "split " + std::to_string(sp.r) + " rows + " +
             (sp.rows_b == c.cols ? std::string("square") : std::to_string(sp.b.k) + " slabs");
  return device ? "decomposition" : "decomposition (CPU)";
}

/// Packed desc of the matrix in its current orientation (timing alternates them).
xpose::matrix_desc desc_of(const ip_case& c, bool flipped) {
  return xpose::matrix_desc::packed(flipped ? c.cols : c.rows, flipped ? c.rows : c.cols, c.dt.bytes, c.batch);
}

std::string compare(const std::vector<unsigned char>& got, const std::vector<unsigned char>& want,
                    const ip_case& c) {
  if (std::memcmp(got.data(), want.data(), want.size()) == 0) return "exact";
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      const index_t e = static_cast<index_t>(i) / c.dt.bytes, per = c.rows * c.cols;
      return "FAILED at element " + std::to_string(e) + " (batch " + std::to_string(e / per) + ", output row " +
             std::to_string(e % per / c.rows) + ", col " + std::to_string(e % per % c.rows) + ")";
    }
  return "exact";
}

// Times f (which gets the repetition index) over warm-ups and repetitions.
template <class Timer>
double time_ms(const options& o, const std::function<void(int)>& f, Timer&& timer) {
  for (int i = 0; i < o.warmup; ++i) f(i);
  std::vector<double> s;
  for (int i = 0; i < o.reps; ++i) s.push_back(timer([&] { f(o.warmup + i); }));
  return median(s);
}

double host_timer(const std::function<void()>& g) {
  const auto t0 = std::chrono::steady_clock::now();
  g();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

#if defined(XPOSE_HAVE_OPENBLAS)
// In-place ?imatcopy (alpha = 1) where OpenBLAS has the type.
bool blas_imatcopy(void* a, const xpose::matrix_desc& d, const std::string& dt, int threads) {
  const openblas_lib& l = load_openblas(threads);
  if (!l.loaded) return false;
  const auto R = static_cast<blasint>(d.rows), C = static_cast<blasint>(d.cols);
  for (index_t b = 0; b < d.batch; ++b) {
    char* p = static_cast<char*>(a) + b * d.rows * d.cols * d.elem_size;
    if (dt == "f32") l.si(CblasRowMajor, CblasTrans, R, C, 1.0f, reinterpret_cast<float*>(p), C, R);
    else if (dt == "f64") l.di(CblasRowMajor, CblasTrans, R, C, 1.0, reinterpret_cast<double*>(p), C, R);
    else if (dt == "c64") {
      const float one[2] = {1.0f, 0.0f};
      l.ci(CblasRowMajor, CblasTrans, R, C, one, reinterpret_cast<float*>(p), C, R);
    } else if (dt == "c128") {
      const double one[2] = {1.0, 0.0};
      l.zi(CblasRowMajor, CblasTrans, R, C, one, reinterpret_cast<double*>(p), C, R);
    } else {
      return false;
    }
  }
  return true;
}
#endif

/// What every case starts from: its desc, size, workspace, input and expected result.
struct prepared {
  ip_row r;
  xpose::matrix_desc d;
  std::size_t n = 0, wsb = 0;
  std::vector<unsigned char> orig, want;
};

prepared prepare(const ip_case& c, bool device, int threads) {
  prepared p;
  p.r.c = c;
  p.d = desc_of(c, false);
  p.n = static_cast<std::size_t>(c.rows * c.cols * c.batch * c.dt.bytes);
  require_ok(xpose::inplace_workspace_size(p.d, device, &p.wsb), "the workspace size query");
  p.r.ws_mib = static_cast<double>(p.wsb) / (1 << 20);
  p.r.method = method_of(c, p.wsb, device);
  p.orig = input(c, p.n);
  p.want.resize(p.n);
  // The GPU's expected result from the threaded CPU backend (the naive reference
  // takes seconds per GiB); the CPU's from the reference, which its backend is
  // checked against here too.
  if (device) {
    xpose::host_options ho;
    ho.threads = threads;
    require_ok(xpose::transpose_host(p.orig.data(), p.want.data(), p.d, ho), "the expected transpose (CPU)");
  } else {
    require_ok(xpose::transpose_reference(p.orig.data(), p.want.data(), p.d), "the reference transpose");
  }
  return p;
}

ip_row run_cpu_case(const ip_case& c, const options& o) {
  prepared p = prepare(c, false, o.threads);
  ip_row& r = p.r;
  std::vector<unsigned char> a(p.orig), out(p.n), ws(p.wsb + 16);
  xpose::host_options ho;
  ho.threads = o.threads;
  // A status other than ok (an argument the library refuses) stops the run: exit 2.
  require_ok(xpose::transpose_inplace_host(a.data(), p.d, ws.data(), p.wsb, ho), "transpose_inplace_host");
  r.check = compare(a, p.want, c);
  if (r.check != "exact") return r;
  // The out-of-place baseline is checked too before it is timed.
  std::fill(out.begin(), out.end(), static_cast<unsigned char>(0xFF));
  require_ok(xpose::transpose_host(p.orig.data(), out.data(), p.d, ho), "transpose_host");
  const std::string best_check = compare(out, p.want, c);
  if (best_check != "exact") {
    r.check = "out-of-place baseline " + best_check;
    return r;
  }
  r.inplace_gbs = gbs(c, time_ms(o, [&](int i) { (void)xpose::transpose_inplace_host(a.data(), desc_of(c, i % 2 == 0), ws.data(), p.wsb, ho); }, host_timer));
  r.best_gbs = gbs(c, time_ms(o, [&](int) { (void)xpose::transpose_host(p.orig.data(), out.data(), p.d, ho); }, host_timer));
  const int threads = cpu_threads(o.threads);
  r.copy_gbs = gbs(c, time_ms(o, [&](int) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (index_t k = 0; k < 64; ++k) {
      const std::size_t lo = p.n * static_cast<std::size_t>(k) / 64, hi = p.n * static_cast<std::size_t>(k + 1) / 64;
      std::memcpy(out.data() + lo, p.orig.data() + lo, hi - lo);
    }
  }, host_timer));
#if defined(XPOSE_HAVE_OPENBLAS)
  // OpenBLAS 0.3.21 exits the process ("Memory alloc failed") on skinny shapes such
  // as 2000000x4: only squares and rectangles with both sides >= 1000 are offered.
  std::vector<unsigned char> b(p.orig);
  const bool blas_ok = c.rows == c.cols || std::min(c.rows, c.cols) >= 1000;
  if (blas_ok && blas_imatcopy(b.data(), p.d, c.dt.name, threads)) {
    r.blas_check = compare(b, p.want, c);
    if (r.blas_check != "exact") r.blas_check = "WRONG (" + r.blas_check.substr(7) + ")";
    r.blas_gbs = gbs(c, time_ms(o, [&](int i) { blas_imatcopy(b.data(), desc_of(c, i % 2 == 0), c.dt.name, threads); }, host_timer));
  }
#endif
  return r;
}

#if defined(XPOSE_HAS_CUDA)
struct dev_mem {
  void* p = nullptr;
  explicit dev_mem(std::size_t n) {
    if (cudaMalloc(&p, n ? n : 1) != cudaSuccess) p = nullptr;
  }
  ~dev_mem() { cudaFree(p); }
};

ip_row run_gpu_case(const ip_case& c, const options& o) {
  prepared p = prepare(c, true, o.threads);
  ip_row& r = p.r;
  std::vector<unsigned char> got(p.n);
  dev_mem a(p.n), out(p.n), ws(p.wsb);
  if (!a.p || !out.p || !ws.p) {
    r.check = "FAILED: cudaMalloc (out of device memory?)";
    return r;
  }
  cudaMemcpy(a.p, p.orig.data(), p.n, cudaMemcpyHostToDevice);
  xpose::status s = xpose::transpose_inplace(a.p, p.d, ws.p, p.wsb, nullptr);
  if (cudaDeviceSynchronize() != cudaSuccess) s = xpose::status::make(xpose::status_code::cuda_error, "kernel failed");
  cudaMemcpy(got.data(), a.p, p.n, cudaMemcpyDeviceToHost);
  r.check = s.ok() ? compare(got, p.want, c) : std::string("FAILED: ") + s.message();
  if (r.check != "exact") return r;
  // The out-of-place baseline is checked too before it is timed.
  cudaMemcpy(a.p, p.orig.data(), p.n, cudaMemcpyHostToDevice);
  cudaMemset(out.p, 0xFF, p.n);
  s = xpose::transpose(a.p, out.p, p.d, nullptr);
  if (cudaDeviceSynchronize() != cudaSuccess) s = xpose::status::make(xpose::status_code::cuda_error, "kernel failed");
  cudaMemcpy(got.data(), out.p, p.n, cudaMemcpyDeviceToHost);
  const std::string best_check = s.ok() ? compare(got, p.want, c) : std::string("FAILED: ") + s.message();
  if (best_check != "exact") {
    r.check = "best (the baseline) " + best_check;
    return r;
  }
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto timer = [&](const std::function<void()>& g) {
    cudaEventRecord(e0);
    g();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    return static_cast<double>(ms);
  };
  r.inplace_gbs = gbs(c, time_ms(o, [&](int i) { (void)xpose::transpose_inplace(a.p, desc_of(c, i % 2 == 0), ws.p, p.wsb, nullptr); }, timer));
  r.best_gbs = gbs(c, time_ms(o, [&](int) { (void)xpose::transpose(a.p, out.p, p.d, nullptr); }, timer));
  r.copy_gbs = gbs(c, time_ms(o, [&](int) { cudaMemcpyAsync(out.p, a.p, p.n, cudaMemcpyDeviceToDevice); }, timer));
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return r;
}
#endif

// The random rectangles' seed: XPOSE_BENCH_SEED when set (to repeat a run), else fresh.
std::uint64_t random_seed() {
  static const std::uint64_t seed = [] {
    if (const char* e = std::getenv("XPOSE_BENCH_SEED")) return static_cast<std::uint64_t>(std::strtoull(e, nullptr, 10));
    return (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  }();
  return seed;
}

/// The random rectangles: sides in [1000, side], matrices of lo_mib to hi_mib.
struct random_bounds {
  index_t side;
  int cases, lo_mib, hi_mib;
};
random_bounds random_bounds_of(bool gpu) { return gpu ? random_bounds{50000, 12, 64, 1024} : random_bounds{12000, 10, 16, 128}; }

std::string random_note(bool gpu) {
  const random_bounds b = random_bounds_of(gpu);
  return "random rectangles: seed " + std::to_string(random_seed()) + " (XPOSE_BENCH_SEED repeats it), " +
         std::to_string(b.cases) + " cases, sides 1000-" + std::to_string(b.side) + ", " + std::to_string(b.lo_mib) +
         " MiB to " + std::to_string(b.hi_mib) + " MiB a matrix; random batches: " + std::to_string(b.cases / 2) +
         " cases of 4-64 matrices, 100-4000 rows, 100-20000 columns, " + std::to_string(b.lo_mib) + " MiB to " +
         std::to_string(b.hi_mib / 2) + " MiB a batch";
}

std::vector<ip_case> default_cases(bool gpu, const std::vector<dtype_info>& all) {
  auto dt = [&](const std::string& name) {
    for (const auto& d : all)
      if (d.name == name) return d;
    return all.front();
  };
  std::vector<ip_case> v;
  // Squares: >= 256 MiB on the GPU (the size the targets are stated at), >= 64 MiB on the CPU.
  const index_t gpu_side[] = {16384, 12288, 8192, 6144, 4096}, cpu_side[] = {8192, 6144, 4096, 3072, 2048};
  const char* names[] = {"u8", "f16", "f32", "f64", "c128"};
  for (int k = 0; k < 5; ++k) {
    const index_t s = gpu ? gpu_side[k] : cpu_side[k];
    v.push_back({"square", s, s, 1, dt(names[k])});
  }
  // Random rectangles: m and n uniform in [1000, 50000] (CPU: [1000,
  // 12000]), every element size, a fresh seed every run (printed first), within
  // random_bounds: bounded so the three kinds run in minutes.
  std::mt19937_64 g(random_seed());
  const random_bounds rb = random_bounds_of(gpu);
  for (int k = 0; k < rb.cases; ++k) {
    const dtype_info d = dt(names[k % 5]);
    index_t m = 0, nn = 0;
    do {
      m = 1000 + static_cast<index_t>(g() % static_cast<std::uint64_t>(rb.side - 999));
      nn = 1000 + static_cast<index_t>(g() % static_cast<std::uint64_t>(rb.side - 999));
    } while (m == nn || static_cast<double>(m) * nn * d.bytes < rb.lo_mib * double(1 << 20) ||
             static_cast<double>(m) * nn * d.bytes > rb.hi_mib * double(1 << 20));
    v.push_back({"random", m, nn, 1, d});
  }
  // Skinny, both orientations: n in [2, 32], m = 1e7 (CPU: 2e6).
  const index_t m = gpu ? 10000000 : 2000000;
  for (index_t nn : {2, 3, 4, 8, 16, 32}) {
    v.push_back({"skinny", m, nn, 1, dt("f32")});
    v.push_back({"skinny", nn, m, 1, dt("f32")});
  }
  // Random batches (their own stream of the seed, so the rectangles above stay the
  // same): 4-64 matrices (log-uniform) of 100-4000 rows and 100-20000 columns, every element size, the
  // whole batch within random_bounds, to set beside the single rectangles' medians.
  std::mt19937_64 gb(random_seed() ^ 0x6261746368657321ull);
  auto unit = [&] { return static_cast<double>(gb() >> 11) * 0x1.0p-53; };
  for (int k = 0; k < rb.cases / 2; ++k) {
    const dtype_info d = dt(names[k % 5]);
    index_t b = 0, r = 0, cc = 0;
    double bytes = 0;
    do {
      b = static_cast<index_t>(4.0 * std::pow(16.0, unit()));
      r = 100 + static_cast<index_t>(gb() % 3901);
      bytes = (rb.lo_mib + (rb.hi_mib / 2 - rb.lo_mib) * unit()) * double(1 << 20);
      cc = static_cast<index_t>(bytes / (static_cast<double>(b) * r * d.bytes));
    } while (cc < 100 || cc > 20000 || cc == r);
    v.push_back({"batch", r, cc, b, d});
  }
  return v;
}

std::string size_of(const ip_case& c) {
  return (c.batch > 1 ? std::to_string(c.batch) + "x" : "") + std::to_string(c.rows) + "x" + std::to_string(c.cols);
}

std::vector<std::string> head_of(bool gpu) {
  std::vector<std::string> h = {"kind", "size", "dtype", "method", "ws MiB", "inplace", gpu ? "best" : "xpose_oop",
                                "of_best", "copy", "of_copy"};
  if (!gpu) h.push_back("imatcopy");
  h.push_back("check");
  return h;
}

std::vector<std::string> row_cells(const ip_row& r, bool gpu) {
    const std::string size = size_of(r.c);
    auto f = [](double v, int prec) {
      char b[64];
      std::snprintf(b, sizeof b, "%.*f", prec, v);
      return std::string(b);
    };
    std::vector<std::string> x = {r.c.kind, size, r.c.dt.name, r.method, f(r.ws_mib, 1), f(r.inplace_gbs, 1),
                                  f(r.best_gbs, 1), f(r.best_gbs > 0 ? r.inplace_gbs / r.best_gbs : 0.0, 3),
                                  f(r.copy_gbs, 1), f(r.copy_gbs > 0 ? r.inplace_gbs / r.copy_gbs : 0.0, 3)};
    if (!gpu) x.push_back(f(r.blas_gbs, 1));
    x.push_back(r.check + (r.blas_check == "-" ? "" : "; imatcopy " + r.blas_check));
    return x;
}

table rows_table(const std::vector<ip_row>& rows, bool gpu) {
  table t;
  t.title = std::string("xpose-bench inplace (") + (gpu ? "GPU" : "CPU") + ")";
  const std::string oop = gpu ? "best" : "xpose_oop";
  t.notes = {"GB/s = 2 x matrix bytes per transpose / time (1e9 B/s), median of the timed runs, for every method",
             random_note(gpu),
             "inplace: the in-place transpose; " + oop + ": the out-of-place " +
                 (gpu ? std::string("best") : std::string("CPU backend")) + " on the same matrix; copy: " +
                 (gpu ? "cudaMemcpy" : "a threaded memcpy") + " of the same bytes; of_best, of_copy: inplace over those" +
                 (gpu ? "" : "; imatcopy: OpenBLAS ?imatcopy in place (0: not offered for this type or shape)"),
             "ws MiB: the workspace the in-place transpose asks for (inplace_workspace_size)"};
  t.head = head_of(gpu);
  for (const auto& r : rows) t.rows.push_back(row_cells(r, gpu));
  // Medians of the ratios per kind: the targets (docs/RESULTS.md, "In-place transposes")
  // are stated on them.
  for (const char* kind : {"square", "random", "skinny", "batch", "given"}) {
    std::vector<double> of_best, of_copy;
    for (const auto& r : rows)
      if (r.c.kind == kind && r.best_gbs > 0) {
        of_best.push_back(r.inplace_gbs / r.best_gbs);
        of_copy.push_back(r.copy_gbs > 0 ? r.inplace_gbs / r.copy_gbs : 0);
      }
    if (of_best.empty()) continue;
    char buf[200];
    std::snprintf(buf, sizeof buf, "median %-7s of_best %.3f  of_copy %.3f  (%zu cases; min of_best %.3f)", kind,
                  median(of_best), median(of_copy), of_best.size(), *std::min_element(of_best.begin(), of_best.end()));
    t.summary.push_back(buf);
  }
  return t;
}

}  // namespace

int run_inplace(const options& o, const std::vector<dtype_info>& all_dtypes, bool gpu, const std::string& kinds) {
  std::vector<ip_case> cases;
  for (const auto& c : o.cases) cases.push_back({"given", c.rows, c.cols, c.batch, c.dtype});
  if (!o.sizes_given) {
    cases.clear();
    std::string known = ",square,random,skinny,batch,", list = "," + kinds + ",";
    for (std::size_t a = 1, b; a < list.size(); a = b + 1) {
      b = list.find(',', a);
      if (known.find("," + list.substr(a, b - a) + ",") == std::string::npos)
        usage_error("unknown --inplace-kinds entry '" + list.substr(a, b - a) + "' (square, random, skinny, batch)");
    }
    for (const auto& c : default_cases(gpu, all_dtypes))
      if (list.find("," + c.kind + ",") != std::string::npos) cases.push_back(c);
  }
  // Input, expected, in-place, out-of-place, workspace and the BLAS copy: refused
  // before the first case runs when they cannot fit.
  if (!gpu)
    for (const auto& c : cases)
      check_host_memory(6.0L * c.rows * c.cols * c.batch * c.dt.bytes,
                        "in-place " + std::to_string(c.rows) + "x" + std::to_string(c.cols) + " " + c.dt.name);
  // A line per case on stderr as it starts and as it ends, flushed, unless --quiet: a
  // run cut short still shows what it measured and where it stood; the seed comes
  // first. stdout carries only the result (the same bytes as --out).
  auto line = [&](const std::string& text) {
    if (!quiet()) std::fprintf(stderr, "xpose-bench: %s\n", text.c_str()), std::fflush(stderr);
  };
  line(std::string("inplace (") + (gpu ? "GPU" : "CPU") + "): " + random_note(gpu) + "; " +
       std::to_string(cases.size()) + " cases");
  const std::vector<std::string> head = head_of(gpu);
  std::vector<ip_row> rows;
  int rc = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const ip_case& c = cases[i];
    const std::string at = "[" + std::to_string(i + 1) + "/" + std::to_string(cases.size()) + "] ";
    line(at + "start " + c.kind + " " + size_of(c) + " " + c.dt.name);
#if defined(XPOSE_HAS_CUDA)
    rows.push_back(gpu ? run_gpu_case(c, o) : run_cpu_case(c, o));
#else
    rows.push_back(run_cpu_case(c, o));
#endif
    if (rows.back().check != "exact") rc = 1;
    const std::vector<std::string> x = row_cells(rows.back(), gpu);
    std::string done = at + "done ";
    for (std::size_t k = 0; k < x.size() && k < head.size(); ++k) done += (k ? "; " : "") + head[k] + " " + x[k];
    line(done);
  }
  emit(render_table(rows_table(rows, gpu), o.format));
  for (const auto& r : rows)
    if (r.check != "exact") std::fprintf(stderr, "xpose-bench: in-place %lldx%lld %s: %s\n", (long long)r.c.rows,
                                         (long long)r.c.cols, r.c.dt.name.c_str(), r.check.c_str());
  return rc;
}

}  // namespace xbench
