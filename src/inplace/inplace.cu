// GPU in-place transpose. Squares: one block per tile pair (ti, tj),
// ti <= tj, both tiles staged in shared memory and written back swapped (diagonal
// tiles transposed onto themselves): one pass, 2x the matrix in traffic; 16-byte
// accesses for 1, 2, 4-byte elements when rows are 16-byte aligned.
// Rectangles with a blocked plan (inplace_blocks.hpp): slabs (squares by the
// square kernels, batched; others by `best`, each straight into its final place, a
// quarter of them through the workspace) and the slot transpose (slot_walk: every
// access a coalesced run of words of up to 16 bytes). Other rectangles: the passes of inplace_map.hpp on the
// R x C grid (R = short side).
// A pass whose line (a row, or a band of columns) fits in shared memory (the
// device's opt-in maximum) runs as one launch, a block per line; longer columns
// are transposed into the workspace band by band, permuted there as rows and
// transposed back; what is still too long goes through the workspace chunk by
// chunk (a gather kernel, then a stream-ordered copy back).
// A workspace of whole matrices (batches of 4 or more rectangles ask for a quarter of
// theirs) takes them in groups: `best` into it and a copy back.
// No allocation, no host sync: every step is a launch or an async copy on `stream`.
#include <cuda_runtime.h>

#include <atomic>

#include "../core/core.hpp"
#include "../cuda/best_bytes.cuh"
#include "../cuda/common.cuh"
#include "../cuda/nd/row_stream.cuh"
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

// The slot transpose (inplace_blocks.hpp). A team of T threads (a power of two, 16 to
// slot_threads) takes a walk and one piece of its slots: bytes [p * P, p * P + P) of
// every slot it moves (P = 16 * slot_k * T), so teams on other pieces of the same
// walk touch other bytes. A move of a piece goes through shared memory: the aligned
// 16-byte source chunks that lie inside the piece by cp.async (no registers held, so
// a piece of every team is in flight), then every whole 16-byte aligned chunk of the
// destination piece one 128-bit store realigned from the one or two staged chunks
// covering it (the row stream's realign, nd/row_stream.cuh); the piece's ends in units
// of the unit U (the widest of 1, 2, 4, 8, 16 bytes that divides the slot and both
// addresses), loaded with the cp.async and stored with the chunks. Two stages per
// team: the next slot's piece is in flight while this one is stored (the slot a walk
// pulls next is never one it wrote). A source chunk feeds two lanes' stores and the
// next step writes that slot, so a team barrier after each wait orders every store
// after every lane has taken what it read, and one after the stores lets the stage be
// refilled. Walks start at the map's first held slot, the walk-free slots after them.
constexpr int slot_threads = 256, slot_k = 6;  // chunks a lane per piece (48 KiB of stages a block)
constexpr int slot_min_blocks = 2;             // blocks per SM (at most 128 registers)
constexpr int slot_stage_chunks = slot_k * slot_threads;  // one stage of a block
// Smallest team: slots of up to 16 * slot_k * 16 = 1536 bytes take teams of 16 lanes, two
// walks a warp, so that 32 walks an SM are in flight where 32-lane teams gave 16 (8 lanes
// spilled: the ends' units of both stages).
constexpr int slot_min_team_log2 = 4;

// One piece's move through a stage: issue() starts it, store() ends it (after the
// team's wait and barrier).
template <int U>
struct slot_move {
  using unit_t = typename uint_of<U>::type;
  // The ends: at most 62 bytes, so ceil(62 / U / T) units a lane for the smallest team
  // (16 lanes: 4 of 1 byte, 2 of 2, 1 of 4 or 8); none where every slot and address is
  // 16-byte aligned.
  static constexpr int min_team = 1 << slot_min_team_log2;
  static constexpr int ends = U < 16 ? (62 / U + min_team - 1) / min_team : 0;
  unit_t unit[ends > 0 ? ends : 1];

  __device__ __forceinline__ static unsigned shift(const unsigned char* in, const unsigned char* out) {
    const auto oa = reinterpret_cast<std::uintptr_t>(out) % 16;
    return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(in) - oa) % 16u;
  }
  __device__ __forceinline__ void issue(const unsigned char* in, const unsigned char* out, index_t L, uint4* stage,
                                        int T, int lane) {
    const auto ia = static_cast<index_t>(reinterpret_cast<std::uintptr_t>(in) % 16);
    const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(stage));
