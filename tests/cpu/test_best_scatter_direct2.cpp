// Policy of session 10's scatter candidates (policy.hpp): the two-buffer direct kernel (switch
// best_scatter_direct2_default) and the f32 12-column micro-block scatter (switch
// best_f32_micro_scatter_default): which scatters they take under which flag. The direct kernel at
// two buffers and these slab sizes: BestDirectEmulation (test_best_direct.cpp, depths 2 and 3).
#include <gtest/gtest.h>

#include <string>

#include "cuda/best_direct.cuh"
#include "cuda/policy.hpp"
#include "test_util.hpp"

using namespace xpose::detail;
using xpose::matrix_desc;

// The table: 1-2 byte sides of the direct kernel (2-8), one size each, blocks inside an SM.
TEST(BestScatterDirect2, Table) {
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

// The rows under both flags: under `on` the direct kernel at the table's slab where it takes the side
// and rows (odd HW, output offsets 1 and 15 elements, padded rows, input one element off, one matrix),
// under the other never with a slab; gathers and 4-8 byte scatters never.
TEST(BestScatterDirect2, Rows) {
  constexpr bool on = !best_scatter_direct2_default;
  int taken = 0;
  for (int E : {1, 2})
    for (long long c : {2, 3, 4, 5, 6, 8, 12}) {
      struct lay {
        matrix_desc d;
        long long oi, oo;
      };
      for (const lay& l : {lay{matrix_desc::packed(50177, c, E, 83), 0, 0}, lay{matrix_desc::packed(50176, c, E, 5), 0, 1},
                           lay{matrix_desc::packed(50176, c, E, 5), 0, 15}, lay{matrix_desc::packed(50176, c, E, 5), 1, 0},
                           lay{xpose_test::padded(40000, c, E, 3, 0, 3, 5), 0, 0}, lay{matrix_desc::packed(50177, c, E), 0, 0}}) {
        SCOPED_TRACE("E " + std::to_string(E) + " side " + std::to_string(c) + " " + std::to_string(l.oi) + "/" +
                     std::to_string(l.oo));
        const auto in = static_cast<unsigned long long>(l.oi * E), out = static_cast<unsigned long long>(l.oo * E);
        const bool aligned = best_out_rows_aligned(l.d, out);
        const best_choice t = best_path_for(l.d, in, out, 90, on), o = best_path_for(l.d, in, out, 90, !on);
        const bool want = best_scatter_direct2_takes(E, c, aligned);
        EXPECT_EQ(t.path == best_path::slab_scatter_direct && t.slab > 0, want) << best_path_name(t.path);
        if (want) {
          EXPECT_EQ(t.group, static_cast<int>(c));
          EXPECT_EQ(t.slab, best_scatter_direct2_slab(E, c));
        }
        EXPECT_FALSE(o.path == best_path::slab_scatter_direct && o.slab > 0);
        taken += want;
      }
      for (bool flag : {false, true}) {
        EXPECT_NE(best_path_for(matrix_desc::packed(c, 50177, E, 5), 0, 0, 90, flag).path, best_path::slab_scatter_direct);
        for (int W : {4, 8}) EXPECT_EQ(best_path_for(matrix_desc::packed(50177, c, W, 5), 0, 0, 90, flag).slab, 0);
      }
    }
  EXPECT_GT(taken, 0);
  // The sweep's rows it was measured on.
  for (auto [b, hw, c, E] : {std::tuple<long long, long long, long long, int>{256, 50177, 2, 1}, {167, 50177, 4, 1},
                             {167, 50177, 2, 2}, {83, 50177, 4, 2}, {55, 50177, 6, 2}, {55, 50176, 6, 2}}) {
    const best_choice t = best_path_for(matrix_desc::packed(hw, c, E, b), 0, 0, 90, on);
    EXPECT_EQ(t.path, best_path::slab_scatter_direct);
    EXPECT_EQ(t.slab, best_scatter_direct2_slab(E, c));
  }
}

// f32 12-column scatters to unaligned rows (switch best_f32_micro_scatter_default): under the flag
// that has it on the micro-block slab scatter (16 KiB slabs to ragged rows), under the other never;
// aligned rows, an input off the 16-byte grid, other column counts and element sizes: never.
TEST(BestScatterDirect2, F32Micro) {
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
