// Host-side checks of the direct scatter (src/cuda/best_direct.cuh, route slab_scatter_direct):
// the kernel's phases on host buffers, block by block of a resident grid, in the kernel's
// order (slab i + depth - 1's loads before slab i's stores, into slab i - 1's buffer), each
// warp run's 32 lanes' pieces before its stores (the shuffle), against the CPU reference:
// every side 2-8, 1- and 2-byte elements, ragged ends, last slabs shorter than the halo,
// pointers offset by elements, padded and gapped layouts, inputs allocated to their exact
// extent (ASan in the sanitize preset sees any overrun), 0xFF poison in the output's
// padding. Plus the route's policy: which shapes take it under which flag.
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

// The routes under both flags: slab_scatter_direct only where the direct switch has the flag
// take it, for 1-2 byte scatters of its sides (best_scatter_direct_fits: aligned output rows
// of u8 4-6 / f16 5-6), the side kept; the
// sweep's rows of those sides take it; never gathers or 4-byte elements. Its blocks fit
// best_scatter_direct_min_blocks per SM.
TEST(BestDirectPolicy, Paths) {
  using xpose::matrix_desc;
  int taken = 0;
  for (bool flag : {false, true})
    for (int E : {1, 2, 4, 8})
      for (long long c : {2LL, 3LL, 4LL, 5LL, 6LL, 7LL, 8LL, 12LL, 16LL, 20LL, 24LL, 32LL, 40LL, 48LL, 64LL, 96LL, 128LL})
        for (long long hw : {50176LL, 50177LL})
          for (auto [oi, oo, pad, gap] : {std::tuple<long long, long long, long long, long long>{0, 0, 0, 0},
                                          {1, 1, 0, 0}, {0, 1, 0, 0}, {0, 0, 3, 0}, {0, 0, 0, 16}, {0, 0, 0, 5}}) {
            SCOPED_TRACE(std::to_string(flag) + " " + std::to_string(E) + " " + std::to_string(c) + " " +
                         std::to_string(hw) + " " + std::to_string(oi) + "/" + std::to_string(oo) + "/" +
                         std::to_string(pad) + "/" + std::to_string(gap));
            const matrix_desc d = padded(hw, c, E, 3, 0, pad, gap);
            const auto in = static_cast<unsigned long long>(oi * E), out = static_cast<unsigned long long>(oo * E);
            const bool aligned = best_out_rows_aligned(d, out);
            const best_choice h = best_path_for(d, in, out, 90, flag);
            const int side = static_cast<int>(c);
            // (Grouped routes without them: every side here but u8 32 and f16 24, 32 (micro-block).)
            const bool grouped = E <= 2 && (c <= 16 || (E == 1 && c == 24));
            const bool want3 = grouped && best_scatter_direct_on(E, flag) && best_scatter_direct_fits(E, side, aligned);
            // (The two-buffer kernel where best_scatter_direct2_default has the flag take the side.)
            const bool want2 = grouped && best_scatter_direct2_on(E, flag) && best_scatter_direct2_takes(E, side, aligned);
            const bool want = want3 || want2;
            EXPECT_EQ(h.path == best_path::slab_scatter_direct, want) << best_path_name(h.path);
            if (want) EXPECT_EQ(h.group, c);
            if (want) EXPECT_EQ(h.slab, want2 ? best_scatter_direct2_slab(E, side) : 0);
            EXPECT_NE(best_path_for(padded(c, hw, E, 3, pad, 0, gap), out, in, 90, flag).path, best_path::slab_scatter_direct);
            taken += want3 && !want2;
          }
  // u8 4-6, f16 5-6: packed buffers and gapped batches of aligned stride (less those the two-buffer kernel takes).
  EXPECT_EQ(taken, best_scatter_direct2_default == best_scatter_direct_default ? 8 : 10);  // (f16 6: 2 layouts)
  // The sweep's rows of the class (packed, aligned buffers) under each flag: the direct kernel
  // exactly where the switch has the flag take the side.
  for (bool flag : {false, true})
    for (int E : {1, 2})
      for (long long c : {2LL, 3LL, 4LL, 5LL, 6LL, 8LL, 12LL, 16LL, 24LL, 32LL, 48LL, 64LL, 96LL, 128LL})
        for (long long hw : {50176LL, 50177LL}) {
          const best_choice h = best_path_for(matrix_desc::packed(hw, c, E, 5), 0, 0, 90, flag);
          const bool aligned = hw % (16 / E) == 0;
          const bool want = (best_scatter_direct_on(E, flag) && best_scatter_direct_fits(E, static_cast<int>(c), aligned)) ||
                            (best_scatter_direct2_on(E, flag) && best_scatter_direct2_takes(E, c, aligned));
          EXPECT_EQ(h.path == best_path::slab_scatter_direct, want) << flag << " " << E << " " << c << " " << hw;
        }
  // The sweep's rows the direct switch measured faster (best_scatter_direct_fits), under the flag that has it on.
  const bool on = !best_scatter_direct_default;
  for (auto [b, c, E] : {std::tuple<long long, long long, int>{167, 4, 1}, {133, 5, 1}, {111, 6, 1}, {66, 5, 2}, {55, 6, 2}}) {
    EXPECT_EQ(best_path_for(matrix_desc::packed(50176, c, E, b), 0, 0, 90, on).path, best_path::slab_scatter_direct);
    // (Odd HW: not the direct route's kernel; the two-buffer one where best_scatter_direct2_default
    // has `on` take the side, best_choice::slab > 0.)
    const best_choice odd = best_path_for(matrix_desc::packed(50177, c, E, b), 0, 0, 90, on);
    const bool direct2 = best_scatter_direct2_on(E, on) && best_scatter_direct2_takes(E, c, false);
    EXPECT_EQ(odd.path == best_path::slab_scatter_direct, direct2);
    if (direct2) EXPECT_EQ(odd.slab, best_scatter_direct2_slab(E, c));
  }
  EXPECT_STREQ(best_path_name(best_path::slab_scatter_direct), "slab_scatter_direct");
  EXPECT_EQ(best_path_base(best_path::slab_scatter_direct), best_path::slab_scatter);
  for (int s : {2, 3, 4, 5, 6, 7, 8}) {
    EXPECT_LE((slab::direct_smem_max<1>(s, best_class_policy_for(90, 1).slab_bytes, best_scatter_direct_depth) + 1024) *
                  best_scatter_direct_min_blocks(s),
              228 * 1024);
    EXPECT_LE((slab::direct_smem_max<2>(s, best_class_policy_for(90, 2).slab_bytes, best_scatter_direct_depth) + 1024) *
                  best_scatter_direct_min_blocks(s),
              228 * 1024);
  }
}
