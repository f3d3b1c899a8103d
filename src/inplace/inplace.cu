// GPU in-place transpose. Squares: one block per tile pair (ti, tj),
// ti <= tj, both tiles staged in shared memory and written back swapped (diagonal
// tiles transposed onto themselves): one pass, 2x the matrix in traffic; 16-byte
// accesses for 1, 2, 4-byte elements when rows are 16-byte aligned.
// Rectangles with a blocked plan (inplace_blocks.hpp): slabs (squares by the
// square kernels, batched; others by `best` into the workspace and a copy back)
// and the slot transpose (slot_save, slot_move: every access a coalesced run of
// words of up to 16 bytes). Other rectangles: the passes of inplace_map.hpp on the
// R x C grid (R = short side).
// A pass whose line (a row, or a band of columns) fits in shared memory (the
// device's opt-in maximum) runs as one launch, a block per line; longer columns
// are transposed into the workspace band by band, permuted there as rows and
// transposed back; what is still too long goes through the workspace chunk by
// chunk (a gather kernel, then a stream-ordered copy back).
// A workspace of a whole matrix takes `best` into it and a copy back.
// No allocation, no host sync: every step is a launch or an async copy on `stream`.
#include <cuda_runtime.h>

#include <atomic>

#include "../cuda/common.cuh"
#include "inplace_blocks.hpp"
#include "inplace_internal.hpp"
#include "inplace_map.hpp"

