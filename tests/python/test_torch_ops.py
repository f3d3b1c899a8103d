"""xpose's registered torch operators (torch.ops.xpose.*): autograd, torch.compile,
torch.func, vmap, opcheck, version counters, in-place refusals; CPU tensors here,
CUDA (with CUDA-graph capture) when a GPU is present."""

import functools
import importlib.util
import pathlib

import pytest

import xpose

torch = pytest.importorskip("torch")

DEVICES = ["cpu", "cuda"]


@pytest.fixture(params=DEVICES)
def dev(request):
    if request.param == "cuda":
        if not torch.cuda.is_available() or xpose.device_count() == 0:
            pytest.skip("no CUDA device (or xpose built without CUDA)")
    return request.param


def test_gradcheck(dev):
    x = torch.randn(3, 4, 5, dtype=torch.float64, device=dev, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a: xpose.permute(a, (2, 0, 1)), (x,))
    assert torch.autograd.gradcheck(lambda a: xpose.transpose(a), (x,))
    assert torch.autograd.gradgradcheck(lambda a: xpose.permute(a, (1, 2, 0)), (x,))
    z = torch.randn(3, 4, 2, dtype=torch.complex128, device=dev, requires_grad=True)
    for conj in (False, True):
        assert torch.autograd.gradcheck(lambda a, c=conj: xpose.permute(a, (2, 0, 1), conjugate=c), (z,))
        assert torch.autograd.gradcheck(lambda a, c=conj: xpose.transpose(a, conjugate=c), (z,))
        assert torch.autograd.gradgradcheck(lambda a, c=conj: xpose.permute(a, None, conjugate=c), (z,))


def test_outputs_carry_grad(dev):
    w = torch.randn(4, 5, device=dev, requires_grad=True)
    y = xpose.permute(w, (1, 0))
    assert y.requires_grad and y.grad_fn is not None
    (y * torch.arange(20.0, device=dev).reshape(5, 4)).sum().backward()
    assert torch.equal(w.grad, torch.arange(20.0, device=dev).reshape(5, 4).t())


def test_opcheck(dev):
    x = torch.randn(3, 4, 5, device=dev)
    cases = [
        (torch.ops.xpose.permute.default, (x, [2, 0, 1], False, 0)),
        (torch.ops.xpose.permute.default, (torch.randn(3, 4, dtype=torch.complex64, device=dev), [1, 0], True, 0)),
        (torch.ops.xpose.transpose.default, (x.requires_grad_(), False, 0)),
        (torch.ops.xpose.permute_out.default, (torch.randn(3, 4, device=dev), [1, 0], False, 0,
                                               torch.empty(4, 3, device=dev))),
        (torch.ops.xpose.transpose_.default, (torch.randn(3, 4, 5, device=dev), 0)),
    ]
    for op, args in cases:
        torch.library.opcheck(op, args)


def _model(a):
    return xpose.permute(a, (1, 0, 2)) * 2 + 1, xpose.transpose(a).relu()


def test_compile_fullgraph_no_break(dev):
    a = torch.randn(2, 3, 4, device=dev)
    ex = torch._dynamo.explain(_model)(a)
    assert ex.graph_break_count == 0 and ex.graph_count == 1
    got, want = torch.compile(_model, fullgraph=True)(a), _model(a)
    assert all(torch.equal(g, w) for g, w in zip(got, want))