#pragma unroll
    for (int k = 0; k < slot_k; ++k) {
      const index_t q = k * T + lane, off = 16 * q - ia;  // chunk q of the aligned cover, from in
      if (off >= 0 && off + 16 <= L) bytes::cp_async16(base + 16u * static_cast<std::uint32_t>(q), in + off, 16);
    }
    if constexpr (ends > 0) {
      const int oa = static_cast<int>(reinterpret_cast<std::uintptr_t>(out) % 16);
      index_t head = 0, tail = 0;
      row_ends(L, oa, shift(in, out), &head, &tail);
      const index_t nh = head / U, nt = (L - tail) / U;
#pragma unroll
      for (int e = 0; e < ends; ++e) {
        const index_t x = lane + e * T;
        if (x < nh) unit[e] = *reinterpret_cast<const unit_t*>(in + x * U);
        else if (x < nh + nt) unit[e] = *reinterpret_cast<const unit_t*>(in + tail + (x - nh) * U);
      }
    }
  }
  __device__ __forceinline__ void store(const uint4* stage, const unsigned char* in, unsigned char* out, index_t L,
                                        int T, int lane) const {
    const int oa = static_cast<int>(reinterpret_cast<std::uintptr_t>(out) % 16);
    const unsigned sh = shift(in, out);
    const auto ia = static_cast<index_t>(reinterpret_cast<std::uintptr_t>(in) % 16);
    const index_t nc = (oa + L + 15) / 16;
#pragma unroll
    for (int k = 0; k < slot_k; ++k) {
      const index_t c = k * T + lane, off = 16 * c - oa;
      if (c < nc && row_chunk_whole(off, L, sh)) {
        const index_t q = (ia + off - sh) / 16;  // the pair's first staged chunk
        *reinterpret_cast<uint4*>(out + off) =
            U >= 16 || sh == 0 ? stage[q] : realign<U < 16 ? U : 8>(stage[q], stage[q + 1], sh);
      }
    }
    if constexpr (ends > 0) {
      index_t head = 0, tail = 0;
      row_ends(L, oa, sh, &head, &tail);
      const index_t nh = head / U, nt = (L - tail) / U;
#pragma unroll
      for (int e = 0; e < ends; ++e) {
        const index_t x = lane + e * T;
        if (x < nh) *reinterpret_cast<unit_t*>(out + x * U) = unit[e];
        else if (x < nh + nt) *reinterpret_cast<unit_t*>(out + tail + (x - nh) * U) = unit[e];
      }
    }
  }
};

// The threads of one team wait for each other (T <= 32: the team's lanes of the warp;
// more: a named barrier per team, ids 1 .. slot_threads / T).
__device__ __forceinline__ void team_sync(int T, int team) {
  if (T < 32) {
    const int base = (team * T) & 31;
    __syncwarp(((1u << T) - 1u) << base);
  } else if (T == 32) {
    __syncwarp();
  } else {
    asm volatile("bar.sync %0, %1;" ::"r"(team + 1), "r"(T) : "memory");
  }
}

// The marks of the square slabs' slot grid saved into the workspace (mark b into
// slot b), a block per mark and piece.
template <int U>
__global__ void __launch_bounds__(slot_threads) slot_save(const unsigned char* g, unsigned char* ws, index_t N,
                                                          index_t L, index_t batch) {
  constexpr index_t S = inplace::slot_mark_every, P = 16 * slot_stage_chunks;
  __shared__ uint4 stage[slot_stage_chunks];
  const index_t marks = (N + S - 1) / S;
  const int lane = static_cast<int>(threadIdx.x);
  for (index_t b = blockIdx.z; b < batch; b += gridDim.z)
    for (index_t mk = blockIdx.x; mk < marks; mk += gridDim.x)
      for (index_t p = blockIdx.y * P; p < L; p += gridDim.y * P) {
        const index_t y = inplace::slot_grid::mark_of(mk), n = L - p < P ? L - p : P;
        if (y >= N) break;
        const unsigned char* in = g + (b * N + y) * L + p;
        unsigned char* out = ws + (b * marks + mk) * L + p;
        slot_move<U> v;
        v.issue(in, out, n, stage, slot_threads, lane);
        bytes::cp_commit();
        bytes::cp_wait(0);
        __syncthreads();
        v.store(stage, in, out, n, slot_threads, lane);
        __syncthreads();
      }
}