namespace xpose::detail {
namespace {

using inplace::c2r_map;
using inplace::step;

constexpr int square_tile = 32;          // (32, 32) tiles, 32 x 8 threads
constexpr int line_threads = 512;        // blocks of the per-line passes
// Switches (docs/RESULTS.md, "In-place transposes"): squares whose elements are at
// most this many bytes take the swizzled tiles (0: none, every square on the plain
// square_pairs_vec; 4 adds f32); loads each thread of a per-line pass keeps in flight
// (1: one at a time).
constexpr std::size_t square_swizzle_max_elem = 2;
constexpr int pass_ilp = 8;  // halved for 8 and 16-byte elements (ilp_for)
template <class T>
constexpr int ilp_for = sizeof(T) >= 8 && pass_ilp > 1 ? pass_ilp / 2 : pass_ilp;
// Row shuffles with c = R, rows longer than shared memory (skinny): false takes the
// general pass_to_workspace instead (a sector per element).
constexpr bool blocked_shuffle = true;
constexpr index_t grid_x_limit = 2147483647, grid_y_limit = 65535, grid_z_limit = 65535;

// Calls f(matrix, r0, c0, diagonal) for this block's tile pairs of edge ts over
// the batch: tile (r0, c0) and its partner (c0, r0).
template <class T, class F>
__device__ __forceinline__ void for_each_tile_pair(T* data, index_t n, index_t pairs, index_t batch, index_t ts, F f) {
  for (index_t b = blockIdx.y; b < batch; b += gridDim.y)
    for (index_t p = blockIdx.x; p < pairs; p += gridDim.x) {
      index_t ti = 0, tj = 0;
      inplace::tile_pair(p, &ti, &tj);
      f(data + b * n * n, ti * ts, tj * ts, ti == tj);
    }
}

// Element-wide accesses (8 and 16-byte elements, or rows not 16-byte aligned).
// Written without for_each_tile_pair: through the lambda, ptxas spilled 4 bytes.
template <class T>
__global__ void __launch_bounds__(256) square_pairs(T* data, index_t n, index_t pairs, index_t batch) {
  __shared__ T ta[square_tile][square_tile + 1], tb[square_tile][square_tile + 1];  // (32, 33) each
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (index_t b = blockIdx.y; b < batch; b += gridDim.y) {
    T* a = data + b * n * n;
    for (index_t p = blockIdx.x; p < pairs; p += gridDim.x) {
      index_t ti = 0, tj = 0;
      inplace::tile_pair(p, &ti, &tj);
      const index_t r0 = ti * square_tile, c0 = tj * square_tile;
      for (int k = ty; k < square_tile; k += 8) {
        if (r0 + k < n && c0 + tx < n) ta[k][tx] = a[(r0 + k) * n + c0 + tx];  // A(r0+k, c0+tx)
        if (ti != tj && c0 + k < n && r0 + tx < n) tb[k][tx] = a[(c0 + k) * n + r0 + tx];  // A(c0+k, r0+tx)
      }
      __syncthreads();
      for (int k = ty; k < square_tile; k += 8) {
        if (c0 + k < n && r0 + tx < n) a[(c0 + k) * n + r0 + tx] = ta[tx][k];
        if (ti != tj && r0 + k < n && c0 + tx < n) a[(r0 + k) * n + c0 + tx] = tb[tx][k];
      }
      __syncthreads();
    }
  }
}

// Squares of 1, 2 and 4-byte elements, 16-byte aligned rows (n a multiple of
// V = 16/E): the same pairs with 16-byte accesses. Tiles of TS = 8V elements (128
// bytes per row), 8 x 32 threads; a row pitch of an odd number of words keeps the
// element-wise shared stores and the transposed loads conflict-free.
template <class T>
__global__ void __launch_bounds__(256) square_pairs_vec(T* data, index_t n, index_t pairs, index_t batch) {
  constexpr int V = 16 / sizeof(T), TS = 8 * V, P = TS + 4 / sizeof(T);
  __shared__ T ta[TS][P], tb[TS][P];  // (TS, TS + 4/E) each
  union vec {
    uint4 u;
    T e[V];
  };
  const int tx = threadIdx.x % 8, ty = threadIdx.x / 8;
  for_each_tile_pair(data, n, pairs, batch, TS, [=](T* a, index_t r0, index_t c0, bool diag) {
    const int x = tx * V;
    for (int r = ty; r < TS; r += 32) {
      if (r0 + r < n && c0 + x < n) {  // ta[r][x..] = A(r0 + r, c0 + x..)
        vec v;
        v.u = *reinterpret_cast<const uint4*>(a + (r0 + r) * n + c0 + x);
#pragma unroll
        for (int q = 0; q < V; ++q) ta[r][x + q] = v.e[q];
      }
      if (!diag && c0 + r < n && r0 + x < n) {  // tb[r][x..] = A(c0 + r, r0 + x..)
        vec v;
        v.u = *reinterpret_cast<const uint4*>(a + (c0 + r) * n + r0 + x);
#pragma unroll
        for (int q = 0; q < V; ++q) tb[r][x + q] = v.e[q];
      }
    }
    __syncthreads();
    for (int r = ty; r < TS; r += 32) {
      if (c0 + r < n && r0 + x < n) {  // A(c0 + r, r0 + x..) = ta[x..][r]
        vec v;
#pragma unroll
        for (int q = 0; q < V; ++q) v.e[q] = ta[x + q][r];
        *reinterpret_cast<uint4*>(a + (c0 + r) * n + r0 + x) = v.u;
      }
      if (!diag && r0 + r < n && c0 + x < n) {  // A(r0 + r, c0 + x..) = tb[x..][r]
        vec v;
#pragma unroll
        for (int q = 0; q < V; ++q) v.e[q] = tb[x + q][r];
        *reinterpret_cast<uint4*>(a + (r0 + r) * n + c0 + x) = v.u;
      }
    }
    __syncthreads();
  });
}

// Squares of 1 and 2-byte elements: the tiles of
// square_pairs_vec staged as 16-byte chunks, XOR-swizzled, so the
// chunk stores and the transposed word reads are both free of bank conflicts
// (square_chunk_slot, square_word_slot; the CPU tests check both). A
// thread reads one word of V rows (P = 4/E columns) and turns it into P output
// chunks in registers (words_to_chunks). Every global load of a pair is issued
// before the first shared store: 2 * TS/32 16-byte loads in flight per thread.
template <class T>
__global__ void __launch_bounds__(256) square_pairs_swz(T* data, index_t n, index_t pairs, index_t batch) {
  constexpr int E = sizeof(T), V = 16 / E, TS = 8 * V, RPT = TS / 32, P = 4 / E;
  __shared__ uint4 ta[TS][8], tb[TS][8];  // (TS rows, 8 chunks) each, swizzled
  const int tx = threadIdx.x % 8, ty = threadIdx.x / 8;
  for_each_tile_pair(data, n, pairs, batch, TS, [=](T* a, index_t r0, index_t c0, bool diag) {
    const int x = tx * V;
    uint4 va[RPT], vb[RPT];
#pragma unroll
    for (int k = 0; k < RPT; ++k) {
      const int r = ty + 32 * k;
      va[k] = vb[k] = make_uint4(0, 0, 0, 0);
      if (r0 + r < n && c0 + x < n) va[k] = *reinterpret_cast<const uint4*>(a + (r0 + r) * n + c0 + x);
      if (!diag && c0 + r < n && r0 + x < n) vb[k] = *reinterpret_cast<const uint4*>(a + (c0 + r) * n + r0 + x);
    }
#pragma unroll
    for (int k = 0; k < RPT; ++k) {
      const int r = ty + 32 * k, slot = inplace::square_chunk_slot(r, tx, V);
      ta[r][slot] = va[k];  // ta(r, x..) = A(r0 + r, c0 + x..)
      if (!diag) tb[r][slot] = vb[k];
    }
    __syncthreads();
    // Word ty of rows x .. x+V-1 (one swizzle key: tx): tile columns ty*P .. ty*P+P-1,
    // i.e. output rows c0 + ty*P + p (from ta) and r0 + ty*P + p (from tb).
    const int wslot = inplace::square_word_slot(x, ty, V);
    const index_t rr = static_cast<index_t>(ty) * P;
    auto emit = [&](const uint4 (*t)[8], index_t out_r0, index_t out_c0) {
      if (out_r0 + rr >= n || out_c0 + x >= n) return;  // a word's P rows lie in one chunk: all in or all out
      std::uint32_t in[V], out[P][4];
#pragma unroll
      for (int q = 0; q < V; ++q) in[q] = reinterpret_cast<const std::uint32_t*>(t[x + q])[wslot];
      inplace::words_to_chunks<E>(in, out);
#pragma unroll
      for (int p = 0; p < P; ++p)
        *reinterpret_cast<uint4*>(a + (out_r0 + rr + p) * n + out_c0 + x) =
            make_uint4(out[p][0], out[p][1], out[p][2], out[p][3]);
    };
    emit(ta, c0, r0);  // A(c0 + col, r0 + row) = ta(row, col)
    if (!diag) emit(tb, r0, c0);
    __syncthreads();
  });
}

// How pass_smem finds its lines: rows of the grid (line u = row u, C elements),
// bands of grid columns (line u = columns [u*W, u*W + w), all R rows, as (R, w)), or
// grid columns stored as rows of the workspace (line u = column j_base + u, R
// elements at data + u*R: a band transposed there by `best`).
enum class line_mode : int { grid_rows, grid_bands, stored_columns };

struct line_geometry {
  line_mode mode;
  index_t W, j_base;
  inplace::divisor dW;  // W (bands)
};

/// Grid position (i, j) and address of element e of line u; n: the line's length.
struct line_elem {
  index_t i, j, addr, at;  // at: the element's source within the staged line
};
__device__ __forceinline__ line_elem elem_of(const c2r_map& m, step s, const line_geometry& g, index_t u,
                                             index_t j0, index_t w, index_t e) {
  line_elem x;
  if (g.mode == line_mode::grid_rows) {
    x.i = u, x.j = e, x.addr = u * m.C + e;
  } else if (g.mode == line_mode::grid_bands) {
    const index_t q = w == g.W ? g.dW.div(e) : inplace::udiv(e, w);  // the last band may be narrower
    x.i = q, x.j = j0 + e - q * w, x.addr = q * m.C + x.j;
  } else {
    x.i = e, x.j = g.j_base + u, x.addr = u * m.R + e;
  }
  const index_t src = inplace::step_src(m, s.kind, x.i, x.j);
  x.at = g.mode == line_mode::grid_bands ? src * w + (x.j - j0) : src;
  return x;
}

// One block per line held in shared memory. Gather: load as is, write back from
// the source; scatter: load into the source, write back as is. Global accesses
// stay contiguous either way.
template <class T>
__global__ void __launch_bounds__(line_threads) pass_smem(T* data, c2r_map m, step s, line_geometry geo,
                                                          index_t lines, index_t batch) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* sm = reinterpret_cast<T*>(smem_raw);
  const index_t R = m.R, C = m.C;
  for (index_t b = blockIdx.y; b < batch; b += gridDim.y) {
    T* g = data + b * R * C;
    for (index_t u = blockIdx.x; u < lines; u += gridDim.x) {
      const index_t j0 = geo.mode == line_mode::grid_bands ? u * geo.W : 0;
      const index_t w = geo.mode == line_mode::grid_bands ? (C - j0 < geo.W ? C - j0 : geo.W) : 0;
      const index_t n = geo.mode == line_mode::grid_rows ? C : geo.mode == line_mode::grid_bands ? R * w : R;
      // Loads: ilp_for<T> elements per thread per round, all issued (addresses only)
      // before the sources are worked out for the shared stores: one load in flight
      // per thread left the pass latency-bound.
      const index_t stride = blockDim.x;
      for (index_t e0 = threadIdx.x; e0 < n; e0 += ilp_for<T> * stride) {
        T v[ilp_for<T>];
#pragma unroll
        for (int q = 0; q < ilp_for<T>; ++q)
          if (e0 + q * stride < n) v[q] = g[elem_of(m, s, geo, u, j0, w, e0 + q * stride).addr];
#pragma unroll
        for (int q = 0; q < ilp_for<T>; ++q) {
          const index_t e = e0 + q * stride;
          if (e < n) sm[s.gather ? e : elem_of(m, s, geo, u, j0, w, e).at] = v[q];
        }
      }
      __syncthreads();
      for (index_t e = threadIdx.x; e < n; e += blockDim.x) {  // stores need nothing in flight
        const line_elem x = elem_of(m, s, geo, u, j0, w, e);
        g[x.addr] = sm[s.gather ? x.at : e];
      }
      __syncthreads();
    }
  }
}

// A chunk of lines into the workspace, permuted: rows [l0, l0 + K) as (K, C), or
// columns [l0, l0 + K) as (R, K). The caller copies the workspace back.
template <class T>
__global__ void pass_to_workspace(const T* g, T* ws, c2r_map m, step s, index_t l0, index_t K, inplace::divisor dl) {
  const index_t C = m.C;
  const index_t n = s.along_columns() ? m.R * K : K * C;
  const index_t stride = static_cast<index_t>(gridDim.x) * blockDim.x;
  // ilp_for<T> elements per thread per round, every load issued before the first store.
  for (index_t e0 = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; e0 < n; e0 += ilp_for<T> * stride) {
    T v[ilp_for<T>];
    index_t to[ilp_for<T>];
#pragma unroll
    for (int r = 0; r < ilp_for<T>; ++r) {
      const index_t e = e0 + r * stride;
      if (e >= n) continue;
      const index_t len = dl.d, q = dl.div(e);  // (line-major) chunk coordinates: lines of len = K or C
      const index_t i = s.along_columns() ? q : l0 + q, j = s.along_columns() ? l0 + e - q * len : e - q * len;
      const index_t src = inplace::step_src(m, s.kind, i, j);
      if (s.along_columns()) {
        v[r] = g[s.gather ? src * C + j : i * C + j];
        to[r] = s.gather ? e : src * K + (j - l0);
      } else {
        v[r] = g[s.gather ? i * C + src : i * C + j];
        to[r] = s.gather ? e : (i - l0) * C + src;
      }
    }
#pragma unroll
    for (int r = 0; r < ilp_for<T>; ++r)
      if (e0 + r * stride < n) ws[to[r]] = v[r];
  }
}

// Row shuffle with c = R (R divides C) and rows too long for shared memory (skinny
// shapes): rows [l0, l0 + gridDim.y) into the workspace as blocked
// transposes (c2r_map::blocked_dst), a tile of t in [t0, t0 + TT) per block staged as
// (R, TT + pad): side A, the R runs k*b + t (line position e = k*tw + tt), and side
// B, the contiguous range t0*R + e (e = tt*R + r, k = (r - i) mod R). A gather (wide)
// reads A and writes B, a scatter (tall) the reverse: every global access is a
// contiguous run, where pass_to_workspace touched a sector per element. The caller
// copies the workspace back.
// Loads in flight per thread in shuffle_blocked: ilp_for<T> capped at 4 (8 spilled for
// 1-byte elements on sm_80).
template <class T>
constexpr int ilp_blocked = ilp_for<T> < 4 ? ilp_for<T> : 4;

template <class T>
__global__ void __launch_bounds__(256) shuffle_blocked(const T* g, T* ws, c2r_map m, bool gather, index_t l0,
                                                       index_t TT, index_t pad, inplace::divisor dT, index_t tiles) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* sm = reinterpret_cast<T*>(smem_raw);
  const index_t R = m.R, C = m.C, b = m.b, P = TT + pad;
  const index_t q = blockIdx.y, i = l0 + q, imod = m.dR.mod(i);
  const T* row = g + i * C;
  T* out = ws + q * C;
  for (index_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const index_t t0 = tile * TT, tw = b - t0 < TT ? b - t0 : TT, n = R * tw;
    // Global and shared position of element e of side A (a) or B (!a).
    auto at = [&](bool a, index_t e, index_t* gpos) -> index_t {
      if (a) {
        const index_t k = tw == TT ? dT.div(e) : inplace::udiv(e, tw), tt = e - k * tw;
        *gpos = k * b + t0 + tt;
        return k * P + tt;
      }
      const index_t tt = m.dR.div(e), r = e - tt * R;
      *gpos = t0 * R + e;
      return (r >= imod ? r - imod : r - imod + R) * P + tt;
    };
    const index_t stride = blockDim.x;
    for (index_t e0 = threadIdx.x; e0 < n; e0 += ilp_blocked<T> * stride) {  // loads first, ilp_blocked<T> per thread
      T v[ilp_blocked<T>];
      index_t gp = 0;
#pragma unroll
      for (int u = 0; u < ilp_blocked<T>; ++u)
        if (e0 + u * stride < n) {
          at(gather, e0 + u * stride, &gp);
          v[u] = row[gp];
        }
#pragma unroll
      for (int u = 0; u < ilp_blocked<T>; ++u)
        if (e0 + u * stride < n) sm[at(gather, e0 + u * stride, &gp)] = v[u];
    }
    __syncthreads();
    for (index_t e = threadIdx.x; e < n; e += stride) {
      index_t gp = 0;
      const index_t sp = at(!gather, e, &gp);
      out[gp] = sm[sp];
    }
    __syncthreads();
  }
}

