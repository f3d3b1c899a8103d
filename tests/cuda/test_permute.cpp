// permute on the GPU against the independent plain-loop reference: random ranks
// 1..16, extents with 1s and odd sizes, random axes, padded strides, every element
// size, conjugation; 0xFF-poisoned outputs whose padding must survive; every
// algorithm of the planner, the 2-D path through plans, bad axes touching nothing.
#include <random>
#include <vector>

#include "cuda/nd/nd_route.hpp"
#include "cuda_test_util.hpp"
#include "permute_ref.hpp"
#include "test_util.hpp"

namespace {

using xpose_test::dev_buf;
using xpose_test::perm_case;

using xpose::detail::nd_kernel;
using xpose_test::shuffled_case;

// Runs one case on the device (input placed at byte offset `shift` elements to vary
// alignment) and compares every output byte, padding included, with the reference;
// *ran: the plan's algorithm, *kernel: the N-d kernel of its route (nd_route_of).
void check_gpu(const perm_case& c, bool conj, std::uint64_t seed, xpose::algorithm* ran = nullptr,
               std::int64_t shift = 0, nd_kernel* kernel = nullptr) {
  const std::int64_t es = c.in.elem_size;
  const std::size_t ni = static_cast<std::size_t>(xpose_test::span_elems(c.in) * es);
  const std::size_t no = static_cast<std::size_t>(xpose_test::span_elems(c.out) * es);
  const std::size_t off = static_cast<std::size_t>(shift * es);
  const auto in = xpose_test::random_bytes(ni, seed);
  std::vector<unsigned char> want(no, 0xFF), got(no, 0);
  xpose_test::reference_permute(in.data(), want.data(), c.in, c.out, c.axes, conj);
  dev_buf din(ni + off), dout(no + off);
  ASSERT_TRUE(din.p && dout.p);
  CUDA_OK(cudaMemcpy(din.p + off, in.data(), ni, cudaMemcpyHostToDevice));
  xpose::plan p;
  xpose::status s = xpose::make_plan(c.in, c.out, c.axes, c.in.rank, {conj}, &p);
  ASSERT_TRUE(s.ok()) << s.message();
  if (ran) *ran = p.algo;
  const nd_kernel k = xpose::detail::nd_route_of(p, din.p + off, dout.p + off).kernel;
  if (kernel) *kernel = k;
  CUDA_OK(cudaMemset(dout.p, 0xFF, no + off));
  s = xpose::execute(p, din.p + off, dout.p + off, nullptr);
  ASSERT_TRUE(s.ok()) << s.message();
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemcpy(got.data(), dout.p + off, no, cudaMemcpyDeviceToHost));
  if (got == want) return;  // one comparison; on a mismatch, the first differing byte
  for (std::size_t i = 0; i < no; ++i)
    ASSERT_EQ(got[i], want[i]) << "byte " << i << " rank " << c.in.rank << " es " << es << " algo "
                               << xpose::to_string(p.algo) << " seed " << seed << " kernel "
                               << xpose::detail::nd_kernel_name(k);
}

TEST(PermuteGpu, RandomRanksAxesStridesSizes) {
  REQUIRE_GPU();
  std::mt19937_64 g(17);
  const int sizes[] = {1, 2, 4, 8, 16};
  for (int iter = 0; iter < 800; ++iter) {
    const int rank = 1 + static_cast<int>(g() % 16);
    const int es = sizes[g() % 5];
    const perm_case c = xpose_test::random_case(g, rank, es, 20000, g() % 2);
    const bool conj = (es == 8 || es == 16) && g() % 2;
    check_gpu(c, conj, static_cast<std::uint64_t>(iter), nullptr, static_cast<std::int64_t>(g() % 3));
    if (HasFatalFailure()) return;
  }
}

