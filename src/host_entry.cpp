// Host entries of the public API: validation, then the CPU backend or the oracle.
#include "internal.hpp"

namespace xpose {

status transpose_host(const void* in, void* out, const matrix_desc& desc,
                      const host_options& options) noexcept {
  status s = detail::validate(in, out, desc, false);
  if (!s.ok() || detail::empty(desc)) return s;
  detail::blocked_transpose(in, out, desc, options.threads);
  return {};
}

status transpose_reference(const void* in, void* out, const matrix_desc& desc) noexcept {
  status s = detail::validate(in, out, desc, false);
  if (!s.ok() || detail::empty(desc)) return s;
  detail::reference_transpose(in, out, desc);
  return {};
}

}  // namespace xpose
