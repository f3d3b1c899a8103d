// The access model against hand-computed expectations: the hardware's counting rules
// on hand-made warps, the ladder's sectors and bank-conflict ways for every element
// size, the exact totals ncu measured on the H200, and the per-class shortcut against
// the brute-force walk.
#include <xpose/index_map.hpp>
#include <xpose/model.hpp>

#include <string>
#include <utility>
#include <vector>

#include "test_util.hpp"

using namespace xpose_test;
namespace maps = xpose::maps;
namespace model = xpose::model;

namespace {

model::lane_addresses lanes_at(std::int64_t start, std::int64_t stride) {
  model::lane_addresses a;
  for (std::size_t l = 0; l < 32; ++l) a[l] = start + static_cast<std::int64_t>(l) * stride;
  return a;
}

model::config cfg(maps::pattern p, int es, index_t rows, index_t cols, int block_y = 8) {
  model::config c;
  c.pattern = static_cast<int>(p);
  c.elem_size = es;
  c.block_y = block_y;
  c.rows = rows;
  c.cols = cols;
  return c;
}

model::prediction predicted(const model::config& c) {
  model::prediction p;
  const xpose::status s = model::predict(c, p);
  EXPECT_TRUE(s.ok()) << s.message();
  return p;
}

}  // namespace

// ---- the counting rules on hand-made warps ----------------------------------

TEST(WarpRules, GlobalSectors) {
  // 32 consecutive fp32 = 128 bytes from an aligned start: four sectors.
  EXPECT_EQ(model::global_sectors(lanes_at(0, 4), 4), 4);
  // Shifted by one element the same 128 bytes straddle five sectors.
  EXPECT_EQ(model::global_sectors(lanes_at(4, 4), 4), 5);
  // One lane per row of a 4096-float matrix: every lane its own sector.
  EXPECT_EQ(model::global_sectors(lanes_at(0, 4096 * 4), 4), 32);
  // Every lane on the same address: one sector.
  EXPECT_EQ(model::global_sectors(lanes_at(64, 0), 4), 1);
  // A misaligned 16-byte element across a sector boundary costs two.
  model::lane_addresses one;
  one.fill(model::inactive);
  one[7] = 24;
  EXPECT_EQ(model::global_sectors(one, 16), 2);
  one.fill(model::inactive);
  EXPECT_EQ(model::global_sectors(one, 4), 0);  // nothing active, nothing fetched
}

TEST(WarpRules, SharedWavefronts) {
  auto wf = [](const model::lane_addresses& a, int es) {
    const model::smem_cost c = model::smem_wavefronts(a, es);
    return std::pair<int, int>{c.wavefronts, c.min_wavefronts};
  };
  using P = std::pair<int, int>;
  // Consecutive 4-byte words: 32 distinct banks, one pass.
  EXPECT_EQ(wf(lanes_at(0, 4), 4), (P{1, 1}));
  // Stride of 128 bytes: every lane in bank 0, a different word each: 32 passes.
  EXPECT_EQ(wf(lanes_at(0, 128), 4), (P{32, 1}));
  // Stride 132 bytes (pitch 33 floats): banks 0..31, one pass.
  EXPECT_EQ(wf(lanes_at(0, 132), 4), (P{1, 1}));
  // All lanes on one word: broadcast, one pass.
  EXPECT_EQ(wf(lanes_at(8, 0), 4), (P{1, 1}));
  // 1-byte lanes: four lanes share each word (no conflict), 8 words, one pass.
  EXPECT_EQ(wf(lanes_at(0, 1), 1), (P{1, 1}));
  // 8-byte: two half-warps of 128 bytes each, one pass apiece.
  EXPECT_EQ(wf(lanes_at(0, 8), 8), (P{2, 2}));
  // 16-byte: four quarter-warps of 128 bytes each.
  EXPECT_EQ(wf(lanes_at(0, 16), 16), (P{4, 4}));
  // 8-byte, stride 256 bytes: within a half-warp all 16 lanes hit banks 0 and 1 with
  // distinct words: 16 passes per half, 32 in all against a minimum of 2.
  EXPECT_EQ(wf(lanes_at(0, 256), 8), (P{32, 2}));
  // Two active lanes, same bank, different words: 2 passes; inactive lanes are free.
  model::lane_addresses two;
  two.fill(model::inactive);
  two[3] = 0;
  two[20] = 128;
  EXPECT_EQ(wf(two, 4), (P{2, 1}));
  // A half-warp with no active lane is not issued: lanes 0..15 only, one pass.
  model::lane_addresses half = lanes_at(0, 8);
  for (std::size_t l = 16; l < 32; ++l) half[l] = model::inactive;
  EXPECT_EQ(wf(half, 8), (P{1, 1}));
}

