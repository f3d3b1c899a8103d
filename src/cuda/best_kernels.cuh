// Kernels of the fast path `best` (src/cuda/variants/best.cu launches them).
// tile_kernel: a TR x (NCH*16 bytes) input tile staged through an XOR-swizzled
//   shared tile; 16-byte global accesses on both sides (A < 16: the same tile moved
//   with A-byte accesses when pointers, leading dimensions or strides forbid 16);
//   each thread turns a k x k element block (k = 16/E, one 16-byte chunk from each of
//   k shared rows) into k output chunks with register renaming and __byte_perm.
// Slabs (one short side, batches of small matrices): best_slab.cuh.
// All kernels loop grid-stride over a flat 64-bit work index (launched one block per
// tile, so the loop only matters past the grid limit), hoist the
// 64-bit base of each tile, and need no workspace.
#pragma once

#include <cstdint>

#include "best_bytes.cuh"
#include "common.cuh"
#include "best_geom.hpp"

namespace xpose::detail::best {

using u8 = unsigned char;

// ---- element access inside a 16-byte chunk held as four 32-bit words ----------

template <int E>
__device__ __forceinline__ void put_elem(std::uint32_t (&w)[4], int e, const u8* p) {
  if constexpr (E == 1) {
    const std::uint32_t s = 8u * static_cast<unsigned>(e & 3);
    w[e >> 2] = (w[e >> 2] & ~(0xFFu << s)) | (static_cast<std::uint32_t>(*p) << s);
  } else if constexpr (E == 2) {
    const std::uint32_t s = 16u * static_cast<unsigned>(e & 1);
    w[e >> 1] = (w[e >> 1] & ~(0xFFFFu << s)) |
                (static_cast<std::uint32_t>(*reinterpret_cast<const std::uint16_t*>(p)) << s);
  } else if constexpr (E == 4) {
    w[e] = *reinterpret_cast<const std::uint32_t*>(p);
  } else if constexpr (E == 8) {
    const uint2 v = *reinterpret_cast<const uint2*>(p);
    w[2 * e] = v.x;
    w[2 * e + 1] = v.y;
  } else {
    const uint4 v = *reinterpret_cast<const uint4*>(p);
    w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
  }
}

template <int E>
__device__ __forceinline__ void get_elem(const std::uint32_t (&w)[4], int e, u8* p) {
  if constexpr (E == 1) {
    *p = static_cast<u8>(w[e >> 2] >> (8 * (e & 3)));
  } else if constexpr (E == 2) {
    *reinterpret_cast<std::uint16_t*>(p) = static_cast<std::uint16_t>(w[e >> 1] >> (16 * (e & 1)));
  } else if constexpr (E == 4) {
    *reinterpret_cast<std::uint32_t*>(p) = w[e];
  } else if constexpr (E == 8) {
    *reinterpret_cast<uint2*>(p) = make_uint2(w[2 * e], w[2 * e + 1]);
  } else {
    *reinterpret_cast<uint4*>(p) = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

/// Loads a full 16-byte chunk with A-byte accesses (p is A-aligned). Hint 1: the
/// 16-byte path streams (evict-first, __ldcs/__stcs).
template <int A, int Hint = 0>
__device__ __forceinline__ void load_chunk(std::uint32_t (&w)[4], const u8* p) {
  if constexpr (A == 16) {
    const uint4 v = Hint == 1 ? __ldcs(reinterpret_cast<const uint4*>(p)) : *reinterpret_cast<const uint4*>(p);
    w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
  } else if constexpr (A == 8) {
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      const uint2 v = reinterpret_cast<const uint2*>(p)[s];
      w[2 * s] = v.x, w[2 * s + 1] = v.y;
    }
  } else if constexpr (A == 4) {
#pragma unroll
    for (int s = 0; s < 4; ++s) w[s] = reinterpret_cast<const std::uint32_t*>(p)[s];
  } else {
#pragma unroll
    for (int e = 0; e < 16 / A; ++e) put_elem<A>(w, e, p + e * A);
  }
}

template <int A, int Hint = 0>
__device__ __forceinline__ void store_chunk(const std::uint32_t (&w)[4], u8* p) {
  if constexpr (A == 16) {
    if constexpr (Hint == 1)
      __stcs(reinterpret_cast<uint4*>(p), make_uint4(w[0], w[1], w[2], w[3]));
    else
      *reinterpret_cast<uint4*>(p) = make_uint4(w[0], w[1], w[2], w[3]);
  } else if constexpr (A == 8) {
#pragma unroll
    for (int s = 0; s < 2; ++s) reinterpret_cast<uint2*>(p)[s] = make_uint2(w[2 * s], w[2 * s + 1]);
  } else if constexpr (A == 4) {
#pragma unroll
    for (int s = 0; s < 4; ++s) reinterpret_cast<std::uint32_t*>(p)[s] = w[s];
  } else {
#pragma unroll
    for (int e = 0; e < 16 / A; ++e) get_elem<A>(w, e, p + e * A);
  }
}

using bytes::micro_transpose;  // best_bytes.cuh (host-device: the CPU tests run it too)

// ---- tiled kernel --------------------------------------------------------------

struct tile_args {
  const u8* in;
  u8* out;
  index_t rows, cols, batch;
  index_t ld_in, ld_out, stride_in, stride_out;  // bytes
  index_t tiles_c, tiles_per_mat, total;         // tiles along cols, per matrix, overall
};

/// Splits flat index t into (q, rem) with q = t / d; 32-bit division when it fits.
__device__ __forceinline__ void divmod(index_t t, index_t d, index_t& q, index_t& r) {
  if (((t | d) >> 32) == 0) {
    const auto a = static_cast<std::uint32_t>(t), b = static_cast<std::uint32_t>(d);
    q = a / b;
    r = a - static_cast<std::uint32_t>(q) * b;
  } else {
    q = t / d;
    r = t - q * d;
  }
}

// ---- the tile skeleton shared by tile_kernel and realign_tile_kernel ---------

/// Geometry of a TR x (NCH*16 bytes) tile moved by NT threads with MW-byte micro-block rows.
template <int E, int TR, int NCH, int NT, int MW>
struct tile_geom {
  static constexpr int k = 16 / E;                  // elements per chunk = rows of a micro-block
  static constexpr int TC = NCH * k;                // tile columns (elements)
  static constexpr int RPS = NT / NCH;              // rows covered by one load step of the block
  static constexpr int L = TR / RPS;                // chunks loaded per thread
  static constexpr int RN = TR / k;                 // micro-blocks along the tile's rows
  static constexpr int H = 16 / MW;                 // micro-blocks across one chunk column
  static constexpr int KW = MW / 4;                 // words per micro-block row
  static constexpr int kk = MW / E;                 // output rows per micro-block
  static constexpr int G = k / kk;                  // square blocks per micro-block
  static constexpr int MPT = RN * NCH * H / NT;     // micro-blocks per thread
};

/// Tile t of the flat work index: its valid extent (rows and columns left from its
/// origin) and its 64-bit input / output bases.
template <int E, int TR, int TC>
__device__ __forceinline__ void tile_at(const tile_args& a, index_t t, index_t& rows_left, index_t& cols_left,
                                        const u8*& in_t, u8*& out_t) {
  index_t b, rem, tr, tc;
  divmod(t, a.tiles_per_mat, b, rem);
  divmod(rem, a.tiles_c, tr, tc);
  const index_t r0 = tr * TR, c0 = tc * TC;
  rows_left = a.rows - r0, cols_left = a.cols - c0;
  in_t = a.in + b * a.stride_in + r0 * a.ld_in + c0 * E;
  out_t = a.out + b * a.stride_out + c0 * a.ld_out + r0 * E;
}

/// Micro-block m = h + H*(R + RN*C) (sub-chunk h fastest, then the row block R, so a
/// warp's stores run along output rows and a quarter warp's shared reads hit 8
/// distinct swizzled chunk slots): its k shared rows, transposed in registers.
template <int E, int NCH, int MW, class Geom>
__device__ __forceinline__ void read_micro(const std::uint32_t* tile, int m, std::uint32_t (&w)[Geom::k][Geom::KW],
                                           int& h, int& R, int& C) {
  constexpr int k = Geom::k, KW = Geom::KW, H = Geom::H, RN = Geom::RN, kk = Geom::kk;
  h = m % H, R = (m / H) % RN, C = m / (H * RN);
#pragma unroll
  for (int i = 0; i < k; ++i) {
    const int r = R * k + i;
    const std::uint32_t* src = tile + (r * NCH + (C ^ (R % NCH))) * 4 + h * KW;
    if constexpr (KW == 4) {
      const uint4 x = *reinterpret_cast<const uint4*>(src);
      w[i][0] = x.x, w[i][1] = x.y, w[i][2] = x.z, w[i][3] = x.w;
    } else {
      const uint2 x = *reinterpret_cast<const uint2*>(src);
      w[i][0] = x.x, w[i][1] = x.y;
    }
  }
  micro_transpose<E, KW, k, 0>(w);
  if constexpr (Geom::G > 1) micro_transpose<E, KW, k, kk>(w);
}

/// Stores a transposed micro-block (read_micro's w: G square kk x kk blocks stacked) as
/// kk output chunks at o, o + ld_out, ...: row i is the i-th rows of the G blocks side
/// by side. Partial tiles (full false) store only the rl x cl valid elements.
template <int E, int KW, int k, int kk, int G, int A, int Hint = 0>
__device__ __forceinline__ void store_micro(const std::uint32_t (&w)[k][KW], u8* o, index_t ld_out, bool full,
                                            int rl, int cl) {
#pragma unroll
  for (int i = 0; i < kk; ++i) {
    std::uint32_t out_w[4];
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
      for (int x = 0; x < KW; ++x) out_w[g * KW + x] = w[g * kk + i][x];
    if (full || (i < cl && rl >= k)) {
      store_chunk<A, Hint>(out_w, o + i * ld_out);
    } else if (i < cl) {
#pragma unroll
      for (int e = 0; e < k; ++e)
        if (e < rl) get_elem<E>(out_w, e, o + i * ld_out + e * E);
    }
  }
}

/// E: element bytes; TR: tile rows; NCH: 16-byte chunks per tile row; NT: threads;
/// MW: bytes of a micro-block row (16, or 8 to halve its registers); A: global access
/// width in bytes (16 = vector path). A micro-block is k = 16/E shared rows x MW
/// bytes: G = 16/MW square kk x kk blocks (kk = MW/E) stacked, whose transposes,
/// side by side, are kk output chunks of 16 bytes.
/// LateWait: as a programmatic dependent, release the next launch at once but wait for the
/// work before this one only just before the first load, so that the tile's index math
/// overlaps that work's tail (route::late: tiny calls in CUDA graphs).
template <int E, int TR, int NCH, int NT, int MW, int MinBlocks, int A, int Hint = 0, bool LateWait = false>
__global__ void __launch_bounds__(NT, MinBlocks) tile_kernel(tile_args a) {
  using geom = tile_geom<E, TR, NCH, NT, MW>;
  constexpr int k = geom::k, TC = geom::TC, RPS = geom::RPS, L = geom::L;
  constexpr int KW = geom::KW, kk = geom::kk, G = geom::G, MPT = geom::MPT;
  static_assert(best_tile_valid(E, best_tile{TR, NCH, NT, MW, MinBlocks}, false), "tile shape");
  if constexpr (LateWait) bytes::dependent_launch_release();
  else bytes::dependent_launch_entry();
  extern __shared__ uint4 smem_raw[];
  std::uint32_t* tile = reinterpret_cast<std::uint32_t*>(smem_raw);  // (TR, NCH) chunks, swizzled

  const int tid = static_cast<int>(threadIdx.x);
  const int ch = tid % NCH;    // this thread's chunk column in the load phase
  const int row_t = tid / NCH;  // its first row
  const index_t step_in = static_cast<index_t>(RPS) * a.ld_in;

  for (index_t t = blockIdx.x; t < a.total; t += gridDim.x) {
    // Inline, not tile_at: the same code through the helper spills 8 bytes in the f16
    // tile (85-register cap) under nvcc 13.0.
    index_t b, rem, tr, tc;
    divmod(t, a.tiles_per_mat, b, rem);
    divmod(rem, a.tiles_c, tr, tc);
    const index_t r0 = tr * TR, c0 = tc * TC;
    const index_t rows_left = a.rows - r0, cols_left = a.cols - c0;
    const bool full = rows_left >= TR && cols_left >= TC;
    // 64-bit bases, once per tile.
    const u8* in_t = a.in + b * a.stride_in + r0 * a.ld_in + c0 * E;
    u8* out_t = a.out + b * a.stride_out + c0 * a.ld_out + r0 * E;

    // Load: all L chunks in flight before the first shared store. With A < 16 the
    // thread's 16/A pieces are NCH*A bytes apart, so that a warp's narrow loads cover
    // contiguous bytes (piece s of thread ch sits at row byte (s*NCH + ch)*A).
    constexpr int P = 16 / A;
    auto piece_off = [](int s, int c) { return A == 16 ? c * 16 : (s * NCH + c) * A; };
    std::uint32_t v[L][4];
    const u8* p = in_t + row_t * a.ld_in;
    if constexpr (LateWait) bytes::dependent_launch_wait();  // (a no-op after the first tile)
    if (full) {
#pragma unroll
      for (int j = 0; j < L; ++j) {
        if constexpr (A == 16) {
          load_chunk<16, Hint>(v[j], p + j * step_in + ch * 16);
        } else {
          v[j][0] = v[j][1] = v[j][2] = v[j][3] = 0;
#pragma unroll
          for (int s = 0; s < P; ++s) put_elem<A>(v[j], s, p + j * step_in + piece_off(s, ch));
        }
      }
    } else {
      const int cl = static_cast<int>(cols_left < TC ? cols_left : TC);  // valid elements in the row
#pragma unroll
      for (int j = 0; j < L; ++j) {
        v[j][0] = v[j][1] = v[j][2] = v[j][3] = 0;
        if (row_t + j * RPS < rows_left) {
#pragma unroll
          for (int s = 0; s < P; ++s) {
            const int b0 = piece_off(s, ch);  // first byte of the piece (A = 16: the chunk)
            if (b0 / E + A / E <= cl) {
              if constexpr (A == 16) load_chunk<16, Hint>(v[j], p + j * step_in + b0);
              else put_elem<A>(v[j], s, p + j * step_in + b0);
            } else {
#pragma unroll
              for (int e = 0; e < A / E; ++e)
                if (b0 / E + e < cl) put_elem<E>(v[j], s * (A / E) + e, p + j * step_in + b0 + e * E);
            }
          }
        }
      }
    }
    __syncthreads();  // the previous tile's shared reads are done
#pragma unroll
    for (int j = 0; j < L; ++j) {
      const int r = row_t + j * RPS;
      const int sw = (r / k) % NCH;
      if constexpr (A == 16) {
        reinterpret_cast<uint4*>(tile)[r * NCH + (ch ^ sw)] = make_uint4(v[j][0], v[j][1], v[j][2], v[j][3]);
      } else {
#pragma unroll
        for (int s = 0; s < P; ++s) {
          const int b = piece_off(s, ch);
          u8* dst = reinterpret_cast<u8*>(tile) + (r * NCH + ((b / 16) ^ sw)) * 16 + b % 16;
          get_elem<A>(v[j], s, dst);
        }
      }
    }
    __syncthreads();

#pragma unroll
    for (int q = 0; q < MPT; ++q) {
      std::uint32_t w[k][KW];
      int h, R, C;
      read_micro<E, NCH, MW, geom>(tile, tid + q * NT, w, h, R, C);
      // Output row c0 + C*k + h*kk + i, elements r0 + R*k .. + k-1: the i-th rows of
      // the G square blocks, side by side.
      u8* o = out_t + static_cast<index_t>(C * k + h * kk) * a.ld_out + R * 16;
      const int rl = full ? k : static_cast<int>(rows_left < TR ? rows_left : TR) - R * k;
      const int cl = full ? kk : static_cast<int>(cols_left < TC ? cols_left : TC) - C * k - h * kk;
      store_micro<E, KW, k, kk, G, A, Hint>(w, o, a.ld_out, full, rl, cl);
    }
  }
}

}  // namespace xpose::detail::best
