// GPU tests of `best`'s shape classes (issue 12; docs/RESULTS.md "Shape classes (issue
// 12)"): channel shuffles (batch x C x HW <-> batch x HW x C), skinny matrices, rows of
// odd byte length, batches of small matrices; every element size, ragged edges,
// pointers offset by one element, padded leading dimensions, gapped batches, more than
// 65535 matrices. Each case asserts which path best_path_for chose for the pointers,
// then checks the whole output extent bitwise. Skip without a GPU.
#include <utility>
#include <vector>

#include "best_check.hpp"

using namespace xpose_test;
using xpose::detail::best_class_policy_for;
using xpose::detail::best_path;

namespace {

bool short_ok(index_t s, int es) {
  const auto p = best_class_policy_for(90, es);
  return s <= p.slab_max_short && s * es <= p.slab_max_short_bytes;
}

}  // namespace

// batch x C x HW -> batch x HW x C (gather) and back (scatter), HW even and odd;
// packed batches (matrices above the whole-matrix size) and gapped batch strides.
TEST(BestShapes, ChannelShuffles) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8, 16})
    for (index_t c : {2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128}) {
      if (!short_ok(c, es)) continue;
      for (index_t hw : {8200, 8201}) {
        const std::uint64_t seed = static_cast<std::uint64_t>(c * 131 + hw + es);
        // Aligned 32-64 rows of 1-2 byte elements keep the measured small tile (policy), and
        // 4-byte ones the tile while best_f32_rows_tile_default is on.
        const bool rows_tile = es <= 2 || (es == 4 && xpose::detail::best_f32_rows_tile_default);
        const bool small_tile = rows_tile && c >= 32 && c <= 64 && (hw * es) % 16 == 0;
        check_best(matrix_desc::packed(c, hw, es, 2), seed, 0, 0,
                   small_tile ? std::nullopt : std::optional(best_path::slab_gather));
        check_best(matrix_desc::packed(hw, c, es, 2), seed + 1, 0, 0, best_path::slab_scatter);
        check_best(matrix_desc::packed(c, hw, es, 2), seed + 2, 1, 0, best_path::slab_gather);
        check_best(matrix_desc::packed(hw, c, es, 2), seed + 3, 0, 1, best_path::slab_scatter);
      }
      for (index_t hw : {1000, 1001, 3137}) {
        const std::uint64_t seed = static_cast<std::uint64_t>(c * 17 + hw + es);
        check_best(padded(c, hw, es, 5, 0, 0, 1), seed, 0, 0, best_path::slab_gather);
        check_best(padded(hw, c, es, 5, 0, 0, 1), seed + 1, 0, 0, best_path::slab_scatter);
        check_best(padded(c, hw, es, 3, 0, 0, 3), seed + 2, 1, 0, best_path::slab_gather);
        check_best(padded(c, hw, es, 3, 0, 0, 3), seed + 3, 0, 1, best_path::slab_gather);
        check_best(padded(hw, c, es, 3, 0, 0, 3), seed + 4, 1, 0, best_path::slab_scatter);
        check_best(padded(hw, c, es, 3, 0, 0, 3), seed + 5, 0, 1, best_path::slab_scatter);
      }
      if (HasFatalFailure()) return;
    }
}

// The grouped slab kernels (second round): every short side that has one, 1-4 byte
// elements, whole groups and ragged ends, aligned and misaligned slabs (odd HW, pointer
// offsets, gapped batches, padded segments); asserts the grouped kernel is the one chosen.
TEST(BestShapes, GroupedSlabs) {
  REQUIRE_GPU();
  using xpose::detail::best_path_for;
  for (int es : {1, 2, 4})
    for (int c : xpose::detail::best_slab_group_sides) {
      if (xpose::detail::best_slab_group_for(best_class_policy_for(90, es), es, c) != c) continue;
      // Long enough that no packed case is a small-matrix batch (slab_whole takes <= 16 KiB).
      for (index_t hw : {20011, 50177}) {
        const std::uint64_t seed = static_cast<std::uint64_t>(c * 7 + hw + es);
        const std::vector<std::pair<matrix_desc, bool>> cases{{matrix_desc::packed(c, hw, es, 3), true},
                                                              {matrix_desc::packed(hw, c, es, 3), false},
                                                              {padded(c, hw, es, 3, 1, 0, 5), true},
                                                              {padded(hw, c, es, 3, 0, 3, 7), false}};
        for (const auto& [d, gather] : cases)
          for (auto [oi, oo] : std::vector<std::pair<index_t, index_t>>{{0, 0}, {1, 0}, {0, 1}, {3, 5}}) {
            const auto choice = best_path_for(d, static_cast<unsigned long long>(oi * es),
                                              static_cast<unsigned long long>(oo * es));
            // (best_micro_default sends some of these to the micro-block kernels.)
            if (choice.path == xpose::detail::best_path_base(choice.path))
              ASSERT_EQ(choice.group, c) << "short side " << c << " elem " << es;
            check_best(d, seed + static_cast<std::uint64_t>(oi * 4 + oo), oi, oo,
                       gather ? best_path::slab_gather : best_path::slab_scatter);
          }
        if (HasFatalFailure()) return;
      }
    }
}

