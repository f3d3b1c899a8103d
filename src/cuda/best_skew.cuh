// Skewed realigning tile of `best` (paths realign_skew, realign_skew_async): the tiled
// transpose for rows whose byte addresses are only element-aligned (odd row lengths,
// offset pointers, odd strides), with every global access a whole 16-byte chunk at a
// 16-byte-aligned address on both sides, except the input view's two ends and each
// output row's first and last chunk of the matrix.
//
// best_realign.cuh stores each output row segment [r0, r0 + TR) shifted, so both of its
// end chunks are partial (1-8 byte pieces, one divergent lane each); here the tile's
// output segments are skewed instead: on output row c the tile owns the input rows
// [r0 + rho_c, r0 + TR + rho_c), where rho_c < k = 16/E is the first row at which that
// output row is 16-byte aligned, so every owned chunk is a whole aligned chunk. The
// tile therefore reads TR + k input rows (a k-row halo shared with the next tile).
//   1. load:  each of the TR + k rows is read as the aligned chunks that cover its
//             columns (all of a thread's chunks in flight; the chunk after a lane's
//             own comes from the next lane by a shuffle, the row's last lane loads it),
//             shifted into place with funnel shifts, stored into an XOR-swizzled shared
//             tile A.
//   2. mid:   k x (MW bytes) micro-blocks of A transposed in registers (the tile
//             kernel's micro-blocks), written as 16-byte chunks of the transposed tile
//             B (row c of B: output row c of the tile, TR/k + 1 chunks).
//   3. store: each owned aligned output chunk is the window of two adjacent B chunks
//             at byte rho_c*E: one aligned 16-byte store.
// Loads never touch a byte outside [in, in_end) (chunks straddling it are read
// element by element); stores never touch a byte outside the tile's owned elements.
// The phases are host-device functions: the CPU tests run a block's phases on host
// buffers (tests/cpu/test_best_skew.cpp).
#pragma once

#include <xpose/view.hpp>

#include <cstdint>

#include "best_async.cuh"
#include "best_bytes.cuh"
#include "best_geom.hpp"

