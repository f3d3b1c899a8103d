// Host-side checks of the cp.async tile (src/cuda/best_async.cuh; routes tile_async and
// tile_async_batch): the table entries satisfy the kernel's constraints, the shared
// layout async_slot is a bijection onto each tile's chunks, the micro-block reads (a
// warp's 4-byte, a half-warp's 8-byte or a quarter-warp's 16-byte accesses) and the
// cp.async writes (quarter-warps of 16 bytes) are free of bank conflicts under a bank
// model, and best_path_for sends exactly the intended shapes there under the switch.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "cuda/best_async.cuh"
#include "cuda/policy.hpp"
#include "test_util.hpp"

using namespace xpose::detail;
using xpose::matrix_desc;

namespace {

// Slot function of the geometry (E, TR, NCH): the template arguments of async_slot.
template <int E, int TR, int NCH>
struct geo {
  static constexpr int e = E, rows = TR, chunks = NCH;
  static int slot(int r, int c) { return async_tile::async_slot<E, TR, NCH>(r, c); }
};

// A model of shared-memory banks: 32 banks of 4 bytes; the accesses of one wavefront
// group (quarter-warp for 16 bytes, half-warp for 8, warp for 4) must not share a bank
// at different addresses. Returns the extra wavefronts (0 = conflict-free).
int conflicts(const std::vector<std::pair<int, int>>& byte_ranges) {  // (first byte, bytes)
  std::vector<std::set<int>> words(32);
  for (auto [b, n] : byte_ranges)
    for (int x = b; x < b + n; x += 4) words[(x / 4) % 32].insert(x / 4);
  int worst = 1;
  for (const auto& w : words) worst = std::max<int>(worst, static_cast<int>(w.size()));
  return worst - 1;
}

// Every check for one geometry with micro-block rows of MW bytes and NT threads.
template <class G, int MW, int NT>
void check_geometry() {
  constexpr int E = G::e, TR = G::rows, NCH = G::chunks, k = 16 / E, RN = TR / k, H = 16 / MW;
  SCOPED_TRACE("E=" + std::to_string(E) + " TR=" + std::to_string(TR) + " NCH=" + std::to_string(NCH) +
               " MW=" + std::to_string(MW));
  // Bijection onto [0, TR*NCH).
  std::vector<int> seen(TR * NCH, 0);
  for (int r = 0; r < TR; ++r)
    for (int c = 0; c < NCH; ++c) {
      const int s = G::slot(r, c);
      ASSERT_GE(s, 0);
      ASSERT_LT(s, TR * NCH);
      ++seen[s];
    }
  for (int s = 0; s < TR * NCH; ++s) ASSERT_EQ(seen[s], 1) << "slot " << s;

  // Micro-block reads: thread m reads rows R*k + i, chunk C, bytes h*MW .. +MW (m = h +
  // H*(R + RN*C), as async_tile_kernel numbers them); groups of 128 bytes of accesses.
  const int group = 128 / MW, MT = RN * NCH * H;
  for (int i = 0; i < k; ++i)
    for (int m0 = 0; m0 < MT; m0 += group) {
      std::vector<std::pair<int, int>> acc;
      for (int m = m0; m < m0 + group && m < MT; ++m) {
        const int h = m % H, R = (m / H) % RN, C = m / (H * RN);
        acc.push_back({G::slot(R * k + i, C) * 16 + h * MW, MW});
      }
      ASSERT_EQ(conflicts(acc), 0) << "micro-block row " << i << " threads " << m0;
    }
  // cp.async writes: thread t writes row t / NCH + j*RPS, chunk t % NCH; quarter-warps.
  constexpr int RPS = NT / NCH;
  for (int j = 0; j < TR / RPS; ++j)
    for (int t0 = 0; t0 < NT; t0 += 8) {
      std::vector<std::pair<int, int>> acc;
      for (int t = t0; t < t0 + 8; ++t) acc.push_back({G::slot(t / NCH + j * RPS, t % NCH) * 16, 16});
      ASSERT_EQ(conflicts(acc), 0) << "load step " << j << " threads " << t0;
    }
}

}  // namespace

