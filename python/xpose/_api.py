"""xpose.transpose over NumPy, PyTorch, CuPy and JAX arrays.

This layer knows the frameworks: it allocates the output with the caller's own
framework, picks the stream, and falls back to a contiguous copy when strides
cannot be described to the library. The C++ bridge (``xpose._xpose``) only sees
two DLPack views.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple, TypeVar, Union

from . import _xpose

ArrayT = TypeVar("ArrayT")
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
    mod = type(x).__module__.split(".", 1)[0]
    if mod == "numpy":
        import numpy as np

        if isinstance(x, np.ndarray):
            return "numpy"
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


def _call(x: Any, out: Any, stream: int = 0) -> int:
    try:
        return _xpose.transpose_arrays(x, out, stream)
    except TypeError as e:
        # nanobind rejects objects it cannot import as DLPack arrays before our
        # code runs: say what was passed instead of listing overload signatures.
        if "incompatible function arguments" in str(e):
            raise TypeError(
                f"xpose: cannot read {_type_name(x)} / {_type_name(out)} as DLPack arrays "
                "(unsupported dtype, or not an array)"
            ) from None
        raise


def _run(x: Any, out: Any, stream: int, contiguous: Any) -> None:
    """Runs the bridge; when x's strides are not expressible, retries on a contiguous copy."""
    if _call(x, out, stream) == _NEEDS_CONTIGUOUS:
        if _call(contiguous(x), out, stream) == _NEEDS_CONTIGUOUS:  # pragma: no cover
            raise RuntimeError("xpose: internal error: a contiguous array was not accepted")


def _transpose_numpy(x: Any, out: Optional[Any]) -> Any:
    import numpy as np

    shape = _out_shape(x.shape)
    if out is None:
        out = np.empty(shape, dtype=x.dtype)
    else:
        if not isinstance(out, np.ndarray):
            raise TypeError(f"xpose: out must be a numpy.ndarray like x, got {_type_name(out)}")
        if out.dtype != x.dtype:
            raise ValueError(f"xpose: out has dtype {out.dtype}, expected {x.dtype}")
        if not out.flags.writeable:
            raise ValueError("xpose: out is read-only")
    _run(_numpy_view(x), _numpy_view(out, is_out=True), 0, np.ascontiguousarray)
    return out


def _transpose_torch(x: Any, out: Optional[Any], stream: Optional[StreamLike]) -> Any:
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
    _run(x, out.detach(), handle, lambda a: a.contiguous())
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


def _transpose_jax(x: Any, out: Optional[Any], stream: Optional[StreamLike]) -> Any:
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
        return jax.device_put(_transpose_numpy(np.asarray(x), None), dev)
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


# ---------------------------------------------------------------------------
# Public entry
# ---------------------------------------------------------------------------


def transpose(x: ArrayT, out: Optional[ArrayT] = None, *, stream: Optional[StreamLike] = None) -> ArrayT:
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
        GPU arrays only (ignored for CPU arrays): a ``cudaStream_t`` as an int, a
        ``torch.cuda.Stream``, a ``cupy.cuda.Stream`` or any object with
        ``__cuda_stream__``. Default: the framework's current stream
        (``torch.cuda.current_stream(x.device)``,
        ``cupy.cuda.get_current_stream()``), so the call is ordered with the
        surrounding framework work without any synchronisation.

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
    * Other layouts (a step along the last axis such as ``x[:, ::2]``,
      negative or zero strides) are first made contiguous with the framework
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
    fw = _framework(x)
    if fw == "numpy":
        return _transpose_numpy(x, out)
    if fw == "torch":
        return _transpose_torch(x, out, stream)
    if fw == "cupy":
        return _transpose_cupy(x, out, stream)
    if fw == "jax":
        return _transpose_jax(x, out, stream)
    raise TypeError(
        f"xpose: unsupported object {_type_name(x)}: expected a numpy.ndarray, torch.Tensor, "
        "cupy.ndarray or jax.Array"
    )


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
