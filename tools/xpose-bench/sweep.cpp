// `xpose-bench sweep`: the shape-class sweep (docs/RESULTS.md, "2-D: the shape
// sweep"). For each dtype: batch x C x HW and batch x HW x C (C from 1 to
// 128, HW 224*224 and 224*224+1), skinny 2-D (3xN, Nx3, 7xN, 32xN, Nx32), rows of odd
// length, batches of 8x8 .. 64x64, a square, vectors, tiny matrices. Every case runs
// through the GPU harness (gpu_harness.cpp: exact check on a 0xFF-poisoned output
// first, then event timing, memcpy of the same bytes in the same run); rows gain the
// shape class and the route route_for picks. --graph adds, for the tiny cases, one
// transpose captured in a CUDA graph against a memcpy node of the same bytes.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>

#include "bench.hpp"
#include "cli.hpp"
#include "cuda/route_table.hpp"

#if defined(XPOSE_HAS_CUDA)
#include <cuda_runtime.h>
#endif

namespace xbench {
namespace {

struct sweep_case {
  std::string cls;
  index_t batch, rows, cols;
};

// Cases for E-byte elements, each buffer about `target` bytes.
std::vector<sweep_case> sweep_cases(int E, long long target, bool quick) {
  std::vector<sweep_case> v;
  auto count = [&](long long per) { return std::max<long long>(1, target / std::max<long long>(1, per)); };
  const std::vector<index_t> channels =
      quick ? std::vector<index_t>{1, 3, 4, 16, 32, 128}
            : std::vector<index_t>{1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128};
  const std::vector<index_t> hws = quick ? std::vector<index_t>{50177} : std::vector<index_t>{50176, 50177};
  for (index_t c : channels)
    for (index_t hw : hws) {
      const index_t b = std::min<long long>(256, count(c * hw * E));
      v.push_back({"CxHW", b, c, hw});
      v.push_back({"HWxC", b, hw, c});
    }
  for (index_t s : {3, 7, 32}) v.push_back({"skinny", 1, s, count(s * E)});
  for (index_t s : {3, 32}) v.push_back({"skinny", 1, count(s * E), s});
  const auto side = static_cast<index_t>(std::sqrt(static_cast<double>(target / E))) / 64 * 64;
  v.push_back({"odd", 1, side, side + 1});
  v.push_back({"odd", 1, side - 1, side + 3});
  for (index_t s : {8, 16, 32, 64}) v.push_back({"batch", count(s * s * E), s, s});
  v.push_back({"square", 1, side, side});
  v.push_back({"vector", 1, 1, count(E)});
  v.push_back({"vector", 1, count(E), 1});
  // Tiny: 16 KiB and 64 KiB.
  v.push_back({"tiny", 1, 64, 16384 / 64 / E});
  v.push_back({"tiny", 1, 128, 65536 / 128 / E});
  return v;
}

#if defined(XPOSE_HAS_CUDA)
// Mean time (ms) of one operation replayed from a CUDA graph: `per_graph` copies of
// op captured once, the graph launched `reps` times between two events.
template <class Op>
double graph_ms(cudaStream_t st, Op op, int per_graph, int reps, std::string* err) {
  cudaGraph_t g = nullptr;
  cudaGraphExec_t ge = nullptr;
  cudaEvent_t a = nullptr, b = nullptr;
  float ms = -1;
  auto fail = [&](const char* what, cudaError_t e) {
    *err = std::string(what) + ": " + cudaGetErrorString(e);
    cudaGetLastError();
  };
  cudaError_t e = cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal);
  if (e != cudaSuccess) return fail("begin capture", e), -1;
  bool ok = true;
  for (int i = 0; i < per_graph; ++i) ok = op() && ok;
  e = cudaStreamEndCapture(st, &g);
  if (e != cudaSuccess || !ok) return fail("capture", e), -1;
  if ((e = cudaGraphInstantiate(&ge, g, 0)) != cudaSuccess) return cudaGraphDestroy(g), fail("instantiate", e), -1;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaGraphLaunch(ge, st);  // warm
  cudaEventRecord(a, st);
  for (int i = 0; i < reps; ++i) cudaGraphLaunch(ge, st);
  cudaEventRecord(b, st);
  if ((e = cudaEventSynchronize(b)) == cudaSuccess) cudaEventElapsedTime(&ms, a, b);
  else fail("replay", e);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaGraphExecDestroy(ge);
  cudaGraphDestroy(g);
  return ms < 0 ? -1 : ms / (static_cast<double>(reps) * per_graph);
}

// Graph rows for one tiny case: "memcpy (graph)" and "best (graph)", mean per node.
// The transposed result is checked against the reference after the replays.
void graph_rows(const case_spec& c, std::vector<row>& rows) {
  const size_t n = static_cast<size_t>(c.rows * c.cols * c.batch) * static_cast<size_t>(c.dtype.bytes);
  const xpose::matrix_desc d = xpose::matrix_desc::packed(c.rows, c.cols, c.dtype.bytes, c.batch);
  std::vector<unsigned char> in(n), want(n), got(n);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<unsigned char>(i * 2654435761u >> 13);
  if (!xpose::transpose_reference(in.data(), want.data(), d).ok()) usage_error("graph mode: reference failed");
  unsigned char *din = nullptr, *dout = nullptr;
  cudaStream_t st = nullptr;
  if (cudaMalloc(&din, n) != cudaSuccess || cudaMalloc(&dout, n) != cudaSuccess ||
      cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess)
    usage_error("graph mode: cannot allocate " + std::to_string(n) + " bytes");
  cudaMemcpy(din, in.data(), n, cudaMemcpyHostToDevice);
  cudaMemset(dout, 0xFF, n);
  std::string err;
  // best, checked after its replays.
  std::vector<std::pair<std::string, double>> timed;
  std::vector<bool> exact;
  for (const char* v : {"best"}) {
    cudaMemset(dout, 0xFF, n);
    const double t = graph_ms(
        st, [&] { return xpose::transpose_variant(v, din, dout, d, {}, st).ok(); }, 20, 50, &err);
    cudaStreamSynchronize(st);
    cudaMemcpy(got.data(), dout, n, cudaMemcpyDeviceToHost);
    timed.emplace_back(std::string(v) + " (graph)", t);
    exact.push_back(std::equal(got.begin(), got.end(), want.begin()));
  }
  const double t_copy = graph_ms(
      st, [&] { return cudaMemcpyAsync(dout, din, n, cudaMemcpyDeviceToDevice, st) == cudaSuccess; }, 20, 50, &err);
  timed.insert(timed.begin(), {"memcpy (graph)", t_copy});
  exact.insert(exact.begin(), true);
  for (size_t i = 0; i < timed.size(); ++i) {
    const auto& [name, t] = timed[i];
    row r;
    r.variant = name;
    r.backend = "gpu";
    r.spec = c;
    r.block = "-";
    r.timed = t > 0;
    r.exact = exact[i];
    r.check = t > 0 ? (r.exact ? "exact" : "FAILED: graph replay result differs") : "FAILED: " + err;
    if (t > 0) r.samples_ms = {t};
    summarize(r);
    r.extra["class"] = "tiny-graph";
    rows.push_back(r);
  }
  cudaFree(din);
  cudaFree(dout);
  cudaStreamDestroy(st);
}
#endif

}  // namespace

