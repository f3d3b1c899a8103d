// Internal run-time choice of the N-d kernels, for same-run A/B measurements
// (`xpose-bench ttc --ab`) and the GPU tests that run every candidate. Not public API:
// the library's default is nd_kernel_default (policy_nd.hpp). The routing below is
// host code (the launcher in permute_nd.cu and the CPU tests share it).
#pragma once

#include "xpose/plan.hpp"
#include "../../core/nd_map.hpp"
#include "policy_nd.hpp"

namespace xpose::detail {

/// Process-wide; applies to launches issued after the call (relaxed atomic).
void set_nd_candidate(nd_kernel k) noexcept;
nd_kernel nd_candidate() noexcept;
/// Measurement only: false sends strided copies to the element copy and run tile
/// instead of the row stream (row_unit, nd_map.hpp).
void set_nd_row_stream(bool on) noexcept;

/// The kernel a permute_nd or strided_copy plan runs under the current candidate with
/// these pointers (nd_route).
nd_kernel nd_kernel_for(const plan& p, const void* in, const void* out) noexcept;

/// A vector tile shape (nd_vtile_for's v), packed sides or not, and the fraction of its
/// tile slots the plan fills.
struct vtile_choice {
  int v = 0;
  bool pack = false;
  double fill = 0;
};

/// Of the shapes v_lo <= v < v_hi, the one whose best groups (make_vtile_groups) fill the
/// largest fraction of its tile slots; ties keep the lower v (the larger tile).
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

/// The shape choice of vtile (shapes 0-2, packed), vtile_flat, vtile_small (0-3, packed).
inline int nd_vtile_shape_for(const plan& p, bool pack, int shapes = 3) { return nd_vtile_best(p, pack, 0, shapes).v; }

/// The short-B shapes 4-6 (packed) where they fill nd_fit_gain times the slots of `base`.
inline vtile_choice nd_vtile_fit(const plan& p, const vtile_choice& base) {
  const vtile_choice small = nd_vtile_best(p, true, 4, nd_vtile_shapes);
  return small.fill > nd_fit_gain * base.fill ? small : base;
}

/// The shape and packing a vector tile candidate runs a plan with. vtile_tuned: the
/// 128-thread shapes, packed only where that fills over 1.15x the slots (docs/RESULTS.md,
/// "N-d permutation (issue 17)", third round: best's 256-thread tile ran 0.05-0.08 below
/// them at equal fill, and packing cost where it gained little fill). vtile_fit,
/// vtile_rows: vtile_tuned's, vtile_rows_packed: vtile's, each or a short-B shape;
/// vtile_rows_auto, vtile_rows_occ: vtile_tuned's, or a short-B shape where that is packed
/// or fills little; vtile_rows_wide: 4- to 16-byte elements take shape 0 where it fills.
inline vtile_choice nd_vtile_choice(const plan& p, nd_kernel k) {
  switch (k) {
    case nd_kernel::vtile_flat: return nd_vtile_best(p, false, 0, 3);
    case nd_kernel::vtile_small: return nd_vtile_best(p, true, 0, 4);
    case nd_kernel::vtile_tuned:
    case nd_kernel::vtile_fit:
    case nd_kernel::vtile_rows:
    case nd_kernel::vtile_rows_occ:
    case nd_kernel::vtile_rows_auto:
    case nd_kernel::vtile_rows_wide: {
      const vtile_choice flat = nd_vtile_best(p, false, 1, 3), packed = nd_vtile_best(p, true, 1, 3);
      const vtile_choice tuned = packed.fill > 1.15 * flat.fill ? packed : flat;
      if (k == nd_kernel::vtile_tuned) return tuned;
      if (k == nd_kernel::vtile_rows_wide && p.in.elem_size >= 4) {
        const vtile_choice flat0 = nd_vtile_best(p, false, 0, 1), packed0 = nd_vtile_best(p, true, 0, 1);
        const vtile_choice wide = packed0.fill > 1.15 * flat0.fill ? packed0 : flat0;
        if (wide.fill >= nd_wide_fill) return wide;
      }
      const bool autos = k == nd_kernel::vtile_rows_auto || k == nd_kernel::vtile_rows_occ || k == nd_kernel::vtile_rows_wide;
      if (autos && !tuned.pack && tuned.fill > nd_auto_flat_fill) return tuned;
      return nd_vtile_fit(p, tuned);
    }
    case nd_kernel::vtile_rows_packed: return nd_vtile_fit(p, nd_vtile_best(p, true, 0, 3));
    default: return nd_vtile_best(p, true, 0, 3);
  }
}

/// Whether a vtile_map's every index fits the 32-bit divisors.
template <class Map>
bool vtile_fits32(const Map& m) {
  return nd_index32 && fits32(m.tiles) && fits32(m.n_a) && fits32(m.n_b);
}

/// The shape and map of candidate k's vector tile for a permute_nd plan, or false where
/// its kernel cannot run it (1-byte elements, conjugation, chunks that 16-byte accesses
/// cannot move).
inline bool vtile_plan(const plan& p, const void* in, const void* out, nd_kernel k, vtile_choice* c, vtile_map* m) {
  const int E = p.in.elem_size;
  if (p.conjugate || E < 2) return false;
  *c = nd_vtile_choice(p, k);
  const nd_geom bt = nd_vtile_for(E, c->v);
  *m = make_vtile_map<vtile_map>(p, bt.chunks * 16 / E, bt.rows, c->pack);
  return vtile_vector_ok(*m, E, in, out);
}

/// The packed tile's shape (nd_ptile_for) for a permute_nd plan: the one whose packed
/// sides (make_vtile_groups) fill the largest fraction of its slots; ties keep the lower
/// shape (the larger tile).
inline int nd_ptile_shape(const plan& p) {
  const int E = p.in.elem_size;
  int best = 0;
  double fill = -1;
  for (int s = 0; s < nd_ptile_shapes; ++s) {
    const int ta = ptile_side(E, nd_ptile_for(s).la), tb = ptile_side(E, nd_ptile_for(s).lb);
    const vtile_groups g = make_vtile_groups(p, ta, tb, true);
    const double f = tile_fill(g.na, ta) * tile_fill(g.nb, tb);
    if (f > fill + 1e-12) fill = f, best = s;
  }
  return best;
}

/// Whether a permute_nd plan that takes the packed tile runs the flat tile instead
/// (ftile_groups, nd_map.hpp): where it is of its class and fills more of its slots than
/// the packed tile's best shape does; *g: its groups.
inline bool nd_ftile_takes(const plan& p, vtile_groups* g) {
  if (!ftile_groups(p, g)) return false;
  const int E = p.in.elem_size, s = nd_ptile_shape(p);
  const int ta = ptile_side(E, nd_ptile_for(s).la), tb = ptile_side(E, nd_ptile_for(s).lb);
  const vtile_groups pg = make_vtile_groups(p, ta, tb, true);
  return ftile_fill(*g, E) > tile_fill(pg.na, ta) * tile_fill(pg.nb, tb) + 1e-12;
}

/// Whether a strided copy runs the row tile (rtile_plan, nd_map.hpp): where it is of its
/// class and the run tile (whole 16-byte chunks) cannot take it; *q, *R: its row plan in
/// the widest unit the rows, strides and pointers allow (rtile_widen, row_unit).
inline bool nd_rtile_takes(const plan& p, plan* q, index_t* R, const void* in = nullptr, const void* out = nullptr) {
  plan rq;
  int chunks = 0;
  if (runs_plan(p, &rq, &chunks) || !rtile_plan(p, q, R)) return false;
  rtile_widen(q, R, row_unit(p, in, out));
  return true;
}

/// The packed tile's map for shape s (Map: vtile_map, or vtile_map32 where vtile_fits32).
template <class Map = vtile_map>
inline Map make_ptile_map(const plan& p, int s) {
  const int E = p.in.elem_size;
  return make_vtile_map<Map>(p, ptile_side(E, nd_ptile_for(s).la), ptile_side(E, nd_ptile_for(s).lb), true);
}

/// Whether candidate k runs the run tile's Fit variant (warp-shared row bases under the
/// register bound nd_fit_run_min_blocks; permute_nd.cu).
constexpr bool nd_run_tile_fit(nd_kernel k) { return k == nd_kernel::vtile_fit || nd_kernel_rows(k); }

/// The longest run (in 16-byte chunks) that candidate k moves with the run tile (while
/// nd_run_tile); 0: none (the policy copy).
constexpr int nd_run_tile_chunks(nd_kernel k) {
  if (k == nd_kernel::vtile || k == nd_kernel::vtile_tuned) return 8;
  if (nd_run_tile_fit(k)) return nd_fit_run_chunks;
  return 0;
}

/// The run tile's plan over runs and map for a strided copy under candidate k, or false
/// where it does not run (runs longer than nd_run_tile_chunks(k); 32-bit maps only: the
/// 64-bit one spilled at 128 registers). *half: the Fit variant's half tile
/// (nd_run_tile_b), where its map fills more of its slots.
inline bool run_tile_plan(const plan& p, const void* in, const void* out, nd_kernel k, plan* q, int* chunks,
                          vtile_map* m, bool* half) {
  *half = false;
  if (!nd_run_tile || !runs_plan(p, q, chunks) || *chunks > nd_run_tile_chunks(k)) return false;
  if (nd_run_tile_fit(k)) {
    const int tb = nd_run_tile_b(*chunks), th = nd_run_tile_b(*chunks, true);
    const vtile_groups f = make_vtile_groups(*q, nd_run_tile_a, tb, true), h = make_vtile_groups(*q, nd_run_tile_a, th, true);
    *half = tile_fill(h.na, nd_run_tile_a) * tile_fill(h.nb, th) > tile_fill(f.na, nd_run_tile_a) * tile_fill(f.nb, tb) + 1e-12;
  }
  *m = make_vtile_map<vtile_map>(*q, nd_run_tile_a, nd_run_tile_b(*chunks, *half), true);
  return vtile_fits32(*m) && reinterpret_cast<std::uintptr_t>(in) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
}

/// The kernel a permute_nd or strided_copy plan runs under candidate k with these
/// pointers: k, or policy where k cannot move it.
inline nd_kernel nd_route(const plan& p, const void* in, const void* out, nd_kernel k) {
  vtile_map m;
  if (p.algo == algorithm::strided_copy) {
    plan q;
    int chunks = 0;
    bool half = false;
    return run_tile_plan(p, in, out, k, &q, &chunks, &m, &half) ? k : nd_kernel::policy;
  }
  vtile_choice c;
  if (p.algo != algorithm::permute_nd || k == nd_kernel::policy || !vtile_plan(p, in, out, k, &c, &m))
    return nd_kernel::policy;
  return k;
}

}  // namespace xpose::detail
