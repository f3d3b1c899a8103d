// GPU kernels of the N-d plans: the tiled permutation (a shared tile whose sides pack
// the input's and the output's fastest dims, outer dims enumerated by the grid with
// fast divisors: the vector tile, the packed tile; the span tile for everything else,
// span_tile.cuh) and the strided copy of contiguous runs in units of up to 16 bytes. No allocation, no host sync, graph-capturable; 64-bit offsets,
// grid-stride loops for counts beyond the grid limit. Index maps: src/core/nd_map.hpp.
// Which kernel a plan runs, on which tile: nd_route_of (nd_route.hpp), one decision.
#include <type_traits>

#include "../../core/core.hpp"
#include "../../core/elem.hpp"
#include "../../core/nd_map.hpp"
#include "../best_kernels.cuh"
#include "../common.cuh"
#include "nd_route.hpp"
#include "policy_nd.hpp"
#include "row_stream.cuh"
#include "span_tile.cuh"

namespace xpose::detail {
namespace {

// The packed tile (8-16 byte elements where its square fills: nd_ptile_takes): a vtile_map's tiles of TA x TB
// elements on packed sides (ptile_*, src/core/nd_map.hpp). Per tile: threads compute the TB input row bases and the
// TA output row bases once (a divide per digit of a packed group), then each warp loads LA-element segments of
// input rows into registers and stores them into the shared tile; then each warp stores output row segments from
// a column of the tile (distinct banks: ptile_elem), along a side of any stride (strided views).
// Map: vtile_map, or vtile_map32 where every index fits (vtile_fits32).
template <int E, int S, bool Conj, class Map>
__global__ void __launch_bounds__(nd_ptile_threads, nd_ptile_min_blocks)
    nd_ptile_kernel(const Map m, const void* __restrict__ in_v, void* __restrict__ out_v) {
  using T = typename uint_of<E>::type;
  constexpr int K = ptile_k(E), NT = nd_ptile_threads, LA = nd_ptile_for(S).la, LB = nd_ptile_for(S).lb;
  constexpr int TA = ptile_side(E, LA), TB = ptile_side(E, LB);
  constexpr int SA = ptile_steps(TB, LA, NT), SB = ptile_steps(TA, LB, NT);
  static_assert(E >= 8 && K == 1, "the route takes 8-16 byte elements: one element per lane");
  static_assert(TA + TB <= NT && NT % 32 == 0 && 32 % LA == 0 && 32 % LB == 0, "one row base per thread");
  __shared__ T sm[ptile_smem_words(E, LA, TB)];
  __shared__ index_t in_row[TB], out_row[TA];
  const T* __restrict__ in = static_cast<const T*>(in_v);
  T* __restrict__ out = static_cast<T*>(out_v);
  const int tid = static_cast<int>(threadIdx.x);
  for (index_t t = blockIdx.x; t < m.tiles; t += gridDim.x) {
    using word = decltype(m.tiles_b.d);
    word rem = 0;
    const word q = m.tiles_b.divmod(static_cast<word>(t), &rem);
    const index_t b0 = static_cast<index_t>(rem) * TB;
    m.tiles_a.divmod(q, &rem);
    const index_t a0 = static_cast<index_t>(rem) * TA;
    const int na = static_cast<int>(m.n_a - a0 < TA ? m.n_a - a0 : TA);
    const int nb = static_cast<int>(m.n_b - b0 < TB ? m.n_b - b0 : TB);
    if (tid < TA + TB) {
      index_t io = 0, oo = 0, a0t = 0, b0t = 0;
      m.tile(t, &io, &oo, &a0t, &b0t, TA, TB);
      if (tid < TB) in_row[tid] = tid < nb ? io + m.b_in(b0 + tid) + a0 * m.a_is : 0;
      else out_row[tid - TB] = tid - TB < na ? oo + m.a_out(a0 + tid - TB) + b0 * m.b_os : 0;
    }
    __syncthreads();  // row bases written; the previous tile's shared reads are done
    T v[SA];
#pragma unroll
    for (int j = 0; j < SA; ++j) {
      const ptile_slot s = ptile_slot_of<LA, NT>(tid, j);
      const bool rv = s.row < nb;
      const index_t row = rv ? in_row[s.row] : 0;
      v[j] = T{};
      if (rv && s.w < na) v[j] = in[row + s.w * m.a_is];
    }
#pragma unroll
    for (int j = 0; j < SA; ++j) {
      const ptile_slot s = ptile_slot_of<LA, NT>(tid, j);
      if (s.row < nb) sm[ptile_word<K, LA>(s.w, s.row)] = v[j];  // element w of row b
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < SB; ++j) {
      const ptile_slot s = ptile_slot_of<LB, NT>(tid, j);
      const bool av = s.row < na;
      const index_t row = av ? out_row[s.row] : 0;
      if (av && s.w < nb) out[row + s.w * m.b_os] = pass<E, Conj>(sm[ptile_elem<K, LA>(s.row, s.w)]);
    }
    __syncthreads();  // the shared tile and row bases are read before the next tile's
  }
}

// The row tile (strided copies of kept rows under 128 bytes that lie back to back on both
// sides: rtile_*, src/core/nd_map.hpp). Per tile: threads compute the tb input and ta
// output span bases, then the block loads the input spans (ta*R elements each) word by
// word, as they lie, into the shared tile, and stores the output spans (tb*R elements
// each) in aligned words gathered element by element from it: one word where the span
// covers it, the elements one by one at its two ends. Map: q's vtile_map (or
// vtile_map32), strides in elements.
template <int E, bool Conj, class Map>
__global__ void __launch_bounds__(rtile_threads, 3)
    nd_rtile_kernel(const Map m, const rtile_geom g, const void* __restrict__ in_v, void* __restrict__ out_v) {
  using T = typename uint_of<E>::type;
  constexpr int K = ptile_k(E), NT = rtile_threads, W = rtile_words(E), S = W / NT;
  static_assert(W % NT == 0 && K * E == (E < 4 ? 4 : E), "whole steps");
  using Wd = std::conditional_t<(E < 4), std::uint32_t, T>;
  __shared__ Wd sm[W];
  __shared__ index_t in_row[NT], out_row[NT];
  __shared__ int reg_e[NT];  // span j's first element in the shared tile: j*sw*K + sh_j
  const T* sme = reinterpret_cast<const T*>(sm);
  const T* __restrict__ in = static_cast<const T*>(in_v);
  T* __restrict__ out = static_cast<T*>(out_v);
  const int tid = static_cast<int>(threadIdx.x), R = g.R;
  const int in_e = static_cast<int>(reinterpret_cast<std::uintptr_t>(in_v) / E % K);
  const int out_e = static_cast<int>(reinterpret_cast<std::uintptr_t>(out_v) / E % K);
  for (index_t t = blockIdx.x; t < m.tiles; t += gridDim.x) {
    using word = decltype(m.tiles_b.d);
    word rem = 0;
    const word q = m.tiles_b.divmod(static_cast<word>(t), &rem);
    const index_t b0 = static_cast<index_t>(rem) * g.tb;
    m.tiles_a.divmod(q, &rem);
    const index_t a0 = static_cast<index_t>(rem) * g.ta;
    const int na = static_cast<int>(m.n_a - a0 < g.ta ? m.n_a - a0 : g.ta);
    const int nb = static_cast<int>(m.n_b - b0 < g.tb ? m.n_b - b0 : g.tb);
    if (tid < na + nb) {
      index_t io = 0, oo = 0, a0t = 0, b0t = 0;
      m.tile(t, &io, &oo, &a0t, &b0t, g.ta, g.tb);
      if (tid < nb) {
        const index_t row = io + m.b_in(b0 + tid) + a0 * m.a_is;
        in_row[tid] = row;
        reg_e[tid] = tid * g.sw * K + ptile_shift<K>(in_e, row, true);
      } else {
        out_row[tid - nb] = oo + m.a_out(a0 + tid - nb) + b0 * m.b_os;
      }
    }
    __syncthreads();  // span bases written; the previous tile's shared reads are done
    const int span_a = na * R, span_b = nb * R;
    Wd v[S];
#pragma unroll
    for (int j = 0; j < S; ++j) {
      std::uint32_t w = 0;
      const int jr = static_cast<int>(g.sw_div.divmod(static_cast<std::uint32_t>(j * NT + tid), &w));
      const bool rv = jr < nb;
      const index_t row = rv ? in_row[jr] : 0;
      if constexpr (K == 1) {
        v[j] = rv && static_cast<int>(w) < span_a ? in[row + w] : Wd{};
      } else {
        const int e = static_cast<int>(w) * K - ptile_shift<K>(in_e, row, true);
        v[j] = 0;
        if (rv && e >= 0 && e + K <= span_a) {
          v[j] = *reinterpret_cast<const std::uint32_t*>(in + row + e);
        } else if (rv && e < span_a) {
#pragma unroll
          for (int i = 0; i < K; ++i)
            if (e + i >= 0 && e + i < span_a) v[j] |= static_cast<std::uint32_t>(in[row + e + i]) << (8 * E * i);
        }
      }
    }
#pragma unroll
    for (int j = 0; j < S; ++j) sm[j * NT + tid] = v[j];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < S; ++j) {
      std::uint32_t w = 0;
      const int i = static_cast<int>(g.ow_div.divmod(static_cast<std::uint32_t>(j * NT + tid), &w));
      if (i >= na) continue;
      const index_t row = out_row[i];
      const int so = ptile_shift<K>(out_e, row, true), e0 = static_cast<int>(w) * K - so;  // first element of the word
      if (e0 >= span_b) continue;
      std::uint32_t c = 0;
      const int e = e0 < 0 ? 0 : e0;
      int jj = static_cast<int>(g.r_div.divmod(static_cast<std::uint32_t>(e), &c));  // element e: row jj, element c
      if constexpr (K == 1) {
        out[row + e] = pass<E, Conj>(sme[reg_e[jj] + i * R + static_cast<int>(c)]);
      } else {
        std::uint32_t x = 0;
#pragma unroll
        for (int k = 0; k < K; ++k) {
          if (e0 + k < 0 || e0 + k >= span_b) continue;
          x |= static_cast<std::uint32_t>(sme[reg_e[jj] + i * R + static_cast<int>(c)]) << (8 * E * k);
          if (++c == static_cast<std::uint32_t>(R)) c = 0, ++jj;
        }
        if (e0 >= 0 && e0 + K <= span_b) {
          *reinterpret_cast<std::uint32_t*>(out + row + e0) = x;
        } else {
#pragma unroll
          for (int k = 0; k < K; ++k)
            if (e0 + k >= 0 && e0 + k < span_b) out[row + e0 + k] = static_cast<T>(x >> (8 * E * k));
        }
      }
    }
    __syncthreads();  // the shared tile and span bases are read before the next tile's
  }
}

// The vector tile: best's 16-byte tile (TB rows of NCH chunks, XOR-swizzled shared
// tile, k x k register micro-transposes; best_kernels.cuh) on the packed sides of a
// vtile_map: row b of the tile is read at io + b_in(b0 + b) + a0, output row a written
// at oo + a_out(a0 + a) + b0 (vtile_load_slot / vtile_store_slot, nd_map.hpp). Both
// combined extents are multiples of k, so a chunk is whole or outside the tile.
// Rows (32-bit maps; a 64-bit map computes each offset per chunk): each offset computed
// once, not once per chunk: lane l of a warp computes the base of its warp's load row
// vtile_warp_row(l) and shuffles it to the threads that load that row; the block
// computes the TA output row bases into shared memory between the two barriers (packed
// groups cost a divide per digit; the f16 tile issued an instruction on 65% of cycles
// without it under ncu).
template <int E, int V, bool Rows, class Map>
__global__ void __launch_bounds__(nd_vtile_for(E, V).threads, nd_vtile_for(E, V).min_blocks)
    nd_vtile_kernel(const Map m, const void* __restrict__ in_v, void* __restrict__ out_v) {
  constexpr nd_geom bt = nd_vtile_for(E, V);
  constexpr int NCH = bt.chunks, NT = bt.threads, MW = bt.micro_bytes;
  using geom = best::tile_geom<E, bt.rows, NCH, NT, MW>;
  constexpr int k = geom::k, TA = geom::TC, TB = bt.rows, RPS = geom::RPS, L = geom::L;
  constexpr int KW = geom::KW, kk = geom::kk, G = geom::G, MPT = geom::MPT, H = geom::H, RN = geom::RN;
  constexpr int W = 32 / NCH;  // load rows of a warp per step (nd_vtile_table_valid: W * L <= 32)
  __shared__ uint4 smem[TB * NCH];  // (TB, NCH) chunks, swizzled as in best::tile_kernel
  __shared__ index_t out_row[Rows ? TA : 1];  // Rows: oo + a_out(a0 + a) + b0 per tile row a
  const std::uint32_t* tile = reinterpret_cast<const std::uint32_t*>(smem);
  const auto* in = static_cast<const unsigned char*>(in_v);
  auto* out = static_cast<unsigned char*>(out_v);
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32;
  const vtile_slot l0 = vtile_load_slot<k, NCH, NT>(tid, 0);
  const int ch = tid % NCH;
  for (index_t t = blockIdx.x; t < m.tiles; t += gridDim.x) {
    index_t io = 0, oo = 0, a0 = 0, b0 = 0;
    m.tile(t, &io, &oo, &a0, &b0, TA, TB);
    const index_t na = m.n_a - a0, nb = m.n_b - b0;  // left from the origin (may exceed the tile)
    index_t lane_row = 0;  // Rows: io + b_in(b0 + r) + a0 of load row r = vtile_warp_row(...)
    if constexpr (Rows) {
      const int r = vtile_warp_row<NCH, RPS>(tid / 32, lane);
      if (lane < W * L) lane_row = io + m.b_in(b0 + (r < nb ? r : 0)) + a0;
    }
    std::uint32_t v[L][4];
#pragma unroll
    for (int j = 0; j < L; ++j) {
      const int b = l0.b + j * RPS;  // vtile_load_slot<k, NCH, NT>(tid, j).b, folded
      v[j][0] = v[j][1] = v[j][2] = v[j][3] = 0;
      if constexpr (Rows) {
        const index_t row = __shfl_sync(0xffffffffu, lane_row, vtile_row_lane<NCH>(lane, j));  // every lane
        if (l0.a < na && b < nb) best::load_chunk<16>(v[j], in + (row + l0.a) * E);
      } else {
        if (l0.a < na && b < nb) best::load_chunk<16>(v[j], in + (io + m.b_in(b0 + b) + a0 + l0.a) * E);
      }
    }
    __syncthreads();  // the previous tile's shared reads are done
#pragma unroll
    for (int j = 0; j < L; ++j) {
      const int r = l0.b + j * RPS;
      smem[r * NCH + (ch ^ ((r / k) % NCH))] = make_uint4(v[j][0], v[j][1], v[j][2], v[j][3]);
    }
    if constexpr (Rows)
      for (int a = tid; a < TA; a += NT) out_row[a] = a < na ? oo + m.a_out(a0 + a) + b0 : 0;
    __syncthreads();
#pragma unroll
    for (int q = 0; q < MPT; ++q) {
      std::uint32_t w[k][KW];
      int h, R, C;
      best::read_micro<E, NCH, MW, geom>(tile, tid + q * NT, w, h, R, C);
      const vtile_slot s = vtile_store_slot<k, kk, H, RN>(tid + q * NT);
      if (s.b >= nb) continue;
#pragma unroll
      for (int i = 0; i < kk; ++i) {
        if (s.a + i >= na) continue;
        std::uint32_t ow[4];
#pragma unroll
        for (int g = 0; g < G; ++g)
#pragma unroll
          for (int x = 0; x < KW; ++x) ow[g * KW + x] = w[g * kk + i][x];
        if constexpr (Rows) best::store_chunk<16>(ow, out + (out_row[s.a + i] + s.b) * E);
        else best::store_chunk<16>(ow, out + (oo + m.a_out(a0 + s.a + i) + b0 + s.b) * E);
      }
    }
  }
}

// The run tile (strided copies of short runs): a vtile_map over runs of U 16-byte
// chunks (runs_plan): row b of the tile is TA runs contiguous in the input, output row
// a is TB runs contiguous in the output, so both sides move >= 512 contiguous bytes
// where the runs alone are 16-128 (run_load_slot / run_store_slot, nd_map.hpp). A
// warp's every load j and store j lie in one tile row (static_assert below), so lane j
// computes the row's base once and shuffles it to the warp. Half: half the rows.
template <int U, bool Half, class Map>
__global__ void __launch_bounds__(nd_run_threads, nd_run_min_blocks(U, Half))
    nd_run_tile_kernel(const Map m, const void* __restrict__ in_v, void* __restrict__ out_v) {
  constexpr int TA = nd_run_tile_a, TB = nd_run_tile_b(U, Half), NT = nd_run_threads, P = (TA + 1) * U;
  constexpr int per = TA * TB * U / NT;
  static_assert((TA * U) % 32 == 0 && (TB * U) % 32 == 0 && per <= 32, "a warp's slot j is in one row");
  __shared__ uint4 sm[TB * P];
  const uint4* __restrict__ in = static_cast<const uint4*>(in_v);
  uint4* __restrict__ out = static_cast<uint4*>(out_v);
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32;
  for (index_t t = blockIdx.x; t < m.tiles; t += gridDim.x) {
    index_t io = 0, oo = 0, a0 = 0, b0 = 0;
    m.tile(t, &io, &oo, &a0, &b0, TA, TB);
    const index_t na = m.n_a - a0, nb = m.n_b - b0;
    index_t in_row = 0, out_row = 0;  // lane j's bases of the warp's load row j and store row j
    const int na_t = static_cast<int>(na < TA ? na : TA), nb_t = static_cast<int>(nb < TB ? nb : TB);  // in the tile
    if (lane < per) {
      const int rb = run_load_slot<TA, TB, U, NT>(tid - lane, lane).row;
      const int ra = run_store_slot<TA, TB, U, NT>(tid - lane, lane).row;
      in_row = (io + m.b_in(b0 + (rb < nb ? rb : 0)) + a0) * U;
      out_row = (oo + m.a_out(a0 + (ra < na ? ra : 0)) + b0) * U;
    }
    uint4 v[per];
#pragma unroll
    for (int j = 0; j < per; ++j) {
      const run_slot s = run_load_slot<TA, TB, U, NT>(tid, j);
      v[j] = make_uint4(0, 0, 0, 0);
      const index_t row = __shfl_sync(0xffffffffu, in_row, j);
      if (s.row < nb_t && s.col / U < na_t) v[j] = in[row + s.col];
    }
    __syncthreads();  // the previous tile's shared reads are done
#pragma unroll
    for (int j = 0; j < per; ++j) {
      const run_slot s = run_load_slot<TA, TB, U, NT>(tid, j);
      sm[s.row * P + s.col] = v[j];
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < per; ++j) {
      const run_slot s = run_store_slot<TA, TB, U, NT>(tid, j);
      const int b = s.col / U;
      const index_t row = __shfl_sync(0xffffffffu, out_row, j);
      if (s.row < na_t && b < nb_t) out[row + s.col] = sm[b * P + s.row * U + s.col % U];
    }
  }
}

// K = nd_copy_units U-byte units per thread per step, in output order (copy_slot):
// all K loads issued before the first store. Map: copy_map or copy_map32.
template <int U, bool Conj, class Map>
__global__ void __launch_bounds__(nd_copy_threads)
    nd_copy_kernel(const Map m, const void* __restrict__ in_v, void* __restrict__ out_v) {
  using T = typename uint_of<U>::type;
  constexpr int K = nd_copy_units;
  const T* __restrict__ in = static_cast<const T*>(in_v);
  T* __restrict__ out = static_cast<T*>(out_v);
  const int tid = static_cast<int>(threadIdx.x);
  for (index_t blk = blockIdx.x; copy_slot<nd_copy_threads, K>(blk, 0, 0) < m.total; blk += gridDim.x) {
    T v[K];
    index_t oo[K];
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const index_t i = copy_slot<nd_copy_threads, K>(blk, tid, j);
      index_t io = 0;
      oo[j] = 0;
      if (i < m.total) {
        m.element(i, &io, &oo[j]);
        v[j] = in[io];
      }
    }
#pragma unroll
    for (int j = 0; j < K; ++j)
      if (copy_slot<nd_copy_threads, K>(blk, tid, j) < m.total) out[oo[j]] = pass<U, Conj>(v[j]);
  }
}


