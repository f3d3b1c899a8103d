// Experiment (not part of the library): the span tile's 1- and 2-byte plans with word stores, against the library's
// span tile (one element per store) in one run, every output checked bitwise against the library's.
//
// Why: Nsight Compute on a 1-byte span plan (docs/RESULTS.md "N-d: the span tile") puts the limit in L2 (78% of its
// throughput against DRAM's 36%): a warp's byte stores reach L2 as one 32-byte request where a copy's lanes make
// 128-byte ones. Here the tile, its planner (span_choose) and its loads are the library's; the shared tile is in input
// order with one pad byte per P elements where P (the input-order pitch of the output's fastest dim) is even, so that
// the elements of an output run lie Pp = P + pad bytes apart (odd: consecutive words of a run on distinct banks). The
// stores move aligned 4-byte words: each word slot (run r, word w) finds the run's start alignment s once per tile
// ((out + tile origin + run offset) mod 4, in elements), gathers elements EPW w - s .. EPW w - s + EPW - 1 of the run
// (EPW = 4 / E) from shared memory and stores one aligned word; the at most two words a run shares with its
// neighbours store their own elements one by one. Plans whose output runs are under 6 elements are skipped (too many
// partial words; more slots than the registers hold).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Ibuild/include -Isrc bench/span_words.cu -Lbuild -lxpose -o span_words
//   ./span_words [CASES] [SEED] [E]    (E: 1 or 2, default 1; LD_LIBRARY_PATH with libxpose and libhwy)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "bench_util.hpp"
#include "core/nd_map.hpp"
#include "core/span_map.hpp"
#include "xpose/plan.hpp"
#include "xpose/xpose.hpp"


