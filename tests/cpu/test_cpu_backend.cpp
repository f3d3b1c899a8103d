// The fast CPU backend against the reference: every element size over the shared
// size grid, primes, skinny shapes, padded leading dimensions, batches, threads.
#include "test_util.hpp"

using namespace xpose_test;

namespace {

// `misalign` shifts both buffers off 16-byte alignment by that many elements; the
// API guarantees only alignment to the element size.
void check_host(const matrix_desc& d, int threads = 0, std::uint64_t seed = 1, std::size_t misalign = 0) {
  SCOPED_TRACE(shape_name(d));
  const bool empty = d.rows == 0 || d.cols == 0 || d.batch == 0;
  const std::size_t es = static_cast<std::size_t>(d.elem_size);
  const std::size_t nin = empty ? 1 : static_cast<std::size_t>(in_elems(d)) * es;
  const std::size_t nout = empty ? 1 : static_cast<std::size_t>(out_elems(d)) * es;
  // Over-allocate so that both buffers can be aligned to 16, then shifted.
  const std::size_t shift = misalign * es;
  auto in_buf = random_bytes(nin + 16 + shift, seed);
  std::vector<unsigned char> want_buf(nout + 16 + shift, 0xFF), got_buf(nout + 16 + shift, 0xFF);
  auto align16 = [shift](unsigned char* p) {
    return p + ((16 - reinterpret_cast<std::uintptr_t>(p) % 16) % 16) + shift;
  };
  unsigned char* in = align16(in_buf.data());
  unsigned char* want = align16(want_buf.data());
  unsigned char* got = align16(got_buf.data());
  ASSERT_TRUE(xpose::transpose_reference(in, want, d).ok());
  xpose::host_options o;
  o.threads = threads;
  const xpose::status s = xpose::transpose_host(in, got, d, o);
  ASSERT_TRUE(s.ok()) << s.message();
  if (empty) {
    EXPECT_EQ(got[0], 0xFF);
    return;
  }
  ASSERT_EQ(first_mismatch(got, want, d), "");
  // Bytes outside the valid elements (padding, gaps) must stay poisoned.
  EXPECT_EQ(std::memcmp(got, want, nout), 0) << "padding or gap bytes were written";
}

}  // namespace

TEST(CpuBackend, SizeGridEveryElementSize) {
  for (int es : elem_sizes())
    for (index_t r : edge_sizes())
      for (index_t c : edge_sizes()) check_host(matrix_desc::packed(r, c, es), 0, r * 7919 + c);
}

TEST(CpuBackend, PrimesAndSkinny) {
  const std::pair<index_t, index_t> shapes[] = {{1, 100003}, {100003, 1}, {3, 100003}, {100003, 3},
                                                {7, 13},     {101, 997},  {997, 101},  {2, 65537},
                                                {4099, 17},  {17, 4099},  {521, 523}};
  for (int es : elem_sizes())
    for (auto [r, c] : shapes) check_host(matrix_desc::packed(r, c, es));
}

TEST(CpuBackend, PaddedLeadingDimensionsAndBatches) {
  for (int es : elem_sizes()) {
    check_host(padded(33, 65, es, 1, 3, 5, 0));
    check_host(padded(64, 64, es, 7, 1, 0, 0));
    check_host(padded(100, 37, es, 5, 0, 11, 13));
    check_host(matrix_desc::packed(64, 64, es, 100));
    check_host(matrix_desc::packed(1, 1, es, 1000));
    check_host(matrix_desc::packed(3, 5, es, 0));
  }
}

TEST(CpuBackend, BroadcastInputStrideZero) {
  matrix_desc d = matrix_desc::packed(40, 50, 4, 3);
  d.stride_in = 0;  // one input matrix, three outputs
  check_host(d);
}

TEST(CpuBackend, ThreadCountsAgree) {
  for (int t : {1, 2, 3, 8}) check_host(matrix_desc::packed(1000, 777, 4), t);
}

