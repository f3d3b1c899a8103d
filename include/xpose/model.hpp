// The memory-access model of the teaching ladder (host only, no GPU needed): it runs
// a variant's own index maps (xpose/index_map.hpp) for every lane of every warp and
// counts what Nsight Compute measures: global 32-byte sectors per warp instruction and
// shared-memory wavefronts (bank conflicts). Walking every tile, the same evaluation
// checks that the maps realise the transpose (each output written once, from the
// right input). Assumes one matrix (no batch) and 256-byte-aligned base pointers.
#pragma once

#include <array>
#include <cstdint>

#include "xpose/config.hpp"
#include "xpose/status.hpp"

namespace xpose::model {

/// The four memory instructions of a ladder kernel. Unstaged rungs (copy, naive,
/// naive_read) have only the two global ones.
enum class access : int { global_load = 0, smem_store = 1, smem_load = 2, global_store = 3 };

/// Short name: "global_load", "smem_store", "smem_load", "global_store".
const char* to_string(access a) noexcept;

// ---------------------------------------------------------------------------
// One warp instruction: the hardware's counting rules
// ---------------------------------------------------------------------------

/// Byte address of each lane's access in one warp instruction; `inactive` for a
/// lane that is predicated off.
using lane_addresses = std::array<std::int64_t, 32>;
inline constexpr std::int64_t inactive = -1;

/// Distinct 32-byte aligned sectors touched by the active lanes' byte ranges
/// [address, address + elem_size): what L1 requests from L2 for a global access.
int global_sectors(const lane_addresses& lanes, int elem_size) noexcept;

/// Shared-memory cost of one warp instruction (32 banks of 4 bytes).
struct smem_cost {
  int wavefronts = 0;      ///< passes the shared-memory pipe needs
  int min_wavefronts = 0;  ///< passes without any conflict (one per active lane group)
};

/// Wavefronts of one shared access. Lanes are served in groups that move at most
/// 128 bytes: the whole warp for 1-, 2- and 4-byte elements, half-warps for 8-byte,
/// quarter-warps for 16-byte. Within a group, lanes reading the same 32-bit word
/// share it (broadcast); distinct words in one bank are serialised, so a group costs
/// as many wavefronts as its most loaded bank holds distinct words.
smem_cost smem_wavefronts(const lane_addresses& lanes, int elem_size) noexcept;

// ---------------------------------------------------------------------------
// A whole launch
// ---------------------------------------------------------------------------

/// What is modelled: a ladder rung on one rows x cols matrix.
struct config {
  int pattern = 0;    ///< maps::pattern (the registry's variant_info::pattern); < 0 has no model
  int elem_size = 4;  ///< bytes: 1, 2, 4, 8 or 16
  int block_y = 8;    ///< threads along y; blockDim = (32, block_y), block_y divides 32
  index_t rows = 0;
  index_t cols = 0;
  index_t ld_in = 0;   ///< 0: packed (cols)
  index_t ld_out = 0;  ///< 0: packed (rows for a transpose; copies use ld_in)
};

/// Totals of one memory instruction over the whole grid. Requests are warp
/// instructions with at least one active lane (what the hardware issues).
struct access_totals {
  std::int64_t requests = 0;
  std::int64_t bytes_used = 0;      ///< active lanes x element size
  std::int64_t sectors = 0;         ///< global: 32-byte sectors fetched / written
  std::int64_t wavefronts = 0;      ///< shared: passes through the banks
  std::int64_t min_wavefronts = 0;  ///< shared: passes had there been no conflict
  int max_sectors = 0;              ///< worst single warp instruction
  int max_wavefronts = 0;           ///< worst single warp instruction

  /// Global sectors per warp instruction (0 without requests).
  double sectors_per_request() const noexcept;
  /// Bytes the lanes asked for / bytes the sectors moved (1 = fully coalesced).
  double efficiency() const noexcept;
  /// Bank-conflict degree: wavefronts / conflict-free wavefronts (1 = conflict-free).
  double ways() const noexcept;
  /// Extra wavefronts, what ncu's l1tex__data_bank_conflicts_* counters count.
  std::int64_t bank_conflicts() const noexcept { return wavefronts - min_wavefronts; }
};

/// The model's answer for one launch.
struct prediction {
  bool staged = false;  ///< the rung goes through shared memory
  access_totals global_load, smem_store, smem_load, global_store;
  const access_totals& operator[](access a) const noexcept;
  access_totals& operator[](access a) noexcept;
};

/// Checks `c` (pattern, element size, block shape, sizes, leading dimensions).
/// A negative pattern (e.g. memcpy or a fast-path row) is `unsupported_variant`.
status check(const config& c) noexcept;

/// Predicted totals over the whole grid, exact. Cheap for any size: every tile is
/// the first tile shifted by whole tiles, which moves each global address by a
/// multiple of 32 bytes (32 x leading dimension x element size) and leaves shared
/// addresses alone, so tiles of one class (interior, right edge, bottom edge,
/// corner) cost the same; one tile per class is evaluated and multiplied.
status predict(const config& c, prediction& out) noexcept;

/// Result of walking every tile of the launch.
struct walk_result {
  prediction totals;   ///< equal to predict()'s (the tests hold them to it)
  bool bijective = false;  ///< every output element written exactly once, from the right input
  char first_error[160] = {};  ///< the first violation found, empty when bijective
};

/// Evaluates every lane of every warp of every block in launch order (the kernel's
/// own tile visit, shared staging and barrier included), counting as predict() does
/// and recording where each element goes; then checks the data movement is the
/// transpose (or, for copy rungs, the copy). Memory and time grow with rows x cols:
/// meant for tests on small ragged shapes.
status walk(const config& c, walk_result& out) noexcept;

/// Cost of one warp instruction: access `a` of step i (the tile row the warp handles,
/// 0 <= i < 32) in the tile whose top-left input element is (r0, c0). For global
/// accesses `smem_cost` is empty and the sectors are returned; for shared ones the
/// sector count is 0. Inactive warps (no lane inside the matrix) cost nothing.
struct warp_cost {
  int active_lanes = 0;
  int sectors = 0;
  smem_cost smem;
};
status warp_instruction(const config& c, access a, index_t r0, index_t c0, int i,
                        warp_cost& out) noexcept;

}  // namespace xpose::model
