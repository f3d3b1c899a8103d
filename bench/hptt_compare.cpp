// xpose's CPU backend beside HPTT (Springer et al., "HPTT: a high-performance tensor transposition C++ library",
// built from its public source by bench/hptt_compare.py) on one row-major permutation of f32 or f64, in one process:
// both HPTT plans (ESTIMATE and MEASURE, alpha 1, beta 0) and xpose's plan are made once and each output is checked
// bitwise against a plain loop on a poisoned buffer; then the three take turns, one call each per round, so that all
// of them see the same machine. A plan whose output differs is reported and left out of the timing.
//
//   hptt_compare ES SHAPE AXES ROUNDS [--threads T]
//
// SHAPE 37x230x410 (row-major extents), AXES 2,0,1 (np.transpose's: output dim k is input dim AXES[k]). Prints one
// line: `result es=ES shape=SHAPE axes=AXES xpose_ms=.. estimate_ms=.. measure_ms=..` (a time of -1 for a plan whose
// output was wrong, with `wrong=estimate` / `wrong=measure`). Exit 1 when xpose's output is wrong, 2 on bad usage.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "hptt.h"
#include "host_args.hpp"
#include "xpose/plan.hpp"
#include "xpose/xpose.hpp"

namespace {

int usage() {
  std::fprintf(stderr, "usage: hptt_compare ES SHAPE AXES ROUNDS [--threads T]   (ES 4 or 8)\n");
  return 2;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class T>
int run(const std::vector<long long>& ext, const std::vector<long long>& ax, int rounds, int threads, const char* shape,
        const char* axes_s) {
  const int r = static_cast<int>(ext.size());
  xpose::layout in{};
  in.rank = r;
  in.elem_size = sizeof(T);
  long long count = 1;
  for (int k = r - 1; k >= 0; --k) {
    in.extents[k] = ext[k];
    in.strides[k] = count;
    count *= ext[k];
  }
  int axes[xpose::layout::max_rank] = {};
  for (int k = 0; k < r; ++k) axes[k] = static_cast<int>(ax[k]);
  const auto n = static_cast<std::size_t>(count);
  std::vector<T> a(n), b(n), want(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<T>(static_cast<double>((i * 2654435761u) % 1000003) + 0.25);
  // The reference: output element (j_0, ..., j_{r-1}) row-major is input element with index i_{axes[k]} = j_k.
  {
    std::vector<long long> out_ext(r), in_stride(r), j(r, 0);
    for (int k = 0; k < r; ++k) out_ext[k] = ext[axes[k]], in_stride[k] = in.strides[axes[k]];
    long long src = 0;
    for (std::size_t o = 0; o < n; ++o) {
      want[o] = a[static_cast<std::size_t>(src)];
      for (int k = r - 1; k >= 0; --k) {  // odometer over the output, the source offset along
        src += in_stride[k];
        if (++j[k] < out_ext[k]) break;
        src -= in_stride[k] * out_ext[k];
        j[k] = 0;
      }
    }
  }
  auto poison = [&] { std::memset(b.data(), 0xFF, n * sizeof(T)); };
  auto exact = [&] { return std::memcmp(b.data(), want.data(), n * sizeof(T)) == 0; };

  xpose::plan p;
  const xpose::layout out = xpose::permuted_packed(in, axes, r);
  if (!xpose::make_plan(in, out, axes, r, {}, &p).ok()) return 2;
  const xpose::host_options ho{threads};
  poison();
  if (!xpose::execute_host(p, a.data(), b.data(), ho).ok() || !exact()) {
    std::printf("result es=%d shape=%s axes=%s xpose output WRONG\n", static_cast<int>(sizeof(T)), shape, axes_s);
    return 1;
  }
  std::vector<int> perm(r), size(r);
  for (int k = 0; k < r; ++k) perm[k] = axes[k], size[k] = static_cast<int>(ext[k]);
  // HPTT's MEASURE times candidate plans on B (its content is then undefined): plans first, then the checks.
  std::shared_ptr<hptt::Transpose<T>> hp[2];
  const hptt::SelectionMethod how[2] = {hptt::ESTIMATE, hptt::MEASURE};
  for (int m = 0; m < 2; ++m)
    hp[m] = hptt::create_plan(perm.data(), r, T(1), a.data(), size.data(), nullptr, T(0), b.data(), nullptr, how[m],
                              threads, nullptr, true);
  bool ok[2];
  for (int m = 0; m < 2; ++m) {
    poison();
    hp[m]->execute();
    ok[m] = exact();
  }
  std::vector<double> t[3];
  for (int i = 0; i < rounds; ++i)
    for (int m = 0; m < 3; ++m) {
      if (m > 0 && !ok[m - 1]) continue;
      const auto t0 = std::chrono::steady_clock::now();
      if (m == 0) (void)xpose::execute_host(p, a.data(), b.data(), ho);
      else hp[m - 1]->execute();
      t[m].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  std::printf("result es=%d shape=%s axes=%s xpose_ms=%.3f estimate_ms=%.3f measure_ms=%.3f%s%s\n",
              static_cast<int>(sizeof(T)), shape, axes_s, median(t[0]), ok[0] ? median(t[1]) : -1.0,
              ok[1] ? median(t[2]) : -1.0, ok[0] ? "" : " wrong=estimate", ok[1] ? "" : " wrong=measure");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) return usage();
  const int es = std::atoi(argv[1]);
  const std::vector<long long> ext = parse_list(argv[2]), ax = parse_list(argv[3]);
  const int rounds = std::atoi(argv[4]);
  int threads = 1;
  for (int i = 5; i < argc; ++i) {
    if (std::string(argv[i]) == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
    else return usage();
  }
  const int r = static_cast<int>(ext.size());
  if ((es != 4 && es != 8) || rounds < 1 || threads < 1 || r < 1 || r > xpose::layout::max_rank ||
      static_cast<int>(ax.size()) != r)
    return usage();
  return es == 4 ? run<float>(ext, ax, rounds, threads, argv[2], argv[3])
                 : run<double>(ext, ax, rounds, threads, argv[2], argv[3]);
}
