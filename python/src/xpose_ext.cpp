// xpose._xpose: the nanobind bridge between DLPack arrays and the C++ library.
// The Python layer (python/xpose/_api.py) allocates the output with the caller's
// framework and picks the stream; this file maps two array views onto a
// matrix_desc, runs the CPU or GPU entry, and turns a status into an exception.
// Assumes: strides from DLPack are in elements; dims of extent 1 have free strides.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "xpose/xpose.hpp"

#if defined(XPOSE_HAS_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// Read-only import for both sides: the Python layer checks that `out` is writable
// (JAX exports its buffers read-only although the output is ours to fill).
using array = nb::ndarray<nb::ro>;

// DLPack device types (dlpack.h).
constexpr int dl_cpu = 1, dl_cuda = 2, dl_cuda_host = 3, dl_cuda_managed = 13;

// How a call is carried out.
enum class plan : int {
  transpose = 0,        // the library's transpose, from the input's strides
  copy = 1,             // input is a transposed view: its memory already has the output's order
  needs_contiguous = 2  // strides not expressible: the Python layer copies, then calls again
};

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

const char* device_name(int type) {
  switch (type) {
    case dl_cpu: return "cpu";
    case dl_cuda: return "cuda";
    case dl_cuda_host: return "cuda_host";
    case dl_cuda_managed: return "cuda_managed";
    default: return "unsupported";
  }
}

bool is_gpu(int type) { return type == dl_cuda || type == dl_cuda_managed; }
bool is_cpu(int type) { return type == dl_cpu || type == dl_cuda_host; }

/// Bytes per element, or 0 when the dtype is not one xpose moves.
int elem_size_of(nb::dlpack::dtype t) {
  if (t.lanes != 1 || t.bits % 8 != 0) return 0;
  const int es = t.bits / 8;
  return (es == 1 || es == 2 || es == 4 || es == 8 || es == 16) ? es : 0;
}

std::string dtype_str(nb::dlpack::dtype t) {
  static const char* names[] = {"int", "uint", "float", "opaque", "bfloat", "complex", "bool"};
  const char* n = t.code < 7 ? names[t.code] : "code";
  std::string s = std::string(n) + std::to_string(t.bits);
  if (t.lanes != 1) s += "x" + std::to_string(t.lanes);
  return s;
}

/// A 2-D or 3-D array seen as (batch, rows, cols) with strides in elements.
struct view3 {
  std::int64_t n[3] = {1, 1, 1};
  std::int64_t s[3] = {0, 0, 0};
};

view3 as_view3(const array& a) {
  view3 v;
  const int off = 3 - static_cast<int>(a.ndim());
  for (int i = 0; i < static_cast<int>(a.ndim()); ++i) {
    v.n[off + i] = static_cast<std::int64_t>(a.shape(i));
    v.s[off + i] = a.stride(i);
  }
  return v;
}

/// Lowest and one-past-highest byte touched by a strided view (empty: {0, 0}).
struct span {
  std::uintptr_t lo = 0, hi = 0;
};
span byte_span(const array& a, const view3& v, int es) {
  for (std::int64_t n : v.n)
    if (n == 0) return {};
  const auto base = reinterpret_cast<std::uintptr_t>(a.data());
  std::int64_t lo = 0, hi = 0;
  for (int i = 0; i < 3; ++i) {
    const std::int64_t reach = (v.n[i] - 1) * v.s[i];
    (reach < 0 ? lo : hi) += reach;
  }
  return {base + static_cast<std::uintptr_t>(lo * es), base + static_cast<std::uintptr_t>((hi + 1) * es)};
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

/// Copies `height` rows of `width` bytes between pitched buffers, `batch` times.
/// Host memory: plain memcpy. Device memory: cudaMemcpy2DAsync on `stream`.
xpose::status pitched_copy(bool gpu, const char* src, std::int64_t src_pitch, std::int64_t src_batch,
                           char* dst, std::int64_t dst_pitch, std::int64_t dst_batch, std::int64_t width,
                           std::int64_t height, std::int64_t batch, cudaStream_t stream) {
  // Fold the batches into the rows when both sides step evenly across them.
  if (batch > 1 && src_batch == height * src_pitch && dst_batch == height * dst_pitch) {
    height *= batch;
    batch = 1;
  }
  if (!gpu) {
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t r = 0; r < height; ++r)
        std::memcpy(dst + b * dst_batch + r * dst_pitch, src + b * src_batch + r * src_pitch,
                    static_cast<std::size_t>(width));
    return {};
  }
#if defined(XPOSE_HAS_CUDA)
  for (std::int64_t b = 0; b < batch; ++b) {
    const cudaError_t e = cudaMemcpy2DAsync(dst + b * dst_batch, static_cast<std::size_t>(dst_pitch),
                                            src + b * src_batch, static_cast<std::size_t>(src_pitch),
                                            static_cast<std::size_t>(width), static_cast<std::size_t>(height),
                                            cudaMemcpyDefault, stream);
    if (e != cudaSuccess) {
      cudaGetLastError();
      return xpose::status::make(xpose::status_code::cuda_error, "cudaMemcpy2DAsync: %s", cudaGetErrorString(e));
    }
  }
  return {};
#else
  (void)stream;
  return xpose::status::make(xpose::status_code::no_device, "xpose was built without CUDA: no device backend");
#endif
}

