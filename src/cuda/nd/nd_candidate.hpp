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

/// The vector tile shape (nd_vtile_for's v < shapes) for a plan of E-byte elements: the
/// shape whose best groups (make_vtile_map) fill the largest fraction of its tile slots;
/// ties keep the lower v (the larger tile).
inline int nd_vtile_shape_for(const plan& p, bool pack, int shapes = nd_vtile_shapes - 1) {
  const int E = p.in.elem_size;
  int best_v = 0;
  double best = -1;
  for (int v = 0; v < shapes; ++v) {
    const best_tile t = nd_vtile_for(E, v);
    const int ta = t.chunks * 16 / E, tb = t.rows;
    const vtile_map m = make_vtile_map<vtile_map>(p, ta, tb, pack);
    const double f = tile_fill(m.n_a, ta) * tile_fill(m.n_b, tb);
    if (f > best + 1e-12) best = f, best_v = v;
  }
  return best_v;
}

}  // namespace xpose::detail
