"""xpose.transpose over NumPy, PyTorch, CuPy and JAX arrays.

This layer knows the frameworks: it allocates the output with the caller's own
framework, picks the stream, and falls back to a contiguous copy when strides
cannot be described to the library. The C++ bridge (``xpose._xpose``) only sees
two DLPack views.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Protocol, Tuple, TypeVar, Union, runtime_checkable

from . import _xpose


@runtime_checkable
class SupportsDLPack(Protocol):
    """An array that exports itself through DLPack (NumPy, PyTorch, CuPy, JAX, ...)."""

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...

    def __dlpack_device__(self) -> Tuple[int, int]: ...


ArrayT = TypeVar("ArrayT", bound=SupportsDLPack)
# A cudaStream_t as an int, or a stream object (torch.cuda.Stream, cupy.cuda.Stream,
# anything with __cuda_stream__): checked at run time by _stream_handle.
StreamLike = Union[int, Any]

# Plans returned by _xpose.transpose_arrays.
_TRANSPOSED, _COPIED, _NEEDS_CONTIGUOUS = 0, 1, 2

_DLPACK_CUDA, _DLPACK_CUDA_MANAGED = 2, 13


def device_count() -> int:
    """Number of CUDA devices the library can use (0 without a GPU or driver)."""
    return int(_xpose.device_count())


def built_with_cuda() -> bool:
    """True when the extension was compiled with the CUDA backend."""
    return bool(_xpose.built_with_cuda())


# ---------------------------------------------------------------------------
# Framework adapters
# ---------------------------------------------------------------------------


def _framework(x: Any) -> str:
    import numpy as np

    if isinstance(x, np.ndarray):  # subclasses too (np.matrix, masked, user-defined)
        return "numpy"
    mod = type(x).__module__.split(".", 1)[0]
    if mod == "torch":
        return "torch"
    if mod == "cupy":
        return "cupy"
    if mod in ("jax", "jaxlib"):
        return "jax"
    return ""


def _type_name(x: Any) -> str:
    t = type(x)
    return f"{t.__module__}.{t.__qualname__}"


def _out_shape(shape: Tuple[int, ...]) -> Tuple[int, ...]:
    if len(shape) not in (2, 3):
        raise ValueError(
            f"xpose: expected a 2-D matrix or a 3-D batch of matrices, got shape {tuple(shape)}"
        )
    return tuple(shape[:-2]) + (shape[-1], shape[-2])


def _stream_handle(stream: StreamLike) -> int:
    """cudaStream_t of a stream given as an int or any framework's stream object."""
    if isinstance(stream, bool):
        raise TypeError("xpose: stream must be an integer handle or a CUDA stream object")
    if isinstance(stream, int):
        return stream
    proto = getattr(stream, "__cuda_stream__", None)
    if callable(proto):  # CUDA stream protocol: (version, handle)
        value = proto()
        return int(value[1] if isinstance(value, tuple) else value)
    for attr in ("cuda_stream", "ptr", "handle"):  # torch, cupy, others
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    raise TypeError(
        f"xpose: cannot get a cudaStream_t from {_type_name(stream)}: pass an int, a "
        "torch.cuda.Stream, a cupy.cuda.Stream or an object with __cuda_stream__"
    )


# numpy dtypes are moved as opaque bit patterns of their size, so that every
# plain-data dtype (float16, bool, datetime64, structured ...) goes through the
# same unsigned-integer view that DLPack and the buffer protocol understand.
def _numpy_bits_dtype(dt: Any) -> Any:
    import numpy as np

    if dt.hasobject:
        raise TypeError(f"xpose: dtype {dt} holds Python objects and cannot be transposed by xpose")
    bits = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.complex128}.get(dt.itemsize)
    if bits is None:
        raise TypeError(
            f"xpose: unsupported_elem_size: dtype {dt} has {dt.itemsize}-byte elements "
            "(xpose supports 1, 2, 4, 8 or 16 bytes)"
        )
    return np.dtype(bits)


