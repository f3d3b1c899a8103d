// Device entries for a build without the CUDA backend: validation still runs, so
// bad input reports its own status; valid input reports no_device.
#include "core/core.hpp"
#include "internal.hpp"

namespace xpose {

int device_count() noexcept { return 0; }
bool built_with_cuda() noexcept { return false; }

status transpose_variant(std::string_view name, const void* in, void* out, const matrix_desc& desc,
                         const launch_options&, cudaStream_t) noexcept {
  const variant_info* v = find_variant(name);
  if (v == nullptr)
    return status::make(status_code::unknown_variant, "no variant named '%.*s'", static_cast<int>(name.size()),
                        name.data());
  if (status s = detail::validate(in, out, desc, !v->transposes); !s.ok() || detail::empty(desc)) return s;
  return status::make(status_code::no_device, "xpose was built without CUDA: no device backend");
}

status transpose(const void* in, void* out, const matrix_desc& desc, cudaStream_t) noexcept {
  if (status s = detail::validate_desc(desc, false); !s.ok() || detail::empty(desc)) return s;
  plan p;
  if (status s = detail::plan_for(desc, &p); !s.ok()) return s;
  return execute(p, in, out, nullptr);
}

status execute(const plan& p, const void* in, void* out, cudaStream_t) noexcept {
  if (status s = detail::check_plan_pointers(p, in, out); !s.ok() || p.algo == algorithm::empty) return s;
  return status::make(status_code::no_device, "xpose was built without CUDA: no device backend");
}

}  // namespace xpose