// The walks of Map (inplace::mark_walk or inplace::turned_grid) on slots of L bytes;
// held_per_matrix: the held slots of one matrix (the workspace's batch stride).
template <int U, class Map>
__global__ void __launch_bounds__(slot_threads, slot_min_blocks)
    slot_walk(unsigned char* g, unsigned char* ws, Map map, index_t L, int T_log2, index_t held_per_matrix,
              index_t batch) {
  const int T = 1 << T_log2, lane = static_cast<int>(threadIdx.x) & (T - 1), team = static_cast<int>(threadIdx.x) >> T_log2;
  const index_t N = map.count(), teams = slot_threads >> T_log2, P = static_cast<index_t>(16 * slot_k) * T;
  const bool writes_held = map.writes_held();
  __shared__ uint4 stages[2 * slot_stage_chunks];  // two stages of slot_k * T chunks a team
  uint4* const st0 = stages + 2 * team * slot_k * T;  // stage j at st0 + j * slot_k * T
  for (index_t i = blockIdx.x * teams + team; i < N; i += static_cast<index_t>(gridDim.x) * teams) {
    index_t y = map.first() + i;
    if (y >= N) y -= N;
    const int role = inplace::walk_role(map, y);
    if (role == 0) continue;
    for (index_t b = blockIdx.z; b < batch; b += gridDim.z) {
      unsigned char* a = g + b * N * L;
      unsigned char* h = ws + b * held_per_matrix * L;
      for (index_t p = blockIdx.y * P; p < L; p += gridDim.y * P) {
        const index_t n = L - p < P ? L - p : P;
        // Where slot x's piece is read from and written to: a held slot's content is
        // read from the workspace (!writes_held) or its new content written there.
        auto src_of = [&](index_t x) -> const unsigned char* {
          return (!writes_held && map.held(x) ? h + map.held_slot(x) * L : a + x * L) + p;
        };
        auto dst_of = [&](index_t x) { return (writes_held && map.held(x) ? h + map.held_slot(x) * L : a + x * L) + p; };
        if (role == 1) {
          index_t cur = y, s = map.src(y);
          const unsigned char* from = src_of(s);
          unsigned char* to = dst_of(cur);
          slot_move<U> v;
          v.issue(from, to, n, st0, T, lane);
          bytes::cp_commit();
          for (int j = 0;; j ^= 1) {
            const bool last = map.held(s);
            index_t s2 = s;
            const unsigned char* from2 = from;
            unsigned char* to2 = to;
            slot_move<U> next;
            if (!last) {
              s2 = map.src(s);
              from2 = src_of(s2);
              to2 = dst_of(s);
              next.issue(from2, to2, n, st0 + (j ^ 1) * slot_k * T, T, lane);
            }
            bytes::cp_commit();
            bytes::cp_wait(1);  // this step's piece staged
            team_sync(T, team);
            v.store(st0 + j * slot_k * T, from, to, n, T, lane);
            team_sync(T, team);  // the stage free for the step after next
            if (last) break;
            s = s2;
            from = from2;
            to = to2;
            v = next;
          }
        } else {
          // A cycle without held slots (rare), walked whole from its smallest slot y:
          // y's piece waits in the second stage until the cycle is round.
          index_t last = y;
          while (map.src(last) != y) last = map.src(last);
          slot_move<U> t;
          t.issue(a + y * L + p, a + last * L + p, n, st0 + slot_k * T, T, lane);
          bytes::cp_commit();
          for (index_t cur = y; cur != last; cur = map.src(cur)) {
            const unsigned char* from = a + map.src(cur) * L + p;
            slot_move<U> v;
            v.issue(from, a + cur * L + p, n, st0, T, lane);
            bytes::cp_commit();
            bytes::cp_wait(0);
            team_sync(T, team);
            v.store(st0, from, a + cur * L + p, n, T, lane);
            team_sync(T, team);
          }
          bytes::cp_wait(0);
          team_sync(T, team);
          t.store(st0 + slot_k * T, a + y * L + p, a + last * L + p, n, T, lane);
          team_sync(T, team);
        }
      }
    }
  }
}

