#!/usr/bin/env python3
"""Two builds of the CPU backend on random 2-D transposes whose packed output rows are longer
than a tile's row strip but at most --max-row-bytes (src/cpu/blocked.cpp, whole_row_bytes):
xpose-bench --cpu times each case under each library (LD_LIBRARY_PATH), the libraries
alternating in both orders, every result checked exact by xpose-bench. A fresh seed unless
--seed (printed).

  python3 bench/cpu_2d_ab.py --lib NEW_DIR_OR_SO --lib OLD_DIR_OR_SO [--cases 12] [--seed S]

Prints per case each library's median fraction of memcpy and the median time of the first
library over the second's, then their geometric mean.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import secrets
import statistics
import subprocess
import sys
from typing import List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STRIP = {1: 256, 2: 128, 4: 64, 8: 32, 16: 32}  # blocked.cpp tile_for(es).rows
DTYPE = {1: "u8", 2: "f16", 4: "f32", 8: "f64", 16: "c128"}


def lib_dir(path: str) -> str:
    return path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))


def draw(rng: random.Random, n: int, max_row_bytes: int, mib: Tuple[float, float]) -> List[Tuple[int, int, int]]:
    cases = []
    while len(cases) < n:
        es = rng.choice(list(STRIP))
        lo, hi = STRIP[es] + 1, max_row_bytes // es
        if hi < lo:
            continue
        rows = rng.randint(lo, hi)
        cols = int(rng.uniform(*mib) * 2**20 / es / rows) | 1
        cases.append((rows, cols, es))
    return cases


def run(bench: str, lib: str, rows: int, cols: int, es: int, threads: int) -> Tuple[float, float]:
    env = dict(os.environ, LD_LIBRARY_PATH=lib_dir(lib))
    out = subprocess.run([bench, "--cpu", "--threads", str(threads), "--size", f"{rows}x{cols}", "--dtype", DTYPE[es],
                          "--reps", "5", "--warmup", "1", "--format", "csv"], env=env, capture_output=True, text=True)
    rows_ = [line.split(",") for line in out.stdout.splitlines() if ",xpose_cpu," in line]
    if out.returncode != 0 or not rows_ or rows_[0][6] != "exact":
        sys.exit(f"xpose-bench failed on {rows}x{cols} {DTYPE[es]} with {lib}: {out.stderr.strip()[-300:]}")
    return float(rows_[0][3]), float(rows_[0][5])  # ms, fraction of memcpy


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lib", action="append", required=True, help="libxpose.so.* or its folder; exactly two")
    p.add_argument("--bench", default=os.path.join(ROOT, "build", "tools", "xpose-bench", "xpose-bench"))
    p.add_argument("--cases", type=int, default=12)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--max-row-bytes", type=int, default=1024)
    p.add_argument("--mib", default="64:100")
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args(argv)
    if len(a.lib) != 2:
        p.error("give --lib twice")
    seed = a.seed if a.seed is not None else secrets.randbits(40)
    print(f"seed {seed} (repeat: --seed {seed})", flush=True)
    lo, hi = (float(x) for x in a.mib.split(":"))
    ratios = []
    for rows, cols, es in draw(random.Random(seed), a.cases, a.max_row_bytes, (lo, hi)):
        got: List[List[Tuple[float, float]]] = [[], []]
        for order in ((0, 1), (1, 0)):
            for i in order:
                got[i].append(run(a.bench, a.lib[i], rows, cols, es, a.threads))
        ms = [statistics.median(t for t, _ in g) for g in got]
        frac = [statistics.median(f for _, f in g) for g in got]
        ratios.append(ms[0] / ms[1])
        print(f"{rows}x{cols} {DTYPE[es]}: first {frac[0]:.3f} second {frac[1]:.3f} of memcpy; "
              f"first / second time {ratios[-1]:.3f}", flush=True)
    print(f"geomean first / second time {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}, "
          f"range {min(ratios):.3f}-{max(ratios):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
