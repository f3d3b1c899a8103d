// make_plan: normalisation (unit dims, fusion, ordering), classification (which
// algorithm runs), every bad-input status, and untouched outputs on rejection.
#include <gtest/gtest.h>
#include <xpose/xpose.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "core/fast_div.hpp"
#include "permute_ref.hpp"

namespace {

using xpose::algorithm;
using xpose::index_t;
using xpose::layout;
using xpose::plan;
using xpose::status_code;

layout packed(std::initializer_list<index_t> ext, int es = 4) {
  std::vector<index_t> e(ext);
  return layout::packed(static_cast<int>(e.size()), e.data(), es);
}

plan plan_of(const layout& in, std::initializer_list<int> ax, xpose::plan_options o = {}) {
  std::vector<int> a(ax);
  plan p;
  const xpose::status s =
      xpose::make_plan(in, xpose::permuted_packed(in, a.data(), static_cast<int>(a.size())), a.data(),
                       static_cast<int>(a.size()), o, &p);
  EXPECT_TRUE(s.ok()) << s.message();
  return p;
}

TEST(Plan, IdentityIsOneCopy) {
  const plan p = plan_of(packed({2, 3, 4, 5}), {0, 1, 2, 3});
  EXPECT_EQ(p.algo, algorithm::copy);
  EXPECT_EQ(p.out.rank, 1);
  EXPECT_EQ(p.count, 120);
}

TEST(Plan, SwapLastTwoIsBatchedTranspose) {
  const plan p = plan_of(packed({2, 3, 4, 5}), {0, 1, 3, 2});
  ASSERT_EQ(p.algo, algorithm::transpose_2d);
  EXPECT_EQ(p.desc.batch, 6);
  EXPECT_EQ(p.desc.rows, 4);
  EXPECT_EQ(p.desc.cols, 5);
  EXPECT_EQ(p.desc.ld_in, 5);
  EXPECT_EQ(p.desc.ld_out, 4);
  EXPECT_EQ(p.desc.stride_in, 20);
  EXPECT_EQ(p.desc.stride_out, 20);
}

TEST(Plan, UnitDimsDropAndFuse) {
  const plan p = plan_of(packed({1, 5, 1, 7}), {3, 2, 1, 0});
  ASSERT_EQ(p.algo, algorithm::transpose_2d);
  EXPECT_EQ(p.out.rank, 2);
  EXPECT_EQ(p.desc.rows, 5);
  EXPECT_EQ(p.desc.cols, 7);
  EXPECT_EQ(p.desc.batch, 1);
  // (4,5,6) -> (6,4,5): dims 0 and 1 stay adjacent on both sides: a 20 x 6 transpose.
  const plan q = plan_of(packed({4, 5, 6}), {2, 0, 1});
  ASSERT_EQ(q.algo, algorithm::transpose_2d);
  EXPECT_EQ(q.desc.rows, 20);
  EXPECT_EQ(q.desc.cols, 6);
}

TEST(Plan, KeptFastestDimIsStridedCopy) {
  const plan p = plan_of(packed({2, 3, 4, 5}), {1, 0, 2, 3});
  EXPECT_EQ(p.algo, algorithm::strided_copy);
  EXPECT_EQ(p.out.rank, 3);
  EXPECT_EQ(p.out.extents[2], 20);
}

TEST(Plan, GeneralPermutationIsNd) {
  const plan p = plan_of(packed({96, 75, 96, 75}), {2, 1, 3, 0});
  EXPECT_EQ(p.algo, algorithm::permute_nd);
  EXPECT_EQ(p.out.rank, 4);
  EXPECT_STREQ(xpose::to_string(p.algo), "permute_nd");
}

TEST(Plan, NullAxesReverse) {
  const layout in = packed({3, 4, 5});
  plan p;
  ASSERT_TRUE(xpose::make_plan(in, xpose::permuted_packed(in, nullptr, 0), nullptr, 0, {}, &p).ok());
  EXPECT_EQ(p.algo, algorithm::permute_nd);
  EXPECT_EQ(p.count, 60);
}

TEST(Plan, ConjugationNeverTakesTheUnconjugatedPaths) {
  EXPECT_EQ(plan_of(packed({8, 9}, 8), {1, 0}, {true}).algo, algorithm::permute_nd);
  EXPECT_EQ(plan_of(packed({8, 9}, 16), {0, 1}, {true}).algo, algorithm::strided_copy);
  EXPECT_EQ(plan_of(packed({}, 8), {}, {true}).algo, algorithm::strided_copy);
}

TEST(Plan, MatrixDescBroadcastStaysTwoD) {
  xpose::matrix_desc d = xpose::matrix_desc::packed(3, 4, 4, 5);
  d.stride_in = 0;
  const int axes[3] = {0, 2, 1};
  plan p;
  ASSERT_TRUE(xpose::make_plan(layout::matrix_in(d), layout::matrix_out(d), axes, 3, {}, &p).ok());
  ASSERT_EQ(p.algo, algorithm::transpose_2d);
  EXPECT_EQ(p.desc.batch, 5);
  EXPECT_EQ(p.desc.stride_in, 0);
}

TEST(Plan, EmptyIsEmpty) {
  EXPECT_EQ(plan_of(packed({3, 0, 5}), {2, 1, 0}).algo, algorithm::empty);
}

xpose::status try_plan(const layout& in, const layout& out, const int* axes, int n, xpose::plan_options o = {}) {
  plan p;
  p.count = 12345;  // sentinel: a rejected plan must stay untouched
  const xpose::status s = xpose::make_plan(in, out, axes, n, o, &p);
  if (!s.ok()) EXPECT_EQ(p.count, 12345);
  return s;
}

TEST(Plan, BadAxesAreNamed) {
  const layout in = packed({2, 3, 4});
  const layout out = packed({4, 3, 2});
  const int repeated[3] = {2, 2, 0}, range[3] = {2, 1, 3}, negative[3] = {2, -1, 0}, good[3] = {2, 1, 0};
  EXPECT_EQ(try_plan(in, out, repeated, 3).code(), status_code::bad_axes);
  EXPECT_EQ(try_plan(in, out, range, 3).code(), status_code::bad_axes);
  EXPECT_EQ(try_plan(in, out, negative, 3).code(), status_code::bad_axes);
  EXPECT_EQ(try_plan(in, out, good, 2).code(), status_code::bad_axes);
  EXPECT_EQ(try_plan(in, out, good, 4).code(), status_code::bad_axes);
  EXPECT_TRUE(try_plan(in, out, good, 3).ok());
}

TEST(Plan, BadLayoutsAreNamed) {
  const int axes[3] = {2, 1, 0};
  layout in = packed({2, 3, 4}), out = packed({4, 3, 2});
  EXPECT_EQ(try_plan(in, packed({4, 3, 3}), axes, 3).code(), status_code::shape_mismatch);
  EXPECT_EQ(try_plan(in, packed({4, 3}), axes, 3).code(), status_code::bad_rank);
  layout big = in;
  big.rank = 17;
  EXPECT_EQ(try_plan(big, out, axes, 3).code(), status_code::bad_rank);
  layout neg = in;
  neg.strides[1] = -1;
  EXPECT_EQ(try_plan(neg, out, axes, 3).code(), status_code::negative_size);
  layout es = in;
  es.elem_size = 3;
  EXPECT_EQ(try_plan(es, out, axes, 3).code(), status_code::unsupported_elem_size);
  EXPECT_EQ(try_plan(in, packed({4, 3, 2}, 8), axes, 3).code(), status_code::unsupported_elem_size);
  layout self = out;
  self.strides[0] = 1;  // output dims 0 and 2 collide
  EXPECT_EQ(try_plan(in, self, axes, 3).code(), status_code::overlapping_output);
  layout huge = packed({index_t{1} << 40, index_t{1} << 30, 4});
  EXPECT_EQ(try_plan(huge, packed({4, index_t{1} << 30, index_t{1} << 40}), axes, 3).code(),
            status_code::size_overflow);
  EXPECT_EQ(try_plan(in, out, axes, 3, {true}).code(), status_code::invalid_argument);
}

TEST(Plan, ExecuteRejectsBadPointersWithoutWriting) {
  const layout in = packed({6, 7});
  const int axes[2] = {1, 0};
  plan p;
  ASSERT_TRUE(xpose::make_plan(in, xpose::permuted_packed(in, axes, 2), axes, 2, {}, &p).ok());
  std::vector<float> buf(200, 1.0f), dst(42, 7.0f);
  EXPECT_EQ(xpose::execute_host(p, nullptr, dst.data(), {}).code(), status_code::null_pointer);
  EXPECT_EQ(xpose::execute_host(p, buf.data(), buf.data() + 10, {}).code(), status_code::overlap);
  EXPECT_EQ(xpose::execute_host(p, reinterpret_cast<const char*>(buf.data()) + 1, dst.data(), {}).code(),
            status_code::misaligned);
  for (float v : dst) ASSERT_EQ(v, 7.0f);
  EXPECT_EQ(xpose::permute_host(buf.data(), dst.data(), in, axes, 3).code(), status_code::bad_axes);
  for (float v : dst) ASSERT_EQ(v, 7.0f);
}

TEST(FastDiv, MatchesDivision) {
  std::mt19937_64 g(7);
  const std::uint64_t ds[] = {1, 2, 3, 5, 7, 10, 75, 96, 641, 65535, 65536, 1000003, (1ull << 32) + 1,
                              (1ull << 63) - 1, 1ull << 63, ~0ull};
  for (std::uint64_t d : ds) {
    const xpose::detail::fast_div f(d);
    for (int i = 0; i < 20000; ++i) {
      const std::uint64_t n = i < 1000 ? static_cast<std::uint64_t>(i) : i % 2 ? g() : g() >> (g() % 64);
      std::uint64_t rem = 0;
      ASSERT_EQ(f.divmod(n, &rem), n / d) << n << " / " << d;
      ASSERT_EQ(rem, n % d);
    }
    ASSERT_EQ(f.div(~0ull), ~0ull / d);
  }
}

TEST(FastDiv32, MatchesDivision) {
  std::mt19937_64 g(9);
  const std::uint32_t ds[] = {1, 2, 3, 5, 7, 10, 15, 28, 48, 75, 96, 112, 641, 65535, 65536, 65537, 1000003,
                              (1u << 31) - 1, 1u << 31, (1u << 31) + 1, ~0u - 1, ~0u};
  for (std::uint32_t d : ds) {
    const xpose::detail::fast_div32 f(d);
    for (int i = 0; i < 50000; ++i) {
      const std::uint32_t n = i < 2000   ? static_cast<std::uint32_t>(i)
                              : i < 4000 ? ~0u - static_cast<std::uint32_t>(i - 2000)
                              : static_cast<std::uint32_t>(g() >> (32 + g() % 32));
      std::uint32_t rem = 0;
      ASSERT_EQ(f.divmod(n, &rem), n / d) << n << " / " << d;
      ASSERT_EQ(rem, n % d);
    }
    for (std::uint32_t k = 1; k < 64; ++k) {  // around multiples of d
      const std::uint64_t m = static_cast<std::uint64_t>(d) * k;
      for (std::uint64_t n : {m - 1, m, m + 1})
        if (n <= 0xffffffffu) ASSERT_EQ(f.div(static_cast<std::uint32_t>(n)), static_cast<std::uint32_t>(n) / d);
    }
  }
  for (int i = 0; i < 200000; ++i) {  // random divisors
    const auto d = std::max<std::uint32_t>(1u, static_cast<std::uint32_t>(g() >> (32 + g() % 32)));
    const auto n = static_cast<std::uint32_t>(g());
    ASSERT_EQ(xpose::detail::fast_div32(d).div(n), n / d) << n << " / " << d;
  }
}

}  // namespace
