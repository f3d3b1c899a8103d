// xpose-bench permute --random N: permutations nobody tuned for. N cases drawn from
// a seed (fresh unless --seed; printed first so that any run can be repeated): rank
// 1-8, extents mostly odd or prime, element sizes 1-16 bytes, a part of them strided
// input views (padded parents, offset origins), each about LO-HI MiB. Per case: the
// exact check first (0xFF-poisoned output against an odometer over the strided input
// that shares no code with the library), then the fraction of a cudaMemcpy of the same
// bytes (CUDA events, warm-ups, median of reps); on the GPU, the N-d kernel that ran
// (nd_route_of).
// Without a GPU, or with --cpu, the CPU backend (T threads) against a T-thread memcpy
// of the same bytes, timed alternately in the same run.
// Summaries: median, 10th percentile and minimum, overall and per class. --json FILE
// writes the cases and the results for bench/permute_random_torch.py.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bench.hpp"
#include "cli.hpp"
#include "core/nd_map.hpp"

#if defined(XPOSE_HAS_CUDA)
#include <cuda_runtime.h>

#include "cuda/nd/nd_route.hpp"  // the route column
#endif

namespace xbench {
namespace {

struct rcase {
  int id = 0, es = 4;
  std::vector<index_t> shape;    // row-major extents of the view
  std::vector<int> axes;
  std::vector<index_t> strides;  // of the input view, elements
  index_t offset = 0;            // of the view's origin in the parent, elements
  index_t parent = 0;            // elements of the parent allocation
  bool view = false;
};

bool is_prime(index_t n) {
  if (n < 2) return false;
  for (index_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

// An extent near x: most often a prime, else odd, else as drawn.
index_t shape_extent(double x, std::mt19937_64& g) {
  index_t n = std::max<index_t>(2, static_cast<index_t>(std::llround(x)));
  const double u = std::uniform_real_distribution<double>(0, 1)(g);
  if (u < 0.55) {
    while (!is_prime(n)) ++n;
  } else if (u < 0.85) {
    n |= 1;
    if (n < 3) n = 3;
  }
  return n;
}

// batches > 0: that share of the cases a batch of small matrices transposed (rank 3-4, the last two dims 2-64
// elements each, swapped), a view half the time.
rcase draw_case(std::mt19937_64& g, int id, const std::vector<int>& sizes, double lo_mib, double hi_mib, double kept,
                double batches) {
  std::uniform_real_distribution<double> U(0, 1);
  rcase c;
  c.id = id;
  c.es = sizes[static_cast<std::size_t>(g() % sizes.size())];
  const bool batch = batches > 0 && U(g) < batches;
  const int r = batch ? 3 + static_cast<int>(g() % 2) : 1 + static_cast<int>(g() % 8);
  const double bytes = std::exp(std::log(lo_mib) + U(g) * (std::log(hi_mib) - std::log(lo_mib))) * 1048576.0;
  const double n = bytes / c.es;
  // Log-extents from random weights; at most 2^16 elements per dim beyond rank 1.
  std::vector<double> w(static_cast<std::size_t>(r));
  double sum = 0;
  for (double& x : w) sum += (x = 0.15 + U(g));
  for (int k = 0; k < r; ++k) c.shape.push_back(shape_extent(std::pow(n, w[static_cast<std::size_t>(k)] / sum), g));
  if (batch)  // the matrix: sides 2-64, log-uniform
    for (int k = r - 2; k < r; ++k) c.shape[static_cast<std::size_t>(k)] = std::min<index_t>(64, shape_extent(std::exp(U(g) * std::log(64.0 / 2)) * 2, g));
  // Rescale one dim so that the case lands in [lo, hi] MiB (a batch dim where the matrix is drawn).
  const int big = static_cast<int>(g() % static_cast<std::uint64_t>(batch ? r - 2 : r));
  double rest = 1;
  for (int k = 0; k < r; ++k)
    if (k != big) rest *= static_cast<double>(c.shape[static_cast<std::size_t>(k)]);
  c.shape[static_cast<std::size_t>(big)] = shape_extent(std::max(2.0, n / rest), g);
  auto total = [&] {
    double t = c.es;
    for (index_t e : c.shape) t *= static_cast<double>(e);
    return t;
  };
  const auto lead = c.shape.end() - (batch ? 2 : 0);  // the dims the size fit may change
  for (int guard = 0; guard < 64 && total() > hi_mib * 1048576.0; ++guard) {
    auto m = std::max_element(c.shape.begin(), lead);
    *m = std::max<index_t>(2, *m * 3 / 4);
  }
  for (int guard = 0; guard < 64 && total() < lo_mib * 1048576.0; ++guard) {
    auto m = std::min_element(c.shape.begin(), lead);
    *m = *m + 1 + *m / 3;
  }
  for (int k = 0; k < r; ++k) c.axes.push_back(k);
  if (batch) std::swap(c.axes[static_cast<std::size_t>(r - 2)], c.axes[static_cast<std::size_t>(r - 1)]);
  else std::shuffle(c.axes.begin(), c.axes.end(), g);
  if (!batch && r > 1 && U(g) < kept) {  // keep the fastest dim: a strided copy
    auto it = std::find(c.axes.begin(), c.axes.end(), r - 1);
    std::iter_swap(it, c.axes.end() - 1);
  }
  // Strided views: a padded parent (1-3 dims grown by 1-5) and the view's origin offset.
  std::vector<index_t> pe = c.shape, origin(static_cast<std::size_t>(r), 0);
  if (U(g) < (batch ? 0.5 : 0.3)) {
    c.view = true;
    const int nd = 1 + static_cast<int>(g() % 3);
    for (int j = 0; j < nd; ++j) {
      const auto k = static_cast<std::size_t>(g() % static_cast<std::uint64_t>(r));
      const index_t pad = 1 + static_cast<index_t>(g() % static_cast<std::uint64_t>(std::clamp<index_t>(c.shape[k] / 4, 1, 5)));
      pe[k] += pad;
      origin[k] = static_cast<index_t>(g() % static_cast<std::uint64_t>(pad + 1));
    }
  }
  c.strides.assign(static_cast<std::size_t>(r), 1);
  for (int k = r - 2; k >= 0; --k) c.strides[static_cast<std::size_t>(k)] = c.strides[static_cast<std::size_t>(k) + 1] * pe[static_cast<std::size_t>(k) + 1];
  c.parent = 1;
  for (int k = 0; k < r; ++k) {
    c.parent *= pe[static_cast<std::size_t>(k)];
    c.offset += origin[static_cast<std::size_t>(k)] * c.strides[static_cast<std::size_t>(k)];
  }
  return c;
}

// The oracle: an odometer over the packed output reading the strided input.
void oracle(const unsigned char* parent, unsigned char* out, const rcase& c) {
  const int r = static_cast<int>(c.shape.size()), es = c.es;
  std::vector<index_t> idx(static_cast<std::size_t>(r), 0), step(static_cast<std::size_t>(r)), ext(static_cast<std::size_t>(r));
  index_t n = 1;
  for (int k = 0; k < r; ++k) {
    step[static_cast<std::size_t>(k)] = c.strides[static_cast<std::size_t>(c.axes[static_cast<std::size_t>(k)])];
    ext[static_cast<std::size_t>(k)] = c.shape[static_cast<std::size_t>(c.axes[static_cast<std::size_t>(k)])];
    n *= ext[static_cast<std::size_t>(k)];
  }
  index_t from = c.offset;
  for (index_t o = 0; o < n; ++o) {
    std::memcpy(out + o * es, parent + from * es, static_cast<std::size_t>(es));
    for (int k = r - 1; k >= 0; --k) {
      const auto K = static_cast<std::size_t>(k);
      from += step[K];
      if (++idx[K] < ext[K]) break;
      from -= step[K] * ext[K];
      idx[K] = 0;
    }
  }
}

void fill(std::vector<unsigned char>& v, std::uint64_t seed) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (std::size_t i = 0; i < v.size(); i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::memcpy(v.data() + i, &x, std::min<std::size_t>(8, v.size() - i));
  }
}

// The class of a plan: what the engine must do with it.
std::string class_of(const xpose::plan& p) {
  using xpose::algorithm;
  if (p.algo == algorithm::copy || p.algo == algorithm::empty) return "copy";
  if (p.algo == algorithm::transpose_2d) return "2d";
  const int r = p.out.rank;
  const index_t row = p.out.extents[r - 1] * p.in.elem_size;
  if (p.algo == algorithm::strided_copy) return row >= 128 ? "rows>=128B" : "rows<128B";
  return p.in.elem_size <= 2 ? "nd_e1-2" : "nd_e4-16";
}

std::string join(const std::vector<index_t>& v, char sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? std::string(1, sep) : "") + std::to_string(v[i]);
  return s;
}

struct stats {
  double median = 0, p10 = 0, min = 0;
};
stats stats_of(std::vector<double> f) {
  stats s;
  if (f.empty()) return s;
  std::sort(f.begin(), f.end());
  const std::size_t n = f.size();
  s.median = n % 2 ? f[n / 2] : 0.5 * (f[n / 2 - 1] + f[n / 2]);
  s.p10 = f[static_cast<std::size_t>(std::floor(0.1 * static_cast<double>(n - 1)))];
  s.min = f.front();
  return s;
}

struct timing {
  std::string check = "ok";
  double ms = 0, ref_ms = 0;
};

#if defined(XPOSE_HAS_CUDA)
double time_events(int warmup, int reps, const std::function<void()>& f) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<double> t;
  for (int i = 0; i < warmup + reps; ++i) {
    cudaEventRecord(e0);
    f();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    if (i >= warmup) t.push_back(ms);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Checks then times one route on device buffers: the output poisoned with 0xFF first.
timing gpu_route(const xpose::plan& p, const unsigned char* din, unsigned char* dout, const std::vector<unsigned char>& want,
                 int warmup, int reps, double memcpy_ms) {
  timing t;
  cudaMemset(dout, 0xFF, want.size());
  if (xpose::status s = xpose::execute(p, din, dout, nullptr); !s.ok()) t.check = std::string("FAILED: ") + s.message();
  if (cudaDeviceSynchronize() != cudaSuccess) t.check = "FAILED: kernel error";
  std::vector<unsigned char> got(want.size());
  cudaMemcpy(got.data(), dout, want.size(), cudaMemcpyDeviceToHost);
  if (t.check == "ok")
    for (std::size_t i = 0; i < got.size(); ++i)
      if (got[i] != want[i]) {
        t.check = "FAILED at byte " + std::to_string(i);
        break;
      }
  if (t.check != "ok") return t;
  t.ms = time_events(warmup, reps, [&] { (void)xpose::execute(p, din, dout, nullptr); });
  t.ref_ms = memcpy_ms;
  return t;
}
#endif

double elapsed_ms(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int permute_random_main(int argc, char** argv) {
  CLI::App app{"xpose-bench permute --random N: random permutations, checked then timed against a copy"};
  int n = 0, warmup = 3, reps = 15;
  double kept = 0.2, batches = 0;
  std::string seed_s, dtype_s = "1,2,4,8,16", mib_s = "16:256", json_path;
  bool cpu = false;
  int threads = 0;
  app.add_option("--random", n, "number of random cases")->required();
  app.add_option("--seed", seed_s, "seed (default: a fresh one, printed)");
  app.add_option("--dtype", dtype_s, "element sizes in bytes, comma-separated (default 1,2,4,8,16)");
  app.add_option("--mib", mib_s, "LO:HI MiB per tensor (default 16:256)");
  add_real(&app, "--kept", kept, 0, 1, "share of cases that keep the fastest dim, strided copies (default 0.2)");
  add_real(&app, "--batches", batches, 0, 1, "share of cases that transpose a batch of small matrices (2-64 a side; default 0)");
  app.add_option("--json", json_path, "write the cases and results as JSON");
  app.add_flag("--cpu", cpu, "time the CPU backend (the default without a GPU)");
  app.add_option("--threads", threads, "CPU threads (default: all cores)");
  app.add_option("--warmup", warmup, "untimed runs");
  app.add_option("--reps", reps, "timed runs (median reported)");
  try {
    app.parse(argc - 1, argv + 1);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    usage_error(e.what());
  }
  if (warmup < 0 || warmup > 1000) usage_error("--warmup must be between 0 and 1000");
  if (reps < 1 || reps > 1000) usage_error("--reps must be between 1 and 1000");
  if (n < 1 || n > 100000) usage_error("--random must be in 1..100000");
  std::vector<int> sizes;
  {
    std::string cur;
    for (char ch : dtype_s + ",") {
      if (ch != ',') {
        cur.push_back(ch);
        continue;
      }
      if (cur != "1" && cur != "2" && cur != "4" && cur != "8" && cur != "16")
        usage_error("--dtype takes element sizes 1, 2, 4, 8, 16 (got '" + cur + "')");
      sizes.push_back(std::stoi(cur));
      cur.clear();
    }
  }
  double lo = 0, hi = 0;
  {
    const auto colon = mib_s.find(':');
    try {
      if (colon == std::string::npos) throw std::invalid_argument("");
      lo = std::stod(mib_s.substr(0, colon)), hi = std::stod(mib_s.substr(colon + 1));
    } catch (const std::exception&) {
      usage_error("--mib takes LO:HI in MiB, e.g. 16:256");
    }
    if (!(lo > 0 && hi >= lo && hi <= 4096)) usage_error("--mib needs 0 < LO <= HI <= 4096");
  }
  std::uint64_t seed = 0;
  if (seed_s.empty()) seed = std::random_device{}() ^ (static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) << 1);
  else
    try {
      if (seed_s.find_first_not_of("0123456789") != std::string::npos) throw std::invalid_argument("");
      seed = std::stoull(seed_s);
    } catch (const std::exception&) {
      usage_error("--seed takes an integer in 0.." + std::to_string(~std::uint64_t{0}) + " (got '" + seed_s + "')");
    }
  std::string why;
  const bool gpu = !cpu && gpu_usable(&why);
  const int host_threads = cpu_threads(threads);
  std::printf("seed %llu (repeat: xpose-bench permute --random %d --seed %llu --dtype %s --mib %s --kept %g --batches %g)\n",
              static_cast<unsigned long long>(seed), n, static_cast<unsigned long long>(seed), dtype_s.c_str(), mib_s.c_str(),
              kept, batches);
  if (!gpu)
    std::printf("CPU backend, %d threads%s%s%s: fraction of a %d-thread memcpy of the same bytes\n", host_threads,
                cpu ? "" : " (no GPU: ", cpu ? "" : why.c_str(), cpu ? "" : ")", host_threads);
  std::fflush(stdout);
  std::mt19937_64 g(seed);
  std::printf("%-4s %-3s %-30s %-16s %-4s %-12s %-10s %-7s %8s %6s %s\n", "case", "E", "shape", "axes", "view", "algorithm",
              "class", "check", "of copy", "pred", "route");
  nlohmann::json out_json = {{"seed", seed}, {"cases", nlohmann::json::array()}};
  std::vector<double> f_all;
  std::map<std::string, std::vector<double>> f_class;
  int rc = 0;
  for (int id = 0; id < n; ++id) {
    const rcase c = draw_case(g, id, sizes, lo, hi, kept, batches);
    const int r = static_cast<int>(c.shape.size());
    xpose::layout in;
    in.rank = r, in.elem_size = c.es;
    for (int k = 0; k < r; ++k) in.extents[k] = c.shape[static_cast<std::size_t>(k)], in.strides[k] = c.strides[static_cast<std::size_t>(k)];
    const xpose::layout out = xpose::permuted_packed(in, c.axes.data(), r);
    xpose::plan p;
    if (xpose::status st = xpose::make_plan(in, out, c.axes.data(), r, {}, &p); !st.ok()) {
      std::printf("%-4d plan FAILED: %s\n", id, st.message());
      rc = 1;
      continue;
    }
    const std::size_t bytes = static_cast<std::size_t>(p.count) * static_cast<std::size_t>(c.es);
    std::vector<unsigned char> parent(static_cast<std::size_t>(c.parent) * static_cast<std::size_t>(c.es)), want(bytes, 0xFF);
    fill(parent, seed + static_cast<std::uint64_t>(id));
    oracle(parent.data(), want.data(), c);
    const std::string cls = class_of(p);
    timing tn;
    std::string route = "-";
    double pred = 0;  // the span tile's predicted fraction of a copy (0: another route)
    int unit = 0;     // N-d routes: the bytes the kernel moves as one element
#if defined(XPOSE_HAS_CUDA)
    if (gpu) {
      unsigned char *dpar = nullptr, *dout = nullptr;
      if (cudaMalloc(&dpar, parent.size()) != cudaSuccess || cudaMalloc(&dout, bytes) != cudaSuccess) {
        cudaFree(dpar);
        std::printf("%-4d FAILED: cudaMalloc\n", id);
        rc = 1;
        continue;
      }
      cudaMemcpy(dpar, parent.data(), parent.size(), cudaMemcpyHostToDevice);
      const unsigned char* din = dpar + c.offset * c.es;
      const double memcpy_ms = time_events(warmup, reps, [&] { cudaMemcpyAsync(dout, dpar, bytes, cudaMemcpyDeviceToDevice); });
      tn = gpu_route(p, din, dout, want, warmup, reps, memcpy_ms);
      if (p.algo == xpose::algorithm::permute_nd || p.algo == xpose::algorithm::strided_copy) {
        const xpose::detail::nd_route nr = xpose::detail::nd_route_of(p, din, dout);
        route = xpose::detail::nd_kernel_name(nr.kernel);
        if (nr.kernel == xpose::detail::nd_kernel::span) pred = nr.span.pred;
        using xpose::detail::nd_kernel;
        unit = nr.kernel == nd_kernel::copy || nr.kernel == nd_kernel::row_stream ? nr.unit
               : nr.kernel == nd_kernel::run_tile                            ? 16
               : nr.kernel == nd_kernel::span || nr.kernel == nd_kernel::rtile ? nr.q.in.elem_size
                                                                              : c.es;
      }
      cudaFree(dpar);
      cudaFree(dout);
    } else
#endif
    {
      std::vector<unsigned char> got(bytes, 0xFF);
      xpose::host_options ho;
      ho.threads = host_threads;
      const unsigned char* hin = parent.data() + c.offset * c.es;
      if (xpose::status s = xpose::execute_host(p, hin, got.data(), ho); !s.ok())
        tn.check = std::string("FAILED: ") + s.message();
      else if (got != want)
        tn.check = "FAILED (CPU)";
      if (tn.check == "ok") {
        // memcpy and xpose alternate, the copy first, so that neither sees a warmer machine.
        std::vector<double> tm, tx;
        for (int i = 0; i < warmup + reps; ++i) {
          const double m = elapsed_ms([&] { threaded_memcpy(got.data(), parent.data(), bytes, host_threads); });
          const double x = elapsed_ms([&] { (void)xpose::execute_host(p, hin, got.data(), ho); });
          if (i >= warmup) tm.push_back(m), tx.push_back(x);
        }
        std::sort(tm.begin(), tm.end()), std::sort(tx.begin(), tx.end());
        tn.ms = tx[tx.size() / 2], tn.ref_ms = tm[tm.size() / 2];
      }
    }
    const bool ok = tn.check == "ok";
    if (!ok) rc = 1;
    const double fn = tn.ms > 0 ? tn.ref_ms / tn.ms : 0;
    std::vector<index_t> ax(c.axes.begin(), c.axes.end());
    const std::string pred_s = pred > 0 ? std::to_string(pred).substr(0, 5) : "-";
    std::printf("%-4d %-3d %-30s %-16s %-4s %-12s %-10s %-7s %8.3f %6s %s\n", id, c.es, join(c.shape, 'x').c_str(),
                join(ax, ',').c_str(), c.view ? "yes" : "-", xpose::to_string(p.algo), cls.c_str(), tn.check.c_str(), fn,
                pred_s.c_str(), route.c_str());
    std::fflush(stdout);
    if (ok && tn.ms > 0) f_all.push_back(fn), f_class[cls].push_back(fn);
    out_json["cases"].push_back({{"id", id},
                                 {"elem_size", c.es},
                                 {"shape", c.shape},
                                 {"axes", c.axes},
                                 {"strides", c.strides},
                                 {"offset", c.offset},
                                 {"parent", c.parent},
                                 {"algorithm", xpose::to_string(p.algo)},
                                 {"class", cls},
                                 {"route", route},
                                 {"pred", pred},
                                 {"unit", unit},
                                 {"check", ok ? "ok" : "FAILED"},
                                 {"xpose_ms", tn.ms},
                                 {"memcpy_ms", tn.ref_ms}});
  }
  auto line = [](const std::string& label, const std::vector<double>& f) {
    const stats a = stats_of(f);
    std::printf("summary %-12s %4zu cases  median %.3f p10 %.3f min %.3f\n", label.c_str(), f.size(), a.median, a.p10,
                a.min);
  };
  if (!f_all.empty()) {
    std::printf(gpu ? "fraction of cudaMemcpy of the same bytes\n" : "fraction of a threaded memcpy of the same bytes\n");
    line("all", f_all);
    for (const auto& [cls, v] : f_class) line(cls, v);
  }
  if (!json_path.empty()) {
    std::ofstream f(json_path);
    f << out_json.dump(1) << "\n";
    if (!f) usage_error("cannot write " + json_path);
  }
  return rc;
}

}  // namespace xbench