TEST(PermuteGpu, EveryAlgorithmRuns) {
  REQUIRE_GPU();
  const xpose::index_t ext[4] = {96, 75, 96, 7};
  const int perms[][4] = {{2, 1, 3, 0}, {0, 1, 3, 2}, {1, 0, 2, 3}, {0, 1, 2, 3}, {3, 2, 1, 0}};
  const xpose::algorithm expect[] = {xpose::algorithm::permute_nd, xpose::algorithm::transpose_2d,
                                     xpose::algorithm::strided_copy, xpose::algorithm::copy,
                                     xpose::algorithm::permute_nd};
  for (int es : {1, 2, 4, 8, 16})
    for (int i = 0; i < 5; ++i) {
      perm_case c;
      c.in = xpose::layout::packed(4, ext, es);
      for (int k = 0; k < 4; ++k) c.axes[k] = perms[i][k];
      c.out = xpose::permuted_packed(c.in, c.axes, 4);
      xpose::algorithm ran{};
      check_gpu(c, false, 100 + static_cast<std::uint64_t>(i), &ran);
      EXPECT_EQ(ran, expect[i]) << "perm " << i << " es " << es;
      if (es >= 8) check_gpu(c, true, 200 + static_cast<std::uint64_t>(i));
    }
}

TEST(PermuteGpu, PackedEntryAndBadAxes) {
  REQUIRE_GPU();
  const xpose::index_t ext[3] = {33, 17, 65};
  const xpose::layout in = xpose::layout::packed(3, ext, 4);
  const int axes[3] = {2, 0, 1}, bad[3] = {2, 2, 1};
  const std::size_t bytes = 33 * 17 * 65 * 4;
  const auto src = xpose_test::random_bytes(bytes, 9);
  std::vector<unsigned char> want(bytes, 0xFF), got(bytes);
  xpose_test::reference_permute(src.data(), want.data(), in, xpose::permuted_packed(in, axes, 3), axes, false);
  dev_buf din(bytes), dout(bytes);
  ASSERT_TRUE(din.p && dout.p);
  CUDA_OK(cudaMemcpy(din.p, src.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(dout.p, 0xAB, bytes));
  EXPECT_EQ(xpose::permute(din.p, dout.p, in, bad, 3).code(), xpose::status_code::bad_axes);
  EXPECT_EQ(xpose::permute(din.p, dout.p, in, axes, 2).code(), xpose::status_code::bad_axes);
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemcpy(got.data(), dout.p, bytes, cudaMemcpyDeviceToHost));
  for (unsigned char b : got) ASSERT_EQ(b, 0xAB);
  ASSERT_TRUE(xpose::permute(din.p, dout.p, in, axes, 3).ok());
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemcpy(got.data(), dout.p, bytes, cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, want);
  std::vector<unsigned char> host(bytes);
  EXPECT_EQ(xpose::permute(src.data(), host.data(), in, axes, 3).code(), xpose::status_code::not_device_memory);
}

// TTC-like extents (48, 28, 15, 32, 112 and neighbours 47/49/144) with random axes:
// partial tiles of the vector and packed tiles, and the strided copy's short runs with
// 16-byte units and 4 units per thread (policy_nd.hpp).
TEST(PermuteGpu, TtcLikeShapesEveryTileClass) {
  REQUIRE_GPU();
  std::mt19937_64 g(57);
  const std::vector<std::vector<xpose::index_t>> shapes = {
      {28, 48, 28, 5, 48}, {48, 28, 3, 28, 48}, {15, 3, 32, 4, 15, 32}, {15, 5, 15, 3, 16},
      {5, 3, 112, 7, 32},  {144, 5, 47},        {49, 6, 96},            {48, 28, 28, 4, 32}};
  int nd = 0, copies = 0;
  for (const auto& sh : shapes)
    for (int es : {4, 8, 16, 2, 1})
      for (int perm = 0; perm < 4; ++perm) {
        const int r = static_cast<int>(sh.size());
        perm_case c = shuffled_case(g, sh, es, perm == 0 ? r - 2 : r - 1);  // perm 0 keeps the last axis: a strided copy
        if (perm == 0) std::swap(c.axes[0], c.axes[r - 2]);  // never the identity
        c.out = xpose::permuted_packed(c.in, c.axes, r);
        xpose::algorithm ran{};
        const bool conj = (es == 8 || es == 16) && perm % 2 == 1;
        check_gpu(c, conj, 300 + static_cast<std::uint64_t>(nd + copies), &ran, perm == 3 ? 1 : 0);
        if (HasFatalFailure()) return;
        nd += ran == xpose::algorithm::permute_nd;
        copies += ran == xpose::algorithm::strided_copy;
      }
  EXPECT_GT(nd, 40);
  EXPECT_GT(copies, 20);
}

