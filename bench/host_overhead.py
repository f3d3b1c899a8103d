#!/usr/bin/env python3
"""Host time per call (µs) of xpose.transpose / xpose.permute on tiny arrays vs the
frameworks' own copies (the goal: xpose on a torch / CuPy array costs about the host
time of ``x.transpose(-1, -2).contiguous()``).

Cases, each on a tiny array (default 4x4 float32, so the copy itself is negligible):
  numpy        np.ascontiguousarray(x.T)            vs xpose.transpose(x) [, out], xpose.permute(x, axes)
  torch cpu    x.transpose(-1, -2).contiguous()     vs the same, and torch.ops.xpose.permute(x, axes)
  torch cpu grad / fwd+bwd   the same with x requiring grad: the call, and the call with its backward
  torch cuda   same, CUDA tensor (when torch sees a GPU)
  cupy         cupy.ascontiguousarray(x.T)          (when CuPy sees a GPU)
axes: the axes reversed (for 2-D arrays, the transpose).
GPU calls are asynchronous: the time is what the host spends enqueueing (the
device is synchronised before and after each timed block, not per call).

Method: timeit, --number calls per block, --repeat rounds of one block per case
(interleaved); the median block / number.
--compare DIR runs the same cases again in a child process with DIR first on
PYTHONPATH (e.g. an older xpose build) and prints both columns side by side.

  python bench/host_overhead.py                       # CPU here
  python bench/host_overhead.py --compare /tmp/xpose_old --json host.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import timeit
from typing import Any, Callable, Dict, List, Optional, Tuple


Case = Tuple[str, str, Callable[[], Any], Optional[Callable[[], None]]]


def _cases(shape: Tuple[int, ...]) -> List[Case]:
    """(case, method, fn, sync) for every framework present; the first method of a case
    is the framework's own copy (the baseline of its ratios)."""
    import numpy as np

    import xpose

    out_shape = (*shape[:-2], shape[-1], shape[-2])
    rev = tuple(range(len(shape) - 1, -1, -1))  # xpose.permute(x): the axes reversed
    cases: List[Case] = []
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    o = np.empty(out_shape, np.float32)
    cases += [("numpy", "np.ascontiguousarray(x.T)", lambda: np.ascontiguousarray(np.swapaxes(x, -1, -2)), None),
              ("numpy", "xpose.transpose(x)", lambda: xpose.transpose(x), None),
              ("numpy", "xpose.transpose(x, out)", lambda: xpose.transpose(x, o), None),
              ("numpy", "xpose.permute(x, axes)", lambda: xpose.permute(x, rev), None)]
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() and xpose.device_count() else [])
        for dev in devices:
            t = torch.arange(int(np.prod(shape)), dtype=torch.float32, device=dev).reshape(shape)
            to = torch.empty(out_shape, dtype=torch.float32, device=dev)
            sync = torch.cuda.synchronize if dev == "cuda" else None
            name = f"torch {dev}"
            ops = torch.ops.xpose
            cases += [(name, "x.transpose(-1,-2).contiguous()", lambda t=t: t.transpose(-1, -2).contiguous(), sync),
                      (name, "xpose.transpose(x)", lambda t=t: xpose.transpose(t), sync),
                      (name, "xpose.transpose(x, out)", lambda t=t, to=to: xpose.transpose(t, to), sync),
                      (name, "xpose.permute(x, axes)", lambda t=t: xpose.permute(t, rev), sync),
                      (name, "torch.ops.xpose.permute(x, axes)", lambda t=t: ops.permute(t, list(rev)), sync)]
            # Under autograd (x requires grad): the call, and the call with its backward.
            tg = t.clone().requires_grad_()
            g = torch.ones(out_shape, dtype=torch.float32, device=dev)
            grad = torch.autograd.grad
            cases += [(f"{name} grad", "x.transpose(-1,-2).contiguous()", lambda t=tg: t.transpose(-1, -2).contiguous(),
                       sync),
                      (f"{name} grad", "xpose.transpose(x)", lambda t=tg: xpose.transpose(t), sync),
                      (f"{name} grad", "xpose.permute(x, axes)", lambda t=tg: xpose.permute(t, rev), sync),
                      (f"{name} fwd+bwd", "x.transpose(-1,-2).contiguous()",
                       lambda t=tg, g=g: grad(t.transpose(-1, -2).contiguous(), t, g), sync),
                      (f"{name} fwd+bwd", "xpose.transpose(x)", lambda t=tg, g=g: grad(xpose.transpose(t), t, g), sync)]
    try:
        import cupy

        gpu = cupy.cuda.runtime.getDeviceCount() > 0 and xpose.device_count() > 0
    except Exception:  # not installed, or no driver
        gpu = False
    if gpu:
        c = cupy.arange(int(np.prod(shape)), dtype=cupy.float32).reshape(shape)
        co = cupy.empty(out_shape, cupy.float32)
        sync = cupy.cuda.get_current_stream().synchronize
        cases += [("cupy", "cupy.ascontiguousarray(x.T)", lambda: cupy.ascontiguousarray(cupy.swapaxes(c, -1, -2)),
                   sync),
                  ("cupy", "xpose.transpose(x)", lambda: xpose.transpose(c), sync),
                  ("cupy", "xpose.transpose(x, out)", lambda: xpose.transpose(c, co), sync),
                  ("cupy", "xpose.permute(x, axes)", lambda: xpose.permute(c, rev), sync)]
    return cases