namespace xpose::detail::skew {

using bytes::c16;
using bytes::u8;
using i64 = std::int64_t;

struct args {
  const u8* in;
  u8* out;
  const u8* in_end;                           // one past the last byte of the input view
  i64 rows, cols;                             // elements
  i64 ld_in, ld_out, stride_in, stride_out;   // bytes
  i64 tiles_c, tiles_per_mat, total;          // tiles along cols, per matrix, overall
};

/// Geometry of a skewed tile: TR owned rows, NCH chunks per row, NT threads, MW-byte
/// micro-block rows. Halo false (output rows 16-byte aligned, so rho_c = 0 on every
/// output row): no halo rows, B rows of TR/k chunks (cp.async form only). OA: the
/// alignment in bytes of the owned output segments' starts (16: whole chunks; 32: whole
/// L2 sectors, cp.async form only), rho_c < OA/E, so the halo is OA/E rows.
template <int E, int TR, int NCH, int NT, int MW, bool Halo = true, int OA = 16>
struct geom {
  static_assert(OA >= 16 && (OA & (OA - 1)) == 0, "segment alignment: a power of two of whole chunks");
  static constexpr int k = 16 / E;              // elements per chunk
  static constexpr int TC = NCH * k;            // tile columns = output rows of the tile
  static constexpr int AR = TR + (Halo ? OA / E : 0);  // input rows read (OA/E-row halo)
  static constexpr int RB = AR / k;             // row blocks of k rows (chunks per B row)
  static constexpr int RPS = NT / NCH;          // rows per load step
  static constexpr int LA = (AR + RPS - 1) / RPS;  // load steps (chunks per thread)
  static constexpr int H = 16 / MW;             // micro-blocks across one chunk column
  static constexpr int KW = MW / 4;             // words per micro-block row
  static constexpr int kk = MW / E;             // output rows per micro-block
  static constexpr int G = k / kk;              // square blocks per micro-block
  static constexpr int NM = RB * NCH * H;       // micro-blocks per tile
  // Row blocks per group of micro-blocks (micro): all RB, or 8 in the sector tiles' narrow
  // rows and in 4-byte rows of more than 8 row blocks (u8: RB = 16 row blocks x 2 h in a
  // warp hit the same banks twice; 8 x 4 do not). The older tiles keep their order.
  static constexpr int RG = MW < 16 && RB > 8 && RB % 8 == 0 && (OA > 16 || MW == 4) ? 8 : RB;
  /// Micro-block m: row block R (fastest, in groups of RG), chunk part h, chunk column C.
  XPOSE_HDI static void micro(int m, int& R, int& h, int& C) {
    R = m % RG + RG * ((m / (RG * H)) % (RB / RG)), h = (m / RG) % H, C = m / (RB * H);
  }
  static constexpr int NS = TC * RB;            // output chunk slots per tile
  static constexpr int a_bytes = AR * NCH * 16;
  static constexpr int smem = a_bytes + NS * 16;
  // cp.async form: A holds each row's aligned cover unshifted (NCH + 1 chunks), rows of
  // row block R shifted by cover_shift(R) < 32 words.
  static constexpr int cover_period = best_skew_cover_period(E, NCH);
  static constexpr int cover_bytes = (AR * (NCH + 1) + (RB + cover_period - 1) / cover_period) * 16;
  static constexpr int smem_async = cover_bytes + NS * 16;
  static_assert(best_skew_tile_valid(E, best_tile{TR, NCH, NT, MW, 1}), "skewed tile shape");
  static_assert(!Halo || smem == best_skew_smem(E, best_tile{TR, NCH, NT, MW, 1}, OA), "one statement of the shared size");
  static_assert(smem_async == best_skew_async_smem(E, best_tile{TR, NCH, NT, MW, 1}, Halo, 1, OA),
                "one statement of the async shared size");
};

template <int E>
args make_args(const void* in, void* out, const matrix_desc& d, const void* in_end, best_tile t) {
  args a{};
  a.in = static_cast<const u8*>(in);
  a.out = static_cast<u8*>(out);
  a.in_end = static_cast<const u8*>(in_end);
  a.rows = d.rows, a.cols = d.cols;
  a.ld_in = d.ld_in * E, a.ld_out = d.ld_out * E;
  a.stride_in = d.stride_in * E, a.stride_out = d.stride_out * E;
  const i64 tc = t.chunks * 16 / E;
  a.tiles_c = (d.cols + tc - 1) / tc;
  a.tiles_per_mat = a.tiles_c * ((d.rows + t.rows - 1) / t.rows);
  a.total = a.tiles_per_mat * d.batch;
  return a;
}

/// Tile t: input at (r0, c0), output at row c0, element r0; nrow = input rows readable
/// from r0 (at most AR), ncol = valid columns, first: r0 == 0 (owns the rows before rho).
struct tile {
  const u8* in;
  u8* out;
  int nrow, ncol;
  bool first;
};

template <int E, int TR, int TC, int AR>
XPOSE_HDI tile tile_at(const args& a, i64 t) {
  const i64 b = t / a.tiles_per_mat, rem = t - b * a.tiles_per_mat;
  const i64 tr = rem / a.tiles_c, tc = rem - tr * a.tiles_c;
  const i64 r0 = tr * TR, c0 = tc * TC;
  const i64 rl = a.rows - r0, cl = a.cols - c0;
  return {a.in + b * a.stride_in + r0 * a.ld_in + c0 * E, a.out + b * a.stride_out + c0 * a.ld_out + r0 * E,
          static_cast<int>(rl < AR ? rl : AR), static_cast<int>(cl < TC ? cl : TC), r0 == 0};
}

/// Byte offset in A of chunk ch of row r (XOR swizzle by row block: a quarter warp's
/// micro-block reads, rows of consecutive row blocks, hit distinct 16-byte slots).
template <int NCH, int k>
XPOSE_HDI int a_slot(int r, int ch) {
  return (r * NCH + (ch ^ ((r / k) % NCH))) * 16;
}

/// Phase 1 for thread tid: rows tid/NCH + j*RPS, chunk tid%NCH of each, realigned into A.
template <int E, int TR, int NCH, int NT, int MW, int OA = 16>
XPOSE_HDI void load_phase(const args& a, const tile& p, u8* sm, int tid) {
  using g = geom<E, TR, NCH, NT, MW, true, OA>;
  const int ch = tid % NCH, row_t = tid / NCH;
  // Row r's offset from its aligned cover: (in0 + r*ld_in) mod 16, recomputed in 32 bits
  // when used (keeping LA offsets live costs registers the loads need).
  const unsigned in0 = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(p.in));
  const unsigned ld = static_cast<unsigned>(a.ld_in);
  c16 v[g::LA], x[g::LA];
  XPOSE_UNROLL
  for (int j = 0; j < g::LA; ++j) {
    const int r = row_t + j * g::RPS;
    v[j] = x[j] = bytes::zero16();
    if (r < p.nrow) {
      const int off = static_cast<int>((in0 + static_cast<unsigned>(r) * ld) & 15u);
      const u8* ab = p.in + static_cast<i64>(r) * a.ld_in - off + ch * 16;  // this thread's cover chunk
      const int need = off + p.ncol * E;  // bytes of the cover in use
      if (ch * 16 < need) v[j] = bytes::load_clamped<E>(ab, a.in, a.in_end);
      // The chunk after this thread's: on the GPU the next lane's (a shuffle below), so
      // only a row's last lane loads it; the host emulation loads it in every thread.
#if defined(__CUDA_ARCH__)
      const bool last = ch == NCH - 1;
#else
      const bool last = true;
#endif
      if (last && ch * 16 + 16 < need) x[j] = bytes::load_clamped<E>(ab + 16, a.in, a.in_end);
    }
  }
  XPOSE_UNROLL
  for (int j = 0; j < g::LA; ++j) {
    const int r = row_t + j * g::RPS;
    const int off = static_cast<int>((in0 + static_cast<unsigned>(r) * ld) & 15u);
#if defined(__CUDA_ARCH__)
    XPOSE_UNROLL
    for (int q = 0; q < 4; ++q) {
      const std::uint32_t n = __shfl_down_sync(0xffffffffu, v[j].w[q], 1, NCH);
      if (ch != NCH - 1) x[j].w[q] = n;
    }
#endif
    if (g::LA * g::RPS == g::AR || r < g::AR) bytes::st16(sm + a_slot<NCH, g::k>(r, ch), bytes::window16(v[j], x[j], off));
  }
}

