// The CPU backend's vector kernels, written once with Google Highway and compiled for
// every target Highway can dispatch to (x86: SSSE3, SSE4, AVX2, AVX-512; Arm: NEON;
// the portable EMU128 target elsewhere). kernels() picks the best one at run time.
//
// Not SVE: its vectors are sizeless types, which cannot be array elements, and the
// register-block transposes below hold N vectors in arrays. SVE CPUs run the NEON
// target (128-bit, like SVE on Neoverse V2 / Grace), so Arm still gets vector code.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"

#include "cpu/kernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace xpose::detail::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <int ES>
struct lane;
template <> struct lane<1> { using type = std::uint8_t; };
template <> struct lane<2> { using type = std::uint16_t; };
template <> struct lane<4> { using type = std::uint32_t; };
template <> struct lane<8> { using type = std::uint64_t; };

// Widest micro-tile vector: 32 bytes on x86 (64-byte AVX-512 vectors gained nothing
// over 32-byte ones in the copy-out, docs/RESULTS.md "CPU backend"); one 128-bit block
// elsewhere, which keeps the block-wise interleaves exact on every target.
// The SCALAR target (one lane, no interleaves) uses the element loops only.
#define XPOSE_HWY_VECTORS (HWY_TARGET != HWY_SCALAR)
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && XPOSE_HWY_VECTORS
constexpr std::size_t kTileBytes = HWY_MIN(HWY_MAX_BYTES, 32);
#elif !XPOSE_HWY_VECTORS
constexpr std::size_t kTileBytes = 0;
#else
constexpr std::size_t kTileBytes = 16;
#endif

template <int ES>
HWY_INLINE void move_elem(byte* dst, const byte* src) {
  std::memcpy(dst, src, ES);
}

template <int ES>
void scalar_block(const byte* s, index_t lds, byte* o, index_t ldd, index_t rows, index_t cols) {
  for (index_t c = 0; c < cols; ++c)
    for (index_t r = 0; r < rows; ++r) move_elem<ES>(o + c * ldd + r * ES, s + r * lds + c * ES);
}

#if XPOSE_HWY_VECTORS
// Loads the 16-byte pieces at p, p + step, p + 2 step, ... into the 128-bit blocks of
// one vector (block 0 lowest).
template <class D>
HWY_INLINE hn::VFromD<D> load_blocks(D d, const byte* p, index_t step) {
  using T = hn::TFromD<D>;
  constexpr std::size_t bytes = hn::MaxLanes(D()) * sizeof(T);
  if constexpr (bytes <= 16) {
    return hn::LoadU(d, reinterpret_cast<const T*>(p));
  } else {
    const hn::Half<D> dh;
    return hn::Combine(d, load_blocks(dh, p + step * static_cast<index_t>(bytes / 32), step), load_blocks(dh, p, step));
  }
}

// The log2(N) interleave rounds of a micro-tile (below) on registers a[0 .. N - 1].
template <class D, class V, int N>
HWY_INLINE void interleave_rounds(D d, V (&a)[N]) {
  for (int round = 1; round < N; round *= 2) {
    V t[N];
    for (int l = 0; l < N / 2; ++l) {
      t[2 * l] = hn::InterleaveLower(d, a[l], a[l + N / 2]);
      t[2 * l + 1] = hn::InterleaveUpper(d, a[l], a[l + N / 2]);
    }
    for (int i = 0; i < N; ++i) a[i] = t[i];
  }
}

// One micro-tile of E x E elements, E = (elements per block) x (blocks per vector).
// A register holds one row of N elements per block; register i of column group g
// takes input rows i, i + N, ... in its blocks. One round interleaves registers l and
// l + N/2 into 2l, 2l + 1, which rotates the bits of the (row, col) index within a
// block left by one; after log2(N) rounds every block holds an N x N transpose and
// each register is a whole output row segment.
template <class D>
HWY_INLINE void micro_tile(D d, const byte* s, index_t lds, byte* o, index_t ldd) {
  using T = hn::TFromD<D>;
  using V = hn::VFromD<D>;
  constexpr std::size_t bytes = hn::MaxLanes(D()) * sizeof(T);
  constexpr std::size_t blk = bytes < 16 ? bytes : 16;
  constexpr int N = static_cast<int>(blk / sizeof(T)), B = static_cast<int>(bytes / blk);
  for (int g = 0; g < B; ++g) {
    V a[N];
    for (int i = 0; i < N; ++i) a[i] = load_blocks(d, s + i * lds + g * static_cast<index_t>(blk), N * lds);
    interleave_rounds(d, a);
    for (int j = 0; j < N; ++j) hn::StoreU(a[j], d, reinterpret_cast<T*>(o + (g * N + j) * ldd));
  }
}

