#!/usr/bin/env python3
"""xpose inside compiled framework code, against the frameworks' own layout changes
in one run:

(a) torch.compile(fullgraph=True, dynamic=False): a few model steps that change
    layouts, each written once as a function of a ``perm(t, axes)`` callable, compiled
    twice: with ``xpose.permute`` and with ``t.permute(axes).contiguous()`` (inductor
    generates the copy and may fuse the pointwise ops around it into it). xpose.permute
    is one node of Dynamo's graph, which inductor decomposes into the same permute and
    contiguous clone (python/xpose/_torch.py), and its traced backward is torch's
    permute backward (a strided view of the gradient; eager autograd runs xpose's
    kernel there): the two variants' programs are the same, forward and backward (a
    ratio away from 1 is noise). Each row prints what inductor generated for each
    variant, per program (forward, then backward): "kernels/buffers" defined and
    allocated (--json: "xpose_code", "inductor_code", with extern and aten calls too).
    Before the decomposition the op was opaque to inductor (a call of xpose's kernel
    between inductor's kernels, nothing fused into it); before the traced backward
    became a view, the xpose variant's backward had one more copy where the gradient
    leaves the graph or feeds a matmul. Steps:
      attn_heads    (B,S,H,D) -> (B,H,S,D), per-head (D,D) matmul, -> (B,S,H,D)
      nchw_linear   (N,C,H,W) -> (N,H,W,C), linear C->C2 + bias, GELU, -> (N,C2,H,W)
      patchify      (N,C,h*p,w*p) -> (N,h,w,p,p,C) (6-D), linear p*p*C -> p*p*C, and
                    back to (N,C,h*p,w*p) (a rank-6 layout change both ways)
      token_mix     (B,T,C) -> (B,C,T), (T,T) token-mixing matmul, -> (B,T,C)
    each forward only ("fwd") and forward + backward through torch.autograd.grad
    w.r.t. every input ("fwd+bwd", the backward of a permutation is one too). The two
    variants' outputs (and gradients) are compared bitwise; where they differ (the
    fused and unfused programs may round differently) torch.testing.assert_close with
    its default tolerances for the dtype (float32: rtol 1.3e-6, atol 1e-5) must pass
    and the check says "close, max |diff| ...". float32 matmuls run at "highest"
    precision (no TF32). Timing: CUDA events on CUDA, time.perf_counter on the CPU;
    warm-ups (the compiles included) then the median of --reps, the two variants
    interleaved (alternating which goes first) so that drift hits both. Each variant is
    called twice before the warm-ups and the Dynamo graphs compiled by these two calls
    are counted ("graphs", 1 when nothing recompiles; printed when not 1: xpose.permute
    guards on the size of xpose's adapter dict, which its first call on a tensor grows,
    so a process that never ran xpose eagerly on a tensor compiles each function
    twice); recompiling during the warm-ups and timed calls is an error
    (torch._dynamo.config.error_on_recompile).
    Shapes are drawn at random from the printed seed: the main activation is
    --torch-mib LO:HI MiB (CUDA 32:256, CPU 1:4).
(b) jax.jit(lambda a: xpose.permute(a, axes)) against jax.jit(lambda a:
    jnp.transpose(a, axes)) on the same device array, checked bitwise, timed with
    time.perf_counter around f(x).block_until_ready() (host dispatch included, alike
    for both), warm-ups, median of --reps, interleaved. The cases: those of
    ``xpose-bench permute --random N --json FILE`` (--cases FILE; JAX has no strided
    views, so a strided case is permuted from a contiguous array, marked "view"), or
    --jax-cases N drawn here from the seed: ranks 2-6, random extents, 1-8 byte dtypes
    (int8 uint8 float16 bfloat16 int16 float32 int32 float64 int64), --jax-mib LO:HI
    MiB (CUDA 16:256, CPU 1:8), never the identity. An identity permutation from a file
    (class copy) is marked "identity": jnp.transpose's program then returns its
    parameter and the runtime copies it to the output buffer (no donation), so both
    sides copy. Cases above --max-mib (CPU default 32) are skipped, and counted.
(c) the host overhead per call of the torch op: bench/host_overhead.py's measure()
    (imported, not repeated here), 4x4 float32, --host-number calls per block.

Ratios are xpose time / framework time: at or below 1 means xpose is not slower.
"±" is half the interquartile range of the reps over their median. The CPU run is a
check that the script works, not a measurement: on a few shared cores the numbers
move by several times from run to run (libgomp's spinning workers of the xpose CPU
backend, the XLA and inductor thread pools and other jobs share the cores;
OMP_WAIT_POLICY=passive changes them), and the target of the issue is the GPU.

  # CPU (here): small sizes, a few seconds to a minute
  PYTHONPATH=build-cpu/python python bench/frameworks_step.py --device cpu
  # GPU: the module built with CUDA (build/python, or pip install .)
  PYTHONPATH=build/python python bench/frameworks_step.py --json fw.json
  build/tools/xpose-bench/xpose-bench permute --random 100 --json cases.json
  PYTHONPATH=build/python python bench/frameworks_step.py --cases cases.json --parts b --json fw_b.json
  --seed S repeats the draws; --parts a,b,c picks the parts; --steps NAME,... the steps.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import secrets
import statistics
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX would take 75% of the GPU from torch

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _mib_range(s: str) -> Tuple[float, float]:
    lo, hi = (float(v) for v in s.split(":"))
    if not 0 < lo <= hi:
        raise argparse.ArgumentTypeError(f"LO:HI with 0 < LO <= HI, got {s!r}")
    return lo, hi


def _log_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def _spread(t: Sequence[float]) -> float:
    """Half the interquartile range over the median: the noise of a timing."""
    q = statistics.quantiles(t, n=4) if len(t) > 1 else [t[0]] * 3
    return (q[2] - q[0]) / 2 / statistics.median(t)


def _interleaved(fns: Sequence[Callable[[], Any]], warmup: int, reps: int,
                 clock: Callable[[Callable[[], Any]], float]) -> List[List[float]]:
    """Times (ms) of each fn, the fns taken in turn every rep, the first one alternating."""
    got: List[List[float]] = [[] for _ in fns]
    for i in range(warmup + reps):
        order = list(range(len(fns)))
        if i % 2:
            order.reverse()
        for k in order:
            t = clock(fns[k])
            if i >= warmup:
                got[k].append(t)
    return got


# ---------------------------------------------------------------------------
# (a) torch.compile'd model steps
# ---------------------------------------------------------------------------

def attn_heads(perm, x, w):
    h = perm(x, (0, 2, 1, 3))  # (B,S,H,D) -> (B,H,S,D)
    y = h @ w  # per head: (B,H,S,D) @ (H,D,D)
    return perm(y, (0, 2, 1, 3))


def nchw_linear(perm, x, w, b):
    import torch.nn.functional as F

    h = perm(x, (0, 2, 3, 1))  # (N,C,H,W) -> (N,H,W,C)
    y = F.gelu(F.linear(h, w, b))  # a 1x1 convolution, channels last
    return perm(y, (0, 3, 1, 2))


def patchify(perm, x, w, p):
    n, c, hp, wp = x.shape
    h, wd = hp // p, wp // p
    t = perm(x.reshape(n, c, h, p, wd, p), (0, 2, 4, 3, 5, 1))  # (N,h,w,p,p,C)
    y = t.reshape(n, h * wd, p * p * c) @ w  # patch embedding
    y = y.reshape(n, h, wd, p, p, c)
    return perm(y, (0, 5, 1, 3, 2, 4)).reshape(n, c, hp, wp)  # unpatchify


def token_mix(perm, x, w):
    t = perm(x, (0, 2, 1))  # (B,T,C) -> (B,C,T)
    y = t @ w  # token mixing, (T,T)
    return perm(y, (0, 2, 1))


def _free(target: float, *fixed: int) -> int:
    return max(1, int(round(target / math.prod(fixed))))


StepDraw = Tuple[Dict[str, Any], List[Tuple[int, ...]], Dict[str, int]]


def _draw_step(name: str, rng: np.random.Generator, elems: float) -> StepDraw:
    """(kwargs that are not tensors, tensor shapes (the activation first), sizes) of a step
    whose activation has about `elems` elements."""
    ri = lambda lo, hi: int(rng.integers(lo, hi + 1))  # noqa: E731
    if name == "attn_heads":
        b, hh, d = ri(1, 8), int(rng.choice([4, 8, 12, 16, 24, 32])), int(rng.choice([64, 80, 96, 128]))
        s = _free(elems, b, hh, d)
        return {}, [(b, s, hh, d), (hh, d, d)], dict(B=b, S=s, H=hh, D=d)
    if name == "nchw_linear":
        n, c, c2 = ri(1, 16), ri(16, 320), ri(16, 320)
        hw = _free(elems, n, c)
        h = max(1, int(round(math.sqrt(hw) * rng.uniform(0.6, 1.6))))
        wd = max(1, hw // h)
        return {}, [(n, c, h, wd), (c2, c), (c2,)], dict(N=n, C=c, H=h, W=wd, C2=c2)
    if name == "patchify":
        n, c, p = ri(1, 16), int(rng.choice([3, 4, 8, 16])), int(rng.choice([2, 4, 8, 14, 16]))
        patches = _free(elems, n, c, p, p)
        h = max(1, int(round(math.sqrt(patches) * rng.uniform(0.6, 1.6))))
        wd = max(1, patches // h)
        k = p * p * c
        return {"p": p}, [(n, c, h * p, wd * p), (k, k)], dict(N=n, C=c, H=h * p, W=wd * p, p=p)
    if name == "token_mix":
        b, t = ri(1, 64), ri(49, 1024)
        c = _free(elems, b, t)
        return {}, [(b, t, c), (t, t)], dict(B=b, T=t, C=c)
    raise ValueError(name)


STEPS = {"attn_heads": attn_heads, "nchw_linear": nchw_linear, "patchify": patchify, "token_mix": token_mix}


def _torch_clock(torch: Any, device: str) -> Callable[[Callable[[], Any]], float]:
    if device == "cuda":
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

        def clock(f: Callable[[], Any]) -> float:
            e0.record()
            f()
            e1.record()
            e1.synchronize()
            return e0.elapsed_time(e1)
    else:
        def clock(f: Callable[[], Any]) -> float:
            t0 = time.perf_counter()
            f()
            return (time.perf_counter() - t0) * 1e3
    return clock


def _compare(torch: Any, got: Sequence[Any], want: Sequence[Any]) -> str:
    """'bitwise', or 'close, max |diff| D' (assert_close with the dtype's default tolerances)."""
    if all(torch.equal(g, w) for g, w in zip(got, want)):
        return "bitwise"
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)
    worst = max(float((g.double() - w.double()).abs().max()) for g, w in zip(got, want))
    return f"close, max |diff| {worst:.2e}"


