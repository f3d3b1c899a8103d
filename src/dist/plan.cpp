// Local checks, the collective agreement and the block/chunk index math of xpose::dist.
// Host code only; no communication here (the backends move the records).
#include "plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace xpose::dist {

index_t even_split(index_t n, int nranks, int rank) noexcept {
  if (nranks <= 0 || rank < 0 || rank >= nranks || n < 0) return 0;
  return n / nranks + (rank < n % nranks ? 1 : 0);
}

status workspace_size(const desc& d, int nranks, int rank, std::size_t* bytes) noexcept {
  if (bytes == nullptr) return status::make(status_code::null_pointer, "bytes is null");
  detail::local_view v;
  if (status s = detail::resolve(d, nranks, rank, &v); !s.ok()) return s;
  *bytes = v.workspace_bytes;
  return {};
}

namespace detail {
namespace {

using sc = status_code;

bool mul(index_t a, index_t b, index_t* r) { return !__builtin_mul_overflow(a, b, r); }
bool add(index_t a, index_t b, index_t* r) { return !__builtin_add_overflow(a, b, r); }

// (batch-1)*stride + (rows-1)*ld + len, in elements; false on overflow. 0 when empty.
bool extent(index_t batch, index_t stride, index_t rows, index_t ld, index_t len, index_t* out) {
  if (batch == 0 || rows == 0 || len == 0) return (*out = 0), true;
  index_t a = 0, b = 0, s = 0;
  return mul(batch - 1, stride, &a) && mul(rows - 1, ld, &b) && add(a, b, &s) && add(s, len, out);
}

// FNV-1a over n counts (at(i) gives the i-th), so ranks compare count arrays through a
// fixed-size record. Never 0, which means "no array".
template <class At>
std::int64_t hash_counts(int n, At at) {
  std::uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < n; ++i) {
    auto x = static_cast<std::uint64_t>(at(i));
    for (int b = 0; b < 8; ++b, x >>= 8) h = (h ^ (x & 0xff)) * 1099511628211ull;
  }
  return static_cast<std::int64_t>(h | 1);
}
std::int64_t hash_array(const index_t* a, int n) {
  return a == nullptr ? 0 : hash_counts(n, [a](int i) { return a[i]; });
}

bool overlaps(const void* a, index_t a_bytes, const void* b, index_t b_bytes) {
  if (a == nullptr || b == nullptr || a_bytes == 0 || b_bytes == 0) return false;
  const auto pa = reinterpret_cast<std::uintptr_t>(a), pb = reinterpret_cast<std::uintptr_t>(b);
  return pa < pb + static_cast<std::uintptr_t>(b_bytes) && pb < pa + static_cast<std::uintptr_t>(a_bytes);
}

constexpr std::size_t workspace_align = 256;

// The pitch bound of xpose::validate (src/validate.cpp): beyond 2^56 bytes.
constexpr index_t max_pitch_bytes = index_t{1} << 56;

bool wraps(const void* p, index_t bytes) {
  return p != nullptr && reinterpret_cast<std::uintptr_t>(p) > UINTPTR_MAX - static_cast<std::uintptr_t>(bytes);
}

}  // namespace

