// Programmatic dependent launch (best_dependent_launch_default, policy.hpp): on sm_90+,
// `best` (or `best_next`, whichever the switch gives it) launches its kernels so that
// they may start while the work before them in the stream still runs; each kernel waits
// for that work before touching memory. These chains would see stale or overwritten data
// if a kernel read its input before the previous call finished writing it (read after
// write), or wrote its output while the previous call still read it (write after read).
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <xpose/registry.hpp>

#include <cstring>

#include "cuda/policy.hpp"
#include "cuda_test_util.hpp"
#include "test_util.hpp"

namespace xpose_test {
namespace {

struct stream_guard {
  cudaStream_t s = nullptr;
  stream_guard() { cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); }
  ~stream_guard() { cudaStreamDestroy(s); }
};

// A (d) -> B, B (d transposed) -> C, then D (d) -> B: C must be A again and B the
// transpose of D, for three rounds on one stream, under `variant`.
void chain(const char* variant, const matrix_desc& d, std::uint64_t seed) {
  SCOPED_TRACE(std::string(variant) + " " + shape_name(d));
  const matrix_desc back = matrix_desc::packed(d.cols, d.rows, d.elem_size, d.batch);
  const std::size_t n = static_cast<std::size_t>(d.rows * d.cols * d.batch * d.elem_size);
  const auto a = random_bytes(n, seed), dd = random_bytes(n, seed + 1);
  std::vector<unsigned char> want_b(n);
  ASSERT_TRUE(xpose::transpose_reference(dd.data(), want_b.data(), d).ok());
  dev_buf A(n), B(n), C(n), D(n);
  ASSERT_TRUE(A.p && B.p && C.p && D.p);
  CUDA_OK(cudaMemcpy(A.p, a.data(), n, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(D.p, dd.data(), n, cudaMemcpyHostToDevice));
  stream_guard st;
  ASSERT_NE(st.s, nullptr);
  for (int round = 0; round < 3; ++round) {
    CUDA_OK(cudaMemsetAsync(B.p, 0xFF, n, st.s));
    CUDA_OK(cudaMemsetAsync(C.p, 0xFF, n, st.s));
    ASSERT_TRUE(xpose::transpose_variant(variant, A.p, B.p, d, {}, st.s).ok());
    ASSERT_TRUE(xpose::transpose_variant(variant, B.p, C.p, back, {}, st.s).ok());
    ASSERT_TRUE(xpose::transpose_variant(variant, D.p, B.p, d, {}, st.s).ok());
    CUDA_OK(cudaStreamSynchronize(st.s));
    std::vector<unsigned char> got_c(n), got_b(n);
    CUDA_OK(cudaMemcpy(got_c.data(), C.p, n, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(got_b.data(), B.p, n, cudaMemcpyDeviceToHost));
    ASSERT_EQ(std::memcmp(got_c.data(), a.data(), n), 0) << "round " << round << ": B -> C saw a stale or overwritten B";
    ASSERT_EQ(std::memcmp(got_b.data(), want_b.data(), n), 0) << "round " << round;
  }
}

// One shape per kernel family that best launches as a dependent: the tile, the
// realigning and skewed tiles (rows not a multiple of 16 bytes), gather and scatter
// slabs (3 x N and back), whole small matrices.
TEST(DependentLaunch, ChainedCallsSeeEachOthersWrites) {
  REQUIRE_GPU();
  int dev = 0, major = 0;
  CUDA_OK(cudaGetDevice(&dev));
  CUDA_OK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  if (major < 9) std::printf("note: compute capability %d.x: no dependent launch, the chain runs serialised\n", major);
  const matrix_desc shapes[] = {
      matrix_desc::packed(2048, 4096, 4),       // tile
      matrix_desc::packed(4095, 4097, 1),       // realigning / skewed tile, 1-byte
      matrix_desc::packed(2047, 4099, 2),       // realigning / skewed tile, 2-byte
      matrix_desc::packed(3, 2000003, 1),       // gather slab, and the scatter back
      matrix_desc::packed(16, 500000, 8),       // micro-block slabs, 8-byte
      matrix_desc::packed(64, 64, 2, 4096),     // whole small matrices
      matrix_desc::packed(50176, 24, 1, 8),     // grouped scatter slab, and the gather back
  };
  std::uint64_t seed = 11;
  for (const char* v : {"best", "best_next"})
    for (const matrix_desc& d : shapes) chain(v, d, seed += 7);
}

}  // namespace
}  // namespace xpose_test
