// xpose::dist over NCCL on GPU memory. Three streams of the context: local (packs and
// self-block chunks), comm (grouped ncclSend/ncclRecv per chunk) and unpack (pitched
// copies into the output rows), forked from and joined back to the caller's stream with
// events; run() has the timeline. No allocation, no host wait (except in the collective
// argument check, which the caller can turn off).
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
  cudaStream_t comm_stream = nullptr, unpack_stream = nullptr, local_stream = nullptr;
  std::vector<cudaEvent_t> events;        // see run(): fixed_events + events_per_chunk * max_chunks
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

// Event slots: [0] start, [1..3] comm / unpack / local done, then per chunk k
// [4 + 3k] packed, [5 + 3k] exchange k next in line, [6 + 3k] received.
constexpr int fixed_events = 4, events_per_chunk = 3;

// Step k's local work on s: pack chunk k+1 (then mark packed_next), then self chunk k.
// k = -1: pack chunk 0 only.
status enqueue_local_step(const detail::plan& p, int k, const unsigned char* in, unsigned char* out,
                          unsigned char* send, cudaStream_t s, cudaEvent_t packed_next) {
  const int P = p.nranks, me = p.rank, es = p.elem_size;
  if (k + 1 < p.chunks) {  // pack chunk k+1 first: exchange k+1 waits for it
    for (int j = 1; j < P; ++j) {
      const detail::local_transpose t = detail::pack(p, (me + j) % P, k + 1);
      if (status st = transpose(in + t.in_off * es, send + t.out_off * es, t.md, s); !st.ok()) return st;
    }
    if (status st = cuda(cudaEventRecord(packed_next, s), "cudaEventRecord"); !st.ok()) return st;
  }
  if (k < 0) return {};
  const detail::local_transpose self = detail::self_chunk(p, k);
  return transpose(in + self.in_off * es, out + self.out_off * es, self.md, s);
}

