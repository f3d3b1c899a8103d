// Direct scatter of `best` (route slab_scatter_direct, switch best_scatter_direct_default in
// policy.hpp): 1-2 byte scatters of short sides 2-8 (HW x C -> C x HW, C <= 8) with no rows
// area in shared memory.
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
// The phases are host-device: the CPU tests (tests/cpu/test_best_direct.cpp) run them lane
// by lane, a warp's pieces before its stores.
#pragma once

#include "best_pipe.cuh"

namespace xpose::detail::slab {

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
  a.smem = depth * a.pipe_step;
  return a;
}

/// Shared bytes of the largest direct block for short side s (slabs of at most slab_bytes).
template <int E>
int direct_smem_max(long long s, int slab_bytes, int depth) {
  static const u8 probe[16] = {};
  const matrix_desc d = matrix_desc::packed(1 << 22, s, E);
  return make_direct_args<E>(probe, nullptr, d, probe, slab_bytes, depth).smem;
}

/// Groups (of k = 16/E positions) whose pieces slab p's rows need: the chunks of a
/// segment (and the one past it, the halo's).
template <int E>
XPOSE_HDI int direct_groups(const pos& p) {
  return (p.n * E + 15) / 16 + 1;
}

/// Words of group j of the staged slab p (buffer st; element o at addr16(p.in) + o*E,
/// chunk c at stg(c)); zeros past the groups the slab needs (no read past the buffer).
template <int E, int SS>
XPOSE_HDI void direct_load(const pos& p, const u8* st, int j, std::uint32_t (&in)[SS * 4]) {
  static_assert(group_shape<E, SS>::U == 16, "direct: sides up to 8 (16-byte pieces)");
  if (j < 0 || j >= direct_groups<E>(p)) {
    XPOSE_UNROLL
    for (int i = 0; i < SS * 4; ++i) in[i] = 0;
    return;
  }
  staged_group<E, SS>(st, j, addr16(p.in), in);
}

/// Row s's 16-byte piece of a group (k positions of row s).
template <int E, int SS>
XPOSE_HDI c16 direct_piece(const std::uint32_t (&in)[SS * 4], int s) {
  c16 r;
  XPOSE_UNROLL
  for (int w = 0; w < 4; ++w) r.w[w] = group_word<E, SS, false>(in, 4 * s + w);
  return r;
}

/// Output chunk j of row s of slab p (the aligned chunk whose first byte is segment byte
/// 16j - off, off = the segment's 16-byte phase) from the pieces of groups j - 1 (prev)
/// and j (cur), where the slab owns it (write_phase with H: chunks that start in the
/// segment, whole up to the row's end; the row's first chunk by its first slab).
template <int E>
XPOSE_HDI void direct_store(const args& a, const pos& p, int s, int j, const c16& prev, const c16& cur) {
  u8* const seg = p.out + s * a.ld_seg;
  const int off = addr16(seg);
  const int seg_bytes = p.n * E;
  const i64 rest = (a.L - p.l0) * E;  // bytes from the segment to the row's end
  const int lim = static_cast<int>(min64(rest, seg_bytes + 16));
  const int c0 = 16 * j - off;
  const int lo = c0 < 0 ? -c0 : 0, hi = lim - c0 < 16 ? lim - c0 : 16;
  if (lo >= hi || c0 >= seg_bytes || (c0 < 0 && p.l0 != 0)) return;
  bytes::store_range(off ? bytes::window16(prev, cur, 16 - off) : cur, seg - off + 16 * j, lo, hi);
}

/// Warp runs of slab p: run r's lanes take groups 31r - 1 .. 31r + 30 and store chunks
/// 31r .. 31r + 30.
template <int E>
XPOSE_HDI int direct_runs(const pos& p) {
  return (direct_groups<E>(p) + 30) / 31;
}

#if defined(__CUDACC__)
/// Resident blocks (grid: as many as fit), slabs blockIdx.x, + gridDim.x, ...; slab i +
/// depth - 1's loads (with the halo) issued before slab i's stores. SS <= 8; MINB caps
/// the registers.
template <int E, int NT, int SS, int MINB>
__global__ void __launch_bounds__(NT, MINB) direct_kernel(args a) {
  static_assert(NT % 32 == 0, "whole warps");
  extern __shared__ uint4 smem_raw[];
  u8* sm = reinterpret_cast<u8*>(smem_raw);
  const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, warp = tid >> 5;
  i64 t = blockIdx.x;
  if (t >= a.total) return;
  const unsigned D = a.pipe_depth == 3 ? 3 : 2;
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
    if (D == 3) async_wait_all_but<2>();
    else async_wait_all_but<1>();
    __syncthreads();  // slab i's chunks visible
    const u8* const st = pipe_buffer(a, sm, static_cast<int>(i % D));
    const int runs = direct_runs<E>(p);
    for (int r = warp; r < runs; r += NT / 32) {  // (warp-uniform: every lane shuffles)
      const int j = 31 * r + lane - 1;
      std::uint32_t in[SS * 4];
      direct_load<E, SS>(p, st, j, in);
      XPOSE_UNROLL
      for (int s = 0; s < SS; ++s) {
        const c16 cur = direct_piece<E, SS>(in, s);
        c16 prev;
        XPOSE_UNROLL
        for (int w = 0; w < 4; ++w) prev.w[w] = __shfl_up_sync(0xffffffffu, cur.w[w], 1);
        if (lane > 0) direct_store<E>(a, p, s, j, prev, cur);
      }
    }
    __syncthreads();  // slab i's staging read: its buffer is reloaded next iteration
  }
}
#endif

}  // namespace xpose::detail::slab
