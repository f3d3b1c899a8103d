// CPU executor of plans: one memcpy, strided copies of contiguous runs, the blocked
// 2-D backend for batched matrices, and blocked N-d permutation (tiles along the
// input's and the output's fastest dims, OpenMP threads over tiles and outer dims).
// Assumes a validated, non-empty plan and checked pointers.
#include <algorithm>
#include <cstring>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "../core/core.hpp"
#include "../core/elem.hpp"
#include "../internal.hpp"

namespace xpose::detail {
namespace {

using byte = unsigned char;

// Offsets of a flat index over `r` dims (outermost first), walked by next().
struct odometer {
  int r = 0;
  index_t n[layout::max_rank] = {}, is[layout::max_rank] = {}, os[layout::max_rank] = {};
  index_t i[layout::max_rank] = {};
  index_t in_off = 0, out_off = 0;

  void add(index_t extent, index_t in_stride, index_t out_stride) {
    n[r] = extent, is[r] = in_stride, os[r] = out_stride, ++r;
  }
  index_t count() const {
    index_t c = 1;
    for (int k = 0; k < r; ++k) c *= n[k];
    return c;
  }
  void seek(index_t flat) {
    in_off = out_off = 0;
    for (int k = r - 1; k >= 0; --k) {
      i[k] = flat % n[k], flat /= n[k];
      in_off += i[k] * is[k], out_off += i[k] * os[k];
    }
  }
  void next() {
    for (int k = r - 1; k >= 0; --k) {
      in_off += is[k], out_off += os[k];
      if (++i[k] < n[k]) return;
      in_off -= n[k] * is[k], out_off -= n[k] * os[k];
      i[k] = 0;
    }
  }
};

int resolve_threads(int threads) {
#if defined(_OPENMP)
  return threads <= 0 ? omp_get_max_threads() : threads;
#else
  (void)threads;
  return 1;
#endif
}

void parallel_memcpy(byte* dst, const byte* src, index_t bytes, int threads) {
  constexpr index_t chunk = index_t{1} << 20;
  const index_t n = (bytes + chunk - 1) / chunk;
#pragma omp parallel for num_threads(threads) schedule(static) if (n > 1)
  for (index_t c = 0; c < n; ++c)
    std::memcpy(dst + c * chunk, src + c * chunk, static_cast<std::size_t>(std::min(chunk, bytes - c * chunk)));
}

// Identity order with the last dim shared: rows of L elements.
template <int E, bool Conj>
void strided_copy(const plan& p, const byte* in, byte* out, int threads) {
  using T = typename uint_of<E>::type;
  const int r = p.out.rank;
  odometer rows;
  for (int k = 0; k < r - 1; ++k) rows.add(p.out.extents[k], p.in.strides[p.axes[k]], p.out.strides[k]);
  const index_t L = p.out.extents[r - 1], is = p.in.strides[r - 1], os = p.out.strides[r - 1];
  const bool runs = !Conj && is == 1 && os == 1;
  const index_t nrows = rows.count();
  const index_t per = std::max<index_t>(1, (index_t{1} << 16) / (L * E));  // rows per work item
  const index_t items = (nrows + per - 1) / per;
#pragma omp parallel for num_threads(threads) schedule(static) firstprivate(rows) if (items > 1)
  for (index_t w = 0; w < items; ++w) {
    const index_t r0 = w * per, r1 = std::min(nrows, r0 + per);
    rows.seek(r0);
    for (index_t row = r0; row < r1; ++row, rows.next()) {
      const T* s = reinterpret_cast<const T*>(in) + rows.in_off;
      T* d = reinterpret_cast<T*>(out) + rows.out_off;
      if (runs) std::memcpy(d, s, static_cast<std::size_t>(L * E));
      else
        for (index_t c = 0; c < L; ++c) d[c * os] = pass<E, Conj>(s[c * is]);
    }
  }
}

// One TS x TS tile with unit strides along A (input) and B (output): input rows
// copied into an L1 buffer with contiguous loads, then written out row by row with
// contiguous stores (the compiler vectorises both copies).
template <int E, index_t TS>
void unit_tile(const typename uint_of<E>::type* s, index_t isB, typename uint_of<E>::type* d, index_t osA,
               index_t na, index_t nb) {
  using T = typename uint_of<E>::type;
  alignas(64) T tmp[TS][TS];  // (b, a)
  if (na == TS && nb == TS) {  // full tile: constant trip counts, vectorised
    for (index_t b = 0; b < TS; ++b)
      for (index_t a = 0; a < TS; ++a) tmp[b][a] = s[b * isB + a];
    for (index_t a = 0; a < TS; ++a)
      for (index_t b = 0; b < TS; ++b) d[a * osA + b] = tmp[b][a];
    return;
  }
  for (index_t b = 0; b < nb; ++b)
    for (index_t a = 0; a < na; ++a) tmp[b][a] = s[b * isB + a];
  for (index_t a = 0; a < na; ++a)
    for (index_t b = 0; b < nb; ++b) d[a * osA + b] = tmp[b][a];
}

// General permutation: A is the input's fastest dim, B the output's; every other
// dim is outer, enumerated in the input's order (largest input stride first), so
// consecutive slices continue the input's contiguous runs (the reads are the
// fragmented side: rows of nA elements, isB apart). Threads take contiguous ranges
// of (slice, tile) work.
template <int E, bool Conj>
void permute_nd(const plan& p, const byte* in, byte* out, int threads) {
  using T = typename uint_of<E>::type;
  constexpr index_t TS = E >= 8 ? 8 : 64 / E;  // a tile row is >= one 64-byte line
  const int r = p.out.rank, A = input_fastest(p), B = r - 1;
  odometer outer;
  for (int j = 0; j < r; ++j)  // input order
    for (int k = 0; k < r; ++k)
      if (p.axes[k] == j && k != A && k != B) outer.add(p.out.extents[k], p.in.strides[j], p.out.strides[k]);
  const index_t nA = p.out.extents[A], nB = p.out.extents[B];
  const index_t isA = p.in.strides[p.axes[A]], osA = p.out.strides[A];
  const index_t isB = p.in.strides[p.axes[B]], osB = p.out.strides[B];
  const bool unit = !Conj && isA == 1 && osB == 1;
  // Big unit-stride slices: the 2-D backend's SIMD micro-kernels, one slice per call
  // (a call costs a parallel region: only worth it for big slices).
  if (unit && nA * nB >= (index_t{1} << 16) && isB >= nA && osA >= nB) {
    matrix_desc d = matrix_desc::packed(nB, nA, E);
    d.ld_in = isB, d.ld_out = osA;
    const index_t n = outer.count();
    outer.seek(0);
    for (index_t o = 0; o < n; ++o, outer.next())
      blocked_transpose(in + outer.in_off * E, out + outer.out_off * E, d, threads);
    return;
  }
  const index_t ta = (nA + TS - 1) / TS, tb = (nB + TS - 1) / TS, tiles = ta * tb;
  const index_t total = outer.count() * tiles;
#pragma omp parallel num_threads(threads) firstprivate(outer) if (total > 1)
  {
#if defined(_OPENMP)
    const index_t nt = omp_get_num_threads(), me = omp_get_thread_num();
#else
    const index_t nt = 1, me = 0;
#endif
    const index_t t0 = total * me / nt, t1 = total * (me + 1) / nt;
    index_t o = t0 / tiles, rem = t0 % tiles;
    outer.seek(o);
    for (index_t t = t0; t < t1; ++t) {
      const index_t a0 = (rem / tb) * TS, b0 = (rem % tb) * TS;
      const T* s = reinterpret_cast<const T*>(in) + outer.in_off + a0 * isA + b0 * isB;
      T* d = reinterpret_cast<T*>(out) + outer.out_off + a0 * osA + b0 * osB;
      const index_t na = std::min(TS, nA - a0), nb = std::min(TS, nB - b0);
      if (unit) unit_tile<E, TS>(s, isB, d, osA, na, nb);
      else
        for (index_t a = 0; a < na; ++a)
          for (index_t b = 0; b < nb; ++b) d[a * osA + b * osB] = pass<E, Conj>(s[a * isA + b * isB]);
      if (++rem == tiles) rem = 0, outer.next();
    }
  }
}

}  // namespace

void execute_plan_cpu(const plan& p, const void* in_v, void* out_v, int threads) noexcept {
  threads = resolve_threads(threads);
  const auto* in = static_cast<const byte*>(in_v);
  auto* out = static_cast<byte*>(out_v);
  switch (p.algo) {
    case algorithm::empty: return;
    case algorithm::copy: return parallel_memcpy(out, in, p.count * p.in.elem_size, threads);
    case algorithm::transpose_2d: return blocked_transpose(in, out, p.desc, threads);
    default: break;
  }
  with_elem_size(p.in.elem_size, [&](auto e) {
    constexpr int E = decltype(e)::value;
    constexpr bool complex = E == 8 || E == 16;
    const bool conj = complex && p.conjugate;
    if (p.algo == algorithm::strided_copy)
      conj ? strided_copy<E, complex>(p, in, out, threads) : strided_copy<E, false>(p, in, out, threads);
    else
      conj ? permute_nd<E, complex>(p, in, out, threads) : permute_nd<E, false>(p, in, out, threads);
  });
}

}  // namespace xpose::detail
