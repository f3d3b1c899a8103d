// GPU tests of the realigning tiles (routes realign, realign_skew*, realign_async,
// src/cuda/best_skew.cuh, best_realign.cuh, best_async.cuh): rows, pointers and strides only
// element-aligned at every residue mod 16, multi-tile and partial tiles, padded leading
// dimensions, batches with odd strides, the sweep's odd-row shapes; bitwise against the CPU
// reference on a 0xFF-poisoned output, the input ending at its allocation's end. Skip without
// a GPU.
#include <utility>

#include "best_check.hpp"

using namespace xpose_test;

TEST(BestSkew, EveryOffset) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8}) {
    const index_t v = 16 / es;
    for (index_t o = 0; o < v; ++o) {
      check_best(matrix_desc::packed(300, 517, es), 160 + o, o, (o * 3) % v);
      check_best(matrix_desc::packed(129, 257, es), 161 + o, (o * 5) % v, o);
      if (HasFatalFailure()) return;
    }
    check_best(padded(300, 500, es, 1, 1, 3, 0), 162, 1, 2);
    check_best(padded(257, 131, es, 3, 3, 1, 5), 163, 2, 1);
    check_best(padded(77, 1000, es, 5, 1, v, 1), 164, 0, 0);
    check_best(matrix_desc::packed(33, 65, es, 7), 165, 1, 1);
    check_best(matrix_desc::packed(3, 1001, es, 5), 166, 1, 0);
    check_best(matrix_desc::packed(1001, 3, es, 5), 167, 0, 1);
    check_best(matrix_desc::packed(1, 333, es, 9), 168, 1, 1);
    if (HasFatalFailure()) return;
  }
}

// The sweep's odd class (R x (R+1), (R-1) x (R+3)) and the benchmarks' 16383 x 16385.
TEST(BestSkew, OddRowLengths) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8}) {
    for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{{1000, 1025}, {1001, 1027}, {129, 4099}, {4095, 4099}}) {
      check_best(matrix_desc::packed(r, c, es), 170, 0, 0);
      check_best(matrix_desc::packed(r, c, es), 171, 1, 0);
      check_best(matrix_desc::packed(r, c, es, 3), 172, 0, 1);
      if (HasFatalFailure()) return;
    }
  }
  check_best(matrix_desc::packed(16383, 16385, 1), 173, 0, 0);
  check_best(matrix_desc::packed(16383, 8193, 2), 174, 0, 0);
}

// Element-aligned layouts on the cp.async skewed tiles (realign_skew_async, and the sector
// tile realign_skew_sector): with the halo (output rows not 16-byte aligned; f16)
// and without it (aligned output rows; 1, 4, 8 bytes), pointers one element off on either
// side or both, padded leading dimensions, ragged tiles, batches with gapped strides.

TEST(BestSkewAsync, EveryOffset) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8}) {
    const index_t v = 16 / es;
    for (index_t o = 0; o < v; ++o) {
      check_best(matrix_desc::packed(300, 517, es), 180 + o, o, (o * 3) % v);
      check_best(matrix_desc::packed(128, 257, es), 181 + o, (o * 5) % v, 0);  // aligned output rows: no halo
      check_best(matrix_desc::packed(256, 256, es), 182 + o, 1, o);            // aligned rows, pointers off
      if (HasFatalFailure()) return;
    }
    check_best(padded(300, 500, es, 1, 1, 3, 0), 183, 1, 2);
    check_best(padded(257, 131, es, 3, 3, 1, 5), 184, 2, 1);
    check_best(padded(200, 1000, es, 5, 1, v - 200 % v, v), 185, 0, 0);  // no halo, batched
    check_best(padded(77, 1000, es, 5, 1, v, 1), 186, 1, 0);
    check_best(padded(33, 65, es, 7, 1, 0, 0), 187, 1, 1);
    check_best(padded(3, 1001, es, 5, 0, 1, 0), 188, 1, 0);  // tiles of 3 rows
    check_best(padded(1001, 3, es, 5, 1, 0, 0), 189, 0, 1);  // tiles of 3 columns
    if (HasFatalFailure()) return;
  }
}

// The sweep's odd class and few-row shapes (both halo forms, many tiles per block), the
// benchmarks' 16383 x 16385.
TEST(BestSkewAsync, OddRowLengths) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8}) {
    for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{
             {1000, 1025}, {1001, 1027}, {129, 4099}, {4095, 4099}, {4096, 4097}, {96, 50177}, {64, 50177}}) {
      const auto cp = xpose::detail::best_class_policy_for(90, es);
      if (r <= cp.slab_max_short && r * es <= cp.slab_max_short_bytes) continue;  // gathers: slab routes
      check_best(matrix_desc::packed(r, c, es), 190, 0, 0);
      check_best(matrix_desc::packed(r, c, es), 191, 1, 0);
      check_best(matrix_desc::packed(r, c, es, 3), 192, 0, 1);
      if (HasFatalFailure()) return;
    }
  }
  check_best(matrix_desc::packed(16383, 16385, 1), 193, 0, 0);
  check_best(matrix_desc::packed(16383, 8193, 2), 194, 1, 1);
}

// The sector-aligned skewed tile (realign_skew_sector): output rows not 16-byte aligned (the sector halo: pointers at every element residue of 32 bytes,
// padded rows, gapped batches) and aligned ones, ragged tiles, the sweep's odd class.

TEST(BestSkewSector, EveryOffset) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8}) {
    const index_t v = 16 / es;
    for (index_t o = 0; o < 2 * v; ++o) {
      check_best(matrix_desc::packed(300, 517, es), 200 + o, o % v, (o * 3) % (2 * v));
      check_best(matrix_desc::packed(256, 257, es), 201 + o, (o * 5) % v, o);  // sector rows unless offset
      if (HasFatalFailure()) return;
    }
    check_best(padded(300, 500, es, 1, 1, 3, 0), 203, 1, 2);
    check_best(padded(257, 131, es, 3, 3, 1, 5), 204, 2, 1);
    check_best(padded(200, 1000, es, 5, 1, 2 * v - 200 % (2 * v), 2 * v), 205, 0, 0);  // aligned output, batched
    check_best(padded(200, 1000, es, 5, 1, 2 * v - 200 % (2 * v), v), 206, 1, 0);      // batch stride off a sector
    check_best(padded(77, 1000, es, 5, 1, v, 1), 207, 1, 0);
    check_best(padded(3, 1001, es, 5, 0, 1, 0), 208, 1, 0);  // tiles of 3 rows
    check_best(padded(1001, 3, es, 5, 1, 0, 0), 209, 0, 1);  // tiles of 3 columns
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
      check_best(matrix_desc::packed(r, c, es), 210, 0, 0);
      check_best(matrix_desc::packed(r, c, es), 211, 1, 3);
      check_best(matrix_desc::packed(r, c, es, 3), 212, 0, 1);
      if (HasFatalFailure()) return;
    }
  }
  check_best(matrix_desc::packed(5759, 5763, 1), 213, 0, 0);
  check_best(matrix_desc::packed(4095, 4099, 2), 214, 1, 1);
  check_best(matrix_desc::packed(4096, 4097, 2), 215, 0, 0);
  check_best(matrix_desc::packed(2879, 2883, 4), 216, 0, 0);
}
