// xpose::dist over NCCL on GPU memory. Three streams: the caller's (packs, then the self
// block), the context's comm stream (grouped ncclSend/ncclRecv per chunk) and its unpack
// stream (pitched copies into the output rows), joined by events, so chunk k is exchanged
// while chunk k+1 is packed and chunk k-1 unpacked. No allocation, no host wait (except
// in the collective argument check, which the caller can turn off).
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>
#include <new>
#include <vector>

#include "plan.hpp"

namespace xpose::dist {

struct nccl_context {
  ncclComm_t comm = nullptr;
  int nranks = 1, rank = 0, device = 0, max_chunks = 1;
  cudaStream_t comm_stream = nullptr, unpack_stream = nullptr;
  std::vector<cudaEvent_t> events;        // start, comm done, unpack done, then 2 per chunk
  detail::record* dev_records = nullptr;  // nranks + 1 (the last one: this rank's send slot)
  detail::record* host_records = nullptr; // pinned, nranks + 1
  std::vector<index_t> offsets;           // row_off, col_off of the last agreed call
  detail::record agreed{};                // this rank's record of that call
  bool has_agreed = false;
};

namespace {

status cuda(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return {};
  cudaGetLastError();
  return status::make(status_code::cuda_error, "%s: %s", what, cudaGetErrorString(e));
}
status nccl(ncclResult_t r, const char* what) {
  if (r == ncclSuccess) return {};
  return status::make(status_code::comm_error, "%s: %s", what, ncclGetErrorString(r));
}

// Memory the caller's device can address with this pointer (checked before any collective).
bool device_accessible(const void* p) {
  if (p == nullptr) return true;  // null checks are check_memory's
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) return cudaGetLastError(), false;
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged ||
         (a.type == cudaMemoryTypeHost && a.devicePointer == p);
}

status unpack_device(const detail::pitched_copy& c, const unsigned char* recv, unsigned char* out, int es,
                     cudaStream_t s) {
  if (c.width == 0 || c.height == 0 || c.batch == 0) return {};
  const auto w = static_cast<std::size_t>(c.width * es);
  if (c.batch == 1 || c.dst_batch % c.dst_pitch != 0) {
    for (index_t b = 0; b < c.batch; ++b)
      if (status st = cuda(cudaMemcpy2DAsync(out + (c.dst_off + b * c.dst_batch) * es, c.dst_pitch * es,
                                             recv + (c.src_off + b * c.src_batch) * es, c.src_pitch * es, w,
                                             c.height, cudaMemcpyDeviceToDevice, s),
                           "cudaMemcpy2DAsync");
          !st.ok())
        return st;
    return {};
  }
  // All batches in one 3-D copy: the slice pitch of the output is its batch stride.
  cudaMemcpy3DParms m{};
  m.srcPtr = make_cudaPitchedPtr(const_cast<unsigned char*>(recv) + c.src_off * es, c.src_pitch * es, w, c.height);
  m.dstPtr = make_cudaPitchedPtr(out + c.dst_off * es, c.dst_pitch * es, w, c.dst_batch / c.dst_pitch);
  m.extent = make_cudaExtent(w, c.height, c.batch);
  m.kind = cudaMemcpyDeviceToDevice;
  return cuda(cudaMemcpy3DAsync(&m, s), "cudaMemcpy3DAsync");
}

status run(const detail::plan& p, nccl_context& ctx, const unsigned char* in, unsigned char* out,
           unsigned char* send, unsigned char* recv, cudaStream_t stream) {
  const int P = p.nranks, me = p.rank, es = p.elem_size, K = p.chunks;
  cudaEvent_t* ev = ctx.events.data();  // [0] start, [1] comm done, [2] unpack done, [3 + 2k] packed, [4 + 2k] received
  if (P > 1) {
    if (status s = cuda(cudaEventRecord(ev[0], stream), "cudaEventRecord"); !s.ok()) return s;
    cudaStreamWaitEvent(ctx.comm_stream, ev[0], 0);
    cudaStreamWaitEvent(ctx.unpack_stream, ev[0], 0);
  }
  for (int k = 0; k < K && P > 1; ++k) {
    for (int j = 1; j < P; ++j) {
      const detail::local_transpose t = detail::pack(p, (me + j) % P, k);
      if (status s = transpose(in + t.in_off * es, send + t.out_off * es, t.md, stream); !s.ok()) return s;
    }
    cudaEventRecord(ev[3 + 2 * k], stream);
    cudaStreamWaitEvent(ctx.comm_stream, ev[3 + 2 * k], 0);
    if (status s = nccl(ncclGroupStart(), "ncclGroupStart"); !s.ok()) return s;
    ncclResult_t first_error = ncclSuccess;
    for (int j = 1; j < P; ++j) {
      const int to = (me + j) % P, from = (me + P - j) % P;
      const detail::message sm = detail::send_message(p, to, k), rm = detail::recv_message(p, from, k);
      ncclResult_t r = ncclSuccess;
      if (sm.elems)
        r = ncclSend(send + sm.buf_off * es, static_cast<std::size_t>(sm.elems * es), ncclInt8, to, ctx.comm, ctx.comm_stream);
      if (r == ncclSuccess && rm.elems)
        r = ncclRecv(recv + rm.buf_off * es, static_cast<std::size_t>(rm.elems * es), ncclInt8, from, ctx.comm, ctx.comm_stream);
      if (first_error == ncclSuccess) first_error = r;
    }
    const ncclResult_t end = ncclGroupEnd();  // always closes the group
    if (status s = nccl(first_error != ncclSuccess ? first_error : end, "ncclSend/ncclRecv"); !s.ok()) return s;
    cudaEventRecord(ev[4 + 2 * k], ctx.comm_stream);
    cudaStreamWaitEvent(ctx.unpack_stream, ev[4 + 2 * k], 0);
    for (int j = 1; j < P; ++j)
      if (status s = unpack_device(detail::unpack(p, (me + P - j) % P, k), recv, out, es, ctx.unpack_stream); !s.ok())
        return s;
  }
  // The self block overlaps the exchanges still in flight.
  const detail::local_transpose self = detail::self_block(p);
  if (status s = transpose(in + self.in_off * es, out + self.out_off * es, self.md, stream); !s.ok()) return s;
  if (P > 1) {
    cudaEventRecord(ev[1], ctx.comm_stream);
    cudaEventRecord(ev[2], ctx.unpack_stream);
    cudaStreamWaitEvent(stream, ev[1], 0);
    cudaStreamWaitEvent(stream, ev[2], 0);
  }
  return cuda(cudaGetLastError(), "enqueue");
}

}  // namespace

