// GPU tests of the skewed realigning tile (path realign_skew, src/cuda/best_skew.cuh),
// run through the variant best_next (best under the candidate policy): rows, pointers
// and strides only element-aligned at every residue mod 16, multi-tile and partial
// tiles, padded leading dimensions, batches with odd strides, the sweep's odd-row
// shapes; bitwise against the CPU reference on a 0xFF-poisoned output, the input
// ending at its allocation's end. Skip without a GPU.
#include <utility>

#include "best_check.hpp"

using namespace xpose_test;
using xpose::detail::best_path;

namespace {
// The path the candidate takes for these element-aligned rows with the output offset by
// off_out elements from a 256-byte boundary (best_skew_wins; its choices are pinned by
// the CPU test BestSkewPolicy.CandidateTakesTheSkewedTile).
best_path skew_path(const matrix_desc& d, index_t off_out) {
  const auto out = static_cast<unsigned long long>(off_out * d.elem_size);
  // (1-2 byte elements with aligned output rows: realign_async where its switch is on.)
  if (d.elem_size <= 2 && xpose::detail::best_out_rows_aligned(d, out) &&
      xpose::detail::best_route_on(xpose::detail::best_async_realign_default, !xpose::detail::best_skew_default))
    return best_path::realign_async;
  return xpose::detail::best_skew_wins(d, out) ? best_path::realign_skew : best_path::realign;
}
// Under the flag where the skewed route is on (best while best_skew_default, else best_next).
void check_next(const matrix_desc& d, std::uint64_t seed, index_t off_in, index_t off_out) {
  const bool flag = !xpose::detail::best_skew_default;
  check_best(d, seed, off_in, off_out, or_skew_async(skew_path(d, off_out), d, off_out, flag), flag);
}
}  // namespace

TEST(BestNextSkew, EveryOffset) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8}) {
    const index_t v = 16 / es;
    for (index_t o = 0; o < v; ++o) {
      check_next(matrix_desc::packed(300, 517, es), 160 + o, o, (o * 3) % v);
      check_next(matrix_desc::packed(129, 257, es), 161 + o, (o * 5) % v, o);
      if (HasFatalFailure()) return;
    }
    check_best(padded(300, 500, es, 1, 1, 3, 0), 162, 1, 2, std::nullopt, !xpose::detail::best_skew_default);
    check_best(padded(257, 131, es, 3, 3, 1, 5), 163, 2, 1, std::nullopt, !xpose::detail::best_skew_default);
    check_best(padded(77, 1000, es, 5, 1, v, 1), 164, 0, 0, std::nullopt, true);
    check_best(matrix_desc::packed(33, 65, es, 7), 165, 1, 1, std::nullopt, true);
    check_best(matrix_desc::packed(3, 1001, es, 5), 166, 1, 0, std::nullopt, true);
    check_best(matrix_desc::packed(1001, 3, es, 5), 167, 0, 1, std::nullopt, true);
    check_best(matrix_desc::packed(1, 333, es, 9), 168, 1, 1, std::nullopt, true);
    if (HasFatalFailure()) return;
  }
}

// The sweep's odd class (R x (R+1), (R-1) x (R+3)) and the 16383 x 16385.
TEST(BestNextSkew, OddRowLengths) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8}) {
    for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{{1000, 1025}, {1001, 1027}, {129, 4099}, {4095, 4099}}) {
      check_next(matrix_desc::packed(r, c, es), 170, 0, 0);
      check_next(matrix_desc::packed(r, c, es), 171, 1, 0);
      check_next(matrix_desc::packed(r, c, es, 3), 172, 0, 1);
      if (HasFatalFailure()) return;
    }
  }
  check_next(matrix_desc::packed(16383, 16385, 1), 173, 0, 0);
  check_next(matrix_desc::packed(16383, 8193, 2), 174, 0, 0);
}

// The cp.async skewed tile (path realign_skew_async, switch best_skew_async_default),
// under the flag that turns it on: with the halo (output rows not 16-byte aligned; f16)
// and without it (aligned output rows; 1, 4, 8 bytes), pointers one element off on either
// side or both, padded leading dimensions, ragged tiles, batches with gapped strides.
namespace {
// Under the flag where the route is on: asserted where it fits (best_skew_async_fits),
// elsewhere the same checks on whatever runs (the kernel's other form under the candidate).
// (The sector-aligned tiles come first where their switch is on under the same flag.)
void check_async(const matrix_desc& d, std::uint64_t seed, index_t off_in, index_t off_out) {
  const bool on = !xpose::detail::best_skew_async_default;
  const auto out = static_cast<unsigned long long>(off_out * d.elem_size);
  const bool sector = xpose::detail::best_route_on(xpose::detail::best_skew_sector_default, on) &&
                      xpose::detail::best_skew_sector_fits(d, out);
  const bool fits = xpose::detail::best_skew_async_fits(d, out);
  check_best(d, seed, off_in, off_out,
             sector ? std::optional(xpose::detail::best_path::realign_skew_sector)
             : fits ? std::optional(xpose::detail::best_skew_fit_or(best_path::realign_skew_async, d, out, on))
                    : std::nullopt,
             on);
}
}  // namespace