constexpr index_t grid_limit = 0x7fffffff;

// f(integral_constant<E>, bool_constant<Conj>) for elem_size: conjugation only for
// 8- and 16-byte elements (c64, c128).
template <class F>
decltype(auto) with_elem_conj(int elem_size, bool conj, F&& f) {
  if (conj) {
    if (elem_size == 8) return f(std::integral_constant<int, 8>{}, std::true_type{});
    return f(std::integral_constant<int, 16>{}, std::true_type{});
  }
  return with_elem_size(elem_size, [&](auto e) { return f(e, std::false_type{}); });
}

template <int U, bool Conj, class Map>
status launch_copy_kernel(const Map& m, const void* in, void* out, cudaStream_t stream) {
  constexpr index_t per_block = static_cast<index_t>(nd_copy_threads) * nd_copy_units;
  const index_t blocks = (m.total + per_block - 1) / per_block;
  nd_copy_kernel<U, Conj, Map><<<clamp_grid(blocks, grid_limit), nd_copy_threads, 0, stream>>>(m, in, out);
  return launch_status("strided_copy kernel launch");
}

template <int U, bool Conj>
status launch_copy(const plan& p, int unit, const void* in, void* out, cudaStream_t stream) {
  const copy_map m = make_copy_map<copy_map>(p, unit);
  if (fits32(m.total)) return launch_copy_kernel<U, Conj>(make_copy_map<copy_map32>(p, unit), in, out, stream);
  return launch_copy_kernel<U, Conj>(m, in, out, stream);
}

