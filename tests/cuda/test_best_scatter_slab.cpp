// GPU tests of the 1-2 byte scatters to output rows off the 16-byte grid at the halo scatters'
// slab sizes (best_scatter_slab_table): calls big enough that the slabs are not shortened for
// spread (best_slab_bytes_for), ragged last slabs, input one element off, every output offset,
// gapped batches; the whole output extent checked bitwise. Skip without a GPU.
#include <tuple>
#include <vector>

#include "best_check.hpp"

using namespace xpose_test;

namespace {
// Batches of about `mib` MiB of HW x c (the table's slabs whole: best_slab_bytes_for).
index_t batch_for(index_t hw, index_t c, int es, index_t mib) { return (mib << 20) / (hw * c * es) + 1; }
}  // namespace

// Grouped sides: odd HW, HW of a ragged last slab, the input one element off, gapped padded batches.
TEST(BestScatterSlab, GroupedSides) {
  REQUIRE_GPU();
  for (int es : {1, 2})
    for (index_t c : {2, 3, 4, 5, 6, 8, 12, 16, 24, 32}) {
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 37 + es) * 8;
      check_best(matrix_desc::packed(50177, c, es, batch_for(50177, c, es, 9)), seed, 0, 0);
      check_best(matrix_desc::packed(40001, c, es, batch_for(40001, c, es, 9)), seed + 2, 1, 0);
      check_best(padded(30011, c, es, batch_for(30011, c, es, 9), 0, 3, 5), seed + 4, 0, 1);
      if (HasFatalFailure()) return;
    }
}

// Micro-block halo scatters: short sides of whole chunks.
TEST(BestScatterSlab, MicroSides) {
  REQUIRE_GPU();
  for (int es : {1, 2}) {
    const index_t k = 16 / es;
    for (index_t c : {48, 64, 96, 128}) {
      if (c * es > 256 || (c * es) % 16 != 0) continue;
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 41 + es) * 8;
      check_best(matrix_desc::packed(50177, c, es, batch_for(50177, c, es, 9)), seed, 0, 0);
      check_best(matrix_desc::packed(40000, c, es, batch_for(40000, c, es, 9)), seed + 2, k, 1);
      check_best(padded(30011, c, es, batch_for(30011, c, es, 9), 0, 5, 2 * k), seed + 4, 0, 3);
      if (HasFatalFailure()) return;
    }
  }
}

// Every output offset from the 16-byte grid (HW a multiple of 16: only the offset is off it).
TEST(BestScatterSlab, OutputOffsets) {
  REQUIRE_GPU();
  for (index_t oo = 1; oo < 16; ++oo) {
    check_best(matrix_desc::packed(50176, 24, 1, 8), 300 + oo, 0, oo);
    check_best(matrix_desc::packed(50176, 96, 1, 2), 320 + oo, 0, oo);
    if (oo < 8) check_best(matrix_desc::packed(50176, 96, 2, 2), 340 + oo, 0, oo);
    if (HasFatalFailure()) return;
  }
}

// The sweep's rows, as the sweep runs them: many slabs per resident block.
TEST(BestScatterSlab, SweepRows) {
  REQUIRE_GPU();
  std::uint64_t seed = 400;
  for (auto [c, es, b] : std::vector<std::tuple<index_t, int, index_t>>{{2, 1, 256}, {4, 1, 167}, {6, 1, 111},
                                                                         {6, 2, 55},  {24, 1, 27}, {2, 2, 167},
                                                                         {128, 1, 5}, {96, 1, 6},  {96, 2, 3},
                                                                         {4, 2, 83},  {5, 1, 133}, {3, 1, 222}})
    check_best(matrix_desc::packed(50177, c, es, b), seed += 2, 0, 0);
}
