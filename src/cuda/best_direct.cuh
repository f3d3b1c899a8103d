// Direct scatter of `best` (route slab_scatter_direct; docs/RESULTS.md "2-D: slab scatters of
// 1-2 byte elements"): 1-2 byte scatters of short sides up to 8 (HW x C -> C x HW) with no rows area
// in shared memory.
//
// Why: the grouped scatters (best_slab.cuh, best_pipe.cuh) pass every byte through shared
// memory twice (staging -> rows in the middle phase, rows -> global in the write phase),
// and to output rows off the 16-byte grid (odd HW) the write phase reads two shared chunks
// and funnel-shifts them per output chunk. Here the packed input slab (and its halo, the
// next slab's first k = 16/E positions) goes global -> staging by cp.async, as in the
// pipelined grouped scatter (best_scatter_direct_depth buffers, slabs in flight depth - 1),
// and each lane of a warp takes one group of k positions: its SS staged chunks through the
// grouped kernel's byte permutes (group_word) give one 16-byte piece per output row; the
// aligned output chunk j of a row off its grid by `off` bytes is the window of the pieces
// of groups j - 1 and j, the neighbour lane's piece by one shuffle per word. A warp's 32
// lanes take groups j0 - 1 .. j0 + 30 and store the 31 chunks j0 .. j0 + 30 of every row
// (lane 0 only lends its piece), so consecutive lanes store consecutive chunks.
// Ownership as the halo scatters' (write_phase with H): a slab stores the chunks that start
// in its segments, whole up to the row's end, and the first slab of a row also the chunk
// the row starts in; every output chunk by one lane, one store except at the rows' ends.
// (A wide form for sides 12 and 16, 8-byte pieces of two 4-byte word groups, lost everywhere
// side by side and was removed.)
// The phases are host-device: the CPU tests (tests/cpu/test_best_direct.cpp) run them lane
// by lane, a warp's pieces before its stores.
#pragma once

#include "best_pipe.cuh"

