// xpose-bench permute / ttc: N-d permutations checked bitwise against a plain loop
// on a 0xFF-poisoned output, then timed against a copy of the same bytes in the
// same run (cudaMemcpy on the GPU, memcpy with the same threads on the CPU).
//
// ttc runs the 57 cases of HPTT's benchmark/benchmark.sh (TTC set). HPTT is
// column-major: `benchmark.exe r p_0..p_{r-1} s_0..s_{r-1}` makes B with extent k =
// s_{p_k}, dimension 0 fastest. Read row-major, the same memory is the reversed
// shape (s_{r-1}, ..., s_0) and output dim k' (= HPTT dim r-1-k') is input dim
// r-1-p_{r-1-k'}: axes[k'] = r-1-p[r-1-k']. The listed sizes are HPTT's (float,
// ~200 MiB); f16 and f64 keep the shapes.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <omp.h>

#include "bench.hpp"
#include "cli.hpp"

#if defined(XPOSE_HAS_CUDA)
#include <cuda_runtime.h>
#endif

namespace xbench {
namespace {

struct ttc_case {
  std::vector<int> perm;         // HPTT's (column-major) permutation
  std::vector<index_t> size;     // HPTT's (column-major) sizes
};

// HPTT benchmark/benchmark.sh, in order (rank, perm, sizes).
const std::vector<ttc_case>& ttc_cases() {
  static const std::vector<ttc_case> c = {
      {{1, 0}, {7264, 7264}}, {{1, 0}, {43408, 1216}}, {{1, 0}, {1216, 43408}},
      {{0, 2, 1}, {368, 384, 384}}, {{0, 2, 1}, {2144, 64, 384}}, {{0, 2, 1}, {368, 64, 2307}},
      {{1, 0, 2}, {384, 384, 355}}, {{1, 0, 2}, {2320, 384, 59}}, {{1, 0, 2}, {384, 2320, 59}},
      {{2, 1, 0}, {384, 355, 384}}, {{2, 1, 0}, {2320, 59, 384}}, {{2, 1, 0}, {384, 59, 2320}},
      {{0, 3, 2, 1}, {80, 96, 75, 96}}, {{0, 3, 2, 1}, {464, 16, 75, 96}}, {{0, 3, 2, 1}, {80, 16, 75, 582}},
      {{2, 1, 3, 0}, {96, 75, 96, 75}}, {{2, 1, 3, 0}, {608, 12, 96, 75}}, {{2, 1, 3, 0}, {96, 12, 608, 75}},
      {{2, 0, 3, 1}, {96, 75, 96, 75}}, {{2, 0, 3, 1}, {608, 12, 96, 75}}, {{2, 0, 3, 1}, {96, 12, 608, 75}},
      {{1, 0, 3, 2}, {96, 96, 75, 75}}, {{1, 0, 3, 2}, {608, 96, 12, 75}}, {{1, 0, 3, 2}, {96, 608, 12, 75}},
      {{3, 2, 1, 0}, {96, 75, 75, 96}}, {{3, 2, 1, 0}, {608, 12, 75, 96}}, {{3, 2, 1, 0}, {96, 12, 75, 608}},
      {{0, 4, 2, 1, 3}, {32, 48, 28, 28, 48}}, {{0, 4, 2, 1, 3}, {176, 8, 28, 28, 48}},
      {{0, 4, 2, 1, 3}, {32, 8, 28, 28, 298}}, {{3, 2, 1, 4, 0}, {48, 28, 28, 48, 28}},
      {{3, 2, 1, 4, 0}, {352, 4, 28, 48, 28}}, {{3, 2, 1, 4, 0}, {48, 4, 28, 352, 28}},
      {{2, 0, 4, 1, 3}, {48, 28, 48, 28, 28}}, {{2, 0, 4, 1, 3}, {352, 4, 48, 28, 28}},
      {{2, 0, 4, 1, 3}, {48, 4, 352, 28, 28}}, {{1, 3, 0, 4, 2}, {48, 48, 28, 28, 28}},
      {{1, 3, 0, 4, 2}, {352, 48, 4, 28, 28}}, {{1, 3, 0, 4, 2}, {48, 352, 4, 28, 28}},
      {{4, 3, 2, 1, 0}, {48, 28, 28, 28, 48}}, {{4, 3, 2, 1, 0}, {352, 4, 28, 28, 48}},
      {{4, 3, 2, 1, 0}, {48, 4, 28, 28, 352}},
      {{0, 3, 2, 5, 4, 1}, {16, 32, 15, 32, 15, 15}}, {{0, 3, 2, 5, 4, 1}, {48, 10, 15, 32, 15, 15}},
      {{0, 3, 2, 5, 4, 1}, {16, 10, 15, 103, 15, 15}}, {{3, 2, 0, 5, 1, 4}, {32, 15, 15, 32, 15, 15}},
      {{3, 2, 0, 5, 1, 4}, {112, 5, 15, 32, 15, 15}}, {{3, 2, 0, 5, 1, 4}, {32, 5, 15, 112, 15, 15}},
      {{2, 0, 4, 1, 5, 3}, {32, 15, 32, 15, 15, 15}}, {{2, 0, 4, 1, 5, 3}, {112, 5, 32, 15, 15, 15}},
      {{2, 0, 4, 1, 5, 3}, {32, 5, 112, 15, 15, 15}}, {{3, 2, 5, 1, 0, 4}, {32, 15, 15, 32, 15, 15}},
      {{3, 2, 5, 1, 0, 4}, {112, 5, 15, 32, 15, 15}}, {{3, 2, 5, 1, 0, 4}, {32, 5, 15, 112, 15, 15}},
      {{5, 4, 3, 2, 1, 0}, {32, 15, 15, 15, 15, 32}}, {{5, 4, 3, 2, 1, 0}, {112, 5, 15, 15, 15, 32}},
      {{5, 4, 3, 2, 1, 0}, {32, 5, 15, 15, 15, 112}}};
  return c;
}

struct perm_spec {
  std::vector<index_t> shape;  // row-major
  std::vector<int> axes;
  std::string name;
};

perm_spec from_hptt(const ttc_case& c, int id) {
  const int r = static_cast<int>(c.perm.size());
  perm_spec s;
  for (int k = r - 1; k >= 0; --k) s.shape.push_back(c.size[k]);
  for (int k = 0; k < r; ++k) s.axes.push_back(r - 1 - c.perm[r - 1 - k]);
  s.name = "ttc" + std::to_string(id);
  return s;
}

// Shrinks the largest extent until one tensor is about `target` bytes (CPU runs).
void scale_to(perm_spec& s, int es, double target) {
  for (int guard = 0; guard < 64; ++guard) {
    double bytes = es;
    for (index_t e : s.shape) bytes *= static_cast<double>(e);
    if (bytes <= target * 1.05) return;
    auto big = std::max_element(s.shape.begin(), s.shape.end());
    *big = std::max<index_t>(2, std::min<index_t>(*big - 1, static_cast<index_t>(*big * target / bytes) + 1));
  }
}

std::vector<std::string> split_list(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char ch : s)
    if (ch == sep) out.emplace_back();
    else out.back().push_back(ch);
  return out;
}

index_t parse_int(const std::string& s, const std::string& what) {
  if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string::npos)
    usage_error("malformed " + what + " '" + s + "' (expected a non-negative integer)");
  return static_cast<index_t>(std::stoll(s));
}

