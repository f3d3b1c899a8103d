// xpose._xpose: the nanobind bridge to the C++ library. The Python layer
// (python/xpose/_api.py) picks the framework's allocator and the stream; this file
// forwards addresses, shapes, strides (elements) and the stream to make_plan / execute
// and turns a status into an exception. It holds no rule of its own: every check is
// the core's (include/xpose/plan.hpp), and axes it does not take as they are go to the
// Python validator (xpose._api._permute_axes).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstring>
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

/// make_plan through a small per-thread cache: a plan is a plain value that depends on
/// the layouts, the axes and the options only, and small calls repeat them.
xpose::status cached_plan(const xpose::layout& li, const xpose::layout& lo, const int* axes, int n, bool conjugate,
                          xpose::plan* p) {
  struct entry {
    xpose::layout in, out;
    int axes[xpose::layout::max_rank];
    int n = -1;
    bool conjugate = false;
    xpose::plan plan;
  };
  constexpr int ways = 8;
  thread_local entry cache[ways];
  thread_local int next = 0;
  const auto same = [](const xpose::layout& a, const xpose::layout& b) {
    if (a.rank != b.rank || a.elem_size != b.elem_size) return false;
    for (int k = 0; k < a.rank; ++k)
      if (a.extents[k] != b.extents[k] || a.strides[k] != b.strides[k]) return false;
    return true;
  };
  const bool cacheable = n >= 0 && n <= xpose::layout::max_rank && li.rank <= xpose::layout::max_rank &&
                         lo.rank <= xpose::layout::max_rank;
  if (cacheable) {
    for (const entry& e : cache)
      if (e.n == n && e.conjugate == conjugate && std::equal(axes, axes + n, e.axes) && same(e.in, li) &&
          same(e.out, lo)) {
        *p = e.plan;
        return {};
      }
  }
  xpose::plan_options po;
  po.conjugate = conjugate;
  const xpose::status s = xpose::make_plan(li, lo, axes, n, po, p);
  if (s.ok() && cacheable) {
    entry& e = cache[next];
    next = (next + 1) % ways;
    e.in = li, e.out = lo, e.n = n, e.conjugate = conjugate, e.plan = *p;
    std::copy(axes, axes + n, e.axes);
  }
  return s;
}

/// Host copies below this size keep the GIL: releasing and taking it back costs more
/// than they do.
constexpr xpose::index_t nogil_bytes = 64 << 10;

void run_plan(const xpose::plan& p, const void* src, void* dst, int device, std::uintptr_t stream, int threads) {
  xpose::status s;
  if (device >= 0) {
    device_guard guard(device);
    nb::gil_scoped_release nogil;
    s = xpose::execute(p, src, dst, reinterpret_cast<cudaStream_t>(stream));
  } else {
    xpose::host_options opt;
    opt.threads = threads;
    if (p.out_bytes < nogil_bytes) {
      s = xpose::execute_host(p, src, dst, opt);
    } else {
      nb::gil_scoped_release nogil;
      s = xpose::execute_host(p, src, dst, opt);
    }
  }
  if (!s.ok()) raise_status(s);
}

/// out = permute(x, axes). `device` < 0: host memory (CPU backend), else the CUDA
/// device that holds both arrays; `stream` a cudaStream_t as an integer.
void permute(nb::handle x, nb::handle out, const std::vector<std::int64_t>& shape, const strides_arg& strides,
             const std::vector<std::int64_t>& out_shape, const strides_arg& out_strides, int elem_size,
             const std::vector<int>& axes, int device, std::uintptr_t stream, bool conjugate, int threads) {
  const xpose::layout li = to_layout(shape, strides, elem_size), lo = to_layout(out_shape, out_strides, elem_size);
  xpose::plan p;
  if (xpose::status s = cached_plan(li, lo, axes.data(), static_cast<int>(axes.size()), conjugate, &p); !s.ok())
    raise_status(s);
  run_plan(p, reinterpret_cast<const void*>(address_of(x)), reinterpret_cast<void*>(address_of(out)), device, stream,
           threads);
}

// ---- One call per small transpose (host overhead) ----------------------------------
// permute_new and permute_buffer validate the axes, plan, allocate the output with the
// caller's framework and run, in one call from Python. Axes that are not a tuple or
// list of in-range, distinct Python ints (NumPy integers, arrays, bools, floats, ...)
// go to xpose._api._permute_axes, which normalises them or raises what xpose.permute
// raises for them.

/// axes (None, or np.transpose's forms) as `ndim` normalised axes into `ax`.
void normalise_axes(nb::handle axes, int ndim, int* ax) {
  if (axes.is_none()) {
    for (int k = 0; k < ndim; ++k) ax[k] = ndim - 1 - k;
    return;
  }
  PyObject* o = axes.ptr();
  if ((PyTuple_CheckExact(o) || PyList_CheckExact(o)) && PySequence_Fast_GET_SIZE(o) == ndim) {
    PyObject** items = PySequence_Fast_ITEMS(o);
    unsigned seen = 0;
    int k = 0;
    for (; k < ndim; ++k) {
      if (!PyLong_CheckExact(items[k])) break;
      int overflow = 0;
      long a = PyLong_AsLongAndOverflow(items[k], &overflow);
      if (overflow || a < -ndim || a >= ndim) break;
      if (a < 0) a += ndim;
      if (seen & (1u << a)) break;
      seen |= 1u << a;
      ax[k] = static_cast<int>(a);
    }
    if (k == ndim) return;
  }
  const nb::object got = nb::module_::import_("xpose._api").attr("_permute_axes")(ndim, axes);
  if (nb::len(got) != static_cast<std::size_t>(ndim)) raise_value("bad_axes: wrong number of axes");
  for (int k = 0; k < ndim; ++k) ax[k] = nb::cast<int>(got[k]);
}

