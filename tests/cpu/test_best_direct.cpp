// Host-side checks of the direct scatter (src/cuda/best_direct.cuh, route slab_scatter_direct):
// the kernel's phases on host buffers, block by block of a resident grid, in the kernel's
// order (slab i + depth - 1's loads before slab i's stores, into slab i - 1's buffer), each
// warp run's 32 lanes' pieces before its stores (the shuffle), against the CPU reference:
// every side 2-8, 1- and 2-byte elements, ragged ends, last slabs shorter than the halo,
// pointers offset by elements, padded and gapped layouts, inputs allocated to their exact
// extent (ASan in the sanitize preset sees any overrun), 0xFF poison in the output's
// padding.
#include <gtest/gtest.h>

#include <cstring>
#include <tuple>
#include <vector>

#include "cuda/best_direct.cuh"
#include "cuda/policy.hpp"
#include "slab_host_check.hpp"
#include "test_util.hpp"

using namespace xpose::detail;
using xpose_test::padded;
using u8 = unsigned char;

namespace {

// Slab p's stores from its staged buffer st, warp run by warp run (any warp, any order):
// each run's 32 lanes' pieces, then its stores (the shuffle).
template <int E, int SS>
void direct_slab(const slab::args& a, const slab::pos& p, const u8* st) {
  using D = slab::direct_shape<E, SS>;
  const slab::direct_seg g = slab::direct_seg_of<E, D::PB>(a, p);
  for (int r = 0; r < slab::direct_runs<E, D::PB>(p); ++r) {
    std::uint32_t piece[32][SS][D::PB / 4];
    for (int lane = 0; lane < 32; ++lane) {
      std::uint32_t in[D::G][D::IW];
      slab::direct_load<E, SS>(p, st, slab::direct_piece_of(r, lane), in);
      for (int s = 0; s < SS; ++s) slab::direct_piece<E, SS>(in, s, piece[lane][s]);
    }
    for (int lane = 1; lane < 32; ++lane)
      for (int s = 0; s < SS; ++s)
        slab::direct_store<E, D::PB>(g, p.out + s * a.ld_seg, slab::direct_piece_of(r, lane), piece[lane - 1][s],
                                     piece[lane][s]);
  }
}

// Every block of direct_kernel<E, nt, SS> with `grid` resident blocks of nt threads:
// slab i + D - 1's loads before slab i's stores, into slab i - 1's buffer.
template <int E, int SS>
void emulate_direct(const slab::args& a, int nt, long long grid) {
  const int D = a.pipe_depth == 3 ? 3 : 2;
  std::vector<u8> store(static_cast<std::size_t>(a.smem) + 16);
  u8* sm = store.data() + (16 - reinterpret_cast<std::uintptr_t>(store.data()) % 16) % 16;
  auto loaded = [&](long long t) { return slab::loaded_with_halo<E, true>(a, slab::slab_at<E, slab::scatter>(a, t)); };
  auto issue = [&](long long t, int b) {
    for (int tid = 0; tid < nt; ++tid)
      slab::pipe_issue<E, slab::scatter, SS>(a, loaded(t), slab::pipe_buffer(a, sm, b), tid, nt);
  };
  for (long long b = 0; b < grid && b < a.total; ++b) {
    std::fill(sm, sm + a.smem, static_cast<u8>(0xCD));
    for (int j = 0; j < D - 1; ++j)
      if (b + j * grid < a.total) issue(b + j * grid, j);
    int i = 0;
    for (long long t = b; t < a.total; t += grid, ++i) {
      if (t + (D - 1) * grid < a.total) issue(t + (D - 1) * grid, (i + D - 1) % D);
      direct_slab<E, SS>(a, slab::slab_at<E, slab::scatter>(a, t), slab::pipe_buffer(a, sm, i % D));
    }
  }
}

template <int E>
void check_direct(const xpose::matrix_desc& d, long long off_in, long long off_out, int slab_bytes, int nt,
                  long long grid, int depth) {
  const int side = static_cast<int>(d.cols);
  SCOPED_TRACE(xpose_test::shape_name(d) + " offsets " + std::to_string(off_in) + "/" + std::to_string(off_out) +
               " slab " + std::to_string(slab_bytes) + " nt " + std::to_string(nt) + " grid " + std::to_string(grid) +
               " depth " + std::to_string(depth));
  const auto seed = static_cast<std::uint64_t>(d.rows * 31 + d.cols + off_in + 7 * off_out);
  xpose_test::host_slab_check(d, off_in, off_out, seed, [&](const u8* pin, const u8* in_end, u8* pout) {
    const slab::args a = slab::make_direct_args<E>(pin, pout, d, in_end, slab_bytes, depth);
    ASSERT_GT(a.total, 0);
    ASSERT_EQ(a.pipe_depth, depth);
    ASSERT_LE(a.pipe_buf + depth * a.pipe_step, a.smem);
    ASSERT_LE(a.smem, slab::direct_smem_max<E>(side, slab_bytes, depth));
    switch (side) {
      case 2: return emulate_direct<E, 2>(a, nt, grid);
      case 3: return emulate_direct<E, 3>(a, nt, grid);
      case 4: return emulate_direct<E, 4>(a, nt, grid);
      case 5: return emulate_direct<E, 5>(a, nt, grid);
      case 6: return emulate_direct<E, 6>(a, nt, grid);
      case 7: return emulate_direct<E, 7>(a, nt, grid);
      case 8: return emulate_direct<E, 8>(a, nt, grid);
      default: FAIL() << "no direct kernel for " << side;
    }
  });
}

// Every side; production slabs and small ones (many slabs per block, ragged last slab,
// last slabs shorter than the halo); one resident block, a few, one per slab; two and
// three buffers; every scatter layout of slab_layouts (offsets, padded rows, gaps).
template <int E>
void direct_cases() {
  constexpr long long k = 16 / E;
  const int prod = best_class_policy_for(90, E).slab_bytes;
  for (int s : {2, 3, 4, 5, 6, 7, 8})
    for (int bytes : {prod, static_cast<int>(64 * E * s), static_cast<int>(2 * k * E * s)})
      for (auto [nt, grid] : {std::pair<int, long long>{best_slab_threads, 3}, {32, 1}, {64, 1 << 30}})
        for (long long L : {1LL, k - 1, k + 3, 5 * k + 3, 301LL, 64 * k + 5}) {
          if (bytes == prod && L < 64) continue;  // one short slab: the small slabs cover it
          for (int depth : {2, best_scatter_direct_depth})
            xpose_test::slab_layouts(E, s, L, [&](int mode, const xpose::matrix_desc& d, long long oi, long long oo) {
              if (mode == slab::scatter) check_direct<E>(d, oi, oo, bytes, nt, grid, depth);
            });
          if (::testing::Test::HasFatalFailure()) return;
        }
}

}  // namespace

