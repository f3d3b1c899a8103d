// xpose::version(): the project version the library was built as (the generated
// xpose/version.hpp, from CMakeLists.txt's project(VERSION)).
#include "xpose/version.hpp"

#include "xpose/xpose.hpp"

namespace xpose {

const char* version() noexcept { return XPOSE_VERSION_STRING; }

}  // namespace xpose
