"""xpose.transpose, xpose.permute and xpose.transpose_ over NumPy, PyTorch, CuPy and JAX.

This layer only knows the frameworks (through ``xpose._frameworks``): it allocates
the output with the caller's framework, picks the stream and hands addresses,
shapes, strides and the stream to one binding, ``_xpose.permute``. Every rule
about layouts (strides, overlap, alignment, axes, empty arrays) is the C++ core's.

Hot path (host overhead): without ``out``, ``stream`` or ``conjugate``, a
plain array goes to its adapter's ``fast`` entry, one call of the extension that
normalises the axes, plans (cached), allocates through the framework and runs;
whatever it does not take (subclasses, tracers, autograd, odd strides or axes) takes
the general path below, which holds every rule and message.
"""

from __future__ import annotations

import operator
from typing import Any, Dict, List, Optional, Protocol, Sequence, Tuple, TypeVar, Union, runtime_checkable

import numpy as np

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


# Every rank the library takes, filled once: a table that calls extend would change under
# torch.compile's guards and make compiled functions recompile.
_SWAP_LAST_TWO: Dict[int, List[int]] = {n: [*range(n - 2), n - 1, n - 2] for n in range(2, 17)}


def _swap_last_two(ndim: int) -> List[int]:
    """Axes of a transpose of the last two axes (``.mT``, ``swapaxes(-1, -2)``), any batch rank."""
    axes = _SWAP_LAST_TWO.get(ndim)
    if axes is None:
        if ndim < 2:
            raise ValueError(f"xpose: expected a matrix or a batch of matrices (at least 2-D), got {ndim}-D")
        axes = [*range(ndim - 2), ndim - 1, ndim - 2]
    return axes


def _axis(a: Any) -> int:
    if isinstance(a, (bool, np.bool_)):
        raise TypeError(f"xpose: axes must be integers, got a bool ({a!r})")
    # Tested before operator.index as well: torch 2.11's Dynamo does not catch the TypeError
    # below in a compiled function, which then fails with Python's own message.
    if not hasattr(type(a), "__index__"):
        raise TypeError(f"xpose: axes must be integers, got {_type_name(a)} ({a!r})")
    try:
        return operator.index(a)
    except TypeError:
        raise TypeError(f"xpose: axes must be integers, got {_type_name(a)} ({a!r})") from None


def _permute_axes(ndim: int, axes: Any) -> List[int]:
    """axes as np.transpose takes them: None (reverse), a sequence of integers, an
    integer for a 1-D array; negative axes count from the end. Non-integers (floats,
    bools, strings, sets, dicts, Fraction, Decimal, float arrays) raise TypeError,
    a wrong number of axes or an axis out of range ValueError (``bad_axes``)."""
    if axes is None:
        return list(range(ndim - 1, -1, -1))
    if isinstance(axes, np.ndarray):
        if axes.dtype.kind not in "iu" or axes.ndim > 1:
            raise TypeError(f"xpose: axes must be integers, got a {axes.ndim}-D array of dtype {axes.dtype}")
        items: Sequence[Any] = axes.reshape(-1).tolist()
    elif isinstance(axes, (tuple, list, range)):
        items = axes
    elif hasattr(type(axes), "__index__") and not isinstance(axes, (bool, np.bool_)):
        items = (axes,)
    else:
        raise TypeError(f"xpose: axes must be None, an integer or a sequence of integers, got {_type_name(axes)}")
    ax = [_axis(a) for a in items]
    if len(ax) != ndim:
        raise ValueError(f"xpose: bad_axes: {len(ax)} axes for a {ndim}-D array")
    for k, a in enumerate(ax):
        if not -ndim <= a < ndim:
            raise ValueError(f"xpose: bad_axes: axes[{k}] = {a} is out of range for rank {ndim}")
    ax = [a + ndim if a < 0 else a for a in ax]
    if len(set(ax)) != ndim:  # checked here too: JAX would report it only when the call runs
        raise ValueError(f"xpose: bad_axes: axes {ax} repeat an axis")
    return ax