namespace xpose::detail::slab {

/// Bytes [lo, hi) of chunk c to the chunk at p (store_range): a row's first or last chunk
/// only, out of line (inlined for every row, the kernels' registers grow). Internal linkage:
/// every translation unit that includes this header (best.cu, best_bench.cu) has its own.
#if defined(__CUDACC__)
static __host__ __device__ __noinline__
#else
static inline
#endif
void direct_store_part(const c16 c, u8* p, int lo, int hi) {
  bytes::store_range(c, p, lo, hi);
}

/// Shared bytes past the last staging buffer that slab pieces may read for short side s: the
/// halo piece (direct_groups' + 1) reads a group of s staged chunks past the segment's, and
/// its window (staged_group) one chunk more; those bytes are never stored (the sanitizer
/// build's emulation of the kernel, BestDirectEmulation, caught the read without this slack).
constexpr int direct_read_slack(long long s) { return static_cast<int>((s + 1) * 16); }

/// Kernel arguments: the halo grouped scatter's geometry (make_args, grouped, halo) with
/// no rows area: `depth` staging buffers (pipe_issue's layout, stg) from shared offset 0.
template <int E>
args make_direct_args(const void* in, void* out, const matrix_desc& d, const void* in_end, int slab_bytes,
                      int depth) {
  args a = make_args<E>(scatter, in, out, d, in_end, slab_bytes, true, true);
  a.realign = 0;
  a.pipe_depth = depth;
  a.pipe_buf = 0;
  a.pipe_step = a.smem - a.stage;  // one staging area
  a.stage = 0;
  a.smem = depth * a.pipe_step + direct_read_slack(a.S);
  return a;
}

/// Shared bytes of the largest direct block for short side s (slabs of at most slab_bytes).
template <int E>
int direct_smem_max(long long s, int slab_bytes, int depth) {
  static const u8 probe[16] = {};
  const matrix_desc d = matrix_desc::packed(1 << 22, s, E);
  return make_direct_args<E>(probe, nullptr, d, probe, slab_bytes, depth).smem;
}

/// Pieces (of PB bytes) whose slab p's rows need:
/// the chunks of a segment (and the one past it, the halo's).
template <int E, int PB = 16>
XPOSE_HDI int direct_groups(const pos& p) {
  return (p.n * E + PB - 1) / PB + 1;
}

/// A lane's piece of the grouped form for short side SS: PB = 16 bytes of each row, G = 1 of
/// the grouped kernel's 16-byte groups (group_shape, sides up to 8), IW words of staged input.
template <int E, int SS>
struct direct_shape {
  static constexpr int U = group_shape<E, SS>::U, W = group_shape<E, SS>::W;
  static_assert(U == 16, "the direct scatter: sides of 16-byte groups (up to 8)");
  static constexpr int PB = 16;
  static constexpr int G = PB / U;
  static constexpr int IW = SS * W;  // words of one group
};

/// Words of piece j of the staged slab p (buffer st; element o at addr16(p.in) + o*E, chunk
/// c at stg(c)): its G groups; zeros past the pieces the slab needs (no read past the buffer).
template <int E, int SS>
XPOSE_HDI void direct_load(const pos& p, const u8* st, int j,
                           std::uint32_t (&in)[direct_shape<E, SS>::G][direct_shape<E, SS>::IW]) {
  using D = direct_shape<E, SS>;
  const bool live = j >= 0 && j < direct_groups<E, D::PB>(p);
  XPOSE_UNROLL
  for (int g = 0; g < D::G; ++g) {
    if (live) {
      staged_group<E, SS>(st, D::G * j + g, addr16(p.in), in[g]);
    } else {
      XPOSE_UNROLL
      for (int i = 0; i < D::IW; ++i) in[g][i] = 0;
    }
  }
}

/// Row s's PB-byte piece (PB/E positions of row s) from a piece's groups.
template <int E, int SS>
XPOSE_HDI void direct_piece(const std::uint32_t (&in)[direct_shape<E, SS>::G][direct_shape<E, SS>::IW], int s,
                            std::uint32_t (&w)[direct_shape<E, SS>::PB / 4]) {
  using D = direct_shape<E, SS>;
  XPOSE_UNROLL
  for (int g = 0; g < D::G; ++g)
    XPOSE_UNROLL
    for (int x = 0; x < D::W; ++x) w[g * D::W + x] = group_word<E, SS, false>(in[g], D::W * s + x);
}

/// What every row of slab p shares for its stores: the segment's bytes, the bytes it may
/// store from the segment on (to the row's end, at most one chunk past the segment: the
/// halo's), and whether it is the row's first slab.
struct direct_seg {
  int seg_bytes, lim;
  bool first;
};

template <int E, int PB>
XPOSE_HDI direct_seg direct_seg_of(const args& a, const pos& p) {
  const int seg_bytes = p.n * E;
  return {seg_bytes, static_cast<int>(min64((a.L - p.l0) * E, seg_bytes + PB)), p.l0 == 0};
}

/// Output chunk j (PB bytes) of the row whose segment starts at seg (the PB-aligned chunk
/// whose first byte is segment byte PB*j - off, off = seg's phase modulo PB) from the pieces
/// of groups j - 1 (prev) and j (cur), where the slab owns it (write_phase with H: chunks
/// that start in the segment, whole up to the row's end; the row's first chunk by its first
/// slab).
template <int E, int PB>
XPOSE_HDI void direct_store(const direct_seg& g, u8* seg, int j, const std::uint32_t (&prev)[PB / 4],
                            const std::uint32_t (&cur)[PB / 4]) {
  const int off = addr16(seg) & (PB - 1);
  const int c0 = PB * j - off;
  const int lo = c0 < 0 ? -c0 : 0, hi = g.lim - c0 < PB ? g.lim - c0 : PB;
  if (lo >= hi || c0 >= g.seg_bytes || (c0 < 0 && !g.first)) return;
  std::uint32_t w[PB / 4];
  if (off) {
    bytes::window_words<PB / 4>(prev, cur, PB - off, w);
  } else {
    XPOSE_UNROLL
    for (int x = 0; x < PB / 4; ++x) w[x] = cur[x];
  }
  u8* const q = seg - off + PB * j;  // (PB = 8: 8-byte aligned)
  if (lo == 0 && hi == PB) {
    st_words<PB / 4>(q, w);
  } else {
    c16 c = bytes::zero16();
    XPOSE_UNROLL
    for (int x = 0; x < PB / 4; ++x) c.w[x] = w[x];
    direct_store_part(c, q, lo, hi);
  }
}

/// Runs of a warp over slab p's pieces: run r's lanes take pieces 31r - 1 .. 31r + 30 and
/// store chunks 31r .. 31r + 30 (lane 0 only lends its piece).
template <int E, int PB = 16>
XPOSE_HDI int direct_runs(const pos& p) {
  return (direct_groups<E, PB>(p) + 30) / 31;
}

/// The piece of lane `lane` of run r.
XPOSE_HDI int direct_piece_of(int r, int lane) { return 31 * r + lane - 1; }

#if defined(__CUDACC__)
/// Row piece cur (PB / 4 words) shuffled up one lane; chunk j stored by every lane but 0
/// (warp-uniform: every lane shuffles).
template <int E, int PB>
__device__ __forceinline__ void direct_shuffle_store(const direct_seg& g, u8* seg, int j, int lane,
                                                     const std::uint32_t (&cur)[PB / 4]) {
  std::uint32_t prev[PB / 4];
  XPOSE_UNROLL
  for (int w = 0; w < PB / 4; ++w) prev[w] = __shfl_up_sync(0xffffffffu, cur[w], 1);
  if (lane > 0) direct_store<E, PB>(g, seg, j, prev, cur);
}

/// Resident blocks (grid: as many as fit), slabs blockIdx.x, + gridDim.x, ...; slab i +
/// depth - 1's loads (with the halo) issued before slab i's stores: DEPTH (2 or 3) staging
/// buffers, a compile-time count (a.pipe_depth, the same, for the host emulation). SS 2-8:
/// 16-byte pieces. MINB caps the registers.
template <int E, int NT, int SS, int MINB, int DEPTH>
__global__ void __launch_bounds__(NT, MINB) direct_kernel(args a) {
  static_assert(DEPTH == 2 || DEPTH == 3, "two or three staging buffers");
  static_assert(NT % 32 == 0, "whole warps");
  using Dg = direct_shape<E, SS>;
  extern __shared__ uint4 smem_raw[];
  u8* sm = reinterpret_cast<u8*>(smem_raw);
  const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, warp = tid >> 5;
  i64 t = blockIdx.x;
  if (t >= a.total) return;
  constexpr unsigned D = DEPTH;
  for (unsigned j = 0; j + 1 < D; ++j) {
    if (t + static_cast<i64>(j) * gridDim.x < a.total)
      pipe_issue<E, scatter, SS>(a, loaded_with_halo<E, true>(a, slab_at<E, scatter>(a, t + static_cast<i64>(j) * gridDim.x)),
                                 pipe_buffer(a, sm, j), tid, NT);
    async_commit();
  }
  for (unsigned i = 0; t < a.total; t += gridDim.x, ++i) {
    const pos p = slab_at<E, scatter>(a, t);
    // The buffer slab i + D - 1 takes is slab i - 1's, whose reads the barrier closing
    // iteration i - 1 ended.
    const i64 ahead = t + (D - 1) * static_cast<i64>(gridDim.x);
    if (ahead < a.total)
      pipe_issue<E, scatter, SS>(a, loaded_with_halo<E, true>(a, slab_at<E, scatter>(a, ahead)),
                                 pipe_buffer(a, sm, static_cast<int>((i + D - 1) % D)), tid, NT);
    async_commit();
    if constexpr (D == 3) async_wait_all_but<2>();
    else async_wait_all_but<1>();
    __syncthreads();  // slab i's chunks visible
    const u8* const st = pipe_buffer(a, sm, static_cast<int>(i % D));
    const int runs = direct_runs<E, Dg::PB>(p);
    const direct_seg g = direct_seg_of<E, Dg::PB>(a, p);
    for (int r = warp; r < runs; r += NT / 32) {
      const int j = direct_piece_of(r, lane);
      std::uint32_t in[Dg::G][Dg::IW];
      direct_load<E, SS>(p, st, j, in);
      XPOSE_UNROLL
      for (int s = 0; s < SS; ++s) {
        std::uint32_t w[Dg::PB / 4];
        direct_piece<E, SS>(in, s, w);
        direct_shuffle_store<E, Dg::PB>(g, p.out + s * a.ld_seg, j, lane, w);
      }
    }
    __syncthreads();  // slab i's staging read: its buffer is reloaded next iteration
  }
}
#endif

}  // namespace xpose::detail::slab