def _numpy_view(a: Any, is_out: bool = False) -> Any:
    import numpy as np

    bits = _numpy_bits_dtype(a.dtype)
    if any(n > 1 and st % a.dtype.itemsize for n, st in zip(a.shape, a.strides)):
        # A stride that is not a whole number of elements (a field of a structured
        # array) has no DLPack description: copy the input to a contiguous array.
        if is_out:
            raise ValueError("xpose: out has strides that are not whole elements: pass a C-contiguous array")
        a = np.ascontiguousarray(a)
    if a.dtype == bits:
        return a
    return a.view(bits)


def _call(x: Any, out: Any, stream: int = 0, threads: int = 0) -> int:
    try:
        return _xpose.transpose_arrays(x, out, stream, threads)
    except TypeError as e:
        # nanobind rejects objects it cannot import as DLPack arrays before our
        # code runs: say what was passed instead of listing overload signatures.
        if "incompatible function arguments" in str(e):
            raise TypeError(
                f"xpose: cannot read {_type_name(x)} / {_type_name(out)} as DLPack arrays "
                "(unsupported dtype, or not an array)"
            ) from None
        raise


def _run(x: Any, out: Any, stream: int, contiguous: Any, threads: int = 0) -> None:
    """Runs the bridge; when x's strides are not expressible, retries on a contiguous copy."""
    if _call(x, out, stream, threads) == _NEEDS_CONTIGUOUS:
        if _call(contiguous(x), out, stream, threads) == _NEEDS_CONTIGUOUS:  # pragma: no cover
            raise RuntimeError("xpose: internal error: a contiguous array was not accepted")


def _broadcast_axis(shape: Tuple[int, ...], strides: Tuple[int, ...]) -> int:
    """-1 or -2 when that axis (cols, rows) is broadcast (stride 0, extent > 1), else 0."""
    for axis in (-1, -2):
        if shape[axis] > 1 and strides[axis] == 0:
            return axis
    return 0


def _transpose_broadcast(x: Any, out: Any, axis: int, transpose_fn: Callable[[Any], Any],
                         fill: Callable[[Any, Any], None]) -> None:
    """Broadcast rows or columns (stride 0): transposes the one distinct row or column,
    then broadcasts it into `out`. Peak memory stays that of the distinct data, not
    of the broadcast array (issue 10: (2, 2^31) was copied whole first)."""
    if axis == -2:  # every row is row 0: out[..., c, r] = x[..., 0, c]
        fill(out, transpose_fn(x[..., :1, :]))  # (..., C, 1) broadcast along r
    else:  # every column is column 0: out[..., c, r] = x[..., r, 0]
        fill(out, transpose_fn(x[..., :, :1]))  # (..., 1, R) broadcast along c


def _transpose_numpy(x: Any, out: Optional[Any], threads: int = 0) -> Any:
    import numpy as np

    if isinstance(x, np.ma.MaskedArray):
        return _transpose_masked(x, out, threads)
    shape = _out_shape(x.shape)
    subclass = type(x) if type(x) is not np.ndarray else None
    x = x.view(np.ndarray)  # np.matrix and other subclasses: the bits, then the type back
    if out is None:
        out = np.empty(shape, dtype=x.dtype)
        result = out if subclass is None else out.view(subclass)
    else:
        if not isinstance(out, np.ndarray):
            raise TypeError(f"xpose: out must be a numpy.ndarray like x, got {_type_name(out)}")
        if out.dtype != x.dtype:
            raise ValueError(f"xpose: out has dtype {out.dtype}, expected {x.dtype}")
        if not out.flags.writeable:
            raise ValueError("xpose: out is read-only")
        result = out
        out = out.view(np.ndarray)
    axis = _broadcast_axis(x.shape, x.strides)
    if axis and x.size:
        _transpose_broadcast(x, out, axis, lambda a: _transpose_numpy(a, None, threads),
                             lambda o, v: np.copyto(_numpy_view(o, is_out=True), _numpy_view(v)))
        return result
    _run(_numpy_view(x), _numpy_view(out, is_out=True), 0, np.ascontiguousarray, threads)
    return result