// ---- the ladder, per element size ------------------------------------------

// Hand-computed expectations for an interior (256 x 256, packed) launch. Global
// sectors per warp request: a warp reads or writes one tile row of 32 elements,
// 32*es contiguous bytes starting on a 32-byte boundary, i.e. es sectors when
// coalesced; strided, each lane is in a different row, so 32 sectors whatever es
// (an element of <= 16 bytes never straddles a sector). Shared ways:
//  - row-wise slot [i][tx]: 32*es contiguous bytes per warp, i.e. 128 bytes per
//    wavefront group -> conflict-free (1) for every size, pitch 32 or 33;
//  - tiled, column-wise slot [tx][i], pitch 32 -> lanes 32*es bytes apart:
//      es=1: 8 words apart -> 4 banks x 8 lanes with distinct words: 8 ways;
//      es=2: 16 words apart -> 2 banks x 16 lanes: 16 ways;
//      es=4: 32 words apart -> 1 bank x 32 lanes: 32 ways;
//      es=8: 64 words apart, half-warps: 16 lanes on banks (2i, 2i+1), 16 passes per
//            half, 32 in all over a minimum of 2: 16 ways;
//      es=16: quarter-warps of 8 lanes on banks 4i..4i+3: 8 passes each, 32 over 4: 8 ways;
//  - tiled_padded, column-wise, pitch 33 -> lanes 33*es bytes apart:
//      es=4: bank (tx + i) mod 32, all distinct: 1;
//      es=8: half-warp banks (2tx + 2i, +1) mod 32 for tx < 16, all distinct: 1;
//      es=16: quarter-warp banks 4tx + 4i + 0..3 mod 32 for tx < 8, all distinct: 1;
//      es=1: lane tx = 4q + m reads byte 33tx + i, bank (q + 8m + floor((m + i)/4)) mod 32.
//            When i mod 4 != 0 the m = 3 run of banks ends one bank later and wraps onto
//            bank floor(i/4) of lane 0 (e.g. i = 1: lane 0 byte 1 and lane 31 byte 1024,
//            words 0 and 256, both bank 0): 2 passes for 24 of the 32 steps, 1 for 8,
//            1.75 ways on average. One element of padding is 1 byte here, not a bank.
//      es=2: likewise tx = 2q + m, bank (q + 16m + floor((m + i)/2)) mod 32: odd steps
//            wrap lane 31 onto lane 0's bank: 2 passes for 16 steps, 1 for 16: 1.5 ways.
struct size_case {
  int es;
  double tiled_ld_ways;
  double padded_ld_ways;
};
void PrintTo(const size_case& k, std::ostream* os) { *os << k.es << "-byte elements"; }
class LadderBySize : public ::testing::TestWithParam<size_case> {};

TEST_P(LadderBySize, SectorsPerRequestAndWays) {
  const size_case k = GetParam();
  const double coalesced = k.es, strided = 32;
  struct rung {
    maps::pattern p;
    double ld, st;
  };
  for (const rung& r : {rung{maps::pattern::copy, coalesced, coalesced},
                        rung{maps::pattern::copy_shared, coalesced, coalesced},
                        rung{maps::pattern::naive, coalesced, strided},
                        rung{maps::pattern::naive_read, strided, coalesced},
                        rung{maps::pattern::tiled, coalesced, coalesced},
                        rung{maps::pattern::tiled_padded, coalesced, coalesced},
                        rung{maps::pattern::diagonal, coalesced, coalesced}}) {
    SCOPED_TRACE("pattern " + std::to_string(static_cast<int>(r.p)) + " es " + std::to_string(k.es));
    const model::prediction p = predicted(cfg(r.p, k.es, 256, 256));
    // 256 x 256 = 64 tiles of 32 warp instructions per memory instruction.
    EXPECT_EQ(p.global_load.requests, 64 * 32);
    EXPECT_EQ(p.global_store.requests, 64 * 32);
    EXPECT_DOUBLE_EQ(p.global_load.sectors_per_request(), r.ld);
    EXPECT_DOUBLE_EQ(p.global_store.sectors_per_request(), r.st);
    // Strided: each 32-byte sector carries one element.
    EXPECT_DOUBLE_EQ(p.global_store.efficiency(), r.st == strided ? k.es / 32.0 : 1.0);
    EXPECT_DOUBLE_EQ(p.global_load.efficiency(), r.ld == strided ? k.es / 32.0 : 1.0);
    EXPECT_EQ(p.staged, maps::uses_smem(r.p));
    if (!p.staged) {
      EXPECT_EQ(p.smem_load.requests, 0);
      continue;
    }
    EXPECT_DOUBLE_EQ(p.smem_store.ways(), 1.0);
    const double ld_ways = r.p == maps::pattern::copy_shared ? 1.0
                           : r.p == maps::pattern::tiled     ? k.tiled_ld_ways
                                                             : k.padded_ld_ways;
    EXPECT_DOUBLE_EQ(p.smem_load.ways(), ld_ways);
  }
}

