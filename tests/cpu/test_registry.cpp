// The registry table and the ladder's index maps, checked on the host: every
// transposing rung's maps send each input element to its transposed place exactly once.
#include <xpose/index_map.hpp>
#include <xpose/registry.hpp>

#include <set>
#include <string>
#include <vector>

#include "test_util.hpp"

using namespace xpose_test;
namespace maps = xpose::maps;

TEST(Registry, NamesUniqueAndFindable) {
  std::set<std::string> names;
  for (const auto& v : xpose::variants()) {
    EXPECT_TRUE(names.insert(v.name).second) << v.name;
    EXPECT_EQ(xpose::find_variant(v.name), &v);
    EXPECT_STRNE(v.description, "");
    EXPECT_NE(v.elem_sizes, 0u);
  }
  for (const char* n : {"memcpy", "copy", "copy_shared", "naive", "naive_read", "tiled", "tiled_padded", "diagonal"})
    EXPECT_NE(xpose::find_variant(n), nullptr) << n;
  EXPECT_EQ(xpose::find_variant("nope"), nullptr);
}

// Simulates a launch on the host through the maps: records, for every output
// slot, which input element landed there (through the shared tile when staged).
static void check_bijection(maps::pattern p, index_t rows, index_t cols, int block_y) {
  SCOPED_TRACE("pattern " + std::to_string(static_cast<int>(p)) + " " + std::to_string(rows) + "x" +
               std::to_string(cols) + " block_y " + std::to_string(block_y));
  const bool tr = maps::transposes(p);
  const index_t ld_in = cols + 3, ld_out = tr ? rows + 2 : ld_in;
  const index_t out_size = tr ? (cols - 1) * ld_out + rows : (rows - 1) * ld_in + cols;
  std::vector<index_t> written(static_cast<std::size_t>(out_size), -1);
  const index_t gx = maps::tiles(cols), gy = maps::tiles(rows);
  std::vector<index_t> tile(static_cast<std::size_t>(maps::ladder_tile * maps::smem_pitch(p)), -1);
  for (index_t by = 0; by < gy; ++by)
    for (index_t bx = 0; bx < gx; ++bx) {
      const auto t = maps::visit_tile(p, bx, by, gx, gy);
      const index_t r0 = t.y * maps::ladder_tile, c0 = t.x * maps::ladder_tile;
      std::fill(tile.begin(), tile.end(), -1);
      for (int ty = 0; ty < block_y; ++ty)
        for (int tx = 0; tx < 32; ++tx)
          for (int i = ty; i < maps::ladder_tile; i += block_y) {
            const maps::rc x = maps::load_coord(p, r0, c0, tx, i);
            if (x.r >= rows || x.c >= cols) continue;
            const index_t src = maps::in_offset(0, x, ld_in, 0);
            if (maps::uses_smem(p)) {
              tile[static_cast<std::size_t>(maps::smem_offset(p, maps::smem_store_slot(p, tx, i)))] = src;
            } else {
              const index_t o = maps::out_offset(p, 0, maps::store_coord(p, r0, c0, tx, i), ld_in, ld_out, 0, 0);
              ASSERT_GE(o, 0);
              ASSERT_LT(o, out_size);
              ASSERT_EQ(written[static_cast<std::size_t>(o)], -1) << "written twice";
              written[static_cast<std::size_t>(o)] = src;
            }
          }
      if (!maps::uses_smem(p)) continue;
      for (int ty = 0; ty < block_y; ++ty)
        for (int tx = 0; tx < 32; ++tx)
          for (int i = ty; i < maps::ladder_tile; i += block_y) {
            const maps::rc y = maps::store_coord(p, r0, c0, tx, i);
            const bool inside = tr ? (y.r < cols && y.c < rows) : (y.r < rows && y.c < cols);
            if (!inside) continue;
            const index_t o = maps::out_offset(p, 0, y, ld_in, ld_out, 0, 0);
            ASSERT_EQ(written[static_cast<std::size_t>(o)], -1) << "written twice";
            written[static_cast<std::size_t>(o)] =
                tile[static_cast<std::size_t>(maps::smem_offset(p, maps::smem_load_slot(p, tx, i)))];
          }
    }
  for (index_t r = 0; r < rows; ++r)
    for (index_t c = 0; c < cols; ++c) {
      const index_t o = tr ? c * ld_out + r : r * ld_in + c;
      ASSERT_EQ(written[static_cast<std::size_t>(o)], r * ld_in + c) << "at input (" << r << ", " << c << ")";
    }
}

TEST(IndexMaps, EveryLadderPatternIsTheTransposeOnRaggedShapes) {
  for (int p = 0; p < maps::pattern_count; ++p)
    for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{
             {1, 1}, {1, 100}, {100, 1}, {31, 33}, {32, 32}, {33, 31}, {65, 97}, {3, 1003}, {130, 70}})
      for (int by : {8, 32, 1}) check_bijection(static_cast<maps::pattern>(p), r, c, by);
}

TEST(IndexMaps, DiagonalOrderIsABijection) {
  for (index_t gx : {1, 2, 3, 5, 8, 13})
    for (index_t gy : {1, 2, 4, 7, 13}) {
      std::set<std::pair<index_t, index_t>> seen;
      for (index_t by = 0; by < gy; ++by)
        for (index_t bx = 0; bx < gx; ++bx) {
          const auto t = maps::visit_tile(maps::pattern::diagonal, bx, by, gx, gy);
          ASSERT_LT(t.x, gx);
          ASSERT_LT(t.y, gy);
          seen.insert({t.x, t.y});
        }
      EXPECT_EQ(seen.size(), static_cast<std::size_t>(gx * gy));
    }
}
