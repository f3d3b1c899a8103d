// xpose::dist over MPI on host memory, run by CTest under mpiexec with P = 1..8 ranks.
// Exact results for uneven blocks, every element size, batches, padded pitches and
// chunk counts; every bad argument must give the same named status on every rank and
// leave every output untouched (the CTest TIMEOUT proves nothing hangs).
#include <mpi.h>
#include <xpose/dist.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

using xpose::index_t;
using xpose::status_code;
namespace xd = xpose::dist;

int P = 1, me = 0, passed = 0, failed = 0;

// Byte k of global element (b, r, c): a hash, so any misplaced element shows.
unsigned char element_byte(index_t b, index_t r, index_t c, int k) {
  std::uint64_t x = (static_cast<std::uint64_t>(b) * 0x9E3779B97F4A7C15ull) ^
                    (static_cast<std::uint64_t>(r) * 0xC2B2AE3D27D4EB4Full) ^
                    (static_cast<std::uint64_t>(c) * 0x165667B19E3779F9ull) ^ static_cast<std::uint64_t>(k);
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return static_cast<unsigned char>(x);
}

// Uneven rows: rank r gets a share proportional to (r % 3 + 1); rank 1 gets none when P >= 3.
std::vector<index_t> uneven(index_t n) {
  std::vector<index_t> v(P, 0);
  index_t w = 0, used = 0;
  for (int r = 0; r < P; ++r) w += (P >= 3 && r == 1) ? 0 : r % 3 + 1;
  for (int r = 0; r < P; ++r) used += v[r] = (P >= 3 && r == 1) ? 0 : n * (r % 3 + 1) / w;
  v[P - 1] += n - used;
  return v;
}

struct spec {
  const char* name;
  index_t R, C, batch;
  int es;
  bool uneven_rows, out_array;
  index_t pad_in, pad_out, gap;
  int chunks;
};

struct buffers {
  xd::desc d;
  std::vector<index_t> rows, outs, row_off, col_off;
  std::vector<unsigned char> in, out, ws;
};

buffers make(const spec& s) {
  buffers b;
  b.rows = s.uneven_rows ? uneven(s.R) : std::vector<index_t>(P);
  if (!s.uneven_rows)
    for (int r = 0; r < P; ++r) b.rows[r] = xd::even_split(s.R, P, r);
  b.outs.resize(P);
  for (int r = 0; r < P; ++r) b.outs[r] = s.out_array ? uneven(s.C)[P - 1 - r] : xd::even_split(s.C, P, r);
  b.row_off.assign(P + 1, 0);
  b.col_off.assign(P + 1, 0);
  for (int r = 0; r < P; ++r) b.row_off[r + 1] = b.row_off[r] + b.rows[r], b.col_off[r + 1] = b.col_off[r] + b.outs[r];
  xd::desc& d = b.d;
  d.global_rows = s.R;
  d.cols = s.C;
  d.rows = b.rows[me];
  d.batch = s.batch;
  d.elem_size = s.es;
  d.ld_in = s.C + s.pad_in;
  d.ld_out = s.R + s.pad_out;
  d.stride_in = d.rows * d.ld_in + s.gap;
  d.stride_out = b.outs[me] * d.ld_out + s.gap;
  d.nranks = P;
  if (s.out_array) d.out_counts = b.outs.data();
  else d.out_rows = b.outs[me];
  const index_t es = s.es;
  b.in.assign(static_cast<std::size_t>(std::max<index_t>(d.stride_in * s.batch, 1) * es), 0xAB);
  for (index_t bb = 0; bb < s.batch; ++bb)
    for (index_t i = 0; i < d.rows; ++i)
      for (index_t c = 0; c < s.C; ++c)
        for (int k = 0; k < s.es; ++k)
          b.in[((bb * d.stride_in + i * d.ld_in + c) * es) + k] = element_byte(bb, b.row_off[me] + i, c, k);
  b.out.assign(static_cast<std::size_t>(std::max<index_t>(d.stride_out * s.batch, 1) * es), 0xFF);
  std::size_t bytes = 0;
  if (!xd::workspace_size(d, P, me, &bytes).ok()) bytes = 0;
  b.ws.assign(bytes + 1, 0);
  return b;
}

