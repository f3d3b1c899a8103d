// Register-interleave kernels of `best` (routes slab_interleave_gather / _scatter):
// one short side of C rows (best_interleave_sides) with the other side
// packed, 4- and 8-byte elements, every 16-byte boundary the layout needs aligned
// (route_table.hpp). NCHW -> NHWC (gather) and back (scatter). Gathers
// also at any E-aligned layout (Any: each row unit a window of two aligned chunks, the
// second one the next lane's first by shuffle, so 31 units per 32 lanes; the packed
// range stored as windows of the staging with partial end chunks).
//
// A unit is one 16-byte chunk (k = 16/E positions) of each of the C rows: C chunks on the
// row side, and exactly C contiguous, aligned chunks of the packed side (positions
// j*k .. j*k+k-1 of all rows). For E >= 4 the interleave between the two is register
// renaming (no byte permutes). A warp owns a tile of 32*U consecutive units of one matrix:
//   gather:  each lane loads its units' C row chunks (coalesced per row), renames them
//            into packed chunks, stages them in the warp's shared area; after a
//            __syncwarp the warp stores the tile's packed range chunk by chunk, 512
//            contiguous bytes per store instruction (ragged end: a partial chunk).
//   scatter: the mirror: the packed range is loaded chunk by chunk into the staging area,
//            each lane renames its units' C chunks into row chunks and stores them.
// No block-wide barrier, no element-granular shared access, no per-element index math.
// Staging: C rows of RP chunks (unit u, chunk c at c*RP + u); RP = 32*U padded to
// RP = skew (mod 8) so that the packed-order accesses (consecutive chunks x -> unit x/C,
// chunk x%C) spread over the 8 bank groups of 16 bytes (at most 2-way; unit-order
// accesses are conflict-free for any RP). Loads never touch a byte outside the input view;
// stores never touch a byte outside the output elements. Host-device: the CPU tests run
// a warp's two phases on host buffers (tests/cpu/test_best_interleave.cpp).
#pragma once

#include <xpose/view.hpp>

#include <cstdint>

#include "best_bytes.cuh"

