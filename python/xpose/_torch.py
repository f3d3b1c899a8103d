"""xpose's operators for PyTorch, registered with ``torch.library.custom_op``.

``torch.ops.xpose.permute`` / ``transpose`` (functional, differentiable, with a
vmap rule), ``torch.ops.xpose.permute_out`` (writes ``out``) and
``torch.ops.xpose.transpose_`` (in place) are what ``xpose.permute``,
``xpose.transpose`` and ``xpose.transpose_`` call for tensors. Each has a fake
(meta) implementation, so ``torch.compile(fullgraph=True)``, ``torch.export`` and
``torch.func`` trace them as single nodes; inductor alone lowers ``permute`` and
``transpose`` to aten (a permuted view and a contiguous clone, below), so that the
code it generates fuses or elides the layout change. The kernels run on the current CUDA
stream (CUDA-graph capturable: no synchronisation, no allocation outside torch's
allocator) or on the CPU backend.

Autograd: the backward of a permutation is the inverse permutation of the
gradient; of a conjugating one, its conjugate: xpose's kernel when the formula runs,
torch's strided view when it is traced (below). The mutating operators bump the
version counter of what they write (torch does it for ops declared with
``mutates_args``), and the Python entries refuse what torch's own in-place and
``out=`` operations refuse.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import sys
import warnings
from typing import Any, List, Optional, Tuple

import torch
from torch import Tensor

from . import _frameworks, _xpose
from ._api import _permute_axes


def _adapter() -> Any:
    return _frameworks.named("torch")


def _inverse(axes: List[int]) -> List[int]:
    inv = [0] * len(axes)
    for k, a in enumerate(axes):
        inv[a] = k
    return inv


def _swap(ndim: int) -> List[int]:
    return [*range(ndim - 2), ndim - 1, ndim - 2]


def _check_complex(x: Tensor, conjugate: bool) -> None:
    if conjugate and not x.is_complex():
        raise ValueError("xpose: invalid_argument: conjugate=True needs a complex dtype (complex64, complex128)")


def _check_axes(x: Tensor, axes: List[int]) -> None:
    if sorted(axes) != list(range(x.dim())):
        raise ValueError(f"xpose: bad_axes: {list(axes)} is not a permutation of the {x.dim()} axes")


_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
_is_compiling = torch.compiler.is_compiling


def _new(x: Tensor, axes: Any, conjugate: bool, threads: int) -> Optional[Tensor]:
    """x.permute(axes) materialised into a new tensor by one call of the extension (axes
    as xpose.permute takes them); x a plain CPU / CUDA tensor, the current stream.
    None above rank 16 (the general path reports it)."""
    dev = x.get_device()  # -1 for CPU tensors
    return _xpose.permute_new(x.data_ptr(), x.shape, x.stride(), x.element_size(), axes, x.new_empty, dev,
                              0 if dev < 0 else _raw_stream(dev), conjugate, threads)


def _kernel(x: Tensor, axes: List[int], conjugate: bool, threads: int) -> Tensor:
    """The eager work of permute / transpose: x.permute(axes) materialised."""
    if x.is_cpu or x.is_cuda:
        if x.is_neg():
            x = x.resolve_neg()
        if x.is_conj():  # the core conjugates on the way: no resolve_conj copy
            x, conjugate = x.conj(), not conjugate
        got = _new(x, axes, conjugate, threads)
        if got is not None:
            return got
    return _adapter().permute(x, list(axes), tuple(x.shape[a] for a in axes), None, None, conjugate, threads)


def _check_matrix(x: Tensor) -> None:
    if x.dim() < 2:
        raise ValueError(f"xpose: expected a matrix or a batch of matrices (at least 2-D), got {x.dim()}-D")


# ---- the backward: xpose's kernel when it runs, torch's view when it is traced ------------
# The gradient of a permutation is the inverse permutation of the gradient (conjugated for
# a conjugating one). Run eagerly (torch.func included), the formulas call the op: xpose's
# kernel materialises it. Traced into a graph (torch.compile, AOTAutograd, make_fx), they
# return what torch's own permute backward returns, a strided view, so that the compiled
# backward of xpose.permute(t, axes) is that of t.permute(axes).contiguous(): the consumer
# reads the gradient through the permuted index and no copy is written where the gradient
# leaves the graph or feeds a matmul (the op's gradient would be a contiguous buffer the
# compiler must write). The values are the same bit for bit (conj_physical flips the sign
# bit as xpose's conjugate does); only the strides of the gradient differ.

_PROXY_MODE = getattr(getattr(torch._C, "_TorchDispatchModeKey", None), "PROXY", None)


def _traced(grad: Tensor) -> bool:
    """True while a backward formula is being traced into a graph, not run. Dynamo (which
    traces the autograd.Function's backward with its forward) folds
    torch.compiler.is_compiling() to True; torch 2.15 also holds that flag for the whole
    compile, AOTAutograd's joint trace (the op's registered formula) included.
    Where a torch does not, or outside torch.compile (make_fx, export), make_fx's proxy
    mode is on the dispatch stack (AOTAutograd traces with it), or the tensors are fake."""
    if _is_compiling():
        return True
    if _PROXY_MODE is not None and torch._C._get_dispatch_mode(_PROXY_MODE) is not None:
        return True
    fake = getattr(sys.modules.get("torch._subclasses.fake_tensor"), "FakeTensor", None)
    return fake is not None and isinstance(grad, fake)


def _grad_view(grad: Tensor, inv: List[int], conjugate: bool) -> Tensor:
    """The gradient as torch's autograd gives it for conj_physical(x.permute(axes)) (the
    op's inductor form): conj_physical of the gradient, permuted back as a view."""
    if conjugate:
        grad = torch.conj_physical(grad)
    return grad.permute(inv)


