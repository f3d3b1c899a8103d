// Pipelined slab kernels of `best` (routes slab_gather_pipe / slab_scatter_pipe and
// slab_gather_micro_pipe / slab_scatter_micro_pipe; docs/RESULTS.md "2-D: pipelined slabs"): the slab kernels' phases (best_slab.cuh: grouped and micro-block) on
// resident blocks that each stream many slabs, with the next slab's loads in flight
// while the block interleaves and stores the current one.
//
// Why: the grouped kernels' middle phase needs 70-126 registers, so only 2-3 blocks of
// 256 threads fit on an SM, and each block runs load -> barrier -> interleave -> barrier
// -> store with nothing in flight outside its load phase. The sweep's 1-2 byte slab rows
// track those register counts (docs/RESULTS.md "2-D: pipelined slabs"):
// 4 blocks per SM (u8 scatter C = 3, 12) at 0.89-1.02 of memcpy, 2 blocks (C = 6, 8,
// 24) at 0.54-0.74. Here the loads are asynchronous copies straight to shared memory
// (sm_80+: cp.async; they hold no registers), double-buffered: slab i+1's chunks are
// requested before slab i is interleaved, so every block keeps about one slab (16 KiB)
// in flight whatever its register count.
//   scatter: the packed input range as raw aligned chunks into staging buffer i % 2
//            (grouped: the layout mid_phase reads; micro: fold_swizzle'd chunks that
//            side_blocks reads instead of global memory), then -> rows, write_phase.
//   gather:  each segment's aligned cover chunks into row buffer i % 2 at the chunk's
//            own 16-byte phase; rows that are not all 16-byte aligned (odd HW, offset
//            pointers, padded rows) are shifted into the rows by one shared pass
//            (pipe_realign); then mid_phase -> staging, write_phase (grouped), or the
//            micro-blocks straight to the output (micro).
// Loads never touch a byte outside [in, in_end) (chunks that straddle it: load_clamped,
// synchronously); stores are the slab kernels'. Phases are host-device: the CPU tests
// (tests/cpu/test_best_pipe.cpp) run them block by block, issuing slab i+1's loads
// before slab i's middle phase (the order that exposes a buffer reused too early).
#pragma once

#include "best_slab.cuh"