// Timeline (docs/RESULTS.md "Distributed: the pipeline, and why the local work is not
// hidden"). Streams:
// L = local (lowest priority: packs, self chunks), C = comm (highest), U = unpack.
//   L: pack 0 | for k: [wait next_k] pack k+1, mark packed_{k+1}, self chunk k
//   C: for k: [wait packed_k] mark next_k, exchange k, mark received_k
//   U: for k: [wait received_k] unpack k
// so exchange k || (pack k+1, self chunk k) || unpack k-1; exposed: pack 0, unpack K-1.
// next_k is why the local work waits: a transpose grid being dispatched takes each
// SM's room as its blocks retire, and an NCCL block (hundreds of threads, most of an SM)
// cannot start until that grid has drained, whatever the priorities (they order pending
// blocks, they reserve no SM). So step k's local work is released only when exchange k
// is next in line on C, and is short enough to end before exchange k+1 is ready.
status run(const detail::plan& p, nccl_context& ctx, const unsigned char* in, unsigned char* out,
           unsigned char* send, unsigned char* recv, cudaStream_t stream) {
  const int P = p.nranks, me = p.rank, es = p.elem_size, K = p.chunks;
  if (P == 1) {
    const detail::local_transpose self = detail::self_block(p);
    if (status s = transpose(in + self.in_off * es, out + self.out_off * es, self.md, stream); !s.ok()) return s;
    return cuda(cudaGetLastError(), "enqueue");
  }
  cudaEvent_t* ev = ctx.events.data();
  const auto packed = [&](int k) { return ev[fixed_events + events_per_chunk * k]; };
  const auto next = [&](int k) { return ev[fixed_events + events_per_chunk * k + 1]; };
  const auto received = [&](int k) { return ev[fixed_events + events_per_chunk * k + 2]; };
  cudaStream_t L = ctx.local_stream, C = ctx.comm_stream, U = ctx.unpack_stream;
  if (status s = cuda(cudaEventRecord(ev[0], stream), "cudaEventRecord"); !s.ok()) return s;
  for (cudaStream_t t : {L, C, U})
    if (status s = cuda(cudaStreamWaitEvent(t, ev[0], 0), "cudaStreamWaitEvent"); !s.ok()) return s;
  if (status s = enqueue_local_step(p, -1, in, out, send, L, packed(0)); !s.ok()) return s;
  for (int k = 0; k < K; ++k) {
    cudaStreamWaitEvent(C, packed(k), 0);
    cudaEventRecord(next(k), C);
    if (status s = nccl(ncclGroupStart(), "ncclGroupStart"); !s.ok()) return s;
    ncclResult_t first_error = ncclSuccess;
    for (int j = 1; j < P; ++j) {
      const int to = (me + j) % P, from = (me + P - j) % P;
      const detail::message sm = detail::send_message(p, to, k), rm = detail::recv_message(p, from, k);
      ncclResult_t r = ncclSuccess;
      if (sm.elems)
        r = ncclSend(send + sm.buf_off * es, static_cast<std::size_t>(sm.elems * es), ncclInt8, to, ctx.comm, C);
      if (r == ncclSuccess && rm.elems)
        r = ncclRecv(recv + rm.buf_off * es, static_cast<std::size_t>(rm.elems * es), ncclInt8, from, ctx.comm, C);
      if (first_error == ncclSuccess) first_error = r;
    }
    const ncclResult_t end = ncclGroupEnd();  // always closes the group
    if (status s = nccl(first_error != ncclSuccess ? first_error : end, "ncclSend/ncclRecv"); !s.ok()) return s;
    cudaEventRecord(received(k), C);
    cudaStreamWaitEvent(U, received(k), 0);
    for (int j = 1; j < P; ++j)
      if (status s = unpack_device(detail::unpack(p, (me + P - j) % P, k), recv, out, es, U); !s.ok()) return s;
    cudaStreamWaitEvent(L, next(k), 0);
    if (status s = enqueue_local_step(p, k, in, out, send, L, k + 1 < K ? packed(k + 1) : nullptr); !s.ok())
      return s;
  }
  int i = 1;
  for (cudaStream_t t : {C, U, L}) {
    cudaEventRecord(ev[i], t);
    cudaStreamWaitEvent(stream, ev[i++], 0);
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
  // The exchange gets the highest priority: when its blocks and local ones are pending
  // together (run() arranges that they are), its blocks are placed first.
  int least = 0, greatest = 0;
  if (s.ok()) s = cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  if (s.ok())
    s = cuda(cudaStreamCreateWithPriority(&c->comm_stream, cudaStreamNonBlocking, greatest), "cudaStreamCreate");
  // Local work and unpacks at the lowest priority, whatever the caller's stream has.
  if (s.ok())
    s = cuda(cudaStreamCreateWithPriority(&c->unpack_stream, cudaStreamNonBlocking, least), "cudaStreamCreate");
  if (s.ok())
    s = cuda(cudaStreamCreateWithPriority(&c->local_stream, cudaStreamNonBlocking, least), "cudaStreamCreate");
  try {
    c->events.assign(fixed_events + events_per_chunk * static_cast<std::size_t>(max_chunks), nullptr);
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
  if (c->local_stream) cudaStreamDestroy(c->local_stream);
  if (c->dev_records) cudaFree(c->dev_records);
  if (c->host_records) cudaFreeHost(c->host_records);
  delete c;
}

status transpose_nccl(const void* in, void* out, const desc& d, void* workspace, std::size_t workspace_bytes,
                      nccl_context* ctx, cudaStream_t stream, const options& opt, bool check_collectively) noexcept {
  if (ctx == nullptr) return status::make(status_code::null_pointer, "nccl_context is null");
  const int P = ctx->nranks, me = ctx->rank;
  detail::local_view v;
  status mine = detail::local_checks(in, out, workspace, workspace_bytes, d, P, me, opt, ctx->max_chunks, &v);
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
