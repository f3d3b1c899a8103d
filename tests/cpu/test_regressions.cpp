// Regressions found by the reliability work (issue 7: fuzzer, sanitizers, hostile
// inputs), one test each, named after what broke. docs/RELIABILITY.md lists them.
#include <xpose/registry.hpp>

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
