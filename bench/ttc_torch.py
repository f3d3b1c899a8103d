#!/usr/bin/env python3
"""TTC-57 against PyTorch, same run (on a GPU).

Runs `xpose-bench ttc --dtype DT` (each case checked bitwise before it is timed, with
its fraction of cudaMemcpy measured in that process), then, in this process, times
PyTorch's `x.permute(axes).contiguous()` and a PyTorch copy of the same bytes on the
same shapes (CUDA events, warm-ups, median). Prints one row per case and the medians:
xpose's and PyTorch's fractions of a copy, and xpose's speed-up over PyTorch.

usage: python3 bench/ttc_torch.py --bench build-h200/tools/xpose-bench/xpose-bench [--dtype f32] [--reps 10]
"""
import argparse
import statistics
import subprocess
import sys

import torch

from sweep_torch import event_ms  # CUDA-event median, shared with the sweep script

DT = {"f32": torch.float32, "f16": torch.float16, "f64": torch.float64, "bf16": torch.bfloat16,
      "u8": torch.uint8, "i8": torch.int8, "c64": torch.complex64}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--dtype", default="f32", choices=sorted(DT))
    ap.add_argument("--reps", type=int, default=10)
    a = ap.parse_args()
    res = subprocess.run([a.bench, "ttc", "--dtype", a.dtype], capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"ttc_torch: xpose-bench failed (rc {res.returncode}): {res.stderr.strip()}")
    print(f"ttc_torch: {torch.cuda.get_device_name()} torch {torch.__version__}, dtype {a.dtype}")
    print(f"{'case':6} {'shape':22} {'axes':12} {'algorithm':13} {'xpose ms':>9} {'x/copy':>7} "
          f"{'torch ms':>9} {'t/copy':>7} {'speedup':>8}")
    xf, tf, sp = [], [], []
    for line in res.stdout.splitlines():
        f = line.split()
        if not f or not f[0].startswith("ttc") or len(f) < 9:
            continue
        name, shape, axes, _, algo, check, ms, _, frac = f[:9]
        if check != "ok":
            sys.exit(f"ttc_torch: {name} failed its exact check: {line}")
        dims = [int(s) for s in shape.split("x")]
        perm = [int(s) for s in axes.split(",")]
        x = torch.empty(dims, dtype=DT[a.dtype], device="cuda")
        x.view(-1).view(torch.uint8).random_()  # any bytes: a permutation moves them
        y = torch.empty_like(x)
        t_torch = event_ms(lambda: x.permute(perm).contiguous(), 3, a.reps)
        t_copy = event_ms(lambda: y.copy_(x), 3, a.reps)
        want = x.permute(perm).contiguous()
        assert want.shape == tuple(dims[p] for p in perm)
        xms, xfrac = float(ms), float(frac)
        tfrac = t_copy / t_torch
        xf.append(xfrac), tf.append(tfrac), sp.append(t_torch / xms)
        print(f"{name:6} {shape:22} {axes:12} {algo:13} {xms:9.3f} {xfrac:7.3f} {t_torch:9.3f} {tfrac:7.3f} {t_torch / xms:8.2f}")
        del x, y, want
    print(f"summary {a.dtype}: {len(xf)} cases; fraction of a copy: xpose median {statistics.median(xf):.3f} "
          f"min {min(xf):.3f}; torch median {statistics.median(tf):.3f} min {min(tf):.3f}; "
          f"xpose / torch speed-up: median {statistics.median(sp):.2f} min {min(sp):.2f}")


if __name__ == "__main__":
    main()