def _transpose_masked(x: Any, out: Optional[Any], threads: int) -> Any:
    """Masked arrays keep their mask: data and mask are transposed alike."""
    import numpy as np

    if out is not None:
        raise TypeError("xpose: out= is not supported for masked arrays (the mask is returned with a new array)")
    data = _transpose_numpy(np.ma.getdata(x), None, threads)
    mask = _transpose_numpy(np.ma.getmaskarray(x), None, threads)
    return np.ma.MaskedArray(data, mask=mask, fill_value=x.fill_value)


def _transpose_torch(x: Any, out: Optional[Any], stream: Optional[StreamLike], threads: int = 0) -> Any:
    import torch

    if not isinstance(x, torch.Tensor):
        raise TypeError(f"xpose: unsupported object {_type_name(x)}")
    x = x.detach()
    if x.is_conj() or x.is_neg():
        x = x.resolve_conj().resolve_neg()  # DLPack cannot carry the lazy bits
    shape = _out_shape(tuple(x.shape))
    if out is None:
        out = torch.empty(shape, dtype=x.dtype, device=x.device)
        ours = True
    else:
        if not isinstance(out, torch.Tensor):
            raise TypeError(f"xpose: out must be a torch.Tensor like x, got {_type_name(out)}")
        if out.dtype != x.dtype:
            raise ValueError(f"xpose: out has dtype {out.dtype}, expected {x.dtype}")
        if out.device != x.device:
            raise ValueError(f"xpose: out is on {out.device}, x on {x.device}")
        ours = False
    handle = 0
    if x.device.type == "cuda":
        if stream is None:
            handle = torch.cuda.current_stream(x.device).cuda_stream
        else:
            handle = _stream_handle(stream)
            if ours and isinstance(stream, torch.cuda.Stream):
                # The caching allocator must not recycle `out` before `stream` is done.
                out.record_stream(stream)
    axis = _broadcast_axis(tuple(x.shape), tuple(x.stride()))
    if axis and x.numel():
        _transpose_broadcast(x, out.detach(), axis, lambda a: _transpose_torch(a, None, stream, threads),
                             lambda o, v: o.copy_(v.expand(o.shape)))
        return out
    _run(x, out.detach(), handle, lambda a: a.contiguous(), threads)
    return out


def _transpose_cupy(x: Any, out: Optional[Any], stream: Optional[StreamLike]) -> Any:
    import cupy

    shape = _out_shape(tuple(x.shape))
    if any(st < 0 for st in x.strides):
        # A reversed CuPy view reached the extension with strides it read as huge
        # positive values (size_overflow on the H200, 2026-11-29): copy first.
        x = cupy.ascontiguousarray(x)
    with x.device:
        if out is None:
            out = cupy.empty(shape, dtype=x.dtype)
        else:
            if not isinstance(out, cupy.ndarray):
                raise TypeError(f"xpose: out must be a cupy.ndarray like x, got {_type_name(out)}")
            if out.dtype != x.dtype:
                raise ValueError(f"xpose: out has dtype {out.dtype}, expected {x.dtype}")
            if out.device != x.device:
                raise ValueError(f"xpose: out is on {out.device}, x on {x.device}")
        handle = cupy.cuda.get_current_stream().ptr if stream is None else _stream_handle(stream)
        _run(x, out, handle, cupy.ascontiguousarray)
    return out