// The micro-block slab kernels (candidate policy, variant best_next): short sides of
// whole 16-byte chunks from the candidate's threshold to the table's limit, HW even and
// odd (unaligned segments on the other side), offsets and padding on the unaligned
// side, gapped batches of whole chunks; asserts the micro-block path is the one chosen.
// Then the cases the micro-block kernel must leave alone: a packed side off 16 bytes.
// Tiny 1-2 byte matrices on the narrow tile (best_tiny_narrow_default's policy): ragged
// tiles on both sides (rows of whole 16-byte chunks), the path asserted; offsets by one
// element leave the rule (checked).
TEST(BestShapes, TinyNarrowTile) {
  REQUIRE_GPU();
  const bool on = !xpose::detail::best_tiny_narrow_default;
  std::uint64_t seed = 5;
  for (int es : {1, 2})
    for (auto [r, c] : {std::pair<index_t, index_t>{64, 128}, {128, 256}, {80, 144}, {208, 160}, {96, 336}}) {
      if (r * c * es > xpose::detail::best_tiny_bytes || c * es < 128) continue;
      const matrix_desc d = matrix_desc::packed(r, c, es);
      check_best(d, seed++, 0, 0, best_path::tile_narrow, on);
      check_best(d, seed++, 1, 0, std::nullopt, on);
      check_best(d, seed++, 0, 0, std::nullopt, !on);
    }
}

// Tiny 4-8 byte matrices on the narrow tile (best_tiny_wide_default's policy; under the other
// flag the small narrow tile where best_tiny_small_default has it on): ragged tiles on both
// sides (the small tile's 32 rows x 128 bytes too), the path asserted; offsets by one element
// leave the rule.
TEST(BestShapes, TinyWideNarrowTile) {
  REQUIRE_GPU();
  const bool on = !xpose::detail::best_tiny_wide_default;
  std::uint64_t seed = 41;
  for (int es : {4, 8})
    for (auto [r, c] : {std::pair<index_t, index_t>{64, 64}, {128, 128}, {64, 32}, {80, 36}, {200, 40}, {72, 100},
                        {100, 52}, {96, 20}}) {
      if (r * c * es > xpose::detail::best_tiny_bytes || c * es < 128 || (c * es) % 16 != 0) continue;
      const matrix_desc d = matrix_desc::packed(r, c, es);
      check_best(d, seed++, 0, 0, best_path::tile_narrow, on);
      check_best(d, seed++, 1, 0, std::nullopt, on);
      const bool small = xpose::detail::best_route_on(xpose::detail::best_tiny_small_default, !on);
      check_best(d, seed++, 0, 0, small ? std::optional(best_path::tile_narrow) : std::nullopt, !on);
    }
}

