// The asynchronous-copy tile of `best` (routes tile_async / tile_async_batch; docs/RESULTS.md
// "2-D: cp.async tiles for squares and batches"): tile_kernel's tile and register micro-blocks, but
// the input side goes global -> shared with cp.async (sm_80+) instead of through
// registers. Why: the 1-byte tile_kernel holds its L loaded chunks and its 16x8-byte
// micro-block in registers, which caps it at 128 registers and 2 blocks per SM (3
// spilled), so few bytes are in flight per SM; with cp.async the loads need no
// registers, occupancy is set by shared memory, and a block may own several tiles
// (TPB), each a cp.async group, so that the micro-blocks of its first tiles are stored
// while the later tiles still load.
// The shared layout (async_slot) is host-device index math: the CPU tests check that it
// is a bijection and that the micro-block reads and the cp.async writes are free of
// bank conflicts (tests/cpu/test_best_async.cpp).
#pragma once

#include <cstdint>

#include "best_bytes.cuh"
#include "best_geom.hpp"
#if defined(__CUDACC__)
#include "best_kernels.cuh"
#include "best_realign.cuh"
#endif

namespace xpose::detail::async_tile {

/// 16-byte slot of tile row r, chunk c, inside one TR x NCH-chunk tile of E-byte
/// elements. Shared memory is seen as lines of LC = max(NCH, 8) chunks (128 bytes = all
/// banks, or one row when longer); a line holds RL = LC/NCH rows side by side. Rows of
/// micro-block row R (k = 16/E rows) XOR their chunk index with s = R*nC mod LC, nC =
/// the chunk columns that one half-warp (8-byte micro rows) or quarter-warp (16-byte)
/// of micro-block readers spans (8 slots / the RN row blocks it covers): the readers of
/// one micro-block row i then hit 8 distinct 16-byte slots of a line.
template <int E, int TR, int NCH>
XPOSE_HDI int async_slot(int r, int c) {
  constexpr int k = 16 / E, RN = TR / k;
  constexpr int LC = NCH >= 8 ? NCH : 8, RL = LC / NCH;
  constexpr int nC = RN >= 8 ? 1 : 8 / RN;
  const int s = ((r / k) * nC) % LC;
  return (r / RL) * LC + ((c + NCH * (r % RL)) ^ s);
}

/// Word (4 bytes) where row r of a realigning async tile starts: rows of NCH + 1 chunks
/// (the aligned cover of an unaligned row segment), each row block R (k = 16/E rows)
/// shifted by 4*(R % 8) words. The readers of one micro-block row i (a warp: 4 sub-words h
/// x 8 row blocks R) all read at the same byte shift (rows k apart start 16*ld bytes
/// apart), so the shift puts their words on 32 distinct banks.
template <int E, int NCH>
XPOSE_HDI int async_realign_row_word(int r) {
  constexpr int k = 16 / E;
  return r * (NCH + 1) * 4 + 4 * ((r / k) % 8);
}

#if defined(__CUDACC__)

using best::u8;
using best::tile_args;

// (cp.async helpers: best_bytes.cuh.)
using bytes::cp_async16;
using bytes::cp_commit;
using bytes::cp_wait;

/// Kernel arguments: the tile arguments and the first group (TPB tiles) of this launch.
struct args {
  tile_args t;
  index_t group0;
};

/// Issues the cp.async copies of tile t's input chunks (this thread's: chunk column
/// tid % NCH, rows tid / NCH + j*RPS) into the shared tile whose first 16-byte slot is
/// `slot0` (async_slot order). Ragged last chunks go byte by byte, zero-filled (see
/// copy_chunk_clamped); nothing for t past the last tile.
template <int E, int TR, int NCH, int NT>
__device__ __forceinline__ void load_tile(const tile_args& a, index_t t, std::uint32_t sbase, u8* sbytes, int slot0,
                                          int tid) {
  constexpr int TC = NCH * (16 / E), RPS = NT / NCH, L = TR / RPS;
  if (t >= a.total) return;
  const int ch = tid % NCH, row_t = tid / NCH;  // chunk column, first row
  index_t rows_left, cols_left;
  const u8* in_t;
  u8* out_t;
  best::tile_at<E, TR, TC>(a, t, rows_left, cols_left, in_t, out_t);
  const int cb = static_cast<int>(cols_left < TC ? cols_left : TC) * E - ch * 16;  // valid bytes
  const int nb = cb < 0 ? 0 : cb > 16 ? 16 : cb;
  const u8* p = in_t + row_t * a.ld_in + ch * 16;
  const index_t step_in = static_cast<index_t>(RPS) * a.ld_in;
#pragma unroll
  for (int j = 0; j < L; ++j) {
    const int r = row_t + j * RPS;
    if (nb > 0 && r < rows_left) {
      const std::uint32_t slot = static_cast<std::uint32_t>(slot0 + async_slot<E, TR, NCH>(r, ch)) * 16u;
      if (nb == 16) {
        cp_async16(sbase + slot, p + j * step_in, 16);
      } else {  // a ragged last chunk: byte by byte, zero-filled
#pragma unroll
        for (int e = 0; e < 16; ++e) sbytes[slot + e] = e < nb ? p[j * step_in + e] : u8{0};
      }
    }
  }
}

/// Micro-block mm of tile t (sub-chunk h fastest, then the row block R, then the chunk
/// column C, as tile_kernel numbers them) read from the shared tile `tile` (async_slot
/// order), transposed in registers and stored (partial at the tile's ragged edges).
template <int E, int TR, int NCH, int NT, int MW>
__device__ __forceinline__ void store_tile_micro(const tile_args& a, index_t t, const std::uint32_t* tile, int mm) {
  using geom = best::tile_geom<E, TR, NCH, NT, MW>;
  constexpr int k = geom::k, TC = geom::TC, RN = geom::RN, H = geom::H;
  constexpr int KW = geom::KW, kk = geom::kk, G = geom::G;
  const int h = mm % H, R = (mm / H) % RN, C = mm / (H * RN);
  std::uint32_t w[k][KW];
#pragma unroll
  for (int i = 0; i < k; ++i) {
    const std::uint32_t* src = tile + async_slot<E, TR, NCH>(R * k + i, C) * 4 + h * KW;
    if constexpr (KW == 1) w[i][0] = *src;  // (ld_words moves 2 or 4 words)
    else bytes::ld_words<KW>(w[i], reinterpret_cast<const u8*>(src));
  }
#pragma unroll
  for (int g = 0; g < G; ++g) bytes::transpose_block<E, KW, k>(w, g * kk);

  index_t rows_left, cols_left;
  const u8* in_t;
  u8* out_t;
  best::tile_at<E, TR, TC>(a, t, rows_left, cols_left, in_t, out_t);
  const bool full = rows_left >= TR && cols_left >= TC;
  u8* o = out_t + static_cast<index_t>(C * k + h * kk) * a.ld_out + R * 16;
  const int rl = full ? k : static_cast<int>(rows_left < TR ? rows_left : TR) - R * k;
  const int cl = full ? kk : static_cast<int>(cols_left < TC ? cols_left : TC) - C * k - h * kk;
  best::store_micro<E, KW, k, kk, G, 16>(w, o, a.ld_out, full, rl, cl);
}

/// E: element bytes (1, 2; the pipelined kernel below also 4 and 8); a block owns TPB
/// consecutive tiles of the flat tile index (TR rows x NCH 16-byte chunks each; a packed
/// batch of matrices of one tile each is then one contiguous range on both sides) and moves them with NT threads; MW: bytes of
/// a micro-block row (register blocks as in tile_kernel). 16-byte aligned layouts only.
/// One group per block, no grid-stride loop: the loop kept the 64-bit arguments in
/// registers (80 registers spilled 90-130 bytes under nvcc 13.0; 46 without it, no
/// spill); launches past the grid limit start at group0 (best.cu).
template <int E, int TR, int NCH, int NT, int MW, int MinBlocks, int TPB>
__global__ void __launch_bounds__(NT, MinBlocks) async_tile_kernel(args aa) {
  const tile_args& a = aa.t;
  using geom = best::tile_geom<E, TR, NCH, NT, MW>;
  constexpr int RN = geom::RN, H = geom::H;
  constexpr int TCH = TR * NCH;          // chunks per tile
  constexpr int MT = RN * NCH * H;       // micro-blocks per tile
  constexpr int MPT = TPB * MT / NT;     // micro-blocks per thread
  static_assert(best_async_tile_valid(E, best_async_tile{{TR, NCH, NT, MW, MinBlocks}, TPB}), "async tile shape");
  extern __shared__ uint4 smem_raw[];
  const std::uint32_t sbase = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem_raw));
  const std::uint32_t* tiles = reinterpret_cast<const std::uint32_t*>(smem_raw);
  const int tid = static_cast<int>(threadIdx.x);
  const index_t grp = aa.group0 + blockIdx.x;
  // Load: every chunk of the TPB tiles in flight, one cp.async group per tile.
