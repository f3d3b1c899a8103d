// GPU tests of two candidates for the u8 gathers C x HW -> HW x C (issue 12), under both flags:
// - the u8 24-row shift gathers (switch best_gather_shift24_default): slab_gather_pipe_shift of
//   24 rows at the larger slabs where the input rows are off the 16-byte grid: odd and aligned
//   long sides, batches, input pointers 1 and 15 elements off, the output off, padded rows, gapped
//   batches, partial and many slabs per resident block, the sweep's row;
// - the deep form of the u8 fitted tiles (best_fit_deep48_default: 48 aligned rows;
//   best_fit_deep96r_default: 96 realigning rows, the chunk after each row's cover in shared
//   memory): row counts that round to those tiles (padded output rows), partial tiles, input
//   pointers off, padded input rows, gapped batches, inputs ending at the allocation's end (every
//   check_best call), the sweep's rows.
// The route is asserted where the flag has the candidate on; the output's whole extent (padding
// and gaps poisoned) is checked bitwise under both flags. Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;
using xpose::detail::best_path;

namespace {

constexpr bool on24 = !xpose::detail::best_gather_shift24_default;
constexpr bool on48 = !xpose::detail::best_fit_deep48_default;
constexpr bool on96 = !xpose::detail::best_fit_deep96r_default;

// d at these element offsets under `flag`: the shift kernel asserted where the switch has the flag
// take d (`want`: input rows off the 16-byte grid), else the output alone checked.
void check24(const matrix_desc& d, std::uint64_t seed, index_t off_in, index_t off_out, bool flag, bool want) {
  namespace xd = xpose::detail;
  const auto in = static_cast<unsigned long long>(off_in * d.elem_size),
             out = static_cast<unsigned long long>(off_out * d.elem_size);
  const bool takes = want && flag == on24;
  ASSERT_EQ(xd::best_path_for(d, in, out, 90, flag).path == best_path::slab_gather_pipe_shift, takes) << shape_name(d);
  check_best(d, seed, off_in, off_out, takes ? std::optional(best_path::slab_gather_pipe_shift) : std::nullopt, flag);
}

// A fitted-tile row under `flag`: its fitted route asserted where the flag routes the fitted tile
// (the deep form where the flag has its switch on: `deep`), else the output alone checked.
void check_fit(const matrix_desc& d, std::uint64_t seed, index_t off_in, index_t off_out, bool flag, bool deep,
               best_path route) {
  namespace xd = xpose::detail;
  const auto in = static_cast<unsigned long long>(off_in * d.elem_size),
             out = static_cast<unsigned long long>(off_out * d.elem_size);
  ASSERT_EQ(xd::best_path_name(xd::best_fit_tile_route(d, in, out, false)), xd::best_path_name(route)) << shape_name(d);
  const bool realign = route == best_path::realign_fit;
  ASSERT_EQ(xd::best_fit_deep_on(1, xd::best_fit_tile_rows(1, d.rows), realign, 90, flag),
            deep && flag == (realign ? on96 : on48))
      << shape_name(d);
  check_best(d, seed, off_in, off_out, xd::best_fit_tile_on(flag) ? std::optional(route) : std::nullopt, flag);
}

}  // namespace

TEST(BestShift24, Layouts) {
  REQUIRE_GPU();
  for (bool flag : {false, true}) {
    const std::uint64_t s = 500 + (flag ? 50 : 0);
    check24(matrix_desc::packed(24, 50177, 1, 3), s, 0, 0, flag, true);
    check24(matrix_desc::packed(24, 50176, 1, 2), s + 1, 0, 0, flag, false);  // (aligned rows: kept)
    check24(matrix_desc::packed(24, 50176, 1, 2), s + 2, 1, 1, flag, true);
    check24(matrix_desc::packed(24, 40001, 1, 5), s + 3, 15, 0, flag, true);
    check24(matrix_desc::packed(24, 40000, 1, 3), s + 4, 0, 1, flag, false);  // (output off only: kept)
    check24(matrix_desc::packed(24, 40003, 1, 3), s + 5, 0, 7, flag, true);
    check24(padded(24, 30000, 1, 3, 3, 0, 0), s + 6, 0, 3, flag, true);
    check24(padded(24, 30001, 1, 3, 0, 0, 5), s + 7, 0, 0, flag, true);
    check24(matrix_desc::packed(24, 3001, 1, 7), s + 8, 0, 0, flag, true);  // (partial slabs)
    check24(matrix_desc::packed(24, 50177, 1, 1), s + 9, 1, 0, flag, true);
    if (HasFatalFailure()) return;
  }
}

