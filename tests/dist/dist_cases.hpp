// Test cases of xpose::dist shared by the MPI (host) and NCCL (GPU) tests: the global
// matrix is a hash of (batch, row, col, byte), so each rank builds its own block and
// checks its own result without a gathered reference.
#pragma once

#include <xpose/dist.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

namespace dist_test {

using xpose::index_t;
using xpose::status_code;
namespace xd = xpose::dist;

// Byte k of global element (b, r, c): a hash, so any misplaced element shows.
inline unsigned char element_byte(index_t b, index_t r, index_t c, int k) {
  std::uint64_t x = (static_cast<std::uint64_t>(b) * 0x9E3779B97F4A7C15ull) ^
                    (static_cast<std::uint64_t>(r) * 0xC2B2AE3D27D4EB4Full) ^
                    (static_cast<std::uint64_t>(c) * 0x165667B19E3779F9ull) ^ static_cast<std::uint64_t>(k);
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return static_cast<unsigned char>(x);
}

// Uneven split of n: rank r's share is proportional to (r % 3 + 1); rank 1 gets none when P >= 3.
inline std::vector<index_t> uneven(index_t n, int P) {
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

/// One rank's host buffers for a case: input block, output poisoned with 0xFF, workspace.
struct buffers {
  xd::desc d;
  std::vector<index_t> rows, outs, row_off, col_off;
  std::vector<unsigned char> in, out, ws;
};

inline buffers make(const spec& s, int P, int me) {
  buffers b;
  b.rows = s.uneven_rows ? uneven(s.R, P) : std::vector<index_t>(P);
  if (!s.uneven_rows)
    for (int r = 0; r < P; ++r) b.rows[r] = xd::even_split(s.R, P, r);
  b.outs.resize(P);
  const std::vector<index_t> out_uneven = uneven(s.C, P);
  for (int r = 0; r < P; ++r) b.outs[r] = s.out_array ? out_uneven[P - 1 - r] : xd::even_split(s.C, P, r);
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

/// Every output element of this rank, padding included (must stay 0xFF).
inline bool check_result(const spec& s, const buffers& b, int me) {
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

inline bool untouched(const buffers& b) {
  return std::all_of(b.out.begin(), b.out.end(), [](unsigned char x) { return x == 0xFF; });
}

/// The backend under test: runs one call on this rank's buffers (in/ws may be spoiled).
using call_fn = std::function<xpose::status(buffers&, const void* in, void* ws, std::size_t ws_bytes,
                                            const xd::options&)>;
/// Reports one case's outcome on this rank; the caller combines the ranks.
using report_fn = std::function<void(const char* name, bool ok)>;

inline void exact(const spec& s, int P, int me, const call_fn& call, const report_fn& report) {
  buffers b = make(s, P, me);
  xd::options opt;
  opt.chunks = s.chunks;
  opt.host_threads = 1;
  const xpose::status st = call(b, b.in.data(), b.ws.data(), b.ws.size(), opt);
  if (!st.ok()) std::fprintf(stderr, "[rank %d] %s: %s: %s\n", me, s.name, to_string(st.code()), st.message());
  report(s.name, st.ok() && check_result(s, b, me));
}

using spoil_fn = std::function<void(xd::desc&, void*& in, std::size_t& ws_bytes)>;

// A bad call (`spoil` changes this rank's arguments) must give `want` on every rank.
inline void rejected(const char* name, status_code want, int P, int me, const spoil_fn& spoil, const call_fn& call,
                     const report_fn& report) {
  const spec s{name, 37, 29, 2, 4, true, false, 1, 2, 3, 2};
  buffers b = make(s, P, me);
  void* in = b.in.data();
  std::size_t ws_bytes = b.ws.size();
  spoil(b.d, in, ws_bytes);
  std::size_t need = 0;
  if (ws_bytes == b.ws.size() && xd::workspace_size(b.d, P, me, &need).ok() && need > ws_bytes) {
    // The spoil changed sizes: give this rank the workspace its own view asks for, so the
    // call fails on the disagreement, not on a local check.
    b.ws.resize(need);
    ws_bytes = need;
  }
  const xpose::status st = call(b, in, b.ws.data(), ws_bytes, {});
  // want == ok: the spoil cannot apply with this P (e.g. a mismatch needs two ranks).
  const bool ok = st.code() == want && (want == status_code::ok || untouched(b));
  if (!ok)
    std::fprintf(stderr, "[rank %d] %s: got %s (%s), want %s\n", me, name, to_string(st.code()), st.message(),
                 to_string(want));
  report(name, ok);
}

/// Every exact case and every argument error, on `call`'s backend.
inline void run_all(int P, int me, const call_fn& call, const report_fn& report) {
  const int last = P - 1;
  // name, R, C, batch, es, uneven rows, out_counts array, pad_in, pad_out, gap, chunks
  const spec cases[] = {
      {"square even f32", 64, 64, 1, 4, false, false, 0, 0, 0, 1},
      {"uneven rows, uneven out_counts, f32", 53, 41, 1, 4, true, true, 0, 0, 0, 3},
      {"ragged 1-byte, padded, chunk policy", 67, 45, 1, 1, true, false, 3, 5, 0, 0},
      {"2-byte batched, padded, gapped", 31, 50, 3, 2, true, true, 2, 1, 7, 4},
      {"8-byte uneven, many chunks", 40, 23, 1, 8, true, false, 0, 0, 0, 16},
      {"16-byte batched", 19, 27, 2, 16, false, true, 1, 0, 0, 2},
      {"wide 1 x 100", 1, 100, 1, 4, false, false, 0, 0, 0, 2},
      {"tall 100 x 1", 100, 1, 2, 2, true, false, 0, 0, 0, 2},
      {"fewer rows than ranks", 2, 3, 1, 4, false, false, 0, 0, 0, 1},
      {"empty matrix", 0, 5, 1, 4, false, false, 0, 0, 0, 1},
      {"f32 256 x 320 batched, chunk policy", 256, 320, 2, 4, true, true, 0, 0, 0, 0},
      // Chunk starts are multiples of 16 columns: wide enough for several real chunks.
      {"f32 96 x 700 uneven, 5 chunks", 96, 700, 1, 4, true, true, 1, 3, 0, 5},
      {"1-byte 50 x 900 batched, 8 chunks", 50, 900, 2, 1, true, false, 0, 0, 5, 8},
  };
  for (const spec& s : cases) exact(s, P, me, call, report);

  const auto bad = [&](const char* name, status_code want, const spoil_fn& spoil) {
    rejected(name, want, P, me, spoil, call, report);
  };
  const status_code mismatch_if_several = P > 1 ? status_code::size_mismatch : status_code::ok;
  bad("cols differ on the last rank", status_code::size_mismatch,
      [&](xd::desc& d, void*&, std::size_t&) { if (me == last) d.cols -= 1; });
  bad("rows do not add up", status_code::size_mismatch,
      [&](xd::desc& d, void*&, std::size_t&) { if (me == 0) d.global_rows -= 1; });
  bad("out_rows do not add up", status_code::size_mismatch,
      [&](xd::desc& d, void*&, std::size_t&) { if (me == last) d.out_rows -= 1; });
  bad("element size differs", mismatch_if_several,
      [&](xd::desc& d, void*&, std::size_t&) { if (me == last && P > 1) d.elem_size = 2; });
  bad("workspace too small on the last rank", P > 1 ? status_code::workspace_too_small : status_code::ok,
      [&](xd::desc&, void*&, std::size_t& n) { if (me == last) n = n > 2 ? n - 2 : 0; });
  bad("null input on rank 0", status_code::null_pointer,
      [&](xd::desc&, void*& in, std::size_t&) { if (me == 0) in = nullptr; });
  bad("element size 3 on the last rank", status_code::unsupported_elem_size,
      [&](xd::desc& d, void*&, std::size_t&) { if (me == last) d.elem_size = 3; });
  bad("nranks is P + 1 everywhere", status_code::comm_size_mismatch,
      [&](xd::desc& d, void*&, std::size_t&) { d.nranks = P + 1; });
  bad("nranks wrong on the last rank only", status_code::comm_size_mismatch,
      [&](xd::desc& d, void*&, std::size_t&) { if (me == last) d.nranks = P + 2; });
  std::vector<index_t> bad_counts(P + 1, 0);
  bad("row_counts disagree on rank 0", mismatch_if_several, [&](xd::desc& d, void*&, std::size_t&) {
    // Every rank's own entry is right; rank 0 has another entry off by one.
    const std::vector<index_t> rows = uneven(d.global_rows, P);
    for (int r = 0; r < P; ++r) bad_counts[r] = rows[r];
    if (me == 0 && P > 1) bad_counts[last] += 1;
    d.row_counts = bad_counts.data();
  });
}

}  // namespace dist_test