class _InductorCode:
    """Collects the programs inductor generates (compiled or loaded from its cache) while
    active: the hook torch._inductor.utils.run_and_get_code uses, without its
    torch._dynamo.reset()."""

    def __init__(self) -> None:
        self.codes: List[str] = []

    def __enter__(self) -> "_InductorCode":
        from unittest import mock

        from torch._inductor.graph import GraphLowering

        self._patch = mock.patch.object(GraphLowering, "save_output_code", self.codes.append)
        self._patch.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._patch.__exit__(*exc)


def _code_counts(code: str) -> Dict[str, int]:
    """One generated program, counted: the kernels it defines (C++ or Triton), the buffers
    it allocates, its calls of extern kernels (matmuls) and of aten (fallbacks)."""
    import re

    code = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith("#"))
    return {"kernels": len(re.findall(r"^\w+ = async_compile\.\w+\(", code, re.M)),
            "buffers": len(re.findall(r"\bbuf\d+ = empty_strided", code)),
            "extern": len(re.findall(r"\bextern_kernels\.\w+\(", code)),
            "aten": len(re.findall(r"\btorch\.ops\.aten\.\w+", code))}


def _code_summary(counts: Optional[List[Dict[str, int]]]) -> str:
    if not counts:
        return "?"
    return " ".join(f"{c['kernels']}/{c['buffers']}" for c in counts)