int elem_bytes(const std::string& d) {
  static const std::pair<const char*, int> names[] = {{"i8", 1}, {"u8", 1},  {"f16", 2}, {"bf16", 2}, {"f32", 4},
                                                     {"i32", 4}, {"f64", 8}, {"c64", 8}, {"i64", 8},  {"c128", 16}};
  for (const auto& [n, b] : names)
    if (d == n) return b;
  usage_error("unknown dtype '" + d + "' (i8 u8 f16 bf16 f32 i32 f64 c64 i64 c128)");
}

// The oracle: an odometer over the output, input offset from the axes. Shares no
// code with the library.
void plain_permute(const unsigned char* in, unsigned char* out, const perm_spec& s, int es) {
  const int r = static_cast<int>(s.shape.size());
  std::vector<index_t> in_stride(r, 1), idx(r, 0), step(r);
  for (int k = r - 2; k >= 0; --k) in_stride[k] = in_stride[k + 1] * s.shape[k + 1];
  index_t n = 1;
  for (int k = 0; k < r; ++k) step[k] = in_stride[s.axes[k]], n *= s.shape[s.axes[k]];
  index_t from = 0;
  for (index_t o = 0; o < n; ++o) {
    std::memcpy(out + o * es, in + from * es, static_cast<std::size_t>(es));
    for (int k = r - 1; k >= 0; --k) {
      from += step[k];
      if (++idx[k] < s.shape[s.axes[k]]) break;
      from -= step[k] * s.shape[s.axes[k]];
      idx[k] = 0;
    }
  }
}