status resolve(const desc& d, int P, int me, local_view* v) noexcept {
  const int es = d.elem_size;
  if (es != 1 && es != 2 && es != 4 && es != 8 && es != 16)
    return status::make(sc::unsupported_elem_size, "element size %d bytes is not supported (use 1, 2, 4, 8 or 16)", es);
  if (P < 1 || me < 0 || me >= P)
    return status::make(sc::invalid_argument, "rank %d of %d ranks", me, P);
  if (d.nranks < 0 || (d.nranks != 0 && d.nranks != P))
    return status::make(sc::comm_size_mismatch, "the desc is for %d ranks but the communicator has %d",
                        d.nranks, P);
  if ((d.row_counts != nullptr || d.out_counts != nullptr) && d.nranks == 0)
    return status::make(sc::invalid_argument, "row_counts / out_counts given without nranks (their length)");
  index_t out_rows = d.out_rows;
  if (out_rows == -1) out_rows = d.out_counts ? d.out_counts[me] : even_split(d.cols, P, me);
  if (d.global_rows < 0 || d.cols < 0 || d.rows < 0 || out_rows < 0 || d.batch < 0)
    return status::make(sc::negative_size, "negative size: global_rows=%lld cols=%lld rows=%lld out_rows=%lld batch=%lld",
                        (long long)d.global_rows, (long long)d.cols, (long long)d.rows, (long long)out_rows,
                        (long long)d.batch);
  if (d.ld_in < 0 || d.ld_out < 0 || d.stride_in < 0 || d.stride_out < 0)
    return status::make(sc::negative_size, "negative leading dimension or batch stride");
  if (d.row_counts != nullptr && d.row_counts[me] != d.rows)
    return status::make(sc::size_mismatch, "rows (%lld) is not row_counts[%d] (%lld)", (long long)d.rows, me,
                        (long long)d.row_counts[me]);
  if (d.out_counts != nullptr && d.out_counts[me] != out_rows)
    return status::make(sc::size_mismatch, "out_rows (%lld) is not out_counts[%d] (%lld)", (long long)out_rows, me,
                        (long long)d.out_counts[me]);
  if (d.rows > d.global_rows || out_rows > d.cols)
    return status::make(sc::size_mismatch, "this rank's block (%lld rows in, %lld rows out) exceeds the matrix (%lld x %lld)",
                        (long long)d.rows, (long long)out_rows, (long long)d.global_rows, (long long)d.cols);
  v->rows = d.rows;
  v->out_rows = out_rows;
  v->ld_in = d.ld_in ? d.ld_in : d.cols;
  v->ld_out = d.ld_out ? d.ld_out : d.global_rows;
  if (v->ld_in < d.cols || v->ld_out < d.global_rows)
    return status::make(sc::bad_leading_dim, "ld_in (%lld) < cols (%lld) or ld_out (%lld) < global_rows (%lld)",
                        (long long)v->ld_in, (long long)d.cols, (long long)v->ld_out, (long long)d.global_rows);
  index_t one_in = 0, one_out = 0;
  if (!mul(d.rows, v->ld_in, &one_in) || !mul(out_rows, v->ld_out, &one_out))
    return status::make(sc::size_overflow, "a block's size overflows 64 bits");
  v->stride_in = d.stride_in ? d.stride_in : one_in;
  v->stride_out = d.stride_out ? d.stride_out : one_out;
  // validate()'s pitch rule, applied to every rank alike whether or not its block is
  // empty or the pitch is used (one row, one batch): a pitch the local transposes
  // would reject must fail here, before the agreement, not inside the first of them.
  const index_t max_pitch = max_pitch_bytes / es;
  if (v->ld_in > max_pitch || v->ld_out > max_pitch || v->stride_in > max_pitch || v->stride_out > max_pitch)
    return status::make(sc::size_overflow,
                        "a leading dimension or batch stride exceeds 2^56 bytes: ld_in=%lld ld_out=%lld stride_in=%lld "
                        "stride_out=%lld (x %d bytes)",
                        (long long)v->ld_in, (long long)v->ld_out, (long long)v->stride_in, (long long)v->stride_out,
                        es);
  if (d.batch > 1 && out_rows > 0 && d.global_rows > 0 && v->stride_out < (out_rows - 1) * v->ld_out + d.global_rows)
    return status::make(sc::bad_batch_stride, "stride_out (%lld) is smaller than one output block: batches would overlap",
                        (long long)v->stride_out);
  // Off-diagonal buffers: send rows x (cols - out_rows), receive out_rows x (global_rows - rows).
  index_t s = 0, r = 0, sb = 0, rb = 0, e_in = 0, e_out = 0, b_in = 0, b_out = 0;
  if (!mul(d.rows, d.cols - out_rows, &s) || !mul(s, d.batch, &s) || !mul(s, es, &sb) ||
      !mul(out_rows, d.global_rows - d.rows, &r) || !mul(r, d.batch, &r) || !mul(r, es, &rb) ||
      !extent(d.batch, v->stride_in, d.rows, v->ld_in, d.cols, &e_in) || !mul(e_in, es, &b_in) ||
      !extent(d.batch, v->stride_out, out_rows, v->ld_out, d.global_rows, &e_out) || !mul(e_out, es, &b_out))
    return status::make(sc::size_overflow, "sizes overflow 64 bits");
  v->send_elems = s;
  v->recv_elems = r;
  const std::size_t send_bytes = static_cast<std::size_t>(sb);
  v->recv_byte_off = (send_bytes + workspace_align - 1) / workspace_align * workspace_align;
  v->workspace_bytes = rb == 0 ? send_bytes : v->recv_byte_off + static_cast<std::size_t>(rb);
  return {};
}

