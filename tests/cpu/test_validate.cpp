// Every bad input gets its named status from every entry point, and the output is
// left untouched. Runs everywhere: validation happens before any device work.
#include <xpose/registry.hpp>

#include <algorithm>
#include <set>

#include "test_util.hpp"

using namespace xpose_test;
using xpose::status_code;

namespace {

struct entry {
  const char* name;
  xpose::status (*call)(const void*, void*, const matrix_desc&);
};

const entry entries[] = {
    {"transpose_host", [](const void* i, void* o, const matrix_desc& d) { return xpose::transpose_host(i, o, d); }},
    {"transpose_reference",
     [](const void* i, void* o, const matrix_desc& d) { return xpose::transpose_reference(i, o, d); }},
    {"transpose (device)", [](const void* i, void* o, const matrix_desc& d) { return xpose::transpose(i, o, d); }},
    {"transpose_variant(naive)",
     [](const void* i, void* o, const matrix_desc& d) { return xpose::transpose_variant("naive", i, o, d); }},
    {"validate", [](const void* i, void* o, const matrix_desc& d) { return xpose::validate(i, o, d); }},
};

// Runs `d` on in/out through every entry; expects `want` and an untouched output.
void expect_rejected(const void* in, unsigned char* out, std::size_t out_bytes, const matrix_desc& d,
                     status_code want) {
  for (const entry& e : entries) {
    SCOPED_TRACE(e.name);
    std::vector<unsigned char> before;
    if (out != nullptr) before.assign(out, out + out_bytes);
    const xpose::status s = e.call(in, out, d);
    EXPECT_EQ(s.code(), want) << "got " << xpose::to_string(s.code()) << ": " << s.message();
    EXPECT_STRNE(s.message(), "") << "a failure must carry a message";
    if (out != nullptr) EXPECT_TRUE(std::equal(before.begin(), before.end(), out)) << "output was modified";
  }
}

struct buffers {
  alignas(64) unsigned char in[4096];
  alignas(64) unsigned char out[4096];
  buffers() {
    std::memset(in, 0x5A, sizeof in);
    std::memset(out, 0xFF, sizeof out);
  }
};

}  // namespace

TEST(Validate, NullPointerWithNonZeroSize) {
  buffers b;
  expect_rejected(nullptr, b.out, sizeof b.out, matrix_desc::packed(4, 4, 4), status_code::null_pointer);
  expect_rejected(b.in, nullptr, 0, matrix_desc::packed(4, 4, 4), status_code::null_pointer);
}

TEST(Validate, NegativeSizes) {
  buffers b;
  expect_rejected(b.in, b.out, sizeof b.out, matrix_desc::packed(-1, 4, 4), status_code::negative_size);
  expect_rejected(b.in, b.out, sizeof b.out, matrix_desc::packed(4, -4, 4), status_code::negative_size);
  matrix_desc d = matrix_desc::packed(4, 4, 4);
  d.batch = -2;
  expect_rejected(b.in, b.out, sizeof b.out, d, status_code::negative_size);
  d = matrix_desc::packed(4, 4, 4);
  d.ld_in = -4;
  expect_rejected(b.in, b.out, sizeof b.out, d, status_code::negative_size);
  d = matrix_desc::packed(4, 4, 4, 2);
  d.stride_out = -16;
  expect_rejected(b.in, b.out, sizeof b.out, d, status_code::negative_size);
}

TEST(Validate, SizeProductsThatOverflow) {
  buffers b;
  const index_t big = index_t{1} << 40;
  matrix_desc d = matrix_desc::packed(big, big, 4);  // 2^80 elements
  expect_rejected(b.in, b.out, sizeof b.out, d, status_code::size_overflow);
  d = matrix_desc::packed(index_t{1} << 31, index_t{1} << 31, 16);  // 2^62 elements, 2^66 bytes
  expect_rejected(b.in, b.out, sizeof b.out, d, status_code::size_overflow);
  d = matrix_desc::packed(2, 2, 4);
  d.ld_in = index_t{1} << 62;  // extent in bytes overflows, element count does not
  d.ld_out = index_t{1} << 62;
  expect_rejected(b.in, b.out, sizeof b.out, d, status_code::size_overflow);
}

TEST(Validate, LeadingDimensionSmallerThanRow) {
  buffers b;
  matrix_desc d = matrix_desc::packed(8, 8, 4);
  d.ld_in = 7;
  expect_rejected(b.in, b.out, sizeof b.out, d, status_code::bad_leading_dim);
  d = matrix_desc::packed(8, 8, 4);
  d.ld_out = 7;
  expect_rejected(b.in, b.out, sizeof b.out, d, status_code::bad_leading_dim);
}