void fill_random(std::vector<unsigned char>& v, std::uint64_t seed) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (std::size_t i = 0; i < v.size(); i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::memcpy(v.data() + i, &x, std::min<std::size_t>(8, v.size() - i));
  }
}

struct result {
  std::string algo, check = "ok";
  double ms = 0, ref_ms = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct run_opts {
  int warmup = 3, reps = 20, threads = 0;
  bool cpu = false, conj = false;
};

// First mismatching byte -> "FAILED at element i", else "ok".
std::string compare(const std::vector<unsigned char>& got, const std::vector<unsigned char>& want, int es) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) return "FAILED at element " + std::to_string(i / static_cast<std::size_t>(es));
  return "ok";
}

result run_cpu_case(const xpose::plan& p, const std::vector<unsigned char>& in, const std::vector<unsigned char>& want,
                    const run_opts& o, int es) {
  result res;
  std::vector<unsigned char> out(want.size(), 0xFF);
  xpose::host_options ho;
  ho.threads = o.threads;
  require_ok(xpose::execute_host(p, in.data(), out.data(), ho), "execute_host");
  if ((res.check = compare(out, want, es)) != "ok") return res;
  const int threads = cpu_threads(o.threads);
  const index_t bytes = static_cast<index_t>(want.size()), chunk = index_t{1} << 20;
  auto copy = [&] {
#pragma omp parallel for num_threads(threads) schedule(static) if (bytes > chunk)
    for (index_t c = 0; c < (bytes + chunk - 1) / chunk; ++c)
      std::memcpy(out.data() + c * chunk, in.data() + c * chunk, static_cast<std::size_t>(std::min(chunk, bytes - c * chunk)));
  };
  auto perm = [&] { (void)xpose::execute_host(p, in.data(), out.data(), ho); };
  std::vector<double> tp, tc;
  for (int i = 0; i < o.warmup + o.reps; ++i) {  // interleaved: drift hits both alike
    auto t0 = std::chrono::steady_clock::now();
    perm();
    auto t1 = std::chrono::steady_clock::now();
    copy();
    auto t2 = std::chrono::steady_clock::now();
    if (i >= o.warmup) {
      tp.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      tc.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
    }
  }
  res.ms = median(tp), res.ref_ms = median(tc);
  return res;
}