def _explain(torch: Any, fn: Callable[..., Any], args: Sequence[Any]) -> str:
    """torch._dynamo.explain's counts and break reasons (its guards left out)."""
    try:
        ex = torch._dynamo.explain(fn)(*args)
        lines = [f"graphs {ex.graph_count}, graph breaks {ex.graph_break_count}, ops {ex.op_count}"]
        for b in ex.break_reasons:
            where = b.user_stack[-1] if getattr(b, "user_stack", None) else ""
            lines.append(f"  break: {b.reason}" + (f" at {where.filename}:{where.lineno}" if where else ""))
        return "\n".join(lines)
    except Exception as e:  # noqa: BLE001
        return f"explain failed: {type(e).__name__}: {e}"


def run_torch(a: argparse.Namespace, rng: np.random.Generator) -> List[Dict[str, Any]]:
    import torch
    from torch._dynamo.utils import counters

    import xpose

    torch.set_float32_matmul_precision("highest")
    dtype = getattr(torch, a.dtype)
    dev = a.device
    es = torch.empty((), dtype=dtype).element_size()
    clock = _torch_clock(torch, dev)
    variants = {"xpose": lambda t, axes: xpose.permute(t, axes),
                "inductor": lambda t, axes: t.permute(axes).contiguous()}
    rows = []
    print(f"\n(a) torch.compile(fullgraph=True) steps, {a.dtype}, {dev}: median ms of {a.reps} (after {a.warmup} "
          f"warm-ups), ratio = xpose / inductor")
    print(f"{'step':<12} {'mode':<8} {'MiB':>7} {'xpose ms':>10} {'±':>5} {'inductor':>10} {'±':>5} {'ratio':>6}  "
          f"check; sizes")
    for name in a.steps:
        step = STEPS[name]
        kw, shapes, sizes = _draw_step(name, rng, _log_uniform(rng, *a.torch_mib) * 2**20 / es)
        gen = torch.Generator(device="cpu").manual_seed(int(rng.integers(2**62)))
        tensors = []
        for k, shp in enumerate(shapes):
            t = torch.randn(shp, generator=gen, dtype=torch.float32)
            if k > 0 and len(shp) > 1:
                t /= math.sqrt(shp[-2])  # weights: unit-variance outputs
            tensors.append(t.to(device=dev, dtype=dtype))
        mib = tensors[0].numel() * es / 2**20
        for mode in a.modes:
            torch._dynamo.reset()
            args = [t.detach().requires_grad_(mode == "fwd+bwd") for t in tensors]
            row: Dict[str, Any] = {"step": name, "mode": mode, "dtype": a.dtype, "device": dev, "sizes": sizes,
                                   "shapes": [list(s) for s in shapes], "activation_mib": mib}
            fns, outs = [], []
            if mode == "fwd+bwd":  # the output's gradient, the same for both variants
                with torch.no_grad():
                    g = torch.randn(step(variants["inductor"], *args, **kw).shape, generator=gen).to(dev, dtype)
            for vname, perm in variants.items():
                def fwd(*xs, perm=perm):
                    return step(perm, *xs, **kw)
                comp = torch.compile(fwd, fullgraph=True, dynamic=False)
                if mode == "fwd":
                    call = lambda comp=comp: comp(*args)  # noqa: E731
                else:
                    def call(comp=comp):
                        out = comp(*args)
                        return (out, *torch.autograd.grad(out, args, g))
                graphs = counters["stats"]["unique_graphs"]
                try:
                    with _InductorCode() as code:
                        outs.append([t.detach() for t in (call() if mode == "fwd+bwd" else (call(),))])
                    row[f"{vname}_code"] = [_code_counts(c) for c in code.codes]
                    call()  # a second call: it may recompile (see "graphs" in the docstring)
                    row[f"{vname}_graphs"] = counters["stats"]["unique_graphs"] - graphs
                except Exception as e:  # noqa: BLE001  (a graph break under fullgraph, a compile error)
                    row[f"{vname}_error"] = f"{type(e).__name__}: {e}"
                    row[f"{vname}_explain"] = _explain(torch, fwd, args)
                    print(f"{name:<12} {mode:<8} {vname}: {type(e).__name__}: {str(e)[:300]}\n"
                          f"torch._dynamo.explain:\n{row[f'{vname}_explain']}", file=sys.stderr)
                    break
                fns.append(call)
            if len(fns) < 2:
                rows.append(row)
                continue
            eager = step(variants["inductor"], *[t.detach() for t in args], **kw)
            for key, got, want in (("check", outs[0], outs[1]), ("check_vs_eager", outs[0][:1], [eager])):
                try:
                    row[key] = _compare(torch, got, want)
                except AssertionError as e:
                    row[key] = "MISMATCH: " + " ".join(str(e).split())
                    print(f"{name} {mode} {key}: {row[key]}", file=sys.stderr)
            del outs, eager
            with torch._dynamo.config.patch(error_on_recompile=True):
                tx, ti = _interleaved(fns, a.warmup, a.reps, clock)
            row.update(xpose_ms=statistics.median(tx), inductor_ms=statistics.median(ti),
                       xpose_spread=_spread(tx), inductor_spread=_spread(ti))
            row["ratio"] = row["xpose_ms"] / row["inductor_ms"]
            rows.append(row)
            graphs = "" if row["xpose_graphs"] == row["inductor_graphs"] == 1 else \
                f" graphs compiled xpose {row['xpose_graphs']} inductor {row['inductor_graphs']};"
            print(f"{name:<12} {mode:<8} {mib:7.1f} {row['xpose_ms']:10.3f} {row['xpose_spread']:5.1%} "
                  f"{row['inductor_ms']:10.3f} {row['inductor_spread']:5.1%} {row['ratio']:6.3f}  "
                  f"{row['check']};{graphs} kernels/buffers xpose {_code_summary(row.get('xpose_code'))}, inductor "
                  f"{_code_summary(row.get('inductor_code'))}; "
                  + " ".join(f"{k}={v}" for k, v in sizes.items()), flush=True)
        del tensors
    torch._dynamo.reset()
    if dev == "cuda":
        torch.cuda.empty_cache()
    return rows


