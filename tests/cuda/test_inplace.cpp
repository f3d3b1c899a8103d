// In-place transpose on the GPU: the device entry against the
// out-of-place oracle over the shared shape list, every element size, batches,
// workspace sizes, stream capture, and every rejected argument. Skips without a GPU.
#include <cuda_runtime.h>

#include "cuda_test_util.hpp"
#include <iterator>
#include <random>
#include <vector>

#include "inplace/inplace_blocks.hpp"
#include "inplace_cases.hpp"

using namespace xpose_test;

namespace {

// Round trip through device memory; the workspace is poisoned with 0xFF first.
xpose::status device_run(unsigned char* host, const matrix_desc& d, std::size_t ws_bytes) {
  const std::size_t n = static_cast<std::size_t>(d.rows * d.cols * d.batch * d.elem_size);
  dev_buf data(n), ws(ws_bytes);
  if (data.p == nullptr || ws.p == nullptr) return xpose::status::make(xpose::status_code::cuda_error, "cudaMalloc");
  cudaMemcpy(data.p, host, n, cudaMemcpyHostToDevice);
  cudaMemset(ws.p, 0xFF, ws_bytes);
  const xpose::status s = xpose::transpose_inplace(data.p, d, ws_bytes ? ws.p : nullptr, ws_bytes, nullptr);
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) return xpose::status::make(xpose::status_code::cuda_error, "%s", cudaGetErrorString(e));
  cudaMemcpy(host, data.p, n, cudaMemcpyDeviceToHost);
  return s;
}

}  // namespace

TEST(InplaceDevice, EveryShapeEveryElementSizeExactWorkspace) {
  REQUIRE_GPU();
  for (const auto& s : inplace_shapes())
    for (int es : elem_sizes()) {
      const matrix_desc d = matrix_desc::packed(s.rows, s.cols, es, s.batch);
      const auto st = check_inplace(d, inplace_ws(d, true), device_run, static_cast<std::uint64_t>(s.rows + es));
      EXPECT_TRUE(st.ok()) << st.message();
    }
}

TEST(InplaceDevice, LargerWorkspacesTakeWiderChunksOrTheOutOfPlacePath) {
  REQUIRE_GPU();
  for (const auto& s : inplace_shapes())
    for (int es : {1, 8, 16}) {
      const matrix_desc d = matrix_desc::packed(s.rows, s.cols, es, s.batch);
      const std::size_t ws = inplace_ws(d, true), full = static_cast<std::size_t>(s.rows * s.cols * es);
      for (std::size_t w : {ws + ws / 3 + es, full, full + 256}) {
        const auto st = check_inplace(d, w, device_run);
        EXPECT_TRUE(st.ok()) << st.message();
      }
    }
}

// Rows longer than 227 KiB (skinny shapes, 16-byte elements) take the workspace
// for the row pass.
TEST(InplaceDevice, LargeAndSkinnyShapes) {
  REQUIRE_GPU();
  const inplace_shape shapes[] = {{3000, 7001, 1}, {7001, 3000, 1}, {1200, 18000, 1}, {20000, 1000, 1},
                                  {1000003, 2, 1}, {2, 1000003, 1}, {400000, 31, 1}, {32, 400000, 1},
                                  {3, 700001, 2},  {4099, 4099, 1}, {8192, 8192, 1}};
  for (const auto& s : shapes)
    for (int es : {1, 4, 8, 16}) {
      const matrix_desc d = matrix_desc::packed(s.rows, s.cols, es, s.batch);
      const auto st = check_inplace(d, inplace_ws(d, true), device_run, static_cast<std::uint64_t>(s.cols + es));
      EXPECT_TRUE(st.ok()) << st.message();
    }
}

// Columns longer than 7264 rows do not fit in shared memory (227 KiB): the
// column passes go through the workspace, in several chunks with the exact size.
TEST(InplaceDevice, WorkspacePassesForLongColumns) {
  REQUIRE_GPU();
  const inplace_shape shapes[] = {{7300, 7303, 1}, {7303, 7300, 1}, {7290, 7776, 2}};
  for (const auto& s : shapes)
    for (int es : {1, 2}) {
      const matrix_desc d = matrix_desc::packed(s.rows, s.cols, es, s.batch);
      const std::size_t ws = inplace_ws(d, true);
      for (std::size_t w : {ws, 3 * ws}) {
        const auto st = check_inplace(d, w, device_run, static_cast<std::uint64_t>(s.rows + es));
        EXPECT_TRUE(st.ok()) << st.message();
      }
    }
}