unsigned grid_of(index_t work, index_t per_block, index_t limit) {
  return clamp_grid((work + per_block - 1) / per_block, limit);
}

status check_device_memory(const void* p, const char* which) {
  cudaPointerAttributes attr{};
  const cudaError_t e = cudaPointerGetAttributes(&attr, p);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return status::make(status_code::not_device_memory, "%s pointer %p: %s", which, p, cudaGetErrorName(e));
  }
  if (attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ||
      (attr.type == cudaMemoryTypeHost && attr.devicePointer == p))
    return {};
  return status::make(status_code::not_device_memory,
                      "%s pointer %p is host memory the GPU cannot access: use transpose_inplace_host", which, p);
}

// Shared memory a line may use: the device's opt-in maximum per block (227 KiB on
// sm_90), granted to pass_smem<T> once per device. Lines that fit skip the
// workspace: 2M instead of 4M per pass (docs/MODEL.md). The size query does not
// depend on it: the workspace is simply left unused.
template <class T>
status smem_budget(index_t* bytes) {
  static std::atomic<int> granted[64];  // per device: 0 = not yet
  int dev = 0, optin = 0;
  if (status st = cuda_status(cudaGetDevice(&dev), "cudaGetDevice"); !st.ok()) return st;
  if (dev >= 0 && dev < 64 && granted[dev].load(std::memory_order_relaxed) != 0) {
    *bytes = granted[dev].load(std::memory_order_relaxed);
    return {};
  }
  if (status st = cuda_status(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
                              "cudaDeviceGetAttribute");
      !st.ok())
    return st;
  if (optin > 48 * 1024)
    if (status st = cuda_status(
            cudaFuncSetAttribute(pass_smem<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, optin),
            "cudaFuncSetAttribute");
        !st.ok())
      optin = 48 * 1024;  // keep the default limit
  if (optin < 48 * 1024) optin = 48 * 1024;
  if (dev >= 0 && dev < 64) granted[dev].store(optin, std::memory_order_relaxed);
  *bytes = optin;
  return {};
}

