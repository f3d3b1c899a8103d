// Fast CPU backend: two-level blocked, OpenMP-threaded out-of-place transpose.
// Macro tiles are cut into micro-tiles transposed in SIMD registers (SSE2 on any
// x86-64, AVX2 when the CPU reports it at run time; plain loops elsewhere); outputs
// larger than the caches are staged per tile in an L1 buffer and streamed out with
// non-temporal stores. Ragged fringes take a scalar path. Pointers need only be
// aligned to the element size. Assumes a validated, non-empty desc.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cstdlib>

#if defined(_OPENMP)
#include <omp.h>
#endif

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define XPOSE_X86 1
#include <immintrin.h>
#define XPOSE_AVX2 __attribute__((target("avx2")))
#else
#define XPOSE_X86 0
#endif

#include "../internal.hpp"

namespace xpose::detail {
namespace {

using byte = unsigned char;

/// Transposes a rows x cols block of ES-byte elements; src and dst strides in bytes.
/// Every block kernel has this signature; rows and cols are multiples of its edge.
using block_fn = void (*)(const byte* src, index_t lds, byte* dst, index_t ldd, index_t rows,
                          index_t cols);

// Scalar path: ragged fringes everywhere, and the whole transpose off x86.
template <int ES>
void scalar_block(const byte* src, index_t lds, byte* dst, index_t ldd, index_t rows,
                  index_t cols) {
  for (index_t c = 0; c < cols; ++c)
    for (index_t r = 0; r < rows; ++r) std::memcpy(dst + c * ldd + r * ES, src + r * lds + c * ES, ES);
}

#if XPOSE_X86
// In-register transposes. A register holds one row of N = 16/W elements of W bytes
// per 128-bit lane. One round interleaves rows l and l + N/2 into rows 2l, 2l+1,
// which rotates the bits of the (row, col) index left by one; after log2(N) rounds
// row and column bits have swapped, i.e. each lane holds an N x N transpose.

template <int W>
inline __m128i unpack_lo(__m128i a, __m128i b) {
  if constexpr (W == 1) return _mm_unpacklo_epi8(a, b);
  else if constexpr (W == 2) return _mm_unpacklo_epi16(a, b);
  else if constexpr (W == 4) return _mm_unpacklo_epi32(a, b);
  else return _mm_unpacklo_epi64(a, b);
}
template <int W>
inline __m128i unpack_hi(__m128i a, __m128i b) {
  if constexpr (W == 1) return _mm_unpackhi_epi8(a, b);
  else if constexpr (W == 2) return _mm_unpackhi_epi16(a, b);
  else if constexpr (W == 4) return _mm_unpackhi_epi32(a, b);
  else return _mm_unpackhi_epi64(a, b);
}

template <int W>
inline void transpose_lanes(__m128i* a) {
  constexpr int N = 16 / W;
  for (int round = 1; round < N; round *= 2) {
    __m128i t[N];
    for (int l = 0; l < N / 2; ++l) {
      t[2 * l] = unpack_lo<W>(a[l], a[l + N / 2]);
      t[2 * l + 1] = unpack_hi<W>(a[l], a[l + N / 2]);
    }
    for (int i = 0; i < N; ++i) a[i] = t[i];
  }
}

// SSE2 micro-tile: N x N elements, 16 bytes per row.
template <int ES>
void sse2_block(const byte* src, index_t lds, byte* dst, index_t ldd, index_t rows, index_t cols) {
  constexpr int N = 16 / ES;
  for (index_t r = 0; r < rows; r += N)
    for (index_t c = 0; c < cols; c += N) {
      const byte* s = src + r * lds + c * ES;
      byte* d = dst + c * ldd + r * ES;
      __m128i a[N];  // (N rows, N cols)
      for (int i = 0; i < N; ++i) a[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i * lds));
      transpose_lanes<ES>(a);
      for (int j = 0; j < N; ++j) _mm_storeu_si128(reinterpret_cast<__m128i*>(d + j * ldd), a[j]);
    }
}

template <int W>
XPOSE_AVX2 inline __m256i unpack_lo(__m256i a, __m256i b) {
  if constexpr (W == 1) return _mm256_unpacklo_epi8(a, b);
  else if constexpr (W == 2) return _mm256_unpacklo_epi16(a, b);
  else if constexpr (W == 4) return _mm256_unpacklo_epi32(a, b);
  else return _mm256_unpacklo_epi64(a, b);
}
template <int W>
XPOSE_AVX2 inline __m256i unpack_hi(__m256i a, __m256i b) {
  if constexpr (W == 1) return _mm256_unpackhi_epi8(a, b);
  else if constexpr (W == 2) return _mm256_unpackhi_epi16(a, b);
  else if constexpr (W == 4) return _mm256_unpackhi_epi32(a, b);
  else return _mm256_unpackhi_epi64(a, b);
}

template <int W>
XPOSE_AVX2 inline void transpose_lanes(__m256i* a) {
  constexpr int N = 16 / W;
  for (int round = 1; round < N; round *= 2) {
    __m256i t[N];
    for (int l = 0; l < N / 2; ++l) {
      t[2 * l] = unpack_lo<W>(a[l], a[l + N / 2]);
      t[2 * l + 1] = unpack_hi<W>(a[l], a[l + N / 2]);
    }
    for (int i = 0; i < N; ++i) a[i] = t[i];
  }
}

// AVX2 micro-tile: 2N x 2N elements, 32 bytes per row. Register i of column half g
// holds input rows i and i+N (low, high lane), so the lane-wise N x N transposes
// produce whole 32-byte output rows without any cross-lane shuffle.
template <int ES>
XPOSE_AVX2 void avx2_block(const byte* src, index_t lds, byte* dst, index_t ldd, index_t rows,
                           index_t cols) {
  constexpr int N = 16 / ES;
  for (index_t r = 0; r < rows; r += 2 * N)
    for (index_t c = 0; c < cols; c += 2 * N)
      for (int g = 0; g < 2; ++g) {
        const byte* s = src + r * lds + (c + g * N) * ES;
        byte* d = dst + (c + g * N) * ldd + r * ES;
        __m256i a[N];  // (N rows, 2 lanes of N cols)
        for (int i = 0; i < N; ++i) {
          const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i * lds));
          const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + (i + N) * lds));
          a[i] = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
        }
        transpose_lanes<ES>(a);
        for (int j = 0; j < N; ++j) _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + j * ldd), a[j]);
      }
}