#if defined(XPOSE_HAS_CUDA)
result run_gpu_case(const xpose::plan& p, const std::vector<unsigned char>& in, const std::vector<unsigned char>& want,
                    const run_opts& o, int es) {
  result res;
  const std::size_t bytes = want.size();
  unsigned char *din = nullptr, *dout = nullptr;
  if (cudaMalloc(&din, bytes) != cudaSuccess || cudaMalloc(&dout, bytes) != cudaSuccess) {
    cudaFree(din);
    res.check = "FAILED: cudaMalloc";
    return res;
  }
  std::vector<unsigned char> got(bytes);
  cudaMemcpy(din, in.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemset(dout, 0xFF, bytes);
  if (xpose::status s = xpose::execute(p, din, dout, nullptr); !s.ok()) res.check = std::string("FAILED: ") + s.message();
  cudaDeviceSynchronize();
  cudaMemcpy(got.data(), dout, bytes, cudaMemcpyDeviceToHost);
  if (res.check == "ok") res.check = compare(got, want, es);
  if (res.check == "ok") {
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    auto time = [&](auto&& f) {
      std::vector<double> t;
      for (int i = 0; i < o.warmup + o.reps; ++i) {
        cudaEventRecord(e0);
        f();
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (i >= o.warmup) t.push_back(ms);
      }
      return median(t);
    };
    res.ms = time([&] { (void)xpose::execute(p, din, dout, nullptr); });
    res.ref_ms = time([&] { cudaMemcpyAsync(dout, din, bytes, cudaMemcpyDeviceToDevice); });
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  }
  cudaFree(din);
  cudaFree(dout);
  return res;
}
#endif

std::string join(const std::vector<index_t>& v, char sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? std::string(1, sep) : "") + std::to_string(v[i]);
  return s;
}

// Median of a list (mean of the middle two when even).
double median_of(std::vector<double> f) {
  std::sort(f.begin(), f.end());
  return f.size() % 2 ? f[f.size() / 2] : 0.5 * (f[f.size() / 2 - 1] + f[f.size() / 2]);
}

std::string summary_line(const std::string& label, std::vector<double> f, const char* ref) {
  if (f.empty()) return "";
  std::sort(f.begin(), f.end());
  char buf[256];
  std::snprintf(buf, sizeof buf, "summary %s: %zu cases, fraction of %s: median %.3f, min %.3f, max %.3f",
                label.c_str(), f.size(), ref, median_of(f), f.front(), f.back());
  return buf;
}

std::string fixed(double v, int prec) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}

// The timed run of one case, checked bitwise on its poisoned output first.
result run_case(const xpose::plan& p, const std::vector<unsigned char>& src, const std::vector<unsigned char>& want,
                const run_opts& o, int es) {
#if defined(XPOSE_HAS_CUDA)
  result r = o.cpu ? run_cpu_case(p, src, want, o, es) : run_gpu_case(p, src, want, o, es);
#else
  result r = run_cpu_case(p, src, want, o, es);
#endif
  r.algo = xpose::to_string(p.algo);
  return r;
}

// Bytes of host memory one case needs: input, expected output and the output (CPU)
// or the copy back (GPU).
long double case_bytes(const perm_spec& s, int es) {
  long double b = 3.0L * es;
  for (index_t e : s.shape) b *= static_cast<long double>(e);
  return b;
}