template <int E, bool Conj, class Map>
status launch_ptile_map(const Map& m, int s, const void* in, void* out, cudaStream_t stream) {
  static_assert(nd_ptile_shapes == 3, "one case per shape");
  const unsigned grid = clamp_grid(m.tiles, grid_limit);
  if (s == 1) nd_ptile_kernel<E, 1, Conj, Map><<<grid, nd_ptile_threads, 0, stream>>>(m, in, out);
  else if (s == 2) nd_ptile_kernel<E, 2, Conj, Map><<<grid, nd_ptile_threads, 0, stream>>>(m, in, out);
  else nd_ptile_kernel<E, 0, Conj, Map><<<grid, nd_ptile_threads, 0, stream>>>(m, in, out);
  return launch_status("permute_nd packed tile kernel launch");
}

template <int E, bool Conj>
status launch_ptile(const plan& p, int s, const void* in, void* out, cudaStream_t stream) {
  const vtile_map m = make_ptile_map<vtile_map>(p, s);
  if (vtile_fits32(m)) return launch_ptile_map<E, Conj>(make_ptile_map<vtile_map32>(p, s), s, in, out, stream);
  return launch_ptile_map<E, Conj>(m, s, in, out, stream);
}

template <int E, bool Conj>
status launch_rtile(const plan& q, index_t R, const void* in, void* out, cudaStream_t stream) {
  vtile_groups g;
  const rtile_geom gm = make_rtile_geom(q, R, &g);
  const vtile_map m = make_vtile_map_on<vtile_map>(q, g, gm.ta, gm.tb);
  const unsigned grid = clamp_grid(m.tiles, grid_limit);
  if (vtile_fits32(m)) {
    nd_rtile_kernel<E, Conj, vtile_map32><<<grid, rtile_threads, 0, stream>>>(make_vtile_map_on<vtile_map32>(q, g, gm.ta, gm.tb), gm, in, out);
  } else {
    nd_rtile_kernel<E, Conj, vtile_map><<<grid, rtile_threads, 0, stream>>>(m, gm, in, out);
  }
  return launch_status("strided copy row tile kernel launch");
}

