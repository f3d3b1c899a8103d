// xpose::dist internals shared by the MPI and NCCL backends: local checks, the record
// every rank contributes to the collective agreement, the agreement itself, and the
// chunk/block index math (once, here) that both backends' pack/exchange/unpack use.
#pragma once

#include <cstddef>
#include <cstdint>

#include "xpose/dist.hpp"

namespace xpose::dist::detail {

/// What one rank tells the others before anything moves (fixed-size, plain bytes).
struct record {
  std::int64_t code, rows, out_rows, global_rows, cols, batch, elem_size, nranks, rows_hash,
      outs_hash, chunks, reserved;
};

/// One rank's desc with defaults filled in and its buffer sizes.
struct local_view {
  index_t rows = 0, out_rows = 0, ld_in = 0, ld_out = 0, stride_in = 0, stride_out = 0;
  index_t send_elems = 0, recv_elems = 0;  // off-diagonal blocks, all batches
  std::size_t recv_byte_off = 0;           // start of the receive buffer in the workspace
  std::size_t workspace_bytes = 0;
};

/// Checks d on its own (no pointer, no communication) and fills v.
status resolve(const desc& d, int nranks, int rank, local_view* v) noexcept;

/// Checks the caller's pointers and workspace against a resolved view (local).
status check_memory(const void* in, const void* out, const void* ws, std::size_t ws_bytes,
                    const desc& d, const local_view& v) noexcept;

/// This rank's record: `s` is the outcome of its local checks.
record make_record(const desc& d, const local_view& v, int nranks, int chunks, const status& s) noexcept;

/// Decides from every rank's record (identical on every rank, so every rank returns the
/// same code). On success fills row_off and col_off (nranks + 1 entries each).
status agree(const record* all, int nranks, int rank, const status& mine, index_t* row_off,
             index_t* col_off) noexcept;

/// Everything a backend needs once the ranks agree.
struct plan {
  int nranks = 1, rank = 0, chunks = 1;
  index_t global_rows = 0, cols = 0, batch = 1;
  int elem_size = 4;
  local_view v;
  const index_t* row_off = nullptr;  // nranks + 1
  const index_t* col_off = nullptr;  // nranks + 1
};

/// Chunk count both sides use (same on every rank: depends on agreed values only).
int chunk_count(const plan& p, int requested, int max_chunks) noexcept;

/// Every local check of one call, so that the agreement carries it: the desc (with
/// xpose::validate's rules on every pitch, used or not), memory, the chunk request and
/// the host thread count (check_host_options). Fills v.
status local_checks(const void* in, const void* out, const void* ws, std::size_t ws_bytes, const desc& d,
                    int nranks, int rank, const options& opt, int max_chunks, local_view* v) noexcept;

/// The plan of an agreed call; offs holds row_off then col_off (nranks + 1 each).
plan make_plan(const desc& d, const local_view& v, int nranks, int rank, const index_t* offs, int chunks,
               int max_chunks) noexcept;

/// Relative size of chunk j of K: 2^min(j, K-1-j), capped at 2^4. The pipeline exposes
/// only the first chunk's pack and the last chunk's unpack, so those are the smallest;
/// while chunk j is exchanged the GPU packs chunk j+1 (2x), transposes self chunk j and
/// unpacks chunk j-1 (1/2x): about 3.5 chunk-j passes at roughly a fifth of the exchange
/// each (RESULTS.md "Distributed: the pipeline, and why the local work is not hidden"),
/// so the step still fits behind it with room for the local kernels slowing down while
/// NCCL shares the HBM.
inline index_t chunk_weight(int K, int j) noexcept {
  const int e = j < K - 1 - j ? j : K - 1 - j;
  index_t w = 1;
  for (int i = 0; i < e && i < 4; ++i) w *= 2;
  return w;
}

/// First row of chunk k when n rows are split into K chunks by chunk_weight:
/// floor(n * W(k) / W(K)), W = the prefix sum of the weights (128-bit product), rounded
/// down to a multiple of 16 so that every chunk's columns start 16-byte aligned (the
/// fast path's widest access; an unaligned start halves the pack's bandwidth, RESULTS.md
/// "2-D: large cases (256 MiB)", the ragged rows).
/// sum_{j < k} 2^min(j, 4): the rising half of the weights, in closed form.
inline index_t rising_weights(index_t k) noexcept { return k <= 5 ? (index_t{1} << k) - 1 : 31 + 16 * (k - 5); }

/// W(k) = sum_{j < k} chunk_weight(K, j) in O(1) (a loop over K made every chunk's
/// bounds O(K) and a call O(K^2)): weights rise to m = (K-1)/2, then mirror.
inline index_t chunk_weights_before(int K, int k) noexcept {
  const index_t m = (K - 1) / 2;
  if (k <= m + 1) return rising_weights(k);
  return rising_weights(m + 1) + rising_weights(K - 1 - m) - rising_weights(K - k);
}

inline index_t chunk_begin(index_t n, int K, int k) noexcept {
  if (k >= K) return n;
  const index_t before = chunk_weights_before(K, k), total = chunk_weights_before(K, K);
  const auto b = static_cast<index_t>(static_cast<unsigned __int128>(n) * static_cast<std::uint64_t>(before) /
                                      static_cast<std::uint64_t>(total));
  return b / 16 * 16;
}

/// One exchanged message: offset and length in elements in the send or receive buffer.
struct message {
  index_t buf_off = 0, elems = 0;
};
/// What this rank sends to `peer` in chunk k / receives from `peer` in chunk k.
message send_message(const plan& p, int peer, int k) noexcept;
message recv_message(const plan& p, int peer, int k) noexcept;

/// Pack of chunk k for `peer`: a transpose from the input (offset in_off) into the send
/// buffer (offset buf_off). Self block: input in_off -> output out_off.
struct local_transpose {
  index_t in_off = 0, out_off = 0;
  matrix_desc md;
};
local_transpose pack(const plan& p, int peer, int k) noexcept;
local_transpose self_block(const plan& p) noexcept;
/// Chunk k of the self block: its input columns (= output rows) in chunk k of out_rows,
/// the same split as the exchanged chunks, so the NCCL pipeline spreads it over the steps.
local_transpose self_chunk(const plan& p, int k) noexcept;

/// Unpack of chunk k from `peer`: `height` rows of `width` elements per batch, from the
/// receive buffer (pitch width, batch stride src_batch) into the output (pitch ld_out).
struct pitched_copy {
  index_t src_off = 0, dst_off = 0, width = 0, height = 0, src_pitch = 0, dst_pitch = 0,
          src_batch = 0, dst_batch = 0, batch = 0;
};
pitched_copy unpack(const plan& p, int peer, int k) noexcept;

}  // namespace xpose::dist::detail
