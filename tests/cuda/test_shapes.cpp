// GPU tests of `best`'s shape classes (docs/RESULTS.md "2-D: slab kernels (gather, scatter,
// whole matrices)"): channel shuffles (batch x C x HW <-> batch x HW x C), skinny matrices, rows
// of odd byte length, batches of small matrices; every element size, ragged edges, pointers
// offset by one element, padded leading dimensions, gapped batches, more than 65535 matrices.
// Each case checks the whole output extent bitwise. Skip without a GPU.
#include <utility>
#include <vector>

#include "best_check.hpp"

using namespace xpose_test;
using xpose::detail::best_class_policy_for;

namespace {

bool short_ok(index_t s, int es) {
  const auto p = best_class_policy_for(90, es);
  return s <= p.slab_max_short && s * es <= p.slab_max_short_bytes;
}

}  // namespace

// batch x C x HW -> batch x HW x C (gather) and back (scatter), HW even and odd;
// packed batches (matrices above the whole-matrix size) and gapped batch strides.
TEST(BestShapes, ChannelShuffles) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8, 16})
    for (index_t c : {2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128}) {
      if (!short_ok(c, es)) continue;
      for (index_t hw : {8200, 8201}) {
        const std::uint64_t seed = static_cast<std::uint64_t>(c * 131 + hw + es);
        check_best(matrix_desc::packed(c, hw, es, 2), seed, 0, 0);
        check_best(matrix_desc::packed(hw, c, es, 2), seed + 1, 0, 0);
        check_best(matrix_desc::packed(c, hw, es, 2), seed + 2, 1, 0);
        check_best(matrix_desc::packed(hw, c, es, 2), seed + 3, 0, 1);
      }
      for (index_t hw : {1000, 1001, 3137}) {
        const std::uint64_t seed = static_cast<std::uint64_t>(c * 17 + hw + es);
        check_best(padded(c, hw, es, 5, 0, 0, 1), seed, 0, 0);
        check_best(padded(hw, c, es, 5, 0, 0, 1), seed + 1, 0, 0);
        check_best(padded(c, hw, es, 3, 0, 0, 3), seed + 2, 1, 0);
        check_best(padded(c, hw, es, 3, 0, 0, 3), seed + 3, 0, 1);
        check_best(padded(hw, c, es, 3, 0, 0, 3), seed + 4, 1, 0);
        check_best(padded(hw, c, es, 3, 0, 0, 3), seed + 5, 0, 1);
      }
      if (HasFatalFailure()) return;
    }
}

// The grouped slab kernels: every short side that has one, 1-4 byte
// elements, whole groups and ragged ends, aligned and misaligned slabs (odd HW, pointer
// offsets, gapped batches, padded segments).
TEST(BestShapes, GroupedSlabs) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4})
    for (int c : xpose::detail::best_slab_group_sides) {
      if (xpose::detail::best_slab_group_for(best_class_policy_for(90, es), es, c) != c) continue;
      // Long enough that no packed case is a small-matrix batch (slab_whole takes <= 16 KiB).
      for (index_t hw : {20011, 50177}) {
        const std::uint64_t seed = static_cast<std::uint64_t>(c * 7 + hw + es);
        for (const matrix_desc& d : {matrix_desc::packed(c, hw, es, 3), matrix_desc::packed(hw, c, es, 3),
                                     padded(c, hw, es, 3, 1, 0, 5), padded(hw, c, es, 3, 0, 3, 7)})
          for (auto [oi, oo] : std::vector<std::pair<index_t, index_t>>{{0, 0}, {1, 0}, {0, 1}, {3, 5}})
            check_best(d, seed + static_cast<std::uint64_t>(oi * 4 + oo), oi, oo);
        if (HasFatalFailure()) return;
      }
    }
}

