// GPU tests: every registered variant and the default device entry against the CPU
// reference, bitwise, on a 0xFF-poisoned output. Skip when no GPU is present.
#include <cuda_runtime.h>
#include <xpose/registry.hpp>

#include <random>

#include "cuda_test_util.hpp"
#include "test_util.hpp"

using namespace xpose_test;

namespace {

// Runs `name` (or the default entry when name is null) on `d` with the input placed
// `offset_elems` elements past a 256-byte boundary; compares with the reference.
void check_device(const char* name, const matrix_desc& d, const std::vector<unsigned char>& in_host,
                  const std::vector<unsigned char>& want_host, index_t offset_elems = 0,
                  xpose::launch_options launch = {}, bool copy_shaped = false) {
  SCOPED_TRACE(std::string(name ? name : "transpose()") + " " + shape_name(d) + " offset " +
               std::to_string(offset_elems) + " block 32x" + std::to_string(launch.block_y));
  const std::size_t es = static_cast<std::size_t>(d.elem_size);
  const std::size_t off = static_cast<std::size_t>(offset_elems) * es;
  dev_buf in(in_host.size() + off), out(want_host.size() + off);
  ASSERT_NE(in.p, nullptr);
  ASSERT_NE(out.p, nullptr);
  CUDA_OK(cudaMemcpy(in.p + off, in_host.data(), in_host.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(out.p, 0xFF, out.n));
  const xpose::status s = name ? xpose::transpose_variant(name, in.p + off, out.p + off, d, launch)
                               : xpose::transpose(in.p + off, out.p + off, d);
  ASSERT_TRUE(s.ok()) << s.message();
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<unsigned char> got(want_host.size());
  CUDA_OK(cudaMemcpy(got.data(), out.p + off, got.size(), cudaMemcpyDeviceToHost));
  if (!copy_shaped) ASSERT_EQ(first_mismatch(got.data(), want_host.data(), d), "");
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], want_host[i]) << "first bad byte " << i << " = element " << i / es << " of the "
                                    << (copy_shaped ? "input-shaped" : "transposed") << " output";
  ASSERT_EQ(std::memcmp(got.data(), want_host.data(), got.size()), 0) << "padding or gap bytes were written";
}

// Expected output of a variant: the transpose, or for copies the input itself.
void expected(const xpose::variant_info& v, const matrix_desc& d, const std::vector<unsigned char>& in,
              const std::vector<unsigned char>& transposed, std::vector<unsigned char>* want) {
  if (v.transposes) {
    *want = transposed;
    return;
  }
  *want = std::vector<unsigned char>(in.size(), 0xFF);
  const std::size_t es = static_cast<std::size_t>(d.elem_size);
  if (std::string(v.name) == "memcpy") {  // copies the whole extent, gaps included
    *want = in;
    return;
  }
  for (index_t b = 0; b < d.batch; ++b)
    for (index_t r = 0; r < d.rows; ++r) {
      const std::size_t o = static_cast<std::size_t>(b * d.stride_in + r * d.ld_in) * es;
      std::memcpy(want->data() + o, in.data() + o, static_cast<std::size_t>(d.cols) * es);
    }
}

void check_all_variants(const matrix_desc& d, std::uint64_t seed, bool both_blocks = true) {
  if (d.rows == 0 || d.cols == 0 || d.batch == 0) return;
  const std::size_t es = static_cast<std::size_t>(d.elem_size);
  const auto in = random_bytes(static_cast<std::size_t>(in_elems(d)) * es, seed);
  std::vector<unsigned char> transposed(static_cast<std::size_t>(out_elems(d)) * es, 0xFF);
  ASSERT_TRUE(xpose::transpose_reference(in.data(), transposed.data(), d).ok());
  std::vector<unsigned char> want;
  for (const auto& v : xpose::variants()) {
    if (!xpose::supports_elem_size(v, d.elem_size)) continue;
    expected(v, d, in, transposed, &want);  // copies: the input's extent, mirrored
    check_device(v.name, d, in, want, 0, {}, !v.transposes);
    if (v.uses_block_shape && both_blocks) check_device(v.name, d, in, want, 0, {32, 32}, !v.transposes);
  }
  check_device(nullptr, d, in, transposed, 0);
}

}  // namespace

TEST(Device, SizeGridEveryVariantEveryElementSize) {
  REQUIRE_GPU();
  for (int es : elem_sizes())
    for (index_t r : edge_sizes())
      for (index_t c : edge_sizes()) {
        if (r * c > 1100 * 1100 && es > 4) continue;  // the largest pairs run at es <= 4 (time)
        check_all_variants(matrix_desc::packed(r, c, es), static_cast<std::uint64_t>(r * 131 + c), r * c < 70000);
        if (HasFatalFailure()) return;
      }
}

TEST(Device, LargestPairsEveryElementSize) {
  REQUIRE_GPU();
  for (int es : {8, 16})
    for (auto [r, c] : {std::pair<index_t, index_t>{4097, 4097}, {4097, 1000}, {1000, 4097}}) {
      check_all_variants(matrix_desc::packed(r, c, es), 7, false);
      if (HasFatalFailure()) return;
    }
}

TEST(Device, SkinnyPrimesPaddedBatched) {
  REQUIRE_GPU();
  for (int es : elem_sizes()) {
    for (auto [r, c] : {std::pair<index_t, index_t>{1, 100003}, {100003, 1}, {3, 100003}, {100003, 3}, {521, 523}})
      check_all_variants(matrix_desc::packed(r, c, es), 3, false);
    check_all_variants(padded(33, 65, es, 1, 3, 5, 0), 4);
    check_all_variants(padded(100, 37, es, 5, 0, 11, 13), 5);
    check_all_variants(matrix_desc::packed(64, 64, es, 300), 6, false);
    check_all_variants(matrix_desc::packed(5, 3, es, 70000), 8, false);  // batch > 65535 grid limit
    if (HasFatalFailure()) return;
  }
}