def _check_conjugate(ad: Any, x: Any, conjugate: bool) -> None:
    if not isinstance(conjugate, (bool, np.bool_)):
        raise TypeError(f"xpose: conjugate must be a bool, got {_type_name(conjugate)}")
    if conjugate and not ad.is_complex(ad.unwrap(x)[0]):
        raise ValueError("xpose: invalid_argument: conjugate=True needs a complex dtype (complex64, complex128)")


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
              threads: Optional[int] = None, conjugate: bool = False) -> ArrayT:
    """Transpose a matrix, or the last two axes of a batch of matrices (``x.mT``,
    ``np.swapaxes(x, -1, -2)``), materialised.

    Parameters
    ----------
    x:
        An array of shape ``(..., rows, cols)`` (any number of batch axes) from
        NumPy, PyTorch, CuPy or JAX (or anything that exports itself through
        DLPack). Any element type of 1, 2, 4, 8 or 16 bytes: bool, int8 … int64,
        uint8 … uint64, float16, bfloat16, float32, float64, complex64,
        complex128. A transpose moves bits: NaN payloads and signed zeros are kept.
    out:
        Optional destination of shape ``(..., cols, rows)``, same framework, dtype
        and device as ``x``, writable, any non-negative strides whose elements do
        not overlap each other or ``x``. Not supported for JAX (immutable arrays).
    stream:
        GPU arrays only (checked, then unused, for CPU arrays: a wrong type raises
        TypeError for every array): a ``cudaStream_t`` as an int, a
        ``torch.cuda.Stream``, a ``cupy.cuda.Stream`` or any object with
        ``__cuda_stream__``. Default: the framework's current stream
        (``torch.cuda.current_stream(x.device)``,
        ``cupy.cuda.get_current_stream()``), so the call is ordered with the
        surrounding framework work without any synchronisation. Not for JAX
        (XLA picks the stream).
    threads:
        CPU arrays only: threads of the CPU backend (default ``None`` = all cores,
        as ``OMP_NUM_THREADS`` says; 1 = single-threaded). Above
        ``4 x cores`` (at least 256): ValueError.
    conjugate:
        ``True`` conjugates complex64 / complex128 on the way (``x.mH``); ValueError
        for other dtypes.

    Returns
    -------
    The transposed array, C-contiguous, of the caller's framework on the caller's
    device (``out`` itself when given).

    Frameworks
    ----------
    * NumPy and CPU tensors / arrays run on the library's blocked, threaded CPU
      backend; the call is synchronous.
    * PyTorch: the call is the registered operator ``torch.ops.xpose.permute``
      (``xpose.permute_out`` with ``out=``): differentiable (the gradient is the
      transposed gradient), traceable by ``torch.compile(fullgraph=True)``
      (inductor lowers it to aten and fuses it with its neighbours), ``torch.func``
      and ``vmap``, capturable in CUDA graphs. CUDA tensors run on
      the current stream (``stream`` makes it current for the call), never
      synchronising the host.
    * CuPy: asynchronous on ``stream``.
    * JAX: an XLA FFI call (``jax.ffi.ffi_call``): usable under ``jax.jit``,
      ``jax.grad``, ``jax.vmap``; on the GPU it runs on XLA's stream with no host
      synchronisation. The result is committed to a device only if ``x`` was.

    Strided inputs
    --------------
    * Any non-negative strides go to the C++ core as they are: nothing is copied
      first. A transposed view (``y.T``, ``y.mT``) already has the output's memory
      order and is copied at memcpy speed.
    * Broadcast inputs (stride 0) are read in place, never materialised.
    * Masked arrays keep their mask (permuted with the data); ``np.matrix`` and
      other ndarray subclasses come back as their own type.
    * Negative strides, and strides that are not whole elements (a field of a
      structured array), are first made contiguous with the framework.

    Raises
    ------
    TypeError
        ``x`` is not a supported array, or its dtype is not supported (object
        dtype, 3-byte strings, …); a non-bool ``conjugate``.
    ValueError
        ``x`` has fewer than 2 axes; ``out`` has the wrong shape, dtype, device,
        layout (``overlapping_output``), is read-only, or overlaps ``x``; a
        pointer is misaligned; ``conjugate=True`` on a real dtype.
    RuntimeError
        A CUDA error, or a GPU array with a library built without CUDA; torch's
        autograd errors (``out=`` with an input that requires grad).

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
    axes = _SWAP_LAST_TWO.get(len(shape)) or _swap_last_two(len(shape))
    th = 0 if threads is None else _threads_arg(threads)
    fast = ad.fast
    if fast is not None and out is None and stream is None and conjugate is False:  # hot path: one call
        got = fast(x, axes, th)
        if got is not None:
            return got
    if conjugate is not False:
        _check_conjugate(ad, x, conjugate)
    front = ad.front
    if front is not None:
        return front.transpose(x, axes, out, stream, bool(conjugate), th)
    return ad.permute(x, axes, None, out, stream, bool(conjugate), th)


def permute(x: ArrayT, axes: Any = None, out: Optional[ArrayT] = None, *, stream: Optional[StreamLike] = None,
            conjugate: bool = False, threads: Optional[int] = None) -> ArrayT:
    """Permute the axes of an N-d array: ``np.transpose(x, axes)``, materialised.

    Output axis ``k`` is input axis ``axes[k]``. ``axes`` as NumPy takes them: a
    sequence of integers (Python ints, NumPy integers, anything with
    ``__index__``; negative axes count from the end), an integer for a 1-D array,
    ``None`` (default) to reverse the axes. Ranks up to 16, any strides on ``x``
    (negative or fractional ones are copied to a contiguous array first), element
    sizes 1-16 bytes. ``out`` (optional) has the permuted shape, the same
    framework, dtype and device, any non-negative strides whose elements do not
    overlap. ``conjugate=True`` conjugates complex64 / complex128 on the way (a
    sign-bit flip). ``stream``, ``threads``, devices and frameworks (autograd,
    ``torch.compile``, ``jax.jit``) behave as in :func:`xpose.transpose`.

    Raises TypeError for axes that are not integers (floats, bools, strings, sets,
    dicts, ``Fraction``, ``Decimal``, float arrays), unsupported objects or
    dtypes; ValueError for a wrong number of axes, an axis out of range or
    repeated (``bad_axes``), shapes, overlap or misalignment; RuntimeError for
    CUDA errors.

    >>> import numpy as np, xpose
    >>> xpose.permute(np.arange(6).reshape(1, 2, 3), (2, 0, 1)).shape
    (3, 1, 2)
    """
    ad = _adapter_by_type.get(type(x))
    if ad is None:
        ad, x = _resolve(x)
    if stream is not None:
        _stream_handle(stream)
    fast = ad.fast
    if fast is not None and out is None and stream is None and conjugate is False and threads is None:
        got = fast(x, axes, 0)  # hot path: one call of the extension
        if got is not None:
            return got
    ax = _permute_axes(len(x.shape), axes)
    th = 0 if threads is None else _threads_arg(threads)
    if conjugate is not False:
        _check_conjugate(ad, x, conjugate)
    front = ad.front
    if front is not None:
        return front.permute(x, ax, out, stream, bool(conjugate), th)
    plain = ad.unwrap(x)[0]
    shape = _xpose.permute_shape(list(x.shape), ax, ad.itemsize(plain))
    return ad.permute(x, ax, shape, out, stream, bool(conjugate), th)


def transpose_(x: ArrayT, *, stream: Optional[StreamLike] = None) -> ArrayT:
    """Transpose a C-contiguous matrix (or the last two axes of a 3-D batch) in place.

    The memory of ``x`` is rewritten to hold the ``(cols, rows)`` matrices; the
    return value is a view of that same memory with the transposed shape
    (NumPy / CuPy: ``x.reshape(...)``, PyTorch: ``x.view(...)``). ``x`` itself
    keeps its old shape, so use the returned view afterwards. NumPy (masked
    arrays: the mask is transposed in place with the data), PyTorch (CPU and CUDA)
    and CuPy; any dtype of 1, 2, 4, 8 or 16 bytes. Squares need no extra memory;
    other shapes borrow a workspace of at most a quarter of the matrix from the
    framework for the duration of the call. ``stream`` as in :func:`transpose`
    (GPU arrays; default: the framework's current stream).

    PyTorch: the registered operator ``torch.ops.xpose.transpose_``, declared as
    mutating ``x``: it bumps ``x``'s version counter, so a tensor saved for
    backward and then transposed in place makes ``backward()`` raise torch's
    "modified by an inplace operation" error. Like torch's in-place ops it refuses
    a leaf that requires grad (RuntimeError); on another tensor that requires grad
    (grad mode on) it is recorded by autograd as ``x.view(...).copy_(transpose)``,
    through a temporary of the matrix's size.

    Raises TypeError for JAX arrays (immutable: use :func:`transpose`) and
    unsupported objects or dtypes; ValueError for arrays that are not 2-D or 3-D,
    not C-contiguous, or read-only.
    """
    ad = _adapter_of(x)
    if ad is not None and ad.immutable:
        raise TypeError("xpose: JAX arrays are immutable: transpose_ cannot work in place (use xpose.transpose)")
    if ad is None:
        raise _unsupported(x, "a numpy.ndarray, torch.Tensor or cupy.ndarray")
    if stream is not None:
        _stream_handle(stream)
    shape = _transposed_shape(tuple(x.shape))
    front = ad.front
    if front is not None:
        return front.transpose_(x, shape, stream)
    return ad.inplace(x, shape, stream)