// Tiny 1-2 byte matrices (the narrow tile): ragged tiles on both sides (rows of whole 16-byte
// chunks); offsets by one element.
TEST(BestShapes, TinyNarrowTile) {
  REQUIRE_GPU();
  std::uint64_t seed = 5;
  for (int es : {1, 2})
    for (auto [r, c] : {std::pair<index_t, index_t>{64, 128}, {128, 256}, {80, 144}, {208, 160}, {96, 336}}) {
      if (r * c * es > xpose::detail::best_tiny_bytes || c * es < 128) continue;
      const matrix_desc d = matrix_desc::packed(r, c, es);
      check_best(d, seed++, 0, 0);
      check_best(d, seed++, 1, 0);
      check_best(d, seed++, 0, 0);
    }
}

// Tiny 4-8 byte matrices (the small narrow tile): ragged tiles on both sides (the small tile's
// 32 rows x 128 bytes too); offsets by one element.
TEST(BestShapes, TinyWideNarrowTile) {
  REQUIRE_GPU();
  std::uint64_t seed = 41;
  for (int es : {4, 8})
    for (auto [r, c] : {std::pair<index_t, index_t>{64, 64}, {128, 128}, {64, 32}, {80, 36}, {200, 40}, {72, 100},
                        {100, 52}, {96, 20}}) {
      if (r * c * es > xpose::detail::best_tiny_bytes || c * es < 128 || (c * es) % 16 != 0) continue;
      const matrix_desc d = matrix_desc::packed(r, c, es);
      check_best(d, seed++, 0, 0);
      check_best(d, seed++, 1, 0);
      check_best(d, seed++, 0, 0);
    }
}

// Batches of 4-8 byte matrices of at most 32 rows (the few-rows tile, the whole-matrix pipe):
// ragged tiles, gapped batches.
TEST(BestShapes, FewRowsWideBatches) {
  REQUIRE_GPU();
  std::uint64_t seed = 61;
  for (int es : {4, 8})
    for (auto [r, c, b] : {std::tuple<index_t, index_t, index_t>{32, 32, 300}, {24, 40, 77}, {30, 48, 5}, {17, 64, 33}}) {
      if (c * es > 512) continue;
      const matrix_desc d = matrix_desc::packed(r, c, es, b);
      check_best(d, seed++, 0, 0);
      const matrix_desc g = padded(r, c, es, b, 0, 0, 2 * r * c + 4);
      check_best(g, seed++, 0, 0);
    }
  check_best(matrix_desc::packed(32, 32, 8, 4096), 67, 0, 0);
  check_best(padded(32, 32, 8, 4096, 0, 0, 2), 68, 0, 0);  // (gapped: the tile)
}

// The micro-block slab sides: short sides of whole 16-byte chunks from the micro-block
// thresholds (route_table.hpp micro_side) to the table's limit, HW even and odd (unaligned
// segments on the other side), offsets and padding on the unaligned side, gapped batches of
// whole chunks; and a packed side off 16 bytes (the other slab kernels).
TEST(BestShapes, MicroSlabs) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4}) {
    const auto pol = best_class_policy_for(90, es);
    const index_t k = 16 / es;
    const index_t lo = es == 1 ? 32 : es == 2 ? 24 : 16;  // (gathers: u8 48, f16 24, f32 16; scatters: u8 32, f16 24)
    // Short sides: every 8 (or k) up to 64, then 96 and 128; the long HW for a few only
    // (the CPU reference dominates the run time).
    const index_t step = k > 8 ? k : 8;
    for (index_t c = lo; c <= pol.slab_max_short && c * es <= pol.slab_max_short_bytes; c += c < 64 ? step : 32) {
      if (c % k != 0) continue;
      for (index_t hw : {8200, 8201, 50177}) {
        if (hw == 50177 && c != lo && c < 96) continue;
        const std::uint64_t seed = static_cast<std::uint64_t>(c * 5 + hw + es);
        const index_t n = hw > 10000 ? 2 : 3;
        check_best(matrix_desc::packed(c, hw, es, n), seed, 0, 0);
        check_best(matrix_desc::packed(hw, c, es, n), seed + 1, 0, 0);
        check_best(matrix_desc::packed(c, hw, es, n), seed + 2, 1, k);
        check_best(matrix_desc::packed(hw, c, es, n), seed + 3, k, 1);  // (output off by one element)
        check_best(padded(c, hw, es, n, 3, 0, k), seed + 4, 3, 0);
        check_best(padded(hw, c, es, n, 0, 5, 2 * k), seed + 5, 0, 1);
        // Packed side off 16 bytes: the other slab kernels, still exact.
        check_best(matrix_desc::packed(c, hw, es, n), seed + 6, 0, 1);
        check_best(matrix_desc::packed(hw, c, es, n), seed + 7, 1, 0);
        if (HasFatalFailure()) return;
      }
    }
  }
  // Small transposes (small slabs, many blocks) and one long matrix past a few waves.
  check_best(matrix_desc::packed(64, 301, 1, 1), 140, 0, 0);
  check_best(matrix_desc::packed(301, 64, 1, 1), 141, 0, 0);
  check_best(matrix_desc::packed(128, 1 << 18, 1, 1), 142, 0, 0);
  check_best(matrix_desc::packed((1 << 18) + 3, 128, 1, 1), 143, 0, 0);
  check_best(matrix_desc::packed(1 << 18, 128, 1, 1), 144, 0, 0);
}