// The span tile on persistent blocks: as many as fit on the GPU at once (span_min_blocks per SM), at most one per
// tile; 32-bit slot offsets and tile divisors where they fit, else 64-bit.
template <int E, bool Conj>
status launch_span(const plan& p, const span_choice& c, const void* in, void* out, cudaStream_t stream) {
  int sms = 0;
  if (status s = current_sms(&sms); !s.ok()) return s;
  const span_map m = make_span_map<span_map>(p, c);
  const bool narrow = fits32(m.tiles) && span_offsets_fit32(p, c);
  const index_t resident = static_cast<index_t>(sms) * (narrow ? span_min_blocks(E) : span_wide_blocks(E));
  const unsigned grid = clamp_grid(std::min<index_t>(m.tiles, resident), grid_limit);
  if (narrow) {
    nd_span_kernel<E, Conj, span_map32, unsigned><<<grid, span_threads, 0, stream>>>(make_span_map<span_map32>(p, c), in, out);
  } else {
    nd_span_kernel<E, Conj, span_map, index_t><<<grid, span_threads, 0, stream>>>(m, in, out);
  }
  return launch_status("permute_nd span tile kernel launch");
}

// The row-offset variant (Rows) on 32-bit maps; a 64-bit map runs the plain kernel.
template <int E, int V>
status launch_vtile(const plan& p, const vtile_choice& c, const void* in, void* out, cudaStream_t stream) {
  constexpr nd_geom bt = nd_vtile_for(E, V);
  const vtile_map m = make_vtile_choice_map<vtile_map>(p, c);
  if (vtile_fits32(m)) {
    const vtile_map32 m32 = make_vtile_choice_map<vtile_map32>(p, c);
    nd_vtile_kernel<E, V, true, vtile_map32><<<clamp_grid(m32.tiles, grid_limit), bt.threads, 0, stream>>>(m32, in, out);
  } else {
    nd_vtile_kernel<E, V, false, vtile_map><<<clamp_grid(m.tiles, grid_limit), bt.threads, 0, stream>>>(m, in, out);
  }
  return launch_status("permute_nd vector tile kernel launch");
}

