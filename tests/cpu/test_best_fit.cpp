// Policy tests of the row-fitted tile (routes tile_fit / realign_fit, switches
// best_fit_tile_default, best_fit_dense_default: f16 only): its tiles (both forms) are valid for both
// kernels, the row counts map to the tiles best.cu instantiates, and the route takes
// exactly the class (1-2 byte gathers of 33-128 rows, long rows, aligned output rows)
// under both flags.
#include <gtest/gtest.h>

#include "cuda/policy.hpp"

using namespace xpose;
using namespace xpose::detail;

namespace {
constexpr bool on = !best_fit_tile_default;
}

TEST(BestFitPolicy, TilesValid) {
  for (int E : {1, 2})
    for (int rows = 48; rows <= 128; rows += 16)
      for (bool realign : {false, true})
        for (bool dense : {false, true}) {
          const best_tile t = best_tile_fit_for(E, rows, realign, dense);
          EXPECT_TRUE(best_tile_valid(E, t, false)) << E << " " << rows;
          EXPECT_TRUE(best_tile_valid(E, t, true, true)) << E << " " << rows;
          EXPECT_EQ(t.threads % 32, 0);
          EXPECT_GE(t.min_blocks, 1);
          EXPECT_LE(t.rows * t.chunks * 16, 48 * 1024);  // one block's shared tile, no opt-in
          EXPECT_LE(t.min_blocks * t.threads, 1024) << E << " " << rows;
          if (dense) EXPECT_GE(t.min_blocks, best_tile_fit_for(E, rows, realign).min_blocks);
          // (The dense form is 2-byte elements' only: u8 tiles keep their form.)
          if (E != best_fit_dense_elem) EXPECT_EQ(t.min_blocks, best_tile_fit_for(E, rows, realign).min_blocks);
        }
  // Its switch: 2-byte elements only, under the flag that has it on.
  const bool dense_on = !best_fit_dense_default;
  for (int rows : {48, 64, 80, 96, 112}) {
    EXPECT_TRUE(best_fit_dense_on(2, rows, dense_on)) << rows;
    EXPECT_FALSE(best_fit_dense_on(2, rows, !dense_on)) << rows;
    EXPECT_FALSE(best_fit_dense_on(1, rows, dense_on)) << rows;
    EXPECT_FALSE(best_fit_dense_on(1, rows, !dense_on)) << rows;
  }
  // 128-row tiles keep the plain form under both flags (best_fit_dense_max_rows).
  EXPECT_FALSE(best_fit_dense_on(2, 128, dense_on));
  EXPECT_FALSE(best_fit_dense_on(2, 128, !dense_on));
  // The output-aligned form drops only the output segment's shuffle group.
  EXPECT_FALSE(best_tile_valid(1, best_tile{48, 16, 96, 8, 1}, true));
  EXPECT_TRUE(best_tile_valid(1, best_tile{48, 16, 96, 8, 1}, true, true));
  EXPECT_FALSE(best_tile_valid(1, best_tile{48, 16, 100, 8, 1}, true, true));
}

TEST(BestFitPolicy, Rows) {
  EXPECT_EQ(best_fit_tile_rows(1, 48), 48);
  EXPECT_EQ(best_fit_tile_rows(1, 96), 96);
  EXPECT_EQ(best_fit_tile_rows(1, 112), 128);
  EXPECT_EQ(best_fit_tile_rows(2, 112), 112);
  EXPECT_EQ(best_fit_tile_rows(2, 40), 48);
  EXPECT_EQ(best_fit_tile_rows(2, 120), 128);
  EXPECT_EQ(best_fit_tile_rows(2, 33), 48);
  for (int E : {1, 2})
    for (long long r = best_fit_tile_min_rows; r <= best_fit_tile_max_rows; ++r) {
      const int t = best_fit_tile_rows(E, r);
      EXPECT_GE(t, r);
      EXPECT_LT(t - r, E == 1 && r > 96 ? 32 : 16);
      EXPECT_TRUE(t == 48 || t == 64 || t == 80 || t == 96 || t == 128 || (E == 2 && t == 112)) << E << " " << r;
    }
}

TEST(BestFitPolicy, Route) {
  // The sweep's gathers of 48-128 rows, aligned and odd HW, packed, aligned buffers.
  for (int E : {1, 2})
    for (long long c : {48, 64, 96, 128})
      for (long long hw : {50176, 50177}) {
        const matrix_desc d = matrix_desc::packed(c, hw, E, 256 / c);
        const best_path want = hw % 16 == 0 ? best_path::tile_fit : best_path::realign_fit;
        EXPECT_EQ(best_path_for(d, 0, 0, 90, on).path, want) << E << " " << c << " " << hw;
        EXPECT_EQ(best_fit_tile_route(d, 0, 0, on), want);
        // The other flag: the dense form where its switch has that flag on (or the u8 deep form's,
        // best_fit_tile_or), else the routes it replaced.
        const best_path other = best_path_for(d, 0, 0, 90, !on).path;
        if (best_fit_tile_or(best_path::copy, d, 0, 0, !on) != best_path::copy) {
          EXPECT_EQ(other, want);
        } else {
          EXPECT_NE(other, best_path::tile_fit);
          EXPECT_NE(other, best_path::realign_fit);
        }
        // The input one element off: the realigning form; the output off: not taken.
        EXPECT_EQ(best_path_for(d, E, 0, 90, on).path, best_path::realign_fit);
        EXPECT_NE(best_path_for(d, 0, E, 90, on).path, best_path::realign_fit);
        EXPECT_NE(best_path_for(d, 0, E, 90, on).path, best_path::tile_fit);
      }
  // Outside the class.
  auto fit = [](const matrix_desc& d) { return best_fit_tile_route(d, 0, 0, on) != best_path::copy; };
  EXPECT_FALSE(fit(matrix_desc::packed(32, 50176, 1, 2)));  // (16-32 rows: their routes measured faster)
  EXPECT_FALSE(fit(matrix_desc::packed(16, 50176, 2, 2)));
  EXPECT_FALSE(fit(matrix_desc::packed(144, 50176, 1, 2)));
  EXPECT_FALSE(fit(matrix_desc::packed(40, 50176, 1, 2)));   // 40-byte output rows
  EXPECT_FALSE(fit(matrix_desc::packed(36, 50176, 2, 2)));   // 72-byte output rows
  EXPECT_FALSE(fit(matrix_desc::packed(64, 255, 1, 2)));     // short rows
  EXPECT_FALSE(fit(matrix_desc::packed(64, 50176, 4, 2)));   // 4-byte elements
  EXPECT_FALSE(fit(matrix_desc::packed(50176, 64, 1, 2)));   // a scatter
  EXPECT_TRUE(fit(matrix_desc::packed(40, 50176, 2, 2)));
  EXPECT_TRUE(fit(matrix_desc::packed(64, 256, 1, 2)));
}