#pragma unroll
  for (int u = 0; u < TPB; ++u) {
    load_tile<E, TR, NCH, NT>(a, grp * TPB + u, sbase, reinterpret_cast<u8*>(smem_raw), u * TCH, tid);
    cp_commit();
  }
  // Store: micro-block m = tid + q*NT of the group (tile m / MT).
#pragma unroll
  for (int q = 0; q < MPT; ++q) {
    // Wait for the last tile this step reads (every thread's, then the barrier).
    const int need = ((q + 1) * NT - 1) / MT;
    if (q == 0 || need != (q * NT - 1) / MT) {
      cp_wait(TPB - 1 - need);
      __syncthreads();
    }
    const int m = tid + q * NT, u = m / MT;
    const index_t t = grp * TPB + u;
    if (t < a.total) store_tile_micro<E, TR, NCH, NT, MW>(a, t, tiles + u * TCH * 4, m % MT);
  }
}

/// The pipelined async tile (route tile_async_pipe): the
/// same tiles and micro-blocks on resident blocks (grid = blocks that fit at once, from
/// best.cu) that stride over the groups of TPB tiles with S shared stages: the loads of
/// the next S - 1 groups are in flight while the block transposes and stores the current
/// one. Why: on a 32 MiB call (about two waves of one-tile blocks) every block of a wave
/// loads, then stores, nearly in step, so DRAM reads pause between the waves and at the
/// start; here a block's next loads are issued before its stores.
template <int E, int TR, int NCH, int NT, int MW, int MinBlocks, int TPB, int S>
__global__ void __launch_bounds__(NT, MinBlocks) async_pipe_kernel(args aa) {
  const tile_args& a = aa.t;
  using geom = best::tile_geom<E, TR, NCH, NT, MW>;
  constexpr int RN = geom::RN, H = geom::H;
  constexpr int TCH = TR * NCH, GCH = TPB * TCH;  // chunks per tile, per stage
  constexpr int MT = RN * NCH * H;
  constexpr int MPT = TPB * MT / NT;
  static_assert(best_async_pipe_valid(E, best_async_pipe{{{TR, NCH, NT, MW, MinBlocks}, TPB}, S}), "async pipe shape");
  extern __shared__ uint4 smem_raw[];
  const std::uint32_t sbase = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem_raw));
  u8* const sbytes = reinterpret_cast<u8*>(smem_raw);
  const std::uint32_t* tiles = reinterpret_cast<const std::uint32_t*>(smem_raw);
  const int tid = static_cast<int>(threadIdx.x);
  const index_t groups = (a.total + TPB - 1) / TPB, G = gridDim.x;
  auto issue = [&](index_t g, int stage, int tid) {
#pragma unroll
    for (int u = 0; u < TPB; ++u) load_tile<E, TR, NCH, NT>(a, g * TPB + u, sbase, sbytes, stage * GCH + u * TCH, tid);
    cp_commit();  // one group per stage (empty past the last group)
  };
  index_t g = aa.group0 + blockIdx.x;
