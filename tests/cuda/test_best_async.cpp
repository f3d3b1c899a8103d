// GPU tests of the cp.async tile (src/cuda/best_async.cuh; routes tile_async and
// tile_async_batch, tile_async_pipe, tile_async_pipe_batch, realign_async): full and ragged tiles
// (row and column edges inside a chunk: cp.async's zero-filled partial chunks), pointers
// offset by whole chunks, padded leading dimensions, gapped and packed batches; and the
// same shapes offset by one element, which leave the route. Bitwise against the CPU
// reference on a 0xFF-poisoned output (best_check.hpp). Skip without a GPU.
#include <tuple>
#include <utility>
#include <vector>

#include "best_check.hpp"

using namespace xpose_test;

TEST(BestAsync, SquaresAndRaggedTiles) {
  REQUIRE_GPU();
  for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{
           {256, 512}, {304, 400}, {1040, 2064}, {4096, 4096}, {5760, 5760}, {2064, 1040}, {144, 4112}}) {
    const matrix_desc d = matrix_desc::packed(r, c, 1);
    check_best(d, static_cast<std::uint64_t>(r * 3 + c), 0, 0);
    check_best(d, 7, 16, 48);  // whole-chunk offsets
    check_best(d, 8, 1, 0);             // one element: realigning routes
    check_best(d, 9, 0, 1);
    if (HasFatalFailure()) return;
  }
}

TEST(BestAsync, PaddedRowsEndInsideAChunk) {
  REQUIRE_GPU();
  // ld_in, ld_out multiples of 16, rows / columns not: the last chunk of a row is partial.
  check_best(padded(300, 500, 1, 1, 12, 4, 0), 20, 0, 0);
  check_best(padded(1001, 999, 1, 1, 9, 7, 0), 21, 16, 0);
  check_best(padded(257, 131, 1, 3, 13, 15, 16), 22, 0, 16);
  check_best(padded(129, 385, 1, 2, 15, 15, 32), 23, 0, 0);
}

TEST(BestAsync, BatchesOfSmallMatrices) {
  REQUIRE_GPU();
  check_best(matrix_desc::packed(64, 64, 1, 8192), 30, 0, 0);
  check_best(matrix_desc::packed(64, 64, 1, 10001), 31, 16, 32);  // last group partial
  check_best(matrix_desc::packed(64, 64, 1, 3), 32, 0, 0);
  check_best(matrix_desc::packed(48, 64, 1, 777), 33, 0, 0);
  check_best(matrix_desc::packed(64, 48, 1, 777), 34, 0, 0);
  check_best(padded(40, 50, 1, 7, 14, 8, 16), 35, 0, 0);
  check_best(padded(33, 63, 1, 11, 1, 15, 48), 36, 16, 16);
  matrix_desc one_input = matrix_desc::packed(64, 64, 1, 50);
  one_input.stride_in = 0;  // one input, many outputs
  check_best(one_input, 37, 0, 0);
  check_best(matrix_desc::packed(64, 64, 1, 300), 38, 1, 1);  // offsets by one element
  check_best(matrix_desc::packed(64, 64, 1, 300), 39, 0, 1);
}

namespace {
// The async realigning tile runs where the output rows are 16-byte aligned (output
// placed off_out elements past a 256-byte boundary); elsewhere the routes of before.
void check_realign(const matrix_desc& d, std::uint64_t seed, index_t off_in, index_t off_out) {
  check_best(d, seed, off_in, off_out);
}
}  // namespace

