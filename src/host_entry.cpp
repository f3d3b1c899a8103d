// Host entries of the public API: validation, then the CPU backend or the oracle.
#include <algorithm>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "core/core.hpp"
#include "internal.hpp"

namespace xpose {

// libgomp exits or crashes when asked for tens of thousands of threads:
// the backend only ever sees a count checked here. The cap leaves room for
// oversubscription experiments, not for pathological counts.
int max_host_threads() noexcept {
#if defined(_OPENMP)
  // omp_get_num_procs() is a system call (~1 us): read once; tiny calls feel it.
  static const int cap = std::max(4 * omp_get_num_procs(), 256);
  return cap;
#else
  return 256;  // accepted for portability; the backend runs one thread
#endif
}

int host_threads(int requested) noexcept {
  if (requested < 0 || requested > max_host_threads()) return 0;
#if defined(_OPENMP)
  if (requested == 0) return std::clamp(omp_get_max_threads(), 1, max_host_threads());
  return requested;
#else
  return 1;
#endif
}

status check_host_options(const host_options& options, int* threads) noexcept {
  const int n = host_threads(options.threads);
  if (n == 0)
    return status::make(status_code::invalid_argument, "host_options.threads is %d: use 0 (default) to %d",
                        options.threads, max_host_threads());
  if (threads != nullptr) *threads = n;
  return {};
}

status transpose_host(const void* in, void* out, const matrix_desc& desc,
                      const host_options& options) noexcept {
  int threads = 0;
  if (status s = check_host_options(options, &threads); !s.ok()) return s;
  status s = detail::validate_desc(desc, false);  // the pointers: run_plan_host
  if (!s.ok() || detail::empty(desc)) return s;
  plan p;
  if (s = detail::plan_for(desc, &p); !s.ok()) return s;
  return detail::run_plan_host(p, in, out, threads);
}

status transpose_reference(const void* in, void* out, const matrix_desc& desc) noexcept {
  status s = detail::validate(in, out, desc, false, detail::host_align);
  if (!s.ok() || detail::empty(desc)) return s;
  detail::reference_transpose(in, out, desc);
  return {};
}

}  // namespace xpose