int run_specs(const std::vector<perm_spec>& specs, const std::vector<std::string>& dts, const run_opts& o,
              double scale_bytes, const std::string& cmd, const std::string& format) {
  int rc = 0;
  const char* ref = o.cpu ? "memcpy" : "cudaMemcpy";
  // Every case is sized before the first runs: a case beyond the memory is refused, not run half-way.
  for (const std::string& dt : dts)
    for (perm_spec s : specs) {
      if (scale_bytes > 0) scale_to(s, elem_bytes(dt), scale_bytes);
      check_host_memory(case_bytes(s, elem_bytes(dt)), cmd + " " + (s.name == "-" ? std::string() : s.name + " ") + join(s.shape, 'x') + " " + dt);
    }
  table t;
  t.title = cmd == "ttc" ? "xpose-bench ttc: the TTC/HPTT permutations" : "xpose-bench permute";
  t.head = {"case", "shape (row-major)", "axes", "dtype", "algorithm", "check", "ms", "GB/s", std::string("of ") + ref};
  t.notes.push_back(std::string("ms: median of ") + std::to_string(o.reps) + " timed runs; GB/s = 1e9 bytes/s counting "
                    "read + write; of " + ref + ": the permutation's GB/s over a " + ref +
                    " of the same bytes in the same run (" + (o.cpu ? "same threads" : "device to device") + ")");
  t.notes.push_back("every case is checked bitwise against a plain loop on a 0xFF-poisoned output before it is timed");
  const std::size_t total = dts.size() * specs.size();
  std::size_t done = 0;
  for (const std::string& dt : dts) {
    const int es = elem_bytes(dt);
    std::vector<double> fractions;
    for (perm_spec s : specs) {
      if (scale_bytes > 0) scale_to(s, es, scale_bytes);
      if (isatty_stderr()) progress(done++, total, s.name + " " + join(s.shape, 'x') + " " + dt);
      const int r = static_cast<int>(s.shape.size());
      const xpose::layout in = xpose::layout::packed(r, s.shape.data(), es);
      const xpose::layout out = xpose::permuted_packed(in, s.axes.data(), r);
      xpose::plan p;
      if (xpose::status st = xpose::make_plan(in, out, s.axes.data(), r, {o.conj}, &p); !st.ok())
        usage_error(std::string("permute: ") + st.message());
      const std::size_t bytes = static_cast<std::size_t>(p.count * es);
      std::vector<unsigned char> src(bytes), want(bytes, 0xFF);
      fill_random(src, 1234);
      plain_permute(src.data(), want.data(), s, es);
      if (o.conj)
        for (std::size_t i = static_cast<std::size_t>(es) - 1; i < bytes; i += static_cast<std::size_t>(es)) want[i] ^= 0x80;
      const result res = run_case(p, src, want, o, es);
      std::vector<index_t> ax(s.axes.begin(), s.axes.end());
      std::vector<std::string> row = {s.name, join(s.shape, 'x'), join(ax, ','), dt, res.algo, res.check};
      if (res.check != "ok") {
        rc = 1;
        row.resize(t.head.size(), "-");
        t.rows.push_back(row);
        continue;
      }
      const double gbs = 2.0 * static_cast<double>(bytes) / (res.ms * 1e6), frac = res.ref_ms / res.ms;
      fractions.push_back(frac);
      row.insert(row.end(), {fixed(res.ms, 3), fixed(gbs, 1), fixed(frac, 3)});
      t.rows.push_back(row);
    }
    if (const std::string l = summary_line(dt, fractions, ref); !l.empty()) t.summary.push_back(l);
  }
  if (isatty_stderr()) progress_done();
  emit(render_table(t, format));
  return rc;
}

// The options of permute and ttc (one struct: the two share most of them).
struct perm_args {
  std::string shape_s, axes_s, dtype_s = "f32", cases_s;
  run_opts o;
  double scale_mib = 0;
};

void add_shared_options(CLI::App* app, perm_args& a, common_opts& common) {
  app->option_defaults()->always_capture_default();
  app->footer("Exit codes: 0 success; 1 a case failed its bitwise check, or writing the output failed; 2 bad usage "
              "(one line on stderr, nothing run).");
  app->add_option("--dtype", a.dtype_s, "comma-separated: i8 u8 f16 bf16 f32 i32 f64 c64 i64 c128");
  app->add_flag("--cpu", a.o.cpu, "run the CPU backend (default without a GPU)");
  app->add_flag("--conj", a.o.conj, "conjugate complex elements (c64, c128)");
  add_count(app, "--threads", a.o.threads, 0, xpose::max_host_threads(), "CPU threads (0: all, OMP_NUM_THREADS)");
  add_count(app, "--warmup", a.o.warmup, 0, 10000, "untimed runs");
  add_count(app, "--reps", a.o.reps, 1, 100000, "timed runs (median reported)");
  add_common_options(app, common);
}