// The packed tile (nd_ptile_kernel): ranks 2-8 of odd and prime extents, every element
// size (1-byte elements and odd extents always take it), conjugation, input views of
// shuffled padded strides, both pointers shifted by 0-3 elements (every alignment of a
// 4-byte word): what the vector tile cannot move.
TEST(PermuteGpu, PackedTileOddExtentsEveryShiftAndSize) {
  REQUIRE_GPU();
  std::mt19937_64 g(31);
  int nd = 0, packed = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const int es = 1 << (g() % 5), r = 2 + static_cast<int>(g() % 7);
    const perm_case c = xpose_test::prime_case(g, r, es, 200000);
    const bool conj = (es == 8 || es == 16) && g() % 2 == 0;
    xpose::algorithm ran{};
    nd_kernel k{};
    check_gpu(c, conj, 900 + static_cast<std::uint64_t>(iter), &ran, static_cast<std::int64_t>(iter % 4), &k);
    if (HasFatalFailure()) return;
    if (ran != xpose::algorithm::permute_nd) continue;
    ++nd;
    packed += k != nd_kernel::vtile;
    if (es == 1 || conj) EXPECT_NE(k, nd_kernel::vtile) << "iter " << iter;
  }
  EXPECT_GT(nd, 150);
  EXPECT_GT(packed, 100);
}

// The span tile on the plans its planner cuts: ranks 2-8 of prime extents up to 2^21 elements, 1-4 byte elements
// (the packed tile takes filled 8-16 byte ones), input views, shifted pointers; among them tiles with one and two cut
// dims and short last tiles along the cuts (the edge bits), every one checked bitwise.
TEST(PermuteGpu, SpanTileCutsAndShortLastTiles) {
  REQUIRE_GPU();
  std::mt19937_64 g(2026);
  int span = 0, one = 0, two = 0, short_tiles = 0;
  for (int iter = 0; iter < 160; ++iter) {
    const int es = 1 << (g() % 3), r = 2 + static_cast<int>(g() % 7);
    const perm_case c = xpose_test::prime_case(g, r, es, 1 << 21);
    const std::int64_t shift = static_cast<std::int64_t>(iter % 4);
    xpose::plan p;
    ASSERT_TRUE(xpose::make_plan(c.in, c.out, c.axes, r, {}, &p).ok());
    if (p.algo != xpose::algorithm::permute_nd) continue;
    const auto* at = reinterpret_cast<const unsigned char*>(std::uintptr_t{256}) + shift * es;  // as cudaMalloc + shift
    const xpose::detail::nd_route route = xpose::detail::nd_route_of(p, at, at);
    if (route.kernel != nd_kernel::span) continue;
    const xpose::detail::span_map m = xpose::detail::make_span_map<xpose::detail::span_map>(p, route.span);
    nd_kernel k{};
    check_gpu(c, false, 2600 + static_cast<std::uint64_t>(iter), nullptr, shift, &k);
    if (HasFatalFailure()) return;
    ASSERT_EQ(k, nd_kernel::span);
    ++span;
    one += m.ncut == 1, two += m.ncut == 2;
    for (int q = 0; q < m.outer_rank; ++q) short_tiles += m.short_at[q] != 0;
  }
  EXPECT_GT(span, 60);
  EXPECT_GT(one, 10);
  EXPECT_GT(two, 10);
  EXPECT_GT(short_tiles, 20);
}

