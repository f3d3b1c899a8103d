// Host-side checks of `best` (no GPU needed): the policy table and its one valid()
// for tile shapes, the path classification best_path_for (the function launch_best
// calls), and the slab kernels' phases run on host buffers, block by block, thread
// by thread, against the CPU reference: the slab addressing is bijective and exact for
// every element size, ragged ends, pointers offset by elements, padded leading
// dimensions, gapped batches; loads stay inside the input view (the input buffer is
// allocated to its exact extent, so ASan in the sanitize preset sees any overrun) and
// stores never touch padding (0xFF poison stays).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "cuda/best_slab.cuh"
#include "cuda/policy.hpp"
#include "slab_host_check.hpp"
#include "test_util.hpp"

using namespace xpose::detail;
using xpose_test::in_elems;
using xpose_test::out_elems;
using xpose_test::padded;
using xpose_test::random_bytes;

TEST(BestPolicy, ShapeClasses) {
  // i8 / f16 small and skinny shapes leave the standard tile.
  for (int E : {1, 2}) {
    EXPECT_EQ(best_shape_for(E, 64, 64), best_small_tiles_enabled ? best_shape::narrow : best_shape::standard);
    EXPECT_EQ(best_shape_for(E, 32, 8388608), best_small_tiles_enabled ? best_shape::few_rows : best_shape::standard);
    EXPECT_EQ(best_shape_for(E, 8388608, 32), best_small_tiles_enabled ? best_shape::narrow : best_shape::standard);
    EXPECT_EQ(best_shape_for(E, 16384, 16384), best_shape::standard);
  }
  EXPECT_EQ(best_shape_for(1, 100000, 128), best_small_tiles_enabled ? best_shape::narrow : best_shape::standard);
  EXPECT_EQ(best_shape_for(1, 100000, 129), best_shape::standard);
  EXPECT_EQ(best_shape_for(2, 100000, 65), best_shape::standard);
  for (int E : {4, 8, 16}) EXPECT_EQ(best_shape_for(E, 64, 64), best_shape::standard);
}

TEST(BestPolicy, EveryTileShapeFitsTheKernels) {
  for (int E : {1, 2, 4, 8, 16}) {
    EXPECT_TRUE(best_tile_valid(E, best_tile_for(E), false)) << E;
    EXPECT_TRUE(best_tile_valid(E, best_tile_narrow_for(E), false)) << E;
    if (E < 16) EXPECT_TRUE(best_tile_valid(E, best_tile_realign_for(E), true)) << E;
    for (best_shape s : {best_shape::few_rows, best_shape::narrow})
      if (E <= 2) EXPECT_TRUE(best_tile_valid(E, best_tile_shaped(E, s), false)) << E;
  }
  EXPECT_TRUE(best_tile_valid(1, best_tile_half_for(1), false));
  // The half-tile switch sends 1-byte standard tiles to the half tile under one flag
  // (best_next while it is off, best once it is on) and keeps the other on the tile.
  const auto sq = xpose::matrix_desc::packed(5760, 5760, 1);
  EXPECT_EQ(best_path_for(xpose::matrix_desc::packed(8192, 8192, 1), 0, 0, 90, !best_half_default).path,
            best_path::tile);  // 1024 standard tiles: the full tile
  // (Under the async switch's candidate flag the 1-byte tiles go to tile_async: test_best_async.cpp.)
  // (And under best_async_pipe_default's candidate flag to the pipelined tile: test_best_async.cpp.)
  if (!best_route_on(best_async_pipe_default, best_half_default))
    EXPECT_EQ(best_path_for(sq, 0, 0, 90, best_half_default).path,
              best_route_on(best_async_default, best_half_default) ? best_path::tile_async : best_path::tile);
  if (!best_route_on(best_async_pipe_default, !best_half_default))
    EXPECT_EQ(best_path_for(sq, 0, 0, 90, !best_half_default).path,
              best_route_on(best_async_default, !best_half_default) ? best_path::tile_async : best_path::tile_half);
  for (bool cand : {false, true})  // 1035 tiles of 256 x 256 bytes: above the async range
    EXPECT_EQ(best_path_for(xpose::matrix_desc::packed(5760, 5760, 2), 0, 0, 90, cand).path, best_path::tile);
  // 32-64 aligned f32 rows: the tile under the flag where best_f32_rows_tile_default's
  // route is on, the gather slab under the other; unaligned rows keep the slab.
  const auto f32rows = xpose::matrix_desc::packed(32, 100000, 4);
  // (The row-fitted tile where best_fit_wide_default has that flag take 32 rows.)
  EXPECT_EQ(best_path_base(best_path_for(f32rows, 0, 0, 90, best_f32_rows_tile_default).path),
            best_fit_tile_or(best_path::slab_gather, f32rows, 0, 0, best_f32_rows_tile_default));
  // (Unless best_pipe_wide_default has that flag take the pipelined micro-block gather.)
  EXPECT_EQ(best_path_for(f32rows, 0, 0, 90, !best_f32_rows_tile_default).path,
            best_fit_tile_or(best_pipe_wide_fits(f32rows, true, 0, 0, !best_f32_rows_tile_default)
                                 ? best_path::slab_gather_micro_pipe
                                 : best_path::tile,
                             f32rows, 0, 0, !best_f32_rows_tile_default));
  EXPECT_EQ(best_path_base(best_path_for(f32rows, 4, 0, 90, !best_f32_rows_tile_default).path), best_path::slab_gather);
  // valid() can fail: chunks < 8, threads not a multiple of chunks, realign groups across warps.
  EXPECT_FALSE(best_tile_valid(4, best_tile{64, 4, 256, 16, 1}, false));
  EXPECT_FALSE(best_tile_valid(4, best_tile{64, 16, 250, 16, 1}, false));
  EXPECT_FALSE(best_tile_valid(1, best_tile{256, 64, 256, 8, 1}, true));
  EXPECT_FALSE(best_tile_valid(3, best_tile_for(4), false));
}