status check_memory(const void* in, const void* out, const void* ws, std::size_t ws_bytes, const desc& d,
                    const local_view& v) noexcept {
  const int es = d.elem_size;
  index_t e_in = 0, e_out = 0;
  extent(d.batch, v.stride_in, v.rows, v.ld_in, d.cols, &e_in);  // no overflow: resolve() checked
  extent(d.batch, v.stride_out, v.out_rows, v.ld_out, d.global_rows, &e_out);
  if ((e_in && in == nullptr) || (e_out && out == nullptr))
    return status::make(sc::null_pointer, "%s pointer is null for a non-empty block", e_in && !in ? "input" : "output");
  if (ws_bytes < v.workspace_bytes)
    return status::make(sc::workspace_too_small, "workspace of %zu bytes, this rank needs %zu (workspace_size)",
                        ws_bytes, v.workspace_bytes);
  if (v.workspace_bytes && ws == nullptr)
    return status::make(sc::null_pointer, "workspace pointer is null, this rank needs %zu bytes", v.workspace_bytes);
  const auto mis = [es](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % static_cast<unsigned>(es) != 0; };
  if ((e_in && mis(in)) || (e_out && mis(out)) || (v.workspace_bytes && mis(ws)))
    return status::make(sc::misaligned, "input, output or workspace is not aligned to its %d-byte elements", es);
  const index_t b_in = e_in * es, b_out = e_out * es, b_ws = static_cast<index_t>(v.workspace_bytes);
  if (wraps(in, b_in) || wraps(out, b_out) || wraps(ws, b_ws))
    return status::make(sc::size_overflow, "input, output or workspace wraps the address space");
  if (overlaps(in, b_in, out, b_out) || overlaps(ws, b_ws, out, b_out) || overlaps(ws, b_ws, in, b_in))
    return status::make(sc::overlap, "input, output and workspace must not overlap");
  return {};
}

record make_record(const desc& d, const local_view& v, int P, int chunks, const status& s) noexcept {
  record r{};
  r.code = static_cast<std::int64_t>(s.code());
  r.rows = d.rows;
  r.out_rows = s.ok() ? v.out_rows : d.out_rows;
  r.global_rows = d.global_rows;
  r.cols = d.cols;
  r.batch = d.batch;
  r.elem_size = d.elem_size;
  r.nranks = d.nranks;
  const bool arrays_ok = d.nranks == P;  // never read an array of the wrong length
  r.rows_hash = arrays_ok ? hash_array(d.row_counts, P) : 0;
  r.outs_hash = arrays_ok ? hash_array(d.out_counts, P) : 0;
  r.chunks = chunks;
  return r;
}

