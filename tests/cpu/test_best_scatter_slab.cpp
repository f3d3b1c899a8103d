// Policy of the scatter slab table (switch best_scatter_slab_default, policy.hpp): which
// 1-2 byte scatters take best_scatter_slab_table's slab sizes under which flag, the routes
// they keep (or, sides 2-3, take), and the blocks those sizes give (the launch's limits).
// The kernels at those sizes: BestPipeEmulation.ScatterSlabTable* (test_best_pipe.cpp).
#include <gtest/gtest.h>

#include <algorithm>

#include "cuda/best_pipe.cuh"
#include "cuda/policy.hpp"

using namespace xpose::detail;
using xpose::matrix_desc;

namespace {

constexpr bool on = !best_scatter_slab_default;

// The issue-12 sweep rows below 0.85 (odd HW) and the route the default flag ran them on
// when the table was written (session 8's final sweep).
struct sweep_row {
  long long batch, hw, c;
  int E;
  best_path old;
  int group;
};
constexpr sweep_row rows[] = {
    {256, 50177, 2, 1, best_path::slab_scatter, 2},          {167, 50177, 4, 1, best_path::slab_scatter_pipe_halo, 4},
    {111, 50177, 6, 1, best_path::slab_scatter_pipe_halo, 6}, {55, 50177, 6, 2, best_path::slab_scatter_pipe_halo, 6},
    {27, 50177, 24, 1, best_path::slab_scatter_pipe_halo, 24}, {167, 50177, 2, 2, best_path::slab_scatter, 2},
    {5, 50177, 128, 1, best_path::slab_scatter_micro_halo, 0}, {6, 50177, 96, 1, best_path::slab_scatter_micro_halo, 0},
    {3, 50177, 96, 2, best_path::slab_scatter_micro_halo, 0},  {83, 50177, 4, 2, best_path::slab_scatter_pipe_halo, 4},
    {133, 50177, 5, 1, best_path::slab_scatter_pipe_halo, 5},  {222, 50177, 3, 1, best_path::slab_scatter, 3},
};

}  // namespace