// Batches of 4-8 byte matrices of at most 32 rows on the few-rows tile
// (best_few_rows_wide_default's policy): ragged tiles, gapped batches, the path asserted.
TEST(BestShapes, FewRowsWideBatches) {
  REQUIRE_GPU();
  const bool on = !xpose::detail::best_few_rows_wide_default;
  // (packed whole-chunk batches: the pipelined whole-matrix kernel first where
  // best_pipe_whole_wide_default has `on` take them)
  auto want = [&](const matrix_desc& m) {
    return xpose::detail::best_pipe_whole_wide_fits(m, 0, 0, on) ? best_path::slab_whole_micro_pipe
                                                                  : best_path::tile_few_rows;
  };
  std::uint64_t seed = 61;
  for (int es : {4, 8})
    for (auto [r, c, b] : {std::tuple<index_t, index_t, index_t>{32, 32, 300}, {24, 40, 77}, {30, 48, 5}, {17, 64, 33}}) {
      if (c * es > 512) continue;
      const matrix_desc d = matrix_desc::packed(r, c, es, b);
      // (whole-matrix slabs; the few-rows tile under `!on` where best_pipe_whole_wide_cap takes 8-byte matrices)
      const best_path other = xpose::detail::best_path_for(d, 0, 0, 90, !on).path;
      if (other != best_path::tile && other != best_path::tile_few_rows) continue;
      check_best(d, seed++, 0, 0, want(d), on);
      const matrix_desc g = padded(r, c, es, b, 0, 0, 2 * r * c + 4);
      check_best(g, seed++, 0, 0, want(g), on);
    }
  check_best(matrix_desc::packed(32, 32, 8, 4096), 67, 0, 0, want(matrix_desc::packed(32, 32, 8, 4096)), on);
  check_best(padded(32, 32, 8, 4096, 0, 0, 2), 68, 0, 0, best_path::tile_few_rows, on);  // (gapped: the tile)
}

TEST(BestShapes, MicroSlabs) {
  REQUIRE_GPU();
  constexpr bool on = xpose::detail::best_micro_candidate;
  using xpose::detail::best_slab_micro_min;
  for (int es : {1, 2, 4}) {
    const auto pol = best_class_policy_for(90, es, on);
    const index_t k = 16 / es;
    const index_t gmin = best_slab_micro_min(90, es, on, best_path::slab_gather_micro);
    const index_t smin = best_slab_micro_min(90, es, on, best_path::slab_scatter_micro);
    const index_t lo = smin > 0 && smin < gmin ? smin : gmin;
    // Short sides: every 8 (or k) up to 64, then 96 and 128; the long HW for a few only
    // (the CPU reference dominates the run time).
    const index_t step = k > 8 ? k : 8;
    for (index_t c = lo; c <= pol.slab_max_short && c * es <= pol.slab_max_short_bytes; c += c < 64 ? step : 32) {
      if (c % k != 0) continue;
      // Below a side's threshold the other slab kernels run (still checked, path not asserted).
      // (best_micro_route: pipelined where the pipe switches have this policy take them;
      // gathers only with aligned input rows, scatters with aligned output rows; unpipelined
      // gathers on the grouped pipelined kernel where best_short_pipe_group has one;
      // scatters to unaligned rows on the halo kernels where best_halo_route says.)
      auto want = [&](best_path micro, index_t min, bool rows_aligned) -> std::optional<best_path> {
        if (min <= 0 || c < min) return std::nullopt;
        const best_path r = xpose::detail::best_micro_route(micro, es, on, c, rows_aligned);
        if (micro == best_path::slab_gather_micro) {
          const best_path gr = xpose::detail::best_short_pipe_group(r, es, c, on, rows_aligned) ? best_path::slab_gather_pipe : r;
          // (Unaligned rows: the shift kernel where best_gather_shift_route has this policy take it.)
          return xpose::detail::best_gather_shift_on(es, on)
                     ? xpose::detail::best_gather_shift_route(gr, static_cast<int>(c), es, rows_aligned)
                     : gr;
        }
        return xpose::detail::best_halo_route(r, es, on, rows_aligned);
      };
      const auto g = want(best_path::slab_gather_micro, gmin, false), sc = want(best_path::slab_scatter_micro, smin, false);
      for (index_t hw : {8200, 8201, 50177}) {
        const auto g0 = want(best_path::slab_gather_micro, gmin, (hw * es) % 16 == 0);  // offset 0: rows aligned?
        const auto s0 = want(best_path::slab_scatter_micro, smin, (hw * es) % 16 == 0);
        if (hw == 50177 && c != lo && c < 96) continue;
        const std::uint64_t seed = static_cast<std::uint64_t>(c * 5 + hw + es);
        const index_t n = hw > 10000 ? 2 : 3;
        // Aligned 32-64 rows of 1-2 byte elements keep the measured small tile (policy), and
        // 4-byte ones the tile while best_f32_rows_tile_default is on.
        const bool rows_tile = es <= 2 || (es == 4 && xpose::detail::best_f32_rows_tile_default);
        const bool small_tile = rows_tile && c >= 32 && c <= 64 && (hw * es) % 16 == 0;
        // 4-byte sides the register-interleave kernel takes under this policy (best_interleave_fits).
        // (Before it, 4-8 byte sides above 16 where best_pipe_wide_default has this policy take them.)
        auto ilv = [&](const matrix_desc& d, bool gather, index_t oi, index_t oo, std::optional<best_path> want_p) {
          if (want_p && or_wide(std::nullopt, d, gather, oi, oo, on)) return or_wide(std::nullopt, d, gather, oi, oo, on);
          if (want_p && xpose::detail::best_interleave_fits(d, gather, static_cast<unsigned long long>(oi * es),
                                                            static_cast<unsigned long long>(oo * es), on))
            return std::optional(gather ? best_path::slab_interleave_gather : best_path::slab_interleave_scatter);
          return want_p;
        };
        auto run = [&](const matrix_desc& d, std::uint64_t sd, index_t oi, index_t oo, std::optional<best_path> want_p) {
          check_best(d, sd, oi, oo, ilv(d, d.rows < d.cols, oi, oo, want_p), on);
        };
        run(matrix_desc::packed(c, hw, es, n), seed, 0, 0, small_tile ? std::nullopt : g0);
        run(matrix_desc::packed(hw, c, es, n), seed + 1, 0, 0, s0);
        run(matrix_desc::packed(c, hw, es, n), seed + 2, 1, k, g);
        run(matrix_desc::packed(hw, c, es, n), seed + 3, k, 1, sc);  // (output off by one element)
        run(padded(c, hw, es, n, 3, 0, k), seed + 4, 3, 0, g);
        run(padded(hw, c, es, n, 0, 5, 2 * k), seed + 5, 0, 1, sc);
        // Packed side off 16 bytes: the other slab kernels, still exact.
        check_best(matrix_desc::packed(c, hw, es, n), seed + 6, 0, 1, best_path::slab_gather, on);
        check_best(matrix_desc::packed(hw, c, es, n), seed + 7, 1, 0, best_path::slab_scatter, on);
        if (HasFatalFailure()) return;
      }
    }
  }
  // Small transposes (small slabs, many blocks) and one long matrix past a few waves.
  using xpose::detail::best_micro_route;
  using xpose::detail::best_halo_route;
  check_best(matrix_desc::packed(64, 301, 1, 1), 140, 0, 0, best_micro_route(best_path::slab_gather_micro, 1, on, 64, false),
             on);
  check_best(matrix_desc::packed(301, 64, 1, 1), 141, 0, 0,
             best_halo_route(best_micro_route(best_path::slab_scatter_micro, 1, on, 64, false), 1, on, false), on);
  check_best(matrix_desc::packed(128, 1 << 18, 1, 1), 142, 0, 0,
             best_micro_route(best_path::slab_gather_micro, 1, on, 128, true), on);
  check_best(matrix_desc::packed((1 << 18) + 3, 128, 1, 1), 143, 0, 0,
             best_halo_route(best_micro_route(best_path::slab_scatter_micro, 1, on, 128, false), 1, on, false), on);
  check_best(matrix_desc::packed(1 << 18, 128, 1, 1), 144, 0, 0,
             best_micro_route(best_path::slab_scatter_micro, 1, on, 128, true), on);
}