# ---- functional: permute, transpose -------------------------------------------------

@torch.library.custom_op("xpose::permute", mutates_args=())
def permute(x: Tensor, axes: List[int], conjugate: bool = False, threads: int = 0) -> Tensor:
    """out = x.permute(axes) materialised (C-contiguous), conjugated if asked."""
    _check_axes(x, axes)
    _check_complex(x, conjugate)
    return _kernel(x, axes, conjugate, threads)


@permute.register_fake
def _permute_fake(x: Tensor, axes: List[int], conjugate: bool = False, threads: int = 0) -> Tensor:
    if _decomps_pending:
        _register_inductor_decomps()
    _check_axes(x, axes)
    _check_complex(x, conjugate)
    return x.new_empty([x.shape[a] for a in axes])


def _permute_setup(ctx: Any, inputs: Tuple[Any, ...], output: Tensor) -> None:
    _, ctx.axes, ctx.conjugate, ctx.threads = inputs


def _permute_backward(ctx: Any, grad: Tensor) -> Tuple[Optional[Tensor], None, None, None]:
    inv = _inverse(ctx.axes)
    if _traced(grad):
        return _grad_view(grad, inv, ctx.conjugate), None, None, None
    return permute(grad, inv, ctx.conjugate, ctx.threads), None, None, None


permute.register_autograd(_permute_backward, setup_context=_permute_setup)


@permute.register_vmap
def _permute_vmap(info: Any, in_dims: Tuple[Optional[int], ...], x: Tensor, axes: List[int], conjugate: bool = False,
                  threads: int = 0) -> Tuple[Tensor, Optional[int]]:
    bdim = in_dims[0]
    if bdim is None:
        return permute(x, axes, conjugate, threads), None
    # The batch axis first, kept first.
    return permute(x.movedim(bdim, 0), [0, *(a + 1 for a in axes)], conjugate, threads), 0


@torch.library.custom_op("xpose::transpose", mutates_args=())
def transpose(x: Tensor, conjugate: bool = False, threads: int = 0) -> Tensor:
    """out = x.mT materialised (C-contiguous), conjugated if asked (x.mH)."""
    _check_matrix(x)
    _check_complex(x, conjugate)
    return _kernel(x, _swap(x.dim()), conjugate, threads)


@transpose.register_fake
def _transpose_fake(x: Tensor, conjugate: bool = False, threads: int = 0) -> Tensor:
    if _decomps_pending:
        _register_inductor_decomps()
    _check_matrix(x)
    _check_complex(x, conjugate)
    return x.new_empty([*x.shape[:-2], x.shape[-1], x.shape[-2]])


