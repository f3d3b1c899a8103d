// Experiment (not part of the library): the word tile (bench/word_tile.hpp) against the library on random N-d
// permutations of 1- and 2-byte elements in one run, every output checked bitwise against the library's.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Ibuild/include -Isrc -Ibench bench/word_tile.cu -Lbuild -lxpose -o word_tile
//   ./word_tile [CASES] [SEED] [E]    (E: 1, 2 or 0 for both; LD_LIBRARY_PATH with libxpose and libhwy)
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "bench_util.hpp"
#include "cuda/nd/nd_route.hpp"
#include "word_tile.hpp"
#include "xpose/xpose.hpp"

namespace {
using xpose::index_t;

template <int E, int R, int MINB>
__global__ void __launch_bounds__(wt::NT, MINB)
    word_kernel(const wt::span_map32 m, const wt::geom g, const void* __restrict__ in_v, void* __restrict__ out_v,
                std::uint64_t lo, std::uint64_t hi) {
  __shared__ __align__(16) unsigned char sm[wt::SMEM + 16];
  __shared__ index_t info_base[2][2];
  __shared__ int info_short[2];
  const int tid = static_cast<int>(threadIdx.x);
  const index_t G = gridDim.x;
  index_t t = blockIdx.x;
  if (t >= m.tiles) return;
  auto info = [&](index_t u, int b) {
    int sc = 0;
    m.tile(u, &info_base[b][0], &info_base[b][1], &sc);
    info_short[b] = sc;
  };
  if (tid == 0) {
    info(t, 0);
    if (t + G < m.tiles) info(t + G, 1);
  }
  wt::slots<R> s;
  wt::init_slots<R>(g, tid, &s);
  __syncthreads();
  const std::uint64_t bin = reinterpret_cast<std::uint64_t>(in_v), bout = reinterpret_cast<std::uint64_t>(out_v);
  std::uint32_t v0[R], v1[R];
  std::uint64_t tin = bin + info_base[0][0] * E, tout = bout + info_base[0][1] * E;
  int sc = info_short[0];
  wt::load_tile(g, s, tin, sc, lo, hi, v0, v1);
  for (int it = 0;; ++it) {
    wt::put_tile(g, s, tin, sc, v0, v1, sm);
    __syncthreads();
    const index_t tn = t + G;
    std::uint64_t tinn = 0, toutn = 0;
    int scn = 0;
    if (tn < m.tiles) {
      const int b = (it + 1) & 1;
      tinn = bin + info_base[b][0] * E, toutn = bout + info_base[b][1] * E, scn = info_short[b];
      wt::load_tile(g, s, tinn, scn, lo, hi, v0, v1);
    }
    if (tid == 0 && tn + G < m.tiles) info(tn + G, it & 1);
    wt::store_tile<E, R>(g, s, tout, sc, sm);
    if (tn >= m.tiles) break;
    __syncthreads();
    t = tn, tin = tinn, tout = toutn, sc = scn;
  }
}

index_t odd_extent(std::mt19937_64& gen, index_t lo, index_t hi) {
  std::uniform_int_distribution<index_t> d(lo, hi);
  index_t n = d(gen);
  if (std::uniform_real_distribution<double>(0, 1)(gen) < 0.8 && n % 2 == 0) ++n;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 20;
  const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : std::random_device{}() * 2654435761ull;
  const int Esel = argc > 3 ? std::atoi(argv[3]) : 0;
  const bool two_d = argc > 4 && std::strcmp(argv[4], "2d") == 0;  // batched 2-D transposes with odd sides
  std::printf("seed %llu (repeat: %s %d %llu %d)\n", static_cast<unsigned long long>(seed), argv[0], n,
              static_cast<unsigned long long>(seed), Esel);
  std::mt19937_64 gen(seed);
  constexpr std::size_t scratch_bytes = std::size_t{192} << 20;
  unsigned char* scratch = nullptr;
  CK(cudaMalloc(&scratch, scratch_bytes));
  auto time_ms = [&](const std::function<void()>& f) { return flushed_us(f, scratch, scratch_bytes, nullptr, 3, 15) / 1000.0; };
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::printf("%-28s %-14s %2s %4s %5s %5s %6s %6s %6s %6s  (fraction of a cudaMemcpy; lib time / word time)\n", "shape",
              "axes", "E", "view", "LA", "LB", "pred", "lib", "word", "ratio");
  std::vector<double> rl, rw, ratio, rp, rv[3];
  int done = 0, bad = 0, within = 0;
  for (int tries = 0; done < n && tries < 50 * n; ++tries) {
    const int E = Esel ? Esel : std::uniform_int_distribution<int>(1, 2)(gen);
    int r = std::uniform_int_distribution<int>(3, 7)(gen);
    index_t ext[8];
    const double target = std::exp(std::uniform_real_distribution<double>(std::log(16.0), std::log(128.0))(gen)) * 1048576.0;
    double rest = target / E;
    for (int k = 0; k < r; ++k) {
      const double share = std::pow(rest, 1.0 / (r - k)) * std::exp(std::uniform_real_distribution<double>(-1.2, 1.2)(gen));
      ext[k] = std::max<index_t>(2, odd_extent(gen, std::max<index_t>(2, static_cast<index_t>(share * 0.7)),
                                               std::max<index_t>(3, static_cast<index_t>(share * 1.3))));
      rest = std::max(1.0, rest / static_cast<double>(ext[k]));
    }
    int axes[8];
    for (int k = 0; k < r; ++k) axes[k] = k;
    std::shuffle(axes, axes + r, gen);
    if (axes[r - 1] == r - 1) std::swap(axes[r - 1], axes[0]);
    if (two_d) {
      // batch x R x C -> batch x C x R, R and C odd, one of them short (16-400) in half the draws.
      r = 3;
      const double total = target / E;
      const bool short_side = std::uniform_int_distribution<int>(0, 1)(gen) == 1;
      ext[2] = odd_extent(gen, 16, short_side ? 400 : 20000);
      ext[1] = odd_extent(gen, 16, std::max<index_t>(17, std::min<index_t>(20000, static_cast<index_t>(total / ext[2]))));
      ext[0] = std::max<index_t>(1, static_cast<index_t>(total / static_cast<double>(ext[1] * ext[2])));
      axes[0] = 0, axes[1] = 2, axes[2] = 1;
    }
    index_t count = 1;
    for (int k = 0; k < r; ++k) count *= ext[k];
    if (count * E < (index_t{8} << 20) || count * E > (index_t{160} << 20)) continue;
    const bool view = !two_d && std::uniform_int_distribution<int>(0, 4)(gen) == 0;
    xpose::layout L = xpose::layout::packed(r, ext, E);
    if (view) {
      index_t st = 1;
      for (int k = r - 1; k >= 0; --k) {
        L.strides[k] = st;
        st *= ext[k] + (k < r - 1 ? std::uniform_int_distribution<int>(0, 2)(gen) : 0);
      }
    }
    const xpose::layout O = xpose::permuted_packed(L, axes, r);
    xpose::plan p;
    if (!xpose::make_plan(L, O, axes, r, {}, &p).ok() ||
        p.algo != (two_d ? xpose::algorithm::transpose_2d : xpose::algorithm::permute_nd))
      continue;
    index_t span = 0;
    for (int k = 0; k < r; ++k) span += (L.extents[k] - 1) * L.strides[k];
    const std::size_t in_bytes = static_cast<std::size_t>((span + 1) * E), bytes = static_cast<std::size_t>(count * E);
    unsigned char *din = nullptr, *dref = nullptr, *dout = nullptr, *dcopy = nullptr;
    CK(cudaMalloc(&din, in_bytes));
    CK(cudaMalloc(&dref, bytes));
    CK(cudaMalloc(&dout, bytes));
    CK(cudaMalloc(&dcopy, bytes));
    // Variants: (slots, blocks an SM) = (8, 3), (6, 3), (6, 4).
    constexpr int NV = 3;
    const int vr[NV] = {8, 6, 6}, vb[NV] = {3, 3, 4};
    wt::geom gv[NV];
    wt::span_map32 mv[NV];
    const bool lib_span = two_d || xpose::detail::nd_route_plan(p, din, dref).kernel == xpose::detail::nd_kernel::span;
    bool fits = lib_span;
    for (int v = 0; v < NV && fits; ++v) {
      fits = wt::choose(p, din, dout, vr[v], &gv[v]);
      if (fits) {
        const auto wide = xpose::detail::make_span_map(p, gv[v].c);
        fits = xpose::detail::fits32(wide.tiles);
        if (fits) mv[v] = xpose::detail::make_span_map<wt::span_map32>(p, gv[v].c);
      }
    }
    if (!fits) {
      CK(cudaFree(din));
      CK(cudaFree(dref));
      CK(cudaFree(dout));
      CK(cudaFree(dcopy));
      continue;
    }
    std::vector<unsigned char> h(in_bytes);
    for (std::size_t k = 0; k < in_bytes; k += 8) {
      const std::uint64_t v = gen();
      std::memcpy(h.data() + k, &v, std::min<std::size_t>(8, in_bytes - k));
    }
    CK(cudaMemcpy(din, h.data(), in_bytes, cudaMemcpyHostToDevice));
    auto lib = [&] {
      if (!xpose::execute(p, din, dref).ok()) std::exit(2);
    };
    const std::uint64_t lo = reinterpret_cast<std::uint64_t>(din), hi = lo + in_bytes;
    auto word_v = [&](int v) {
      const wt::geom& g = gv[v];
      const wt::span_map32& m = mv[v];
      const unsigned grid = static_cast<unsigned>(std::min<index_t>(m.tiles, static_cast<index_t>(sms) * vb[v]));
      if (E == 1) {
        if (v == 0) word_kernel<1, 8, 3><<<grid, wt::NT>>>(m, g, din, dout, lo, hi);
        if (v == 1) word_kernel<1, 6, 3><<<grid, wt::NT>>>(m, g, din, dout, lo, hi);
        if (v == 2) word_kernel<1, 6, 4><<<grid, wt::NT>>>(m, g, din, dout, lo, hi);
      } else {
        if (v == 0) word_kernel<2, 8, 3><<<grid, wt::NT>>>(m, g, din, dout, lo, hi);
        if (v == 1) word_kernel<2, 6, 3><<<grid, wt::NT>>>(m, g, din, dout, lo, hi);
        if (v == 2) word_kernel<2, 6, 4><<<grid, wt::NT>>>(m, g, din, dout, lo, hi);
      }
    };
    CK(cudaMemset(dref, 0xFF, bytes));
    lib();
    std::vector<unsigned char> want(bytes), got(bytes);
    CK(cudaMemcpy(want.data(), dref, bytes, cudaMemcpyDeviceToHost));
    bool ok = true;
    double tv[NV];
    for (int v = 0; v < NV; ++v) {
      CK(cudaMemset(dout, 0xFF, bytes));
      word_v(v);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(got.data(), dout, bytes, cudaMemcpyDeviceToHost));
      ok = ok && got == want;
    }
    bad += ok ? 0 : 1;
    const double tc = time_ms([&] { CK(cudaMemcpyAsync(dcopy, dref, bytes, cudaMemcpyDeviceToDevice)); });
    const double tl = time_ms(lib);
    for (int v = 0; v < NV; ++v) tv[v] = time_ms([&] { word_v(v); });
    int bv = 0;
    for (int v = 1; v < NV; ++v)
      if (tv[v] < tv[bv]) bv = v;
    const double tw = tv[bv];
    const wt::geom& g = gv[bv];
    for (int v = 0; v < NV; ++v) rv[v].push_back(tc / tv[v]);
    char shape[96] = "", ax[48] = "";
    for (int k = 0; k < r; ++k) {
      std::snprintf(shape + std::strlen(shape), sizeof shape - std::strlen(shape), k ? "x%lld" : "%lld",
                    static_cast<long long>(ext[k]));
      std::snprintf(ax + std::strlen(ax), sizeof ax - std::strlen(ax), k ? ",%d" : "%d", axes[k]);
    }
    std::printf("%-28s %-14s %2d %4d %5d %5d %6.3f %6.3f %6.3f %6.3f  v %.3f %.3f %.3f%s\n", shape, ax, E, view ? 1 : 0,
                g.LA, g.LB, g.pred, tc / tl, tc / tw, tl / tw, tc / tv[0], tc / tv[1], tc / tv[2], ok ? "" : "  MISMATCH");
    std::fflush(stdout);
    rl.push_back(tc / tl), rw.push_back(tc / tw), ratio.push_back(tl / tw), rp.push_back(g.pred);
    if (std::fabs(g.pred / (tc / tw) - 1.0) <= 0.15) ++within;
    ++done;
    CK(cudaFree(din));
    CK(cudaFree(dref));
    CK(cudaFree(dout));
    CK(cudaFree(dcopy));
  }
  CK(cudaFree(scratch));
  if (rl.empty()) return 1;
  auto med = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  auto mn = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
  std::printf("%d cases, %d mismatched: median lib %.3f (min %.3f), word %.3f (min %.3f), lib time / word time %.3f "
              "(min %.3f); pred within 15%%: %d\n",
              done, bad, med(rl), mn(rl), med(rw), mn(rw), med(ratio), mn(ratio), within);
  std::printf("variants (8 slots 3 blocks, 6 slots 3 blocks, 6 slots 4 blocks): medians %.3f %.3f %.3f\n", med(rv[0]),
              med(rv[1]), med(rv[2]));
  return bad != 0;
}