// Whole-matrix micro-blocks (candidate policy, best_next): batches of the sweep's squares
// and of non-square matrices of whole chunks, counts that leave a ragged last slab, more
// than 65535 matrices; offsets of whole chunks keep the path, an element offset leaves it.
// Under the flag of best_pipe_whole_default too: the pipelined kernel (slab_whole_micro_pipe)
// on the same batches.
TEST(BestShapes, MicroWholeBatches) {
  REQUIRE_GPU();
  for (bool on : {xpose::detail::best_micro_candidate, !xpose::detail::best_pipe_whole_default})
  for (int es : {1, 2, 4}) {
    if (es > xpose::detail::best_whole_micro_max_elem) continue;  // the route's widest element
    const index_t k = 16 / es, h = 8 / es;
    const index_t whole_max = best_class_policy_for(90, es, on).whole_max_bytes;
    const index_t w = xpose::detail::best_slab_micro_for(es, best_path::slab_whole_micro).width;
    for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{{k, k}, {2 * k, 2 * k}, {4 * k, 4 * k}, {k, 3 * k},
                                                                {3 * k, 2 * k}, {h, h}, {3 * h, 2 * k}, {8, 8},
                                                                {16, 16}, {32, 32}, {64, 64}}) {
      const bool rows_ok = (r * es) % 16 == 0 || ((r * es) % 8 == 0 && w <= 8);
      if (!rows_ok || (c * es) % w != 0 || (r * c * es) % 16 != 0 || r * c * es > whole_max) continue;
      const std::uint64_t seed = static_cast<std::uint64_t>(r * 3 + c + es);
      // 1-byte 33-64 x 33-64 batches take the async batch tile where its switch is on for
      // this policy (best_async_default; offsets here are whole chunks: access 16).
      const bool async = xpose::detail::best_route_on(xpose::detail::best_async_default, on) &&
                         xpose::detail::best_async_batch_fits(matrix_desc::packed(r, c, es, 2), 16);
      const bool pipe = xpose::detail::best_route_on(xpose::detail::best_pipe_whole_default, on) &&
                        es <= xpose::detail::best_pipe_max_elem;
      const best_path micro = async  ? best_path::tile_async_batch
                              : pipe ? best_path::slab_whole_micro_pipe
                                     : best_path::slab_whole_micro;
      check_best(matrix_desc::packed(r, c, es, 1000), seed, 0, 0, micro, on);
      check_best(matrix_desc::packed(r, c, es, 333), seed + 1, k, 2 * k, micro, on);
      if (r * c * es <= 256)
        check_best(matrix_desc::packed(r, c, es, 70001), seed + 2, 0, 0, micro, on);
      check_best(matrix_desc::packed(r, c, es, 1000), seed + 3, 1, 0, best_path::slab_whole, on);
      if (HasFatalFailure()) return;
    }
  }
}

