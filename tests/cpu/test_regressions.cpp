// Regressions found by the reliability work (fuzzer, sanitizers, hostile
// inputs), one test each, named after what broke. docs/RELIABILITY.md lists them.
#include <xpose/registry.hpp>

#include <climits>
#include <functional>
#include <utility>

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

// Regression: transpose_inplace_host passed host_options.threads to OpenMP unchecked
// (100000: SIGSEGV in libgomp, 40000: abort, INT_MAX: out-of-memory exit; -1, INT_MIN: ok).
TEST(Regression, InplaceHostThreadCountIsChecked) {
  for (int t : {-1, xpose::max_host_threads() + 1, 40000, 100000, INT_MAX, INT_MIN}) {
    for (xpose::index_t r : {3, 8}) {  // a rectangle and a square
      const matrix_desc d = matrix_desc::packed(r, 8, 4);
      std::vector<float> data(static_cast<std::size_t>(8 * r), 1.5f), ws(64, 0.0f);
      EXPECT_EQ(xpose::transpose_inplace_host(data.data(), d, ws.data(), ws.size() * 4, {t}).code(),
                xpose::status_code::invalid_argument) << t;
      EXPECT_EQ(data, std::vector<float>(static_cast<std::size_t>(8 * r), 1.5f));
    }
    EXPECT_EQ(xpose::check_host_options({t}).code(), xpose::status_code::invalid_argument) << t;
  }
  int n = 0;
  EXPECT_TRUE(xpose::check_host_options({0}, &n).ok());
  EXPECT_GE(n, 1);
  EXPECT_LE(n, xpose::max_host_threads());
  EXPECT_TRUE(xpose::check_host_options({xpose::max_host_threads()}, &n).ok());
  EXPECT_EQ(n, xpose::max_host_threads());
}

#if defined(_OPENMP)
// OMP_NUM_THREADS=100000 crashed the interpreter in xpose.transpose_ on a square: the
// in-place default (threads = 0) went to OpenMP unclamped.
TEST(Regression, HugeOpenMpDefaultIsClampedInPlace) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(100000);
  const matrix_desc d = matrix_desc::packed(130, 130, 4);
  std::vector<float> data(130 * 130);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i);
  const xpose::status s = xpose::transpose_inplace_host(data.data(), d, nullptr, 0);
  omp_set_num_threads(before);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(data[1], 130.0f);
  EXPECT_EQ(data[130], 1.0f);
}
#endif

// Regression (UBSan): make_plan's fuse step multiplied an extent by a stride near 2^62
// in signed 64 bits (rank 2, extents {2, 2}, strides {2^62, 1}).
TEST(Regression, FuseOfStridesNear2To62IsNotUndefined) {
  xpose::layout in;
  in.rank = 2;
  in.elem_size = 1;
  in.extents[0] = in.extents[1] = 2;
  in.strides[0] = xpose::index_t{1} << 62;
  in.strides[1] = 1;
  const int axes[2] = {1, 0};
  xpose::plan p;
  EXPECT_TRUE(xpose::make_plan(in, xpose::permuted_packed(in, axes, 2), axes, 2, {}, &p).ok());
  EXPECT_EQ(p.in.rank, 2);  // nothing fused
}

