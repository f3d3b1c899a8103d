// GPU tests of the scatter slab table (switch best_scatter_slab_default, policy.hpp): 1-2 byte
// scatters to output rows off the 16-byte grid at best_scatter_slab_table's slab sizes (the halo
// kernels; sides 2-3 rerouted to the halo kernel or the unpipelined one at its size) under the
// flag that has the table on, and at the class table's under the other; calls big enough that
// the table's slabs are not shortened for spread (best_slab_bytes_for), ragged last slabs, input
// one element off, every output offset, gapped batches; the whole output extent checked bitwise,
// the route and its slab asserted. Skip without a GPU.
#include "best_check.hpp"

using namespace xpose_test;
using xpose::detail::best_path;

namespace {

constexpr bool on = !xpose::detail::best_scatter_slab_default;

// The route of the scatter d under `flag`, with its slab: under `on` the table's entry for the
// kernel the default flag runs (old, of side `side`, 0: micro-block); under the other flag the
// class table's slabs (0), the path asserted where that flag is the default one.
void slab_case(const matrix_desc& d, std::uint64_t seed, index_t off_in, index_t off_out, best_path old, int side) {
  namespace xd = xpose::detail;
  const int E = d.elem_size;
  const auto in = static_cast<unsigned long long>(off_in * E), out = static_cast<unsigned long long>(off_out * E);
  for (bool flag : {false, true}) {
    SCOPED_TRACE(std::string(flag ? "best_next" : "best"));
    const xd::best_choice c = xd::best_path_for(d, in, out, 90, flag);
    std::optional<best_path> want;
    if (xd::best_scatter_direct2_on(E, flag) &&
        xd::best_scatter_direct2_takes(E, d.cols, xd::best_out_rows_aligned(d, out))) {
      // (The two-buffer direct kernel where best_scatter_direct2_default has this flag take the side:
      // ahead of the slab table.)
      EXPECT_EQ(c.slab, xd::best_scatter_direct2_slab(E, d.cols));
      want = best_path::slab_scatter_direct;
    } else if (flag == on) {
      const xd::best_scatter_slab_pick k = xd::best_scatter_slab_route(old, side, E, false, d.cols, d.batch > 1);
      EXPECT_EQ(c.slab, k.slab);
      if (k.slab > 0) want = k.path;  // (no entry: the flag's other routes)
    } else {
      EXPECT_EQ(c.slab, 0);
      if (!flag) want = old;
    }
    if (c.slab > 0) EXPECT_GE(d.elements() * E / xd::best_slab_min_blocks, c.slab) << "slabs shortened for spread";
    check_best(d, seed + (flag ? 1 : 0), off_in, off_out, want, flag);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Batches of about `mib` MiB of HW x c (the table's slabs whole: best_slab_bytes_for).
index_t batch_for(index_t hw, index_t c, int es, index_t mib) { return (mib << 20) / (hw * c * es) + 1; }

}  // namespace

// Grouped halo scatters of every pipelined side the default flag runs on the halo kernel (and
// sides 2-3, the unpipelined kernel there): odd HW, HW of a ragged last slab, the input one
// element off, gapped padded batches.
TEST(BestScatterSlab, GroupedSides) {
  REQUIRE_GPU();
  for (int es : {1, 2})
    for (index_t c : {2, 3, 4, 5, 6, 8, 12, 16, 24, 32}) {
      const matrix_desc d0 = matrix_desc::packed(50177, c, es, batch_for(50177, c, es, 9));
      const xpose::detail::best_choice o = xpose::detail::best_path_for(d0, 0, 0, 90, false);
      if (o.path != best_path::slab_scatter_pipe_halo && o.path != best_path::slab_scatter) continue;
      if (o.group != c) continue;
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 37 + es) * 8;
      const best_path old = o.path;
      slab_case(d0, seed, 0, 0, old, static_cast<int>(c));
      slab_case(matrix_desc::packed(40001, c, es, batch_for(40001, c, es, 9)), seed + 2, 1, 0, old, static_cast<int>(c));
      slab_case(padded(30011, c, es, batch_for(30011, c, es, 9), 0, 3, 5), seed + 4, 0, 1, old, static_cast<int>(c));
      if (HasFatalFailure()) return;
    }
}

// Micro-block halo scatters: short sides of whole chunks from the micro-block threshold up.
TEST(BestScatterSlab, MicroSides) {
  REQUIRE_GPU();
  constexpr best_path halo = best_path::slab_scatter_micro_halo;
  for (int es : {1, 2}) {
    const index_t k = 16 / es;
    for (index_t c : {48, 64, 96, 128}) {
      if (c * es > 256 || (c * es) % 16 != 0) continue;
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 41 + es) * 8;
      slab_case(matrix_desc::packed(50177, c, es, batch_for(50177, c, es, 9)), seed, 0, 0, halo, 0);
      slab_case(matrix_desc::packed(40000, c, es, batch_for(40000, c, es, 9)), seed + 2, k, 1, halo, 0);
      slab_case(padded(30011, c, es, batch_for(30011, c, es, 9), 0, 5, 2 * k), seed + 4, 0, 3, halo, 0);
      if (HasFatalFailure()) return;
    }
  }
}

// Every output offset from the 16-byte grid (HW a multiple of 16: only the offset is off it).
TEST(BestScatterSlab, OutputOffsets) {
  REQUIRE_GPU();
  for (index_t oo = 1; oo < 16; ++oo) {
    slab_case(matrix_desc::packed(50176, 24, 1, 8), 300 + oo, 0, oo, best_path::slab_scatter_pipe_halo, 24);
    slab_case(matrix_desc::packed(50176, 96, 1, 2), 320 + oo, 0, oo, best_path::slab_scatter_micro_halo, 0);
    if (oo < 8) slab_case(matrix_desc::packed(50176, 96, 2, 2), 340 + oo, 0, oo, best_path::slab_scatter_micro_halo, 0);
    if (HasFatalFailure()) return;
  }
}

// The sweep's rows (issue 12), as the sweep runs them: many slabs per resident block.
TEST(BestScatterSlab, SweepRows) {
  REQUIRE_GPU();
  constexpr best_path ph = best_path::slab_scatter_pipe_halo, mh = best_path::slab_scatter_micro_halo;
  slab_case(matrix_desc::packed(50177, 2, 1, 256), 400, 0, 0, best_path::slab_scatter, 2);
  slab_case(matrix_desc::packed(50177, 4, 1, 167), 402, 0, 0, ph, 4);
  slab_case(matrix_desc::packed(50177, 6, 1, 111), 404, 0, 0, ph, 6);
  slab_case(matrix_desc::packed(50177, 6, 2, 55), 406, 0, 0, ph, 6);
  slab_case(matrix_desc::packed(50177, 24, 1, 27), 408, 0, 0, ph, 24);
  slab_case(matrix_desc::packed(50177, 2, 2, 167), 410, 0, 0, best_path::slab_scatter, 2);
  slab_case(matrix_desc::packed(50177, 128, 1, 5), 412, 0, 0, mh, 0);
  slab_case(matrix_desc::packed(50177, 96, 1, 6), 414, 0, 0, mh, 0);
  slab_case(matrix_desc::packed(50177, 96, 2, 3), 416, 0, 0, mh, 0);
  slab_case(matrix_desc::packed(50177, 4, 2, 83), 418, 0, 0, ph, 4);
  slab_case(matrix_desc::packed(50177, 5, 1, 133), 420, 0, 0, ph, 5);
  slab_case(matrix_desc::packed(50177, 3, 1, 222), 422, 0, 0, best_path::slab_scatter, 3);
}