def _transpose_setup(ctx: Any, inputs: Tuple[Any, ...], output: Tensor) -> None:
    _, ctx.conjugate, ctx.threads = inputs


def _transpose_backward(ctx: Any, grad: Tensor) -> Tuple[Optional[Tensor], None, None]:
    if _traced(grad):
        return _grad_view(grad, _swap(grad.dim()), ctx.conjugate), None, None
    return transpose(grad, ctx.conjugate, ctx.threads), None, None


transpose.register_autograd(_transpose_backward, setup_context=_transpose_setup)


@transpose.register_vmap
def _transpose_vmap(info: Any, in_dims: Tuple[Optional[int], ...], x: Tensor, conjugate: bool = False,
                    threads: int = 0) -> Tuple[Tensor, Optional[int]]:
    bdim = in_dims[0]
    if bdim is None:
        return transpose(x, conjugate, threads), None
    if bdim >= x.dim() - 2:  # the batch axis among the matrix axes: move it to the front
        x, bdim = x.movedim(bdim, 0), 0
    return transpose(x, conjugate, threads), bdim


# ---- mutating: permute_out, transpose_ ----------------------------------------------

@torch.library.custom_op("xpose::permute_out", mutates_args=("out",))
def permute_out(x: Tensor, axes: List[int], conjugate: bool, threads: int, out: Tensor) -> None:
    """out[...] = x.permute(axes) (conjugated if asked); out has any non-overlapping strides."""
    _check_complex(x, conjugate)
    _adapter().permute(x, list(axes), None, out, None, conjugate, threads)


@permute_out.register_fake
def _permute_out_fake(x: Tensor, axes: List[int], conjugate: bool, threads: int, out: Tensor) -> None:
    _check_axes(x, axes)
    _check_complex(x, conjugate)


@torch.library.custom_op("xpose::transpose_", mutates_args=("x",))
def transpose_(x: Tensor, threads: int = 0) -> None:
    """Rewrites the memory of the C-contiguous x (..., R, C) to hold its (..., C, R) transpose."""
    _adapter().inplace(x, (*x.shape[:-2], x.shape[-1], x.shape[-2]), None)


@transpose_.register_fake
def _transpose_inplace_fake(x: Tensor, threads: int = 0) -> None:
    return None


# ---- inductor: the functional ops as aten ---------------------------------------------
# Dynamo, torch.export, aot_eager and torch.func keep xpose::permute / transpose as single
# nodes. Inductor alone gets a decomposition: x.permute(axes) (conj_physical for
# conjugate=True), then a C-contiguous clone. Inductor then fuses the layout change into the
# kernels beside it (a pointwise consumer reads x through the permuted index, no copy is
# written), as it does for t.permute(axes).contiguous(); an opaque op prevents that. The clone is unconditional: the
# op returns a new tensor, never an alias of x (AOTAutograd plans outputs on that); threads
# (the CPU kernel's) means nothing there. The traced backward is no op but a view (_traced,
# _grad_view above), so the compiled backward is torch's permute backward too.
#
# The mutating ops (permute_out, transpose_) keep their kernel under inductor too: they are
# the calls that say where the bytes go. transpose_ rewrites x without a second buffer of
# x's size, which its aten form (x.copy_ of a transposed clone) would allocate; out= writes
# into the caller's strides. Fusing with the pointwise ops beside them is what the
# functional ops are for.
#
# When to register: importing torch._inductor costs over a second, so `import xpose` never
# does. Inductor reads its table through torch._inductor.decomposition (select_decomp_table,
# whose usual result is a cached copy of the table), and every inductor compile imports that
# module before it reads the table. So: registered now if that module is already imported;
# otherwise a one-shot import hook (_AfterImport) registers right after the module's code has
# run, before anything can read the table. The fake kernels (which Dynamo runs while tracing,
# before any backend compiles the graph) retry while neither has happened, in case another
# import hook found the module first. A torch whose inductor lacks the hooks used here keeps
# the op opaque (slower, still correct).

