// Internal run-time choice of the permute_nd kernel, for same-run A/B measurements
// (`xpose-bench ttc --ab`) and the GPU tests that run every candidate. Not public API:
// the library's default is nd_kernel_default (policy_nd.hpp).
#pragma once

#include "xpose/plan.hpp"
#include "../../core/nd_map.hpp"
#include "policy_nd.hpp"

namespace xpose::detail {

/// Process-wide; applies to launches issued after the call (relaxed atomic).
void set_nd_candidate(nd_kernel k) noexcept;
nd_kernel nd_candidate() noexcept;

/// The kernel a permute_nd plan runs under the current candidate with these pointers
/// (the candidate, or policy where the candidate cannot move the shape).
nd_kernel nd_kernel_for(const plan& p, const void* in, const void* out) noexcept;

/// A vector tile shape (nd_vtile_for's v), packed sides or not, and the fraction of its
/// tile slots the plan fills.
struct vtile_choice {
  int v = 0;
  bool pack = false;
  double fill = 0;
};

/// Of the shapes v_lo <= v < v_hi, the one whose best groups (make_vtile_map) fill the
/// largest fraction of its tile slots; ties keep the lower v (the larger tile).
inline vtile_choice nd_vtile_best(const plan& p, bool pack, int v_lo, int v_hi) {
  const int E = p.in.elem_size;
  vtile_choice c{v_lo, pack, -1};
  for (int v = v_lo; v < v_hi; ++v) {
    const best_tile t = nd_vtile_for(E, v);
    const int ta = t.chunks * 16 / E, tb = t.rows;
    const vtile_map m = make_vtile_map<vtile_map>(p, ta, tb, pack);
    const double f = tile_fill(m.n_a, ta) * tile_fill(m.n_b, tb);
    if (f > c.fill + 1e-12) c.fill = f, c.v = v;
  }
  return c;
}

/// The shape choice of vtile (shapes 0-2, packed), vtile_flat, vtile_small (0-3, packed).
inline int nd_vtile_shape_for(const plan& p, bool pack, int shapes = nd_vtile_shapes - 1) {
  return nd_vtile_best(p, pack, 0, shapes).v;
}

/// The shape and packing a vector tile candidate runs a plan with. vtile_tuned: the
/// 128-thread shapes, packed only where that fills over 1.15x the slots (docs/RESULTS.md,
/// "N-d permutation (issue 17)", third round: best's 256-thread tile ran 0.05-0.08 below
/// them at equal fill, and packing cost where it gained little fill).
inline vtile_choice nd_vtile_choice(const plan& p, nd_kernel k) {
  switch (k) {
    case nd_kernel::vtile_flat: return nd_vtile_best(p, false, 0, nd_vtile_shapes - 1);
    case nd_kernel::vtile_small: return nd_vtile_best(p, true, 0, nd_vtile_shapes);
    case nd_kernel::vtile_tuned: {
      const vtile_choice flat = nd_vtile_best(p, false, 1, 3), packed = nd_vtile_best(p, true, 1, 3);
      return packed.fill > 1.15 * flat.fill ? packed : flat;
    }
    default: return nd_vtile_best(p, true, 0, nd_vtile_shapes - 1);
  }
}

}  // namespace xpose::detail