/// Transposes the last two axes of `x` into `out` (shape checked here). Returns the
/// plan taken; `needs_contiguous` means nothing was done.
int transpose_arrays(const array& x, const array& out, std::uintptr_t stream_handle, int threads) {
  const int nd = static_cast<int>(x.ndim());
  if (nd != 2 && nd != 3)
    raise_value("expected a 2-D matrix or a 3-D batch of matrices, got " + std::to_string(nd) + " dimensions");
  const int es = elem_size_of(x.dtype());
  if (es == 0)
    throw nb::type_error(("xpose: unsupported_elem_size: dtype " + dtype_str(x.dtype()) +
                          " is not supported (elements of 1, 2, 4, 8 or 16 bytes)")
                             .c_str());
  if (out.dtype() != x.dtype())
    raise_value("out has dtype " + dtype_str(out.dtype()) + ", expected " + dtype_str(x.dtype()));
  if (static_cast<int>(out.ndim()) != nd)
    raise_value("out has " + std::to_string(out.ndim()) + " dimensions, expected " + std::to_string(nd));
  const view3 in = as_view3(x), o = as_view3(out);
  const std::int64_t B = in.n[0], R = in.n[1], C = in.n[2];
  if (o.n[0] != B || o.n[1] != C || o.n[2] != R) {
    std::string want = (nd == 3 ? "(" + std::to_string(B) + ", " : "(") + std::to_string(C) + ", " +
                       std::to_string(R) + ")";
    std::string got = (nd == 3 ? "(" + std::to_string(o.n[0]) + ", " : "(") + std::to_string(o.n[1]) + ", " +
                      std::to_string(o.n[2]) + ")";
    raise_value("out has shape " + got + ", expected " + want);
  }
  const int dt = x.device_type();
  if (out.device_type() != dt || out.device_id() != x.device_id())
    raise_value(std::string("out is on device ") + device_name(out.device_type()) + ":" +
                std::to_string(out.device_id()) + ", x on " + device_name(dt) + ":" + std::to_string(x.device_id()));
  if (!is_gpu(dt) && !is_cpu(dt))
    throw nb::type_error(("xpose: arrays on DLPack device type " + std::to_string(dt) +
                          " are not supported (CPU and CUDA only)")
                             .c_str());
  const bool gpu = is_gpu(dt);
  if (B == 0 || R == 0 || C == 0) return static_cast<int>(plan::transpose);  // nothing to move

  // Strides of extent-1 axes are free: normalise them so that layout tests see the rest.
  auto free_or = [](std::int64_t n, std::int64_t s, std::int64_t v) { return n == 1 ? v : s; };
  // Output (b, c, r): unit stride along r, rows of at least R elements, batches apart.
  const std::int64_t o_r = free_or(R, o.s[2], 1), o_c = free_or(C, o.s[1], R);
  const std::int64_t o_b = free_or(B, o.s[0], C * o_c);
  if (o_r != 1 || o_c < R || o_b < 0)
    raise_value("out must have unit stride along its last axis and non-negative strides (got strides in "
                "elements " + std::to_string(o.s[0]) + ", " + std::to_string(o.s[1]) + ", " + std::to_string(o.s[2]) +
                "): pass a C-contiguous array");

  if (B > 1 && o_b < (C - 1) * o_c + R)
    raise_value("bad_batch_stride: out's batch stride (" + std::to_string(o_b) +
                " elements) is smaller than one output matrix: batches would overlap");

  const span si = byte_span(x, in, es), so = byte_span(out, o, es);
  if (si.lo < so.hi && so.lo < si.hi) raise_value("overlap: x and out share memory");

  const std::int64_t i_c = free_or(C, in.s[2], 1), i_r = free_or(R, in.s[1], C);
  const std::int64_t i_b = free_or(B, in.s[0], 0);
  const auto stream = reinterpret_cast<cudaStream_t>(stream_handle);

  if (i_c == 1 && i_r >= C && i_b >= 0) {  // row-major rows: a plain (batched) transpose
    xpose::matrix_desc d;
    d.rows = R;
    d.cols = C;
    d.ld_in = i_r;
    d.ld_out = o_c;
    d.batch = B;
    d.stride_in = i_b;
    d.stride_out = o_b;
    d.elem_size = es;
    xpose::status s;
    if (gpu) {
      device_guard guard(x.device_id());
      nb::gil_scoped_release nogil;
      s = xpose::transpose(x.data(), const_cast<void*>(out.data()), d, stream);
    } else {
      xpose::host_options opt;
      opt.threads = threads;
      nb::gil_scoped_release nogil;
      s = xpose::transpose_host(x.data(), const_cast<void*>(out.data()), d, opt);
    }
    if (!s.ok()) raise_status(s);
    return static_cast<int>(plan::transpose);
  }

  const std::int64_t j_r = free_or(R, in.s[1], 1), j_c = free_or(C, in.s[2], R);
  if (j_r == 1 && j_c >= R && i_b >= 0) {  // a transposed view: input column c is output row c
    // Host memory: as the host entries, 16-byte elements need 8 (NumPy's complex128).
    const int align = gpu ? es : std::min(es, 8);
    if (reinterpret_cast<std::uintptr_t>(x.data()) % align || reinterpret_cast<std::uintptr_t>(out.data()) % align)
      raise_value("misaligned: a pointer is not aligned to " + std::to_string(align) + " bytes (" +
                  std::to_string(es) + "-byte elements)");
    const auto* src = static_cast<const char*>(x.data());
    auto* dst = static_cast<char*>(const_cast<void*>(out.data()));
    xpose::status s;
    if (gpu) {
      device_guard guard(x.device_id());
      nb::gil_scoped_release nogil;
      s = pitched_copy(true, src, j_c * es, i_b * es, dst, o_c * es, o_b * es, R * es, C, B, stream);
    } else {
      nb::gil_scoped_release nogil;
      s = pitched_copy(false, src, j_c * es, i_b * es, dst, o_c * es, o_b * es, R * es, C, B, stream);
    }
    if (!s.ok()) raise_status(s);
    return static_cast<int>(plan::copy);
  }
  return static_cast<int>(plan::needs_contiguous);
}

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