#pragma unroll
  for (int s = 0; s < S - 1; ++s) issue(g + s * G, s, tid);
  for (int stage = 0; g < groups; g += G, stage = stage == S - 1 ? 0 : stage + 1) {
    // The thread index through an opaque move each iteration: the shared and global
    // offsets derived from it are recomputed (a few integer operations) instead of hoisted
    // out of the loop and held in registers (107 registers; spills at 80).
    const int tid_i = bytes::opaque(tid);
    // The stage consumed one iteration ago is free (the barrier at the end of it).
    issue(g + (S - 1) * G, stage == 0 ? S - 1 : stage - 1, tid_i);
    cp_wait(S - 1);
    __syncthreads();
#pragma unroll
    for (int q = 0; q < MPT; ++q) {
      const int m = tid_i + q * NT, u = m / MT;
      const index_t t = g * TPB + u;
      if (t < a.total) store_tile_micro<E, TR, NCH, NT, MW>(a, t, tiles + (stage * GCH + u * TCH) * 4, m % MT);
    }
    __syncthreads();
  }
}

/// Copies the 16-byte-aligned chunk at src to shared address dst, reading only bytes
/// inside the input view [lo, hi): cp.async when the chunk starts inside it (zero-filled
/// past hi), byte by byte for the one chunk that straddles lo.
__device__ __forceinline__ void copy_chunk_clamped(std::uint32_t dst, u8* dst_generic, const u8* src, const u8* lo,
                                                   const u8* hi) {
  // Only whole chunks go by cp.async: compute-sanitizer counts a cp.async with a source
  // size below 16 as a 16-byte read (memcheck and initcheck flagged the input's last,
  // partial chunk), so partial chunks at either end of the view
  // are read byte by byte, the rest of the 16 bytes zero-filled.
  if (src >= lo && hi - src >= 16) {
    cp_async16(dst, src, 16);
  } else {
#pragma unroll
    for (int e = 0; e < 16; ++e) dst_generic[e] = (src + e >= lo && src + e < hi) ? src[e] : u8{0};
  }
}

/// Realigning kernel arguments: tile arguments, one past the input view's last byte, the
/// first tile of this launch.
struct realign_args {
  tile_args t;
  const u8* in_end;
  index_t tile0;
};

