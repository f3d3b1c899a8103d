// 16-byte chunk helpers shared by the realigning tile kernel (best_realign.cuh) and the
// slab kernels (best_slab.cuh): aligned loads clamped to a view, byte windows over two
// chunks (funnel shifts), element insert/extract, partial stores. Host-device, so that
// the CPU tests (tests/cpu/test_best_slab.cpp) run the same index and byte math on
// host buffers; on the host, memory goes through memcpy.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__CUDACC__)
#define XPOSE_HDI __host__ __device__ __forceinline__
#else
#define XPOSE_HDI inline
#endif
#if defined(__CUDA_ARCH__)
#define XPOSE_UNROLL _Pragma("unroll")
#else
#define XPOSE_UNROLL
#endif

namespace xpose::detail::bytes {

using u8 = unsigned char;

#if defined(__CUDACC__)
/// First statement of every kernel that `best` may launch as a programmatic dependent
/// (best.cu, launch<kernel, true>; sm_90+): wait until the grids this one depends on have
/// finished and their memory is visible, then let the next dependent launch begin while
/// this grid runs. Both are no-ops when the launch has no programmatic dependency, and
/// before sm_90. (A kernel may also release first and wait just before its first global
/// access: tile_kernel with LateWait.)
__device__ __forceinline__ void dependent_launch_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void dependent_launch_release() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void dependent_launch_entry() {
  dependent_launch_wait();
  dependent_launch_release();
}

/// x through a move the compiler cannot see through: values derived from it inside a loop
/// are recomputed there instead of hoisted out of the loop and held in registers.
__device__ __forceinline__ int opaque(int x) {
  int y;
  asm volatile("mov.b32 %0, %1;" : "=r"(y) : "r"(x));
  return y;
}
#endif

/// 16 bytes as four little-endian 32-bit words.
struct c16 {
  std::uint32_t w[4];
};

XPOSE_HDI c16 zero16() { return c16{{0u, 0u, 0u, 0u}}; }

/// Aligned 16-byte load / store (p 16-byte aligned).
XPOSE_HDI c16 ld16(const u8* p) {
#if defined(__CUDA_ARCH__)
  const uint4 v = *reinterpret_cast<const uint4*>(p);
  return c16{{v.x, v.y, v.z, v.w}};
#else
  c16 c;
  std::memcpy(c.w, p, 16);
  return c;
#endif
}

XPOSE_HDI void st16(u8* p, const c16& c) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<uint4*>(p) = make_uint4(c.w[0], c.w[1], c.w[2], c.w[3]);
#else
  std::memcpy(p, c.w, 16);
#endif
}

/// Element i of chunk c := the E bytes at p (p E-aligned). c must hold zeros there for
/// E < 4 (the element is OR-ed in).
template <int E>
XPOSE_HDI void put_elem(c16& c, int i, const u8* p) {
#if defined(__CUDA_ARCH__)
  if constexpr (E == 1) {
    c.w[i >> 2] |= static_cast<std::uint32_t>(*p) << (8 * (i & 3));
  } else if constexpr (E == 2) {
    c.w[i >> 1] |= static_cast<std::uint32_t>(*reinterpret_cast<const std::uint16_t*>(p)) << (16 * (i & 1));
  } else if constexpr (E == 4) {
    c.w[i] = *reinterpret_cast<const std::uint32_t*>(p);
  } else if constexpr (E == 8) {
    const uint2 v = *reinterpret_cast<const uint2*>(p);
    c.w[2 * i] = v.x, c.w[2 * i + 1] = v.y;
  } else {
    c = ld16(p);
  }
#else
  std::memcpy(reinterpret_cast<u8*>(c.w) + i * E, p, E);
#endif
}

/// The E bytes at p := element i of chunk c.
template <int E>
XPOSE_HDI void get_elem(const c16& c, int i, u8* p) {
#if defined(__CUDA_ARCH__)
  if constexpr (E == 1) {
    *p = static_cast<u8>(c.w[i >> 2] >> (8 * (i & 3)));
  } else if constexpr (E == 2) {
    *reinterpret_cast<std::uint16_t*>(p) = static_cast<std::uint16_t>(c.w[i >> 1] >> (16 * (i & 1)));
  } else if constexpr (E == 4) {
    *reinterpret_cast<std::uint32_t*>(p) = c.w[i];
  } else if constexpr (E == 8) {
    *reinterpret_cast<uint2*>(p) = make_uint2(c.w[2 * i], c.w[2 * i + 1]);
  } else {
    st16(p, c);
  }
#else
  std::memcpy(p, reinterpret_cast<const u8*>(c.w) + i * E, E);
#endif
}

