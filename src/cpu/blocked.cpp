// Fast CPU backend: two-level blocked, OpenMP-threaded out-of-place transpose.
// Each macro tile is transposed into an L1 staging buffer by SIMD micro-tiles (SSE2
// on any x86-64, AVX2 when the CPU reports it at run time, plain loops elsewhere;
// ragged fringes take a scalar path), then copied out row segment by row segment,
// with non-temporal stores when the output is larger than the caches. Pointers need
// only be aligned to the element size. Assumes a validated, non-empty desc.
#include <algorithm>
#include <cstdint>
#include <cstring>

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

// Copy-out of one staged output row segment: n bytes, never outside [dst, dst+n).
using copy_fn = void (*)(byte* dst, const byte* src, index_t n);

void plain_copy(byte* dst, const byte* src, index_t n) { std::memcpy(dst, src, static_cast<std::size_t>(n)); }

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

// Non-temporal copies: whole aligned vectors bypass the caches; the unaligned head
// and tail (less than a vector) take ordinary stores.
void stream_copy_sse2(byte* dst, const byte* src, index_t n) {
  const index_t head = std::min<index_t>(n, (16 - reinterpret_cast<std::uintptr_t>(dst) % 16) % 16);
  if (head) std::memcpy(dst, src, static_cast<std::size_t>(head));
  index_t i = head;
  for (; i + 16 <= n; i += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
  if (i < n) std::memcpy(dst + i, src + i, static_cast<std::size_t>(n - i));
}

// 32-byte streaming stores: measured 25-30% faster than 16-byte ones at 8192^2
// (the per-core store rate, not DRAM, limits the copy-out); 64-byte (AVX-512) ones
// gained nothing more.
// A destination 16 bytes off a 32-byte boundary (every large std::vector: glibc's
// mmap'd blocks start 16 bytes into a page) takes a 16-byte streaming head and tail:
// ordinary stores into a line that is also being streamed cost about half the
// bandwidth (xpose-bench --cpu, 8192^2 fp32: 0.41 -> 0.61 of memcpy).
XPOSE_AVX2 void stream_copy_avx2(byte* dst, const byte* src, index_t n) {
  index_t i = 0;
  const index_t head16 = std::min<index_t>(n, (16 - reinterpret_cast<std::uintptr_t>(dst) % 16) % 16);
  if (head16) std::memcpy(dst, src, static_cast<std::size_t>(head16));
  i = head16;
  if (i + 16 <= n && reinterpret_cast<std::uintptr_t>(dst + i) % 32 != 0) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    i += 16;
  }
  for (; i + 32 <= n; i += 32)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
  if (i + 16 <= n) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    i += 16;
  }
  if (i < n) std::memcpy(dst + i, src + i, static_cast<std::size_t>(n - i));
}

void stream_fence() { _mm_sfence(); }
#else
void stream_fence() {}
#endif

/// What the CPU offers for ES-byte elements: the block kernel, its micro-tile edge
/// (elements), and the streaming copy-out.
struct kernels {
  block_fn block;
  index_t edge;
  copy_fn stream_copy;
};

template <int ES>
kernels pick_kernels() {
#if XPOSE_X86
  static const bool avx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  if (avx2) return {avx2_block<ES>, 32 / ES, stream_copy_avx2};
  return {sse2_block<ES>, 16 / ES, stream_copy_sse2};
#else
  return {scalar_block<ES>, 1, plain_copy};
#endif
}

/// Macro tile in elements (rows x cols of the input); at most 32 KiB, staged per thread.
struct tile_shape {
  index_t rows, cols;
  bool stage_input;  ///< copy the input rows to a buffer before the kernel reads them
};

// Chosen by measurement at 8192^2 on the 2-core EPYC (docs/RESULTS.md): output
// segments of 256-512 bytes (whole lines for the streaming stores), input segments
// of 128-512 bytes. One-byte micro-tiles read 32 rows that, at a power-of-two
// leading dimension, share one L1 set (8 ways) and thrash, so that size first copies
// its input rows contiguously (measured 12 -> 17 GB/s); for 2 bytes (16 rows) the
// extra copy cost more than it saved.
template <int ES>
constexpr tile_shape tile_for() {
  if constexpr (ES == 1) return {128, 128, true};
  else if constexpr (ES == 2) return {128, 128, false};
  else if constexpr (ES == 4) return {64, 128, false};
  else if constexpr (ES == 8) return {32, 64, false};
  else return {32, 32, false};
}

// Outputs of at least this many bytes bypass the caches (as large memcpys do): the
// lines would be evicted before reuse, and write-allocate would read them first.
constexpr index_t stream_threshold = index_t{8} << 20;