namespace xpose::detail::slab {

/// 16 bytes global -> shared without a register round trip (sm_80+: cp.async.cg, which
/// caches in L2 only); elsewhere (host, older devices) a plain copy.
XPOSE_HDI void copy16_async(u8* dst, const u8* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
#else
  bytes::st16(dst, bytes::ld16(src));
#endif
}

/// Closes the group of asynchronous copies issued so far (possibly empty).
XPOSE_HDI void async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/// Waits until every group but the N newest has landed (this thread's copies).
template <int N>
XPOSE_HDI void async_wait_all_but() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/// The 16-byte aligned chunk at src to dst: asynchronously when it lies inside the
/// input view, else element by element (load_clamped) and synchronously.
template <int E>
XPOSE_HDI void fetch16(const args& a, u8* dst, const u8* src) {
  if (src >= a.in && src + 16 <= a.in_end) copy16_async(dst, src);
  else bytes::st16(dst, bytes::load_clamped<E>(src, a.in, a.in_end));
}

/// Kernel arguments: the grouped slab's (make_args; micro: the micro-block kernel's) plus
/// the load buffers. scatter: rows, then staging buffers 0 and 1 (grouped: buffer 0 is
/// make_args' staging area; micro: the packed range's whole chunks, groups of 8 for
/// fold_swizzle). gather: rows (and the grouped kernel's staging), then two raw row
/// buffers; when every segment is 16-byte aligned the rows need no realigning pass, so
/// raw buffer 0 is the rows area itself. halo: scatter slabs with the next slab's first
/// 16/E positions (make_args; the staging buffers hold them too). halo with gather: the
/// shift kernels (the middle phase reads the raw rows, row_phase): no rows area of its own,
/// `depth` row buffers (slabs in flight: depth - 1), the grouped kernel's staging first.
/// shifted (micro-block gathers of 16-byte micro-block rows, pipe_shifted): unaligned rows
/// are read from the raw buffers as they are (side_blocks), so the layout is the aligned one.
template <int E>
args make_pipe_args(int m, const void* in, void* out, const matrix_desc& d, const void* in_end, int slab_bytes,
                    bool micro = false, bool halo = false, int depth = 2, bool shifted = false) {
  args a = make_args<E>(m, in, out, d, in_end, slab_bytes, !micro || m == whole, halo && m != gather);
  a.pipe_depth = halo && m == gather ? depth : 2;
  if (m == gather) {
    const bool aligned = addr16(in) == 0 && (d.ld_in * E) % 16 == 0 && (d.batch <= 1 || (d.stride_in * E) % 16 == 0);
    const bool raw = aligned || halo || (micro && shifted);  // the rows are read where they were loaded
    const int rows = static_cast<int>(a.S) * a.pitch;
    a.realign = aligned ? 0 : 1;
    a.shifted = !aligned && micro && shifted ? 1 : 0;
    if (halo && depth > 2) {
      const int st = a.smem - rows;  // the grouped kernel's staging (micro: none)
      a.stage = 0;
      a.pipe_buf = st;
      a.pipe_step = rows;
      a.smem = st + depth * rows;
      return a;
    }
    a.pipe_buf = raw ? 0 : a.smem;
    a.pipe_step = raw ? a.smem : rows;
    a.smem += raw ? rows : 2 * rows;
  } else if (m == whole) {
    // Load buffer 0 is make_args' input staging at 0, the output staging follows it, then
    // load buffer 1 (the same size as buffer 0).
    a.realign = 0;
    a.pipe_buf = 0;
    a.pipe_step = a.smem;
    a.smem += a.stage;
  } else if (micro) {
    a.realign = 0;
    a.pipe_buf = a.smem;
    a.pipe_step = static_cast<int>(((a.span + (halo ? 16 / E : 0)) * a.S * E + 127) / 128 * 128);
    a.smem += 2 * a.pipe_step;
  } else {
    a.realign = 0;
    a.pipe_buf = a.stage;
    a.pipe_step = a.smem - a.stage;
    a.smem += a.pipe_step;
  }
  return a;
}

/// Shared bytes of the largest block of a pipelined kernel (slabs of at most slab_bytes,
/// segments unaligned): short side s for a grouped kernel; micro, every short side of
/// whole chunks up to s (the rows' rounding makes the size not monotonic in the side).
/// The launch sizes its shared-memory limit and its grid of resident blocks by it.
/// aligned: gathers whose segments are all 16-byte aligned only (no realigning rows area).
template <int E>
int pipe_smem_max(int m, long long s, int slab_bytes, bool micro = false, bool halo = false, int depth = 2,
                  bool shifted = false, bool aligned = false) {
  alignas(16) static const u8 probe[16] = {};
  // Whole matrices: three areas of the slab's bytes in whole groups of 8 chunks.
  if (m == whole) return 3 * ((slab_bytes + 127) / 128 * 128);
  int most = 0;
  for (long long side = micro ? 16 / E : s; side <= s; side += 16 / E) {
    matrix_desc d = m == gather ? matrix_desc::packed(side, 1 << 22, E) : matrix_desc::packed(1 << 22, side, E);
    if (m == gather && !aligned) d.ld_in += 1, d.stride_in = d.ld_in * side;
    const int b = make_pipe_args<E>(m, probe, nullptr, d, probe, slab_bytes, micro, halo, depth, shifted).smem;
    most = b > most ? b : most;
  }
  return most;
}

/// Whether a micro-block gather of MW-byte micro-block rows reads unaligned rows shifted
/// from the raw buffers (side_blocks with a.shifted) instead of after pipe_realign: 16-byte
/// rows only (one window of two chunks per row).
constexpr bool pipe_shifted(int mw) { return mw == 16; }

/// Load buffer b (slab iteration i uses buffer i % depth).
XPOSE_HDI u8* pipe_buffer(const args& a, u8* sm, int b) { return sm + a.pipe_buf + b * a.pipe_step; }

/// Slab p's loads into buffer buf. gather: chunk j of segment s's aligned cover at
/// buf + 16 + s*pitch + 16j (segment byte x at + x + addr16(segment)); scatter: the
/// packed input range's aligned chunk v at buf + stg(v) (micro, MW > 0: the range is
/// aligned, chunk v at buf + 16*fold_swizzle(v); whole, MW > 0: the same for the
/// slab's input range).
template <int E, int M, int SS, int MW = 0>
XPOSE_HDI void pipe_issue(const args& a, const pos& p, u8* buf, int tid, int nt) {
  if constexpr (M == gather) {
    const int seg_bytes = p.n * E;
    const int per = (seg_bytes + 15) / 16 + a.realign;  // an unaligned segment covers one chunk more
    const bytes::fdiv by_per(per);
    const int S = SS > 0 ? SS : static_cast<int>(a.S);
    for (int v = tid; v < S * per; v += nt) {
      const int s = by_per(v), j = v - s * per;
      const u8* const seg = p.in + s * a.ld_seg;
      const int off = addr16(seg);
      if (16 * j < off + seg_bytes) fetch16<E>(a, buf + 16 + s * a.pitch + 16 * j, seg - off + 16 * j);
    }
  } else if constexpr (MW > 0) {
    const int items = (M == whole ? p.n : p.n * static_cast<int>(a.S)) * E / 16;
    for (int v = tid; v < items; v += nt) fetch16<E>(a, buf + 16 * fold_swizzle(v), p.in + 16 * v);
  } else {
    const int off = addr16(p.in);
    const int items = (off + p.n * SS * E + 15) / 16;
    for (int v = tid; v < items; v += nt) fetch16<E>(a, buf + stg<E, SS>(v), p.in - off + 16 * v);
  }
}

/// Gather: the raw rows of buffer raw (each segment at its global 16-byte phase) shifted
/// into the rows at sm (segment byte x at sm + 16 + s*pitch + x), whole chunks (bytes
/// past a segment's end are don't-care: the middle phase reads positions < n only).
template <int E, int SS>
XPOSE_HDI void pipe_realign(const args& a, const pos& p, const u8* raw, u8* sm, int tid, int nt) {
  const int per = (p.n * E + 15) / 16;
  const bytes::fdiv by_per(per);
  const int S = SS > 0 ? SS : static_cast<int>(a.S);
  for (int v = tid; v < S * per; v += nt) {
    const int s = by_per(v), j = v - s * per;
    const int off = addr16(p.in + s * a.ld_seg);
    const u8* const c = raw + 16 + s * a.pitch + 16 * j;
    const c16 x = off ? bytes::window16(bytes::ld16(c), bytes::ld16(c + 16), off) : bytes::ld16(c);
    bytes::st16(sm + 16 + s * a.pitch + 16 * j, x);
  }
}

/// The middle phase of slab p, loaded into buffer buf: gather (after pipe_realign when
/// a.realign, or SH: the raw rows of buf) rows -> staging; scatter staging buffer -> rows.
template <int E, int M, int SS, bool SH = false, bool U = false>
XPOSE_HDI void pipe_mid(const args& a, const divisors& dv, const pos& p, u8* sm, u8* buf, int tid, int nt) {
  if constexpr (M == gather) mid_phase<E, M, SS, SH, U>(a, dv, p, a.realign && !SH ? sm : buf, sm + a.stage, tid, nt);
  else mid_phase<E, M, SS>(a, dv, p, sm, buf, tid, nt);
}

/// Whether the lean gathers of short side SS read their rows with ld_row_words' branch window:
/// 16-byte row units (SS <= 8); the word units of wider sides keep the plain window (with both
/// words always loaded, ptxas took u8 / f16 12-16 rows from 56-63 to 80 registers, a block
/// per SM fewer).
constexpr bool lean_branch_window(int ss) { return ss <= 8; }

/// Arguments of pipe_kernel: the lean gathers' (A) or the slabs'.
template <bool A>
using pipe_args = std::conditional_t<A, lean_args, args>;

#if defined(__CUDACC__)
/// Resident blocks (grid: as many as fit), slabs blockIdx.x, + gridDim.x, ...; slab i+1's
/// loads are issued before slab i's middle phase. MINB caps the registers. MW > 0: the
/// micro-block kernels (short side SS = 0, any multiple of 16/E): the gather's block
/// phase stores straight from the rows (no staging, no write phase); the scatter's reads
/// the staged chunks into the rows, then the write phase. H, the unaligned rows side:
/// scatter slabs with a halo (HS; loaded_with_halo: loads and rows; write_phase: whole
/// chunks); gathers shift their raw rows in the middle phase's reads (SH; no realigning
/// pass, no rows area; a.pipe_depth load buffers, slabs depth - 1 ahead). a.shifted (without
/// H): 16-byte micro-block gathers read their raw rows the same way, chosen at run time.
/// Scatters: two staging buffers, a compile-time count (read at run time it cost the
/// pipelined scatters 2-4%).
/// A (grouped gathers, the lean form, route::lean; arguments lean_args): slab
/// boundaries of a.out_lags (align_out_slabs: whole output chunks from every slab but a
/// matrix's first) and the shift gathers' row windows by branches (ld_row_words U).
template <int E, int M, int NT, int SS, int MINB, int MW = 0, bool H = false, bool A = false>
__global__ void __launch_bounds__(NT, MINB) pipe_kernel(pipe_args<A> a) {
  static_assert((SS > 0) != (MW > 0) && (M != whole || MW > 0), "pipelined grouped or micro-block slabs");
  static_assert(!H || M != whole, "halo / shift: gather and scatter slabs");
  static_assert(!A || (M == gather && SS > 0), "lean form: grouped gathers");
  constexpr bool HS = H && M == scatter, SH = H && M == gather;
  constexpr bool RT = M == gather && pipe_shifted(MW);  // a.shifted read at run time
  extern __shared__ uint4 smem_raw[];
  u8* sm = reinterpret_cast<u8*>(smem_raw);
  const int tid = static_cast<int>(threadIdx.x);
  const divisors dv(a);
  const bytes::fdiv by_nb(MW > 0 ? static_cast<int>(a.S) * E / 16 : 1);
  i64 t = blockIdx.x;
  if (t >= a.total) return;
  const unsigned D = SH && a.pipe_depth == 3 ? 3 : 2;  // load buffers
  for (unsigned j = 0; j + 1 < D; ++j) {
    if (t + static_cast<i64>(j) * gridDim.x < a.total)
      pipe_issue<E, M, SS, MW>(a, loaded_with_halo<E, HS>(a, slab_of<E, M, A>(a, t + static_cast<i64>(j) * gridDim.x)),
                               pipe_buffer(a, sm, j), tid, NT);
    async_commit();
  }
  for (unsigned i = 0; t < a.total; t += gridDim.x, ++i) {
    const pos p = slab_of<E, M, A>(a, t);
    const pos& q = loaded_with_halo<E, HS>(a, p);  // (H: a temporary, its life extended)
    // Micro gather: slab i-1's block phase may still read the buffer slab i + D - 1 takes.
    if constexpr (MW > 0 && M == gather) __syncthreads();
    // That buffer (slab i-1's) was last read by slab i-1's middle (or realign) phase,
    // which a barrier of iteration i-1 closed.
    const i64 ahead = t + (D - 1) * static_cast<i64>(gridDim.x);
    if (ahead < a.total)
      pipe_issue<E, M, SS, MW>(a, loaded_with_halo<E, HS>(a, slab_of<E, M, A>(a, ahead)),
                               pipe_buffer(a, sm, static_cast<int>((i + D - 1) % D)), tid, NT);
    async_commit();
    if (SH && D == 3) async_wait_all_but<2>();
    else async_wait_all_but<1>();
    __syncthreads();  // slab i's chunks visible; slab i-1's write phase done with rows / staging
    u8* const buf = pipe_buffer(a, sm, static_cast<int>(i % D));
    if constexpr (M == gather) {
      if (a.realign && !SH && !(RT && a.shifted)) {
        pipe_realign<E, SS>(a, p, buf, sm, tid, NT);
        __syncthreads();
      }
    }
    if constexpr (MW > 0 && M == gather) {
      block_phase<E, M, MW, SH>(a, by_nb, p, a.realign && !SH && !(RT && a.shifted) ? sm : buf, tid, NT);
    } else if constexpr (MW > 0 && M == whole) {
      block_phase<E, M, MW>(a, by_nb, p, sm, tid, NT, buf);
      __syncthreads();
      write_phase<E, M, 0, MW>(a, dv, p, sm, tid, NT);
    } else if constexpr (MW > 0) {
      side_blocks<E, M, MW>(a, by_nb, q, sm, tid, NT, buf);
      __syncthreads();
      write_phase<E, M, 0, MW, HS>(a, dv, p, sm, tid, NT);
    } else {
      pipe_mid<E, M, SS, SH, A && lean_branch_window(SS)>(a, dv, q, sm, buf, tid, NT);
      __syncthreads();
      write_phase<E, M, SS, 0, HS>(a, dv, p, sm, tid, NT);
    }
  }
}
#endif

}  // namespace xpose::detail::slab