// The sizes: 256 images of 224x224 (and an odd HW), 3 channels.
TEST(BestShapes, ImageBatches) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4})
    for (index_t hw : {50176, 50177}) {
      const index_t n = es == 4 ? 64 : 256;
      check_best(matrix_desc::packed(3, hw, es, n), 80, 0, 0, best_path::slab_gather);
      check_best(matrix_desc::packed(hw, 3, es, n), 81, 0, 0, best_path::slab_scatter);
      if (HasFatalFailure()) return;
    }
}

// Skinny 2-D: 3xN, Nx3, 7xN, Nx32 with padded segments, gaps and offsets.
TEST(BestShapes, SkinnyPaddedAndOffset) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8, 16}) {
    for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{{3, 100003}, {7, 20011}, {1, 5}, {2, 9}, {31, 4099}}) {
      if (!short_ok(r, es)) continue;
      check_best(matrix_desc::packed(r, c, es), 90, 0, 0);
      check_best(matrix_desc::packed(c, r, es), 91, 1, 1);
      // gather: any input leading dimension and batch stride; the output packed.
      check_best(padded(r, c, es, 3, 1, 0, 5), 92, 1, 0, r > 1 ? std::optional(best_path::slab_gather) : std::nullopt);
      // scatter: any output leading dimension and batch stride; the input packed.
      check_best(padded(c, r, es, 3, 0, 3, 7), 93, 0, 1, r > 1 ? std::optional(best_path::slab_scatter) : std::nullopt);
      if (HasFatalFailure()) return;
    }
  }
}

// Batches of small matrices, several per block; odd shapes; offsets.
TEST(BestShapes, SmallMatrixBatches) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8, 16})
    for (index_t s : {8, 16, 32, 64}) {
      const matrix_desc d = matrix_desc::packed(s, s, es, 1000);
      const auto want = xpose::detail::best_path_for(d, 0, 0).path;
      check_best(d, 100 + s, 0, 0);
      check_best(d, 101 + s, 1, 0, want == best_path::slab_whole ? std::optional(want) : std::nullopt);
      check_best(d, 102 + s, 0, 1);
      check_best(matrix_desc::packed(s - 1, s + 3, es, 333), 103, 1, 1);
      if (HasFatalFailure()) return;
    }
  for (int es : {1, 2, 4, 8, 16}) {
    check_best(matrix_desc::packed(8, 8, es, 1000), 110, 0, 0, best_path::slab_whole);
    check_best(matrix_desc::packed(5, 7, es, 999), 111, 1, 0, best_path::slab_whole);
    check_best(matrix_desc::packed(2, 3, es, 12345), 112, 0, 1, best_path::slab_whole);
    if (HasFatalFailure()) return;
  }
}