template <int E>
status launch_vtile_shaped(const plan& p, const vtile_choice& c, const void* in, void* out, cudaStream_t stream) {
  static_assert(nd_vtile_shapes == 6, "one case per shape");
  switch (c.v) {
    case 1: return launch_vtile<E, 1>(p, c, in, out, stream);
    case 2: return launch_vtile<E, 2>(p, c, in, out, stream);
    case 3: return launch_vtile<E, 3>(p, c, in, out, stream);
    case 4: return launch_vtile<E, 4>(p, c, in, out, stream);
    case 5: return launch_vtile<E, 5>(p, c, in, out, stream);
    default: return launch_vtile<E, 0>(p, c, in, out, stream);
  }
}

template <int U, bool Half>
status launch_run_tile(const plan& q, const void* in, void* out, cudaStream_t stream) {
  const vtile_map32 m = make_vtile_map<vtile_map32>(q, nd_run_tile_a, nd_run_tile_b(U, Half), true);
  nd_run_tile_kernel<U, Half, vtile_map32><<<clamp_grid(m.tiles, grid_limit), nd_run_threads, 0, stream>>>(m, in, out);
  return launch_status("strided_copy run tile kernel launch");
}

template <bool Half>
status launch_run_tile_units(const plan& q, int chunks, const void* in, void* out, cudaStream_t stream) {
  if (chunks == 1) return launch_run_tile<1, Half>(q, in, out, stream);
  if (chunks == 2) return launch_run_tile<2, Half>(q, in, out, stream);
  if (chunks == 4) return launch_run_tile<4, Half>(q, in, out, stream);
  return launch_run_tile<8, Half>(q, in, out, stream);
}