def measure(shape: Tuple[int, ...], number: int, repeat: int) -> List[Dict[str, Any]]:
    """Blocks of every case interleaved, so that drift on a shared machine hits all alike."""
    cases = _cases(shape)
    for _, _, fn, _ in cases:
        for _ in range(max(1, number // 10)):  # warm-up: imports, caches, allocator pools
            fn()
    blocks: List[List[float]] = [[] for _ in cases]
    for _ in range(repeat):
        for (_, _, fn, sync), got in zip(cases, blocks):
            if sync:
                sync()
            t = timeit.timeit(fn, number=number)
            if sync:
                sync()
            got.append(t / number * 1e6)
    return [{"case": case, "method": method, "us_per_call": statistics.median(b), "min_us": min(b), "max_us": max(b)}
            for (case, method, _, _), b in zip(cases, blocks)]


def _child(path: str, args: argparse.Namespace) -> List[Dict[str, Any]]:
    env = dict(os.environ, PYTHONPATH=path + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--shape", args.shape, "--number", str(args.number),
           "--repeat", str(args.repeat)]
    got = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(got.stdout)


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shape", default="4x4", help="array shape, e.g. 4x4 or 2x4x4 (default 4x4)")
    p.add_argument("--number", type=int, default=20000, help="calls per timed block (default 20000)")
    p.add_argument("--repeat", type=int, default=7, help="timed blocks; the median is reported (default 7)")
    p.add_argument("--compare", metavar="DIR", help="also run with DIR first on PYTHONPATH (another xpose)")
    p.add_argument("--json", metavar="FILE", help="write the rows as JSON")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    shape = tuple(int(n) for n in a.shape.lower().split("x"))
    rows = measure(shape, a.number, a.repeat)
    if a.child:
        json.dump(rows, sys.stdout)
        return 0
    other = _child(a.compare, a) if a.compare else None
    import xpose

    print(f"host time per call, µs (median of {a.repeat} blocks of {a.number} calls), shape {a.shape} float32; "
          f"xpose from {os.path.dirname(xpose.__file__)}")
    # Ratios to the baseline of the same process: the two runs see different load.
    head = (f"{'case':18} {'method':34} {'this':>8} {'vs base':>8}" +
            (f" {'compare':>8} {'vs base':>8}" if other else ""))
    print(head)
    print("-" * len(head))
    base: Dict[str, float] = {}
    obase: Dict[str, float] = {}
    for r in rows:
        base.setdefault(r["case"], r["us_per_call"])  # the first method of a case
        r["vs_baseline"] = r["us_per_call"] / base[r["case"]]
        line = f"{r['case']:18} {r['method']:34} {r['us_per_call']:8.2f} {r['vs_baseline']:7.2f}x"
        if other:
            match = [o for o in other if o["case"] == r["case"] and o["method"] == r["method"]]
            if match:
                obase.setdefault(r["case"], match[0]["us_per_call"])
                r["compare_us"] = match[0]["us_per_call"]
                r["compare_vs_baseline"] = r["compare_us"] / obase[r["case"]]
                line += f" {r['compare_us']:8.2f} {r['compare_vs_baseline']:7.2f}x"
            else:
                line += f" {'-':>8} {'-':>8}"
        print(line)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"shape": list(shape), "number": a.number, "repeat": a.repeat, "compare": a.compare,
                       "rows": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