def test_compile_compiles_once():
    """A compiled function whose first xpose call is traced compiles once, not again on its
    second call (torch.compile guards on xpose's type-to-adapter table: torch's types are
    in it from `import xpose` when torch is already imported, as in most programs). A
    fresh process, so that no earlier test has registered them."""
    import subprocess
    import sys

    code = (
        "import torch, xpose\n"
        "n = 0\n"
        "def backend(gm, example):\n"
        "    global n\n"
        "    n += 1\n"
        "    return gm.forward\n"
        "f = torch.compile(lambda t: xpose.permute(t, (1, 0)) * 2, backend=backend, fullgraph=True)\n"
        "x = torch.arange(6.0).reshape(2, 3)\n"
        "for _ in range(3):\n"
        "    y = f(x)\n"
        "assert torch.equal(y, x.t() * 2)\n"
        "w = torch.nn.Parameter(torch.ones(2, 3))\n"
        "g = torch.compile(lambda t: xpose.transpose(t) + 1, backend=backend, fullgraph=True)\n"
        "for _ in range(3):\n"
        "    z = g(w)\n"
        "assert torch.equal(z, torch.full((3, 2), 2.0))\n"
        "print(n)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip().splitlines()[-1] == "2", r.stdout  # one graph per function


def _polyfills_registered():
    """xpose._torch imported (an eager call) and torch._dynamo too: the polyfills are in place
    before a trace (a process whose first xpose call is traced registers them during that
    trace, which then takes the dispatch)."""
    import torch._dynamo  # noqa: F401

    from xpose import _torch as xt

    xpose.permute(torch.ones(2, 3), (1, 0))
    if not hasattr(torch._dynamo, "substitute_in_graph"):
        pytest.skip("this torch has no torch._dynamo.substitute_in_graph: the dispatch is traced")
    assert not xt._polyfills_pending


def _guards(fn, *args):
    ex = torch._dynamo.explain(fn)(*args)
    assert ex.graph_break_count == 0 and ex.graph_count == 1
    return len(ex.out_guards)


@pytest.mark.parametrize("grad", [False, True])
def test_compiled_calls_trace_as_the_op(grad):
    """Dynamo traces xpose.permute / transpose as the op (the polyfills at the end of
    xpose/_torch.py), not through xpose's Python dispatch (its adapter table, NumPy's types,
    its helpers), which a compiled function would otherwise guard on: on torch 2.15, 18
    guards against 61 for the dispatch traced (torch's own permute().contiguous(): 8), 19
    against 78 with autograd. Results and gradients as the dispatch traced."""
    from xpose import _api
    from xpose import _torch as xt

    _polyfills_registered()
    orig_p, orig_t = xt._unregistered_copy(_api.permute), xt._unregistered_copy(_api.transpose)
    a = torch.randn(2, 3, 4, requires_grad=grad)
    for new, old in ((lambda t: xpose.permute(t, (2, 0, 1)) * 2, lambda t: orig_p(t, (2, 0, 1)) * 2),
                     (lambda t: xpose.transpose(t) * 2, lambda t: orig_t(t) * 2)):
        assert _guards(new, a) <= 0.65 * _guards(old, a)
        y, z = torch.compile(new, fullgraph=True)(a), torch.compile(old, fullgraph=True)(a)
        assert torch.equal(y, z)
        if grad:
            g = torch.randn_like(y)
            assert torch.equal(torch.autograd.grad(y, a, g)[0], torch.autograd.grad(z, a, g)[0])


@pytest.mark.parametrize("axes", [(2, 0, 1), [1, 2, 0], (-1, 0, -2), None, range(3), (0, 1, 2)])
def test_compiled_permute_axes_forms(axes):
    """Every form of axes a compiled call takes: the polyfill's own (tuples and lists of
    ints, negative ones, None) and the others through the dispatch (a range)."""
    _polyfills_registered()
    a = torch.randn(2, 3, 4)
    want = a.permute(*([2, 1, 0] if axes is None else [v % 3 for v in axes])).contiguous()
    assert torch.equal(torch.compile(lambda t: xpose.permute(t, axes), fullgraph=True)(a), want)
    w = torch.nn.Parameter(torch.randn(3, 5))
    assert torch.equal(torch.compile(lambda t: xpose.transpose(t) + 1, fullgraph=True)(w), w.detach().t() + 1)


@pytest.mark.parametrize("axes, message", [
    ((0, 0, 1), "repeat an axis"), ((0, 1), "2 axes for a 3-D array"), ((0, 1, 5), "out of range for rank 3"),
    ((0.0, 1, 2), "axes must be integers, got builtins.float"), ((True, False, 2), "axes must be integers, got"),
])
def test_compiled_permute_bad_axes_raise(axes, message):
    """Bad axes (bools too, though they are ints) reach the dispatch's checks, which raise
    its own messages while Dynamo traces, as eagerly."""
    _polyfills_registered()
    a = torch.randn(2, 3, 4)
    with pytest.raises(Exception, match=message):
        xpose.permute(a, axes)
    with pytest.raises(Exception, match=message):
        torch.compile(lambda t: xpose.permute(t, axes), fullgraph=True)(a)


@pytest.mark.skipif(tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2]) < (2, 12),
                    reason="torch 2.11's Dynamo runs the op's registered autograd on torch.func.grad's wrapper "
                           "inside a compiled function (RuntimeError: an autograd.Function under functorch "
                           "transforms must override setup_context); eager torch.func.grad is tested below")