// After parsing: the checks both share, then the run.
int run_perm(const std::string& cmd, perm_args& a, std::vector<perm_spec> specs, const common_opts& common) {
  run_opts& o = a.o;
  o.threads = cpu_threads(o.threads);
  std::vector<std::string> dts = split_list(a.dtype_s, ',');
  for (const auto& d : dts) (void)elem_bytes(d);
  if (o.conj)
    for (const auto& d : dts)
      if (elem_bytes(d) != 8 && elem_bytes(d) != 16) usage_error("--conj needs complex dtypes (c64, c128)");
  std::string why;  // after every usage check: a usage error stays one line
  if (!o.cpu && !gpu_usable(&why)) {
    std::fprintf(stderr, "xpose-bench: no GPU found (%s): running the CPU backend\n", why.c_str());
    o.cpu = true;
  }
  double scale_mib = a.scale_mib;
  if (cmd == "ttc" && scale_mib == 0 && o.cpu) scale_mib = 32;
  return run_specs(specs, dts, o, scale_mib * 1048576.0, cmd, common.format);
}

}  // namespace

command add_permute_command(CLI::App& root, common_opts& common) {
  auto a = std::make_shared<perm_args>();
  CLI::App* app = root.add_subcommand("permute", "one N-d permutation, checked bitwise then timed against a copy");
  app->add_option("--shape", a->shape_s, "row-major extents, e.g. 96x75x96x75")->required();
  app->add_option("--axes", a->axes_s, "np.transpose axes, e.g. 2,1,3,0 (default: reversed)");
  add_shared_options(app, *a, common);
  return {app, [a, app, &common] {
            perm_spec s;
            if (app->count("--axes") > 0 && a->axes_s.empty())
              usage_error("--axes is empty (leave it out for the reversed axes)");
            for (const auto& e : split_list(a->shape_s, 'x')) s.shape.push_back(parse_int(e, "extent"));
            if (s.shape.size() > 16) usage_error("--shape has more than 16 dimensions");
            const int r = static_cast<int>(s.shape.size());
            if (a->axes_s.empty())
              for (int k = 0; k < r; ++k) s.axes.push_back(r - 1 - k);
            else
              for (const auto& x : split_list(a->axes_s, ','))
                s.axes.push_back(static_cast<int>(std::min<index_t>(parse_int(x, "axis"), 1 << 20)));
            // The library names what is wrong with the axes (bad_axes) or the size.
            const xpose::layout in = xpose::layout::packed(r, s.shape.data(), 4);
            xpose::plan p;
            if (xpose::status st = xpose::make_plan(in, xpose::permuted_packed(in, s.axes.data(), static_cast<int>(s.axes.size())),
                                                    s.axes.data(), static_cast<int>(s.axes.size()), {}, &p);
                !st.ok())
              usage_error(std::string("permute: ") + st.message());
            long double bytes = 16;
            for (index_t e : s.shape) bytes *= e;
            if (bytes > static_cast<long double>(1ll << 50)) usage_error("permute: --shape is too large");
            s.name = "-";
            return run_perm("permute", *a, {s}, common);
          }};
}

command add_ttc_command(CLI::App& root, common_opts& common) {
  auto a = std::make_shared<perm_args>();
  CLI::App* app = root.add_subcommand("ttc", "the 57 TTC/HPTT permutations, checked bitwise then timed against a copy");
  add_real(app, "--scale-mib", a->scale_mib, 0, 1e6, "shrink each tensor to about N MiB (0: HPTT's sizes; 32 with --cpu)");
  app->add_option("--cases", a->cases_s, "comma-separated case numbers 0..56 (default: all)");
  add_shared_options(app, *a, common);
  return {app, [a, app, &common] {
            std::vector<int> pick;
            if (app->count("--cases") > 0)
              for (const auto& c : split_list(a->cases_s, ',')) {
                const index_t i = parse_int(c, "case number");
                if (i > 56) usage_error("case number " + c + " is out of range (0..56)");
                pick.push_back(static_cast<int>(i));
              }
            else
              for (int i = 0; i < 57; ++i) pick.push_back(i);
            std::vector<perm_spec> specs;
            for (int i : pick) specs.push_back(from_hptt(ttc_cases()[static_cast<std::size_t>(i)], i));
            return run_perm("ttc", *a, specs, common);
          }};
}

}  // namespace xbench