template <class T>
status run_pass(T* data, const matrix_desc& d, const c2r_map& m, step s, T* ws, index_t ws_elems,
                cudaStream_t stream) {
  const index_t R = m.R, C = m.C;
  const auto es = static_cast<index_t>(sizeof(T));
  index_t smem_limit = 0;
  if (status st = smem_budget<T>(&smem_limit); !st.ok()) return st;
  // Shared memory: a whole row, or a band of columns at least a 32-byte sector wide.
  index_t W = 0, lines = 0;
  if (!s.along_columns() && C * es <= smem_limit) {
    W = 1;
    lines = R;
  } else if (s.along_columns()) {
    // Bands of about 64 KiB (three blocks per SM), wider than a sector, as the limit allows.
    const index_t wmin = 32 / es > 1 ? 32 / es : 1, fit = smem_limit / (R * es), pref = (64 * 1024) / (R * es);
    W = pref > wmin ? pref : wmin;
    if (W > fit) W = fit;
    if (W > C) W = C;
    if (W < wmin && W < C) W = 0;
    lines = W ? (C + W - 1) / W : 0;
  }
  if (W > 0) {
    const int smem = static_cast<int>((s.along_columns() ? R * W : C) * es);
    const line_geometry geo{s.along_columns() ? line_mode::grid_bands : line_mode::grid_rows, W, 0,
                            inplace::divisor::make(W)};
    pass_smem<T><<<dim3(clamp_grid(lines, grid_x_limit), clamp_grid(d.batch, grid_y_limit)), line_threads, smem,
                   stream>>>(data, m, s, geo, lines, d.batch);
    return launch_status("in-place pass (shared memory)");
  }
  // A direct gather of the column shuffle (or of a rotation whose source row changes
  // within a sector, b * E < 32) reads diagonals: a sector per element.
  const bool diagonal = s.kind == inplace::step_kind::column || m.b * es < 32;
  if (s.along_columns() && diagonal && R * es <= smem_limit) {
    // Columns too long for a band in shared memory, short enough for one column:
    // `best` transposes a band of K columns into the workspace, each column is
    // permuted in shared memory as a row, and `best` transposes the band back:
    // 6M per pass, all of it coalesced.
    const index_t K = ws_elems / R < C ? ws_elems / R : C;
    for (index_t b = 0; b < d.batch; ++b) {
      T* g = data + b * R * C;
      for (index_t j0 = 0; j0 < C; j0 += K) {
        const index_t k = C - j0 < K ? C - j0 : K;
        matrix_desc to = matrix_desc::packed(R, k, static_cast<int>(es));
        to.ld_in = C;
        if (status st = transpose(g + j0, ws, to, stream); !st.ok()) return st;
        const line_geometry geo{line_mode::stored_columns, 0, j0, inplace::divisor::make(1)};
        pass_smem<T><<<clamp_grid(k, grid_x_limit), line_threads, static_cast<int>(R * es), stream>>>(ws, m, s, geo,
                                                                                                    k, 1);
        if (status st = launch_status("in-place pass (stored columns)"); !st.ok()) return st;
        matrix_desc back = matrix_desc::packed(k, R, static_cast<int>(es));
        back.ld_out = C;
        if (status st = transpose(ws, g + j0, back, stream); !st.ok()) return st;
      }
    }
    return {};
  }
  // Through the workspace: K whole rows, or a band of K columns, per chunk.
  const index_t line_len = s.along_columns() ? R : C, total = s.along_columns() ? C : R;
  index_t K = ws_elems / line_len;
  if (K > total) K = total;
  // Blocked row shuffle (shuffle_blocked): tiles of about 16 KiB, TT a multiple of 32.
  const bool blocked = blocked_shuffle && !s.along_columns() && m.shuffle_is_blocked() && R <= 64 && K <= grid_y_limit;
  index_t TT = (16 * 1024 / es) / R / 32 * 32;
  if (TT < 32) TT = 32;
  const index_t pad = R <= 32 ? 32 / R : 1, tiles = (m.b + TT - 1) / TT;
  for (index_t b = 0; b < d.batch; ++b) {
    T* g = data + b * R * C;
    for (index_t l0 = 0; l0 < total; l0 += K) {
      const index_t k = total - l0 < K ? total - l0 : K;
      if (blocked)
        shuffle_blocked<T><<<dim3(clamp_grid(tiles, grid_x_limit), static_cast<unsigned>(k)), 256,
                             static_cast<std::size_t>(R * (TT + pad) * es), stream>>>(
            g, ws, m, s.gather, l0, TT, pad, inplace::divisor::make(TT), tiles);
      else
        pass_to_workspace<T><<<grid_of(k * line_len, ilp_for<T> * 256, grid_x_limit), 256, 0, stream>>>(
            g, ws, m, s, l0, k, inplace::divisor::make(s.along_columns() ? k : C));
      if (status st = launch_status("in-place pass (workspace)"); !st.ok()) return st;
      const cudaError_t e =
          s.along_columns()
              ? cudaMemcpy2DAsync(g + l0, static_cast<std::size_t>(C * es), ws, static_cast<std::size_t>(k * es),
                                  static_cast<std::size_t>(k * es), static_cast<std::size_t>(R),
                                  cudaMemcpyDeviceToDevice, stream)
              : cudaMemcpyAsync(g + l0 * C, ws, static_cast<std::size_t>(k * C * es), cudaMemcpyDeviceToDevice,
                                stream);
      if (status st = cuda_status(e, "in-place copy back"); !st.ok()) return st;
    }
  }
  return {};
}

