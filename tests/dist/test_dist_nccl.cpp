// xpose::dist over NCCL: the shared cases (dist_cases.hpp) on 2 GPUs, one process with one
// thread per GPU (ncclCommInitAll), so no launcher is needed. Each successful call is run
// again with check_collectively = false and must give the same bytes. Exit 77 (skip) with
// a reason below 2 GPUs.
#include <cuda_runtime.h>
#include <nccl.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>

#include "dist_cases.hpp"

using namespace dist_test;

namespace {

std::atomic<int> capture_done{0}, capture_failures{0};

struct outcome {
  std::vector<std::pair<std::string, bool>> cases;
};

void rank_main(int me, int P, ncclComm_t comm, outcome* result) {
  cudaSetDevice(me);
  xd::nccl_context* ctx = nullptr;
  if (xpose::status s = xd::create_nccl_context(comm, &ctx); !s.ok()) {
    std::fprintf(stderr, "[rank %d] create_nccl_context: %s\n", me, s.message());
    result->cases.emplace_back("create_nccl_context", false);
    return;
  }
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  const call_fn call = [&](buffers& b, const void* in, void*, std::size_t ws_bytes, const xd::options& opt) {
    unsigned char *d_in = nullptr, *d_out = nullptr, *d_ws = nullptr;
    cudaMalloc(&d_in, b.in.size());
    cudaMalloc(&d_out, b.out.size());
    cudaMalloc(&d_ws, b.ws.size());
    cudaMemcpy(d_in, b.in.data(), b.in.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(d_out, b.out.data(), b.out.size(), cudaMemcpyHostToDevice);
    const void* pin = in == nullptr ? nullptr : d_in;
    xpose::status s = xd::transpose_nccl(pin, d_out, b.d, d_ws, ws_bytes, ctx, stream, opt);
    if (s.ok()) {
      // The unchecked path on the agreed layout must reproduce the same bytes.
      cudaStreamSynchronize(stream);
      cudaMemcpy(d_out, b.out.data(), b.out.size(), cudaMemcpyHostToDevice);
      s = xd::transpose_nccl(pin, d_out, b.d, d_ws, ws_bytes, ctx, stream, opt, false);
    }
    cudaStreamSynchronize(stream);
    cudaMemcpy(b.out.data(), d_out, b.out.size(), cudaMemcpyDeviceToHost);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess && s.ok())
      s = xpose::status::make(status_code::cuda_error, "%s", cudaGetErrorString(e));
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_ws);
    return s;
  };
  const report_fn report = [&](const char* name, bool ok) { result->cases.emplace_back(name, ok); };
  run_all(P, me, call, report);
  // Captured into a CUDA graph (after a checked call agreed on the layout) and replayed twice.
  {
    const spec s{"graph capture, f32 515 x 300, 3 chunks", 515, 300, 1, 4, true, false, 0, 0, 0, 3};
    buffers b = make(s, P, me);
    xd::options opt;
    opt.chunks = s.chunks;
    unsigned char *d_in = nullptr, *d_out = nullptr, *d_ws = nullptr;
    cudaMalloc(&d_in, b.in.size());
    cudaMalloc(&d_out, b.out.size());
    cudaMalloc(&d_ws, b.ws.size());
    cudaMemcpy(d_in, b.in.data(), b.in.size(), cudaMemcpyHostToDevice);
    bool ok = xd::transpose_nccl(d_in, d_out, b.d, d_ws, b.ws.size(), ctx, stream, opt).ok();
    cudaStreamSynchronize(stream);
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    ok = ok && cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess;
    const bool enqueued = ok && xd::transpose_nccl(d_in, d_out, b.d, d_ws, b.ws.size(), ctx, stream, opt, false).ok();
    ok = ok && cudaStreamEndCapture(stream, &graph) == cudaSuccess && enqueued;
    ok = ok && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;
    // Launch only if every rank captured: a graph alone would wait for its peer forever.
    capture_failures += ok ? 0 : 1;
    capture_done.fetch_add(1);
    while (capture_done.load() < P) std::this_thread::yield();
    ok = ok && capture_failures.load() == 0;
    for (int rep = 0; rep < 2 && ok; ++rep) {
      cudaMemcpy(d_out, b.out.data(), b.out.size(), cudaMemcpyHostToDevice);  // 0xFF again
      ok = cudaGraphLaunch(exec, stream) == cudaSuccess && cudaStreamSynchronize(stream) == cudaSuccess;
    }
    cudaMemcpy(b.out.data(), d_out, b.out.size(), cudaMemcpyDeviceToHost);
    if (!ok) std::fprintf(stderr, "[rank %d] graph capture: %s\n", me, cudaGetErrorString(cudaGetLastError()));
    report(s.name, ok && check_result(s, b, me));
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_ws);
  }
  // Big enough for every chunk to carry real traffic.
  exact({"f32 4099 x 3001, 4 chunks", 4099, 3001, 1, 4, true, true, 0, 0, 0, 4}, P, me, call, report);
  exact({"bf16 2048 x 2050 batched 3, policy", 2048, 2050, 3, 2, false, false, 0, 0, 0, 0}, P, me, call, report);
  cudaStreamDestroy(stream);
  xd::destroy_nccl_context(ctx);
}

}  // namespace

int main() {
  setenv("NCCL_NVLS_ENABLE", "0", 0);  // NVLink SHARP off unless the caller says otherwise
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 2) {
    std::printf("SKIP: xpose::dist NCCL test needs 2 GPUs, found %d\n", n);
    return 77;
  }
  const int P = 2;
  ncclComm_t comms[P];
  int devs[P] = {0, 1};
  if (ncclResult_t r = ncclCommInitAll(comms, P, devs); r != ncclSuccess) {
    std::printf("ncclCommInitAll: %s\n0 passed, 1 failed\n", ncclGetErrorString(r));
    return 1;
  }
  outcome results[P];
  std::vector<std::thread> threads;
  for (int r = 0; r < P; ++r) threads.emplace_back(rank_main, r, P, comms[r], &results[r]);
  for (std::thread& t : threads) t.join();
  int passed = 0, failed = 0;
  for (std::size_t i = 0; i < results[0].cases.size(); ++i) {
    bool ok = true;
    for (int r = 0; r < P; ++r) ok = ok && i < results[r].cases.size() && results[r].cases[i].second;
    ++(ok ? passed : failed);
    std::printf("[%s] %s (P=%d, NCCL)\n", ok ? "  OK  " : " FAIL ", results[0].cases[i].first.c_str(), P);
  }
  for (int r = 0; r < P; ++r) ncclCommDestroy(comms[r]);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}
