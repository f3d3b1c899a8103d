// In-place device entry of a build without CUDA: validation still runs, so bad
// input reports its own status; valid input reports no_device.
#include "inplace_internal.hpp"

namespace xpose {

status transpose_inplace(void* data, const matrix_desc& desc, void* workspace, std::size_t workspace_bytes,
                         cudaStream_t) noexcept {
  if (status s = detail::validate_inplace(data, desc, workspace, workspace_bytes, true);
      !s.ok() || detail::empty(desc))
    return s;
  return status::make(status_code::no_device, "xpose was built without CUDA: no device backend");
}

}  // namespace xpose
