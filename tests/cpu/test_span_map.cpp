// The span tile (src/core/span_map.hpp, nd_span_kernel in src/cuda/nd/span_tile.cuh) on the host: the kernel's
// blocks, tiles, slots, masks and shared indices emulated step by step on random plans of every element size,
// strided views, pointer shifts and both map widths must reproduce the reference permutation byte for byte, with
// every global access inside the views and every output element written once; and the planner's choices keep
// within the tile's limits and take the tiles its model is built for.
#include <gtest/gtest.h>
#include <xpose/xpose.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "core/core.hpp"
#include "core/span_map.hpp"
#include "cuda/nd/nd_route.hpp"
#include "permute_ref.hpp"
#include "test_util.hpp"

namespace {

using namespace xpose::detail;
using xpose::index_t;

// nd_span_kernel<E> with `grid` blocks: per block its tiles t = b, b + grid, ...; per tile every thread's loads
// (slot p = tid + k * threads while p < V, masked by its edge bits on the cut dims the tile leaves short) into the
// shared tile at smem(p), then every thread's stores from smem(index of its output-order slot). A shared read of an index this
// tile did not write, an access outside a view or an element written twice fails.
template <class Map>
void emulate_span(const xpose::plan& p, const span_choice& c, int grid, const unsigned char* in, index_t in_elems,
                  unsigned char* out, index_t out_elems, std::vector<int>& writes) {
  const int E = p.in.elem_size, NT = span_threads, R = span_slots(E);
  const Map m = make_span_map<Map>(p, c);
  ASSERT_LE(m.V, span_max_elems(E));
  ASSERT_LE(m.ncut, 2);
  const int smem_elems = span_smem_elems(span_max_elems(E), 1);
  ASSERT_LE(span_smem_elems(m.V, m.pad_shift), smem_elems);
  std::vector<unsigned char> sm(static_cast<std::size_t>(smem_elems) * E);
  std::vector<index_t> stamp(static_cast<std::size_t>(smem_elems), -1);
  for (int b = 0; b < grid; ++b)
    for (index_t t = b; t < m.tiles; t += grid) {
      index_t ib = 0, ob = 0;
      int sc = 0;
      m.tile(t, &ib, &ob, &sc);
      for (int tid = 0; tid < NT; ++tid)
        for (int k = 0; k < R; ++k) {
          const int q = tid + k * NT;
          if (q >= m.V || (m.edge_bits(q) & sc) != 0) continue;
          const index_t off = ib + m.in_off(q);
          ASSERT_TRUE(off >= 0 && off < in_elems) << "load outside the input view";
          const int s = m.smem(q);
          ASSERT_TRUE(s >= 0 && s < smem_elems);
          std::memcpy(sm.data() + static_cast<std::size_t>(s) * E, in + off * E, static_cast<std::size_t>(E));
          stamp[static_cast<std::size_t>(s)] = t;
        }
      for (int tid = 0; tid < NT; ++tid)
        for (int k = 0; k < R; ++k) {
          const int q = tid + k * NT;
          if (q >= m.V || ((m.edge_bits(q) >> 2) & sc) != 0) continue;
          int i = 0;
          const index_t off = ob + m.out_off(q, &i);
          const int s = m.smem(i);
          ASSERT_TRUE(s >= 0 && s < 65536) << "shared index beyond 16 bits";
          ASSERT_TRUE(off >= 0 && off < out_elems) << "store outside the output view";
          ASSERT_EQ(stamp[static_cast<std::size_t>(s)], t) << "a shared element this tile did not load";
          std::memcpy(out + off * E, sm.data() + static_cast<std::size_t>(s) * E, static_cast<std::size_t>(E));
          ++writes[static_cast<std::size_t>(off)];
        }
    }
}

// Runs the emulation of plan p's span choice on views placed `shift` elements past their allocation; compares
// with the reference.
void check_span(const xpose_test::perm_case& pc, int shift, int grid, bool wide, const char* what, int* ran) {
  xpose::plan p;
  ASSERT_TRUE(xpose::make_plan(pc.in, pc.out, pc.axes, pc.in.rank, {}, &p).ok());
  if (p.algo != xpose::algorithm::permute_nd && p.algo != xpose::algorithm::strided_copy) return;
  ++*ran;
  const index_t es = p.in.elem_size;
  const index_t ni = xpose_test::span_elems(pc.in), no = xpose_test::span_elems(pc.out);
  std::vector<unsigned char> src = xpose_test::random_bytes(static_cast<std::size_t>(ni * es), static_cast<std::uint64_t>(ni + shift));
  std::vector<unsigned char> want(static_cast<std::size_t>(no * es), 0xFF);
  xpose_test::reference_permute(src.data(), want.data(), pc.in, pc.out, pc.axes, false);
  std::vector<unsigned char> ib(static_cast<std::size_t>((ni + shift) * es)), ob(static_cast<std::size_t>((no + shift) * es), 0xFF);
  std::memcpy(ib.data() + shift * es, src.data(), src.size());
  const span_choice c = span_choose(p, ib.data() + shift * es, ob.data() + shift * es);
  ASSERT_GE(c.ns, 1);
  ASSERT_GT(c.pred, 0);
  std::vector<int> writes(static_cast<std::size_t>(no), 0);
  if (wide) emulate_span<span_map>(p, c, grid, ib.data() + shift * es, ni, ob.data() + shift * es, no, writes);
  else emulate_span<span_map32>(p, c, grid, ib.data() + shift * es, ni, ob.data() + shift * es, no, writes);
  const std::vector<unsigned char> got(ob.begin() + shift * es, ob.end());
  ASSERT_EQ(got, want) << what << " es " << es << " rank " << p.out.rank << " shift " << shift;
  index_t n = 0;
  for (int w : writes) {
    ASSERT_LE(w, 1) << what << ": an element written twice";
    n += w;
  }
  ASSERT_EQ(n, p.count) << what;
}

TEST(SpanMap, RandomPlansEveryElementSizeShiftAndWidth) {
  std::mt19937_64 g(20261204);
  int ran = 0;
  for (int iter = 0; iter < 300; ++iter) {
    const int es = 1 << (g() % 5), r = 2 + static_cast<int>(g() % 7);
    const xpose_test::perm_case c = xpose_test::random_case(g, r, es, 6000, g() % 2);
    ASSERT_NO_FATAL_FAILURE(check_span(c, static_cast<int>(g() % 4), 1 + static_cast<int>(g() % 9), iter % 2, "random", &ran));
  }
  EXPECT_GT(ran, 150);
}

TEST(SpanMap, PrimeExtentsStridedViewsAndCuts) {
  std::mt19937_64 g(4099);
  int ran = 0;
  for (int iter = 0; iter < 160; ++iter) {
    const int es = 1 << (g() % 5), r = 2 + static_cast<int>(g() % 7);
    // Up to 60000 elements: the tile's dims exceed its 1024-4096 elements, so the planner cuts one or two dims.
    const xpose_test::perm_case c = xpose_test::prime_case(g, r, es, iter % 3 == 0 ? 60000 : 4000);
    ASSERT_NO_FATAL_FAILURE(check_span(c, static_cast<int>(iter % 4), 1 + static_cast<int>(g() % 5), iter % 2 == 1, "prime", &ran));
  }
  EXPECT_GT(ran, 100);
}

xpose::plan plan_of(std::vector<index_t> ext, std::vector<int> axes, int es) {
  const int r = static_cast<int>(ext.size());
  const xpose::layout in = xpose::layout::packed(r, ext.data(), es);
  xpose::plan p;
  EXPECT_TRUE(xpose::make_plan(in, xpose::permuted_packed(in, axes.data(), r), axes.data(), r, {}, &p).ok());
  return p;
}

/// Whether some dim of tile c satisfies f(input dim, tile length).
template <class F>
bool tile_has(const span_choice& c, F f) {
  for (int j = 0; j < c.ns; ++j)
    if (f(c.dims[j], c.len[j])) return true;
  return false;
}

index_t tile_elems(const span_choice& c) {
  index_t v = 1;
  for (int j = 0; j < c.ns; ++j) v *= c.len[j];
  return v;
}

// The shapes the planner is for: every choice within the tile's elements with at most two cut dims, runs that
// fill sectors on both sides where the dims allow.
TEST(SpanPlanner, ChoicesKeepTheLimitsAndFillBothSides) {
  std::mt19937_64 g(77);
  for (int iter = 0; iter < 2000; ++iter) {
    const int es = 1 << (g() % 5), r = 2 + static_cast<int>(g() % 7);
    const xpose_test::perm_case pc = xpose_test::prime_case(g, r, es, 1 << 24);
    xpose::plan p;
    ASSERT_TRUE(xpose::make_plan(pc.in, pc.out, pc.axes, r, {}, &p).ok());
    if (p.algo != xpose::algorithm::permute_nd) continue;
    const span_choice c = span_choose(p);
    ASSERT_LE(tile_elems(c), span_max_elems(es));
    int cuts = 0;
    for (int j = 0; j < c.ns; ++j) cuts += c.len[j] != p.in.extents[c.dims[j]];
    ASSERT_LE(cuts, 2);
    ASSERT_GT(c.pred, 0);
    ASSERT_LE(c.pred, 1.0);
  }
  // A batch of small transposes (31x7x5x23 of 3x37 f64, swapped): one tile holds whole 3x37 blocks, so both the
  // input's and the output's runs are whole blocks (888 bytes or more).
  const xpose::plan b = plan_of({31, 7, 5, 23, 3, 37}, {3, 0, 1, 2, 5, 4}, 8);
  ASSERT_EQ(b.algo, xpose::algorithm::permute_nd);
  const span_choice cb = span_choose(b);
  EXPECT_TRUE(tile_has(cb, [&](int d, index_t len) { return b.in.extents[d] == 3 && len == 3; }));
  EXPECT_TRUE(tile_has(cb, [&](int d, index_t len) { return b.in.extents[d] == 37 && len == 37; }));
  EXPECT_GT(cb.pred, 0.6);  // the model's f64 ceiling at full sectors: 1 / span_cost_per_slot(8) = 0.73
  // A 3-d reversal of long dims (f32): the input's runs take at least 16 elements (64 bytes) of its fastest dim,
  // the output's runs the whole 5-element fastest dim and at least 8 of the next (160 bytes or more).
  const xpose::plan t = plan_of({5, 4001, 3001}, {2, 1, 0}, 4);
  const span_choice ct = span_choose(t);
  ASSERT_EQ(ct.ns, 3);
  EXPECT_GE(ct.len[0], 16);
  EXPECT_GE(ct.len[1], 8);
  EXPECT_EQ(ct.len[2], 5);
  // A view whose input runs are 2 f32 apart by 3 (x[..., :23, :2] of a [..., 27, 3] parent): the tile takes the
  // gapped dim whole with the 2-element runs, so that the sectors between the runs carry data of the same tile (the
  // runs alone, 8 bytes of each 12, waste three quarters of their sectors).
  {
    xpose::layout in{};
    in.rank = 7, in.elem_size = 4;
    const index_t ext[7] = {3, 9, 11, 43, 61, 23, 2}, st[7] = {21033837, 2337093, 212463, 4941, 81, 3, 1};
    for (int k = 0; k < 7; ++k) in.extents[k] = ext[k], in.strides[k] = st[k];
    const int axes[7] = {0, 6, 5, 4, 1, 3, 2};
    xpose::plan v;
    ASSERT_TRUE(xpose::make_plan(in, xpose::permuted_packed(in, axes, 7), axes, 7, {}, &v).ok());
    ASSERT_EQ(v.algo, xpose::algorithm::permute_nd);
    const span_choice cv = span_choose(v);
    EXPECT_TRUE(tile_has(cv, [&](int d, index_t len) { return v.in.strides[d] == 3 && len == 23; }));  // gapped dim
    EXPECT_TRUE(tile_has(cv, [&](int d, index_t len) { return v.in.strides[d] == 1 && len == 2; }));   // the pairs
    EXPECT_GT(cv.pred, 0.5);
  }
}

// Strided copies of kept rows under 128 bytes (1-127 bytes of every element size) in 1-4 byte units route to the
// span tile, in units of the row unit (row_unit: up to 4 bytes where the rows, strides and pointers allow): ranks 3-6 of odd
// extents, input views with gaps (rows back to back or not), output views with gaps, both views at every shift
// of an element within 16 bytes. The emulation in units must reproduce the reference byte for byte.
TEST(SpanMap, ShortRowStridedCopiesInRowUnits) {
  std::mt19937_64 g(20261205);
  int ran = 0, widened = 0, apart = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const int es = 1 << (g() % 5), r = 3 + static_cast<int>(g() % 4);
    xpose_test::perm_case c;
    c.in.rank = c.out.rank = r;
    c.in.elem_size = c.out.elem_size = es;
    index_t n = 1;
    for (int q = 0; q < r; ++q) {
      const index_t most = q == r - 1 ? 127 / es : 23;
      c.in.extents[q] = 1 + static_cast<index_t>(g() % static_cast<std::uint64_t>(most));
      if (q < r - 1 && c.in.extents[q] > 2) c.in.extents[q] |= 1;
      n *= c.in.extents[q];
    }
    if (n > 40000 || c.in.extents[r - 1] * es >= 128) continue;
    // The input: a packed parent grown by 0-3 elements on some dims (the rows' own dim too: rows apart).
    index_t s = 1;
    const bool gap_rows = g() % 3 == 0;
    for (int q = r - 1; q >= 0; --q) {
      c.in.strides[q] = s;
      s *= c.in.extents[q] + ((q == r - 1 ? gap_rows : g() % 2 == 0) ? static_cast<index_t>(g() % 4) : 0);
    }
    for (int q = 0; q < r; ++q) c.axes[q] = q;
    for (int q = r - 2; q > 0; --q) std::swap(c.axes[q], c.axes[g() % (q + 1)]);  // the last axis kept
    c.out = xpose::permuted_packed(c.in, c.axes, r);
    if (iter % 3 == 1) {
      c.out.strides[r - 2] += static_cast<index_t>(g() % 5) * (iter % 2 ? 1 : 16 / es);
      for (int q = r - 3; q >= 0; --q) c.out.strides[q] = c.out.strides[q + 1] * c.out.extents[q + 1];
    }
    xpose::plan p;
    if (!xpose::make_plan(c.in, c.out, c.axes, r, {}, &p).ok() || p.algo != xpose::algorithm::strided_copy) continue;
    const int rr = p.out.rank;
    if (p.out.extents[rr - 1] * es >= 128) continue;
    const index_t ni = xpose_test::span_elems(c.in), no = xpose_test::span_elems(c.out);
    const int si = static_cast<int>(g() % 2 ? 0 : g() % (16 / es)), so = static_cast<int>(g() % 2 ? 0 : g() % (16 / es));
    std::vector<__int128> ibw(static_cast<std::size_t>((ni + si) * es / 16 + 2)), obw(static_cast<std::size_t>((no + so) * es / 16 + 2));
    unsigned char* ib = reinterpret_cast<unsigned char*>(ibw.data()) + si * es;
    unsigned char* ob = reinterpret_cast<unsigned char*>(obw.data()) + so * es;
    const std::vector<unsigned char> src = xpose_test::random_bytes(static_cast<std::size_t>(ni * es), static_cast<std::uint64_t>(iter));
    std::memcpy(ib, src.data(), src.size());
    std::memset(ob, 0xFF, static_cast<std::size_t>(no * es));
    std::vector<unsigned char> want(static_cast<std::size_t>(no * es), 0xFF);
    xpose_test::reference_permute(src.data(), want.data(), c.in, c.out, c.axes, false);
    const nd_route rt = nd_route_of(p, ib, ob);
    if (rt.kernel == nd_kernel::run_tile) continue;
    const int u = row_unit(p, ib, ob);
    if (!span_takes_rows(u > 0 ? u : es, p.out.extents[rr - 1] * es)) {  // 8-16 byte units: the row tile, the copy
      ASSERT_NE(rt.kernel, nd_kernel::span) << "iter " << iter;
      continue;
    }
    ASSERT_EQ(rt.kernel, nd_kernel::span) << "iter " << iter;
    const xpose::plan& q = rt.q;
    const index_t qe = q.in.elem_size;
    ASSERT_EQ(qe, row_unit(p, ib, ob) > es ? row_unit(p, ib, ob) : es);
    ASSERT_EQ(q.count * qe, p.count * es);
    widened += qe > es;
    apart += p.in.strides[rr - 2] != p.out.extents[rr - 1];
    std::vector<int> writes(static_cast<std::size_t>(no * es / qe), 0);
    if (iter % 2) emulate_span<span_map>(q, rt.span, 1 + static_cast<int>(g() % 7), ib, ni * es / qe, ob, no * es / qe, writes);
    else emulate_span<span_map32>(q, rt.span, 1 + static_cast<int>(g() % 7), ib, ni * es / qe, ob, no * es / qe, writes);
    if (HasFatalFailure()) return;
    ASSERT_EQ(std::vector<unsigned char>(ob, ob + no * es), want) << "iter " << iter << " es " << es << " unit " << qe;
    index_t cnt = 0;
    for (int w : writes) {
      ASSERT_LE(w, 1) << "an element written twice";
      cnt += w;
    }
    ASSERT_EQ(cnt, q.count);
    ++ran;
  }
  EXPECT_GT(ran, 60);
  EXPECT_GT(widened, 8);
  EXPECT_GT(apart, 30);
}

}  // namespace

