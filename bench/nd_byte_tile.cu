// Experiment (not part of the library): 1-byte N-d permutations whose input-fastest dim A and output-fastest dim B
// are both long, on three kernels in one run, every output checked bitwise against the library's:
//  - lib:     xpose::permute (the route of docs/RESULTS.md "N-d: kernel choice"; the span tile for these plans),
//  - bytes:   a classic 64 x 64 byte tile through padded shared memory, one byte per load and store,
//  - words:   a 128 x 128 byte tile moved in 4-byte words: each input row loaded as aligned words and funnel-shifted
//             (with its neighbour lane's word) into a word-aligned shared row, 4 x 4 byte blocks transposed in
//             registers (8 byte permutes), each output row realigned with its neighbour lane's piece and stored as
//             aligned words (bytes at the row's two ends).
// Every other dim is a batch dim (its own input and output stride), decomposed once per tile. Cases are drawn from a
// seed (fresh unless given, printed): rank 3-6, A and B extents 32-3000 (mostly odd or prime), 32-128 MiB.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -IBUILD/include bench/nd_byte_tile.cu -LLIBDIR -lxpose -o nd_byte_tile
//   ./nd_byte_tile [CASES] [SEED]
//   ./nd_byte_tile copy [CASES] [SEED]   (contiguous copies between pointers apart modulo 16, below)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "bench_util.hpp"
#include "xpose/xpose.hpp"