// realign_async: element-aligned rows, pointers and
// strides at every residue, partial tiles, padded leading dimensions, batches with odd
// strides; the input ends at the allocation's end and the first cover chunk of an offset
// input starts before it (the byte-wise clamped copy). Output rows aligned (the route)
// and not (the routes it leaves alone).
TEST(BestAsync, RealignEveryOffset) {
  REQUIRE_GPU();
  for (int es : {1, 2}) {
    const index_t v = 16 / es;
    for (index_t o = 0; o < v; ++o) {
      check_realign(matrix_desc::packed(304, 517, es), 160 + o, o, 0);
      check_realign(matrix_desc::packed(128, 257, es), 161 + o, (o * 5) % v, 0);
      check_realign(matrix_desc::packed(300, 517, es), 162 + o, o, (o * 3) % v);
      if (HasFatalFailure()) return;
    }
    check_realign(matrix_desc::packed(1000, 1000, es), 163, 1, 0);  // aligned rows, offset input
    check_realign(matrix_desc::packed(1000, 1000, es), 164, 0, 1);  // offset output
    check_realign(matrix_desc::packed(2048, 2051, es), 165, 3, 0);
    check_realign(padded(300, 500, es, 1, 1, 4, 0), 166, 1, 0);
    check_realign(padded(257, 131, es, 3, 3, 15, 16), 167, 2, 0);
    check_realign(padded(200, 1000, es, 5, 1, v - 200 % v, v), 168, 0, 0);
    check_realign(padded(200, 1000, es, 5, 1, v - 200 % v, 1), 169, 0, 0);  // batch stride off
    check_realign(matrix_desc::packed(144, 165, es, 7), 170, 1, 0);
    check_realign(matrix_desc::packed(5760, 5761, es), 171, 0, 0);
    check_realign(matrix_desc::packed(5759, 5763, es), 172, 0, 0);
    if (HasFatalFailure()) return;
  }
}

// Large f16 batches: from best_async_f16_big_min_bytes per buffer up the unpipelined batch tile,
// one matrix below it the pipelined tile; the last group partial, whole-chunk offsets, padded rows of whole
// chunks and rows ending inside a chunk, one input for many outputs; one-element offsets leave it.
TEST(BestAsync, LargeTwoByteBatches) {
  REQUIRE_GPU();
  constexpr index_t big = xpose::detail::best_async_f16_big_min_bytes;
  {
    auto check = [&](const matrix_desc& d, std::uint64_t seed, index_t oi, index_t oo) { check_best(d, seed, oi, oo); };
    check(matrix_desc::packed(64, 64, 2, big / 8192), 60, 0, 0);      // exactly the threshold
    check(matrix_desc::packed(64, 64, 2, big / 8192 - 1), 61, 0, 0);  // one matrix below it
    check(matrix_desc::packed(64, 64, 2, big / 8192 + 3), 62, 8, 16);  // last group partial
    check(matrix_desc::packed(40, 64, 2, big / 5120 + 1), 63, 0, 0);
    check(matrix_desc::packed(64, 40, 2, big / 5120 + 1), 64, 8, 0);
    check(padded(40, 56, 2, big / 4480 + 1, 8, 8, 8), 65, 0, 0);  // padded rows of whole chunks
    // (Rows of 104 / 88 bytes in pitches of 112 / 96: each row ends inside a chunk.)
    check(padded(44, 52, 2, big / 4576 + 1, 4, 4, 8), 68, 0, 0);
    matrix_desc one_input = matrix_desc::packed(64, 64, 2, big / 8192 + 1);
    one_input.stride_in = 0;  // one input, many outputs
    check(one_input, 66, 0, 0);
    // Pointers one element off: not the batch tile (its loads are whole 16-byte chunks).
    const matrix_desc odd = matrix_desc::packed(64, 64, 2, big / 8192 + 1);
    check_best(odd, 67, 1, 1);
    if (HasFatalFailure()) return;
  }
}

