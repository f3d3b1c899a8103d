# Finds Google Highway and defines the target hwy::hwy: Highway's own CMake package
# first (hwy-config.cmake), else pkg-config's libhwy. Included by the build and by the
# installed xposeConfig.cmake, so a consumer finds the same library the same way.
# (A cross build takes pkg-config only: the toolchain file points it at the target's
# multiarch directory, while hwy-config.cmake would name the build machine's headers.)
if(NOT TARGET hwy::hwy AND NOT CMAKE_CROSSCOMPILING)
  find_package(hwy CONFIG QUIET)
endif()
if(NOT TARGET hwy::hwy)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(HWY QUIET IMPORTED_TARGET libhwy)
    if(HWY_FOUND)
      add_library(hwy::hwy INTERFACE IMPORTED)
      target_link_libraries(hwy::hwy INTERFACE PkgConfig::HWY)
    endif()
  endif()
endif()