// The span tile (nd_span_kernel) on short input-fastest groups (1-61 elements, one or two
// dims) directly followed in the input by the output's fastest dim (NHWC -> NCHW with
// C = 3, ...), every element size, conjugation, output views with gaps, both pointers
// shifted by 0-3 elements.
TEST(PermuteGpu, SpanTileShortInputFastestGroup) {
  REQUIRE_GPU();
  std::mt19937_64 g(47);
  static const xpose::index_t shorts[] = {1, 2, 3, 4, 5, 7, 8, 12, 13, 31, 61};
  static const xpose::index_t longs[] = {29, 125, 251, 1000, 1301, 4099, 20011};
  int span = 0;
  for (int iter = 0; iter < 200; ++iter) {
    const int es = 1 << (g() % 5);
    const xpose::index_t c = shorts[g() % 11], x = longs[g() % 7], n = 1 + static_cast<xpose::index_t>(g() % 5);
    const bool two = iter % 3 == 0 && c <= 13;  // a two-dim A group, its dims swapped on output
    std::vector<xpose::index_t> ext = two ? std::vector<xpose::index_t>{n, x, c, 2} : std::vector<xpose::index_t>{n, x, c};
    const std::vector<int> axes = two ? std::vector<int>{0, 3, 2, 1} : std::vector<int>{0, 2, 1};
    const int r = static_cast<int>(ext.size());
    perm_case pc;
    pc.in = xpose::layout::packed(r, ext.data(), es);
    for (int q = 0; q < r; ++q) pc.axes[q] = axes[static_cast<std::size_t>(q)];
    pc.out = xpose::permuted_packed(pc.in, pc.axes, r);
    if (iter % 2) xpose_test::random_strides(pc.out, g, false, iter % 4 == 1);
    const bool conj = (es == 8 || es == 16) && g() % 2 == 0;
    nd_kernel k{};
    check_gpu(pc, conj, 1700 + static_cast<std::uint64_t>(iter), nullptr, static_cast<std::int64_t>(iter % 4), &k);
    if (HasFatalFailure()) return;
    span += k == nd_kernel::span;
  }
  EXPECT_GT(span, 30);  // of the 90 permute_nd plans (the rest: 2-D transposes, the vector and packed tiles)
}

// Strided copies of kept rows under 128 bytes (1-127 bytes of every element size) run bitwise exact, those in
// 1-4 byte units on the span tile in row units: ranks 3-6 of odd extents, input views whose rows lie back to back or apart, conjugation, output views
// with gaps after the output's two fastest dims, both pointers shifted by 0-3 elements.
TEST(PermuteGpu, ShortKeptRowsTakeTheSpanTile) {
  REQUIRE_GPU();
  std::mt19937_64 g(53);
  int taken = 0;
  for (int iter = 0; iter < 300; ++iter) {
    const int es = 1 << (g() % 5), r = 3 + static_cast<int>(g() % 4);
    std::vector<xpose::index_t> ext(static_cast<std::size_t>(r));
    xpose::index_t n = 1;
    for (int q = 0; q < r; ++q) {
      ext[static_cast<std::size_t>(q)] = 1 + static_cast<xpose::index_t>(g() % (q == r - 1 ? 127 / es : 61));
      n *= ext[static_cast<std::size_t>(q)];
    }
    if (n > 2000000) continue;
    perm_case c;
    c.in = xpose::layout::packed(r, ext.data(), es);
    if (iter % 4 == 3) {  // rows apart: a parent grown on the rows' dim and one other
      xpose::index_t st = 1;
      for (int q = r - 1; q >= 0; --q)
        c.in.strides[q] = st, st *= ext[static_cast<std::size_t>(q)] + (q == r - 1 || q == 0 ? 1 + static_cast<xpose::index_t>(g() % 3) : 0);
    }
    for (int q = 0; q < r; ++q) c.axes[q] = q;
    for (int q = r - 2; q > 0; --q) std::swap(c.axes[q], c.axes[g() % (q + 1)]);  // the last axis kept
    c.out = xpose::permuted_packed(c.in, c.axes, r);
    if (iter % 3 == 1) {
      c.out.strides[r - 3] += static_cast<xpose::index_t>(1 + g() % 5);
      for (int q = r - 4; q >= 0; --q) c.out.strides[q] = c.out.strides[q + 1] * c.out.extents[q + 1];
    }
    const bool conj = (es == 8 || es == 16) && g() % 2 == 0;
    xpose::plan p;
    if (!xpose::make_plan(c.in, c.out, c.axes, r, {conj}, &p).ok()) continue;
    nd_kernel k{};
    check_gpu(c, conj, 2100 + static_cast<std::uint64_t>(iter), nullptr, iter % 4, &k);
    if (HasFatalFailure()) return;
    taken += k == nd_kernel::span;
  }
  EXPECT_GT(taken, 30);  // 1-4 byte units; 8-16 byte ones keep the row tile and the element copy
}

