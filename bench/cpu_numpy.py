#!/usr/bin/env python3
"""NumPy's transpose as a baseline for `xpose-bench --cpu`.

Times np.ascontiguousarray(x.T) (batched: the last two axes swapped) for one case
and prints one JSON line: {"ms": [...], "exact": bool, "numpy": version}, with
"view": true instead of timings where NumPy returns a view (vectors: nothing moves). Run by the
CPU harness between its own phases, so that no other thread pool is busy meanwhile;
it can also be run by hand:

    python bench/cpu_numpy.py --rows 4096 --cols 4096 --dtype f32 --reps 5
"""
import argparse
import json
import time

import numpy as np

DTYPES = {
    "bool": np.bool_, "u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16,
    "f16": np.float16, "bf16": np.uint16, "u32": np.uint32, "i32": np.int32, "f32": np.float32,
    "u64": np.uint64, "i64": np.int64, "f64": np.float64, "c64": np.complex64,
    "c128": np.complex128,
}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, required=True)
    p.add_argument("--cols", type=int, required=True)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--dtype", choices=sorted(DTYPES), default="f32")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--warmup", type=int, default=1)
    a = p.parse_args()
    dt = np.dtype(DTYPES[a.dtype])
    es = dt.itemsize
    n = a.batch * a.rows * a.cols
    raw = np.random.default_rng(42).integers(0, 256, size=n * es, dtype=np.uint8)
    x = raw.view(dt).reshape(a.batch, a.rows, a.cols)
    src = x[0] if a.batch == 1 else x

    def run():
        return np.ascontiguousarray(src.T if a.batch == 1 else src.transpose(0, 2, 1))

    out = run()
    if np.shares_memory(out, x):  # x.T already contiguous (a vector): no bytes move
        print(json.dumps({"view": True, "exact": True, "ms": [], "numpy": np.__version__}))
        return
    got = out.reshape(a.batch, a.cols, a.rows).view(np.uint8).reshape(a.batch, a.cols, a.rows, es)
    want = x.view(np.uint8).reshape(a.batch, a.rows, a.cols, es).transpose(0, 2, 1, 3)
    exact = bool(np.array_equal(got, want))
    del out, got, want
    for _ in range(a.warmup):
        run()
    ms = []
    for _ in range(a.reps):
        t0 = time.perf_counter()
        y = run()
        ms.append((time.perf_counter() - t0) * 1e3)
        del y
    print(json.dumps({"ms": ms, "exact": exact, "numpy": np.__version__}))


if __name__ == "__main__":
    main()
