// Regressions found by the reliability work (fuzzer, sanitizers, hostile
// inputs), one test each, named after what broke. docs/RELIABILITY.md lists them.
#include <xpose/registry.hpp>

#include <climits>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "test_util.hpp"

using namespace xpose_test;

// UBSan (sanitize preset): matrix_desc::packed computed rows * cols in signed 64-bit
// arithmetic, so a hostile size was undefined behaviour in the public header before
// validation could reject it. A constant expression may not overflow: this compiles
// only while packed() is free of signed overflow.
TEST(Regression, PackedDescOfOverflowingSizeIsNotUndefined) {
  constexpr index_t huge = index_t{1} << 40;
  constexpr matrix_desc d = matrix_desc::packed(huge, huge, 4);
  static_assert(d.rows == huge && d.cols == huge, "packed keeps the sizes");
  alignas(16) unsigned char in[64] = {}, out[64] = {};
  EXPECT_EQ(xpose::validate(in, out, d).code(), xpose::status_code::size_overflow);
  EXPECT_EQ(xpose::transpose_host(in, out, d).code(), xpose::status_code::size_overflow);
  const matrix_desc e = matrix_desc::packed(INT64_MAX, 3, 1);
  EXPECT_EQ(xpose::transpose_reference(in, out, e).code(), xpose::status_code::size_overflow);
}

// ---------------------------------------------------------------------------
// Hardening
// ---------------------------------------------------------------------------

namespace {
// A 3x5 f32 transpose whose output must stay all 0xFF when the call is rejected.
struct small_case {
  std::vector<float> in = std::vector<float>(15);
  std::vector<float> out = std::vector<float>(15);
  small_case() {
    for (int i = 0; i < 15; ++i) in[static_cast<std::size_t>(i)] = static_cast<float>(i);
    std::memset(out.data(), 0xFF, out.size() * sizeof(float));
  }
  bool untouched() const {
    for (float f : out) {
      unsigned u = 0;
      std::memcpy(&u, &f, 4);
      if (u != 0xFFFFFFFFu) return false;
    }
    return true;
  }
};
}  // namespace

// libgomp exited (40,000 threads), crashed (100,000) or tried to allocate 481 GB
// (2^31-1) when host_options.threads reached `omp parallel num_threads` unchecked.
TEST(Regression, AbsurdThreadCountsAreAStatus) {
  for (int t : {-1, -1000, xpose::max_host_threads() + 1, 40000, 100000, INT32_MAX, INT32_MIN}) {
    small_case c;
    const xpose::status s = xpose::transpose_host(c.in.data(), c.out.data(), matrix_desc::packed(3, 5, 4), {t});
    EXPECT_EQ(s.code(), xpose::status_code::invalid_argument) << t;
    EXPECT_TRUE(c.untouched()) << t;
    EXPECT_EQ(xpose::host_threads(t), 0) << t;
  }
  small_case c;
  EXPECT_TRUE(xpose::transpose_host(c.in.data(), c.out.data(), matrix_desc::packed(3, 5, 4),
                                    {xpose::max_host_threads()}).ok());
  EXPECT_EQ(c.out[1], 5.0f);
  EXPECT_GE(xpose::max_host_threads(), 256);
}

// OMP_NUM_THREADS=100000 set the default (threads = 0) that went unchecked to libgomp.
// omp_set_num_threads sets the same variable the environment does.
TEST(Regression, HugeOpenMpDefaultIsClamped) {
#if defined(_OPENMP)
  const int before = omp_get_max_threads();
  omp_set_num_threads(100000);
  const int used = xpose::host_threads(0);
  small_case c;
  const xpose::status s = xpose::transpose_host(c.in.data(), c.out.data(), matrix_desc::packed(3, 5, 4));
  omp_set_num_threads(before);
  EXPECT_EQ(used, xpose::max_host_threads());
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(c.out[1], 5.0f);
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
}