// Every rank reports; a case passes only if it passed on every rank.
void record(const char* name, bool ok) {
  int all = 0, mine = ok ? 0 : 1;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (all == 0) ++passed;
  else ++failed;
  if (me == 0) std::printf("[%s] %s (P=%d)\n", all == 0 ? "  OK  " : " FAIL ", name, P);
}

bool check_result(const spec& s, const buffers& b) {
  const xd::desc& d = b.d;
  const index_t es = s.es;
  for (index_t bb = 0; bb < s.batch; ++bb)
    for (index_t i = 0; i < b.outs[me]; ++i)
      for (index_t j = 0; j < d.ld_out; ++j)
        for (int k = 0; k < s.es; ++k) {
          const unsigned char got = b.out[((bb * d.stride_out + i * d.ld_out + j) * es) + k];
          const unsigned char want = j < s.R ? element_byte(bb, j, b.col_off[me] + i, k) : 0xFF;
          if (got != want) {
            std::fprintf(stderr, "[rank %d] %s: batch %lld row %lld col %lld byte %d: got %02x want %02x\n", me,
                         s.name, (long long)bb, (long long)i, (long long)j, k, got, want);
            return false;
          }
        }
  return true;
}

void exact(const spec& s) {
  buffers b = make(s);
  xd::options opt;
  opt.chunks = s.chunks;
  opt.host_threads = 1;
  const xpose::status st = xd::transpose_mpi(b.in.data(), b.out.data(), b.d, b.ws.data(), b.ws.size(), MPI_COMM_WORLD, opt);
  bool ok = st.ok();
  if (!ok) std::fprintf(stderr, "[rank %d] %s: %s: %s\n", me, s.name, to_string(st.code()), st.message());
  record(s.name, ok && check_result(s, b));
}

bool untouched(const buffers& b) {
  for (unsigned char x : b.out)
    if (x != 0xFF) return false;
  return true;
}