_INDUCTOR_DECOMP = "torch._inductor.decomposition"
_decomps_pending = True


def _permute_decomp(x: Tensor, axes: List[int], conjugate: bool = False, threads: int = 0) -> Tensor:
    _check_axes(x, axes)
    _check_complex(x, conjugate)
    y = x.permute(axes)
    if conjugate:
        y = torch.conj_physical(y)
    return y.clone(memory_format=torch.contiguous_format)


def _transpose_decomp(x: Tensor, conjugate: bool = False, threads: int = 0) -> Tensor:
    _check_matrix(x)
    return _permute_decomp(x, _swap(x.dim()), conjugate, threads)


def _register_inductor_decomps() -> None:
    """Adds the decompositions to inductor's table (once; torch._inductor.decomposition
    already imported)."""
    global _decomps_pending
    mod = sys.modules.get(_INDUCTOR_DECOMP)
    if not _decomps_pending or mod is None:
        return
    _decomps_pending = False
    table, register = getattr(mod, "decompositions", None), getattr(mod, "register_decomposition", None)
    if not isinstance(table, dict) or register is None:
        return
    try:
        for op, fn in ((torch.ops.xpose.permute.default, _permute_decomp),
                       (torch.ops.xpose.transpose.default, _transpose_decomp)):
            if op not in table:
                register(op)(fn)
        cached = getattr(mod, "fast_random_decomps", None)  # the table's cached copy, if read already
        if hasattr(cached, "cache_clear"):
            cached.cache_clear()
    except Exception as e:  # noqa: BLE001  (never break inductor's import over a speed-up)
        warnings.warn(f"xpose: torch.ops.xpose.permute / transpose stay opaque to inductor: {e!r}", stacklevel=2)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs `then()` right after the module `name` has been executed, once; then leaves
    sys.meta_path. The module keeps its own loader."""

    def __init__(self, name: str, then: Any) -> None:
        self.name, self.then = name, then

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        for finder in [f for f in sys.meta_path if f is not self]:
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                break
        else:
            return None  # not found: stay, the import fails as it would have
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return None
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)  # safe: the import machinery stops at the spec returned
        then = self.then

        class Loader(importlib.abc.Loader):
            def create_module(self, spec: Any) -> Any:
                return loader.create_module(spec)

            def exec_module(self, module: Any) -> None:
                module.__loader__ = loader
                if getattr(module, "__spec__", None) is not None:
                    module.__spec__.loader = loader
                loader.exec_module(module)
                then()

        spec.loader = Loader()
        return spec


if _INDUCTOR_DECOMP in sys.modules:
    _register_inductor_decomps()
else:
    sys.meta_path.insert(0, _AfterImport(_INDUCTOR_DECOMP, _register_inductor_decomps))


# ---- autograd for torch.func ------------------------------------------------------
# The formulas registered above serve direct calls of torch.ops.xpose.*. torch.func
# (grad, vjp, jacrev) needs an autograd.Function with setup_context: the entries
# below call the ops through these when x requires grad. Their backward is the same
# choice: the op when it runs, the view when traced (Dynamo traces it with the forward).

class _Permute(torch.autograd.Function):
    generate_vmap_rule = True  # forward under vmap: the op's own vmap rule

    @staticmethod
    def forward(x: Tensor, axes: List[int], conjugate: bool, threads: int) -> Tensor:
        return permute(x, axes, conjugate, threads)

    @staticmethod
    def setup_context(ctx: Any, inputs: Tuple[Any, ...], output: Tensor) -> None:
        _, ctx.axes, ctx.conjugate, ctx.threads = inputs

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tuple[Optional[Tensor], None, None, None]:
        inv = _inverse(ctx.axes)
        if _traced(grad):
            return _grad_view(grad, inv, ctx.conjugate), None, None, None
        return _Permute.apply(grad, inv, ctx.conjugate, ctx.threads), None, None, None


class _Transpose(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x: Tensor, conjugate: bool, threads: int) -> Tensor:
        return transpose(x, conjugate, threads)

    @staticmethod
    def setup_context(ctx: Any, inputs: Tuple[Any, ...], output: Tensor) -> None:
        _, ctx.conjugate, ctx.threads = inputs

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tuple[Optional[Tensor], None, None]:
        if _traced(grad):
            return _grad_view(grad, _swap(grad.dim()), ctx.conjugate), None, None
        return _Transpose.apply(grad, ctx.conjugate, ctx.threads), None, None


class _PermuteEager(torch.autograd.Function):
    """Autograd of an eager call (no tracer, transform or dispatch mode): xpose's kernel both
    ways, with no op dispatch; axes as xpose.permute takes them. A ctx-style Function: apply() of a setup_context one binds
    its arguments with inspect.signature on every call (4 x 4 float32 on CPU, torch 2.15:
    26 µs a call against 5.9 here and 3.4 for permute().contiguous()); torch.func needs
    that style, so it keeps _Permute."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, axes: List[int], conjugate: bool, threads: int) -> Tensor:
        ctx.axes, ctx.conjugate, ctx.threads = axes, conjugate, threads
        return _kernel(x, axes, conjugate, threads)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tuple[Optional[Tensor], None, None, None]:
        inv = _inverse(_permute_axes(grad.dim(), ctx.axes))
        if grad.requires_grad and torch.is_grad_enabled():  # create_graph=True: recorded again
            return _PermuteEager.apply(grad, inv, ctx.conjugate, ctx.threads), None, None, None
        return _kernel(grad, inv, ctx.conjugate, ctx.threads), None, None, None


