// CPU harness: the fast CPU backend against a memcpy of the same bytes (threaded
// like the transpose), OpenBLAS ?omatcopy where it has the type, NumPy's
// ascontiguousarray(x.T) (bench/cpu_numpy.py) and, on request, a naive loop. Same
// rules as the GPU: every variant is checked bitwise before it is timed.
//
// Every baseline is measured undisturbed: memcpy and xpose run in one
// OpenMP phase, their repetitions interleaved so that machine noise hits both alike;
// NumPy runs in a child process while this one is idle; OpenBLAS is loaded only for
// a last phase (dlopen), so that its thread pool, which spins after start-up and after
// every call, never runs beside the OpenMP phases. A variant faster than memcpy means
// the ceiling was disturbed: the run says so (cpu_sanity.hpp).
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <thread>

#include <omp.h>

#include "bench.hpp"
#include "cpu_sanity.hpp"

#include "openblas.hpp"

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


// ---- OpenBLAS, loaded for the last phase only (openblas.hpp) ------------------
bool openblas_supports(const case_spec& c) {
  return c.dtype.name == "f32" || c.dtype.name == "f64" || c.dtype.name == "c64" || c.dtype.name == "c128";
}

void openblas_run(const openblas_lib& l, const void* in, void* out, const case_spec& c) {
#if defined(XPOSE_HAVE_OPENBLAS)
  const auto R = static_cast<blasint>(c.rows), C = static_cast<blasint>(c.cols);
  const size_t per = static_cast<size_t>(c.rows * c.cols) * static_cast<size_t>(c.dtype.bytes);
  for (index_t b = 0; b < c.batch; ++b) {
    const auto* s = static_cast<const char*>(in) + per * static_cast<size_t>(b);
    auto* d = static_cast<char*>(out) + per * static_cast<size_t>(b);
    if (c.dtype.name == "f32")
      l.s(CblasRowMajor, CblasTrans, R, C, 1.0f, reinterpret_cast<const float*>(s), C, reinterpret_cast<float*>(d), R);
    else if (c.dtype.name == "f64")
      l.d(CblasRowMajor, CblasTrans, R, C, 1.0, reinterpret_cast<const double*>(s), C, reinterpret_cast<double*>(d), R);
    else if (c.dtype.name == "c64") {
      const float one[2] = {1.0f, 0.0f};
      l.c(CblasRowMajor, CblasTrans, R, C, one, reinterpret_cast<const float*>(s), C, reinterpret_cast<float*>(d), R);
    } else {
      const double one[2] = {1.0, 0.0};
      l.z(CblasRowMajor, CblasTrans, R, C, one, reinterpret_cast<const double*>(s), C, reinterpret_cast<double*>(d), R);
    }
  }
#else
  (void)l, (void)in, (void)out, (void)c;
#endif
}

// ---- NumPy, in a child process ----------------------------------------------
std::string python_exe() {
  if (const char* env = std::getenv("XPOSE_PYTHON")) return env;
  const std::string venv = std::string(XPOSE_SOURCE_DIR) + "/.venv/bin/python";
  return ::access(venv.c_str(), X_OK) == 0 ? venv : "python3";
}

/// Runs bench/cpu_numpy.py for case `c` (no shell: argv only) and fills `r`.
void run_numpy(const case_spec& c, const options& o, row& r) {
  const std::string py = python_exe(), script = std::string(XPOSE_SOURCE_DIR) + "/bench/cpu_numpy.py";
  std::vector<std::string> args = {py, script, "--rows", std::to_string(c.rows), "--cols", std::to_string(c.cols),
                                   "--batch", std::to_string(c.batch), "--dtype", c.dtype.name,
                                   "--reps", std::to_string(o.reps), "--warmup", std::to_string(o.warmup)};
  int fd[2];
  if (::pipe(fd) != 0) {
    r.check = "unavailable: pipe failed";
    return;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fd[1], 1);
    ::close(fd[0]), ::close(fd[1]);
    const int null = ::open("/dev/null", O_WRONLY);  // a failure is reported as one row, not a traceback
    if (null >= 0) ::dup2(null, 2);
    ::setenv("OPENBLAS_NUM_THREADS", "1", 1);  // no BLAS pool spinning in the child
    ::setenv("OMP_NUM_THREADS", "1", 1);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fd[1]);
  std::string text;
  char buf[4096];
  for (ssize_t k; (k = ::read(fd[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(k));
  ::close(fd[0]);
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    r.check = "unavailable: " + py + " bench/cpu_numpy.py failed (NumPy installed? $XPOSE_PYTHON)";
    return;
  }
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.contains("ms") || !j.contains("exact")) {
    r.check = "unavailable: unreadable output of bench/cpu_numpy.py";
    return;
  }
  if (j.value("view", false)) {
    r.check = "not timed: NumPy returns a view here (no copy)";
    return;
  }
  if (!j["exact"].get<bool>()) {
    r.check = "FAILED: numpy's output differs from the transpose";
    return;
  }
  r.samples_ms = j["ms"].get<std::vector<double>>();
  r.exact = true;
  r.check = "exact";
  r.timed = !r.samples_ms.empty();
  r.extra["numpy_version"] = j.value("numpy", "");
  summarize(r);
}