status agree(const record* all, int P, int me, const status& mine, index_t* row_off, index_t* col_off) noexcept {
  // A local failure anywhere: every rank returns its code (the failing rank its own message).
  for (int r = 0; r < P; ++r)
    if (all[r].code != 0) {
      if (r == me) return mine;
      const auto code = static_cast<status_code>(all[r].code);
      return status::make(code, "rank %d failed its local check (%s); nothing was exchanged", r, to_string(code));
    }
  const record& a = all[0];
  for (int r = 1; r < P; ++r) {
    const record& b = all[r];
    if (b.global_rows != a.global_rows || b.cols != a.cols || b.batch != a.batch || b.elem_size != a.elem_size)
      return status::make(sc::size_mismatch,
                          "rank %d describes a %lld x %lld x %lld matrix of %lld-byte elements, rank 0 a %lld x %lld x "
                          "%lld of %lld-byte",
                          r, (long long)b.batch, (long long)b.global_rows, (long long)b.cols, (long long)b.elem_size,
                          (long long)a.batch, (long long)a.global_rows, (long long)a.cols, (long long)a.elem_size);
    if (b.chunks != a.chunks)
      return status::make(sc::invalid_argument, "rank %d asks for %lld chunks, rank 0 for %lld", r,
                          (long long)b.chunks, (long long)a.chunks);
  }
  row_off[0] = col_off[0] = 0;
  bool wrapped = false;
  for (int r = 0; r < P; ++r)
    wrapped |= !add(row_off[r], all[r].rows, &row_off[r + 1]) | !add(col_off[r], all[r].out_rows, &col_off[r + 1]);
  if (wrapped || row_off[P] != a.global_rows || col_off[P] != a.cols)
    return status::make(sc::size_mismatch,
                        "the ranks' blocks do not tile the matrix: rows add up to %lld of %lld, output rows to %lld of %lld",
                        (long long)row_off[P], (long long)a.global_rows, (long long)col_off[P], (long long)a.cols);
  // Count arrays, where given, must be what the ranks actually passed.
  const std::int64_t want_r = hash_counts(P, [all](int r) { return all[r].rows; });
  const std::int64_t want_o = hash_counts(P, [all](int r) { return all[r].out_rows; });
  for (int r = 0; r < P; ++r)
    if ((all[r].rows_hash && all[r].rows_hash != want_r) || (all[r].outs_hash && all[r].outs_hash != want_o))
      return status::make(sc::size_mismatch, "rank %d's %s disagree with the blocks the ranks passed", r,
                          all[r].rows_hash && all[r].rows_hash != want_r ? "row_counts" : "out_counts");
  return {};
}

int chunk_count(const plan& p, int requested, int max_chunks) noexcept {
  if (requested > 0) return std::min(requested, max_chunks);
  // Policy (docs/RESULTS.md, "Distributed: the pipeline, and why the local work is not
  // hidden"): the exposed local work falls like 1/W(K) and the per-chunk cost grows like
  // K, so K grows like the square root of the block: sqrt(mean block / 16 MiB), 1..8
  // (fp32 on 2 ranks, N = 8192 / 16384 / 32768: 3 / 6 / 8). To be set from the two-GPU
  // --chunks sweep.
  const double block = static_cast<double>(p.global_rows) * static_cast<double>(p.cols) *
                       static_cast<double>(p.batch) * p.elem_size / p.nranks;
  const int k = static_cast<int>(std::lround(std::sqrt(block / (16.0 * 1024 * 1024))));
  return std::max(1, std::min({k, 8, max_chunks}));
}

status local_checks(const void* in, const void* out, const void* ws, std::size_t ws_bytes, const desc& d, int P,
                    int me, const options& opt, int max_chunks, local_view* v) noexcept {
  if (status s = resolve(d, P, me, v); !s.ok()) return s;
  if (status s = check_memory(in, out, ws, ws_bytes, d, *v); !s.ok()) return s;
  if (opt.chunks < 0 || opt.chunks > max_chunks)
    return status::make(sc::invalid_argument, "chunks (%d) must be in [0, %d]", opt.chunks, max_chunks);
  // The host path's local transposes run check_host_options: the same check, here.
  if (status s = check_host_options(host_options{opt.host_threads}); !s.ok()) return s;
  return {};
}

plan make_plan(const desc& d, const local_view& v, int P, int me, const index_t* offs, int chunks,
               int max_chunks) noexcept {
  plan p;
  p.nranks = P;
  p.rank = me;
  p.global_rows = d.global_rows;
  p.cols = d.cols;
  p.batch = d.batch;
  p.elem_size = d.elem_size;
  p.v = v;
  p.row_off = offs;
  p.col_off = offs + P + 1;
  p.chunks = chunk_count(p, chunks, max_chunks);
  return p;
}