TEST(BestSkewAsync, EveryOffset) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8}) {
    const index_t v = 16 / es;
    for (index_t o = 0; o < v; ++o) {
      check_async(matrix_desc::packed(300, 517, es), 180 + o, o, (o * 3) % v);
      check_async(matrix_desc::packed(128, 257, es), 181 + o, (o * 5) % v, 0);  // aligned output rows: no halo
      check_async(matrix_desc::packed(256, 256, es), 182 + o, 1, o);            // aligned rows, pointers off
      if (HasFatalFailure()) return;
    }
    check_async(padded(300, 500, es, 1, 1, 3, 0), 183, 1, 2);
    check_async(padded(257, 131, es, 3, 3, 1, 5), 184, 2, 1);
    check_async(padded(200, 1000, es, 5, 1, v - 200 % v, v), 185, 0, 0);  // no halo, batched
    check_async(padded(77, 1000, es, 5, 1, v, 1), 186, 1, 0);
    check_async(padded(33, 65, es, 7, 1, 0, 0), 187, 1, 1);
    check_async(padded(3, 1001, es, 5, 0, 1, 0), 188, 1, 0);  // tiles of 3 rows
    check_async(padded(1001, 3, es, 5, 1, 0, 0), 189, 0, 1);  // tiles of 3 columns
    if (HasFatalFailure()) return;
  }
}

// The sweep's odd class and few-row shapes (both halo forms, many tiles per block), the
// issue's 16383 x 16385.
TEST(BestSkewAsync, OddRowLengths) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8}) {
    for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{
             {1000, 1025}, {1001, 1027}, {129, 4099}, {4095, 4099}, {4096, 4097}, {96, 50177}, {64, 50177}}) {
      const auto cp = xpose::detail::best_class_policy_for(90, es);
      if (r <= cp.slab_max_short && r * es <= cp.slab_max_short_bytes) continue;  // gathers: slab routes
      check_async(matrix_desc::packed(r, c, es), 190, 0, 0);
      check_async(matrix_desc::packed(r, c, es), 191, 1, 0);
      check_async(matrix_desc::packed(r, c, es, 3), 192, 0, 1);
      if (HasFatalFailure()) return;
    }
  }
  check_async(matrix_desc::packed(16383, 16385, 1), 193, 0, 0);
  check_async(matrix_desc::packed(16383, 8193, 2), 194, 1, 1);
}

// The sector-aligned skewed tile (path realign_skew_sector, switch best_skew_sector_default)
// under the flag that turns it on: output rows
// not 16-byte aligned (the sector halo: pointers at every element residue of 32 bytes,
// padded rows, gapped batches) and aligned ones, ragged tiles, the sweep's odd class.
namespace {
void check_sector(const matrix_desc& d, std::uint64_t seed, index_t off_in, index_t off_out) {
  const bool on = !xpose::detail::best_skew_sector_default;
  const auto out = static_cast<unsigned long long>(off_out * d.elem_size);
  check_best(d, seed, off_in, off_out,
             xpose::detail::best_skew_sector_fits(d, out) ? std::optional(best_path::realign_skew_sector) : std::nullopt,
             on);
}
}  // namespace

TEST(BestSkewSector, EveryOffset) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8}) {
    const index_t v = 16 / es;
    for (index_t o = 0; o < 2 * v; ++o) {
      check_sector(matrix_desc::packed(300, 517, es), 200 + o, o % v, (o * 3) % (2 * v));
      check_sector(matrix_desc::packed(256, 257, es), 201 + o, (o * 5) % v, o);  // sector rows unless offset
      if (HasFatalFailure()) return;
    }
    check_sector(padded(300, 500, es, 1, 1, 3, 0), 203, 1, 2);
    check_sector(padded(257, 131, es, 3, 3, 1, 5), 204, 2, 1);
    check_sector(padded(200, 1000, es, 5, 1, 2 * v - 200 % (2 * v), 2 * v), 205, 0, 0);  // aligned output, batched
    check_sector(padded(200, 1000, es, 5, 1, 2 * v - 200 % (2 * v), v), 206, 1, 0);      // batch stride off a sector
    check_sector(padded(77, 1000, es, 5, 1, v, 1), 207, 1, 0);
    check_sector(padded(3, 1001, es, 5, 0, 1, 0), 208, 1, 0);  // tiles of 3 rows
    check_sector(padded(1001, 3, es, 5, 1, 0, 0), 209, 0, 1);  // tiles of 3 columns
    if (HasFatalFailure()) return;
  }
}

TEST(BestSkewSector, OddRowLengths) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8}) {
    for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{
             {1000, 1025}, {1001, 1027}, {2047, 2051}, {2048, 2049}, {129, 4099}, {96, 50177}}) {
      const auto cp = xpose::detail::best_class_policy_for(90, es);
      if (r <= cp.slab_max_short && r * es <= cp.slab_max_short_bytes) continue;  // gathers: slab routes
      check_sector(matrix_desc::packed(r, c, es), 210, 0, 0);
      check_sector(matrix_desc::packed(r, c, es), 211, 1, 3);
      check_sector(matrix_desc::packed(r, c, es, 3), 212, 0, 1);
      if (HasFatalFailure()) return;
    }
  }
  check_sector(matrix_desc::packed(5759, 5763, 1), 213, 0, 0);
  check_sector(matrix_desc::packed(4095, 4099, 2), 214, 1, 1);
  check_sector(matrix_desc::packed(4096, 4097, 2), 215, 0, 0);
  check_sector(matrix_desc::packed(2879, 2883, 4), 216, 0, 0);
}