TEST(BestAsync, TableEntriesFitTheKernel) {
  for (int E : {1, 2})
    for (bool batch : {false, true}) {
      EXPECT_TRUE(best_async_tile_valid(E, best_tile_async_for(E, batch))) << E << batch;
      EXPECT_TRUE(best_async_pipe_valid(E, best_tile_async_pipe_for(E, batch))) << E << batch;
      // One matrix of 64 x 64 per batch tile; the pipelined tile moves the async tile's group.
      if (batch) EXPECT_EQ(best_tile_async_for(E, true).t.chunks * 16 / E, 64) << E;
    }
  EXPECT_FALSE(best_async_pipe_valid(1, best_async_pipe{best_tile_async_for(1, false), 1}));  // one stage
  EXPECT_FALSE(best_async_pipe_valid(1, best_async_pipe{{{256, 16, 256, 8, 1}, 1}, 4}));    // 256 KiB
  // 4-byte elements: the pipelined tile's own entry (best_async_pipe_f32_default).
  EXPECT_TRUE(best_async_pipe_valid(4, best_tile_async_pipe_for(4, false)));
  EXPECT_FALSE(best_async_pipe_valid(16, best_async_pipe{{{32, 16, 256, 16, 4}, 1}, 2}));  // 16-byte elements
  // The constraints reject what the kernel cannot run.
  EXPECT_FALSE(best_async_tile_valid(16, best_async_tile{{64, 16, 256, 16, 4}, 1}));  // 16-byte elements
  EXPECT_FALSE(best_async_tile_valid(8, best_async_tile{{64, 16, 256, 4, 4}, 1}));   // micro rows below an element
  EXPECT_FALSE(best_async_tile_valid(1, best_async_tile{{96, 16, 256, 4, 4}, 1}));   // 6 row blocks
  EXPECT_FALSE(best_async_tile_valid(1, best_async_tile{{128, 16, 256, 16, 4}, 1}));  // half the threads idle
  EXPECT_FALSE(best_async_tile_valid(1, best_async_tile{{256, 16, 256, 4, 1}, 4}));  // 256 KiB of shared memory
  EXPECT_FALSE(best_async_tile_valid(1, best_async_tile{{64, 2, 128, 4, 1}, 4}));    // 32-byte rows
}

TEST(BestAsync, SharedLayoutIsABijectionWithoutBankConflicts) {
  // The table's geometries, then the others the kernel accepts (best_bench --async).
  check_geometry<geo<1, 128, 16>, 4, 256>();
  check_geometry<geo<1, 64, 4>, 4, 128>();
  check_geometry<geo<1, 128, 16>, 8, 256>();
  check_geometry<geo<1, 256, 16>, 4, 256>();
  check_geometry<geo<1, 64, 4>, 8, 128>();
  check_geometry<geo<1, 64, 8>, 4, 128>();
  check_geometry<geo<1, 64, 8>, 8, 64>();
  check_geometry<geo<1, 32, 16>, 4, 64>();
  check_geometry<geo<2, 64, 4>, 16, 128>();
  check_geometry<geo<2, 128, 16>, 16, 256>();
  check_geometry<geo<2, 64, 8>, 8, 128>();
  check_geometry<geo<2, 64, 16>, 16, 256>();
  check_geometry<geo<2, 64, 8>, 16, 128>();
  check_geometry<geo<4, 64, 16>, 16, 256>();  // 4-byte pipelined tile (table)
  check_geometry<geo<8, 64, 16>, 16, 256>();  // (8 bytes: best_bench --sqw, not routed)
}

