#!/usr/bin/env python3
"""Builds of the CPU backend side by side on random permutations: xpose-bench draws the
cases (a fresh seed unless --seed, printed), then bench/cpu_ab.cpp times every library on
each case in one process, calls interleaved (see its header), after a bitwise check
against the first library.

  python bench/cpu_ab.py --lib build/libxpose.so.0.1 --lib OLD/libxpose.so.0.1 \\
      [--cases 24] [--seed S] [--dtype 1,2] [--mib 64:96] [--class 'nd|rows'] [--kept F] [--batches F] [--rounds 7] [--threads 1]

Prints per case each library's median ms per call and the median over rounds of its time
/ the first library's, then the geometric mean of those ratios per library. The cases'
own fraction of memcpy is in xpose-bench's output (--bench-log keeps it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
from typing import List

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _tool(build: str) -> str:
    exe = os.path.join(build, "cpu_ab")
    src = os.path.join(ROOT, "bench", "cpu_ab.cpp")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        subprocess.run([os.environ.get("CXX", "c++"), "-O2", "-std=c++17", "-I" + os.path.join(ROOT, "include"),
                        "-I" + os.path.join(build, "include"), src, "-o", exe, "-ldl"], check=True)
    return exe


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lib", action="append", required=True, help="a libxpose.so.* (the first is the reference)")
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="build dir (xpose-bench, include/)")
    p.add_argument("--cases", type=int, default=24)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--dtype", default="1,2,4,8,16", help="element sizes to draw (xpose-bench --dtype)")
    p.add_argument("--mib", default="64:96")
    p.add_argument("--class", dest="cls", default=".", help="regex on xpose-bench's class column (copy excluded)")
    p.add_argument("--kept", type=float, default=None, help="xpose-bench --kept: the share of strided copies")
    p.add_argument("--batches", type=float, default=None, help="xpose-bench --batches: the share of small-matrix batches")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--bench-log", help="keep xpose-bench's table here")
    a = p.parse_args(argv)
    seed = a.seed if a.seed is not None else secrets.randbits(48)
    print(f"seed {seed} (repeat: --seed {seed})", flush=True)
    bench = os.path.join(a.build, "tools", "xpose-bench", "xpose-bench")
    tool = _tool(a.build)
    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, "cases.json")
        run = subprocess.run([bench, "permute", "--random", str(a.cases), "--seed", str(seed), "--cpu", "--threads",
                              str(a.threads), "--mib", a.mib, "--dtype", a.dtype, "--reps", "1", "--warmup", "0",
                              "--json", js] + ([] if a.kept is None else ["--kept", str(a.kept)])
                             + ([] if a.batches is None else ["--batches", str(a.batches)]),
                             capture_output=True, text=True)
        if a.bench_log:
            with open(a.bench_log, "w") as f:
                f.write(run.stdout)
        if run.returncode != 0:
            sys.stderr.write(run.stdout + run.stderr)
            return 1
        cases = json.load(open(js))["cases"]
    ratios: List[List[float]] = [[] for _ in a.lib]
    for c in cases:
        if c["class"] == "copy" or not re.search(a.cls, c["class"]):
            continue
        shape = "x".join(map(str, c["shape"]))
        axes = ",".join(map(str, c["axes"]))
        cmd = [tool, str(c["elem_size"]), shape, axes, str(a.rounds), *a.lib, "--threads", str(a.threads),
               "--strides", ",".join(map(str, c["strides"])), "--offset", str(c["offset"]), "--parent",
               str(c["parent"])]
        out = subprocess.run(cmd, capture_output=True, text=True)
        rows = re.findall(r"ratio (\d+) median_ms (\S+) min_ms (\S+) of_first (\S+)", out.stdout)
        if out.returncode != 0 or len(rows) != len(a.lib):
            print(f"{shape} {axes} e{c['elem_size']}: FAILED {out.stderr.strip()}", flush=True)
            return 1
        cols = []
        for (i, med, _, q) in rows:
            ratios[int(i)].append(float(q))
            cols.append(f"{float(med):8.2f} ({float(q):.3f})")
        print(f"{shape:>28} {axes:>16} e{c['elem_size']:<2} {c['class']:>10}  " + "  ".join(cols), flush=True)
    if not ratios[0]:
        print("no case of that class drawn")
        return 0
    print("geomean of time / the first library's: " +
          "  ".join(f"{os.path.basename(os.path.dirname(os.path.abspath(l))) or l} {statistics.geometric_mean(r):.3f}"
                    for l, r in zip(a.lib, ratios)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