template <int W, int G>
status launch_row_stream_lanes(const plan& p, const void* in, void* out, cudaStream_t stream) {
  const auto* i = static_cast<const unsigned char*>(in);
  auto* o = static_cast<unsigned char*>(out);
  int sms = 0;
  if (status s = current_sms(&sms); !s.ok()) return s;
  const row_map m = make_row_map<row_map>(p, W, G * row_k);
  const int B = row_batch(m.items, 32 / G, sms);
  const index_t warps = (m.items + B - 1) / B;
  const unsigned grid = clamp_grid((warps + row_threads / 32 - 1) / (row_threads / 32), grid_limit);
  if (fits32(m.items)) {
    nd_row_stream_kernel<W, G, row_map32><<<grid, row_threads, 0, stream>>>(make_row_map<row_map32>(p, W, G * row_k), B, i, o);
  } else {
    nd_row_stream_kernel<W, G, row_map><<<grid, row_threads, 0, stream>>>(m, B, i, o);
  }
  return launch_status("strided_copy row stream kernel launch");
}

template <int W>
status launch_row_stream(const plan& p, const void* in, void* out, cudaStream_t stream) {
  const int r = p.out.rank;
  switch (row_lanes(p.out.extents[r - 1] * p.in.elem_size, W, row_k)) {
    case 2: return launch_row_stream_lanes<W, 2>(p, in, out, stream);
    case 4: return launch_row_stream_lanes<W, 4>(p, in, out, stream);
    case 8: return launch_row_stream_lanes<W, 8>(p, in, out, stream);
    case 16: return launch_row_stream_lanes<W, 16>(p, in, out, stream);
    default: return launch_row_stream_lanes<W, 32>(p, in, out, stream);
  }
}

