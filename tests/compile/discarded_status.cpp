// Must not compile under -Werror=unused-result: a discarded status.
#include <xpose/xpose.hpp>

bool g(const float* in, float* out) {
#if defined(XPOSE_SNIPPET_OK)
  return xpose::transpose_host(in, out, 4, 4).ok();
#else
  xpose::transpose_host(in, out, 4, 4);
  return true;
#endif
}
