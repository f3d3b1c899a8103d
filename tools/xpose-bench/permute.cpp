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
#include <string>
#include <vector>

#include <omp.h>

#include "bench.hpp"
#include "cuda/nd/policy_nd.hpp"  // nd_kernel names (--ab)

#if defined(XPOSE_HAS_CUDA)
#include <cuda_runtime.h>

#include "cuda/nd/nd_candidate.hpp"  // --ab: the internal run-time choice of the permute_nd kernel
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
  std::string kernel;  // permute_nd, strided_copy on the GPU: the kernel that ran (nd_kernel_name)
  double ms = 0, ref_ms = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct run_opts {
  int warmup = 3, reps = 20, threads = 0;
  bool cpu = false, conj = false;
  bool ab = false;  // GPU: every permute_nd kernel on each case, same run (nd_candidate.hpp)
  std::vector<int> kernels;  // --ab: the nd_kernel values timed (--kernels; default all)
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
  if (xpose::status s = xpose::execute_host(p, in.data(), out.data(), ho); !s.ok()) {
    res.check = std::string("FAILED: ") + s.message();
    return res;
  }
  if ((res.check = compare(out, want, es)) != "ok") return res;
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
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
  if (p.algo == xpose::algorithm::permute_nd || p.algo == xpose::algorithm::strided_copy) res.kernel = xpose::detail::nd_kernel_name(xpose::detail::nd_kernel_for(p, din, dout));
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

void print_summary(const std::string& label, std::vector<double> f, const char* ref) {
  if (f.empty()) return;
  std::sort(f.begin(), f.end());
  std::printf("summary %s: %zu cases, fraction of %s: median %.3f, min %.3f, max %.3f\n", label.c_str(), f.size(), ref,
              median_of(f), f.front(), f.back());
}

// The timed runs of one case: one, or with --ab (GPU) one per permute_nd kernel, each
// checked bitwise on its own poisoned output; the candidate is restored to the default.
std::vector<result> run_case(const xpose::plan& p, const std::vector<unsigned char>& src,
                             const std::vector<unsigned char>& want, const run_opts& o, int es) {
  std::vector<result> runs;
#if defined(XPOSE_HAS_CUDA)
  if (!o.cpu && o.ab) {
    using namespace xpose::detail;
    for (int k : o.kernels) {
      set_nd_candidate(static_cast<nd_kernel>(k));
      runs.push_back(run_gpu_case(p, src, want, o, es));
    }
    set_nd_candidate(nd_kernel_default);
  } else {
    runs.push_back(o.cpu ? run_cpu_case(p, src, want, o, es) : run_gpu_case(p, src, want, o, es));
  }
#else
  runs.push_back(run_cpu_case(p, src, want, o, es));
#endif
  for (result& r : runs) r.algo = xpose::to_string(p.algo);
  return runs;
}

// "policy,vtile,...": every N-d kernel name, in nd_kernel order.
std::string all_kernel_names() {
  std::string s;
  for (int k = 0; k < xpose::detail::nd_kernel_count; ++k)
    s += (k ? "," : "") + std::string(xpose::detail::nd_kernel_name(static_cast<xpose::detail::nd_kernel>(k)));
  return s;
}

int run_specs(const std::vector<perm_spec>& specs, const std::vector<std::string>& dts, const run_opts& o,
              double scale_bytes) {
  int rc = 0;
  const bool ab = o.ab && !o.cpu;
  if (ab) {
    std::printf("%-6s %-22s %-12s %-5s %-13s %-8s", "case", "shape (row-major)", "axes", "dtype", "algorithm", "check");
    for (int k : o.kernels) {
      std::string name = xpose::detail::nd_kernel_name(static_cast<xpose::detail::nd_kernel>(k));
      if (name.rfind("vtile_", 0) == 0) name = "v_" + name.substr(6);  // a column of 9
      std::printf(" %9.9s", name.c_str());
    }
    std::printf("  (fraction of cudaMemcpy per kernel; the vtile candidates include the run tile of strided copies; "
                "* = ran the policy kernel)\n");
  } else
    std::printf("%-6s %-22s %-12s %-5s %-13s %-8s %10s %9s %9s\n", "case", "shape (row-major)", "axes", "dtype",
                "algorithm", "check", "ms", "GB/s", o.cpu ? "of memcpy" : "of cudaMemcpy");
  for (const std::string& dt : dts) {
    const int es = elem_bytes(dt);
    const int kernels = xpose::detail::nd_kernel_count;
    std::vector<std::vector<double>> fractions(kernels), nd_fractions(kernels);  // per kernel (--ab), else [0]
    for (perm_spec s : specs) {
      if (scale_bytes > 0) scale_to(s, es, scale_bytes);
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
      const std::vector<result> runs = run_case(p, src, want, o, es);
      std::vector<index_t> ax(s.axes.begin(), s.axes.end());
      std::printf("%-6s %-22s %-12s %-5s %-13s", s.name.c_str(), join(s.shape, 'x').c_str(), join(ax, ',').c_str(),
                  dt.c_str(), runs[0].algo.c_str());
      bool ok = true;
      for (const result& res : runs)
        if (res.check != "ok") {
          std::printf(" %s%s%s", res.kernel.c_str(), res.kernel.empty() ? "" : ": ", res.check.c_str());
          ok = false;
        }
      if (!ok) {
        rc = 1;
        std::printf("\n");
        continue;
      }
      if (ab) {
        std::printf(" %-8s", "ok");
        for (std::size_t k = 0; k < runs.size(); ++k) {
          const double frac = runs[k].ref_ms / runs[k].ms;
          const auto cand = static_cast<xpose::detail::nd_kernel>(o.kernels[k]);
          const bool fell_back = cand != xpose::detail::nd_kernel::policy && !runs[k].kernel.empty() &&
                                 runs[k].kernel != xpose::detail::nd_kernel_name(cand);
          std::printf(" %8.3f%s", frac, fell_back ? "*" : " ");
          fractions[k].push_back(frac);
          if (p.algo == xpose::algorithm::permute_nd) nd_fractions[k].push_back(frac);
        }
        std::printf("\n");
      } else {
        const result& res = runs[0];
        const double gbs = 2.0 * static_cast<double>(bytes) / (res.ms * 1e6), frac = res.ref_ms / res.ms;
        fractions[0].push_back(frac);
        std::printf(" %-8s %10.3f %9.1f %9.3f\n", "ok", res.ms, gbs, frac);
      }
      std::fflush(stdout);
    }
    const char* ref = o.cpu ? "memcpy" : "cudaMemcpy";
    if (!ab) {
      print_summary(dt, fractions[0], ref);
      continue;
    }
    for (int k = 0; k < static_cast<int>(o.kernels.size()); ++k) {
      const std::string name = xpose::detail::nd_kernel_name(static_cast<xpose::detail::nd_kernel>(o.kernels[k]));
      print_summary(dt + " " + name, fractions[k], ref);
      print_summary(dt + " " + name + " (permute_nd only)", nd_fractions[k], ref);
    }
  }
  return rc;
}

}  // namespace