namespace xpose::detail::ilv {

using bytes::c16;
using bytes::u8;
using i64 = std::int64_t;

/// The worst bank-group multiplicity of 8 consecutive packed-order chunks x (a quarter
/// warp's 16-byte accesses, x0 a multiple of 8) at staging chunk (x%C)*P + x/C.
constexpr int stage_conflicts(int C, int P) {
  int worst = 0;
  for (int x0 = 0; x0 < 8 * C; x0 += 8) {
    int count[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int x = x0; x < x0 + 8; ++x) ++count[((x % C) * P + x / C) % 8];
    for (int n : count) worst = n > worst ? n : worst;
  }
  return worst;
}

/// The staging rows' skew (RP mod 8) with the fewest conflicts for C rows.
constexpr int stage_skew(int C) {
  int best = 0;
  for (int P = 1; P < 8; ++P)
    if (stage_conflicts(C, P) < stage_conflicts(C, best)) best = P;
  return best;
}

/// Geometry of a warp tile: U units per lane, C rows, E-byte elements. Rows move in
/// groups of G: all C rows up to 16 (one rename per unit), else k = 16/E rows (C a
/// multiple of k: a k x k block per group, whose k packed chunks lie C/k apart). A lane
/// has NI = U * NG (unit, group) items and keeps IB items' chunks in flight (at most 16
/// chunks when it cannot hold all).
template <int E, int C, int U>
struct shape {
  static_assert(E == 4 || E == 8 || E == 16, "register interleave: 4-16 byte elements");
  static_assert(C >= 2 && U >= 1, "register interleave: at least 2 rows");
  static constexpr int k = 16 / E;       // positions per unit
  static constexpr int NU = 32 * U;      // units per warp tile
  static constexpr int G = C <= 16 ? C : k;
  static constexpr int NG = C / G;
  static_assert(C % G == 0, "register interleave: more than 16 rows in whole groups of 16/E");
  static constexpr int NI = U * NG;
  static constexpr int IB = NI * G <= 16 ? NI : (16 / G > 0 ? 16 / G : 1);
  static constexpr int MB = C * U < 16 ? C * U : 16;  // packed chunks in flight (scatter loads)
  static constexpr int RP = NU + ((stage_skew(C) - NU % 8) + 8) % 8;  // staging row, chunks
  static constexpr int stage_bytes = 16 * C * RP;  // per warp
};

/// Bytes of p past a 16-byte boundary.
XPOSE_HDI int addr16(const void* p) { return static_cast<int>(reinterpret_cast<std::uintptr_t>(p) & 15); }

struct args {
  const u8* in;
  u8* out;
  const u8* in_end;     // one past the last byte of the input view
  i64 L;                // long side: positions per row
  i64 units;            // units per row: ceil(L / k)
  i64 ld_seg;           // bytes between the C rows: ld_in (gather), ld_out (scatter)
  i64 stride_in, stride_out;  // bytes between matrices
  i64 tiles_per_mat, total;   // warp tiles
  int tile_units;             // units per warp tile (tile_units_for)
};

/// Units per warp tile: 32 lanes x U, or for the realigning gather 31 x U (each lane's
/// second aligned chunk is the next lane's first, by shuffle; lane 31 only loads it).
constexpr int tile_units_for(int U, bool any) { return (any ? 31 : 32) * U; }

/// Arguments for a gather (rows = C, ld_out == rows) or scatter (cols = C, ld_in == cols).
template <int E>
args make_args(bool gather, const void* in, void* out, const matrix_desc& d, const void* in_end, int U,
               bool any = false) {
  args a{};
  a.in = static_cast<const u8*>(in);
  a.out = static_cast<u8*>(out);
  a.in_end = static_cast<const u8*>(in_end);
  a.L = gather ? d.cols : d.rows;
  a.units = (a.L * E + 15) / 16;
  a.ld_seg = (gather ? d.ld_in : d.ld_out) * E;
  a.stride_in = d.stride_in * E, a.stride_out = d.stride_out * E;
  a.tile_units = tile_units_for(U, any);
  a.tiles_per_mat = (a.units + a.tile_units - 1) / a.tile_units;
  a.total = a.tiles_per_mat * d.batch;
  return a;
}

/// Warp tile t: its row-side base (unit j0 of row 0), packed-side base, first unit, units
/// in the tile and bytes of its packed range.
struct tile {
  const u8* in;
  u8* out;
  i64 j0;
  int nu;
  int N;
};

template <int E, int C, int U, bool Gather>
XPOSE_HDI tile tile_at(const args& a, i64 t) {
  using S = shape<E, C, U>;
  const i64 TU = a.tile_units;
  const i64 b = t / a.tiles_per_mat, j0 = (t - b * a.tiles_per_mat) * TU;
  const i64 nu = a.units - j0 < TU ? a.units - j0 : TU;
  const i64 np = a.L - j0 * S::k < TU * S::k ? a.L - j0 * S::k : TU * S::k;
  const i64 seg = j0 * 16, packed = j0 * 16 * C;
  return {a.in + b * a.stride_in + (Gather ? seg : packed), a.out + b * a.stride_out + (Gather ? packed : seg), j0,
          static_cast<int>(nu), static_cast<int>(np * C * E)};
}

/// A unit's C chunks from one side to the other (indices are constants once unrolled:
/// register renaming). ToPacked: in[s] is row s (k positions), out[c] packed chunk c
/// (element o = l*C + s at word o*E/4); else the reverse.
template <int E, int C, bool ToPacked>
XPOSE_HDI void rename(const c16 (&in)[C], c16 (&out)[C]) {
  constexpr int WE = E / 4, k = 16 / E;
  XPOSE_UNROLL
  for (int c = 0; c < C; ++c)
    XPOSE_UNROLL
    for (int w = 0; w < 4; ++w) {
      if constexpr (ToPacked) {
        const int o = (4 * c + w) / WE, h = (4 * c + w) % WE;
        out[c].w[w] = in[o % C].w[(o / C) * WE + h];
      } else {
        const int o = (w / WE) * C + c, h = w % WE;
        out[c].w[w] = in[o / k].w[(o % k) * WE + h];
      }
    }
}

/// Row group of a lane's item i (items: U units per group, unit-major).
template <int U>
XPOSE_HDI int g_of(int i) {
  return i / U;
}

/// Staging byte offset of unit u's chunk c (packed chunk u*C + c of the tile).
template <int E, int C, int U>
XPOSE_HDI int stage_at(int u, int c) {
  return 16 * (c * shape<E, C, U>::RP + u);
}

/// Phase 1 of lane `lane` on tile p (then __syncwarp): gather, the lane's row chunks ->
/// renamed -> staging; scatter, packed chunks -> staging.
template <int E, int C, int U, bool Gather, bool Any = false>
XPOSE_HDI void phase1(const args& a, const tile& p, u8* st, int lane) {
  using S = shape<E, C, U>;
  if constexpr (Gather) {
    // Only the view's last row can end inside a unit (rows of whole 16-byte chunks; Any:
    // the unit's two aligned chunks): tiles short of it load without clamping. Any: the
    // first row's first aligned chunk starts before the row, so a tile at the view's start
    // clamps too (otherwise it reads bytes before the view: initcheck).
    const bool inside = (!Any || p.in >= a.in + 16) && p.in + (C - 1) * a.ld_seg + 16 * p.nu + (Any ? 16 : 0) <= a.in_end;
    constexpr int LU = Any ? 31 : 32;  // units per lane row of the tile (tile_units_for)
    XPOSE_UNROLL
    for (int i0 = 0; i0 < S::NI; i0 += S::IB) {
      c16 v[S::IB][S::G];
      XPOSE_UNROLL
      for (int b = 0; b < S::IB; ++b) {
        const int i = i0 + b, u = lane + LU * (i % U), g = i / U;  // item i: unit u, group g
        // Any: every lane loads its unit's first aligned chunk, also lane 31 and the lane
        // past the tile's last unit (the second chunk of the lane before).
        if (i < S::NI && u < p.nu + (Any ? 1 : 0))
          XPOSE_UNROLL
          for (int r = 0; r < S::G; ++r) {
            const u8* const row = p.in + (g * S::G + r) * a.ld_seg;
            const u8* const q = row - (Any ? addr16(row) : 0) + 16 * u;
            v[b][r] = inside ? bytes::ld16(q) : bytes::load_clamped<E>(q, a.in, a.in_end);
          }
        else if constexpr (Any)
          XPOSE_UNROLL
          for (int r = 0; r < S::G; ++r) v[b][r] = bytes::zero16();  // (shuffled, never stored)
      }
      if constexpr (Any) {
        // The row starts anywhere (E-aligned): the unit is a window of its two aligned chunks.
        XPOSE_UNROLL
        for (int b = 0; b < S::IB; ++b)
          XPOSE_UNROLL
          for (int r = 0; r < S::G; ++r) {
            const int i = i0 + b;
            const u8* const row = p.in + (g_of<U>(i) * S::G + r) * a.ld_seg;
            const int off = addr16(row);
#if defined(__CUDA_ARCH__)
            c16 w;
            XPOSE_UNROLL
            for (int j = 0; j < 4; ++j) w.w[j] = __shfl_down_sync(0xffffffffu, v[b][r].w[j], 1);
#else
            // (Host emulation: the next lane's chunk, loaded.)
            const int u = lane + LU * (i % U);
            const u8* const q = row - off + 16 * (u + 1);
            const c16 w = i < S::NI && u < p.nu ? (inside ? bytes::ld16(q) : bytes::load_clamped<E>(q, a.in, a.in_end))
                                                : bytes::zero16();
#endif
            v[b][r] = bytes::window16(v[b][r], w, off);
          }
      }
      XPOSE_UNROLL
      for (int b = 0; b < S::IB; ++b) {
        const int i = i0 + b, u = lane + LU * (i % U), g = i / U;
        if (i < S::NI && u < p.nu && (!Any || lane < 31)) {
          c16 o[S::G];
          rename<E, S::G, true>(v[b], o);
          XPOSE_UNROLL
          for (int l = 0; l < S::G; ++l) bytes::st16(st + stage_at<E, C, U>(u, l * S::NG + g), o[l]);
        }
      }
    }
  } else {
    const int chunks = (p.N + 15) / 16;
    const bool inside = p.in + 16 * chunks <= a.in_end;
    XPOSE_UNROLL
    for (int m0 = 0; m0 < C * U; m0 += S::MB) {
      c16 v[S::MB];
      XPOSE_UNROLL
      for (int m = 0; m < S::MB; ++m) {
        const int x = 32 * (m0 + m) + lane;
        if (m0 + m < C * U && x < chunks)
          v[m] = inside ? bytes::ld16(p.in + 16 * x) : bytes::load_clamped<E>(p.in + 16 * x, a.in, a.in_end);
      }
      XPOSE_UNROLL
      for (int m = 0; m < S::MB; ++m) {
        const int x = 32 * (m0 + m) + lane;
        if (m0 + m < C * U && x < chunks) bytes::st16(st + stage_at<E, C, U>(x / C, x % C), v[m]);
      }
    }
  }
}

/// Phase 2 (after __syncwarp): gather, staging -> the packed range; scatter, the lane's
/// units: staging -> renamed -> row chunks (ragged last unit: its valid positions only).
template <int E, int C, int U, bool Gather, bool Any = false>
XPOSE_HDI void phase2(const args& a, const tile& p, const u8* st, int lane) {
  if constexpr (Gather) {
    // Any: the packed range starts `off` bytes into an aligned chunk; aligned chunk q
    // holds its bytes [16q - off, 16q - off + 16), a window of staged chunks q-1 and q.
    // The end chunks are partial: neighbouring tiles store their own bytes of them.
    const int chunks = (p.N + 15) / 16, off = Any ? addr16(p.out) : 0;
    u8* const base = p.out - off;
    const int nq = (off + p.N + 15) / 16;
    XPOSE_UNROLL
    for (int m = 0; m < C * U + (Any ? 1 : 0); ++m) {
      const int q = 32 * m + lane;
      if (q < nq) {
        c16 v = bytes::ld16(st + stage_at<E, C, U>((q < chunks ? q : 0) / C, (q < chunks ? q : 0) % C));
        if (Any && off != 0) {
          const c16 lo = q > 0 ? bytes::ld16(st + stage_at<E, C, U>((q - 1) / C, (q - 1) % C)) : bytes::zero16();
          v = bytes::window16(lo, v, 16 - off);
        }
        const int lo_b = q == 0 ? off : 0, end = off + p.N - 16 * q;
        bytes::store_range(v, base + 16 * q, lo_b, end < 16 ? end : 16);
      }
    }
  } else {
    using S = shape<E, C, U>;
    XPOSE_UNROLL
    for (int i = 0; i < S::NI; ++i) {
      const int u = lane + 32 * (i % U), g = i / U;
      if (u < p.nu) {
        c16 v[S::G], o[S::G];
        XPOSE_UNROLL
        for (int l = 0; l < S::G; ++l) v[l] = bytes::ld16(st + stage_at<E, C, U>(u, l * S::NG + g));
        rename<E, S::G, false>(v, o);
        const i64 rest = a.L - (p.j0 + u) * S::k;  // positions left in the row
        const int hi = rest * E < 16 ? static_cast<int>(rest * E) : 16;
        XPOSE_UNROLL
        for (int r = 0; r < S::G; ++r) bytes::store_range(o[r], p.out + (g * S::G + r) * a.ld_seg + 16 * u, 0, hi);
      }
    }
  }
}

#if defined(__CUDACC__)
/// NT/32 warps per block, one warp tile each (grid-stride past the grid limit).
/// Any (gather only): rows and the packed range at any E-aligned address.
template <int E, int C, int U, bool Gather, int NT, bool Any = false>
__global__ void __launch_bounds__(NT, 1) interleave_kernel(args a) {
  static_assert(Gather || !Any, "register interleave: scatters need aligned layouts");
  bytes::dependent_launch_entry();
  extern __shared__ uint4 smem_raw[];
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  u8* const st = reinterpret_cast<u8*>(smem_raw) + warp * shape<E, C, U>::stage_bytes;
  for (i64 t = static_cast<i64>(blockIdx.x) * (NT / 32) + warp; t < a.total; t += static_cast<i64>(gridDim.x) * (NT / 32)) {
    const tile p = tile_at<E, C, U, Gather>(a, t);  // (a.tile_units: tile_units_for(U, Any))
    phase1<E, C, U, Gather, Any>(a, p, st, lane);
    __syncwarp();
    phase2<E, C, U, Gather, Any>(a, p, st, lane);
    __syncwarp();  // the staging area is reused by the warp's next tile
  }
}
#endif

}  // namespace xpose::detail::ilv