namespace {
struct sweep_args {
  std::string dtype_s = "u8,f16,f32,f64,c64", classes_s;
  bool quick = false, graph = false;
  int reps = 5, device = 0;
  double mib = 0;
};
int run_sweep(sweep_args& a, const common_opts& common, const std::string& command,
              dtype_info (*parse_dtype)(const std::string&));
}  // namespace

command add_sweep_command(CLI::App& root, common_opts& common, dtype_info (*parse_dtype)(const std::string&)) {
  auto a = std::make_shared<sweep_args>();
  CLI::App* app = root.add_subcommand("sweep", "the GPU shape-class sweep: best against memcpy on channel shuffles, skinny matrices, odd rows, small batches and tiny matrices");
  app->option_defaults()->always_capture_default();
  app->footer("Exit codes: 0 success; 1 a variant failed its bitwise check, or writing the output failed; 2 bad usage "
              "or no GPU (one line on stderr, nothing run).");
  app->add_option("--dtype", a->dtype_s, "comma-separated dtypes");
  app->add_flag("--quick", a->quick, "fewer channel counts, one HW, 8 MiB buffers");
  app->add_flag("--graph", a->graph, "also time the tiny cases as CUDA graph nodes against a memcpy node");
  app->add_option("--class", a->classes_s, "only these shape classes, comma-separated (CxHW, HWxC, batch, odd, ...)");
  add_real(app, "--mib", a->mib, 0, 4096, "bytes per buffer, MiB (0: 32; --quick 8)");
  add_count(app, "--reps", a->reps, 1, 1000, "timed runs per variant");
  add_count(app, "--device", a->device, 0, 4096, "CUDA device index");
  add_common_options(app, common);
  return {app, [a, &common, parse_dtype] { return run_sweep(*a, common, common.command, parse_dtype); }};
}

