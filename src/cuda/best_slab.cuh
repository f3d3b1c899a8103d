// Slab kernels of `best`: shapes with one short side, or batches of small matrices,
// at any element alignment (docs/RESULTS.md, "2-D: slab kernels (gather, scatter, whole matrices)").
//
// A slab is a range of the long side with the whole short side (S rows of n elements).
// One side of it is S row segments (anywhere, any E-aligned address), the other side
// is one contiguous byte range, so both sides move as 16-byte accesses at 16-byte
// aligned addresses; only the shared-memory side is element-granular.
//   gather  (few rows, packed output ld_out == rows): the S input segments are read as
//           the aligned chunks that cover them, shifted by funnel shifts into shared
//           rows; the contiguous output range is assembled element by element from
//           the shared rows and stored as aligned chunks (ragged ends as pieces).
//   scatter (few cols, packed input ld_in == cols): the contiguous input range is read
//           as aligned chunks and its elements scattered to shared rows; each output
//           segment is stored as aligned chunks, each a window of two shared chunks.
//   whole   (batch of small packed matrices): a slab is several whole matrices; the
//           input range is read like scatter's, its elements placed at their output
//           positions, and the output range stored like one scatter segment.
//   grouped (gather / scatter with the short side S a template argument SS, small):
//           the packed side goes through a staging area in shared memory, and a middle
//           phase moves whole groups of U/E positions x S rows (U = 16 bytes of each
//           row for S <= 8, else 4) through registers with byte permutes, at most 3
//           per word, instead of one shared access and a walker step per element.
//   micro   (MW > 0; short side, or both sides for whole, a multiple of k = 16/E; the
//           packed side 16-byte aligned): the packed side moves as micro-blocks of k
//           shared rows x MW bytes, transposed in registers (byte permutes and register
//           renaming) into whole 16-byte packed chunks: gather stores them straight to
//           the output, scatter loads them straight from the input; whole stages input
//           and output chunks in shared memory (fold_swizzle) with the micro-blocks
//           between them.
// Loads never touch a byte outside the input view [in, in_end); stores never touch a
// byte outside the slab's own output elements. The phases are host-device functions:
// the CPU tests run a block's phases on host buffers (tests/cpu/test_best_slab.cpp).
#pragma once

#include <xpose/view.hpp>

#include <cstdint>
#include <type_traits>

#include "best_bytes.cuh"