/// E bytes from p to q (both E-aligned).
template <int E>
XPOSE_HDI void copy_elem(u8* q, const u8* p) {
#if defined(__CUDA_ARCH__)
  if constexpr (E == 1) *q = *p;
  else if constexpr (E == 2) *reinterpret_cast<std::uint16_t*>(q) = *reinterpret_cast<const std::uint16_t*>(p);
  else if constexpr (E == 4) *reinterpret_cast<std::uint32_t*>(q) = *reinterpret_cast<const std::uint32_t*>(p);
  else if constexpr (E == 8) *reinterpret_cast<uint2*>(q) = *reinterpret_cast<const uint2*>(p);
  else *reinterpret_cast<uint4*>(q) = *reinterpret_cast<const uint4*>(p);
#else
  std::memcpy(q, p, E);
#endif
}

/// Aligned 4-byte load / store (p 4-byte aligned).
XPOSE_HDI std::uint32_t ld32(const u8* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const std::uint32_t*>(p);
#else
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
#endif
}

XPOSE_HDI void st32(u8* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<std::uint32_t*>(p) = v;
#else
  std::memcpy(p, &v, 4);
#endif
}

/// (hi:lo) >> sh, sh in [0, 32).
XPOSE_HDI std::uint32_t funnel_r(std::uint32_t lo, std::uint32_t hi, unsigned sh) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_r(lo, hi, sh);
#else
  return sh ? (lo >> sh) | (hi << (32u - sh)) : lo;
#endif
}

/// Bytes [off, off + 16) of the 32 bytes a || b (little-endian), off in [0, 16).
/// Selects (no dynamic register indexing), then one funnel shift per word.
XPOSE_HDI c16 window16(const c16& a, const c16& b, int off) {
  const std::uint32_t x[8] = {a.w[0], a.w[1], a.w[2], a.w[3], b.w[0], b.w[1], b.w[2], b.w[3]};
  const int wo = off >> 2;
  const unsigned sh = 8u * static_cast<unsigned>(off & 3);
  std::uint32_t z[6], y[5];
  XPOSE_UNROLL
  for (int i = 0; i < 6; ++i) z[i] = (wo & 2) ? x[i + 2] : x[i];
  XPOSE_UNROLL
  for (int i = 0; i < 5; ++i) y[i] = (wo & 1) ? z[i + 1] : z[i];
  c16 r;
  XPOSE_UNROLL
  for (int q = 0; q < 4; ++q) r.w[q] = funnel_r(y[q], y[q + 1], sh);
  return r;
}

/// The KW words (KW = 1, 2, 4) at byte off (in [0, 4*KW)) of the 8*KW bytes a || b: the
/// window of window16 for 4-, 8- and 16-byte reads (selects, then one funnel shift per word).
template <int KW>
XPOSE_HDI void window_words(const std::uint32_t (&a)[KW], const std::uint32_t (&b)[KW], int off,
                            std::uint32_t (&r)[KW]) {
  std::uint32_t x[2 * KW];
  XPOSE_UNROLL
  for (int i = 0; i < KW; ++i) x[i] = a[i], x[KW + i] = b[i];
  const int wo = off >> 2;
  XPOSE_UNROLL
  for (int st = KW / 2; st >= 1; st /= 2)
    XPOSE_UNROLL
    for (int i = 0; i + st < 2 * KW; ++i) x[i] = (wo & st) ? x[i + st] : x[i];
  const unsigned sh = 8u * static_cast<unsigned>(off & 3);
  XPOSE_UNROLL
  for (int q = 0; q < KW; ++q) r[q] = funnel_r(x[q], x[q + 1], sh);
}