// The unit of a slot transpose: the widest of 16, 8, 4, 2, 1 bytes that divides the
// slot and both addresses (dispatched by with_elem_size).
inline int slot_unit(const void* g, const void* ws, std::size_t slot_bytes) {
  const auto align = reinterpret_cast<std::uintptr_t>(g) | reinterpret_cast<std::uintptr_t>(ws) | slot_bytes;
  return align % 16 == 0 ? 16 : align % 8 == 0 ? 8 : align % 4 == 0 ? 4 : align % 2 == 0 ? 2 : 1;
}

template <int U, class Map>
status slot_walks_unit(void* g, void* ws, const Map& map, index_t held_per_matrix, index_t L, index_t batch,
                       cudaStream_t stream) {
  int T_log2 = slot_min_team_log2;
  while ((1 << T_log2) < slot_threads && static_cast<index_t>(16 * slot_k) << T_log2 < L) ++T_log2;
  const index_t teams = slot_threads >> T_log2, P = static_cast<index_t>(16 * slot_k) << T_log2;
  const unsigned py = grid_of(L, P, grid_y_limit), bz = clamp_grid(batch, grid_z_limit);
  slot_walk<U, Map><<<dim3(clamp_grid((map.count() + teams - 1) / teams, grid_x_limit), py, bz), slot_threads, 0,
                      stream>>>(static_cast<unsigned char*>(g), static_cast<unsigned char*>(ws), map, L, T_log2,
                                held_per_matrix, batch);
  return launch_status("in-place slot transpose");
}

// The walks of map on the slot grid at g (slots of slot_bytes), the held slots'
// workspace at ws.
template <class Map>
status slot_walks(void* g, void* ws, const Map& map, index_t held_per_matrix, std::size_t slot_bytes,
                  index_t batch, cudaStream_t stream) {
  return with_elem_size(slot_unit(g, ws, slot_bytes), [&](auto u) {
    return slot_walks_unit<decltype(u)::value>(g, ws, map, held_per_matrix, static_cast<index_t>(slot_bytes), batch,
                                               stream);
  });
}

template <int U>
status save_marks_unit(const void* g, void* ws, index_t N, index_t L, index_t batch, cudaStream_t stream) {
  const index_t marks = (N + inplace::slot_mark_every - 1) / inplace::slot_mark_every;
  const unsigned py = grid_of(L, 16 * slot_stage_chunks, grid_y_limit), bz = clamp_grid(batch, grid_z_limit);
  slot_save<U><<<dim3(clamp_grid(marks, grid_x_limit), py, bz), slot_threads, 0, stream>>>(
      static_cast<const unsigned char*>(g), static_cast<unsigned char*>(ws), N, L, batch);
  return launch_status("in-place slot save");
}