#if HWY_TARGET <= HWY_AVX3
// A fringe micro-tile on AVX-512 (one 16-byte vector per row): nr rows of nc elements (both at most the edge) read
// by masked loads (the other lanes zero, nothing read past them), moved as a whole micro-tile, its nc x nr corner
// written by masked stores. A fringe then costs one micro-tile, where it took ever narrower vectors down to single
// elements (a 13-column u8 block: 8 x 8 and 4 x 4 micro-tiles, then a byte at a time).
template <class D>
HWY_INLINE void micro_tile_part(D d, const byte* s, index_t lds, byte* o, index_t ldd, index_t nr, index_t nc) {
  using T = hn::TFromD<D>;
  using V = hn::VFromD<D>;
  constexpr int N = static_cast<int>(hn::MaxLanes(D()));
  const auto in_row = hn::FirstN(d, static_cast<std::size_t>(nc)), out_row = hn::FirstN(d, static_cast<std::size_t>(nr));
  V a[N];
  for (int i = 0; i < N; ++i)
    a[i] = i < nr ? hn::MaskedLoad(in_row, d, reinterpret_cast<const T*>(s + i * lds)) : hn::Zero(d);
  interleave_rounds(d, a);
  for (int j = 0; j < nc; ++j) hn::BlendedStore(a[j], out_row, d, reinterpret_cast<T*>(o + j * ldd));
}
#define XPOSE_FRINGE_TILES 1
#else
#define XPOSE_FRINGE_TILES 0
#endif

#endif  // XPOSE_HWY_VECTORS

// Micro-tiles of `bytes`-wide vectors over the largest multiple of their edge; the
// fringes go to half-width tiles, and at 16 bytes to fringe micro-tiles on AVX-512,
// elsewhere on down to single elements.
template <int ES, std::size_t bytes>
void block_of(const byte* s, index_t lds, byte* o, index_t ldd, index_t rows, index_t cols) {
  if (rows <= 0 || cols <= 0) return;  // fringes of tiny matrices: no empty recursion
  if constexpr (ES == 16 && bytes == 32 && XPOSE_HWY_VECTORS) {
#if XPOSE_HWY_VECTORS
    // 2 x 2 tiles of 32-byte vectors (two elements each): output rows c and c + 1 are
    // the lower and the upper halves of input rows r and r + 1.
    const hn::FixedTag<std::uint64_t, bytes / 8> d;
    using T = std::uint64_t;
    const index_t fr = rows - rows % 2, fc = cols - cols % 2;
    for (index_t r = 0; r < fr; r += 2)
      for (index_t c = 0; c < fc; c += 2) {
        const auto a = hn::LoadU(d, reinterpret_cast<const T*>(s + r * lds + c * ES));
        const auto b = hn::LoadU(d, reinterpret_cast<const T*>(s + (r + 1) * lds + c * ES));
        hn::StoreU(hn::ConcatLowerLower(d, b, a), d, reinterpret_cast<T*>(o + c * ldd + r * ES));
        hn::StoreU(hn::ConcatUpperUpper(d, b, a), d, reinterpret_cast<T*>(o + (c + 1) * ldd + r * ES));
      }
    if (fc < cols) scalar_block<ES>(s + fc * ES, lds, o + fc * ldd, ldd, rows, cols - fc);
    if (fr < rows) scalar_block<ES>(s + fr * lds, lds, o + fr * ES, ldd, rows - fr, fc);
#endif
  } else if constexpr (ES > 8 || bytes < 2 * ES || !XPOSE_HWY_VECTORS) {
    scalar_block<ES>(s, lds, o, ldd, rows, cols);
  } else {
#if XPOSE_HWY_VECTORS
    const hn::FixedTag<typename lane<ES>::type, bytes / ES> d;
    constexpr index_t E = bytes <= 16 ? bytes / ES : (16 / ES) * (bytes / 16);
    const index_t fr = rows - rows % E, fc = cols - cols % E;
    for (index_t r = 0; r < fr; r += E)
      for (index_t c = 0; c < fc; c += E) micro_tile(d, s + r * lds + c * ES, lds, o + c * ldd + r * ES, ldd);
#if XPOSE_FRINGE_TILES
    if constexpr (bytes == 16) {
      if (fc < cols)
        for (index_t r = 0; r < rows; r += E)
          micro_tile_part(d, s + r * lds + fc * ES, lds, o + fc * ldd + r * ES, ldd, std::min(E, rows - r), cols - fc);
      if (fr < rows)
        for (index_t c = 0; c < fc; c += E)
          micro_tile_part(d, s + fr * lds + c * ES, lds, o + c * ldd + fr * ES, ldd, rows - fr, E);
      return;
    }
#endif
    if (fc < cols) block_of<ES, bytes / 2>(s + fc * ES, lds, o + fc * ldd, ldd, rows, cols - fc);
    if (fr < rows) block_of<ES, bytes / 2>(s + fr * lds, lds, o + fr * ES, ldd, rows - fr, fc);
#endif
  }
}

