// The registry table and the ladder's index maps, checked on the host: every
// variant's maps send each input element to its transposed (or copied) place exactly once.
#include <xpose/index_map.hpp>
#include <xpose/model.hpp>
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

// The bijection check is the access model's walk: it runs every lane of every warp of
// the launch through the variant's maps (shared tile and barrier included) and checks
// each output element is written once, from its transposed (or copied) input element.
TEST(IndexMaps, EveryVariantWithMapsIsTheTransposeOnRaggedShapes) {
  int checked = 0;
  for (const auto& v : xpose::variants()) {
    if (v.pattern < 0) continue;  // memcpy and the fast path have no ladder maps
    ++checked;
    EXPECT_EQ(maps::transposes(static_cast<maps::pattern>(v.pattern)), v.transposes) << v.name;
    for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{
             {1, 1}, {1, 100}, {100, 1}, {31, 33}, {32, 32}, {33, 31}, {65, 97}, {3, 1003}, {130, 70}})
      for (int by : {8, 32, 1})
        for (index_t pad : {0, 5}) {
          xpose::model::config cfg;
          cfg.pattern = v.pattern;
          cfg.elem_size = 4;  // the maps count elements; the size only scales addresses
          cfg.block_y = by;
          cfg.rows = r;
          cfg.cols = c;
          cfg.ld_in = pad ? c + pad : 0;
          cfg.ld_out = pad ? r + 2 * pad : 0;
          xpose::model::walk_result w;
          const xpose::status s = xpose::model::walk(cfg, w);
          ASSERT_TRUE(s.ok()) << s.message();
          EXPECT_TRUE(w.bijective) << v.name << " " << r << "x" << c << " block_y " << by << " pad " << pad
                                   << ": " << w.first_error;
        }
  }
  EXPECT_GE(checked, 7);  // copy, copy_shared, naive, naive_read, tiled, tiled_padded, diagonal
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
