"""Framework adapters: the one place that knows NumPy, PyTorch, CuPy and JAX.

Each adapter turns an array into what the C++ core takes (an address, a shape,
strides in elements or None for packed row-major, the element size, the device,
the stream) and allocates outputs with the framework. ``xpose._api`` and
``xpose.bench`` both use them. No rule about layouts lives here: shapes, strides,
overlap, alignment and axes are checked by the core (``_xpose.permute``).

Hot path (host overhead): the adapter of a type is found with one dict lookup,
frameworks are imported once, addresses are read without DLPack capsules (torch
``data_ptr``, CuPy ``data.ptr``, NumPy's buffer protocol in the extension), and
contiguous arrays pass ``None`` for their strides. ``Adapter.fast`` does a whole
permute into a new array in one call of the extension.
"""

from __future__ import annotations

import sys
import functools
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import _xpose

_DLPACK_CPU, _DLPACK_CUDA, _DLPACK_CUDA_HOST, _DLPACK_CUDA_MANAGED = 1, 2, 3, 13


def type_name(x: Any) -> str:
    t = type(x)
    return f"{t.__module__}.{t.__qualname__}"


def stream_handle(stream: Any) -> int:
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
        f"xpose: cannot get a cudaStream_t from {type_name(stream)}: pass an int, a "
        "torch.cuda.Stream, a cupy.cuda.Stream or an object with __cuda_stream__"
    )


