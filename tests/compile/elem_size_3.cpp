// Must not compile: a 3-byte element type through the typed entries.
#include <xpose/xpose.hpp>

struct rgb {
  unsigned char r, g, b;
};

xpose::status f(const rgb* in, rgb* out) {
#if defined(XPOSE_SNIPPET_OK)
  return xpose::transpose_host(reinterpret_cast<const unsigned char*>(in), reinterpret_cast<unsigned char*>(out), 4, 4);
#else
  return xpose::transpose_host(in, out, 4, 4);
#endif
}
