// Permutation fuzzer: random ranks (1-16), extents biased to 1s, odd sizes and tile
// edges, random axes, padded and reordered strides on both sides (broadcast inputs),
// every element size, conjugation, pointer offsets; plus hostile calls (bad axes,
// shape mismatch, self-overlapping outputs, negative strides, misaligned or
// overlapping pointers) that must fail with a status and write nothing. Outputs sit
// between guard bytes; every byte of the buffer is compared with the independent
// reference. Seeded: `--seed s --case i` replays one case. Modes: cpu, gpu (exit 77
// without a GPU). Bounded by --cases and --seconds.
#include <algorithm>
#include <xpose/xpose.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#if defined(XPOSE_HAS_CUDA)
#include <cuda_runtime.h>
#endif

#include "permute_ref.hpp"

namespace {

constexpr std::size_t guard = 256;  // bytes before and after every output
constexpr int skip_code = 77;

struct fuzz_case {
  xpose_test::perm_case c;
  int naxes;
  bool conj;
  int in_shift, out_shift;  // bytes added to the pointers
  bool hostile;
};

fuzz_case draw(std::uint64_t seed, std::uint64_t index) {
  std::mt19937_64 g(seed * 1000003u + index);
  fuzz_case f{};
  const int sizes[] = {1, 2, 4, 8, 16};
  const int es = sizes[g() % 5];
  const int rank = g() % 4 == 0 ? 1 + static_cast<int>(g() % 16) : 1 + static_cast<int>(g() % 6);
  const std::int64_t budget = g() % 8 == 0 ? 200000 : 4000;
  const bool padded = g() % 2;
  f.c = xpose_test::random_case(g, rank, es, budget, padded);
  if (g() % 4 == 0) {  // a TTC-like extent: 48-element tile sides, 15/28-long fastest dims
    static const std::int64_t ttc[] = {15, 28, 32, 48, 112, 144};
    const int k = static_cast<int>(g() % rank);
    const std::int64_t e = ttc[g() % 6];
    std::int64_t n = e;
    for (int j = 0; j < rank; ++j) n *= j == k ? 1 : f.c.in.extents[j];
    if (n <= budget) {
      f.c.in.extents[k] = e;
      for (int j = 0; j < rank; ++j) f.c.out.extents[j] = f.c.in.extents[f.c.axes[j]];
      xpose_test::random_strides(f.c.in, g, padded, !padded);
      xpose_test::random_strides(f.c.out, g, false, !padded);
    }
  }
  f.naxes = rank;
  f.conj = (es == 8 || es == 16) && g() % 3 == 0;
  f.in_shift = es * static_cast<int>(g() % 3);
  f.out_shift = es * static_cast<int>(g() % 3);
  f.hostile = g() % 6 == 0;
  if (f.hostile) {
    switch (g() % 6) {
      case 0: {
        const int i = static_cast<int>(g() % rank);
        f.c.axes[i] = rank == 1 ? 1 : f.c.axes[(i + 1) % rank];
        break;
      }
      case 1: f.naxes = rank + 1 - 2 * static_cast<int>(g() % 2); break;
      case 2: f.c.out.extents[g() % rank] += 1; break;
      case 3: f.c.in.strides[g() % rank] = -1; break;
      case 4:  // misaligned input, or (one-byte elements) conjugation of a non-complex size
        if (es > 1) f.in_shift = 1;
        else f.conj = true;
        break;
      default: f.conj = !(es == 8 || es == 16); if (!f.conj) f.naxes = 0; break;
    }
  }
  return f;
}

std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(g());
  return v;
}