// The slot transpose (inplace_blocks.hpp) in words W (the widest of 1..16 bytes that
// divides the slot and both base addresses). A block covers slot_threads *
// slot_ilp words of a slot; every thread walks the same cycle on its own words, so
// no walk needs a barrier (each word is read before it is written, by one thread).
constexpr int slot_threads = 256, slot_ilp = 4;
constexpr index_t slot_piece = slot_threads * slot_ilp;

template <class W>
__device__ __forceinline__ void slot_copy(W* to, const W* from, index_t p, index_t words) {
  W v[slot_ilp];
#pragma unroll
  for (int u = 0; u < slot_ilp; ++u) {
    const index_t w = p + u * slot_threads + threadIdx.x;
    if (w < words) v[u] = from[w];
  }
#pragma unroll
  for (int u = 0; u < slot_ilp; ++u) {
    const index_t w = p + u * slot_threads + threadIdx.x;
    if (w < words) to[w] = v[u];
  }
}

template <class W>
__global__ void __launch_bounds__(slot_threads) slot_save(const W* g, W* ws, index_t N, index_t words,
                                                          index_t batch) {
  constexpr index_t S = inplace::slot_mark_every;
  const index_t marks = (N + S - 1) / S;
  for (index_t b = blockIdx.z; b < batch; b += gridDim.z)
    for (index_t mk = blockIdx.x; mk < marks; mk += gridDim.x)
      for (index_t p = blockIdx.y * slot_piece; p < words; p += gridDim.y * slot_piece) {
        const index_t y = inplace::slot_grid::mark_of(mk);
        if (y >= N) break;
        const W* from = g + (b * N + y) * words;
        W* to = ws + (b * marks + mk) * words;
        slot_copy(to, from, p, words);
      }
}