template <int ES>
void block(const byte* s, index_t lds, byte* o, index_t ldd, index_t rows, index_t cols) {
  block_of<ES, kTileBytes>(s, lds, o, ldd, rows, cols);
}

// Vector width for the (de)interleaves: whole vectors, at most 32 bytes (as above).
template <class T>
using stream_tag = hn::CappedTag<T, (kTileBytes ? kTileBytes : 16) / sizeof(T)>;

#if XPOSE_HWY_VECTORS
// Byte tables of the 5..8-way (de)interleaves of 1-2 byte elements (kernel_set::interleave_max). A group is
// L = 16 / ES elements of each of the K rows, 16 * K bytes either way. Interleave: output block j of a group is the
// OR over rows r of TableLookupBytesOr0(row r's block, ilv[j][r]); deinterleave: output row c's block is the OR over
// the group's input blocks i of TableLookupBytesOr0(block i, dlv[c][i]) (0x80: no byte from there).
template <int ES, int K>
struct alignas(16) wide_masks {
  byte ilv[K][K][16];
  byte dlv[K][K][16];
  constexpr wide_masks() : ilv{}, dlv{} {
    for (int j = 0; j < K; ++j)
      for (int r = 0; r < K; ++r)
        for (int i = 0; i < 16; ++i) ilv[j][r][i] = dlv[j][r][i] = 0x80;
    for (int p = 0; p < 16 * K; ++p) {  // byte p of the interleaved group: element p / ES of K-element rows
      const int q = p / ES, b = p % ES, c = q / K, r = q % K;
      ilv[p / 16][r][p % 16] = static_cast<byte>(c * ES + b);  // from row r's block, element c
      dlv[r][p / 16][c * ES + b] = static_cast<byte>(p % 16);   // output row r's element c, from input block p / 16
    }
  }
};
template <int ES, int K>
inline constexpr wide_masks<ES, K> wide_masks_v{};

// Stores the 128-bit blocks of v at p, p + step, p + 2 step, ... (load_blocks' inverse).
template <class D>
HWY_INLINE void store_blocks(D d, hn::VFromD<D> v, byte* p, index_t step) {
  using T = hn::TFromD<D>;
  constexpr std::size_t bytes = hn::MaxLanes(D()) * sizeof(T);
  if constexpr (bytes <= 16) {
    hn::StoreU(v, d, reinterpret_cast<T*>(p));
  } else {
    const hn::Half<D> dh;
    store_blocks(dh, hn::LowerHalf(dh, v), p, step);
    store_blocks(dh, hn::UpperHalf(dh, v), p + step * static_cast<index_t>(bytes / 32), step);
  }
}

// K = 5..8 rows of 1-2 byte elements, n >= the step S = L x (blocks a vector), one group a block: the K output blocks
// of a group are K table lookups each; the last step overlaps the one before where n is not a multiple of S (the same
// bytes written twice).
template <class D, int ES, int K>
HWY_INLINE void interleave_groups(D d, const byte* src, index_t lds, byte* dst, index_t n) {
  constexpr index_t L = 16 / ES, S = L * static_cast<index_t>(hn::MaxLanes(D()) / 16);
  const auto& m = wide_masks_v<ES, K>;
  auto group = [&](index_t c0) {
    hn::VFromD<D> v[K];
    for (int r = 0; r < K; ++r) v[r] = hn::LoadU(d, src + r * lds + c0 * ES);
    for (int j = 0; j < K; ++j) {
      auto acc = hn::TableLookupBytesOr0(v[0], hn::LoadDup128(d, m.ilv[j][0]));
      for (int r = 1; r < K; ++r) acc = hn::Or(acc, hn::TableLookupBytesOr0(v[r], hn::LoadDup128(d, m.ilv[j][r])));
      store_blocks(d, acc, dst + (c0 * K + j * L) * ES, 16 * K);
    }
  };
  index_t c = 0;
  for (; c + S <= n; c += S) group(c);
  if (c < n) group(n - S);
}