// Many slabs per resident block (16-24 MiB calls) and the sweep's row.
TEST(BestShift24, LargeCallsAndSweepRow) {
  REQUIRE_GPU();
  for (bool flag : {false, true}) {
    const index_t n = (index_t{1} << 20) + 1;
    check24(matrix_desc::packed(24, n, 1, 1), 520, 0, 0, flag, true);
    check24(matrix_desc::packed(24, n - 1, 1, 1), 521, 15, 1, flag, true);
    check24(matrix_desc::packed(24, 50177, 1, 27), 522, 0, 0, flag, true);
    if (HasFatalFailure()) return;
  }
}

TEST(BestFitDeep, Layouts) {
  REQUIRE_GPU();
  for (bool flag : {false, true}) {
    const std::uint64_t s = 600 + (flag ? 50 : 0);
    // 48 aligned rows (and 33-47: the 48-row tile, partial).
    check_fit(matrix_desc::packed(48, 8192, 1, 3), s, 0, 0, flag, true, best_path::tile_fit);
    check_fit(padded(40, 8192, 1, 3, 0, 8, 0), s + 1, 0, 0, flag, true, best_path::tile_fit);
    check_fit(matrix_desc::packed(48, 4096 + 16, 1, 2), s + 2, 16, 16, flag, true, best_path::tile_fit);
    check_fit(matrix_desc::packed(48, 4100, 1, 2), s + 3, 0, 0, flag, false, best_path::realign_fit);
    check_fit(padded(48, 4096, 1, 3, 16, 0, 0), s + 4, 0, 0, flag, true, best_path::tile_fit);
    check_fit(padded(48, 4096, 1, 3, 0, 0, 16), s + 5, 0, 0, flag, true, best_path::tile_fit);
    check_fit(matrix_desc::packed(48, 3008, 1, 1), s + 6, 0, 0, flag, true, best_path::tile_fit);  // (partial last tile)
    // 96 realigning rows (and 81-95: the 96-row tile, partial).
    check_fit(matrix_desc::packed(96, 8201, 1, 3), s + 10, 0, 0, flag, true, best_path::realign_fit);
    check_fit(padded(90, 8201, 1, 2, 0, 6, 0), s + 11, 0, 0, flag, true, best_path::realign_fit);
    check_fit(matrix_desc::packed(96, 4096, 1, 2), s + 12, 1, 0, flag, true, best_path::realign_fit);
    check_fit(matrix_desc::packed(96, 4097, 1, 2), s + 13, 15, 32, flag, true, best_path::realign_fit);
    check_fit(padded(96, 3000, 1, 2, 5, 16, 0), s + 14, 0, 0, flag, true, best_path::realign_fit);
    check_fit(padded(96, 4099, 1, 3, 0, 0, 48), s + 15, 0, 0, flag, true, best_path::realign_fit);
    check_fit(matrix_desc::packed(96, 2601, 1, 1), s + 16, 0, 0, flag, true, best_path::realign_fit);  // (partial last tile)
    check_fit(matrix_desc::packed(96, 50176, 1, 2), s + 17, 0, 0, flag, false, best_path::tile_fit);  // (aligned: own tile)
    if (HasFatalFailure()) return;
  }
}

// Many tiles per call (16-24 MiB) and the sweep's rows.
TEST(BestFitDeep, LargeCallsAndSweepRows) {
  REQUIRE_GPU();
  for (bool flag : {false, true}) {
    check_fit(matrix_desc::packed(48, 50176, 1, 13), 700, 0, 0, flag, true, best_path::tile_fit);
    check_fit(matrix_desc::packed(96, 50177, 1, 6), 701, 0, 0, flag, true, best_path::realign_fit);
    check_fit(matrix_desc::packed(96, (index_t{1} << 24) / 96 + 1, 1, 1), 702, 1, 0, flag, true, best_path::realign_fit);
    check_fit(matrix_desc::packed(48, (index_t{1} << 24) / 48 / 16 * 16, 1, 1), 703, 0, 0, flag, true, best_path::tile_fit);
    if (HasFatalFailure()) return;
  }
}