namespace {

// nd_route_of's per-thread cache returns what nd_route_plan computes, over alternating plans and pointer
// alignments (a stale entry would run a kernel on another plan's map).
TEST(NdRouteCache, MatchesTheUncachedRouteAcrossPlansAndAlignments) {
  std::mt19937_64 g(5);
  std::vector<xpose::plan> plans;
  for (int i = 0; i < 40; ++i) {
    const int es = 1 << (g() % 5), r = 2 + static_cast<int>(g() % 7);
    const xpose_test::perm_case pc = xpose_test::prime_case(g, r, es, 1 << 22);
    xpose::plan p;
    ASSERT_TRUE(xpose::make_plan(pc.in, pc.out, pc.axes, r, {}, &p).ok());
    if (p.algo == xpose::algorithm::permute_nd || p.algo == xpose::algorithm::strided_copy) plans.push_back(p);
  }
  ASSERT_GT(plans.size(), 20u);
  for (int iter = 0; iter < 2000; ++iter) {
    const xpose::plan& p = plans[g() % plans.size()];
    const void* in = reinterpret_cast<const void*>(std::uintptr_t{4096} + g() % 64);
    const void* out = reinterpret_cast<const void*>(std::uintptr_t{8192} + g() % 64);
    const nd_route a = nd_route_of(p, in, out), b = nd_route_plan(p, in, out);
    ASSERT_EQ(a.kernel, b.kernel);
    ASSERT_EQ(a.span.ns, b.span.ns);
    for (int j = 0; j < b.span.ns; ++j) ASSERT_EQ(a.span.len[j], b.span.len[j]);
    ASSERT_EQ(a.span.pred, b.span.pred);
    ASSERT_EQ(a.unit, b.unit);
    ASSERT_EQ(a.shape, b.shape);
  }
}

}  // namespace