# ---- the entries of xpose._api for tensors -------------------------------------------

def _on_stream(x: Tensor, stream: Any) -> Any:
    """A context making `stream` torch's current stream on x's device (the kernels use
    the current stream); no-op without a stream or for CPU tensors."""
    if stream is None or not x.is_cuda:
        return contextlib.nullcontext()
    if not isinstance(stream, torch.cuda.Stream):
        stream = torch.cuda.ExternalStream(_frameworks.stream_handle(stream), device=x.device)
    return torch.cuda.stream(stream)


def _check_out(x: Tensor, out: Any) -> None:
    if not isinstance(out, Tensor):
        raise TypeError(f"xpose: out must be a torch.Tensor like x, got {_frameworks.type_name(out)}")
    if not torch.compiler.is_compiling() and (out.is_conj() or out.is_neg()):
        raise ValueError("xpose: out is a lazily conjugated / negated view: pass a plain tensor")
    if torch.is_grad_enabled() and (x.requires_grad or out.requires_grad):
        # torch's own out= functions refuse the same.
        raise RuntimeError("xpose: functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")


def _plain(x: Tensor, conjugate: bool) -> Tuple[Tensor, bool]:
    """A lazily conjugated tensor as its plain view and the conjugation folded in (no
    copy). Traced graphs hold no lazy conjugates (torch resolves them before the op)."""
    if not torch.compiler.is_compiling() and x.is_conj():
        return x.conj(), not conjugate
    return x, conjugate


_Tensor = torch.Tensor
_dispatch_depth = torch._C._len_torch_dispatch_stack
_wrapped = torch._C._functorch.is_functorch_wrapped_tensor
_is_tracing = torch._C._is_tracing
_grad_enabled = torch.is_grad_enabled
_increment_version = torch._C._increment_version


def _untraced(x: Tensor) -> bool:
    """A plain CPU / CUDA tensor (no lazy conjugate or negation) outside every tracer and
    dispatch mode, and not a transform's wrapper."""
    return (type(x) is _Tensor and not _is_compiling() and _dispatch_depth() == 0 and not _wrapped(x)
            and not _is_tracing() and (x.is_cpu or x.is_cuda) and not x.is_conj() and not x.is_neg())


def _eager(x: Tensor) -> bool:
    """True when a call of the op would only reach its kernel: an _untraced tensor that
    needs no autograd. Such calls run the kernel directly (the dispatcher's Python round trip
    costs more than the transpose of a small matrix); every other call is the op."""
    return not (x.requires_grad and _grad_enabled()) and _untraced(x)


_transforms_active = torch._C._are_functorch_transforms_active


