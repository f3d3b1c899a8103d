// Uses the installed xpose::dist_mpi: a 5x6 matrix in row blocks over the ranks of
// MPI_COMM_WORLD, transposed into row blocks of the 6x5 result, checked everywhere.
#include <xpose/dist.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int P = 1, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  namespace xd = xpose::dist;
  const xpose::index_t R = 5, C = 6;
  xd::desc d;
  d.global_rows = R;
  d.cols = C;
  d.rows = xd::even_split(R, P, me);
  d.nranks = P;
  xpose::index_t row0 = 0, col0 = 0;
  for (int r = 0; r < me; ++r) {
    row0 += xd::even_split(R, P, r);
    col0 += xd::even_split(C, P, r);
  }
  const xpose::index_t out_rows = xd::even_split(C, P, me);
  std::vector<float> in(static_cast<std::size_t>(d.rows * C)), out(static_cast<std::size_t>(out_rows * R), -1.f);
  for (xpose::index_t i = 0; i < d.rows; ++i)
    for (xpose::index_t j = 0; j < C; ++j) in[i * C + j] = static_cast<float>((row0 + i) * C + j);
  std::size_t ws_bytes = 0;
  xpose::status s = xd::workspace_size(d, P, me, &ws_bytes);
  std::vector<unsigned char> ws(ws_bytes);
  if (s.ok()) s = xd::transpose_mpi(in.data(), out.data(), d, ws.data(), ws_bytes, MPI_COMM_WORLD);
  int bad = s.ok() ? 0 : 1;
  for (xpose::index_t i = 0; i < out_rows && s.ok(); ++i)  // out(i, j) = in(j, col0 + i)
    for (xpose::index_t j = 0; j < R; ++j)
      if (out[i * R + j] != static_cast<float>(j * C + col0 + i)) bad = 1;
  int all = 0;
  MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (!s.ok()) std::printf("rank %d: transpose_mpi failed: %s\n", me, s.message());
  if (me == 0) std::printf("consumer_mpi %s (%d ranks, xpose %s)\n", all ? "FAILED" : "ok", P, xpose::version());
  MPI_Finalize();
  return all ? 1 : 0;
}