/// Phase 2 for thread tid: micro-blocks m (geom::micro: row block fastest, so
/// that a quarter warp's B stores are consecutive chunks of one B row), each read by
/// read(R, h, C, w): rows R*k .. R*k + k-1, bytes [16C + h*MW, +MW) of the realigned tile.
template <int E, int TR, int NCH, int NT, int MW, bool Halo, int OA, class Read>
XPOSE_HDI void transpose_phase(u8* bt, int tid, Read read) {
  using g = geom<E, TR, NCH, NT, MW, Halo, OA>;
  constexpr int k = g::k, KW = g::KW, kk = g::kk;
  XPOSE_UNROLL
  for (int q = 0; q < (g::NM + NT - 1) / NT; ++q) {
    const int m = tid + q * NT;
    if (g::NM % NT == 0 || m < g::NM) {
      int R, h, C;
      g::micro(m, R, h, C);
      std::uint32_t w[k][KW];
      read(R, h, C, w);
      XPOSE_UNROLL
      for (int b = 0; b < g::G; ++b) bytes::transpose_block<E, KW, k>(w, b * kk);
      XPOSE_UNROLL
      for (int i = 0; i < kk; ++i) {
        c16 o;  // output row C*k + h*kk + i, input rows R*k .. R*k + k-1: the i-th rows of the G blocks
        XPOSE_UNROLL
        for (int s = 0; s < g::G; ++s)
          XPOSE_UNROLL
          for (int y = 0; y < KW; ++y) o.w[s * KW + y] = w[s * kk + i][y];
        bytes::st16(bt + ((C * k + h * kk + i) * g::RB + R) * 16, o);
      }
    }
  }
}