template <class W>
__global__ void __launch_bounds__(slot_threads) slot_move(W* g, const W* ws, inplace::slot_grid grid,
                                                          index_t words, index_t batch) {
  constexpr index_t S = inplace::slot_mark_every;
  const index_t N = grid.count(), marks = (N + S - 1) / S;
  for (index_t y = blockIdx.x; y < N; y += gridDim.x) {
    const int role = grid.role(y);
    if (role == 0) continue;
    for (index_t b = blockIdx.z; b < batch; b += gridDim.z) {
      W* a = g + b * N * words;
      const W* saved = ws + b * marks * words;
      for (index_t p = blockIdx.y * slot_piece; p < words; p += gridDim.y * slot_piece) {
        if (role == 1) {
          for (index_t cur = y;;) {
            const index_t s = grid.src(cur);
            if (inplace::slot_grid::marked(s)) {
              slot_copy(a + cur * words, saved + (s / S) * words, p, words);
              break;
            }
            slot_copy(a + cur * words, a + s * words, p, words);
            cur = s;
          }
        } else {
          // A cycle without marks (rare), walked whole from its smallest slot, a
          // word at a time.
          for (int u = 0; u < slot_ilp; ++u) {
            const index_t w = p + u * slot_threads + threadIdx.x;
            if (w >= words) break;
            const W t = a[y * words + w];
            index_t cur = y;
            for (index_t s = grid.src(cur); s != y; s = grid.src(cur)) {
              a[cur * words + w] = a[s * words + w];
              cur = s;
            }
            a[cur * words + w] = t;
          }
        }
      }
    }
  }
}

