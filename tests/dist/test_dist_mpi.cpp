// xpose::dist over MPI on host memory, run by CTest under mpiexec with P = 1..8 ranks:
// the shared cases (dist_cases.hpp) plus a communicator of the wrong size. Every bad
// argument must give the same named status on every rank (the CTest TIMEOUT proves
// that nothing hangs).
#include <mpi.h>

#include "dist_cases.hpp"

using namespace dist_test;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int P = 1, me = 0, passed = 0, failed = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm comm = MPI_COMM_WORLD;
  // A case passes only if it passed on every rank.
  const report_fn report = [&](const char* name, bool ok) {
    int all = 0, mine = ok ? 0 : 1;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    ++(all == 0 ? passed : failed);
    if (me == 0) std::printf("[%s] %s (P=%d)\n", all == 0 ? "  OK  " : " FAIL ", name, P);
  };
  const call_fn call = [&](buffers& b, const void* in, void* ws, std::size_t ws_bytes, const xd::options& opt) {
    return xd::transpose_mpi(in, b.out.data(), b.d, ws, ws_bytes, comm, opt);
  };
  run_all(P, me, call, report);
  if (P > 1) {
    // A communicator of the wrong size: rank 0 alone, the rest together, each told P ranks.
    MPI_Comm_split(MPI_COMM_WORLD, me == 0 ? 0 : 1, me, &comm);
    rejected("communicator of the wrong size", status_code::comm_size_mismatch, P, me,
             [](xd::desc&, void*&, std::size_t&) {}, call, report);
    MPI_Comm_free(&comm);
  }
  if (me == 0) std::printf("%d passed, %d failed\n", passed, failed);
  MPI_Finalize();
  return failed == 0 ? 0 : 1;
}
