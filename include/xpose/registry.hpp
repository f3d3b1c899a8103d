// The variant registry: every GPU kernel of xpose (the teaching ladder, the
// ceilings and the fast path) is one row here. The CLI, the tests, the access
// model and the benchmarks iterate this table; adding a variant is one file plus one row.
#pragma once

#include <cstddef>
#include <string_view>

#include "xpose/xpose.hpp"

namespace xpose {

/// What a variant is for.
enum class variant_kind {
  reference,  ///< not a kernel of ours: the driver's cudaMemcpyAsync device-to-device
  ceiling,    ///< a copy kernel with the transposes' launch (the bar they are measured against)
  ladder,     ///< a teaching transpose (naive, tiled, ...)
  fast,       ///< the production path
};

/// Launch shape for the ladder kernels: 32x8 threads moving a 32x32 tile (4 elements
/// per thread, the default) or 32x32 threads (one element each). The fast path ignores it.
struct launch_options {
  int block_x = 32;
  int block_y = 8;
};

/// One registered variant.
struct variant_info {
  const char* name;         ///< CLI / API name, e.g. "tiled_padded"
  const char* description;  ///< one line
  variant_kind kind;
  bool transposes;          ///< false for copies: output mirrors the input's layout
  unsigned elem_sizes;      ///< bit mask of supported element sizes (1|2|4|8|16)
  int min_cc;               ///< minimum compute capability, major*10+minor
  int pattern;              ///< maps::pattern of its index maps, -1 when it has none
  bool uses_block_shape;    ///< launch_options.block_y is honoured
};

/// Iterable view over the registry.
struct variant_list {
  const variant_info* first;
  std::size_t count;
  const variant_info* begin() const noexcept { return first; }
  const variant_info* end() const noexcept { return first + count; }
  std::size_t size() const noexcept { return count; }
};

/// Every registered variant, in ladder order.
variant_list variants() noexcept;

/// The row named `name`, or nullptr.
const variant_info* find_variant(std::string_view name) noexcept;

/// True when `v` supports `elem_size` bytes.
inline bool supports_elem_size(const variant_info& v, int elem_size) noexcept {
  return elem_size > 0 && elem_size <= 16 && (elem_size & (elem_size - 1)) == 0 &&
         (v.elem_sizes & static_cast<unsigned>(elem_size)) != 0;
}

/// Runs one named variant on the device, ordered on `stream`. Copy-shaped variants
/// (transposes == false) write each element at the same offset it was read from
/// (the output mirrors the input's layout; `stride_in` applies to both).
status transpose_variant(std::string_view name, const void* in, void* out,
                         const matrix_desc& desc, const launch_options& launch = {},
                         cudaStream_t stream = nullptr) noexcept;

}  // namespace xpose
