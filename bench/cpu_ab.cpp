// Two or more builds of the CPU backend on one permutation, in one process, calls interleaved: each libxpose is
// loaded into its own link namespace (dlmopen), its plan made and its output checked bitwise against the first's, then
// the libraries take turns, one call each per round, so that all of them see the same machine (on a shared VM the
// load moves single timings by 2x; the ratio of calls made microseconds apart moves by a few percent).
//
//   c++ -O2 -std=c++17 -Iinclude -Ibuild/include bench/cpu_ab.cpp -o build/cpu_ab -ldl
//   build/cpu_ab ES SHAPE AXES ROUNDS LIB [LIB ...] [--strides S --offset O --parent P] [--threads T]
//
// SHAPE 37x230x410x7x11, AXES 2,0,1,4,3 (np.transpose's), LIB a path to libxpose.so.*; strides (elements), offset and
// parent (the allocation, elements) describe a view as xpose-bench's random draws do (packed without them). Prints per
// library the median and minimum ms per call and the median over rounds of its time / the first library's, then
// `ratio` lines (bench/cpu_ab.py reads them). Exit 1 when an output differs, 2 on bad usage or a failed call.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "host_args.hpp"
#include "xpose/plan.hpp"
#include "xpose/xpose.hpp"

namespace {

using make_plan_t = xpose::status (*)(const xpose::layout&, const xpose::layout&, const int*, int,
                                      const xpose::plan_options&, xpose::plan*);
using execute_t = xpose::status (*)(const xpose::plan&, const void*, void*, const xpose::host_options&);
using packed_t = xpose::layout (*)(const xpose::layout&, const int*, int);

int usage() {
  std::fprintf(stderr,
               "usage: cpu_ab ES SHAPE AXES ROUNDS LIB [LIB ...] [--strides S --offset O --parent P] [--threads T]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) return usage();
  const int es = std::atoi(argv[1]);
  const std::vector<long long> ext = parse_list(argv[2]), ax = parse_list(argv[3]);
  const int rounds = std::atoi(argv[4]);
  std::vector<std::string> libs;
  std::vector<long long> strides;
  long long offset = 0, parent = 0;
  int threads = 1;
  for (int i = 5; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--strides" && i + 1 < argc) strides = parse_list(argv[++i]);
    else if (a == "--offset" && i + 1 < argc) offset = std::atoll(argv[++i]);
    else if (a == "--parent" && i + 1 < argc) parent = std::atoll(argv[++i]);
    else if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
    else libs.push_back(a);
  }
  // Each library brings its own OpenMP runtime: threads that spin after a parallel region would take the cores from
  // the next library's call.
  setenv("OMP_WAIT_POLICY", "passive", 0);
  const int r = static_cast<int>(ext.size());
  if (libs.empty() || rounds < 1 || r < 1 || r > xpose::layout::max_rank || static_cast<int>(ax.size()) != r ||
      (!strides.empty() && static_cast<int>(strides.size()) != r))
    return usage();
  xpose::layout in{};
  in.rank = r;
  in.elem_size = es;
  long long count = 1;
  for (int k = r - 1; k >= 0; --k) {
    in.extents[k] = ext[k];
    in.strides[k] = strides.empty() ? count : strides[k];
    count *= ext[k];
  }
  if (strides.empty()) parent = count;
  int axes[xpose::layout::max_rank] = {};
  for (int k = 0; k < r; ++k) axes[k] = static_cast<int>(ax[k]);
  const std::size_t in_bytes = static_cast<std::size_t>(parent) * es, out_bytes = static_cast<std::size_t>(count) * es;
  auto* src = static_cast<unsigned char*>(std::aligned_alloc(4096, (in_bytes + 4095) / 4096 * 4096));
  auto* dst = static_cast<unsigned char*>(std::aligned_alloc(4096, (out_bytes + 4095) / 4096 * 4096));
  if (!src || !dst) return 2;
  for (std::size_t i = 0; i < in_bytes; ++i) src[i] = static_cast<unsigned char>(i * 131 + (i >> 9));
  const unsigned char* base = src + offset * es;

  const std::size_t n = libs.size();
  std::vector<xpose::plan> plans(n);
  std::vector<execute_t> exec(n);
  std::vector<unsigned char> first;
  const xpose::host_options ho{threads};
  for (std::size_t l = 0; l < n; ++l) {
    void* h = dlmopen(LM_ID_NEWLM, libs[l].c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      std::fprintf(stderr, "cpu_ab: %s\n", dlerror());
      return 2;
    }
    auto mk = reinterpret_cast<make_plan_t>(
        dlsym(h, "_ZN5xpose9make_planERKNS_6layoutES2_PKiiRKNS_12plan_optionsEPNS_4planE"));
    auto packed = reinterpret_cast<packed_t>(dlsym(h, "_ZN5xpose15permuted_packedERKNS_6layoutEPKii"));
    exec[l] = reinterpret_cast<execute_t>(dlsym(h, "_ZN5xpose12execute_hostERKNS_4planEPKvPvRKNS_12host_optionsE"));
    if (!mk || !packed || !exec[l]) return 2;
    const xpose::layout out = packed(in, axes, r);
    if (!mk(in, out, axes, r, {}, &plans[l]).ok()) return 2;
    std::memset(dst, 0, out_bytes);
    if (!exec[l](plans[l], base, dst, ho).ok()) return 2;
    if (l == 0) first.assign(dst, dst + out_bytes);
    else if (std::memcmp(first.data(), dst, out_bytes) != 0) {
      std::fprintf(stderr, "cpu_ab: %s differs from %s\n", libs[l].c_str(), libs[0].c_str());
      return 1;
    }
  }
  std::vector<std::vector<double>> ms(n);
  for (int i = 0; i < rounds; ++i)
    for (std::size_t l = 0; l < n; ++l) {
      const auto t0 = std::chrono::steady_clock::now();
      const xpose::status s = exec[l](plans[l], base, dst, ho);
      ms[l].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      if (!s.ok()) return 2;
    }
  for (std::size_t l = 0; l < n; ++l) {
    std::vector<double> t = ms[l], q;
    for (int i = 0; i < rounds; ++i) q.push_back(ms[l][i] / ms[0][i]);
    std::sort(t.begin(), t.end());
    std::sort(q.begin(), q.end());
    std::printf("ratio %zu median_ms %.3f min_ms %.3f of_first %.4f %s\n", l, t[t.size() / 2], t[0], q[q.size() / 2],
                libs[l].c_str());
  }
  return 0;
}