// More than 65535 matrices (a grid's y/z limit): whole, gather and scatter slabs.
TEST(BestShapes, MoreThan65535Matrices) {
  REQUIRE_GPU();
  for (int es : {1, 4}) {
    check_best(matrix_desc::packed(8, 8, es, 70001), 120, 0, 0, best_path::slab_whole);
    check_best(padded(3, 64, es, 70001, 0, 0, 1), 121, 1, 0, best_path::slab_gather);
    check_best(padded(64, 3, es, 70001, 0, 0, 1), 122, 0, 1, best_path::slab_scatter);
    if (HasFatalFailure()) return;
  }
}

// Rows whose byte length is not a multiple of 16: R x (C+1), R x (C+3), every
// element size that can be unaligned (16-byte elements always are aligned).
TEST(BestShapes, OddRowLengths) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8}) {
    for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{{1000, 1025}, {1001, 1027}, {129, 4099}}) {
      // best: the async realigning tile for 1-2 byte elements with aligned output rows
      // (best_async_realign_default), the skewed one where its switch and best_skew_wins say
      // so, else the realigning tile.
      auto odd_route = [&](const matrix_desc& d, index_t off_out) {
        const auto out = static_cast<unsigned long long>(off_out * es);
        if (xpose::detail::best_skew_sector_default && xpose::detail::best_skew_sector_fits(d, out))
          return xpose::detail::best_path::realign_skew_sector;  // the sector-aligned tiles first
        if (xpose::detail::best_skew_async_default && xpose::detail::best_skew_async_fits(d, out))
          return best_path::realign_skew_async;  // the cp.async skewed tile where it fits
        if (es <= 2 && xpose::detail::best_async_realign_default && xpose::detail::best_out_rows_aligned(d, out))
          return best_path::realign_async;
        return xpose::detail::best_skew_default && xpose::detail::best_skew_wins(d, out) ? best_path::realign_skew
                                                                                          : best_path::realign;
      };
      // (The fitted skewed tiles where best_skew_fit_default is on and they pad less.)
      auto odd = [&](const matrix_desc& d, index_t off_out) {
        return xpose::detail::best_skew_fit_or(odd_route(d, off_out), d, static_cast<unsigned long long>(off_out * es),
                                               false);
      };
      check_best(matrix_desc::packed(r, c, es), 130, 0, 0, odd(matrix_desc::packed(r, c, es), 0));
      check_best(matrix_desc::packed(r, c, es), 131, 1, 0, odd(matrix_desc::packed(r, c, es), 0));
      check_best(matrix_desc::packed(r, c, es, 3), 132, 0, 1, odd(matrix_desc::packed(r, c, es, 3), 1));
      if (HasFatalFailure()) return;
    }
  }
}

// f16 micro-block gathers that the default policy runs unpipelined (24 rows; 32 rows not
// all 16-byte aligned) on the pipelined grouped kernel, under the flag of
// best_pipe_short_default: HW even and odd, the input off by elements, padded rows,
// gapped batches of whole chunks (the packed side stays aligned).
TEST(BestShapes, ShortPipelinedGathers) {
  REQUIRE_GPU();
  constexpr bool s_on = !xpose::detail::best_pipe_short_default;
  for (index_t c : {24, 32})
    for (index_t hw : {8200, 8201, 20011}) {
      if (c == 32 && (hw * 2) % 16 == 0) continue;  // aligned 32 rows: the small tile or the pipelined micro gather
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 7 + hw);
      check_best(matrix_desc::packed(c, hw, 2, 3), seed, 0, 0, best_path::slab_gather_pipe, s_on);
      check_best(matrix_desc::packed(c, hw, 2, 3), seed + 1, 1, 8, best_path::slab_gather_pipe, s_on);
      check_best(padded(c, hw, 2, 3, 3, 0, 8), seed + 2, 3, 0, best_path::slab_gather_pipe, s_on);
      if (HasFatalFailure()) return;
    }
}