/// window_words by a branch on the word offset off >> 2 (one funnel shift per word in each
/// case): cheaper than the selects where off is the same across the warp.
template <int KW>
XPOSE_HDI void window_words_branch(const std::uint32_t (&a)[KW], const std::uint32_t (&b)[KW], int off,
                                   std::uint32_t (&r)[KW]) {
  std::uint32_t x[2 * KW];
  XPOSE_UNROLL
  for (int i = 0; i < KW; ++i) x[i] = a[i], x[KW + i] = b[i];
  const unsigned sh = 8u * static_cast<unsigned>(off & 3);
  auto at = [&](auto wo) {
    XPOSE_UNROLL
    for (int q = 0; q < KW; ++q) r[q] = funnel_r(x[q + decltype(wo)::value], x[q + decltype(wo)::value + 1], sh);
  };
  using c0 = std::integral_constant<int, 0>;
  using c1 = std::integral_constant<int, 1 % KW>;
  using c2 = std::integral_constant<int, 2 % KW>;
  using c3 = std::integral_constant<int, 3 % KW>;
  switch ((off >> 2) & (KW - 1)) {
    case 0: at(c0{}); break;
    case 1: at(c1{}); break;
    case 2: at(c2{}); break;
    default: at(c3{}); break;
  }
}

/// __byte_perm: byte n of the result is byte (s >> 4n) & 7 of y:x (x bytes 0-3, y 4-7).
XPOSE_HDI std::uint32_t perm(std::uint32_t x, std::uint32_t y, unsigned s) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(x, y, s);
#else
  const std::uint64_t v = (static_cast<std::uint64_t>(y) << 32) | x;
  std::uint32_t r = 0;
  for (int n = 0; n < 4; ++n) r |= static_cast<std::uint32_t>((v >> (8 * ((s >> (4 * n)) & 7))) & 0xFF) << (8 * n);
  return r;
#endif
}

/// Transposes in place the kk x kk block of E-byte elements held in rows w[B .. B+kk)
/// (row i: KW words, element j at byte j*E; kk = 4*KW/E). One butterfly stage per bit
/// of the element index: stages that move whole words are register renaming, sub-word
/// stages one byte permute per word ((i, j|m) <-> (i+m, j): bytes or half-words). The
/// tile kernels' micro-blocks (best_kernels.cuh) and the slab micro-blocks use it.
template <int E, int KW, int N>
XPOSE_HDI void transpose_block(std::uint32_t (&w)[N][KW], int B) {
  constexpr int kk = 4 * KW / E;
  XPOSE_UNROLL
  for (int m = 1; m < kk; m <<= 1) {
    XPOSE_UNROLL
    for (int i = B; i < B + kk; ++i) {
      if ((i - B) & m) continue;
      if (m * E >= 4) {
        const int M = m * E / 4;
        XPOSE_UNROLL
        for (int q = 0; q < KW; ++q)
          if (q & M) {
            const std::uint32_t t = w[i][q];
            w[i][q] = w[i + m][q ^ M];
            w[i + m][q ^ M] = t;
          }
      } else {
        const unsigned lo = m * E == 1 ? 0x6240u : 0x5410u, hi = m * E == 1 ? 0x7351u : 0x7632u;
        XPOSE_UNROLL
        for (int q = 0; q < KW; ++q) {
          const std::uint32_t x = w[i][q], y = w[i + m][q];
          w[i][q] = perm(x, y, lo);
          w[i + m][q] = perm(x, y, hi);
        }
      }
    }
  }
}

/// The same with the block's first row a template argument (the tile kernels' spelling).
template <int E, int KW, int N, int B>
XPOSE_HDI void micro_transpose(std::uint32_t (&w)[N][KW]) {
  transpose_block<E, KW, N>(w, B);
}

/// KW = 2 or 4 words from / to p (8- or 16-byte aligned): one vector access.
template <int KW>
XPOSE_HDI void ld_words(std::uint32_t (&w)[KW], const u8* p) {
#if defined(__CUDA_ARCH__)
  if constexpr (KW == 4) {
    const uint4 x = *reinterpret_cast<const uint4*>(p);
    w[0] = x.x, w[1] = x.y, w[2] = x.z, w[3] = x.w;
  } else {
    const uint2 x = *reinterpret_cast<const uint2*>(p);
    w[0] = x.x, w[1] = x.y;
  }
#else
  std::memcpy(w, p, 4 * KW);
#endif
}

/// The 16-byte-aligned chunk at p, reading only bytes inside [lo, hi) (other bytes 0):
/// one vector load when the chunk lies inside, E-byte loads otherwise (lo, hi E-aligned).
template <int E>
XPOSE_HDI c16 load_clamped(const u8* p, const u8* lo, const u8* hi) {
  if (p >= lo && p + 16 <= hi) return ld16(p);
  c16 w = zero16();
  XPOSE_UNROLL
  for (int e = 0; e < 16 / E; ++e)
    if (p + e * E >= lo && p + e * E < hi) put_elem<E>(w, e, p + e * E);
  return w;
}

