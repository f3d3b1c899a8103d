// Dispatch policy: which registered variant the plain API runs, as data.
// Each entry cites the measurement that chose it (docs/RESULTS.md).
#pragma once

namespace xpose::detail {

/// Variant run by xpose::transpose() for a device of compute capability `cc`
/// (major*10+minor) and `elem_size`-byte elements.
constexpr const char* default_variant(int /*cc*/, int /*elem_size*/) {
  // Until the fast path lands, the conflict-free padded tile is the best rung of
  // the ladder (measured on the H200: see docs/RESULTS.md, "lab" tables).
  return "tiled_padded";
}

}  // namespace xpose::detail