// The pipelined slab kernels (best_pipe.cuh), run under the policy that has them on
// (best_next while best_pipe_default is false): every pipelined short side for 1- and
// 2-byte elements, HW even (aligned segments: no realigning pass) and odd, pointers
// offset by one element on either side, padded segments, gapped batches; asserts the
// pipelined path wherever the micro-block kernels do not take the shape. Then shapes
// with several slabs per resident block (the double buffer reused), 7 x N, and the
// micro-block gathers and scatters on the pipelined kernel.
TEST(BestShapes, PipelinedSlabs) {
  REQUIRE_GPU();
  using xpose::detail::best_path_for;
  constexpr bool on = !xpose::detail::best_pipe_default;
  for (int es : {1, 2})
    for (int c : xpose::detail::best_pipe_sides) {
      for (index_t hw : {8200, 8201, 20011}) {
        const std::uint64_t seed = static_cast<std::uint64_t>(c * 11 + hw + es);
        const std::vector<std::pair<matrix_desc, bool>> cases{{matrix_desc::packed(c, hw, es, 3), true},
                                                              {matrix_desc::packed(hw, c, es, 3), false},
                                                              {padded(c, hw, es, 3, 1, 0, 5), true},
                                                              {padded(hw, c, es, 3, 0, 3, 7), false}};
        for (const auto& [d, gather] : cases)
          for (auto [oi, oo] : std::vector<std::pair<index_t, index_t>>{{0, 0}, {1, 0}, {0, 1}}) {
            const auto got = best_path_for(d, static_cast<unsigned long long>(oi * es),
                                           static_cast<unsigned long long>(oo * es), 90, on);
            const best_path pipe = gather ? best_path::slab_gather_pipe : best_path::slab_scatter_pipe;
            // Another route (micro-block kernels, the small tile) is not asserted; the
            // plain slab route where the pipelined one should run fails the assertion.
            const bool other = got.path != pipe && got.path != xpose::detail::best_path_base(pipe);
            // Gather input rows / scatter output rows all 16-byte aligned (the 2-row
            // pipelined gather needs them; side 5 scatters take the pipelined kernel without).
            const bool aligned = gather ? oi == 0 && (d.ld_in * es) % 16 == 0 && (d.stride_in * es) % 16 == 0
                                        : oo == 0 && (d.ld_out * es) % 16 == 0 && (d.stride_out * es) % 16 == 0;
            const bool want = xpose::detail::best_pipe_group_for(es, c, on, gather, aligned) == c;
            check_best(d, seed + static_cast<std::uint64_t>(oi * 4 + oo), oi, oo,
                       other ? std::nullopt : std::optional(want ? pipe : xpose::detail::best_path_base(pipe)), on);
          }
        if (HasFatalFailure()) return;
      }
    }
  // Many slabs per resident block (a few hundred blocks fit): 2 x 16 MiB per call. (Gathers
  // of unaligned rows: the shift kernel where best_gather_shift_route has this policy take it.)
  auto gp = [&](int es, int side) {
    return xpose::detail::best_gather_shift_on(es, on)
               ? xpose::detail::best_gather_shift_route(best_path::slab_gather_pipe, side, es, false)
               : best_path::slab_gather_pipe;
  };
  for (int es : {1, 2}) {
    const index_t n = (index_t{2} << 20) / es + 3;
    check_best(matrix_desc::packed(8, n, es, 2), 150, 1, 0, gp(es, 8), on);
    // (Scatters to unaligned output rows: the halo kernel where best_halo_route says.)
    const best_path sp = xpose::detail::best_halo_route(best_path::slab_scatter_pipe, es, on, false);
    check_best(matrix_desc::packed(n, 8, es, 2), 151, 0, 1, sp, on);
    check_best(matrix_desc::packed(6, n, es, 2), 152, 0, 0, gp(es, 6), on);
    check_best(matrix_desc::packed(n, 6, es, 2), 153, 0, 0, sp, on);
    check_best(matrix_desc::packed(7, n, es, 1), 154, 0, 1, gp(es, 7), on);
    check_best(matrix_desc::packed(n, 7, es, 1), 155, 1, 0, sp, on);
    if (HasFatalFailure()) return;
  }
  // Micro-block gathers on the pipelined kernel where the policy takes it (aligned rows of
  // >= 64 bytes), else the micro-block kernel: short sides of whole chunks from the default
  // policy's micro threshold up, HW even and odd, the input offset by one element or
  // padded, gapped batches of whole chunks. Micro-block scatters pipelined under the flag
  // of their own switch, the output at any offset.
  using xpose::detail::best_micro_route;
  constexpr bool ms_on = !xpose::detail::best_pipe_micro_scatter_default;
  for (int es : {1, 2}) {
    const index_t k = 16 / es;
    const index_t gmin = xpose::detail::best_slab_micro_min(90, es, xpose::detail::best_micro_candidate,
                                                            best_path::slab_gather_micro);
    for (index_t c = gmin; gmin > 0 && c <= 128; c += c < 64 ? k : 32)
      for (index_t hw : {8200, 8201}) {
        const std::uint64_t seed = static_cast<std::uint64_t>(c * 13 + hw + es);
        const bool aligned = (hw * es) % 16 == 0;
        const bool small_tile = c >= 32 && c <= 64 && aligned;  // policy: the measured small tile
        // (Unpipelined micro-block gathers: the grouped pipelined kernel where
        // best_short_pipe_group has one.)
        auto gm = [&](bool rows_aligned) {
          const best_path r = best_micro_route(best_path::slab_gather_micro, es, on, c, rows_aligned);
          const best_path gr = xpose::detail::best_short_pipe_group(r, es, c, on, rows_aligned) ? best_path::slab_gather_pipe : r;
          return xpose::detail::best_gather_shift_on(es, on)
                     ? xpose::detail::best_gather_shift_route(gr, static_cast<int>(c), es, rows_aligned)
                     : gr;
        };
        const best_path mp = gm(aligned), mu = gm(false);
        check_best(matrix_desc::packed(c, hw, es, 3), seed, 0, 0, small_tile ? std::nullopt : std::optional(mp), on);
        check_best(matrix_desc::packed(c, hw, es, 3), seed + 1, 1, k, mu, on);
        check_best(padded(c, hw, es, 3, 3, 0, k), seed + 2, 3, 0, mu, on);
        if (HasFatalFailure()) return;
      }
    const index_t smin = xpose::detail::best_slab_micro_min(90, es, xpose::detail::best_micro_candidate,
                                                            best_path::slab_scatter_micro);
    for (index_t c = smin; smin > 0 && c <= 128; c += c < 64 ? k : 32)
      for (index_t hw : {8192, 8200, 8201}) {
        const std::uint64_t seed = static_cast<std::uint64_t>(c * 19 + hw + es);
        // Pipelined where the output rows are 16-byte aligned (best_micro_route).
        auto ms = [&](const matrix_desc& d, std::uint64_t sd, index_t oi, index_t oo) {
          const bool out_aligned =
              xpose::detail::best_out_rows_aligned(d, static_cast<unsigned long long>(oo * es));
          check_best(d, sd, oi, oo,
                     xpose::detail::best_halo_route(best_micro_route(best_path::slab_scatter_micro, es, ms_on, c, out_aligned),
                                                    es, ms_on, out_aligned),
                     ms_on);
        };
        ms(matrix_desc::packed(hw, c, es, 3), seed, 0, 0);
        ms(matrix_desc::packed(hw, c, es, 3), seed + 1, k, 1);
        ms(matrix_desc::packed(hw, c, es, 3), seed + 2, k, k);
        ms(padded(hw, c, es, 3, 0, 5, 2 * k), seed + 3, 0, 1);
        ms(padded(hw, c, es, 3, 0, k, 2 * k), seed + 4, 0, 0);
        if (HasFatalFailure()) return;
      }
  }
  check_best(matrix_desc::packed(128, 1 << 18, 1, 1), 156, 0, 0, best_path::slab_gather_micro_pipe, on);
  check_best(matrix_desc::packed(96, 50176, 2, 3), 159, 0, 0, best_path::slab_gather_micro_pipe, on);
  check_best(matrix_desc::packed(1 << 18, 128, 1, 1), 157, 0, 0, best_path::slab_scatter_micro_pipe, ms_on);
  check_best(matrix_desc::packed(50176, 96, 1, 6), 158, 0, 0, best_path::slab_scatter_micro_pipe, ms_on);
  check_best(matrix_desc::packed(50177, 96, 1, 6), 163, 0, 0,
             xpose::detail::best_halo_route(best_path::slab_scatter_micro, 1, ms_on, false), ms_on);
  // The sweep's slowest rows, as the sweep runs them (packed, aligned buffers).
  check_best(matrix_desc::packed(7, 4793490, 1), 160, 0, 0, gp(1, 7), on);
  check_best(matrix_desc::packed(50177, 24, 1, 27), 161, 0, 0,
             xpose::detail::best_halo_route(best_path::slab_scatter_pipe, 1, on, false), on);
  check_best(matrix_desc::packed(24, 50176, 1, 27), 162, 0, 0, best_path::slab_gather_pipe, on);
}