TEST(CpuBackend, TypedOverload) {
  std::vector<double> in(6 * 4), out(4 * 6);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(i);
  ASSERT_TRUE(xpose::transpose_host(in.data(), out.data(), 6, 4).ok());
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_EQ(out[c * 6 + r], in[r * 4 + c]);
}

TEST(CpuBackend, PointersAlignedOnlyToElementSize) {
  for (int es : elem_sizes())
    for (std::size_t shift : {1, 3})
      for (auto [r, c] : {std::pair<index_t, index_t>{65, 127}, {300, 41}})
        check_host(matrix_desc::packed(r, c, es), 0, 7, shift);
}

// Outputs of several MiB take the streaming (non-temporal) copy-out: ragged tiles,
// odd leading dimensions that leave every output row unaligned, odd pointer offsets,
// batches and a broadcast input must all stay exact there too.
TEST(CpuBackend, LargeOutputsStreamingPath) {
  for (int es : elem_sizes()) {
    const index_t n = (index_t{12} << 20) / es;  // about 12 MiB of output
    check_host(matrix_desc::packed(4099, n / 4099, es));
    check_host(padded(1031, n / 1031, es, 1, 3, 5, 0), 0, 2, 1);
    check_host(padded(517, n / (3 * 517), es, 3, 1, 7, 9), 2, 3);
    matrix_desc d = matrix_desc::packed(333, n / (4 * 333), es, 4);
    d.stride_in = 0;
    check_host(d, 0, 4, 1);
  }
}

// Streamed outputs whose rows do not start on cache lines run as panels (src/cpu/blocked.cpp, run_panels): each
// output row's pieces meet in line buffers and only whole lines are streamed. Narrow inputs (one panel takes every
// column tile), few panels (strips split into items, whose edges take ordinary stores), many panels (input rows over
// 1 KiB), remainder strips, batches with gaps, padded outputs, a strided column, misaligned pointers, one and two
// threads; gap bytes must stay poisoned.
TEST(CpuBackend, OddRowsStreamedAsPanels) {
  const std::pair<int, index_t> tile_cols[] = {{1, 128}, {2, 128}, {4, 64}, {8, 32}, {16, 32}};  // columns a tile
  for (auto [es, tc] : tile_cols) {
    const index_t n = (index_t{9} << 20) / es;                                 // about 9 MiB of output
    const auto seed = static_cast<std::uint64_t>(es * 101);
    check_host(matrix_desc::packed(n / 85 | 1, 85, es), 2, seed, 1);           // narrow input rows
    check_host(matrix_desc::packed(n / (2 * tc + 5) | 1, 2 * tc + 5, es), 2, seed + 1);  // 3 tiles wide, split
    check_host(matrix_desc::packed(n / (2 * tc + 5) | 1, 2 * tc + 5, es), 1, seed + 2, 3);
    check_host(matrix_desc::packed(n / 1001 + 2, 1001, es), 0, seed + 3);     // many panels
    check_host(padded(n / (3 * 333) + 1, 333, es, 3, 2, 5, 11), 2, seed + 4, 1);  // batches, gaps, padded out
    check_host(padded(n / 257, 257, es, 1, 0, 1, 0), 1, seed + 5);             // output pitch one past the rows
    check_host(padded(n / 2, 1, es, 2, 2, 0, 3), 2, seed + 6);                 // strided columns, odd batch stride
  }
}

// Output rows that are whole cache lines apart start their row strips at the first
// line boundary (a phase of up to 63 bytes): every misalignment of the output base,
// single matrices and batches, small strips before the first boundary included.
TEST(CpuBackend, RowStripsPhasedToCacheLines) {
  for (int es : elem_sizes()) {
    const index_t rows = 1024, cols = ((index_t{10} << 20) / es) / rows;  // 10 MiB: streaming
    for (std::size_t mis : {1u, 3u, 4u, 8u, 15u})
      check_host(matrix_desc::packed(rows, cols, es), 0, mis, mis);
    check_host(matrix_desc::packed(64, 64, es, 3000), 2, 5, 2);  // batches 64 rows apart
    check_host(matrix_desc::packed(3, 1 << 20, es), 0, 6, 1);     // fewer rows than the phase
  }
}