// The vector tile on TTC-like shapes (its short-B shapes among them), every element
// size, aligned pointers and pointers shifted by one element (which, like 1-byte
// elements and conjugation, take the packed tile).
TEST(PermuteGpu, VectorTileOnTtcLikeShapes) {
  REQUIRE_GPU();
  std::mt19937_64 g(91);
  const std::vector<std::vector<xpose::index_t>> shapes = {
      {28, 48, 7, 5, 48}, {48, 28, 3, 7, 48}, {15, 3, 32, 4, 5, 32}, {5, 3, 112, 7, 32},
      {96, 5, 75, 8},     {384, 5, 384},      {16, 3, 64, 7, 24},    {32, 15, 15, 5, 3, 32}};
  int ran = 0, other = 0, short_b = 0, iter = 0;
  for (const auto& sh : shapes)
    for (int es : {4, 8, 2, 16, 1})
      for (int perm = 0; perm < 4; ++perm, ++iter) {
        const int r = static_cast<int>(sh.size());
        perm_case c = shuffled_case(g, sh, es, r - 1);
        if (c.axes[r - 1] == r - 1) std::swap(c.axes[r - 1], c.axes[0]);  // a permute_nd, not a strided copy
        c.out = xpose::permuted_packed(c.in, c.axes, r);
        const bool shifted = perm == 3, conj = es >= 8 && perm == 2;
        xpose::algorithm algo{};
        nd_kernel k{};
        check_gpu(c, conj, 500 + static_cast<std::uint64_t>(iter), &algo, shifted ? 1 : 0, &k);
        if (HasFatalFailure()) return;
        if (algo != xpose::algorithm::permute_nd) continue;
        if ((shifted && es < 16) || es == 1 || conj) EXPECT_NE(k, nd_kernel::vtile) << "es " << es;
        (k == nd_kernel::vtile ? ran : other)++;
        xpose::plan p;
        ASSERT_TRUE(xpose::make_plan(c.in, c.out, c.axes, r, {}, &p).ok());
        short_b += k == nd_kernel::vtile && xpose::detail::nd_vtile_choice(p).v >= 3;
      }
  EXPECT_GT(ran, 40);
  EXPECT_GT(other, 40);
  EXPECT_GT(short_b, 3);
}

// The run tile (strided copies whose kept run is 16 to 128 bytes): TTC-like short runs,
// every element size (16-byte elements in runs of 16 are too long and take the element
// copy), aligned and shifted pointers.
TEST(PermuteGpu, RunTileOnShortRuns) {
  REQUIRE_GPU();
  std::mt19937_64 g(93);
  const std::vector<std::vector<xpose::index_t>> shapes = {
      {15, 5, 32, 3, 32, 16}, {15, 3, 103, 5, 10, 16}, {7, 33, 5, 16}, {28, 3, 28, 48, 4}, {100, 3, 65, 8}};
  int copies = 0, ran = 0, halves = 0;
  for (const auto& sh : shapes)
    for (int es : {4, 2, 1, 8, 16})
      for (int perm = 0; perm < 3; ++perm) {
        const int r = static_cast<int>(sh.size());
        perm_case c = shuffled_case(g, sh, es, r - 2);
        if (c.axes[r - 2] == r - 2) std::swap(c.axes[r - 2], c.axes[0]);  // the run alone is kept
        c.out = xpose::permuted_packed(c.in, c.axes, r);
        xpose::algorithm algo{};
        nd_kernel k{};
        check_gpu(c, false, 900 + static_cast<std::uint64_t>(copies), &algo, perm == 2 ? 1 : 0, &k);
        if (HasFatalFailure()) return;
        if (algo != xpose::algorithm::strided_copy) continue;
        ++copies;
        xpose::plan p;
        ASSERT_TRUE(xpose::make_plan(c.in, c.out, c.axes, r, {}, &p).ok());
        ran += k == nd_kernel::run_tile;
        if (perm == 2 && es < 16) EXPECT_NE(k, nd_kernel::run_tile);
        halves += k == nd_kernel::run_tile && xpose::detail::nd_route_of(p, nullptr, nullptr).half;
      }
  EXPECT_GT(copies, 50);
  EXPECT_GT(ran, 10);
  EXPECT_GT(halves, 2);  // the half tile ran
}

// Free device memory in GiB (the large cases skip below their need).
std::size_t free_gib() {
  size_t free_b = 0, total_b = 0;
  return cudaMemGetInfo(&free_b, &total_b) == cudaSuccess ? free_b >> 30 : 0;
}