// ---- the sweep ---------------------------------------------------------------
// sysfs first: in a VM, CPUID (what sysconf reads) may report the host's cache.
long long llc_bytes() {
  for (int i = 3; i >= 2; --i) {
    std::FILE* f = std::fopen(("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/size").c_str(), "r");
    if (!f) continue;
    long long kib = 0;
    const int got = std::fscanf(f, "%lldK", &kib);
    std::fclose(f);
    if (got == 1 && kib > 0) return kib << 10;
  }
  const long l3 = ::sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = ::sysconf(_SC_LEVEL2_CACHE_SIZE);
  return l3 > 0 ? l3 : l2 > 0 ? l2 : 32ll << 20;
}

/// The GPU sweep's shape classes, each buffer >= 4x the last-level cache.
std::vector<case_spec> sweep_cases() {
  const dtype_info u8{"u8", 1, false}, f16{"f16", 2, true}, f32{"f32", 4, true}, f64{"f64", 8, true},
      c128{"c128", 16, true};
  const index_t target = 4 * llc_bytes();
  std::vector<case_spec> v;
  auto add = [&](index_t r, index_t c, index_t b, const dtype_info& t) { v.push_back({r, c, b, t}); };
  auto count = [&](const dtype_info& t, index_t per) { return (target + per * t.bytes - 1) / (per * t.bytes); };
  for (const auto& t : {u8, f16, f32, f64, c128}) {  // squares, sides a multiple of 64
    const auto side = static_cast<index_t>(std::ceil(std::sqrt(static_cast<double>(target) / t.bytes) / 64) * 64);
    add(side, side, 1, t);
  }
  for (index_t C : {3, 4, 16}) {  // batch x C x HW and batch x HW x C
    const index_t hw = count(f32, 8 * C);
    add(C, hw, 8, f32);
    add(hw, C, 8, f32);
  }
  for (const auto& t : {f32, f64}) {  // 3 x N and N x 3
    add(3, count(t, 3) | 1, 1, t);
    add(count(t, 3) | 1, 3, 1, t);
  }
  add(7, count(f32, 7) | 1, 1, f32);
  add(32, count(f32, 32) | 1, 1, f32);
  add(count(f32, 32) | 1, 32, 1, f32);
  add(2, count(u8, 2) | 1, 1, u8);
  for (const auto& t : {u8, f32, f64}) add(count(t, 6789) | 1, 6789, 1, t);  // odd row lengths
  for (index_t s : {8, 16, 32, 64})                                           // batches of small matrices
    for (const auto& t : {u8, f32, f64}) add(s, s, count(t, s * s), t);
  add(1, count(f32, 1), 1, f32);  // vectors
  add(count(f32, 1), 1, 1, f32);
  return v;
}

double rate(const row& r) { return r.timed ? r.gbps : 0; }

}  // namespace

void threaded_memcpy(void* dst, const void* src, size_t n, int threads) {
  const size_t chunk = ((n / static_cast<size_t>(threads)) + 4095) & ~size_t{4095};
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    const size_t lo = std::min(n, chunk * static_cast<size_t>(t)), hi = std::min(n, lo + chunk);
    if (hi > lo) std::memcpy(static_cast<char*>(dst) + lo, static_cast<const char*>(src) + lo, hi - lo);
  }
}

