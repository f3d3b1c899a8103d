"""xpose for JAX: the extension's XLA FFI handler behind ``jax.ffi.ffi_call``.

The handler (python/src/xpose_ext.cpp) is registered as the custom-call target
``xpose_permute`` for the CPU and, when the library has CUDA, for CUDA. A call is
an ordinary XLA operation: it traces under ``jax.jit``, runs on XLA's stream with
no host synchronisation, keeps ``jnp.transpose``'s placement (the result is
committed to a device only if the input was), and eager calls take the same path
(JAX compiles and caches the one-op computation). ``jax.grad``: a custom VJP, the
cotangent permuted by the inverse axes (and conjugated when the call conjugates).
``jax.vmap``: ``vmap_method="broadcast_all"``, the handler keeping the batch axes
first.
"""

from __future__ import annotations

from functools import partial
from typing import Any, List, Optional, Tuple

import numpy as np

import jax

from . import _xpose

TARGET = "xpose_permute"


def _register() -> Optional[str]:
    """Registers the handlers; returns why they are missing (None when registered)."""
    handlers = getattr(_xpose, "jax_ffi_handlers", None)
    if handlers is None:
        return ("xpose was built without XLA's FFI headers (jax was not importable when the extension was "
                "compiled): reinstall xpose with jax installed to use it on JAX arrays")
    for platform, capsule in handlers().items():
        jax.ffi.register_ffi_target(TARGET, capsule, platform=platform)
    return None


_MISSING = _register()


def _inverse(axes: Tuple[int, ...]) -> Tuple[int, ...]:
    inv = [0] * len(axes)
    for k, a in enumerate(axes):
        inv[a] = k
    return tuple(inv)


def _call(x: Any, axes: Tuple[int, ...], conjugate: bool, threads: int) -> Any:
    shape = tuple(x.shape[a] for a in axes)
    return jax.ffi.ffi_call(TARGET, jax.ShapeDtypeStruct(shape, x.dtype), vmap_method="broadcast_all")(
        x, axes=np.asarray(axes, dtype=np.int64), conjugate=np.int64(conjugate), threads=np.int64(threads))


@partial(jax.custom_vjp, nondiff_argnums=(1, 2, 3))
def permute(x: Any, axes: Tuple[int, ...], conjugate: bool = False, threads: int = 0) -> Any:
    """jnp.transpose(x, axes) (conjugated if asked) as one XLA FFI call."""
    return _call(x, axes, conjugate, threads)


def _fwd(x: Any, axes: Tuple[int, ...], conjugate: bool, threads: int) -> Tuple[Any, None]:
    return _call(x, axes, conjugate, threads), None


def _bwd(axes: Tuple[int, ...], conjugate: bool, threads: int, _: None, g: Any) -> Tuple[Any]:
    return (permute(g, _inverse(axes), conjugate, threads),)


permute.defvjp(_fwd, _bwd)


def _check(x: Any, out: Any, stream: Any) -> None:
    if _MISSING is not None:
        raise RuntimeError(f"xpose: {_MISSING}")
    if out is not None:
        raise ValueError("xpose: JAX arrays are immutable: out= is not supported for JAX inputs")
    if stream is not None:
        raise ValueError("xpose: stream= is not supported for JAX arrays (the call runs on XLA's stream)")


def permute_entry(x: Any, axes: List[int], out: Any, stream: Any, conjugate: bool, threads: int) -> Any:
    _check(x, out, stream)
    return permute(x, tuple(axes), conjugate, threads)


class Front:
    """What xpose._api calls for JAX arrays (tracers included)."""

    permute = staticmethod(permute_entry)
    transpose = staticmethod(permute_entry)


FRONT = Front()
