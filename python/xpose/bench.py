"""python -m xpose.bench: xpose.transpose against the frameworks' own transposes.

GPU (default when a CUDA device and torch and/or cupy are present):
  torch  ``x.t().contiguous()``        vs ``xpose.transpose(x)``
  cupy   ``cupy.ascontiguousarray(x.T)`` vs ``xpose.transpose(x)``
each next to a copy of the same bytes (``out.copy_(x)`` / ``cupy.copyto``), the
ceiling. CPU (``--cpu``, or no GPU): NumPy ``np.ascontiguousarray(x.T)`` vs
``xpose.transpose(x)`` next to ``np.copyto``.

Rules: every result is checked bit for bit against the framework's transpose
before it is timed (xpose's output is pre-filled with 0xFF bytes); CUDA events
around each call after warm-ups; the median over --reps is reported (min and max
in the JSON). GB/s are decimal (1e9 bytes/s) and count read + write:
2 * rows * cols * batch * element size. The default 16384x16384 working set
(256 MiB for int8 up to 2 GiB for complex64 per array) is far beyond the L2.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

import xpose
from xpose import _frameworks

DEFAULT_DTYPES = "float32,float16,bfloat16,int8,float64,complex64"
ALL_DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16",
              "float32", "float64", "complex64", "complex128"]


# xpose-bench's short names (f32, c64, ...) are accepted beside NumPy's.
SHORT_DTYPES = {"bool": "bool", "i8": "int8", "u8": "uint8", "i16": "int16", "u16": "uint16", "i32": "int32",
                "u32": "uint32", "i64": "int64", "u64": "uint64", "f16": "float16", "bf16": "bfloat16",
                "f32": "float32", "f64": "float64", "c64": "complex64", "c128": "complex128"}


def _parse_size(text: str) -> Tuple[int, int]:
    try:
        r, c = text.lower().split("x")
        rows, cols = int(r), int(c)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--size must look like 16384x16384, got {text!r}") from None
    if rows <= 0 or cols <= 0 or rows * cols > 1 << 40:
        raise argparse.ArgumentTypeError(f"--size {text!r}: both sides must be positive, at most 2^40 elements")
    return rows, cols


def _bounded(lo: int, hi: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"{v} is out of range [{lo}, {hi}]")
        return v
    return parse


def _stats(ms: List[float]) -> Dict[str, float]:
    return {"median_ms": statistics.median(ms), "min_ms": min(ms), "max_ms": max(ms)}


# ---------------------------------------------------------------------------
# Frameworks: make random bits, compare bits, time a call
# ---------------------------------------------------------------------------

# The bench's frameworks are the adapters of xpose._frameworks (one set for the
# library and the bench) plus what only a benchmark needs: random bits, a bitwise
# compare, the framework's own transpose and copy, and a timer.


def _swapped(x: Any) -> Tuple[int, ...]:
    shape = tuple(x.shape)
    return shape[:-2] + (shape[-1], shape[-2])


class _Torch(_frameworks.Torch):
    baseline_name = "x.t().contiguous()"
    copy_name = "out.copy_(x)"

    def __init__(self, device: int) -> None:
        super().__init__()
        self.t = self.torch
        self.dev = self.torch.device("cuda", device)

    def dtype(self, name: str) -> Any:
        return getattr(self.t, name)

    def random(self, shape: Tuple[int, ...], name: str) -> Any:
        t, dt = self.t, self.dtype(name)
        if name == "bool":
            return t.randint(0, 2, shape, dtype=t.uint8, device=self.dev).bool()
        es = t.empty((), dtype=dt).element_size()
        raw = t.randint(-128, 128, shape[:-1] + (shape[-1] * es,), dtype=t.int8, device=self.dev)
        return raw.view(dt)

    def empty_like_t(self, x: Any) -> Any:
        return self.empty(x, _swapped(x))

    def fill_ff(self, a: Any) -> None:
        a.view(self.t.uint8).fill_(0xFF)

    def bits_equal(self, a: Any, b: Any) -> bool:
        u8 = self.t.uint8
        return a.shape == b.shape and bool(self.t.equal(self.contiguous(a).view(u8), self.contiguous(b).view(u8)))

    def baseline(self, x: Any) -> Any:
        return x.transpose(-1, -2).contiguous()

    def copy(self, x: Any, out: Any) -> Any:
        return out.copy_(x)

    def time(self, fn: Callable[[], Any], warmup: int, reps: int) -> List[float]:
        t = self.t
        with t.cuda.device(self.dev):
            for _ in range(warmup):
                fn()
            t.cuda.synchronize()
            ms = []
            for _ in range(reps):
                start, end = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                end.synchronize()
                ms.append(start.elapsed_time(end))
        return ms

    def release(self) -> None:
        self.t.cuda.empty_cache()


class _Cupy(_frameworks.Cupy):
    baseline_name = "cupy.ascontiguousarray(x.T)"
    copy_name = "cupy.copyto(out, x)"

    def __init__(self, device: int) -> None:
        super().__init__()
        self.dev = self.cp.cuda.Device(device)

    def dtype(self, name: str) -> Any:
        if name == "bfloat16":
            return None  # CuPy has no bfloat16
        return np.dtype(name)

    def random(self, shape: Tuple[int, ...], name: str) -> Any:
        cp, dt = self.cp, self.dtype(name)
        with self.dev:
            if name == "bool":
                return cp.random.randint(0, 2, shape, dtype=cp.uint8).astype(cp.bool_)
            raw = cp.random.randint(0, 256, shape[:-1] + (shape[-1] * dt.itemsize,), dtype=cp.uint8)
            return raw.view(dt)

    def empty_like_t(self, x: Any) -> Any:
        return self.empty(x, _swapped(x))

    def fill_ff(self, a: Any) -> None:
        self._on(a, a.view(self.cp.uint8).fill, 0xFF)

    def bits_equal(self, a: Any, b: Any) -> bool:
        u8 = self.cp.uint8
        return a.shape == b.shape and bool(self._on(a, self.cp.array_equal, self.contiguous(a).view(u8),
                                                    self.contiguous(b).view(u8)))

    def baseline(self, x: Any) -> Any:
        return self.contiguous(self.cp.swapaxes(x, -1, -2))

    def copy(self, x: Any, out: Any) -> Any:
        self._on(x, self.cp.copyto, out, x)
        return out

    def time(self, fn: Callable[[], Any], warmup: int, reps: int) -> List[float]:
        cp = self.cp
        with self.dev:
            for _ in range(warmup):
                fn()
            self.dev.synchronize()
            ms = []
            for _ in range(reps):
                start, end = cp.cuda.Event(), cp.cuda.Event()
                start.record()
                fn()
                end.record()
                end.synchronize()
                ms.append(cp.cuda.get_elapsed_time(start, end))
        return ms

    def release(self) -> None:
        self.cp.get_default_memory_pool().free_all_blocks()


class _Numpy(_frameworks.Numpy):
    baseline_name = "np.ascontiguousarray(x.T)"
    copy_name = "np.copyto(out, x)"

    def dtype(self, name: str) -> Any:
        if name == "bfloat16":
            try:
                import ml_dtypes

                return np.dtype(ml_dtypes.bfloat16)
            except ImportError:
                return None
        return np.dtype(name)

    def random(self, shape: Tuple[int, ...], name: str) -> Any:
        rng = np.random.default_rng(0)
        if name == "bool":
            return rng.integers(0, 2, size=shape).astype(np.bool_)
        dt = self.dtype(name)
        raw = rng.integers(0, 256, size=shape[:-1] + (shape[-1] * dt.itemsize,), dtype=np.uint8)
        return raw.view(dt)

    def empty_like_t(self, x: Any) -> Any:
        return self.empty(x, _swapped(x))

    def fill_ff(self, a: Any) -> None:
        a.view(np.uint8).fill(0xFF)

    def bits_equal(self, a: Any, b: Any) -> bool:
        return a.shape == b.shape and np.array_equal(self.contiguous(a).view(np.uint8),
                                                      self.contiguous(b).view(np.uint8))

    def baseline(self, x: Any) -> Any:
        return self.contiguous(np.swapaxes(x, -1, -2))

    def copy(self, x: Any, out: Any) -> Any:
        np.copyto(out, x)
        return out

    def time(self, fn: Callable[[], Any], warmup: int, reps: int) -> List[float]:
        for _ in range(warmup):
            fn()
        ms = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            ms.append((time.perf_counter() - t0) * 1e3)
        return ms

    def release(self) -> None:
        pass


# ---------------------------------------------------------------------------
# The benchmark
# ---------------------------------------------------------------------------


def _bench_one(fw: Any, dtype: str, shape: Tuple[int, ...], warmup: int, reps: int) -> List[Dict[str, Any]]:
    if fw.dtype(dtype) is None:
        return []
    x = fw.random(shape, dtype)
    elems = 1
    for n in shape:
        elems *= n
    itemsize = fw.itemsize(x)
    nbytes = 2 * elems * itemsize  # read + write
    want = fw.baseline(x)

    # Correct before timed: xpose into a 0xFF-filled output, compared bit for bit.
    out = fw.empty_like_t(x)
    fw.fill_ff(out)
    xpose.transpose(x, out)
    ok = fw.bits_equal(out, want)
    copy_out = fw.empty_like_t(x).reshape(x.shape)

    cases = [
        (fw.copy_name, "copy", lambda: fw.copy(x, copy_out), True),
        (fw.baseline_name, "baseline", lambda: fw.baseline(x), True),
        ("xpose.transpose(x)", "xpose", lambda: xpose.transpose(x), ok),
        ("xpose.transpose(x, out)", "xpose_out", lambda: xpose.transpose(x, out), ok),
    ]
    rows = []
    for method, role, fn, correct in cases:
        row: Dict[str, Any] = {"framework": fw.name, "dtype": dtype, "method": method, "role": role,
                               "shape": list(shape), "bytes": nbytes, "correct": bool(correct)}
        if correct:
            st = _stats(fw.time(fn, warmup, reps))
            row.update(st)
            row["gbps"] = nbytes / (st["median_ms"] * 1e-3) / 1e9
        rows.append(row)
    copy_ms = rows[0].get("median_ms")
    base_ms = rows[1].get("median_ms")
    for row in rows:
        if "median_ms" in row:
            row["vs_copy"] = copy_ms / row["median_ms"] if copy_ms else None
            row["speedup_vs_baseline"] = base_ms / row["median_ms"] if base_ms else None
    del x, want, out, copy_out
    fw.release()
    return rows


def _environment(frameworks: List[Any], device: int) -> Dict[str, Any]:
    env: Dict[str, Any] = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([sys.executable, "-m", "xpose.bench"] + sys.argv[1:]),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "xpose": xpose.__version__,
        "host": platform.node(),
    }
    for fw in frameworks:
        if fw.name == "torch":
            t = fw.t
            env["torch"] = t.__version__
            env["torch_cuda"] = t.version.cuda
            env["gpu"] = t.cuda.get_device_name(device)
        elif fw.name == "cupy":
            cp = fw.cp
            env["cupy"] = cp.__version__
            env["cuda_driver"] = cp.cuda.runtime.driverGetVersion()
            env["cuda_runtime_cupy"] = cp.cuda.runtime.runtimeGetVersion()
            env.setdefault("gpu", cp.cuda.runtime.getDeviceProperties(device)["name"].decode())
        elif fw.name == "numpy":
            env["cpu"] = platform.processor() or platform.machine()
    return env


def _print_table(rows: List[Dict[str, Any]]) -> None:
    head = f"{'framework':9} {'dtype':10} {'method':30} {'median ms':>10} {'GB/s':>8} {'vs copy':>8} {'vs base':>8}  check"
    print(head)
    print("-" * len(head))
    last = None
    for r in rows:
        key = (r["framework"], r["dtype"])
        if last is not None and key != last:
            print()
        last = key
        if "median_ms" in r:
            print(f"{r['framework']:9} {r['dtype']:10} {r['method']:30} {r['median_ms']:10.3f} "
                  f"{r['gbps']:8.1f} {r['vs_copy']:8.2f} {r['speedup_vs_baseline']:7.2f}x  exact")
        else:
            print(f"{r['framework']:9} {r['dtype']:10} {r['method']:30} {'-':>10} {'-':>8} {'-':>8} {'-':>8}  WRONG (not timed)")


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m xpose.bench",
        description="Time xpose.transpose against torch x.t().contiguous() and "
                    "cupy.ascontiguousarray(x.T) (or NumPy on the CPU). GB/s are decimal and "
                    "count read + write.")
    p.add_argument("--size", type=_parse_size, default=None, metavar="RxC",
                   help="matrix size (default 16384x16384 on the GPU, 4096x4096 on the CPU)")
    p.add_argument("--batch", type=_bounded(1, 1 << 20), default=1, help="batch count (3-D input when > 1)")
    p.add_argument("--dtypes", "--dtype", default=DEFAULT_DTYPES,
                   help=f"comma-separated dtypes, 'all' for {','.join(ALL_DTYPES)} (default {DEFAULT_DTYPES})")
    p.add_argument("--frameworks", default="torch,cupy", help="GPU frameworks to compare (default torch,cupy)")
    p.add_argument("--reps", type=_bounded(1, 100000), default=None, help="timed repetitions (default 50 GPU, 10 CPU)")
    p.add_argument("--warmup", type=_bounded(0, 10000), default=None, help="warm-up calls (default 5 GPU, 2 CPU)")
    p.add_argument("--device", type=_bounded(0, 1023), default=0, help="CUDA device (default 0)")
    p.add_argument("--cpu", action="store_true", help="benchmark NumPy arrays on the CPU backend")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    a = p.parse_args(argv)

    dtypes = ALL_DTYPES if a.dtypes == "all" else [d.strip() for d in a.dtypes.split(",") if d.strip()]
    dtypes = [SHORT_DTYPES.get(d, d) for d in dtypes]
    for d in dtypes:
        if d not in ALL_DTYPES:
            p.error(f"unknown dtype {d!r} (known: {', '.join(ALL_DTYPES)}, or f32, c64, ...)")
    if not dtypes:
        p.error("--dtypes is empty")

    frameworks: List[Any] = []
    notes: List[str] = []
    if not a.cpu:
        if xpose.device_count() == 0:
            notes.append("no CUDA device usable by xpose: benchmarking NumPy arrays on the CPU backend")
        else:
            for name in [f.strip() for f in a.frameworks.split(",") if f.strip()]:
                try:
                    frameworks.append({"torch": _Torch, "cupy": _Cupy}[name](a.device))
                except KeyError:
                    p.error(f"unknown framework {name!r} (torch, cupy)")
                except ImportError:
                    notes.append(f"{name} is not installed: skipped")
            if not frameworks:
                notes.append("neither torch nor cupy is available: benchmarking NumPy on the CPU backend")
    gpu = bool(frameworks)
    if not gpu:
        frameworks = [_Numpy()]
    rows_n, cols_n = a.size or ((16384, 16384) if gpu else (4096, 4096))
    shape: Tuple[int, ...] = (rows_n, cols_n) if a.batch == 1 else (a.batch, rows_n, cols_n)
    reps = a.reps if a.reps is not None else (50 if gpu else 10)
    warmup = a.warmup if a.warmup is not None else (5 if gpu else 2)

    env = _environment(frameworks, a.device)
    for n in notes:
        print(f"note: {n}")
    print(f"xpose {xpose.__version__} bench: shape {'x'.join(map(str, shape))}, "
          f"{'GPU ' + str(env.get('gpu', '')) if gpu else 'CPU backend'}, median of {reps} "
          f"after {warmup} warm-ups; GB/s = 1e9 B/s counting read + write")
    rows: List[Dict[str, Any]] = []
    for fw in frameworks:
        for d in dtypes:
            got = _bench_one(fw, d, shape, warmup, reps)
            if not got:
                print(f"note: {fw.name} has no {d}: skipped")
            rows.extend(got)
    print()
    _print_table(rows)

    summary = []
    for r in rows:
        if r["role"] == "xpose" and "speedup_vs_baseline" in r:
            summary.append({"framework": r["framework"], "dtype": r["dtype"],
                            "xpose_speedup_vs_baseline": r["speedup_vs_baseline"], "xpose_vs_copy": r["vs_copy"]})
    behind = [s for s in summary if s["xpose_speedup_vs_baseline"] < 1.0]
    wrong = [r for r in rows if not r["correct"]]
    print()
    if wrong:
        print(f"WRONG results: {', '.join(r['framework'] + '/' + r['dtype'] for r in wrong)}")
    print("xpose is ahead of the framework on every dtype" if summary and not behind else
          f"xpose is behind on: {', '.join(s['framework'] + '/' + s['dtype'] for s in behind)}" if behind else "")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"environment": env, "shape": list(shape), "reps": reps, "warmup": warmup,
                       "rows": rows, "summary": summary, "notes": notes}, f, indent=2)
        print(f"wrote {a.json}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
