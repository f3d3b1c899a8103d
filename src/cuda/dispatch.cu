// Device entries: discovery, pointer checks, and dispatch of a named variant to
// its launcher (the launcher table is built from src/variants.def).
#include <atomic>
#include <string_view>

#include "../core/core.hpp"
#include "../core/nd_map.hpp"
#include "common.cuh"
#include "policy.hpp"

namespace xpose::detail {
#define XPOSE_VARIANT(name, launcher, kind, transposes, sizes, cc, pattern, block, desc) \
  status launcher(const void*, void*, const matrix_desc&, const launch_options&, cudaStream_t);
#include "../variants.def"
#undef XPOSE_VARIANT

namespace {

constexpr launcher_fn launchers[] = {
#define XPOSE_VARIANT(name, launcher, kind, transposes, sizes, cc, pattern, block, desc) &launcher,
#include "../variants.def"
#undef XPOSE_VARIANT
};

// Compute capability and SM count per device, read once (0 = not read yet).
std::atomic<int> cc_cache[64], sm_cache[64];

}  // namespace

status current_device(int* dev_out, int* cc) {
  int dev = 0;
  if (status s = cuda_status(cudaGetDevice(&dev), "cudaGetDevice"); !s.ok()) return s;
  *dev_out = dev;
  if (dev >= 0 && dev < 64 && cc_cache[dev].load(std::memory_order_relaxed) != 0) {
    *cc = cc_cache[dev].load(std::memory_order_relaxed);
    return {};
  }
  int major = 0, minor = 0;
  if (status s = cuda_status(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev),
                             "cudaDeviceGetAttribute");
      !s.ok())
    return s;
  if (status s = cuda_status(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev),
                             "cudaDeviceGetAttribute");
      !s.ok())
    return s;
  *cc = major * 10 + minor;
  if (dev >= 0 && dev < 64) cc_cache[dev].store(*cc, std::memory_order_relaxed);
  return {};
}

status current_sms(int* sms) {
  int dev = 0;
  if (status s = cuda_status(cudaGetDevice(&dev), "cudaGetDevice"); !s.ok()) return s;
  if (dev >= 0 && dev < 64 && sm_cache[dev].load(std::memory_order_relaxed) != 0) {
    *sms = sm_cache[dev].load(std::memory_order_relaxed);
    return {};
  }
  if (status s = cuda_status(cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute");
      !s.ok())
    return s;
  if (dev >= 0 && dev < 64) sm_cache[dev].store(*sms, std::memory_order_relaxed);
  return {};
}

namespace {

// The device entry takes only memory the GPU can address with the same pointer.
status check_device_pointer(const void* p, const char* which) {
  cudaPointerAttributes attr{};
  const cudaError_t e = cudaPointerGetAttributes(&attr, p);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return status::make(status_code::not_device_memory, "%s pointer %p: cudaPointerGetAttributes: %s",
                        which, p, cudaGetErrorName(e));
  }
  const bool ok = attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ||
                  (attr.type == cudaMemoryTypeHost && attr.devicePointer == p);
  if (!ok)
    return status::make(status_code::not_device_memory,
                        "%s pointer %p is host memory the GPU cannot access: use transpose_host, "
                        "or pass device memory",
                        which, p);
  return {};
}

}  // namespace

status run_variant(const variant_info& v, std::size_t index, const void* in, void* out,
                   const matrix_desc& d, const launch_options& l, cudaStream_t stream) {
  if (status s = validate(in, out, d, !v.transposes); !s.ok() || empty(d)) return s;
  if (!supports_elem_size(v, d.elem_size))
    return status::make(status_code::unsupported_variant, "variant %s does not support %d-byte elements",
                        v.name, d.elem_size);
  if (device_count() == 0)
    return status::make(status_code::no_device, "no CUDA device is available");
  int dev = 0, cc = 0;
  if (status s = current_device(&dev, &cc); !s.ok()) return s;
  if (cc < v.min_cc)
    return status::make(status_code::unsupported_variant, "variant %s needs compute capability %d.%d (device has %d.%d)",
                        v.name, v.min_cc / 10, v.min_cc % 10, cc / 10, cc % 10);
  if (status s = check_device_pointer(in, "input"); !s.ok()) return s;
  if (status s = check_device_pointer(out, "output"); !s.ok()) return s;
  return launchers[index](in, out, d, l, stream);
}

}  // namespace xpose::detail

namespace xpose {

int device_count() noexcept {
  // Any error (no driver: cudaErrorInsufficientDriver, no device, ...) means "no GPU".
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

bool built_with_cuda() noexcept { return true; }

status transpose_variant(std::string_view name, const void* in, void* out, const matrix_desc& desc,
                         const launch_options& launch, cudaStream_t stream) noexcept {
  const variant_list all = variants();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (name == all.first[i].name) return detail::run_variant(all.first[i], i, in, out, desc, launch, stream);
  return status::make(status_code::unknown_variant, "no variant named '%.*s'", static_cast<int>(name.size()),
                      name.data());
}

status execute(const plan& p, const void* in, void* out, cudaStream_t stream) noexcept {
  if (status s = detail::check_plan_pointers(p, in, out); !s.ok() || p.algo == algorithm::empty) return s;
  if (device_count() == 0) return status::make(status_code::no_device, "no CUDA device is available");
  if (status s = detail::check_device_pointer(in, "input"); !s.ok()) return s;
  if (status s = detail::check_device_pointer(out, "output"); !s.ok()) return s;
  return detail::launch_plan(p, in, out, stream);
}

}  // namespace xpose

namespace xpose::detail {

status launch_plan(const plan& p, const void* in, void* out, cudaStream_t stream) noexcept {
  switch (p.algo) {
    case algorithm::copy: {
      // Pointers apart modulo 16 bytes, one off the 4-byte grid: the row stream's realigned 16-byte stores over the
      // one row, where cudaMemcpyAsync ran at 0.63-0.74 of its aligned speed (copy_takes_row_stream).
      const index_t bytes = p.count * p.in.elem_size;
      if (p.out.rank == 1 && detail::copy_takes_row_stream(bytes, in, out)) {
        plan q = p;
        q.algo = algorithm::strided_copy;
        return detail::launch_strided_copy(q, in, out, stream);
      }
      return detail::cuda_status(
          cudaMemcpyAsync(out, in, static_cast<std::size_t>(bytes), cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
    }
    case algorithm::transpose_2d: {
      int dev = 0, cc = 0;
      if (status s = detail::current_device(&dev, &cc); !s.ok()) return s;
      // The policy's default variant: `best` where it is built and measured.
      return detail::default_kernel_for(cc, p.in.elem_size) == detail::default_kernel::best
                 ? detail::launch_best(in, out, p.desc, {}, stream)
                 : detail::launch_tiled_padded(in, out, p.desc, {}, stream);
    }
    case algorithm::strided_copy: return detail::launch_strided_copy(p, in, out, stream);
    case algorithm::permute_nd: return detail::launch_permute_nd(p, in, out, stream);
    default: return {};
  }
}

}  // namespace xpose::detail

namespace xpose {

status transpose(const void* in, void* out, const matrix_desc& desc, cudaStream_t stream) noexcept {
  // Shape rules first (a bad call reports its own status even without a GPU); the
  // pointers are execute's.
  if (status s = detail::validate_desc(desc, false); !s.ok() || detail::empty(desc)) return s;
  plan p;
  if (status s = detail::plan_for(desc, &p); !s.ok()) return s;
  return execute(p, in, out, stream);
}

}  // namespace xpose
