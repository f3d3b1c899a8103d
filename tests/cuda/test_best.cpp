// GPU tests of the fast path `best`: every element size x the shape classes
// (ragged, skinny, tiny, huge, padded, batched) x aligned and unaligned
// pointers, bitwise against the CPU reference on a 0xFF-poisoned output (gaps and
// padding must stay untouched); graph capture; no allocation. Skip without a GPU.
#include <cuda_runtime.h>
#include <xpose/registry.hpp>

#include <utility>

#include "best_check.hpp"

using namespace xpose_test;

namespace {

const std::vector<std::pair<index_t, index_t>>& shapes() {
  static const std::vector<std::pair<index_t, index_t>> s{
      {1, 1},      {1, 2},     {2, 1},      {7, 9},      {1, 100003}, {100003, 1}, {2, 50001}, {3, 100003},
      {100003, 3}, {15, 5001}, {5001, 17},  {16, 4096},  {4096, 16},  {17, 4095},  {32, 20000}, {20000, 32},
      {64, 64},    {255, 257}, {256, 256},  {1023, 1025}, {2053, 4099}};
  return s;
}

}  // namespace

TEST(Best, IsRegisteredAsTheFastPath) {
  const xpose::variant_info* v = xpose::find_variant("best");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->kind, xpose::variant_kind::fast);
  EXPECT_TRUE(v->transposes);
  for (int es : {1, 2, 4, 8, 16}) EXPECT_TRUE(xpose::supports_elem_size(*v, es));
}

TEST(Best, EveryElementSizeEveryShapeAlignedAndUnaligned) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8, 16})
    for (auto [r, c] : shapes()) {
      const matrix_desc d = matrix_desc::packed(r, c, es);
      check_best(d, static_cast<std::uint64_t>(r * 7 + c));
      if (r * c <= 300000) {
        check_best(d, 1, 1, 0);
        check_best(d, 2, 0, 1);
        check_best(d, 3, 3, 5);
      }
      if (HasFatalFailure()) return;
    }
}

TEST(Best, PaddedLeadingDimensionsAndGappedBatches) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8, 16}) {
    // pad so that rows stay 16-byte aligned (vector path) and not (narrower path)
    const index_t v = 16 / es;  // elements per 16 bytes
    check_best(padded(300, 500, es, 1, v, 2 * v, 0), 20);
    check_best(padded(300, 500, es, 1, 1, 0, 0), 21);
    check_best(padded(300, 500, es, 1, 0, 3, 0), 22);
    check_best(padded(77, 1000, es, 3, v, v, v), 23);
    check_best(padded(1000, 77, es, 3, 5, 1, 1), 24);
    check_best(padded(5, 3000, es, 4, v, 0, 0), 25);   // few rows, padded input
    check_best(padded(3000, 5, es, 4, 0, v, 0), 26);   // few cols, padded output
    check_best(padded(5, 3000, es, 4, 0, 1, 0), 27);   // few rows, padded output: tile path
    check_best(padded(3000, 5, es, 4, 1, 0, 0), 28);   // few cols, padded input: tile path
    if (HasFatalFailure()) return;
  }
}

TEST(Best, Batches) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8, 16}) {
    check_best(matrix_desc::packed(64, 64, es, es == 16 ? 1000 : 10000), 30);
    check_best(matrix_desc::packed(64, 64, es, 300), 31, 1, 1);
    check_best(matrix_desc::packed(5, 3, es, 70000), 32);
    check_best(matrix_desc::packed(1, 7, es, 1000), 33);
    check_best(matrix_desc::packed(7, 1, es, 1000), 34);
    check_best(matrix_desc::packed(33, 65, es, 17), 35, 0, 1);
    matrix_desc one_input = matrix_desc::packed(40, 50, es, 5);
    one_input.stride_in = 0;  // one input, many outputs
    check_best(one_input, 36);
    if (HasFatalFailure()) return;
  }
}

TEST(Best, RaggedLarge) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4}) {
    check_best(matrix_desc::packed(16383, 16385 / (es == 4 ? 2 : 1), es), 40);
    if (HasFatalFailure()) return;
  }
}

// Realigning path (policy table: best_class_policy_for(...).realign, element sizes 1, 2, 4, 8): rows, pointers
// and strides only element-aligned, at every residue mod 16; multi-tile, partial tiles,
// padded leading dimensions, batches with odd strides; the input ends at the
// allocation's end (memcheck sees any read past it).
TEST(Best, RealignEveryOffset) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8}) {
    const index_t v = 16 / es;
    for (index_t o = 0; o < v; ++o) {
      check_best(matrix_desc::packed(300, 517, es), 60 + o, o, (o * 3) % v);
      check_best(matrix_desc::packed(129, 257, es), 61 + o, (o * 5) % v, o);
      if (HasFatalFailure()) return;
    }
    check_best(padded(300, 500, es, 1, 1, 3, 0), 62, 1, 2);
    check_best(padded(257, 131, es, 3, 3, 1, 5), 63, 2, 1);
    check_best(padded(77, 1000, es, 5, 1, v, 1), 64, 0, 0);
    check_best(matrix_desc::packed(33, 65, es, 7), 65, 1, 1);
    check_best(matrix_desc::packed(3, 1001, es, 5), 66, 1, 0);
    check_best(matrix_desc::packed(1001, 3, es, 5), 67, 0, 1);
    check_best(matrix_desc::packed(1, 333, es, 9), 68, 1, 1);
    if (HasFatalFailure()) return;
  }
}

