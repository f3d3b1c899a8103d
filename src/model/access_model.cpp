// The access model's walk over a launch: for each warp instruction of
// src/cuda/ladder.cuh, the lanes' addresses come from the rung's index maps, exactly
// as the kernel computes them, and are counted by warp_cost.cpp's rules. The same
// walk, with a trace attached, is the CPU bijection check of the maps.
#include <algorithm>
#include <cstdio>
#include <new>
#include <vector>

#include "xpose/index_map.hpp"
#include "xpose/model.hpp"

namespace xpose::model {
namespace {

constexpr int tile_edge = maps::ladder_tile;
using lane_offsets = std::array<index_t, 32>;  // element offsets, -1 = lane inactive

/// A checked config with the packed defaults filled in.
struct layout {
  maps::pattern p;
  int es;
  int block_y;
  index_t rows, cols, ld_in, ld_out;
  bool staged;
  bool transposes;
};

layout resolve(const config& c) {
  const auto p = static_cast<maps::pattern>(c.pattern);
  const bool tr = maps::transposes(p);
  const index_t ld_in = c.ld_in ? c.ld_in : c.cols;
  // Copy rungs write the input's layout (registry: "stride_in applies to both").
  const index_t ld_out = !tr ? ld_in : (c.ld_out ? c.ld_out : c.rows);
  return {p, c.elem_size, c.block_y, c.rows, c.cols, ld_in, ld_out, maps::uses_smem(p), tr};
}

/// Where each lane of the warp at step i of tile (r0, c0) accesses, as element
/// offsets into the access's own space (input, shared tile or output). Activity
/// mirrors the kernel's guards: the load side by the input coordinate, the staged
/// store side by the output coordinate, the unstaged store inside the load's guard.
lane_offsets offsets(const layout& L, access a, index_t r0, index_t c0, int i) {
  lane_offsets o;
  for (int tx = 0; tx < 32; ++tx) {
    const maps::rc x = maps::load_coord(L.p, r0, c0, tx, i);
    const maps::rc y = maps::store_coord(L.p, r0, c0, tx, i);
    const bool load_inside = x.r < L.rows && x.c < L.cols;
    const bool store_inside = L.transposes ? (y.r < L.cols && y.c < L.rows) : (y.r < L.rows && y.c < L.cols);
    index_t off = -1;
    switch (a) {
      case access::global_load:
        if (load_inside) off = maps::in_offset(0, x, L.ld_in, 0);
        break;
      case access::smem_store:
        if (load_inside) off = maps::smem_offset(L.p, maps::smem_store_slot(L.p, tx, i));
        break;
      case access::smem_load:
        if (store_inside) off = maps::smem_offset(L.p, maps::smem_load_slot(L.p, tx, i));
        break;
      case access::global_store:
        if (L.staged ? store_inside : load_inside)
          off = maps::out_offset(L.p, 0, y, L.ld_in, L.ld_out, 0, 0);
        break;
    }
    o[static_cast<std::size_t>(tx)] = off;
  }
  return o;
}

bool is_global(access a) { return a == access::global_load || a == access::global_store; }

warp_cost cost(const layout& L, access a, const lane_offsets& o) {
  lane_addresses bytes;
  warp_cost w;
  for (std::size_t l = 0; l < 32; ++l) {
    bytes[l] = o[l] < 0 ? inactive : o[l] * L.es;  // base pointers 256-byte aligned
    w.active_lanes += o[l] >= 0;
  }
  if (w.active_lanes == 0) return w;
  if (is_global(a))
    w.sectors = global_sectors(bytes, L.es);
  else
    w.smem = smem_wavefronts(bytes, L.es);
  return w;
}

/// Adds one warp instruction, `weight` times (tiles of one class cost the same).
void add(const layout& L, prediction& p, access a, const lane_offsets& o, std::int64_t weight) {
  const warp_cost w = cost(L, a, o);
  if (w.active_lanes == 0) return;  // a fully predicated-off instruction issues nothing
  access_totals& t = p[a];
  t.requests += weight;
  t.bytes_used += weight * w.active_lanes * L.es;
  t.sectors += weight * w.sectors;
  t.wavefronts += weight * w.smem.wavefronts;
  t.min_wavefronts += weight * w.smem.min_wavefronts;
  t.max_sectors = std::max(t.max_sectors, w.sectors);
  t.max_wavefronts = std::max(t.max_wavefronts, w.smem.wavefronts);
}

/// Records where every element goes during a walk and checks the result is the
/// transpose (or the copy): the bijection check of the index maps.
class data_trace {
 public:
  explicit data_trace(const layout& L)
      : L_(L),
        out_(static_cast<std::size_t>(out_extent(L)), -1),
        tile_(static_cast<std::size_t>(tile_edge * maps::smem_pitch(L.p)), -1) {}

