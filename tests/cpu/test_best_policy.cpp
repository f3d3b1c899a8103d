// Host-side checks of `best`'s policy (src/cuda/policy.hpp): which shapes reach the
// small-tile classes and the realigning path, and that every tile shape satisfies the
// kernels' geometric constraints (the GPU tests in tests/cuda/test_best.cpp run them).
#include <gtest/gtest.h>

#include "cuda/policy.hpp"

using namespace xpose::detail;

namespace {
// tile_kernel / realign_tile_kernel static_asserts, restated.
bool tile_ok(int E, best_tile t, bool realign) {
  const int k = 16 / E, RPS = t.threads / t.chunks, RN = t.rows / k, H = 16 / t.micro_bytes;
  bool ok = t.threads % t.chunks == 0 && t.rows % RPS == 0 && (RN * t.chunks * H) % t.threads == 0 &&
            t.chunks >= 8 && (t.micro_bytes == 8 || t.micro_bytes == 16);
  if (realign) ok = ok && 32 % t.chunks == 0 && 32 % (H * RN) == 0 && t.threads % 32 == 0;
  return ok;
}
}  // namespace

TEST(BestPolicy, ShapeClasses) {
  // i8 / f16 small and skinny shapes leave the standard tile.
  for (int E : {1, 2}) {
    EXPECT_EQ(best_shape_for(E, 64, 64), best_small_tiles_enabled ? best_shape::narrow : best_shape::standard);
    EXPECT_EQ(best_shape_for(E, 32, 8388608), best_small_tiles_enabled ? best_shape::few_rows : best_shape::standard);
    EXPECT_EQ(best_shape_for(E, 8388608, 32), best_small_tiles_enabled ? best_shape::narrow : best_shape::standard);
    EXPECT_EQ(best_shape_for(E, 16384, 16384), best_shape::standard);
  }
  EXPECT_EQ(best_shape_for(1, 100000, 128), best_small_tiles_enabled ? best_shape::narrow : best_shape::standard);
  EXPECT_EQ(best_shape_for(1, 100000, 129), best_shape::standard);
  EXPECT_EQ(best_shape_for(2, 100000, 65), best_shape::standard);
  for (int E : {4, 8, 16}) EXPECT_EQ(best_shape_for(E, 64, 64), best_shape::standard);
}

TEST(BestPolicy, EveryTileShapeFitsTheKernels) {
  for (int E : {1, 2, 4, 8, 16}) {
    EXPECT_TRUE(tile_ok(E, best_tile_for(E), false)) << E;
    EXPECT_TRUE(tile_ok(E, best_tile_narrow_for(E), false)) << E;
    if (E < 16) EXPECT_TRUE(tile_ok(E, best_tile_realign_for(E), true)) << E;
    for (best_shape s : {best_shape::few_rows, best_shape::narrow})
      if (E <= 2) EXPECT_TRUE(tile_ok(E, best_tile_shaped(E, s), false)) << E;
  }
}