XPOSE_HDI std::uint32_t word_at(const c16& c, int i) {
  return i == 0 ? c.w[0] : i == 1 ? c.w[1] : i == 2 ? c.w[2] : c.w[3];
}

/// Stores bytes [lo, hi) of chunk c to the 16-byte-aligned chunk at p (lo, hi multiples
/// of the element size, 0 <= lo <= hi <= 16): naturally aligned pieces of 1-8 bytes,
/// growing from lo, then shrinking to hi (at most 8 stores).
XPOSE_HDI void store_range(const c16& c, u8* p, int lo, int hi) {
  if (lo == 0 && hi == 16) {
    st16(p, c);
    return;
  }
#if defined(__CUDA_ARCH__)
  auto piece = [&](int s) {
    const std::uint32_t x = word_at(c, lo >> 2);
    if (s == 8) *reinterpret_cast<uint2*>(p + lo) = make_uint2(x, word_at(c, (lo >> 2) + 1));
    else if (s == 4) *reinterpret_cast<std::uint32_t*>(p + lo) = x;
    else if (s == 2) *reinterpret_cast<std::uint16_t*>(p + lo) = static_cast<std::uint16_t>(x >> (8 * (lo & 3)));
    else p[lo] = static_cast<u8>(x >> (8 * (lo & 3)));
    lo += s;
  };
#else
  auto piece = [&](int s) {
    std::memcpy(p + lo, reinterpret_cast<const u8*>(c.w) + lo, static_cast<std::size_t>(s));
    lo += s;
  };
#endif
  XPOSE_UNROLL
  for (int s = 1; s <= 8; s <<= 1)
    if ((lo & s) && lo + s <= hi) piece(s);
  XPOSE_UNROLL
  for (int s = 8; s >= 1; s >>= 1)
    if (hi - lo >= s) piece(s);
}

/// Division of small non-negative ints (v < 2^22) by a fixed d > 0 through a float
/// reciprocal and one correction step: a few instructions instead of an integer
/// division's ~20 (the slab kernels split flat indices into row and column once per
/// 16-byte chunk).
struct fdiv {
  int d;
  float inv;
  XPOSE_HDI explicit fdiv(int divisor) : d(divisor), inv(1.0f / static_cast<float>(divisor)) {}
  XPOSE_HDI int operator()(int v) const {
    int q = static_cast<int>(static_cast<float>(v) * inv);  // within 1 of v / d
    if (q * d > v) --q;
    else if ((q + 1) * d <= v) ++q;
    return q;
  }
};

#if defined(__CUDACC__)
/// cp.async of one 16-byte chunk: `bytes` (0-16) read from src, the rest of the 16
/// shared bytes zero-filled (partial chunks at a tile's ragged column edge).
__device__ __forceinline__ void cp_async16(std::uint32_t dst, const u8* src, int bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
#else
  // Pre-sm_80 fallback (not built by default): a synchronous copy of the same bytes.
  u8* d = static_cast<u8*>(__cvta_shared_to_generic(dst));
  for (int i = 0; i < 16; ++i) d[i] = i < bytes ? src[i] : 0;
#endif
}

__device__ __forceinline__ void cp_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/// Waits until at most n of this thread's cp.async groups are pending (n folds to a
/// constant once the callers' loops are unrolled; the instruction takes an immediate).
__device__ __forceinline__ void cp_wait(int n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  switch (n) {
    case 0: asm volatile("cp.async.wait_group 0;\n" ::: "memory"); break;
    case 1: asm volatile("cp.async.wait_group 1;\n" ::: "memory"); break;
    case 2: asm volatile("cp.async.wait_group 2;\n" ::: "memory"); break;
    case 3: asm volatile("cp.async.wait_group 3;\n" ::: "memory"); break;
    case 4: asm volatile("cp.async.wait_group 4;\n" ::: "memory"); break;
    case 5: asm volatile("cp.async.wait_group 5;\n" ::: "memory"); break;
    case 6: asm volatile("cp.async.wait_group 6;\n" ::: "memory"); break;
    default: asm volatile("cp.async.wait_group 7;\n" ::: "memory"); break;
  }
#endif
}

#endif

}  // namespace xpose::detail::bytes