def _transpose_jax(x: Any, out: Optional[Any], stream: Optional[StreamLike], threads: int = 0) -> Any:
    import jax
    import jax.numpy as jnp
    import numpy as np

    try:
        from jax.core import Tracer
    except ImportError:  # pragma: no cover
        from jax._src.core import Tracer
    if isinstance(x, Tracer):
        raise TypeError(
            "xpose: xpose.transpose works on concrete JAX arrays, not inside jax.jit / tracing "
            "(use jnp.swapaxes there)"
        )
    if out is not None:
        raise ValueError("xpose: JAX arrays are immutable: out= is not supported for JAX inputs")
    devices = list(x.devices())
    if len(devices) != 1:
        raise ValueError(f"xpose: x is sharded over {len(devices)} devices; pass a single-device array")
    (dev,) = devices
    shape = _out_shape(tuple(x.shape))
    if dev.platform == "cpu":
        # Zero-copy view of the host buffer, the CPU backend, then a new JAX array.
        return jax.device_put(_transpose_numpy(np.asarray(x), None, threads), dev)
    if x.dtype == jnp.bool_ and x.size:
        # Not every JAX version exports bool through DLPack: move the bytes as uint8.
        return _transpose_jax(x.astype(jnp.uint8), None, stream).astype(jnp.bool_)
    # A fresh buffer owned by this call only: written once here, then handed back.
    try:
        out = jnp.zeros(shape, dtype=x.dtype, device=dev)
    except TypeError:  # older JAX: no device= argument
        with jax.default_device(dev):
            out = jnp.zeros(shape, dtype=x.dtype)
    # Wait until x and out exist (JAX dispatches asynchronously). JAX cannot be told
    # to wait for our stream either, so the call is synchronous for JAX arrays.
    x.block_until_ready()
    out.block_until_ready()
    handle = 0 if stream is None else _stream_handle(stream)
    _run(x, out, handle, lambda a: a)
    _xpose.synchronize(int(x.__dlpack_device__()[1]), handle)
    return out


def _transpose_dlpack(x: Any, out: Optional[Any], stream: Optional[StreamLike], threads: int) -> Any:
    """Any other object with __dlpack__: host memory as a NumPy array (zero-copy),
    CUDA memory through CuPy when it is installed."""
    import numpy as np

    dev_type = int(x.__dlpack_device__()[0])
    if dev_type in (1, 3):  # kDLCPU, kDLCUDAHost
        return _transpose_numpy(np.from_dlpack(x), out, threads)
    if dev_type in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
        try:
            import cupy
        except ImportError:
            raise TypeError(
                f"xpose: {_type_name(x)} is a CUDA DLPack array: transposing it needs CuPy "
                "(or pass a torch / cupy / jax array)"
            ) from None
        return _transpose_cupy(cupy.from_dlpack(x), out, stream)
    raise TypeError(f"xpose: {_type_name(x)} lives on DLPack device type {dev_type} (CPU and CUDA only)")


def _threads_arg(threads: Optional[int]) -> int:
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, int):
        raise TypeError(f"xpose: threads must be an int or None, got {_type_name(threads)}")
    if threads < 0 or threads >= 1 << 31:  # the library's own bound (4 x cores, at least 256) is checked there
        raise ValueError(f"xpose: invalid_argument: threads must be between 0 (all cores) and the core count, "
                         f"got {threads}")
    return threads


# ---------------------------------------------------------------------------
# Public entry
# ---------------------------------------------------------------------------


