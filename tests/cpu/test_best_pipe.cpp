// Host-side checks of the pipelined slab kernels (src/cuda/best_pipe.cuh, routes
// slab_gather_pipe / slab_scatter_pipe): the phases run on host buffers, block by block
// of a resident grid, thread by thread, in the kernel's order with slab i+1's loads
// issued before slab i's middle phase (a buffer reused too early shows as a mismatch),
// against the CPU reference; every pipelined short side, 1- and 2-byte elements,
// ragged ends, pointers offset by elements, padded and gapped layouts, inputs allocated
// to their exact extent (ASan in the sanitize preset sees any overrun), 0xFF poison in
// the output's padding. Plus the route's policy: which shapes take it under which flag.
#include <gtest/gtest.h>

#include <memory>
#include <tuple>

#include "cuda/best_pipe.cuh"
#include "cuda/policy.hpp"
#include "slab_host_check.hpp"
#include "test_util.hpp"

using namespace xpose::detail;
using xpose_test::in_elems;
using xpose_test::out_elems;
using xpose_test::padded;
using xpose_test::random_bytes;
using u8 = unsigned char;

namespace {

// Every block of pipe_kernel<E, M, .., SS, .., MW, H, A> with `grid` resident blocks of nt
// threads (H: the scatter's halo HS, the gather's shifted raw rows SH with D load buffers;
// A: the gathers' lean form, slabs of a.out_lags).
template <int E, int M, int SS, int MW = 0, bool H = false, bool A = false>
void emulate_pipe(const slab::pipe_args<A>& a, int nt, long long grid) {
  constexpr bool HS = H && M == slab::scatter, SH = H && M == slab::gather;
  const int D = SH && a.pipe_depth == 3 ? 3 : 2;
  std::vector<u8> store(static_cast<std::size_t>(a.smem) + 16);
  u8* sm = store.data() + (16 - reinterpret_cast<std::uintptr_t>(store.data()) % 16) % 16;
  const slab::divisors dv(a);
  const xpose::detail::bytes::fdiv by_nb(MW > 0 ? static_cast<int>(a.S) * E / 16 : 1);
  auto loaded = [&](long long t) { return slab::loaded_with_halo<E, HS>(a, slab::slab_of<E, M, A>(a, t)); };
  for (long long b = 0; b < grid && b < a.total; ++b) {
    std::fill(sm, sm + a.smem, static_cast<u8>(0xCD));
    for (int j = 0; j < D - 1; ++j)
      if (b + j * grid < a.total)
        for (int tid = 0; tid < nt; ++tid)
          slab::pipe_issue<E, M, SS, MW>(a, loaded(b + j * grid), slab::pipe_buffer(a, sm, j), tid, nt);
    int i = 0;
    for (long long t = b; t < a.total; t += grid, ++i) {
      const slab::pos p = slab::slab_of<E, M, A>(a, t), q = loaded(t);
      // Slab i + D - 1's loads before slab i's middle phase (into slab i - 1's buffer).
      if (t + (D - 1) * grid < a.total)
        for (int tid = 0; tid < nt; ++tid)
          slab::pipe_issue<E, M, SS, MW>(a, loaded(t + (D - 1) * grid), slab::pipe_buffer(a, sm, (i + D - 1) % D), tid,
                                         nt);
      u8* const buf = slab::pipe_buffer(a, sm, i % D);
      if (M == slab::gather && a.realign && !SH && !a.shifted)
        for (int tid = 0; tid < nt; ++tid) slab::pipe_realign<E, SS>(a, p, buf, sm, tid, nt);
      if constexpr (MW > 0 && M == slab::gather) {
        for (int tid = 0; tid < nt; ++tid)
          slab::block_phase<E, M, MW, SH>(a, by_nb, p, a.realign && !SH && !a.shifted ? sm : buf, tid, nt);
      } else if constexpr (MW > 0 && M == slab::whole) {
        for (int tid = 0; tid < nt; ++tid) slab::block_phase<E, M, MW>(a, by_nb, p, sm, tid, nt, buf);
        for (int tid = 0; tid < nt; ++tid) slab::write_phase<E, M, 0, MW>(a, dv, p, sm, tid, nt);
      } else if constexpr (MW > 0) {
        for (int tid = 0; tid < nt; ++tid) slab::side_blocks<E, M, MW>(a, by_nb, q, sm, tid, nt, buf);
        for (int tid = 0; tid < nt; ++tid) slab::write_phase<E, M, 0, MW, HS>(a, dv, p, sm, tid, nt);
      } else {
        for (int tid = 0; tid < nt; ++tid) slab::pipe_mid<E, M, SS, SH, A>(a, dv, q, sm, buf, tid, nt);
        for (int tid = 0; tid < nt; ++tid) slab::write_phase<E, M, SS, 0, HS>(a, dv, p, sm, tid, nt);
      }
    }
  }
}

template <int E, int M, bool H = false, bool A = false>
void emulate_side(const slab::pipe_args<A>& a, int nt, long long grid, int side) {
  switch (side) {
    case 2: return emulate_pipe<E, M, 2, 0, H, A>(a, nt, grid);
    case 3: return emulate_pipe<E, M, 3, 0, H, A>(a, nt, grid);
    case 4: return emulate_pipe<E, M, 4, 0, H, A>(a, nt, grid);
    case 5: return emulate_pipe<E, M, 5, 0, H, A>(a, nt, grid);
    case 6: return emulate_pipe<E, M, 6, 0, H, A>(a, nt, grid);
    case 7: return emulate_pipe<E, M, 7, 0, H, A>(a, nt, grid);
    case 8: return emulate_pipe<E, M, 8, 0, H, A>(a, nt, grid);
    case 12: return emulate_pipe<E, M, 12, 0, H, A>(a, nt, grid);
    case 16: return emulate_pipe<E, M, 16, 0, H, A>(a, nt, grid);
    case 24: return emulate_pipe<E, M, 24, 0, H, A>(a, nt, grid);
    case 32: return emulate_pipe<E, M, 32, 0, H, A>(a, nt, grid);
    default: FAIL() << "no pipelined kernel for " << side;
  }
}

// micro > 0: the micro-block kernel with micro-byte rows. halo: the scatter's halo kernel,
// the gather's shift kernel (with 2 and with best_gather_shift_depth load buffers).
template <int E>
void check_pipe(int mode, const xpose::matrix_desc& d, long long off_in, long long off_out, int slab_bytes, int nt,
                long long grid, int micro = 0, bool halo = false, int depth = 0) {
  if (halo && mode == slab::gather && depth == 0) {
    for (int dp : {2, best_gather_shift_depth}) check_pipe<E>(mode, d, off_in, off_out, slab_bytes, nt, grid, micro, true, dp);
    return;
  }
  if (depth == 0) depth = 2;
  const int side = static_cast<int>(mode == slab::gather ? d.rows : d.cols);
  SCOPED_TRACE("mode " + std::to_string(mode) + " " + xpose_test::shape_name(d) + " offsets " +
               std::to_string(off_in) + "/" + std::to_string(off_out) + " slab " + std::to_string(slab_bytes) +
               " nt " + std::to_string(nt) + " grid " + std::to_string(grid) + (halo ? " halo" : "") + " depth " +
               std::to_string(depth));
  const auto seed = static_cast<std::uint64_t>(d.rows * 37 + d.cols + off_in);
  xpose_test::host_slab_check(d, off_in, off_out, seed, [&](const u8* pin, const u8* in_end, u8* pout) {
    // (16-byte micro-block rows: unaligned gather rows read shifted from the load buffers.)
    const bool shifted = slab::pipe_shifted(micro);
    const slab::args a =
        slab::make_pipe_args<E>(mode, pin, pout, d, in_end, slab_bytes, micro > 0, halo, depth, shifted);
    ASSERT_GT(a.total, 0);
    ASSERT_LE(a.smem, slab::pipe_smem_max<E>(mode, side, slab_bytes, micro > 0, halo, depth, shifted));
    ASSERT_EQ(a.shifted, shifted && mode == slab::gather && a.realign ? 1 : 0);
    // Shift gathers: the rows are the load buffers (no realigning pass).
    if (halo && mode == slab::gather) {
      ASSERT_EQ(a.pipe_depth, depth);
      ASSERT_LE(a.pipe_buf + (depth - 1) * a.pipe_step + a.S * a.pitch, a.smem);
    }
    // Scatters: two staging buffers after the rows, inside the block.
    if (mode == slab::scatter) {
      ASSERT_EQ(a.pipe_depth, 2);
      ASSERT_GE(a.pipe_buf, static_cast<int>(a.S) * a.pitch);
      ASSERT_LE(a.pipe_buf + 2 * a.pipe_step, a.smem);
    }
    if (micro > 0) {
      // The micro-block kernels' preconditions (best_path_for): whole chunks per position,
      // every slab's packed side 16-byte aligned.
      ASSERT_EQ((a.S * E) % 16, 0);
      ASSERT_EQ(slab::addr16(mode == slab::gather ? a.out : a.in), 0);
      ASSERT_EQ((mode == slab::gather ? a.stride_out : a.stride_in) % 16, 0);
      auto run = [&](auto mw) {
        constexpr int MW = decltype(mw)::value;
        if constexpr (MW >= E) {
          if (mode == slab::gather && halo) emulate_pipe<E, slab::gather, 0, MW, true>(a, nt, grid);
          else if (mode == slab::gather) emulate_pipe<E, slab::gather, 0, MW>(a, nt, grid);
          else if (halo) emulate_pipe<E, slab::scatter, 0, MW, true>(a, nt, grid);
          else emulate_pipe<E, slab::scatter, 0, MW>(a, nt, grid);
        } else {
          FAIL() << "micro-block rows narrower than the element";
        }
      };
      if (micro == 4) run(std::integral_constant<int, 4>{});
      else if (micro == 8) run(std::integral_constant<int, 8>{});
      else run(std::integral_constant<int, 16>{});
    } else if constexpr (E <= best_pipe_max_elem) {  // (grouped pipelined kernels: 1-2 byte elements)
      if (mode == slab::gather && halo) emulate_side<E, slab::gather, true>(a, nt, grid, side);
      else if (mode == slab::gather) emulate_side<E, slab::gather>(a, nt, grid, side);
      else if (halo) emulate_side<E, slab::scatter, true>(a, nt, grid, side);
      else emulate_side<E, slab::scatter>(a, nt, grid, side);
    } else {
      FAIL() << "no grouped pipelined kernel for " << E << "-byte elements";
    }
  });
}

// Every pipelined side; production slabs and small ones (many slabs per block, ragged
// last slab); one resident block, a few, and one per slab; whole groups and ragged ends;
// aligned segments (no realigning pass) and unaligned ones (offsets, odd rows, gaps).
// halo: the scatters' halo kernel (every layout's scatter); shift: the gathers' shift kernel
// (every layout's gather).
template <int E>
void pipe_cases(bool halo = false, bool shift = false) {
  constexpr long long k = 16 / E;
  const int prod = best_class_policy_for(90, E).slab_bytes;
  for (int s : best_pipe_sides) {
    for (int bytes : {prod, 64 * E * s, 16 * E * s}) {
      for (auto [nt, grid] : {std::pair<int, long long>{best_slab_threads, 3}, {7, 1}, {32, 1 << 30}}) {
        for (long long L : {1LL, k - 1, 5 * k + 3, 301LL, 4 * k * 17 + 5, 64 * k}) {
          if (bytes == prod && L < 64) continue;  // one short slab: the small slabs cover it
          xpose_test::slab_layouts(E, s, L, [&](int mode, const xpose::matrix_desc& d, long long oi, long long oo) {
            if (shift) {
              if (mode == slab::gather) check_pipe<E>(mode, d, oi, oo, bytes, nt, grid, 0, true);
            } else if (!halo || mode == slab::scatter) {
              check_pipe<E>(mode, d, oi, oo, bytes, nt, grid, 0, halo);
            }
          });
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

// The micro-block kernels on the pipelined kernel: 1 to 8 row blocks, every micro-block
// width, ragged position blocks, the unaligned side at any offset, padded and gapped; the
// packed side aligned (offsets of whole chunks).
// halo: the scatters' halo kernel, also on slabs as long as the halo (span k: last slabs
// shorter than it) and output rows k - 1 elements off. shift: the gathers' shift kernel,
// the same slabs and offsets.
template <int E>
void micro_pipe_cases(bool halo = false, bool shift = false) {
  constexpr long long k = 16 / E;
  const int prod = best_class_policy_for(90, E).slab_bytes;
  for (int mw : {4, 8, 16}) {
    if (mw < E) continue;
    for (long long s : {k, 3 * k, 8 * k}) {
      if (s * E > best_class_policy_for(90, E).slab_max_short_bytes) continue;
      for (int bytes : {prod, static_cast<int>(64 * E * s), static_cast<int>(2 * k * E * s)}) {
        const bool all = halo || shift;
        if (!all && bytes == 2 * k * E * s) continue;
        for (auto [nt, grid] : {std::pair<int, long long>{best_slab_threads, 2}, {7, 1}, {64, 1 << 30}}) {
          for (long long L : {1LL, k + 3, 5 * k + 3, 301LL, 64 * k + 5}) {
            if (!all && L == 5 * k + 3) continue;
            for (auto [oi, oo] : {std::pair<long long, long long>{0, 0}, {1, 0}, {3, k}, {k - 1, 0}}) {
              if (!all && oi == k - 1) continue;
              if (!halo) {
                check_pipe<E>(slab::gather, padded(s, L, E, 3, oi, 0, 2 * k), oi, oo, bytes, nt, grid, mw, shift);
                check_pipe<E>(slab::gather, xpose::matrix_desc::packed(s, L, E, 2), oi, oo, bytes, nt, grid, mw, shift);
              }
              if (shift) continue;
              // scatter: the packed input aligned, the output at any offset, padded, gapped.
              check_pipe<E>(slab::scatter, padded(L, s, E, 3, 0, oi, 2 * k), oo, oi, bytes, nt, grid, mw, halo);
              check_pipe<E>(slab::scatter, xpose::matrix_desc::packed(L, s, E, 2), oo, oi, bytes, nt, grid, mw, halo);
              if (::testing::Test::HasFatalFailure()) return;
            }
          }
        }
      }
    }
  }
}

// Whole matrices on the pipelined kernel (slab_whole_micro_pipe): batches of the shapes
// the micro-block whole route takes (8-, 16-, 32-, 24-row and non-square matrices), slabs
// of many matrices and of one, a ragged last slab, one resident block and one per slab;
// both pointers aligned and the batch packed (the route's preconditions), each shape one
// the flag that has the switch on routes to the pipelined kernel; the input is allocated
// to its exact extent (ASan: no read past it).
template <int E>
void whole_pipe_cases() {
  constexpr best_micro mc = best_slab_micro_for(E, best_path::slab_whole_micro);
  // (4-8 byte elements: their own switch, best_pipe_whole_wide_default.)
  const bool on = E <= best_pipe_max_elem ? !best_pipe_whole_default : !best_pipe_whole_wide_default;
  const int prod = best_class_policy_for(90, E).slab_bytes;
  int ran = 0;
  for (auto [r, c] : {std::pair<long long, long long>{8, 8}, {16, 16}, {32, 32}, {8, 16}, {16, 8}, {24, 16}, {16, 32}}) {
    for (long long batch : {2LL, 7LL, 301LL}) {
      {
        const xpose::matrix_desc d = xpose::matrix_desc::packed(r, c, E, batch);
        // (Unless best_pipe_whole_wide_cap sends the matrix to the few-rows tile under `on`.)
        EXPECT_EQ(best_path_for(d, 0, 0, 90, on).path,
                  best_pipe_whole_wide_cap(d, 0, 0, on) ? best_path::tile_few_rows : best_path::slab_whole_micro_pipe)
            << r << "x" << c;
        const long long mat = r * c * E;
        for (int bytes : {prod, static_cast<int>(2 * mat), static_cast<int>(mat)}) {
          for (auto [nt, grid] : {std::pair<int, long long>{best_slab_threads, 3}, {7, 1}, {64, 1 << 30}}) {
            SCOPED_TRACE(xpose_test::shape_name(d) + " slab " + std::to_string(bytes) + " nt " + std::to_string(nt));
            const auto seed = static_cast<std::uint64_t>(r * 41 + c + batch);
            xpose_test::host_slab_check(d, 0, 0, seed, [&](const u8* pin, const u8* in_end, u8* pout) {
              const slab::args a = slab::make_pipe_args<E>(slab::whole, pin, pout, d, in_end, bytes, true);
              ASSERT_GT(a.total, 0);
              ASSERT_LE(a.smem, slab::pipe_smem_max<E>(slab::whole, 0, prod, true));
              emulate_pipe<E, slab::whole, 0, mc.width>(a, nt, grid);
            });
            if (::testing::Test::HasFatalFailure()) return;
            ++ran;
          }
        }
      }
    }
  }
  EXPECT_GT(ran, 30);
}

// Slab t of a halo scatter alone (its loads into buffer 0, rows, write phase).
template <int E, int SS, int MW, bool H>
void run_one_slab(const slab::args& a, u8* sm, long long t, int nt) {
  const slab::divisors dv(a);
  const xpose::detail::bytes::fdiv by_nb(MW > 0 ? static_cast<int>(a.S) * E / 16 : 1);
  const slab::pos p = slab::slab_at<E, slab::scatter>(a, t), q = slab::loaded_with_halo<E, H>(a, p);
  std::fill(sm, sm + a.smem, static_cast<u8>(0xCD));
  u8* const buf = slab::pipe_buffer(a, sm, 0);
  for (int tid = 0; tid < nt; ++tid) slab::pipe_issue<E, slab::scatter, SS, MW>(a, q, buf, tid, nt);
  for (int tid = 0; tid < nt; ++tid) {
    if constexpr (MW > 0) slab::side_blocks<E, slab::scatter, MW>(a, by_nb, q, sm, tid, nt, buf);
    else slab::pipe_mid<E, slab::scatter, SS>(a, dv, q, sm, buf, tid, nt);
  }
  for (int tid = 0; tid < nt; ++tid) slab::write_phase<E, slab::scatter, SS, MW, H>(a, dv, p, sm, tid, nt);
}

// Which output bytes each slab writes (run alone into two buffers poisoned 0x00 and 0xFF:
// a byte is written where either changed): every output byte by exactly one slab, and
// the count of aligned 16-byte chunks a slab writes only in part away from a row's first
// or last byte (the halo kernel: none), returned.
template <int E, int SS, int MW, bool H>
long long partial_chunks(const xpose::matrix_desc& d, long long off_out, int slab_bytes) {
  const std::size_t ni = static_cast<std::size_t>(in_elems(d)) * E, no = static_cast<std::size_t>(out_elems(d)) * E;
  const std::size_t oo = static_cast<std::size_t>(off_out) * E, n = oo + no;
  const auto src = random_bytes(ni, static_cast<std::uint64_t>(d.rows + off_out));
  xpose_test::aligned_buf in(ni), out0(n), out1(n);
  std::memcpy(in.p.get(), src.data(), ni);
  slab::args a = slab::make_pipe_args<E>(slab::scatter, in.p.get(), out0.p.get() + oo, d, in.p.get() + ni, slab_bytes,
                                         MW > 0, H);
  std::vector<u8> store(static_cast<std::size_t>(a.smem) + 16);
  u8* sm = store.data() + (16 - reinterpret_cast<std::uintptr_t>(store.data()) % 16) % 16;
  // Chunks holding a row's first or last byte; which bytes are output elements.
  std::vector<char> edge(n / 16 + 1, 0), element(n, 0);
  for (long long b = 0; b < d.batch; ++b)
    for (long long c = 0; c < d.cols; ++c) {
      const std::size_t row = oo + static_cast<std::size_t>((b * d.stride_out + c * d.ld_out) * E);
      edge[row / 16] = edge[(row + static_cast<std::size_t>(d.rows * E) - 1) / 16] = 1;
      std::fill(element.begin() + static_cast<long>(row), element.begin() + static_cast<long>(row + d.rows * E), 1);
    }
  std::vector<int> count(n, 0);
  long long partial = 0;
  for (long long t = 0; t < a.total; ++t) {
    std::memset(out0.p.get(), 0x00, n);
    std::memset(out1.p.get(), 0xFF, n);
    a.out = out0.p.get() + oo;
    run_one_slab<E, SS, MW, H>(a, sm, t, 32);
    a.out = out1.p.get() + oo;
    run_one_slab<E, SS, MW, H>(a, sm, t, 32);
    for (std::size_t c = 0; c * 16 < n; ++c) {
      int w = 0;
      for (std::size_t i = 16 * c; i < 16 * c + 16 && i < n; ++i) {
        const bool wrote = out0.p[i] != 0x00 || out1.p[i] != 0xFF;
        count[i] += wrote;
        w += wrote;
      }
      if (w > 0 && w < 16 && !edge[c]) ++partial;
    }
  }
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(count[i], element[i] ? 1 : 0) << "byte " << i;
  return partial;
}

template <int E>
void halo_ownership() {
  constexpr int k = 16 / E;
  using xpose::matrix_desc;
  for (long long oo : {0LL, 1LL, k - 1LL})
    for (const matrix_desc& d : {matrix_desc::packed(301, 2 * k, E, 2), padded(5 * k + 3, 2 * k, E, 3, 0, 3, 2 * k),
                                 matrix_desc::packed(301, 6, E, 2)}) {
      SCOPED_TRACE(xpose_test::shape_name(d) + " offset " + std::to_string(oo));
      const bool aligned = oo == 0 && (d.ld_out * E) % 16 == 0 && (d.stride_out * E) % 16 == 0;
      const int bytes = static_cast<int>(2 * k * E * d.cols);  // slabs of k positions with the halo
      constexpr int mw = best_pipe_micro_width_for(E);
      if (d.cols % k == 0) {
        EXPECT_EQ((partial_chunks<E, 0, mw, true>(d, oo, bytes)), 0);
        // Without the halo, ragged chunks at every slab boundary (the check can fail).
        if (!aligned) EXPECT_GT((partial_chunks<E, 0, mw, false>(d, oo, bytes)), 0);
      } else if constexpr (E <= best_pipe_max_elem) {  // (grouped sides: 1-2 byte elements)
        EXPECT_EQ((partial_chunks<E, 6, 0, true>(d, oo, bytes)), 0);
        if (!aligned) EXPECT_GT((partial_chunks<E, 6, 0, false>(d, oo, bytes)), 0);
      }
    }
}

}  // namespace

TEST(BestPipeEmulation, Whole1) { whole_pipe_cases<1>(); }
TEST(BestPipeEmulation, Whole2) { whole_pipe_cases<2>(); }
TEST(BestPipeEmulation, Whole4) { whole_pipe_cases<4>(); }
TEST(BestPipeEmulation, Whole8) { whole_pipe_cases<8>(); }
TEST(BestPipeEmulation, Micro1) { micro_pipe_cases<1>(); }
TEST(BestPipeEmulation, Micro2) { micro_pipe_cases<2>(); }
TEST(BestPipeEmulation, Bytes1) { pipe_cases<1>(); }
TEST(BestPipeEmulation, Bytes2) { pipe_cases<2>(); }
TEST(BestPipeEmulation, HaloMicro1) { micro_pipe_cases<1>(true); }
TEST(BestPipeEmulation, HaloMicro2) { micro_pipe_cases<2>(true); }
TEST(BestPipeEmulation, Micro4) { micro_pipe_cases<4>(); }
TEST(BestPipeEmulation, Micro8) { micro_pipe_cases<8>(); }
TEST(BestPipeEmulation, HaloMicro4) { micro_pipe_cases<4>(true); }
TEST(BestPipeEmulation, HaloMicro8) { micro_pipe_cases<8>(true); }
TEST(BestPipeEmulation, HaloGrouped1) { pipe_cases<1>(true); }
TEST(BestPipeEmulation, HaloGrouped2) { pipe_cases<2>(true); }

TEST(BestPipeEmulation, ShiftMicro1) { micro_pipe_cases<1>(false, true); }
TEST(BestPipeEmulation, ShiftMicro2) { micro_pipe_cases<2>(false, true); }
TEST(BestPipeEmulation, ShiftGrouped1) { pipe_cases<1>(false, true); }
TEST(BestPipeEmulation, ShiftGrouped2) { pipe_cases<2>(false, true); }

// Shift gathers: every input offset from the 16-byte grid (each row its own phase: odd
// and padded rows, gapped batches), the micro-block and grouped kernels, many slabs per
// block and the input's end inside a segment's last cover chunk.
TEST(BestPipeEmulation, ShiftOffsets) {
  for (long long oi = 0; oi < 16; ++oi)
    for (long long L : {35LL, 50LL, 301LL}) {
      check_pipe<1>(slab::gather, xpose::matrix_desc::packed(32, L, 1, 3), oi, 0, 32 * 32, 32, 2, 8, true);
      check_pipe<1>(slab::gather, padded(48, L, 1, 2, 5, 0, 16), oi, 0, 48 * 16, 64, 1, 8, true);
      check_pipe<1>(slab::gather, padded(6, L, 1, 2, 3, 0, 5), oi, oi, 16 * 6 * 3, 32, 3, 0, true);
      check_pipe<1>(slab::gather, padded(2, L, 1, 3, 1, 0, 9), oi, 1, 16 * 2 * 2, 32, 2, 0, true);
      if (oi < 8) {
        check_pipe<2>(slab::gather, xpose::matrix_desc::packed(24, L, 2, 2), oi, 0, 24 * 32, 32, 2, 8, true);
        check_pipe<2>(slab::gather, padded(12, L, 2, 2, 1, 0, 3), oi, oi, 12 * 2 * 16, 32, 2, 0, true);
      }
      if (HasFatalFailure()) return;
    }
}

// Every output offset from the 16-byte grid, odd long sides, the pipelined micro-block
// width, last slabs shorter than the halo and the input's end inside a halo.
TEST(BestPipeEmulation, HaloOffsets) {
  for (long long oo = 1; oo < 16; ++oo)
    for (long long L : {35LL, 50LL, 301LL}) {
      check_pipe<1>(slab::scatter, xpose::matrix_desc::packed(L, 32, 1, 3), 0, oo, 32 * 32, 32, 2, 8, true);
      check_pipe<1>(slab::scatter, padded(L, 6, 1, 2, 0, oo, 5), 0, oo, 16 * 6 * 3, 32, 3, 0, true);
      if (oo < 8) check_pipe<2>(slab::scatter, xpose::matrix_desc::packed(L, 24, 2, 2), 0, oo, 24 * 32, 32, 2, 8, true);
      if (HasFatalFailure()) return;
    }
}

// Each output byte by one slab; halo slabs write whole chunks except at rows' ends.
TEST(BestPipeEmulation, HaloOwnership1) { halo_ownership<1>(); }
TEST(BestPipeEmulation, HaloOwnership2) { halo_ownership<2>(); }
TEST(BestPipeEmulation, HaloOwnership4) { halo_ownership<4>(); }
TEST(BestPipeEmulation, HaloOwnership8) { halo_ownership<8>(); }

// Gather rows skip the realigning pass exactly when every segment is 16-byte aligned;
// the largest block stays within one SM's shared memory with room for 2 blocks.
TEST(BestPipeEmulation, Layout) {
  static u8 buf[64];
  const u8* base = buf + (16 - reinterpret_cast<std::uintptr_t>(buf) % 16) % 16;
  using xpose::matrix_desc;
  auto realign = [&](int E, const u8* in, const matrix_desc& d) {
    return E == 1 ? slab::make_pipe_args<1>(slab::gather, in, buf, d, in, 16384).realign
                  : slab::make_pipe_args<2>(slab::gather, in, buf, d, in, 16384).realign;
  };
  EXPECT_EQ(realign(1, base, matrix_desc::packed(8, 50176, 1, 3)), 0);
  EXPECT_EQ(realign(1, base, matrix_desc::packed(8, 50177, 1, 3)), 1);
  EXPECT_EQ(realign(1, base + 1, matrix_desc::packed(8, 50176, 1, 1)), 1);
  EXPECT_EQ(realign(2, base, matrix_desc::packed(8, 50176, 2, 1)), 0);
  EXPECT_EQ(realign(2, base, padded(8, 50176, 2, 2, 1, 0, 0)), 1);
  EXPECT_EQ(realign(2, base, padded(8, 50176, 2, 2, 0, 0, 1)), 1);  // a gap breaks the batch stride's alignment
  for (int s : best_pipe_sides)
    for (int m : {slab::gather, slab::scatter}) {
      EXPECT_LE(slab::pipe_smem_max<1>(m, s, best_class_policy_for(90, 1).slab_bytes), 227 * 1024 / 2) << s;
      EXPECT_LE(slab::pipe_smem_max<2>(m, s, best_class_policy_for(90, 2).slab_bytes), 227 * 1024 / 2) << s;
    }
  // Micro-block kernels: the bound over every side of whole chunks covers each side's block
  // (u8 112 rows take more than 128: the rows' rounding); blocks per SM as the register
  // caps assume (best_pipe_micro_min_blocks; 228 KiB per SM, 1 KiB reserved per block).
  for (int m : {slab::gather, slab::scatter}) {
    const int bound = slab::pipe_smem_max<1>(m, 128, 16384, true);
    EXPECT_LE((bound + 1024) * best_pipe_micro_min_blocks(m == slab::gather), 228 * 1024);
    EXPECT_LE((slab::pipe_smem_max<2>(m, 128, 16384, true) + 1024) * best_pipe_micro_min_blocks(m == slab::gather),
              228 * 1024);
    for (long long s = 16; s <= 128; s += 16) {
      const matrix_desc d = m == slab::gather ? padded(s, 50177, 1, 2, 1, 0, 0) : matrix_desc::packed(50177, s, 1, 2);
      EXPECT_LE(slab::make_pipe_args<1>(m, base, buf, d, base, 16384, true).smem, bound) << s;
    }
  }
}

// The routes: under the flag that has them on, 1-2 byte grouped gathers of every
// pipelined side, grouped scatters of the register-limited sides (best_pipe_scatter_side),
// micro-block gathers with aligned rows of >= 64 bytes; under the other flag none; never
// 4-byte elements or sides without a kernel. Micro-block scatters: their own switch.
// r, the route of a 1-2 byte scatter of `cols` columns to unaligned output rows under `flag`'s other
// switches, as the scatter slab table moves it where best_scatter_slab_default has `flag` take it
// (sides 2-3 with an entry: the halo kernel).
static best_path slab_moved(best_path r, int group, int E, bool flag, long long cols) {
  return best_scatter_slab_on(E, flag) ? best_scatter_slab_route(r, group, E, false, cols).path : r;
}

TEST(BestPipePolicy, Paths) {
  using xpose::matrix_desc;
  const bool on = !best_pipe_default, off = best_pipe_default;  // candidate flags
  EXPECT_TRUE(best_route_on(best_pipe_default, on));
  for (int E : {1, 2, 4}) {
    for (int s : best_pipe_sides) {
      SCOPED_TRACE("E " + std::to_string(E) + " side " + std::to_string(s));
      // Output packed side off 16 bytes: no micro-block kernel, the grouped route.
      const matrix_desc g = matrix_desc::packed(s, 50177, E, 5), h = matrix_desc::packed(50177, s, E, 5);
      const auto cg = best_path_for(g, 0, E, 90, on), ch = best_path_for(h, E, 0, 90, on);
      // (Unaligned rows: 2-row gathers keep the grouped kernel.)
      const bool pipe_h = E <= best_pipe_max_elem && best_pipe_scatter_side(E, s);
      const bool pipe = E <= best_pipe_max_elem && s != 2;
      // (4-byte gathers: the slab kernels or the realigning register interleave. Unaligned
      // rows: the shift kernel where best_gather_shift_route has `on` take it.)
      const best_path gp = best_gather_shift_on(E, on) ? best_gather_shift_route(best_path::slab_gather_pipe, s, E, false,
                                                                                 best_gather_shift24_on(E, 90, on))
                                                       : best_path::slab_gather_pipe;
      if (pipe) EXPECT_EQ(best_path_name(cg.path), std::string(best_path_name(gp)));
      else EXPECT_EQ(best_path_base(cg.path), best_path::slab_gather);
      // (h's output rows are unaligned: the halo kernel where its switch has `on` take it.)
      // (The other sides: the halo kernel from best_halo_side_min where best_halo_sides_default has it.)
      // (The two-buffer direct kernel where its switch has `on` take the side: best_scatter_direct2_or.)
      EXPECT_EQ(ch.path,
                best_scatter_direct2_or(slab_moved(pipe_h ? best_halo_route(best_path::slab_scatter_pipe, E, on, false)
                                                   : best_halo_side(E, s, on, false) ? best_path::slab_scatter_pipe_halo
                                                                                     : best_path::slab_scatter,
                                                   s, E, on, s),
                                        h, 0, on));
      if (pipe) EXPECT_EQ(cg.group, s);
      if (pipe_h) EXPECT_EQ(ch.group, s);
      EXPECT_EQ(best_pipe_group_for(E, s, on, true, false), pipe ? s : 0);
      EXPECT_EQ(best_pipe_group_for(E, s, on, true), E <= best_pipe_max_elem ? s : 0);
      EXPECT_EQ(best_pipe_group_for(E, s, on, false, false), pipe_h ? s : 0);  // (h: output rows unaligned)
      EXPECT_EQ(best_pipe_group_for(E, s, off, true), 0);
      const best_path g_off = best_path_for(g, 0, E, 90, off).path;
      EXPECT_EQ(best_path_base(g_off), best_path::slab_gather);
      EXPECT_NE(g_off, best_path::slab_gather_pipe);
      EXPECT_NE(best_path_for(h, E, 0, 90, off).path, best_path::slab_scatter_pipe);
    }
  }
  // The measured split of the scatters: u8 4-8, 16-32 and f16 5-8 pipelined; u8 2, 3, 12
  // and f16 2-4, 12, 16 on the unpipelined grouped kernel.
  for (auto [E, s, want] : {std::tuple<int, int, bool>{1, 2, false}, {1, 3, false}, {1, 4, true}, {1, 8, true},
                            {1, 12, false}, {1, 24, true}, {2, 2, false}, {2, 4, false}, {2, 6, true}, {2, 16, false}})
    EXPECT_EQ(best_path_for(matrix_desc::packed(50177, s, E, 5), E, 0, 90, on).path,
              best_scatter_direct2_or(slab_moved(want ? best_halo_route(best_path::slab_scatter_pipe, E, on, false)
                                                 : best_halo_side(E, s, on, false) ? best_path::slab_scatter_pipe_halo
                                                                                   : best_path::slab_scatter,
                                                 s, E, on, s),
                                      matrix_desc::packed(50177, s, E, 5), 0, on))
        << E << " " << s;
  // Side 5 scatters: pipelined to unaligned output rows only (HW = 50176 lost pipelined).
  for (int E : {1, 2}) {
    const best_path unaligned = best_halo_route(best_path::slab_scatter_pipe, E, on, false);
    EXPECT_EQ(best_path_for(matrix_desc::packed(50177, 5, E, 5), 0, 0, 90, on).path, unaligned);
    // (Aligned rows of sides 5 and 6: the direct scatter where its switch has `on` take it.)
    const bool direct = best_scatter_direct_on(E, on);
    EXPECT_EQ(best_path_for(matrix_desc::packed(50176, 5, E, 5), 0, 0, 90, on).path,
              direct && best_scatter_direct_fits(E, 5, true) ? best_path::slab_scatter_direct : best_path::slab_scatter);
    EXPECT_EQ(best_path_for(matrix_desc::packed(50176, 5, E, 5), 0, E, 90, on).path, unaligned);
    EXPECT_EQ(best_path_for(matrix_desc::packed(50176, 6, E, 5), 0, 0, 90, on).path,
              direct && best_scatter_direct_fits(E, 6, true) ? best_path::slab_scatter_direct : best_path::slab_scatter_pipe);
  }
  // 2-row gathers: pipelined with aligned rows only (unaligned: the grouped kernel, or the
  // shift kernel where best_gather_shift_default has the flag take it).
  for (int E : {1, 2}) {
    const best_path odd2 = best_gather_shift_on(E, on) ? best_path::slab_gather_pipe_shift : best_path::slab_gather;
    EXPECT_EQ(best_path_for(matrix_desc::packed(2, 50176, E, 5), 0, 0, 90, on).path, best_path::slab_gather_pipe);
    EXPECT_EQ(best_path_for(matrix_desc::packed(2, 50177, E, 5), 0, 0, 90, on).path, odd2);
    EXPECT_EQ(best_path_for(matrix_desc::packed(2, 50176, E, 5), E, 0, 90, on).path, odd2);
  }
  // 7 x N (unaligned rows): the pipelined kernel under `on` (its shift kernel where
  // best_gather_shift_default has `on` take it), the element-by-element slab under `off`
  // (or the shift kernel where the switch has `off` take it).
  EXPECT_EQ(best_path_for(matrix_desc::packed(7, 4793490, 1), 0, 0, 90, on).path,
            best_gather_shift_on(1, on) ? best_path::slab_gather_pipe_shift : best_path::slab_gather_pipe);
  EXPECT_EQ(best_path_for(matrix_desc::packed(7, 4793490, 1), 0, 0, 90, off).group, best_gather_shift_on(1, off) ? 7 : 0);
  // Micro-block gathers: pipelined under `on` with aligned rows of >= 64 bytes; unaligned
  // rows or shorter sides keep the micro-block kernel. Under `off` the micro-block kernels
  // where the micro switch has them for that flag.
  const bool micro_off = best_micro_on(
      best_route_on(best_pipe_default, off) || best_route_on(best_pipe_micro_scatter_default, off) ? false : off);
  for (int E : {1, 2})
    for (long long c : {24LL, 48LL, 96LL, 128LL}) {
      if (c * E % 16 != 0) continue;
      const matrix_desc aligned = matrix_desc::packed(c, 50176, E, 5), odd = matrix_desc::packed(c, 50177, E, 5);
      const bool tile = c * E >= 32 && c <= 64;  // aligned 32-64 rows: the small tile (not a slab)
      // (The row-fitted tile where best_fit_tile_default has the flag take it.)
      if (!tile)
        EXPECT_EQ(best_path_for(aligned, 0, 0, 90, on).path,
                  best_fit_tile_or(c * E >= 64 ? best_path::slab_gather_micro_pipe : best_path::slab_gather_micro,
                                   aligned, 0, 0, on))
            << c;
      // (The pipelined grouped kernel where best_pipe_short_default has the flag take it.)
      auto short_pipe_for = [&](bool flag) {
        return best_route_on(best_pipe_short_default, flag) && best_pipe_group_for(E, c, !best_pipe_default, true, false) == c;
      };
      const best_path odd_on = short_pipe_for(on) ? best_path::slab_gather_pipe : best_path::slab_gather_micro;
      EXPECT_EQ(best_path_for(odd, 0, 0, 90, on).path,
                best_fit_tile_or(
                    best_gather_shift_on(E, on) ? best_gather_shift_route(odd_on, static_cast<int>(c), E, false) : odd_on,
                    odd, 0, 0, on))
          << c;
      const bool short_pipe = short_pipe_for(off);
      // (The shift kernel of `on`'s route where best_gather_shift_default has `off` take it.)
      const best_path want_off = best_gather_shift_on(E, off) ? best_gather_shift_route(odd_on, static_cast<int>(c), E, false)
                                 : short_pipe               ? best_path::slab_gather_pipe
                                 : micro_off                ? best_path::slab_gather_micro
                                                            : best_path::slab_gather;
      EXPECT_EQ(best_path_for(odd, 0, 0, 90, off).path, best_fit_tile_or(want_off, odd, 0, 0, off)) << c;
    }
  // Micro-block scatters: pipelined where best_pipe_micro_scatter_default has them and
  // the output rows are 16-byte aligned; else the micro-block kernel.
  for (bool flag : {false, true})
    for (int E : {1, 2}) {
      SCOPED_TRACE(std::to_string(E) + (flag ? " candidate" : " default"));
      const matrix_desc odd = matrix_desc::packed(50177, 128, E, 5), even = matrix_desc::packed(50176, 128, E, 5);
      EXPECT_NE(best_path_for(odd, 0, 0, 90, flag).path, best_path::slab_scatter_micro_pipe);
      EXPECT_NE(best_path_for(even, 0, E, 90, flag).path, best_path::slab_scatter_micro_pipe);
      const auto got = best_path_for(even, 0, 0, 90, flag).path;
      if (best_route_on(best_pipe_micro_scatter_default, flag))
        EXPECT_EQ(got, best_path::slab_scatter_micro_pipe);
      else EXPECT_NE(got, best_path::slab_scatter_micro_pipe);
    }
  // Micro-block gathers the default policy runs unpipelined (f16 24 rows; 32 unaligned
  // rows): the pipelined grouped kernel under the flag of best_pipe_short_default; sides
  // without one (u8 48) and pipelined micro gathers (f16 64 aligned) unchanged.
  {
    const bool s_on = !best_pipe_short_default, s_off = best_pipe_short_default;
    for (auto [d, oi, g] : {std::tuple<matrix_desc, unsigned long long, int>{matrix_desc::packed(24, 50176, 2, 13), 0, 24},
                            {matrix_desc::packed(24, 50177, 2, 13), 0, 24},
                            {matrix_desc::packed(32, 50177, 2, 10), 0, 32},
                            {matrix_desc::packed(32, 50176, 2, 10), 2, 32}}) {
      SCOPED_TRACE(xpose_test::shape_name(d));
      const best_choice c = best_path_for(d, oi, 0, 90, s_on);
      EXPECT_EQ(c.path, best_path::slab_gather_pipe);
      EXPECT_EQ(c.group, g);
      EXPECT_NE(best_path_for(d, oi, 0, 90, s_off).path, best_path::slab_gather_pipe);
    }
    EXPECT_NE(best_path_for(matrix_desc::packed(48, 50177, 1, 13), 0, 0, 90, s_on).path, best_path::slab_gather_pipe);
    EXPECT_NE(best_path_for(matrix_desc::packed(64, 50176, 2, 5), 0, 0, 90, s_on).path, best_path::slab_gather_pipe);
  }
  // Sides without a kernel (9, 10) keep the slab kernels.
  EXPECT_EQ(best_path_for(matrix_desc::packed(9, 50177, 1, 2), 0, 0, 90, on).path, best_path::slab_gather);
  EXPECT_EQ(best_path_for(matrix_desc::packed(50177, 10, 1, 2), 0, 0, 90, on).path, best_path::slab_scatter);
}

// The halo routes: under the flag that has them on, exactly the 1-2 byte micro-block and
// pipelined grouped scatters to output rows that are not all 16-byte aligned (odd HW,
// offset pointers, padded rows, gapped batches), the grouped side kept; while the switch
// is off, the candidate differs from the default in the halo routes alone (1-2 byte
// scatters). Never gathers or 4-byte elements.
TEST(BestPipePolicy, Halo) {
  using xpose::matrix_desc;
  const bool on = !best_scatter_halo_default, off = best_scatter_halo_default;
  EXPECT_TRUE(best_route_on(best_scatter_halo_default, on));
  EXPECT_FALSE(best_route_on(best_scatter_halo_default, off));
  auto halo_of = [](best_path p) {
    return p == best_path::slab_scatter_micro  ? best_path::slab_scatter_micro_halo
           : p == best_path::slab_scatter_pipe ? best_path::slab_scatter_pipe_halo
                                               : p;
  };
  auto is_halo = [](best_path p) {
    return p == best_path::slab_scatter_micro_halo || p == best_path::slab_scatter_pipe_halo;
  };
  int halos = 0;
  for (int E : {1, 2, 4})
    for (long long c : {2LL, 3LL, 5LL, 6LL, 8LL, 12LL, 24LL, 32LL, 48LL, 64LL, 96LL, 128LL})
      for (long long hw : {50176LL, 50177LL})
        for (auto [oo, pad, gap] : {std::tuple<long long, long long, long long>{0, 0, 0}, {1, 0, 0}, {0, 16, 0},
                                    {0, 3, 0}, {0, 0, 16}, {0, 0, 5}}) {
          SCOPED_TRACE(std::to_string(E) + " " + std::to_string(c) + " " + std::to_string(hw) + " " +
                       std::to_string(oo) + "/" + std::to_string(pad) + "/" + std::to_string(gap));
          const matrix_desc d = padded(hw, c, E, 3, 0, pad, gap);
          const auto out = static_cast<unsigned long long>(oo * E);
          const best_choice h = best_path_for(d, 0, out, 90, on);
          const bool unaligned = !best_out_rows_aligned(d, out);
          if (!best_scatter_halo_default && E <= best_pipe_max_elem) {
            const best_choice b = best_path_for(d, 0, out, 90, off);
            EXPECT_EQ(h.path, E <= 2 && unaligned ? halo_of(b.path) : b.path);
            EXPECT_EQ(h.group, b.group);
          }
          // (Under `off`, the sides the default keeps unpipelined where best_halo_sides_default has them;
          // 4-8 byte scatters where best_pipe_wide_default has the flag take them.)
          const bool wide_off = best_pipe_wide_fits(d, false, 0, out, off) && unaligned;
          const bool wide_on = best_pipe_wide_fits(d, false, 0, out, on) && unaligned;
          // (f32 4-16 columns where best_pipe_wide_small_default has `off` take the halo; 1-2 byte
          // scatters where best_scatter_slab_default has `off` take the default's halo routes at the
          // slab table's sizes, best_choice::slab.)
          const best_choice x = best_path_for(d, 0, out, 90, off);
          // (The two-buffer direct kernel where best_scatter_direct2_default has `off` take the side.)
          const bool direct2 = best_scatter_direct2_on(E, off) && best_scatter_direct2_takes(E, c, !unaligned);
          EXPECT_EQ(x.path == best_path::slab_scatter_direct && x.slab > 0, direct2);
          if (!direct2)
            EXPECT_EQ(is_halo(x.path), best_halo_side(E, c, off, !unaligned) > 0 || wide_off ||
                                           best_pipe_wide_small_fits(d, 0, out, off) || x.slab > 0);
          EXPECT_TRUE(!is_halo(h.path) || (E <= 2 && unaligned) || wide_on || best_pipe_wide_small_fits(d, 0, out, on));
          if (h.path == best_path::slab_scatter_pipe_halo) EXPECT_EQ(h.group, c);
          halos += is_halo(h.path);
          // Gathers never.
          EXPECT_FALSE(is_halo(best_path_for(padded(c, hw, E, 3, pad, 0, gap), out, 0, 90, on).path));
        }
  EXPECT_GT(halos, 100);
  // The sweep's slowest rows (packed, aligned buffers).
  for (auto [b, hw, c, E, path] : {std::tuple<long long, long long, long long, int, best_path>{
                                       2, 50177, 128, 2, best_path::slab_scatter_micro_halo},
                                   {6, 50177, 96, 1, best_path::slab_scatter_micro_halo},
                                   {83, 50177, 8, 1, best_path::slab_scatter_pipe_halo},
                                   {5, 50177, 128, 1, best_path::slab_scatter_micro_halo},
                                   {3, 50177, 96, 2, best_path::slab_scatter_micro_halo},
                                   {27, 50177, 24, 1, best_path::slab_scatter_pipe_halo},
                                   {13, 50177, 48, 1, best_path::slab_scatter_micro_halo},
                                   {5, 50176, 128, 1, best_path::slab_scatter_micro_pipe}}) {
    const matrix_desc d = matrix_desc::packed(hw, c, E, b);
    EXPECT_EQ(best_path_name(best_path_for(d, 0, 0, 90, on).path), std::string(best_path_name(path))) << hw << " " << c;
    EXPECT_EQ(best_path_base(path), best_path::slab_scatter);
  }
  // The halo kernels' largest blocks fit as many per SM as the kernels without it
  // (best_pipe_micro_min_blocks, best_pipe_min_blocks; 228 KiB per SM, 1 KiB per block).
  for (int E : {1, 2}) {
    const int bytes = best_class_policy_for(90, E).slab_bytes;
    const int m1 = E == 1 ? slab::pipe_smem_max<1>(slab::scatter, 128, bytes, true, true)
                          : slab::pipe_smem_max<2>(slab::scatter, 128, bytes, true, true);
    EXPECT_LE((m1 + 1024) * best_pipe_micro_min_blocks(false), 228 * 1024) << E;
    for (int s : best_pipe_sides) {
      const int g = E == 1 ? slab::pipe_smem_max<1>(slab::scatter, s, bytes, false, true)
                           : slab::pipe_smem_max<2>(slab::scatter, s, bytes, false, true);
      EXPECT_LE((g + 1024) * best_pipe_min_blocks(E, false, s, true), 228 * 1024) << E << " " << s;
    }
  }
}

// The shift routes: under the flag that has them on, 1-2 byte gathers whose input rows are
// not all 16-byte aligned (odd HW, offset pointers, padded rows, gapped batches): the
// pipelined grouped gathers and 2-row grouped gathers of up to best_gather_shift_max_side
// rows and the f16 micro-block gathers, on the shift kernel of that route, the group kept;
// under the other flag the route it replaces; never scatters, aligned rows, 4-byte
// elements, u8 micro-block gathers or wider sides (docs/RESULTS.md "Session 6").
TEST(BestPipePolicy, Shift) {
  using xpose::matrix_desc;
  const bool on = !best_gather_shift_default, off = best_gather_shift_default;
  EXPECT_TRUE(best_gather_shift_on(1, on));
  EXPECT_FALSE(best_gather_shift_on(4, on));
  EXPECT_FALSE(best_gather_shift_on(1, off));
  auto is_shift = [](best_path p) {
    return p == best_path::slab_gather_micro_shift || p == best_path::slab_gather_pipe_shift;
  };
  int shifts = 0;
  for (int E : {1, 2, 4})
    for (long long c : {2LL, 3LL, 4LL, 5LL, 6LL, 8LL, 12LL, 16LL, 24LL, 32LL, 48LL, 64LL, 96LL, 128LL})
      for (long long hw : {50176LL, 50177LL})
        for (auto [oi, pad, gap] : {std::tuple<long long, long long, long long>{0, 0, 0}, {1, 0, 0}, {0, 16, 0},
                                    {0, 3, 0}, {0, 0, 16}, {0, 0, 5}}) {
          SCOPED_TRACE(std::to_string(E) + " " + std::to_string(c) + " " + std::to_string(hw) + " " +
                       std::to_string(oi) + "/" + std::to_string(pad) + "/" + std::to_string(gap));
          const matrix_desc d = padded(c, hw, E, 3, pad, 0, gap);
          const auto in = static_cast<unsigned long long>(oi * E);
          const best_choice h = best_path_for(d, in, 0, 90, on);
          const bool aligned = best_in_rows_aligned(d, in);
          if (h.path == best_path::slab_gather_micro_shift) {
            EXPECT_EQ(E, best_gather_shift_micro_elem);
            EXPECT_EQ(c * E % 16, 0);
          }
          if (h.path == best_path::slab_gather_pipe_shift) {
            EXPECT_EQ(h.group, c);
            EXPECT_TRUE(c <= best_gather_shift_max_side || (c == best_gather_shift24_side && best_gather_shift24_on(E, 90, on)));
          }
          if (is_shift(h.path)) EXPECT_TRUE(E <= best_pipe_max_elem && !aligned);
          // The kernel a grouped side would otherwise run (pipelined, or 2 rows grouped).
          if (E <= best_pipe_max_elem && !aligned && c <= best_gather_shift_max_side && c >= 2 &&
              !(c * E % 16 == 0 && c * E >= 48))
            EXPECT_EQ(h.path, best_path::slab_gather_pipe_shift) << best_path_name(h.path);
          // (Under `off`: none.)
          EXPECT_FALSE(is_shift(best_path_for(d, in, 0, 90, off).path));
          EXPECT_FALSE(is_shift(best_path_for(padded(hw, c, E, 3, 0, pad, gap), 0, in, 90, on).path));  // scatters
          shifts += is_shift(h.path);
        }
  EXPECT_GT(shifts, 100);
  // The sweep's 1-2 byte gathers of round 1 (docs/RESULTS.md "Session 6"; packed, aligned
  // buffers): batch, rows, HW, E, route under `on`, group. Winners on the shift kernels; the
  // rows that lost or tied keep their routes.
  for (auto [b, c, hw, E, path, g] : {std::tuple<long long, long long, long long, int, best_path, int>{
                                          13, 48, 50177, 1, best_path::slab_gather_micro, 0},
                                      {10, 64, 50177, 1, best_path::slab_gather_micro, 0},
                                      {6, 96, 50176, 1, best_path::slab_gather_micro_pipe, 0},
                                      {5, 128, 50177, 1, best_path::slab_gather_micro, 0},
                                      {2, 128, 50177, 2, best_path::slab_gather_micro_shift, 0},
                                      {3, 96, 50177, 2, best_path::slab_gather_micro_shift, 0},
                                      {5, 64, 50177, 2, best_path::slab_gather_micro_shift, 0},
                                      {6, 48, 50177, 2, best_path::slab_gather_micro_shift, 0},
                                      {3, 96, 50176, 2, best_path::slab_gather_micro_pipe, 0},
                                      {2, 128, 50176, 2, best_path::slab_gather_micro_pipe, 0},
                                      {222, 3, 50177, 1, best_path::slab_gather_pipe_shift, 3},
                                      {167, 4, 50177, 1, best_path::slab_gather_pipe_shift, 4},
                                      {133, 5, 50177, 1, best_path::slab_gather_pipe_shift, 5},
                                      {111, 6, 50177, 1, best_path::slab_gather_pipe_shift, 6},
                                      {83, 8, 50177, 1, best_path::slab_gather_pipe_shift, 8},
                                      {55, 12, 50177, 1, best_path::slab_gather_pipe_shift, 12},
                                      {41, 16, 50177, 1, best_path::slab_gather_pipe_shift, 16},
                                      {27, 24, 50177, 1, best_path::slab_gather_pipe, 24},
                                      {20, 32, 50177, 1, best_path::slab_gather_pipe, 32},
                                      {83, 4, 50177, 2, best_path::slab_gather_pipe_shift, 4},
                                      {66, 5, 50177, 2, best_path::slab_gather_pipe_shift, 5},
                                      {55, 6, 50177, 2, best_path::slab_gather_pipe_shift, 6},
                                      {13, 24, 50177, 2, best_path::slab_gather_pipe, 24},
                                      {256, 2, 50177, 1, best_path::slab_gather_pipe_shift, 2},
                                      {167, 2, 50177, 2, best_path::slab_gather_pipe_shift, 2}}) {
    const matrix_desc d = matrix_desc::packed(c, hw, E, b);
    SCOPED_TRACE(xpose_test::shape_name(d));
    const best_choice h = best_path_for(d, 0, 0, 90, on);
    // (The row-fitted tile where best_fit_tile_default has the flag take it; the u8 24-row shift
    // gathers where best_gather_shift24_default does.)
    const best_path want = path == best_path::slab_gather_pipe
                               ? best_gather_shift_route(path, g, E, false, best_gather_shift24_on(E, 90, on))
                               : path;
    EXPECT_EQ(best_path_name(h.path), std::string(best_path_name(best_fit_tile_or(want, d, 0, 0, on))));
    EXPECT_EQ(h.group, g);
    EXPECT_FALSE(is_shift(best_path_for(d, 0, 0, 90, off).path));  // (under `off`: none)
  }
  // Shift blocks: best_gather_shift_depth row buffers (and the grouped staging), in at most
  // the realigning kernels' shared memory for the same side, and as many per SM as their
  // register caps assume.
  constexpr int depth = best_gather_shift_depth;
  for (int E : {1, 2}) {
    const int bytes = best_class_policy_for(90, E).slab_bytes;
    auto smem = [&](long long s, bool micro, bool shift) {
      return E == 1 ? slab::pipe_smem_max<1>(slab::gather, s, bytes, micro, shift, shift ? depth : 2)
                    : slab::pipe_smem_max<2>(slab::gather, s, bytes, micro, shift, shift ? depth : 2);
    };
    EXPECT_LE(smem(128, true, true), smem(128, true, false));
    // (Two buffers: smaller blocks, the depth best.cu takes where they fit one more per SM.)
    const int two = E == 1 ? slab::pipe_smem_max<1>(slab::gather, 128, bytes, true, true, 2)
                           : slab::pipe_smem_max<2>(slab::gather, 128, bytes, true, true, 2);
    EXPECT_LT(two, smem(128, true, true));
    EXPECT_LE((smem(128, true, true) + 1024) * best_pipe_micro_min_blocks(true), 228 * 1024);
    for (int s : best_pipe_sides) {
      EXPECT_LE(smem(s, false, true), smem(s, false, false)) << s;
      EXPECT_LE((smem(s, false, true) + 1024) * best_pipe_min_blocks(E, true, s), 228 * 1024) << s;
    }
  }
}

// The halo kernel for the scatter sides the default keeps on the unpipelined grouped kernel
// (switch best_halo_sides_default): under the flag that has it on, exactly those 1-2 byte
// sides (not best_pipe_scatter_side) to output rows not all 16-byte aligned, the side kept;
// under the other flag the grouped kernel; aligned rows and 4-byte elements never.
TEST(BestPipePolicy, HaloSides) {
  using xpose::matrix_desc;
  const bool on = !best_halo_sides_default, off = best_halo_sides_default;
  int taken = 0;
  for (int E : {1, 2, 4})
    for (long long c : {2LL, 3LL, 4LL, 5LL, 6LL, 7LL, 8LL, 12LL, 16LL, 24LL, 32LL})
      for (long long hw : {50176LL, 50177LL})
        for (long long oo : {0LL, 1LL}) {
          SCOPED_TRACE(std::to_string(E) + " " + std::to_string(c) + " " + std::to_string(hw) + " " + std::to_string(oo));
          const matrix_desc d = matrix_desc::packed(hw, c, E, 3);
          const auto out = static_cast<unsigned long long>(oo * E);
          const bool unaligned = !best_out_rows_aligned(d, out);
          const bool want = E <= best_pipe_max_elem && unaligned && c >= best_halo_side_min && !best_pipe_scatter_side(E, c);
          const best_choice h = best_path_for(d, 0, out, 90, on), b = best_path_for(d, 0, out, 90, off);
          // (The two-buffer direct kernel where its switch has `on` take the side: best_scatter_direct2_or.)
          if (want && best_scatter_direct2_or(best_path::slab_scatter_pipe_halo, d, out, on) != best_path::slab_scatter_pipe_halo)
            EXPECT_TRUE(h.path == best_path::slab_scatter_direct && h.group == c);
          else if (want) EXPECT_TRUE(h.path == best_path::slab_scatter_pipe_halo && h.group == c);
          // (The pipelined sides reach the halo kernel through their own switch, best_scatter_halo_default.)
          // (Sides 2-3 reach it through the scatter slab table where its switch has `on` take them.)
          else if (!best_pipe_scatter_side(E, c) && slab_moved(best_path::slab_scatter, c, E, on, c) == best_path::slab_scatter)
            EXPECT_NE(h.path, best_path::slab_scatter_pipe_halo);
          EXPECT_EQ(best_halo_side(E, c, on, !unaligned), want ? c : 0);
          EXPECT_EQ(best_halo_side(E, c, off, !unaligned), 0);
          // (The direct scatter where its switch has `off` take it: the base route.)
          if (want) EXPECT_EQ(best_path_base(b.path), best_path::slab_scatter);
          taken += want;
        }
  EXPECT_EQ(taken, 1 * 3 + 3 * 3);  // u8 12; f16 4, 12, 16; odd HW, or the output offset
  // The sweep rows (packed, aligned buffers); sides 2 and 3 keep the grouped kernel.
  for (auto [b, c, E] : {std::tuple<long long, long long, int>{55, 12, 1}, {27, 12, 2}, {20, 16, 2}, {83, 4, 2}}) {
    EXPECT_EQ(best_path_for(matrix_desc::packed(50177, c, E, b), 0, 0, 90, on).path,
              best_scatter_direct2_or(best_path::slab_scatter_pipe_halo, matrix_desc::packed(50177, c, E, b), 0, on));
    EXPECT_EQ(best_path_base(best_path_for(matrix_desc::packed(50177, c, E, b), 0, 0, 90, off).path),
              best_path::slab_scatter);
  }
  for (auto [b, c, E] : {std::tuple<long long, long long, int>{256, 2, 1}, {222, 3, 1}, {167, 2, 2}, {111, 3, 2}})
    EXPECT_EQ(best_path_for(matrix_desc::packed(50177, c, E, b), 0, 0, 90, on).path,
              best_scatter_direct2_or(slab_moved(best_path::slab_scatter, static_cast<int>(c), E, on, c),
                                      matrix_desc::packed(50177, c, E, b), 0, on));
}

// Balanced slabs: never longer than the table's, a multiple of k, and no more rounds of
// slabs per resident block than the table's span gives; the last round fuller.
TEST(BestPipePolicy, BalancedSpan) {
  for (long long k : {8LL, 16LL})
    for (long long span0 : {k, 64 * k, 2048LL})
      for (long long L : {1LL, 7LL, 1000LL, 50176LL, 50177LL, 4793490LL})
        for (long long batch : {1LL, 3LL, 27LL, 83LL, 256LL})
          for (long long resident : {1LL, 264LL, 396LL, 528LL}) {
            SCOPED_TRACE(std::to_string(span0) + " " + std::to_string(L) + " " + std::to_string(batch) + " " +
                         std::to_string(resident));
            const long long span = best_pipe_span(span0, L, batch, resident, k);
            auto slabs = [&](long long s) { return batch * ((L + s - 1) / s); };
            auto rounds = [&](long long s) { return (slabs(s) + resident - 1) / resident; };
            ASSERT_LE(span, span0);
            if (span != span0) ASSERT_EQ(span % k, 0);
            ASSERT_GE(span, 1);
            ASSERT_LE(rounds(span), rounds(span0));
            ASSERT_GE(slabs(span), slabs(span0));
          }
  // 83 x 8 x 50177 u8 on 396 resident blocks: 25 slabs of 2048 per matrix (5.2 rounds)
  // become 28 of 1808 (5.9 rounds).
  EXPECT_EQ(best_pipe_span(2048, 50177, 83, 396, 16), 1808);
}

// 4-8 byte slabs on the pipelined micro-block kernels (switch best_pipe_wide_default):
// under the flag that has it on, exactly the gathers / scatters of short sides 17-64
// (f32) / 17-32 (8-byte) of whole chunks with the packed side aligned, whatever the
// other side's alignment (gathers: the realigning pass; scatters: the halo kernel to
// unaligned output rows); under the other flag none of them. 1-2 and 16-byte elements,
// short sides of the interleave kernels and packed sides off the grid never.
TEST(BestPipePolicy, Wide) {
  using xpose::matrix_desc;
  const bool on = !best_pipe_wide_default, off = best_pipe_wide_default;
  auto wide = [](best_path p) {
    return p == best_path::slab_gather_micro_pipe || p == best_path::slab_scatter_micro_pipe ||
           p == best_path::slab_scatter_micro_halo;
  };
  int taken = 0;
  for (int E : {1, 2, 4, 8, 16})
    for (long long c : {8LL, 16LL, 18LL, 20LL, 24LL, 25LL, 32LL, 48LL, 64LL})
      for (long long hw : {50176LL, 50177LL})
        for (long long oo : {0LL, 1LL}) {
          SCOPED_TRACE(std::to_string(E) + " " + std::to_string(c) + " " + std::to_string(hw) + " " + std::to_string(oo));
          const auto o = static_cast<unsigned long long>(oo * E);
          const long long most = E == 4 ? 64 : 32;
          const bool whole = (c * E) % 16 == 0 && c > 16 && c <= most && (E == 4 || E == 8);
          // Gathers: the packed output at o, the input rows odd or offset.
          const matrix_desc g = matrix_desc::packed(c, hw, E, 3), s = matrix_desc::packed(hw, c, E, 3);
          // (Aligned output rows: f32 of 64 columns only, best_pipe_wide_aligned.)
          const bool out_aligned = hw % 2 == 0;
          const bool g_want = whole && oo == 0, s_want = whole && oo == 0 && (!out_aligned || (E == 4 && c == 64));
          EXPECT_EQ(best_path_for(g, E, o, 90, on).path == best_path::slab_gather_micro_pipe, g_want);
          EXPECT_EQ(best_pipe_wide_fits(g, true, E, o, on), (E == 4 || E == 8) && whole && oo == 0);
          if (E >= 4) EXPECT_NE(best_path_for(g, E, o, 90, off).path, best_path::slab_gather_micro_pipe);
          EXPECT_FALSE(best_pipe_wide_fits(g, true, 0, 0, off));
          // Scatters: the packed input at o; output rows aligned (50176) or not (50177, offset).
          const best_path sp = best_path_for(s, o, E * (hw % 2), 90, on).path;
          if (s_want)
            EXPECT_EQ(sp, out_aligned ? best_path::slab_scatter_micro_pipe : best_path::slab_scatter_micro_halo);
          else if (E >= 4 && !best_pipe_wide_small_fits(s, o, E * (hw % 2), on))  // (best_pipe_wide_small_default)
            EXPECT_FALSE(wide(sp));
          // (f32 4-16 columns: best_pipe_wide_small_default's halo, tested in WideSmall.)
          if (E >= 4 && !best_pipe_wide_small_fits(s, o, 0, off)) EXPECT_FALSE(wide(best_path_for(s, o, 0, 90, off).path));
          taken += g_want + s_want;
        }
  // f32 20, 24, 32, 48, 64 and 8-byte 18, 20, 24, 32: gathers (input rows offset) of both long
  // sides, scatters to odd HW, and the f32 64-column scatter to aligned rows.
  EXPECT_EQ(taken, (5 + 4) * 3 + 1);
  // Aligned rows: only where best_pipe_wide_aligned says (measured faster); else the route before.
  for (auto [r, c, E, b, gather, want] : {std::tuple<long long, long long, int, long long, bool, bool>{32, 50176, 4, 5, true, true},
                                          {48, 50176, 4, 3, true, false},  // the tile
                                          {24, 50176, 4, 6, true, false},  // the interleave gather
                                          {24, 50176, 8, 3, true, true},
                                          {32, 50176, 8, 2, true, false},  // the interleave gather
                                          {32, 131072, 8, 1, true, true},  // rows 1 MiB apart
                                          {50176, 64, 4, 2, false, true},
                                          {50176, 48, 4, 3, false, false},
                                          {50176, 32, 8, 2, false, false}}) {
    const matrix_desc d = matrix_desc::packed(r, c, E, b);
    EXPECT_EQ(best_pipe_wide_fits(d, gather, 0, 0, on), want) << r << "x" << c << " " << E;
    EXPECT_EQ(wide(best_path_for(d, 0, 0, 90, on).path), want && best_fit_tile_route(d, 0, 0, on) == best_path::copy)
        << r << "x" << c << " " << E;  // (24 / 32 aligned rows: the row-fitted tile, best_fit_wide_default)
  }
  // The sweep's rows (packed, aligned buffers) under `on`; the 32-64 row f32 tile gives way.
  for (auto [r, c, E, b, path] :
       {std::tuple<long long, long long, int, long long, best_path>{50177, 64, 4, 2, best_path::slab_scatter_micro_halo},
        {50177, 24, 4, 6, best_path::slab_scatter_micro_halo},
        {50176, 64, 4, 2, best_path::slab_scatter_micro_pipe},
        {64, 50177, 4, 2, best_path::slab_gather_micro_pipe},
        {32, 50176, 4, 5, best_path::slab_gather_micro_pipe},
        {32, 262144, 4, 1, best_path::slab_gather_micro_pipe},
        {24, 50177, 4, 6, best_path::slab_gather_micro_pipe},
        {32, 131072, 8, 1, best_path::slab_gather_micro_pipe},
        {24, 50177, 8, 3, best_path::slab_gather_micro_pipe},
        {50177, 32, 8, 3, best_path::slab_scatter_micro_halo}}) {
    const matrix_desc d = matrix_desc::packed(r, c, E, b);
    EXPECT_EQ(best_path_name(best_path_for(d, 0, 0, 90, on).path),
              std::string(best_path_name(best_fit_tile_or(path, d, 0, 0, on))))
        << r << "x" << c;
    EXPECT_FALSE(wide(best_path_for(d, 0, 0, 90, off).path)) << r << "x" << c;
  }
  // Their largest blocks fit the resident blocks the kernels' register caps assume
  // (best_pipe_micro_min_blocks; 228 KiB per SM, 1 KiB per block).
  for (bool halo : {false, true}) {
    const int s4 = slab::pipe_smem_max<4>(slab::scatter, 64, best_class_policy_for(90, 4).slab_bytes, true, halo);
    const int s8 = slab::pipe_smem_max<8>(slab::scatter, 32, best_class_policy_for(90, 8).slab_bytes, true, halo);
    EXPECT_LE((s4 + 1024) * best_pipe_micro_min_blocks(false), 228 * 1024);
    EXPECT_LE((s8 + 1024) * best_pipe_micro_min_blocks(false), 228 * 1024);
  }
  EXPECT_LE((slab::pipe_smem_max<4>(slab::gather, 64, 16384, true) + 1024) * best_pipe_micro_min_blocks(true),
            228 * 1024);
  // (Gathers read unaligned rows shifted from the load buffers: no rows area besides them.)
  EXPECT_LT(slab::pipe_smem_max<4>(slab::gather, 64, 16384, true, false, 2, true),
            slab::pipe_smem_max<4>(slab::gather, 64, 16384, true));
  EXPECT_LE((slab::pipe_smem_max<8>(slab::gather, 32, 16384, true) + 1024) * best_pipe_micro_min_blocks(true),
            228 * 1024);
}

// 4-8 byte batches on the pipelined whole-matrix kernel (switch best_pipe_whole_wide_default):
// under the flag that has it on, exactly the packed batches of whole-chunk matrices of at
// most 8 KiB with both pointers aligned; under the other flag none.
TEST(BestPipePolicy, WholeWide) {
  using xpose::matrix_desc;
  const bool on = !best_pipe_whole_wide_default, off = best_pipe_whole_wide_default;
  int taken = 0;
  for (int E : {1, 2, 4, 8, 16})
    for (auto [r, c] : {std::pair<long long, long long>{8, 8}, {16, 16}, {32, 32}, {64, 64}, {12, 12}, {6, 8}, {24, 16}})
      for (long long oo : {0LL, 1LL}) {
        SCOPED_TRACE(std::to_string(E) + " " + std::to_string(r) + "x" + std::to_string(c) + " " + std::to_string(oo));
        const matrix_desc d = matrix_desc::packed(r, c, E, 4096);
        const auto o = static_cast<unsigned long long>(oo * E);
        const bool want = (E == 4 || E == 8) && (r * E) % 16 == 0 && (c * E) % 16 == 0 && r * c * E <= 8192 && oo == 0 &&
                          !best_pipe_whole_wide_cap(d, 0, o, on);
        EXPECT_EQ(best_pipe_whole_wide_fits(d, 0, o, on), want);
        EXPECT_FALSE(best_pipe_whole_wide_fits(d, 0, o, off));
        if (want) EXPECT_EQ(best_path_for(d, 0, o, 90, on).path, best_path::slab_whole_micro_pipe);
        if (E >= 4) EXPECT_NE(best_path_for(d, o, 0, 90, off).path, best_path::slab_whole_micro_pipe);
        // A gapped batch is not whole matrices.
        EXPECT_FALSE(best_pipe_whole_wide_fits(padded(r, c, E, 3, 0, 0, 2), 0, 0, on));
        taken += want;
      }
  // f32: all but 6x8 and 64x64; 8-byte: all but 64x64 (and 32x32 where best_pipe_whole_wide_cap has `on` cap it)
  EXPECT_EQ(taken, 5 + 6 - (best_route_on(best_pipe_whole_wide_cap_default, on) ? 1 : 0));
}

// Session 7 switches (best_pipe_wide_small_default, best_pipe_whole_wide_cap_default): under
// the flag that has each on, exactly its class; under the other flag none.
TEST(BestPipePolicy, WideSmall) {
  using xpose::matrix_desc;
  const bool on = !best_pipe_wide_small_default, off = best_pipe_wide_small_default;
  int taken = 0;
  for (int E : {1, 2, 4, 8})
    for (long long c : {2LL, 3LL, 4LL, 6LL, 8LL, 12LL, 16LL, 20LL, 24LL})
      for (long long hw : {50176LL, 50177LL})
        for (long long oo : {0LL, 1LL}) {
          SCOPED_TRACE(std::to_string(E) + " " + std::to_string(c) + " " + std::to_string(hw) + " " + std::to_string(oo));
          const matrix_desc s = matrix_desc::packed(hw, c, E, 3);
          const auto o = static_cast<unsigned long long>(oo * E);
          // f32, 8 and 16 columns, output rows unaligned (odd HW), input aligned.
          const bool want = E == 4 && (c == 8 || c == 16) && hw % 2 == 1 && oo == 0;
          EXPECT_EQ(best_pipe_wide_small_fits(s, o, 0, on), want);
          if (want) EXPECT_EQ(best_path_for(s, o, 0, 90, on).path, best_path::slab_scatter_micro_halo);
          EXPECT_FALSE(best_pipe_wide_small_fits(s, o, 0, off));
          if (E == 4 && c <= 16) EXPECT_NE(best_path_for(s, o, 0, 90, off).path, best_path::slab_scatter_micro_halo);
          taken += want;
        }
  EXPECT_EQ(taken, 2);  // 8, 16 columns
  // Output one element off: rows unaligned although HW is even.
  EXPECT_TRUE(best_pipe_wide_small_fits(matrix_desc::packed(50176, 16, 4, 3), 0, 4, on));
  EXPECT_EQ(best_path_for(matrix_desc::packed(50177, 16, 4, 10), 0, 0, 90, on).path, best_path::slab_scatter_micro_halo);
}

TEST(BestPipePolicy, WholeWideCap) {
  using xpose::matrix_desc;
  const bool on = !best_pipe_whole_wide_cap_default, off = best_pipe_whole_wide_cap_default;
  int taken = 0;
  for (int E : {1, 2, 4, 8, 16})
    for (auto [r, c] : {std::pair<long long, long long>{8, 8}, {16, 16}, {32, 32}, {16, 64}, {64, 16}, {16, 32}, {32, 24}})
      for (long long oo : {0LL, 1LL}) {
        SCOPED_TRACE(std::to_string(E) + " " + std::to_string(r) + "x" + std::to_string(c) + " " + std::to_string(oo));
        const matrix_desc d = matrix_desc::packed(r, c, E, 4096);
        const auto o = static_cast<unsigned long long>(oo * E);
        const bool want = E == 8 && r * c * E > 4096 && r * c * E <= 8192 && r <= 32 && oo == 0;
        EXPECT_EQ(best_pipe_whole_wide_cap(d, 0, o, on), want);
        if (want) EXPECT_EQ(best_path_for(d, 0, o, 90, on).path, best_path::tile_few_rows);
        EXPECT_FALSE(best_pipe_whole_wide_cap(d, 0, o, off));
        // The gapped batch is not whole matrices.
        EXPECT_FALSE(best_pipe_whole_wide_cap(padded(r, c, E, 3, 0, 0, 2), 0, 0, on));
        taken += want;
      }
  EXPECT_EQ(taken, 3);  // 8-byte 32x32, 16x64, 32x24
  // The sweep's rows: 4096 x 32 x 32 f64 / c64 on the few-rows tile under `on`, the
  // pipelined whole-matrix kernel under the default flags.
  const matrix_desc d = matrix_desc::packed(32, 32, 8, 4096);
  EXPECT_EQ(best_path_for(d, 0, 0, 90, on).path, best_path::tile_few_rows);
  EXPECT_EQ(best_path_for(d, 0, 0, 90, false).path,
            best_pipe_whole_wide_cap_default ? best_path::tile_few_rows : best_path::slab_whole_micro_pipe);
}

// ---- the lean form of the grouped gathers (pipe_kernel A, switch best_gather_lean_default) ----

namespace {

// The lean grouped gather of d (shift: the shift kernel, raw rows and `depth` load buffers;
// else the realigning pipelined gather) as pipe_path launches it on `grid` resident blocks:
// the slab shortened by best_pipe_span with room for the lag, then align_out_slabs. The
// slabs of each matrix tile [0, L) in order, none empty or longer than the span; with lags,
// every slab but a matrix's first starts its output on a 16-byte boundary exactly where a
// lag reaches it. Returns whether the slabs took lags.
template <int E>
bool check_lean(const xpose::matrix_desc& d, long long off_in, long long off_out, int slab_bytes, int nt,
                long long grid, bool shift, int depth) {
  constexpr long long k = 16 / E;
  bool lagged = false;
  SCOPED_TRACE("lean " + xpose_test::shape_name(d) + " offsets " + std::to_string(off_in) + "/" +
               std::to_string(off_out) + " slab " + std::to_string(slab_bytes) + " nt " + std::to_string(nt) +
               " grid " + std::to_string(grid) + (shift ? " shift" : "") + " depth " + std::to_string(depth));
  const auto seed = static_cast<std::uint64_t>(d.rows * 41 + d.cols + off_in + off_out);
  xpose_test::host_slab_check(d, off_in, off_out, seed, [&](const u8* pin, const u8* in_end, u8* pout) {
    slab::args s = slab::make_pipe_args<E>(slab::gather, pin, pout, d, in_end, slab_bytes, false, shift, depth);
    const long long span = best_pipe_span(s.span, s.L + k - 1, s.batch, grid, k);
    if (span < s.span)
      s = slab::make_pipe_args<E>(slab::gather, pin, pout, d, in_end, static_cast<int>(span * s.S * E), false, shift,
                                  depth);
    slab::lean_args a{s, 0};
    lagged = slab::align_out_slabs<E>(a);
    ASSERT_EQ(lagged, a.out_lags != 0 || (a.slabs_per_mat > 1 && a.slabs_per_mat * a.span >= a.L + k - 1));
    const int se = static_cast<int>(a.S * E);
    long long end = 0;
    for (long long t = 0; t < a.total; ++t) {
      const long long j = t % a.slabs_per_mat, b = t / a.slabs_per_mat;
      const slab::pos p = slab::lean_slab_at<E>(a, t);
      ASSERT_EQ(p.l0, j == 0 ? 0 : end) << t;
      ASSERT_GT(p.n, 0) << t;
      ASSERT_LE(p.n, a.span) << t;
      end = p.l0 + p.n;
      if (j + 1 == a.slabs_per_mat) ASSERT_EQ(end, a.L) << t;
      ASSERT_EQ(p.in, pin + b * a.stride_in + p.l0 * E);
      ASSERT_EQ(p.out, pout + b * a.stride_out + p.l0 * se);
      const int ph = slab::addr16(pout + b * a.stride_out);
      bool reached = false;  // (some lag aligns this matrix's boundaries: by trial, not by out_lag)
      for (int lag = 0; lag < k; ++lag) reached = reached || ((lag * se - ph) & 15) == 0;
      if (lagged && j > 0) ASSERT_EQ(slab::addr16(p.out) == 0, reached) << t;
    }
    const int side = static_cast<int>(d.rows);
    if (shift) emulate_side<E, slab::gather, true, true>(a, nt, grid, side);
    else emulate_side<E, slab::gather, false, true>(a, nt, grid, side);
  });
  return lagged;
}

// Every pipelined side, both kernels (shift: 2 and best_gather_shift_depth load buffers),
// the gather layouts (input / output offsets, padded rows, gapped batches), odd and even
// long sides, production and small slabs, one and a few resident blocks.
template <int E>
void lean_cases() {
  constexpr long long k = 16 / E;
  const int prod = best_class_policy_for(90, E).slab_bytes;
  int lagged = 0, runs = 0;
  for (int s : best_pipe_sides)
    for (int bytes : {prod, 64 * E * s, 16 * E * s})
      for (auto [nt, grid] : {std::pair<int, long long>{best_slab_threads, 3}, {32, 1 << 30}, {7, 1}})
        for (long long L : {k - 1, 301LL, 4 * k * 17 + 5, 64 * k + 3, 5021LL}) {
          if (bytes == prod && L < 301) continue;
          xpose_test::slab_layouts(E, s, L, [&](int mode, const xpose::matrix_desc& d, long long oi, long long oo) {
            if (mode != slab::gather) return;
            for (int depth : {2, best_gather_shift_depth}) lagged += check_lean<E>(d, oi, oo, bytes, nt, grid, true, depth);
            runs += 2;
            // (The realigning kernels' lean form: the sides without a shift kernel.)
            if (best_gather_lean_kernel(E, false, s)) lagged += check_lean<E>(d, oi, oo, bytes, nt, grid, false, 2), ++runs;
          });
          if (::testing::Test::HasFatalFailure()) return;
        }
  EXPECT_GT(lagged, runs / 4);  // (the cases exercise the lags, not only the plain slabs)
}

}  // namespace

TEST(BestPipeEmulation, LeanGrouped1) { lean_cases<1>(); }
TEST(BestPipeEmulation, LeanGrouped2) { lean_cases<2>(); }

// out_lag: the least lag whose boundaries are aligned, for every packed side mod 16 and phase.
TEST(BestPipeEmulation, LeanLag) {
  slab::lean_args a{};
  for (int E : {1, 2})
    for (long long S = 1; S <= 40; ++S) {
      a.S = S;
      const int se = static_cast<int>(S * E);
      for (int ph = 0; ph < 16; ph += E) {
        const int d = E == 1 ? slab::out_lag<1>(a, ph) : slab::out_lag<2>(a, ph);
        int want = 0;  // (least reaching lag, 0 where none does)
        while (want < 16 / E && ((want * se - ph) & 15) != 0) ++want;
        EXPECT_EQ(d, want < 16 / E ? want : 0) << E << " " << S << " " << ph;
      }
    }
}

// The lean form's switch and class: 1-2 byte elements; rows or matrices off the grid.
TEST(BestPipePolicy, Lean) {
  const bool lean = !best_gather_lean_default;
  EXPECT_TRUE(best_gather_lean_on(1, lean));
  EXPECT_TRUE(best_gather_lean_on(2, lean));
  EXPECT_FALSE(best_gather_lean_on(4, lean));
  EXPECT_FALSE(best_gather_lean_on(1, !lean));
  using xpose::matrix_desc;
  EXPECT_TRUE(best_gather_lean_fits(matrix_desc::packed(6, 50177, 1, 111), 0, 0));
  EXPECT_TRUE(best_gather_lean_fits(matrix_desc::packed(2, 50177, 2, 167), 0, 0));
  EXPECT_FALSE(best_gather_lean_fits(matrix_desc::packed(6, 50176, 1, 111), 0, 0));
  EXPECT_TRUE(best_gather_lean_fits(matrix_desc::packed(6, 50176, 1, 111), 1, 0));
  EXPECT_TRUE(best_gather_lean_fits(matrix_desc::packed(6, 50176, 1, 111), 0, 1));
  matrix_desc gap = matrix_desc::packed(5, 4096, 1, 3);
  EXPECT_FALSE(best_gather_lean_fits(gap, 0, 0));
  gap.stride_out += 3;  // (aligned input rows, the second matrix's output off the grid)
  EXPECT_TRUE(best_gather_lean_fits(gap, 0, 0));
  // Rows of at most best_gather_lean_max_bytes a position only.
  EXPECT_TRUE(best_gather_lean_fits(matrix_desc::packed(12, 50177, 1, 5), 0, 0));
  EXPECT_FALSE(best_gather_lean_fits(matrix_desc::packed(16, 50177, 1, 5), 0, 0));
  EXPECT_FALSE(best_gather_lean_fits(matrix_desc::packed(8, 50177, 2, 5), 0, 0));
  // Under the flag that has it on, best.cu runs the default policy's shift gathers of those rows
  // lean (best_gather_lean_takes); under the other flag, and for aligned rows, never.
  for (int E : {1, 2})
    for (long long c : {2LL, 3LL, 6LL, 8LL, 12LL, 16LL, 24LL}) {
      const matrix_desc d = matrix_desc::packed(c, 50177, E, 5);
      const bool want = c * E <= best_gather_lean_max_bytes;
      EXPECT_EQ(best_gather_lean_takes(d, 0, 0, 90, lean), want) << E << " " << c;
      EXPECT_FALSE(best_gather_lean_takes(d, 0, 0, 90, !lean)) << E << " " << c;
      if (want) EXPECT_EQ(best_path_for(d, 0, 0, 90, lean).path, best_path::slab_gather_pipe_shift) << E << " " << c;
      EXPECT_FALSE(best_gather_lean_takes(matrix_desc::packed(c, 50176, E, 5), 0, 0, 90, lean)) << E << " " << c;
    }
  // 4-byte gathers and scatters: never.
  EXPECT_FALSE(best_gather_lean_takes(matrix_desc::packed(6, 50177, 4, 5), 0, 0, 90, lean));
  EXPECT_FALSE(best_gather_lean_takes(matrix_desc::packed(50177, 6, 1, 5), 0, 0, 90, lean));
}

// The halo scatters at the scatter slab table's sizes (best_scatter_slab_table, switch
// best_scatter_slab_default): every entry, slabs of the entry's bytes with a ragged last slab
// (L of 2.5 spans and one more than a span), the resident grid of 3 blocks and one per slab,
// every slab_layouts scatter (offsets, padding, gaps); micro-block sides of whole chunks.
template <int E>
void scatter_slab_table_cases() {
  constexpr long long k = 16 / E;
  for (int s : best_pipe_sides) {
    const int bytes = best_scatter_slab_table(E, s, true);
    if (bytes == 0) continue;
    const long long span = bytes / (E * s);
    // (Many slabs per block at 3 resident blocks; one block per slab, a last slab k + 1 long.)
    for (auto [L, grid] : {std::pair<long long, long long>{span * 5 / 2 + 3, 3}, {span + k + 1, 1 << 30}}) {
      xpose_test::slab_layouts(E, s, L, [&](int mode, const xpose::matrix_desc& d, long long oi, long long oo) {
        if (mode == slab::scatter) check_pipe<E>(mode, d, oi, oo, bytes, best_slab_threads, grid, 0, true);
      });
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  for (long long s = k; s * E <= best_class_policy_for(90, E).slab_max_short_bytes; s += k) {
    const int micro = best_scatter_slab_table(E, s, true, true);
    if (micro == 0) continue;
    const long long L = micro / (E * s) * 5 / 2 + 3;
    for (auto [oi, oo] : {std::pair<long long, long long>{0, 0}, {1, 0}, {k - 1, k}}) {
      check_pipe<E>(slab::scatter, padded(L, s, E, 3, 0, oi, 2 * k), oo, oi, micro, best_slab_threads, 3,
                    best_pipe_micro_width_for(E), true);
      check_pipe<E>(slab::scatter, xpose::matrix_desc::packed(L, s, E, 2), oo, oi, micro, best_slab_threads, 1 << 30,
                    best_pipe_micro_width_for(E), true);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(BestPipeEmulation, ScatterSlabTable1) { scatter_slab_table_cases<1>(); }
TEST(BestPipeEmulation, ScatterSlabTable2) { scatter_slab_table_cases<2>(); }

// ---- larger slabs for the u8 grouped gathers (switch best_gather_slab_default) ----

// The switch's slabs: u8 grouped gathers of at least best_gather_slab_min_side rows on sm_90+
// under the flag that has it on, shift kernels or aligned input rows; everything else keeps the
// table's slab under both flags.
TEST(BestPipePolicy, GatherSlab) {
  const bool on = !best_gather_slab_default;
  const int u8_table = best_class_policy_for(90, 1).slab_bytes, f16_table = best_class_policy_for(90, 2).slab_bytes;
  const int big = best_gather_slab_bytes;
  ASSERT_LT(u8_table, big);
  for (int s : best_pipe_sides) {
    const bool side = s >= best_gather_slab_min_side && s <= best_gather_slab_max_side;
    for (bool shift : {false, true})
      for (bool aligned : {false, true}) {
        const bool want = side && (shift || aligned);
        EXPECT_EQ(best_pipe_slab_bytes(1, true, s, u8_table, shift, aligned, on, 90), want ? big : u8_table) << s;
        EXPECT_EQ(best_gather_slab_for(1, true, s, u8_table, shift, aligned), want ? big : u8_table) << s;
        EXPECT_EQ(best_pipe_slab_bytes(1, true, s, u8_table, shift, aligned, !on, 90), u8_table) << s;
        EXPECT_EQ(best_pipe_slab_bytes(1, true, s, u8_table, shift, aligned, on, 80), u8_table) << s;
        EXPECT_EQ(best_pipe_slab_bytes(1, false, s, u8_table, shift, aligned, on, 90), u8_table) << s;
        EXPECT_EQ(best_pipe_slab_bytes(2, true, s, f16_table, shift, aligned, on, 90), f16_table) << s;
      }
  }
  // Micro-block and whole-matrix kernels (side 0): the table's.
  EXPECT_EQ(best_pipe_slab_bytes(1, true, 0, u8_table, false, true, on, 90), u8_table);
  // Blocks per SM at the larger slab: the kernels' register cap (best_pipe_min_blocks) still fits
  // in sm_90's 228 KiB a multiprocessor (1 KiB reserved a block): the largest block of each side
  // the switch takes (shift kernels with 2 load buffers, segments unaligned, of the sides that
  // have a shift route; plain kernels, segments aligned). The realigning plain blocks would not.
  for (int s : best_pipe_sides) {
    if (s < best_gather_slab_min_side || s > best_gather_slab_max_side) continue;
    const int plain = slab::pipe_smem_max<1>(slab::gather, s, big, false, false, 2, false, true);
    EXPECT_LE(best_pipe_min_blocks(1, true, s) * (plain + 1024), 228 * 1024) << s;
    EXPECT_GT(plain, slab::pipe_smem_max<1>(slab::gather, s, u8_table, false, false, 2, false, true)) << s;
    const int realigning = slab::pipe_smem_max<1>(slab::gather, s, big, false, false, 2);
    EXPECT_GT(best_pipe_min_blocks(1, true, s) * (realigning + 1024), 228 * 1024) << s;
    if (s > best_gather_shift_max_side) continue;
    const int shift = slab::pipe_smem_max<1>(slab::gather, s, big, false, true, 2);
    EXPECT_LE(best_pipe_min_blocks(1, true, s, true) * (shift + 1024), 228 * 1024) << s;
  }
  // The sweep's u8 rows: `best`'s grouped pipelined gathers; the larger slabs under `on` where the
  // switch applies (shift kernels, aligned rows; 24 rows of odd HW: the realigning kernel keeps its
  // slabs), with `best`'s route and kernel form (lean or not) under `on`.
  using xpose::matrix_desc;
  struct row {
    matrix_desc d;
    bool takes;
  };
  // (24 rows of odd HW: the shift kernel's larger slabs where best_gather_shift24_default has `on` take it.)
  for (const row& r : {row{matrix_desc::packed(24, 50177, 1, 27), best_gather_shift24_on(1, 90, on)},
                       row{matrix_desc::packed(24, 50176, 1, 27), true},
                       row{matrix_desc::packed(12, 50176, 1, 55), true}, row{matrix_desc::packed(12, 50177, 1, 55), true},
                       row{matrix_desc::packed(8, 50177, 1, 83), true}, row{matrix_desc::packed(8, 50176, 1, 83), true},
                       row{matrix_desc::packed(16, 50177, 1, 41), true},
                       row{matrix_desc::packed(6, 50177, 1, 111), false}, row{matrix_desc::packed(12, 50177, 2, 27), false}}) {
    const matrix_desc& d = r.d;
    const std::string name = xpose_test::shape_name(d);
    const best_choice o = best_path_for(d, 0, 0, 90, false);
    const bool shift = o.path == best_path::slab_gather_pipe_shift;
    EXPECT_TRUE(shift || o.path == best_path::slab_gather_pipe) << name << " " << best_path_name(o.path);
    const int table = best_class_policy_for(90, d.elem_size).slab_bytes;
    const int slab = best_pipe_slab_bytes(d.elem_size, true, static_cast<int>(o.group), table, shift,
                                          best_in_rows_aligned(d, 0), on, 90);
    EXPECT_EQ(slab, r.takes ? big : table) << name;
    if (!r.takes) continue;
    const best_choice c = best_path_for(d, 0, 0, 90, on);
    EXPECT_EQ(c.path, o.path) << name;
    EXPECT_EQ(c.group, o.group) << name;
    EXPECT_EQ(best_gather_lean_takes(d, 0, 0, 90, on), best_gather_lean_takes(d, 0, 0, 90, false)) << name;
  }
}

// The u8 24-row shift gathers (switch best_gather_shift24_default) under both flags: under the flag
// that has the switch on (sm_90+), u8 24-row gathers whose input rows are off the 16-byte grid (odd
// HW, offset pointers, padded rows) run slab_gather_pipe_shift in the default policy's kernel
// configuration (the larger slabs, 2 load buffers at 3 blocks per SM);
// aligned rows, other sides, f16, sm_80 and the other flag keep their routes.
TEST(BestPipePolicy, GatherShift24) {
  using xpose::matrix_desc;
  const bool on = !best_gather_shift24_default;
  const int table = best_class_policy_for(90, 1).slab_bytes;
  EXPECT_EQ(best_gather_shift_route(best_path::slab_gather_pipe, 24, 1, false, true), best_path::slab_gather_pipe_shift);
  EXPECT_EQ(best_gather_shift_route(best_path::slab_gather_pipe, 24, 1, false, false), best_path::slab_gather_pipe);
  EXPECT_EQ(best_gather_shift_route(best_path::slab_gather_pipe, 24, 2, false, true), best_path::slab_gather_pipe);
  EXPECT_EQ(best_gather_shift_route(best_path::slab_gather_pipe, 32, 1, false, true), best_path::slab_gather_pipe);
  EXPECT_EQ(best_gather_shift_route(best_path::slab_gather_pipe, 24, 1, true, true), best_path::slab_gather_pipe);
  EXPECT_TRUE(best_gather_shift24_on(1, 90, on));
  EXPECT_FALSE(best_gather_shift24_on(1, 90, !on));
  EXPECT_FALSE(best_gather_shift24_on(1, 80, on));
  EXPECT_FALSE(best_gather_shift24_on(2, 90, on));
  // The kernel's blocks: 24 KiB slabs, 2 load buffers, 3 per SM (best.cu takes 2 buffers where 3 fit fewer).
  const int big = best_gather_slab_for(1, true, 24, table, true, false);
  EXPECT_EQ(big, best_gather_slab_bytes);
  EXPECT_LE(best_pipe_min_blocks(1, true, 24, true) * (slab::pipe_smem_max<1>(slab::gather, 24, big, false, true, 2) + 1024),
            228 * 1024);
  struct row {
    matrix_desc d;
    long long off_in;
    bool takes;
  };
  for (bool flag : {false, true})
    for (const row& r : {row{matrix_desc::packed(24, 50177, 1, 27), 0, true}, row{matrix_desc::packed(24, 50176, 1, 27), 1, true},
                         row{matrix_desc::packed(24, 40001, 1, 5), 15, true}, row{padded(24, 30000, 1, 3, 3, 0, 0), 0, true},
                         row{matrix_desc::packed(24, 50176, 1, 27), 0, false},
                         row{matrix_desc::packed(24, 50177, 2, 13), 0, false}, row{matrix_desc::packed(32, 50177, 1, 20), 0, false},
                         row{matrix_desc::packed(16, 50177, 1, 41), 0, false}}) {
      const matrix_desc& d = r.d;
      const auto in = static_cast<unsigned long long>(r.off_in * d.elem_size);
      SCOPED_TRACE(xpose_test::shape_name(d) + " in +" + std::to_string(r.off_in) + " flag " + std::to_string(flag));
      const bool takes = r.takes && flag == on;
      const best_choice c = best_path_for(d, in, 0, 90, flag);
      if (takes) {
        EXPECT_EQ(best_path_name(c.path), std::string("slab_gather_pipe_shift"));
        EXPECT_EQ(c.group, 24);
        // The default policy's kernel configuration: the larger slab.
        EXPECT_FALSE(flag);
        EXPECT_EQ(best_pipe_slab_bytes(1, true, 24, table, true, false, flag, 90), big);
        // While a candidate: the default policy runs the realigning pipelined kernel there.
        if (on) EXPECT_EQ(best_path_for(d, in, 0, 90, false).path, best_path::slab_gather_pipe);
      } else if (d.rows == 24 && d.elem_size == 1) {
        EXPECT_NE(c.path, best_path::slab_gather_pipe_shift);
      }
      // sm_80: never.
      if (d.rows == 24 && d.elem_size == 1) EXPECT_NE(best_path_for(d, in, 0, 80, flag).path, best_path::slab_gather_pipe_shift);
    }
}

// The deep form of the u8 fitted tiles (switches best_fit_deep48_default, best_fit_deep96r_default)
// under both flags: 48 aligned rows and 96 realigning rows (sm_90+) take it under the flag that has
// their switch on, on the default policy's fitted route; the tiles' geometry, shared bytes and
// validity; other rows, f16, and the other flag keep the plain form.
TEST(BestPipePolicy, FitDeep) {
  using xpose::matrix_desc;
  const bool on48 = !best_fit_deep48_default, on96 = !best_fit_deep96r_default;
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
  for (bool flag : {false, true}) {
    EXPECT_EQ(best_fit_deep_on(1, 48, false, 90, flag), flag == on48);
    EXPECT_EQ(best_fit_deep_on(1, 96, true, 90, flag), flag == on96);
    EXPECT_FALSE(best_fit_deep_on(1, 96, true, 80, flag));
    EXPECT_FALSE(best_fit_deep_on(1, 48, true, 90, flag));
    EXPECT_FALSE(best_fit_deep_on(1, 96, false, 90, flag));
    EXPECT_FALSE(best_fit_deep_on(1, 64, false, 90, flag));
    EXPECT_FALSE(best_fit_deep_on(2, 48, false, 90, flag));
    struct row {
      matrix_desc d;
      long long off_in;
      best_path route;  // the default policy's fitted route
      bool deep;        // the deep form under the flag that has its switch on
      bool on;          // that flag
    };
    for (const row& r : {row{matrix_desc::packed(48, 50176, 1, 13), 0, best_path::tile_fit, true, on48},
                         row{matrix_desc::packed(48, 8192, 1, 3), 0, best_path::tile_fit, true, on48},
                         row{padded(40, 8192, 1, 3, 0, 8, 0), 0, best_path::tile_fit, true, on48},  // (48-row tile)
                         row{matrix_desc::packed(96, 50177, 1, 6), 0, best_path::realign_fit, true, on96},
                         row{matrix_desc::packed(96, 50176, 1, 6), 1, best_path::realign_fit, true, on96},
                         row{padded(90, 8201, 1, 2, 0, 6, 0), 0, best_path::realign_fit, true, on96},  // (96-row tile)
                         row{matrix_desc::packed(48, 50177, 1, 13), 0, best_path::realign_fit, false, on48},
                         row{matrix_desc::packed(96, 50176, 1, 6), 0, best_path::tile_fit, false, on96},
                         row{matrix_desc::packed(64, 50176, 1, 10), 0, best_path::tile_fit, false, on48},
                         row{matrix_desc::packed(48, 50176, 2, 6), 0, best_path::tile_fit, false, on48}}) {
      const matrix_desc& d = r.d;
      const auto in = static_cast<unsigned long long>(r.off_in * d.elem_size);
      SCOPED_TRACE(xpose_test::shape_name(d) + " in +" + std::to_string(r.off_in) + " flag " + std::to_string(flag));
      ASSERT_EQ(best_fit_tile_route(d, in, 0, false), r.route);
      const bool deep = r.deep && flag == r.on;
      EXPECT_EQ(best_fit_deep_on(d.elem_size, best_fit_tile_rows(d.elem_size, d.rows), r.route == best_path::realign_fit, 90, flag),
                deep);
      const best_path got = best_path_for(d, in, 0, 90, flag).path;
      if (deep || best_fit_tile_on(flag)) EXPECT_EQ(best_path_name(got), std::string(best_path_name(r.route)));
      EXPECT_EQ(best_fit_tile_or(best_path::copy, d, in, 0, flag), deep || best_fit_tile_on(flag) ? r.route : best_path::copy);
    }
  }
}

// The u8 grouped gathers at the switch's slab: the plain, shift (2 and best_gather_shift_depth
// load buffers) and lean kernels, every layout of slab_layouts, long sides of one to several
// slabs with a ragged last one, one and a few resident blocks.
TEST(BestPipeEmulation, GatherSlab1) {
  constexpr long long k = 16;
  const int bytes = best_gather_slab_bytes;
  int lean_runs = 0;
  for (int s : best_pipe_sides) {
    if (s < best_gather_slab_min_side || s > best_gather_slab_max_side) continue;
    for (auto [nt, grid] : {std::pair<int, long long>{best_slab_threads, 3}, {32, 1 << 30}})
      for (long long L : {301LL, 64 * k + 3, 5021LL}) {
        xpose_test::slab_layouts(1, s, L, [&](int mode, const xpose::matrix_desc& d, long long oi, long long oo) {
          if (mode != slab::gather) return;
          check_pipe<1>(mode, d, oi, oo, bytes, nt, grid, 0, false);
          check_pipe<1>(mode, d, oi, oo, bytes, nt, grid, 0, true);
          if (best_gather_lean_kernel(1, true, s)) {
            for (int depth : {2, best_gather_shift_depth}) check_lean<1>(d, oi, oo, bytes, nt, grid, true, depth);
            ++lean_runs;
          }
        });
        if (::testing::Test::HasFatalFailure()) return;
      }
  }
  EXPECT_GT(lean_runs, 0);
}

// Micro-block scatter spans to aligned rows in whole 64-byte units (switch
// best_scatter_span64_default): rounded down where that leaves a unit, under the flag that has
// the switch on; unchanged under the other flag, for spans of at most one unit, and past 8 bytes.
TEST(BestPipePolicy, ScatterSpan64) {
  const bool on = !best_scatter_span64_default, off = best_scatter_span64_default;  // candidate flags
  for (int E : {1, 2, 4, 8}) {
    const long long unit = 64 / E;
    for (long long span = 16 / E; span <= 40 * unit; span += 16 / E) {
      const long long got = best_scatter_span64(span, E, on);
      EXPECT_EQ(best_scatter_span64(span, E, off), span) << E << " " << span;
      if (span <= unit) {
        EXPECT_EQ(got, span) << E << " " << span;
      } else {
        EXPECT_EQ(got % unit, 0) << E << " " << span;
        EXPECT_LE(got, span);
        EXPECT_GT(got + unit, span);
      }
    }
  }
  // The measured rows' spans: 144 bytes -> 128.
  EXPECT_EQ(best_scatter_span64(72, 2, false), best_scatter_span64_default ? 64 : 72);
  EXPECT_EQ(best_scatter_span64(144, 1, false), best_scatter_span64_default ? 128 : 144);
  EXPECT_EQ(best_scatter_span64(24, 16, false), 24);  // (16-byte elements: no micro-block scatter)
}