INSTANTIATE_TEST_SUITE_P(ElementSizes, LadderBySize,
                         ::testing::Values(size_case{1, 8, 1.75}, size_case{2, 16, 1.5},
                                           size_case{4, 32, 1}, size_case{8, 16, 1},
                                           size_case{16, 8, 1}),
                         [](const auto& info) { return std::to_string(info.param.es) + "byte"; });

TEST(Ladder, CourseNumbersAtFp32) {
  // The course's arithmetic: per warp pair (one load + one store request) a copy
  // moves 4 + 4 sectors, naive 4 + 32, naive_read 32 + 4.
  auto pair = [](maps::pattern p) {
    const model::prediction r = predicted(cfg(p, 4, 1024, 1024));
    return std::pair<double, double>{r.global_load.sectors_per_request(), r.global_store.sectors_per_request()};
  };
  using P = std::pair<double, double>;
  EXPECT_EQ(pair(maps::pattern::copy), (P{4, 4}));
  EXPECT_EQ(pair(maps::pattern::naive), (P{4, 32}));
  EXPECT_EQ(pair(maps::pattern::naive_read), (P{32, 4}));
  EXPECT_EQ(pair(maps::pattern::tiled), (P{4, 4}));
  const model::prediction tiled = predicted(cfg(maps::pattern::tiled, 4, 1024, 1024));
  EXPECT_EQ(tiled.smem_load.max_wavefronts, 32);  // the transposed read: 32-way
  EXPECT_EQ(tiled.smem_store.max_wavefronts, 1);
  const model::prediction padded = predicted(cfg(maps::pattern::tiled_padded, 4, 1024, 1024));
  EXPECT_EQ(padded.smem_load.bank_conflicts(), 0);
  EXPECT_EQ(padded.smem_store.bank_conflicts(), 0);
}