def transpose(x: ArrayT, out: Optional[ArrayT] = None, *, stream: Optional[StreamLike] = None,
              threads: Optional[int] = None) -> ArrayT:
    """Transpose a matrix, or the last two axes of a batch of matrices.

    Parameters
    ----------
    x:
        A 2-D array of shape ``(rows, cols)`` or a 3-D batch ``(batch, rows, cols)``
        from NumPy, PyTorch, CuPy or JAX (anything the frameworks export through
        DLPack). Any element type of 1, 2, 4, 8 or 16 bytes: bool, int8 … int64,
        uint8 … uint64, float16, bfloat16, float32, float64, complex64,
        complex128. A transpose moves bits: NaN payloads and signed zeros are kept.
    out:
        Optional destination of shape ``(cols, rows)`` / ``(batch, cols, rows)``,
        same framework, dtype and device as ``x``, writable, with unit stride
        along its last axis (C-contiguous, or padded rows), not overlapping ``x``.
        Not supported for JAX (its arrays are immutable).
    stream:
        GPU arrays only (checked, then unused, for CPU arrays: a wrong type raises
        TypeError for every array): a ``cudaStream_t`` as an int, a
        ``torch.cuda.Stream``, a ``cupy.cuda.Stream`` or any object with
        ``__cuda_stream__``. Default: the framework's current stream
        (``torch.cuda.current_stream(x.device)``,
        ``cupy.cuda.get_current_stream()``), so the call is ordered with the
        surrounding framework work without any synchronisation.
    threads:
        CPU arrays only: threads of the CPU backend (default ``None`` = all cores,
        as ``OMP_NUM_THREADS`` says; 1 = single-threaded). Above
        ``4 x cores`` (at least 256): ValueError.

    Returns
    -------
    The transposed array, C-contiguous, of the caller's framework on the caller's
    device (``out`` itself when given).

    Backends and streams
    --------------------
    * CPU arrays (NumPy, CPU tensors, JAX on CPU) run on the library's blocked,
      threaded CPU backend; the call is synchronous.
    * CUDA arrays run on the GPU that holds them (the current device is switched
      for the call and restored). PyTorch / CuPy: asynchronous, enqueued on
      ``stream``; the output is allocated by the framework on its current stream.
      When you pass a different ``stream``, make sure ``x`` is ready on it (as
      with any cross-stream use); for an output allocated here, PyTorch's
      ``record_stream`` is called for a ``torch.cuda.Stream``.
    * JAX on GPU: the output is a new JAX array. The transpose runs on
      ``stream`` (default: the legacy default stream) once ``x`` is ready, and
      the call waits for it before returning, since JAX cannot be told to order
      its own work after a foreign stream. Not usable inside ``jax.jit``
      (tracers raise TypeError).

    Strided inputs
    --------------
    * Rows with unit stride (any row pitch, any batch stride, e.g. ``x[:, 1:5]``
      or ``x[::2]``) are transposed in place from their strides: nothing is
      copied first.
    * A transposed view (unit stride along the rows, e.g. ``y.T`` or
      ``y.mT``) already has the output's memory order: it is copied row by row
      (pitched copy at memcpy speed), not transposed.
    * Broadcast rows or columns (stride 0, ``np.broadcast_to``, ``expand``):
      the one distinct row or column is transposed, then broadcast into the
      output; the broadcast input is never materialised.
    * Masked arrays keep their mask; ``np.matrix`` and other ndarray
      subclasses come back as their own type.
    * Other layouts (a step along the last axis such as ``x[:, ::2]``,
      negative strides) are first made contiguous with the framework
      (``np.ascontiguousarray``, ``Tensor.contiguous()``,
      ``cupy.ascontiguousarray``), then transposed.

    Raises
    ------
    TypeError
        ``x`` is not a supported array, or its dtype is not supported (object
        dtype, 3-byte strings, …).
    ValueError
        ``x`` is not 2-D or 3-D; ``out`` has the wrong shape, dtype, device,
        layout, is read-only, or overlaps ``x``; a pointer is misaligned.
    RuntimeError
        A CUDA error, or a GPU array with a library built without CUDA.

    Messages carry the library's status name and message, e.g.
    ``xpose: overlap: x and out share memory``.

    Examples
    --------
    >>> import numpy as np, xpose
    >>> xpose.transpose(np.arange(6).reshape(2, 3))
    array([[0, 3],
           [1, 4],
           [2, 5]])
    """
    if stream is not None:
        _stream_handle(stream)  # a wrong type is an error for every kind of array
    nthreads = _threads_arg(threads)
    fw = _framework(x)
    if fw == "numpy":
        return _transpose_numpy(x, out, nthreads)
    if fw == "torch":
        return _transpose_torch(x, out, stream, nthreads)
    if fw == "cupy":
        return _transpose_cupy(x, out, stream)
    if fw == "jax":
        return _transpose_jax(x, out, stream, nthreads)
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        return _transpose_dlpack(x, out, stream, nthreads)
    raise TypeError(
        f"xpose: unsupported object {_type_name(x)}: expected a numpy.ndarray, torch.Tensor, "
        "cupy.ndarray or jax.Array"
    )


# ---------------------------------------------------------------------------
# N-d permutation (np.transpose semantics): pointers, shapes and strides go to the
# C++ core (xpose::make_plan / execute), which owns every rule.
# ---------------------------------------------------------------------------


def _permute_axes(ndim: int, axes: Any) -> list:
    if axes is None:
        return list(range(ndim - 1, -1, -1))
    axes = [int(a) for a in axes]
    # NumPy accepts negative axes; out-of-range ones go to the core (bad_axes).
    return [a + ndim if -ndim <= a < 0 else a for a in axes]


