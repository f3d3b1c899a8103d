#!/usr/bin/env python3
"""Argument fuzzer for xpose-bench: random command lines, seeded.

Every run must exit 0, 1 or 2, never die of a signal, and print at most one line on
stderr when it exits 2. Values mix valid ones (small sizes, so runs are short) with
hostile ones (negative, huge, malformed, empty, non-ASCII). Bounded by --time-limit.

usage: fuzz_args.py PATH/TO/xpose-bench [--seed N] [--time-limit SECONDS] [--runs N]
"""
import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

HOSTILE_NUMBERS = ["-1", "0", "-0", "2147483647", "2147483648", "-2147483649", "9223372036854775807",
                   "18446744073709551617", "1e99", "nan", "inf", "0x10", "", " ", "abc", "1.5", "+3", "٣"]
SMALL_SIZES = ["1x1", "0x5", "5x0", "3x7", "17x33", "64x64", "1x100", "100x1", "2x3,4x5"]
HOSTILE_SIZES = ["-1x4", "4x-1", "x", "4x", "x4", "4x4x4", "99999999999x99999999999", "300000x300000",
                 "1x1,", ",", "4X4", "4 x 4", "４x４"]
DTYPES = ["f32", "f16", "bf16", "f64", "i8", "u8", "c64", "c128", "bool", "float32", "complex128",
          "f32,f64", "f7", "", "F32", "f32,,f64"]
CPU_VARIANTS = ["memcpy", "naive_loop", "xpose_cpu", "openblas"]
GPU_VARIANTS = ["best", "copy", "naive", "tiled", "tiled_padded", "nope", "", "memcpy,nope"]


def value_for(opt, rng, tmp):
    k = rng.random()
    if opt == "--size":
        return rng.choice(SMALL_SIZES) if k < 0.7 else rng.choice(HOSTILE_SIZES)
    if opt == "--dtype":
        return rng.choice(DTYPES)
    if opt == "--variants":
        if k < 0.6:
            return ",".join(rng.sample(CPU_VARIANTS, rng.randint(1, 3)))
        return rng.choice(GPU_VARIANTS)
    if opt in ("--reps", "--warmup", "--batch"):
        return str(rng.randint(0, 3)) if k < 0.6 else rng.choice(HOSTILE_NUMBERS)
    if opt == "--threads":
        return str(rng.randint(0, 4)) if k < 0.5 else rng.choice(HOSTILE_NUMBERS + ["256", "257", "100000"])
    if opt in ("--device", "--peak-gbs"):
        return rng.choice(["0", "1", "3000"] + HOSTILE_NUMBERS)
    if opt == "--block":
        return rng.choice(["32x8", "32x32", "16x16", "", "32x"])
    if opt == "--format":
        return rng.choice(["table", "csv", "json", "md", "xml", ""])
    if opt == "--out":
        return rng.choice([os.path.join(tmp, "out.txt"), "/dev/full", "", tmp, "/nonexistent/x",
                           os.path.join(tmp, "a'b; touch PWNED")])
    if opt == "--plot":  # drawing costs seconds: mostly paths that fail before the run
        return rng.choice(["", tmp, "/nonexistent/p.png", os.path.join(tmp, "p.png")] if k < 0.1 else
                          ["", tmp, "/nonexistent/p.png"])
    return rng.choice(HOSTILE_NUMBERS)


OPTIONS = ["--size", "--dtype", "--variants", "--reps", "--warmup", "--batch", "--threads", "--device",
           "--peak-gbs", "--block", "--format", "--out", "--plot"]
FLAGS = ["--cpu", "--model", "--list", "--version", "--help", "-h", "lab", "--", "-x", "--bogus", "extra"]


def draw_argv(rng, tmp):
    argv = []
    # Every command line starts with a small size and few repetitions, so that valid ones
    # run fast (the default CPU size, 8192x8192, takes seconds); later options may override.
    argv += ["--size", rng.choice(SMALL_SIZES[:7]), "--reps", "1", "--warmup", "0"]
    for _ in range(rng.randint(0, 5)):
        k = rng.random()
        if k < 0.65:
            opt = rng.choice(OPTIONS)
            argv.append(opt)
            if rng.random() < 0.95:  # sometimes the value is missing
                argv.append(value_for(opt, rng, tmp))
        elif k < 0.85:
            argv.append(rng.choice(FLAGS))
        else:
            argv.append(rng.choice(["--size=3x3", "--reps=", "--dtype=f16", "=", "-", "\x7f", "é",
                                    "--threads=-1", "--out=" + os.path.join(tmp, "o2.txt")]))
    if "--counters" not in argv and rng.random() < 0.02:
        argv.append("--counters")
    return argv


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--runs", type=int, default=100000)
    a = ap.parse_args()
    a.bench = os.path.abspath(a.bench)
    rng = random.Random(a.seed)
    t0 = time.monotonic()
    failures = runs = 0
    by_rc = {}
    env = dict(os.environ, OMP_NUM_THREADS="2")
    with tempfile.TemporaryDirectory() as tmp:
        while runs < a.runs and time.monotonic() - t0 < a.time_limit:
            argv = draw_argv(rng, tmp)
            runs += 1
            try:
                p = subprocess.run([a.bench] + argv, capture_output=True, timeout=120, cwd=tmp, env=env,
                                   stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                failures += 1
                print(f"FAIL (hang > 120 s): {argv!r}")
                continue
            rc = p.returncode
            by_rc[rc] = by_rc.get(rc, 0) + 1
            err_lines = p.stderr.decode(errors="replace").splitlines()
            why = ""
            if rc < 0:
                why = f"killed by signal {signal.Signals(-rc).name}"
            elif rc not in (0, 1, 2):
                why = f"exit {rc}"
            elif rc == 2 and len(err_lines) > 1:
                why = f"exit 2 with {len(err_lines)} stderr lines"
            if os.path.exists(os.path.join(tmp, "PWNED")):
                why = "a file name ran a shell command"
            if why:
                failures += 1
                print(f"FAIL ({why}): xpose-bench {' '.join(repr(x) for x in argv)}")
                for line in err_lines[:4]:
                    print("   stderr:", line)
    print(f"fuzz_args: seed={a.seed} runs={runs} exit codes={dict(sorted(by_rc.items()))} failures={failures} "
          f"elapsed={time.monotonic() - t0:.1f}s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