// The pipelined async tile (tile_async_pipe) and the 2-byte tiles: full and ragged tiles
// (4112^2 u8 and 3008 x 2832 f16: ragged against every tile, above the pipelined tile's
// minimum), more tile groups than resident blocks (each block strides over several, the
// stages wrap) and fewer, whole-chunk offsets, padded rows ending inside a chunk;
// one-element offsets leave the routes.
TEST(BestAsync, PipelinedAndTwoByteTiles) {
  REQUIRE_GPU();
  for (int es : {1, 2}) {
      for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{{304, 400},
                                                                  {1040, 2064},
                                                                  {144, 4112},
                                                                  {4096, 4096 / es},
                                                                  {5760 / es, 5760 / es},
                                                                  {4112, 4112 / es},
                                                                  {3008, 2832}}) {
        const matrix_desc d = matrix_desc::packed(r, c, es);
        // The async range: fewer than best_half_max_tiles tiles of 256 rows x 256 bytes.
        const bool in_range = (r + 255) / 256 * ((c * es + 255) / 256) < xpose::detail::best_half_max_tiles;
        check_best(d, static_cast<std::uint64_t>(r * 3 + c + es), 0, 0);
        if (!in_range) continue;
        check_best(d, 7, 16 / es, 48 / es);  // whole-chunk offsets
        check_best(d, 8, 1, 0);       // one element: realigning routes
        check_best(d, 9, 0, 1);
        if (HasFatalFailure()) return;
      }
      const index_t v = 16 / es;
      for (const matrix_desc& d : {padded(300, 500, es, 1, v - 500 % v, v - 300 % v, 0),
                                   padded(4097, 4111, es, 1, v - 4111 % v + v, v - 4097 % v, 0),
                                   padded(257, 131, es, 3, v - 131 % v, v - 257 % v, v),
                                   padded(1000, 1100, es, 9, v - 1100 % v, v - 1000 % v, v)})  // batches
        check_best(d, 20, v, 0);
      if (HasFatalFailure()) return;
    }
}

// 33-64 x 33-64 batches (tile_async_pipe_batch / tile_async_batch): more
// groups than resident blocks, a partial last group, one input for many outputs.
TEST(BestAsync, PipelinedAndTwoByteBatches) {
  REQUIRE_GPU();
  for (int es : {1, 2}) {
      const index_t v = 16 / es;
      auto check = [&](const matrix_desc& d, std::uint64_t seed, index_t oi, index_t oo) {
        check_best(d, seed, oi, oo);
      };
      check(matrix_desc::packed(64, 64, es, 8192 / es), 40, 0, 0);
      check(matrix_desc::packed(64, 64, es, 10001), 41, v, 2 * v);  // last group partial
      check(matrix_desc::packed(64, 64, es, 3), 42, 0, 0);
      check(matrix_desc::packed(48, 64, es, 7777), 43, 0, 0);
      check(matrix_desc::packed(64, 48, es, 777), 44, 0, 0);
      check(padded(40, 56, es, 7001, v - 56 % v, v - 40 % v, v), 45, 0, 0);
      matrix_desc one_input = matrix_desc::packed(64, 64, es, 5000);
      one_input.stride_in = 0;  // one input, many outputs
      check(one_input, 46, 0, 0);
      check_best(matrix_desc::packed(64, 64, es, 300), 47, 1, 1);  // offsets by one element
      if (HasFatalFailure()) return;
    }
}

// 4-byte aligned matrices and batches on the pipelined async tile: squares, ragged tiles (row
// and column edges inside a tile and, for 2001 x 2101, inside a chunk), more tile groups
// than resident blocks, whole-chunk offsets, padded rows ending inside a chunk, packed and
// gapped batches, one input for many outputs; one-element offsets leave the route.
TEST(BestAsync, PipelinedF32Tiles) {
  REQUIRE_GPU();
  constexpr int es = 4;
  constexpr index_t v = 4;
  for (auto [b, r, c] : std::vector<std::tuple<index_t, index_t, index_t>>{
           {1, 2880, 2880}, {1, 4096, 4096}, {1, 4100, 2068}, {2048, 64, 64}, {1024, 96, 80}, {3001, 64, 72}}) {
    const matrix_desc d = matrix_desc::packed(r, c, es, b);
    check_best(d, static_cast<std::uint64_t>(r * 3 + c), 0, 0);
    check_best(d, 7, v, 3 * v);  // whole-chunk offsets
    check_best(d, 8, 1, 0);                    // one element: other routes
    if (HasFatalFailure()) return;
  }
  // Rows ending inside a chunk, leading dimensions and batch strides whole chunks.
  check_best(padded(2001, 2101, es, 1, v - 2101 % v, v - 2001 % v, 0), 20, 0, 0);
  check_best(padded(1003, 1101, es, 9, v - 1101 % v + v, v - 1003 % v, v), 21, v, 0);
  matrix_desc one_input = matrix_desc::packed(64, 64, es, 4096);
  one_input.stride_in = 0;  // one input, many outputs
  check_best(one_input, 22, 0, 0);
}