// The short side divides the long one and a long row (the grid's C) exceeds shared
// memory (227 KiB): the row shuffle runs as blocked transposes through the
// workspace (shuffle_blocked), gather when wide, scatter when tall, in several
// chunks of rows (R > 4) and batches.
TEST(InplaceDevice, BlockedShuffleForSkinnyShapes) {
  REQUIRE_GPU();
  const inplace_shape shapes[] = {{2, 1000000, 1}, {1000000, 2, 1}, {4, 600000, 1}, {600000, 4, 1},
                                  {16, 300000, 1}, {300000, 16, 1}, {32, 250016, 1}, {250016, 32, 1},
                                  {8, 262144, 2},  {262144, 8, 2},  {64, 240000, 1}, {240000, 64, 1}};
  for (const auto& s : shapes) {
    for (int es : {1, 4, 16}) {
      const matrix_desc d = matrix_desc::packed(s.rows, s.cols, es, s.batch);
      const std::size_t ws = inplace_ws(d, true);
      for (std::size_t w : {ws, 2 * ws + static_cast<std::size_t>(es)}) {
        const auto st = check_inplace(d, w, device_run, static_cast<std::uint64_t>(s.rows + s.cols + es));
        EXPECT_TRUE(st.ok()) << s.rows << "x" << s.cols << " es " << es << ": " << st.message();
      }
    }
  }
}

// The blocked plans (inplace_blocks.hpp): square and other slabs both ways, slots
// of every word width (odd slot lengths), slabs going round one place and several
// (held >= 2: groups of slab transposes, batches taken per matrix and per slab),
// batches in one launch, and the benchmarked
// shapes (square slabs 16384 x 8192, 4096 x 12288; a 3 x 2^24 channel interleave;
// a batch of 64 of 1024 x 768).
TEST(InplaceDevice, BlockedPlans) {
  REQUIRE_GPU();
  namespace ip = xpose::detail::inplace;
  std::vector<inplace_shape> shapes{{200, 100, 1}, {100, 300, 3},  {1001, 77, 1}, {77, 1001, 2}, {3, 4096, 1},
                                    {4096, 3, 1},  {999, 16, 1},   {16, 999, 1},  {1000, 8, 2},  {6, 1200, 1}};
  std::mt19937_64 g(3434);
  int held_many = 0;  // plans whose slabs go round several places (k >= 8), batches below and above it
  while (shapes.size() < 60 || held_many < 12) {
    const index_t m = 2 + static_cast<index_t>(g() % 2000), n = 2 + static_cast<index_t>(g() % 2000);
    const ip::block_plan p = ip::make_block_plan(m, n, 2, true);
    if (p.kind == ip::block_kind::none || (shapes.size() >= 60 && p.held < 2)) continue;
    held_many += p.held >= 2;
    shapes.push_back({m, n, 1 + static_cast<index_t>(g() % 4)});
  }
  for (const auto& s : shapes)
    for (int es : elem_sizes()) {
      const matrix_desc d = matrix_desc::packed(s.rows, s.cols, es, s.batch);
      const auto st = check_inplace(d, inplace_ws(d, true), device_run, g());
      EXPECT_TRUE(st.ok()) << s.rows << "x" << s.cols << " es " << es << ": " << st.message();
    }
  const inplace_shape big[] = {{16384, 8192, 1}, {4096, 12288, 1}, {3, 1 << 24, 1}, {1 << 24, 3, 1}, {1024, 768, 64}};
  for (const auto& s : big)
    for (int es : {2, 4}) {
      const matrix_desc d = matrix_desc::packed(s.rows, s.cols, es, s.batch);
      ASSERT_NE(ip::make_block_plan(s.rows, s.cols, es, true).kind, ip::block_kind::none);
      EXPECT_LE(4 * inplace_ws(d, true), static_cast<std::size_t>(s.rows * s.cols * es * s.batch));
      const auto st = check_inplace(d, inplace_ws(d, true), device_run, g());
      EXPECT_TRUE(st.ok()) << s.rows << "x" << s.cols << " es " << es << ": " << st.message();
    }
}