// Runs one case; returns false (after printing why) on a failure.
bool run_case(const fuzz_case& f, bool gpu, std::uint64_t seed, std::uint64_t index) {
  const std::int64_t es = f.c.in.elem_size;
  xpose::layout in_l = f.c.in;
  std::int64_t in_elems = 1, out_elems = 1;
  for (int k = 0; k < in_l.rank; ++k) {
    in_elems += (in_l.extents[k] - 1) * (in_l.strides[k] < 0 ? 0 : in_l.strides[k]);
    out_elems += (f.c.out.extents[k] - 1) * f.c.out.strides[k];
  }
  const std::size_t ni = static_cast<std::size_t>(in_elems * es) + 32, no = static_cast<std::size_t>(out_elems * es);
  const auto src = random_bytes(ni, seed ^ index);
  std::vector<unsigned char> want(no + 2 * guard + 32, 0xFF), got(want.size(), 0);
  const bool ok_expected = !f.hostile;
  if (ok_expected)
    xpose_test::reference_permute(src.data() + f.in_shift, want.data() + guard + f.out_shift, f.c.in, f.c.out,
                                  f.c.axes, f.conj);
  xpose::plan_options po;
  po.conjugate = f.conj;
  xpose::status s;
  if (!gpu) {
    got.assign(want.size(), 0xFF);
    xpose::plan p;
    if (index % 2 == 1 && xpose::make_plan(f.c.in, f.c.out, f.c.axes, f.naxes, po, &p).ok()) {
      // Odd cases: plan, then an edited copy (one field off by one) must be rejected
      // before any write, then the plan itself through execute_host.
      xpose::plan e = p;
      const int k = static_cast<int>((seed ^ index) % 16), which = static_cast<int>((seed + index) % 6);
      if (which == 0) e.count += 1;
      if (which == 1) e.in_bytes += 1;
      if (which == 2) e.in.strides[k] += 1;
      if (which == 3) e.out.extents[k] += 1;
      if (which == 4) e.algo = static_cast<xpose::algorithm>(static_cast<int>(e.algo) + 1);
      if (which == 5) e.desc.rows += 1;
      const xpose::status se = xpose::execute_host(e, src.data() + f.in_shift, got.data() + guard + f.out_shift, {});
      const bool written = std::any_of(got.begin(), got.end(), [](unsigned char b) { return b != 0xFF; });
      if (written || (se.code() != xpose::status_code::invalid_argument && !(se.ok() && e.count == 0 && p.count == 0))) {
        std::printf("seed %llu case %llu: edited plan (edit %d, slot %d): %s, output %s\n", (unsigned long long)seed,
                    (unsigned long long)index, which, k, xpose::to_string(se.code()), written ? "written" : "untouched");
        return false;
      }
      s = xpose::execute_host(p, src.data() + f.in_shift, got.data() + guard + f.out_shift, {});
    } else {
      s = xpose::permute_host(src.data() + f.in_shift, got.data() + guard + f.out_shift, f.c.in, f.c.out, f.c.axes,
                              f.naxes, po, {});
    }
  } else {
#if defined(XPOSE_HAS_CUDA)
    unsigned char *din = nullptr, *dout = nullptr;
    if (cudaMalloc(&din, ni) != cudaSuccess || cudaMalloc(&dout, got.size()) != cudaSuccess) {
      std::printf("seed %llu case %llu: cudaMalloc failed\n", (unsigned long long)seed, (unsigned long long)index);
      return false;
    }
    cudaMemcpy(din, src.data(), ni, cudaMemcpyHostToDevice);
    cudaMemset(dout, 0xFF, got.size());
    s = xpose::permute(din + f.in_shift, dout + guard + f.out_shift, f.c.in, f.c.out, f.c.axes, f.naxes, po, nullptr);
    cudaDeviceSynchronize();
    cudaMemcpy(got.data(), dout, got.size(), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
#endif
  }
  if (s.ok() != ok_expected) {
    std::printf("seed %llu case %llu: expected %s, got %s (%s)\n", (unsigned long long)seed,
                (unsigned long long)index, ok_expected ? "ok" : "an error", xpose::to_string(s.code()), s.message());
    return false;
  }
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) {
      std::printf("seed %llu case %llu: rank %d es %lld: byte %zu of the output buffer differs (%s)\n",
                  (unsigned long long)seed, (unsigned long long)index, f.c.in.rank, (long long)es, i,
                  ok_expected ? "wrong or missing element, or a guard/padding byte written" : "rejected call wrote");
      return false;
    }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = "cpu";
  std::uint64_t seed = 1, cases = 1000, only = ~0ull;
  double seconds = 60;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--mode") mode = v;
    else if (k == "--seed") seed = std::strtoull(v.c_str(), nullptr, 10);
    else if (k == "--cases") cases = std::strtoull(v.c_str(), nullptr, 10);
    else if (k == "--case") only = std::strtoull(v.c_str(), nullptr, 10);
    else if (k == "--seconds") seconds = std::strtod(v.c_str(), nullptr);
    else {
      std::fprintf(stderr, "fuzz_permute: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  const bool gpu = mode == "gpu";
  if (gpu && xpose::device_count() == 0) {
    std::printf("fuzz_permute: no CUDA device: skipped\n");
    return skip_code;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t ran = 0, hostile = 0;
  for (std::uint64_t i = (only == ~0ull ? 0 : only); i < (only == ~0ull ? cases : only + 1); ++i) {
    const fuzz_case f = draw(seed, i);
    if (!run_case(f, gpu, seed, i)) return 1;
    ++ran, hostile += f.hostile;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds) break;
  }
  std::printf("fuzz_permute %s: %llu cases (%llu hostile) passed, seed %llu\n", mode.c_str(),
              (unsigned long long)ran, (unsigned long long)hostile, (unsigned long long)seed);
  return 0;
}
