// xpose._xpose: the nanobind bridge to the C++ library. The Python layer
// (python/xpose/_api.py) allocates the output with the caller's framework and picks
// the stream; this file forwards addresses, shapes, strides (elements) and the stream
// to make_plan / execute and turns a status into an exception. It holds no rule of
// its own: every check is the core's (include/xpose/plan.hpp).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xpose/xpose.hpp"

#if defined(XPOSE_HAS_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace nb = nanobind;
using namespace nb::literals;

namespace {

[[noreturn]] void raise_status(const xpose::status& s) {
  std::string msg = std::string("xpose: ") + xpose::to_string(s.code()) + ": " + s.message();
  switch (s.code()) {
    case xpose::status_code::unsupported_elem_size: throw nb::type_error(msg.c_str());
    case xpose::status_code::no_device:
    case xpose::status_code::cuda_error: throw std::runtime_error(msg);
    default: throw nb::value_error(msg.c_str());
  }
}

[[noreturn]] void raise_value(const std::string& msg) { throw nb::value_error(("xpose: " + msg).c_str()); }

/// The address of an array: an int (torch data_ptr, cupy data.ptr), or any object with
/// the buffer protocol (NumPy: no ctypes object, no DLPack capsule on the hot path).
/// Only the address is read: the caller keeps the object alive for the call.
std::uintptr_t address_of(nb::handle h) {
  if (PyLong_Check(h.ptr())) return nb::cast<std::uintptr_t>(h);
  Py_buffer v;
  if (PyObject_GetBuffer(h.ptr(), &v, PyBUF_STRIDES) != 0) throw nb::python_error();
  const auto p = reinterpret_cast<std::uintptr_t>(v.buf);
  PyBuffer_Release(&v);
  return p;
}

/// Restores the caller's current CUDA device on scope exit.
struct device_guard {
#if defined(XPOSE_HAS_CUDA)
  int previous = -1;
  explicit device_guard(int device) {
    if (cudaGetDevice(&previous) != cudaSuccess) {
      cudaGetLastError();
      previous = -1;
    }
    if (previous != device) {
      const cudaError_t e = cudaSetDevice(device);
      if (e != cudaSuccess) {
        cudaGetLastError();
        throw std::runtime_error(std::string("xpose: cuda_error: cudaSetDevice(") + std::to_string(device) +
                                 "): " + cudaGetErrorString(e));
      }
    } else {
      previous = -1;  // nothing to restore
    }
  }
  ~device_guard() {
    if (previous >= 0) cudaSetDevice(previous);
  }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;
#else
  explicit device_guard(int) {}
#endif
};

void synchronize(int device, std::uintptr_t stream_handle) {
#if defined(XPOSE_HAS_CUDA)
  device_guard guard(device);
  nb::gil_scoped_release nogil;
  const cudaError_t e = cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream_handle));
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw std::runtime_error(std::string("xpose: cuda_error: cudaStreamSynchronize: ") + cudaGetErrorString(e));
  }
#else
  (void)device;
  (void)stream_handle;
#endif
}

// ---- One entry: pointers, shapes and strides (elements) in, status out. Every rule
// (ranks, axes, extents, strides, overlap, alignment, empty arrays) is the C++ core's.
// `strides` None means packed row-major (the common case costs no list on the way in).
using strides_arg = std::optional<std::vector<std::int64_t>>;

xpose::layout to_layout(const std::vector<std::int64_t>& shape, const strides_arg& strides, int elem_size) {
  const int rank = static_cast<int>(shape.size());
  xpose::layout l;
  l.rank = rank;  // > 16: make_plan reports bad_rank
  l.elem_size = elem_size;
  if (rank > xpose::layout::max_rank) return l;
  if (!strides) return xpose::layout::packed(rank, shape.data(), elem_size);
  if (strides->size() != shape.size()) raise_value("strides and shape have different lengths");
  for (int k = 0; k < rank && k < xpose::layout::max_rank; ++k) l.extents[k] = shape[k], l.strides[k] = (*strides)[k];
  return l;
}

/// Output shape of permute(x, axes) (np.transpose semantics); raises on bad axes.
std::vector<std::int64_t> permute_shape(const std::vector<std::int64_t>& shape, const std::vector<int>& axes,
                                        int elem_size) {
  std::vector<std::int64_t> unit(shape.size(), 0);
  const xpose::layout in = to_layout(shape, unit, elem_size);
  const int n = static_cast<int>(axes.size());
  const xpose::layout out = xpose::permuted_packed(in, axes.data(), n);
  xpose::plan p;
  if (xpose::status s = xpose::make_plan(in, out, axes.data(), n, {}, &p); !s.ok()) raise_status(s);
  return std::vector<std::int64_t>(out.extents, out.extents + out.rank);
}