namespace {

using i64 = xpose::index_t;

__host__ __device__ inline i64 min64(i64 a, i64 b) { return a < b ? a : b; }

struct nd_map {
  int nb = 0;                     // batch dims
  i64 bn[14], bis[14], bos[14];   // their extents and strides (bytes), fastest first
  i64 nA = 0, nB = 0, iB = 0, oA = 0;  // A, B extents; B's input stride, A's output stride (bytes)
  i64 tA = 0, tB = 0;             // tiles along A and B
  i64 tiles = 0;
};

template <int T>
__device__ __forceinline__ void tile_origin_of(const nd_map& m, i64 t, i64* a0, i64* b0, i64* ib, i64* ob) {
  const i64 ta = t % m.tA;
  t /= m.tA;
  const i64 tb = t % m.tB;
  t /= m.tB;
  i64 i = 0, o = 0;
  for (int k = 0; k < m.nb; ++k) {
    const i64 d = t % m.bn[k];
    t /= m.bn[k];
    i += d * m.bis[k], o += d * m.bos[k];
  }
  *a0 = ta * T, *b0 = tb * T;
  *ib = i + *b0 * m.iB + *a0;  // the tile's first input byte (a0, b0) and first output byte
  *ob = o + *a0 * m.oA + *b0;
}

// Tile t's origin: computed by thread 0 into shared memory (64-bit divisions, once per tile), read by all after the
// barrier; the previous tile's readers are past the barrier that ends it.
template <int T>
__device__ __forceinline__ void tile_origin(const nd_map& m, i64 t, i64* a0, i64* b0, i64* ib, i64* ob) {
  __shared__ i64 org[4];
  if (threadIdx.x == 0) {
    i64 x, y, z, u;
    tile_origin_of<T>(m, t, &x, &y, &z, &u);
    org[0] = x, org[1] = y, org[2] = z, org[3] = u;
  }
  __syncthreads();
  *a0 = org[0], *b0 = org[1], *ib = org[2], *ob = org[3];
}

// The classic tile: 64 x 64 bytes, 256 threads, padded shared rows.
__global__ void __launch_bounds__(256) byte_tile(const nd_map m, const unsigned char* __restrict__ in,
                                                 unsigned char* __restrict__ out) {
  __shared__ unsigned char st[64][65];
  const int tx = threadIdx.x & 63, ty = threadIdx.x >> 6;
  for (i64 t = blockIdx.x; t < m.tiles; t += gridDim.x) {
    i64 a0, b0, ib, ob;
    tile_origin<64>(m, t, &a0, &b0, &ib, &ob);
    const int ta = static_cast<int>(min64(64, m.nA - a0)), tb = static_cast<int>(min64(64, m.nB - b0));
    const unsigned char* src = in + ib + tx;
#pragma unroll 4
    for (int b = ty; b < 64; b += 4)
      if (b < tb && tx < ta) st[b][tx] = __ldg(src + b * m.iB);
    __syncthreads();
    unsigned char* dst = out + ob + tx;
#pragma unroll 4
    for (int a = ty; a < 64; a += 4)
      if (a < ta && tx < tb) dst[a * m.oA] = st[tx][a];
    __syncthreads();
  }
}

__device__ __forceinline__ void st_u8(unsigned char* p, unsigned v) {
  asm volatile("st.global.u8 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// The word tile: 128 x 128 bytes, 256 threads (8 warps). Shared: 128 rows (b) of 32 words (a), word j of row b at
// b * 32 + (j ^ (b / 4 % 32)), so that a warp writing a row and a warp reading rows 4q..4q+3 (lane q) hit 32 banks.
__global__ void __launch_bounds__(256) word_tile(const nd_map m, const unsigned char* __restrict__ in,
                                                 unsigned char* __restrict__ out) {
  __shared__ std::uint32_t sm[128 * 32];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  for (i64 t = blockIdx.x; t < m.tiles; t += gridDim.x) {
    i64 a0, b0, ib, ob;
    tile_origin<128>(m, t, &a0, &b0, &ib, &ob);
    const int ta = static_cast<int>(min64(128, m.nA - a0)), tb = static_cast<int>(min64(128, m.nB - b0));
    // Load: warp w takes rows b = w, w + 8, ...; lane j the aligned word j of the row (lane 31 also word 32).
    for (int b = w; b < tb; b += 8) {
      const unsigned char* row = in + ib + b * m.iB;
      const int mis = static_cast<int>(reinterpret_cast<std::uintptr_t>(row) & 3);
      const std::uint32_t* g = reinterpret_cast<const std::uint32_t*>(row - mis);
      std::uint32_t lo = 0, extra = 0;
      if (4 * lane - mis < ta) lo = __ldg(g + lane);
      if (lane == 31 && 128 - mis < ta) extra = __ldg(g + 32);
      std::uint32_t hi = __shfl_down_sync(0xffffffffu, lo, 1);
      if (lane == 31) hi = extra;
      sm[b * 32 + (lane ^ ((b >> 2) & 31))] = __funnelshift_r(lo, hi, 8 * mis);
    }
    __syncthreads();
    // Transpose and store: warp w takes a-quads p = w, w + 8, w + 16, w + 24; lane q the b-quad 4q..4q+3.
    const int q = lane;
    for (int p = w; 4 * p < ta; p += 8) {
      const std::uint32_t r0 = sm[(4 * q + 0) * 32 + (p ^ q)], r1 = sm[(4 * q + 1) * 32 + (p ^ q)];
      const std::uint32_t r2 = sm[(4 * q + 2) * 32 + (p ^ q)], r3 = sm[(4 * q + 3) * 32 + (p ^ q)];
      const std::uint32_t t0 = __byte_perm(r0, r1, 0x5140), t1 = __byte_perm(r0, r1, 0x7362);
      const std::uint32_t t2 = __byte_perm(r2, r3, 0x5140), t3 = __byte_perm(r2, r3, 0x7362);
      const std::uint32_t o[4] = {__byte_perm(t0, t2, 0x5410), __byte_perm(t0, t2, 0x7632), __byte_perm(t1, t3, 0x5410),
                                  __byte_perm(t1, t3, 0x7632)};
#pragma unroll
      for (int x = 0; x < 4; ++x) {
        const int a = 4 * p + x;
        if (a >= ta) break;  // warp-uniform
        unsigned char* row = out + ob + a * m.oA;
        const int n = static_cast<int>(reinterpret_cast<std::uintptr_t>(row) & 3);
        const std::uint32_t piece = o[x];
        std::uint32_t prev = __shfl_up_sync(0xffffffffu, piece, 1);
        if (lane == 0) prev = 0;
        const std::uint32_t word = __funnelshift_rc(prev, piece, 8 * (4 - n));
        unsigned char* wp = row - n + 4 * lane;  // aligned: bytes b = 4 lane - n .. 4 lane - n + 3
        const int first = 4 * lane - n;
        if (first >= 0 && first + 3 < tb) {
          *reinterpret_cast<std::uint32_t*>(wp) = word;
        } else {
#pragma unroll
          for (int k = 0; k < 4; ++k)
            if (first + k >= 0 && first + k < tb) st_u8(wp + k, (word >> (8 * k)) & 0xffu);
        }
        if (lane == 31 && n > 0) {  // word 32: bytes b = 128 - n .. 127 of the last piece
          const std::uint32_t tail = piece >> (8 * (4 - n));
          for (int k = 0; k < n; ++k)
            if (128 - n + k < tb) st_u8(wp + 4 + k, (tail >> (8 * k)) & 0xffu);
        }
      }
    }
    __syncthreads();
  }
}

bool is_prime(i64 n) {
  if (n < 2) return false;
  for (i64 d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}
i64 odd_or_prime(i64 n, std::mt19937_64& g) {
  const double u = std::uniform_real_distribution<double>(0, 1)(g);
  if (u < 0.55)
    while (!is_prime(n)) ++n;
  else if (u < 0.9)
    n |= 1;
  return n;
}

struct pcase {
  int r = 0;
  i64 ext[8];
  int axes[8];
};

pcase draw(std::mt19937_64& g) {
  std::uniform_real_distribution<double> U(0, 1);
  pcase c;
  c.r = 3 + static_cast<int>(g() % 4);
  const double bytes = std::exp(std::log(32.0) + U(g) * (std::log(128.0) - std::log(32.0))) * 1048576.0;
  const int A = c.r - 1, B = static_cast<int>(g() % static_cast<unsigned>(c.r - 1));
  const i64 nA = odd_or_prime(static_cast<i64>(std::exp(std::log(32.0) + U(g) * (std::log(3000.0) - std::log(32.0)))), g);
  const i64 nB = odd_or_prime(static_cast<i64>(std::exp(std::log(32.0) + U(g) * (std::log(3000.0) - std::log(32.0)))), g);
  double rest = bytes / static_cast<double>(nA * nB);
  for (int k = 0; k < c.r; ++k) c.ext[k] = 1;
  c.ext[A] = nA, c.ext[B] = nB;
  const int others = c.r - 2;
  for (int k = 0, left = others; k < c.r; ++k) {
    if (k == A || k == B) continue;
    const double share = left == 1 ? rest : std::pow(rest, 0.3 + 0.5 * U(g));
    c.ext[k] = odd_or_prime(std::max<i64>(2, static_cast<i64>(share)), g);
    rest /= static_cast<double>(c.ext[k]);
    --left;
  }
  // Output order: B last, A anywhere else, the others shuffled.
  std::vector<int> ax;
  for (int k = 0; k < c.r; ++k)
    if (k != B) ax.push_back(k);
  std::shuffle(ax.begin(), ax.end(), g);
  ax.push_back(B);
  for (int k = 0; k < c.r; ++k) c.axes[k] = ax[static_cast<std::size_t>(k)];
  return c;
}

nd_map make_map(const pcase& c) {
  nd_map m;
  i64 is[8], os[8];
  is[c.r - 1] = 1;
  for (int k = c.r - 2; k >= 0; --k) is[k] = is[k + 1] * c.ext[k + 1];
  i64 st = 1;
  for (int k = c.r - 1; k >= 0; --k) os[c.axes[k]] = st, st *= c.ext[c.axes[k]];  // output stride of input dim
  const int A = c.r - 1, B = c.axes[c.r - 1];
  m.nA = c.ext[A], m.nB = c.ext[B], m.iB = is[B], m.oA = os[A];
  for (int k = c.r - 1; k >= 0; --k)  // batch dims in output order, fastest first
    if (c.axes[k] != A && c.axes[k] != B) {
      const int d = c.axes[k];
      m.bn[m.nb] = c.ext[d], m.bis[m.nb] = is[d], m.bos[m.nb] = os[d], ++m.nb;
    }
  return m;
}

// Median ms of f() over `reps` runs, L2 flushed before each (bench_util.hpp's flushed_us).
float time_ms(const std::function<void()>& f, int reps) {
  static constexpr std::size_t scratch_bytes = std::size_t{192} << 20;
  static unsigned char* scratch = [] {
    unsigned char* p = nullptr;
    CK(cudaMalloc(&p, scratch_bytes));
    return p;
  }();
  return static_cast<float>(flushed_us(f, scratch, scratch_bytes, nullptr, 3, reps) / 1000.0);
}

}  // namespace

// `copy N [SEED]`: contiguous copies between pointers that differ modulo 16 bytes: xpose::permute of a rank-1 layout
// against cudaMemcpyAsync of the same pointers, as fractions of an aligned cudaMemcpyAsync of the same bytes.
int copies(int n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::printf("copies, seed %llu\n%12s %4s %4s %8s %8s\n", static_cast<unsigned long long>(seed), "bytes", "in%16",
              "out%16", "xpose", "memcpy");
  std::vector<double> rx, rm;
  for (int i = 0; i < n; ++i) {
    const std::size_t bytes = static_cast<std::size_t>(std::exp(std::log(16.0) + std::uniform_real_distribution<double>(0, 1)(g) *
                                                                                     (std::log(256.0) - std::log(16.0))) * 1048576.0) | 1;
    const int oi = static_cast<int>(g() % 16);
    int oo = static_cast<int>(g() % 16);
    if (oo == oi) oo = (oo + 1 + static_cast<int>(g() % 15)) % 16;
    unsigned char *a = nullptr, *b = nullptr;
    CK(cudaMalloc(&a, bytes + 16));
    CK(cudaMalloc(&b, bytes + 16));
    CK(cudaMemset(a, 0x5A, bytes + 16));
    const i64 ext[1] = {static_cast<i64>(bytes)};
    const xpose::layout L = xpose::layout::packed(1, ext, 1);
    const int axes[1] = {0};
    const float t0 = time_ms([&] { CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); }, 15);
    const float tx = time_ms([&] { if (!xpose::permute(a + oi, b + oo, L, axes, 1).ok()) std::exit(2); }, 15);
    const float tm = time_ms([&] { CK(cudaMemcpyAsync(b + oo, a + oi, bytes, cudaMemcpyDeviceToDevice)); }, 15);
    std::printf("%12zu %4d %4d %8.3f %8.3f\n", bytes, oi, oo, t0 / tx, t0 / tm);
    rx.push_back(t0 / tx), rm.push_back(t0 / tm);
    CK(cudaFree(a));
    CK(cudaFree(b));
  }
  std::sort(rx.begin(), rx.end()), std::sort(rm.begin(), rm.end());
  std::printf("median: xpose %.3f memcpy %.3f (min %.3f / %.3f)\n", rx[rx.size() / 2], rm[rm.size() / 2], rx[0], rm[0]);
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "copy") == 0)
    return copies(argc > 2 ? std::atoi(argv[2]) : 12, argc > 3 ? std::strtoull(argv[3], nullptr, 10) : std::random_device{}());
  const int n = argc > 1 ? std::atoi(argv[1]) : 20;
  const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : std::random_device{}() * 2654435761ull;
  std::printf("seed %llu (repeat: %s %d %llu)\n", static_cast<unsigned long long>(seed), argv[0], n,
              static_cast<unsigned long long>(seed));
  std::mt19937_64 g(seed);
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::printf("%-28s %-14s %7s %7s %7s   (fraction of a cudaMemcpy of the same bytes; words / lib)\n", "shape", "axes",
              "lib", "bytes", "words");
  std::vector<double> rl, rb, rw, ratio;
  for (int i = 0; i < n; ++i) {
    const pcase c = draw(g);
    const nd_map m0 = make_map(c);
    i64 count = 1;
    for (int k = 0; k < c.r; ++k) count *= c.ext[k];
    const std::size_t bytes = static_cast<std::size_t>(count);
    unsigned char *din = nullptr, *dref = nullptr, *dout = nullptr, *dcopy = nullptr;
    CK(cudaMalloc(&din, bytes));
    CK(cudaMalloc(&dref, bytes));
    CK(cudaMalloc(&dout, bytes));
    CK(cudaMalloc(&dcopy, bytes));
    std::vector<unsigned char> h(bytes);
    for (std::size_t k = 0; k < bytes; k += 8) {
      const std::uint64_t v = g();
      std::memcpy(h.data() + k, &v, std::min<std::size_t>(8, bytes - k));
    }
    CK(cudaMemcpy(din, h.data(), bytes, cudaMemcpyHostToDevice));
    const xpose::layout L = xpose::layout::packed(c.r, c.ext, 1);
    auto lib = [&] {
      const xpose::status s = xpose::permute(din, dref, L, c.axes, c.r);
      if (!s.ok()) std::exit(2);
    };
    CK(cudaMemset(dref, 0xFF, bytes));
    lib();
    CK(cudaDeviceSynchronize());
    std::vector<unsigned char> want(bytes), got(bytes);
    CK(cudaMemcpy(want.data(), dref, bytes, cudaMemcpyDeviceToHost));
    auto run = [&](int which) {
      nd_map m = m0;
      const i64 T = which == 0 ? 64 : 128;
      m.tA = (m.nA + T - 1) / T, m.tB = (m.nB + T - 1) / T;
      m.tiles = m.tA * m.tB;
      for (int k = 0; k < m.nb; ++k) m.tiles *= m.bn[k];
      const unsigned grid = static_cast<unsigned>(std::min<i64>(m.tiles, i64{1} << 30));
      if (which == 0) byte_tile<<<grid, 256>>>(m, din, dout);
      else word_tile<<<grid, 256>>>(m, din, dout);
    };
    bool ok[2];
    for (int w = 0; w < 2; ++w) {
      CK(cudaMemset(dout, 0xFF, bytes));
      run(w);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(got.data(), dout, bytes, cudaMemcpyDeviceToHost));
      ok[w] = got == want;
    }
    const float tc = time_ms([&] { CK(cudaMemcpyAsync(dcopy, din, bytes, cudaMemcpyDeviceToDevice)); }, 15);
    const float tl = time_ms(lib, 15), tb = time_ms([&] { run(0); }, 15), tw = time_ms([&] { run(1); }, 15);
    char shape[64] = "", axes[32] = "";
    for (int k = 0; k < c.r; ++k) {
      std::snprintf(shape + std::strlen(shape), sizeof shape - std::strlen(shape), k ? "x%lld" : "%lld", c.ext[k]);
      std::snprintf(axes + std::strlen(axes), sizeof axes - std::strlen(axes), k ? ",%d" : "%d", c.axes[k]);
    }
    std::printf("%-28s %-14s %7.3f %7.3f %7.3f   %s%s %.3f\n", shape, axes, tc / tl, tc / tb, tc / tw,
                ok[0] ? "" : "BYTES-MISMATCH ", ok[1] ? "" : "WORDS-MISMATCH ", tl / tw);
    std::fflush(stdout);
    rl.push_back(tc / tl), rb.push_back(tc / tb), rw.push_back(tc / tw), ratio.push_back(tl / tw);
    CK(cudaFree(din));
    CK(cudaFree(dref));
    CK(cudaFree(dout));
    CK(cudaFree(dcopy));
  }
  auto med = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  auto mn = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
  std::printf("median (min): lib %.3f (%.3f)  bytes %.3f (%.3f)  words %.3f (%.3f)  lib time / words time %.3f\n",
              med(rl), mn(rl), med(rb), mn(rb), med(rw), mn(rw), med(ratio));
  return 0;
}