def elem_strides(strides_bytes: Tuple[int, ...], itemsize: int) -> Optional[List[int]]:
    """Byte strides as element strides, or None when one is not a whole element."""
    out = [s // itemsize for s in strides_bytes]
    if any(s * itemsize != b for s, b in zip(out, strides_bytes)):
        return None
    return out


class Adapter:
    """What the core needs from one framework's arrays. Subclasses fill the hooks."""

    name = ""
    immutable = False  # JAX: no out=, no in-place
    front: Any = None  # torch, JAX: the entries of xpose._torch / xpose._jax take the call
    # fast(x, axes, threads): x permuted into a new array by one call of the extension
    # (axes as xpose.permute takes them), or None when x needs the general path.
    fast: Any = None
    # The array types the framework's arrays have, registered in _BY_TYPE all at once when
    # the adapter is made (torch.compile guards on that table: one change, not one per type).
    types: Tuple[type, ...] = ()

    # -- hooks ---------------------------------------------------------------------
    def address(self, a: Any) -> Any:
        """An int address, or an object the extension reads through the buffer protocol."""
        raise NotImplementedError

    def itemsize(self, a: Any) -> int:
        raise NotImplementedError

    def byte_strides(self, a: Any) -> Optional[Tuple[int, ...]]:
        """Strides in bytes, or None when `a` is C-contiguous."""
        raise NotImplementedError

    def device(self, a: Any) -> int:
        """CUDA device index, or -1 for host memory."""
        return -1

    def empty(self, like: Any, shape: Tuple[int, ...]) -> Any:
        raise NotImplementedError

    def contiguous(self, a: Any) -> Any:
        raise NotImplementedError

    def current_stream(self, like: Any, device: int) -> int:
        return 0

    def check_out(self, x: Any, out: Any) -> None:
        raise NotImplementedError

    def is_complex(self, a: Any) -> bool:
        return a.dtype.kind == "c"

    def unwrap(self, x: Any) -> Tuple[Any, bool]:
        """(plain array, lazily conjugated?): what the bits are and how to read them."""
        return x, False

    # -- shared --------------------------------------------------------------------
    def strides(self, a: Any) -> Optional[List[int]]:
        """Element strides, None when packed; raises for strides that are not whole elements."""
        st = self.byte_strides(a)
        if st is None:
            return None
        es = self.itemsize(a)
        got = elem_strides(st, es)
        if got is None:
            raise ValueError("xpose: out has strides that are not whole elements: pass a C-contiguous array")
        return got

    def input_layout(self, x: Any) -> Tuple[Any, Optional[List[int]]]:
        """(x, element strides or None). The one place where an input the core cannot
        describe (negative strides, strides that are not whole elements) is copied."""
        st = self.byte_strides(x)
        if st is None:
            return x, None
        got = elem_strides(st, self.itemsize(x))
        if got is None or (got and min(got) < 0):
            return self.contiguous(x), None
        return x, got

    def stream_for(self, x: Any, device: int, stream: Any) -> int:
        """The cudaStream_t for a call on `device` (0 for host memory)."""
        if device < 0:
            return 0
        if stream is None:
            return self.current_stream(x, device)
        return stream_handle(stream)

    def view(self, x: Any) -> Tuple[Any, Any, Tuple[int, ...], Optional[List[int]], int, int, bool]:
        """(array, address, shape, element strides or None, element size, device,
        lazily conjugated?) of an input, in one call (the hot path of every transpose)."""
        x, lazy_conj = self.unwrap(x)
        x, st = self.input_layout(x)
        return x, self.address(x), tuple(x.shape), st, self.itemsize(x), self.device(x), lazy_conj

    def permute(self, x: Any, axes: List[int], shape: Optional[Tuple[int, ...]], out: Optional[Any], stream: Any,
                conjugate: bool, threads: int) -> Any:
        """out = permute(x, axes), `shape` the output's (None: x's with the last two
        axes swapped); allocates `out` when None."""
        x, addr, xshape, st, es, dev, lazy_conj = self.view(x)
        if shape is None:
            shape = xshape[:-2] + (xshape[-1], xshape[-2])
        if out is None:
            out = self.empty(x, shape)
            ost = None
        else:
            self.check_out(x, out)
            ost, shape = self.strides(out), tuple(out.shape)
        handle = 0 if dev < 0 else self.stream_for(x, dev, stream)
        _xpose.permute(addr, self.address(out), xshape, st, shape, ost, es, axes, dev, handle,
                       conjugate != lazy_conj, threads)
        return out

    def inplace(self, x: Any, shape: Tuple[int, ...], stream: Any) -> Any:
        """Transposes the last two axes of `x` in place; returns the view of new shape."""
        plain, lazy_conj = self.unwrap(x)
        if plain is not x or lazy_conj:
            raise ValueError("xpose: resolve the lazy conjugate / negation first (x.resolve_conj())")
        self.check_writable(x, "x")
        st = self.strides(x)
        es, dev = self.itemsize(x), self.device(x)
        nbytes = _xpose.inplace_workspace_bytes(x.shape, st, es, dev >= 0)
        ws = self.workspace(x, nbytes) if nbytes else None
        handle = self.stream_for(x, dev, stream)
        _xpose.transpose_inplace(self.address(x), x.shape, st, es, self.workspace_address(ws), nbytes, dev, handle)
        return self.reshape(x, shape)

    def check_writable(self, a: Any, what: str) -> None:
        pass

    def workspace(self, like: Any, nbytes: int) -> Any:
        raise NotImplementedError

    def workspace_address(self, ws: Any) -> int:
        return 0 if ws is None else int(self.address(ws))

    def reshape(self, x: Any, shape: Tuple[int, ...]) -> Any:
        return x.reshape(shape)


class Numpy(Adapter):
    name = "numpy"
    # Arrays of exactly np.ndarray whose strides the core takes (others: None).
    fast = staticmethod(functools.partial(_xpose.permute_buffer, np.ndarray, np.empty))

    def address(self, a: Any) -> Any:
        return a  # buffer protocol, read in the extension

    def itemsize(self, a: Any) -> int:
        return a.dtype.itemsize

    def byte_strides(self, a: Any) -> Optional[Tuple[int, ...]]:
        return None if a.flags.c_contiguous else a.strides

    def empty(self, like: Any, shape: Tuple[int, ...]) -> Any:
        return np.empty(shape, like.dtype)

    def contiguous(self, a: Any) -> Any:
        return np.ascontiguousarray(a)

    def check_out(self, x: Any, out: Any) -> None:
        if not isinstance(out, np.ndarray):
            raise TypeError(f"xpose: out must be a numpy.ndarray like x, got {type_name(out)}")
        if out.dtype != x.dtype:
            raise ValueError(f"xpose: out has dtype {out.dtype}, expected {x.dtype}")
        self.check_writable(out, "out")

    def check_writable(self, a: Any, what: str) -> None:
        if not a.flags.writeable:
            raise ValueError(f"xpose: {what} is read-only")

    def unwrap(self, x: Any) -> Tuple[Any, bool]:
        if x.dtype.hasobject:
            raise TypeError(f"xpose: dtype {x.dtype} holds Python objects and cannot be transposed by xpose")
        return x, False

    def permute(self, x: Any, axes: List[int], shape: Any, out: Optional[Any], stream: Any, conjugate: bool,
                threads: int) -> Any:
        if type(x) is np.ndarray:
            return Adapter.permute(self, x, axes, shape, out, stream, conjugate, threads)
        if isinstance(x, np.ma.MaskedArray):  # the mask is permuted with the data
            if out is not None:
                raise TypeError("xpose: out= is not supported for masked arrays (the mask is returned with a new array)")
            data = self.permute(np.ma.getdata(x), axes, shape, None, stream, conjugate, threads)
            mask = self.permute(np.ma.getmaskarray(x), axes, shape, None, stream, False, threads)
            return np.ma.MaskedArray(data, mask=mask, fill_value=x.fill_value)
        # np.matrix and other subclasses: the bits as an ndarray, then the type back.
        plain = None if out is None else (out.view(np.ndarray) if isinstance(out, np.ndarray) else out)
        res = Adapter.permute(self, x.view(np.ndarray), axes, shape, plain, stream, conjugate, threads)
        return out if out is not None else res.view(type(x))

    def inplace(self, x: Any, shape: Tuple[int, ...], stream: Any) -> Any:
        if isinstance(x, np.ma.MaskedArray):  # the mask is transposed in place with the data
            mask = np.ma.getmask(x)
            if mask is not np.ma.nomask and not (mask.flags.c_contiguous and mask.flags.writeable):
                raise ValueError("xpose: the mask of x is not a writable C-contiguous array")
            Adapter.inplace(self, np.ma.getdata(x), shape, stream)
            if mask is not np.ma.nomask:
                Adapter.inplace(self, mask, shape, stream)
            return x.reshape(shape)
        return Adapter.inplace(self, x, shape, stream)

    def workspace(self, like: Any, nbytes: int) -> Any:
        return np.empty(nbytes // 16 + 1, dtype=np.complex128)  # 16-byte aligned

    def workspace_address(self, ws: Any) -> int:
        return 0 if ws is None else ws.ctypes.data


class Torch(Adapter):
    name = "torch"

    def __init__(self) -> None:
        import torch

        self.torch, self.Tensor = torch, torch.Tensor
        self.types = (torch.Tensor, torch.nn.Parameter)
        from . import _torch  # registers torch.ops.xpose.*

        self.front, self.fast = _torch.FRONT, _torch.fast_entry
        # Looked up once: the current raw cudaStream_t of a device, without a Stream object.
        self._raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)

    def address(self, a: Any) -> int:
        return a.data_ptr()

    def itemsize(self, a: Any) -> int:
        return a.element_size()

    def strides(self, a: Any) -> Optional[List[int]]:
        return None if a.is_contiguous() else list(a.stride())

    def device(self, a: Any) -> int:
        return a.get_device() if a.is_cuda else -1

    def empty(self, like: Any, shape: Tuple[int, ...]) -> Any:
        return like.new_empty(shape)  # x's dtype and device, without building a torch.device

    def contiguous(self, a: Any) -> Any:
        return a.contiguous()

    def current_stream(self, like: Any, device: int) -> int:
        if self._raw_stream is not None:
            return self._raw_stream(device)
        return self.torch.cuda.current_stream(device).cuda_stream  # pragma: no cover

    def check_out(self, x: Any, out: Any) -> None:
        if not isinstance(out, self.Tensor):
            raise TypeError(f"xpose: out must be a torch.Tensor like x, got {type_name(out)}")
        if out.dtype is not x.dtype:  # torch dtypes are singletons
            raise ValueError(f"xpose: out has dtype {out.dtype}, expected {x.dtype}")
        if out.get_device() != x.get_device() or out.is_cuda != x.is_cuda:
            raise ValueError(f"xpose: out is on {out.device}, x on {x.device}")
        if out.is_conj() or out.is_neg():
            raise ValueError("xpose: out is a lazily conjugated / negated view: pass a plain tensor")

    def is_complex(self, a: Any) -> bool:
        return a.is_complex()

    def unwrap(self, x: Any) -> Tuple[Any, bool]:
        if not isinstance(x, self.Tensor):
            raise TypeError(f"xpose: unsupported object {type_name(x)}")
        if not (x.is_cuda or x.is_cpu):  # data_ptr of MPS / XLA / meta tensors is no host or CUDA address
            raise TypeError(f"xpose: tensors on {x.device.type} are not supported (CPU and CUDA only)")
        if self.torch.compiler.is_compiling():  # traced graphs hold no lazy conjugates (Dynamo cannot read is_neg)
            return x, False
        if x.is_neg():
            x = x.resolve_neg()
        return x, x.is_conj()  # the core conjugates on the way: no resolve_conj copy

    def view(self, x: Any) -> Tuple[Any, Any, Tuple[int, ...], Optional[List[int]], int, int, bool]:
        x, lazy_conj = self.unwrap(x)  # torch strides are whole elements, never negative
        return (x, x.data_ptr(), tuple(x.shape), None if x.is_contiguous() else list(x.stride()),
                x.element_size(), x.get_device() if x.is_cuda else -1, lazy_conj)

    def workspace(self, like: Any, nbytes: int) -> Any:
        return self.torch.empty(nbytes + 16, dtype=self.torch.uint8, device=like.device)

    def reshape(self, x: Any, shape: Tuple[int, ...]) -> Any:
        return x.view(shape)


class Cupy(Adapter):
    name = "cupy"

    def __init__(self) -> None:
        import cupy

        self.cp = cupy
        self._get_device = cupy.cuda.runtime.getDevice
        self._current_stream = cupy.cuda.get_current_stream

    def address(self, a: Any) -> int:
        return a.data.ptr

    def itemsize(self, a: Any) -> int:
        return a.dtype.itemsize

    def byte_strides(self, a: Any) -> Optional[Tuple[int, ...]]:
        return None if a.flags.c_contiguous else a.strides

    def device(self, a: Any) -> int:
        return a.device.id

    def _on(self, like: Any, fn: Any, *args: Any) -> Any:
        """fn(*args) with x's device current (entered only when it is not already)."""
        dev = like.device
        if dev.id == self._get_device():
            return fn(*args)
        with dev:
            return fn(*args)

    def empty(self, like: Any, shape: Tuple[int, ...]) -> Any:
        return self._on(like, self.cp.empty, shape, like.dtype)

    def contiguous(self, a: Any) -> Any:
        return self._on(a, self.cp.ascontiguousarray, a)

    def current_stream(self, like: Any, device: int) -> int:
        return self._on(like, self._current_stream).ptr

    def check_out(self, x: Any, out: Any) -> None:
        if not isinstance(out, self.cp.ndarray):
            raise TypeError(f"xpose: out must be a cupy.ndarray like x, got {type_name(out)}")
        if out.dtype != x.dtype:
            raise ValueError(f"xpose: out has dtype {out.dtype}, expected {x.dtype}")
        if out.device != x.device:
            raise ValueError(f"xpose: out is on {out.device}, x on {x.device}")

    def unwrap(self, x: Any) -> Tuple[Any, bool]:
        if not isinstance(x, self.cp.ndarray):
            raise TypeError(f"xpose: unsupported object {type_name(x)}")
        return x, False

    def workspace(self, like: Any, nbytes: int) -> Any:
        return self._on(like, self.cp.empty, nbytes + 16, self.cp.uint8)


class Jax(Adapter):
    """JAX arrays and tracers: every call is an XLA FFI call (xpose._jax)."""

    name = "jax"
    immutable = True

    def __init__(self) -> None:
        import jax.numpy as jnp

        from . import _jax

        self.jnp, self.front = jnp, _jax.FRONT

    def itemsize(self, a: Any) -> int:
        return np.dtype(a.dtype).itemsize

    def is_complex(self, a: Any) -> bool:
        return bool(self.jnp.issubdtype(a.dtype, self.jnp.complexfloating))


NUMPY = Numpy()
_BY_TYPE: Dict[type, Optional[Adapter]] = {np.ndarray: NUMPY}
_SINGLETONS: Dict[str, Adapter] = {"numpy": NUMPY}
_CLASSES = {"torch": Torch, "cupy": Cupy, "jax": Jax, "jaxlib": Jax}


def named(name: str) -> Adapter:
    """The adapter of framework `name` (imports the framework on first use)."""
    ad = _SINGLETONS.get(name)
    if ad is None:
        ad = _SINGLETONS[name] = _CLASSES[name]()
        for t in ad.types:
            _BY_TYPE.setdefault(t, ad)
    return ad


def register_loaded() -> None:
    """Registers torch's adapter now if torch is already imported. torch.compile guards on
    the contents of _BY_TYPE: a first xpose call traced inside a compiled function would
    otherwise register torch.Tensor there and make the function recompile on its next call."""
    if "torch" in sys.modules:
        named("torch")


def adapter_of(x: Any) -> Optional[Adapter]:
    """The adapter of x's type (one dict lookup after the first call), None if none fits."""
    t = type(x)
    try:
        return _BY_TYPE[t]
    except KeyError:
        pass
    if isinstance(x, np.ndarray):  # subclasses too (np.matrix, masked, user-defined)
        ad: Optional[Adapter] = NUMPY
    else:
        mod = t.__module__.split(".", 1)[0]
        ad = named("jax" if mod == "jaxlib" else mod) if mod in _CLASSES else None
    _BY_TYPE[t] = ad
    return ad


def from_dlpack(x: Any) -> Tuple[Adapter, Any]:
    """Any other object with __dlpack__: host memory as a NumPy array (zero-copy),
    CUDA memory through CuPy when it is installed."""
    dev_type = int(x.__dlpack_device__()[0])
    if dev_type in (_DLPACK_CPU, _DLPACK_CUDA_HOST):
        return NUMPY, np.from_dlpack(x)
    if dev_type in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
        try:
            ad = named("cupy")
        except ImportError:
            raise TypeError(
                f"xpose: {type_name(x)} is a CUDA DLPack array: transposing it needs CuPy "
                "(or pass a torch / cupy / jax array)"
            ) from None
        return ad, ad.cp.from_dlpack(x)
    raise TypeError(f"xpose: {type_name(x)} lives on DLPack device type {dev_type} (CPU and CUDA only)")
