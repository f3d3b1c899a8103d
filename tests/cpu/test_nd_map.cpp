// The GPU kernels' index maps (src/core/nd_map.hpp) run on the host: emulating the
// tile and copy kernels with them must reproduce the reference permutation exactly.
#include <gtest/gtest.h>
#include <xpose/xpose.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "core/nd_map.hpp"
#include "permute_ref.hpp"
#include "test_util.hpp"

namespace {

using namespace xpose::detail;

// Moves every element the way the kernels do, with the maps' offsets.
void emulate(const xpose::plan& p, const unsigned char* in, unsigned char* out, int ta, int tb) {
  const std::int64_t es = p.in.elem_size;
  if (p.algo == xpose::algorithm::permute_nd) {
    const tile_map m = make_tile_map(p, ta, tb);
    for (xpose::index_t t = 0; t < m.tiles; ++t) {
      xpose::index_t io, oo, a0, b0;
      m.tile(t, &io, &oo, &a0, &b0, ta, tb);
      for (xpose::index_t b = 0; b < tb && b0 + b < m.n_b; ++b)
        for (xpose::index_t a = 0; a < ta && a0 + a < m.n_a; ++a)
          std::memcpy(out + (oo + a * m.os_a + b * m.os_b) * es, in + (io + a * m.is_a + b * m.is_b) * es, es);
    }
  } else {
    const int unit = copy_unit(p, in, out);
    const copy_map m = make_copy_map(p, unit);
    for (xpose::index_t i = 0; i < m.total; ++i) {
      xpose::index_t io, oo;
      m.element(i, &io, &oo);
      std::memcpy(out + oo * unit, in + io * unit, static_cast<std::size_t>(unit));
    }
  }
}

TEST(NdMap, TileAndCopyMapsRealiseThePermutation) {
  std::mt19937_64 g(31);
  int nd = 0, copies = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const int es = 1 << (g() % 5);
    const auto c = xpose_test::random_case(g, 1 + static_cast<int>(g() % 8), es, 5000, g() % 2);
    xpose::plan p;
    ASSERT_TRUE(xpose::make_plan(c.in, c.out, c.axes, c.in.rank, {}, &p).ok());
    if (p.algo != xpose::algorithm::permute_nd && p.algo != xpose::algorithm::strided_copy) continue;
    (p.algo == xpose::algorithm::permute_nd ? nd : copies)++;
    const auto in = xpose_test::random_bytes(static_cast<std::size_t>(xpose_test::span_elems(c.in) * es), iter);
    const std::size_t no = static_cast<std::size_t>(xpose_test::span_elems(c.out) * es);
    std::vector<unsigned char> want(no, 0xFF), got(no, 0xFF);
    xpose_test::reference_permute(in.data(), want.data(), c.in, c.out, c.axes, false);
    const int ta = 1 << (g() % 6), tb = 1 << (g() % 6);
    emulate(p, in.data(), got.data(), ta, tb);
    ASSERT_EQ(got, want) << "iter " << iter << " algo " << xpose::to_string(p.algo) << " tile " << ta << "x" << tb;
  }
  EXPECT_GT(nd, 50);
  EXPECT_GT(copies, 10);
}

}  // namespace