  /// The kernel reuses its tile; poisoning it per tile catches stale reads.
  void new_tile() { std::fill(tile_.begin(), tile_.end(), -1); }

  void stage(index_t slot, index_t src) {
    if (slot < 0 || slot >= static_cast<index_t>(tile_.size()))
      return fail("shared slot %lld outside the tile", slot);
    if (tile_[static_cast<std::size_t>(slot)] != -1) return fail("shared slot %lld written twice", slot);
    tile_[static_cast<std::size_t>(slot)] = src;
  }

  index_t unstage(index_t slot) {
    const bool ok = slot >= 0 && slot < static_cast<index_t>(tile_.size()) &&
                    tile_[static_cast<std::size_t>(slot)] != -1;
    if (!ok) fail("shared slot %lld read before it was written", slot);
    return ok ? tile_[static_cast<std::size_t>(slot)] : -1;
  }

  void write(index_t dst, index_t src) {
    if (src < 0) return;  // already reported by unstage
    if (dst < 0 || dst >= static_cast<index_t>(out_.size()))
      return fail("output offset %lld outside the output", dst);
    if (out_[static_cast<std::size_t>(dst)] != -1) return fail("output offset %lld written twice", dst);
    out_[static_cast<std::size_t>(dst)] = src;
    ++writes_;
  }

  /// True when every element arrived where it belongs. rows*cols writes to distinct
  /// offsets that cover every destination leave no room for a stray write.
  bool finish(char (&err)[160]) {
    for (index_t r = 0; r < L_.rows && error_[0] == '\0'; ++r)
      for (index_t c = 0; c < L_.cols; ++c) {
        const index_t dst = L_.transposes ? c * L_.ld_out + r : r * L_.ld_in + c;
        if (out_[static_cast<std::size_t>(dst)] != r * L_.ld_in + c) {
          fail("input (%lld, %lld) not at its output place (offset %lld holds %lld)", r, c, dst,
               out_[static_cast<std::size_t>(dst)]);
          break;
        }
      }
    if (error_[0] == '\0' && writes_ != L_.rows * L_.cols)
      fail("%lld writes for %lld elements", static_cast<long long>(writes_), L_.rows * L_.cols);
    std::copy(std::begin(error_), std::end(error_), std::begin(err));
    return error_[0] == '\0';
  }

 private:
  static index_t out_extent(const layout& L) {
    if (L.rows == 0 || L.cols == 0) return 0;
    return L.transposes ? (L.cols - 1) * L.ld_out + L.rows : (L.rows - 1) * L.ld_in + L.cols;
  }

  template <class... A>
  void fail(const char* fmt, A... args) {
    if (error_[0] == '\0') std::snprintf(error_, sizeof error_, fmt, static_cast<long long>(args)...);
  }

