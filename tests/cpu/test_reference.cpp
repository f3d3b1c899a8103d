// The oracle itself, checked by hand-written expectations (it must be right for
// every other test to mean anything).
#include "test_util.hpp"

using namespace xpose_test;

TEST(Reference, TwoByThreeByHand) {
  const std::int32_t in[6] = {1, 2, 3, 4, 5, 6};
  std::int32_t out[6] = {};
  ASSERT_TRUE(xpose::transpose_reference(in, out, matrix_desc::packed(2, 3, 4)).ok());
  const std::int32_t want[6] = {1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], want[i]) << i;
}

TEST(Reference, PaddedBatchedByFormula) {
  // Each element holds its own (b, r, c), so a wrong placement is visible.
  const matrix_desc d = padded(5, 7, 4, 3, 2, 3, 4);
  std::vector<std::uint32_t> in(static_cast<std::size_t>(in_elems(d)), 0xdeadbeef);
  std::vector<std::uint32_t> out(static_cast<std::size_t>(out_elems(d)), 0xffffffff);
  for (index_t b = 0; b < d.batch; ++b)
    for (index_t r = 0; r < d.rows; ++r)
      for (index_t c = 0; c < d.cols; ++c)
        in[static_cast<std::size_t>(b * d.stride_in + r * d.ld_in + c)] = static_cast<std::uint32_t>(b << 16 | r << 8 | c);
  ASSERT_TRUE(xpose::transpose_reference(in.data(), out.data(), d).ok());
  for (index_t b = 0; b < d.batch; ++b)
    for (index_t c = 0; c < d.cols; ++c) {
      for (index_t r = 0; r < d.rows; ++r)
        EXPECT_EQ(out[static_cast<std::size_t>(b * d.stride_out + c * d.ld_out + r)],
                  static_cast<std::uint32_t>(b << 16 | r << 8 | c));
      for (index_t p = d.rows; p < d.ld_out && b * d.stride_out + c * d.ld_out + p < out_elems(d); ++p)
        EXPECT_EQ(out[static_cast<std::size_t>(b * d.stride_out + c * d.ld_out + p)], 0xffffffffu)
            << "padding was written";
    }
}

TEST(Reference, SixteenByteElementsMoveWhole) {
  struct alignas(16) e16 { std::uint64_t a, b; };
  e16 in[2 * 3], out[3 * 2];
  for (int i = 0; i < 6; ++i) in[i] = {std::uint64_t(i), ~std::uint64_t(i)};
  ASSERT_TRUE(xpose::transpose_reference(in, out, matrix_desc::packed(2, 3, 16)).ok());
  const int want[6] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(out[i].a, std::uint64_t(want[i]));
    EXPECT_EQ(out[i].b, ~std::uint64_t(want[i]));
  }
}
