// Policy tests of the row-fitted tile for 4-8 byte gathers of 24 and 32 rows (route tile_fit,
// switch best_fit_wide_default): its tiles are valid for tile_kernel, the row counts map to
// the tiles best.cu instantiates, and the route takes exactly the class (f32 / f64 / c64
// gathers of 24 or 32 rows, every row 16-byte aligned on both sides, long rows) under the
// flag that turns it on, and nothing under the other.
#include <gtest/gtest.h>

#include "cuda/policy.hpp"

using namespace xpose;
using namespace xpose::detail;

namespace {
constexpr bool on = !best_fit_wide_default;

best_path route(const matrix_desc& d, unsigned long long in, unsigned long long out, bool cand) {
  return best_path_for(d, in, out, 90, cand).path;
}
}  // namespace

TEST(BestFitWidePolicy, TilesValid) {
  for (int E : {4, 8})
    for (int rows : {24, 32}) {
      const best_tile t = best_tile_fit_for(E, rows, false);
      EXPECT_TRUE(best_tile_valid(E, t, false)) << E << " " << rows;
      EXPECT_EQ(t.rows, rows);
      EXPECT_EQ(t.micro_bytes, 16);
      EXPECT_LE(t.rows * t.chunks * 16, 48 * 1024);  // one block's shared tile, no opt-in
      EXPECT_LE(t.min_blocks * t.threads, 1024);
      EXPECT_GE(t.min_blocks, 1);
    }
  // 32 rows: the few-rows tile's kernel (one instantiation for both routes).
  for (int E : {4, 8}) {
    const best_tile f = best_tile_fit_for(E, 32, false), s = best_tile_shaped(E, best_shape::few_rows);
    EXPECT_TRUE(f.rows == s.rows && f.chunks == s.chunks && f.threads == s.threads && f.micro_bytes == s.micro_bytes &&
                f.min_blocks == s.min_blocks)
        << E;
  }
}

TEST(BestFitWidePolicy, Rows) {
  for (int E : {4, 8}) {
    EXPECT_EQ(best_fit_tile_rows(E, 24), 24);
    EXPECT_EQ(best_fit_tile_rows(E, 32), 32);
  }
  // (1-2 byte tiles keep their 16-row step.)
  EXPECT_EQ(best_fit_tile_rows(2, 40), 48);
}

TEST(BestFitWidePolicy, Route) {
  // The sweep's shapes: 2-D 32 x N, batches of 24 / 32 x HW; aligned pointers and pointers
  // offset by whole chunks.
  for (int E : {4, 8})
    for (long long rows : {24, 32})
      for (long long batch : {1, 3})
        for (unsigned long long off : {0ull, 16ull, 256ull}) {
          const matrix_desc d = matrix_desc::packed(rows, batch == 1 ? (1ll << 20) / E : 50176, E, batch);
          EXPECT_EQ(route(d, off, off, on), best_path::tile_fit) << E << " " << rows << " " << batch;
          EXPECT_EQ(best_fit_tile_route(d, off, off, on), best_path::tile_fit);
          // (The other flag: another route; which one depends on the other switches it flips.)
          EXPECT_NE(route(d, off, off, !on), best_path::tile_fit) << E << " " << rows << " " << batch;
          EXPECT_EQ(best_fit_tile_route(d, off, off, !on), best_path::copy);
        }
  // Padded rows and gapped batches of whole chunks.
  for (int E : {4, 8}) {
    const long long k = 16 / E;
    matrix_desc d = matrix_desc::packed(32, 4096, E, 3);
    d.ld_in += k, d.ld_out += k, d.stride_in = d.ld_in * d.rows + 2 * k, d.stride_out = d.ld_out * d.cols + k;
    EXPECT_EQ(route(d, 0, 0, on), best_path::tile_fit) << E;
  }
}

TEST(BestFitWidePolicy, NotTaken) {
  auto fit = [](const matrix_desc& d, unsigned long long in = 0, unsigned long long out = 0) {
    return route(d, in, out, on) == best_path::tile_fit || route(d, in, out, !on) == best_path::tile_fit;
  };
  for (int E : {4, 8})
    for (long long rows : {24, 32}) {
      const matrix_desc d = matrix_desc::packed(rows, 50176, E, 2);
      EXPECT_FALSE(fit(d, E, 0)) << E << " " << rows;  // input one element off
      EXPECT_FALSE(fit(d, 0, E));                       // output one element off
      EXPECT_FALSE(fit(matrix_desc::packed(rows, 50177, E, 2)));  // odd HW: unaligned input rows
      matrix_desc p = d;
      p.ld_out += 1, p.stride_out = p.ld_out * p.cols;  // output rows of a partial chunk
      EXPECT_FALSE(fit(p));
      EXPECT_FALSE(fit(matrix_desc::packed(rows, 4 * rows - 1, E, 2)));  // rows too short
      EXPECT_FALSE(fit(matrix_desc::packed(50176, rows, E, 2)));         // a scatter
    }
  for (int E : {4, 8})
    for (long long rows : {8, 16, 20, 28, 40, 48, 64}) EXPECT_FALSE(fit(matrix_desc::packed(rows, 50176, E, 2))) << rows;
  for (int E : {1, 2, 16}) EXPECT_FALSE(fit(matrix_desc::packed(32, 50176, E, 2))) << E;
  EXPECT_FALSE(fit(matrix_desc::packed(24, 50176, 2, 2)));
  // The default policy never takes it while the switch is off.
  if (!best_fit_wide_default) EXPECT_NE(route(matrix_desc::packed(32, 131072, 8), 0, 0, false), best_path::tile_fit);
}