def _eager_autograd(x: Tensor) -> bool:
    """True when a call that needs autograd needs nothing else: an _untraced tensor with no
    transform active (_PermuteEager records it)."""
    return _untraced(x) and not _transforms_active()


def permute_entry(x: Tensor, axes: List[int], out: Any, stream: Any, conjugate: bool, threads: int) -> Tensor:
    x, conjugate = _plain(x, conjugate)
    if stream is None and _eager(x):
        if out is None:
            _check_complex(x, conjugate)
            return _kernel(x, axes, conjugate, threads)
        if type(out) is _Tensor and _eager(out):  # what permute_out does, without the dispatcher
            _check_complex(x, conjugate)
            _adapter().permute(x, axes, None, out, None, conjugate, threads)
            _increment_version((out,))  # as for an op that mutates out
            return out
    with _on_stream(x, stream):
        if out is None:
            if x.requires_grad and torch.is_grad_enabled():
                if _eager_autograd(x):
                    _check_complex(x, conjugate)
                    return _PermuteEager.apply(x, list(axes), conjugate, threads)
                return _Permute.apply(x, axes, conjugate, threads)
            return permute(x, axes, conjugate, threads)
        _check_out(x, out)
        permute_out(x, axes, conjugate, threads, out)
        return out


def transpose_entry(x: Tensor, axes: List[int], out: Any, stream: Any, conjugate: bool, threads: int) -> Tensor:
    if out is not None:
        return permute_entry(x, axes, out, stream, conjugate, threads)
    x, conjugate = _plain(x, conjugate)
    if stream is None and _eager(x):
        _check_complex(x, conjugate)
        return _kernel(x, axes, conjugate, threads)
    with _on_stream(x, stream):
        if x.requires_grad and torch.is_grad_enabled():
            if _eager_autograd(x):
                _check_matrix(x)
                _check_complex(x, conjugate)
                return _PermuteEager.apply(x, _swap(x.dim()), conjugate, threads)
            return _Transpose.apply(x, conjugate, threads)
        return transpose(x, conjugate, threads)


def transpose_inplace_entry(x: Tensor, shape: Tuple[int, ...], stream: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"xpose: unsupported object {_frameworks.type_name(x)}")
    if torch.is_grad_enabled() and x.requires_grad:
        if x.is_leaf:
            raise RuntimeError("xpose: a leaf Variable that requires grad is being used in an in-place operation.")
        # Recorded by autograd as torch records an in-place op on a view: the history
        # of x is rebased on the transpose (through a temporary).
        with _on_stream(x, stream):
            t = _Transpose.apply(x, False, 0)
            return x.view(shape).copy_(t)
    if not torch.compiler.is_compiling() and (x.is_conj() or x.is_neg()):
        raise ValueError("xpose: resolve the lazy conjugate / negation first (x.resolve_conj())")
    with _on_stream(x, stream):
        transpose_(x)
    return x.view(shape)


def fast_entry(x: Tensor, axes: Any, threads: int) -> Optional[Tensor]:
    """xpose.permute / transpose of a plain eager tensor (no out, stream or conjugate) in
    one call of the extension; None when the call needs the op (autograd, tracers,
    transforms, lazy conjugates, rank > 16)."""
    if _eager(x):
        return _new(x, axes, False, threads)
    if x.requires_grad and _grad_enabled() and _eager_autograd(x):
        return _PermuteEager.apply(x, axes, False, threads)  # axes as given: normalised by the kernel
    return None


class Front:
    """What xpose._api calls for tensors."""

    fast = staticmethod(fast_entry)
    permute = staticmethod(permute_entry)
    transpose = staticmethod(transpose_entry)
    transpose_ = staticmethod(transpose_inplace_entry)


FRONT = Front()