TEST(Ladder, MatchesNcuOnH200At4096Fp32) {
  // ncu on the H200, tiled (unpadded), 32x8 threads: 2,097,152 load and 2,097,152
  // store sectors (= 4096*4096*4 bytes / 32), ~16.4 million shared-load bank conflicts.
  for (int by : {8, 32}) {
    const model::prediction p = predicted(cfg(maps::pattern::tiled, 4, 4096, 4096, by));
    EXPECT_EQ(p.global_load.sectors, 2'097'152);
    EXPECT_EQ(p.global_store.sectors, 2'097'152);
    // 524,288 transposed-read requests, each 32 wavefronts for 1: 31 extra apiece.
    EXPECT_EQ(p.smem_load.requests, 524'288);
    EXPECT_EQ(p.smem_load.bank_conflicts(), 31 * 524'288);
    EXPECT_NEAR(static_cast<double>(p.smem_load.bank_conflicts()), 16.4e6, 0.02 * 16.4e6);
    EXPECT_EQ(p.smem_store.bank_conflicts(), 0);
  }
}

TEST(Ladder, OneWarpInstruction) {
  model::warp_cost w;
  const model::config padded1 = cfg(maps::pattern::tiled_padded, 1, 64, 64);
  // The 1-byte residue derived above: step 0 is clean, step 1 wraps onto bank 0.
  ASSERT_TRUE(model::warp_instruction(padded1, model::access::smem_load, 0, 0, 0, w).ok());
  EXPECT_EQ(w.smem.wavefronts, 1);
  ASSERT_TRUE(model::warp_instruction(padded1, model::access::smem_load, 0, 0, 1, w).ok());
  EXPECT_EQ(w.smem.wavefronts, 2);
  // Ragged corner of a 33 x 33 naive launch: step 0 of tile (32, 32) has one lane.
  const model::config naive33 = cfg(maps::pattern::naive, 4, 33, 33);
  ASSERT_TRUE(model::warp_instruction(naive33, model::access::global_store, 32, 32, 0, w).ok());
  EXPECT_EQ(w.active_lanes, 1);
  EXPECT_EQ(w.sectors, 1);
  ASSERT_TRUE(model::warp_instruction(naive33, model::access::global_store, 32, 32, 1, w).ok());
  EXPECT_EQ(w.active_lanes, 0);
  EXPECT_EQ(w.sectors, 0);
  // Copy rungs have no shared accesses to ask about.
  EXPECT_EQ(model::warp_instruction(naive33, model::access::smem_load, 0, 0, 0, w).code(),
            xpose::status_code::invalid_argument);
}

TEST(Ladder, RaggedTotals) {
  // 33 x 33 packed fp32 copy. Rows are 132 bytes, so row r starts at byte 132r, on a
  // sector boundary only when r is a multiple of 8. Tile (0, 0): 32 full-warp rows of
  // 128 bytes, 4 sectors for r = 0, 8, 16, 24 and 5 for the other 28: 156. Right edge
  // (column 32): 32 one-lane warps, 1 sector each: 32. Bottom edge (row 32, byte 4224,
  // aligned): one full warp, 4. Corner: one lane, 1. 66 requests, 193 sectors a side.
  const model::prediction copy = predicted(cfg(maps::pattern::copy, 4, 33, 33));
  EXPECT_EQ(copy.global_load.requests, 66);
  EXPECT_EQ(copy.global_load.sectors, 156 + 32 + 4 + 1);
  EXPECT_EQ(copy.global_store.sectors, 156 + 32 + 4 + 1);
  EXPECT_EQ(copy.global_load.bytes_used, 33 * 33 * 4);
  EXPECT_EQ(copy.global_load.max_sectors, 5);
}

// ---- the per-class shortcut is exact ---------------------------------------

TEST(Model, PredictEqualsTheBruteForceWalk) {
  const std::vector<std::pair<index_t, index_t>> shapes{{1, 1},   {1, 100}, {100, 1},  {31, 33},
                                                        {33, 31}, {64, 64}, {65, 97}, {130, 70}};
  for (int pat = 0; pat < maps::pattern_count; ++pat)
    for (int es : {1, 2, 4, 8, 16})
      for (auto [rows, cols] : shapes)
        for (index_t pad : {0, 3}) {
          model::config c = cfg(static_cast<maps::pattern>(pat), es, rows, cols, pad ? 32 : 8);
          // A padded leading dimension misaligns rows, not tiles: the shortcut must hold.
          if (pad) {
            c.ld_in = cols + pad;
            c.ld_out = rows + 2 * pad;
          }
          SCOPED_TRACE("pattern " + std::to_string(pat) + " es " + std::to_string(es) + " " +
                       std::to_string(rows) + "x" + std::to_string(cols) + " pad " + std::to_string(pad));
          const model::prediction fast = predicted(c);
          model::walk_result slow;
          ASSERT_TRUE(model::walk(c, slow).ok());
          EXPECT_TRUE(slow.bijective) << slow.first_error;
          for (model::access a : {model::access::global_load, model::access::smem_store, model::access::smem_load, model::access::global_store}) {
            SCOPED_TRACE(model::to_string(a));
            const model::access_totals& f = fast[a];
            const model::access_totals& s = slow.totals[a];
            EXPECT_EQ(f.requests, s.requests);
            EXPECT_EQ(f.bytes_used, s.bytes_used);
            EXPECT_EQ(f.sectors, s.sectors);
            EXPECT_EQ(f.wavefronts, s.wavefronts);
            EXPECT_EQ(f.min_wavefronts, s.min_wavefronts);
            EXPECT_EQ(f.max_sectors, s.max_sectors);
            EXPECT_EQ(f.max_wavefronts, s.max_wavefronts);
          }
        }
}

TEST(Model, RejectsWhatItDoesNotModel) {
  model::prediction p;
  EXPECT_EQ(model::predict(cfg(static_cast<maps::pattern>(-1), 4, 8, 8), p).code(),
            xpose::status_code::unsupported_variant);  // memcpy, fast path: "no model"
  EXPECT_EQ(model::predict(cfg(maps::pattern::tiled, 3, 8, 8), p).code(),
            xpose::status_code::unsupported_elem_size);
  EXPECT_EQ(model::predict(cfg(maps::pattern::tiled, 4, 8, 8, 12), p).code(),
            xpose::status_code::invalid_argument);
  model::config bad_ld = cfg(maps::pattern::naive, 4, 8, 8);
  bad_ld.ld_out = 4;
  EXPECT_EQ(model::predict(bad_ld, p).code(), xpose::status_code::bad_leading_dim);
  EXPECT_EQ(model::predict(cfg(maps::pattern::naive, 4, -1, 8), p).code(),
            xpose::status_code::negative_size);
  // An empty matrix is valid and costs nothing.
  ASSERT_TRUE(model::predict(cfg(maps::pattern::naive, 4, 0, 8), p).ok());
  EXPECT_EQ(p.global_load.requests, 0);
}
