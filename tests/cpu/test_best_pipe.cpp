// Host-side checks of the pipelined slab kernels (src/cuda/best_pipe.cuh, routes
// slab_gather_pipe / slab_scatter_pipe): the phases run on host buffers, block by block
// of a resident grid, thread by thread, in the kernel's order with slab i+1's loads
// issued before slab i's middle phase (a buffer reused too early shows as a mismatch),
// against the CPU reference; every pipelined short side, 1- and 2-byte elements,
// ragged ends, pointers offset by elements, padded and gapped layouts, inputs allocated
// to their exact extent (ASan in the sanitize preset sees any overrun), 0xFF poison in
// the output's padding.
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
      // The micro-block kernels' preconditions (the route table's): whole chunks per position,
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
// both pointers aligned and the batch packed (the route's preconditions); the input is allocated
// to its exact extent (ASan: no read past it).
template <int E>
void whole_pipe_cases() {
  constexpr best_micro mc = best_slab_micro_for(E, false);
  const int prod = best_class_policy_for(90, E).slab_bytes;
  int ran = 0;
  for (auto [r, c] : {std::pair<long long, long long>{8, 8}, {16, 16}, {32, 32}, {8, 16}, {16, 8}, {24, 16}, {16, 32}}) {
    for (long long batch : {2LL, 7LL, 301LL}) {
      {
        const xpose::matrix_desc d = xpose::matrix_desc::packed(r, c, E, batch);
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

// Balanced slabs: never longer than the table's, a multiple of k, and no more rounds of
// slabs per resident block than the table's span gives; the last round fuller.
TEST(BestPipe, BalancedSpan) {
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

// ---- the lean form of the grouped gathers (pipe_kernel A) ----

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
  // (The cases exercise the lags, not only the plain slabs; a sampled run checks a slice.)
  if (xpose_test::sample_every() == 1) EXPECT_GT(lagged, runs / 4);
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

// The halo scatters at the scatter slab table's sizes (best_scatter_slab_table): every entry, slabs of the entry's bytes with a ragged last slab
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

// ---- larger slabs for the u8 grouped gathers (best_gather_slab_for) ----

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

// The halo scatters' slab table: entries only for 1-2 byte elements, every block inside an SM.
TEST(BestPipe, ScatterSlabTableFits) {
  for (int E : {4, 8, 16})
    for (int s : {0, 2, 3, 4, 8, 24, 32}) EXPECT_EQ(best_scatter_slab_table(E, s, true) + best_scatter_slab_table(E, s, false), 0);
  for (int s : {2, 3}) {
    for (int E : {1, 2}) {
      const int b = best_scatter_slab_table(E, s, false);
      if (b == 0) continue;
      EXPECT_TRUE(b >= 12288 && b <= 32768 && b % 4096 == 0) << b;
      const xpose::matrix_desc d = xpose::matrix_desc::packed(50177, s, E, 8);
      static const unsigned char probe[16] = {};
      const int smem = E == 1 ? slab::make_args<1>(slab::scatter, probe, nullptr, d, probe, b, true).smem
                              : slab::make_args<2>(slab::scatter, probe, nullptr, d, probe, b, true).smem;
      EXPECT_LE(smem, 48 * 1024);
    }
  }
  int entries = 0;
  for (int E : {1, 2}) {
    for (int s : best_pipe_sides) {
      const int b = best_scatter_slab_table(E, s, true);
      if (b == 0) continue;
      ++entries;
      EXPECT_TRUE(b >= 12288 && b <= 32768 && b % 4096 == 0) << b;
      const int smem = E == 1 ? slab::pipe_smem_max<1>(slab::scatter, s, b, false, true)
                              : slab::pipe_smem_max<2>(slab::scatter, s, b, false, true);
      EXPECT_LE(smem, 227 * 1024) << E << " " << s;
    }
    for (long long c = 16 / E; c * E <= 256; c += 16 / E) {
      const int b = best_scatter_slab_table(E, c, true, true);
      if (b == 0) continue;
      ++entries;
      EXPECT_TRUE(b >= 12288 && b <= 32768 && b % 4096 == 0) << b;
      const long long s = std::min<long long>(best_class_policy_for(90, E).slab_max_short, 256 / E);
      const int smem = E == 1 ? slab::pipe_smem_max<1>(slab::scatter, s, b, true, true)
                              : slab::pipe_smem_max<2>(slab::scatter, s, b, true, true);
      EXPECT_LE(smem, 227 * 1024) << E;
    }
  }
  EXPECT_GT(entries, 0);
}