/// The realigning tile with cp.async (route realign_async): E-aligned pointers, leading
/// dimensions and strides, 1-2 byte elements. Each tile row's aligned cover (NCH + 1
/// chunks) goes global -> shared by cp.async, unshifted; the micro-block reads shift
/// (two shared words, one funnel shift per 4-byte row piece: every row of a row block
/// has the same shift); output segments are stored as realign_tile_kernel stores them
/// (store_realigned: whole aligned chunks, partial ends). Replaces the register-staged
/// loads and neighbour shuffles of realign_tile_kernel, whose 1-byte tile needs 2 x 8
/// chunks in registers per thread (128 registers, 2 blocks per SM).
template <int E, int TR, int NCH, int NT, int MinBlocks>
__global__ void __launch_bounds__(NT, MinBlocks) async_realign_kernel(realign_args ra) {
  constexpr int MW = 4;
  using geom = best::tile_geom<E, TR, NCH, NT, MW>;
  constexpr int k = geom::k, TC = geom::TC, RPS = geom::RPS, L = geom::L, RN = geom::RN, H = geom::H;
  constexpr int KW = geom::KW, kk = geom::kk, G = geom::G;
  constexpr int MPT = RN * NCH * H / NT;
  static_assert(best_async_realign_valid(E, best_tile{TR, NCH, NT, MW, MinBlocks}), "async realign tile shape");
  const tile_args& a = ra.t;
  extern __shared__ uint4 smem_raw[];
  const std::uint32_t sbase = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem_raw));
  u8* const sbytes = reinterpret_cast<u8*>(smem_raw);
  const std::uint32_t* words = reinterpret_cast<const std::uint32_t*>(smem_raw);

  const int tid = static_cast<int>(threadIdx.x);
  const int ch = tid % NCH, row_t = tid / NCH;
  index_t rows_left, cols_left;
  const u8* in_t;
  u8* out_t;
  best::tile_at<E, TR, TC>(a, ra.tile0 + blockIdx.x, rows_left, cols_left, in_t, out_t);
  const int nrow = static_cast<int>(rows_left < TR ? rows_left : TR);
  const int ncol = static_cast<int>(cols_left < TC ? cols_left : TC);
  const int off0 = static_cast<int>(reinterpret_cast<std::uintptr_t>(in_t) & 15);
  const int ldm = static_cast<int>(a.ld_in & 15);

  // Load: chunk ch of the cover of each of this thread's rows; then chunk NCH of row tid.
  auto cover = [&](int r, int q) {
    const int off = (off0 + r * ldm) & 15;  // byte shift of row r
    if (q * 16 >= off + ncol * E) return;    // past the row's valid bytes
    const u8* src = in_t + static_cast<index_t>(r) * a.ld_in - off + q * 16;
    const int b = (async_realign_row_word<E, NCH>(r) + q * 4) * 4;
    copy_chunk_clamped(sbase + static_cast<std::uint32_t>(b), sbytes + b, src, a.in, ra.in_end);
  };
#pragma unroll
  for (int j = 0; j < L; ++j)
    if (row_t + j * RPS < nrow) cover(row_t + j * RPS, ch);
  if (tid < nrow) cover(tid, NCH);
  cp_commit();
  cp_wait(0);
  __syncthreads();

  // Micro-blocks (as tile_kernel's, 4-byte rows): lane m = h + H*(R + RN*C); row i of the
  // block at byte shift off_i: the word pair j, j + 1 with j = C*4 + h + off_i/4.
  const int nv = nrow * E;
#pragma unroll
  for (int q = 0; q < MPT; ++q) {
    const int m = tid + q * NT;
    const int h = m % H, R = (m / H) % RN, C = m / (H * RN);
    std::uint32_t w[k][KW];
#pragma unroll
    for (int i = 0; i < k; ++i) {
      const int off = (off0 + i * ldm) & 15;
      const std::uint32_t* rw = words + async_realign_row_word<E, NCH>(R * k + i) + C * 4 + h + (off >> 2);
      w[i][0] = bytes::funnel_r(rw[0], rw[1], 8u * static_cast<unsigned>(off & 3));
    }
#pragma unroll
    for (int g = 0; g < G; ++g) bytes::transpose_block<E, KW, k>(w, g * kk);
#pragma unroll
    for (int i = 0; i < kk; ++i) {
      bytes::c16 d;  // this lane's piece of output row C*k + h*kk + i: segment bytes [16R, 16R + 16)
#pragma unroll
      for (int g = 0; g < G; ++g) d.w[g] = w[g * kk + i][0];
      best::store_realigned<H, RN>(d, out_t, a.ld_out, C * k + h * kk + i, ncol, R, nv);
    }
  }
}

#endif  // __CUDACC__

}  // namespace xpose::detail::async_tile