TEST(Device, UnalignedByOneElement) {
  REQUIRE_GPU();
  for (int es : elem_sizes()) {
    const matrix_desc d = matrix_desc::packed(97, 131, es);
    const std::size_t n = static_cast<std::size_t>(d.rows * d.cols) * static_cast<std::size_t>(es);
    const auto in = random_bytes(n, 11);
    std::vector<unsigned char> want(n);
    ASSERT_TRUE(xpose::transpose_reference(in.data(), want.data(), d).ok());
    for (const auto& v : xpose::variants())
      if (v.transposes) check_device(v.name, d, in, want, 1);
    check_device(nullptr, d, in, want, 1);
  }
}

TEST(Device, TallEnoughToLoopOverGridY) {
  REQUIRE_GPU();
  // 65536 * 32 + 5 rows: more row tiles than gridDim.y allows.
  check_all_variants(matrix_desc::packed(65536 * 32 + 5, 2, 1), 9, false);
}

TEST(Device, HostPointerIsRejected) {
  REQUIRE_GPU();
  std::vector<float> host_in(16, 1.f), host_out(16, -1.f);
  dev_buf dev(64);
  xpose::status s = xpose::transpose(host_in.data(), reinterpret_cast<float*>(dev.p), 4, 4);
  EXPECT_EQ(s.code(), xpose::status_code::not_device_memory) << s.message();
  s = xpose::transpose(reinterpret_cast<const float*>(dev.p), host_out.data(), 4, 4);
  EXPECT_EQ(s.code(), xpose::status_code::not_device_memory) << s.message();
  EXPECT_EQ(host_out[0], -1.f);
}

TEST(Device, BadBlockShapeIsRejected) {
  REQUIRE_GPU();
  dev_buf in(64 * 4), out(64 * 4);
  const xpose::status s = xpose::transpose_variant("tiled", in.p, out.p, matrix_desc::packed(8, 8, 4), {16, 8});
  EXPECT_EQ(s.code(), xpose::status_code::invalid_argument) << s.message();
}

TEST(Device, StreamOrderedAndGraphCapturable) {
  REQUIRE_GPU();
  const matrix_desc d = matrix_desc::packed(300, 500, 4);
  const std::size_t n = 300 * 500 * 4;
  const auto in = random_bytes(n, 12);
  std::vector<unsigned char> want(n), got(n);
  ASSERT_TRUE(xpose::transpose_reference(in.data(), want.data(), d).ok());
  dev_buf din(n), dout(n);
  cudaStream_t st;
  CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  CUDA_OK(cudaMemcpyAsync(din.p, in.data(), n, cudaMemcpyHostToDevice, st));
  CUDA_OK(cudaMemsetAsync(dout.p, 0xFF, n, st));
  cudaGraph_t graph;
  CUDA_OK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
  const xpose::status s = xpose::transpose(din.p, dout.p, d, st);
  CUDA_OK(cudaStreamEndCapture(st, &graph));
  ASSERT_TRUE(s.ok()) << s.message();
  cudaGraphExec_t exec;
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_OK(cudaGraphLaunch(exec, st));
  CUDA_OK(cudaMemcpyAsync(got.data(), dout.p, n, cudaMemcpyDeviceToHost, st));
  CUDA_OK(cudaStreamSynchronize(st));
  EXPECT_EQ(first_mismatch(got.data(), want.data(), d), "");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(st);
}

TEST(Device, MoreThanTwoToThe31Elements) {
  REQUIRE_GPU();
  // 50000 x 50000 int8 = 2.5e9 elements (> 2^31): checked on full edge rows and
  // columns and on 4 million random positions against the definition.
  const index_t R = 50000, C = 50000;
  const std::size_t n = static_cast<std::size_t>(R * C);
  std::size_t free_b = 0, total_b = 0;
  CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
  if (free_b < 2 * n + (std::size_t{1} << 30)) GTEST_SKIP() << "needs 5.1 GB of free device memory";
  std::vector<unsigned char> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
  dev_buf in(n), out(n);
  ASSERT_NE(in.p, nullptr);
  ASSERT_NE(out.p, nullptr);
  CUDA_OK(cudaMemcpy(in.p, host.data(), n, cudaMemcpyHostToDevice));
  for (const char* v : {"best", "tiled_padded", "naive"}) {
    SCOPED_TRACE(v);
    CUDA_OK(cudaMemset(out.p, 0xFF, n));
    const xpose::status s = xpose::transpose_variant(v, in.p, out.p, matrix_desc::packed(R, C, 1));
    ASSERT_TRUE(s.ok()) << s.message();
    std::vector<unsigned char> got(n);
    CUDA_OK(cudaMemcpy(got.data(), out.p, n, cudaMemcpyDeviceToHost));
    auto at = [&](index_t r, index_t c) {
      ASSERT_EQ(got[static_cast<std::size_t>(c * R + r)], host[static_cast<std::size_t>(r * C + c)])
          << "input (" << r << ", " << c << ")";
    };
    for (index_t k = 0; k < R; ++k) {
      for (index_t e : {index_t{0}, index_t{1}, C - 2, C - 1}) {
        at(k, e);
        at(e, k);
      }
      if (HasFatalFailure()) return;
    }
    std::mt19937_64 g(5);
    for (int k = 0; k < 4000000; ++k) {
      at(static_cast<index_t>(g() % R), static_cast<index_t>(g() % C));
      if (HasFatalFailure()) return;
    }
  }
}