// Runs a bad call (`spoil` changes this rank's arguments) and expects `want` on every rank.
template <class Spoil>
void rejected(const char* name, status_code want, Spoil spoil, MPI_Comm comm = MPI_COMM_WORLD) {
  const spec s{name, 37, 29, 2, 4, true, false, 1, 2, 3, 2};
  buffers b = make(s);
  void* in = b.in.data();
  void* ws = b.ws.data();
  std::size_t ws_bytes = b.ws.size();
  spoil(b.d, in, ws, ws_bytes);
  std::size_t need = 0;
  if (ws_bytes == b.ws.size() && xd::workspace_size(b.d, P, me, &need).ok() && need > ws_bytes) {
    // The spoil changed sizes: give this rank the workspace its own view asks for, so the
    // call fails on the disagreement, not on a local check.
    b.ws.resize(need);
    ws = b.ws.data();
    ws_bytes = need;
  }
  const xpose::status st = xd::transpose_mpi(in, b.out.data(), b.d, ws, ws_bytes, comm, {});
  // want == ok: the spoil cannot apply with this P (e.g. a mismatch needs two ranks).
  const bool ok = st.code() == want && (want == status_code::ok || untouched(b));
  if (!ok)
    std::fprintf(stderr, "[rank %d] %s: got %s (%s), want %s\n", me, name, to_string(st.code()), st.message(),
                 to_string(want));
  record(name, ok);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const int last = P - 1;

  // name, R, C, batch, es, uneven rows, out_counts array, pad_in, pad_out, gap, chunks
  exact({"square even f32", 64, 64, 1, 4, false, false, 0, 0, 0, 1});
  exact({"uneven rows, uneven out_counts, f32", 53, 41, 1, 4, true, true, 0, 0, 0, 3});
  exact({"ragged 1-byte, padded, chunk policy", 67, 45, 1, 1, true, false, 3, 5, 0, 0});
  exact({"2-byte batched, padded, gapped", 31, 50, 3, 2, true, true, 2, 1, 7, 4});
  exact({"8-byte uneven, many chunks", 40, 23, 1, 8, true, false, 0, 0, 0, 16});
  exact({"16-byte batched", 19, 27, 2, 16, false, true, 1, 0, 0, 2});
  exact({"wide 1 x 100", 1, 100, 1, 4, false, false, 0, 0, 0, 2});
  exact({"tall 100 x 1", 100, 1, 2, 2, true, false, 0, 0, 0, 2});
  exact({"fewer rows than ranks", 2, 3, 1, 4, false, false, 0, 0, 0, 1});
  exact({"empty matrix", 0, 5, 1, 4, false, false, 0, 0, 0, 1});

  // Bad arguments on one rank (or all): the same code everywhere, nothing written.
  rejected("cols differ on the last rank", status_code::size_mismatch,
           [&](xd::desc& d, void*&, void*&, std::size_t&) { if (me == last) d.cols -= 1; });
  rejected("rows do not add up", status_code::size_mismatch,
           [&](xd::desc& d, void*&, void*&, std::size_t&) { if (me == 0) d.global_rows -= 1; });
  rejected("out_rows do not add up", status_code::size_mismatch,
           [&](xd::desc& d, void*&, void*&, std::size_t&) { if (me == last) d.out_rows -= 1; });
  rejected("element size differs", P > 1 ? status_code::size_mismatch : status_code::ok,
           [&](xd::desc& d, void*&, void*&, std::size_t&) { if (me == last && P > 1) d.elem_size = 2; });
  rejected("workspace too small on the last rank", P > 1 ? status_code::workspace_too_small : status_code::ok,
           [&](xd::desc&, void*&, void*&, std::size_t& n) { if (me == last) n = n > 2 ? n - 2 : 0; });
  rejected("null input on rank 0", status_code::null_pointer,
           [&](xd::desc&, void*& in, void*&, std::size_t&) { if (me == 0) in = nullptr; });
  rejected("element size 3 on the last rank", status_code::unsupported_elem_size,
           [&](xd::desc& d, void*&, void*&, std::size_t&) { if (me == last) d.elem_size = 3; });
  rejected("nranks is P + 1 everywhere", status_code::comm_size_mismatch,
           [&](xd::desc& d, void*&, void*&, std::size_t&) { d.nranks = P + 1; d.out_counts = nullptr; });
  rejected("nranks wrong on the last rank only", status_code::comm_size_mismatch,
           [&](xd::desc& d, void*&, void*&, std::size_t&) { if (me == last) d.nranks = P + 2; });
  std::vector<index_t> bad_counts(P + 1, 0);
  rejected("row_counts disagree on rank 0", P > 1 ? status_code::size_mismatch : status_code::ok,
           [&](xd::desc& d, void*&, void*&, std::size_t&) {
             // Rank 0's own entry is right (its rows), another entry is off by one.
             const std::vector<index_t> rows = uneven(d.global_rows);
             for (int r = 0; r < P; ++r) bad_counts[r] = rows[r];
             if (me == 0 && P > 1) bad_counts[last] += 1;
             d.row_counts = bad_counts.data();
           });
  if (P > 1) {
    // A communicator of the wrong size: rank 0 alone, the rest together, each told P ranks.
    MPI_Comm split;
    MPI_Comm_split(MPI_COMM_WORLD, me == 0 ? 0 : 1, me, &split);
    rejected("communicator of the wrong size", status_code::comm_size_mismatch,
             [&](xd::desc&, void*&, void*&, std::size_t&) {}, split);
    MPI_Comm_free(&split);
  }

  if (me == 0) std::printf("%d passed, %d failed\n", passed, failed);
  MPI_Finalize();
  return failed == 0 ? 0 : 1;
}