// ---- N-d permutation: raw pointers, shapes and strides (elements) in, status out.
// Every rule (axes, ranks, strides, overlap, alignment) is the C++ core's.
xpose::layout to_layout(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides,
                        int elem_size) {
  xpose::layout l;
  l.rank = static_cast<int>(shape.size());  // > 16: make_plan reports bad_rank
  l.elem_size = elem_size;
  if (strides.size() != shape.size()) raise_value("strides and shape have different lengths");
  for (std::size_t k = 0; k < shape.size() && k < xpose::layout::max_rank; ++k)
    l.extents[k] = shape[k], l.strides[k] = strides[k];
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

/// out = permute(in, axes) between raw pointers; returns the algorithm that ran.
std::string permute_raw(std::uintptr_t in, std::uintptr_t out, const std::vector<std::int64_t>& shape,
                        const std::vector<std::int64_t>& in_strides, const std::vector<std::int64_t>& out_shape,
                        const std::vector<std::int64_t>& out_strides, int elem_size, const std::vector<int>& axes,
                        bool gpu, int device, std::uintptr_t stream, bool conjugate, int threads) {
  const xpose::layout li = to_layout(shape, in_strides, elem_size), lo = to_layout(out_shape, out_strides, elem_size);
  xpose::plan p;
  xpose::plan_options po;
  po.conjugate = conjugate;
  if (xpose::status s = xpose::make_plan(li, lo, axes.data(), static_cast<int>(axes.size()), po, &p); !s.ok())
    raise_status(s);
  const auto* src = reinterpret_cast<const void*>(in);
  auto* dst = reinterpret_cast<void*>(out);
  xpose::status s;
  if (gpu) {
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
  return xpose::to_string(p.algo);
}

// ---- In-place transpose (issue 14) -------------------------------------------

/// Workspace bytes transpose_inplace_array needs for a packed (batch, rows, cols) array.
std::size_t inplace_workspace_bytes(std::int64_t batch, std::int64_t rows, std::int64_t cols, int es, bool device) {
  std::size_t bytes = 0;
  const xpose::status s = xpose::inplace_workspace_size(xpose::matrix_desc::packed(rows, cols, es, batch), device, &bytes);
  if (!s.ok()) raise_status(s);
  return bytes;
}

/// Transposes the last two axes of the C-contiguous array `x` in place; `ws` is the
/// address of `ws_bytes` of workspace on x's device (0 when none is needed). Imported
/// read-only like `out` above: the Python layer checks that x is writable.
void transpose_inplace_array(const array& x, std::uintptr_t ws, std::size_t ws_bytes,
                             std::uintptr_t stream_handle, int threads) {
  const int nd = static_cast<int>(x.ndim());
  if (nd != 2 && nd != 3)
    raise_value("expected a 2-D matrix or a 3-D batch of matrices, got " + std::to_string(nd) + " dimensions");
  const int es = elem_size_of(x.dtype());
  if (es == 0)
    throw nb::type_error(("xpose: unsupported_elem_size: dtype " + dtype_str(x.dtype()) + " is not supported").c_str());
  const view3 v = as_view3(x);
  const std::int64_t B = v.n[0], R = v.n[1], C = v.n[2];
  if ((C > 1 && v.s[2] != 1) || (R > 1 && v.s[1] != C) || (B > 1 && v.s[0] != R * C))
    raise_value("not_packed: an in-place transpose needs a C-contiguous array");
  const int dt = x.device_type();
  if (!is_gpu(dt) && !is_cpu(dt))
    throw nb::type_error(("xpose: arrays on DLPack device type " + std::to_string(dt) + " are not supported").c_str());
  const auto d = xpose::matrix_desc::packed(R, C, es, B);
  void* w = reinterpret_cast<void*>(ws);
  xpose::status s;
  if (is_gpu(dt)) {
    device_guard guard(x.device_id());
    nb::gil_scoped_release nogil;
    s = xpose::transpose_inplace(const_cast<void*>(x.data()), d, w, ws_bytes,
                                 reinterpret_cast<cudaStream_t>(stream_handle));
  } else {
    xpose::host_options opt;
    opt.threads = threads;
    nb::gil_scoped_release nogil;
    s = xpose::transpose_inplace_host(const_cast<void*>(x.data()), d, w, ws_bytes, opt);
  }
  if (!s.ok()) raise_status(s);
}

}  // namespace

NB_MODULE(_xpose, m) {
  m.def("permute_shape", &permute_shape, "shape"_a, "axes"_a, "elem_size"_a,
        "Output shape of permute(x, axes); raises ValueError on bad axes.");
  m.def("permute_raw", &permute_raw, "x"_a, "out"_a, "shape"_a, "strides"_a, "out_shape"_a, "out_strides"_a,
        "elem_size"_a, "axes"_a, "gpu"_a, "device"_a = 0, "stream"_a = 0, "conjugate"_a = false, "threads"_a = 0,
        "out = permute(x, axes) between raw pointers (strides in elements); returns the algorithm name.");
  m.doc() = "Low-level bindings of the xpose C++ library (use xpose.transpose instead).";
  m.def("transpose_arrays", &transpose_arrays, "x"_a.noconvert(), "out"_a.noconvert(), "stream"_a = 0,
        "threads"_a = 0,
        "Transposes the last two axes of DLPack array `x` into `out` on x's device. Returns 0 "
        "(transposed), 1 (copied: x was a transposed view) or 2 (strides not expressible; "
        "nothing done). `stream` is a cudaStream_t as an integer.");
  m.def("synchronize", &synchronize, "device"_a, "stream"_a, "cudaStreamSynchronize on `device`.");
  m.def("device_count", &xpose::device_count, "Number of usable CUDA devices (0 without a GPU).");
  m.def("built_with_cuda", &xpose::built_with_cuda, "True when the CUDA backend was compiled in.");
  // In-place transpose (issue 14).
  m.def("inplace_workspace_bytes", &inplace_workspace_bytes, "batch"_a, "rows"_a, "cols"_a, "elem_size"_a,
        "device"_a, "Workspace bytes an in-place transpose of a packed (batch, rows, cols) array needs.");
  m.def("transpose_inplace_array", &transpose_inplace_array, "x"_a.noconvert(), "ws"_a, "ws_bytes"_a,
        "stream"_a = 0, "threads"_a = 0,
        "Transposes the last two axes of the C-contiguous DLPack array `x` in place; `ws` is the "
        "address of `ws_bytes` of workspace on x's device.");
}