// The inverse: n >= S packed input rows of K elements into K rows of n (pitch ldd).
template <class D, int ES, int K>
HWY_INLINE void deinterleave_groups(D d, const byte* src, byte* dst, index_t ldd, index_t n) {
  constexpr index_t L = 16 / ES, S = L * static_cast<index_t>(hn::MaxLanes(D()) / 16);
  const auto& m = wide_masks_v<ES, K>;
  auto group = [&](index_t r0) {
    hn::VFromD<D> v[K];
    for (int i = 0; i < K; ++i) v[i] = load_blocks(d, src + (r0 * K + i * L) * ES, 16 * K);
    for (int c = 0; c < K; ++c) {
      auto acc = hn::TableLookupBytesOr0(v[0], hn::LoadDup128(d, m.dlv[c][0]));
      for (int i = 1; i < K; ++i) acc = hn::Or(acc, hn::TableLookupBytesOr0(v[i], hn::LoadDup128(d, m.dlv[c][i])));
      hn::StoreU(acc, d, dst + c * ldd + r0 * ES);
    }
  };
  index_t r = 0;
  for (; r + S <= n; r += S) group(r);
  if (r < n) group(n - S);
}

// The widest vectors of the (de)interleaves (as the micro-tiles'), one 128-bit block for fewer elements.
using wide_tag = hn::CappedTag<std::uint8_t, kTileBytes ? kTileBytes : 16>;

template <int ES, int K>
void interleave_wide(const byte* src, index_t lds, byte* dst, index_t n) {
  const wide_tag d;
  const hn::Full128<std::uint8_t> d16;
  if (n >= static_cast<index_t>(hn::MaxLanes(d)) / ES) return interleave_groups<wide_tag, ES, K>(d, src, lds, dst, n);
  if (n >= 16 / ES) return interleave_groups<decltype(d16), ES, K>(d16, src, lds, dst, n);
  for (index_t c = 0; c < n; ++c)
    for (int r = 0; r < K; ++r) move_elem<ES>(dst + (c * K + r) * ES, src + r * lds + c * ES);
}

template <int ES, int K>
void deinterleave_wide(const byte* src, byte* dst, index_t ldd, index_t n) {
  const wide_tag d;
  const hn::Full128<std::uint8_t> d16;
  if (n >= static_cast<index_t>(hn::MaxLanes(d)) / ES) return deinterleave_groups<wide_tag, ES, K>(d, src, dst, ldd, n);
  if (n >= 16 / ES) return deinterleave_groups<decltype(d16), ES, K>(d16, src, dst, ldd, n);
  for (index_t r = 0; r < n; ++r)
    for (int c = 0; c < K; ++c) move_elem<ES>(dst + c * ldd + r * ES, src + (r * K + c) * ES);
}
#endif

static_assert(interleave_k_max == 8, "the (de)interleaves' switches take k up to 8");

template <int ES>
void interleave(const byte* src, index_t lds, int k, byte* dst, index_t n) {
  index_t c = 0;
#if XPOSE_HWY_VECTORS
  if constexpr (ES <= 2) {
    switch (k) {
      case 5: return interleave_wide<ES, 5>(src, lds, dst, n);
      case 6: return interleave_wide<ES, 6>(src, lds, dst, n);
      case 7: return interleave_wide<ES, 7>(src, lds, dst, n);
      case 8: return interleave_wide<ES, 8>(src, lds, dst, n);
      default: break;
    }
  }
  if constexpr (ES <= 8) {
    using T = typename lane<ES>::type;
    const stream_tag<T> d;
    const auto L = static_cast<index_t>(hn::Lanes(d));
    auto row = [&](int r, index_t i) { return hn::LoadU(d, reinterpret_cast<const T*>(src + r * lds) + i); };
    T* o = reinterpret_cast<T*>(dst);
    if (k == 2)
      for (; c + L <= n; c += L) hn::StoreInterleaved2(row(0, c), row(1, c), d, o + 2 * c);
    else if (k == 3)
      for (; c + L <= n; c += L) hn::StoreInterleaved3(row(0, c), row(1, c), row(2, c), d, o + 3 * c);
    else if (k == 4)
      for (; c + L <= n; c += L) hn::StoreInterleaved4(row(0, c), row(1, c), row(2, c), row(3, c), d, o + 4 * c);
  }
#endif
  for (; c < n; ++c)
    for (int r = 0; r < k; ++r) move_elem<ES>(dst + (c * k + r) * ES, src + r * lds + c * ES);
}