namespace {
int run_sweep(sweep_args& a, const common_opts& common, const std::string& command,
              dtype_info (*parse_dtype)(const std::string&)) {
  std::string dtype_s = a.dtype_s, classes_s = a.classes_s;
  const bool quick = a.quick;
  [[maybe_unused]] const bool graph = a.graph;  // CUDA builds
  const int reps = a.reps, device = a.device;
  const double mib = a.mib;
  if (mib > 0 && mib < 1) usage_error("--mib must be 0 (the default size) or between 1 and 4096");
  const std::string format_s = common.format;
  std::vector<dtype_info> dts;
  {
    std::string cur;
    for (char ch : dtype_s + ",") {
      if (ch != ',') {
        cur += ch;
        continue;
      }
      dts.push_back(parse_dtype(cur));
      cur.clear();
    }
  }
  std::string why;
  if (!gpu_usable(&why)) usage_error("sweep needs a GPU (" + why + ")");

  const long long target = static_cast<long long>((mib > 0 ? mib : quick ? 8 : 32) * 1048576.0);
  options o;
  o.variants = {"memcpy", "copy", "best"};
  o.warmup = 2;
  o.reps = reps;
  o.device = device;
  o.format = format_s;
  o.command = command;
  std::vector<std::string> classes;
  for (const dtype_info& dt : dts)
    for (const sweep_case& s : sweep_cases(dt.bytes, target, quick)) {
      if (!classes_s.empty() && ("," + classes_s + ",").find("," + s.cls + ",") == std::string::npos) continue;
      o.cases.push_back(case_spec{s.rows, s.cols, s.batch, dt});
      classes.push_back(s.cls);
    }
  std::vector<row> rows;
  run_meta meta;
  meta.command = command;
  {
    const std::time_t t = std::time(nullptr);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
    meta.date = buf;
  }
  int rc = run_gpu(o, rows, meta);
  // Shape class for every row; the route route_for picks for best's (the harness's
  // buffers are cudaMalloc'd: 256-byte aligned).
  for (row& r : rows) {
    for (size_t i = 0; i < o.cases.size(); ++i)
      if (o.cases[i].label() == r.spec.label()) r.extra["class"] = classes[i];
    if (r.variant == "best") {
      const auto d = xpose::matrix_desc::packed(r.spec.rows, r.spec.cols, r.spec.dtype.bytes, r.spec.batch);
      const auto c = xpose::detail::route_for(d, 0, 0, meta.cc);
      r.extra["path"] = xpose::detail::best_path_name(c.path) + (c.side ? "/g" + std::to_string(c.side) : "") +
                        (c.slab ? "/s" + std::to_string(c.slab / 1024) + "K" : "");
    } else {
      r.extra["path"] = "-";
    }
  }
#if defined(XPOSE_HAS_CUDA)
  if (graph) {
    std::vector<row> g;
    for (size_t i = 0; i < o.cases.size(); ++i)
      if (classes[i] == "tiny") {
        std::vector<row> two;
        graph_rows(o.cases[i], two);
        fill_ratios(two, "", "memcpy (graph)", meta.peak_gbs);
        for (row& r : two) {
          r.extra["path"] = "-";
          if (!r.exact) rc = 1;
        }
        g.insert(g.end(), two.begin(), two.end());
      }
    rows.insert(rows.end(), g.begin(), g.end());
  }
#endif
  emit(render(rows, meta, o.format, "xpose-bench sweep: the shape classes"));
  for (const row& r : rows)
    if (r.check.rfind("FAILED", 0) == 0)
      std::fprintf(stderr, "xpose-bench: %s %s: %s\n", r.variant.c_str(), r.spec.label().c_str(), r.check.c_str());
  return rc;
}
}  // namespace

}  // namespace xbench
