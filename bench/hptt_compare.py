#!/usr/bin/env python3
"""xpose's CPU backend beside HPTT on f32 and f64 permutations, one process per case (bench/hptt_compare.cpp: both
HPTT plans, ESTIMATE and MEASURE, and xpose's, each output checked bitwise first, then calls interleaved).

HPTT is built from its public source (https://github.com/springer13/hptt, cloned into .deps/hptt unless --hptt-src
names a checkout) with its Makefile's flags for AVX (-O3 -march=native -fopenmp -DHPTT_ARCH_AVX) into .deps/hptt
(ignored); the harness is compiled against it and the xpose build's libxpose.

Cases (--sets, default all three):
  ttc     the 57 TTC/HPTT permutations (or --ttc-cases) at about --ttc-mib MiB (xpose-bench ttc's row-major
          translation);
  random  --cases permutations drawn by `xpose-bench permute --random` (fresh seed unless --seed, printed; f32/f64,
          packed inputs only: HPTT takes no strided views, so the draw's views are left out);
  2d      squares and matrices with both sides odd, about --mib MiB, drawn with the same seed.

  python3 bench/hptt_compare.py [--build build] [--threads 2] [--rounds 7] [--sets ttc,random,2d] [--seed S]

Per case: ms of xpose, HPTT ESTIMATE and MEASURE (median over rounds), and xpose's time over the better HPTT's
(< 1: xpose faster). Summary: the median and the worst ratio, the cases where HPTT was faster. Exit 1 when a check
of xpose failed; HPTT plans with a wrong output are reported (`wrong`) and left out of "the better".
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import random
import secrets
import statistics
import subprocess
import sys
from typing import Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
Case = Tuple[str, int, str, str]  # (set, element size, shape, axes)


def build(a: argparse.Namespace) -> str:
    src = a.hptt_src or os.path.join(ROOT, ".deps", "hptt")
    if not os.path.isdir(os.path.join(src, "src")):
        subprocess.run(["git", "clone", "--depth", "1", "https://github.com/springer13/hptt", src], check=True)
    lib = os.path.join(ROOT, ".deps", "hptt-build", "libhptt.a")
    if not os.path.exists(lib):
        os.makedirs(os.path.dirname(lib), exist_ok=True)
        objs = []
        for f in sorted(glob.glob(os.path.join(src, "src", "*.cpp"))):
            o = os.path.join(os.path.dirname(lib), os.path.basename(f) + ".o")
            subprocess.run(["g++", "-O3", "-std=c++11", "-DNDEBUG", "-fopenmp", "-march=native", "-mavx",
                            "-DHPTT_ARCH_AVX", "-I", os.path.join(src, "include"), "-c", f, "-o", o], check=True)
            objs.append(o)
        subprocess.run(["ar", "rcs", lib] + objs, check=True)
    exe = os.path.join(a.build, "hptt_compare")
    subprocess.run(["g++", "-O2", "-std=c++17", "-I", os.path.join(ROOT, "include"), "-I",
                    os.path.join(a.build, "include"), "-I", os.path.join(src, "include"),
                    os.path.join(ROOT, "bench", "hptt_compare.cpp"), lib, "-L", a.build, "-lxpose",
                    f"-Wl,-rpath,{os.path.abspath(a.build)}", "-fopenmp", "-o", exe], check=True)
    return exe


def bench_tool(a: argparse.Namespace) -> str:
    return os.path.join(a.build, "tools", "xpose-bench", "xpose-bench")


def ttc_cases(a: argparse.Namespace) -> List[Case]:
    out = subprocess.run([bench_tool(a), "ttc", "--cpu", "--threads", "1", "--scale-mib", str(a.ttc_mib), "--reps",
                          "1", "--warmup", "0", "--format", "json", "--quiet"]
                         + (["--cases", a.ttc_cases] if a.ttc_cases else []), capture_output=True, text=True,
                         check=True).stdout
    rows = json.loads(out)["rows"]
    return [("ttc", es, r["shape (row-major)"], r["axes"]) for r in rows for es in (4, 8)]


def random_cases(a: argparse.Namespace, seed: int) -> List[Case]:
    js = os.path.join(a.build, "hptt_cases.json")
    subprocess.run([bench_tool(a), "permute", "--random", str(a.cases), "--seed", str(seed), "--cpu", "--threads",
                    "1", "--dtype", "4,8", "--mib", a.mib, "--reps", "1", "--warmup", "0", "--json", js],
                   capture_output=True, text=True, check=True)
    cases = []
    for c in json.load(open(js))["cases"]:
        packed = c["offset"] == 0 and c["parent"] == math.prod(c["shape"])
        if packed and c["class"] != "copy":
            cases.append(("random", c["elem_size"], "x".join(map(str, c["shape"])), ",".join(map(str, c["axes"]))))
    return cases


def matrix_cases(a: argparse.Namespace, seed: int) -> List[Case]:
    rng = random.Random(seed)
    lo, hi = (float(x) for x in a.mib.split(":"))
    cases = []
    for es in (4, 8):
        n = int((rng.uniform(lo, hi) * 2**20 / es) ** 0.5)
        cases.append(("2d", es, f"{n}x{n}", "1,0"))
        for _ in range(2):
            r = int(2 ** rng.uniform(10, 14.3)) | 1
            c = int(rng.uniform(lo, hi) * 2**20 / es / r) | 1
            cases.append(("2d", es, f"{r}x{c}", "1,0"))
    return cases


def run(exe: str, case: Case, a: argparse.Namespace) -> Dict[str, object]:
    _, es, shape, axes = case
    p = subprocess.run([exe, str(es), shape, axes, str(a.rounds), "--threads", str(a.threads)], capture_output=True,
                       text=True, env=dict(os.environ, OMP_WAIT_POLICY="passive"))
    line = next((l for l in p.stdout.splitlines() if l.startswith("result")), "")
    if p.returncode != 0 or "WRONG" in line or not line:
        sys.exit(f"hptt_compare: {shape} axes {axes} es {es}: {line or p.stderr.strip()} (exit {p.returncode})")
    f = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
    return {k: float(f[k]) for k in ("xpose_ms", "estimate_ms", "measure_ms")} | {"wrong": f.get("wrong", "")}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="xpose build dir (libxpose, xpose-bench)")
    p.add_argument("--hptt-src", help="an HPTT checkout (default: cloned into .deps/hptt)")
    p.add_argument("--sets", default="ttc,random,2d")
    p.add_argument("--cases", type=int, default=24, help="random permutations drawn (before views are left out)")
    p.add_argument("--seed", type=int)
    p.add_argument("--mib", default="128:192", help="MiB per tensor of the random and 2-D cases (>= 4x the LLC)")
    p.add_argument("--ttc-mib", type=int, default=128)
    p.add_argument("--ttc-cases", help="TTC case numbers 0..56, comma-separated (default: all)")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    seed = a.seed if a.seed is not None else secrets.randbits(40)
    print(f"seed {seed} (repeat: --seed {seed})", flush=True)
    exe = build(a)
    sets = a.sets.split(",")
    cases: List[Case] = []
    if "ttc" in sets:
        cases += ttc_cases(a)
    if "random" in sets:
        cases += random_cases(a, seed)
    if "2d" in sets:
        cases += matrix_cases(a, seed)
    print(f"{'set':<6} {'E':>1} {'shape':>26} {'axes':>14} {'xpose':>8} {'estimate':>9} {'measure':>8} {'ratio':>6}",
          flush=True)
    ratios: Dict[str, List[float]] = {}
    slower = []
    for case in cases:
        r = run(exe, case, a)
        hp = [t for t in (r["estimate_ms"], r["measure_ms"]) if t > 0]
        ratio: Optional[float] = r["xpose_ms"] / min(hp) if hp else None
        cell = lambda t: f"{t:8.3f}" if t > 0 else f"{'wrong':>8}"
        print(f"{case[0]:<6} {case[1]:>1} {case[2]:>26} {case[3]:>14} {r['xpose_ms']:8.3f} {cell(r['estimate_ms']):>9} "
              f"{cell(r['measure_ms'])} {ratio if ratio is None else round(ratio, 3):>6}", flush=True)
        if ratio is not None:
            ratios.setdefault(case[0], []).append(ratio)
            ratios.setdefault("all", []).append(ratio)
            if ratio > 1:
                slower.append(f"{case[2]} {case[3]} f{8 * case[1]} {ratio:.3f}")
    for k, v in ratios.items():
        print(f"summary {k:<6} {len(v):3d} cases: xpose time / the better HPTT's median {statistics.median(v):.3f}, "
              f"worst {max(v):.3f}, best {min(v):.3f}")
    print(f"HPTT faster on {len(slower)} case(s)" + (": " + "; ".join(slower) if slower else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
