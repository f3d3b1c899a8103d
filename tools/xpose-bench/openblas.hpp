// OpenBLAS for the CPU baselines, loaded with dlopen only when a harness reaches its
// OpenBLAS phase: linked in, its thread pool would start with the program and spin
// against the OpenMP memcpy that is the ceiling and corrupt that baseline.
#pragma once

#include <string>

#if defined(XPOSE_HAVE_OPENBLAS)
#include <cblas.h>
#endif

namespace xbench {

struct openblas_lib {
  bool loaded = false;
  std::string why;  ///< why not loaded
#if defined(XPOSE_HAVE_OPENBLAS)
  decltype(&cblas_somatcopy) s = nullptr;
  decltype(&cblas_domatcopy) d = nullptr;
  decltype(&cblas_comatcopy) c = nullptr;
  decltype(&cblas_zomatcopy) z = nullptr;
  decltype(&cblas_simatcopy) si = nullptr;
  decltype(&cblas_dimatcopy) di = nullptr;
  decltype(&cblas_cimatcopy) ci = nullptr;
  decltype(&cblas_zimatcopy) zi = nullptr;
  void (*set_threads)(int) = nullptr;
#endif
};

/// Loads OpenBLAS (once per process; later calls return the same table) and sets
/// its thread count explicitly.
const openblas_lib& load_openblas(int threads);

}  // namespace xbench
