// Realigning tile kernel of `best`: the tiled kernel for rows whose byte addresses are
// only element-aligned (odd row lengths, offset pointers, odd strides). Every global
// access is a 16-byte access at a 16-byte-aligned address: each tile row is loaded as
// the aligned chunks that cover it and shifted into place in registers (the next chunk
// comes from the neighbouring lane by a shuffle, funnel shifts do the byte shift);
// each output row segment is shifted the other way and stored as aligned chunks, with
// the (at most two) chunks that straddle the segment's ends stored as 8/4/2/1-byte
// pieces. Loads never touch a byte outside [in, in_end) (the input view's extent):
// chunks that straddle it are read element by element. Stores never touch a byte
// outside this tile's own output elements. Shared tile, swizzle and register
// micro-blocks are those of tile_kernel (best_kernels.cuh).
#pragma once

#include "best_bytes.cuh"
#include "best_kernels.cuh"

namespace xpose::detail::best {

struct realign_args {
  tile_args t;
  const u8* in_end;  // one past the last byte of the input view
};

/// Stores output row `orow` (< ncol) of a tile's micro-block lane: d = this lane's piece
/// D_R, segment bytes [16R, 16R + 16) of the row's nv valid bytes, at out_t + orow *
/// ld_out (any E-aligned address). Lanes of consecutive R are H apart inside one warp
/// (every lane of the warp calls it: the shuffle brings D_{R-1}); each aligned chunk is
/// stored whole, the two that straddle the segment's ends as 8/4/2/1-byte pieces.
template <int H, int RN>
__device__ __forceinline__ void store_realigned(const bytes::c16& d, u8* out_t, index_t ld_out, int orow, int ncol,
                                                int R, int nv) {
  bytes::c16 pv;  // D_{R-1} (meaningless for R == 0, whose use is masked)
#pragma unroll
  for (int y = 0; y < 4; ++y) pv.w[y] = __shfl_up_sync(0xffffffffu, d.w[y], H);
  if (orow < ncol) {
    u8* seg = out_t + static_cast<index_t>(orow) * ld_out;  // segment start S
    const int oo = static_cast<int>(reinterpret_cast<std::uintptr_t>(seg) & 15);
    u8* base = seg - oo;  // aligned chunk j covers segment bytes [16j - oo, 16j - oo + 16)
    // Aligned chunk R = bytes [16 - oo, 32 - oo) of D_{R-1} || D_R (oo == 0: D_R).
    bytes::c16 a0;
#pragma unroll
    for (int y = 0; y < 4; ++y) a0.w[y] = oo ? pv.w[y] : d.w[y];
    const bytes::c16 c = bytes::window16(a0, d, (16 - oo) & 15);
    const int clo = oo - 16 * R > 0 ? oo - 16 * R : 0;
    const int chi = nv + oo - 16 * R < 16 ? nv + oo - 16 * R : 16;
    if (clo < chi) bytes::store_range(c, base + 16 * R, clo, chi);
    if (R == RN - 1 && oo != 0) {
      // Aligned chunk RN: its first oo bytes are the last oo bytes of D_{RN-1}.
      const int thi = nv + oo - 16 * RN < oo ? nv + oo - 16 * RN : oo;
      if (thi > 0) {
        bytes::store_range(bytes::window16(d, d, 16 - oo), base + 16 * RN, 0, thi);
      }
    }
  }
}

/// Same tile geometry as tile_kernel<E, TR, NCH, NT, MW, ...>; any E-aligned pointers,
/// leading dimensions and strides. NCH lanes (one tile row) and H*RN lanes (one output
/// row segment) must each lie inside one warp. OutAligned: every output row segment
/// starts 16-byte aligned (the caller checked pointer, leading dimension, batch stride
/// and TR*E % 16): stored as tile_kernel stores it, no shift (route realign_fit).
/// Blocks per SM of the XS form's launch bounds below sm_90: at most 4 (u8 96 rows of 16 loads:
/// 5 blocks, 128 registers, spilled 92 bytes on sm_80, none on sm_90; ptxas, nvcc 13.0).
template <int MinBlocks, bool XS>
constexpr int realign_min_blocks() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  return XS && MinBlocks > 4 ? 4 : MinBlocks;
#else
  return MinBlocks;
#endif
}

