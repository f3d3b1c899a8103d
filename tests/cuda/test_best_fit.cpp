// GPU tests of the row-fitted tile (routes tile_fit / realign_fit, switch
// best_fit_tile_default) under both flags: under the flag that has it on, its form (f16: the
// dense form where best_fit_dense_default has that flag on too); under the other, the fitted
// tile where a switch routes it there, else the routes it replaced (exact, route not asserted):
// 1-2 byte gathers of 33-128 rows (every row
// count whose output rows are whole 16-byte chunks, padded tiles for f16), aligned and odd input rows, input
// pointers 1 to k - 1 elements off, padded input rows, gapped batches, partial last
// tiles, many tiles per call. The output's whole extent (padding and gaps poisoned)
// checked bitwise, the path asserted. Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;
using xpose::detail::best_path;

namespace {

constexpr bool on = !xpose::detail::best_fit_tile_default;
static_assert(xpose::detail::best_fit_tile_on(on), "the fitted tile routed under `on`");

// The route that the fitted tile takes for d at these element offsets (asserted to be one of
// its two: every layout below fits).
best_path fit_route(const matrix_desc& d, index_t off_in, index_t off_out) {
  const auto r = xpose::detail::best_fit_tile_route(d, static_cast<unsigned long long>(off_in * d.elem_size),
                                                    static_cast<unsigned long long>(off_out * d.elem_size), on);
  EXPECT_TRUE(r == best_path::tile_fit || r == best_path::realign_fit) << shape_name(d);
  return r;
}

// d under both flags: the fitted tile's route (aligned input rows: tile_fit, else
// realign_fit), asserted where the flag routes the fitted tile.
void both(const matrix_desc& d, std::uint64_t seed, index_t off_in, index_t off_out, best_path want) {
  ASSERT_EQ(xpose::detail::best_path_name(fit_route(d, off_in, off_out)), xpose::detail::best_path_name(want));
  check_best(d, seed, off_in, off_out, want, on);
  const bool other = xpose::detail::best_fit_tile_on(!on);
  check_best(d, seed + 1, off_in, off_out, other ? std::optional(want) : std::nullopt, !on);
}

}  // namespace

// Every row count of the class (whole 16-byte output rows, 33-128 rows), aligned and odd
// input rows, partial last tiles (columns not a multiple of the tile's).
TEST(BestFit, EveryRowCount) {
  REQUIRE_GPU();
  for (int es : {1, 2}) {
    const index_t k = 16 / es;
    for (index_t c = es == 1 ? 48 : 40; c <= 128; c += k) {
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 31 + es);
      both(matrix_desc::packed(c, 8192, es, 3), seed, 0, 0, best_path::tile_fit);
      both(matrix_desc::packed(c, 8192 + 3 * k + 8 / es, es, 2), seed + 2, 0, 0, best_path::realign_fit);
      both(matrix_desc::packed(c, 4096 + k, es, 2), seed + 4, 0, 0, best_path::tile_fit);
      both(matrix_desc::packed(c, 8201, es, 3), seed + 6, 0, 0, best_path::realign_fit);
      if (HasFatalFailure()) return;
    }
  }
}

// Input pointers off the 16-byte grid by every element offset, the output at aligned
// offsets; padded input rows; gapped batches (gaps of whole chunks keep the output rows
// aligned; odd gaps move the input only).
TEST(BestFit, Layouts) {
  REQUIRE_GPU();
  for (int es : {1, 2}) {
    const index_t k = 16 / es;
    for (index_t oi = 1; oi < k; ++oi)
      both(matrix_desc::packed(48, 4096, es, 2), 300 + static_cast<std::uint64_t>(oi), oi, 0, best_path::realign_fit);
    both(matrix_desc::packed(64, 4096, es, 2), 320, 1, k, best_path::realign_fit);
    both(matrix_desc::packed(96, 4097, es, 2), 321, k - 1, 2 * k, best_path::realign_fit);
    both(matrix_desc::packed(128, 4096, es, 2), 322, k, k, best_path::tile_fit);
    // Padded input rows (aligned and not), output rows padded by whole chunks.
    both(padded(48, 4096, es, 3, k, 0, 0), 330, 0, 0, best_path::tile_fit);
    both(padded(80, 4096, es, 3, 3, 0, 0), 331, 0, 0, best_path::realign_fit);
    both(padded(64, 3000, es, 2, 5, k, 0), 332, 1, 0, best_path::realign_fit);
    both(padded(96, 2560, es, 2, 0, 2 * k, 0), 333, 0, k, best_path::tile_fit);
    // Gapped batches: whole chunks (aligned input rows) and whole chunks on an odd row length.
    both(padded(48, 4096, es, 3, 0, 0, k), 340, 0, 0, best_path::tile_fit);
    both(padded(112, 4099, es, 3, 0, 0, 3 * k), 341, 0, 0, best_path::realign_fit);
    if (HasFatalFailure()) return;
  }
}

// Many tiles per call (2 x 16-24 MiB), the sweep's row counts as the sweep runs them.
TEST(BestFit, LargeCalls) {
  REQUIRE_GPU();
  both(matrix_desc::packed(48, 50176, 1, 13), 350, 0, 0, best_path::tile_fit);
  both(matrix_desc::packed(48, 50177, 1, 13), 351, 0, 0, best_path::realign_fit);
  both(matrix_desc::packed(96, 50177, 1, 6), 352, 0, 0, best_path::realign_fit);
  both(matrix_desc::packed(128, 50176, 1, 5), 353, 0, 0, best_path::tile_fit);
  both(matrix_desc::packed(96, 50176, 2, 3), 354, 0, 0, best_path::tile_fit);
  both(matrix_desc::packed(128, 50177, 2, 2), 355, 0, 0, best_path::realign_fit);
  both(matrix_desc::packed(48, 50177, 2, 6), 356, 0, 0, best_path::realign_fit);
  both(matrix_desc::packed(64, (index_t{1} << 24) / 64 + 1, 1, 1), 357, 1, 0, best_path::realign_fit);
}

// Outside the class: the fitted tile never takes these, under either flag.
TEST(BestFit, NotTaken) {
  REQUIRE_GPU();
  for (bool cand : {false, true}) {
    auto route = [&](const matrix_desc& d, index_t off_out) {
      return xpose::detail::best_path_for(d, 0, static_cast<unsigned long long>(off_out * d.elem_size), 90, cand).path;
    };
    for (const matrix_desc& d :
         {matrix_desc::packed(32, 8192, 1, 2), matrix_desc::packed(129, 8192, 1, 2), matrix_desc::packed(40, 8192, 1, 2),
          matrix_desc::packed(65, 8192, 2, 2), matrix_desc::packed(64, 200, 1, 2), matrix_desc::packed(64, 8192, 4, 2)}) {
      EXPECT_NE(route(d, 0), best_path::tile_fit) << shape_name(d);
      EXPECT_NE(route(d, 0), best_path::realign_fit) << shape_name(d);
      check_best(d, 360, 0, 0, std::nullopt, cand);
    }
    // Output rows off the grid (output pointer one element off).
    const matrix_desc d = matrix_desc::packed(64, 8192, 2, 2);
    EXPECT_NE(route(d, 1), best_path::tile_fit);
    EXPECT_NE(route(d, 1), best_path::realign_fit);
    check_best(d, 361, 0, 1, std::nullopt, cand);
    if (HasFatalFailure()) return;
  }
}
