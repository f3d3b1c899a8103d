// Uses the installed package: a 2x3 host transpose, checked element by element.
#include <xpose/version.hpp>
#include <xpose/xpose.hpp>

#include <cstdio>
#include <cstring>

int main() {
  if (std::strcmp(xpose::version(), XPOSE_VERSION_STRING) != 0) {
    std::printf("xpose::version() %s, header %s\n", xpose::version(), XPOSE_VERSION_STRING);
    return 1;
  }
  const float in[6] = {1, 2, 3, 4, 5, 6};  // 2 x 3
  float out[6] = {};
  const xpose::status s = xpose::transpose_host(in, out, 2, 3);
  const float want[6] = {1, 4, 2, 5, 3, 6};  // 3 x 2
  if (!s.ok()) {
    std::printf("transpose_host failed: %s\n", s.message());
    return 1;
  }
  for (int i = 0; i < 6; ++i)
    if (out[i] != want[i]) {
      std::printf("mismatch at %d\n", i);
      return 1;
    }
  std::printf("consumer ok (xpose %s, device backend built: %s, devices: %d)\n",
              xpose::version(), xpose::built_with_cuda() ? "yes" : "no", xpose::device_count());
  return 0;
}