template <class W>
status slot_transpose_words(void* g, void* ws, const inplace::slot_grid& grid, std::size_t slot_bytes,
                            index_t batch, cudaStream_t stream) {
  const index_t words = static_cast<index_t>(slot_bytes / sizeof(W)), N = grid.count();
  const index_t marks = (N + inplace::slot_mark_every - 1) / inplace::slot_mark_every;
  const unsigned py = grid_of(words, slot_piece, grid_y_limit), bz = clamp_grid(batch, grid_z_limit);
  slot_save<W><<<dim3(clamp_grid(marks, grid_x_limit), py, bz), slot_threads, 0, stream>>>(
      static_cast<const W*>(g), static_cast<W*>(ws), N, words, batch);
  if (status s = launch_status("in-place slot save"); !s.ok()) return s;
  slot_move<W><<<dim3(clamp_grid(N, grid_x_limit), py, bz), slot_threads, 0, stream>>>(
      static_cast<W*>(g), static_cast<const W*>(ws), grid, words, batch);
  return launch_status("in-place slot transpose");
}

status slot_transpose(void* g, void* ws, const inplace::slot_grid& grid, std::size_t slot_bytes, index_t batch,
                      cudaStream_t stream) {
  const auto align = reinterpret_cast<std::uintptr_t>(g) | reinterpret_cast<std::uintptr_t>(ws) | slot_bytes;
  if (align % 16 == 0) return slot_transpose_words<uint4>(g, ws, grid, slot_bytes, batch, stream);
  if (align % 8 == 0) return slot_transpose_words<uint2>(g, ws, grid, slot_bytes, batch, stream);
  if (align % 4 == 0) return slot_transpose_words<unsigned>(g, ws, grid, slot_bytes, batch, stream);
  if (align % 2 == 0) return slot_transpose_words<unsigned short>(g, ws, grid, slot_bytes, batch, stream);
  return slot_transpose_words<unsigned char>(g, ws, grid, slot_bytes, batch, stream);
}

template <class T>
status square_run(T* data, index_t n, index_t batch, cudaStream_t stream) {
  if constexpr (sizeof(T) <= 4) {
    constexpr index_t V = 16 / sizeof(T), TS = 8 * V;
    if (reinterpret_cast<std::uintptr_t>(data) % 16 == 0 && n % V == 0) {
      const index_t nt = (n + TS - 1) / TS;
      if constexpr (sizeof(T) <= square_swizzle_max_elem) {
        square_pairs_swz<T><<<dim3(clamp_grid(nt * (nt + 1) / 2, grid_x_limit), clamp_grid(batch, grid_y_limit)),
                              256, 0, stream>>>(data, n, nt * (nt + 1) / 2, batch);
        return launch_status("in-place square transpose (16-byte, swizzled)");
      }
      square_pairs_vec<T><<<dim3(clamp_grid(nt * (nt + 1) / 2, grid_x_limit), clamp_grid(batch, grid_y_limit)),
                            256, 0, stream>>>(data, n, nt * (nt + 1) / 2, batch);
      return launch_status("in-place square transpose (16-byte)");
    }
  }
  const index_t nt = (n + square_tile - 1) / square_tile;
  square_pairs<T><<<dim3(clamp_grid(nt * (nt + 1) / 2, grid_x_limit), clamp_grid(batch, grid_y_limit)),
                    dim3(square_tile, 8), 0, stream>>>(data, n, nt * (nt + 1) / 2, batch);
  return launch_status("in-place square transpose");
}