template <int ES>
void deinterleave(const byte* src, int k, byte* dst, index_t ldd, index_t n) {
  index_t r = 0;
#if XPOSE_HWY_VECTORS
  if constexpr (ES <= 2) {
    switch (k) {
      case 5: return deinterleave_wide<ES, 5>(src, dst, ldd, n);
      case 6: return deinterleave_wide<ES, 6>(src, dst, ldd, n);
      case 7: return deinterleave_wide<ES, 7>(src, dst, ldd, n);
      case 8: return deinterleave_wide<ES, 8>(src, dst, ldd, n);
      default: break;
    }
  }
  if constexpr (ES <= 8) {
    using T = typename lane<ES>::type;
    const stream_tag<T> d;
    const auto L = static_cast<index_t>(hn::Lanes(d));
    const T* s = reinterpret_cast<const T*>(src);
    auto out = [&](int c, index_t i) { return reinterpret_cast<T*>(dst + c * ldd) + i; };
    hn::VFromD<decltype(d)> v0, v1, v2, v3;
    if (k == 2)
      for (; r + L <= n; r += L) {
        hn::LoadInterleaved2(d, s + 2 * r, v0, v1);
        hn::StoreU(v0, d, out(0, r)), hn::StoreU(v1, d, out(1, r));
      }
    else if (k == 3)
      for (; r + L <= n; r += L) {
        hn::LoadInterleaved3(d, s + 3 * r, v0, v1, v2);
        hn::StoreU(v0, d, out(0, r)), hn::StoreU(v1, d, out(1, r)), hn::StoreU(v2, d, out(2, r));
      }
    else if (k == 4)
      for (; r + L <= n; r += L) {
        hn::LoadInterleaved4(d, s + 4 * r, v0, v1, v2, v3);
        hn::StoreU(v0, d, out(0, r)), hn::StoreU(v1, d, out(1, r));
        hn::StoreU(v2, d, out(2, r)), hn::StoreU(v3, d, out(3, r));
      }
  }
#endif
  for (; r < n; ++r)
    for (int c = 0; c < k; ++c) move_elem<ES>(dst + c * ldd + r * ES, src + (r * k + c) * ES);
}

// Non-temporal copy on x86: whole aligned vectors bypass the caches. A destination 16
// bytes off a 32-byte boundary (every large std::vector: glibc's mmap'd blocks start
// 16 bytes into a page) takes a 16-byte streaming head and tail: ordinary stores into
// a line that is also being streamed cost about half the bandwidth (docs/RESULTS.md,
// "CPU backend"). Elsewhere a plain copy.
void stream_copy(byte* dst, const byte* src, index_t n) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && XPOSE_HWY_VECTORS
  const hn::CappedTag<std::uint8_t, kTileBytes> d;
  const hn::Full128<std::uint8_t> d16;
  const auto V = static_cast<index_t>(hn::Lanes(d));
  auto mis = [&](index_t a) { return static_cast<index_t>(reinterpret_cast<std::uintptr_t>(dst + 0) % static_cast<std::uintptr_t>(a)); };
  index_t i = std::min<index_t>(n, (16 - mis(16)) % 16);
  if (i) std::memcpy(dst, src, static_cast<std::size_t>(i));
  auto stream16 = [&] {
    hn::Stream(hn::LoadU(d16, src + i), d16, dst + i);
    i += 16;
  };
  if (V > 16 && i + 16 <= n && reinterpret_cast<std::uintptr_t>(dst + i) % 32 != 0) stream16();
  for (; i + V <= n; i += V) hn::Stream(hn::LoadU(d, src + i), d, dst + i);
  if (i + 16 <= n) stream16();
  if (i < n) std::memcpy(dst + i, src + i, static_cast<std::size_t>(n - i));