// Copies n bytes with non-temporal stores where 16-byte aligned; the unaligned head
// and tail (less than a line) take ordinary stores. Never writes outside [dst, dst+n).
void stream_copy(byte* dst, const byte* src, index_t n) {
  const index_t head = std::min<index_t>(n, (16 - reinterpret_cast<std::uintptr_t>(dst) % 16) % 16);
  std::memcpy(dst, src, static_cast<std::size_t>(head));
  index_t i = head;
  for (; i + 16 <= n; i += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
  std::memcpy(dst + i, src + i, static_cast<std::size_t>(n - i));
}

XPOSE_AVX2 void stream_copy_avx2(byte* dst, const byte* src, index_t n) {
  index_t head = std::min<index_t>(n, (32 - reinterpret_cast<std::uintptr_t>(dst) % 32) % 32);
  if (head) std::memcpy(dst, src, static_cast<std::size_t>(head));
  index_t i = head;
  for (; i + 64 <= n; i += 64) {
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i + 32), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 32)));
  }
  for (; i + 32 <= n; i += 32)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
  if (n - i) std::memcpy(dst + i, src + i, static_cast<std::size_t>(n - i));
}
__attribute__((target("avx512f"))) void stream_copy_avx512(byte* dst, const byte* src, index_t n) {
  index_t head = std::min<index_t>(n, (64 - reinterpret_cast<std::uintptr_t>(dst) % 64) % 64);
  if (head) std::memcpy(dst, src, static_cast<std::size_t>(head));
  index_t i = head;
  for (; i + 64 <= n; i += 64)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i), _mm512_loadu_si512(reinterpret_cast<const void*>(src + i)));
  if (n - i) std::memcpy(dst + i, src + i, static_cast<std::size_t>(n - i));
}

void stream_fence() { _mm_sfence(); }
#else
void stream_copy(byte* dst, const byte* src, index_t n) { std::memcpy(dst, src, static_cast<std::size_t>(n)); }
void stream_fence() {}
#endif

/// The SIMD block kernel for ES-byte elements and its micro-tile edge (in elements).
struct kernel {
  block_fn block;
  index_t edge;
};

template <int ES>
kernel pick_kernel() {
#if XPOSE_X86
  static const bool avx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  if (avx2) return {avx2_block<ES>, 32 / ES};
  return {sse2_block<ES>, 16 / ES};
#else
  return {scalar_block<ES>, 1};
#endif
}

// Macro tile: 256 bytes of every output row (four cache lines, streamed whole) by
// 4096 / ES input columns: a 1 MiB / ES^2 ... capped so the staging buffer stays in L1.
static index_t envi(const char* n, index_t def) { const char* v = getenv(n); return v ? atol(v) : def; }
static index_t tile_rows(int es) { return envi("TRB", 256) / es; }
static index_t tile_cols(int es) { return envi("TCB", 256) / es; }
constexpr index_t buffer_bytes = 1 << 20;

