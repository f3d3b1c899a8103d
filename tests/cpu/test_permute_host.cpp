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
