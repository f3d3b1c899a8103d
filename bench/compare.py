#!/usr/bin/env python3
"""Adds PyTorch and CuPy to best_bench's CSV and prints the comparison as Markdown.

Usage (on a GPU):  ./build/bench/best_bench > bench.csv
                   python3 bench/compare.py bench.csv > table.md
Every framework route is checked against torch's own transpose before timing.
GB/s are decimal and count bytes read + written. Ratios are from the same run.
"""
import csv
import statistics
import sys
from collections import OrderedDict

import torch

try:
    import cupy as cp
except Exception:  # noqa: BLE001 - CuPy is optional
    cp = None

DT = {"i8": torch.int8, "f16": torch.float16, "f32": torch.float32, "f64": torch.float64, "c128": torch.complex128}
ES = {"i8": 1, "f16": 2, "f32": 4, "f64": 8, "c128": 16}


def timed(fn, reps, inner):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    v = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(inner):
            fn()
        b.record()
        b.synchronize()
        v.append(1000.0 * a.elapsed_time(b) / inner)
    return statistics.median(v)


def make(dt, b, r, c):
    shape = (b, r, c) if b > 1 else (r, c)
    if DT[dt].is_floating_point or DT[dt].is_complex:
        return torch.randn(shape, dtype=DT[dt], device="cuda")
    return torch.randint(-128, 127, shape, dtype=DT[dt], device="cuda")


def main():
    rows = list(csv.DictReader(line for line in open(sys.argv[1]) if not line.startswith(("#", "sweep"))))
    head = [line for line in open(sys.argv[1]) if line.startswith("#")]
    cases = OrderedDict()
    for r in rows:
        key = (r["case"], r["dtype"], int(r["rows"]), int(r["cols"]), int(r["batch"]))
        cases.setdefault(key, {})[r["route"]] = r
    print("".join("<!-- %s -->\n" % h.strip("# \n") for h in head))
    print("| class | dtype | batch x rows x cols | memcpy GB/s | best GB/s | best / memcpy | cuBLAS geam | "
          "cublasLt transform | PyTorch | CuPy | best / geam | best / PyTorch |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (cls, dt, r, c, b), routes in cases.items():
        nbytes = 2 * r * c * b * ES[dt]
        tiny = nbytes // 2 <= 64 * 1024
        reps, inner = (15, 200) if tiny else (10, 1)
        x = make(dt, b, r, c)
        want = x.transpose(-1, -2).contiguous()
        t_torch = timed(lambda: x.transpose(-1, -2).contiguous(), reps, inner)
        t_cupy = None
        if cp is not None:
            xc = cp.from_dlpack(x)
            yc = cp.ascontiguousarray(xc.swapaxes(-1, -2))
            if torch.equal(torch.from_dlpack(yc), want):
                t_cupy = timed(lambda: cp.ascontiguousarray(xc.swapaxes(-1, -2)), reps, inner)
            del xc, yc
        del x, want
        torch.cuda.empty_cache()

        def gbs(route):
            v = routes.get(route)
            return float(v["gbs"]) if v and v["gbs"] else None

        def us(route):
            v = routes.get(route)
            return float(v["median_us"]) if v and v["median_us"] else None

        def f(x, fmt="%.0f"):
            return "—" if x is None else fmt % x

        tb, tg = us("best"), us("cublas_geam")
        tk = lambda t: None if t is None else nbytes / (t * 1e3)  # noqa: E731
        print("| %s | %s | %dx%dx%d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            cls, dt, b, r, c, f(gbs("memcpy")), f(gbs("best")),
            f(us("memcpy") / tb if tb else None, "%.3f"), f(gbs("cublas_geam")), f(gbs("cublaslt_transform")),
            f(tk(t_torch)), f(tk(t_cupy)), f(tg / tb if tb and tg else None, "%.2f"),
            f(t_torch / tb if tb else None, "%.1f")))
        sys.stdout.flush()
        if tiny:
            print("|  | (tiny, graph replay) | | %s | %s | %s | | | | | | |" % (
                f(gbs("memcpy_graph")), f(gbs("best_graph")),
                f(us("memcpy_graph") / us("best_graph") if us("best_graph") else None, "%.3f")))


if __name__ == "__main__":
    main()