// validate() accepted ld_in up to INT64_MAX with one row (ld_out with one column, a
// stride with one batch); the CPU backend then multiplied it by the element size
// (signed overflow, reported by UBSan). Pitches beyond 2^56 bytes are now rejected,
// and the largest accepted ones run clean (the sanitize preset runs this test).
TEST(Regression, UnusedButAbsurdPitchesAreRejected) {
  small_case c;
  for (int field = 0; field < 4; ++field) {
    matrix_desc d = matrix_desc::packed(field == 1 ? 15 : 1, field == 1 ? 1 : 15, 4);
    index_t* f[] = {&d.ld_in, &d.ld_out, &d.stride_in, &d.stride_out};
    *f[field] = INT64_MAX;
    EXPECT_EQ(xpose::validate(c.in.data(), c.out.data(), d).code(), xpose::status_code::size_overflow) << field;
    EXPECT_EQ(xpose::transpose_host(c.in.data(), c.out.data(), d).code(), xpose::status_code::size_overflow);
    EXPECT_TRUE(c.untouched());
  }
  // The largest accepted unused pitches: correct, and no overflow downstream.
  for (int es : {1, 4, 16}) {
    const index_t top = (index_t{1} << 56) / es;
    std::vector<unsigned char> in(static_cast<std::size_t>(15 * es)), out(in.size()), want(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i * 7 + 1);
    matrix_desc row = matrix_desc::packed(1, 15, es);
    row.ld_in = top;
    row.stride_in = top;
    row.stride_out = top;
    ASSERT_TRUE(xpose::transpose_host(in.data(), out.data(), row).ok());
    EXPECT_EQ(out, in);
    matrix_desc col = matrix_desc::packed(15, 1, es);
    col.ld_out = top;
    std::fill(out.begin(), out.end(), 0);
    ASSERT_TRUE(xpose::transpose_host(in.data(), out.data(), col).ok());
    EXPECT_EQ(out, in);
    matrix_desc over = row;
    over.ld_in = top + 1;
    EXPECT_EQ(xpose::validate(in.data(), out.data(), over).code(), xpose::status_code::size_overflow);
  }
}

// `d = packed(2, 3, 4, 2); d.ld_in = 4;` kept packed()'s stride_in = 6 and read the
// second matrix from the wrong place. A stride packed() derived that no longer
// matches rows * ld is rejected; set explicitly (README), it is honoured.
TEST(Regression, StalePackedStrideIsRejected) {
  std::vector<float> in(16), out(12, -1.0f);
  for (int i = 0; i < 16; ++i) in[static_cast<std::size_t>(i)] = static_cast<float>(i);
  matrix_desc d = matrix_desc::packed(2, 3, 4, 2);
  d.ld_in = 4;
  EXPECT_EQ(xpose::validate(in.data(), out.data(), d).code(), xpose::status_code::invalid_argument);
  EXPECT_EQ(xpose::transpose_host(in.data(), out.data(), d).code(), xpose::status_code::invalid_argument);
  EXPECT_EQ(xpose::transpose_reference(in.data(), out.data(), d).code(), xpose::status_code::invalid_argument);
  EXPECT_EQ(out, std::vector<float>(12, -1.0f));
  matrix_desc e = matrix_desc::packed(2, 3, 4, 2);
  e.ld_out = 3;
  EXPECT_EQ(xpose::validate(in.data(), out.data(), e).code(), xpose::status_code::invalid_argument);
  d.stride_in = d.rows * d.ld_in;  // the documented way: set the stride with the pitch
  ASSERT_TRUE(xpose::transpose_host(in.data(), out.data(), d).ok());
  const std::vector<float> want = {0, 4, 1, 5, 2, 6, 8, 12, 9, 13, 10, 14};
  EXPECT_EQ(out, want);
  matrix_desc one = matrix_desc::packed(2, 3, 4);  // one matrix: strides are unused
  one.ld_in = 4;
  EXPECT_TRUE(xpose::validate(in.data(), out.data(), one).ok());
}