// ---- shape classes (src/cpu/blocked.cpp): every element size through each path ----

namespace {

// A packed-output desc whose input rows are padded by pad_in and whose input batch
// stride has a gap (or is 0: one input matrix broadcast to every output).
matrix_desc packed_out(index_t rows, index_t cols, int es, index_t batch, index_t pad_in, index_t gap_in) {
  matrix_desc d = matrix_desc::packed(rows, cols, es, batch);
  d.ld_in = cols + pad_in;
  d.stride_in = gap_in < 0 ? 0 : rows * d.ld_in + gap_in;
  return d;
}

// Every variation of one shape: packed, padded input, padded output (which takes
// another path), batches with gaps, a broadcast input, misaligned pointers.
void check_variants(index_t r, index_t c, int es, std::uint64_t seed) {
  check_host(matrix_desc::packed(r, c, es), 0, seed);
  check_host(packed_out(r, c, es, 1, 3, 0), 0, seed + 1);
  check_host(padded(r, c, es, 1, 0, 2, 0), 0, seed + 2);
  check_host(packed_out(r, c, es, 5, 1, 7), 0, seed + 3, 1);
  check_host(packed_out(r, c, es, 4, 0, -1), 0, seed + 4);
  check_host(padded(r, c, es, 3, 2, 1, 5), 0, seed + 5, 3);
  check_host(matrix_desc::packed(r, c, es, 3), 1, seed + 6, 1);
}

}  // namespace

// One short side, 2..16 elements, both orientations (AoS <-> SoA): the (de)interleave
// path for 2..4, tiles with fringe micro-tiles beyond.
TEST(CpuBackendShapes, OneShortSide) {
  for (int es : elem_sizes())
    for (index_t k : {2, 3, 4, 5, 7, 8, 16})
      for (index_t n : {1, 5, 31, 33, 1000, 4099}) {
        check_variants(k, n, es, static_cast<std::uint64_t>(k * 131 + n));
        check_variants(n, k, es, static_cast<std::uint64_t>(k * 137 + n));
      }
}

// 5..8 rows or packed columns (1-2 byte elements: the byte-table (de)interleaves, kernel_set::interleave_max): long
// sides below one 128-bit group, between one group and one wide step, past it with a remainder (the last step
// overlaps), small batches, misaligned pointers, one thread (the first test also runs under qemu-user, which hangs on
// a second thread); then streamed outputs (runs of chunks through cpu::stream_piece: a row pitch off the cache lines,
// batches, a padded output, padded input rows) and small batches on one and two threads; gap bytes must stay poisoned
// (check_host).
TEST(CpuBackendShapes, FiveToEightRowsOrColumns) {
  for (int es : elem_sizes())
    for (index_t k = 5; k <= 8; ++k) {
      const auto seed = static_cast<std::uint64_t>(k * 17 + es);
      for (index_t n : {3, 8, 15, 16, 17, 31, 32, 33, 47, 64, 65, 1000}) {  // 16 / ES and 32 / ES elements
        check_host(matrix_desc::packed(k, n, es), 1, seed + n, static_cast<std::size_t>(n % 3));
        check_host(matrix_desc::packed(n, k, es), 1, seed + n + 1, static_cast<std::size_t>(n % 2));
        check_host(matrix_desc::packed(k, n, es, 37), 1, seed + n + 2);                 // small batches
        check_host(matrix_desc::packed(n, k, es, 37), 1, seed + n + 3, 1);
      }
    }
}