// Batches of 1-2 byte matrices of whole chunks (the whole-matrix pipe, the async batch tile):
// the sweep's squares and non-square matrices, counts that leave a ragged last slab, more than
// 65535 matrices; offsets of whole chunks, and an element offset.
TEST(BestShapes, MicroWholeBatches) {
  REQUIRE_GPU();
  for (int es : {1, 2}) {
    const index_t k = 16 / es, h = 8 / es;
    const index_t whole_max = best_class_policy_for(90, es).whole_max_bytes;
    const index_t w = xpose::detail::best_slab_micro_for(es, false).width;
    for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{{k, k}, {2 * k, 2 * k}, {4 * k, 4 * k}, {k, 3 * k},
                                                                {3 * k, 2 * k}, {h, h}, {3 * h, 2 * k}, {8, 8},
                                                                {16, 16}, {32, 32}, {64, 64}}) {
      const bool rows_ok = (r * es) % 16 == 0 || ((r * es) % 8 == 0 && w <= 8);
      if (!rows_ok || (c * es) % w != 0 || (r * c * es) % 16 != 0 || r * c * es > whole_max) continue;
      const std::uint64_t seed = static_cast<std::uint64_t>(r * 3 + c + es);
      check_best(matrix_desc::packed(r, c, es, 1000), seed, 0, 0);
      check_best(matrix_desc::packed(r, c, es, 333), seed + 1, k, 2 * k);
      if (r * c * es <= 256)
        check_best(matrix_desc::packed(r, c, es, 70001), seed + 2, 0, 0);
      check_best(matrix_desc::packed(r, c, es, 1000), seed + 3, 1, 0);
      if (HasFatalFailure()) return;
    }
  }
}

// The benchmarked sizes: 256 images of 224x224 (and an odd HW), 3 channels.
TEST(BestShapes, ImageBatches) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4})
    for (index_t hw : {50176, 50177}) {
      const index_t n = es == 4 ? 64 : 256;
      check_best(matrix_desc::packed(3, hw, es, n), 80, 0, 0);
      check_best(matrix_desc::packed(hw, 3, es, n), 81, 0, 0);
      if (HasFatalFailure()) return;
    }
}

// Skinny 2-D: 3xN, Nx3, 7xN, Nx32 with padded segments, gaps and offsets.
TEST(BestShapes, SkinnyPaddedAndOffset) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8, 16}) {
    for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{{3, 100003}, {7, 20011}, {1, 5}, {2, 9}, {31, 4099}}) {
      if (!short_ok(r, es)) continue;
      check_best(matrix_desc::packed(r, c, es), 90, 0, 0);
      check_best(matrix_desc::packed(c, r, es), 91, 1, 1);
      // gather: any input leading dimension and batch stride; the output packed.
      check_best(padded(r, c, es, 3, 1, 0, 5), 92, 1, 0);
      // scatter: any output leading dimension and batch stride; the input packed.
      check_best(padded(c, r, es, 3, 0, 3, 7), 93, 0, 1);
      if (HasFatalFailure()) return;
    }
  }
}

