// Programmatic dependent launch (best_dependent_launch_on, policy.hpp): on sm_90+, `best`
// launches small grids so that they may start while the work before them in the stream
// still runs; each kernel waits for that work before touching memory. The chains below
// would see stale or overwritten data if a kernel read its input before the previous call
// had finished writing it (read after write), or wrote its output while the previous call
// still read it (write after read).
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

// One stream: a large transpose X -> Y (long enough for a dependent launch to start
// during it) whose last bytes are A; then A (d) -> B, B (d transposed) -> C and D (d) -> B,
// small calls that `best` launches as dependents. C must equal A's bytes and B the
// transpose of D. Three rounds, under `variant`.
void chain(const char* variant, const matrix_desc& d, std::uint64_t seed) {
  SCOPED_TRACE(std::string(variant) + " " + shape_name(d));
  const matrix_desc big = matrix_desc::packed(4096, 4096, 4);
  const std::size_t nb = 4096ull * 4096 * 4;
  const matrix_desc back = matrix_desc::packed(d.cols, d.rows, d.elem_size, d.batch);
  const std::size_t n = static_cast<std::size_t>(d.rows * d.cols * d.batch * d.elem_size);
  ASSERT_LE(n + 256, nb);
  const std::size_t a_off = (nb - n) / 256 * 256;  // A: 256-byte aligned, among the last bytes of Y
  const auto x = random_bytes(nb, seed), dd = random_bytes(n, seed + 1);
  std::vector<unsigned char> y(nb), want_b(n);
  ASSERT_TRUE(xpose::transpose_reference(x.data(), y.data(), big).ok());
  ASSERT_TRUE(xpose::transpose_reference(dd.data(), want_b.data(), d).ok());
  dev_buf X(nb), Y(nb), B(n), C(n), D(n);
  ASSERT_TRUE(X.p && Y.p && B.p && C.p && D.p);
  CUDA_OK(cudaMemcpy(X.p, x.data(), nb, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(D.p, dd.data(), n, cudaMemcpyHostToDevice));
  stream_guard st;
  ASSERT_NE(st.s, nullptr);
  for (int round = 0; round < 3; ++round) {
    CUDA_OK(cudaMemsetAsync(Y.p, 0xFF, nb, st.s));
    CUDA_OK(cudaMemsetAsync(B.p, 0xFF, n, st.s));
    CUDA_OK(cudaMemsetAsync(C.p, 0xFF, n, st.s));
    ASSERT_TRUE(xpose::transpose_variant(variant, X.p, Y.p, big, {}, st.s).ok());
    ASSERT_TRUE(xpose::transpose_variant(variant, Y.p + a_off, B.p, d, {}, st.s).ok());
    ASSERT_TRUE(xpose::transpose_variant(variant, B.p, C.p, back, {}, st.s).ok());
    ASSERT_TRUE(xpose::transpose_variant(variant, D.p, B.p, d, {}, st.s).ok());
    CUDA_OK(cudaStreamSynchronize(st.s));
    std::vector<unsigned char> got_c(n), got_b(n);
    CUDA_OK(cudaMemcpy(got_c.data(), C.p, n, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(got_b.data(), B.p, n, cudaMemcpyDeviceToHost));
    ASSERT_EQ(std::memcmp(got_c.data(), y.data() + a_off, n), 0)
        << "round " << round << ": a call read a buffer before the call writing it had finished";
    ASSERT_EQ(std::memcmp(got_b.data(), want_b.data(), n), 0)
        << "round " << round << ": a call wrote a buffer the call before it still read";
  }
}

// Small calls of each kernel family that best launches as a dependent: the tiles (standard
// and narrow), the realigning / skewed tile (rows not a multiple of 16 bytes), gather and
// scatter slabs (3 x N and back, grouped), whole small matrices.
TEST(DependentLaunch, ChainedCallsSeeEachOthersWrites) {
  REQUIRE_GPU();
  int dev = 0, major = 0;
  CUDA_OK(cudaGetDevice(&dev));
  CUDA_OK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  if (major < 9) std::printf("note: compute capability %d.x: no dependent launch, the chain runs serialised\n", major);
  const matrix_desc shapes[] = {
      matrix_desc::packed(128, 128, 4),     // tile
      matrix_desc::packed(128, 256, 2),     // tile
      matrix_desc::packed(64, 256, 1),      // narrow tile
      matrix_desc::packed(255, 257, 1),     // realigning / skewed tile, 1-byte
      matrix_desc::packed(127, 131, 2),     // realigning / skewed tile, 2-byte
      matrix_desc::packed(3, 20003, 1),     // gather slab, and the scatter back
      matrix_desc::packed(16, 2000, 8),     // micro-block slabs, 8-byte
      matrix_desc::packed(16, 16, 2, 64),   // whole small matrices
      matrix_desc::packed(1000, 24, 1, 4),  // grouped scatter slab, and the gather back
  };
  std::uint64_t seed = 11;
  for (const matrix_desc& d : shapes) chain("best", d, seed += 7);
}

}  // namespace
}  // namespace xpose_test
