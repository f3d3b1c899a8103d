// The fitted skewed tiles for 4-8 byte element-aligned layouts (routes realign_skew_fit,
// realign_skew_async_fit; switch best_skew_fit_default, src/cuda/policy.hpp): their tables,
// where they pad less, and the routes under both flags.
#include <gtest/gtest.h>

#include "cuda/policy.hpp"
#include "test_util.hpp"

#include <string>
#include <tuple>
#include <vector>

using namespace xpose::detail;
using xpose::matrix_desc;

namespace {

constexpr bool on = !best_skew_fit_default, off = best_skew_fit_default;

best_path route(const matrix_desc& d, unsigned long long in, unsigned long long out, bool flag) {
  return best_path_for(d, in, out, 90, flag).path;
}

// The skewed route under `flag` without the fitted tiles (the switches of before).
best_path unfitted(const matrix_desc& d, unsigned long long out, bool flag) {
  if (best_route_on(best_skew_async_default, flag) && best_skew_async_fits(d, out)) return best_path::realign_skew_async;
  return best_route_on(best_skew_default, flag) && best_skew_wins(d, out) ? best_path::realign_skew : best_path::realign;
}

}  // namespace

TEST(BestSkewFitPolicy, Tiles) {
  for (int E : {4, 8}) {
    const best_tile f = best_tile_skew_fit_for(E), t = best_tile_skew_for(E);
    EXPECT_TRUE(best_skew_tile_valid(E, f)) << E;
    // Half the chunks and threads, twice the blocks: the same loads per thread, rows owned.
    EXPECT_EQ(f.chunks * 2, t.chunks);
    EXPECT_EQ(f.threads * 2, t.threads);
    EXPECT_EQ(f.rows, t.rows);
    EXPECT_EQ(best_skew_smem(E, f) * 2, best_skew_smem(E, t)) << E;
    if (E != best_skew_async_fit_elem) continue;
    const best_tile a = best_tile_skew_async_fit_for(E);
    EXPECT_TRUE(best_skew_tile_valid(E, a)) << E;
    EXPECT_EQ(a.rows, 48);
    EXPECT_EQ(a.rows % (16 / E), 0);
    EXPECT_LT(best_skew_async_smem(E, a, false, best_skew_async_stages),
              best_skew_async_smem(E, best_tile_skew_async_for(E, false), false, best_skew_async_stages));
  }
  EXPECT_EQ(best_path_name(best_path::realign_skew_fit), std::string("realign_skew_fit"));
  EXPECT_EQ(best_path_name(best_path::realign_skew_async_fit), std::string("realign_skew_async_fit"));
}

TEST(BestSkewFitPolicy, PadsLess) {
  // 96 rows: two 48-row tiles against a 64-row and a half-empty one (25% less).
  const best_tile a48 = best_tile_skew_async_fit_for(8), a64 = best_tile_skew_async_for(8, false);
  EXPECT_TRUE(best_skew_pads_less(matrix_desc::packed(96, 50177, 8), a48, a64));
  EXPECT_FALSE(best_skew_pads_less(matrix_desc::packed(128, 50177, 8), a48, a64));
  EXPECT_FALSE(best_skew_pads_less(matrix_desc::packed(2048, 2049, 8), a48, a64));
  EXPECT_FALSE(best_skew_pads_less(matrix_desc::packed(100, 4001, 8), a48, a64));  // 144 against 128 rows
  // 96 columns of f32: three 32-column tiles against a 64-column and a half-empty one.
  const best_tile h = best_tile_skew_fit_for(4), s = best_tile_skew_for(4);
  EXPECT_TRUE(best_skew_pads_less(matrix_desc::packed(50177, 96, 4), h, s));
  EXPECT_FALSE(best_skew_pads_less(matrix_desc::packed(2879, 2883, 4), h, s));  // 2912 against 2944 columns
  EXPECT_FALSE(best_skew_pads_less(matrix_desc::packed(50177, 128, 4), h, s));
  // The area counts padded rows and columns of one matrix: 837 tiles of 60 rows x 96 or 128 columns.
  EXPECT_EQ(best_tiled_area(matrix_desc::packed(50177, 96, 4, 3), 60, 32), 837ll * 60 * 96);
  EXPECT_EQ(best_tiled_area(matrix_desc::packed(50177, 96, 4, 3), 60, 64), 837ll * 60 * 128);
}

