// The 2-D fast path `best` as one route table: a call's layout facts, computed once (route_facts), and an ordered
// list of rows {name, condition, route, the docs/RESULTS.md section whose measurement chose it}; the first row whose
// condition holds gives the route, which names its kernel and carries every launch parameter, so variants/best.cu
// only launches it. Host-evaluable (constexpr): the route tests draw shapes from each row's condition and check it.
#pragma once

#include <xpose/view.hpp>

#include <iterator>

#include "policy.hpp"

namespace xpose::detail {

/// The kernel templates a route launches.
enum class route_kernel {
  copy,           ///< cudaMemcpyAsync (layouts coincide)
  tile,           ///< best_kernels.cuh tile_kernel
  realign,        ///< best_realign.cuh realign_tile_kernel
  skew,           ///< best_skew.cuh skew_kernel
  skew_async,     ///< best_skew.cuh skew_async_kernel
  async_tile,     ///< best_async.cuh async_tile_kernel
  async_pipe,     ///< best_async.cuh async_pipe_kernel
  async_realign,  ///< best_async.cuh async_realign_kernel
  slab,           ///< best_slab.cuh slab_kernel
  pipe,           ///< best_pipe.cuh pipe_kernel
  direct,         ///< best_direct.cuh direct_kernel
  interleave,     ///< best_interleave.cuh interleave_kernel
};

/// Everything a launch needs besides the pointers, the desc and the device's occupancy.
struct route {
  best_path path = best_path::copy;  ///< the route's name (best_path_name)
  route_kernel kernel = route_kernel::copy;
  best_tile tile{};      ///< tile kernels: rows, chunks, threads, micro-block row bytes, min blocks
  int access = 16;       ///< tile: global access bytes
  bool late = false;     ///< tile: waits for the previous launch only before its first load
  bool realign = false;  ///< fitted tile: input rows off the 16-byte grid; interleave: realigning gather
  bool deep = false;     ///< fitted realigning tile: the chunk after each cover in shared memory
  int tpb = 0;           ///< async tiles: tiles per block
  int stages = 0;        ///< async pipe / skew async: load stages
  int oa = 16;           ///< skew async: owned output segments start oa-byte aligned
  int mode = 0;          ///< slab kernels: slab::gather / scatter / whole
  int side = 0;          ///< slab kernels: the grouped (or interleave) short side, 0 element by element
  int micro = 0;         ///< slab kernels: micro-block row bytes, 0 none
  int min_blocks = 0;    ///< slab kernels: __launch_bounds__ blocks per SM
  bool halo = false;     ///< pipe: halo scatter / shifted gather; skew async: halo rows
  bool lean = false;     ///< pipe: lean gather (slab boundaries moved onto the output's grid)
  int depth = 0;         ///< pipe / direct: load buffers (pipe: the most; route_depth)
  int slab = 0;          ///< slab kernels: bytes per slab the blocks are sized for
  int call_slab = 0;     ///< slab kernels: bytes per slab of this call (spread over >= 256 blocks)
  bool span64 = false;   ///< pipe: slab spans in whole 64-byte units of an output row
  int row = -1;          ///< index of the table row that chose it
};
constexpr bool operator==(const route& a, const route& b) {
  return a.path == b.path && a.kernel == b.kernel && a.tile == b.tile && a.access == b.access && a.late == b.late &&
         a.realign == b.realign && a.deep == b.deep && a.tpb == b.tpb && a.stages == b.stages && a.oa == b.oa &&
         a.mode == b.mode && a.side == b.side && a.micro == b.micro && a.min_blocks == b.min_blocks && a.halo == b.halo &&
         a.lean == b.lean && a.depth == b.depth && a.slab == b.slab && a.call_slab == b.call_slab && a.span64 == b.span64;
}
/// A pipe route's load buffers, given the launcher's resident blocks per SM at r.depth and at 2: 2 where more fit.
constexpr int route_depth(const route& r, long long resident_at_depth, long long resident_at_two) {
  return r.depth > 2 && resident_at_two > resident_at_depth ? 2 : r.depth;
}

/// A call's layout facts.
struct route_facts {
  int E = 1, cc = 90;
  long long rows = 0, cols = 0, batch = 1, ld_in = 0, ld_out = 0, stride_in = 0, stride_out = 0;
  long long mat = 0, bytes = 0;  ///< elements of one matrix; bytes of the call
  bool batched = false;
  bool vector = false;     ///< a vector (or batch of them) whose layouts coincide
  bool packed = false;     ///< batched, both sides packed matrices
  int access = 16;         ///< largest power of two <= 16 dividing every pointer, ld and stride
  bool in16 = false, out16 = false;  ///< pointers 16-byte aligned
  bool ira = false, ora = false;     ///< every input / output row 16-byte aligned
  bool pin = false, pout = false;    ///< the input / output pointer and batch stride 16-byte aligned
  bool in_e = false, out_e = false;  ///< pointers element-aligned
  bool tiny = false;       ///< one matrix of at most 64 KiB
  bool gather = false, scatter = false;  ///< slab classes (short rows / short cols)
  bool whole = false;      ///< small batch: matrices of few bytes, output packed, input packed or with gaps read past
  long long tiles256 = 0;  ///< 256-row x 256-byte tiles of the call
};

namespace route_detail {
constexpr bool in_list(long long s, const int* b, const int* e) {
  for (; b != e; ++b)
    if (*b == s) return true;
  return false;
}
constexpr bool pipe_side(long long s) { return in_list(s, std::begin(best_pipe_sides), std::end(best_pipe_sides)); }
constexpr bool interleave_side(long long s) {
  return in_list(s, std::begin(best_interleave_sides), std::end(best_interleave_sides));
}
constexpr int group_side(int E, long long s) {  // the grouped slab kernel's side, 0: none
  return best_slab_group_for(best_class_policy_for(0, E), E, s);
}
constexpr bool short_ok(int E, long long s) {
  const best_class_policy p = best_class_policy_for(0, E);
  return s <= p.slab_max_short && s * E <= p.slab_max_short_bytes;
}
// 4-8 byte slabs of whole 16-byte chunks per position, packed side aligned, s in [min, table's].
constexpr bool wide_layout(const route_facts& f, bool gather, long long min_side) {
  const long long s = gather ? f.rows : f.cols;
  return (f.E == 4 || f.E == 8) && s >= min_side && short_ok(f.E, s) && (s * f.E) % 16 == 0 && (gather ? f.pout : f.pin);
}
constexpr bool wide_pipe(const route_facts& f, bool gather) {
  if (!wide_layout(f, gather, best_pipe_wide_min_side)) return false;
  const long long s = gather ? f.rows : f.cols;
  return !(gather ? f.ira : f.ora) || best_pipe_wide_aligned(f.E, gather, s, (gather ? f.ld_in : f.ld_out) * f.E);
}
constexpr bool interleave(const route_facts& f, bool gather) {
  const long long s = gather ? f.rows : f.cols;
  if ((f.E != 4 && f.E != 8) || !interleave_side(s) || (!gather && s > best_interleave_scatter_max)) return false;
  if ((gather ? f.ira : f.ora) && (gather ? f.pout : f.pin)) return true;
  return gather && s <= best_interleave_realign_max && f.in_e && f.out_e;
}
constexpr bool async_batch(const route_facts& f) {
  return (f.E == 1 || f.E == 2) && f.batched && f.access == 16 && f.rows > 32 && f.rows <= 64 && f.cols > 32 && f.cols <= 64;
}
constexpr bool whole_wide_cap(const route_facts& f) {
  const long long b = f.mat * 8;
  return f.E == 8 && f.packed && b > 4096 && b <= 8192 && f.rows <= 32 && f.cols * 8 <= 512 && f.rows % 2 == 0 &&
         f.cols % 2 == 0 && f.in16 && f.out16;
}
constexpr bool micro_side(const route_facts& f, long long s, bool gather) {  // micro-block slab sides
  const int m = f.E == 1 ? (gather ? 48 : 32) : f.E == 2 ? 24 : f.E == 4 && gather ? 16 : 0;
  return m > 0 && s >= m && (s * f.E) % 16 == 0 && (gather ? f.pout : f.pin);
}
constexpr bool skew_wins(const route_facts& f) {
  if (f.E > 8 || (f.E <= 2 && f.ora)) return false;
  const long long ts = best_tile_skew_for(f.E).rows, tr = best_tile_realign_for(f.E).rows;
  return (f.rows + ts - 1) / ts * ts * 10 <= (f.rows + tr - 1) / tr * tr * 11;
}
constexpr bool pads_less(const route_facts& f, best_tile a, best_tile b) {
  matrix_desc d;
  d.rows = f.rows, d.cols = f.cols, d.elem_size = f.E;
  return best_skew_pads_less(d, a, b);
}
constexpr int fit_rows(const route_facts& f) { return best_fit_tile_rows(f.E, f.rows); }

// ---- route makers ----
constexpr route tile_route(best_path p, best_tile t, int access = 16, bool late = false) {
  route r;
  r.path = p, r.kernel = route_kernel::tile, r.tile = t, r.access = access, r.late = late;
  return r;
}
constexpr route slab_route(const route_facts& f, best_path p, int mode, int side, int micro, int minb, int sb = 0) {
  route r;
  r.path = p, r.kernel = route_kernel::slab, r.mode = mode, r.side = side, r.micro = micro, r.min_blocks = minb;
  best_class_policy pol = best_class_policy_for(f.cc, f.E);
  if (mode == 1 && micro > 0 && (f.ld_out * f.E) % 16 != 0) pol.slab_bytes = best_slab_micro_ragged_bytes_for(f.E);
  if (sb > 0) pol.slab_bytes = sb;
  r.call_slab = r.slab = best_slab_bytes_for(pol, f.bytes);
  return r;
}
constexpr route pipe_route(const route_facts& f, best_path p, int mode, int side, int micro, int minb, bool halo, int sb = 0) {
  route r;
  r.path = p, r.kernel = route_kernel::pipe, r.mode = mode, r.side = side, r.micro = micro, r.min_blocks = minb;
  r.halo = halo;
  const bool gather = mode == 0, shift = halo && gather;
  r.depth = shift ? best_gather_shift_depth : 2;
  r.lean = shift && side > 0 && side * f.E <= best_gather_lean_max_bytes;
  r.span64 = mode == 1 && micro > 0 && !halo;
  best_class_policy pol = best_class_policy_for(f.cc, f.E);
  if (sb > 0) pol.slab_bytes = sb;
  r.slab = f.cc >= 90 ? best_gather_slab_for(f.E, gather, side, pol.slab_bytes, shift, f.ira) : pol.slab_bytes;
  pol.slab_bytes = r.slab;
  r.call_slab = best_slab_bytes_for(pol, f.bytes);
  return r;
}
constexpr route gather_pipe(const route_facts& f, int g, bool shift) {
  return pipe_route(f, shift ? best_path::slab_gather_pipe_shift : best_path::slab_gather_pipe, 0, g, 0,
                    best_pipe_min_blocks(f.E, true, g, shift), shift);
}
constexpr route scatter_pipe(const route_facts& f, int g, bool halo, int sb = 0) {
  return pipe_route(f, halo ? best_path::slab_scatter_pipe_halo : best_path::slab_scatter_pipe, 1, g, 0,
                    best_pipe_min_blocks(f.E, false, g, halo), halo, sb);
}
constexpr route micro_pipe(const route_facts& f, best_path p, int mode, bool halo, int sb = 0) {
  return pipe_route(f, p, mode, 0, best_pipe_micro_width_for(f.E), best_pipe_micro_min_blocks(mode == 0), halo, sb);
}
constexpr route whole_pipe(const route_facts& f) {
  const best_micro m = best_slab_micro_for(f.E, false);
  return pipe_route(f, best_path::slab_whole_micro_pipe, 2, 0, m.width, m.min_blocks, false);
}
constexpr route direct_route(const route_facts& f, int g, int sb) {
  route r;
  r.path = best_path::slab_scatter_direct, r.kernel = route_kernel::direct, r.mode = 1, r.side = g;
  r.min_blocks = best_scatter_direct_min_blocks(g);
  r.depth = sb > 0 ? best_scatter_direct2_depth : best_scatter_direct_depth;
  best_class_policy pol = best_class_policy_for(f.cc, f.E);
  if (sb > 0) pol.slab_bytes = sb;
  r.slab = pol.slab_bytes;
  r.call_slab = best_slab_bytes_for(pol, f.bytes);
  return r;
}
constexpr route interleave_route(const route_facts& f, bool gather) {
  route r;
  r.path = gather ? best_path::slab_interleave_gather : best_path::slab_interleave_scatter;
  r.kernel = route_kernel::interleave, r.mode = gather ? 0 : 1;
  r.side = static_cast<int>(gather ? f.rows : f.cols);
  r.realign = gather && !(f.ira && f.pout);
  return r;
}
constexpr route fit_route(const route_facts& f) {
  const bool realign = f.E <= 2 && !f.ira;
  const int tr = fit_rows(f);
  const bool dense = f.E == best_fit_dense_elem && tr <= best_fit_dense_max_rows;
  const bool deep = f.E == 1 && ((tr == 48 && !realign) || (tr == 96 && realign && f.cc >= 90));
  route r = tile_route(realign ? best_path::realign_fit : best_path::tile_fit, best_tile_fit_for(f.E, tr, realign, dense, deep));
  if (realign) r.kernel = route_kernel::realign;
  r.realign = realign, r.deep = deep && realign;
  return r;
}
constexpr route skew_async_route(best_path p, best_tile t, bool halo, int oa) {
  route r;
  r.path = p, r.kernel = route_kernel::skew_async, r.tile = t, r.halo = halo, r.oa = oa;
  r.stages = best_skew_async_stages;
  return r;
}
constexpr route async_route(const route_facts& f, bool batch, bool pipe) {
  route r;
  r.kernel = pipe ? route_kernel::async_pipe : route_kernel::async_tile;
  if (pipe) {
    const best_async_pipe a = best_tile_async_pipe_for(f.E, batch);
    r.path = batch ? best_path::tile_async_pipe_batch : best_path::tile_async_pipe;
    r.tile = a.a.t, r.tpb = a.a.tpb, r.stages = a.stages;
  } else {
    const best_async_tile a = best_tile_async_for(f.E, batch);
    r.path = batch ? best_path::tile_async_batch : best_path::tile_async;
    r.tile = a.t, r.tpb = a.tpb;
  }
  return r;
}

// The gather / scatter class's sub-facts.
constexpr bool gather_short_pipe(const route_facts& f) {  // f16 24 and 32 rows on the grouped pipe
  return f.E == 2 && f.pout && (f.rows == 24 || (f.rows == 32 && !f.ira));
}
constexpr bool gather_pipe_side(const route_facts& f) {
  return f.E <= 2 && pipe_side(f.rows) && !(f.rows == 2 && !f.ira);
}
constexpr bool gather_shifts(const route_facts& f) {  // the pipe side's shift form
  return !f.ira && (f.rows <= best_gather_shift_max_side || (f.E == 1 && f.rows == best_gather_shift24_side && f.cc >= 90));
}
constexpr bool scatter_pipe_side(const route_facts& f) {
  return f.E <= 2 && pipe_side(f.cols) && best_pipe_scatter_side(f.E, f.cols, f.ora);
}
constexpr int scatter_halo_slab(const route_facts& f, long long g) {  // bytes per slab of u8 halo scatters
  return best_scatter_slab_table(f.E, g, true);
}

}  // namespace route_detail

/// One row of the route table.
struct route_row {
  const char* name;
  bool (*when)(const route_facts&);
  route (*make)(const route_facts&);
  const char* section;  ///< docs/RESULTS.md
};

namespace route_detail {
using F = const route_facts&;
using B = best_path;
// clang-format off
constexpr route_row rows[] = {
  {"vector", [](F f) { return f.vector; }, [](F) { return route{}; }, "2-D: the shape sweep"},
  // ---- tiny calls (latency-bound): the narrow tile, several blocks, waiting late ----
  {"tiny 1-2 byte", [](F f) { return f.E <= 2 && f.tiny; },
   [](F f) { return tile_route(B::tile_narrow, best_tile_shaped(f.E, best_shape::narrow), 16, true); }, "2-D: tiny calls and CUDA graphs"},
  {"tiny 4-8 byte", [](F f) { return f.E <= 8 && f.tiny; },
   [](F f) { return tile_route(B::tile_narrow, best_tile_tiny_small_for(f.E), 16, true); }, "2-D: tiny calls and CUDA graphs"},
  // ---- batches of small matrices ----
  {"f16 64x64 batch >= 64 MiB", [](F f) { return f.E == 2 && async_batch(f) && f.bytes >= best_async_f16_big_min_bytes; },
   [](F f) { return async_route(f, true, false); }, "2-D: cp.async tiles for squares and batches"},
  {"f16 64x64 batch >= 16 MiB", [](F f) { return f.E == 2 && async_batch(f) && f.bytes >= best_async_pipe_min_bytes; },
   [](F f) { return async_route(f, true, true); }, "2-D: cp.async tiles for squares and batches"},
  {"u8 64x64 batch", [](F f) { return f.E == 1 && async_batch(f); }, [](F f) { return async_route(f, true, false); },
   "2-D: cp.async tiles for squares and batches"},
  {"f64 4-8 KiB matrices", [](F f) { return whole_wide_cap(f); },
   [](F f) { return tile_route(B::tile_few_rows, best_tile_shaped(f.E, best_shape::few_rows)); }, "2-D: small and narrow tiles for few rows"},
  {"4-8 byte whole-chunk matrices", [](F f) {
     return (f.E == 4 || f.E == 8) && f.packed && f.rows > 1 && f.cols > 1 && (f.rows * f.E) % 16 == 0 &&
            (f.cols * f.E) % 16 == 0 && f.mat * f.E <= best_pipe_whole_wide_max_bytes && f.in16 && f.out16; },
   [](F f) { return whole_pipe(f); }, "2-D: 4-8 byte pipelined micro-block slabs"},
  {"1-2 byte whole-chunk matrices", [](F f) {
     return f.whole && f.packed && f.E <= 2 && (f.rows * f.E) % 8 == 0 && (f.cols * f.E) % (f.E == 1 ? 4 : 8) == 0 &&
            (f.mat * f.E) % 16 == 0 && f.in16 && f.out16; },
   [](F f) { return whole_pipe(f); }, "2-D: pipelined slabs"},
  {"small matrices", [](F f) { return f.whole; }, [](F f) { return slab_route(f, B::slab_whole, 2, 0, 0, 1); },
   "2-D: slab kernels (gather, scatter, whole matrices)"},
  // ---- gathers (few rows) on the row-fitted tile ----
  {"4-8 byte 24-32 row gather", [](F f) {
     return (f.E == 4 || f.E == 8) && f.rows >= best_fit_wide_min_rows && f.rows <= best_fit_wide_max_rows &&
            f.rows % best_fit_wide_step == 0 && f.rows * best_slab_min_aspect <= f.cols && f.ira && f.ora; },
   [](F f) { return fit_route(f); }, "2-D: row-fitted tiles"},
  {"1-2 byte 33-128 row gather", [](F f) {
     return f.E <= 2 && f.rows >= best_fit_tile_min_rows && f.rows <= best_fit_tile_max_rows &&
            f.rows * best_slab_min_aspect <= f.cols && f.ora; },
   [](F f) { return fit_route(f); }, "2-D: row-fitted tiles"},
  // ---- gather slabs (rows short, output packed) ----
  {"4-8 byte wide gather", [](F f) { return f.gather && wide_pipe(f, true); },
   [](F f) { return micro_pipe(f, B::slab_gather_micro_pipe, 0, false); }, "2-D: 4-8 byte pipelined micro-block slabs"},
  {"4-8 byte interleave gather", [](F f) { return f.gather && interleave(f, true); },
   [](F f) { return interleave_route(f, true); }, "2-D: register-interleave slabs (4-8 byte channel shuffles)"},
  {"f16 24-32 row gather", [](F f) { return f.gather && gather_short_pipe(f); },
   [](F f) { return gather_pipe(f, static_cast<int>(f.rows), false); }, "2-D: pipelined slabs"},
  {"1-2 byte pipelined gather", [](F f) { return f.gather && gather_pipe_side(f); },
   [](F f) { return gather_pipe(f, static_cast<int>(f.rows), gather_shifts(f)); }, "2-D: shift and lean gathers from unaligned rows"},
  {"1-2 byte 2-row gather, unaligned rows", [](F f) { return f.gather && f.E <= 2 && f.rows == 2 && !f.ira; },
   [](F f) { return gather_pipe(f, 2, true); }, "2-D: shift and lean gathers from unaligned rows"},
  {"gather", [](F f) { return f.gather; },
   [](F f) { const int g = group_side(f.E, f.rows); return slab_route(f, B::slab_gather, 0, g, 0, g > 0 ? best_slab_group_min_blocks : 1); },
   "2-D: slab kernels (gather, scatter, whole matrices)"},
  // ---- scatter slabs (cols short, input packed) ----
  {"4-8 byte wide scatter", [](F f) { return f.scatter && wide_pipe(f, false); },
   [](F f) { return f.ora ? micro_pipe(f, B::slab_scatter_micro_pipe, 1, false) : micro_pipe(f, B::slab_scatter_micro_halo, 1, true); },
   "2-D: 4-8 byte pipelined micro-block slabs"},
  {"f32 8, 16 column scatter, unaligned rows", [](F f) {
     return f.scatter && f.E == 4 && (f.cols == 8 || f.cols == 16) && wide_layout(f, false, 8) && !f.ora; },
   [](F f) { return micro_pipe(f, B::slab_scatter_micro_halo, 1, true); }, "2-D: 4-8 byte pipelined micro-block slabs"},
  {"f32 12 column scatter, unaligned rows", [](F f) { return f.scatter && f.E == 4 && f.cols == 12 && wide_layout(f, false, 12) && !f.ora; },
   [](F f) { return slab_route(f, B::slab_scatter_micro, 1, 0, best_slab_micro_for(f.E, true).width, 4); },
   "2-D: 4-8 byte pipelined micro-block slabs"},
  {"4-8 byte interleave scatter", [](F f) { return f.scatter && interleave(f, false); },
   [](F f) { return interleave_route(f, false); }, "2-D: register-interleave slabs (4-8 byte channel shuffles)"},
  {"1-2 byte two-buffer direct scatter", [](F f) { return f.scatter && f.E <= 2 && best_scatter_direct2_takes(f.E, f.cols, f.ora); },
   [](F f) { return direct_route(f, static_cast<int>(f.cols), best_scatter_direct2_slab(f.E, f.cols)); }, "2-D: slab scatters of 1-2 byte elements"},
  {"1-2 byte direct scatter, aligned rows", [](F f) {
     return f.scatter && f.E <= 2 && best_scatter_direct_fits(f.E, static_cast<int>(f.cols), f.ora); },
   [](F f) { return direct_route(f, static_cast<int>(f.cols), 0); }, "2-D: slab scatters of 1-2 byte elements"},
  {"1-2 byte micro-block scatter, aligned rows", [](F f) { return f.scatter && f.E <= 2 && micro_side(f, f.cols, false) && f.ora; },
   [](F f) { return micro_pipe(f, B::slab_scatter_micro_pipe, 1, false); }, "2-D: pipelined slabs"},
  {"1-2 byte micro-block scatter, unaligned rows", [](F f) { return f.scatter && f.E <= 2 && micro_side(f, f.cols, false); },
   [](F f) { return micro_pipe(f, B::slab_scatter_micro_halo, 1, true, best_scatter_slab_table(f.E, f.cols, true, true)); },
   "2-D: halo scatters to unaligned rows"},
  {"1-2 byte pipelined scatter", [](F f) { return f.scatter && scatter_pipe_side(f); },
   [](F f) { const int g = static_cast<int>(f.cols); return scatter_pipe(f, g, !f.ora, f.ora ? 0 : scatter_halo_slab(f, g)); },
   "2-D: pipelined slabs"},
  {"1-2 byte halo scatter", [](F f) { return f.scatter && f.E <= 2 && !f.ora && f.cols >= best_halo_side_min && pipe_side(f.cols); },
   [](F f) { const int g = static_cast<int>(f.cols); return scatter_pipe(f, g, true, scatter_halo_slab(f, g)); },
   "2-D: halo scatters to unaligned rows"},
  {"u8 2-3 column batch scatter, unaligned rows", [](F f) { return f.scatter && f.E == 1 && !f.ora && f.batched && (f.cols == 2 || f.cols == 3); },
   [](F f) { const int g = static_cast<int>(f.cols); return scatter_pipe(f, g, true, scatter_halo_slab(f, g)); },
   "2-D: halo scatters to unaligned rows"},
  {"scatter", [](F f) { return f.scatter && (f.E > 2 || f.cols * f.E < best_scatter_slab_max_bytes_narrow); },
   [](F f) { const int g = group_side(f.E, f.cols); return slab_route(f, B::slab_scatter, 1, g, 0, g > 0 ? best_slab_group_min_blocks : 1); },
   "2-D: slab kernels (gather, scatter, whole matrices)"},
  // ---- element-aligned layouts (access < 16): realigning tiles ----
  {"f64 aligned output rows, 48-row skewed tile", [](F f) {
     return f.access < 16 && f.E == 8 && f.ora && pads_less(f, best_tile_skew_async_fit_for(8), best_tile_skew_async_for(8, false)); },
   [](F f) { return skew_async_route(B::realign_skew_async_fit, best_tile_skew_async_fit_for(f.E), false, 16); },
   "2-D: skewed realigning tiles"},
  {"4-8 byte unaligned output rows, half-width skewed tile", [](F f) {
     return f.access < 16 && (f.E == 4 || f.E == 8) && !f.ora && skew_wins(f) &&
            (f.E == 8 || pads_less(f, best_tile_skew_fit_for(f.E), best_tile_skew_for(f.E))); },
   [](F f) { route r = tile_route(B::realign_skew_fit, best_tile_skew_fit_for(f.E)); r.kernel = route_kernel::skew; return r; },
   "2-D: skewed realigning tiles"},
  {"1-2 byte unaligned output rows, sector tile", [](F f) { return f.access < 16 && f.E <= 2 && !f.ora; },
   [](F f) { return skew_async_route(B::realign_skew_sector, best_tile_skew_sector_for(f.E), true, best_skew_sector_bytes); },
   "2-D: skewed realigning tiles"},
  {"1, 4, 8 byte aligned output rows, skewed cp.async tile", [](F f) { return f.access < 16 && f.E != 2 && f.E <= 8 && f.ora; },
   [](F f) { return skew_async_route(B::realign_skew_async, best_tile_skew_async_for(f.E, false), false, 16); },
   "2-D: skewed realigning tiles"},
  {"f16 aligned output rows, cp.async realigning tile", [](F f) { return f.access < 16 && f.E == 2; },
   [](F f) { route r = tile_route(B::realign_async, best_tile_async_realign_for(f.E)); r.kernel = route_kernel::async_realign; return r; },
   "2-D: skewed realigning tiles"},
  {"4-8 byte unaligned output rows, skewed tile", [](F f) { return f.access < 16 && f.E <= 8 && skew_wins(f); },
   [](F f) { route r = tile_route(B::realign_skew, best_tile_skew_for(f.E)); r.kernel = route_kernel::skew; return r; },
   "2-D: skewed realigning tiles"},
  {"4-8 byte element-aligned rows, realigning tile", [](F f) { return f.access < 16 && f.E <= 8; },
   [](F f) { route r = tile_route(B::realign, best_tile_realign_for(f.E)); r.kernel = route_kernel::realign; return r; },
   "2-D: skewed realigning tiles"},
  // ---- 16-byte aligned tiles ----
  {"4-8 byte batch of <= 32 rows", [](F f) { return (f.E == 4 || f.E == 8) && f.batched && f.rows <= 32 && f.cols * f.E <= 512; },
   [](F f) { return tile_route(B::tile_few_rows, best_tile_shaped(f.E, best_shape::few_rows)); }, "2-D: small and narrow tiles for few rows"},
  {"1-2 byte <= 32 rows", [](F f) { return f.E <= 2 && f.rows <= 32; },
   [](F f) { return tile_route(B::tile_few_rows, best_tile_shaped(f.E, best_shape::few_rows)); }, "2-D: small and narrow tiles for few rows"},
  {"1-2 byte <= 64 rows or <= 128-byte rows", [](F f) { return f.E <= 2 && (f.rows <= 64 || f.cols * f.E <= 128); },
   [](F f) { return tile_route(B::tile_narrow, best_tile_shaped(f.E, best_shape::narrow), 16, true); }, "2-D: small and narrow tiles for few rows"},
  {"1-2 byte >= 16 MiB, < 768 tiles", [](F f) { return f.E <= 2 && f.tiles256 < best_half_max_tiles && f.bytes >= best_async_pipe_min_bytes; },
   [](F f) { return async_route(f, false, true); }, "2-D: cp.async tiles for squares and batches"},
  {"u8 < 768 tiles", [](F f) { return f.E == 1 && f.tiles256 < best_half_max_tiles; },
   [](F f) { return async_route(f, false, false); }, "2-D: cp.async tiles for squares and batches"},
  {"f32 16-64 MiB", [](F f) {
     return f.E == 4 && f.bytes >= best_async_pipe_min_bytes && f.bytes <= best_async_pipe_f32_max_bytes && f.rows >= 64 && f.cols >= 64; },
   [](F f) { return async_route(f, false, true); }, "2-D: cp.async tiles for squares and batches"},
  {"tile", [](F) { return true; }, [](F f) { return tile_route(B::tile, best_tile_for(f.E)); }, "2-D: the tile, one block per tile"},
};
// clang-format on
}  // namespace route_detail

constexpr const route_row* route_rows() { return route_detail::rows; }
constexpr int route_row_count = static_cast<int>(std::size(route_detail::rows));

/// The layout facts of a validated, non-empty desc with input / output at the given addresses.
constexpr route_facts route_facts_for(const matrix_desc& d, unsigned long long in_addr, unsigned long long out_addr, int cc) {
  route_facts f;
  const long long E = d.elem_size;
  f.E = d.elem_size, f.cc = cc;
  f.rows = d.rows, f.cols = d.cols, f.batch = d.batch, f.ld_in = d.ld_in, f.ld_out = d.ld_out;
  f.stride_in = d.stride_in, f.stride_out = d.stride_out;
  f.mat = d.rows * d.cols, f.bytes = d.batch * f.mat * E;
  f.batched = d.batch > 1;
  const bool same = !f.batched || (d.stride_in == f.mat && d.stride_out == f.mat);
  f.vector = same && ((d.rows == 1 && (d.cols == 1 || d.ld_out == 1)) || (d.cols == 1 && d.ld_in == 1));
  f.packed = f.batched && d.ld_in == d.cols && d.ld_out == d.rows && d.stride_in == f.mat && d.stride_out == f.mat;
  const unsigned long long parts[6] = {in_addr, out_addr, static_cast<unsigned long long>(d.ld_in * E),
                                       static_cast<unsigned long long>(d.ld_out * E),
                                       static_cast<unsigned long long>(f.batched ? d.stride_in * E : 0),
                                       static_cast<unsigned long long>(f.batched ? d.stride_out * E : 0)};
  for (unsigned long long x : parts) f.access = f.access < best_align16(x) ? f.access : best_align16(x);
  f.in16 = in_addr % 16 == 0, f.out16 = out_addr % 16 == 0;
  f.in_e = in_addr % E == 0, f.out_e = out_addr % E == 0;
  f.ira = best_in_rows_aligned(d, in_addr), f.ora = best_out_rows_aligned(d, out_addr);
  f.pin = f.in16 && (!f.batched || (d.stride_in * E) % 16 == 0);
  f.pout = f.out16 && (!f.batched || (d.stride_out * E) % 16 == 0);
  f.tiny = f.access == 16 && !f.batched && f.mat * E <= best_tiny_bytes && d.rows >= 64 && d.cols * E >= 128;
  using namespace route_detail;
  const bool keep_tile = E <= 4 && f.access == 16 && d.rows >= 32 && d.rows <= 64;
  const bool wide_gather = (E == 8 || E == 16) && d.rows <= best_gather_wide_max_rows && f.access < 16;
  f.gather = (short_ok(f.E, d.rows) || wide_gather) && d.rows * best_slab_min_aspect <= d.cols && d.ld_out == d.rows &&
             (!keep_tile || wide_pipe(f, true));
  f.scatter = !f.gather && short_ok(f.E, d.cols) && d.cols * best_slab_min_aspect <= d.rows && d.ld_in == d.cols;
  f.tiles256 = (d.rows + 255) / 256 * ((d.cols * E + 255) / 256) * d.batch;
  // Small matrices: packed, or (where no gather / scatter slab takes them) output packed and input with gaps.
  const bool out_packed = d.ld_out == d.rows && d.stride_out == f.mat;
  const bool in_gaps = d.ld_in >= d.cols && d.stride_in >= d.rows * d.ld_in && d.stride_in <= best_whole_max_read * f.mat;
  f.whole = (f.packed || (f.batched && out_packed && in_gaps && !f.gather && !f.scatter)) &&
            f.mat * E <= best_class_policy_for(cc, f.E).whole_max_bytes && d.rows > 1 && d.cols > 1;
  return f;
}

/// The route `best` takes: the first row of the table whose condition holds.
constexpr route route_for(const route_facts& f) {
  for (int i = 0; i < route_row_count; ++i)
    if (route_detail::rows[i].when(f)) {
      route r = route_detail::rows[i].make(f);
      r.row = i;
      return r;
    }
  return route{};
}
constexpr route route_for(const matrix_desc& d, unsigned long long in_addr, unsigned long long out_addr, int cc) {
  return route_for(route_facts_for(d, in_addr, out_addr, cc));
}

}  // namespace xpose::detail