/// XS: the chunk after each row's cover (the last lane's) goes to a slot of its own after
/// the tile by cp.async (best_realign_smem), not to registers: the fitted tile's deep form
/// (route::deep) spilled holding those chunks in registers.
template <int E, int TR, int NCH, int NT, int MW, int MinBlocks, bool OutAligned = false, bool XS = false>
__global__ void __launch_bounds__(NT, (realign_min_blocks<MinBlocks, XS>())) realign_tile_kernel(realign_args ra) {
  const tile_args& a = ra.t;
  using geom = tile_geom<E, TR, NCH, NT, MW>;
  constexpr int k = geom::k, TC = geom::TC, RPS = geom::RPS, L = geom::L, RN = geom::RN;
  constexpr int H = geom::H, KW = geom::KW, kk = geom::kk, G = geom::G, MPT = geom::MPT;
  static_assert(best_tile_valid(E, best_tile{TR, NCH, NT, MW, MinBlocks}, true, OutAligned), "tile shape, shuffle groups");
  static_assert(!OutAligned || (TR * E) % 16 == 0, "aligned output segments");
  bytes::dependent_launch_entry();
  extern __shared__ uint4 smem_raw[];
  std::uint32_t* tile = reinterpret_cast<std::uint32_t*>(smem_raw);  // (TR, NCH) chunks, swizzled
  [[maybe_unused]] u8* const xs = reinterpret_cast<u8*>(smem_raw) + TR * NCH * 16;  // XS: TR chunks

  const int tid = static_cast<int>(threadIdx.x);
  const int ch = tid % NCH;
  const int row_t = tid / NCH;
  const u8* const lo = a.in;
  const u8* const hi = ra.in_end;

  for (index_t t = blockIdx.x; t < a.total; t += gridDim.x) {
    index_t rows_left, cols_left;
    const u8* in_t;
    u8* out_t;
    tile_at<E, TR, TC>(a, t, rows_left, cols_left, in_t, out_t);
    const int nrow = static_cast<int>(rows_left < TR ? rows_left : TR);  // valid tile rows
    const int ncol = static_cast<int>(cols_left < TC ? cols_left : TC);  // valid tile columns

    // Load: chunk ch of the aligned cover of each of this thread's rows, plus (last
    // lane of the row) the chunk after the last, all in flight together.
    bytes::c16 v[L], x[XS ? 1 : L];
    int off[L];
#pragma unroll
    for (int j = 0; j < L; ++j) {
      const int r = row_t + j * RPS;
      const u8* rp = in_t + static_cast<index_t>(r) * a.ld_in;
      off[j] = static_cast<int>(reinterpret_cast<std::uintptr_t>(rp) & 15);
      const u8* ab = rp - off[j];
      const int need = off[j] + ncol * E;  // bytes of the cover in use, from ab
      v[j] = x[XS ? 0 : j] = bytes::zero16();
      if (r < nrow) {
        if (ch * 16 < need) v[j] = bytes::load_clamped<E>(ab + ch * 16, lo, hi);
        if (ch == NCH - 1 && NCH * 16 < need) {
          const u8* p = ab + NCH * 16;  // (past the row's start: p > lo)
          if constexpr (!XS) x[j] = bytes::load_clamped<E>(p, lo, hi);
          else if (p + 16 <= hi) bytes::cp_async16(static_cast<std::uint32_t>(__cvta_generic_to_shared(xs + r * 16)), p, 16);
          else bytes::st16(xs + r * 16, bytes::load_clamped<E>(p, lo, hi));
        }
      }
    }
    if constexpr (XS) {
      bytes::cp_commit();
      bytes::cp_wait(0);  // (each slot is written and read by the same thread)
    }
    // Shift: tile chunk ch = bytes [off, off + 16) of cover chunks ch, ch + 1.
#pragma unroll
    for (int j = 0; j < L; ++j) {
      bytes::c16 nx;
      if constexpr (XS) {
        const int r = row_t + j * RPS;
        x[0] = ch == NCH - 1 && r < nrow && NCH * 16 < off[j] + ncol * E ? bytes::ld16(xs + r * 16) : bytes::zero16();
      }
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const std::uint32_t s = __shfl_down_sync(0xffffffffu, v[j].w[q], 1, NCH);
        nx.w[q] = ch == NCH - 1 ? x[XS ? 0 : j].w[q] : s;
      }
      v[j] = bytes::window16(v[j], nx, off[j]);
    }
    __syncthreads();  // the previous tile's shared reads are done
#pragma unroll
    for (int j = 0; j < L; ++j) {
      const int r = row_t + j * RPS;
      const int sw = (r / k) % NCH;
      bytes::st16(reinterpret_cast<u8*>(tile) + (r * NCH + (ch ^ sw)) * 16, v[j]);
    }
    __syncthreads();

    // Micro-blocks as in tile_kernel; lanes m = h + H*(R + RN*C) with consecutive R
    // hold consecutive 16-byte pieces of one output row segment (H lanes apart).
    [[maybe_unused]] const int nv = nrow * E;  // valid bytes of an output row segment
#pragma unroll
    for (int q = 0; q < MPT; ++q) {
      std::uint32_t w[k][KW];
      int h, R, C;
      read_micro<E, NCH, MW, geom>(tile, tid + q * NT, w, h, R, C);
      if constexpr (OutAligned) {
        const bool full = nrow == TR && ncol == TC;
        u8* o = out_t + static_cast<index_t>(C * k + h * kk) * a.ld_out + R * 16;
        store_micro<E, KW, k, kk, G, 16>(w, o, a.ld_out, full, nrow - R * k, ncol - C * k - h * kk);
      } else {
#pragma unroll
        for (int i = 0; i < kk; ++i) {
          bytes::c16 d;  // this lane's piece D_R: segment bytes [16R, 16R + 16)
#pragma unroll
          for (int g = 0; g < G; ++g)
#pragma unroll
            for (int y = 0; y < KW; ++y) d.w[g * KW + y] = w[g * kk + i][y];
          store_realigned<H, RN>(d, out_t, a.ld_out, C * k + h * kk + i, ncol, R, nv);
        }
      }
    }
  }
}

}  // namespace xpose::detail::best
