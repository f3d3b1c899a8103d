// Host-side checks of `best` (no GPU needed): the tile tables against their one valid(),
// the slab table's shared-memory bounds, and the slab kernels' phases run on host buffers, block by block, thread
// by thread, against the CPU reference: the slab addressing is bijective and exact for
// every element size, ragged ends, pointers offset by elements, padded leading
// dimensions, gapped batches; loads stay inside the input view (the input buffer is
// allocated to its exact extent, so ASan in the sanitize preset sees any overrun) and
// stores never touch padding (0xFF poison stays).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <memory>

#include "cuda/best_slab.cuh"
#include "cuda/policy.hpp"
#include "cuda/route_table.hpp"
#include "slab_host_check.hpp"
#include "test_util.hpp"

using namespace xpose::detail;
using xpose_test::in_elems;
using xpose_test::out_elems;
using xpose_test::padded;
using xpose_test::random_bytes;

TEST(BestGeom, EveryTileShapeFitsTheKernels) {
  for (int E : {1, 2, 4, 8, 16}) {
    EXPECT_TRUE(best_tile_valid(E, best_tile_for(E), false)) << E;
    if (E < 16) EXPECT_TRUE(best_tile_valid(E, best_tile_realign_for(E), true)) << E;
    if (E <= 8)
      for (best_shape s : {best_shape::few_rows, best_shape::narrow})
        EXPECT_TRUE(best_tile_valid(E, best_tile_shaped(E, s), false)) << E;
    if (E >= 4 && E <= 8) EXPECT_TRUE(best_tile_valid(E, best_tile_tiny_small_for(E), false)) << E;
  }
  // valid() can fail: chunks < 8, threads not a multiple of chunks, realign groups across warps.
  EXPECT_FALSE(best_tile_valid(4, best_tile{64, 4, 256, 16, 1}, false));
  EXPECT_FALSE(best_tile_valid(4, best_tile{64, 16, 250, 16, 1}, false));
  EXPECT_FALSE(best_tile_valid(1, best_tile{256, 64, 256, 8, 1}, true));
  EXPECT_FALSE(best_tile_valid(3, best_tile_for(4), false));
}

TEST(BestSlabTable, KeepsSlabsSmall) {
  // Every slab block stays under 48 KiB of shared memory (best.cu relies on it).
  for (int cc : {80, 90})
    for (int E : {1, 2, 4, 8, 16}) {
      const best_class_policy p = best_class_policy_for(cc, E);
      EXPECT_LE(p.slab_max_short * E, 2 * p.slab_max_short_bytes);
      EXPECT_LE(p.slab_bytes + 64 * p.slab_max_short, 48 * 1024);
      EXPECT_LE(p.whole_max_bytes, 32 * 1024);
      // Grouped kernels add a staging area: still under 48 KiB at the production slab.
      for (int s : best_slab_group_sides) {
        if (best_slab_group_for(p, E, s) != s) continue;
        for (int m : {slab::gather, slab::scatter}) {
          const xpose::matrix_desc d = m == slab::gather ? xpose::matrix_desc::packed(s, 1 << 20, E)
                                                         : xpose::matrix_desc::packed(1 << 20, s, E);
          static unsigned char dummy[16];
          const slab::args a = E == 1   ? slab::make_args<1>(m, dummy, dummy, d, dummy, p.slab_bytes, true)
                               : E == 2 ? slab::make_args<2>(m, dummy, dummy, d, dummy, p.slab_bytes, true)
                                        : slab::make_args<4>(m, dummy, dummy, d, dummy, p.slab_bytes, true);
          EXPECT_LE(a.smem, 48 * 1024) << E << " " << s;
          EXPECT_GT(a.stage, 0);
        }
      }
    }
}

TEST(BestSlabTable, SmallTransposesTakeSmallerSlabs) {
  const best_class_policy p = best_class_policy_for(90, 1);
  EXPECT_EQ(best_slab_bytes_for(p, 1LL << 30), p.slab_bytes);
  EXPECT_EQ(best_slab_bytes_for(p, 65536), best_slab_min_bytes);
  EXPECT_EQ(best_slab_bytes_for(p, 16), best_slab_min_bytes);
  const int mid = best_slab_bytes_for(p, 256LL * 8192);
  EXPECT_EQ(mid, 8192);
}

