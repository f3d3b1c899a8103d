// Vector kernels of the CPU backend, compiled once per Highway target (kernels_hwy.cpp)
// and chosen at run time for the CPU at hand. Sizes in bytes unless named otherwise;
// an element-size slot `e` is log2 of the element size (0..4 for 1..16 bytes).
#pragma once

#include <cstdint>
#include <cstring>

#include "xpose/config.hpp"

namespace xpose::detail::cpu {

using byte = unsigned char;

struct kernel_set {
  /// Transposes a rows x cols block (any sizes): dst[c][r] = src[r][c], row pitches
  /// lds and ldd in bytes. Vector micro-tiles where they fit, smaller ones and
  /// scalar moves for the fringes.
  void (*block[5])(const byte* src, index_t lds, byte* dst, index_t ldd, index_t rows, index_t cols);
  /// Interleaves k = 2..interleave_max[e] rows of n elements (pitch lds) into n packed
  /// rows of k: dst[c * k + r] = src[r][c].
  void (*interleave[5])(const byte* src, index_t lds, int k, byte* dst, index_t n);
  /// The inverse shape: n packed rows of k = 2..interleave_max[e] elements into k rows
  /// of n (pitch ldd): dst[c][r] = src[r * k + c].
  void (*deinterleave[5])(const byte* src, int k, byte* dst, index_t ldd, index_t n);
  /// The largest k of the (de)interleaves per element size: 4 (Highway's
  /// StoreInterleaved / LoadInterleaved), 8 for 1-2 byte elements on vector targets
  /// (5..8 as byte table lookups).
  int interleave_max[5];
  /// Batches of tiny matrices as byte permutations: n chunks, input chunk i the in_span
  /// bytes (at most tiny_max) at src + i * in_stride (in_stride >= 16), output chunk i the
  /// `bytes` bytes at dst + i * bytes (dst holds n * bytes + tiny_max bytes of room: whole
  /// 16-byte blocks are stored), every output block b the OR of TableLookupBytesOr0 of the
  /// input blocks i whose bit 8b + i is set in `pairs`, with the 16-byte table masks[b][i]
  /// (0x80: no byte from that block). Null on targets without byte table lookups.
  void (*tiny_batch)(const byte* src, index_t in_stride, index_t in_span, byte* dst, index_t n, index_t bytes,
                     const byte (*masks)[8][16], std::uint64_t pairs);
  /// Copies n bytes with non-temporal stores where the target has them; fence()
  /// orders them before a barrier.
  void (*stream_copy)(byte* dst, const byte* src, index_t n);
  void (*fence)();
  const char* target;  ///< Highway's name of the dispatched target
};

/// Pulls runs towards L2 while other work runs (the hardware prefetchers do not
/// follow dozens of short row segments, docs/RESULTS.md "CPU backend"); Write fetches
/// the lines for ownership. Runs one after the other skip a first line the previous
/// run ended in (rows shorter than a line, back to back, cost one prefetch a line).
template <bool Write>
struct line_prefetcher {
  std::uintptr_t next = 0;  ///< the line after the previous run's last
  void operator()(const byte* p, index_t bytes) noexcept {
    std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{63};
    const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(p) + static_cast<std::uintptr_t>(bytes);
    if (a + 64 == next) a = next;
    for (; a < end; a += 64) {
#if defined(__GNUC__) || defined(__clang__)
      __builtin_prefetch(reinterpret_cast<const void*>(a), Write ? 1 : 0, 2);
#endif
    }
    next = a;
  }
};

/// One run (see line_prefetcher).
template <bool Write>
inline void prefetch_run(const byte* p, index_t bytes) noexcept {
  line_prefetcher<Write>{}(p, bytes);
}

/// Whether rows `pitch` bytes apart crowd into a few L1 sets (4 KiB of sets, 8 ways):
/// a tile written straight at such a pitch evicts its own lines between micro-tile
/// columns, so it is staged and copied out instead (512^2 f32: 2x slower direct).
constexpr bool crowds_l1_sets(index_t pitch) noexcept {
  index_t a = pitch < 0 ? -pitch : pitch, b = 4096;
  while (b) {
    const index_t t = a % b;
    a = b, b = t;
  }
  return a >= 1024;  // rows fall on at most 4 set groups
}

/// The kernels of the best target this CPU supports (chosen once, thread-safe).
const kernel_set& kernels() noexcept;

/// One piece (n bytes from q) of an output run written front to back in pieces, streaming only whole lines, so that no
/// output line is both streamed and stored and none is read before it is written (blocked.cpp's panels and streamed
/// (de)interleave runs, permute.cpp's streamed strided copies; the N-d unit
/// tiles of permute.cpp written as panels through it ran 1.24x slower, docs/RESULTS.md "CPU backend"). `line` (64
/// bytes, one per run) carries the line a piece ends in to the next piece, which completes it and streams it whole.
/// The partial lines at the ends of what one thread writes of a run (`first` piece, `last` piece) are shared with
/// other writes and take ordinary stores. A piece that is not the last is at least 64 bytes, so a first piece reaches
/// the end of the line it starts in and `line` always holds its line from its first byte.
inline void stream_piece(const kernel_set& k, byte* line, byte* d, const byte* q, index_t n, bool first, bool last) {
  const auto off = static_cast<index_t>(reinterpret_cast<std::uintptr_t>(d) % 64);
  index_t i = 0;
  if (off != 0) {  // the piece starts inside a line
    const index_t m = n < 64 - off ? n : 64 - off;
    if (first) {
      std::memcpy(d, q, static_cast<std::size_t>(m));
    } else {  // continues the line the previous piece ended in
      std::memcpy(line + off, q, static_cast<std::size_t>(m));
      if (off + m == 64) k.stream_copy(d - off, line, 64);
      else if (last) std::memcpy(d - off, line, static_cast<std::size_t>(off + m));
    }
    i = m;
  }
  const index_t body = (n - i) / 64 * 64;
  if (body) k.stream_copy(d + i, q + i, body);
  i += body;
  if (i < n) {  // the piece ends inside a line
    if (last) std::memcpy(d + i, q + i, static_cast<std::size_t>(n - i));
    else std::memcpy(line, q + i, static_cast<std::size_t>(n - i));
  }
}

/// The largest k any element size's (de)interleave takes (kernel_set::interleave_max; callers size per-row buffers by
/// it).
inline constexpr int interleave_k_max = 8;

/// Outputs of at least this many bytes bypass the caches (streaming stores): their lines would be evicted before
/// reuse, and write-allocate would read them first.
inline constexpr index_t stream_min_bytes = index_t{8} << 20;

/// The most bytes one tiny_batch chunk holds (eight 16-byte blocks).
inline constexpr index_t tiny_max = 128;

}  // namespace xpose::detail::cpu