status create_nccl_context(ncclComm_t comm, nccl_context** out, int max_chunks) noexcept {
  if (out == nullptr || comm == nullptr) return status::make(status_code::null_pointer, "comm or ctx is null");
  if (max_chunks < 1) return status::make(status_code::invalid_argument, "max_chunks must be >= 1");
  *out = nullptr;
  auto* c = new (std::nothrow) nccl_context;
  if (c == nullptr) return status::make(status_code::invalid_argument, "out of host memory");
  c->comm = comm;
  c->max_chunks = max_chunks;
  status s = nccl(ncclCommCount(comm, &c->nranks), "ncclCommCount");
  if (s.ok()) s = nccl(ncclCommUserRank(comm, &c->rank), "ncclCommUserRank");
  if (s.ok()) s = cuda(cudaGetDevice(&c->device), "cudaGetDevice");
  // The exchange gets the highest priority: its kernels then take SMs ahead of the packs
  // queued behind them, so local work cannot delay the transfer it is meant to hide behind.
  int least = 0, greatest = 0;
  if (s.ok()) s = cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  if (s.ok())
    s = cuda(cudaStreamCreateWithPriority(&c->comm_stream, cudaStreamNonBlocking, greatest), "cudaStreamCreate");
  if (s.ok()) s = cuda(cudaStreamCreateWithFlags(&c->unpack_stream, cudaStreamNonBlocking), "cudaStreamCreate");
  try {
    c->events.assign(3 + 2 * static_cast<std::size_t>(max_chunks), nullptr);
    c->offsets.assign(2 * static_cast<std::size_t>(c->nranks) + 2, 0);
  } catch (const std::bad_alloc&) {
    s = status::make(status_code::invalid_argument, "out of host memory");
  }
  for (cudaEvent_t& e : c->events)
    if (s.ok()) s = cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  const std::size_t rec_bytes = sizeof(detail::record) * (static_cast<std::size_t>(c->nranks) + 1);
  if (s.ok()) s = cuda(cudaMalloc(&c->dev_records, rec_bytes), "cudaMalloc");
  if (s.ok()) s = cuda(cudaMallocHost(&c->host_records, rec_bytes), "cudaMallocHost");
  if (!s.ok()) {
    destroy_nccl_context(c);
    return s;
  }
  *out = c;
  return {};
}

