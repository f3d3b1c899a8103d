// The one-bad-rank matrix of transpose_mpi: each bad argument is given to
// each rank in turn, the other ranks' arguments being right. Every rank must return
// the same named status (gathered and compared here), every output must stay
// untouched, and nothing may hang (the CTest TIMEOUT). Run with P = 2, 3, 5.
#include <mpi.h>

#include <climits>
#include <string>
#include <vector>

#include "dist_cases.hpp"

using namespace dist_test;

namespace {

struct bad_arg {
  const char* name;
  status_code want;
  index_t batch;  // 1: the unused strides are truly unused
  std::function<void(buffers&, const void*& in, void*& out, std::size_t& ws_bytes, xd::options&)> spoil;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int P = 1, me = 0, passed = 0, failed = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const index_t huge = index_t{1} << 60;
  const std::vector<bad_arg> bad = {
      {"host_threads -1", status_code::invalid_argument, 1, [](auto&, auto&, auto&, auto&, auto& o) { o.host_threads = -1; }},
      {"host_threads 100000", status_code::invalid_argument, 1, [](auto&, auto&, auto&, auto&, auto& o) { o.host_threads = 100000; }},
      {"host_threads INT_MIN", status_code::invalid_argument, 1, [](auto&, auto&, auto&, auto&, auto& o) { o.host_threads = INT_MIN; }},
      {"unused stride_in 2^60", status_code::size_overflow, 1, [&](auto& b, auto&, auto&, auto&, auto&) { b.d.stride_in = huge; }},
      {"unused stride_out 2^60", status_code::size_overflow, 1, [&](auto& b, auto&, auto&, auto&, auto&) { b.d.stride_out = huge; }},
      {"ld_in 2^60", status_code::size_overflow, 1, [&](auto& b, auto&, auto&, auto&, auto&) { b.d.ld_in = huge; }},
      {"stride_out 2^60, batched", status_code::size_overflow, 2, [&](auto& b, auto&, auto&, auto&, auto&) { b.d.stride_out = huge; }},
      {"stride_out too small", status_code::bad_batch_stride, 2, [](auto& b, auto&, auto&, auto&, auto&) { b.d.stride_out = 1; }},
      {"ld_out below global_rows", status_code::bad_leading_dim, 1, [](auto& b, auto&, auto&, auto&, auto&) { b.d.ld_out = 1; }},
      {"null output", status_code::null_pointer, 1, [](auto&, auto&, auto& out, auto&, auto&) { out = nullptr; }},
      {"misaligned output", status_code::misaligned, 1, [](auto&, auto&, auto& out, auto&, auto&) { out = static_cast<char*>(out) + 1; }},
      {"input is the output", status_code::overlap, 1, [](auto&, auto& in, auto& out, auto&, auto&) { in = out; }},
      {"workspace too small", status_code::workspace_too_small, 1, [](auto&, auto&, auto&, auto& n, auto&) { n = 0; }},
      {"element size 3", status_code::unsupported_elem_size, 1, [](auto& b, auto&, auto&, auto&, auto&) { b.d.elem_size = 3; }},
      {"negative rows", status_code::negative_size, 1, [](auto& b, auto&, auto&, auto&, auto&) { b.d.rows = -1; }},
      {"cols differ", status_code::size_mismatch, 1, [](auto& b, auto&, auto&, auto&, auto&) { b.d.cols += 1; }},
      {"nranks wrong", status_code::comm_size_mismatch, 1, [&](auto& b, auto&, auto&, auto&, auto&) { b.d.nranks = P + 1; }},
      {"chunks -1", status_code::invalid_argument, 1, [](auto&, auto&, auto&, auto&, auto& o) { o.chunks = -1; }},
      {"chunks 2^21", status_code::invalid_argument, 1, [](auto&, auto&, auto&, auto&, auto& o) { o.chunks = 1 << 21; }},
      {"chunks differ", status_code::invalid_argument, 1, [](auto&, auto&, auto&, auto&, auto& o) { o.chunks = 3; }},
  };
  for (const bad_arg& a : bad)
    for (int culprit = 0; culprit < P; ++culprit) {
      // Uneven rows (rank 1 holds none when P >= 3), padded, 2 chunks.
      const spec s{a.name, 37, 29, a.batch, 4, true, false, 1, 2, 3, 2};
      buffers b = make(s, P, me);
      const void* in = b.in.data();
      void* out = b.out.data();
      std::size_t ws_bytes = b.ws.size();
      xd::options opt;
      opt.chunks = 2;
      opt.host_threads = 1;
      if (me == culprit) a.spoil(b, in, out, ws_bytes, opt);
      std::size_t need = 0;
      if (ws_bytes == b.ws.size() && xd::workspace_size(b.d, P, me, &need).ok() && need > ws_bytes) {
        b.ws.resize(need);  // a changed size: fail on the disagreement, not on the workspace
        ws_bytes = need;
      }
      // An input aliasing the output overlaps only where the input has rows.
      const bool no_rows = std::string(a.name) == "input is the output" && b.rows[culprit] == 0;
      const status_code want = no_rows ? status_code::ok : a.want;
      const xpose::status st = xd::transpose_mpi(in, out, b.d, b.ws.data(), ws_bytes, MPI_COMM_WORLD, opt);
      const int code = static_cast<int>(st.code());
      std::vector<int> codes(static_cast<std::size_t>(P));
      MPI_Allgather(&code, 1, MPI_INT, codes.data(), 1, MPI_INT, MPI_COMM_WORLD);
      bool ok = want == status_code::ok || untouched(b);
      for (int c : codes) ok = ok && c == static_cast<int>(want);
      int mine = ok ? 0 : 1, all = 0;
      MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      if (!ok)
        std::fprintf(stderr, "[rank %d] %s on rank %d: got %s (%s), want %s, output %s\n", me, a.name, culprit,
                     to_string(st.code()), st.message(), to_string(want), untouched(b) ? "untouched" : "WRITTEN");
      ++(all == 0 ? passed : failed);
      if (me == 0) std::printf("[%s] %s on rank %d (P=%d)\n", all == 0 ? "  OK  " : " FAIL ", a.name, culprit, P);
    }
  if (me == 0) std::printf("%d passed, %d failed\n", passed, failed);
  MPI_Finalize();
  return failed == 0 ? 0 : 1;
}
