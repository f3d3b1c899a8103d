// In-place transpose internals shared by the host and CUDA halves.
#pragma once

#include <cstddef>

#include "../internal.hpp"

namespace xpose::detail {

/// Checks an in-place call before anything is touched: the desc (packed, sizes),
/// the data pointer and the workspace against what the size query asks for. `need`,
/// where given, receives that size (0 for an empty desc or a failed check).
status validate_inplace(const void* data, const matrix_desc& d, const void* workspace,
                        std::size_t workspace_bytes, bool device, std::size_t* need = nullptr) noexcept;

/// Bytes of one matrix of a validated desc.
inline std::size_t matrix_bytes(const matrix_desc& d) noexcept {
  return static_cast<std::size_t>(d.rows) * static_cast<std::size_t>(d.cols) * static_cast<std::size_t>(d.elem_size);
}

/// CPU backend of the in-place transpose; a validated, non-empty desc, `threads`
/// from check_host_options (1..max_host_threads()).
void inplace_host(void* data, const matrix_desc& d, void* workspace, std::size_t workspace_bytes,
                  int threads) noexcept;

}  // namespace xpose::detail
