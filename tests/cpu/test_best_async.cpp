// Host-side checks of the cp.async tile (src/cuda/best_async.cuh; routes tile_async and
// tile_async_batch): the table entries satisfy the kernel's constraints, the shared
// layout async_slot is a bijection onto each tile's chunks, the micro-block reads (a
// warp's 4-byte, a half-warp's 8-byte or a quarter-warp's 16-byte accesses) and the
// cp.async writes (quarter-warps of 16 bytes) are free of bank conflicts under a bank
// model.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "cuda/best_async.cuh"
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
  // 4-byte elements: the pipelined tile's own entry.
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
