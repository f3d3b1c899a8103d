// xpose::dist over MPI on host memory: agree (MPI_Allgather of one record per rank),
// then per chunk: pack with transpose_host, MPI_Isend/MPI_Irecv, unpack the previous
// chunk while this one is in flight; the self block is transposed straight to the output.
#include <mpi.h>

#include <climits>
#include <cstring>
#include <new>
#include <vector>

#include "plan.hpp"

namespace xpose::dist {
namespace {

using detail::plan;

constexpr index_t max_piece = index_t{1} << 30;  // bytes per MPI message (int counts)

status mpi_status(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return {};
  char msg[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  return status::make(status_code::comm_error, "%s: %s", what, msg);
}

// Posts one message as pieces of at most max_piece bytes (MPI keeps their order).
int post(bool send, unsigned char* buf, index_t bytes, int peer, int tag, MPI_Comm comm,
         std::vector<MPI_Request>& reqs) {
  for (index_t off = 0; off < bytes; off += max_piece) {
    const int n = static_cast<int>(bytes - off < max_piece ? bytes - off : max_piece);
    MPI_Request r;
    const int rc = send ? MPI_Isend(buf + off, n, MPI_BYTE, peer, tag, comm, &r)
                        : MPI_Irecv(buf + off, n, MPI_BYTE, peer, tag, comm, &r);
    if (rc != MPI_SUCCESS) return rc;
    reqs.push_back(r);
  }
  return MPI_SUCCESS;
}

void unpack_host(const detail::pitched_copy& c, const unsigned char* recv, unsigned char* out, int es) {
  for (index_t b = 0; b < c.batch; ++b)
    for (index_t i = 0; i < c.height; ++i)
      std::memcpy(out + (c.dst_off + b * c.dst_batch + i * c.dst_pitch) * es,
                  recv + (c.src_off + b * c.src_batch + i * c.src_pitch) * es, static_cast<std::size_t>(c.width * es));
}

status run(const plan& p, const unsigned char* in, unsigned char* out, unsigned char* send, unsigned char* recv,
           MPI_Comm comm, const host_options& ho) {
  const int P = p.nranks, me = p.rank, es = p.elem_size;
  std::vector<MPI_Request> reqs[2];
  const auto finish = [&](int k) -> status {
    std::vector<MPI_Request>& r = reqs[k & 1];
    const int rc = MPI_Waitall(static_cast<int>(r.size()), r.data(), MPI_STATUSES_IGNORE);
    r.clear();
    if (status s = mpi_status(rc, "MPI_Waitall"); !s.ok()) return s;
    for (int j = 1; j < P; ++j) unpack_host(detail::unpack(p, (me + P - j) % P, k), recv, out, es);
    return {};
  };
  for (int k = 0; k < p.chunks; ++k) {
    for (int j = 1; j < P; ++j) {
      const detail::local_transpose t = detail::pack(p, (me + j) % P, k);
      if (status s = transpose_host(in + t.in_off * es, send + t.out_off * es, t.md, ho); !s.ok()) return s;
    }
    const int tag = k % 32768;
    for (int j = 1; j < P; ++j) {
      const int from = (me + P - j) % P, to = (me + j) % P;
      const detail::message r = detail::recv_message(p, from, k), s = detail::send_message(p, to, k);
      int rc = post(false, recv + r.buf_off * es, r.elems * es, from, tag, comm, reqs[k & 1]);
      if (rc == MPI_SUCCESS) rc = post(true, send + s.buf_off * es, s.elems * es, to, tag, comm, reqs[k & 1]);
      if (status st = mpi_status(rc, "MPI_Isend/MPI_Irecv"); !st.ok()) return st;
    }
    if (k > 0)
      if (status s = finish(k - 1); !s.ok()) return s;
  }
  const detail::local_transpose self = detail::self_block(p);
  if (status s = transpose_host(in + self.in_off * es, out + self.out_off * es, self.md, ho); !s.ok()) return s;
  return finish(p.chunks - 1);
}

}  // namespace

status transpose_mpi(const void* in, void* out, const desc& d, void* workspace, std::size_t workspace_bytes,
                     MPI_Comm comm, const options& opt) noexcept {
  int P = 0, me = 0;
  if (status s = mpi_status(MPI_Comm_size(comm, &P), "MPI_Comm_size"); !s.ok()) return s;
  if (status s = mpi_status(MPI_Comm_rank(comm, &me), "MPI_Comm_rank"); !s.ok()) return s;
  constexpr int max_chunks = 1 << 20;
  detail::local_view v;
  const status mine = detail::local_checks(in, out, workspace, workspace_bytes, d, P, me, opt, max_chunks, &v);
  try {
    std::vector<detail::record> all(static_cast<std::size_t>(P));
    std::vector<index_t> offs(2 * static_cast<std::size_t>(P) + 2);
    const detail::record rec = detail::make_record(d, v, P, opt.chunks, mine);
    if (status s = mpi_status(MPI_Allgather(&rec, sizeof rec, MPI_BYTE, all.data(), sizeof rec, MPI_BYTE, comm),
                              "MPI_Allgather");
        !s.ok())
      return s;
    if (status s = detail::agree(all.data(), P, me, mine, offs.data(), offs.data() + P + 1); !s.ok()) return s;
    const plan p = detail::make_plan(d, v, P, me, offs.data(), opt.chunks, max_chunks);
    auto* ws = static_cast<unsigned char*>(workspace);
    return run(p, static_cast<const unsigned char*>(in), static_cast<unsigned char*>(out), ws,
               ws + v.recv_byte_off, comm, host_options{opt.host_threads});
  } catch (const std::bad_alloc&) {
    // Host bookkeeping only (P records); a rank that cannot allocate it cannot agree.
    return status::make(status_code::invalid_argument, "out of host memory for %d ranks' records", P);
  }
}

}  // namespace xpose::dist