namespace {

using xpose::index_t;
using xpose::detail::fast_div32;
using xpose::detail::span_map32;

constexpr int NT = 256, R = 8;  // threads; input slots per thread
__host__ __device__ constexpr int word_slots(int E) { return E == 1 ? 4 : 6; }  // word slots per thread
constexpr int SM_ELEMS = 2048 + 1024 + 16;

struct words_geom {
  int L0 = 0;       // output run length (the output's fastest tile dim), elements
  int Pp = 0;       // shared step between a run's elements: P + pad
  int pad = 0;      // 1 where P is even
  fast_div32 divP;  // P
  int Wm = 0;       // word slots per run: (L0 + 2 (EPW - 1)) / EPW covers every start alignment
  int NR = 0;       // runs of a whole tile
  int runcut = 0;   // the short-cut bit of the run's own dim where it is cut (0: not cut)
  int Lshort = 0;   // the run's length in a tile short in that cut
};

__device__ __forceinline__ int smem2(const words_geom& g, int i) {
  return i + static_cast<int>(g.divP.div(static_cast<std::uint32_t>(i))) * g.pad;
}

template <int E>
__global__ void __launch_bounds__(NT, 4)
    span_words(const span_map32 m, const words_geom g, const void* __restrict__ in_v, void* __restrict__ out_v) {
  using T = std::conditional_t<E == 1, unsigned char, unsigned short>;
  constexpr int EPW = 4 / E, RW = word_slots(E);  // elements per word; word slots
  __shared__ T sm[SM_ELEMS];
  const T* __restrict__ in = static_cast<const T*>(in_v);
  T* __restrict__ out = static_cast<T*>(out_v);
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
  // Input slots: as the library's kernel, the shared index smem2(p).
  const int V = m.V, nk = (V - tid + NT - 1) / NT;
  unsigned ioff[R];
  unsigned sidx[(R + 1) / 2] = {};
  unsigned lmask = 0;
#pragma unroll
  for (int k = 0; k < R; ++k) {
    const int p = tid + k * NT;
    ioff[k] = 0;
    if (k < nk) {
      ioff[k] = static_cast<unsigned>(m.in_off(p));
      sidx[k / 2] |= static_cast<unsigned>(smem2(g, p)) << (16 * (k % 2));
      const int e = m.edge_bits(p);
      for (int sc = 0; sc < 4; ++sc)
        if ((e & sc) == 0) lmask |= 1u << (8 * sc + k);
    }
  }
  // Word slots: (run r, word w) = divmod(tid + k * NT, Wm); the run's output offset and shared start.
  unsigned woff[RW], wpack[RW];
  unsigned wmask = 0;
#pragma unroll
  for (int k = 0; k < RW; ++k) {
    const int u = tid + k * NT, r = u / g.Wm, w = u % g.Wm;
    woff[k] = wpack[k] = 0;
    if (r < g.NR) {
      int i0 = 0;
      woff[k] = static_cast<unsigned>(m.out_off(r * g.L0, &i0));
      wpack[k] = static_cast<unsigned>(smem2(g, i0)) | (static_cast<unsigned>(w) << 16);
      const int e = m.edge_bits(r * g.L0);
      for (int sc = 0; sc < 4; ++sc)
        if (((e >> 2) & sc) == 0) wmask |= 1u << (8 * sc + k);
    }
  }
  __syncthreads();
  T v[R];
  auto load = [&](index_t base, int sc) {
    const T* __restrict__ src = in + base;
    asm("" : "+l"(src));
    const unsigned lm = lmask >> (8 * sc);
#pragma unroll
    for (int k = 0; k < R; ++k)
      if (lm & (1u << k)) v[k] = __ldg(src + ioff[k]);
  };
  index_t ob = info_base[0][1];
  int sc = info_short[0];
  load(info_base[0][0], sc);
  const int Pp = g.Pp;
  for (int it = 0;; ++it) {
    const unsigned lm = lmask >> (8 * sc);
#pragma unroll
    for (int k = 0; k < R; ++k)
      if (lm & (1u << k)) sm[(sidx[k / 2] >> (16 * (k % 2))) & 0xffffu] = v[k];
    __syncthreads();
    const index_t tn = t + G;
    index_t obn = 0;
    int scn = 0;
    if (tn < m.tiles) {
      const int b = (it + 1) & 1;
      obn = info_base[b][1], scn = info_short[b];
      load(info_base[b][0], scn);
    }
    if (tid == 0 && tn + G < m.tiles) info(tn + G, it & 1);
    T* __restrict__ o = out + ob;
    asm("" : "+l"(o));
    const unsigned oa = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(o));
    const int L = (sc & g.runcut) ? g.Lshort : g.L0;
    const unsigned wm = wmask >> (8 * sc);
#pragma unroll
    for (int k = 0; k < RW; ++k) {
      if (!(wm & (1u << k))) continue;
      const int S = static_cast<int>(wpack[k] & 0xffffu), w = static_cast<int>(wpack[k] >> 16);
      const int s = static_cast<int>(((oa + woff[k] * E) & 3u) / E);  // the run's start, elements past a word
      const int j0 = EPW * w - s;
      if (j0 >= L) continue;
      T* gp = o + woff[k] - s + EPW * w;  // 4-byte aligned
      if (j0 >= 0 && j0 + EPW <= L) {
        const int a = S + j0 * Pp;
        unsigned word;
        if constexpr (E == 1) {
          const unsigned b0 = sm[a], b1 = sm[a + Pp], b2 = sm[a + 2 * Pp], b3 = sm[a + 3 * Pp];
          word = b0 | (b1 << 8) | (b2 << 16) | (b3 << 24);
        } else {
          word = static_cast<unsigned>(sm[a]) | (static_cast<unsigned>(sm[a + Pp]) << 16);
        }
        *reinterpret_cast<unsigned*>(gp) = word;
      } else {
#pragma unroll
        for (int q = 0; q < EPW; ++q) {
          const int j = j0 + q;
          if (j >= 0 && j < L) gp[q] = sm[S + j * Pp];
        }
      }
    }
    if (tn >= m.tiles) break;
    __syncthreads();
    t = tn, ob = obn, sc = scn;
  }
}

