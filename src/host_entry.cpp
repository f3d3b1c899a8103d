// Host entries of the public API: validation, then the CPU backend or the oracle.
#include "core/core.hpp"
#include "internal.hpp"

namespace xpose {

status transpose_host(const void* in, void* out, const matrix_desc& desc,
                      const host_options& options) noexcept {
  status s = detail::validate(in, out, desc, false);
  if (!s.ok() || detail::empty(desc)) return s;
  plan p;
  if (s = detail::plan_for(desc, &p); !s.ok()) return s;
  return execute_host(p, in, out, options);
}

status transpose_reference(const void* in, void* out, const matrix_desc& desc) noexcept {
  status s = detail::validate(in, out, desc, false);
  if (!s.ok() || detail::empty(desc)) return s;
  detail::reference_transpose(in, out, desc);
  return {};
}

}  // namespace xpose