/// out = permute(x, axes). `device` < 0: host memory (CPU backend), else the CUDA
/// device that holds both arrays; `stream` a cudaStream_t as an integer.
void permute(nb::handle x, nb::handle out, const std::vector<std::int64_t>& shape, const strides_arg& strides,
             const std::vector<std::int64_t>& out_shape, const strides_arg& out_strides, int elem_size,
             const std::vector<int>& axes, int device, std::uintptr_t stream, bool conjugate, int threads) {
  const xpose::layout li = to_layout(shape, strides, elem_size), lo = to_layout(out_shape, out_strides, elem_size);
  xpose::plan p;
  xpose::plan_options po;
  po.conjugate = conjugate;
  if (xpose::status s = xpose::make_plan(li, lo, axes.data(), static_cast<int>(axes.size()), po, &p); !s.ok())
    raise_status(s);
  const auto* src = reinterpret_cast<const void*>(address_of(x));
  auto* dst = reinterpret_cast<void*>(address_of(out));
  xpose::status s;
  if (device >= 0) {
    device_guard guard(device);
    nb::gil_scoped_release nogil;
    s = xpose::execute(p, src, dst, reinterpret_cast<cudaStream_t>(stream));
  } else {
    xpose::host_options opt;
    opt.threads = threads;
    nb::gil_scoped_release nogil;
    s = xpose::execute_host(p, src, dst, opt);
  }
  if (!s.ok()) raise_status(s);
}

// ---- In-place transpose (issue 14) -------------------------------------------

/// The packed (batch, rows, cols) matrix_desc of a 2-D or 3-D array with these
/// strides; the core's checks (not_packed, sizes) decide whether it is usable.
xpose::matrix_desc inplace_desc(const std::vector<std::int64_t>& shape, const strides_arg& strides, int es) {
  const int nd = static_cast<int>(shape.size());
  if (nd != 2 && nd != 3)
    raise_value("expected a 2-D matrix or a 3-D batch of matrices, got " + std::to_string(nd) + " dimensions");
  const std::int64_t B = nd == 3 ? shape[0] : 1, R = shape[nd - 2], C = shape[nd - 1];
  xpose::matrix_desc d = xpose::matrix_desc::packed(R, C, es, B);
  if (strides) {
    const auto& st = *strides;
    // A matrix_desc has unit column stride: any other one cannot be expressed.
    if (st.size() != shape.size() || (C > 1 && st[nd - 1] != 1))
      raise_status(xpose::status::make(xpose::status_code::not_packed,
                                       "an in-place transpose needs a C-contiguous array (unit stride along the last axis)"));
    if (R > 1) d.ld_in = st[nd - 2];
    if (nd == 3 && B > 1) d.stride_in = st[0];
  }
  return d;
}

/// Workspace bytes transpose_inplace needs for this array.
std::size_t inplace_workspace_bytes(const std::vector<std::int64_t>& shape, const strides_arg& strides, int es,
                                    bool device) {
  std::size_t bytes = 0;
  const xpose::status s = xpose::inplace_workspace_size(inplace_desc(shape, strides, es), device, &bytes);
  if (!s.ok()) raise_status(s);
  return bytes;
}

/// Transposes the last two axes of `x` in place; `ws` is the address of `ws_bytes`
/// of workspace on x's device (0 when none is needed).
void transpose_inplace(nb::handle x, const std::vector<std::int64_t>& shape, const strides_arg& strides, int es,
                       std::uintptr_t ws, std::size_t ws_bytes, int device, std::uintptr_t stream, int threads) {
  const xpose::matrix_desc d = inplace_desc(shape, strides, es);
  void* data = reinterpret_cast<void*>(address_of(x));
  void* w = reinterpret_cast<void*>(ws);
  xpose::status s;
  if (device >= 0) {
    device_guard guard(device);
    nb::gil_scoped_release nogil;
    s = xpose::transpose_inplace(data, d, w, ws_bytes, reinterpret_cast<cudaStream_t>(stream));
  } else {
    xpose::host_options opt;
    opt.threads = threads;
    nb::gil_scoped_release nogil;
    s = xpose::transpose_inplace_host(data, d, w, ws_bytes, opt);
  }
  if (!s.ok()) raise_status(s);
}

}  // namespace

NB_MODULE(_xpose, m) {
  m.doc() = "Low-level bindings of the xpose C++ library (use xpose.transpose instead).";
  m.attr("__version__") = xpose::version();  // the CMake project version
  m.def("permute_shape", &permute_shape, "shape"_a, "axes"_a, "elem_size"_a,
        "Output shape of permute(x, axes); raises ValueError on bad axes.");
  m.def("permute", &permute, "x"_a, "out"_a, "shape"_a, "strides"_a.none(), "out_shape"_a, "out_strides"_a.none(),
        "elem_size"_a, "axes"_a, "device"_a = -1, "stream"_a = 0, "conjugate"_a = false, "threads"_a = 0,
        "out = permute(x, axes). x, out: an address (int) or a buffer-protocol object; strides in "
        "elements, None for packed row-major; device -1 = host memory.");
  m.def("synchronize", &synchronize, "device"_a, "stream"_a, "cudaStreamSynchronize on `device`.");
  m.def("device_count", &xpose::device_count, "Number of usable CUDA devices (0 without a GPU).");
  m.def("built_with_cuda", &xpose::built_with_cuda, "True when the CUDA backend was compiled in.");
  // In-place transpose (issue 14).
  m.def("inplace_workspace_bytes", &inplace_workspace_bytes, "shape"_a, "strides"_a.none(), "elem_size"_a,
        "device"_a, "Workspace bytes an in-place transpose of this array needs.");
  m.def("transpose_inplace", &transpose_inplace, "x"_a, "shape"_a, "strides"_a.none(), "elem_size"_a, "ws"_a,
        "ws_bytes"_a, "device"_a = -1, "stream"_a = 0, "threads"_a = 0,
        "Transposes the last two axes of `x` in place; `ws` is the address of `ws_bytes` of "
        "workspace on x's device.");
}