/// Phase 2 of the register form: micro-block rows from the swizzled, realigned tile A.
template <int E, int TR, int NCH, int NT, int MW, int OA = 16>
XPOSE_HDI void mid_phase(u8* sm, int tid) {
  using g = geom<E, TR, NCH, NT, MW, true, OA>;
  static_assert(MW >= 8, "register form: 8- or 16-byte micro-block rows (one vector shared load)");
  transpose_phase<E, TR, NCH, NT, MW, true, OA>(sm + g::a_bytes, tid, [&](int R, int h, int C, std::uint32_t(&w)[g::k][g::KW]) {
    XPOSE_UNROLL
    for (int i = 0; i < g::k; ++i) bytes::ld_words<g::KW>(w[i], sm + a_slot<NCH, g::k>(R * g::k + i, C) + h * MW);
  });
}

/// Phase 3 for thread tid: slot f = c*RB + jj of output row c holds the aligned chunk
/// that covers tile rows [s + (jj-1)*k, s + jj*k), s = rho mod k: bytes s*E .. of B
/// chunks jj-1 (none for jj = 0) and jj. Stored where the tile owns it: rows
/// [rho, rho + TR) (from 0 on the first tile), clipped to the matrix; rho < OA/E, the
/// first row at which output row c is OA-byte aligned. Without the halo (rho = 0 on
/// every row) slot jj is B chunk jj, rows [jj*k, jj*k + k).
template <int E, int TR, int NCH, int NT, int MW, bool Halo = true, int OA = 16>
XPOSE_HDI void store_phase(const args& a, const tile& p, const u8* bt, int tid) {
  using g = geom<E, TR, NCH, NT, MW, Halo, OA>;
  constexpr int k = g::k, J0 = Halo ? 1 : 0;
  XPOSE_UNROLL
  for (int q = 0; q < (g::NS + NT - 1) / NT; ++q) {
    const int f = tid + q * NT;
    const int c = f / g::RB, jj = f - c * g::RB;
    if ((g::NS % NT == 0 || f < g::NS) && c < p.ncol) {
      u8* const seg = p.out + static_cast<i64>(c) * a.ld_out;
      constexpr int m = OA - 1;
      const int rho = Halo ? ((OA - static_cast<int>(reinterpret_cast<std::uintptr_t>(seg) & m)) & m) / E : 0;
      const int sh = rho & (k - 1);  // rho mod k: the chunks' row phase
      const int lo = p.first ? 0 : rho;
      const int hi = p.nrow < rho + TR ? p.nrow : rho + TR;
      const int e0 = sh + (jj - J0) * k;  // first tile row of this aligned chunk
      const int s0 = e0 > lo ? e0 : lo, s1 = e0 + k < hi ? e0 + k : hi;
      if (s0 < s1) {
        c16 w = bytes::ld16(bt + f * 16);
        if constexpr (Halo) w = bytes::window16(jj > 0 ? bytes::ld16(bt + (f - 1) * 16) : bytes::zero16(), w, sh * E);
        bytes::store_range(w, seg + static_cast<i64>(e0) * E, (s0 - e0) * E, (s1 - e0) * E);
      }
    }
  }
}