TEST(Validate, OutputBatchesThatOverlap) {
  buffers b;
  matrix_desc d = matrix_desc::packed(4, 4, 4, 3);
  d.stride_out = 15;
  expect_rejected(b.in, b.out, sizeof b.out, d, status_code::bad_batch_stride);
}

TEST(Validate, OverlappingInputAndOutput) {
  buffers b;
  expect_rejected(b.in, b.in, 0, matrix_desc::packed(4, 4, 4), status_code::overlap);
  expect_rejected(b.in, b.in + 60, 0, matrix_desc::packed(4, 4, 4), status_code::overlap);
  // Adjacent but disjoint ranges are fine.
  float in[16] = {}, out_adjacent[16];
  EXPECT_TRUE(xpose::validate(in, out_adjacent, matrix_desc::packed(4, 4, 4)).ok());
}

TEST(Validate, UnsupportedElementSize) {
  buffers b;
  for (int es : {0, 3, 5, 6, 12, 32, -4}) {
    matrix_desc d = matrix_desc::packed(4, 4, 4);
    d.elem_size = es;
    expect_rejected(b.in, b.out, sizeof b.out, d, status_code::unsupported_elem_size);
  }
}

TEST(Validate, MisalignedPointers) {
  buffers b;
  for (int es : {2, 4, 8, 16}) {
    expect_rejected(b.in + 1, b.out, sizeof b.out, matrix_desc::packed(4, 4, es), status_code::misaligned);
    expect_rejected(b.in, b.out + 1, sizeof b.out - 1, matrix_desc::packed(4, 4, es), status_code::misaligned);
  }
  // One-byte elements are always aligned.
  EXPECT_TRUE(xpose::transpose_host(b.in + 1, b.out + 3, matrix_desc::packed(4, 4, 1)).ok());
}

TEST(Validate, ZeroSizedIsANoOp) {
  for (const entry& e : entries) {
    SCOPED_TRACE(e.name);
    for (auto d : {matrix_desc::packed(0, 5, 4), matrix_desc::packed(5, 0, 4), matrix_desc::packed(5, 5, 4, 0)}) {
      const xpose::status s = e.call(nullptr, nullptr, d);
      EXPECT_TRUE(s.ok()) << s.message();
    }
  }
}

TEST(Validate, UnknownVariant) {
  buffers b;
  const xpose::status s = xpose::transpose_variant("no_such_variant", b.in, b.out, matrix_desc::packed(4, 4, 4));
  EXPECT_EQ(s.code(), status_code::unknown_variant);
  EXPECT_NE(std::string(s.message()).find("no_such_variant"), std::string::npos);
}

TEST(Validate, NoGpuIsAStatusNotACrash) {
  if (xpose::device_count() > 0) GTEST_SKIP() << "a GPU is present; the no-GPU path is tested on CI";
  buffers b;
  const xpose::status s = xpose::transpose(b.in, b.out, matrix_desc::packed(4, 4, 4));
  EXPECT_EQ(s.code(), status_code::no_device) << s.message();
  EXPECT_EQ(b.out[0], 0xFF);
}

TEST(Validate, StatusNamesAreDistinct) {
  std::set<std::string> names;
  for (int c = 0; c <= static_cast<int>(status_code::invalid_argument); ++c)
    names.insert(xpose::to_string(static_cast<status_code>(c)));
  EXPECT_EQ(names.size(), static_cast<std::size_t>(status_code::invalid_argument) + 1);
}

// NumPy aligns complex128 to 8 bytes: the host entries take 16-byte elements at an
// 8-byte offset (every CPU kernel moves them unaligned) and transpose them exactly;
// the device rule (and the public validate()) keeps 16.
TEST(Validate, SixteenByteElementsNeedOnlyEightOnTheHost) {
  alignas(16) unsigned char in[8 + 6 * 16], out[8 + 6 * 16] = {}, want[6 * 16];
  for (std::size_t i = 0; i < sizeof in; ++i) in[i] = static_cast<unsigned char>(i * 13 + 5);
  const matrix_desc d = matrix_desc::packed(2, 3, 16);
  ASSERT_TRUE(xpose::transpose_reference(in + 8, want, matrix_desc::packed(2, 3, 16)).ok());
  EXPECT_TRUE(xpose::transpose_host(in + 8, out + 8, d).ok());
  EXPECT_EQ(std::memcmp(out + 8, want, sizeof want), 0);
  EXPECT_EQ(xpose::validate(in + 8, out + 8, d).code(), status_code::misaligned);
  EXPECT_EQ(xpose::transpose_host(in + 4, out + 8, d).code(), status_code::misaligned);
}
