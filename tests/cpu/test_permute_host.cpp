// permute_host against the independent plain-loop reference: random ranks 1..16,
// extents with 1s and odd sizes, random axes, padded strides on both sides, every
// element size, conjugation; output padding must stay untouched.
#include <gtest/gtest.h>
#include <xpose/xpose.hpp>

#include <random>
#include <vector>

#include "permute_ref.hpp"
#include "test_util.hpp"

namespace {

using xpose_test::perm_case;

void check_case(const perm_case& c, bool conj, int threads, std::uint64_t seed) {
  const std::int64_t es = c.in.elem_size;
  const auto in = xpose_test::random_bytes(static_cast<std::size_t>(xpose_test::span_elems(c.in) * es), seed);
  const std::size_t out_bytes = static_cast<std::size_t>(xpose_test::span_elems(c.out) * es);
  std::vector<unsigned char> got(out_bytes, 0xFF), want(out_bytes, 0xFF);
  xpose_test::reference_permute(in.data(), want.data(), c.in, c.out, c.axes, conj);
  xpose::plan p;
  xpose::status s = xpose::make_plan(c.in, c.out, c.axes, c.in.rank, {conj}, &p);
  ASSERT_TRUE(s.ok()) << s.message();
  xpose::host_options ho;
  ho.threads = threads;
  s = xpose::execute_host(p, in.data(), got.data(), ho);
  ASSERT_TRUE(s.ok()) << s.message();
  for (std::size_t i = 0; i < out_bytes; ++i)
    ASSERT_EQ(got[i], want[i]) << "byte " << i << " rank " << c.in.rank << " es " << es << " algo "
                               << xpose::to_string(p.algo) << " seed " << seed;
}

// n extents drawn from lo .. lo + span - 1, each halved (down to at most `floor`) while the product would pass cap.
std::vector<std::int64_t> capped_extents(std::mt19937_64& g, int n, std::int64_t lo, std::int64_t span,
                                         std::int64_t floor, std::int64_t cap) {
  std::vector<std::int64_t> sh;
  std::int64_t prod = 1;
  for (int q = 0; q < n; ++q) {
    std::int64_t e = lo + static_cast<std::int64_t>(g() % static_cast<std::uint64_t>(span));
    while (e > floor && prod * e > cap) e /= 2;
    sh.push_back(e), prod *= e;
  }
  return sh;
}

TEST(PermuteHost, RandomRanksAxesStridesSizes) {
  std::mt19937_64 g(2026);
  const int sizes[] = {1, 2, 4, 8, 16};
  for (int iter = 0; iter < 600; ++iter) {
    const int rank = 1 + static_cast<int>(g() % 16);
    const int es = sizes[g() % 5];
    const bool padded = g() % 2;
    const perm_case c = xpose_test::random_case(g, rank, es, 6000, padded);
    const bool conj = (es == 8 || es == 16) && g() % 2;
    check_case(c, conj, 1 + static_cast<int>(g() % 2), iter);
  }
}

// Thin tiles: the fastest dims of both sides short (2-11 elements), swapped, with the dims behind them shuffled, so
// that the 2-D tiles would have a side of a few bytes and the CPU takes the span tile (a batch of 5 x 11
// transposes, for example); every element size, views of padded strides, one and two threads, sizes with
// partial span tiles.
TEST(PermuteHost, ThinTilesTakeTheSpanTile) {
  std::mt19937_64 g(5511);
  const int sizes[] = {1, 2, 4, 8, 16};
  for (int iter = 0; iter < 120; ++iter) {
    const int es = sizes[g() % 5], outer = 2 + static_cast<int>(g() % 4);
    std::vector<std::int64_t> sh = capped_extents(g, outer, 1, 41, 1, 3000);  // at most 3000 x 121 elements
    sh.push_back(2 + static_cast<std::int64_t>(g() % 10));
    sh.push_back(2 + static_cast<std::int64_t>(g() % 10));
    const int r = static_cast<int>(sh.size());
    perm_case c = xpose_test::shuffled_case(g, sh, es, outer - 1);  // outer dims shuffled
    std::swap(c.axes[r - 1], c.axes[r - 2]);                        // the two fastest swapped
    c.out = xpose::permuted_packed(c.in, c.axes, r);
    if (iter % 3 == 0) xpose_test::random_strides(c.in, g, false, false);
    const bool conj = (es == 8 || es == 16) && g() % 2;
    check_case(c, conj, 1 + iter % 2, 7000 + static_cast<std::uint64_t>(iter));
    if (HasFatalFailure()) return;
  }
}

// A batch of 7 x 11 blocks whose outer dims move too, so that the span tile's input runs (one block, 77 elements)
// are shorter than its output runs (blocks of consecutive batch entries): the CPU walks those tiles in the input's
// order, with cut dims and views of padded strides, every element size, one and two threads.
TEST(PermuteHost, SpanTilesInTheInputsOrder) {
  std::mt19937_64 g(7711);
  const int sizes[] = {1, 2, 4, 8, 16};
  for (int iter = 0; iter < 20; ++iter) {
    const int es = sizes[iter % 5];
    perm_case c = xpose_test::shuffled_case(g, {5 + iter % 4, 23 + iter, 41 - iter, 7, 11}, es, 0);
    const int axes[5] = {2, 0, 1, 4, 3};
    for (int k = 0; k < 5; ++k) c.axes[k] = axes[k];
    if (iter % 2) xpose_test::random_strides(c.in, g, false, false);
    c.out = xpose::permuted_packed(c.in, c.axes, 5);
    check_case(c, false, 1 + iter % 2, 7711 + static_cast<std::uint64_t>(iter));
    if (HasFatalFailure()) return;
  }
}

// Thin input sides (1-31 bytes: the input's fastest dim, 1-4 byte elements) against a long output side (the span
// tile or the 2-D tiles, by the thin-tile rule): the input's fastest dim k moves to the output's second fastest, a
// long dim (13-400) to the fastest; 1-3 shuffled outer dims, input views with padded strides, one and two threads.
TEST(PermuteHost, ThinInputSidesAgainstLongOutputRuns) {
  std::mt19937_64 g(1206);
  const int sizes[] = {1, 2, 4};
  for (int iter = 0; iter < 150; ++iter) {
    const int es = sizes[g() % 3], outer = 1 + static_cast<int>(g() % 3);
    const std::int64_t L = 13 + static_cast<std::int64_t>(g() % 388);                               // the output's fastest
    const std::int64_t k = 1 + static_cast<std::int64_t>(g() % static_cast<std::uint64_t>(32 / es - 1));  // the input's
    std::vector<std::int64_t> sh;
    std::int64_t n = L * k;
    for (int q = 0; q < outer; ++q) {
      std::int64_t e = 2 + static_cast<std::int64_t>(g() % 19);
      while (e > 1 && n * e > (1 << 21)) e /= 2;  // at most 2M elements
      sh.push_back(e), n *= e;
    }
    sh.push_back(L), sh.push_back(k);
    const int r = static_cast<int>(sh.size());
    perm_case c = xpose_test::shuffled_case(g, sh, es, outer - 1);
    std::swap(c.axes[r - 1], c.axes[r - 2]);
    c.out = xpose::permuted_packed(c.in, c.axes, r);
    if (iter % 3 == 0) xpose_test::random_strides(c.in, g, false, false);
    check_case(c, false, 1 + iter % 2, 12060 + static_cast<std::uint64_t>(iter));
    if (HasFatalFailure()) return;
  }
}

// Tiles over two or more dims a side whose fastest dim is short and no multiple of a micro-tile's edge (9 f16
// output rows evenly spaced, then a jump): such rows go through L1 (staged on the output side, gathered on the
// input side) so that the micro-tiles see the tile whole. 1-4 byte elements, extents 5-40, ranks 4-6, packed and
// padded inputs, one and two threads: every byte must land.
TEST(PermuteHost, RaggedRunsThroughL1) {
  std::mt19937_64 g(1207);
  const int sizes[] = {1, 2, 4};
  for (int iter = 0; iter < 120; ++iter) {
    const int es = sizes[g() % 3], r = 4 + static_cast<int>(g() % 3);
    const std::vector<std::int64_t> sh = capped_extents(g, r, 5, 36, 2, 1 << 20);  // at most 1M elements
    perm_case c = xpose_test::shuffled_case(g, sh, es);
    if (c.axes[r - 1] == r - 1) std::swap(c.axes[r - 1], c.axes[0]);
    c.out = xpose::permuted_packed(c.in, c.axes, r);
    if (iter % 4 == 0) xpose_test::random_strides(c.in, g, false, false);
    check_case(c, false, 1 + iter % 2, 12070 + static_cast<std::uint64_t>(iter));
    if (HasFatalFailure()) return;
  }
}

// Strided copies of kept rows of every width from 1 to 80 bytes (1-16 byte elements that divide it), the rows
// permuted over 2-3 outer dims so that the CPU moves them as tiles of whole rows: the widths no vector micro-tile
// moves (3, 5-7, 9-15, 17-31 bytes: one inline copy a row; 33 and more: overlapping 16-byte pieces) must land
// byte for byte, rows next to each other included (the overlapping pieces of a row stay inside it).
TEST(PermuteHost, KeptRowsOfEveryWidth) {
  std::mt19937_64 g(20261206);
  int moved = 0;
  for (int W = 1; W <= 80; ++W) {
    for (const int es : {1, 2, 4, 8, 16}) {
      if (W % es != 0 || (es > 1 && g() % 2 == 0)) continue;
      const int outer = 2 + static_cast<int>(g() % 2);
      std::vector<std::int64_t> sh;
      for (int k = 0; k < outer; ++k) sh.push_back(3 + static_cast<std::int64_t>(g() % 37));
      sh.push_back(W / es);
      perm_case c = xpose_test::shuffled_case(g, sh, es, outer - 1);  // the outer dims shuffled, the row kept
      if (c.axes[0] == 0 && c.axes[1] == 1) std::swap(c.axes[0], c.axes[1]);
      c.out = xpose::permuted_packed(c.in, c.axes, outer + 1);
      xpose::plan p;
      ASSERT_TRUE(xpose::make_plan(c.in, c.out, c.axes, outer + 1, {}, &p).ok());
      if (W > es) ASSERT_EQ(p.algo, xpose::algorithm::strided_copy) << "W " << W << " es " << es;  // rows of one element: no kept dim
      check_case(c, false, 1 + W % 2, 8000 + static_cast<std::uint64_t>(W * 16 + es));
      if (HasFatalFailure()) return;
      ++moved;
    }
  }
  EXPECT_GE(moved, 80);
}

// Kept rows with gaps between them on the input (a view's rows: pitch L + gap elements), which cannot tile: rows of
// at most 12 elements and 16 bytes take the span tile, longer ones the row loop; both sides of that line, every
// element size, one and two threads.
TEST(PermuteHost, GappedShortRowsBothPaths) {
  std::mt19937_64 g(20261207);
  int moved = 0;
  for (const int es : {1, 2, 4, 8, 16})
    for (int L = 1; L <= 20; ++L)
      for (int gap = 1; gap <= 3; gap += 2) {
        const std::int64_t sh[4] = {2 + static_cast<std::int64_t>(g() % 5), 3 + static_cast<std::int64_t>(g() % 9),
                                    5 + static_cast<std::int64_t>(g() % 23), L};
        perm_case c;
        c.in.rank = 4;
        c.in.elem_size = es;
        std::int64_t stride = 1;
        for (int k = 3; k >= 0; --k) {
          c.in.extents[k] = sh[k];
          c.in.strides[k] = stride;
          stride *= k == 3 ? L + gap : sh[k];
        }
        const int axes[4][4] = {{2, 0, 1, 3}, {1, 2, 0, 3}, {2, 1, 0, 3}, {0, 2, 1, 3}};
        for (int k = 0; k < 4; ++k) c.axes[k] = axes[(L + gap + es) % 4][k];
        c.out = xpose::permuted_packed(c.in, c.axes, 4);
        if (L > 1) {
          xpose::plan p;
          ASSERT_TRUE(xpose::make_plan(c.in, c.out, c.axes, 4, {}, &p).ok());
          ASSERT_EQ(p.algo, xpose::algorithm::strided_copy) << "L " << L << " es " << es;
        }
        check_case(c, false, 1 + (L + gap) % 2, 9000 + static_cast<std::uint64_t>(L * 64 + es * 4 + gap));
        if (HasFatalFailure()) return;
        ++moved;
      }
  EXPECT_EQ(moved, 5 * 20 * 2);
}

// Kept rows of 256 bytes and more into a packed output of 8 MiB and more (cpu::stream_min_bytes): each work item
// streams its piece of the output through cpu::stream_piece. Row lengths off the cache lines (the lines two rows share
// carried between them), on it, rows of one element-size less than a line multiple, a view's input rows (a gap) into
// the streamed output, a padded output (written with plain copies), one and two threads; every element size.
TEST(PermuteHost, StridedCopyStreamedRows) {
  int moved = 0;
  for (const int es : {1, 2, 4, 8, 16})
    for (const std::int64_t W : {256, 300, 1351 * 4, 4096 - 16}) {  // row bytes
      if (W % es != 0) continue;
      const std::int64_t L = W / es, rows = ((std::int64_t{9} << 20) / W) | 1;
      const std::int64_t a = 7, b = rows / 7 + 1;
      for (const int v : {0, 1, 2}) {  // packed; a view's input rows (a gap) into the streamed output; a padded output
        const int gap = v >= 1 ? 1 : 0;
        perm_case c;
        c.in.rank = 3;
        c.in.elem_size = es;
        c.in.extents[0] = a, c.in.extents[1] = b, c.in.extents[2] = L;
        c.in.strides[2] = 1, c.in.strides[1] = L + gap, c.in.strides[0] = b * (L + gap);
        c.axes[0] = 1, c.axes[1] = 0, c.axes[2] = 2;
        c.out = xpose::permuted_packed(c.in, c.axes, 3);
        if (v == 2) c.out.strides[1] = L + 1, c.out.strides[0] = a * (L + 1) + 3;  // padded output rows: no stream
        xpose::plan p;
        ASSERT_TRUE(xpose::make_plan(c.in, c.out, c.axes, 3, {}, &p).ok());
        ASSERT_EQ(p.algo, xpose::algorithm::strided_copy) << "W " << W << " es " << es;
        check_case(c, false, 1 + static_cast<int>((W + v) % 2), 9500 + static_cast<std::uint64_t>(W + es + v));
        if (HasFatalFailure()) return;
        ++moved;
      }
    }
  EXPECT_GE(moved, 45);
}

TEST(PermuteHost, EveryAlgorithmAtSize) {
  // Shapes large enough for the blocked slices and several threads.
  const xpose::index_t ext[4] = {36, 25, 40, 15};
  const int perms[][4] = {{2, 1, 3, 0}, {0, 1, 3, 2}, {1, 0, 2, 3}, {0, 1, 2, 3}, {3, 2, 1, 0}};
  for (int es : {1, 4, 16})
    for (const auto& a : perms) {
      perm_case c;
      c.in = xpose::layout::packed(4, ext, es);
      for (int k = 0; k < 4; ++k) c.axes[k] = a[k];
      c.out = xpose::permuted_packed(c.in, c.axes, 4);
      check_case(c, false, 2, 11);
    }
  const xpose::index_t big[3] = {3, 300, 280};
  perm_case c;
  c.in = xpose::layout::packed(3, big, 4);
  c.axes[0] = 2, c.axes[1] = 0, c.axes[2] = 1;
  c.out = xpose::permuted_packed(c.in, c.axes, 3);
  check_case(c, false, 2, 12);
  c.axes[0] = 1, c.axes[1] = 2, c.axes[2] = 0;
  c.out = xpose::permuted_packed(c.in, c.axes, 3);
  check_case(c, false, 2, 13);
}

// The tiled CPU paths at sizes with many tiles: short fastest dims packed with the next
// ones (tiles crossing group-digit boundaries on both sides, gathered input rows, staged
// and segmented output rows; groups of up to four dims), short kept rows as tile
// elements, and the same shapes padded (no packing), for every element size and both
// thread counts.
TEST(PermuteHost, TiledGroupsAtSize) {
  struct shape_axes {
    int rank;
    xpose::index_t ext[8];
    int axes[8];
  };
  const shape_axes cases[] = {
      {5, {6, 9, 7, 5, 28}, {4, 3, 2, 1, 0}},        // reversal, both sides fused
      {6, {3, 5, 4, 6, 5, 28}, {2, 0, 4, 1, 5, 3}},  // output run continues into A
      {4, {16, 9, 17, 96}, {3, 2, 1, 0}},            // B0 of 16 rows, segmented
      {6, {5, 6, 5, 7, 9, 16}, {4, 1, 0, 3, 2, 5}},  // strided copy of short kept rows
      {5, {7, 9, 10, 12, 11}, {1, 3, 2, 0, 4}},      // strided copy, odd kept rows
      {3, {62, 35, 38}, {2, 1, 0}},                  // 3-D reversal, B fused
      {7, {9, 3, 10, 2, 3, 2, 13}, {4, 6, 3, 5, 2, 0, 1}},  // A: 4 dims (13 2 3 2), B: 3 (3 9 10)
      {8, {3, 2, 5, 3, 4, 3, 7, 5}, {6, 3, 4, 2, 7, 0, 5, 1}},  // rank 8, every dim short
  };
  std::uint64_t seed = 40;
  for (const auto& sa : cases)
    for (int es : {1, 2, 4, 8, 16})
      for (int pad : {0, 3}) {
        perm_case c;
        c.in = xpose::layout::packed(sa.rank, sa.ext, es);
        for (int k = sa.rank - 2; k >= 0 && pad; --k) c.in.strides[k] = c.in.strides[k + 1] * sa.ext[k + 1] + pad;
        for (int k = 0; k < sa.rank; ++k) c.axes[k] = sa.axes[k];
        c.out = xpose::permuted_packed(c.in, c.axes, sa.rank);
        for (int k = sa.rank - 2; k >= 0 && pad; --k)
          c.out.strides[k] = c.out.strides[k + 1] * c.out.extents[k + 1] + pad;
        check_case(c, false, 1 + static_cast<int>(seed % 2), seed);
        ++seed;
      }
}

TEST(PermuteHost, PackedEntryMatchesReference) {
  const xpose::index_t ext[3] = {5, 6, 7};
  const xpose::layout in = xpose::layout::packed(3, ext, 2);
  const int axes[3] = {1, 2, 0};
  const auto src = xpose_test::random_bytes(210 * 2, 3);
  std::vector<unsigned char> got(420, 0xFF), want(420, 0xFF);
  ASSERT_TRUE(xpose::permute_host(src.data(), got.data(), in, axes, 3).ok());
  xpose_test::reference_permute(src.data(), want.data(), in, xpose::permuted_packed(in, axes, 3), axes, false);
  EXPECT_EQ(got, want);
}

TEST(PermuteHost, TransposeHostStillMatchesOracle) {
  xpose::matrix_desc d = xpose::matrix_desc::packed(33, 65, 8, 3);
  d.ld_in = 70, d.ld_out = 40, d.stride_in = 33 * 70 + 5, d.stride_out = 65 * 40 + 1;
  const std::size_t ni = static_cast<std::size_t>((2 * d.stride_in + 32 * 70 + 65) * 8);
  const std::size_t no = static_cast<std::size_t>((2 * d.stride_out + 64 * 40 + 33) * 8);
  const auto src = xpose_test::random_bytes(ni, 5);
  std::vector<unsigned char> got(no, 0xFF), want(no, 0xFF);
  ASSERT_TRUE(xpose::transpose_host(src.data(), got.data(), d).ok());
  ASSERT_TRUE(xpose::transpose_reference(src.data(), want.data(), d).ok());
  EXPECT_EQ(got, want);
}

}  // namespace
