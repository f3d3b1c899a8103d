// The decision `best` made before the route table: best_path_for (policy.hpp, under the
// default flag) and every decision variants/best.cu made after it returned, as host code
// producing a route. Only for the equivalence check (route_equiv.cpp) against route_for.
#pragma once

#include "../../src/cuda/route_table.hpp"

namespace xpose::detail::old {

inline route old_route(const matrix_desc& d, unsigned long long ia, unsigned long long oa, int cc) {
  const best_choice c = best_path_for(d, ia, oa, cc, false);
  const bool tg_candidate = false;
  const int E = d.elem_size;
  route r;
  r.path = c.path;
  auto tile = [&](route_kernel k, best_tile t) { r.kernel = k, r.tile = t; };
  // slab_path
  auto slab_path = [&](int M, int SS, int MW, int MINB, int sb) {
    r.kernel = route_kernel::slab, r.mode = M, r.side = SS, r.micro = MW;
    r.min_blocks = SS > 0 ? best_slab_group_min_blocks : MINB;
    best_class_policy pol = best_class_policy_for(cc, E, tg_candidate);
    if (M == 1 && MW > 0 && (d.ld_out * E) % 16 != 0) pol.slab_bytes = best_slab_micro_ragged_bytes_for(E);
    if (sb > 0) pol.slab_bytes = sb;
    r.slab = r.call_slab = best_slab_bytes_for(pol, d.elements() * E);
  };
  auto pipe_path = [&](int M, int SS, int MW, int MINB, bool H, bool A, int sb) {
    r.kernel = route_kernel::pipe, r.mode = M, r.side = SS, r.micro = MW, r.min_blocks = MINB, r.halo = H, r.lean = A;
    const bool gather = M == 0, shift = H && gather;
    best_class_policy pol = best_class_policy_for(cc, E, tg_candidate);
    if (sb > 0) pol.slab_bytes = sb;
    const bool aligned = best_in_rows_aligned(d, ia);
    const int bytes = best_pipe_slab_bytes(E, gather, SS, pol.slab_bytes, shift, aligned, tg_candidate, cc);
    r.depth = shift ? best_gather_shift_depth : 2;
    r.slab = bytes;
    best_class_policy call = pol;
    call.slab_bytes = bytes;
    r.call_slab = best_slab_bytes_for(call, d.elements() * E);
    r.span64 = M == 1 && MW > 0 && !H && best_scatter_span64(1000003, E, tg_candidate) != 1000003;
  };
  auto pipe_group = [&](int M, int SS, bool H, int sb) {
    const int minb = best_pipe_min_blocks(E, M == 0, SS, H);
    bool A = false;
    if (M == 0 && best_gather_lean_kernel(E, H, SS) && best_gather_lean_on(E, tg_candidate) &&
        best_gather_lean_fits(d, ia, oa))
      A = true;
    pipe_path(M, SS, 0, minb, H, A, sb);
  };
  auto fit = [&](bool Realign) {
    const int TR = best_fit_tile_rows(E, d.rows);
    bool Dense = false, Deep = false;
    if (E == best_fit_dense_elem && TR <= best_fit_dense_max_rows) Dense = true;
    else if (E == 1 && ((TR == 48 && !Realign) || (TR == 96 && Realign)) &&
             best_fit_deep_on(E, TR, Realign, cc, tg_candidate))
      Deep = true;
    if (E == 4 || E == 8) Dense = Deep = false;
    tile(Realign ? route_kernel::realign : route_kernel::tile, best_tile_fit_for(E, TR, Realign, Dense, Deep));
    r.realign = Realign, r.deep = Realign && Deep;
  };
  switch (c.path) {
    case best_path::copy: break;
    case best_path::slab_gather: slab_path(0, E <= 4 ? c.group : 0, 0, 1, 0); break;
    case best_path::slab_scatter: slab_path(1, E <= 4 ? c.group : 0, 0, 1, c.slab); break;
    case best_path::slab_whole: slab_path(2, 0, 0, 1, 0); break;
    case best_path::slab_gather_micro: {
      const best_micro mc = best_slab_micro_for(E, best_path::slab_gather_micro);
      slab_path(0, 0, mc.width, mc.min_blocks, 0);
      break;
    }
    case best_path::slab_scatter_micro: {
      const best_micro mc = best_slab_micro_for(E, best_path::slab_scatter_micro);
      slab_path(1, 0, mc.width, mc.min_blocks, 0);
      break;
    }
    case best_path::slab_whole_micro: r.path = best_path::slab_whole_micro; r.kernel = route_kernel::copy; r.row = -2; break;
    case best_path::slab_whole_micro_pipe: {
      const best_micro mc = best_slab_micro_for(E, best_path::slab_whole_micro);
      pipe_path(2, 0, mc.width, mc.min_blocks, false, false, 0);
      break;
    }
    case best_path::realign: tile(route_kernel::realign, best_tile_realign_for(E)); break;
    case best_path::realign_skew: tile(route_kernel::skew, best_tile_skew_for(E)); break;
    case best_path::tile_access: {
      int A = E;
      if (E <= 4 && (c.access == 8 || c.access == 4)) A = c.access;
      else if (E == 1 && c.access == 2) A = 2;
      tile(route_kernel::tile, best_tile_narrow_for(E));
      r.access = A;
      break;
    }
    case best_path::tile_few_rows: tile(route_kernel::tile, best_tile_shaped(E, best_shape::few_rows)); break;
    case best_path::tile_narrow:
      if (E >= 4 && E <= 8 && best_tiny_small_takes(d, tg_candidate)) {
        tile(route_kernel::tile, best_tile_tiny_small_for(E));
        r.late = true;
      } else {
        tile(route_kernel::tile, best_tile_shaped(E, best_shape::narrow));
        r.late = best_route_on(best_late_wait_default, tg_candidate);
      }
      break;
    case best_path::tile: tile(route_kernel::tile, best_tile_for(E)); break;
    case best_path::slab_gather_pipe: pipe_group(0, c.group, false, 0); break;
    case best_path::slab_scatter_pipe: pipe_group(1, c.group, false, 0); break;
    case best_path::slab_gather_micro_pipe:
      pipe_path(0, 0, best_pipe_micro_width_for(E), best_pipe_micro_min_blocks(true), false, false, 0);
      break;
    case best_path::slab_scatter_micro_pipe:
      pipe_path(1, 0, best_pipe_micro_width_for(E), best_pipe_micro_min_blocks(false), false, false, 0);
      break;
    case best_path::tile_half: tile(route_kernel::tile, best_tile_half_for(E)); break;
    case best_path::tile_async:
    case best_path::tile_async_batch: {
      const best_async_tile T = best_tile_async_for(E, c.path == best_path::tile_async_batch);
      tile(route_kernel::async_tile, T.t);
      r.tpb = T.tpb;
      break;
    }
    case best_path::tile_async_pipe:
    case best_path::tile_async_pipe_batch: {
      const best_async_pipe P = best_tile_async_pipe_for(E, c.path == best_path::tile_async_pipe_batch);
      tile(route_kernel::async_pipe, P.a.t);
      r.tpb = P.a.tpb, r.stages = P.stages;
      break;
    }
    case best_path::realign_skew_async:
      tile(route_kernel::skew_async, best_tile_skew_async_for(E, best_skew_async_halo(E)));
      r.halo = best_skew_async_halo(E), r.stages = best_skew_async_stages;
      break;
    case best_path::realign_skew_sector:
      tile(route_kernel::skew_async, best_tile_skew_sector_for(E));
      r.halo = true, r.oa = best_skew_sector_bytes, r.stages = best_skew_async_stages;
      break;
    case best_path::realign_async: tile(route_kernel::async_realign, best_tile_async_realign_for(E)); break;
    case best_path::realign_skew_fit: tile(route_kernel::skew, best_tile_skew_fit_for(E)); break;
    case best_path::realign_skew_async_fit:
      tile(route_kernel::skew_async, best_tile_skew_async_fit_for(E));
      r.stages = best_skew_async_stages;
      break;
    case best_path::tile_fit: fit(false); break;
    case best_path::realign_fit: fit(true); break;
    case best_path::slab_interleave_gather:
    case best_path::slab_interleave_scatter: {
      const bool G = c.path == best_path::slab_interleave_gather;
      r.kernel = route_kernel::interleave, r.mode = G ? 0 : 1;
      r.side = static_cast<int>(G ? d.rows : d.cols);
      r.realign = G && !best_interleave_aligned(d, true, ia, oa);
      break;
    }
    case best_path::slab_scatter_pipe_halo: pipe_group(1, c.group, true, c.slab); break;
    case best_path::slab_gather_pipe_shift: pipe_group(0, c.group, true, 0); break;
    case best_path::slab_gather_micro_shift:
      pipe_path(0, 0, best_pipe_micro_width, best_pipe_micro_min_blocks(true), true, false, 0);
      break;
    case best_path::slab_scatter_micro_halo:
      pipe_path(1, 0, best_pipe_micro_width_for(E), best_pipe_micro_min_blocks(false), true, false, c.slab);
      break;
    case best_path::slab_scatter_direct: {
      const int SS = c.group;
      const int Depth = c.slab > 0 ? best_scatter_direct2_depth : best_scatter_direct_depth;
      r.kernel = route_kernel::direct, r.mode = 1, r.side = SS, r.min_blocks = best_scatter_direct_min_blocks(SS);
      r.depth = Depth;
      best_class_policy pol = best_class_policy_for(cc, E, tg_candidate);
      if (c.slab > 0) pol.slab_bytes = c.slab;
      r.slab = pol.slab_bytes;
      r.call_slab = best_slab_bytes_for(pol, d.elements() * E);
      break;
    }
  }
  return r;
}

/// The old shift-gather depth rule (pipe_path: depth 3, or 2 where 2 fits more blocks).
inline int old_depth(bool shift, long long n3, long long n2, bool smaller_two) {
  int depth = shift ? best_gather_shift_depth : 2;
  if (depth > 2 && smaller_two && n2 > n3) depth = 2;
  return depth;
}

}  // namespace xpose::detail::old