// Rectangles without a blocked plan split off their last rows (inplace_blocks.hpp,
// split_plan): B a blocked plan or a square, batches one matrix after another through
// one workspace, every element size.
TEST(InplaceDevice, SplitPlans) {
  REQUIRE_GPU();
  namespace ip = xpose::detail::inplace;
  std::mt19937_64 g(5151);
  std::vector<inplace_shape> shapes;
  int square_b = 0;
  for (int t = 0; t < 400000 && (shapes.size() < 16 || square_b < 2); ++t) {
    const index_t m = 300 + static_cast<index_t>(g() % 1700), n = 300 + static_cast<index_t>(g() % 1700);
    if (m == n || ip::make_block_plan(m, n, 1, true).kind != ip::block_kind::none) continue;
    const ip::split_plan sp = ip::make_split_plan(m, n, 1, true);
    if (sp.r == 0) continue;
    const bool sq = sp.rows_b == n;
    if (shapes.size() >= 16 && !(sq && square_b < 2)) continue;
    square_b += sq;
    shapes.push_back({m, n, 1 + static_cast<index_t>(g() % 2)});
  }
  EXPECT_GE(square_b, 2);
  for (const auto& s : shapes)
    for (int es : elem_sizes()) {
      const matrix_desc d = matrix_desc::packed(s.rows, s.cols, es, s.batch);
      const auto st = check_inplace(d, inplace_ws(d, true), device_run, g());
      EXPECT_TRUE(st.ok()) << s.rows << "x" << s.cols << " es " << es << ": " << st.message();
    }
}

// Batches of 4 or more rectangles go through a workspace of a quarter of their matrices
// in groups (blocked, split and small shapes alike; the last group partial), every
// element size; batches of 2 and 3 keep their plans' workspace.
TEST(InplaceDevice, BatchesGoThroughTheWorkspaceInGroups) {
  REQUIRE_GPU();
  std::mt19937_64 g(7373);
  const inplace_shape fixed[] = {{1024, 768, 9}, {1009, 997, 5}, {3, 4099, 13}, {77, 1001, 4}, {2000, 7, 6}};
  std::vector<inplace_shape> shapes(std::begin(fixed), std::end(fixed));
  while (shapes.size() < 30) {
    const index_t m = 2 + static_cast<index_t>(g() % 1500), n = 2 + static_cast<index_t>(g() % 1500);
    if (m != n) shapes.push_back({m, n, 2 + static_cast<index_t>(g() % 10)});
  }
  for (const auto& s : shapes)
    for (int es : elem_sizes()) {
      const matrix_desc d = matrix_desc::packed(s.rows, s.cols, es, s.batch);
      const std::size_t ws = inplace_ws(d, true), M = static_cast<std::size_t>(s.rows * s.cols * es);
      if (s.batch >= 4) EXPECT_EQ(ws, static_cast<std::size_t>(s.batch / 4) * M);
      EXPECT_LE(4 * ws, M * static_cast<std::size_t>(s.batch));
      const auto st = check_inplace(d, ws, device_run, g());
      EXPECT_TRUE(st.ok()) << s.rows << "x" << s.cols << " es " << es << " batch " << s.batch << ": " << st.message();
    }
}

// Squares with 16-byte rows take the 16-byte tiles (swizzled for 1 and 2-byte
// elements): one tile, partial last tiles, many pairs, batches.
TEST(InplaceDevice, SquaresWithSixteenByteRows) {
  REQUIRE_GPU();
  for (index_t n : {16, 32, 64, 80, 128, 144, 208, 384, 400, 1040, 2064}) {
    for (int es : {1, 2, 4}) {
      for (index_t batch : {1, 3}) {
        const matrix_desc d = matrix_desc::packed(n, n, es, batch);
        const auto st = check_inplace(d, 0, device_run, static_cast<std::uint64_t>(n * 7 + es + batch));
        EXPECT_TRUE(st.ok()) << n << " es " << es << " batch " << batch << ": " << st.message();
      }
    }
  }
}

