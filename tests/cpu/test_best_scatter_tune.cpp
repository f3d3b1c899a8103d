// Policy of the scatter tune table (switch best_scatter_tune_default, policy.hpp): the 1-2 byte
// scatter sides without a slab table entry at best_scatter_tune_table's slab sizes, under which
// flag, the routes they keep or take, and that the other flag's routes stay what the slab switch
// gives. The kernels at those sizes: BestPipeEmulation.ScatterTuneTable* (test_best_pipe.cpp).
#include <gtest/gtest.h>

#include <string>

#include "cuda/best_pipe.cuh"
#include "cuda/policy.hpp"
#include "test_util.hpp"

using namespace xpose::detail;
using xpose::matrix_desc;

namespace {

constexpr bool on = !best_scatter_tune_default;

}  // namespace

// Entries: 1-2 byte sides with a pipelined kernel and no slab table entry (the two tables never
// both take a side), at sizes best.cu instantiates (best_scatter_slab_sizes, best_scatter_slab_uses),
// blocks inside an SM's shared memory.
TEST(BestScatterTune, Table) {
  int entries = 0;
  for (int E : {1, 2, 4, 8}) {
    for (int s : best_pipe_sides) {
      const int b = best_scatter_tune_table(E, s);
      if (b == 0) continue;
      ++entries;
      EXPECT_LE(E, best_pipe_max_elem);
      EXPECT_EQ(best_scatter_slab_table(E, s, true), 0) << E << " " << s;
      bool listed = false;
      for (int z : best_scatter_slab_sizes) listed = listed || z == b;
      EXPECT_TRUE(listed) << b;
      EXPECT_TRUE(best_scatter_slab_uses(E, s, b)) << E << " " << s;
      const int smem = E == 1 ? slab::pipe_smem_max<1>(slab::scatter, s, b, false, true)
                              : slab::pipe_smem_max<2>(slab::scatter, s, b, false, true);
      EXPECT_LE(smem, 227 * 1024) << E << " " << s;
    }
    for (int s : {0, 1, 9, 10, 11, 64}) EXPECT_EQ(best_scatter_tune_table(E, s), 0);
  }
  EXPECT_GT(entries, 0);
  // (Micro-block kernels: none.)
  for (int b : best_scatter_slab_sizes)
    for (int E : {1, 2}) EXPECT_EQ(best_scatter_slab_uses(E, 0, b), [&] {
        for (int c = 16 / E; c * E <= 256; c += 16 / E)
          if (best_scatter_slab_table(E, c, true, true) == b) return true;
        return false;
      }());
}

// best_scatter_tune_route: the grouped halo kernel keeps its path, sides 2-3 of batches leave
// the unpipelined kernel for it; aligned rows, one matrix, other paths and sides without an
// entry: slab 0.
TEST(BestScatterTune, Route) {
  for (int E : {1, 2, 4}) {
    for (int g : best_pipe_sides) {
      const int b = best_scatter_tune_table(E, g);
      const auto h = best_scatter_tune_route(best_path::slab_scatter_pipe_halo, g, E, false);
      EXPECT_EQ(h.path, best_path::slab_scatter_pipe_halo);
      EXPECT_EQ(h.slab, b);
      EXPECT_EQ(best_scatter_tune_route(best_path::slab_scatter_pipe_halo, g, E, true).slab, 0);
      for (best_path p : {best_path::slab_scatter_pipe, best_path::slab_scatter_direct, best_path::slab_scatter_micro_halo,
                          best_path::slab_gather_pipe_shift})
        EXPECT_EQ(best_scatter_tune_route(p, g, E, false).slab, 0);
      const auto u = best_scatter_tune_route(best_path::slab_scatter, g, E, false);
      const bool moves = b > 0 && (g == 2 || g == 3);
      EXPECT_EQ(u.path, moves ? best_path::slab_scatter_pipe_halo : best_path::slab_scatter);
      EXPECT_EQ(u.slab, moves ? b : 0);
      EXPECT_EQ(best_scatter_tune_route(best_path::slab_scatter, g, E, false, false).slab, 0);
    }
  }
}

