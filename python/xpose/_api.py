"""xpose.transpose, xpose.permute and xpose.transpose_ over NumPy, PyTorch, CuPy and JAX.

This layer only knows the frameworks (through ``xpose._frameworks``): it allocates
the output with the caller's framework, picks the stream and hands addresses,
shapes, strides and the stream to one binding, ``_xpose.permute``. Every rule
about layouts (strides, overlap, alignment, axes, empty arrays) is the C++ core's.
"""

from __future__ import annotations

from typing import Any, Optional, Protocol, Tuple, TypeVar, Union, runtime_checkable

from . import _frameworks, _xpose
from ._frameworks import stream_handle as _stream_handle
from ._frameworks import type_name as _type_name


@runtime_checkable
class SupportsDLPack(Protocol):
    """An array that exports itself through DLPack (NumPy, PyTorch, CuPy, JAX, ...)."""

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...

    def __dlpack_device__(self) -> Tuple[int, int]: ...


ArrayT = TypeVar("ArrayT", bound=SupportsDLPack)
# A cudaStream_t as an int, or a stream object (torch.cuda.Stream, cupy.cuda.Stream,
# anything with __cuda_stream__): checked at run time by _stream_handle.
StreamLike = Union[int, Any]

# Axes of a transpose of the last two axes, by rank.
_SWAP_LAST_TWO = {2: [1, 0], 3: [0, 2, 1]}
_adapter_by_type = _frameworks._BY_TYPE
_adapter_of = _frameworks.adapter_of


def device_count() -> int:
    """Number of CUDA devices the library can use (0 without a GPU or driver)."""
    return int(_xpose.device_count())


def built_with_cuda() -> bool:
    """True when the extension was compiled with the CUDA backend."""
    return bool(_xpose.built_with_cuda())


def _unsupported(x: Any, what: str = "a numpy.ndarray, torch.Tensor, cupy.ndarray or jax.Array") -> TypeError:
    return TypeError(f"xpose: unsupported object {_type_name(x)}: expected {what}")


def _resolve(x: Any) -> Tuple[Any, Any]:
    """(adapter, array): the adapter of x's type, or a DLPack import of other objects."""
    ad = _adapter_of(x)
    if ad is not None:
        return ad, x
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        return _frameworks.from_dlpack(x)
    raise _unsupported(x)


def _transposed_shape(shape: Tuple[int, ...]) -> Tuple[int, ...]:
    if len(shape) not in (2, 3):
        raise ValueError(f"xpose: expected a 2-D matrix or a 3-D batch of matrices, got shape {tuple(shape)}")
    return (*shape[:-2], shape[-1], shape[-2])


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
# Public entries
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
        same framework, dtype and device as ``x``, writable, any non-negative
        strides whose elements do not overlap each other or ``x``.
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
    * Any non-negative strides (row pitch, batch stride, a step along the last
      axis, ``x[::2]``, ``x[:, ::2]``) go to the C++ core as they are: nothing
      is copied first. The core's plan picks the algorithm; a transposed view
      (``y.T``, ``y.mT``) already has the output's memory order and is copied
      at memcpy speed, not transposed.
    * Broadcast inputs (stride 0, ``np.broadcast_to``, ``expand``) are read in
      place; the broadcast input is never materialised.
    * Masked arrays keep their mask; ``np.matrix`` and other ndarray
      subclasses come back as their own type.
    * Negative strides, and strides that are not whole elements (a field of a
      structured array), are first made contiguous with the framework
      (``np.ascontiguousarray``, ``cupy.ascontiguousarray``), then transposed.

    Raises
    ------
    TypeError
        ``x`` is not a supported array, or its dtype is not supported (object
        dtype, 3-byte strings, …).
    ValueError
        ``x`` is not 2-D or 3-D; ``out`` has the wrong shape, dtype, device,
        layout (``overlapping_output``), is read-only, or overlaps ``x``; a
        pointer is misaligned.
    RuntimeError
        A CUDA error, or a GPU array with a library built without CUDA.

    Messages carry the library's status name and message, e.g.
    ``xpose: overlap: input [0x..., +64 B) and output [0x..., +64 B) overlap``.

    Examples
    --------
    >>> import numpy as np, xpose
    >>> xpose.transpose(np.arange(6).reshape(2, 3))
    array([[0, 3],
           [1, 4],
           [2, 5]])
    """
    ad = _adapter_by_type.get(type(x))  # hot path: one dict lookup
    if ad is None:
        ad, x = _resolve(x)
    if stream is not None:
        _stream_handle(stream)  # a wrong type is an error for every kind of array
    shape = getattr(x, "shape", None)
    if shape is None:
        raise _unsupported(x)
    axes = _SWAP_LAST_TWO.get(len(shape))
    if axes is None:
        _transposed_shape(tuple(shape))  # raises
    return ad.permute(x, axes, None, out, stream, False, 0 if threads is None else _threads_arg(threads))


def _permute_axes(ndim: int, axes: Any) -> list:
    if axes is None:
        return list(range(ndim - 1, -1, -1))
    axes = [int(a) for a in axes]
    # NumPy accepts negative axes; out-of-range ones go to the core (bad_axes).
    return [a + ndim if -ndim <= a < 0 else a for a in axes]


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
    ad = _adapter_of(x)
    if ad is None:
        raise _unsupported(x)
    ax = _permute_axes(len(x.shape), axes)
    plain = ad.unwrap(x)[0]
    if conjugate and not ad.is_complex(plain):
        raise ValueError("xpose: invalid_argument: conjugate=True needs a complex dtype (complex64, complex128)")
    shape = _xpose.permute_shape(list(x.shape), ax, ad.itemsize(plain))
    return ad.permute(x, ax, shape, out, stream, conjugate, 0)


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
    ad = _adapter_of(x)
    if ad is not None and ad.immutable:
        raise TypeError("xpose: JAX arrays are immutable: transpose_ cannot work in place (use xpose.transpose)")
    if ad is None:
        raise _unsupported(x, "a numpy.ndarray, torch.Tensor or cupy.ndarray")
    return ad.inplace(x, _transposed_shape(tuple(x.shape)), stream)