# ---- Dynamo: xpose.permute / transpose trace as the op -------------------------------
# Traced by Dynamo, xpose.permute's Python dispatch (the adapter table, NumPy's types, the
# axis helpers, the eager tests) left about 60 guards in each compiled function that calls
# it (78 with autograd), where `t.permute(axes).contiguous()` leaves 8: a few µs of host
# time per compiled call (docs/RESULTS.md "Python"). Registered as polyfills
# (torch._dynamo.substitute_in_graph), the two functions below stand in for them while
# Dynamo traces: a torch.Tensor or nn.Parameter with axes a tuple or list of Python ints
# (or None) and no out / stream / threads / conjugate goes straight to the op, whose own
# autograd serves torch.compile (the autograd.Function torch.func needs only where a
# torch.func transform is active and x requires grad), every other call to an unregistered
# copy of the original, which Dynamo traces as before (its errors included). Eager calls
# never see them. Registered when this module is imported if torch._dynamo already is, else
# right after torch._dynamo's import.

def _unregistered_copy(fn: Any) -> Any:
    import types

    g = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    g.__kwdefaults__ = dict(fn.__kwdefaults__ or {})
    return g


def _traced_axes(n: int, axes: Any) -> Optional[List[int]]:
    """axes (a tuple or list of Python ints, or None) as a permutation of range(n); None
    for anything else, which the original function then checks and reports. Not
    _permute_axes: traced, its NumPy and operator checks leave 14 more guards (32 against 18)."""
    if axes is None:
        return [*range(n - 1, -1, -1)]
    if type(axes) is not tuple and type(axes) is not list:
        return None
    # Comparisons only: Dynamo may trace the ints as symbolic after a recompile (automatic
    # dynamic), and torch 2.11's fake tensors fail on a shift by a symbolic int.
    ax: List[int] = []
    for a in axes:
        if type(a) is not int:
            return None
        if a < 0:
            a += n
        if a < 0 or a >= n or a in ax:
            return None
        ax.append(a)
    return ax if len(ax) == n else None


def _register_dynamo_polyfills() -> None:
    """Registers the polyfills once (torch._dynamo already imported); never breaks Dynamo's
    import: a failure leaves the original functions traced."""
    global _polyfills_pending
    mod = sys.modules.get("torch._dynamo")
    if not _polyfills_pending or mod is None:
        return
    _polyfills_pending = False
    substitute = getattr(mod, "substitute_in_graph", None)
    if substitute is None:
        return
    from . import _api

    permute_any, transpose_any = _unregistered_copy(_api.permute), _unregistered_copy(_api.transpose)
    permute_op, transpose_op = torch.ops.xpose.permute.default, torch.ops.xpose.transpose.default
    grad_enabled, param, transforms_active = torch.is_grad_enabled, torch.nn.Parameter, _transforms_active

    def permute_traced(x: Any, axes: Any = None, out: Any = None, *, stream: Any = None, conjugate: bool = False,
                       threads: Optional[int] = None) -> Any:
        if (type(x) is Tensor or type(x) is param) and out is None and stream is None and threads is None \
                and conjugate is False:
            ax = _traced_axes(x.dim(), axes)
            if ax is not None:
                if x.requires_grad and grad_enabled() and transforms_active():
                    return _Permute.apply(x, ax, False, 0)  # torch.func needs the setup_context Function
                return permute_op(x, ax, False, 0)
        return permute_any(x, axes, out, stream=stream, conjugate=conjugate, threads=threads)

    def transpose_traced(x: Any, out: Any = None, *, stream: Any = None, threads: Optional[int] = None,
                         conjugate: bool = False) -> Any:
        if (type(x) is Tensor or type(x) is param) and out is None and stream is None and threads is None \
                and conjugate is False and x.dim() >= 2:
            if x.requires_grad and grad_enabled() and transforms_active():
                return _Transpose.apply(x, False, 0)
            return transpose_op(x, False, 0)
        return transpose_any(x, out, stream=stream, threads=threads, conjugate=conjugate)

    try:
        substitute(_api.permute)(permute_traced)
        substitute(_api.transpose)(transpose_traced)
    except Exception as e:  # noqa: BLE001  (never break Dynamo's import over a speed-up)
        warnings.warn(f"xpose: xpose.permute / transpose are traced through their Python dispatch: {e!r}", stacklevel=2)


_polyfills_pending = True
if "torch._dynamo" in sys.modules:
    _register_dynamo_polyfills()
else:
    sys.meta_path.insert(0, _AfterImport("torch._dynamo", _register_dynamo_polyfills))