message send_message(const plan& p, int q, int k) noexcept {
  const index_t n = p.col_off[q + 1] - p.col_off[q];
  const index_t first = chunk_begin(n, p.chunks, k), rows_k = chunk_begin(n, p.chunks, k + 1) - first;
  // Send buffer: peers in rank order (self skipped), each [chunk][batch][rows_k][rows].
  const index_t before = p.col_off[q] - (q > p.rank ? p.v.out_rows : 0);
  return {p.batch * p.v.rows * (before + first), p.batch * rows_k * p.v.rows};
}

message recv_message(const plan& p, int q, int k) noexcept {
  const index_t r_q = p.row_off[q + 1] - p.row_off[q];
  const index_t first = chunk_begin(p.v.out_rows, p.chunks, k);
  const index_t rows_k = chunk_begin(p.v.out_rows, p.chunks, k + 1) - first;
  // Receive buffer: peers in rank order (self skipped), each [chunk][batch][rows_k][r_q].
  const index_t before = p.row_off[q] - (q > p.rank ? p.v.rows : 0);
  return {p.batch * (p.v.out_rows * before + r_q * first), p.batch * rows_k * r_q};
}

local_transpose pack(const plan& p, int q, int k) noexcept {
  const index_t n = p.col_off[q + 1] - p.col_off[q];
  const index_t first = chunk_begin(n, p.chunks, k), rows_k = chunk_begin(n, p.chunks, k + 1) - first;
  local_transpose t;
  t.in_off = p.col_off[q] + first;
  t.out_off = send_message(p, q, k).buf_off;
  t.md.rows = p.v.rows;
  t.md.cols = rows_k;
  t.md.ld_in = p.v.ld_in;
  t.md.ld_out = std::max<index_t>(p.v.rows, 1);
  t.md.batch = p.batch;
  t.md.stride_in = p.v.stride_in;
  t.md.stride_out = rows_k * p.v.rows;
  t.md.elem_size = p.elem_size;
  return t;
}

namespace {
// Self-block columns [first, first + n): input (b, i, col_off[me] + first + j) -> output
// (b, first + j, row_off[me] + i).
local_transpose self_columns(const plan& p, index_t first, index_t n) {
  local_transpose t;
  t.in_off = p.col_off[p.rank] + first;
  t.out_off = first * p.v.ld_out + p.row_off[p.rank];
  t.md.rows = p.v.rows;
  t.md.cols = n;
  t.md.ld_in = p.v.ld_in;
  t.md.ld_out = p.v.ld_out;
  t.md.batch = p.batch;
  t.md.stride_in = p.v.stride_in;
  t.md.stride_out = p.v.stride_out;
  t.md.elem_size = p.elem_size;
  return t;
}
}  // namespace

local_transpose self_block(const plan& p) noexcept { return self_columns(p, 0, p.v.out_rows); }

local_transpose self_chunk(const plan& p, int k) noexcept {
  const index_t first = chunk_begin(p.v.out_rows, p.chunks, k);
  return self_columns(p, first, chunk_begin(p.v.out_rows, p.chunks, k + 1) - first);
}

pitched_copy unpack(const plan& p, int q, int k) noexcept {
  const index_t first = chunk_begin(p.v.out_rows, p.chunks, k);
  pitched_copy c;
  c.src_off = recv_message(p, q, k).buf_off;
  c.dst_off = first * p.v.ld_out + p.row_off[q];
  c.width = p.row_off[q + 1] - p.row_off[q];
  c.height = chunk_begin(p.v.out_rows, p.chunks, k + 1) - first;
  c.src_pitch = c.width;
  c.dst_pitch = p.v.ld_out;
  c.src_batch = c.height * c.width;
  c.dst_batch = p.v.stride_out;
  c.batch = p.batch;
  return c;
}

}  // namespace detail
}  // namespace xpose::dist