def test_compiled_func_grad():
    """torch.func.grad inside a compiled function: the polyfill's autograd.Function branch
    (the op's own autograd does not serve torch.func)."""
    _polyfills_registered()
    a, w = torch.randn(2, 3, 4), torch.randn(4, 2, 3)

    def loss(u):
        return (xpose.permute(u, (2, 0, 1)) * w).sum()

    got = torch.compile(lambda t: torch.func.grad(loss)(t), fullgraph=True)(a)
    assert torch.equal(got, torch.func.grad(loss)(a))
    assert torch.equal(got, w.permute(1, 2, 0))


def test_compiled_vmap():
    _polyfills_registered()
    a = torch.randn(2, 3, 4)
    v = torch.compile(lambda t: torch.vmap(lambda u: xpose.transpose(u))(t), fullgraph=True)(a)
    assert torch.equal(v, a.mT)


def test_compile_inplace_and_out(dev):
    def f(a):
        out = torch.empty(4, 3, device=a.device)
        xpose.transpose(a, out)
        b = a.clone()
        return out + 1, xpose.transpose_(b)

    a = torch.randn(3, 4, device=dev)
    ex = torch._dynamo.explain(f)(a)
    assert ex.graph_break_count == 0
    o, t = torch.compile(f, fullgraph=True)(a)
    assert torch.equal(o, a.t() + 1) and torch.equal(t, a.t())


def test_func_grad_and_vmap(dev):
    x = torch.randn(3, 4, device=dev)
    g = torch.func.grad(lambda a: (xpose.permute(a, (1, 0)) ** 2).sum())(x)
    assert torch.allclose(g, 2 * x)
    b = torch.randn(6, 3, 4, device=dev)
    assert torch.equal(torch.vmap(lambda a: xpose.permute(a, (1, 0)))(b), b.permute(0, 2, 1))
    for d in range(3):
        assert torch.equal(torch.vmap(xpose.transpose, in_dims=d)(b), torch.movedim(b, d, 0).mT)
    gb = torch.vmap(torch.func.grad(lambda a: (xpose.transpose(a) ** 2).sum()))(b)
    assert torch.allclose(gb, 2 * b)


def test_wrong_gradient_sequence_raises(dev):
    x = torch.randn(4, 4, device=dev, requires_grad=True)
    y = x * 1.0
    z = (y ** 2).sum()
    xpose.transpose_(y)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()
    # A saved tensor that does not require grad itself: the op bumps its version.
    w = torch.randn(4, 4, device=dev, requires_grad=True)
    s = torch.randn(4, 4, device=dev)
    z = (w * s).sum()
    v = s._version
    xpose.transpose_(s)
    assert s._version > v
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_inplace_on_nonleaf_is_differentiable(dev):
    x = torch.randn(3, 5, dtype=torch.float64, device=dev, requires_grad=True)

    def f(a):
        b = a * 1.0
        return xpose.transpose_(b) * torch.arange(15.0, dtype=torch.float64, device=dev).reshape(5, 3)

    assert torch.autograd.gradcheck(f, (x,))


