// dlopen of OpenBLAS for the CPU baselines (openblas.hpp says why).
#include "openblas.hpp"

#if defined(XPOSE_HAVE_OPENBLAS)
#include <dlfcn.h>
#endif

namespace xbench {

const openblas_lib& load_openblas(int threads) {
  static const openblas_lib lib = [] {
    openblas_lib l;
#if defined(XPOSE_HAVE_OPENBLAS)
    void* h = dlopen(XPOSE_OPENBLAS_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      l.why = "unavailable: cannot load " XPOSE_OPENBLAS_PATH;
      return l;
    }
    auto sym = [h](auto& f, const char* name) { f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(h, name)); };
    sym(l.s, "cblas_somatcopy"), sym(l.d, "cblas_domatcopy"), sym(l.c, "cblas_comatcopy"), sym(l.z, "cblas_zomatcopy");
    sym(l.si, "cblas_simatcopy"), sym(l.di, "cblas_dimatcopy"), sym(l.ci, "cblas_cimatcopy"), sym(l.zi, "cblas_zimatcopy");
    sym(l.set_threads, "openblas_set_num_threads");
    l.loaded = l.s && l.d && l.c && l.z && l.si && l.di && l.ci && l.zi && l.set_threads;
    if (!l.loaded) l.why = "unavailable: ?omatcopy / ?imatcopy not found in " XPOSE_OPENBLAS_PATH;
#else
    l.why = "unavailable: built without OpenBLAS";
#endif
    return l;
  }();
#if defined(XPOSE_HAVE_OPENBLAS)
  // The same thread count as the other rows, set explicitly.
  if (lib.loaded) lib.set_threads(threads);
#else
  (void)threads;
#endif
  return lib;
}

}  // namespace xbench
