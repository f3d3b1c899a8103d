#!/usr/bin/env python3
"""PyTorch beside `xpose-bench sweep` (docs/RESULTS.md "2-D: the shape sweep").

Runs the sweep (xpose-bench sweep --format json), then, in the same run on the same
GPU, times PyTorch's `x.transpose(-1, -2).contiguous()` (`.clone()` where the transposed
view is already contiguous, a 1-wide side, so that torch also writes a new buffer) and a torch copy of the same
bytes for every case with CUDA events, and prints per case: best / memcpy (from the
sweep), torch / copy, and best vs torch (ratio of times). Needs torch with CUDA.
As the sweep does for xpose, working sets under 4x the L2 cache get the L2 flushed (a
2x L2 scratch write, outside the timed events) before every timed rep, so that neither
side reads its input from a warm L2.

    python3 bench/sweep_torch.py --bench build-h200/tools/xpose-bench/xpose-bench [--quick] \
        [--dtype u8,f16,f32,f64,c64] [--json out.json]
"""
import argparse
import json
import statistics
import subprocess
import sys

import torch

TORCH_DTYPES = {
    "u8": torch.uint8, "i8": torch.int8, "bool": torch.bool, "f16": torch.float16, "bf16": torch.bfloat16,
    "i16": torch.int16, "f32": torch.float32, "i32": torch.int32, "f64": torch.float64, "i64": torch.int64,
    "c64": torch.complex64, "c128": torch.complex128,
}


def event_ms(fn, warmup, reps, flush=None):
    """Median milliseconds of fn() over reps, each between two CUDA events; flush (a
    tensor) is overwritten before every rep, outside the events."""
    for _ in range(warmup):
        fn()
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        if flush is not None:
            flush.fill_(1)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def make_input(batch, rows, cols, dtype):
    shape = (batch, rows, cols) if batch != 1 else (rows, cols)
    if dtype.is_complex:
        return torch.randn(shape, dtype=dtype, device="cuda")
    if dtype.is_floating_point:
        return torch.randn(shape, device="cuda").to(dtype)
    return torch.randint(0, 100, shape, device="cuda").to(dtype)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default="build-h200/tools/xpose-bench/xpose-bench", help="xpose-bench binary")
    ap.add_argument("--dtype", default="u8,f16,f32,f64,c64")
    ap.add_argument("--quick", action="store_true", help="the sweep's --quick case list")
    ap.add_argument("--full", action="store_true", help="the full case list (about 4 minutes)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", help="write the joined rows here")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("sweep_torch.py: no CUDA device for torch", file=sys.stderr)
        return 2

    cmd = [args.bench, "sweep", "--format", "json", "--dtype", args.dtype, "--reps", str(args.reps)]
    if args.quick or not args.full:
        cmd.append("--quick")
    print("running:", " ".join(cmd), file=sys.stderr)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        print(proc.stderr.strip(), file=sys.stderr)
        return 2
    data = json.loads(proc.stdout)
    cases = {}
    for r in data["rows"]:
        key = (r["batch"], r["rows"], r["cols"], r["dtype"])
        cases.setdefault(key, {})[r["variant"]] = r

    l2 = torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size
    scratch = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    out = []
    hdr = f"{'class':8} {'case':28} {'path':14} {'best GB/s':>9} {'best/memcpy':>11} {'torch GB/s':>10} " \
          f"{'torch/copy':>10} {'best vs torch':>13} check"
    print(hdr)
    print("-" * len(hdr))
    for (batch, rows, cols, dt), v in cases.items():
        if "best" not in v or dt not in TORCH_DTYPES:
            continue
        b = v["best"]
        x = make_input(batch, rows, cols, TORCH_DTYPES[dt])
        y = torch.empty_like(x)
        nbytes = 2 * x.numel() * x.element_size()
        flush = scratch if nbytes < 4 * l2 else None  # the sweep's rule (working set = in + out)
        # Where the transposed view is already contiguous (a 1-wide side: C = 1, vectors),
        # .contiguous() returns the input itself and moves nothing; an out-of-place
        # transpose must write a new buffer, so torch's op there is .clone() (marked "clone").
        view_contig = x.transpose(-1, -2).contiguous().data_ptr() == x.data_ptr()
        if view_contig:
            t_torch = event_ms(lambda: x.transpose(-1, -2).clone(memory_format=torch.contiguous_format), 2,
                               args.reps, flush)
        else:
            t_torch = event_ms(lambda: x.transpose(-1, -2).contiguous(), 2, args.reps, flush)
        t_copy = event_ms(lambda: y.copy_(x), 2, args.reps, flush)
        del x, y
        best_ms = b["ms_median"] if b["timed"] else float("nan")
        row = {
            "class": b.get("class", ""), "batch": batch, "rows": rows, "cols": cols, "dtype": dt,
            "path": b.get("path", ""), "best_ms": best_ms, "best_gbps": b["gbps"], "best_of_memcpy": b["of_memcpy"],
            "torch_ms": t_torch, "torch_gbps": nbytes / (t_torch * 1e-3) / 1e9, "torch_of_copy": t_copy / t_torch,
            "best_vs_torch": t_torch / best_ms if best_ms == best_ms and best_ms > 0 else float("nan"),
            "check": b["check"], "torch_op": "clone" if view_contig else "contiguous",
        }
        out.append(row)
        label = f"{batch}x{rows}x{cols} {dt}" if batch != 1 else f"{rows}x{cols} {dt}"
        print(f"{row['class']:8} {label:28} {row['path']:14} {row['best_gbps']:9.0f} {row['best_of_memcpy']:11.3f} "
              f"{row['torch_gbps']:10.0f} {row['torch_of_copy']:10.3f} {row['best_vs_torch']:13.2f} {row['check']}"
              + (" (torch: clone)" if view_contig else ""))
    ok = [r["best_vs_torch"] for r in out if r["best_vs_torch"] == r["best_vs_torch"]]
    big = [r for r in out if r["class"] not in ("tiny", "tiny-graph")]
    if ok:
        print(f"\nbest vs torch: median {statistics.median(ok):.2f}x, min {min(ok):.2f}x, "
              f"{sum(1 for q in ok if q < 1)} of {len(ok)} cases slower than torch")
    if big:
        fr = [r["best_of_memcpy"] for r in big]
        print(f"best / memcpy (non-tiny): median {statistics.median(fr):.3f}, "
              f"{sum(1 for q in fr if q < 0.85)} of {len(fr)} below 0.85")
    bad = [r for r in out if not str(r["check"]).startswith("exact")]
    if bad:
        print(f"{len(bad)} cases FAILED the exact check", file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": data.get("meta", {}), "rows": out}, f, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