// Regression: execute / execute_host trusted a plan's fields (an out-of-range algorithm
// returned ok having written nothing; an edited layout read out of bounds).
TEST(Regression, EditedPlansAreRejected) {
  std::vector<float> in(35), out(35, -1.0f);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  const xpose::index_t ext[2] = {5, 7};
  const xpose::layout l = xpose::layout::packed(2, ext, 4);
  const int axes[2] = {1, 0};
  xpose::plan good;
  ASSERT_TRUE(xpose::make_plan(l, xpose::permuted_packed(l, axes, 2), axes, 2, {}, &good).ok());
  const std::vector<std::function<void(xpose::plan&)>> edits = {
      [](xpose::plan& p) { p.algo = static_cast<xpose::algorithm>(7); },
      [](xpose::plan& p) { p.algo = static_cast<xpose::algorithm>(-1); },
      [](xpose::plan& p) { p.algo = xpose::algorithm::permute_nd; },
      [](xpose::plan& p) { p.algo = xpose::algorithm::copy; },
      [](xpose::plan& p) { p.in.extents[0] *= 4; },
      [](xpose::plan& p) { p.in.strides[0] += 100; },
      [](xpose::plan& p) { p.out.strides[0] = 1; },
      [](xpose::plan& p) { p.desc.rows += 10; },
      [](xpose::plan& p) { p.desc.ld_in = 1000; },
      [](xpose::plan& p) { p.count += 1; },
      [](xpose::plan& p) { p.in_bytes = 4; },
      [](xpose::plan& p) { p.axes[0] = p.axes[1]; },
      [](xpose::plan& p) { p.in.rank = 17; },
      [](xpose::plan& p) { p.in.elem_size = 16; },
      [](xpose::plan& p) { p.conjugate = true; },
      [](xpose::plan& p) { p.count = 0; },
  };
  for (std::size_t e = 0; e < edits.size(); ++e) {
    xpose::plan p = good;
    edits[e](p);
    EXPECT_EQ(xpose::execute_host(p, in.data(), out.data(), {}).code(), xpose::status_code::invalid_argument) << e;
    EXPECT_EQ(xpose::execute(p, in.data(), out.data()).code(), xpose::status_code::invalid_argument) << e;
    EXPECT_EQ(out, std::vector<float>(35, -1.0f)) << e;
  }
  EXPECT_TRUE(xpose::execute_host(good, in.data(), out.data(), {}).ok());
  EXPECT_EQ(out[1], 7.0f);
  EXPECT_TRUE(xpose::execute_host(xpose::plan{}, nullptr, nullptr, {}).ok());  // the empty plan
}

// Regression: the in-place workspace was above its documented bound for skinny matrices
// (2 rows: the whole matrix on the host, which then went out-of-place through it).
TEST(Regression, InplaceWorkspaceIsHonest) {
  for (xpose::index_t r = 2; r <= 70; ++r)
    for (xpose::index_t c : {r + 1, 2 * r + 3, xpose::index_t{300}, xpose::index_t{4099}}) {
      for (bool device : {false, true})
        for (bool tall : {false, true}) {
          const matrix_desc d = tall ? matrix_desc::packed(c, r, 2) : matrix_desc::packed(r, c, 2);
          std::size_t ws = 0;
          ASSERT_TRUE(xpose::inplace_workspace_size(d, device, &ws).ok());
          const std::size_t whole = static_cast<std::size_t>(r * c * 2), lo = static_cast<std::size_t>(r);
          EXPECT_LE(ws * lo, whole * ((lo + 3) / 4)) << r << "x" << c;  // ceil(lo/4)/lo of the matrix
          EXPECT_LE(2 * ws, whole) << r << "x" << c;
        }
    }
  // The query's workspace suffices, exactly, for the host path.
  for (xpose::index_t r : {2, 3, 5, 64, 65, 67}) {
    const matrix_desc d = matrix_desc::packed(r, 301, 4);
    std::size_t ws = 0;
    ASSERT_TRUE(xpose::inplace_workspace_size(d, false, &ws).ok());
    std::vector<float> data(static_cast<std::size_t>(r * 301)), w(ws / 4);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i);
    ASSERT_TRUE(xpose::transpose_inplace_host(data.data(), d, w.data(), ws, {2}).ok());
    for (xpose::index_t i = 0; i < r; ++i)
      for (xpose::index_t j = 0; j < 301; ++j)
        ASSERT_EQ(data[static_cast<std::size_t>(j * r + i)], static_cast<float>(i * 301 + j)) << r;
  }
}

// Regression (ASan/UBSan): empty in-place host calls take no pointer, not even null ones.
TEST(Regression, EmptyInplaceHostCallsTouchNothing) {
  for (auto [r, c] : {std::pair<xpose::index_t, xpose::index_t>{0, 0}, {0, 5}, {5, 0}}) {
    std::size_t ws = 1;
    EXPECT_TRUE(xpose::inplace_workspace_size(matrix_desc::packed(r, c, 4), false, &ws).ok());
    EXPECT_EQ(ws, 0u);
    EXPECT_TRUE(xpose::transpose_inplace_host(nullptr, matrix_desc::packed(r, c, 4), nullptr, 0).ok());
    EXPECT_EQ(xpose::transpose_inplace_host(nullptr, matrix_desc::packed(r, c, 4), nullptr, 0, {-1}).code(),
              xpose::status_code::invalid_argument);
  }
}