void destroy_nccl_context(nccl_context* c) noexcept {
  if (c == nullptr) return;
  for (cudaEvent_t e : c->events)
    if (e) cudaEventDestroy(e);
  if (c->comm_stream) cudaStreamDestroy(c->comm_stream);
  if (c->unpack_stream) cudaStreamDestroy(c->unpack_stream);
  if (c->dev_records) cudaFree(c->dev_records);
  if (c->host_records) cudaFreeHost(c->host_records);
  delete c;
}

status transpose_nccl(const void* in, void* out, const desc& d, void* workspace, std::size_t workspace_bytes,
                      nccl_context* ctx, cudaStream_t stream, const options& opt, bool check_collectively) noexcept {
  if (ctx == nullptr) return status::make(status_code::null_pointer, "nccl_context is null");
  const int P = ctx->nranks, me = ctx->rank;
  detail::local_view v;
  status mine = detail::local_checks(in, out, workspace, workspace_bytes, d, P, me, opt.chunks, ctx->max_chunks, &v);
  if (mine.ok() && (!device_accessible(in) || !device_accessible(out) || !device_accessible(workspace)))
    mine = status::make(status_code::not_device_memory, "input, output or workspace is not memory the GPU can access");
  int dev = -1;
  if (mine.ok() && cudaGetDevice(&dev) == cudaSuccess && dev != ctx->device)
    mine = status::make(status_code::invalid_argument, "the current device is %d, the communicator's is %d", dev,
                        ctx->device);
  const detail::record rec = detail::make_record(d, v, P, opt.chunks, mine);
  index_t* row_off = ctx->offsets.data();
  index_t* col_off = row_off + P + 1;
  if (check_collectively) {
    // One record per rank: host -> device slot -> allgather -> host, then one host wait.
    std::memcpy(&ctx->host_records[P], &rec, sizeof rec);
    status s = cuda(cudaMemcpyAsync(&ctx->dev_records[P], &ctx->host_records[P], sizeof rec, cudaMemcpyHostToDevice, stream),
                    "cudaMemcpyAsync");
    if (s.ok())
      s = nccl(ncclAllGather(&ctx->dev_records[P], ctx->dev_records, sizeof rec, ncclInt8, ctx->comm, stream),
               "ncclAllGather");
    if (s.ok())
      s = cuda(cudaMemcpyAsync(ctx->host_records, ctx->dev_records, sizeof rec * P, cudaMemcpyDeviceToHost, stream),
               "cudaMemcpyAsync");
    if (s.ok()) s = cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (!s.ok()) return s;
    ctx->has_agreed = false;
    if (s = detail::agree(ctx->host_records, P, me, mine, row_off, col_off); !s.ok()) return s;
    ctx->agreed = rec;
    ctx->has_agreed = true;
  } else {
    if (!mine.ok()) return mine;
    if (!ctx->has_agreed || std::memcmp(&rec, &ctx->agreed, sizeof rec) != 0)
      return status::make(status_code::invalid_argument,
                          "check_collectively=false needs a previous checked call with the same desc and options");
  }
  const detail::plan p = detail::make_plan(d, v, P, me, row_off, opt.chunks, ctx->max_chunks);
  auto* ws = static_cast<unsigned char*>(workspace);
  return run(p, *ctx, static_cast<const unsigned char*>(in), static_cast<unsigned char*>(out), ws,
             ws + v.recv_byte_off, stream);
}

}  // namespace xpose::dist