TEST(BestAsync, PathsUnderTheSwitch) {
  const bool on = !best_async_default, off = best_async_default;  // candidate flags
  auto path = [](const matrix_desc& d, bool cand, unsigned long long in = 0, unsigned long long out = 0) {
    return best_path_for(d, in, out, 90, cand).path;
  };
  // 1-byte aligned matrices of fewer than best_half_max_tiles standard tiles (above 64 KiB:
  // tiny ones take the narrow tile under the candidate) take the async tile, in place of
  // tile_half (or of tile under its switch); larger keep the tile.
  // (Calls of at least best_async_pipe_min_bytes take the pipelined tile where its switch
  // has `on` take it: below.)
  auto async = [&](long long r, long long c) {
    return best_route_on(best_async_pipe_default, on) && r * c >= best_async_pipe_min_bytes ? best_path::tile_async_pipe
                                                                                             : best_path::tile_async;
  };
  for (auto [r, c] : {std::pair<long long, long long>{5760, 5760}, {1040, 2064}, {304, 400}, {6144, 7936}}) {
    EXPECT_EQ(path(matrix_desc::packed(r, c, 1), on), async(r, c)) << r << "x" << c;
    const best_path o = path(matrix_desc::packed(r, c, 1), off);
    EXPECT_TRUE(o == best_path::tile || o == best_path::tile_half ||
                (best_route_on(best_async_pipe_default, off) && o == best_path::tile_async_pipe))
        << best_path_name(o);
  }
  EXPECT_EQ(path(matrix_desc::packed(16384, 16384, 1), on), best_path::tile);
  EXPECT_EQ(path(matrix_desc::packed(6144, 8192, 1), on), best_path::tile);  // 768 standard tiles
  EXPECT_EQ(path(matrix_desc::packed(5760, 5760, 1), on, 16, 32), async(5760, 5760));  // aligned offsets
  // 33-64 x 33-64 one-byte batches take the batch geometry, under any layout of 16-byte rows.
  EXPECT_EQ(path(matrix_desc::packed(64, 64, 1, 8192), on), best_path::tile_async_batch);
  EXPECT_EQ(path(matrix_desc::packed(48, 64, 1, 100), on), best_path::tile_async_batch);
  EXPECT_EQ(path(xpose_test::padded(40, 50, 1, 7, 14, 8, 16), on), best_path::tile_async_batch);
  EXPECT_NE(path(matrix_desc::packed(64, 64, 1, 8192), off), best_path::tile_async_batch);  // (maybe pipelined)
  // Not taken: elements offset by one (realigning routes), other element sizes, small
  // matrices, skinny shapes, single 64 x 64 matrices.
  EXPECT_NE(path(matrix_desc::packed(5760, 5760, 1), on, 1, 0), best_path::tile_async);
  EXPECT_NE(path(matrix_desc::packed(64, 64, 1, 8192), on, 0, 1), best_path::tile_async_batch);
  // (2-byte elements: their own switch, best_async_f16_default, below.)
  if (!best_route_on(best_async_f16_default, on) && !best_route_on(best_async_pipe_default, on)) {
    EXPECT_EQ(path(matrix_desc::packed(4096, 4096, 2), on), best_path::tile);
    EXPECT_NE(path(matrix_desc::packed(64, 64, 2, 8192), on), best_path::tile_async_batch);
  }
  EXPECT_NE(path(matrix_desc::packed(32, 32, 1, 32768), on), best_path::tile_async_batch);
  EXPECT_EQ(path(matrix_desc::packed(64, 64, 1), on), best_path::tile_narrow);
  EXPECT_EQ(path(matrix_desc::packed(32, 8388608, 1), on), best_path::tile_few_rows);
}