// A packed rank-3 one-byte case too large for 32-bit indices; returns the algorithm that ran.
xpose::algorithm check_large(const xpose::index_t (&ext)[3], const int (&axes)[3], std::uint64_t seed) {
  perm_case c;
  c.in = xpose::layout::packed(3, ext, 1);
  for (int k = 0; k < 3; ++k) c.axes[k] = axes[k];
  c.out = xpose::permuted_packed(c.in, c.axes, 3);
  xpose::algorithm ran{};
  check_gpu(c, false, seed, &ran);
  return ran;
}

// Strided copies (the row stream where row_stream_takes, else the row tile, the run
// tile and the element copy): random kept rows of 1-700 elements of
// every size, so rows of every length mod 16 and every realignment shift (the input and
// output placed at independent element offsets), padded strides on both sides (views),
// ranks 2-6 with the kept dim fused or not.
TEST(PermuteGpu, RowStreamRandomRowsShiftsViews) {
  REQUIRE_GPU();
  std::mt19937_64 g(31);
  const int sizes[] = {1, 2, 4, 8, 16};
  int strided = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const int es = sizes[g() % 5], rank = 2 + static_cast<int>(g() % 5);
    std::vector<xpose::index_t> sh(static_cast<std::size_t>(rank));
    for (auto& e : sh) e = 1 + static_cast<xpose::index_t>(g() % 9);
    sh.back() = 1 + static_cast<xpose::index_t>(g() % 700);
    perm_case c = shuffled_case(g, sh, es, rank - 2);  // the last axis kept
    const bool view = g() % 2;
    if (view) {  // padded input strides
      xpose::index_t st = 1;
      for (int k = rank - 1; k >= 0; --k) c.in.strides[k] = st, st *= sh[static_cast<std::size_t>(k)] + static_cast<xpose::index_t>(g() % 3);
    }
    c.out = xpose::permuted_packed(c.in, c.axes, rank);
    if (g() % 2) {  // padded output rows
      xpose::index_t st = 1;
      for (int k = rank - 1; k >= 0; --k) c.out.strides[k] = st, st *= c.out.extents[k] + static_cast<xpose::index_t>(g() % 3);
    }
    xpose::algorithm ran{};
    check_gpu(c, false, static_cast<std::uint64_t>(iter), &ran, static_cast<std::int64_t>(g() % 17));
    if (HasFatalFailure()) return;
    EXPECT_NE(ran, xpose::algorithm::permute_nd) << "iter " << iter;  // fused packed cases are copies
    strided += ran == xpose::algorithm::strided_copy;
  }
  EXPECT_GT(strided, 300);
}