def test_leaf_refused_and_out_with_grad_refused(dev):
    leaf = torch.zeros(3, 3, device=dev, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        xpose.transpose_(leaf)
    with torch.no_grad():  # as torch: allowed without grad mode
        xpose.transpose_(leaf)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        xpose.transpose(leaf, torch.empty(3, 3, device=dev))


def test_out_bumps_version(dev):
    out = torch.empty(5, 4, device=dev)
    v = out._version
    assert xpose.transpose(torch.randn(4, 5, device=dev), out) is out
    assert out._version > v


def test_cuda_graph_capture_and_replay(torch_cuda):
    x = torch.randn(64, 96, device="cuda")
    out = torch.empty(96, 64, device="cuda")
    sq = torch.randn(2, 32, 32, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # warm-up outside capture, as torch asks
        y = xpose.permute(x, (1, 0))
        xpose.transpose(x, out)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = xpose.permute(x, (1, 0))
        xpose.transpose(x, out)
        t = xpose.transpose_(sq)
    for k in range(3):
        x.copy_(torch.randn(64, 96, device="cuda"))
        before = sq.clone()
        g.replay()
        torch.cuda.synchronize()
        assert torch.equal(y, x.t()) and torch.equal(out, x.t())
        assert torch.equal(t, before.mT)


def test_cuda_compiled_step(torch_cuda):
    a = torch.randn(8, 64, 32, device="cuda")
    got, want = torch.compile(_model, fullgraph=True)(a), _model(a)
    torch.cuda.synchronize()
    assert all(torch.equal(g, w) for g, w in zip(got, want))


# ---- inductor: permute / transpose lowered to aten ------------------------------------
# Inductor alone decomposes xpose::permute / transpose into x.permute(axes) (conj_physical)
# and a contiguous clone, so that the code it generates fuses the layout change with the
# pointwise ops beside it; Dynamo's graph, aot_eager and torch.export keep the op.


@pytest.fixture
def fresh_compile():
    """Compiles from scratch: the FX graph and AOTAutograd caches key on the Dynamo graph
    (which holds the xpose op either way), not on inductor's decomposition table, so a
    cached artifact could hide whether the decomposition ran."""
    import contextlib

    import torch._functorch.config as functorch_config
    import torch._inductor.config as inductor_config

    torch._dynamo.reset()
    with contextlib.ExitStack() as stack:
        for cfg, key in ((inductor_config, "fx_graph_cache"), (functorch_config, "enable_autograd_cache")):
            if hasattr(cfg, key):
                stack.enter_context(cfg.patch({key: False}))
        yield
    torch._dynamo.reset()


@pytest.fixture
def kernel_calls(monkeypatch):
    """Counts the calls of the ops' eager kernel (what a graph node of the op runs)."""
    import xpose._torch as xt

    calls = []
    real = xt._kernel

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(xt, "_kernel", counting)
    return calls


def _dynamo_xpose_ops(fn, *args):
    """The xpose ops in fn's Dynamo graph (submodules too: autograd.Function bodies)."""
    ex = torch._dynamo.explain(fn)(*args)
    assert ex.graph_break_count == 0 and ex.graph_count == 1
    return {str(n.target) for g in ex.graphs for m in g.modules() if isinstance(m, torch.fx.GraphModule)
            for n in m.graph.nodes if n.op == "call_function" and str(n.target).startswith("xpose.")}


def _code(codes):
    """Inductor's generated code less its comment lines (they name the op an aten node came
    from, e.g. "Original ATen: [xpose.permute]")."""
    return "\n".join(line for c in codes for line in c.splitlines() if not line.lstrip().startswith("#"))


def _run_inductor(fn, *args):
    from torch._inductor.utils import run_and_get_code

    return run_and_get_code(fn, *args)


def _permute_around(a, b):  # pointwise before and after; the op's own output returned too
    return (xpose.permute(a * 2, (2, 0, 1)) + b).relu(), xpose.permute(a, (1, 2, 0))


def _transpose_around(a, b):
    return xpose.transpose(a - 1) * 2 + b.mT, xpose.transpose(a)


def _conjugate_around(z, w):  # complex: inductor falls back to aten kernels, still not xpose's
    return xpose.permute(z, (1, 0, 2), conjugate=True) + w, xpose.transpose(z * 2, conjugate=True)


def _real(*shape):
    return torch.randn(*shape)


def _complex(*shape):
    return torch.randn(*shape, dtype=torch.complex64)


INDUCTOR_CASES = {
    "permute": (_permute_around, ["xpose.permute.default"], lambda: (_real(3, 4, 5), _real(5, 3, 4))),
    "transpose": (_transpose_around, ["xpose.transpose.default"], lambda: (_real(2, 3, 5), _real(2, 3, 5))),
    "conjugate": (_conjugate_around, ["xpose.permute.default", "xpose.transpose.default"],
                  lambda: (_complex(2, 3, 4), _complex(3, 2, 4))),
}


@pytest.mark.parametrize("case", list(INDUCTOR_CASES))
def test_inductor_inlines_the_layout_change(case, fresh_compile, kernel_calls):
    fn, ops, make = INDUCTOR_CASES[case]
    args = make()
    want = fn(*args)
    assert _dynamo_xpose_ops(fn, *args) == set(ops)  # the op is one node of Dynamo's graph
    kernel_calls.clear()
    got, codes = _run_inductor(torch.compile(fn, backend="inductor", fullgraph=True), *args)
    assert not kernel_calls  # ... which inductor's code does not call
    code = _code(codes)
    assert code and "xpose" not in code, code
    for g, w in zip(got, want):
        assert torch.equal(g, w) and g.is_contiguous() and g.stride() == w.stride()
        if g.is_complex():  # bitwise: signed zeros and NaN payloads of the conjugate too
            assert torch.equal(torch.view_as_real(g).view(torch.int32), torch.view_as_real(w).view(torch.int32))


def _permute_grad(a, w):
    return (xpose.permute(a * 2, (2, 0, 1)) + w).relu() * w


def _transpose_conj_grad(z, w):
    return xpose.transpose(z * 2, conjugate=True) + w


@pytest.mark.parametrize("fn, make", [
    (_permute_grad, lambda: (_real(3, 4, 5), _real(5, 3, 4))),
    (_transpose_conj_grad, lambda: (_complex(2, 3, 4), _complex(2, 4, 3))),
], ids=["permute", "transpose_conjugate"])
def test_inductor_inlines_forward_and_backward(fn, make, fresh_compile, kernel_calls):
    args = [t.requires_grad_() for t in make()]
    g = torch.randn_like(fn(*args))

    def step(f):
        out = f(*args)
        return (out, *torch.autograd.grad(out, args, g))

    want = step(fn)
    assert _dynamo_xpose_ops(fn, *args)  # the op, inside the autograd.Function's forward
    kernel_calls.clear()
    got, codes = _run_inductor(step, torch.compile(fn, backend="inductor", fullgraph=True))
    assert len(codes) >= 2 and not kernel_calls  # forward and backward compiled, no xpose kernel
    code = _code(codes)
    assert "xpose" not in code, code
    for a, b in zip(got, want):
        assert torch.equal(a, b)


# ---- the backward: torch's strided view when traced, xpose's kernel when run -------------
# Traced (Dynamo, AOTAutograd, make_fx), the gradient of xpose.permute is grad.permute(inverse)
# (conj_physical first for conjugate=True), what torch's autograd gives for the op's aten
# form, so the compiled backward of a step written with xpose is that of the step written
# with t.permute(axes).contiguous(). Run eagerly (torch.func too), it is the op: xpose's kernel.


def _perm_xpose(t, axes, conjugate=False):
    return xpose.permute(t, axes, conjugate=conjugate)


def _tr_xpose(t, conjugate=False):
    return xpose.transpose(t, conjugate=conjugate)


def _perm_torch(t, axes, conjugate=False):  # the op's result written with torch
    y = t.permute(axes)
    return (torch.conj_physical(y) if conjugate else y).contiguous()


def _tr_torch(t, conjugate=False):
    return (torch.conj_physical(t.mT) if conjugate else t.mT).contiguous()


LAYOUTS = {"xpose": (_perm_xpose, _tr_xpose), "torch": (_perm_torch, _tr_torch)}


def _token_mix(perm, tr, x, w):  # (B,T,C) -> (B,C,T), token-mixing matmul, back
    return perm(perm(x, (0, 2, 1)) @ w, (0, 2, 1))


def _attn_heads(perm, tr, x, w):  # (B,S,H,D) -> (B,H,S,D), per-head matmul, back
    return perm(perm(x, (0, 2, 1, 3)) @ w, (0, 2, 1, 3))


def _channels_last_linear(perm, tr, x, w):  # (N,C,H,W) -> (N,H,W,C), linear, back
    return perm(torch.nn.functional.linear(perm(x, (0, 2, 3, 1)), w).relu(), (0, 3, 1, 2))


def _transpose_matmul(perm, tr, x, w):
    return tr(x) @ w * 2


def _conjugate_step(perm, tr, z, w):
    return perm(z * 2, (1, 0, 2), True) + tr(w, True)


BACKWARD_STEPS = {
    "token_mix": (_token_mix, lambda: (_real(2, 8, 6), _real(8, 8))),
    "attn_heads": (_attn_heads, lambda: (_real(2, 5, 3, 4), _real(3, 4, 4))),
    "channels_last_linear": (_channels_last_linear, lambda: (_real(2, 4, 3, 5), _real(6, 4))),
    "transpose_matmul": (_transpose_matmul, lambda: (_real(2, 3, 5), _real(3, 4))),
    "conjugate": (_conjugate_step, lambda: (_complex(3, 2, 4), _complex(2, 4, 3))),
}


@functools.lru_cache(maxsize=None)
def _frameworks_step():
    """bench/frameworks_step.py, whose _code_counts the tests count programs with."""
    path = pathlib.Path(__file__).resolve().parents[2] / "bench" / "frameworks_step.py"
    spec = importlib.util.spec_from_file_location("frameworks_step", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _program_counts(code):
    """One program of inductor's generated code, counted as bench/frameworks_step.py counts it
    (kernels defined, buffers allocated, extern and aten calls): a materialised gradient adds a
    kernel and a buffer, or an aten call."""
    return _frameworks_step()._code_counts(code)


def _bitwise(a, b):
    if a.is_complex():
        a, b = torch.view_as_real(a), torch.view_as_real(b)
    return a.dtype == b.dtype and torch.equal(a.contiguous().view(torch.int32), b.contiguous().view(torch.int32))


def _compiled_fwd_bwd(step, variant, args, g):
    """(outputs and gradients, counts of each generated program) of the step compiled by
    inductor with one of LAYOUTS, forward and backward."""
    perm, tr = LAYOUTS[variant]
    torch._dynamo.reset()
    f = torch.compile(lambda *a: step(perm, tr, *a), backend="inductor", fullgraph=True)

    def run():
        out = f(*args)
        return (out, *torch.autograd.grad(out, args, g))

    got, codes = _run_inductor(run)
    return got, [_program_counts(c) for c in codes]


@pytest.mark.parametrize("case", list(BACKWARD_STEPS))
def test_inductor_backward_is_torchs(case, fresh_compile, kernel_calls):
    """Compiled forward + backward of a step written with xpose: the programs inductor
    generates count the same kernels, buffers and calls as those of the step written with
    t.permute(axes).contiguous() (the op's gradient once added a copy to the backward), the
    gradients have the same strides, and they are bitwise those of eager, where the
    backward runs xpose's kernel."""
    step, make = BACKWARD_STEPS[case]
    args = [t.requires_grad_() for t in make()]
    with torch.no_grad():
        g = torch.randn_like(step(*LAYOUTS["torch"], *args))
    kernel_calls.clear()
    out = step(*LAYOUTS["xpose"], *args)
    forward_calls = len(kernel_calls)
    eager = (out, *torch.autograd.grad(out, args, g))
    assert forward_calls and len(kernel_calls) == 2 * forward_calls  # each gradient: xpose's kernel

    kernel_calls.clear()
    got, counts = _compiled_fwd_bwd(step, "xpose", args, g)
    assert not kernel_calls
    want, want_counts = _compiled_fwd_bwd(step, "torch", args, g)
    assert len(counts) == 2, counts  # forward, backward
    assert counts == want_counts, (counts, want_counts)
    for a, c, e in zip(got, want, eager):
        assert _bitwise(a, e) and _bitwise(c, e)
        assert a.stride() == c.stride()


def test_inductor_backward_count_sees_the_copy(fresh_compile, monkeypatch):
    """The counts above see a materialised gradient: with the op as the traced backward
    (as before the view), token_mix's backward program has one more kernel and buffer."""
    import xpose._torch as xt

    step, make = BACKWARD_STEPS["token_mix"]
    args = [t.requires_grad_() for t in make()]
    g = torch.randn(2, 8, 6)
    _, view_counts = _compiled_fwd_bwd(step, "xpose", args, g)
    monkeypatch.setattr(xt, "_traced", lambda grad: False)
    _, op_counts = _compiled_fwd_bwd(step, "xpose", args, g)
    assert op_counts[0] == view_counts[0]
    bwd, view_bwd = op_counts[1], view_counts[1]
    assert bwd["kernels"] == view_bwd["kernels"] + 1 and bwd["buffers"] >= view_bwd["buffers"], (op_counts,
                                                                                                 view_counts)


def test_eager_backward_runs_the_kernel(kernel_calls):
    """Eager autograd, the op's own formula (torch.ops.xpose.*) and torch.func: the gradient
    is xpose's kernel, C-contiguous like every result of the op; traced by make_fx (as
    AOTAutograd traces, also where torch.compiler.is_compiling() is False), torch's view."""
    from torch.fx.experimental.proxy_tensor import make_fx

    x = _real(3, 4, 5).requires_grad_()
    g = _real(5, 3, 4)
    for y in (xpose.permute(x, (2, 0, 1)), torch.ops.xpose.permute(x, [2, 0, 1], False, 0)):
        kernel_calls.clear()
        (gx,) = torch.autograd.grad(y, x, g)
        assert len(kernel_calls) == 1 and gx.is_contiguous() and torch.equal(gx, g.permute(1, 2, 0))
    z = _complex(2, 3, 4).requires_grad_()
    gz = _complex(2, 4, 3)
    for conj in (False, True):
        for y in (xpose.transpose(z, conjugate=conj), torch.ops.xpose.transpose(z, conj, 0)):
            kernel_calls.clear()
            (got,) = torch.autograd.grad(y, z, gz)
            want = torch.conj_physical(gz.mT) if conj else gz.mT
            assert len(kernel_calls) == 1 and got.is_contiguous() and _bitwise(got, want)
    kernel_calls.clear()
    gf = torch.func.grad(lambda a: (xpose.permute(a, (2, 0, 1)) * g).sum())(x.detach())
    assert len(kernel_calls) == 2 and torch.equal(gf, g.permute(1, 2, 0))  # forward, backward
    kernel_calls.clear()
    _, vjp = torch.func.vjp(lambda a: xpose.transpose(a, conjugate=True), z.detach())
    (gv,) = vjp(gz)
    assert len(kernel_calls) == 2 and _bitwise(gv, torch.conj_physical(gz.mT))

    def fwd_bwd(a, t):
        return torch.autograd.grad(torch.ops.xpose.permute(a, [2, 0, 1], True, 0), a, t)

    zz = _complex(3, 4, 5).requires_grad_()
    tt = _complex(5, 3, 4)
    for mode in ("real", "fake"):
        gm = make_fx(fwd_bwd, tracing_mode=mode)(zz, tt)
        targets = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
        assert targets.count("xpose.permute.default") == 1, targets  # the forward
        assert "aten.permute.default" in targets and any("conj_physical" in t for t in targets), targets
    assert _bitwise(gm(zz, tt)[0], torch.conj_physical(tt).permute(1, 2, 0))


def test_aot_eager_keeps_the_op(fresh_compile, kernel_calls):
    """The decomposition is inductor's alone: aot_eager (AOTAutograd without inductor's
    table) runs the op in the forward, as do torch.export and the default decompositions.
    The backward is traced before any backend sees it, so it is torch's permute backward
    (a view) under aot_eager too: no kernel of xpose there, and no copy either."""
    a, b = _real(3, 4, 5), _real(5, 3, 4)
    want = _permute_around(a, b)
    kernel_calls.clear()
    got = torch.compile(_permute_around, backend="aot_eager", fullgraph=True)(a, b)
    assert len(kernel_calls) == 2  # both permutes ran xpose's kernel
    assert all(torch.equal(g, w) for g, w in zip(got, want))
    assert torch.ops.xpose.permute.default not in torch._decomp.decomposition_table

    def direct(x, y):  # the op itself in Dynamo's graph: its registered formula, traced by AOTAutograd
        return torch.ops.xpose.permute(x * 2, [2, 0, 1], False, 0) * y

    for fn in (_permute_grad, direct):
        args = (a.clone().requires_grad_(), b)
        g = _real(5, 3, 4)
        (want,) = torch.autograd.grad(fn(*args), args[0], g)
        torch._dynamo.reset()
        kernel_calls.clear()
        out = torch.compile(fn, backend="aot_eager", fullgraph=True)(*args)
        assert len(kernel_calls) == 1  # the forward's
        (got,) = torch.autograd.grad(out, args[0], g)
        assert len(kernel_calls) == 1 and torch.equal(got, want)

    class M(torch.nn.Module):
        def forward(self, x):
            return xpose.permute(x, (2, 0, 1)) + 1, xpose.transpose(x)

    ep = torch.export.export(M(), (a,))
    for prog in (ep, ep.run_decompositions()):
        targets = {str(n.target) for n in prog.graph.nodes if n.op == "call_function"}
        assert {"xpose.permute.default", "xpose.transpose.default"} <= targets
    assert all(torch.equal(g, w) for g, w in zip(ep.module()(a), M()(a)))


@pytest.mark.parametrize("order", ["xpose_first", "inductor_first"])
def test_inductor_registration_is_lazy(order):
    """`import xpose` does not import inductor (over a second); the decompositions reach
    inductor's table whichever is imported first. Fresh processes: this one has imported both."""
    import subprocess
    import sys

    code = (
        "import sys, torch\n"
        + ("import torch._inductor.compile_fx as c; c.select_decomp_table()\n" if order == "inductor_first" else "")
        + "import xpose\n"
        "xpose.permute(torch.ones(2, 3), (1, 0))\n"
        + ("assert 'torch._inductor.decomposition' not in sys.modules\n" if order == "xpose_first" else "")
        + "from torch._inductor.decomposition import select_decomp_table\n"  # before any trace
        "assert {torch.ops.xpose.permute.default, torch.ops.xpose.transpose.default} <= set(select_decomp_table())\n"
        "from torch._inductor.utils import run_and_get_code\n"
        "f = torch.compile(lambda t: xpose.permute(t, (1, 0)) * 2, fullgraph=True)\n"
        "x = torch.arange(6.0).reshape(2, 3)\n"
        "y, codes = run_and_get_code(f, x)\n"
        "assert torch.equal(y, x.t() * 2)\n"
        "calls = [l for c in codes for l in c.splitlines() if 'xpose' in l and not l.lstrip().startswith('#')]\n"
        "assert not calls, calls\n"
        "print('ok')\n"
    )
    env = dict(__import__("os").environ, TORCHINDUCTOR_FX_GRAPH_CACHE="0", TORCHINDUCTOR_AUTOGRAD_CACHE="0")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip().splitlines()[-1] == "ok", r.stdout