/// Word of A (cp.async form) where input row r's aligned cover starts: rows of NCH + 1
/// chunks, and one chunk more before every p-th row block (whole chunks: cp.async writes
/// 16-byte aligned), p = best_skew_cover_period, the period of R*k*(NCH + 1) mod 8. The 8
/// lanes of a quarter warp (16-byte reads: consecutive row blocks R) then hit 8 distinct
/// chunk slots, and a warp's 4-byte reads of 4-byte micro-block rows (8 R x 4 h) 32
/// distinct banks; 8-byte rows (f16) are 2-way (tests/cpu/test_best_skew.cpp counts them).
template <int E, int TR, int NCH, int NT, int MW, bool Halo, int OA = 16>
XPOSE_HDI int cover_word(int r) {
  using g = geom<E, TR, NCH, NT, MW, Halo, OA>;
  return (r * (NCH + 1) + r / g::k / g::cover_period) * 4;
}

/// Phase 1 of the cp.async form for thread tid: chunk tid%NCH of the aligned cover of
/// rows tid/NCH + j*RPS, and the cover's last chunk (NCH) of rows tid + j*NT, each by
/// copy(byte offset in A, aligned source chunk) unshifted; chunks past a row's valid
/// bytes are skipped (their shared bytes are never stored).
template <int E, int TR, int NCH, int NT, int MW, bool Halo, int OA, class Copy>
XPOSE_HDI void cover_phase(const args& a, const tile& p, int tid, Copy copy) {
  using g = geom<E, TR, NCH, NT, MW, Halo, OA>;
  const int ch = tid % NCH, row_t = tid / NCH;
  const unsigned in0 = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(p.in));
  const unsigned ld = static_cast<unsigned>(a.ld_in);
  auto cover = [&](int r, int q) {
    const int off = static_cast<int>((in0 + static_cast<unsigned>(r) * ld) & 15u);
    if (q * 16 < off + p.ncol * E)
      copy(cover_word<E, TR, NCH, NT, MW, Halo, OA>(r) * 4 + q * 16, p.in + static_cast<i64>(r) * a.ld_in - off + q * 16);
  };
  XPOSE_UNROLL
  for (int j = 0; j < g::LA; ++j)
    if (row_t + j * g::RPS < p.nrow) cover(row_t + j * g::RPS, ch);
  XPOSE_UNROLL
  for (int j = 0; j < (g::AR + NT - 1) / NT; ++j)
    if (tid + j * NT < p.nrow) cover(tid + j * NT, NCH);
}

/// Phase 2 of the cp.async form: micro-block rows read from the unshifted covers (a
/// row's shift depends on i only: rows k apart start 16*ld_in bytes apart). 16-byte rows:
/// the two covering chunks, windowed; narrower rows: each word funnel-shifted from two
/// shared words.
template <int E, int TR, int NCH, int NT, int MW, bool Halo, int OA = 16>
XPOSE_HDI void cover_mid_phase(const args& a, const tile& p, const u8* cover, u8* bt, int tid) {
  using g = geom<E, TR, NCH, NT, MW, Halo, OA>;
  const std::uint32_t* words = reinterpret_cast<const std::uint32_t*>(cover);
  const unsigned in0 = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(p.in));
  const unsigned ld = static_cast<unsigned>(a.ld_in);
  transpose_phase<E, TR, NCH, NT, MW, Halo, OA>(bt, tid, [&](int R, int h, int C, std::uint32_t(&w)[g::k][g::KW]) {
    XPOSE_UNROLL
    for (int i = 0; i < g::k; ++i) {
      const int off = static_cast<int>((in0 + static_cast<unsigned>(i) * ld) & 15u);
      const int w0 = cover_word<E, TR, NCH, NT, MW, Halo, OA>(R * g::k + i) + C * 4;
      if constexpr (MW == 16) {
        const c16 v = bytes::window16(bytes::ld16(cover + w0 * 4), bytes::ld16(cover + w0 * 4 + 16), off);
        XPOSE_UNROLL
        for (int y = 0; y < 4; ++y) w[i][y] = v.w[y];
      } else {
        const std::uint32_t* rw = words + w0 + h * g::KW + (off >> 2);
        const unsigned sh = 8u * static_cast<unsigned>(off & 3);
        XPOSE_UNROLL
        for (int y = 0; y < g::KW; ++y) w[i][y] = bytes::funnel_r(rw[y], rw[y + 1], sh);
      }
    }
  });
}

