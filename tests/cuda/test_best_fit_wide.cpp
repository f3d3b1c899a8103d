// GPU tests of the row-fitted tile for 4-8 byte gathers of 24 and 32 rows (route tile_fit,
// switch best_fit_wide_default) under both flags: under the flag that takes it, the tile of
// 24 / 32 rows (full and partial last tiles, batches, padded rows and gapped batches of
// whole chunks, pointers offset by whole chunks; the sweep's shapes); under the other, the
// routes it replaces. Layouts just outside the class (input or output one element off, odd
// row lengths, 16 / 48 rows) never take it and stay exact. The output's whole extent
// (padding and gaps poisoned) checked bitwise, the path asserted. Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;
using xpose::detail::best_path;

namespace {

constexpr bool on = !xpose::detail::best_fit_wide_default;

best_path route(const matrix_desc& d, index_t off_in, index_t off_out, bool cand) {
  return xpose::detail::best_path_for(d, static_cast<unsigned long long>(off_in * d.elem_size),
                                      static_cast<unsigned long long>(off_out * d.elem_size), 90, cand)
      .path;
}

// d under both flags: the fitted tile under `on`, another route under `!on`; exact both ways.
void both(const matrix_desc& d, std::uint64_t seed, index_t off_in = 0, index_t off_out = 0) {
  ASSERT_EQ(xpose::detail::best_path_name(route(d, off_in, off_out, on)), std::string("tile_fit")) << shape_name(d);
  ASSERT_NE(route(d, off_in, off_out, !on), best_path::tile_fit) << shape_name(d);
  check_best(d, seed, off_in, off_out, best_path::tile_fit, on);
  check_best(d, seed + 1, off_in, off_out, std::nullopt, !on);
}

// d never on the fitted tile, under either flag; exact both ways.
void never(const matrix_desc& d, std::uint64_t seed, index_t off_in = 0, index_t off_out = 0) {
  for (bool cand : {false, true}) {
    ASSERT_NE(route(d, off_in, off_out, cand), best_path::tile_fit) << shape_name(d) << " " << cand;
    check_best(d, seed, off_in, off_out, std::nullopt, cand);
  }
}

}  // namespace

// Full tiles, a partial last tile (columns not a multiple of the tile's 256 bytes), batches.
TEST(BestFitWide, Tiles) {
  REQUIRE_GPU();
  for (int es : {4, 8}) {
    const index_t k = 16 / es, tc = 256 / es;
    for (index_t rows : {24, 32}) {
      const std::uint64_t seed = static_cast<std::uint64_t>(rows * 17 + es);
      both(matrix_desc::packed(rows, 64 * tc, es), seed);
      both(matrix_desc::packed(rows, 40 * tc + k, es), seed + 2);
      both(matrix_desc::packed(rows, 20 * tc + tc - k, es, 3), seed + 4);
      both(matrix_desc::packed(rows, 4 * rows, es, 2), seed + 6);  // the shortest rows taken
      if (HasFatalFailure()) return;
    }
  }
}

// Pointers offset by whole chunks, padded rows and gapped batches of whole chunks: every row
// still 16-byte aligned on both sides.
TEST(BestFitWide, Layouts) {
  REQUIRE_GPU();
  for (int es : {4, 8}) {
    const index_t k = 16 / es;
    for (index_t rows : {24, 32}) {
      const std::uint64_t seed = static_cast<std::uint64_t>(400 + rows + es);
      both(matrix_desc::packed(rows, 3000 * k, es, 2), seed, k, 0);
      both(matrix_desc::packed(rows, 3000 * k, es, 2), seed + 2, 0, 3 * k);
      both(padded(rows, 1500 * k + k, es, 3, k, 0, 0), seed + 4);
      both(padded(rows, 1500 * k, es, 2, 0, k, 0), seed + 6);
      both(padded(rows, 1500 * k, es, 3, 2 * k, k, 5 * k), seed + 8, k, k);
      if (HasFatalFailure()) return;
    }
  }
}

// Outside the class, next to it: one element off on either side, odd row lengths, output rows
// of a partial chunk, the rows the rule leaves (16, 20, 28, 48), short rows, 1-2 byte elements.
TEST(BestFitWide, NotTaken) {
  REQUIRE_GPU();
  for (int es : {4, 8}) {
    const index_t k = 16 / es;
    for (index_t rows : {24, 32}) {
      const std::uint64_t seed = static_cast<std::uint64_t>(500 + rows + es);
      never(matrix_desc::packed(rows, 2048 * k, es, 2), seed, 1, 0);
      never(matrix_desc::packed(rows, 2048 * k, es, 2), seed + 1, 0, 1);
      never(matrix_desc::packed(rows, 2048 * k + 1, es, 2), seed + 2);
      never(padded(rows, 2048 * k, es, 2, 1, 0, 0), seed + 3);
      never(padded(rows, 2048 * k, es, 2, 0, 1, 0), seed + 4);
      never(matrix_desc::packed(rows, 3 * rows, es, 4), seed + 5);
      if (HasFatalFailure()) return;
    }
    for (index_t rows : {16, 20, 28, 48}) never(matrix_desc::packed(rows, 2048 * k, es, 2), 520 + rows);
    if (HasFatalFailure()) return;
  }
  never(matrix_desc::packed(32, 8192, 2, 2), 530);
  never(matrix_desc::packed(24, 8192, 1, 2), 531);
}

// The sweep's shapes (16-32 MiB), as the sweep runs them.
TEST(BestFitWide, LargeCalls) {
  REQUIRE_GPU();
  both(matrix_desc::packed(32, 131072, 8), 600);
  both(matrix_desc::packed(32, 262144, 4), 601);
  both(matrix_desc::packed(24, 50176, 8, 3), 602);
  both(matrix_desc::packed(24, 50176, 4, 6), 603);
  both(matrix_desc::packed(32, 50176, 8, 2), 604);
  both(matrix_desc::packed(32, 50176, 4, 5), 605);
}