// Square slabs' slot transpose: the marks saved (one launch), then the walks.
status marked_slot_transpose(void* g, void* ws, const inplace::slot_grid& grid, std::size_t slot_bytes,
                             index_t batch, cudaStream_t stream) {
  const index_t N = grid.count(), marks = (N + inplace::slot_mark_every - 1) / inplace::slot_mark_every;
  const status s = with_elem_size(slot_unit(g, ws, slot_bytes), [&](auto u) {
    return save_marks_unit<decltype(u)::value>(g, ws, N, static_cast<index_t>(slot_bytes), batch, stream);
  });
  if (!s.ok()) return s;
  return slot_walks(g, ws, inplace::mark_walk{grid}, marks, slot_bytes, batch, stream);
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

// Slabs s0 .. s0 + n - 1 of every matrix of the batch transposed by `best` from
// `from` to `to` (each at its first slab; matrices from_stride / to_stride elements
// apart): one launch per matrix (its slabs a packed batch) or one per slab (the
// matrices a strided batch), whichever is fewer.
template <class T>
status slab_transposes(const T* from, T* to, index_t n, index_t from_stride, index_t to_stride,
                       const inplace::block_plan& p, index_t batch, cudaStream_t stream) {
  const index_t se = p.slab_elems();
  if (batch <= n) {
    for (index_t b = 0; b < batch; ++b)
      if (status s = transpose(from + b * from_stride, to + b * to_stride,
                               matrix_desc::packed(p.slab_rows, p.slab_cols, static_cast<int>(sizeof(T)), n), stream);
          !s.ok())
        return s;
    return {};
  }
  // The matrices' slab j as a strided batch: input and output extents interleave
  // (slab s of each matrix to slab s - held of the same), so the plan runs without
  // the public entry's range check (launch_plan).
  matrix_desc d = matrix_desc::packed(p.slab_rows, p.slab_cols, static_cast<int>(sizeof(T)), batch);
  d.stride_in = from_stride;
  d.stride_out = to_stride;
  d.derived_stride_in = d.derived_stride_out = -1;
  plan pl;
  if (status s = plan_for(d, &pl); !s.ok()) return s;
  for (index_t j = 0; j < n; ++j)
    if (status s = launch_plan(pl, from + j * se, to + j * se, stream); !s.ok()) return s;
  return {};
}

// The blocked plan on the whole batch at once (every step one launch or a few for
// all matrices). Square slabs: transposed in place, the slot transpose on the marks.
// Other slabs go round `held` places (inplace_blocks.hpp, turned_grid), each
// transposed once straight into its final place, the workspace holding `held` slabs
// of each matrix: row slabs 0 .. held - 1 into the workspace, then s -> s - held in
// groups of `held` (each group's places were read by the group before), then the
// walks, which read the held slots from the workspace; column slabs: the walks,
// which write the held slots to the workspace, then s + held -> s in groups, then the
// workspace into the last `held` places. 4M of traffic (docs/MODEL.md).
template <class T>
status blocked_run(T* data, const matrix_desc& d, const inplace::block_plan& p, T* ws, cudaStream_t stream) {
  const std::size_t sb = static_cast<std::size_t>(p.slot) * sizeof(T);
  if (p.square) {
    if (p.slots_first())
      if (status s = marked_slot_transpose(data, ws, p.grid, sb, d.batch, stream); !s.ok()) return s;
    if (status s = square_run<T>(data, p.slab_rows, p.k * d.batch, stream); !s.ok()) return s;
    if (!p.slots_first())
      if (status s = marked_slot_transpose(data, ws, p.grid, sb, d.batch, stream); !s.ok()) return s;
    return {};
  }
  const index_t se = p.slab_elems(), k = p.k, G = p.held, M = d.rows * d.cols, B = d.batch;
  const inplace::turned_grid map = p.turned();
  auto walks = [&] { return slot_walks(data, ws, map, map.shift, sb, B, stream); };
  if (!p.slots_first()) {
    if (status s = slab_transposes<T>(data, ws, G, M, G * se, p, B, stream); !s.ok()) return s;
    for (index_t s0 = G; s0 < k; s0 += G)
      if (status s = slab_transposes<T>(data + s0 * se, data + (s0 - G) * se, std::min(G, k - s0), M, M, p, B, stream);
          !s.ok())
        return s;
    return walks();
  }
  if (status s = walks(); !s.ok()) return s;
  for (index_t s0 = 0; s0 < k - G; s0 += G)
    if (status s = slab_transposes<T>(data + (s0 + G) * se, data + s0 * se, std::min(G, k - G - s0), M, M, p, B, stream);
        !s.ok())
      return s;
  return slab_transposes<T>(ws, data + (k - G) * se, G, G * se, M, p, B, stream);
}

// rows x w elements from pitch from_ld to pitch to_ld (elements; distinct buffers) by
// xpose's strided copy (the row stream's realigned 16-byte stores): cudaMemcpy2DAsync
// of rows off the 16-byte grid ran at a few percent of a copy.
template <class T>
status pitched_copy(const T* from, index_t from_ld, T* to, index_t to_ld, index_t rows, index_t w,
                    cudaStream_t stream) {
  layout in, out;
  in.rank = out.rank = 2;
  in.elem_size = out.elem_size = static_cast<int>(sizeof(T));
  in.extents[0] = out.extents[0] = rows;
  in.extents[1] = out.extents[1] = w;
  in.strides[0] = from_ld;
  out.strides[0] = to_ld;
  in.strides[1] = out.strides[1] = 1;
  static constexpr int axes[2] = {0, 1};
  plan p;
  if (status s = make_plan(in, out, axes, 2, {}, &p); !s.ok()) return s;
  return launch_plan(p, from, to, stream);
}

// A rectangle without a blocked plan by the split plan (inplace_blocks.hpp): the last r
// rows C transposed into the workspace by `best`, the rest B in place by its own plan
// (or as a square), B^T's rows spread to the pitch m from the last chunk backwards
// through the rest of the workspace (a copy out and a pitched copy back per chunk),
// C^T's rows into the gaps (one pitched copy).
template <class T>
status split_run(T* a, index_t m, index_t n, const inplace::split_plan& sp, T* ws, cudaStream_t stream) {
  constexpr auto E = sizeof(T);
  const index_t r = sp.r, mb = sp.rows_b;
  T* ct = ws;
  T* rest = ws + r * n;
  if (status s = transpose(a + mb * n, ct, matrix_desc::packed(r, n, static_cast<int>(E)), stream); !s.ok()) return s;
  if (status s = mb == n ? square_run<T>(a, n, 1, stream)
                         : blocked_run<T>(a, matrix_desc::packed(mb, n, static_cast<int>(E)), sp.b, rest, stream);
      !s.ok())
    return s;
  const index_t per = (sp.ws - r * n) / mb;
  for (index_t hi = n; hi > 0;) {
    const index_t lo = hi > per ? hi - per : 0;
    if (status s = cuda_status(cudaMemcpyAsync(rest, a + lo * mb, static_cast<std::size_t>((hi - lo) * mb) * E,
                                               cudaMemcpyDeviceToDevice, stream),
                               "in-place split: chunk out");
        !s.ok())
      return s;
    if (status s = pitched_copy(rest, mb, a + lo * m, m, hi - lo, mb, stream); !s.ok()) return s;
    hi = lo;
  }
  return pitched_copy(ct, r, a + mb, m, n, r, stream);
}

template <class T>
status run(T* data, const matrix_desc& d, T* ws, std::size_t ws_bytes, cudaStream_t stream) {
  if (d.rows == d.cols) return square_run<T>(data, d.rows, d.batch, stream);
  if (d.rows == 1 || d.cols == 1) return {};  // a vector is its own transpose in memory
  const std::size_t mb = matrix_bytes(d);
  // A workspace of whole matrices (batches of 4 or more ask for a quarter of theirs):
  // groups of as many matrices as it holds, each transposed into it by `best` and
  // copied back. 4M of traffic like the blocked plan, every pass at copy speed.
  if (const index_t g = static_cast<index_t>(ws_bytes / mb); g >= 1) {
    for (index_t b0 = 0; b0 < d.batch; b0 += g) {
      const index_t n = std::min(g, d.batch - b0);
      T* a = data + b0 * d.rows * d.cols;
      if (status s = transpose(a, ws, matrix_desc::packed(d.rows, d.cols, static_cast<int>(sizeof(T)), n), stream);
          !s.ok())
        return s;
      if (status s = cuda_status(cudaMemcpyAsync(a, ws, mb * static_cast<std::size_t>(n), cudaMemcpyDeviceToDevice,
                                                 stream),
                                 "in-place copy back");
          !s.ok())
        return s;
    }
    return {};
  }
  if (const inplace::block_plan bp = inplace::make_block_plan(d.rows, d.cols, static_cast<index_t>(sizeof(T)), true);
      bp.kind != inplace::block_kind::none)
    return blocked_run<T>(data, d, bp, ws, stream);
  if (const inplace::split_plan sp = inplace::make_split_plan(d.rows, d.cols, static_cast<index_t>(sizeof(T)), true);
      sp.r > 0) {
    for (index_t b = 0; b < d.batch; ++b)
      if (status s = split_run<T>(data + b * d.rows * d.cols, d.rows, d.cols, sp, ws, stream); !s.ok()) return s;
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
  std::size_t need = 0;  // the size query's bytes, from the validation
  if (status s = detail::validate_inplace(data, desc, workspace, workspace_bytes, true, &need);
      !s.ok() || detail::empty(desc))
    return s;
  if (device_count() == 0) return status::make(status_code::no_device, "no CUDA device is available");
  if (status s = detail::check_device_memory(data, "data"); !s.ok()) return s;
  if (need > 0)
    if (status s = detail::check_device_memory(workspace, "workspace"); !s.ok()) return s;
  return detail::with_elem_type(desc.elem_size, [&](auto tag) {
    using T = decltype(tag);
    return detail::run<T>(static_cast<T*>(data), desc, static_cast<T*>(workspace), need ? workspace_bytes : 0,
                          stream);
  });
}

}  // namespace xpose