// ---- host emulation of the slab kernels ------------------------------------------

namespace {

using slab::u8;

using xpose_test::aligned_buf;

// Runs every block of the slab kernel <E, M, SS, MW> on the host with nt threads: all
// threads' read phase, then (grouped) all threads' middle phase, then all threads'
// write phase, as __syncthreads orders them (slab_kernel's phase choice).
template <int E, int M, int SS = 0, int MW = 0>
void emulate(const slab::args& a, int nt) {
  std::vector<u8> sm_store(static_cast<std::size_t>(a.smem) + 16);
  u8* sm = sm_store.data() + (16 - reinterpret_cast<std::uintptr_t>(sm_store.data()) % 16) % 16;
  const slab::divisors dv(a);
  const xpose::detail::bytes::fdiv by_nb(static_cast<int>(a.S) * E / 16 > 0 ? static_cast<int>(a.S) * E / 16 : 1);
  for (long long t = 0; t < a.total; ++t) {
    const slab::pos p = slab::slab_at<E, M>(a, t);
    std::fill(sm, sm + a.smem, static_cast<u8>(0xCD));
    for (int tid = 0; tid < nt; ++tid) {
      if constexpr (MW > 0 && M == slab::scatter) slab::block_phase<E, M, MW>(a, by_nb, p, sm, tid, nt);
      else slab::read_phase<E, M, best_slab_unroll, SS, MW>(a, dv, p, sm, tid, nt);
    }
    if constexpr (SS > 0)
      for (int tid = 0; tid < nt; ++tid) slab::mid_phase<E, M, SS>(a, dv, p, sm, tid, nt);
    if constexpr (MW > 0 && M == slab::whole)
      for (int tid = 0; tid < nt; ++tid) slab::block_phase<E, M, MW>(a, by_nb, p, sm, tid, nt);
    for (int tid = 0; tid < nt; ++tid) {
      if constexpr (MW > 0 && M == slab::gather) slab::block_phase<E, M, MW>(a, by_nb, p, sm, tid, nt);
      else slab::write_phase<E, M, SS, MW>(a, dv, p, sm, tid, nt);
    }
  }
}

// The grouped kernel's short side SS, chosen at run time as best.cu does.
template <int E, int M>
void emulate_grouped(const slab::args& a, int nt, int group) {
  switch (group) {
    case 2: return emulate<E, M, 2>(a, nt);
    case 3: return emulate<E, M, 3>(a, nt);
    case 4: return emulate<E, M, 4>(a, nt);
    case 5: return emulate<E, M, 5>(a, nt);
    case 6: return emulate<E, M, 6>(a, nt);
    case 8: return emulate<E, M, 8>(a, nt);
    case 12: return emulate<E, M, 12>(a, nt);
    case 16: return emulate<E, M, 16>(a, nt);
    case 24: return emulate<E, M, 24>(a, nt);
    case 32: return emulate<E, M, 32>(a, nt);
    default: FAIL() << "no grouped kernel for " << group;
  }
}

// micro > 0: the micro-block kernel with micro-byte rows (gather / scatter).
template <int E>
void check_slab(int mode, const xpose::matrix_desc& d, long long off_in, long long off_out, int slab_bytes, int nt,
                int group = 0, int micro = 0) {
  SCOPED_TRACE("mode " + std::to_string(mode) + " " + xpose_test::shape_name(d) + " offsets " +
               std::to_string(off_in) + "/" + std::to_string(off_out) + " slab " + std::to_string(slab_bytes) +
               " nt " + std::to_string(nt) + " group " + std::to_string(group) + " micro " + std::to_string(micro));
  const auto seed = static_cast<std::uint64_t>(d.rows * 31 + d.cols + off_in);
  xpose_test::host_slab_check(d, off_in, off_out, seed, [&](const u8* pin, const u8* in_end, u8* pout) {
    const slab::args a = slab::make_args<E>(mode, pin, pout, d, in_end, slab_bytes,
                                            group > 0 || (micro > 0 && mode == slab::whole));
    ASSERT_GT(a.total, 0);
    ASSERT_LE(a.smem, 48 * 1024);
    if (micro > 0) {
      // The kernel's preconditions (the route table checks them): whole chunks per position
      // (whole: row pieces, 8- or 16-byte output pieces), the packed side of every slab
      // 16-byte aligned.
      if (mode == slab::whole) {
        ASSERT_EQ((a.L * E) % micro, 0);
        ASSERT_EQ((a.S * E) % (micro <= 8 ? 8 : 16), 0);
        ASSERT_EQ(slab::addr16(a.in), 0);
      } else {
        ASSERT_EQ((a.S * E) % 16, 0);
      }
      ASSERT_EQ(slab::addr16(mode == slab::scatter ? a.in : a.out), 0);
      ASSERT_EQ((mode == slab::scatter ? a.stride_in : a.stride_out) % 16, 0);
      if constexpr (E <= 4) {
        auto run = [&](auto mw) {
          constexpr int MW = decltype(mw)::value;
          if (mode == slab::whole) emulate<E, slab::whole, 0, MW>(a, nt);
          else if (mode == slab::gather) emulate<E, slab::gather, 0, MW>(a, nt);
          else emulate<E, slab::scatter, 0, MW>(a, nt);
        };
        if (micro == 4) run(std::integral_constant<int, 4>{});
        else if (micro == 8) run(std::integral_constant<int, 8>{});
        else run(std::integral_constant<int, 16>{});
      } else {
        FAIL() << "micro-block kernels are instantiated for 1-4 byte elements";
      }
    } else if (group > 0) {
      ASSERT_EQ(group, mode == slab::gather ? d.rows : d.cols);
      if constexpr (E <= 4) {
        if (mode == slab::gather) emulate_grouped<E, slab::gather>(a, nt, group);
        else emulate_grouped<E, slab::scatter>(a, nt, group);
      } else {
        FAIL() << "grouped kernels are for 1-4 byte elements";
      }
    } else if (mode == slab::gather) emulate<E, slab::gather>(a, nt);
    else if (mode == slab::scatter) emulate<E, slab::scatter>(a, nt);
    else emulate<E, slab::whole>(a, nt);
  });
}

template <int E>
void slab_cases() {
  constexpr long long k = 16 / E;
  const int prod = best_class_policy_for(90, E).slab_bytes;
  for (int bytes : {prod, 64 * E, 16 * E}) {  // production slab, and small ones: many slabs, ragged ends
    for (int nt : {best_slab_threads, 7}) {
      for (long long s : {1LL, 2LL, 3LL, 5LL, 8LL, 17LL, 32LL}) {
        if (s * E > 512) continue;
        for (long long L : {1LL, 5LL, 37LL, 301LL}) {
          // gather: s x L, packed output, input padded, batches gapped; scatter: L x s, packed input.
          xpose_test::slab_layouts(E, s, L, [&](int mode, const xpose::matrix_desc& d, long long oi, long long oo) {
            check_slab<E>(mode, d, oi, oo, bytes, nt);
          });
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
      // whole matrices, packed batches.
      for (auto [r, c] : {std::pair<long long, long long>{8, 8}, {5, 7}, {16, 16}, {1, 9}, {33, 3}}) {
        for (auto [oi, oo] : {std::pair<long long, long long>{0, 0}, {1, 2}, {k - 1, 0}}) {
          check_slab<E>(slab::whole, xpose::matrix_desc::packed(r, c, E, 37), oi, oo, bytes, nt);
          check_slab<E>(slab::whole, xpose::matrix_desc::packed(r, c, E, 1), oi, oo, bytes, nt);
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
      // whole matrices, input with gaps (padded rows, matrices apart; the slab reads the gaps and skips them).
      for (auto [r, c] : {std::pair<long long, long long>{11, 37}, {5, 7}, {16, 16}, {3, 2}}) {
        for (auto [pad, gap] : {std::pair<long long, long long>{0, 2 * 37}, {3, 0}, {1, 5}, {0, 1}}) {
          xpose::matrix_desc d = xpose::matrix_desc::packed(r, c, E, 29);
          d.ld_in = c + pad, d.stride_in = r * d.ld_in + gap;
          check_slab<E>(slab::whole, d, 0, 0, bytes, nt);
          check_slab<E>(slab::whole, d, k - 1, 1, bytes, nt);
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

}  // namespace

// The grouped kernels: every short side that has one, whole groups and ragged ends
// (L not a multiple of 16/E), misaligned input / output slabs (offsets, odd batch
// strides), several threads per block and one thread doing every group.
template <int E>
void grouped_cases() {
  constexpr long long k = 16 / E;
  const int prod = best_class_policy_for(90, E).slab_bytes;
  for (int s : best_slab_group_sides) {
    for (int bytes : {prod, 64 * E * s, 16 * E * s}) {
      for (int nt : {best_slab_threads, 7, 1}) {
        if (nt == 1 && bytes == prod) continue;  // slow on the host, nothing new
        for (long long L : {1LL, k - 1, k, 5 * k + 3, 37LL, 301LL, 4 * k * 17 + 5}) {
          xpose_test::slab_layouts(E, s, L, [&](int mode, const xpose::matrix_desc& d, long long oi, long long oo) {
            check_slab<E>(mode, d, oi, oo, bytes, nt, s);
          });
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

// The micro-block kernels: short sides of whole chunks (1 to 8 row blocks, odd counts
// too), both micro-block widths, ragged position blocks (L not a multiple of the block),
// slabs of a few blocks and the production slab; the unaligned side at any offset,
// padded and gapped (the packed side aligned, as the route table requires).
template <int E>
void micro_cases() {
  constexpr long long k = 16 / E;
  const int prod = best_class_policy_for(90, E).slab_bytes;
  for (int mw : {4, 8, 16}) {
    if (mw < E) continue;
    for (long long nb : {1LL, 2LL, 3LL, 4LL, 6LL, 8LL}) {
      const long long s = nb * k;
      const int si = static_cast<int>(s);
      for (int bytes : {prod, best_slab_micro_ragged_bytes_for(1), 64 * E * si, 16 * E * si}) {
        for (int nt : {best_slab_threads, 7, 1}) {
          if (nt == 1 && bytes >= prod) continue;  // slow on the host, nothing new
          if (bytes == best_slab_micro_ragged_bytes_for(1) && (nt != best_slab_threads || mw != 8)) continue;
          for (long long L : {1LL, k - 1, k, 5 * k + 3, 37LL, 301LL, 4 * k * 17 + 5}) {
            for (long long oi : {0LL, 1LL, 3LL}) {
              // gather: input at any offset, padded rows, gapped batches (gap of whole chunks).
              check_slab<E>(slab::gather, padded(s, L, E, 3, oi, 0, 2 * k), oi, 0, bytes, nt, 0, mw);
              check_slab<E>(slab::gather, xpose::matrix_desc::packed(s, L, E, 2), oi, k, bytes, nt, 0, mw);
              // scatter: output at any offset, padded segments.
              check_slab<E>(slab::scatter, padded(L, s, E, 3, 0, oi, k), 0, oi, bytes, nt, 0, mw);
              check_slab<E>(slab::scatter, xpose::matrix_desc::packed(L, s, E, 2), k, oi, bytes, nt, 0, mw);
              if (::testing::Test::HasFatalFailure()) return;
            }
          }
        }
      }
    }
  }
}

// Whole-matrix micro-blocks: sides of 1-4 chunks (squares and not), 8-byte rows or
// columns where the micro-block rows are 8 bytes (u8 8 x 8), batches that fill a slab,
// leave a ragged last slab or hold one matrix; both ranges aligned.
template <int E>
void whole_micro_cases() {
  constexpr long long k = 16 / E, h = 8 / E;
  const int prod = best_class_policy_for(90, E).slab_bytes;
  for (int mw : {4, 8, 16})
    for (auto [r, c] : {std::pair<long long, long long>{k, k}, {2 * k, 2 * k}, {4 * k, 4 * k}, {k, 3 * k},
                        {3 * k, 2 * k}, {h, h}, {h, 2 * k}, {3 * h, h}, {2 * k, h}, {h, 3 * h / 2}})
      for (int bytes : {prod, static_cast<int>(3 * r * c * E)})
        for (int nt : {best_slab_threads, 7})
          for (long long n : {1LL, 37LL, 1000LL}) {
            // The kernel's shapes (the route table's): whole row pieces, 16- or 8-byte output pieces.
            const bool rows_ok = (r * E) % 16 == 0 || ((r * E) % 8 == 0 && mw <= 8);
            if (mw < E || !rows_ok || (c * E) % mw != 0 || (r * c * E) % 16 != 0 || r * c * E > 16384) continue;
            check_slab<E>(slab::whole, xpose::matrix_desc::packed(r, c, E, n), 0, 0, bytes, nt, 0, mw);
            check_slab<E>(slab::whole, xpose::matrix_desc::packed(r, c, E, n), k, 2 * k, bytes, nt, 0, mw);
            if (::testing::Test::HasFatalFailure()) return;
          }
}

// Random batches of small matrices whose input has gaps (padded rows, matrices apart),
// as the route table sends them to the whole-matrix slab: its slab size, its threads.
TEST(BestSlabEmulation, WholeWithInputGapsAsRouted) {
  std::mt19937_64 rng(20261207);
  int ran = 0;
  for (int i = 0; i < 20000 && ran < 80; ++i) {
    static const int Es[] = {1, 2, 4, 8, 16};
    const int E = Es[rng() % 5];
    const long long r = 2 + static_cast<long long>(rng() % 40), c = 2 + static_cast<long long>(rng() % 40);
    xpose::matrix_desc d = xpose::matrix_desc::packed(r, c, E, 2 + static_cast<long long>(rng() % 300));
    d.ld_in = c + (rng() % 3 ? 0 : static_cast<long long>(rng() % 5));
    d.stride_in = r * d.ld_in + (rng() % 4 ? static_cast<long long>(rng() % (2 * r * c + 1)) : 0);
    const long long oi = static_cast<long long>(rng() % (16 / E)), oo = rng() % 2 ? 0 : 1 % (16 / E);
    const route rt = route_for(d, 0x10000000ull + static_cast<unsigned long long>(oi * E),
                               0x20000000ull + static_cast<unsigned long long>(oo * E), 90);
    if (rt.path != best_path::slab_whole || d.stride_in == r * c) continue;
    switch (E) {
      case 1: check_slab<1>(slab::whole, d, oi, oo, rt.call_slab, best_slab_threads); break;
      case 2: check_slab<2>(slab::whole, d, oi, oo, rt.call_slab, best_slab_threads); break;
      case 4: check_slab<4>(slab::whole, d, oi, oo, rt.call_slab, best_slab_threads); break;
      case 8: check_slab<8>(slab::whole, d, oi, oo, rt.call_slab, best_slab_threads); break;
      default: check_slab<16>(slab::whole, d, oi, oo, rt.call_slab, best_slab_threads); break;
    }
    if (::testing::Test::HasFatalFailure()) return;
    ++ran;
  }
  EXPECT_GE(ran, 60);
}

TEST(BestSlabEmulation, WholeMicro1) { whole_micro_cases<1>(); }
TEST(BestSlabEmulation, WholeMicro2) { whole_micro_cases<2>(); }
TEST(BestSlabEmulation, WholeMicro4) { whole_micro_cases<4>(); }

TEST(BestSlabEmulation, FoldSwizzleIsABijectionOnGroupsOf8) {
  for (int g = 0; g < 4096; ++g) {
    unsigned seen = 0;
    for (int c = 8 * g; c < 8 * g + 8; ++c) {
      const int s = slab::fold_swizzle(c);
      ASSERT_EQ(s >> 3, g);
      seen |= 1u << (s & 7);
    }
    ASSERT_EQ(seen, 0xFFu) << g;
  }
}

TEST(BestSlabEmulation, Micro1) { micro_cases<1>(); }
TEST(BestSlabEmulation, Micro2) { micro_cases<2>(); }
TEST(BestSlabEmulation, Micro4) { micro_cases<4>(); }

TEST(BestSlabEmulation, TransposeBlock) {
  // transpose_block of a kk x kk block: element (i, j) -> (j, i), for every element size
  // and row width the micro-block kernels use.
  auto run = [](auto e_tag, auto kw_tag) {
    constexpr int E = decltype(e_tag)::value, KW = decltype(kw_tag)::value, kk = 4 * KW / E;
    std::uint32_t w[kk][KW];
    u8 ref[kk][4 * KW];
    for (int i = 0; i < kk; ++i)
      for (int b = 0; b < 4 * KW; ++b) ref[i][b] = static_cast<u8>(i * 37 + b * 11 + 5);
    std::memcpy(w, ref, sizeof w);
    xpose::detail::bytes::transpose_block<E, KW, kk>(w, 0);
    for (int i = 0; i < kk; ++i)
      for (int j = 0; j < kk; ++j)
        for (int e = 0; e < E; ++e)
          ASSERT_EQ(reinterpret_cast<const u8*>(w[i])[j * E + e], ref[j][i * E + e])
              << E << " " << KW << " " << i << " " << j;
  };
  using std::integral_constant;
  run(integral_constant<int, 1>{}, integral_constant<int, 2>{});
  run(integral_constant<int, 1>{}, integral_constant<int, 4>{});
  run(integral_constant<int, 2>{}, integral_constant<int, 2>{});
  run(integral_constant<int, 2>{}, integral_constant<int, 4>{});
  run(integral_constant<int, 4>{}, integral_constant<int, 4>{});
  run(integral_constant<int, 8>{}, integral_constant<int, 4>{});
}


TEST(BestSlabEmulation, Grouped1) { grouped_cases<1>(); }
TEST(BestSlabEmulation, Grouped2) { grouped_cases<2>(); }
TEST(BestSlabEmulation, Grouped4) { grouped_cases<4>(); }

TEST(BestSlabEmulation, BytePermute) {
  // perm = __byte_perm for the selectors the grouped kernels use (bytes 0-7 of y:x).
  const std::uint32_t x = 0x33221100u, y = 0x77665544u;
  EXPECT_EQ(xpose::detail::bytes::perm(x, y, 0x3210), x);
  EXPECT_EQ(xpose::detail::bytes::perm(x, y, 0x7654), y);
  EXPECT_EQ(xpose::detail::bytes::perm(x, y, 0x5410), 0x55441100u);
  EXPECT_EQ(xpose::detail::bytes::perm(x, y, 0x0716), 0x00771166u);
}

TEST(BestSlabEmulation, Bytes1) { slab_cases<1>(); }
TEST(BestSlabEmulation, Bytes2) { slab_cases<2>(); }
TEST(BestSlabEmulation, Bytes4) { slab_cases<4>(); }
TEST(BestSlabEmulation, Bytes8) { slab_cases<8>(); }
TEST(BestSlabEmulation, Bytes16) { slab_cases<16>(); }

TEST(BestSlabEmulation, FloatDivisionIsExact) {
  // Every quotient the slab kernels take: v < 2^20, divisors up to 2^14 (and a few larger).
  for (int d : {1, 2, 3, 5, 7, 9, 15, 16, 17, 31, 33, 63, 64, 65, 96, 127, 129, 255, 1000, 1025, 4097, 16383, 65537})
    for (int v = 0; v < (1 << 20); v += (v < 70000 ? 1 : 97)) {
      const xpose::detail::bytes::fdiv f(d);
      ASSERT_EQ(f(v), v / d) << v << " / " << d;
    }
}

TEST(BestSlabEmulation, ByteHelpers) {
  // window16 = bytes [off, off+16) of a||b; store_range writes exactly [lo, hi).
  slab::c16 a, b;
  u8 raw[32];
  for (int i = 0; i < 32; ++i) raw[i] = static_cast<u8>(i * 7 + 1);
  std::memcpy(a.w, raw, 16);
  std::memcpy(b.w, raw + 16, 16);
  for (int off = 0; off < 16; ++off) {
    const slab::c16 c = xpose::detail::bytes::window16(a, b, off);
    EXPECT_EQ(std::memcmp(c.w, raw + off, 16), 0) << off;
  }
  alignas(16) u8 dst[16];
  for (int lo = 0; lo <= 16; ++lo)
    for (int hi = lo; hi <= 16; ++hi) {
      std::memset(dst, 0xEE, 16);
      xpose::detail::bytes::store_range(a, dst, lo, hi);
      for (int i = 0; i < 16; ++i) ASSERT_EQ(dst[i], i >= lo && i < hi ? raw[i] : 0xEE) << lo << " " << hi << " " << i;
    }
}

// The row-fitted tiles (routes tile_fit, realign_fit): every form valid for both kernels.
TEST(BestGeom, FittedTilesFitTheKernels) {
  for (int E : {1, 2})
    for (int rows = 48; rows <= 128; rows += 16)
      for (bool realign : {false, true})
        for (bool dense : {false, true}) {
          const best_tile t = best_tile_fit_for(E, rows, realign, dense);
          EXPECT_TRUE(best_tile_valid(E, t, false)) << E << " " << rows;
          EXPECT_TRUE(best_tile_valid(E, t, true, true)) << E << " " << rows;
          EXPECT_EQ(t.threads % 32, 0);
          EXPECT_GE(t.min_blocks, 1);
          EXPECT_LE(t.rows * t.chunks * 16, 48 * 1024);  // one block's shared tile, no opt-in
          EXPECT_LE(t.min_blocks * t.threads, 1024) << E << " " << rows;
          if (dense) EXPECT_GE(t.min_blocks, best_tile_fit_for(E, rows, realign).min_blocks);
          // (The dense form is 2-byte elements' only: u8 tiles keep their form.)
          if (E != best_fit_dense_elem) EXPECT_EQ(t.min_blocks, best_tile_fit_for(E, rows, realign).min_blocks);
        }
  // The output-aligned form drops only the output segment's shuffle group.
  EXPECT_FALSE(best_tile_valid(1, best_tile{48, 16, 96, 8, 1}, true));
  EXPECT_TRUE(best_tile_valid(1, best_tile{48, 16, 96, 8, 1}, true, true));
  EXPECT_FALSE(best_tile_valid(1, best_tile{48, 16, 100, 8, 1}, true, true));
}

TEST(BestGeom, WideFittedTilesFitTheKernel) {
  for (int E : {4, 8})
    for (int rows : {24, 32}) {
      const best_tile t = best_tile_fit_for(E, rows, false);
      EXPECT_TRUE(best_tile_valid(E, t, false)) << E << " " << rows;
      EXPECT_EQ(t.rows, rows);
      EXPECT_EQ(t.micro_bytes, 16);
      EXPECT_LE(t.rows * t.chunks * 16, 48 * 1024);  // one block's shared tile, no opt-in
      EXPECT_LE(t.min_blocks * t.threads, 1024);
      EXPECT_GE(t.min_blocks, 1);
    }
  // 32 rows: the few-rows tile's kernel (one instantiation for both routes).
  for (int E : {4, 8}) {
    const best_tile f = best_tile_fit_for(E, 32, false), s = best_tile_shaped(E, best_shape::few_rows);
    EXPECT_TRUE(f.rows == s.rows && f.chunks == s.chunks && f.threads == s.threads && f.micro_bytes == s.micro_bytes &&
                f.min_blocks == s.min_blocks)
        << E;
  }
}

// The u8 deep forms: 48 aligned rows, 96 realigning rows (a chunk per row after the tile).
TEST(BestGeom, DeepFittedTiles) {
  const best_tile t48 = best_tile_fit_for(1, 48, false, false, true), t96 = best_tile_fit_for(1, 96, true, false, true);
  EXPECT_EQ(t48.rows, 48);
  EXPECT_EQ(t48.threads, 48);
  EXPECT_EQ(t48.min_blocks, best_fit_deep48_min_blocks);
  EXPECT_EQ(t96.threads, 96);
  EXPECT_EQ(t96.min_blocks, best_fit_deep96r_min_blocks);
  EXPECT_TRUE(best_tile_valid(1, t48, false));
  EXPECT_TRUE(best_tile_valid(1, t96, true, true));
  EXPECT_EQ(best_fit_smem(t96, true, true), 96 * 16 * 16 + 96 * 16);
  EXPECT_EQ(best_fit_smem(t48, false, true), 48 * 16 * 16);
  EXPECT_EQ(best_fit_smem(best_tile_fit_for(1, 96, true), true, false), 96 * 16 * 16);
  // Shared memory of the resident blocks on sm_90 (227 KiB a multiprocessor, 1 KiB a block reserved).
  EXPECT_LE(t96.min_blocks * (best_fit_smem(t96, true, true) + 1024), 228 * 1024);
  EXPECT_LE(t48.min_blocks * (best_fit_smem(t48, false, true) + 1024), 228 * 1024);
  // The plain forms unchanged (no deep form: the 96 aligned rows' tile is its own).
  EXPECT_EQ(best_tile_fit_for(1, 48, false).threads, 96);
  EXPECT_EQ(best_tile_fit_for(1, 96, true).threads, 192);
  EXPECT_EQ(best_tile_fit_for(1, 96, false).threads, 96);
  EXPECT_EQ(best_tile_fit_for(2, 48, false, false, true).threads, 96);  // (u8 only)
}
