// The route of the N-d plans (nd_route_of, one decision): the kernel and tile a permute_nd or strided_copy plan runs
// with these pointers. Host code shared by permute_nd.cu and the CPU tests. docs/RESULTS.md, "N-d: kernel choice".
#pragma once

#include <cstring>

#include "xpose/plan.hpp"
#include "../../core/nd_map.hpp"
#include "../../core/span_map.hpp"
#include "policy_nd.hpp"

namespace xpose::detail {

/// A vector tile shape (nd_vtile_for's v), packed sides or not, and the fraction of its slots the plan fills.
struct vtile_choice {
  int v = 0;
  bool pack = false;
  double fill = 0;
};
/// Of shapes v_lo <= v < v_hi, the one whose make_vtile_groups fill most of its slots; ties keep the larger tile.
inline vtile_choice nd_vtile_best(const plan& p, bool pack, int v_lo, int v_hi) {
  const int E = p.in.elem_size;
  vtile_choice c{v_lo, pack, -1};
  for (int v = v_lo; v < v_hi; ++v) {
    const nd_geom t = nd_vtile_for(E, v);
    const int ta = t.chunks * 16 / E, tb = t.rows;
    const vtile_groups g = make_vtile_groups(p, ta, tb, pack);
    const double f = tile_fill(g.na, ta) * tile_fill(g.nb, tb);
    if (f > c.fill + 1e-12) c.fill = f, c.v = v;
  }
  return c;
}
/// The same on one dim per side, or on packed sides where those fill over nd_pack_gain times the slots.
inline vtile_choice nd_vtile_pack_or_flat(const plan& p, int v_lo, int v_hi) {
  const vtile_choice flat = nd_vtile_best(p, false, v_lo, v_hi), packed = nd_vtile_best(p, true, v_lo, v_hi);
  return packed.fill > nd_pack_gain * flat.fill ? packed : flat;
}
/// The vector tile's shape and packing for a permute_nd plan, by the rule at nd_pack_gain (policy_nd.hpp).
inline vtile_choice nd_vtile_choice(const plan& p) {
  if (p.in.elem_size >= 4) {
    const vtile_choice full = nd_vtile_pack_or_flat(p, 0, 1);
    if (full.fill >= nd_full_fill) return full;
  }
  const vtile_choice half = nd_vtile_pack_or_flat(p, 1, 3);
  if (!half.pack && half.fill > nd_flat_fill) return half;
  const vtile_choice small = nd_vtile_best(p, true, 3, nd_vtile_shapes);
  return small.fill > nd_short_gain * half.fill ? small : half;
}

/// Whether a vtile_map's every index fits the 32-bit divisors.
template <class Map>
bool vtile_fits32(const Map& m) {
  return fits32(m.tiles) && fits32(m.n_a) && fits32(m.n_b);
}
/// The vector tile's map for a plan on choice c (Map: vtile_map, or vtile_map32 where vtile_fits32).
template <class Map = vtile_map>
inline Map make_vtile_choice_map(const plan& p, const vtile_choice& c) {
  const nd_geom bt = nd_vtile_for(p.in.elem_size, c.v);
  return make_vtile_map<Map>(p, bt.chunks * 16 / p.in.elem_size, bt.rows, c.pack);
}

/// The packed tile's shape (nd_ptile_for): the square shape 0 unless a thin one (1, 2: a quarter of its elements)
/// fills over nd_ptile_thin_gain times its slots (then the thin one that fills more; ties keep 1). *fill: its fill.
inline int nd_ptile_shape(const plan& p, double* fill = nullptr) {
  const int E = p.in.elem_size;
  double f[nd_ptile_shapes];
  for (int s = 0; s < nd_ptile_shapes; ++s) {
    const int ta = ptile_side(E, nd_ptile_for(s).la), tb = ptile_side(E, nd_ptile_for(s).lb);
    const vtile_groups g = make_vtile_groups(p, ta, tb, true);
    f[s] = tile_fill(g.na, ta) * tile_fill(g.nb, tb);
  }
  const int thin = f[2] > f[1] + 1e-12 ? 2 : 1;
  const int best = f[thin] > nd_ptile_thin_gain * f[0] + 1e-12 ? thin : 0;
  if (fill) *fill = f[best];
  return best;
}
/// The packed tile's map for shape s (Map: vtile_map, or vtile_map32 where vtile_fits32).
template <class Map = vtile_map>
inline Map make_ptile_map(const plan& p, int s) {
  const int E = p.in.elem_size;
  return make_vtile_map<Map>(p, ptile_side(E, nd_ptile_for(s).la), ptile_side(E, nd_ptile_for(s).lb), true);
}

/// Whether a permute_nd plan the vector tile cannot move runs the packed tile rather than the span tile: 8-16 byte
/// elements whose packed tile shape fills at least nd_ptile_min_fill of its slots (policy_nd.hpp); *shape: it.
inline bool nd_ptile_takes(const plan& p, int* shape) {
  if (p.in.elem_size < 8) return false;  // no shape search for the plans the span tile takes anyway
  double fill = 0;
  *shape = nd_ptile_shape(p, &fill);
  return fill >= nd_ptile_min_fill;
}

/// The kernels of the N-d plans (permute_nd.cu).
enum class nd_kernel : int {
  vtile,       // permute_nd: best's 16-byte tile on packed sides (nd_vtile_kernel)
  ptile,       // permute_nd: the packed tile (8-16 byte elements where its square tile fills)
  span,        // permute_nd: the span tile (span_map.hpp), every other plan the vector tile cannot move
  row_stream,  // strided_copy: rows >= 128 B in units under 16 B
  rtile,       // strided_copy: the row tile (kept rows under 128 B back to back)
  run_tile,    // strided_copy: the run tile (kept runs of 1-8 whole 16-byte chunks)
  copy         // strided_copy: the element copy
};
constexpr const char* nd_kernel_name(nd_kernel k) {
  switch (k) {
    case nd_kernel::vtile: return "vtile";
    case nd_kernel::ptile: return "ptile";
    case nd_kernel::span: return "span";
    case nd_kernel::row_stream: return "row_stream";
    case nd_kernel::rtile: return "rtile";
    case nd_kernel::run_tile: return "run_tile";
    default: return "copy";
  }
}

/// The route of a permute_nd or strided_copy plan: its kernel and that kernel's choices.
struct nd_route {
  nd_kernel kernel = nd_kernel::copy;
  vtile_choice vt;       // vtile: shape and packing
  int shape = 0;         // ptile: nd_ptile_for's shape
  span_choice span;      // span: its tile and predicted fraction of a copy
  int unit = 0;          // row_stream: row_unit; copy: the unit moved (bytes)
  plan q;                // span: the plan it moves (a strided copy's in row units); rtile: over rows; run_tile: over runs
  index_t R = 0;         // rtile: row length in q's elements
  int chunks = 0;        // run_tile: 16-byte chunks per run
  bool half = false;     // run_tile: the half tile (nd_run_tile_b)
};

/// The route of plan p with these pointers (nd_route_of below caches it). permute_nd: the vector tile where its shape's map moves whole aligned
/// 16-byte chunks (2-16 byte elements, no conjugation; vtile_vector_ok), else the packed tile where
/// nd_ptile_takes, else the span tile. strided_copy: the row stream where row_stream_takes, else the run tile for runs of whole
/// chunks (runs_plan; 32-bit maps, 16-byte aligned pointers), else the row tile for short rows that are not whole
/// chunks (rtile_plan), else the element copy in the widest unit (copy_unit; elements where it conjugates).
inline nd_route nd_route_plan(const plan& p, const void* in, const void* out) {
  nd_route r;
  const int E = p.in.elem_size;
  if (p.algo == algorithm::permute_nd) {
    if (!p.conjugate && E >= 2) {
      r.vt = nd_vtile_choice(p);
      r.kernel = nd_kernel::vtile;
      if (vtile_vector_ok(make_vtile_choice_map(p, r.vt), E, in, out)) return r;
    }
    if (nd_ptile_takes(p, &r.shape)) {
      r.kernel = nd_kernel::ptile;
      return r;
    }
    r.kernel = nd_kernel::span;
    r.q = p;
    r.span = span_choose(p, in, out);
    return r;
  }
  const int u = row_unit(p, in, out);
  if (row_stream_takes(u, p.out.extents[p.out.rank - 1] * E)) {
    r.kernel = nd_kernel::row_stream, r.unit = u;
    return r;
  }
  if (runs_plan(p, &r.q, &r.chunks)) {
    const int tb = nd_run_tile_b(r.chunks), th = nd_run_tile_b(r.chunks, true);
    const vtile_groups f = make_vtile_groups(r.q, nd_run_tile_a, tb, true), h = make_vtile_groups(r.q, nd_run_tile_a, th, true);
    r.half = tile_fill(h.na, nd_run_tile_a) * tile_fill(h.nb, th) > tile_fill(f.na, nd_run_tile_a) * tile_fill(f.nb, tb) + 1e-12;
    const vtile_map m = make_vtile_map<vtile_map>(r.q, nd_run_tile_a, nd_run_tile_b(r.chunks, r.half), true);
    r.kernel = nd_kernel::run_tile;
    if (vtile_fits32(m) && reinterpret_cast<std::uintptr_t>(in) % 16 == 0 && reinterpret_cast<std::uintptr_t>(out) % 16 == 0)
      return r;
  }
  if (span_takes_rows(u > 0 ? u : E, p.out.extents[p.out.rank - 1] * E)) {
    r.q = widen_rows(p, u);
    r.kernel = nd_kernel::span;
    r.span = span_choose(r.q, in, out);
    return r;
  }
  if (rtile_plan(p, &r.q, &r.R)) {
    rtile_widen(&r.q, &r.R, u);
    r.kernel = nd_kernel::rtile;
    return r;
  }
  r.kernel = nd_kernel::copy, r.unit = p.conjugate ? E : copy_unit(p, in, out);
  return r;
}

/// nd_route_plan for plan p with these pointers, cached per thread for the last plan and pointer alignments (the
/// route depends on the pointers only modulo 32): a repeated call costs a plan comparison, not the span planner's
/// candidates (1-3.5 us at ranks 3-8).
inline nd_route nd_route_of(const plan& p, const void* in, const void* out) {
  struct entry {
    plan p;
    unsigned ai = 0, ao = 0;
    bool valid = false;
    nd_route r;
  };
  static thread_local entry last;
  const unsigned ai = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(in) % 32);
  const unsigned ao = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(out) % 32);
  if (last.valid && last.ai == ai && last.ao == ao && std::memcmp(&last.p, &p, sizeof(plan)) == 0) return last.r;
  last.r = nd_route_plan(p, in, out);
  last.p = p, last.ai = ai, last.ao = ao, last.valid = true;
  return last.r;
}

}  // namespace xpose::detail