// The sweep's rows (issue 12, odd HW), offsets and padding, under both flags: where the table has
// an entry for the side, under `on` the grouped halo kernel of the side at the entry's slab; under
// the other flag slab 0 (the slab table has no entry there). One matrix, aligned rows, gathers and
// 4-8 byte scatters: never the entry.
TEST(BestScatterTune, Rows) {
  int moved = 0, kept = 0;
  for (int E : {1, 2})
    for (long long c : {2, 3, 4, 5, 6, 8, 12, 16, 24, 32}) {
      const int b = best_scatter_tune_table(E, c);
      if (b == 0) continue;
      struct lay {
        matrix_desc d;
        long long oo;
      };
      for (const lay& l : {lay{matrix_desc::packed(50177, c, E, 83), 0}, lay{matrix_desc::packed(50176, c, E, 5), 1},
                           lay{matrix_desc::packed(50176, c, E, 5), 15 / E},
                           lay{xpose_test::padded(40000, c, E, 3, 0, 3, 5), 0}}) {
        SCOPED_TRACE("E " + std::to_string(E) + " side " + std::to_string(c) + " oo " + std::to_string(l.oo));
        const auto out = static_cast<unsigned long long>(l.oo * E);
        ASSERT_FALSE(best_out_rows_aligned(l.d, out));
        const best_choice t = best_path_for(l.d, 0, out, 90, on), o = best_path_for(l.d, 0, out, 90, !on);
        EXPECT_EQ(t.path, best_path::slab_scatter_pipe_halo);
        EXPECT_EQ(t.group, static_cast<int>(c));
        EXPECT_EQ(t.slab, b);
        EXPECT_EQ(o.slab, 0);
        ++moved;
        // The input one element off: the same route (the rule reads the output rows only).
        EXPECT_EQ(best_path_for(l.d, static_cast<unsigned long long>(E), out, 90, on).slab, b);
      }
      for (bool flag : {false, true}) {
        EXPECT_EQ(best_path_for(matrix_desc::packed(50176, c, E, 5), 0, 0, 90, flag).slab, 0);  // aligned rows
        EXPECT_EQ(best_path_for(matrix_desc::packed(c, 50177, E, 5), 0, 0, 90, flag).slab, 0);  // gather
        for (int W : {4, 8}) EXPECT_EQ(best_path_for(matrix_desc::packed(50177, c, W, 5), 0, 0, 90, flag).slab, 0);
        ++kept;
      }
      // One matrix of sides 2-3: the unpipelined kernel stays (the sides-2-3 rule: batches only).
      if (c <= 3) {
        const best_choice one = best_path_for(matrix_desc::packed(11184811, c, E), 0, 0, 90, on);
        EXPECT_EQ(one.slab, 0);
        EXPECT_EQ(one.path, best_path::slab_scatter);
      }
    }
  EXPECT_GT(moved, 0);
  EXPECT_GT(kept, 0);
}

// f32 12-column scatters to unaligned rows (switch best_f32_micro_scatter_default): under the flag
// that has it on the micro-block slab scatter (16 KiB slabs to ragged rows), under the other never;
// aligned rows, an input off the 16-byte grid, other column counts and element sizes: never.
TEST(BestScatterTune, F32Micro) {
  constexpr bool f32_on = !best_f32_micro_scatter_default;
  EXPECT_EQ(best_slab_micro_ragged_bytes_for(4), 16384);
  EXPECT_EQ(best_slab_micro_ragged_bytes_for(1), best_slab_micro_ragged_bytes);
  EXPECT_EQ(best_slab_micro_ragged_bytes_for(2), best_slab_micro_ragged_bytes);
  const matrix_desc odd = matrix_desc::packed(50177, 12, 4, 13), even = matrix_desc::packed(50176, 12, 4, 13);
  const matrix_desc pad = xpose_test::padded(30011, 12, 4, 3, 0, 3, 8);
  for (bool flag : {false, true}) {
    const bool take = flag == f32_on;
    for (auto [d, out] : {std::pair<matrix_desc, unsigned long long>{odd, 0}, {even, 4}, {even, 60}, {pad, 0}}) {
      const best_choice c = best_path_for(d, 0, out, 90, flag);
      EXPECT_EQ(c.path == best_path::slab_scatter_micro, take) << d.rows << " " << out;
      EXPECT_EQ(best_f32_micro_scatter_fits(d, 0, out, flag), take);
      // The input off the grid: not (the micro-block kernel reads whole chunks of the packed side).
      EXPECT_FALSE(best_f32_micro_scatter_fits(d, 4, out, flag));
    }
    EXPECT_FALSE(best_f32_micro_scatter_fits(even, 0, 0, flag));  // aligned rows
    for (long long c : {4, 8, 16, 24})
      EXPECT_FALSE(best_f32_micro_scatter_fits(matrix_desc::packed(50177, c, 4, 13), 0, 0, flag));
    for (int E : {1, 2, 8})
      EXPECT_FALSE(best_f32_micro_scatter_fits(matrix_desc::packed(50177, 12, E, 13), 0, 0, flag));
    // A gapped batch stride off the grid: not.
    EXPECT_FALSE(best_f32_micro_scatter_fits(xpose_test::padded(30011, 12, 4, 3, 0, 3, 1), 0, 0, flag));
  }
}
