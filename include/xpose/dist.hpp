// xpose::dist (optional component): a matrix distributed by row blocks over P ranks,
// transposed into row blocks of the result, over the caller's NCCL communicator (GPU
// memory) or MPI communicator (host memory). Blocks may have any sizes. Link
// xpose::dist_nccl and/or xpose::dist_mpi; the core library never depends on this.
#pragma once

#include <cstddef>

#include "xpose/xpose.hpp"

#if defined(XPOSE_DIST_MPI)
#include <mpi.h>
#endif
#if defined(XPOSE_DIST_NCCL)
#include <nccl.h>
#endif

namespace xpose::dist {

/// One rank's view of a distributed transpose. The global matrix is global_rows x cols
/// (times batch); rank r holds rows [row_off[r], row_off[r] + rows) of it, packed or with
/// pitch ld_in, and receives rows [col_off[r], col_off[r] + out_rows) of the result
/// (global_rows columns each, pitch ld_out), i.e. columns col_off[r].. of the input.
/// Offsets are the prefix sums, in rank order, of every rank's `rows` / `out_rows`.
///
/// Every call first agrees on these values across ranks (one small allgather), so a rank
/// whose view differs makes every rank return size_mismatch instead of hanging.
struct desc {
  index_t global_rows = 0;  ///< rows of the whole input (same on every rank)
  index_t cols = 0;         ///< columns of the whole input (same on every rank)
  index_t rows = 0;         ///< rows this rank holds (its input row block); any size >= 0
  index_t out_rows = -1;    ///< rows of the result this rank receives; -1 = even_split(cols)
  index_t batch = 1;        ///< matrices, each distributed the same way
  int elem_size = 4;        ///< bytes: 1, 2, 4, 8 or 16
  index_t ld_in = 0;        ///< input row pitch in elements; 0 = cols
  index_t ld_out = 0;       ///< output row pitch in elements; 0 = global_rows
  index_t stride_in = 0;    ///< input batch stride; 0 = rows * ld_in
  index_t stride_out = 0;   ///< output batch stride; 0 = out_rows * ld_out
  /// Optional, checked: the number of ranks the caller expects (0 = no check), and every
  /// rank's row / out_row counts as the caller believes them (length nranks; null = not
  /// given). When out_counts is given and out_rows is -1, out_rows = out_counts[rank].
  int nranks = 0;
  const index_t* row_counts = nullptr;
  const index_t* out_counts = nullptr;
};

/// The even split of n over P ranks: n / P each, the first n % P ranks one more.
index_t even_split(index_t n, int nranks, int rank) noexcept;

/// Pipelining and backend knobs.
struct options {
  int chunks = 0;  ///< column chunks pipelined through the exchange; 0 = policy (RESULTS.md, "Distributed transposes")
  int host_threads = 0;  ///< MPI path: threads of the CPU transposes (0 = OpenMP default)
};

/// Bytes of workspace this rank needs for `d` on a communicator of nranks ranks, of
/// which it is `rank` (send and receive buffers of its off-diagonal blocks; 0 when P = 1).
/// Local: no communication. Fails on a desc that is invalid on its own.
status workspace_size(const desc& d, int nranks, int rank, std::size_t* bytes) noexcept;

#if defined(XPOSE_DIST_MPI)
/// Host memory over MPI. Collective over `comm`: every rank calls it. Synchronous.
/// The self block is transposed locally; the others are packed (xpose::transpose_host),
/// exchanged with MPI_Isend/MPI_Irecv in `chunks` pipelined steps, and unpacked.
/// A bad argument on any rank makes every rank return the same status code, before
/// any output is written.
status transpose_mpi(const void* in, void* out, const desc& d, void* workspace,
                     std::size_t workspace_bytes, MPI_Comm comm, const options& opt = {}) noexcept;
#endif

#if defined(XPOSE_DIST_NCCL)
/// Streams, events and a small device buffer for the collective argument check, made once
/// per communicator (cudaStreamCreate, cudaEventCreate, cudaMalloc happen here, never in
/// transpose_nccl). Create on the device the communicator belongs to.
struct nccl_context;
status create_nccl_context(ncclComm_t comm, nccl_context** ctx, int max_chunks = 16) noexcept;
void destroy_nccl_context(nccl_context* ctx) noexcept;

/// GPU memory over NCCL. Collective over the context's communicator. Ordered on `stream`:
/// in/out/workspace are used after the work already on `stream` and are done when later
/// work on `stream` starts. When `check_collectively` (the default), the arguments are
/// agreed on with one small ncclAllGather and a host wait on `stream` (so the call is then
/// not graph-capturable); pass false in a captured or hot loop after a checked call on
/// this context with the same desc and options (else invalid_argument): it reuses that
/// agreed layout. Local checks still run, but a rank that fails them alone then leaves
/// its peers waiting in NCCL.
status transpose_nccl(const void* in, void* out, const desc& d, void* workspace,
                      std::size_t workspace_bytes, nccl_context* ctx, cudaStream_t stream,
                      const options& opt = {}, bool check_collectively = true) noexcept;
#endif

}  // namespace xpose::dist