namespace {

// The realigning async tile's layout (async_realign_row_word) for element size E: rows
// of NCH + 1 chunks never overlap and fit best_async_realign_smem; a warp's micro-block
// reads of one row i (4 sub-words h x 8 row blocks R, chunk column C, the row's byte
// shift off: words C*4 + h + off/4 and the next) hit 32 distinct banks for every shift.
template <int E>
void check_realign_layout() {
  constexpr best_tile t = best_tile_async_realign_for(E);
  constexpr int k = 16 / E, NCH = t.chunks, RN = t.rows / k, H = 4;
  SCOPED_TRACE("E=" + std::to_string(E));
  ASSERT_TRUE(best_async_realign_valid(E, t));
  std::vector<int> owner(best_async_realign_smem(t) / 4, -1);
  for (int r = 0; r < t.rows; ++r) {
    const int w0 = async_tile::async_realign_row_word<E, NCH>(r);
    ASSERT_EQ(w0 % 4, 0) << "row " << r << " is not 16-byte aligned (cp.async)";
    for (int w = w0; w < w0 + (NCH + 1) * 4; ++w) {
      ASSERT_LT(w, static_cast<int>(owner.size()));
      ASSERT_EQ(owner[w], -1) << "rows " << owner[w] << " and " << r << " overlap";
      owner[w] = r;
    }
  }
  for (int off = 0; off < 16; off += E)
    for (int i = 0; i < k; ++i)
      for (int C = 0; C < NCH; ++C)
        for (int second = 0; second < 2; ++second) {
          std::vector<std::pair<int, int>> acc;
          for (int R = 0; R < RN; ++R)
            for (int h = 0; h < H; ++h)
              acc.push_back({(async_tile::async_realign_row_word<E, NCH>(R * k + i) + C * 4 + h + off / 4 + second) * 4, 4});
          ASSERT_EQ(conflicts(acc), 0) << "shift " << off << " row " << i << " chunk " << C;
        }
}

}  // namespace

TEST(BestAsync, RealignLayoutFitsWithoutBankConflicts) {
  check_realign_layout<1>();
  check_realign_layout<2>();
  EXPECT_FALSE(best_async_realign_valid(1, best_tile{128, 16, 256, 8, 4}));  // 8-byte rows: not the shifted read
  EXPECT_FALSE(best_async_realign_valid(1, best_tile{256, 16, 256, 4, 4}));  // 16 row blocks: two warps per segment
  EXPECT_FALSE(best_async_realign_valid(4, best_tile{32, 16, 256, 4, 4}));   // 4-byte elements
}

TEST(BestAsync, RealignPathsUnderTheSwitch) {
  const bool on = !best_async_realign_default, off = best_async_realign_default;
  // (Under a flag that turns the cp.async skewed tile on, that route where it fits.)
  auto or_async = [](best_path old, const matrix_desc& d, unsigned long long out, bool flag) {
    if (best_route_on(best_skew_sector_default, flag) && best_skew_sector_fits(d, out)) return best_path::realign_skew_sector;
    return best_route_on(best_skew_async_default, flag) && best_skew_async_fits(d, out) ? best_path::realign_skew_async
                                                                                       : old;
  };
  for (int E : {1, 2}) {
    // Element-aligned input rows or pointer, aligned output rows: the async realigning tile.
    const matrix_desc odd = matrix_desc::packed(5760, 5761, E), sq = matrix_desc::packed(4096, 4096, E);
    EXPECT_EQ(best_path_for(odd, 0, 0, 90, on).path, or_async(best_path::realign_async, odd, 0, on)) << E;
    EXPECT_EQ(best_path_for(sq, E, 0, 90, on).path, or_async(best_path::realign_async, sq, 0, on)) << E;
    const matrix_desc odd2 = matrix_desc::packed(4096, 4097, E);
    EXPECT_EQ(best_path_for(odd2, 0, 0, 90, off).path, or_async(best_path::realign, odd2, 0, off)) << E;
    // Output rows (or pointer, or batch stride) not aligned: the routes of before.
    for (bool cand : {on, off}) {
      const best_path o = best_path_for(matrix_desc::packed(5759, 5763, E), 0, 0, 90, cand).path;
      EXPECT_TRUE(o == best_path::realign || o == best_path::realign_skew ||
                  (o == best_path::realign_skew_async && best_route_on(best_skew_async_default, cand)) ||
                  (o == best_path::realign_skew_sector && best_route_on(best_skew_sector_default, cand)))
          << best_path_name(o);
      EXPECT_NE(best_path_for(matrix_desc::packed(5760, 5761, E), 0, E, 90, cand).path, best_path::realign_async);
      EXPECT_NE(best_path_for(xpose_test::padded(304, 517, E, 3, 0, 0, 1), 0, 0, 90, cand).path,
                best_path::realign_async);
    }
    EXPECT_TRUE(best_out_rows_aligned(xpose_test::padded(304, 517, E, 3, 0, 0, 16 / E), 0));
    // Slabs keep their routes; aligned layouts keep the tiles.
    EXPECT_EQ(best_path_base(best_path_for(matrix_desc::packed(3, 1000001, E), 0, 0, 90, on).path),
              best_path::slab_gather);
    EXPECT_NE(best_path_for(matrix_desc::packed(4096, 4096, E), 0, 0, 90, on).path, best_path::realign_async);
  }
  for (int E : {4, 8})
    EXPECT_NE(best_path_for(matrix_desc::packed(2047, 2051, E), 0, 0, 90, on).path, best_path::realign_async) << E;
}