# ---------------------------------------------------------------------------
# (b) jax.jit: xpose.permute against jnp.transpose
# ---------------------------------------------------------------------------

JAX_DTYPES = {1: ["int8", "uint8"], 2: ["float16", "bfloat16", "int16"], 4: ["float32", "int32"],
              8: ["float64", "int64"]}
FILE_DTYPES = {1: "int8", 2: "int16", 4: "int32", 8: "int64", 16: "complex128"}  # as bench/permute_random_torch.py


def _draw_perm_cases(rng: np.random.Generator, n: int, mib: Tuple[float, float]) -> List[Dict[str, Any]]:
    cases = []
    for i in range(n):
        rank = int(rng.integers(2, 7))
        axes = list(range(rank))
        while axes == list(range(rank)):
            axes = [int(v) for v in rng.permutation(rank)]
        es = int(rng.choice([1, 2, 4, 8]))
        dt = str(rng.choice(JAX_DTYPES[es]))
        elems = _log_uniform(rng, *mib) * 2**20 / es
        # Random extents (some tiny, some large): log-uniform shares of the elements.
        w = rng.dirichlet(np.full(rank, 0.7))
        shape = [max(1, int(round(elems ** s))) for s in w]
        while math.prod(shape) * es > mib[1] * 2**20:  # rounding up overshot: trim the largest extent
            k = int(np.argmax(shape))
            shape[k] = max(1, shape[k] * 9 // 10)
        cases.append({"id": i, "shape": shape, "axes": axes, "dtype": dt, "elem_size": es, "view": False,
                      "class": "-"})
    return cases


def _file_cases(path: str) -> Tuple[Any, List[Dict[str, Any]]]:
    data = json.load(open(path))
    cases = []
    for c in data["cases"]:
        if c.get("check", "ok") != "ok":
            continue
        contiguous = list(c["strides"]) == [math.prod(c["shape"][k + 1:]) for k in range(len(c["shape"]))]
        cases.append({"id": c["id"], "shape": list(c["shape"]), "axes": list(c["axes"]),
                      "dtype": FILE_DTYPES[c["elem_size"]], "elem_size": c["elem_size"],
                      "view": not contiguous or c.get("offset", 0) != 0, "class": c.get("class", "-")})
    return data.get("seed"), cases


def run_jax(a: argparse.Namespace, rng: np.random.Generator) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]:
    import jax

    jax.config.update("jax_enable_x64", True)  # 8-byte dtypes (and complex128 from a file)
    import jax.numpy as jnp

    import xpose

    platform_name = "gpu" if a.device == "cuda" else "cpu"
    try:
        dev = jax.devices(platform_name)[0]
    except RuntimeError as e:
        print(f"\n(b) skipped: JAX has no {platform_name} device ({e})")
        return [], {"skipped": f"no JAX {platform_name} device"}
    if a.cases:
        file_seed, cases = _file_cases(a.cases)
        source = f"{a.cases} (xpose-bench seed {file_seed})"
    else:
        cases = _draw_perm_cases(rng, a.jax_cases, a.jax_mib)
        source = "drawn here"
    print(f"\n(b) jax.jit on {dev}: {len(cases)} cases, {source}; median ms of {a.reps} (after {a.warmup} warm-ups, "
          f"wall clock to block_until_ready), ratio = xpose / jnp.transpose")
    print(f"{'case':>4} {'dtype':<10} {'shape':<28} {'axes':<14} {'MiB':>7} {'xpose ms':>9} {'±':>5} "
          f"{'jnp ms':>9} {'±':>5} {'ratio':>6}  note")

    def clock(f: Callable[[], Any]) -> float:
        t0 = time.perf_counter()
        f().block_until_ready()
        return (time.perf_counter() - t0) * 1e3

    rows, skipped = [], []
    for c in cases:
        nbytes = math.prod(c["shape"]) * c["elem_size"]
        mib = nbytes / 2**20
        if a.max_mib is not None and mib > a.max_mib:
            skipped.append(c["id"])
            continue
        axes = tuple(c["axes"])
        dt = jnp.dtype(c["dtype"])
        host = np.random.default_rng(int(rng.integers(2**62))).integers(0, 256, nbytes, dtype=np.uint8)
        x = jax.device_put(host.view(dt).reshape(c["shape"]), dev)
        del host
        fx = jax.jit(lambda t: xpose.permute(t, axes))
        fj = jax.jit(lambda t: jnp.transpose(t, axes))
        yx, yj = fx(x).block_until_ready(), fj(x).block_until_ready()
        same = yx.shape == yj.shape and np.array_equal(np.asarray(yx).view(np.uint8), np.asarray(yj).view(np.uint8))
        del yx, yj
        tx, tj = _interleaved([lambda: fx(x), lambda: fj(x)], a.warmup, a.reps, clock)
        identity = list(axes) == list(range(len(axes)))
        note = ("bitwise" if same else "MISMATCH") + (" view" if c["view"] else "") + \
               (" identity" if identity else "")
        r = dict(c, mib=mib, xpose_ms=statistics.median(tx), jnp_ms=statistics.median(tj), xpose_spread=_spread(tx),
                 jnp_spread=_spread(tj), bitwise=same, identity=identity)
        r["ratio"] = r["xpose_ms"] / r["jnp_ms"]
        rows.append(r)
        print(f"{c['id']:>4} {c['dtype']:<10} {'x'.join(map(str, c['shape'])):<28} {','.join(map(str, axes)):<14} "
              f"{mib:7.1f} {r['xpose_ms']:9.3f} {r['xpose_spread']:5.1%} {r['jnp_ms']:9.3f} {r['jnp_spread']:5.1%} "
              f"{r['ratio']:6.3f}  {note}", flush=True)
        del x, fx, fj
    info: Dict[str, Any] = {"device": str(dev), "source": source, "skipped_over_max_mib": skipped}
    if skipped:
        print(f"skipped {len(skipped)} cases over --max-mib {a.max_mib}: {skipped}")
    return rows, info


