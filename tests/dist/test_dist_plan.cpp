// xpose::dist's host-only core without any communicator: the chunk split, the block index
// math (every send/receive message and every output element covered exactly once, each
// message the same size on both ends), the agreement's decisions and the local checks.
#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "dist/plan.hpp"

namespace {

using xpose::index_t;
using xpose::status_code;
namespace xd = xpose::dist;
namespace dd = xpose::dist::detail;

TEST(DistPlan, ChunkSplitCoversEveryRowOnce) {
  for (int K = 1; K <= 20; ++K)
    for (index_t n : {0, 1, 2, 7, 80, 81, 1000, 65536, 1234567}) {
      EXPECT_EQ(dd::chunk_begin(n, K, 0), 0);
      EXPECT_EQ(dd::chunk_begin(n, K, K), n);
      for (int k = 0; k < K; ++k) {
        EXPECT_LE(dd::chunk_begin(n, K, k), dd::chunk_begin(n, K, k + 1));
        EXPECT_EQ(dd::chunk_begin(n, K, k) % 16, 0);  // 16-byte aligned chunk starts
      }
      // Symmetric weights: the first and last chunks are the smallest.
      for (int j = 0; j < K; ++j) {
        EXPECT_EQ(dd::chunk_weight(K, j), dd::chunk_weight(K, K - 1 - j));
        EXPECT_GE(dd::chunk_weight(K, j), dd::chunk_weight(K, 0));
      }
    }
  EXPECT_EQ(dd::chunk_begin(index_t{1} << 60, 64, 63), dd::chunk_begin(index_t{1} << 60, 64, 63));  // no overflow trap
}

struct layout {
  int P;
  index_t R, C, batch;
  int es;
  std::vector<index_t> rows, outs;
};

// The plans of all P ranks for one layout (each rank's own view).
struct all_plans {
  std::vector<xd::desc> descs;
  std::vector<dd::local_view> views;
  std::vector<index_t> offs;
  std::vector<dd::plan> plans;
};

all_plans plans_for(const layout& L, int K) {
  all_plans a;
  a.descs.resize(L.P);
  a.views.resize(L.P);
  std::vector<dd::record> recs(L.P);
  for (int r = 0; r < L.P; ++r) {
    xd::desc& d = a.descs[r];
    d.global_rows = L.R;
    d.cols = L.C;
    d.rows = L.rows[r];
    d.out_rows = L.outs[r];
    d.batch = L.batch;
    d.elem_size = L.es;
    EXPECT_TRUE(dd::resolve(d, L.P, r, &a.views[r]).ok());
    recs[r] = dd::make_record(d, a.views[r], L.P, K, {});
  }
  a.offs.assign(2 * L.P + 2, -1);
  EXPECT_TRUE(dd::agree(recs.data(), L.P, 0, {}, a.offs.data(), a.offs.data() + L.P + 1).ok());
  for (int r = 0; r < L.P; ++r) a.plans.push_back(dd::make_plan(a.descs[r], a.views[r], L.P, r, a.offs.data(), K, 64));
  return a;
}

layout random_layout(std::mt19937_64& g) {
  layout L;
  L.P = 1 + static_cast<int>(g() % 9);
  // Up to 160 rows/columns: chunk starts are multiples of 16, so several chunks need width.
  L.R = static_cast<index_t>(g() % 160);
  L.C = static_cast<index_t>(g() % 160);
  L.batch = 1 + static_cast<index_t>(g() % 3);
  L.es = 1 << (g() % 5);
  const auto split = [&](index_t n) {
    std::vector<index_t> v(L.P, 0);
    for (index_t i = 0; i < n; ++i) ++v[g() % L.P];  // any sizes, zeros included
    return v;
  };
  L.rows = split(L.R);
  L.outs = split(L.C);
  return L;
}

TEST(DistPlan, MessagesTileTheBuffersAndMatchTheirPeers) {
  std::mt19937_64 g(15);
  for (int trial = 0; trial < 400; ++trial) {
    const layout L = random_layout(g);
    const int K = 1 + static_cast<int>(g() % 9);
    const all_plans a = plans_for(L, K);
    for (int me = 0; me < L.P; ++me) {
      const dd::plan& p = a.plans[me];
      std::vector<int> send_hits(static_cast<std::size_t>(p.v.send_elems), 0), recv_hits(static_cast<std::size_t>(p.v.recv_elems), 0);
      for (int q = 0; q < L.P; ++q) {
        if (q == me) continue;
        for (int k = 0; k < p.chunks; ++k) {
          const dd::message s = dd::send_message(p, q, k), r = dd::recv_message(p, q, k);
          // What I send q in chunk k is what q receives from me in chunk k.
          EXPECT_EQ(s.elems, dd::recv_message(a.plans[q], me, k).elems);
          for (index_t i = 0; i < s.elems; ++i) ++send_hits.at(static_cast<std::size_t>(s.buf_off + i));
          for (index_t i = 0; i < r.elems; ++i) ++recv_hits.at(static_cast<std::size_t>(r.buf_off + i));
          // The pack writes exactly the send message; the unpack reads exactly the receive message.
          const dd::local_transpose t = dd::pack(p, q, k);
          EXPECT_EQ(t.out_off, s.buf_off);
          EXPECT_EQ(t.md.rows * t.md.cols * t.md.batch, s.elems);
          const dd::pitched_copy c = dd::unpack(p, q, k);
          EXPECT_EQ(c.src_off, r.buf_off);
          EXPECT_EQ(c.width * c.height * c.batch, r.elems);
        }
      }
      for (int h : send_hits) ASSERT_EQ(h, 1) << "trial " << trial;
      for (int h : recv_hits) ASSERT_EQ(h, 1) << "trial " << trial;
    }
  }
}

TEST(DistPlan, EveryOutputElementComesFromTheRightInputElement) {
  std::mt19937_64 g(16);
  for (int trial = 0; trial < 300; ++trial) {
    const layout L = random_layout(g);
    const int K = 1 + static_cast<int>(g() % 6);
    const all_plans a = plans_for(L, K);
    for (int me = 0; me < L.P; ++me) {
      const dd::plan& p = a.plans[me];
      const index_t ld_out = p.v.ld_out, n_out = p.v.stride_out * L.batch;
      // src[e] = the global input element (b, r, c) that lands in output element e, as b*R*C + r*C + c.
      std::vector<index_t> src(static_cast<std::size_t>(n_out), -1);
      const auto place = [&](index_t e, index_t global) {
        ASSERT_EQ(src.at(static_cast<std::size_t>(e)), -1) << "written twice";
        src[static_cast<std::size_t>(e)] = global;
      };
      // Self block, in the NCCL pipeline's chunks (the MPI path's whole self_block is
      // chunk 0 of 1): local input (b, i, in_off + j) -> output (b, j, row_off[me] + i).
      const dd::local_transpose whole = dd::self_block(p);
      index_t self_cols = 0;
      for (int k = 0; k < p.chunks; ++k) {
        const dd::local_transpose s = dd::self_chunk(p, k);
        self_cols += s.md.cols;
        for (index_t b = 0; b < s.md.batch; ++b)
          for (index_t i = 0; i < s.md.rows; ++i)
            for (index_t j = 0; j < s.md.cols; ++j)
              place(s.out_off + b * s.md.stride_out + j * s.md.ld_out + i,
                    b * L.R * L.C + (p.row_off[me] + i) * L.C + (s.in_off + j));
      }
      EXPECT_EQ(self_cols, whole.md.cols);
      EXPECT_EQ(whole.in_off, p.col_off[me]);
      EXPECT_EQ(whole.out_off, p.row_off[me]);
      // From peer q, chunk k: q packed its input (b, i, c) into its send buffer; the bytes
      // arrive in my receive buffer; the unpack moves them to the output.
      for (int q = 0; q < L.P; ++q) {
        if (q == me) continue;
        const dd::plan& pq = a.plans[q];
        for (int k = 0; k < p.chunks; ++k) {
          const dd::local_transpose t = dd::pack(pq, me, k);  // q's pack for me
          const dd::pitched_copy c = dd::unpack(p, q, k);
          const index_t recv_base = dd::recv_message(p, q, k).buf_off, send_base = dd::send_message(pq, me, k).buf_off;
          for (index_t b = 0; b < t.md.batch; ++b)
            for (index_t i = 0; i < t.md.rows; ++i)      // q's local row
              for (index_t j = 0; j < t.md.cols; ++j) {  // column within the chunk
                const index_t in_send = t.out_off + b * t.md.stride_out + j * t.md.ld_out + i;
                const index_t in_recv = recv_base + (in_send - send_base);
                const index_t rel = in_recv - c.src_off;  // position inside the received chunk
                const index_t cb = rel / c.src_batch, ch = rel % c.src_batch / c.src_pitch, cw = rel % c.src_pitch;
                place(c.dst_off + cb * c.dst_batch + ch * c.dst_pitch + cw,
                      b * L.R * L.C + (pq.row_off[q] + i) * L.C + (t.in_off + j));
              }
        }
      }
      // Output (b, i, r) = input (b, r, col_off[me] + i); padding untouched.
      for (index_t b = 0; b < L.batch; ++b)
        for (index_t i = 0; i < p.v.out_rows; ++i)
          for (index_t r = 0; r < L.R; ++r)
            ASSERT_EQ(src[static_cast<std::size_t>(b * p.v.stride_out + i * ld_out + r)],
                      b * L.R * L.C + r * L.C + p.col_off[me] + i)
                << "trial " << trial << " rank " << me;
    }
  }
}

TEST(DistPlan, AgreementIsTheSameOnEveryRank) {
  const int P = 4;
  std::vector<dd::record> recs(P);
  for (int r = 0; r < P; ++r) {
    xd::desc d;
    d.global_rows = 8;
    d.cols = 8;
    d.rows = 2;
    d.out_rows = 2;
    dd::local_view v;
    ASSERT_TRUE(dd::resolve(d, P, r, &v).ok());
    recs[r] = dd::make_record(d, v, P, 0, {});
  }
  std::vector<index_t> offs(2 * P + 2);
  const auto decide = [&](int me) {
    // A rank's own outcome is its record's code (as the backends build them).
    const auto code = static_cast<status_code>(recs[me].code);
    const xpose::status mine = code == status_code::ok ? xpose::status{} : xpose::status::make(code, "local");
    return dd::agree(recs.data(), P, me, mine, offs.data(), offs.data() + P + 1).code();
  };
  for (int me = 0; me < P; ++me) EXPECT_EQ(decide(me), status_code::ok);
  recs[2].cols = 9;  // one rank describes another matrix
  for (int me = 0; me < P; ++me) EXPECT_EQ(decide(me), status_code::size_mismatch);
  recs[2].cols = 8;
  recs[1].rows = 3;  // rows no longer add up
  for (int me = 0; me < P; ++me) EXPECT_EQ(decide(me), status_code::size_mismatch);
  recs[1].rows = 2;
  recs[3].code = static_cast<std::int64_t>(status_code::workspace_too_small);
  recs[1].code = static_cast<std::int64_t>(status_code::null_pointer);  // the lowest failing rank wins
  for (int me = 0; me < P; ++me) EXPECT_EQ(decide(me), status_code::null_pointer);
  recs[1].code = recs[3].code = 0;
  recs[0].chunks = 3;
  for (int me = 0; me < P; ++me) EXPECT_EQ(decide(me), status_code::invalid_argument);
}

TEST(DistPlan, LocalChecksNameTheProblem) {
  xd::desc d;
  d.global_rows = 10;
  d.cols = 6;
  d.rows = 5;
  std::size_t bytes = 0;
  ASSERT_TRUE(xd::workspace_size(d, 2, 0, &bytes).ok());
  EXPECT_EQ(bytes, 256u + 5 * 3 * 4);  // send 5 x 3, aligned to 256, then receive 3 x 5
  xd::desc bad = d;
  bad.elem_size = 3;
  EXPECT_EQ(xd::workspace_size(bad, 2, 0, &bytes).code(), status_code::unsupported_elem_size);
  bad = d;
  bad.rows = -1;
  EXPECT_EQ(xd::workspace_size(bad, 2, 0, &bytes).code(), status_code::negative_size);
  bad = d;
  bad.nranks = 3;
  EXPECT_EQ(xd::workspace_size(bad, 2, 0, &bytes).code(), status_code::comm_size_mismatch);
  bad = d;
  bad.ld_in = 5;
  EXPECT_EQ(xd::workspace_size(bad, 2, 0, &bytes).code(), status_code::bad_leading_dim);
  bad = d;
  bad.rows = 11;
  EXPECT_EQ(xd::workspace_size(bad, 2, 0, &bytes).code(), status_code::size_mismatch);
  EXPECT_EQ(xd::workspace_size(d, 2, 0, nullptr).code(), status_code::null_pointer);
  EXPECT_EQ(xd::even_split(10, 3, 0), 4);
  EXPECT_EQ(xd::even_split(10, 3, 2), 3);
}

// chunk_begin in O(1): summing K weights per call made a call with K chunks cost O(K^2)
// (10^5 chunks on a 64 x 48 matrix: over 30 s). The closed form equals the sum.
TEST(DistPlan, ChunkBoundsAreClosedFormAndLinear) {
  for (int K = 1; K <= 200; ++K) {
    index_t before = 0;
    for (int k = 0; k <= K; ++k) {
      EXPECT_EQ(dd::chunk_weights_before(K, k), before) << K << " " << k;
      if (k < K) before += dd::chunk_weight(K, k);
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  index_t sum = 0;
  const int K = 1 << 20;
  for (int k = 0; k <= K; ++k) sum += dd::chunk_begin(48, K, k);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GT(sum, 0);
  EXPECT_LT(s, 2.0);  // 2^20 bounds: milliseconds (the sum took hours)
}

// Every check of a rank's local transposes is a local check the agreement carries (one
// that failed only inside the first local transpose, after the agreement, would leave
// the peers hung): a bad host thread count, and unused pitches beyond 2^56 bytes, on a
// rank with or without rows.
TEST(DistPlan, EveryLocalTransposeCheckIsALocalCheck) {
  for (index_t rows : {0, 1}) {
    xd::desc d;
    d.global_rows = 2;
    d.cols = 6;
    d.rows = rows;
    d.out_rows = 3;
    std::vector<float> in(12), out(12);
    std::vector<unsigned char> ws(4096);
    dd::local_view v;
    const auto check = [&](const xd::desc& dd_, int threads) {
      xd::options o;
      o.host_threads = threads;
      return dd::local_checks(in.data(), out.data(), ws.data(), ws.size(), dd_, 2, 0, o, 1 << 20, &v).code();
    };
    EXPECT_EQ(check(d, 0), status_code::ok);
    for (int t : {-1, 100000, INT_MIN, INT_MAX}) EXPECT_EQ(check(d, t), status_code::invalid_argument) << t;
    const index_t huge = index_t{1} << 60;
    xd::desc bad = d;
    bad.stride_in = huge;  // batch 1: unused
    EXPECT_EQ(check(bad, 0), status_code::size_overflow);
    bad = d;
    bad.stride_out = huge;
    EXPECT_EQ(check(bad, 0), status_code::size_overflow);
    bad = d;
    bad.ld_in = huge;  // unused with one row or none
    EXPECT_EQ(check(bad, 0), status_code::size_overflow);
    bad = d;
    bad.ld_out = huge;
    EXPECT_NE(check(bad, 0), status_code::ok);
    xd::options o;
    o.chunks = -1;
    EXPECT_EQ(dd::local_checks(in.data(), out.data(), ws.data(), ws.size(), d, 2, 0, o, 16, &v).code(),
              status_code::invalid_argument);
  }
}

TEST(DistPlan, StatusNamesOfTheDistCodes) {
  std::set<std::string> names;
  for (status_code c : {status_code::size_mismatch, status_code::comm_size_mismatch, status_code::workspace_too_small,
                        status_code::comm_error}) {
    EXPECT_STRNE(xpose::to_string(c), "unknown_status");
    names.insert(xpose::to_string(c));
  }
  EXPECT_EQ(names.size(), 4u);
}

}  // namespace