/// The address of an output: an int, a buffer-protocol object, or data_ptr() (torch).
std::uintptr_t out_address(nb::handle out) {
  if (PyLong_Check(out.ptr()) || PyObject_CheckBuffer(out.ptr())) return address_of(out);
  return nb::cast<std::uintptr_t>(out.attr("data_ptr")());
}

/// Plans permute(in, axes) to a new packed array, allocates it with empty(shape, dtype), or
/// empty(*shape) without a dtype, and runs. `li.rank` <= max_rank.
nb::object permute_into_new(const void* src, const xpose::layout& li, nb::handle axes, nb::handle empty,
                            nb::handle dtype, int device, std::uintptr_t stream, bool conjugate, int threads) {
  const int n = li.rank;
  int ax[xpose::layout::max_rank];
  normalise_axes(axes, n, ax);
  xpose::index_t ext[xpose::layout::max_rank];
  for (int k = 0; k < n; ++k) ext[k] = li.extents[ax[k]];
  const xpose::layout lo = xpose::layout::packed(n, ext, li.elem_size);
  xpose::plan p;
  if (xpose::status s = cached_plan(li, lo, ax, n, conjugate, &p); !s.ok()) raise_status(s);
  nb::object shape = nb::steal(PyTuple_New(n));
  if (!shape.is_valid()) throw nb::python_error();
  for (int k = 0; k < n; ++k) {
    PyObject* e = PyLong_FromLongLong(ext[k]);
    if (e == nullptr) throw nb::python_error();
    PyTuple_SET_ITEM(shape.ptr(), k, e);
  }
  // Without a dtype the extents go as separate arguments (torch: x.new_empty(4, 4) parses ints faster than a tuple,
  // 0.6 against 1.0 us); a rank-0 output as the empty tuple.
  nb::object out;
  if (!dtype.is_none()) out = empty(shape, dtype);
  else if (n == 0) out = empty(shape);
  else out = nb::steal(PyObject_Call(empty.ptr(), shape.ptr(), nullptr));
  if (!out.is_valid()) throw nb::python_error();
  run_plan(p, src, reinterpret_cast<void*>(out_address(out)), device, stream, threads);
  return out;
}

/// permute(x, axes) into empty(out_shape) for an array given by its address, shape,
/// element strides (None: packed), element size, device and stream (torch tensors).
/// None for a rank above 16: the caller takes its general path.
nb::object permute_new(std::uintptr_t x, const std::vector<std::int64_t>& shape, const strides_arg& strides,
                       int elem_size, nb::handle axes, nb::handle empty, int device, std::uintptr_t stream,
                       bool conjugate, int threads) {
  if (shape.size() > static_cast<std::size_t>(xpose::layout::max_rank)) return nb::none();
  return permute_into_new(reinterpret_cast<const void*>(x), to_layout(shape, strides, elem_size), axes, empty,
                          nb::none(), device, stream, conjugate, threads);
}

/// permute(x, axes) into empty(out_shape, x.dtype) for an array of exactly type
/// `ndarray` (numpy.ndarray) read through the buffer protocol. None when x is not one
/// the core takes as it is (another type, no buffer, object dtype, negative strides or
/// strides that are not whole elements, rank > 16): the caller takes its general path.
nb::object permute_buffer(nb::handle ndarray, nb::handle empty, nb::handle x, nb::handle axes, int threads) {
  if (Py_TYPE(x.ptr()) != reinterpret_cast<PyTypeObject*>(ndarray.ptr())) return nb::none();
  Py_buffer v;
  if (PyObject_GetBuffer(x.ptr(), &v, PyBUF_RECORDS_RO) != 0) {
    PyErr_Clear();
    return nb::none();
  }
  struct release {
    Py_buffer* v;
    ~release() { PyBuffer_Release(v); }
  } guard{&v};
  const int n = v.ndim, es = static_cast<int>(v.itemsize);
  if (n > xpose::layout::max_rank || es <= 0 || (v.format != nullptr && std::strchr(v.format, 'O') != nullptr))
    return nb::none();
  xpose::layout li;
  li.rank = n, li.elem_size = es;
  for (int k = 0; k < n; ++k) {
    if (v.strides[k] < 0 || v.strides[k] % es != 0) return nb::none();
    li.extents[k] = v.shape[k], li.strides[k] = v.strides[k] / es;
  }
  if (PyBuffer_IsContiguous(&v, 'C')) li = xpose::layout::packed(n, li.extents, es);
  return permute_into_new(v.buf, li, axes, empty, x.attr("dtype"), -1, 0, false, threads);
}

// ---- In-place transpose ------------------------------------------------------

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
  m.def("permute_new", &permute_new, "x"_a, "shape"_a, "strides"_a.none(), "elem_size"_a, "axes"_a.none(),
        "empty"_a, "device"_a = -1, "stream"_a = 0, "conjugate"_a = false, "threads"_a = 0,
        "permute(x, axes) into empty(*out_shape) (empty(()) at rank 0), returned; x an address, strides in "
        "elements or None (packed); axes as xpose.permute takes them.");
  m.def("permute_buffer", &permute_buffer, "ndarray"_a, "empty"_a, "x"_a, "axes"_a.none(), "threads"_a = 0,
        "permute(x, axes) into empty(out_shape, x.dtype) for an array of exactly type `ndarray`; None "
        "when x needs the general path.");
  m.def("device_count", &xpose::device_count, "Number of usable CUDA devices (0 without a GPU).");
  m.def("built_with_cuda", &xpose::built_with_cuda, "True when the CUDA backend was compiled in.");
  // In-place transpose.
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