TEST(BestDirectEmulation, Bytes1) { direct_cases<1>(); }
TEST(BestDirectEmulation, Bytes2) { direct_cases<2>(); }

// Every output offset from the 16-byte grid, odd long sides, the input's end inside a halo.
TEST(BestDirectEmulation, Offsets) {
  for (long long oo = 0; oo < 16; ++oo)
    for (long long L : {35LL, 50LL, 301LL}) {
      check_direct<1>(xpose::matrix_desc::packed(L, 2, 1, 3), 0, oo, 16 * 2 * 3, 32, 2, 3);
      check_direct<1>(padded(L, 6, 1, 2, 0, oo, 5), oo, oo, 16 * 6 * 3, 32, 3, 3);
      if (oo < 8) check_direct<2>(xpose::matrix_desc::packed(L, 5, 2, 2), 1, oo, 8 * 5 * 2 * 3, 64, 2, 3);
      if (HasFatalFailure()) return;
    }
}

// Every output byte stored by exactly one slab, padding and gaps by none (a byte counts as
// stored by a slab when it changes under either of two poisons): sides 4 and 6, output rows
// aligned and not, slabs of k positions (many boundaries).
template <int E, int SS>
void direct_ownership() {
  constexpr long long k = 16 / E;
  using xpose::matrix_desc;
  for (long long oo : {0LL, 1LL, k - 1})
    for (const matrix_desc& d : {matrix_desc::packed(301, SS, E, 2), padded(5 * k + 3, SS, E, 3, 0, 3, 2 * k)}) {
      SCOPED_TRACE(xpose_test::shape_name(d) + " offset " + std::to_string(oo));
      const std::size_t ni = static_cast<std::size_t>(xpose_test::in_elems(d)) * E;
      const std::size_t no = static_cast<std::size_t>(xpose_test::out_elems(d) + oo) * E;
      const auto src = xpose_test::random_bytes(ni, 99);
      xpose_test::aligned_buf in(ni), out(no);
      std::memcpy(in.p.get(), src.data(), ni);
      u8* const pout = out.p.get();
      const slab::args a = slab::make_direct_args<E>(in.p.get(), pout + oo * E, d, in.p.get() + ni,
                                                     static_cast<int>(2 * k * E * d.cols), 2);
      ASSERT_EQ(a.span, k);
      std::vector<u8> store(static_cast<std::size_t>(a.smem) + 16);
      u8* sm = store.data() + (16 - reinterpret_cast<std::uintptr_t>(store.data()) % 16) % 16;
      std::vector<int> count(no, 0);
      for (long long t = 0; t < a.total; ++t) {
        const slab::pos p = slab::slab_at<E, slab::scatter>(a, t), q = slab::loaded_with_halo<E, true>(a, p);
        std::vector<bool> hit(no, false);
        for (u8 poison : {u8{0x00}, u8{0xFF}}) {
          std::memset(pout, poison, no);
          for (int tid = 0; tid < 64; ++tid) slab::pipe_issue<E, slab::scatter, SS>(a, q, sm, tid, 64);
          direct_slab<E, SS>(a, p, sm);
          for (std::size_t x = 0; x < no; ++x) hit[x] = hit[x] || pout[x] != poison;
        }
        for (std::size_t x = 0; x < no; ++x) count[x] += hit[x];
      }
      std::vector<int> want(no, 0);
      for (long long b = 0; b < d.batch; ++b)
        for (long long c = 0; c < d.cols; ++c)
          for (long long l = 0; l < d.rows; ++l)
            for (int e = 0; e < E; ++e) want[static_cast<std::size_t>((oo + b * d.stride_out + c * d.ld_out + l) * E + e)] = 1;
      for (std::size_t x = 0; x < no; ++x) ASSERT_EQ(count[x], want[x]) << "byte " << x;
    }
}