TEST(CpuBackendShapes, FiveToEightRowsOrColumnsStreamed) {
  for (int es : elem_sizes())
    for (index_t k = 5; k <= 8; ++k) {
      const auto seed = static_cast<std::uint64_t>(k * 19 + es);
      const index_t big = (index_t{9} << 20) / (es * k) + 13;  // about 9 MiB of output
      check_host(matrix_desc::packed(k, big, es), 2, seed + 4, 1);                        // interleave, streamed
      check_host(matrix_desc::packed(big, k, es), 2, seed + 5, 3);                        // deinterleave, streamed
      check_host(matrix_desc::packed(big, k, es), 1, seed + 6);
      check_host(padded(big / 3, k, es, 3, 0, 3, 5), 2, seed + 7);                        // batches, padded output
      check_host(packed_out(k, big / 2, es, 2, 3, 0), 2, seed + 8, 1);                    // padded input rows
      check_host(matrix_desc::packed(k, 1000, es, 37), 2, seed + 9);                      // small batches, two threads
      check_host(matrix_desc::packed(1000, k, es, 37), 2, seed + 10, 1);
    }
}

// Row lengths that are no multiple of any micro-tile edge.
TEST(CpuBackendShapes, OddRowLengths) {
  for (int es : elem_sizes())
    for (auto [r, c] : {std::pair<index_t, index_t>{123, 457}, {457, 123}, {67, 1001}, {255, 257}})
      check_variants(r, c, es, static_cast<std::uint64_t>(r + c));
}

// Batches of small matrices: many per work item, staged back to back.
TEST(CpuBackendShapes, SmallMatrixBatches) {
  for (int es : elem_sizes())
    for (index_t s : {1, 2, 5, 8, 9, 16, 31, 32, 64})
      for (index_t b : {2, 7, 300}) {
        check_host(matrix_desc::packed(s, s, es, b), 0, static_cast<std::uint64_t>(s * b));
        check_host(matrix_desc::packed(s, s + 3, es, b), 0, static_cast<std::uint64_t>(s * b + 1), 1);
        check_host(packed_out(s + 1, s, es, b, 2, -1), 0, static_cast<std::uint64_t>(s * b + 2));
      }
}

// Batches of tiny packed matrices (at most 128 bytes each: byte permutations of whole
// chunks, kernel_set::tiny_batch): every shape of 2..16 rows and columns that fits, every
// element size, batch counts that leave a tail after the last whole chunk, misaligned
// pointers, one and two threads, and a streamed output.
TEST(CpuBackendShapes, TinyMatrixBatches) {
  int ran = 0;
  for (int es : elem_sizes())
    for (index_t r = 2; r <= 16; ++r)
      for (index_t c = 2; c <= 16; ++c) {
        if (r * c * es > 128) continue;
        const index_t b = 1 + (r * 7 + c * 13 + es) % 97 + 128 / (r * c * es) * 11;
        check_host(matrix_desc::packed(r, c, es, b), 1 + static_cast<int>((r + c) % 2), static_cast<std::uint64_t>(r * 31 + c),
                   static_cast<std::size_t>((r + c) % 3));
        ++ran;
      }
  EXPECT_GT(ran, 250);
  for (int es : {1, 2, 4}) {
    const index_t r = 5, c = 12 / es;
    check_host(matrix_desc::packed(r, c, es, (index_t{9} << 20) / (r * c * es) + 3), 0, 11, 1);  // streamed
  }
}

