// The GPU kernels' index maps and thread slots (src/core/nd_map.hpp) run on the
// host: emulating the tile and copy kernels thread by thread with them, for every
// tile of the policy table (src/cuda/nd/policy_nd.hpp) and both index widths, must
// reproduce the reference permutation exactly.
#include <gtest/gtest.h>
#include <xpose/xpose.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "core/core.hpp"
#include "core/elem.hpp"
#include "core/nd_map.hpp"
#include "cuda/nd/policy_nd.hpp"
#include "permute_ref.hpp"
#include "test_util.hpp"

namespace {

using namespace xpose::detail;
using xpose::index_t;

// nd_tile_kernel<E, TA, TB, THREADS> on the host: per tile, every thread's read
// slots fill a poisoned shared tile, then every thread's write slots store it.
template <int TA, int TB, int THREADS, class Map>
void emulate_tiles(const xpose::plan& p, const unsigned char* in, unsigned char* out) {
  static_assert(THREADS % TA == 0 && THREADS % TB == 0 && (TA * TB) % THREADS == 0, "kernel constraints");
  const std::int64_t es = p.in.elem_size;
  constexpr int per_thread = TA * TB / THREADS;
  const Map m = make_tile_map<Map>(p, TA, TB);
  std::vector<unsigned char> tile(static_cast<std::size_t>(TA * TB * es));
  for (index_t t = 0; t < m.tiles; ++t) {
    index_t io, oo, a0, b0;
    m.tile(t, &io, &oo, &a0, &b0, TA, TB);
    const index_t na = m.n_a - a0 < TA ? m.n_a - a0 : TA, nb = m.n_b - b0 < TB ? m.n_b - b0 : TB;
    std::memset(tile.data(), 0xA5, tile.size());
    for (int tid = 0; tid < THREADS; ++tid)
      for (int j = 0; j < per_thread; ++j) {
        const tile_slot s = tile_read_slot<TA, TB, THREADS>(tid, j);
        if (s.a < na && s.b < nb)
          std::memcpy(&tile[static_cast<std::size_t>((s.b * TA + s.a) * es)], in + (io + s.a * m.is_a + s.b * m.is_b) * es, es);
      }
    for (int tid = 0; tid < THREADS; ++tid)
      for (int j = 0; j < per_thread; ++j) {
        const tile_slot s = tile_write_slot<TA, TB, THREADS>(tid, j);
        if (s.a < na && s.b < nb)
          std::memcpy(out + (oo + s.a * m.os_a + s.b * m.os_b) * es, &tile[static_cast<std::size_t>((s.b * TA + s.a) * es)], es);
      }
  }
}

// nd_copy_kernel on the host: blocks of nd_copy_threads threads, nd_copy_units slots each.
template <class Map>
void emulate_copy(const xpose::plan& p, const unsigned char* in, unsigned char* out) {
  const int unit = copy_unit(p, in, out);
  const Map m = make_copy_map<Map>(p, unit);
  for (index_t blk = 0; copy_slot<nd_copy_threads, nd_copy_units>(blk, 0, 0) < m.total; ++blk)
    for (int tid = 0; tid < nd_copy_threads; ++tid)
      for (int j = 0; j < nd_copy_units; ++j) {
        const index_t i = copy_slot<nd_copy_threads, nd_copy_units>(blk, tid, j);
        if (i >= m.total) continue;
        index_t io, oo;
        m.element(i, &io, &oo);
        std::memcpy(out + oo * unit, in + io * unit, static_cast<std::size_t>(unit));
      }
}

template <int E, nd_shape S, class Map>
void emulate_policy_tile(const xpose::plan& p, const unsigned char* in, unsigned char* out) {
  constexpr nd_tile t = nd_tile_for(90, E, S);
  emulate_tiles<t.tile_a, t.tile_b, t.threads, Map>(p, in, out);
}

template <class Map>
void emulate_shape(const xpose::plan& p, nd_shape s, const unsigned char* in, unsigned char* out) {
  with_elem_size(p.in.elem_size, [&](auto e) {
    constexpr int E = decltype(e)::value;
    switch (s) {
      case nd_shape::narrow_a: return emulate_policy_tile<E, nd_shape::narrow_a, Map>(p, in, out);
      case nd_shape::narrow_b: return emulate_policy_tile<E, nd_shape::narrow_b, Map>(p, in, out);
      case nd_shape::side48_a: return emulate_policy_tile<E, nd_shape::side48_a, Map>(p, in, out);
      case nd_shape::side48_b: return emulate_policy_tile<E, nd_shape::side48_b, Map>(p, in, out);
      case nd_shape::side48_ab: return emulate_policy_tile<E, nd_shape::side48_ab, Map>(p, in, out);
      default: return emulate_policy_tile<E, nd_shape::square, Map>(p, in, out);
    }
  });
}

struct nd_case {
  xpose_test::perm_case c;
  xpose::plan p;
  std::vector<unsigned char> in, want;
};

bool make_case(std::mt19937_64& g, int iter, const xpose_test::perm_case& c, nd_case* out) {
  out->c = c;
  if (!xpose::make_plan(c.in, c.out, c.axes, c.in.rank, {}, &out->p).ok()) return false;
  const std::int64_t es = c.in.elem_size;
  out->in = xpose_test::random_bytes(static_cast<std::size_t>(xpose_test::span_elems(c.in) * es), iter);
  out->want.assign(static_cast<std::size_t>(xpose_test::span_elems(c.out) * es), 0xFF);
  xpose_test::reference_permute(out->in.data(), out->want.data(), c.in, c.out, c.axes, false);
  (void)g;
  return true;
}

const nd_shape all_shapes[] = {nd_shape::square,   nd_shape::narrow_a, nd_shape::narrow_b,
                               nd_shape::side48_a, nd_shape::side48_b, nd_shape::side48_ab};

TEST(NdMap, EveryPolicyTileAndBothIndexWidthsRealiseThePermutation) {
  std::mt19937_64 g(31);
  int nd = 0, copies = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const int es = 1 << (g() % 5);
    nd_case k;
    ASSERT_TRUE(make_case(g, iter, xpose_test::random_case(g, 1 + static_cast<int>(g() % 8), es, 5000, g() % 2), &k));
    const xpose::plan& p = k.p;
    if (p.algo != xpose::algorithm::permute_nd && p.algo != xpose::algorithm::strided_copy) continue;
    for (int wide = 0; wide < 2; ++wide) {
      std::vector<unsigned char> got(k.want.size(), 0xFF);
      const nd_shape s = all_shapes[g() % 6];
      if (p.algo == xpose::algorithm::permute_nd) {
        if (wide) emulate_shape<tile_map>(p, s, k.in.data(), got.data());
        else emulate_shape<tile_map32>(p, s, k.in.data(), got.data());
      } else if (wide) {
        emulate_copy<copy_map>(p, k.in.data(), got.data());
      } else {
        emulate_copy<copy_map32>(p, k.in.data(), got.data());
      }
      ASSERT_EQ(got, k.want) << "iter " << iter << " algo " << xpose::to_string(p.algo) << " shape "
                             << static_cast<int>(s) << " wide " << wide;
    }
    (p.algo == xpose::algorithm::permute_nd ? nd : copies)++;
  }
  EXPECT_GT(nd, 50);
  EXPECT_GT(copies, 10);
}