// The kernel of nd_route_of's route for plan p (permute_nd or strided_copy).
status launch_nd(const plan& p, const void* in, void* out, cudaStream_t stream) {
  const nd_route r = nd_route_of(p, in, out);
  switch (r.kernel) {
    case nd_kernel::vtile:
      return with_elem_size(p.in.elem_size, [&](auto e) {
        constexpr int E = decltype(e)::value;
        if constexpr (E < 2) return status{};  // not reached: the route takes E >= 2
        else return launch_vtile_shaped<E>(p, r.vt, in, out, stream);
      });
    case nd_kernel::span:
      return with_elem_conj(r.q.in.elem_size, p.conjugate, [&](auto e, auto conj) {
        return launch_span<decltype(e)::value, decltype(conj)::value>(r.q, r.span, in, out, stream);
      });
    case nd_kernel::ptile:
      return with_elem_conj(p.in.elem_size, p.conjugate, [&](auto e, auto conj) {
        constexpr int E = decltype(e)::value;
        if constexpr (E < 8) return status{};  // not reached: the route takes E >= 8 (nd_ptile_takes)
        else return launch_ptile<E, decltype(conj)::value>(p, r.shape, in, out, stream);
      });
    case nd_kernel::row_stream:
      switch (r.unit) {
        case 1: return launch_row_stream<1>(p, in, out, stream);
        case 2: return launch_row_stream<2>(p, in, out, stream);
        case 4: return launch_row_stream<4>(p, in, out, stream);
        default: return launch_row_stream<8>(p, in, out, stream);
      }
    case nd_kernel::rtile:
      return with_elem_conj(r.q.in.elem_size, p.conjugate, [&](auto e, auto conj) {
        return launch_rtile<decltype(e)::value, decltype(conj)::value>(r.q, r.R, in, out, stream);
      });
    case nd_kernel::run_tile:
      if (r.half) return launch_run_tile_units<true>(r.q, r.chunks, in, out, stream);
      return launch_run_tile_units<false>(r.q, r.chunks, in, out, stream);
    default:
      return with_elem_conj(r.unit, p.conjugate, [&](auto u, auto conj) {
        return launch_copy<decltype(u)::value, decltype(conj)::value>(p, r.unit, in, out, stream);
      });
  }
}

}  // namespace

status launch_permute_nd(const plan& p, const void* in, void* out, cudaStream_t stream) { return launch_nd(p, in, out, stream); }

status launch_strided_copy(const plan& p, const void* in, void* out, cudaStream_t stream) { return launch_nd(p, in, out, stream); }

}  // namespace xpose::detail