TEST(BestDirectEmulation, Ownership1) {
  direct_ownership<1, 4>();
  direct_ownership<1, 6>();
}
TEST(BestDirectEmulation, Ownership2) {
  direct_ownership<2, 5>();
  direct_ownership<2, 6>();
}

// The two-buffer direct kernel's slab table: 1-2 byte sides 2-8, one size each, blocks inside an SM.
TEST(BestDirect, TwoBufferSlabTableFits) {
  int entries = 0;
  for (int E : {1, 2, 4, 8})
    for (int s = 0; s <= 40; ++s) {
      const int b = best_scatter_direct2_slab(E, s);
      if (b == 0) continue;
      ++entries;
      EXPECT_LE(E, best_pipe_max_elem);
      EXPECT_TRUE(s >= 2 && s <= 8) << s;
      EXPECT_TRUE(b >= 8192 && b <= 32768) << b;
      constexpr int dd = best_scatter_direct2_depth;
      const int smem = E == 1 ? slab::direct_smem_max<1>(s, b, dd) : slab::direct_smem_max<2>(s, b, dd);
      EXPECT_LE(static_cast<long long>(smem + 1024) * best_scatter_direct_min_blocks(s), 228 * 1024) << E << " " << s;
    }
  EXPECT_GT(entries, 0);
  // (Two staging buffers: one slab in flight fewer than the direct route's kernel.)
  EXPECT_EQ(best_scatter_direct2_depth, 2);
  EXPECT_EQ(best_scatter_direct2_depth + 1, best_scatter_direct_depth);
}