// Outputs above this many bytes bypass the caches (as large memcpys do): the lines
// would be evicted before reuse, and write-allocate would read them first.
constexpr index_t stream_threshold = index_t{8} << 20;

template <int ES>
void transpose_es(const byte* in, byte* out, const matrix_desc& d, int threads) {
  const kernel k = pick_kernel<ES>();
  const index_t TR = tile_rows(ES), TC = tile_cols(ES);
  const index_t lds = d.ld_in * ES, ldd = d.ld_out * ES;
  const index_t ntr = (d.rows + TR - 1) / TR, ntc = (d.cols + TC - 1) / TC;
  const index_t per_matrix = ntr * ntc, total = d.batch * per_matrix;
  const index_t out_bytes = ((d.batch - 1) * d.stride_out + (d.cols - 1) * d.ld_out + d.rows) * ES;
  const bool stream = out_bytes >= envi("STH", stream_threshold);
  static const int PF = envi("PF", 0);
  static const int SC = envi("SC", 0);

  // Tiles run row strip by row strip (column tiles fastest) so each thread reads
  // TR input rows sequentially; static chunks give each thread contiguous strips.
#pragma omp parallel num_threads(threads) if (total > 1)
  {
    static thread_local byte* buffer = (byte*)aligned_alloc(64, buffer_bytes);  // (TC, TR) staging tile
#pragma omp for schedule(runtime)
    for (index_t t = 0; t < total; ++t) {
      const index_t b = t / per_matrix, rem = t % per_matrix;
      const index_t r0 = (rem / ntc) * TR, c0 = (rem % ntc) * TC;
      const index_t rows = std::min(TR, d.rows - r0), cols = std::min(TC, d.cols - c0);
      const byte* src = in + (b * d.stride_in + r0 * d.ld_in + c0) * ES;
      byte* dst = out + (b * d.stride_out + c0 * d.ld_out + r0) * ES;
      if (PF && t + 1 < total) {
        const index_t tn = t + 1, bn = tn / per_matrix, remn = tn % per_matrix;
        const index_t rn = (remn / ntc) * TR, cn = (remn % ntc) * TC;
        const index_t rowsn = std::min(TR, d.rows - rn), colsn = std::min(TC, d.cols - cn);
        const byte* sn = in + (bn * d.stride_in + rn * d.ld_in + cn) * ES;
        for (index_t i = 0; i < rowsn; ++i)
          for (index_t l = 0; l < colsn * ES; l += 64) { if (PF == 1) _mm_prefetch((const char*)(sn + i * lds + l), _MM_HINT_T0); else if (PF == 2) _mm_prefetch((const char*)(sn + i * lds + l), _MM_HINT_T1); else _mm_prefetch((const char*)(sn + i * lds + l), _MM_HINT_NTA); }
      }
      byte* tile = stream ? buffer : dst;
      const index_t ldt = stream ? TR * ES : ldd;
      const index_t fr = rows - rows % k.edge, fc = cols - cols % k.edge;
      k.block(src, lds, tile, ldt, fr, fc);
      if (fc < cols) scalar_block<ES>(src + fc * ES, lds, tile + fc * ldt, ldt, rows, cols - fc);
      if (fr < rows) scalar_block<ES>(src + fr * lds, lds, tile + fr * ES, ldt, rows - fr, fc);
      if (stream)
        for (index_t j = 0; j < cols; ++j) { if (SC == 0) stream_copy(dst + j * ldd, tile + j * ldt, rows * ES); else if (SC == 1) stream_copy_avx2(dst + j * ldd, tile + j * ldt, rows * ES); else stream_copy_avx512(dst + j * ldd, tile + j * ldt, rows * ES); }
    }
    if (stream) stream_fence();  // make streamed lines visible before the barrier
  }
}

}  // namespace

void blocked_transpose(const void* in, void* out, const matrix_desc& d, int threads) noexcept {
#if defined(_OPENMP)
  if (threads <= 0) threads = omp_get_max_threads();
#else
  threads = 1;
#endif
  const auto* src = static_cast<const byte*>(in);
  auto* dst = static_cast<byte*>(out);
  switch (d.elem_size) {
    case 1: transpose_es<1>(src, dst, d, threads); break;
    case 2: transpose_es<2>(src, dst, d, threads); break;
    case 4: transpose_es<4>(src, dst, d, threads); break;
    case 8: transpose_es<8>(src, dst, d, threads); break;
    default: transpose_es<16>(src, dst, d, threads); break;
  }
}

}  // namespace xpose::detail