// Small tiles for 1- and 2-byte elements (tile_few_rows, tile_narrow): 16-byte-aligned
// shapes with <= 32 rows (few_rows), <= 64 rows or <= 128-byte rows (narrow), full and
// partial tiles, batches, and the same shapes unaligned (realigning path).
TEST(Best, SmallTilesForSmallElements) {
  REQUIRE_GPU();
  for (int es : {1, 2}) {
    const index_t v = 16 / es;
    for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{
             {32, 20000}, {32, 4096}, {16 + v, 4096}, {31, 20000}, {64, 20000}, {48, 4096}, {20000, 32},
             {20000, 128 / es}, {4096, 48}, {4097, 64}, {64, 64}, {32, 32}, {v, 256}}) {
      check_best(matrix_desc::packed(r, c, es), static_cast<std::uint64_t>(r + c));
      check_best(matrix_desc::packed(r, c, es), 70, 1, 0);
      if (HasFatalFailure()) return;
    }
    check_best(matrix_desc::packed(64, 64, es, 10000), 71);
    check_best(matrix_desc::packed(32, 64, es, 777), 72);
    check_best(matrix_desc::packed(64, 32, es, 777), 73);
    check_best(matrix_desc::packed(48, 80, es, 100), 74);
    check_best(padded(32, 3000, es, 4, v, v, 2 * v), 75);
    check_best(padded(3000, 32, es, 4, v, v, 2 * v), 76);
    if (HasFatalFailure()) return;
  }
}

// More than 2^31 elements: Device.MoreThanTwoToThe31Elements (test_device.cpp) runs
// best with the ladder on 50000 x 50000 int8.

TEST(Best, GraphCaptureNoAllocationNoSync) {
  REQUIRE_GPU();
  cudaStream_t st;
  CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  for (int es : {1, 2, 4, 8, 16})
    for (auto [r, c] : {std::pair<index_t, index_t>{300, 500}, {3, 7001}, {7001, 3}, {1, 999}}) {
      SCOPED_TRACE(std::to_string(es) + "B " + std::to_string(r) + "x" + std::to_string(c));
      const matrix_desc d = matrix_desc::packed(r, c, es);
      const std::size_t n = static_cast<std::size_t>(r * c) * static_cast<std::size_t>(es);
      const auto in = random_bytes(n, 50 + es);
      std::vector<unsigned char> want(n), got(n);
      ASSERT_TRUE(xpose::transpose_reference(in.data(), want.data(), d).ok());
      dev_buf din(n), dout(n);
      CUDA_OK(cudaMemcpy(din.p, in.data(), n, cudaMemcpyHostToDevice));
      // One uncaptured call first: with lazy module loading (CUDA's default) the driver
      // loads a kernel's module, and allocates for it, on its first use; that is the
      // driver's one-time cost, not an allocation of the call under test.
      ASSERT_TRUE(xpose::transpose_variant("best", din.p, dout.p, d, {}, st).ok());
      CUDA_OK(cudaDeviceSynchronize());
      // Free memory before and after the capture. ctest runs GPU tests in parallel, so
      // another process may allocate in between: an allocation of the call recurs on every
      // capture, so the capture is repeated (up to 3 times) until one sees no change.
      std::size_t free0 = 0, free1 = 0, total = 0;
      cudaGraph_t graph = nullptr;
      xpose::status s;
      for (int attempt = 0; attempt < 3; ++attempt) {
        if (graph) CUDA_OK(cudaGraphDestroy(graph));
        CUDA_OK(cudaMemGetInfo(&free0, &total));
        CUDA_OK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
        s = xpose::transpose_variant("best", din.p, dout.p, d, {}, st);
        CUDA_OK(cudaStreamEndCapture(st, &graph));
        ASSERT_TRUE(s.ok()) << s.message();
        CUDA_OK(cudaMemGetInfo(&free1, &total));
        if (free0 == free1) break;
      }
      EXPECT_EQ(free0, free1) << "device memory was allocated (on each of 3 captures)";
      std::size_t nodes = 0;
      CUDA_OK(cudaGraphGetNodes(graph, nullptr, &nodes));
      std::vector<cudaGraphNode_t> list(nodes);
      CUDA_OK(cudaGraphGetNodes(graph, list.data(), &nodes));
      EXPECT_GE(nodes, 1u);
      for (cudaGraphNode_t node : list) {
        cudaGraphNodeType type;
        CUDA_OK(cudaGraphNodeGetType(node, &type));
        EXPECT_TRUE(type == cudaGraphNodeTypeKernel || type == cudaGraphNodeTypeMemcpy) << "node type " << type;
      }
      cudaGraphExec_t exec;
      CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
      for (int rep = 0; rep < 2; ++rep) {
        CUDA_OK(cudaMemsetAsync(dout.p, 0xFF, n, st));
        CUDA_OK(cudaGraphLaunch(exec, st));
        CUDA_OK(cudaMemcpyAsync(got.data(), dout.p, n, cudaMemcpyDeviceToHost, st));
        CUDA_OK(cudaStreamSynchronize(st));
        EXPECT_EQ(first_mismatch(got.data(), want.data(), d), "");
      }
      cudaGraphExecDestroy(exec);
      cudaGraphDestroy(graph);
      if (HasFatalFailure()) break;
    }
  cudaStreamDestroy(st);
}