# ---------------------------------------------------------------------------
# (c) host overhead: bench/host_overhead.py's measure()
# ---------------------------------------------------------------------------

def run_host(a: argparse.Namespace) -> List[Dict[str, Any]]:
    sys.path.insert(0, HERE)
    import host_overhead

    rows = [r for r in host_overhead.measure((4, 4), a.host_number, a.host_repeat) if r["case"].startswith("torch")]
    print(f"\n(c) host time per call, µs, 4x4 float32 (bench/host_overhead.py: median of {a.host_repeat} blocks of "
          f"{a.host_number} calls), ratio to x.transpose(-1,-2).contiguous()")
    base: Dict[str, float] = {}
    for r in rows:
        base.setdefault(r["case"], r["us_per_call"])
        r["vs_baseline"] = r["us_per_call"] / base[r["case"]]
        print(f"{r['case']:11} {r['method']:34} {r['us_per_call']:8.2f} {r['vs_baseline']:7.2f}x")
    return rows


# ---------------------------------------------------------------------------

def environment(device: str) -> Dict[str, Any]:
    import xpose

    env: Dict[str, Any] = {"python": sys.version.split()[0], "platform": platform.platform(), "cpus": os.cpu_count(),
                           "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"), "device": device,
                           "xpose": xpose.__version__, "xpose_file": os.path.dirname(xpose.__file__),
                           "xpose_cuda": xpose.built_with_cuda(), "xpose_devices": xpose.device_count()}
    try:
        env["commit"] = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True,
                                       text=True, check=True).stdout.strip()
    except Exception:  # noqa: BLE001
        pass
    try:
        import torch

        env["torch"] = torch.__version__
        env["torch_cuda"] = torch.version.cuda
        if device == "cuda":
            env["gpu"] = torch.cuda.get_device_name()
    except ImportError:
        pass
    try:
        import jax
        import jaxlib

        env["jax"] = jax.__version__
        env["jaxlib"] = jaxlib.__version__
        env["jax_devices"] = [str(d) for d in jax.devices()]
    except Exception as e:  # noqa: BLE001
        env["jax"] = f"unavailable: {e}"
    return env


