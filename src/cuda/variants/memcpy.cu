// Reference row `memcpy`: the driver's device-to-device copy of the input's extent
// (its layout mirrored, gaps included), as the bar every kernel is compared with.
#include "../common.cuh"

namespace xpose::detail {

status launch_memcpy(const void* in, void* out, const matrix_desc& d, const launch_options&,
                     cudaStream_t stream) {
  const auto bytes = static_cast<size_t>(in_extent(d)) * static_cast<size_t>(d.elem_size);
  return cuda_status(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, stream),
                     "cudaMemcpyAsync");
}

}  // namespace xpose::detail