// Batches of small matrices, several per block; odd shapes; offsets.
TEST(BestShapes, SmallMatrixBatches) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8, 16})
    for (index_t s : {8, 16, 32, 64}) {
      const matrix_desc d = matrix_desc::packed(s, s, es, 1000);
      check_best(d, 100 + s, 0, 0);
      check_best(d, 101 + s, 1, 0);
      check_best(d, 102 + s, 0, 1);
      check_best(matrix_desc::packed(s - 1, s + 3, es, 333), 103, 1, 1);
      if (HasFatalFailure()) return;
    }
  for (int es : {1, 2, 4, 8, 16}) {
    check_best(matrix_desc::packed(8, 8, es, 1000), 110, 0, 0);
    check_best(matrix_desc::packed(5, 7, es, 999), 111, 1, 0);
    check_best(matrix_desc::packed(2, 3, es, 12345), 112, 0, 1);
    if (HasFatalFailure()) return;
  }
}

// More than 65535 matrices (a grid's y/z limit): whole, gather and scatter slabs.
TEST(BestShapes, MoreThan65535Matrices) {
  REQUIRE_GPU();
  for (int es : {1, 4}) {
    check_best(matrix_desc::packed(8, 8, es, 70001), 120, 0, 0);
    check_best(padded(3, 64, es, 70001, 0, 0, 1), 121, 1, 0);
    check_best(padded(64, 3, es, 70001, 0, 0, 1), 122, 0, 1);
    if (HasFatalFailure()) return;
  }
}

// Rows whose byte length is not a multiple of 16: R x (C+1), R x (C+3), every
// element size that can be unaligned (16-byte elements always are aligned).
TEST(BestShapes, OddRowLengths) {
  REQUIRE_GPU();
  for (int es : {1, 2, 4, 8}) {
    for (auto [r, c] : std::vector<std::pair<index_t, index_t>>{{1000, 1025}, {1001, 1027}, {129, 4099}}) {
      check_best(matrix_desc::packed(r, c, es), 130, 0, 0);
      check_best(matrix_desc::packed(r, c, es), 131, 1, 0);
      check_best(matrix_desc::packed(r, c, es, 3), 132, 0, 1);
      if (HasFatalFailure()) return;
    }
  }
}

// f16 gathers of 24 rows and 32 rows not all 16-byte aligned (the pipelined grouped kernel):
// HW even and odd, the input off by elements, padded rows,
// gapped batches of whole chunks (the packed side stays aligned).
TEST(BestShapes, ShortPipelinedGathers) {
  REQUIRE_GPU();
  for (index_t c : {24, 32})
    for (index_t hw : {8200, 8201, 20011}) {
      if (c == 32 && (hw * 2) % 16 == 0) continue;  // aligned 32 rows: the small tile or the pipelined micro gather
      const std::uint64_t seed = static_cast<std::uint64_t>(c * 7 + hw);
      check_best(matrix_desc::packed(c, hw, 2, 3), seed, 0, 0);
      check_best(matrix_desc::packed(c, hw, 2, 3), seed + 1, 1, 8);
      check_best(padded(c, hw, 2, 3, 3, 0, 8), seed + 2, 3, 0);
      if (HasFatalFailure()) return;
    }
}