// Contiguous copies between pointers that differ modulo 16 bytes, one of them off the 4-byte grid, run the row
// stream over their one row (copy_takes_row_stream); the others cudaMemcpyAsync. Sizes about the 1 MiB threshold,
// every element size, input and output offsets drawn apart; every output byte equal, the bytes beside it untouched.
TEST(PermuteGpu, CopyBetweenPointersApartModulo16) {
  REQUIRE_GPU();
  std::mt19937_64 g(91);
  const int sizes[] = {1, 2, 4, 8, 16};
  int realigned = 0;
  for (int iter = 0; iter < 60; ++iter) {
    const int es = sizes[g() % 5];
    const std::size_t n = ((std::size_t{1} << 20) - 64 + g() % (3 << 19)) / static_cast<std::size_t>(es);
    const std::size_t bytes = n * static_cast<std::size_t>(es);
    const std::size_t oi = (g() % 16) / static_cast<std::size_t>(es) * static_cast<std::size_t>(es);
    const std::size_t oo = (g() % 16) / static_cast<std::size_t>(es) * static_cast<std::size_t>(es);
    const auto in = xpose_test::random_bytes(bytes, static_cast<std::uint64_t>(iter));
    dev_buf din(bytes + 32), dout(bytes + 64);
    ASSERT_TRUE(din.p && dout.p);
    CUDA_OK(cudaMemcpy(din.p + oi, in.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(dout.p, 0xA5, bytes + 64));
    const xpose::index_t ext[1] = {static_cast<xpose::index_t>(n)};
    const xpose::layout l = xpose::layout::packed(1, ext, es);
    const int axes[1] = {0};
    xpose::plan p;
    ASSERT_TRUE(xpose::make_plan(l, l, axes, 1, {}, &p).ok());
    ASSERT_EQ(p.algo, xpose::algorithm::copy);
    realigned += xpose::detail::copy_takes_row_stream(static_cast<xpose::index_t>(bytes), din.p + oi, dout.p + 16 + oo);
    ASSERT_TRUE(xpose::execute(p, din.p + oi, dout.p + 16 + oo, nullptr).ok());
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<unsigned char> got(bytes + 64);
    CUDA_OK(cudaMemcpy(got.data(), dout.p, bytes + 64, cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < bytes + 64; ++i) {
      const bool inside = i >= 16 + oo && i < 16 + oo + bytes;
      ASSERT_EQ(got[i], inside ? in[i - 16 - oo] : 0xA5) << "byte " << i << " iter " << iter << " es " << es;
    }
  }
  EXPECT_GT(realigned, 10);
}

TEST(PermuteGpu, LargeCountBeyondThirtyTwoBits) {
  REQUIRE_GPU();
  // 2^31 + 2^21 one-byte elements, a rank-3 permute_nd: 64-bit offsets in the packed tile's map.
  if (free_gib() < 5) GTEST_SKIP() << "needs 5 GiB of free device memory";
  EXPECT_EQ(check_large({2, 1025, 1 << 20}, {2, 1, 0}, 77), xpose::algorithm::permute_nd);
}

// 3 x 5 x 2^28 one-byte elements reversed: the span tile holds the output's fastest dim (3, input stride
// 5 * 2^28), so its tile offsets pass 2^31 and it runs with 64-bit slot offsets (span_offsets_fit32).
TEST(PermuteGpu, SpanTileBeyondThirtyTwoBitTileOffsets) {
  REQUIRE_GPU();
  if (free_gib() < 10) GTEST_SKIP() << "needs 10 GiB of free device memory";
  const xpose::index_t ext[3] = {3, 5, xpose::index_t{1} << 28};
  const xpose::layout in = xpose::layout::packed(3, ext, 1);
  const int axes[3] = {2, 1, 0};
  xpose::plan p;
  ASSERT_TRUE(xpose::make_plan(in, xpose::permuted_packed(in, axes, 3), axes, 3, {}, &p).ok());
  const xpose::detail::nd_route r = xpose::detail::nd_route_of(p, nullptr, nullptr);
  ASSERT_EQ(r.kernel, nd_kernel::span);
  EXPECT_FALSE(xpose::detail::span_offsets_fit32(p, r.span));
  EXPECT_EQ(check_large({3, 5, 1 << 28}, {2, 1, 0}, 80), xpose::algorithm::permute_nd);
}

// 2^32 + 2 one-byte elements in a strided copy of 6 odd rows of 715827883 bytes: the row
// stream's 64-bit byte offsets (row_map, nd_map.hpp), about 350,000 slices a row.
TEST(PermuteGpu, StridedCopyBeyondThirtyTwoBitUnits) {
  REQUIRE_GPU();
  if (free_gib() < 10) GTEST_SKIP() << "needs 10 GiB of free device memory";
  EXPECT_EQ(check_large({2, 3, 715827883}, {1, 0, 2}, 78), xpose::algorithm::strided_copy);
}

// 2-byte elements, more than 2^32 bytes per buffer, under the vector tile: 64-bit
// offsets with the 32-bit divisors (vtile_fits32), packed B side (8 x 1025).
TEST(PermuteGpu, VectorTileBeyondThirtyTwoBitOffsets) {
  REQUIRE_GPU();
  if (free_gib() < 10) GTEST_SKIP() << "needs 10 GiB of free device memory";
  perm_case c;
  const xpose::index_t ext[3] = {8, 1025, 1 << 18};
  c.in = xpose::layout::packed(3, ext, 2);
  c.axes[0] = 2, c.axes[1] = 1, c.axes[2] = 0;
  c.out = xpose::permuted_packed(c.in, c.axes, 3);
  nd_kernel k{};
  check_gpu(c, false, 79, nullptr, 0, &k);
  EXPECT_EQ(k, nd_kernel::vtile);
}

}  // namespace