// The pipelined tile (best_async_pipe_default) and the 2-byte async routes
// (best_async_f16_default), each under the candidate flag that takes it.
TEST(BestAsync, PipelinedAndTwoBytePathsUnderTheSwitches) {
  auto path = [](const matrix_desc& d, bool cand, unsigned long long in = 0, unsigned long long out = 0) {
    return best_path_for(d, in, out, 90, cand).path;
  };
  for (bool cand : {false, true}) {
    const bool pipe = best_route_on(best_async_pipe_default, cand);
    const bool f16 = best_route_on(best_async_f16_default, cand), u8 = best_route_on(best_async_default, cand);
    for (int E : {1, 2}) {
      SCOPED_TRACE(std::to_string(E) + (cand ? " best_next" : " best"));
      const bool async = E == 1 ? u8 : f16;
      // Squares of fewer than best_half_max_tiles tiles of 256 rows x 256 bytes; the
      // pipelined tile from best_async_pipe_min_bytes (16 MiB) on.
      for (auto [r, c] : {std::pair<long long, long long>{5760 / E, 5760 / E}, {4096, 4096 / E}, {304, 400},
                          {1040, 2064}, {2048, 8192 / E}, {4096, 4080 / E}}) {
        const best_path p = path(matrix_desc::packed(r, c, E), cand);
        const bool big = r * c * E >= (16ll << 20);
        EXPECT_EQ(best_async_pipe_fits(E, false, r * c * E), big);
        if (pipe && big) EXPECT_EQ(p, best_path::tile_async_pipe) << r << "x" << c;
        else if (async) EXPECT_EQ(p, best_path::tile_async) << r << "x" << c;
        else EXPECT_TRUE(p == best_path::tile || p == best_path::tile_half) << best_path_name(p);
        EXPECT_EQ(path(matrix_desc::packed(r, c, E), cand, 16, 32), p);  // whole-chunk offsets
        EXPECT_NE(path(matrix_desc::packed(r, c, E), cand, E, 0), p);    // one element: realigning routes
      }
      // 64 x 64 (33-64) batches: pipelined for 2-byte elements from 16 MiB on (4096 x 48 x 64
      // f16: 24 MiB; 1000 x 64 x 64: 8 MiB).
      for (auto [r, c] : {std::pair<long long, long long>{64, 64}, {48, 64}, {64, 48}}) {
        const best_path p = path(matrix_desc::packed(r, c, E, 4096), cand);
        EXPECT_NE(path(matrix_desc::packed(r, c, E, 1000), cand), best_path::tile_async_pipe_batch);
        if (pipe && E == 2) EXPECT_EQ(p, best_path::tile_async_pipe_batch) << r << "x" << c;
        else if (async) EXPECT_EQ(p, best_path::tile_async_batch) << r << "x" << c;
        else EXPECT_NE(p, best_path::tile_async_batch);
      }
      // Out of range: 768 tiles and more, small batches, tiny and skinny matrices.
      EXPECT_EQ(path(matrix_desc::packed(6144, 8192 / E, E), cand), best_path::tile);
      EXPECT_EQ(path(matrix_desc::packed(16384, 16384, E), cand), best_path::tile);
      EXPECT_NE(path(matrix_desc::packed(32, 32, E, 32768), cand), best_path::tile_async_pipe_batch);
      EXPECT_EQ(path(matrix_desc::packed(64, 64, E), cand), best_path::tile_narrow);
      EXPECT_EQ(path(matrix_desc::packed(32, 8388608, E), cand), best_path::tile_few_rows);
    }
    // 4-byte elements: the pipelined tile under its own switch (test below); 8-16 bytes never.
    const bool f32 = best_route_on(best_async_pipe_f32_default, cand);
    for (int E : {4, 8, 16}) {
      const best_path big = f32 && E == 4 ? best_path::tile_async_pipe : best_path::tile;
      EXPECT_EQ(path(matrix_desc::packed(2048 / E * 4, 2048 / E * 4, E), cand), big) << E;
      EXPECT_EQ(path(matrix_desc::packed(64, 64, E, 4096 / E * 4), cand), big) << E;
    }
  }
}