int permute_random_main(int argc, char** argv);  // permute_random.cpp

int permute_main(int argc, char** argv) {
  const std::string cmd = argv[1];
  if (cmd == "permute")
    for (int i = 2; i < argc; ++i)
      if (std::string(argv[i]).rfind("--random", 0) == 0) return permute_random_main(argc, argv);
  CLI::App app{cmd == "ttc" ? "xpose-bench ttc: the 57 TTC/HPTT permutations, checked then timed against a copy"
                            : "xpose-bench permute: one N-d permutation, checked then timed against a copy"};
  std::string shape_s, axes_s, dtype_s = "f32", cases_s, kernels_s;
  run_opts o;
  double scale_mib = 0;
  if (cmd == "permute") {
    app.add_option("--shape", shape_s, "row-major extents, e.g. 96x75x96x75")->required();
    app.add_option("--axes", axes_s, "np.transpose axes, e.g. 2,1,3,0 (default: reversed)");
  } else {
    app.add_option("--scale-mib", scale_mib, "shrink each tensor to about N MiB (default: HPTT sizes; 32 with --cpu)");
    app.add_option("--cases", cases_s, "comma-separated case numbers 0..56 (default: all)");
  }
  app.add_option("--dtype", dtype_s, "comma-separated: i8 u8 f16 bf16 f32 i32 f64 c64 i64 c128");
  app.add_flag("--cpu", o.cpu, "run the CPU backend (default without a GPU)");
  app.add_flag("--conj", o.conj, "conjugate complex elements (c64, c128)");
  app.add_flag("--ab", o.ab, "GPU: time every N-d kernel (policy, vtile, vtile_flat, vtile_small, vtile_tuned, "
                             "vtile_fit, vtile_rows, vtile_rows_packed, vtile_rows_occ, vtile_rows_auto, vtile_rows_wide) on each case "
                             "in the same run");
  app.add_option("--kernels", kernels_s, "with --ab: comma-separated N-d kernels to time (default: all)");
  app.add_option("--threads", o.threads, "CPU threads (default: all)");
  app.add_option("--warmup", o.warmup, "untimed runs");
  app.add_option("--reps", o.reps, "timed runs (median reported)");
  try {
    app.parse(argc - 1, argv + 1);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    usage_error(e.what());
  }
  check_run_counts(o.warmup, o.reps);
  if (o.threads < 0) usage_error("--threads must be >= 0");
  if (scale_mib < 0 || scale_mib > 1e6) usage_error("--scale-mib must be in 0..1e6");
  if (!kernels_s.empty() && !o.ab) usage_error("--kernels needs --ab");
  for (const auto& name : split_list(kernels_s.empty() ? all_kernel_names() : kernels_s, ',')) {
    int k = 0;
    while (k < xpose::detail::nd_kernel_count && name != xpose::detail::nd_kernel_name(static_cast<xpose::detail::nd_kernel>(k))) ++k;
    if (k == xpose::detail::nd_kernel_count) usage_error("unknown N-d kernel '" + name + "' (" + all_kernel_names() + ")");
    o.kernels.push_back(k);
  }
  std::vector<std::string> dts = split_list(dtype_s, ',');
  for (const auto& d : dts) (void)elem_bytes(d);
  std::vector<perm_spec> specs;
  if (cmd == "permute") {
    perm_spec s;
    for (const auto& e : split_list(shape_s, 'x')) s.shape.push_back(parse_int(e, "extent"));
    if (s.shape.size() > 16) usage_error("--shape has more than 16 dimensions");
    const int r = static_cast<int>(s.shape.size());
    if (axes_s.empty())
      for (int k = 0; k < r; ++k) s.axes.push_back(r - 1 - k);
    else
      for (const auto& a : split_list(axes_s, ',')) s.axes.push_back(static_cast<int>(std::min<index_t>(parse_int(a, "axis"), 1 << 20)));
    // The library names what is wrong with the axes (bad_axes) or the size.
    const xpose::layout in = xpose::layout::packed(r, s.shape.data(), 4);
    xpose::plan p;
    if (xpose::status st = xpose::make_plan(in, xpose::permuted_packed(in, s.axes.data(), static_cast<int>(s.axes.size())),
                                            s.axes.data(), static_cast<int>(s.axes.size()), {}, &p);
        !st.ok())
      usage_error(std::string("permute: ") + st.message());
    long double bytes = 16;
    for (index_t e : s.shape) bytes *= e;
    if (bytes > static_cast<long double>(1ll << 40)) usage_error("permute: --shape is too large");
    s.name = "-";
    specs.push_back(s);
  } else {
    std::vector<int> pick;
    if (!cases_s.empty())
      for (const auto& c : split_list(cases_s, ',')) {
        const index_t i = parse_int(c, "case number");
        if (i > 56) usage_error("case number " + c + " is out of range (0..56)");
        pick.push_back(static_cast<int>(i));
      }
    else
      for (int i = 0; i < 57; ++i) pick.push_back(i);
    for (int i : pick) specs.push_back(from_hptt(ttc_cases()[static_cast<std::size_t>(i)], i));
  }
  if (o.conj)
    for (const auto& d : dts)
      if (elem_bytes(d) != 8 && elem_bytes(d) != 16) usage_error("--conj needs complex dtypes (c64, c128)");
  std::string why;  // after every usage check: a usage error stays one line
  if (!o.cpu && !gpu_usable(&why)) {
    std::fprintf(stderr, "xpose-bench: no GPU found (%s): running the CPU backend\n", why.c_str());
    o.cpu = true;
  }
  if (cmd == "ttc" && scale_mib == 0 && o.cpu) scale_mib = 32;
  return run_specs(specs, dts, o, scale_mib * 1048576.0);
}

}  // namespace xbench
