#!/usr/bin/env python3
"""Batches of tiny matrices on the CPU backend: random shapes drawn fresh (or --seed),
each timed by ``xpose-bench permute --cpu`` as a fraction of a same-run memcpy; with
--base, a second xpose-bench (another build) on the same shapes, alternating rounds.

Shapes: batch x rows x cols with rows, cols in 2..16, the matrix at most --max-bytes
(default 64: the byte-permutation path), element sizes 1, 2, 4, 8, about --mib MiB each;
axes (0, 2, 1), a transpose of every matrix. With --short LO:HI, one side (rows or
columns, either) in LO..HI and the other log-uniform in 9..--long, element sizes from
--dtype: few rows or columns, from single matrices (batch 1) to batches of small ones.

  python bench/cpu_tiny_batches.py --bench build/tools/xpose-bench/xpose-bench \\
      [--base OLD/xpose-bench] [--cases 14] [--rounds 2] [--seed S] [--threads 2]
  python bench/cpu_tiny_batches.py --bench ... --short 5:8 --long 100000000 --dtype 1,2

Each binary runs with LD_LIBRARY_PATH set to its own directory and the build root above
it (its libxpose). Prints per shape the median over rounds and a summary.
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
from typing import List, Optional, Tuple

NAMES = {1: "u8", 2: "f16", 4: "f32", 8: "f64", 16: "c128"}


def draw_short(rng: random.Random, n: int, short: Tuple[int, int], long: int, sizes: List[int],
               mib: int) -> List[Tuple[str, str]]:
    out: List[Tuple[str, str]] = []
    while len(out) < n:
        e = rng.choice(sizes)
        s, l = rng.randint(*short), int(math.exp(rng.uniform(math.log(9), math.log(long))))
        r, c = (s, l) if rng.random() < 0.5 else (l, s)
        b = (mib << 20) // (r * c * e)
        if b >= 1:
            out.append((f"{b}x{r}x{c}", NAMES[e]))
    return out


def draw(rng: random.Random, n: int, max_bytes: int, mib: int) -> List[Tuple[str, str]]:
    out: List[Tuple[str, str]] = []
    while len(out) < n:
        e = rng.choice([1, 1, 2, 2, 4, 8])
        r, c = rng.randint(2, 16), rng.randint(2, 16)
        if r * c * e > max_bytes:
            continue
        out.append((f"{(mib << 20) // (r * c * e)}x{r}x{c}", NAMES[e]))
    return out


def run(bench: str, shape: str, dtype: str, threads: int) -> Optional[float]:
    """The fraction of memcpy of one case, or None where the check failed."""
    d = os.path.dirname(os.path.abspath(bench))
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.pathsep.join([d, os.path.dirname(os.path.dirname(d)), env.get("LD_LIBRARY_PATH", "")])
    p = subprocess.run([bench, "permute", "--cpu", "--threads", str(threads), "--shape", shape, "--axes", "0,2,1",
                        "--dtype", dtype], capture_output=True, text=True, env=env, check=False)
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) >= 9 and f[0] == "-" and f[1] == shape:
            return float(f[8]) if f[5] == "ok" else None
    sys.exit(f"cpu_tiny_batches: no result for {shape} {dtype}:\n{p.stdout}\n{p.stderr}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--base")
    ap.add_argument("--cases", type=int, default=14)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-bytes", type=int, default=64)
    ap.add_argument("--mib", type=int, default=128)
    ap.add_argument("--short", help="LO:HI: one side in this range, the other log-uniform in 9..--long")
    ap.add_argument("--long", type=int, default=4096)
    ap.add_argument("--dtype", default="1,2", help="element sizes with --short (default 1,2)")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else secrets.randbits(40)
    print(f"seed {seed} (repeat: --seed {seed})")
    if a.short:
        lo, hi = (int(x) for x in a.short.split(":"))
        cases = draw_short(random.Random(seed), a.cases, (lo, hi), a.long, [int(x) for x in a.dtype.split(",")], a.mib)
    else:
        cases = draw(random.Random(seed), a.cases, a.max_bytes, a.mib)
    cols = ["bench"] + (["base"] if a.base else [])
    res = {c: [] for c in cols}
    for shape, dtype in cases:
        got = {c: [] for c in cols}
        for _ in range(a.rounds):
            for c in cols:
                f = run(a.bench if c == "bench" else a.base, shape, dtype, a.threads)
                if f is None:
                    sys.exit(f"cpu_tiny_batches: {c} FAILED the check on {shape} {dtype}")
                got[c].append(f)
        line = f"{shape:>20} {dtype:>4}"
        for c in cols:
            m = statistics.median(got[c])
            res[c].append(m)
            line += f"  {c} {m:.3f} ({' '.join(f'{x:.3f}' for x in got[c])})"
        print(line, flush=True)
    for c in cols:
        v = res[c]
        print(f"summary {c}: {len(v)} cases, median {statistics.median(v):.3f}, min {min(v):.3f}, max {max(v):.3f}")


if __name__ == "__main__":
    main()