#if defined(__CUDACC__)
/// One block per tile (grid-stride past the grid limit). A is written only after the
/// previous tile's phase 2 (barrier before phase 3), B only after its phase 3 (barrier
/// after phase 1).
template <int E, int TR, int NCH, int NT, int MW, int MinBlocks, int OA = 16>
__global__ void __launch_bounds__(NT, MinBlocks) skew_kernel(args a) {
  using g = geom<E, TR, NCH, NT, MW, true, OA>;
  bytes::dependent_launch_entry();
  extern __shared__ uint4 smem_raw[];
  u8* const sm = reinterpret_cast<u8*>(smem_raw);
  const int tid = static_cast<int>(threadIdx.x);
  for (i64 t = blockIdx.x; t < a.total; t += gridDim.x) {
    const tile p = tile_at<E, TR, g::TC, g::AR>(a, t);
    load_phase<E, TR, NCH, NT, MW, OA>(a, p, sm, tid);
    __syncthreads();
    mid_phase<E, TR, NCH, NT, MW, OA>(sm, tid);
    __syncthreads();
    store_phase<E, TR, NCH, NT, MW, true, OA>(a, p, sm + g::a_bytes, tid);
  }
}
/// The cp.async form (route realign_skew_async): phase 1 copies each row's aligned cover
/// global -> shared unshifted (no registers: occupancy is set by shared memory), phase 2
/// shifts on its shared reads. Resident blocks walk the tiles t, t + gridDim.x, ...; the
/// next tile's copies are issued as soon as this tile's covers have been read (S = 1:
/// they overlap the stores) or one tile ahead into a second cover buffer (S = 2: they
/// overlap phases 2 and 3). Shared: S cover buffers, then B. OA: geom.
template <int E, int TR, int NCH, int NT, int MW, int MinBlocks, bool Halo, int S, int OA = 16>
__global__ void __launch_bounds__(NT, MinBlocks) skew_async_kernel(args a) {
  using g = geom<E, TR, NCH, NT, MW, Halo, OA>;
  static_assert(S == 1 || S == 2, "one or two cover buffers");
  bytes::dependent_launch_entry();
  extern __shared__ uint4 smem_raw[];
  u8* const sm = reinterpret_cast<u8*>(smem_raw);
  const std::uint32_t sbase = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem_raw));
  u8* const bt = sm + S * g::cover_bytes;
  const int tid = static_cast<int>(threadIdx.x);
  auto load = [&](i64 t, int s) {
    const tile p = tile_at<E, TR, g::TC, g::AR>(a, t);
    const int base = s * g::cover_bytes;
    cover_phase<E, TR, NCH, NT, MW, Halo, OA>(a, p, tid, [&](int off, const u8* src) {
      async_tile::copy_chunk_clamped(sbase + static_cast<std::uint32_t>(base + off), sm + base + off, src, a.in, a.in_end);
    });
    async_tile::cp_commit();
  };
  i64 t = blockIdx.x;
  if (t < a.total) load(t, 0);
  int s = 0;
  for (; t < a.total; t += gridDim.x) {
    const i64 n = t + gridDim.x;
    if constexpr (S == 2) {
      if (n < a.total) load(n, s ^ 1);
      async_tile::cp_wait(n < a.total ? 1 : 0);
    } else {
      async_tile::cp_wait(0);
    }
    __syncthreads();  // this tile's covers are in; the previous tile's B reads are done
    const tile p = tile_at<E, TR, g::TC, g::AR>(a, t);
    cover_mid_phase<E, TR, NCH, NT, MW, Halo, OA>(a, p, sm + s * g::cover_bytes, bt, tid);
    __syncthreads();  // B complete; the covers are free
    if constexpr (S == 1) {
      if (n < a.total) load(n, 0);
    } else {
      s ^= 1;
    }
    store_phase<E, TR, NCH, NT, MW, Halo, OA>(a, p, bt, tid);
  }
}
#endif

}  // namespace xpose::detail::skew