// The same with gaps in the input (padded rows, matrices apart, as views of a larger
// batch give): the chunks read the gaps and leave them out; spans past 128 bytes and
// broadcast inputs take the other paths.
TEST(CpuBackendShapes, TinyMatrixBatchesWithInputGaps) {
  int ran = 0;
  for (int es : elem_sizes())
    for (index_t r = 2; r <= 12; ++r)
      for (index_t c = 2; c <= 12; ++c) {
        if (r * c * es > 128) continue;
        const index_t pad = (r + c) % 3 == 0 ? 1 + (r % 2) : 0, gap = (r * 3 + c) % 5 == 0 ? 0 : (r * c + es) % 23;
        const index_t b = 5 + (r * 11 + c * 7 + es) % 61;
        check_host(packed_out(r, c, es, b, pad, gap), 1 + static_cast<int>((r + c) % 2), static_cast<std::uint64_t>(r * 37 + c),
                   static_cast<std::size_t>((r + c) % 3));
        ++ran;
      }
  EXPECT_GT(ran, 150);
  check_host(packed_out(3, 3, 2, (index_t{9} << 20) / 18 + 5, 0, 9), 0, 12, 1);  // streamed; every 3x3 f16 of 3x6
  check_host(packed_out(4, 3, 8, (index_t{9} << 20) / 96 + 1, 1, 4), 0, 13);     // one matrix a chunk, 8 blocks
}

// Vectors: a row or a column (a copy when both sides are contiguous), batched,
// and with a padded side (no longer a copy).
TEST(CpuBackendShapes, Vectors) {
  for (int es : elem_sizes())
    for (index_t n : {1, 2, 17, 4096, 100003}) {
      check_variants(1, n, es, static_cast<std::uint64_t>(n));
      check_variants(n, 1, es, static_cast<std::uint64_t>(n + 1));
    }
}

// Large outputs of every class take the streaming copy-out (from staging): exact
// too, with misaligned pointers and batches.
TEST(CpuBackendShapes, StreamingEveryClass) {
  for (int es : elem_sizes()) {
    const index_t n = (index_t{9} << 20) / es;  // about 9 MiB of output
    check_host(matrix_desc::packed(3, n / 3 + 1, es), 0, 1, 1);              // interleave
    check_host(matrix_desc::packed(n / 4 + 3, 4, es), 0, 2, 3);              // deinterleave
    check_host(packed_out(2, n / 4, es, 2, 1, 5), 0, 3, 1);                  // interleave, batches
    check_host(matrix_desc::packed(16, 16, es, n / 256 + 1), 0, 4, 1);       // small batches
    check_host(packed_out(8, 8, es, n / 64 + 3, 0, -1), 0, 5);               // broadcast batches
    check_host(matrix_desc::packed(1, n + 5, es), 0, 6, 1);                  // vector: a copy
    check_host(matrix_desc::packed(n / 2 + 1, 1, es, 2), 0, 7, 3);           // column vectors
    check_host(matrix_desc::packed(7, n / 7 + 1, es), 0, 8, 1);              // 7 x N tiles
  }
}

// Packed outputs whose rows hold more elements than a tile's strip but at most 1 KiB (src/cpu/blocked.cpp,
// whole_row_bytes): a tile takes every row, so its output is one run. Each element size at the bounds of that range
// and between, single matrices and batches, padded input rows, misaligned pointers, streamed (>= 8 MiB) and not;
// a padded output (not one run) keeps the strips.
TEST(CpuBackendShapes, WholeRowTilesOfShortPackedRows) {
  const std::pair<int, index_t> strip[] = {{1, 256}, {2, 128}, {4, 64}, {8, 32}, {16, 32}};
  for (auto [es, tr] : strip)
    for (index_t r : {tr + 1, (tr + 1024 / es) / 2 + 1, index_t{1024} / es}) {
      if (r <= tr) continue;
      const auto seed = static_cast<std::uint64_t>(r * 17 + es);
      check_host(matrix_desc::packed(r, 301, es), 0, seed);
      check_host(packed_out(r, 77, es, 3, 5, 2), 2, seed + 1, 1);
      check_host(padded(r, 123, es, 1, 0, 3, 0), 0, seed + 2);
      check_host(matrix_desc::packed(r, (index_t{9} << 20) / (r * es) + 7, es), 0, seed + 3, 1);  // streamed
    }
}