int run_cpu(const options& o, std::vector<row>& rows, run_meta& meta) {
  const int threads = cpu_threads(o.threads);
  meta.backend = "cpu";
  meta.threads = threads;
  meta.device = "CPU, " + std::to_string(threads) + " threads (OpenMP), SIMD target " +
                xpose::cpu_backend_target() + ", LLC " + std::to_string(llc_bytes() >> 20) + " MiB";
  meta.cache_note = "CPU: buffers are not flushed from cache; use sizes well beyond the last-level cache";
  const std::vector<case_spec> cases = o.sweep ? sweep_cases() : o.cases;
  std::vector<std::string> list = o.variants;
  if (list.empty()) {
    list = {"memcpy", "xpose_cpu", "numpy"};
    if (!o.sweep) list.insert(list.begin() + 1, "naive_loop");
#if defined(XPOSE_HAVE_OPENBLAS)
    list.push_back("openblas");
#endif
  }
  if (std::find(list.begin(), list.end(), "memcpy") == list.end()) list.insert(list.begin(), "memcpy");
  const bool want_blas = std::find(list.begin(), list.end(), "openblas") != list.end();
  const bool want_numpy = std::find(list.begin(), list.end(), "numpy") != list.end();

  int rc = 0;
  // One line per case and phase: a single 8192x8192 case with NumPy and OpenBLAS takes tens of seconds.
  const bool show_progress = isatty_stderr();
  std::vector<std::vector<row>> per_case(cases.size());
  // Input and expected output of a case: deterministic, so the OpenBLAS phase can
  // rebuild them instead of keeping every case in memory.
  auto prepare = [](const case_spec& c, size_t n, std::vector<unsigned char>& in, std::vector<unsigned char>& want) {
    in = cpu_input(c, n);
    want.assign(n, 0);
    if (n) require_ok(xpose::transpose_reference(in.data(), want.data(), xpose::matrix_desc::packed(c.rows, c.cols, c.dtype.bytes, c.batch)), "the reference transpose");
  };
  auto new_row = [](const std::string& name, const case_spec& c) {
    row r;
    r.variant = name;
    r.backend = "cpu";
    r.spec = c;
    r.block = "-";
    return r;
  };
  // Checks `run` bitwise; false (and r.check set) when it is wrong.
  auto check = [&](row& r, const std::function<void()>& run, std::vector<unsigned char>& out,
                   const std::vector<unsigned char>& expect, bool transposes) {
    const size_t n = out.size();
    if (n == 0) {
      r.exact = true;
      r.check = "exact (empty)";
      return false;
    }
    std::memset(out.data(), 0xFF, n);
    run();
    if (std::memcmp(out.data(), expect.data(), n) != 0) {
      size_t i = 0;
      const size_t es = static_cast<size_t>(r.spec.dtype.bytes);
      while (std::memcmp(out.data() + i * es, expect.data() + i * es, es) == 0) ++i;
      const index_t ocols = transposes ? r.spec.rows : r.spec.cols, per = r.spec.rows * r.spec.cols;
      r.check = "FAILED: first mismatch at flat index " + std::to_string(i) + " (row " +
                std::to_string(static_cast<index_t>(i) % per / ocols) + ", col " +
                std::to_string(static_cast<index_t>(i) % per % ocols) + ")";
      rc = 1;
      return false;
    }
    r.exact = true;
    r.check = "exact";
    return true;
  };
  auto time_once = [](const std::function<void()>& run) {
    const auto t0 = clock_type::now();
    run();
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
  };

  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const case_spec& c = cases[ci];
    if (show_progress) progress(ci, cases.size(), c.label());
    const size_t n = static_cast<size_t>(c.rows * c.cols * c.batch) * static_cast<size_t>(c.dtype.bytes);
    const xpose::matrix_desc d = xpose::matrix_desc::packed(c.rows, c.cols, c.dtype.bytes, c.batch);
    std::vector<unsigned char> in, want, out(n);
    prepare(c, n, in, want);
    // Phase 1 (OpenMP): memcpy, naive loop, xpose; checked, then timed round-robin.
    std::vector<row> timed;
    std::vector<std::function<void()>> runs;
    for (const auto& v : list) {
      if (v == "openblas" || v == "numpy") continue;
      row r = new_row(v, c);
      std::function<void()> run;
      if (v == "memcpy") run = [&] { threaded_memcpy(out.data(), in.data(), n, threads); };
      else if (v == "naive_loop") run = [&] { naive_any(in.data(), out.data(), c); };
      else {
        // A status other than ok (a thread count the library refuses) stops the run: exit 2.
        if (n) require_ok(xpose::transpose_host(in.data(), out.data(), d, {threads}), "transpose_host");
        run = [&] { (void)xpose::transpose_host(in.data(), out.data(), d, {threads}); };  // checked before timing
      }
      if (!check(r, run, out, v == "memcpy" ? in : want, v != "memcpy")) {
        per_case[ci].push_back(r);
        continue;
      }
      timed.push_back(r);
      runs.push_back(run);
    }
    for (int i = 0; i < o.warmup; ++i)
      for (auto& run : runs) run();
    for (int i = 0; i < o.reps; ++i)
      for (size_t k = 0; k < runs.size(); ++k) timed[k].samples_ms.push_back(time_once(runs[k]));
    for (auto& r : timed) {
      r.timed = true;
      summarize(r);
      per_case[ci].push_back(r);
    }
    // Phase 2: NumPy in a child process; the OpenMP workers have gone to sleep by then.
    if (want_numpy) {
      row r = new_row("numpy", c);
      if (show_progress) progress(ci, cases.size(), "numpy " + c.label());
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (n) run_numpy(c, o, r);
      if (r.check.rfind("FAILED", 0) == 0) rc = 1;
      per_case[ci].push_back(r);
    }
  }
  // Phase 3: OpenBLAS alone, after every OpenMP measurement.
  if (want_blas) {
    const openblas_lib& blas = load_openblas(threads);
    for (size_t ci = 0; ci < cases.size(); ++ci) {
      const case_spec& c = cases[ci];
      row r = new_row("openblas", c);
      if (!blas.loaded || !openblas_supports(c)) {
        r.check = blas.loaded ? "unsupported here" : blas.why;
        per_case[ci].push_back(r);
        continue;
      }
      if (show_progress) progress(ci, cases.size(), "openblas " + c.label());
      const size_t n = static_cast<size_t>(c.rows * c.cols * c.batch) * static_cast<size_t>(c.dtype.bytes);
      std::vector<unsigned char> in, want, out(n);
      prepare(c, n, in, want);
      const std::function<void()> run = [&] { openblas_run(blas, in.data(), out.data(), c); };
      if (check(r, run, out, want, true)) {
        for (int i = 0; i < o.warmup; ++i) run();
        for (int i = 0; i < o.reps; ++i) r.samples_ms.push_back(time_once(run));
        r.timed = true;
        summarize(r);
      }
      per_case[ci].push_back(r);
    }
  }
  if (show_progress) progress_done();

  // Ratios, the ceiling check, and for the sweep a summary against the targets.
  std::vector<double> vs_numpy;
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    auto& cr = per_case[ci];
    fill_ratios(cr, "memcpy", "memcpy", 0);
    std::vector<measured_rate> rates;
    for (const row& r : cr) rates.push_back({r.variant, rate(r)});
    for (auto& w : ceiling_violations(cases[ci].label(), "memcpy", rates)) meta.warnings.push_back(w);
    double x = 0, blas = 0, np = 0;
    for (const row& r : cr) {
      if (r.variant == "xpose_cpu") x = rate(r);
      if (r.variant == "openblas") blas = rate(r);
      if (r.variant == "numpy") np = rate(r);
    }
    for (row& r : cr) {
      if (r.variant != "xpose_cpu" || !r.timed) continue;
      if (blas > 0) r.extra["vs openblas"] = x / blas;
      if (np > 0) r.extra["vs numpy"] = x / np;
    }
    if (x > 0 && np > 0) vs_numpy.push_back(x / np);
    rows.insert(rows.end(), cr.begin(), cr.end());
  }
  // What the columns mean: NumPy's version is said here once, not as a column.
  std::string numpy_version;
  bool any_blas = false, any_numpy = false;
  for (row& r : rows) {
    if (r.extra.contains("numpy_version")) {
      numpy_version = r.extra["numpy_version"].get<std::string>();
      r.extra.erase("numpy_version");
    }
    any_blas = any_blas || r.extra.contains("vs openblas");
    any_numpy = any_numpy || r.extra.contains("vs numpy");
  }
  meta.legend.push_back("of memcpy: the variant's GB/s over a threaded memcpy of the same bytes, same threads, same run");
  if (any_numpy)
    meta.legend.push_back("vs numpy: xpose_cpu's GB/s over NumPy's np.ascontiguousarray(x.T) (NumPy " +
                          (numpy_version.empty() ? std::string("?") : numpy_version) +
                          ", a child process) on the same case; > 1: xpose_cpu is faster");
  if (any_blas)
    meta.legend.push_back("vs openblas: xpose_cpu's GB/s over OpenBLAS ?omatcopy's on the same case; > 1: xpose_cpu is faster");
  if (o.sweep) {
    std::string s = "CPU sweep: xpose_cpu per case (of memcpy | vs openblas | vs numpy)\n";
    for (const row& r : rows) {
      if (r.variant != "xpose_cpu") continue;
      char line[200];
      std::snprintf(line, sizeof line, "  %-28s %6.2f | %6s | %6s\n", r.spec.label().c_str(), r.of_memcpy,
                    r.extra.contains("vs openblas") ? std::to_string(r.extra["vs openblas"].get<double>()).substr(0, 5).c_str() : "-",
                    r.extra.contains("vs numpy") ? std::to_string(r.extra["vs numpy"].get<double>()).substr(0, 5).c_str() : "-");
      s += line;
    }
    if (!vs_numpy.empty()) {
      std::sort(vs_numpy.begin(), vs_numpy.end());
      s += "  median vs numpy: " + std::to_string(vs_numpy[vs_numpy.size() / 2]).substr(0, 5) + "\n";
    }
    meta.notice += (meta.notice.empty() ? "" : "\n") + s.substr(0, s.size() - 1);
  }
  return rc;
}

}  // namespace xbench