def _elem_strides(strides_bytes: Any, itemsize: int) -> Optional[list]:
    """Strides in elements, or None when they are negative or not whole elements."""
    if any(s < 0 or s % itemsize for s in strides_bytes):
        return None
    return [s // itemsize for s in strides_bytes]


def _permute_run(x_ptr, out_ptr, shape, strides, out_shape, out_strides, itemsize, axes, gpu, device, stream,
                 conjugate):
    return _xpose.permute_raw(x_ptr, out_ptr, list(shape), list(strides), list(out_shape), list(out_strides),
                              itemsize, axes, gpu, device, stream, conjugate, 0)


def _conj_ok(dtype_is_complex: bool, conjugate: bool) -> None:
    if conjugate and not dtype_is_complex:
        raise ValueError("xpose: invalid_argument: conjugate=True needs a complex dtype (complex64, complex128)")


def _permute_numpy(x: Any, axes: list, out: Optional[Any], conjugate: bool) -> Any:
    import numpy as np

    _numpy_bits_dtype(x.dtype)  # rejects object dtypes and unsupported sizes
    _conj_ok(x.dtype.kind == "c", conjugate)
    shape = _xpose.permute_shape(list(x.shape), axes, x.dtype.itemsize)
    st = _elem_strides(x.strides, x.dtype.itemsize)
    if st is None:
        x = np.ascontiguousarray(x)
        st = _elem_strides(x.strides, x.dtype.itemsize)
    if out is None:
        out = np.empty(shape, dtype=x.dtype)
    else:
        if not isinstance(out, np.ndarray):
            raise TypeError(f"xpose: out must be a numpy.ndarray like x, got {_type_name(out)}")
        if out.dtype != x.dtype:
            raise ValueError(f"xpose: out has dtype {out.dtype}, expected {x.dtype}")
        if not out.flags.writeable:
            raise ValueError("xpose: out is read-only")
    ost = _elem_strides(out.strides, out.dtype.itemsize)
    if ost is None:
        raise ValueError("xpose: out has negative strides or strides that are not whole elements")
    _permute_run(x.ctypes.data, out.ctypes.data, x.shape, st, out.shape, ost, x.dtype.itemsize, axes, False, 0, 0,
                 conjugate)
    return out


def _permute_torch(x: Any, axes: list, out: Optional[Any], stream: Optional[StreamLike], conjugate: bool) -> Any:
    import torch

    x = x.detach()
    if x.is_conj() or x.is_neg():
        x = x.resolve_conj().resolve_neg()
    _conj_ok(x.is_complex(), conjugate)
    shape = _xpose.permute_shape(list(x.shape), axes, x.element_size())
    if out is None:
        out = torch.empty(shape, dtype=x.dtype, device=x.device)
        ours = True
    else:
        if not isinstance(out, torch.Tensor):
            raise TypeError(f"xpose: out must be a torch.Tensor like x, got {_type_name(out)}")
        if out.dtype != x.dtype or out.device != x.device:
            raise ValueError(f"xpose: out is {out.dtype} on {out.device}, expected {x.dtype} on {x.device}")
        ours = False
    gpu = x.device.type == "cuda"
    handle = 0
    if gpu:
        if stream is None:
            handle = torch.cuda.current_stream(x.device).cuda_stream
        else:
            handle = _stream_handle(stream)
            if ours and isinstance(stream, torch.cuda.Stream):
                out.record_stream(stream)
    _permute_run(x.data_ptr(), out.data_ptr(), x.shape, x.stride(), out.shape, out.stride(), x.element_size(), axes,
                 gpu, x.device.index or 0, handle, conjugate)
    return out


def _permute_cupy(x: Any, axes: list, out: Optional[Any], stream: Optional[StreamLike], conjugate: bool) -> Any:
    import cupy

    _conj_ok(x.dtype.kind == "c", conjugate)
    st = _elem_strides(x.strides, x.dtype.itemsize)
    if st is None:
        x = cupy.ascontiguousarray(x)
        st = _elem_strides(x.strides, x.dtype.itemsize)
    shape = _xpose.permute_shape(list(x.shape), axes, x.dtype.itemsize)
    with x.device:
        if out is None:
            out = cupy.empty(shape, dtype=x.dtype)
        elif not isinstance(out, cupy.ndarray) or out.dtype != x.dtype or out.device != x.device:
            raise ValueError("xpose: out must be a cupy.ndarray of x's dtype on x's device")
        ost = _elem_strides(out.strides, out.dtype.itemsize)
        if ost is None:
            raise ValueError("xpose: out has negative strides or strides that are not whole elements")
        handle = cupy.cuda.get_current_stream().ptr if stream is None else _stream_handle(stream)
        _permute_run(x.data.ptr, out.data.ptr, x.shape, st, out.shape, ost, x.dtype.itemsize, axes, True,
                     x.device.id, handle, conjugate)
    return out


def _permute_jax(x: Any, axes: list, out: Optional[Any], stream: Optional[StreamLike], conjugate: bool) -> Any:
    import jax
    import jax.numpy as jnp
    import numpy as np

    if out is not None:
        raise ValueError("xpose: JAX arrays are immutable: out= is not supported for JAX inputs")
    (dev,) = list(x.devices()) if len(x.devices()) == 1 else (None,)
    if dev is None:
        raise ValueError("xpose: x is sharded over several devices; pass a single-device array")
    if dev.platform == "cpu":
        return jax.device_put(_permute_numpy(np.asarray(x), axes, None, conjugate), dev)
    _conj_ok(jnp.issubdtype(x.dtype, jnp.complexfloating), conjugate)
    itemsize = np.dtype(x.dtype).itemsize
    shape = _xpose.permute_shape(list(x.shape), axes, itemsize)
    try:
        res = jnp.zeros(shape, dtype=x.dtype, device=dev)
    except TypeError:  # older JAX: no device= argument
        with jax.default_device(dev):
            res = jnp.zeros(shape, dtype=x.dtype)
    x.block_until_ready()
    res.block_until_ready()
    strides = [int(np.prod(x.shape[k + 1:], dtype=np.int64)) for k in range(x.ndim)]
    out_strides = [int(np.prod(shape[k + 1:], dtype=np.int64)) for k in range(len(shape))]
    handle = 0 if stream is None else _stream_handle(stream)
    _permute_run(x.unsafe_buffer_pointer(), res.unsafe_buffer_pointer(), x.shape, strides, shape, out_strides,
                 itemsize, axes, True, dev.id, handle, conjugate)
    _xpose.synchronize(dev.id, handle)
    return res


def permute(x: ArrayT, axes: Any = None, out: Optional[ArrayT] = None, *, stream: Optional[StreamLike] = None,
            conjugate: bool = False) -> ArrayT:
    """Permute the axes of an N-d array: ``np.transpose(x, axes)``, materialised.

    Output axis ``k`` is input axis ``axes[k]`` (negative axes count from the end;
    ``axes=None`` reverses them). Ranks up to 16, any strides on ``x`` (negative or
    fractional ones are copied to a contiguous array first), element sizes 1-16
    bytes. ``out`` (optional) has the permuted shape, the same framework, dtype and
    device, any non-negative strides whose elements do not overlap.
    ``conjugate=True`` conjugates complex64 / complex128 on the way (a sign-bit flip).
    Streams, devices and frameworks behave as in :func:`xpose.transpose`.

    Raises ValueError for bad axes (``bad_axes``), shapes, overlap or misalignment,
    TypeError for unsupported objects or dtypes, RuntimeError for CUDA errors.

    >>> import numpy as np, xpose
    >>> xpose.permute(np.arange(6).reshape(1, 2, 3), (2, 0, 1)).shape
    (3, 1, 2)
    """
    fw = _framework(x)
    if not fw:
        raise TypeError(f"xpose: unsupported object {_type_name(x)}: expected a numpy.ndarray, torch.Tensor, "
                        "cupy.ndarray or jax.Array")
    ax = _permute_axes(len(x.shape), axes)
    if fw == "numpy":
        return _permute_numpy(x, ax, out, conjugate)
    if fw == "torch":
        return _permute_torch(x, ax, out, stream, conjugate)
    if fw == "cupy":
        return _permute_cupy(x, ax, out, stream, conjugate)
    return _permute_jax(x, ax, out, stream, conjugate)


# ---------------------------------------------------------------------------
# In-place transpose (issue 14)
# ---------------------------------------------------------------------------


def transpose_(x: ArrayT, *, stream: Optional[StreamLike] = None) -> ArrayT:
    """Transpose a C-contiguous matrix (or the last two axes of a 3-D batch) in place.

    The memory of ``x`` is rewritten to hold the ``(cols, rows)`` matrices; the
    return value is a view of that same memory with the transposed shape
    (NumPy / CuPy: ``x.reshape(...)``, PyTorch: ``x.view(...)``). ``x`` itself
    keeps its old shape, so use the returned view afterwards. NumPy, PyTorch
    (CPU and CUDA) and CuPy; any dtype of 1, 2, 4, 8 or 16 bytes. Squares need no
    extra memory; other shapes borrow a workspace of at most a quarter of the
    matrix from the framework for the duration of the call. ``stream`` as in
    :func:`transpose` (GPU arrays; default: the framework's current stream).

    Raises TypeError for JAX arrays (immutable: use :func:`transpose`) and
    unsupported objects or dtypes; ValueError for arrays that are not 2-D or 3-D,
    not C-contiguous, or read-only.
    """
    fw = _framework(x)
    if fw == "jax":
        raise TypeError("xpose: JAX arrays are immutable: transpose_ cannot work in place (use xpose.transpose)")
    if fw not in ("numpy", "torch", "cupy"):
        raise TypeError(
            f"xpose: unsupported object {_type_name(x)}: transpose_ takes a numpy.ndarray, torch.Tensor "
            "or cupy.ndarray"
        )
    shape = _out_shape(tuple(x.shape))
    batch = 1 if len(x.shape) == 2 else int(x.shape[0])
    rows, cols = int(x.shape[-2]), int(x.shape[-1])
    if fw == "numpy":
        import numpy as np

        if not x.flags.c_contiguous:
            raise ValueError("xpose: not_packed: transpose_ needs a C-contiguous array")
        if not x.flags.writeable:
            raise ValueError("xpose: x is read-only")
        view = _numpy_view(x)
        nbytes = _xpose.inplace_workspace_bytes(batch, rows, cols, x.dtype.itemsize, False)
        ws = np.empty(nbytes // 16 + 1, dtype=np.complex128)  # 16-byte aligned
        _xpose.transpose_inplace_array(view, ws.ctypes.data if nbytes else 0, nbytes)
        return x.reshape(shape)
    if fw == "torch":
        import torch

        if not x.is_contiguous():
            raise ValueError("xpose: not_packed: transpose_ needs a contiguous tensor")
        t = x.detach()
        if t.is_conj() or t.is_neg():
            raise ValueError("xpose: resolve the lazy conjugate / negation first (x.resolve_conj())")
        gpu = t.device.type == "cuda"
        nbytes = _xpose.inplace_workspace_bytes(batch, rows, cols, t.element_size(), gpu)
        ws = torch.empty(nbytes + 16, dtype=torch.uint8, device=t.device)
        handle = 0
        if gpu:
            handle = torch.cuda.current_stream(t.device).cuda_stream if stream is None else _stream_handle(stream)
            if stream is not None and isinstance(stream, torch.cuda.Stream):
                ws.record_stream(stream)
        _xpose.transpose_inplace_array(t, ws.data_ptr() if nbytes else 0, nbytes, handle)
        return x.view(shape)
    import cupy

    if not x.flags.c_contiguous:
        raise ValueError("xpose: not_packed: transpose_ needs a C-contiguous array")
    with x.device:
        nbytes = _xpose.inplace_workspace_bytes(batch, rows, cols, x.dtype.itemsize, True)
        ws = cupy.empty(nbytes + 16, dtype=cupy.uint8)
        handle = cupy.cuda.get_current_stream().ptr if stream is None else _stream_handle(stream)
        _xpose.transpose_inplace_array(x, ws.data.ptr if nbytes else 0, nbytes, handle)
    return x.reshape(shape)
