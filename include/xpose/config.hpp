// Build-wide macros shared by host and device code.
// XPOSE_HD marks index math that runs on both sides; it is empty in a host-only build.
#pragma once

#if defined(__CUDACC__)
#define XPOSE_HD __host__ __device__
#else
#define XPOSE_HD
#endif

#include <cstdint>

namespace xpose {
using index_t = std::int64_t;  // every size and offset is 64-bit
}  // namespace xpose