namespace xpose::detail::slab {

using bytes::c16;
using bytes::u8;
using i64 = std::int64_t;

enum mode : int { gather = 0, scatter = 1, whole = 2 };

struct args {
  const u8* in;
  u8* out;
  const u8* in_end;          // one past the last byte of the input view
  i64 S, L;                  // short and long side (whole: rows, cols of one matrix)
  i64 ld_seg;                // bytes between segments: ld_in (gather), ld_out (scatter); whole: input rows
  i64 stride_in, stride_out;  // bytes between matrices
  i64 span;                  // long-side elements per slab (whole: matrices per slab)
  i64 batch;
  i64 slabs_per_mat, total;  // slabs per matrix (whole: 1), slabs overall
  int pitch;                 // bytes per shared row (16 front pad + data + tail)
  int smem;                  // dynamic shared bytes per block
  int stage;                 // grouped: shared offset of the packed staging area (else 0)
  // Pipelined kernels (best_pipe.cuh): shared offset of load buffer 0, bytes from one
  // buffer to the next, and whether gather rows need a realigning pass (some segment
  // not 16-byte aligned); load buffers (the shift gathers 2 or 3, else 2); shifted: the
  // micro-block gather reads such rows straight from the load buffer instead (side_blocks,
  // 16-byte micro-block rows only).
  int pipe_buf, pipe_step, realign, pipe_depth, shifted;
};

/// Arguments of the lean gathers (best_pipe.cuh A; a type of their own, so that the other
/// kernels' arguments and register allocation stay as they were): matrix b's slab boundaries
/// move back by the 4-bit field b % 16 of out_lags (positions; align_out_slabs), so that every
/// slab of the matrix but its first starts its packed output on a 16-byte boundary and the
/// write phase stores whole staging chunks without windows; 0: the plain slabs.
struct lean_args : args {
  std::uint64_t out_lags;
};

XPOSE_HDI i64 min64(i64 a, i64 b) { return a < b ? a : b; }
XPOSE_HDI int addr16(const void* p) { return static_cast<int>(reinterpret_cast<std::uintptr_t>(p) & 15); }

/// Slab geometry for E-byte elements and a slab of about `slab_bytes`; the caller
/// (the route table) has checked the layout conditions of the mode. grouped: the kernel
/// has the short side as its template argument SS (adds the staging area); for whole,
/// the micro-block kernel (input and output staged as whole, swizzled chunks). halo
/// (scatter): rows and staging hold k = 16/E positions past the slab (loaded_with_halo),
/// taken out of the slab's span so that shared memory stays what it was without.
template <int E>
args make_args(int m, const void* in, void* out, const matrix_desc& d, const void* in_end, int slab_bytes,
               bool grouped = false, bool halo = false) {
  args a{};
  a.in = static_cast<const u8*>(in);
  a.out = static_cast<u8*>(out);
  a.in_end = static_cast<const u8*>(in_end);
  a.stride_in = d.stride_in * E, a.stride_out = d.stride_out * E;
  a.batch = d.batch;
  constexpr i64 k = 16 / E;
  i64 row_bytes = 0;  // data bytes of the widest shared row
  if (m == whole) {
    a.S = d.rows, a.L = d.cols;
    a.ld_seg = d.ld_in * E;  // the slab reads an input range with its gaps (walker skips them)
    if (d.batch <= 1) a.stride_in = d.rows * d.ld_in * E;
    const i64 mat = d.rows * d.cols * E;
    a.span = min64(d.batch, mat >= slab_bytes ? 1 : slab_bytes / mat);
    a.slabs_per_mat = 1;
    a.total = (d.batch + a.span - 1) / a.span;
    row_bytes = a.span * mat;
  } else {
    a.S = m == gather ? d.rows : d.cols;
    a.L = m == gather ? d.cols : d.rows;
    a.ld_seg = (m == gather ? d.ld_in : d.ld_out) * E;
    i64 span = (slab_bytes / (a.S * E) / k - (halo ? 1 : 0)) * k;
    a.span = min64(a.L, span < k ? k : span);
    a.slabs_per_mat = (a.L + a.span - 1) / a.span;
    a.total = a.slabs_per_mat * d.batch;
    row_bytes = (a.span + (halo ? k : 0)) * E;
  }
  // Reads of a segment's window reach 48 bytes past its data (front pad, straddling
  // chunk); an odd number of chunks per row spreads the rows over the banks.
  i64 chunks = (row_bytes + 15) / 16 + 3;
  if (chunks % 2 == 0) ++chunks;
  a.pitch = static_cast<int>(chunks * 16);
  a.smem = static_cast<int>((m == whole ? 1 : a.S) * a.pitch);
  if (grouped && m == whole) {
    a.pitch = static_cast<int>((row_bytes / 16 + 7) / 8 * 8 * 16);  // whole groups of 8 chunks (fold_swizzle)
    a.stage = a.pitch;
    a.smem = 2 * a.pitch;
  } else if (grouped) {
    // Staging: a 16-byte lead, the packed bytes, the window reads' 32 bytes past them;
    // whole groups of 8 chunks (the swizzle permutes inside them).
    const i64 st_chunks = ((16 + row_bytes * a.S + 32 + 15) / 16 + 7) / 8 * 8;
    a.stage = a.smem;
    a.smem += static_cast<int>(st_chunks * 16);
  }
  return a;
}

/// Where slab t starts: input / output base and its element count n (long-side
/// elements for gather / scatter, elements of its matrices for whole); l0, its first
/// long-side position in its matrix (whole: the elements its input range spans, the
/// gaps between rows and matrices included; whole_span).
struct pos {
  const u8* in;
  u8* out;
  int n;
  i64 l0;
};
XPOSE_HDI int whole_span(const pos& p) { return static_cast<int>(p.l0); }

/// Gathers: positions d (< k = 16/E) by which the slab boundaries of a matrix whose packed
/// output starts at 16-byte phase ph move back so that they fall where its output is
/// aligned: d * S * E = ph (mod 16; a slab span is a multiple of k, so then every boundary
/// is). With S * E = m * 2^z (m odd): d = (ph / 2^z) * m^-1 mod 2^(4 - z), m^-1 = m^3 mod 16;
/// 0 where ph is not a multiple of 2^z (no d reaches it) or S * E is of whole chunks.
template <int E>
XPOSE_HDI int out_lag(const args& a, int ph) {
  const int se = static_cast<int>(a.S * E) & 15;
  const int z = (se & 1) ? 0 : (se & 2) ? 1 : (se & 4) ? 2 : 3, m = se >> z;
  if (se == 0 || (ph & ((1 << z) - 1)) != 0) return 0;
  return ((ph >> z) * m * m * m) & ((16 >> z) - 1);
}

/// Sets a.out_lags (gathers; the lag of matrix b depends on b % 16 only) where every slab
/// stays within a.span and none is empty: the slabs of a matrix leave room for the largest
/// lag (slabs_per_mat * span >= L + k - 1). Returns whether it did.
template <int E>
bool align_out_slabs(lean_args& a) {
  a.out_lags = 0;
  if (a.slabs_per_mat < 2 || a.slabs_per_mat * a.span < a.L + 16 / E - 1) return false;
  for (int b = 0; b < 16; ++b)
    a.out_lags |= static_cast<std::uint64_t>(out_lag<E>(a, (addr16(a.out) + b * static_cast<int>(a.stride_out & 15)) & 15))
                  << (4 * b);
  return true;
}

template <int E, int M>
XPOSE_HDI pos slab_at(const args& a, i64 t) {
  if constexpr (M == whole) {
    const i64 b0 = t * a.span;
    const i64 nm = min64(a.span, a.batch - b0);
    return {a.in + b0 * a.stride_in, a.out + b0 * a.stride_out, static_cast<int>(nm * a.S * a.L),
            ((nm - 1) * a.stride_in + (a.S - 1) * a.ld_seg) / E + a.L};
  } else {
    const i64 b = t / a.slabs_per_mat, l0 = (t - b * a.slabs_per_mat) * a.span;
    const int n = static_cast<int>(min64(a.span, a.L - l0));
    const i64 seg_off = l0 * E, packed_off = l0 * a.S * E;
    return {a.in + b * a.stride_in + (M == gather ? seg_off : packed_off),
            a.out + b * a.stride_out + (M == gather ? packed_off : seg_off), n, l0};
  }
}

/// Gather slab t of the lean gathers: slab j of matrix b covers [j*span - d, (j+1)*span - d),
/// the first from 0, the last to L (d: b's lag in a.out_lags).
template <int E>
XPOSE_HDI pos lean_slab_at(const lean_args& a, i64 t) {
  const i64 b = t / a.slabs_per_mat;
  i64 l0 = (t - b * a.slabs_per_mat) * a.span;
  const int d = static_cast<int>(a.out_lags >> (4 * (b & 15))) & 15;
  const bool first = l0 == 0;
  l0 -= first ? 0 : d;
  const int n = static_cast<int>(min64(a.span - (first ? d : 0), a.L - l0));
  const i64 seg_off = l0 * E, packed_off = l0 * a.S * E;
  return {a.in + b * a.stride_in + seg_off, a.out + b * a.stride_out + packed_off, n, l0};
}

/// Slab t of a kernel whose arguments are P: the lean gathers' (A) or the plain slabs.
template <int E, int M, bool A, class P>
XPOSE_HDI pos slab_of(const P& a, i64 t) {
  if constexpr (A) return lean_slab_at<E>(a, t);
  else return slab_at<E, M>(a, t);
}

/// The positions a scatter slab loads and puts into its rows: its own, and with a halo
/// (H) up to k = 16/E positions of the next slab of its matrix (none past the matrix),
/// the bytes write_phase<.., H> needs to store every chunk that starts in a segment whole.
/// (Without a halo, p itself: a copy cost the u8 grouped gather a spill on sm_80.)
template <int E, bool H>
XPOSE_HDI std::conditional_t<H, pos, const pos&> loaded_with_halo(const args& a, const pos& p) {
  if constexpr (H) {
    const i64 more = a.L - p.l0 - p.n;
    pos q = p;
    q.n += static_cast<int>(more < 16 / E ? more : 16 / E);
    return q;
  } else {
    return p;
  }
}

/// Walks the elements of a slab's packed side in order, giving each one's shared
/// offset: (s, l) -> 16 + s*pitch + l*E for gather / scatter (element o = l*S + s);
/// for whole, the input range's element o (byte o*E = b*stride_in + r*ld_seg + c*E) ->
/// its output position 16 + ((b*C + c)*R + r)*E, and whether it is one (valid: not in a
/// gap past a row or a matrix). Divisors of a slab's index math: the short side S
/// (whole: the input's row and matrix strides in bytes).
struct divisors {
  bytes::fdiv by_s, by_ld, by_st;
  XPOSE_HDI explicit divisors(const args& a)
      : by_s(static_cast<int>(a.S)), by_ld(static_cast<int>(a.ld_seg > 0 && a.ld_seg < 1 << 20 ? a.ld_seg : 1)),
        by_st(static_cast<int>(a.stride_in > 0 && a.stride_in < 1 << 20 ? a.stride_in : 1)) {}
};

template <int E, int M>
struct walker {
  int s, l, b, off, rem = 0;  // whole: rem, the offset in matrix b's input stride
  XPOSE_HDI walker(const args& a, const divisors& dv, int o) {
    const int S = static_cast<int>(a.S);
    if constexpr (M == whole) {
      const int C = static_cast<int>(a.L), ld = static_cast<int>(a.ld_seg) / E, st = static_cast<int>(a.stride_in) / E;
      b = dv.by_st(o * E);
      rem = o - b * st;
      l = dv.by_ld(rem * E);  // row r
      s = rem - l * ld;       // column c
      off = 16 + ((b * C + s) * S + l) * E;
    } else {
      l = dv.by_s(o);
      s = o - l * S;
      off = 16 + s * a.pitch + l * E;
    }
  }
  /// Whole: whether the element is one of a matrix (not a gap past a row or a matrix).
  XPOSE_HDI bool valid(const args& a) const {
    if constexpr (M == whole) return s < static_cast<int>(a.L) && l < static_cast<int>(a.S);
    else return true;
  }
  XPOSE_HDI void next(const args& a) {
    const int S = static_cast<int>(a.S);
    if constexpr (M == whole) {
      const int C = static_cast<int>(a.L);
      if (++rem == static_cast<int>(a.stride_in) / E) {
        rem = 0, s = 0, l = 0, ++b;
        off = 16 + b * C * S * E;
      } else {
        off += S * E;
        if (++s == static_cast<int>(a.ld_seg) / E) {
          s = 0, ++l;
          off = 16 + (b * C * S + l) * E;
        }
      }
    } else {
      off += a.pitch;
      if (++s == S) s = 0, ++l, off = 16 + l * E;
    }
  }
};

/// KW words at p (aligned to 4*KW bytes).
template <int KW>
XPOSE_HDI void ld_words(const u8* p, std::uint32_t (&w)[KW]) {
#if defined(__CUDA_ARCH__)
  if constexpr (KW == 4) {
    const uint4 v = *reinterpret_cast<const uint4*>(p);
    w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
  } else if constexpr (KW == 2) {
    const uint2 v = *reinterpret_cast<const uint2*>(p);
    w[0] = v.x, w[1] = v.y;
  } else {
    w[0] = *reinterpret_cast<const std::uint32_t*>(p);
  }
#else
  std::memcpy(w, p, 4 * KW);
#endif
}

template <int KW>
XPOSE_HDI void st_words(u8* p, const std::uint32_t (&w)[KW]) {
#if defined(__CUDA_ARCH__)
  if constexpr (KW == 4) *reinterpret_cast<uint4*>(p) = make_uint4(w[0], w[1], w[2], w[3]);
  else if constexpr (KW == 2) *reinterpret_cast<uint2*>(p) = make_uint2(w[0], w[1]);
  else *reinterpret_cast<std::uint32_t*>(p) = w[0];
#else
  std::memcpy(p, w, 4 * KW);
#endif
}

/// Gather rows left raw by the pipelined shift kernels (pipe_kernel with H; input rows
/// not all 16-byte aligned): segment s's aligned cover chunks at rows + 16 + s*pitch,
/// its byte x at + phase(s) + x, phase(s) its 16-byte phase in global memory (16-bit
/// math: addr16(segment 0) + s * (ld_seg mod 16)). The realignment is folded into the
/// middle phase's row reads (ld_row_words) instead of a shared pass of its own.
struct row_phase {
  int off0, step;
  XPOSE_HDI int operator()(int s) const { return (off0 + s * step) & 15; }
};

/// Slab p's phases: SH (shift kernels) and rows not all aligned, or RT and a.shifted; else all 0.
template <bool SH, bool RT = false>
XPOSE_HDI row_phase row_phase_of(const args& a, const pos& p) {
  if ((SH && a.realign) || (RT && a.shifted)) return row_phase{addr16(p.in), static_cast<int>(a.ld_seg & 15)};
  return row_phase{0, 0};
}

/// KW words of a row at its logical byte x (4*KW-aligned), phase ph (SH: raw rows; the
/// row base 16-byte aligned): one aligned KW-word load, two and a window where the phase
/// puts them across a 4*KW boundary. Without SH, the plain load at row + x.
/// U (the lean shift kernels): both words loaded whatever the phase, the window by a branch
/// on its word offset (uniform across the block: the phase is the row's) instead of selects.
template <int KW, bool SH, bool U = false>
XPOSE_HDI void ld_row_words(const u8* row, int x, int ph, std::uint32_t (&w)[KW]) {
  if constexpr (SH && U) {
    const int y = x + ph, o = y & (4 * KW - 1);
    const u8* const q = row + (y - o);
    std::uint32_t lo[KW], hi[KW];
    ld_words<KW>(q, lo);
    ld_words<KW>(q + 4 * KW, hi);
    bytes::window_words_branch<KW>(lo, hi, o, w);
  } else if constexpr (SH) {
    const int y = x + ph, o = y & (4 * KW - 1);
    const u8* const q = row + (y - o);
    if (o == 0) {
      ld_words<KW>(q, w);
    } else {
      std::uint32_t lo[KW], hi[KW];
      ld_words<KW>(q, lo);
      ld_words<KW>(q + 4 * KW, hi);
      bytes::window_words<KW>(lo, hi, o, w);
    }
  } else {
    ld_words<KW>(row + x, w);
  }
}

// ---- grouped interleave (SS > 0) ------------------------------------------------

/// A group of the grouped kernel for short side SS: K = U/E positions of the SS rows,
/// U = 16 bytes of each row for SS <= 8 (SS chunks each way), else U = 4 bytes (SS
/// words: registers stay at SS words; SS % 4 == 0 keeps the packed side in whole
/// chunks). CPG: packed chunks per group.
template <int E, int SS>
struct group_shape {
  static constexpr int U = SS <= 8 ? 16 : 4;
  static constexpr int W = U / 4;
  static constexpr int K = U / E;
  static constexpr int CPG = SS * U / 16;
  static_assert(E <= U && (U == 16 || SS % 4 == 0), "grouped: 1-4 byte elements; word groups need SS % 4 == 0");
};

/// Byte offset of staging chunk c. Threads' groups are CPG chunks apart: an odd CPG
/// already spreads 8 threads' chunks over the 8 bank groups of 16 bytes; an even CPG
/// rotates chunks inside each group of 8 by the group's index (CPG = 2, 4, 8:
/// conflict-free; 6: 2-way).
template <int E, int SS>
XPOSE_HDI int stg(int c) {
  return group_shape<E, SS>::CPG % 2 ? 16 * c : 16 * ((c & ~7) | ((c + (c >> 3)) & 7));
}

/// Logical staging byte of packed element 0: gather writes whole chunks after a 16-byte
/// lead; scatter keeps the input's alignment (raw aligned chunks, element o at
/// addr16(in) + o*E).
template <int M>
XPOSE_HDI int stage_lead(const pos& p) {
  return M == gather ? 16 : addr16(p.in);
}

/// Byte b of unit X (U bytes) of one side of a group, as (unit, byte) of the other side.
/// to_packed: X is packed unit X (element o = X*K + i from row o % S, position o / S);
/// else X is row X (position i, element o = i*S + X of the packed units).
template <int E, int S, bool ToPacked>
XPOSE_HDI void group_src(int X, int b, int& c, int& byte) {
  constexpr int K = group_shape<E, S>::K;
  const int i = b / E, e = b % E;
  const int o = ToPacked ? X * K + i : i * S + X;
  c = ToPacked ? o % S : o / K;
  byte = (ToPacked ? o / S : o % K) * E + e;
}

/// Word ow of a group's other side (unit ow / W, its word ow % W) from the S*W words
/// `in` of this side (unit c's word j at in[c*W + j]); indices are constants once
/// unrolled, so the words stay in registers: one byte permute when the word's 4 bytes
/// come from one or two source words, else three.
template <int E, int S, bool ToPacked>
XPOSE_HDI std::uint32_t group_word(const std::uint32_t (&in)[S * group_shape<E, S>::W], int ow) {
  constexpr int W = group_shape<E, S>::W;
  const int X = ow / W, b0 = 4 * (ow % W);
  int c[4], q[4];
  XPOSE_UNROLL
  for (int b = 0; b < 4; ++b) group_src<E, S, ToPacked>(X, b0 + b, c[b], q[b]);
  auto word = [&](int b) { return in[c[b] * W + (q[b] >> 2)]; };
  auto same = [&](int x, int y) { return c[x] == c[y] && (q[x] >> 2) == (q[y] >> 2); };
  const unsigned p0 = q[0] & 3, p1 = q[1] & 3, p2 = q[2] & 3, p3 = q[3] & 3;
  if (same(0, 1) && same(0, 2) && same(0, 3)) {
    if (p0 == 0 && p1 == 1 && p2 == 2 && p3 == 3) return word(0);
    return bytes::perm(word(0), word(0), p0 | p1 << 4 | p2 << 8 | p3 << 12);
  }
  if (same(0, 1) && same(2, 3)) return bytes::perm(word(0), word(2), p0 | p1 << 4 | (p2 + 4) << 8 | (p3 + 4) << 12);
  const std::uint32_t lo = bytes::perm(word(0), word(1), p0 | (p1 + 4) << 4);
  const std::uint32_t hi = bytes::perm(word(2), word(3), p2 | (p3 + 4) << 4);
  return bytes::perm(lo, hi, 0x5410);
}

/// Scatter group g's SS*W words from the staging area st: its packed chunks CPG*g ..
/// CPG*g + CPG - 1, each the window at the staging lead (the input's 16-byte phase).
template <int E, int SS>
XPOSE_HDI void staged_group(const u8* st, int g, int lead, std::uint32_t (&in)[SS * group_shape<E, SS>::W]) {
  constexpr int CPG = group_shape<E, SS>::CPG;
  c16 next = bytes::ld16(st + stg<E, SS>(CPG * g));
  XPOSE_UNROLL
  for (int c = 0; c < CPG; ++c) {
    c16 v = next;
    if (lead != 0) {
      next = bytes::ld16(st + stg<E, SS>(CPG * g + c + 1));
      v = bytes::window16(v, next, lead);
    } else if (c + 1 < CPG) {
      next = bytes::ld16(st + stg<E, SS>(CPG * g + c + 1));
    }
    XPOSE_UNROLL
    for (int j = 0; j < 4; ++j) in[4 * c + j] = v.w[j];
  }
}

/// Between read and write phase: whole groups through registers, then the positions
/// past the last whole group element by element. Rows: element (s, l) at 16 + s*pitch
/// + l*E; staging: element o at logical byte stage_lead + o*E.
/// rows: the shared rows (element (s, l) at rows + 16 + s*pitch + l*E); st: the staging area.
/// SH (gather): raw rows, element (s, l) at rows + 16 + s*pitch + phase(s) + l*E (row_phase).
/// U: ld_row_words' branch window (the lean shift kernels).
template <int E, int M, int SS, bool SH = false, bool U = false>
XPOSE_HDI void mid_phase(const args& a, const divisors& dv, const pos& p, u8* rows, u8* st, int tid, int nt) {
  static_assert(M != whole && SS > 0 && (!SH || M == gather), "grouped gather / scatter only; raw rows: gather");
  using G = group_shape<E, SS>;
  constexpr int K = G::K, W = G::W, CPG = G::CPG;
  u8* const sm = rows;
  const int lead = stage_lead<M>(p);
  const int groups = p.n / K;
  const row_phase ph = row_phase_of<SH>(a, p);
  for (int g = tid; g < groups; g += nt) {
    std::uint32_t in[SS * W];
    if constexpr (M == gather) {
      XPOSE_UNROLL
      for (int s = 0; s < SS; ++s) {
        std::uint32_t v[W];
        ld_row_words<W, SH, U>(sm + 16 + s * a.pitch, G::U * g, ph(s), v);
        XPOSE_UNROLL
        for (int j = 0; j < W; ++j) in[W * s + j] = v[j];
      }
      XPOSE_UNROLL
      for (int m = 0; m < CPG; ++m) {
        c16 r;
        XPOSE_UNROLL
        for (int j = 0; j < 4; ++j) r.w[j] = group_word<E, SS, true>(in, 4 * m + j);
        bytes::st16(st + stg<E, SS>(1 + CPG * g + m), r);
      }
    } else {
      staged_group<E, SS>(st, g, lead, in);
      XPOSE_UNROLL
      for (int s = 0; s < SS; ++s) {
        u8* const row = sm + 16 + s * a.pitch + G::U * g;
        if constexpr (W == 4) {
          c16 r;
          XPOSE_UNROLL
          for (int j = 0; j < 4; ++j) r.w[j] = group_word<E, SS, false>(in, 4 * s + j);
          bytes::st16(row, r);
        } else {
          bytes::st32(row, group_word<E, SS, false>(in, s));
        }
      }
    }
  }
  const int n_el = p.n * SS;
  for (int o = groups * K * SS + tid; o < n_el; o += nt) {
    const int l = dv.by_s(o), s = o - l * SS;
    const int x = lead + o * E;
    u8* const sp = st + stg<E, SS>(x >> 4) + (x & 15);
    u8* const rp = sm + 16 + s * a.pitch + ph(s) + l * E;
    if constexpr (M == gather) bytes::copy_elem<E>(sp, rp);
    else bytes::copy_elem<E>(rp, sp);
  }
}

/// The slab kernel's spelling: rows at sm, the staging area at sm + a.stage.
template <int E, int M, int SS>
XPOSE_HDI void mid_phase(const args& a, const divisors& dv, const pos& p, u8* sm, int tid, int nt) {
  mid_phase<E, M, SS>(a, dv, p, sm, sm + a.stage, tid, nt);
}

// ---- micro-block interleave (MW > 0) ------------------------------------------------

/// Micro-block of the micro-block kernel (short side S a multiple of k = 16/E, packed
/// side 16-byte aligned): k rows x MW bytes (kk = MW/E positions), G = 16/MW square
/// kk x kk blocks stacked. Transposed in registers it is kk packed chunks of 16 bytes
/// (one position, k rows each). GP micro-blocks side by side cover up to 128 shared
/// bytes of a row: consecutive threads take them (conflict-free shared accesses; 4-byte
/// rows: 2-way), the next threads the next row block, so a warp's packed-side accesses
/// are runs of 32-64 contiguous bytes (GP = 32 left 16-byte pieces: u8 gathers at 0.5-0.6
/// of memcpy).
template <int E, int MW>
struct micro_shape {
  static constexpr int k = 16 / E;
  static constexpr int KW = MW / 4;
  static constexpr int kk = MW / E;
  static constexpr int G = 16 / MW;
  static constexpr int GP = 128 / MW < 16 ? 128 / MW : 16;
  static_assert(MW >= 4 && MW >= E && 16 % MW == 0 && E <= 8, "micro-block: 4-16 byte rows of 1-8 byte elements");
};

/// Chunk slot of staged chunk c (whole micro-blocks): its index inside its group of 8
/// XORed with the fold of the higher bits, so threads whose chunks lie a power of two
/// of chunks apart (rows, matrices) hit different banks (at most 2-way for the square
/// batches of the sweep).
XPOSE_HDI int fold_swizzle(int c) { return c ^ (((c >> 3) ^ (c >> 6) ^ (c >> 9)) & 7); }

/// Whole matrices (input and output ranges aligned): micro-block (matrix b, row block
/// RB, column piece P) of KR rows x MW bytes from the staged input rows (src, chunk v at
/// src + 16*fold_swizzle(v)) to the staged output rows (dst, the same layout), whose
/// pieces are KR*E = 16 bytes (R a multiple of 16/E) or 8 bytes (R*E a multiple of 8:
/// u8 8 x 8); consecutive threads take the pieces along a row.
template <int E, int MW, int KR>
XPOSE_HDI void whole_blocks(const args& a, const pos& p, const u8* src, u8* dst, int tid, int nt) {
  using B = micro_shape<E, MW>;
  constexpr int KW = B::KW, kk = B::kk, G = KR / kk, PW = KR * E / 4;
  static_assert(KR % kk == 0 && (PW == 2 || PW == 4), "whole micro-blocks: 8- or 16-byte output pieces");
  const int R = static_cast<int>(a.S), C = static_cast<int>(a.L);
  const int gpr = C * E / MW, nrb = R / KR, mat = R * C * E;
  const bytes::fdiv by_gpr(gpr), by_nrb(nrb);
  const int items = p.n / (R * C) * nrb * gpr;
  for (int m = tid; m < items; m += nt) {
    const int q = by_gpr(m), P = m - q * gpr, b = by_nrb(q), RB = q - b * nrb;
    std::uint32_t w[KR][KW];
    XPOSE_UNROLL
    for (int i = 0; i < KR; ++i) {
      const int x = b * mat + (RB * KR + i) * C * E + P * MW;
      ld_words<KW>(src + 16 * fold_swizzle(x >> 4) + (x & 15), w[i]);
    }
    XPOSE_UNROLL
    for (int g = 0; g < G; ++g) bytes::transpose_block<E, KW, KR>(w, g * kk);
    XPOSE_UNROLL
    for (int i = 0; i < kk; ++i) {
      std::uint32_t o[PW];
      XPOSE_UNROLL
      for (int g = 0; g < G; ++g)
        XPOSE_UNROLL
        for (int x = 0; x < KW; ++x) o[g * KW + x] = w[g * kk + i][x];
      const int y = b * mat + (P * kk + i) * R * E + RB * KR * E;
      st_words<PW>(dst + 16 * fold_swizzle(y >> 4) + (y & 15), o);
    }
  }
}

/// Gather / scatter micro-blocks, the packed side. gather: shared rows -> registers -> the packed
/// output range (whole 16-byte chunks, positions past the slab skipped); scatter: the
/// packed input range -> registers -> shared rows (element (s, l) at 16 + s*pitch +
/// l*E, the layout read_phase / write_phase use). Needs a.S % k == 0 and the slab's
/// packed base 16-byte aligned (the route table checks both). staged (scatter): the packed
/// input range already in shared memory, chunk v at staged + 16*fold_swizzle(v).
/// SH (gather): raw rows (row_phase). a.shifted (gather, MW = 16, without SH): the same
/// raw-row reads, chosen at run time (the pipelined kernel's raw load buffer; no realigning
/// pass, no barrier, no rows area).
template <int E, int M, int MW, bool SH = false>
XPOSE_HDI void side_blocks(const args& a, const bytes::fdiv& by_nb, const pos& p, u8* sm, int tid, int nt,
                           const u8* staged = nullptr) {
  static_assert(!SH || M == gather, "raw rows: gather");
  using B = micro_shape<E, MW>;
  constexpr int k = B::k, KW = B::KW, kk = B::kk, G = B::G, GP = B::GP;
  const int nb = by_nb.d;  // row blocks: a.S / k
  const int pb = (p.n + kk - 1) / kk;
  const int items = nb * ((pb + GP - 1) / GP) * GP;
  const row_phase ph = row_phase_of<SH, MW == 16>(a, p);
  for (int m = tid; m < items; m += nt) {
    const int q = m / GP, run = by_nb(q), R = q - run * nb, P = run * GP + m % GP;
    if (P >= pb) continue;
    u8* const rows = sm + 16 + R * k * a.pitch;
    const int pk = (P * kk * nb + R) * 16;  // packed chunk of position P*kk, row block R
    std::uint32_t w[k][KW];
    if constexpr (M == gather) {
      XPOSE_UNROLL
      for (int i = 0; i < k; ++i) {
        if (MW == 16 && !SH && a.shifted) ld_row_words<KW, true>(rows + i * a.pitch, P * MW, ph(R * k + i), w[i]);
        else ld_row_words<KW, SH>(rows + i * a.pitch, P * MW, ph(R * k + i), w[i]);
      }
    } else {
      XPOSE_UNROLL
      for (int i = 0; i < kk; ++i) {
        const int v = pk / 16 + i * nb;
        const c16 c = P * kk + i >= p.n ? bytes::zero16()
                      : staged      ? bytes::ld16(staged + 16 * fold_swizzle(v))
                                    : bytes::ld16(p.in + 16 * v);
        XPOSE_UNROLL
        for (int g = 0; g < G; ++g)
          XPOSE_UNROLL
          for (int x = 0; x < KW; ++x) w[g * kk + i][x] = c.w[g * KW + x];
      }
    }
    XPOSE_UNROLL
    for (int g = 0; g < G; ++g) bytes::transpose_block<E, KW, k>(w, g * kk);
    if constexpr (M == gather) {
      XPOSE_UNROLL
      for (int i = 0; i < kk; ++i) {
        if (P * kk + i >= p.n) break;
        c16 c;
        XPOSE_UNROLL
        for (int g = 0; g < G; ++g)
          XPOSE_UNROLL
          for (int x = 0; x < KW; ++x) c.w[g * KW + x] = w[g * kk + i][x];
        bytes::st16(p.out + pk + i * nb * 16, c);
      }
    } else {
      XPOSE_UNROLL
      for (int i = 0; i < k; ++i) st_words<KW>(rows + i * a.pitch + P * MW, w[i]);
    }
  }
}

/// The micro-block kernel's phase (MW > 0): gather's write, scatter's read, whole's middle
/// (staged input at sm, or at `staged` where given: the pipelined kernel's load buffer;
/// staged output at sm + a.stage).
template <int E, int M, int MW, bool SH = false>
XPOSE_HDI void block_phase(const args& a, const bytes::fdiv& by_nb, const pos& p, u8* sm, int tid, int nt,
                           const u8* staged = nullptr) {
  if constexpr (M == whole) {
    const u8* const src = staged ? staged : sm;
    if (a.S * E % 16 == 0) whole_blocks<E, MW, 16 / E>(a, p, src, sm + a.stage, tid, nt);
    else if constexpr (MW <= 8) whole_blocks<E, MW, 8 / E>(a, p, src, sm + a.stage, tid, nt);
  } else {
    side_blocks<E, M, MW, SH>(a, by_nb, p, sm, tid, nt);
  }
}

// ---- read phase -----------------------------------------------------------------

/// One load item in flight: the aligned chunk(s) and where they go.
struct fetched {
  c16 a, b;
  int off;
};

/// Number of load items of slab p: gather, S segments x their 16-byte chunks; scatter
/// and whole, the aligned chunks covering the packed input range.
template <int E, int M>
XPOSE_HDI int read_items(const args& a, const pos& p) {
  if constexpr (M == gather) return static_cast<int>(a.S) * ((p.n * E + 15) / 16);
  const int n_el = M == whole ? whole_span(p) : p.n * static_cast<int>(a.S);
  return (addr16(p.in) + n_el * E + 15) / 16;
}

template <int E, int M>
XPOSE_HDI fetched read_fetch(const args& a, const pos& p, const bytes::fdiv& by_nls, int v) {
  fetched f;
  if constexpr (M == gather) {
    const int nls = by_nls.d;
    const int s = by_nls(v), j = v - s * nls;
    const u8* seg = p.in + s * a.ld_seg;
    f.off = addr16(seg);
    const u8* c = seg - f.off + 16 * j;
    f.a = bytes::load_clamped<E>(c, a.in, a.in_end);
    const int used = p.n * E - 16 * j;  // segment bytes from chunk j on
    f.b = f.off != 0 && f.off + (used < 16 ? used : 16) > 16 ? bytes::load_clamped<E>(c + 16, a.in, a.in_end)
                                                             : bytes::zero16();
  } else {
    f.off = addr16(p.in);
    f.a = bytes::load_clamped<E>(p.in - f.off + 16 * v, a.in, a.in_end);
  }
  return f;
}

template <int E, int M, int SS, int MW = 0>
XPOSE_HDI void read_put(const args& a, const divisors& dv, const pos& p, const bytes::fdiv& by_nls, int v,
                        const fetched& f, u8* sm) {
  if constexpr (M == whole && MW > 0) {
    bytes::st16(sm + 16 * fold_swizzle(v), f.a);  // raw: block_phase transposes
  } else if constexpr (M == scatter && SS > 0) {
    bytes::st16(sm + a.stage + stg<E, SS>(v), f.a);  // raw: mid_phase interleaves
  } else if constexpr (M == gather) {
    const int nls = by_nls.d;
    const int s = by_nls(v), j = v - s * nls;
    bytes::st16(sm + s * a.pitch + 16 + 16 * j, bytes::window16(f.a, f.b, f.off));
  } else {
    const int n_el = M == whole ? whole_span(p) : p.n * static_cast<int>(a.S);
    const int o0 = (16 * v - f.off) / E;  // exact: f.off is a multiple of E
    walker<E, M> w(a, dv, o0 > 0 ? o0 : 0);
    XPOSE_UNROLL
    for (int i = 0; i < 16 / E; ++i) {
      const int o = o0 + i;
      if (o >= 0 && o < n_el) {
        if (w.valid(a)) bytes::get_elem<E>(f.a, i, sm + w.off);
        w.next(a);
      }
    }
  }
}

/// Thread tid of nt: its load items, U at a time, all U in flight before the first
/// shared store.
template <int E, int M, int U, int SS = 0, int MW = 0>
XPOSE_HDI void read_phase(const args& a, const divisors& dv, const pos& p, u8* sm, int tid, int nt) {
  const int items = read_items<E, M>(a, p);
  const bytes::fdiv by_nls((p.n * E + 15) / 16);  // gather: chunks per segment
  for (int base = 0; base < items; base += nt * U) {
    fetched f[U];
    XPOSE_UNROLL
    for (int u = 0; u < U; ++u)
      if (base + u * nt + tid < items) f[u] = read_fetch<E, M>(a, p, by_nls, base + u * nt + tid);
    XPOSE_UNROLL
    for (int u = 0; u < U; ++u)
      if (base + u * nt + tid < items) read_put<E, M, SS, MW>(a, dv, p, by_nls, base + u * nt + tid, f[u], sm);
  }
}

// ---- write phase ----------------------------------------------------------------

template <int E, int M, int SS = 0, int MW = 0, bool H = false>
XPOSE_HDI void write_phase(const args& a, const divisors& dv, const pos& p, const u8* sm, int tid, int nt) {
  if constexpr (M == whole && MW > 0) {
    // The output range (aligned, whole chunks), chunk by chunk from the staging area.
    const int items = p.n * E / 16;
    for (int v = tid; v < items; v += nt) bytes::st16(p.out + 16 * v, bytes::ld16(sm + a.stage + 16 * fold_swizzle(v)));
  } else if constexpr (M == gather && SS > 0) {
    // The packed output range, chunk by aligned chunk, as windows of the staging area.
    const int N = p.n * SS * E, oq = addr16(p.out);
    u8* const base = p.out - oq;
    const u8* const st = sm + a.stage;
    const int items = (oq + N + 15) / 16;
    for (int k = tid; k < items; k += nt) {
      const int x = 16 + 16 * k - oq, c = x >> 4, sh = x & 15;
      c16 v = bytes::ld16(st + stg<E, SS>(c));
      if (sh) v = bytes::window16(v, bytes::ld16(st + stg<E, SS>(c + 1)), sh);
      const int lo = oq - 16 * k > 0 ? oq - 16 * k : 0, hi = oq + N - 16 * k < 16 ? oq + N - 16 * k : 16;
      bytes::store_range(v, base + 16 * k, lo, hi);
    }
  } else if constexpr (M == gather) {
    // The packed output range, chunk by aligned chunk.
    const int N = p.n * static_cast<int>(a.S) * E, oq = addr16(p.out), n_el = N / E;
    u8* const base = p.out - oq;
    const int items = (oq + N + 15) / 16;
    for (int k = tid; k < items; k += nt) {
      const int o0 = (16 * k - oq) / E;
      walker<E, M> w(a, dv, o0 > 0 ? o0 : 0);
      c16 c = bytes::zero16();
      XPOSE_UNROLL
      for (int i = 0; i < 16 / E; ++i) {
        const int o = o0 + i;
        if (o >= 0 && o < n_el) {
          bytes::put_elem<E>(c, i, sm + w.off);
          w.next(a);
        }
      }
      const int lo = oq - 16 * k > 0 ? oq - 16 * k : 0, hi = oq + N - 16 * k < 16 ? oq + N - 16 * k : 16;
      bytes::store_range(c, base + 16 * k, lo, hi);
    }
  } else {
    // Segments (whole: one, the output range), each as the aligned chunks covering it.
    // H (halo, scatter): a slab stores the chunks that start inside its segment, whole
    // up to the row's end (their tails are the halo's positions), and the first slab of a
    // row also the chunk the row starts in: every chunk by one block, one store except at
    // the rows' two ends.
    static_assert(!H || M == scatter, "halo: scatter slabs only");
    const int nseg = M == whole ? 1 : static_cast<int>(a.S);
    const int seg_bytes = p.n * E;
    const i64 rest = H ? (a.L - p.l0) * E : seg_bytes;  // bytes from the segment to the row's end
    const int lim = static_cast<int>(min64(rest, seg_bytes + 16));
    const bool first = !H || p.l0 == 0;
    const int nss = (seg_bytes + 15) / 16 + 1;
    const bytes::fdiv by_nss(nss);
    for (int v = tid; v < nseg * nss; v += nt) {
      const int s = by_nss(v), j = v - s * nss;
      u8* const seg = p.out + s * a.ld_seg;
      const int off = addr16(seg);
      const int c0 = 16 * j - off;  // the chunk's first byte from the segment's
      const int lo = c0 < 0 ? -c0 : 0, hi = lim - c0 < 16 ? lim - c0 : 16;
      if (lo >= hi || c0 >= seg_bytes || (c0 < 0 && !first)) continue;
      const int x = 16 + c0;  // shared offset of the chunk's first byte
      const u8* row = sm + s * a.pitch + (x & ~15);
      const c16 c = (x & 15) ? bytes::window16(bytes::ld16(row), bytes::ld16(row + 16), x & 15) : bytes::ld16(row);
      bytes::store_range(c, seg - off + 16 * j, lo, hi);
    }
  }
}

#if defined(__CUDACC__)
/// One block per slab (grid-stride past the grid limit). NT threads, U loads in flight
/// each. SS > 0: grouped, short side SS (a.S == SS); MINB caps its registers. MW > 0:
/// micro-blocks of MW-byte rows on the packed side (block_phase replaces the gather's
/// write phase, the scatter's read phase; whole: a middle phase between staged input
/// and output chunks).
template <int E, int M, int NT, int U, int SS = 0, int MINB = 1, int MW = 0>
__global__ void __launch_bounds__(NT, MINB) slab_kernel(args a) {
  static_assert(SS == 0 || MW == 0, "grouped or micro-blocks, not both");
  bytes::dependent_launch_entry();
  extern __shared__ uint4 smem_raw[];
  u8* sm = reinterpret_cast<u8*>(smem_raw);
  const int tid = static_cast<int>(threadIdx.x);
  const divisors dv(a);
  const bytes::fdiv by_nb(static_cast<int>(a.S) * E / 16 > 0 ? static_cast<int>(a.S) * E / 16 : 1);
  for (i64 t = blockIdx.x; t < a.total; t += gridDim.x) {
    const pos p = slab_at<E, M>(a, t);
    __syncthreads();  // the previous slab's shared reads are done
    if constexpr (MW > 0 && M == scatter) block_phase<E, M, MW>(a, by_nb, p, sm, tid, NT);
    else read_phase<E, M, U, SS, MW>(a, dv, p, sm, tid, NT);
    __syncthreads();
    if constexpr (SS > 0) {
      mid_phase<E, M, SS>(a, dv, p, sm, tid, NT);
      __syncthreads();
    } else if constexpr (MW > 0 && M == whole) {
      block_phase<E, M, MW>(a, by_nb, p, sm, tid, NT);
      __syncthreads();
    }
    if constexpr (MW > 0 && M == gather) block_phase<E, M, MW>(a, by_nb, p, sm, tid, NT);
    else write_phase<E, M, SS, MW>(a, dv, p, sm, tid, NT);
  }
}
#endif

}  // namespace xpose::detail::slab