// Pulls a tile's input rows towards L2 while the current tile is being worked on:
// the hardware prefetchers do not follow dozens of short row segments.
inline void prefetch_rows(const byte* src, index_t lds, index_t rows, index_t row_bytes) {
#if defined(__GNUC__) || defined(__clang__)
  for (index_t i = 0; i < rows; ++i)
    for (index_t b = 0; b < row_bytes; b += 64) __builtin_prefetch(src + i * lds + b, 0, 2);
#else
  (void)src, (void)lds, (void)rows, (void)row_bytes;
#endif
}

template <int ES>
void transpose_es(const byte* in, byte* out, const matrix_desc& d, int threads) {
  constexpr tile_shape shape = tile_for<ES>();
  constexpr index_t TR = shape.rows, TC = shape.cols;
  const kernels k = pick_kernels<ES>();
  const index_t lds = d.ld_in * ES, ldd = d.ld_out * ES;
  // Row strips start where output row pieces start on a cache line: a piece that
  // covers only part of its first and last lines halves the streaming-store rate
  // (8192^2 fp32, output 32 bytes off a line: 17 vs 21 GB/s). The phase is common to
  // every output row when the row pitch (and batch stride) are whole lines.
  const bool lines_align = ldd % 64 == 0 && (d.batch == 1 || (d.stride_out * ES) % 64 == 0);
  const index_t phase_bytes = static_cast<index_t>((64 - reinterpret_cast<std::uintptr_t>(out) % 64) % 64);
  const index_t phase = lines_align && phase_bytes / ES < d.rows ? phase_bytes / ES : 0;  // rows, < TR
  const index_t ntr = phase ? 1 + (d.rows - phase + TR - 1) / TR : (d.rows + TR - 1) / TR;
  const index_t ntc = (d.cols + TC - 1) / TC;
  const index_t per_matrix = ntr * ntc, total = d.batch * per_matrix;
  const index_t out_bytes = ((d.batch - 1) * d.stride_out + (d.cols - 1) * d.ld_out + d.rows) * ES;
  const bool stream = out_bytes >= stream_threshold;
  const copy_fn copy_out = stream ? k.stream_copy : plain_copy;

  struct tile {
    const byte* src;
    byte* dst;
    index_t rows, cols;
  };
  auto tile_at = [&](index_t t) {
    const index_t b = t / per_matrix, rem = t % per_matrix;
    const index_t strip = rem / ntc, c0 = (rem % ntc) * TC;
    const index_t r0 = phase == 0 ? strip * TR : strip == 0 ? 0 : phase + (strip - 1) * TR;
    const index_t r1 = phase != 0 && strip == 0 ? phase : std::min(r0 + TR, d.rows);
    return tile{in + (b * d.stride_in + r0 * d.ld_in + c0) * ES, out + (b * d.stride_out + c0 * d.ld_out + r0) * ES,
                r1 - r0, std::min(TC, d.cols - c0)};
  };

  // Tiles run row strip by row strip (column tiles fastest), so each thread reads
  // input rows front to back. Chunks of 8 tiles are handed out dynamically: on the
  // shared 2-core dev machine static halves stalled whenever one thread was preempted
  // (f32 and f64, two rounds: static 0.52-0.85 of memcpy, dynamic,8 0.68-0.87).
#pragma omp parallel num_threads(threads) if (total > 1)
  {
    alignas(64) byte staged_out[TR * TC * ES];                          // (TC, TR) transposed tile
    alignas(64) byte staged_in[shape.stage_input ? TR * TC * ES : 64];  // (TR, TC) input tile
#pragma omp for schedule(dynamic, 8)
    for (index_t t = 0; t < total; ++t) {
      const tile x = tile_at(t);
      if (stream && t + 1 < total) {
        const tile next = tile_at(t + 1);
        prefetch_rows(next.src, lds, next.rows, next.cols * ES);
      }
      const byte* src = x.src;
      index_t ls = lds;
      if constexpr (shape.stage_input) {
        for (index_t i = 0; i < x.rows; ++i)
          std::memcpy(staged_in + i * TC * ES, x.src + i * lds, static_cast<std::size_t>(x.cols * ES));
        src = staged_in;
        ls = TC * ES;
      }
      constexpr index_t ldt = TR * ES;
      const index_t fr = x.rows - x.rows % k.edge, fc = x.cols - x.cols % k.edge;
      k.block(src, ls, staged_out, ldt, fr, fc);
      if (fc < x.cols) scalar_block<ES>(src + fc * ES, ls, staged_out + fc * ldt, ldt, x.rows, x.cols - fc);
      if (fr < x.rows) scalar_block<ES>(src + fr * ls, ls, staged_out + fr * ES, ldt, x.rows - fr, fc);
      for (index_t j = 0; j < x.cols; ++j) copy_out(x.dst + j * ldd, staged_out + j * ldt, x.rows * ES);
    }
    if (stream) stream_fence();  // streamed lines must be visible before the barrier
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