// 4-byte aligned matrices and batches that take the standard tile, from
// best_async_pipe_min_bytes (16 MiB) to best_async_pipe_f32_max_bytes (64 MiB): the
// pipelined async tile under the flag where best_async_pipe_f32_default has it on; the
// standard tile otherwise, and for 8-byte elements always.
TEST(BestAsync, F32PipelinedTileUnderItsSwitch) {
  auto path = [](const matrix_desc& d, bool cand, unsigned long long in = 0, unsigned long long out = 0) {
    return best_path_for(d, in, out, 90, cand).path;
  };
  for (bool cand : {false, true}) {
    SCOPED_TRACE(cand ? "best_next" : "best");
    const best_path on = best_route_on(best_async_pipe_f32_default, cand) ? best_path::tile_async_pipe : best_path::tile;
    for (const matrix_desc& d : {matrix_desc::packed(2880, 2880, 4), matrix_desc::packed(4096, 4096, 4),
                                 matrix_desc::packed(4100, 2068, 4), matrix_desc::packed(64, 64, 4, 2048),
                                 matrix_desc::packed(96, 80, 4, 1024), matrix_desc::packed(1000, 1100, 4, 9)}) {
      EXPECT_EQ(path(d, cand), on) << d.batch << "x" << d.rows << "x" << d.cols;
      EXPECT_EQ(path(d, cand, 16, 32), on);                       // whole-chunk offsets
      EXPECT_NE(path(d, cand, 4, 0), best_path::tile_async_pipe);  // one element: realigning routes
      matrix_desc d8 = d;
      d8.elem_size = 8;
      EXPECT_EQ(path(d8, cand), best_path::tile);  // 8 bytes: the standard tile
    }
    // Below 16 MiB, above 64 MiB (the register tile's many waves), sides under 64 (the
    // sweep's 3 x 48 x 50176 gather), skinny shapes: other routes.
    EXPECT_EQ(path(matrix_desc::packed(48, 64, 4, 4096), cand), best_path::tile);
    EXPECT_EQ(path(matrix_desc::packed(64, 40, 4, 3001), cand), best_path::tile);
    EXPECT_NE(path(matrix_desc::packed(48, 50176, 4, 3), cand), best_path::tile_async_pipe);
    EXPECT_EQ(path(matrix_desc::packed(1024, 1024, 4), cand), best_path::tile);
    EXPECT_EQ(path(matrix_desc::packed(4096, 4100, 4), cand), best_path::tile);
    EXPECT_EQ(path(matrix_desc::packed(8192, 8192, 4), cand), best_path::tile);
    EXPECT_NE(path(matrix_desc::packed(32, 1 << 22, 4), cand), best_path::tile_async_pipe);
    EXPECT_NE(path(matrix_desc::packed(1 << 22, 32, 4), cand), best_path::tile_async_pipe);
  }
}