TEST(InplaceDevice, RandomShapes) {
  REQUIRE_GPU();
  std::mt19937_64 g(1414);
  for (int t = 0; t < 200; ++t) {
    const index_t m = 1 + static_cast<index_t>(g() % 3000), n = 1 + static_cast<index_t>(g() % 3000);
    const int es = elem_sizes()[g() % 5];
    const matrix_desc d = matrix_desc::packed(m, n, es, 1 + static_cast<index_t>(g() % 2));
    const auto st = check_inplace(d, inplace_ws(d, true), device_run, g());
    EXPECT_TRUE(st.ok()) << st.message();
  }
}

TEST(InplaceDevice, CapturesIntoAGraph) {
  REQUIRE_GPU();
  const matrix_desc d = matrix_desc::packed(3000, 1700, 4);
  const std::size_t n = 3000 * 1700 * 4, wsb = inplace_ws(d, true);
  auto orig = random_bytes(n, 5);
  std::vector<unsigned char> want(n), got(n);
  ASSERT_TRUE(xpose::transpose_reference(orig.data(), want.data(), d).ok());
  dev_buf data(n), ws(wsb);
  ASSERT_NE(data.p, nullptr);
  CUDA_OK(cudaMemcpy(data.p, orig.data(), n, cudaMemcpyHostToDevice));
  cudaStream_t st = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  CUDA_OK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  const xpose::status s = xpose::transpose_inplace(data.p, d, ws.p, wsb, st);
  CUDA_OK(cudaStreamEndCapture(st, &graph));
  ASSERT_TRUE(s.ok()) << s.message();
  cudaGraphExec_t exec = nullptr;
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_OK(cudaGraphLaunch(exec, st));
  CUDA_OK(cudaStreamSynchronize(st));
  CUDA_OK(cudaMemcpy(got.data(), data.p, n, cudaMemcpyDeviceToHost));
  EXPECT_EQ(first_mismatch(got.data(), want.data(), d), "");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(st);
}

TEST(InplaceDevice, RejectionsAreNamedAndTouchNothing) {
  REQUIRE_GPU();
  using sc = xpose::status_code;
  const matrix_desc d = matrix_desc::packed(300, 700, 4, 2);
  const std::size_t ws = inplace_ws(d, true);
  ASSERT_GT(ws, 0u);
  auto with = [](std::size_t pass_bytes, bool null_ws, std::size_t ws_shift, std::size_t data_shift) {
    return [=](unsigned char* host, const matrix_desc& dd, std::size_t w) {
      const std::size_t n = static_cast<std::size_t>(dd.rows * dd.cols * dd.batch * dd.elem_size);
      dev_buf data(n + 16), wsb(w + 16);
      cudaMemcpy(data.p + data_shift, host, n, cudaMemcpyHostToDevice);
      const auto s = xpose::transpose_inplace(data.p + data_shift, dd, null_ws ? nullptr : wsb.p + ws_shift,
                                              pass_bytes, nullptr);
      cudaDeviceSynchronize();
      cudaMemcpy(host, data.p + data_shift, n, cudaMemcpyDeviceToHost);
      return s;
    };
  };
  EXPECT_EQ(check_inplace(d, ws, with(ws - 1, false, 0, 0)).code(), sc::workspace_too_small);
  EXPECT_EQ(check_inplace(d, ws, with(ws, true, 0, 0)).code(), sc::null_pointer);
  EXPECT_EQ(check_inplace(d, ws, with(ws, false, 2, 0)).code(), sc::misaligned);
  EXPECT_EQ(check_inplace(d, ws, with(ws, false, 0, 2)).code(), sc::misaligned);
  // Host memory is refused by the device entry.
  std::vector<unsigned char> host(300 * 300 * 4);
  EXPECT_EQ(xpose::transpose_inplace(host.data(), matrix_desc::packed(300, 300, 4), nullptr, 0).code(),
            sc::not_device_memory);
}