// TTC-like extents (48, 28, 15, 112: the side48 and partial-tile cases), scaled down.
TEST(NdMap, TtcLikeShapesWithThePolicyTheKernelsUse) {
  std::mt19937_64 g(5);
  const std::vector<std::vector<index_t>> shapes = {{28, 48, 28, 3, 48}, {48, 7, 5, 48}, {15, 4, 32, 3, 15, 32},
                                                    {5, 3, 112, 7, 32}, {144, 5, 47}, {49, 6, 96}};
  int iter = 0;
  for (const auto& sh : shapes)
    for (int es : {4, 8, 16, 2})
      for (int perm = 0; perm < 6; ++perm, ++iter) {
        xpose_test::perm_case c;
        const int r = static_cast<int>(sh.size());
        c.in = xpose::layout::packed(r, sh.data(), es);
        for (int q = 0; q < r; ++q) c.axes[q] = q;
        for (int q = r - 1; q > 0; --q) std::swap(c.axes[q], c.axes[g() % (q + 1)]);
        c.out = xpose::permuted_packed(c.in, c.axes, r);
        nd_case k;
        ASSERT_TRUE(make_case(g, iter, c, &k));
        const xpose::plan& p = k.p;
        std::vector<unsigned char> got(k.want.size(), 0xFF);
        if (p.algo == xpose::algorithm::permute_nd) {
          const int A = input_fastest(p);
          const nd_shape s = nd_shape_for(90, es, p.out.extents[A], p.out.extents[p.out.rank - 1]);
          emulate_shape<tile_map32>(p, s, k.in.data(), got.data());
        } else if (p.algo == xpose::algorithm::strided_copy) {
          emulate_copy<copy_map32>(p, k.in.data(), got.data());
        } else {
          continue;
        }
        ASSERT_EQ(got, k.want) << "shape " << iter << " es " << es;
      }
}

TEST(NdPolicy, Side48ClassesWhereTheyWasteLess) {
  // nd_side48 == false (the revert switch) keeps the square tile.
  EXPECT_EQ(nd_shape_for(90, 4, 48, 48), nd_side48 ? nd_shape::side48_ab : nd_shape::square);
  EXPECT_EQ(nd_shape_for(90, 4, 48, 352), nd_side48 ? nd_shape::side48_a : nd_shape::square);
  EXPECT_EQ(nd_shape_for(90, 8, 352, 144), nd_side48 ? nd_shape::side48_b : nd_shape::square);
  EXPECT_EQ(nd_shape_for(90, 4, 96, 96), nd_shape::square);
  EXPECT_EQ(nd_shape_for(90, 4, 112, 32), nd_shape::square);
  EXPECT_EQ(nd_shape_for(90, 4, 8, 48), nd_shape::narrow_a);
  EXPECT_EQ(nd_shape_for(90, 2, 48, 48), nd_shape::square);   // 64x64 tiles: no side48 class
  EXPECT_EQ(nd_shape_for(90, 16, 48, 48), nd_shape::square);  // 16x16 tiles cover 48 exactly
  const nd_tile t = nd_tile_for(90, 4, nd_shape::side48_ab);
  EXPECT_TRUE(t.valid());
  EXPECT_EQ(t.tile_a, 48);
  EXPECT_EQ(t.tile_b, 48);
}

}  // namespace