#else
  std::memcpy(dst, src, static_cast<std::size_t>(n));
#endif
}

void fence() { hwy::FlushStream(); }

#if XPOSE_HWY_VECTORS
// kernel_set::tiny_batch, for input spans of NB 16-byte blocks (unrolled). The last
// chunk's input is read through a copy (whole blocks would read past the end of src);
// outputs are whole blocks (dst has the room).
template <int NB>
void tiny_chunks(const byte* src, index_t in_stride, index_t in_span, byte* dst, index_t n, index_t bytes,
                 const byte (*masks)[8][16], std::uint64_t pairs) {
  const int nb_out = static_cast<int>((bytes + 15) / 16);
  const hn::Full128<std::uint8_t> d;
  constexpr int K = NB <= 4 ? NB : 1;  // tables held in registers up to four blocks, else loaded per use
  hn::VFromD<decltype(d)> m[K][K];
  for (int b = 0; b < K; ++b)
    for (int i = 0; i < K; ++i) m[b][i] = hn::LoadU(d, masks[b][i]);
  alignas(16) byte last[tiny_max];
  for (index_t c = 0; c < n; ++c) {
    const byte* s = src + c * in_stride;
    if (c + 1 == n) {
      std::memcpy(last, s, static_cast<std::size_t>(in_span));
      s = last;
    }
    hn::VFromD<decltype(d)> v[NB];
    for (int i = 0; i < NB; ++i) v[i] = hn::LoadU(d, s + 16 * i);
    for (int b = 0; b < NB && b < nb_out; ++b) {
      auto acc = hn::Zero(d);
      for (int i = 0; i < NB; ++i)
        if ((pairs >> (8 * b + i)) & 1u) {
          if constexpr (NB <= 4) acc = hn::Or(acc, hn::TableLookupBytesOr0(v[i], m[b][i]));
          else acc = hn::Or(acc, hn::TableLookupBytesOr0(v[i], hn::LoadU(d, masks[b][i])));
        }
      hn::StoreU(acc, d, dst + c * bytes + 16 * b);
    }
  }
}

void tiny_batch(const byte* src, index_t in_stride, index_t in_span, byte* dst, index_t n, index_t bytes,
                const byte (*masks)[8][16], std::uint64_t pairs) {
  switch ((in_span + 15) / 16) {
    case 1: return tiny_chunks<1>(src, in_stride, in_span, dst, n, bytes, masks, pairs);
    case 2: return tiny_chunks<2>(src, in_stride, in_span, dst, n, bytes, masks, pairs);
    case 3: return tiny_chunks<3>(src, in_stride, in_span, dst, n, bytes, masks, pairs);
    case 4: return tiny_chunks<4>(src, in_stride, in_span, dst, n, bytes, masks, pairs);
    case 5: return tiny_chunks<5>(src, in_stride, in_span, dst, n, bytes, masks, pairs);
    case 6: return tiny_chunks<6>(src, in_stride, in_span, dst, n, bytes, masks, pairs);
    case 7: return tiny_chunks<7>(src, in_stride, in_span, dst, n, bytes, masks, pairs);
    default: return tiny_chunks<8>(src, in_stride, in_span, dst, n, bytes, masks, pairs);
  }
}
constexpr auto tiny_batch_fn = &tiny_batch;
#else
constexpr decltype(kernel_set::tiny_batch) tiny_batch_fn = nullptr;
#endif

const kernel_set* get_kernels() {
  static const kernel_set k = {
      {block<1>, block<2>, block<4>, block<8>, block<16>},
      {interleave<1>, interleave<2>, interleave<4>, interleave<8>, interleave<16>},
      {deinterleave<1>, deinterleave<2>, deinterleave<4>, deinterleave<8>, deinterleave<16>},
      {XPOSE_HWY_VECTORS ? interleave_k_max : 4, XPOSE_HWY_VECTORS ? interleave_k_max : 4, 4, 4, 4},
      tiny_batch_fn,
      stream_copy,
      fence,
      hwy::TargetName(HWY_TARGET)};
  return &k;
}

}  // namespace HWY_NAMESPACE
}  // namespace xpose::detail::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace xpose::detail::cpu {
HWY_EXPORT(get_kernels);

const kernel_set& kernels() noexcept {
  static const kernel_set* k = HWY_DYNAMIC_DISPATCH(get_kernels)();
  return *k;
}
}  // namespace xpose::detail::cpu
#endif
