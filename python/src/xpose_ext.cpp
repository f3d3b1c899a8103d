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

#if defined(XPOSE_HAS_JAX_FFI)
#include "xla/ffi/api/ffi.h"
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

// ---- XLA FFI handlers (JAX): out = permute(x, axes) on XLA's buffers ----------
// Registered by python/xpose/_jax.py for the "cpu" and "CUDA" platforms. The buffers
// are packed row-major. Leading axes of x beyond len(axes) are batch axes added by
// jax.vmap (vmap_method="broadcast_all"): they stay first, in order. The CUDA
// handler enqueues on XLA's stream and never synchronises.
#if defined(XPOSE_HAS_JAX_FFI)
namespace ffi = xla::ffi;

ffi::Error ffi_permute(ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> out, ffi::Span<const std::int64_t> axes,
                       std::int64_t conjugate, std::int64_t threads, void* stream, bool on_device) {
  const auto din = x.dimensions(), dout = out->dimensions();
  const std::int64_t rank = static_cast<std::int64_t>(din.size()), naxes = static_cast<std::int64_t>(axes.size());
  if (rank > xpose::layout::max_rank || naxes > rank || static_cast<std::int64_t>(dout.size()) != rank)
    return ffi::Error::InvalidArgument("xpose: bad_rank: input of rank " + std::to_string(rank) + " for " +
                                       std::to_string(naxes) + " axes");
  const int es = static_cast<int>(ffi::ByteWidth(x.element_type()));
  const std::int64_t batch = rank - naxes;
  int full[xpose::layout::max_rank];
  for (std::int64_t k = 0; k < rank; ++k) full[k] = static_cast<int>(k < batch ? k : axes[k - batch] + batch);
  const xpose::layout li = xpose::layout::packed(static_cast<int>(rank), din.begin(), es);
  const xpose::layout lo = xpose::layout::packed(static_cast<int>(rank), dout.begin(), es);
  xpose::plan p;
  xpose::plan_options po;
  po.conjugate = conjugate != 0;
  xpose::status s = xpose::make_plan(li, lo, full, static_cast<int>(rank), po, &p);
  if (s.ok()) {
    if (on_device) {
      s = xpose::execute(p, x.untyped_data(), out->untyped_data(), static_cast<cudaStream_t>(stream));
    } else {
      xpose::host_options opt;
      opt.threads = static_cast<int>(threads);
      s = xpose::execute_host(p, x.untyped_data(), out->untyped_data(), opt);
    }
  }
  if (s.ok()) return ffi::Error::Success();
  return ffi::Error::InvalidArgument(std::string("xpose: ") + xpose::to_string(s.code()) + ": " + s.message());
}

ffi::Error ffi_permute_cpu(ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> out, ffi::Span<const std::int64_t> axes,
                           std::int64_t conjugate, std::int64_t threads) {
  return ffi_permute(x, out, axes, conjugate, threads, nullptr, false);
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(xpose_ffi_permute_cpu, ffi_permute_cpu,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<ffi::Span<const std::int64_t>>("axes")
                                  .Attr<std::int64_t>("conjugate")
                                  .Attr<std::int64_t>("threads"));

#if defined(XPOSE_HAS_CUDA)
ffi::Error ffi_permute_cuda(void* stream, ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> out,
                            ffi::Span<const std::int64_t> axes, std::int64_t conjugate, std::int64_t threads) {
  return ffi_permute(x, out, axes, conjugate, threads, stream, true);
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(xpose_ffi_permute_cuda, ffi_permute_cuda,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<void*>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<ffi::Span<const std::int64_t>>("axes")
                                  .Attr<std::int64_t>("conjugate")
                                  .Attr<std::int64_t>("threads"));
#endif

/// {platform: capsule of the handler} for jax.ffi.register_ffi_target.
nb::dict jax_ffi_handlers() {
  nb::dict d;
  d["cpu"] = nb::capsule(reinterpret_cast<void*>(xpose_ffi_permute_cpu));
#if defined(XPOSE_HAS_CUDA)
  d["CUDA"] = nb::capsule(reinterpret_cast<void*>(xpose_ffi_permute_cuda));
#endif
  return d;
}
#endif  // XPOSE_HAS_JAX_FFI

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
  m.def("device_count", &xpose::device_count, "Number of usable CUDA devices (0 without a GPU).");
  m.def("built_with_cuda", &xpose::built_with_cuda, "True when the CUDA backend was compiled in.");
  // In-place transpose (issue 14).
  m.def("inplace_workspace_bytes", &inplace_workspace_bytes, "shape"_a, "strides"_a.none(), "elem_size"_a,
        "device"_a, "Workspace bytes an in-place transpose of this array needs.");
  m.def("transpose_inplace", &transpose_inplace, "x"_a, "shape"_a, "strides"_a.none(), "elem_size"_a, "ws"_a,
        "ws_bytes"_a, "device"_a = -1, "stream"_a = 0, "threads"_a = 0,
        "Transposes the last two axes of `x` in place; `ws` is the address of `ws_bytes` of "
        "workspace on x's device.");
#if defined(XPOSE_HAS_JAX_FFI)
  m.def("jax_ffi_handlers", &jax_ffi_handlers,
        "{platform: PyCapsule} of the XLA FFI permute handler, for jax.ffi.register_ffi_target.");
#endif
}