TEST(BestSkewFitPolicy, Routes) {
  // (d, input and output byte offsets, the fitted route)
  const std::vector<std::tuple<matrix_desc, unsigned long long, unsigned long long, best_path>> taken = {
      {matrix_desc::packed(50177, 96, 4), 0, 0, best_path::realign_skew_fit},     // the sweep's f32 row
      {matrix_desc::packed(1001, 96, 4, 2), 0, 0, best_path::realign_skew_fit},   // batch of 2
      {matrix_desc::packed(1000, 96, 4), 0, 4, best_path::realign_skew_fit},      // output one element off
      {matrix_desc::packed(777, 48, 8, 3), 0, 0, best_path::realign_skew_fit},    // 8 bytes: 48 columns
      {matrix_desc::packed(96, 50177, 8), 0, 0, best_path::realign_skew_async_fit},  // the sweep's f64 / c64 rows
      {matrix_desc::packed(96, 1001, 8, 3), 0, 0, best_path::realign_skew_async_fit},
      {matrix_desc::packed(96, 1000, 8), 8, 0, best_path::realign_skew_async_fit},  // input one element off
      {matrix_desc::packed(40, 1001, 8, 2), 0, 0, best_path::realign_skew_async_fit},  // one partial tile row
      // 8 bytes on realign_skew: the half-width tile whatever it pads (best_skew_fit_any_elem).
      {matrix_desc::packed(2047, 2051, 8), 0, 0, best_path::realign_skew_fit},
      {matrix_desc::packed(96, 50177, 8), 0, 8, best_path::realign_skew_fit},  // output one element off
      {matrix_desc::packed(16383, 16385, 8), 0, 0, best_path::realign_skew_fit},
  };
  for (const auto& [d, in, out, f] : taken) {
    const std::string name = xpose_test::shape_name(d);
    EXPECT_EQ(best_skew_fit_path(d, out), f) << name;
    EXPECT_EQ(route(d, in, out, on), f) << name;
    EXPECT_EQ(best_skew_fit_or(unfitted(d, out, on), d, out, on), f) << name;
    EXPECT_EQ(best_skew_fit_or(best_path::tile, d, out, on), best_path::tile) << name;  // (not a realigning route)
    // The other flag: the skewed routes of before.
    EXPECT_EQ(route(d, in, out, off), unfitted(d, out, off)) << name;
    EXPECT_EQ(best_skew_fit_or(unfitted(d, out, off), d, out, off), unfitted(d, out, off)) << name;
    // The fitted tile's base: the route `best`'s other switches take.
    EXPECT_EQ(unfitted(d, out, false),
              f == best_path::realign_skew_fit ? best_path::realign_skew : best_path::realign_skew_async)
        << name;
  }
  // Never fitted: tiles that pad as much, aligned layouts, 1-2 and 16-byte elements, slabs.
  const std::vector<std::tuple<matrix_desc, unsigned long long, unsigned long long>> never = {
      {matrix_desc::packed(2048, 2049, 8), 0, 0},   {matrix_desc::packed(2879, 2883, 4), 0, 0},
      {matrix_desc::packed(2047, 2051, 4), 0, 0},   {matrix_desc::packed(128, 50177, 8), 0, 0},
      {matrix_desc::packed(64, 50177, 8), 0, 0},    {matrix_desc::packed(16383, 16385, 4), 0, 0},
      {matrix_desc::packed(96, 50176, 8), 0, 0},    {matrix_desc::packed(50176, 96, 4), 0, 0},
      {matrix_desc::packed(96, 50177, 4), 0, 4},    {matrix_desc::packed(96, 50177, 2), 0, 0},
      {matrix_desc::packed(96, 50177, 1), 0, 0},    {matrix_desc::packed(50177, 96, 2), 0, 0},
      {matrix_desc::packed(96, 50177, 16), 0, 0},   {matrix_desc::packed(50176, 48, 4, 3), 0, 0},
      {matrix_desc::packed(50177, 12, 4, 13), 0, 0}, {matrix_desc::packed(24, 50177, 8, 3), 0, 0},
      {matrix_desc::packed(96, 50177, 4), 0, 0},  // (4 bytes: no fitted async tile)
  };
  for (const auto& [d, in, out] : never)
    for (bool flag : {false, true}) {
      const best_path p = route(d, in, out, flag);
      EXPECT_NE(p, best_path::realign_skew_fit) << xpose_test::shape_name(d) << " " << flag;
      EXPECT_NE(p, best_path::realign_skew_async_fit) << xpose_test::shape_name(d) << " " << flag;
      EXPECT_EQ(best_skew_fit_or(p, d, out, flag), p) << xpose_test::shape_name(d) << " " << flag;
    }
}
