// GPU tests of the scatter tune table (switch best_scatter_tune_default, policy.hpp): 1-2 byte
// scatters to output rows off the 16-byte grid of the sides best_scatter_tune_table has an entry
// for, on the grouped halo kernel at the entry's slab size under the flag that has the switch on,
// and as before (slab 0) under the other; odd HW, ragged last slabs, input one element off, output
// 1 and 15 elements off, padded rows with gapped batches, the sweep's rows; the whole output extent
// checked bitwise, the route and its slab asserted. Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;
using xpose::detail::best_path;

namespace {

constexpr bool on = !xpose::detail::best_scatter_tune_default;

// d (a scatter of an entry's side) under both flags: under `on` the halo kernel at the entry's slab;
// under the other slab 0, the default flag's route asserted where that flag is the default one.
void tune_case(const matrix_desc& d, std::uint64_t seed, index_t off_in, index_t off_out) {
  namespace xd = xpose::detail;
  const int E = d.elem_size, b = xd::best_scatter_tune_table(E, d.cols);
  ASSERT_GT(b, 0);
  const auto in = static_cast<unsigned long long>(off_in * E), out = static_cast<unsigned long long>(off_out * E);
  for (bool flag : {false, true}) {
    SCOPED_TRACE(std::string(flag ? "best_next" : "best"));
    const xd::best_choice c = xd::best_path_for(d, in, out, 90, flag);
    std::optional<best_path> want;
    if (flag == on) {
      EXPECT_EQ(c.slab, b);
      EXPECT_EQ(c.group, static_cast<int>(d.cols));
      want = best_path::slab_scatter_pipe_halo;
      EXPECT_GE(d.elements() * E / xd::best_slab_min_blocks, c.slab) << "slabs shortened for spread";
    } else {
      EXPECT_EQ(c.slab, 0);
    }
    check_best(d, seed + (flag ? 1 : 0), off_in, off_out, want, flag);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Batches of about `mib` MiB of HW x c (the entry's slabs whole: best_slab_bytes_for).
index_t tune_batch(index_t hw, index_t c, int es, index_t mib) { return (mib << 20) / (hw * c * es) + 1; }

}  // namespace

// Every entry: odd HW; HW of a ragged last slab with the input one element off; output 1 and 15
// elements off an aligned HW; padded rows with gapped batches and the output one element off.
TEST(BestScatterTune, Entries) {
  REQUIRE_GPU();
  int entries = 0;
  for (int es : {1, 2})
    for (index_t c : {2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32}) {
      if (xpose::detail::best_scatter_tune_table(es, c) == 0) continue;
      ++entries;
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 43 + es) * 16;
      tune_case(matrix_desc::packed(50177, c, es, tune_batch(50177, c, es, 9)), seed, 0, 0);
      tune_case(matrix_desc::packed(40001, c, es, tune_batch(40001, c, es, 9)), seed + 2, 1, 0);
      tune_case(matrix_desc::packed(40000, c, es, tune_batch(40000, c, es, 9)), seed + 4, 0, 1);
      tune_case(matrix_desc::packed(40000, c, es, tune_batch(40000, c, es, 9)), seed + 6, 15, 15);
      tune_case(padded(30011, c, es, tune_batch(30011, c, es, 9), 0, 3, 5), seed + 8, 0, 1);
      if (HasFatalFailure()) return;
    }
  EXPECT_GT(entries, 0);
}

// The sweep's rows of the entries' sides (issue 12), as the sweep runs them.
TEST(BestScatterTune, SweepRows) {
  REQUIRE_GPU();
  struct row {
    index_t batch, hw, c;
    int es;
  };
  for (const row& r : {row{167, 50177, 2, 2}, row{55, 50177, 6, 2}, row{83, 50177, 4, 2}, row{167, 50177, 4, 1},
                       row{83, 50177, 8, 1}, row{55, 50177, 12, 1}})
    if (xpose::detail::best_scatter_tune_table(r.es, r.c) > 0) {
      tune_case(matrix_desc::packed(r.hw, r.c, r.es, r.batch), 500 + static_cast<std::uint64_t>(r.c * 4 + r.es), 0, 0);
      if (HasFatalFailure()) return;
    }
}

// f32 12-column scatters to unaligned rows (switch best_f32_micro_scatter_default) under both flags:
// the micro-block slab scatter under the flag that has it on, asserted; odd HW (the sweep's row), the
// output 1 and 15 elements off, padded output rows with gapped batches (whole chunks), a batch of one.
TEST(BestScatterTune, F32Micro) {
  REQUIRE_GPU();
  constexpr bool f32_on = !xpose::detail::best_f32_micro_scatter_default;
  struct lay {
    matrix_desc d;
    index_t oo;
  };
  std::uint64_t seed = 700;
  for (const lay& l : {lay{matrix_desc::packed(50177, 12, 4, 13), 0}, lay{matrix_desc::packed(40000, 12, 4, 5), 1},
                       lay{matrix_desc::packed(40000, 12, 4, 5), 15}, lay{padded(30011, 12, 4, 3, 0, 3, 8), 0},
                       lay{matrix_desc::packed(70001, 12, 4), 0}})
    for (bool flag : {false, true}) {
      SCOPED_TRACE(std::string(flag ? "best_next" : "best"));
      const auto c = xpose::detail::best_path_for(l.d, 0, static_cast<unsigned long long>(l.oo * 4), 90, flag);
      EXPECT_EQ(c.path == best_path::slab_scatter_micro, flag == f32_on);
      check_best(l.d, seed++, 0, l.oo, flag == f32_on ? std::optional<best_path>(best_path::slab_scatter_micro) : std::nullopt,
                 flag);
      if (HasFatalFailure()) return;
    }
}