// The pipelined slab kernels (best_pipe.cuh): every pipelined short side for 1- and 2-byte
// elements, HW even (aligned segments: no realigning pass) and odd, pointers offset by one
// element on either side, padded segments, gapped batches. Then shapes with several slabs per
// resident block (the double buffer reused), 7 x N, and the micro-block gathers and scatters
// on the pipelined kernel.
TEST(BestShapes, PipelinedSlabs) {
  REQUIRE_GPU();
  for (int es : {1, 2})
    for (int c : xpose::detail::best_pipe_sides) {
      for (index_t hw : {8200, 8201, 20011}) {
        const std::uint64_t seed = static_cast<std::uint64_t>(c * 11 + hw + es);
        for (const matrix_desc& d : {matrix_desc::packed(c, hw, es, 3), matrix_desc::packed(hw, c, es, 3),
                                     padded(c, hw, es, 3, 1, 0, 5), padded(hw, c, es, 3, 0, 3, 7)})
          for (auto [oi, oo] : std::vector<std::pair<index_t, index_t>>{{0, 0}, {1, 0}, {0, 1}})
            check_best(d, seed + static_cast<std::uint64_t>(oi * 4 + oo), oi, oo);
        if (HasFatalFailure()) return;
      }
    }
  // Many slabs per resident block (a few hundred blocks fit): 2 x 16 MiB per call.
  for (int es : {1, 2}) {
    const index_t n = (index_t{2} << 20) / es + 3;
    check_best(matrix_desc::packed(8, n, es, 2), 150, 1, 0);
    check_best(matrix_desc::packed(n, 8, es, 2), 151, 0, 1);
    check_best(matrix_desc::packed(6, n, es, 2), 152, 0, 0);
    check_best(matrix_desc::packed(n, 6, es, 2), 153, 0, 0);
    check_best(matrix_desc::packed(7, n, es, 1), 154, 0, 1);
    check_best(matrix_desc::packed(n, 7, es, 1), 155, 1, 0);
    if (HasFatalFailure()) return;
  }
  // Micro-block gathers: short sides of whole chunks from the micro threshold up, HW even and
  // odd, the input offset by one element or padded, gapped batches of whole chunks.
  // Micro-block scatters, the output at any offset.
  for (int es : {1, 2}) {
    const index_t k = 16 / es;
    const index_t gmin = es == 1 ? 48 : 24;
    for (index_t c = gmin; gmin > 0 && c <= 128; c += c < 64 ? k : 32)
      for (index_t hw : {8200, 8201}) {
        const std::uint64_t seed = static_cast<std::uint64_t>(c * 13 + hw + es);
        check_best(matrix_desc::packed(c, hw, es, 3), seed, 0, 0);
        check_best(matrix_desc::packed(c, hw, es, 3), seed + 1, 1, k);
        check_best(padded(c, hw, es, 3, 3, 0, k), seed + 2, 3, 0);
        if (HasFatalFailure()) return;
      }
    const index_t smin = es == 1 ? 32 : 24;
    for (index_t c = smin; smin > 0 && c <= 128; c += c < 64 ? k : 32)
      for (index_t hw : {8192, 8200, 8201}) {
        const std::uint64_t seed = static_cast<std::uint64_t>(c * 19 + hw + es);
        check_best(matrix_desc::packed(hw, c, es, 3), seed, 0, 0);
        check_best(matrix_desc::packed(hw, c, es, 3), seed + 1, k, 1);
        check_best(matrix_desc::packed(hw, c, es, 3), seed + 2, k, k);
        check_best(padded(hw, c, es, 3, 0, 5, 2 * k), seed + 3, 0, 1);
        check_best(padded(hw, c, es, 3, 0, k, 2 * k), seed + 4, 0, 0);
        if (HasFatalFailure()) return;
      }
  }
  check_best(matrix_desc::packed(128, 1 << 18, 1, 1), 156, 0, 0);
  check_best(matrix_desc::packed(96, 50176, 2, 3), 159, 0, 0);
  check_best(matrix_desc::packed(1 << 18, 128, 1, 1), 157, 0, 0);
  check_best(matrix_desc::packed(50176, 96, 1, 6), 158, 0, 0);
  check_best(matrix_desc::packed(50177, 96, 1, 6), 163, 0, 0);
  // The sweep's slowest rows, as the sweep runs them (packed, aligned buffers).
  check_best(matrix_desc::packed(7, 4793490, 1), 160, 0, 0);
  check_best(matrix_desc::packed(50177, 24, 1, 27), 161, 0, 0);
  check_best(matrix_desc::packed(24, 50176, 1, 27), 162, 0, 0);
}