// The table: 1-2 byte entries only, sizes the bench measured (best_bench --slab: 12-32 KiB in
// 4 KiB steps); unpipelined entries keep the block under 48 KiB (slab_path's limit), pipelined
// ones inside an SM's shared memory (227 KiB) and on a side with a halo kernel.
TEST(BestScatterSlab, Table) {
  for (int E : {4, 8, 16})
    for (int s : {0, 2, 3, 4, 8, 24, 32}) EXPECT_EQ(best_scatter_slab_table(E, s, true) + best_scatter_slab_table(E, s, false), 0);
  for (int s : {2, 3}) {
    for (int E : {1, 2}) {
      const int b = best_scatter_slab_table(E, s, false);
      if (b == 0) continue;
      EXPECT_TRUE(b >= 12288 && b <= 32768 && b % 4096 == 0) << b;
      const matrix_desc d = matrix_desc::packed(50177, s, E, 8);
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
  // The measured winners (docs/RESULTS.md "Session 9"): u8 sides 2 (16 KiB), 3, 6, 24 (24 KiB), 5
  // (20 KiB); micro-block u8 48 / 128 (32 KiB), 96 (20 KiB); f16 micro-block 96 (20 KiB).
  EXPECT_EQ(best_scatter_slab_table(1, 24, true), 24576);
  EXPECT_EQ(best_scatter_slab_table(1, 5, true), 20480);
  EXPECT_EQ(best_scatter_slab_table(1, 4, true), 0);
  EXPECT_EQ(best_scatter_slab_table(1, 96, true, true), 20480);
  EXPECT_EQ(best_scatter_slab_table(1, 128, true, true), 32768);
  EXPECT_EQ(best_scatter_slab_table(2, 96, true, true), 20480);
  EXPECT_EQ(best_scatter_slab_table(2, 64, true, true), 0);
}

// best_scatter_slab_route: the halo kernels and the unpipelined sides 2-3, to unaligned rows
// only, 1-2 byte elements only; every other route keeps the class table's slabs.
TEST(BestScatterSlab, Route) {
  for (int E : {1, 2}) {
    for (long long c : {32, 48, 64, 96, 128}) {
      const auto m = best_scatter_slab_route(best_path::slab_scatter_micro_halo, 0, E, false, c);
      EXPECT_EQ(m.path, best_path::slab_scatter_micro_halo);
      EXPECT_EQ(m.slab, best_scatter_slab_table(E, c, true, true));
      EXPECT_EQ(best_scatter_slab_route(best_path::slab_scatter_micro_halo, 0, E, true, c).slab, 0);
    }
    for (int g : best_pipe_sides) {
      const auto h = best_scatter_slab_route(best_path::slab_scatter_pipe_halo, g, E, false, 8);
      EXPECT_EQ(h.path, best_path::slab_scatter_pipe_halo);
      EXPECT_EQ(h.slab, best_scatter_slab_table(E, g, true));
      EXPECT_EQ(best_scatter_slab_route(best_path::slab_scatter_pipe_halo, g, E, true, 8).slab, 0);
      EXPECT_EQ(best_scatter_slab_route(best_path::slab_scatter_pipe, g, E, false, 8).slab, 0);
      EXPECT_EQ(best_scatter_slab_route(best_path::slab_scatter_direct, g, E, false, 8).slab, 0);
      EXPECT_EQ(best_scatter_slab_route(best_path::slab_gather_pipe_shift, g, E, false, 8).slab, 0);
    }
    for (int g : {2, 3}) {
      const auto u = best_scatter_slab_route(best_path::slab_scatter, g, E, false, 8);
      const int p = best_scatter_slab_table(E, g, true), q = best_scatter_slab_table(E, g, false);
      EXPECT_EQ(u.path, p > 0 ? best_path::slab_scatter_pipe_halo : best_path::slab_scatter);
      EXPECT_EQ(u.slab, p > 0 ? p : q);
      EXPECT_EQ(best_scatter_slab_route(best_path::slab_scatter, g, E, true, 8).slab, 0);
    }
    EXPECT_EQ(best_scatter_slab_route(best_path::slab_scatter, 4, E, false, 8).slab, 0);
    EXPECT_EQ(best_scatter_slab_route(best_path::slab_scatter, 0, E, false, 8).slab, 0);
  }
  EXPECT_EQ(best_scatter_slab_route(best_path::slab_scatter_micro_halo, 0, 4, false, 32).slab, 0);
  // One matrix: sides 2-3 keep the unpipelined kernel (the table's entries were measured on batches).
  for (int g : {2, 3}) {
    EXPECT_EQ(best_scatter_slab_route(best_path::slab_scatter, g, 1, false, g, false).path, best_path::slab_scatter);
    EXPECT_EQ(best_scatter_slab_route(best_path::slab_scatter, g, 1, false, g, false).slab, 0);
  }
  const best_choice one = best_path_for(matrix_desc::packed(11184810, 3, 1), 0, 0, 90, false);
  EXPECT_EQ(one.path, best_path::slab_scatter);
  EXPECT_EQ(one.slab, 0);
  EXPECT_EQ(best_path_for(matrix_desc::packed(11184810, 3, 1, 2), 0, 0, 90, on).slab,
            best_scatter_slab_table(1, 3, true));  // (a batch of two: the table's)
}

// The sweep's rows: under the flag that has the switch on, the default flag's route (sides 2-3:
// the table's) with the table's slab; under the other, slab 0 and (the default flag) the old
// route. Their aligned twins (HW 50176) and the gathers of the same shapes keep slab 0 under both.
TEST(BestScatterSlab, SweepRows) {
  for (const sweep_row& r : rows) {
    SCOPED_TRACE(std::to_string(r.batch) + "x" + std::to_string(r.hw) + "x" + std::to_string(r.c) + " E" +
                 std::to_string(r.E));
    const matrix_desc d = matrix_desc::packed(r.hw, r.c, r.E, r.batch);
    const best_choice o = best_path_for(d, 0, 0, 90, false);
    if (on) {  // (the switch off under the default flag: the old policy)
      EXPECT_EQ(o.path, r.old);
      EXPECT_EQ(o.group, r.group);
    }
    // (Under !on, the two-buffer direct kernel's slab where best_scatter_direct2_default has !on take the side.)
    const bool direct2 = best_scatter_direct2_on(r.E, !on) && best_scatter_direct2_takes(r.E, r.c, false);
    EXPECT_EQ(best_path_for(d, 0, 0, 90, !on).slab, direct2 ? best_scatter_direct2_slab(r.E, r.c) : 0);
    const best_scatter_slab_pick k = best_scatter_slab_route(r.old, r.group, r.E, false, r.c);
    const best_choice c = best_path_for(d, 0, 0, 90, on);
    // (The two-buffer direct kernel where best_scatter_direct2_default has `on` take the side: before
    // the slab table, at its own slab size.)
    if (best_scatter_direct2_on(r.E, on) && best_scatter_direct2_takes(r.E, r.c, false)) {
      EXPECT_EQ(c.path, best_path::slab_scatter_direct);
      EXPECT_EQ(c.group, r.group);
      EXPECT_EQ(c.slab, best_scatter_direct2_slab(r.E, r.c));
    } else if (k.slab > 0) {
      EXPECT_EQ(c.path, k.path);
      EXPECT_EQ(c.group, r.group);
      EXPECT_EQ(c.slab, k.slab);
    } else {
      EXPECT_EQ(c.slab, 0);
    }
    for (bool flag : {false, true}) {
      const bool direct2_aligned = best_scatter_direct2_on(r.E, flag) && best_scatter_direct2_takes(r.E, r.c, true);
      EXPECT_EQ(best_path_for(matrix_desc::packed(50176, r.c, r.E, r.batch), 0, 0, 90, flag).slab,
                direct2_aligned ? best_scatter_direct2_slab(r.E, r.c) : 0);
      EXPECT_EQ(best_path_for(matrix_desc::packed(r.c, r.hw, r.E, r.batch), 0, 0, 90, flag).slab, 0);
    }
  }
}

// Unaligned output rows by offset or padding take the table too; 4-8 byte scatters and small
// calls (best_slab_bytes_for shortens the slabs there) keep their routes' slab rule.
TEST(BestScatterSlab, Layouts) {
  for (int E : {1, 2})
    for (long long oo = 1; oo < 16 / E; ++oo) {
      const matrix_desc d = matrix_desc::packed(50176, 24, E, 27);
      const best_choice c = best_path_for(d, 0, static_cast<unsigned long long>(oo * E), 90, on);
      const best_choice o = best_path_for(d, 0, static_cast<unsigned long long>(oo * E), 90, !on);
      EXPECT_EQ(o.slab, 0);
      const best_scatter_slab_pick k = best_scatter_slab_route(o.path, o.group, E, false, 24);
      if (on) EXPECT_EQ(c.slab, k.slab);  // (!on: the default flag, the old route)
    }
  for (int E : {4, 8})
    for (long long c : {2, 4, 8, 16, 32})
      for (bool flag : {false, true})
        EXPECT_EQ(best_path_for(matrix_desc::packed(50177, c, E, 4), 0, 0, 90, flag).slab, 0);
}
