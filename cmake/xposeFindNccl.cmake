# Finds NCCL (nccl.h, libnccl) beside the CUDA toolkit or under $NCCL_HOME and defines
# the target NCCL::nccl. Included by the build and by the installed xposeConfig.cmake.
if(NOT TARGET NCCL::nccl)
  find_path(XPOSE_NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV NCCL_HOME PATH_SUFFIXES include)
  find_library(XPOSE_NCCL_LIB nccl HINTS ${CUDAToolkit_LIBRARY_DIR} ENV NCCL_HOME PATH_SUFFIXES lib lib64)
  if(XPOSE_NCCL_INCLUDE AND XPOSE_NCCL_LIB)
    add_library(NCCL::nccl UNKNOWN IMPORTED)
    set_target_properties(NCCL::nccl PROPERTIES IMPORTED_LOCATION "${XPOSE_NCCL_LIB}"
                                                INTERFACE_INCLUDE_DIRECTORIES "${XPOSE_NCCL_INCLUDE}")
  endif()
endif()
