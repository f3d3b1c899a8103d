// Public permute entries, shared by the host and device halves: plan, then execute.
#include "core.hpp"

namespace xpose {

status permute(const void* in, void* out, const layout& in_layout, const int* axes, int naxes,
               cudaStream_t stream) noexcept {
  return permute(in, out, in_layout, permuted_packed(in_layout, axes, naxes), axes, naxes, {}, stream);
}

status permute(const void* in, void* out, const layout& in_layout, const layout& out_layout, const int* axes,
               int naxes, const plan_options& options, cudaStream_t stream) noexcept {
  plan p;
  if (status s = make_plan(in_layout, out_layout, axes, naxes, options, &p); !s.ok()) return s;
  return execute(p, in, out, stream);
}

status permute_host(const void* in, void* out, const layout& in_layout, const int* axes, int naxes,
                    const host_options& options) noexcept {
  return permute_host(in, out, in_layout, permuted_packed(in_layout, axes, naxes), axes, naxes, {}, options);
}

status permute_host(const void* in, void* out, const layout& in_layout, const layout& out_layout, const int* axes,
                    int naxes, const plan_options& plan_opts, const host_options& options) noexcept {
  int threads = 0;
  if (status s = check_host_options(options, &threads); !s.ok()) return s;
  plan p;
  if (status s = make_plan(in_layout, out_layout, axes, naxes, plan_opts, &p); !s.ok()) return s;
  return detail::run_plan_host(p, in, out, threads);
}

}  // namespace xpose