// The word geometry of map m, or false where the experiment does not apply.
bool make_geom(const span_map32& m, int E, words_geom* g) {
  if (m.out_os[0] != 1) return false;  // output runs contiguous (packed outputs)
  const int P = m.out_pitch[0];
  g->L0 = static_cast<int>(m.out_n[0].d);
  if (P < 2 || g->L0 < 6) return false;
  g->pad = P % 2 == 0 ? 1 : 0;
  g->Pp = P + g->pad;
  g->divP = fast_div32(static_cast<std::uint32_t>(P));
  const int epw = 4 / E;
  g->Wm = (g->L0 + 2 * (epw - 1)) / epw;
  g->NR = m.V / g->L0;
  if (g->NR * g->Wm > word_slots(E) * NT) return false;
  if (m.V + (m.V - 1) / P * g->pad > SM_ELEMS) return false;
  g->runcut = 0, g->Lshort = g->L0;
  for (int c = 0; c < m.ncut; ++c)
    if (m.cut_out_pitch[c].d == 1) g->runcut = 1 << c, g->Lshort = m.cut_rem[c];
  return true;
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
  const int E = argc > 3 ? std::atoi(argv[3]) : 1;
  if (E != 1 && E != 2) return 2;
  std::printf("seed %llu (repeat: %s %d %llu %d)\n", static_cast<unsigned long long>(seed), argv[0], n,
              static_cast<unsigned long long>(seed), E);
  std::mt19937_64 gen(seed);
  constexpr std::size_t scratch_bytes = std::size_t{192} << 20;  // beyond the L2, overwritten before every timed run
  unsigned char* scratch = nullptr;
  CK(cudaMalloc(&scratch, scratch_bytes));
  auto time_ms = [&](const std::function<void()>& f) { return flushed_us(f, scratch, scratch_bytes, nullptr, 3, 15) / 1000.0; };
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::printf("%-30s %-16s %5s %5s %7s %7s %7s  (fraction of a cudaMemcpy; lib time / words time)\n", "shape", "axes",
              "L0", "P", "lib", "words", "ratio");
  std::vector<double> rl, rw, ratio;
  int done = 0, bad = 0;
  for (int tries = 0; done < n && tries < 50 * n; ++tries) {
    // Ranks 3-6, extents mostly odd, 16-128 MiB of bytes, axes shuffled with the last one moved.
    const int r = std::uniform_int_distribution<int>(3, 6)(gen);
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
    index_t count = 1;
    for (int k = 0; k < r; ++k) count *= ext[k];
    if (count * E < (index_t{8} << 20) || count * E > (index_t{192} << 20)) continue;
    const xpose::layout L = xpose::layout::packed(r, ext, E);
    const xpose::layout O = xpose::permuted_packed(L, axes, r);
    xpose::plan p;
    if (!xpose::make_plan(L, O, axes, r, {}, &p).ok() || p.algo != xpose::algorithm::permute_nd) continue;
    const std::size_t bytes = static_cast<std::size_t>(count * E);
    unsigned char *din = nullptr, *dref = nullptr, *dout = nullptr, *dcopy = nullptr;
    CK(cudaMalloc(&din, bytes));
    CK(cudaMalloc(&dref, bytes));
    CK(cudaMalloc(&dout, bytes));
    CK(cudaMalloc(&dcopy, bytes));
    const xpose::detail::span_choice c = xpose::detail::span_choose(p, din, dout);
    span_map32 m;
    words_geom g;
    bool fits = xpose::detail::span_offsets_fit32(p, c) && xpose::detail::fits32(xpose::detail::make_span_map(p, c).tiles);
    if (fits) {
      m = xpose::detail::make_span_map<span_map32>(p, c);
      fits = make_geom(m, E, &g);
    }
    if (!fits) {
      CK(cudaFree(din));
      CK(cudaFree(dref));
      CK(cudaFree(dout));
      CK(cudaFree(dcopy));
      continue;
    }
    std::vector<unsigned char> h(bytes);
    for (std::size_t k = 0; k < bytes; k += 8) {
      const std::uint64_t v = gen();
      std::memcpy(h.data() + k, &v, std::min<std::size_t>(8, bytes - k));
    }
    CK(cudaMemcpy(din, h.data(), bytes, cudaMemcpyHostToDevice));
    auto lib = [&] {
      if (!xpose::execute(p, din, dref).ok()) std::exit(2);
    };
    const unsigned grid = static_cast<unsigned>(std::min<index_t>(m.tiles, static_cast<index_t>(sms) * 4));
    auto words = [&] {
      if (E == 1) span_words<1><<<grid, NT>>>(m, g, din, dout);
      else span_words<2><<<grid, NT>>>(m, g, din, dout);
    };
    CK(cudaMemset(dref, 0xFF, bytes));
    CK(cudaMemset(dout, 0xFF, bytes));
    lib();
    words();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<unsigned char> want(bytes), got(bytes);
    CK(cudaMemcpy(want.data(), dref, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(got.data(), dout, bytes, cudaMemcpyDeviceToHost));
    const bool ok = got == want;
    bad += ok ? 0 : 1;
    const double tc = time_ms([&] { CK(cudaMemcpyAsync(dcopy, din, bytes, cudaMemcpyDeviceToDevice)); });
    const double tl = time_ms(lib), tw = time_ms(words);
    char shape[96] = "", ax[48] = "";
    for (int k = 0; k < r; ++k) {
      std::snprintf(shape + std::strlen(shape), sizeof shape - std::strlen(shape), k ? "x%lld" : "%lld",
                    static_cast<long long>(ext[k]));
      std::snprintf(ax + std::strlen(ax), sizeof ax - std::strlen(ax), k ? ",%d" : "%d", axes[k]);
    }
    std::printf("%-30s %-16s %5d %5d %7.3f %7.3f %7.3f%s\n", shape, ax, g.L0, g.Pp - g.pad, tc / tl, tc / tw, tl / tw,
                ok ? "" : "  MISMATCH");
    std::fflush(stdout);
    rl.push_back(tc / tl), rw.push_back(tc / tw), ratio.push_back(tl / tw);
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
  std::printf("%d cases, %d mismatched: median lib %.3f, words %.3f, lib time / words time %.3f\n", done, bad, med(rl),
              med(rw), med(ratio));
  return bad != 0;
}