TEST(BestPolicy, TableKeepsSlabsSmall) {
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

TEST(BestPolicy, SmallTransposesTakeSmallerSlabs) {
  const best_class_policy p = best_class_policy_for(90, 1);
  EXPECT_EQ(best_slab_bytes_for(p, 1LL << 30), p.slab_bytes);
  EXPECT_EQ(best_slab_bytes_for(p, 65536), best_slab_min_bytes);
  EXPECT_EQ(best_slab_bytes_for(p, 16), best_slab_min_bytes);
  const int mid = best_slab_bytes_for(p, 256LL * 8192);
  EXPECT_EQ(mid, 8192);
}

namespace {
// The default policy's route, micro-block refinements folded into their base route
// (best_micro_default may send the default policy there).
best_path path_of(const xpose::matrix_desc& d, unsigned long long in = 0, unsigned long long out = 0) {
  return best_path_base(best_path_for(d, in, out).path);
}
}  // namespace

TEST(BestPolicy, PathsOfTheShapeClasses) {
  using xpose::matrix_desc;
  for (int E : {1, 2, 4, 8, 16}) {
    SCOPED_TRACE(E);
    // NCHW <-> NHWC, batch 256 of C x 224*224 (and an odd HW), any pointer offset.
    for (long long hw : {50176LL, 50177LL})
      for (long long c : {1LL, 2LL, 3LL, 4LL, 16LL}) {
        if (c == 1) continue;  // 1 x HW is a vector: copy
        EXPECT_EQ(path_of(matrix_desc::packed(c, hw, E, 256)), best_path::slab_gather) << c << "x" << hw;
        EXPECT_EQ(path_of(matrix_desc::packed(hw, c, E, 256)), best_path::slab_scatter) << hw << "x" << c;
        EXPECT_EQ(path_of(matrix_desc::packed(c, hw, E, 256), E, 3 * E), best_path::slab_gather);
        EXPECT_EQ(path_of(matrix_desc::packed(hw, c, E, 256), E, 0), best_path::slab_scatter);
      }
    EXPECT_EQ(path_of(matrix_desc::packed(1, 1000, E, 4)), best_path::copy);
    EXPECT_EQ(path_of(matrix_desc::packed(1000, 1, E)), best_path::copy);
    // Small matrices in packed batches: several per block.
    EXPECT_EQ(path_of(matrix_desc::packed(8, 8, E, 100000)), best_path::slab_whole);
    EXPECT_EQ(path_of(matrix_desc::packed(16, 16, E, 70000)), best_path::slab_whole);
    EXPECT_EQ(path_of(matrix_desc::packed(16, 16, E, 70000), 1 * E, 0), best_path::slab_whole);
    // Large squares: the tile (4096 standard tiles: above best_half_max_tiles).
    EXPECT_EQ(path_of(matrix_desc::packed(16384, 16384, E)), best_path::tile);
    // A padded output breaks the contiguous slab: a tile path.
    const best_path padded_out = path_of(padded(3, 5000, E, 1, 0, 16 / E, 0));
    EXPECT_TRUE(padded_out == best_path::realign || padded_out == best_path::realign_skew ||
                padded_out == best_path::realign_skew_async || padded_out == best_path::realign_skew_sector ||
                padded_out == best_path::realign_skew_fit || padded_out == best_path::realign_skew_async_fit ||
                padded_out == best_path::tile_access ||
                padded_out == best_path::tile_few_rows || padded_out == best_path::tile)
        << best_path_name(padded_out);
  }
  // 64x64 batches: whole matrices for 1-byte elements; the measured tile for wider ones.
  EXPECT_EQ(path_of(matrix_desc::packed(64, 64, 1, 10000)),
            best_route_on(best_async_default, false) ? best_path::tile_async_batch : best_path::slab_whole);
  EXPECT_EQ(path_of(matrix_desc::packed(64, 64, 2, 4096)),
            best_route_on(best_async_pipe_default, false) ? best_path::tile_async_pipe_batch : best_path::tile_narrow);
  // (From best_async_f16_big_min_bytes up: the unpipelined batch tile, best_async_f16_big_default.)
  EXPECT_EQ(path_of(matrix_desc::packed(64, 64, 2, 10000)),
            best_route_on(best_async_f16_big_default, false) ? best_path::tile_async_batch
            : best_route_on(best_async_pipe_default, false)  ? best_path::tile_async_pipe_batch
                                                             : best_path::tile_narrow);
  for (bool flag : {false, true}) {  // (the threshold, under both flags: best_next's async tile at every size)
    const long long n = best_async_f16_big_min_bytes / 8192;
    EXPECT_EQ(best_path_for(matrix_desc::packed(64, 64, 2, n), 0, 0, 90, flag).path, best_path::tile_async_batch);
    EXPECT_EQ(best_path_for(matrix_desc::packed(64, 64, 2, n - 1), 0, 0, 90, flag).path,
              flag ? best_path::tile_async_batch : best_path::tile_async_pipe_batch);
    EXPECT_EQ(best_path_for(matrix_desc::packed(64, 64, 4, n), 0, 0, 90, flag).path,
              best_path_for(matrix_desc::packed(64, 64, 4, n - 1), 0, 0, 90, flag).path);  // (f16 only)
  }
  EXPECT_EQ(path_of(matrix_desc::packed(32, 32, 2, 10000)), best_path::slab_whole);
  // 32 x N c128: the tile (slabs for 16-byte elements up to 16 rows).
  EXPECT_EQ(path_of(matrix_desc::packed(32, 100000, 16)), best_path::tile);
  EXPECT_EQ(path_of(matrix_desc::packed(16, 100000, 16)), best_path::slab_gather);
  EXPECT_EQ(path_of(matrix_desc::packed(64, 64, 4, 10000)), best_path::tile);
  EXPECT_EQ(path_of(matrix_desc::packed(32, 32, 4, 10000)), best_path::slab_whole);
  // 8-byte 32x32 batches: the tile (second round), its 32-row form while best_few_rows_wide_default
  // is on, or first the pipelined whole-matrix kernel where best_pipe_whole_wide_default has the
  // default policy take it (but the few-rows tile where best_pipe_whole_wide_cap_default caps it);
  // 16x16 stay whole.
  EXPECT_EQ(path_of(matrix_desc::packed(32, 32, 8, 4096)),
            best_pipe_whole_wide_cap_default ? best_path::tile_few_rows
            : best_pipe_whole_wide_default   ? best_path::slab_whole
            : best_few_rows_wide_default ? best_path::tile_few_rows
                                         : best_path::tile);
  EXPECT_EQ(path_of(matrix_desc::packed(16, 16, 8, 4096)), best_path::slab_whole);
  // Rows not a multiple of 16 bytes: the realigning tile (16-byte elements are always aligned).
  // (the skewed tile while its switch is on: best_skew_wins picks it for both)
  const best_path odd = best_skew_default ? best_path::realign_skew : best_path::realign;
  // (1-2 byte elements: the sector-aligned skewed tile while best_skew_sector_default is on)
  EXPECT_EQ(path_of(matrix_desc::packed(16383, 16385, 1)),
            best_skew_sector_default ? best_path::realign_skew_sector : odd);
  EXPECT_EQ(best_path_for(matrix_desc::packed(16383, 16385, 1), 0, 0).access, 1);
  EXPECT_EQ(path_of(matrix_desc::packed(16383, 2049, 8)),
            best_skew_fit_or(odd, matrix_desc::packed(16383, 2049, 8), 0, false));  // (8 bytes: the half-width tile)
  EXPECT_EQ(path_of(matrix_desc::packed(16383, 1025, 16)), best_path::tile);
  // 32 x N, 1-byte: the measured 32-row tile when aligned, a gather slab when not.
  EXPECT_EQ(path_of(matrix_desc::packed(32, 1000000, 1)), best_path::tile_few_rows);
  EXPECT_EQ(path_of(matrix_desc::packed(32, 1000000, 1), 1, 0), best_path::slab_gather);
  // 4-byte: the tile while best_f32_rows_tile_default is on (aligned 32-64 rows), else the slab
  // (32 rows: the pipelined micro-block gather where best_pipe_wide_default has it on).
  // (The row-fitted tile where best_fit_wide_default is on.)
  EXPECT_EQ(best_path_base(path_of(matrix_desc::packed(32, 1000000, 4))),
            best_fit_tile_or(best_f32_rows_tile_default && !best_pipe_wide_default ? best_path::tile : best_path::slab_gather,
                             matrix_desc::packed(32, 1000000, 4), 0, 0, false));
  EXPECT_EQ(path_of(matrix_desc::packed(48, 1000000, 4)), best_f32_rows_tile_default ? best_path::tile : best_path::slab_gather);
  EXPECT_EQ(best_path_base(path_of(matrix_desc::packed(32, 1000000, 4), 1, 0)), best_path::slab_gather);
  EXPECT_EQ(path_of(matrix_desc::packed(1000000, 32, 1)), best_path::slab_scatter);
  // The grouped slab kernels: 1-4 byte elements, short sides of best_slab_group_sides.
  for (int E : {1, 2, 4}) {
    for (long long c : {2LL, 3LL, 4LL, 5LL, 6LL, 8LL, 12LL, 16LL, 24LL, 32LL}) {
      // (The grouped kernel where the default policy does not take a micro-block route.)
      const best_choice g = best_path_for(matrix_desc::packed(c, 50177, E, 8), E, 0);
      EXPECT_EQ(best_path_base(g.path), best_path::slab_gather);
      if (g.path == best_path::slab_gather)
        EXPECT_EQ(g.group, best_class_policy_for(90, E).slab_group_max >= c ? c : 0) << E << " " << c;
      const best_choice h = best_path_for(matrix_desc::packed(50176, c, E, 8), 0, 0);
      EXPECT_EQ(best_path_base(h.path), best_path::slab_scatter);
      if (h.path == best_path::slab_scatter)
        EXPECT_EQ(h.group, best_class_policy_for(90, E).slab_group_max >= c ? c : 0) << E << " " << c;
    }
    EXPECT_EQ(best_path_for(matrix_desc::packed(7, 100000, E), 0, 0).group, best_pipe_group_for(E, 7, false, true));
    EXPECT_EQ(best_path_for(matrix_desc::packed(100000, 20, E), 0, 0).group, 0);
    EXPECT_EQ(best_path_for(matrix_desc::packed(16, 16, E, 1000), 0, 0).group, 0);  // slab_whole
  }
  for (int E : {8, 16}) EXPECT_EQ(best_path_for(matrix_desc::packed(3, 100000, E), 0, 0).group, 0);
  // Wide short side: no slab (a tile; 16-64 MiB of 4-byte elements: the pipelined async
  // tile where best_async_pipe_f32_default is on).
  EXPECT_EQ(path_of(matrix_desc::packed(100000, 100, 4)),
            best_async_pipe_f32_default ? best_path::tile_async_pipe : best_path::tile);
  EXPECT_EQ(path_of(matrix_desc::packed(100000, 100, 8)), best_path::tile);
  for (best_path p : {best_path::copy, best_path::slab_gather, best_path::slab_scatter, best_path::slab_whole,
                      best_path::tile, best_path::tile_few_rows, best_path::tile_narrow, best_path::realign,
                      best_path::tile_access, best_path::slab_gather_micro, best_path::slab_scatter_micro,
                      best_path::slab_whole_micro})
    EXPECT_STRNE(best_path_name(p), "?");
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
      // The kernel's preconditions (best_path_for checks them): whole chunks per position
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
// padded and gapped (the packed side aligned, as best_path_for requires).
template <int E>
void micro_cases() {
  constexpr long long k = 16 / E;
  const int prod = best_class_policy_for(90, E).slab_bytes;
  for (int mw : {4, 8, 16}) {
    if (mw < E) continue;
    for (long long nb : {1LL, 2LL, 3LL, 4LL, 6LL, 8LL}) {
      const long long s = nb * k;
      const int si = static_cast<int>(s);
      for (int bytes : {prod, best_slab_micro_ragged_bytes, 64 * E * si, 16 * E * si}) {
        for (int nt : {best_slab_threads, 7, 1}) {
          if (nt == 1 && bytes >= prod) continue;  // slow on the host, nothing new
          if (bytes == best_slab_micro_ragged_bytes && (nt != best_slab_threads || mw != 8)) continue;
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
            // The kernel's shapes (best_path_for): whole row pieces, 16- or 8-byte output pieces.
            const bool rows_ok = (r * E) % 16 == 0 || ((r * E) % 8 == 0 && mw <= 8);
            if (mw < E || !rows_ok || (c * E) % mw != 0 || (r * c * E) % 16 != 0 || r * c * E > 16384) continue;
            check_slab<E>(slab::whole, xpose::matrix_desc::packed(r, c, E, n), 0, 0, bytes, nt, 0, mw);
            check_slab<E>(slab::whole, xpose::matrix_desc::packed(r, c, E, n), k, 2 * k, bytes, nt, 0, mw);
            if (::testing::Test::HasFatalFailure()) return;
          }
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

// The micro-block routes under the policy best_micro_default selects (candidate or
// default), the previous kernels under the other: holds with the switch either way.
// Tiny 1-2 byte matrices take the narrow tile under the policy best_tiny_narrow_default
// selects; larger, unaligned, batched or 4-byte ones never do through that rule.
TEST(BestPolicy, TinyMatricesOnTheNarrowTile) {
  using xpose::matrix_desc;
  const bool on = !best_tiny_narrow_default;  // the candidate flag under which the rule is on
  for (const auto& d : {matrix_desc::packed(128, 512, 1), matrix_desc::packed(128, 256, 2),
                        matrix_desc::packed(64, 128, 1), matrix_desc::packed(200, 160, 2)}) {
    EXPECT_EQ(best_path_for(d, 0, 0, 90, on).path, best_path::tile_narrow) << d.rows << "x" << d.cols;
    EXPECT_EQ(best_path_for(d, 2, 0, 90, on).path == best_path::tile_narrow, false) << "unaligned input";
  }
  EXPECT_NE(best_path_for(matrix_desc::packed(256, 512, 1), 0, 0, 90, on).path, best_path::tile_narrow);  // 128 KiB
  EXPECT_NE(best_path_for(matrix_desc::packed(32, 1024, 1), 0, 0, 90, on).path, best_path::tile_narrow);  // < 64 rows
}

// Tiny 4-8 byte matrices take the narrow tile exactly under the flags that have
// best_tiny_wide_default or best_tiny_small_default on; the 1-2 byte rule and larger or
// batched ones are unaffected.
TEST(BestPolicy, TinyWideMatricesOnTheNarrowTile) {
  using xpose::matrix_desc;
  const bool on = !best_tiny_wide_default, off = best_tiny_wide_default;
  for (int E : {4, 8})
    for (auto [r, c] : {std::pair<long long, long long>{64, 64 * 4 / E}, {128, 128 * 4 / E}, {100, 160 / E}}) {
      const matrix_desc d = matrix_desc::packed(r, c, E);
      SCOPED_TRACE(std::to_string(E) + " " + std::to_string(r) + "x" + std::to_string(c));
      EXPECT_EQ(best_path_for(d, 0, 0, 90, on).path, best_path::tile_narrow);
      EXPECT_EQ(best_path_for(d, 0, 0, 90, off).path == best_path::tile_narrow, best_route_on(best_tiny_small_default, off));
      EXPECT_NE(best_path_for(d, E, 0, 90, on).path, best_path::tile_narrow);  // unaligned input
      EXPECT_NE(best_path_for(matrix_desc::packed(r, c, E, 2), 0, 0, 90, on).path, best_path::tile_narrow);
    }
  EXPECT_NE(best_path_for(matrix_desc::packed(256, 128, 4), 0, 0, 90, !best_tiny_wide_default).path,
            best_path::tile_narrow);  // 128 KiB
  EXPECT_FALSE(best_tiny_narrow_on(16, true) || best_tiny_narrow_on(16, false));
  EXPECT_EQ(best_tiny_narrow_on(1, true), best_route_on(best_tiny_narrow_default, true));
}

// tile_narrow runs the small tile only for tiny unbatched 4-8 byte calls under the flag that
// has best_tiny_small_default on; larger narrow shapes, batches and 1-2 byte calls keep the
// 16 KiB tile.
TEST(BestPolicy, TinySmallTileTakesOnlyTinyCalls) {
  using xpose::matrix_desc;
  for (bool cand : {false, true}) {
    const bool on = best_route_on(best_tiny_small_default, cand);
    for (int E : {4, 8}) {
      EXPECT_EQ(best_tiny_small_takes(matrix_desc::packed(64, 256 / E, E), cand), on) << E;
      EXPECT_EQ(best_tiny_small_takes(matrix_desc::packed(128, 512 / E, E), cand), on) << E;  // 64 KiB
      EXPECT_FALSE(best_tiny_small_takes(matrix_desc::packed(128, 512 / E + 1, E), cand)) << E;
      EXPECT_FALSE(best_tiny_small_takes(matrix_desc::packed(64, 32 * 1024 / E, E), cand)) << E;  // narrow, 2 MiB
      EXPECT_FALSE(best_tiny_small_takes(matrix_desc::packed(64, 64, E, 2), cand)) << E;       // batched
    }
    for (int E : {1, 2, 16}) EXPECT_FALSE(best_tiny_small_takes(matrix_desc::packed(64, 128, E), cand)) << E;
  }
}

// Batches of 4-8 byte matrices of at most 32 rows that reach the tile take the few-rows
// tile exactly under the flag that has best_few_rows_wide_default on.
TEST(BestPolicy, FewRowsWideBatches) {
  using xpose::matrix_desc;
  const bool on = !best_few_rows_wide_default, off = best_few_rows_wide_default;
  for (int E : {4, 8})
    for (auto [r, c] : {std::pair<long long, long long>{32, 32}, {24, 40}, {32, 64 / (E / 4)}}) {
      const matrix_desc d = matrix_desc::packed(r, c, E, 4096);
      SCOPED_TRACE(std::to_string(E) + " " + std::to_string(r) + "x" + std::to_string(c));
      const best_path want_off = best_path_for(d, 0, 0, 90, off).path;
      if (want_off != best_path::tile) continue;  // (whole-matrix slabs take the smaller ones)
      // (the pipelined whole-matrix kernel first where best_pipe_whole_wide_default has `on` take it)
      EXPECT_EQ(best_path_for(d, 0, 0, 90, on).path,
                best_pipe_whole_wide_fits(d, 0, 0, on) ? best_path::slab_whole_micro_pipe : best_path::tile_few_rows);
      EXPECT_NE(best_path_for(matrix_desc::packed(r, c, E, 1), 0, 0, 90, on).path, best_path::tile_few_rows);
    }
  // 8-byte 32 x 32 batches reach the tile (larger than whole_max_bytes): the rule applies,
  // unless the pipelined whole-matrix kernel (best_pipe_whole_wide_default) takes them first.
  const matrix_desc b32 = matrix_desc::packed(32, 32, 8, 4096);
  EXPECT_EQ(best_path_for(b32, 0, 0, 90, on).path,
            best_pipe_whole_wide_fits(b32, 0, 0, on) ? best_path::slab_whole_micro_pipe : best_path::tile_few_rows);
  // (Matrices above 4 KiB on the few-rows tile where best_pipe_whole_wide_cap_default has `off` take them.)
  EXPECT_EQ(best_path_for(b32, 0, 0, 90, off).path,
            best_pipe_whole_wide_cap(b32, 0, 0, off)    ? best_path::tile_few_rows
            : best_pipe_whole_wide_fits(b32, 0, 0, off) ? best_path::slab_whole_micro_pipe
                                                        : best_path::tile);
  // Gapped batches (not the whole-matrix kernel's): the few-rows tile.
  const matrix_desc g32 = padded(32, 32, 8, 4096, 0, 0, 2);
  EXPECT_EQ(best_path_for(g32, 0, 0, 90, on).path, best_path::tile_few_rows);
  EXPECT_EQ(best_path_for(g32, 0, 0, 90, off).path, best_path::tile);
  EXPECT_NE(best_path_for(matrix_desc::packed(64, 64, 8, 1024), 0, 0, 90, on).path, best_path::tile_few_rows);
}

TEST(BestPolicy, MicroSlabsOnlyInTheCandidate) {
  using xpose::matrix_desc;
  constexpr bool on = best_micro_candidate, off = !best_micro_candidate;
  EXPECT_TRUE(best_micro_on(on));
  EXPECT_FALSE(best_micro_on(off));
  for (int E : {1, 2, 4}) {
    SCOPED_TRACE(E);
    const int min = best_slab_micro_min(90, E, on, best_path::slab_gather_micro);
    const int smin = best_slab_micro_min(90, E, on, best_path::slab_scatter_micro);
    ASSERT_GT(min, 0);
    for (best_path m : {best_path::slab_gather_micro, best_path::slab_scatter_micro})
      EXPECT_EQ(best_slab_micro_min(90, E, off, m), 0);
    for (long long c : {48LL, 64LL, 96LL, 128LL}) {
      if (c * E > best_class_policy_for(90, E).slab_max_short_bytes || c > best_class_policy_for(90, E).slab_max_short)
        continue;
      const matrix_desc g = matrix_desc::packed(c, 50177, E, 5), h = matrix_desc::packed(50177, c, E, 5);
      // (best_micro_route: pipelined where best_pipe_default has the default policy take them.)
      // (The shift kernel where best_gather_shift_default has `on` take it: unaligned rows.)
      // (4-8 byte sides above 16: the pipelined micro-block kernels where best_pipe_wide_default has `on` take them.)
      const best_path gm = best_micro_route(best_path::slab_gather_micro, E, on, c, false);
      // (The row-fitted tile where best_fit_tile_default has the flag take it.)
      EXPECT_EQ(best_path_for(g, E, 0, 90, on).path,
                best_fit_tile_or(best_pipe_wide_fits(g, true, E, 0, on) ? best_path::slab_gather_micro_pipe
                                 : best_gather_shift_on(E, on)          ? best_gather_shift_route(gm, 0, E, false)
                                                                        : gm,
                                 g, E, 0, on))
          << c;
      EXPECT_EQ(best_path_for(h, 0, E, 90, on).path, best_pipe_wide_fits(h, false, 0, E, on) ? best_path::slab_scatter_micro_halo
                                                     : smin > 0 && c >= smin
                                                         ? best_halo_route(best_micro_route(best_path::slab_scatter_micro,
                                                                                            E, on, c, false),
                                                                           E, on, false)
                                                         : best_path::slab_scatter)
          << c;
      // The default policy, and a packed side off 16 bytes: the other slab kernels
      // (unless a pipelined route is on under `off`: it keeps the default's micro routes).
      // (4-8 byte sides above 16 on the pipelined micro-block kernels where best_pipe_wide_default
      // has the flag take them.)
      if (!best_route_on(best_pipe_default, off) && !best_route_on(best_pipe_micro_scatter_default, off)) {
        // (The shift kernel of `on`'s route where best_gather_shift_default has `off` take it.)
        // (The row-fitted tile where best_fit_tile_default has `off` take it.)
        const best_choice go = best_path_for(g, E, 0, 90, on);
        const best_path fit_off = best_fit_tile_or(best_path::copy, g, E, 0, off);
        EXPECT_EQ(best_path_for(g, E, 0, 90, off).path,
                  fit_off != best_path::copy                ? fit_off
                  : best_pipe_wide_fits(g, true, E, 0, off) ? best_path::slab_gather_micro_pipe
                  : best_gather_shift_on(E, off)          ? best_gather_shift_route(go.path, go.group, E, false)
                                                          : best_path::slab_gather)
            << c;
        // (1-2 byte scatters: the direct scatter where its switch has `off` take it; the default's
        // halo routes at the slab table's sizes where best_scatter_slab_default has `off` take them.)
        const best_choice hc = best_path_for(h, 0, E, 90, off);
        const best_path ho = hc.path;
        const bool fresh = best_scatter_direct_on(E, off) || hc.slab > 0;
        EXPECT_EQ(fresh ? best_path_base(ho) : ho,
                  best_pipe_wide_fits(h, false, 0, E, off) ? best_path::slab_scatter_micro_halo : best_path::slab_scatter)
            << c;
      }
      EXPECT_EQ(best_path_for(g, 0, E, 90, on).path, best_path::slab_gather) << c;
      EXPECT_EQ(best_path_for(h, E, 0, 90, on).path, best_path::slab_scatter) << c;
      // A gap that breaks the packed side's alignment between matrices.
      EXPECT_EQ(best_path_for(padded(c, 50177, E, 3, 0, 0, 1), 0, 0, 90, on).path, best_path::slab_gather);
      EXPECT_EQ(best_path_for(padded(50177, c, E, 3, 0, 0, 1), 0, 0, 90, on).path, best_path::slab_scatter);
    }
    // Not a whole number of chunks per position: the other kernels.
    EXPECT_NE(best_path_for(matrix_desc::packed(min + 1, 50177, E, 2), 0, 0, 90, on).path,
              best_path::slab_gather_micro);
  }
  // Whole matrices of whole chunks, aligned: micro-blocks under `on` for 1-2 byte
  // elements (best_whole_micro_max_elem); 4-byte matrices keep slab_whole under both.
  // (On the pipelined kernel where best_pipe_whole_default has the flag take it.)
  auto whole_micro = [&](int E, bool flag) {
    return best_route_on(best_pipe_whole_default, flag) && E <= best_pipe_max_elem ? best_path::slab_whole_micro_pipe
                                                                                   : best_path::slab_whole_micro;
  };
  for (int E : {1, 2, 4}) {
    const long long k = 16 / E;
    EXPECT_EQ(best_path_for(matrix_desc::packed(2 * k, 2 * k, E, 1000), 0, 0, 90, on).path,
              E <= best_whole_micro_max_elem ? whole_micro(E, on)
              : best_pipe_whole_wide_fits(matrix_desc::packed(2 * k, 2 * k, E, 1000), 0, 0, on)
                  ? best_path::slab_whole_micro_pipe
                  : best_path::slab_whole);
    // (4-8 byte batches: the pipelined kernel where best_pipe_whole_wide_default has the flag take it.)
    const bool whole_pipe_off = (best_route_on(best_pipe_whole_default, off) && E <= best_pipe_max_elem) ||
                                best_pipe_whole_wide_fits(matrix_desc::packed(2 * k, 2 * k, E, 1000), 0, 0, off);
    EXPECT_EQ(best_path_for(matrix_desc::packed(2 * k, 2 * k, E, 1000), 0, 0, 90, off).path,
              whole_pipe_off ? best_path::slab_whole_micro_pipe : best_path::slab_whole);
    EXPECT_EQ(best_path_for(matrix_desc::packed(2 * k, 2 * k, E, 1000), E, 0, 90, on).path, best_path::slab_whole);
    EXPECT_EQ(best_path_for(matrix_desc::packed(k + 1, 2 * k, E, 1000), 0, 0, 90, on).path, best_path::slab_whole);
  }
  EXPECT_EQ(best_path_for(matrix_desc::packed(8, 8, 1, 1000), 0, 0, 90, on).path, whole_micro(1, on));
  EXPECT_EQ(best_path_for(matrix_desc::packed(12, 12, 1, 1000), 0, 0, 90, on).path, best_path::slab_whole);
  EXPECT_EQ(best_path_for(matrix_desc::packed(8, 10, 1, 1000), 0, 0, 90, on).path, best_path::slab_whole);
  EXPECT_EQ(best_path_for(matrix_desc::packed(8, 8, 2, 1000), 0, 0, 90, on).path, whole_micro(2, on));
  // Scatters to unaligned segments take longer slabs: still under 48 KiB at the widest short side.
  for (int E : {1, 2, 4}) {
    const best_class_policy p = best_class_policy_for(90, E, on);
    const long long s = std::min<long long>(p.slab_max_short, p.slab_max_short_bytes / E);
    static unsigned char dummy[16];
    const matrix_desc d = matrix_desc::packed(1 << 20, s, E);
    constexpr int rb = best_slab_micro_ragged_bytes;
    const slab::args a = E == 1   ? slab::make_args<1>(slab::scatter, dummy, dummy, d, dummy, rb)
                         : E == 2 ? slab::make_args<2>(slab::scatter, dummy, dummy, d, dummy, rb)
                                  : slab::make_args<4>(slab::scatter, dummy, dummy, d, dummy, rb);
    EXPECT_LE(a.smem, 40 * 1024) << E;
  }
  for (best_path m : {best_path::slab_gather_micro, best_path::slab_scatter_micro}) {
    EXPECT_EQ(best_slab_micro_min(90, 8, on, m), 0);
    EXPECT_EQ(best_slab_micro_min(90, 16, on, m), 0);
  }
  // Below the thresholds: the grouped kernel (u8 gather of 32 rows, unaligned; pipelined
  // where best_pipe_default has it on).
  EXPECT_EQ(best_path_base(best_path_for(matrix_desc::packed(32, 50177, 1, 2), 1, 0, 90, on).path),
            best_path::slab_gather);
  EXPECT_EQ(best_path_for(matrix_desc::packed(32, 50177, 1, 2), 1, 0, 90, on).group, 32);
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