// The blocked plan on the whole batch at once: the workspace holds a batch's saves
// (or slabs, in groups), so every step is one launch or copy for all matrices.
template <class T>
status blocked_run(T* data, const matrix_desc& d, const inplace::block_plan& p, T* ws, std::size_t ws_bytes,
                   cudaStream_t stream) {
  const std::size_t sb = static_cast<std::size_t>(p.slot) * sizeof(T);
  if (p.slots_first())
    if (status s = slot_transpose(data, ws, p.grid, sb, d.batch, stream); !s.ok()) return s;
  if (p.square) {
    if (status s = square_run<T>(data, p.slab_rows, p.k * d.batch, stream); !s.ok()) return s;
  } else {
    const index_t se = p.slab_elems(), slabs = p.k * d.batch;
    const index_t group = static_cast<index_t>(ws_bytes / (static_cast<std::size_t>(se) * sizeof(T)));
    for (index_t s0 = 0; s0 < slabs; s0 += group) {
      const index_t gs = std::min(group, slabs - s0);
      T* slab = data + s0 * se;
      if (status s = transpose(slab, ws, matrix_desc::packed(p.slab_rows, p.slab_cols, static_cast<int>(sizeof(T)), gs),
                               stream);
          !s.ok())
        return s;
      if (status s = cuda_status(cudaMemcpyAsync(slab, ws, static_cast<std::size_t>(gs * se) * sizeof(T),
                                                 cudaMemcpyDeviceToDevice, stream),
                                 "in-place slab copy back");
          !s.ok())
        return s;
    }
  }
  if (!p.slots_first())
    if (status s = slot_transpose(data, ws, p.grid, sb, d.batch, stream); !s.ok()) return s;
  return {};
}

template <class T>
status run(T* data, const matrix_desc& d, T* ws, std::size_t ws_bytes, cudaStream_t stream) {
  if (d.rows == d.cols) return square_run<T>(data, d.rows, d.batch, stream);
  if (d.rows == 1 || d.cols == 1) return {};  // a vector is its own transpose in memory
  const std::size_t mb = matrix_bytes(d);
  if (ws_bytes / mb >= static_cast<std::size_t>(d.batch)) {  // the whole batch fits: `best` into it, copy back
    if (status s = transpose(data, ws, matrix_desc::packed(d.rows, d.cols, static_cast<int>(sizeof(T)), d.batch),
                             stream);
        !s.ok())
      return s;
    return cuda_status(cudaMemcpyAsync(data, ws, mb * static_cast<std::size_t>(d.batch), cudaMemcpyDeviceToDevice,
                                       stream),
                       "in-place copy back");
  }
  if (const inplace::block_plan bp = inplace::make_block_plan(d.rows, d.cols, static_cast<index_t>(sizeof(T)));
      bp.kind != inplace::block_kind::none)
    return blocked_run<T>(data, d, bp, ws, ws_bytes, stream);
  if (ws_bytes >= mb) {
    for (index_t b = 0; b < d.batch; ++b) {
      T* a = data + b * d.rows * d.cols;
      if (status s = transpose(a, ws, matrix_desc::packed(d.rows, d.cols, static_cast<int>(sizeof(T))), stream);
          !s.ok())
        return s;
      if (status s = cuda_status(cudaMemcpyAsync(a, ws, mb, cudaMemcpyDeviceToDevice, stream), "in-place copy back");
          !s.ok())
        return s;
    }
    return {};
  }
  const inplace::rect_plan plan = inplace::make_rect_plan(d.rows, d.cols);
  for (int k = 0; k < plan.steps; ++k)
    if (status s = run_pass<T>(data, d, plan.map, plan.s[k], ws, static_cast<index_t>(ws_bytes / sizeof(T)), stream);
        !s.ok())
      return s;
  return {};
}

}  // namespace
}  // namespace xpose::detail

namespace xpose {

status transpose_inplace(void* data, const matrix_desc& desc, void* workspace, std::size_t workspace_bytes,
                         cudaStream_t stream) noexcept {
  if (status s = detail::validate_inplace(data, desc, workspace, workspace_bytes, true);
      !s.ok() || detail::empty(desc))
    return s;
  if (device_count() == 0) return status::make(status_code::no_device, "no CUDA device is available");
  if (status s = detail::check_device_memory(data, "data"); !s.ok()) return s;
  std::size_t need = 0;
  if (status s = inplace_workspace_size(desc, true, &need); !s.ok()) return s;
  if (need > 0)
    if (status s = detail::check_device_memory(workspace, "workspace"); !s.ok()) return s;
  return detail::with_elem_type(desc.elem_size, [&](auto tag) {
    using T = decltype(tag);
    return detail::run<T>(static_cast<T*>(data), desc, static_cast<T*>(workspace), need ? workspace_bytes : 0,
                          stream);
  });
}

}  // namespace xpose