def _summary(rows: List[Dict[str, Any]], key: str, what: str) -> Dict[str, Any]:
    v = sorted(r["ratio"] for r in rows if "ratio" in r)
    if not v:
        return {}
    slower = [f"{r['step']}/{r['mode']}" if "step" in r else r["id"] for r in rows if r.get("ratio", 0) > 1]
    s = {"n": len(v), "median_ratio": statistics.median(v), "max_ratio": v[-1], "min_ratio": v[0], "slower": slower}
    print(f"summary {key}: {what}: median ratio {s['median_ratio']:.3f} (min {v[0]:.3f}, max {v[-1]:.3f}) over "
          f"{len(v)}; xpose slower (ratio > 1) on {len(slower)}: {slower}")
    return s


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", choices=["cuda", "cpu"], help="default: cuda when torch and xpose see a GPU")
    p.add_argument("--seed", type=int, help="seed of the shapes and data (default: a fresh one, printed)")
    p.add_argument("--parts", default="a,b,c", help="a (torch.compile), b (jax.jit), c (host overhead); default a,b,c")
    p.add_argument("--steps", default=",".join(STEPS), help=f"torch steps (default {','.join(STEPS)})")
    p.add_argument("--modes", default="fwd,fwd+bwd", help="fwd, fwd+bwd (default both)")
    p.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"], help="torch steps' dtype")
    p.add_argument("--torch-mib", type=_mib_range, help="activation size LO:HI MiB (CUDA 32:256, CPU 1:4)")
    p.add_argument("--cases", metavar="FILE", help="JSON of xpose-bench permute --random N --json FILE for (b)")
    p.add_argument("--jax-cases", type=int, help="random permutations drawn for (b) without --cases (CUDA 30, CPU 12)")
    p.add_argument("--jax-mib", type=_mib_range, help="their size LO:HI MiB (CUDA 16:256, CPU 1:8)")
    p.add_argument("--max-mib", type=float, help="(b): skip larger cases (default: none on CUDA, 32 on the CPU)")
    p.add_argument("--warmup", type=int, help="untimed calls first (default CUDA 5, CPU 3)")
    p.add_argument("--reps", type=int, help="timed calls, the median is reported (default CUDA 25, CPU 9)")
    p.add_argument("--host-number", type=int, default=5000, help="(c): calls per timed block (default 5000)")
    p.add_argument("--host-repeat", type=int, default=7, help="(c): timed blocks (default 7)")
    p.add_argument("--json", metavar="OUT", help="write every result as JSON")
    a = p.parse_args(argv)
    parts = set(a.parts.split(","))
    a.steps = [s for s in a.steps.split(",") if s]
    a.modes = [m for m in a.modes.split(",") if m]
    if parts - {"a", "b", "c"} or set(a.steps) - set(STEPS) or set(a.modes) - {"fwd", "fwd+bwd"}:
        p.error("--parts takes a,b,c; --steps " + ",".join(STEPS) + "; --modes fwd,fwd+bwd")
    import xpose

    if a.device is None:
        try:
            import torch

            cuda = torch.cuda.is_available()
        except ImportError:
            cuda = False
        a.device = "cuda" if cuda and xpose.device_count() > 0 else "cpu"
    gpu = a.device == "cuda"
    if gpu and xpose.device_count() == 0:
        p.error("--device cuda: xpose sees no GPU (built without CUDA?)")
    a.torch_mib = a.torch_mib or ((32.0, 256.0) if gpu else (1.0, 4.0))
    a.jax_mib = a.jax_mib or ((16.0, 256.0) if gpu else (1.0, 8.0))
    a.jax_cases = a.jax_cases if a.jax_cases is not None else (30 if gpu else 12)
    a.max_mib = a.max_mib if a.max_mib is not None else (None if gpu else 32.0)
    a.warmup = a.warmup if a.warmup is not None else (5 if gpu else 3)
    a.reps = a.reps if a.reps is not None else (25 if gpu else 9)
    seed = a.seed if a.seed is not None else secrets.randbits(48)
    env = environment(a.device)
    print(f"seed {seed} (repeat: --seed {seed})")
    print("environment: " + ", ".join(f"{k} {v}" for k, v in env.items()))
    out: Dict[str, Any] = {"seed": seed, "env": env,
                           "args": {k: v for k, v in vars(a).items() if k != "json"}, "summary": {}}
    # One generator per part: --parts a,b and --parts b draw the same (b).
    ss = np.random.SeedSequence(seed).spawn(2)
    if "a" in parts:
        out["torch_steps"] = run_torch(a, np.random.default_rng(ss[0]))
    if "b" in parts:
        out["jax_cases"], out["jax_info"] = run_jax(a, np.random.default_rng(ss[1]))
    if "c" in parts:
        out["host_overhead"] = run_host(a)
    print()
    if out.get("torch_steps"):
        out["summary"]["torch"] = _summary(out["torch_steps"], "(a)", "xpose / inductor per step")
        failed = [f"{r['step']}/{r['mode']}" for r in out["torch_steps"] if "ratio" not in r]
        if failed:
            print(f"summary (a): failed to compile (see above): {failed}")
    if out.get("jax_cases"):
        out["summary"]["jax"] = _summary(out["jax_cases"], "(b)", "xpose / jnp.transpose under jax.jit")
        bad = [r["id"] for r in out["jax_cases"] if not r["bitwise"]]
        if bad:
            print(f"summary (b): MISMATCH on cases {bad}")
    if out.get("host_overhead"):
        over = {f"{r['case']}: {r['method']}": r["vs_baseline"] for r in out["host_overhead"]
                if "permute" in r["method"]}
        out["summary"]["host"] = over
        print("summary (c): " + "; ".join(f"{k} {v:.2f}x" for k, v in over.items()))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1, default=str)
        print(f"wrote {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