  layout L_;
  std::vector<index_t> out_;   // (output extent) source input offset per output element
  std::vector<index_t> tile_;  // (32, pitch) source input offset per shared slot
  std::int64_t writes_ = 0;
  char error_[160] = {};
};

/// Every warp instruction of one block's tile, in the kernel's order: each warp issues
/// all its loads, then all its stores (shared or global); after the barrier, the
/// shared loads and global stores.
void walk_tile(const layout& L, index_t r0, index_t c0, std::int64_t weight, prediction& p,
               data_trace* trace) {
  if (trace) trace->new_tile();
  const access first_store = L.staged ? access::smem_store : access::global_store;
  // Warp ty handles steps i = ty, ty + block_y, ...: one warp instruction per step.
  for (int ty = 0; ty < L.block_y; ++ty) {
    std::array<lane_offsets, tile_edge> loaded;  // (steps of this warp, 32 lanes)
    for (int i = ty, k = 0; i < tile_edge; i += L.block_y, ++k) {
      loaded[static_cast<std::size_t>(k)] = offsets(L, access::global_load, r0, c0, i);
      add(L, p, access::global_load, loaded[static_cast<std::size_t>(k)], weight);
    }
    for (int i = ty, k = 0; i < tile_edge; i += L.block_y, ++k) {
      const lane_offsets& ld = loaded[static_cast<std::size_t>(k)];
      const lane_offsets st = offsets(L, first_store, r0, c0, i);
      add(L, p, first_store, st, weight);
      if (trace)
        for (std::size_t l = 0; l < 32; ++l) {
          if (ld[l] < 0) continue;
          if (L.staged)
            trace->stage(st[l], ld[l]);
          else
            trace->write(st[l], ld[l]);
        }
    }
  }
  if (!L.staged) return;
  for (int ty = 0; ty < L.block_y; ++ty)
    for (int i = ty; i < tile_edge; i += L.block_y) {
      const lane_offsets sl = offsets(L, access::smem_load, r0, c0, i);
      add(L, p, access::smem_load, sl, weight);
      const lane_offsets gs = offsets(L, access::global_store, r0, c0, i);
      add(L, p, access::global_store, gs, weight);
      if (trace)
        for (std::size_t l = 0; l < 32; ++l)
          if (gs[l] >= 0) trace->write(gs[l], trace->unstage(sl[l]));
    }
}

}  // namespace

status check(const config& c) noexcept {
  if (c.pattern < 0 || c.pattern >= maps::pattern_count)
    return status::make(status_code::unsupported_variant,
                        "no model: pattern %d is not a ladder rung with index maps", c.pattern);
  if (c.elem_size <= 0 || c.elem_size > 16 || (c.elem_size & (c.elem_size - 1)) != 0)
    return status::make(status_code::unsupported_elem_size, "element size %d is not 1, 2, 4, 8 or 16",
                        c.elem_size);
  if (c.block_y < 1 || c.block_y > 32 || 32 % c.block_y != 0)
    return status::make(status_code::invalid_argument, "block_y %d does not divide 32", c.block_y);
  if (c.rows < 0 || c.cols < 0 || c.ld_in < 0 || c.ld_out < 0)
    return status::make(status_code::negative_size, "negative size or leading dimension");
  const layout L = resolve(c);
  if (L.ld_in < L.cols || (L.transposes && L.ld_out < L.rows))
    return status::make(status_code::bad_leading_dim, "ld_in %lld < cols %lld or ld_out %lld < rows %lld",
                        static_cast<long long>(L.ld_in), static_cast<long long>(L.cols),
                        static_cast<long long>(L.ld_out), static_cast<long long>(L.rows));
  // Byte offsets of both sides, and the tile walk's index arithmetic, must fit in 63 bits.
  constexpr index_t limit = index_t{1} << 56;
  const index_t longest = std::max({L.rows, L.cols, L.ld_in, L.ld_out, index_t{tile_edge}});
  if (longest > (index_t{1} << 28) || (L.rows + tile_edge) * L.ld_in > limit / 16 ||
      (L.cols + tile_edge) * L.ld_out > limit / 16)
    return status::make(status_code::size_overflow, "matrix too large for the model");
  return {};
}

status predict(const config& c, prediction& out) noexcept {
  if (status s = check(c); !s) return s;
  const layout L = resolve(c);
  out = prediction{};
  out.staged = L.staged;
  const index_t full_x = L.cols / tile_edge, full_y = L.rows / tile_edge;
  const index_t edge_x = L.cols % tile_edge != 0, edge_y = L.rows % tile_edge != 0;
  // (tile column, tile row, tiles in the class): interior, right edge, bottom edge, corner.
  const index_t classes[4][3] = {{0, 0, full_x * full_y},
                                 {full_x, 0, edge_x * full_y},
                                 {0, full_y, full_x * edge_y},
                                 {full_x, full_y, edge_x * edge_y}};
  for (const auto& k : classes)
    if (k[2] > 0) walk_tile(L, k[1] * tile_edge, k[0] * tile_edge, k[2], out, nullptr);
  return {};
}

status walk(const config& c, walk_result& out) noexcept {
  if (status s = check(c); !s) return s;
  const layout L = resolve(c);
  out = walk_result{};
  out.totals.staged = L.staged;
  try {
    data_trace trace(L);
    const index_t gx = maps::tiles(L.cols), gy = maps::tiles(L.rows);
    // The kernel's block order, including the diagonal rung's remapping of it.
    for (index_t by = 0; by < gy; ++by)
      for (index_t bx = 0; bx < gx; ++bx) {
        const maps::tile_xy t = maps::visit_tile(L.p, bx, by, gx, gy);
        walk_tile(L, t.y * tile_edge, t.x * tile_edge, 1, out.totals, &trace);
      }
    out.bijective = trace.finish(out.first_error);
  } catch (const std::bad_alloc&) {
    return status::make(status_code::size_overflow, "matrix too large to walk on this host");
  }
  return {};
}

status warp_instruction(const config& c, access a, index_t r0, index_t c0, int i,
                        warp_cost& out) noexcept {
  if (status s = check(c); !s) return s;
  const layout L = resolve(c);
  if (i < 0 || i >= tile_edge || r0 < 0 || c0 < 0 || r0 % tile_edge || c0 % tile_edge)
    return status::make(status_code::invalid_argument, "step %d of tile (%lld, %lld) is not a tile step", i,
                        static_cast<long long>(r0), static_cast<long long>(c0));
  if (!L.staged && (a == access::smem_store || a == access::smem_load))
    return status::make(status_code::invalid_argument, "this rung does not use shared memory");
  out = cost(L, a, offsets(L, a, r0, c0, i));
  return {};
}

}  // namespace xpose::model
