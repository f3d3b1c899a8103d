#!/usr/bin/env python3
"""Argument fuzzer for xpose-bench: random command lines, seeded.

Every run must exit 0, 1 or 2, never die of a signal, and print at most one line on
stderr when it exits 2. Values mix valid ones (small sizes, so runs are short) with
hostile ones (negative, huge, malformed, empty, NaN, inf, non-ASCII, newlines). Every
subcommand is drawn (the main command, cpu, inplace, lab, sweep, permute, ttc) with
its own options; --out and --plot sometimes name a symbolic link, whose target must
keep its bytes. Bounded by --time-limit.

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
                   "18446744073709551617", "1e99", "nan", "NaN", "inf", "-inf", "0x10", "", " ", "abc", "1.5",
                   "+3", "٣", "1\n2", "1e-400", "1,2"]
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
    if opt == "--shape":
        return rng.choice(["2x3", "4x5x6", "3x1x2x2", "7"]) if k < 0.7 else rng.choice(HOSTILE_SIZES + ["", "nan"])
    if opt == "--axes":
        return rng.choice(["1,0", "2,0,1", "0", "3,2,1,0"]) if k < 0.6 else rng.choice(["", "nan", "-1", "0,0", "9",
                                                                                       "1,,0", "1.5"])
    if opt == "--cases":
        return rng.choice(["0", "1,3", "27"]) if k < 0.7 else rng.choice(["", "57", "-1", "nan", "0,,1", "1e3"])
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
    if opt in ("--scale-mib", "--mib"):
        return rng.choice(["0.5", "1", "0"]) if k < 0.5 else rng.choice(HOSTILE_NUMBERS)
    if opt in ("--device", "--peak-gbs"):
        return rng.choice(["0", "1", "3000"] + HOSTILE_NUMBERS)
    if opt == "--block":
        return rng.choice(["32x8", "32x32", "16x16", "", "32x"])
    if opt == "--format":
        return rng.choice(["table", "csv", "json", "md", "xml", ""])
    if opt == "--out":
        return rng.choice([os.path.join(tmp, "out.txt"), "/dev/full", "", tmp, "/nonexistent/x",
                           os.path.join(tmp, "a'b; touch PWNED"), os.path.join(tmp, "link"),
                           os.path.join(tmp, "new\nline.txt"), "/dev/null"])
    if opt == "--plot":  # drawing costs seconds: mostly paths that fail before the run
        return rng.choice(["", tmp, "/nonexistent/p.png", os.path.join(tmp, "p.png"), os.path.join(tmp, "link")]
                          if k < 0.1 else ["", tmp, "/nonexistent/p.png", os.path.join(tmp, "link")])
    return rng.choice(HOSTILE_NUMBERS)


COMMON = ["--format", "--out"]
MAIN = ["--size", "--dtype", "--variants", "--reps", "--warmup", "--batch", "--threads", "--device",
        "--peak-gbs", "--block", "--plot"] + COMMON
# Each subcommand with the options it takes (and a few it does not), the arguments every
# draw starts with (small and quick, later options may override), and its flags.
SUBCOMMANDS = {
    "": (MAIN, ["--size", None, "--reps", "1", "--warmup", "0"], ["--cpu", "--model", "--list", "--inplace"]),
    "cpu": (["--size", "--dtype", "--variants", "--reps", "--warmup", "--batch", "--threads", "--plot"] + COMMON,
            ["--size", None, "--reps", "1", "--warmup", "0"], ["--sweep", "--list"]),
    "inplace": (["--size", "--dtype", "--reps", "--warmup", "--batch", "--threads", "--device"] + COMMON,
                ["--size", None, "--reps", "1", "--warmup", "0", "--cpu"], ["--cpu"]),
    "lab": (["--reps", "--warmup", "--device", "--peak-gbs", "--plot"] + COMMON, [], []),
    "sweep": (["--mib", "--reps", "--device", "--dtype"] + COMMON, [], ["--quick", "--graph", "--candidate"]),
    "permute": (["--shape", "--axes", "--dtype", "--threads", "--reps", "--warmup"] + COMMON,
                ["--shape", "4x5", "--reps", "1", "--warmup", "0", "--cpu"], ["--cpu", "--conj"]),
    "ttc": (["--cases", "--scale-mib", "--dtype", "--threads", "--reps", "--warmup"] + COMMON,
            ["--cases", "0", "--scale-mib", "0.25", "--reps", "1", "--warmup", "0", "--cpu"], ["--cpu", "--conj"]),
}
FLAGS = ["--version", "--help", "-h", "--quiet", "--", "-x", "--bogus", "extra"]


def draw_argv(rng, tmp):
    sub = rng.choice(list(SUBCOMMANDS))
    opts, start, flags = SUBCOMMANDS[sub]
    argv = [sub] if sub else []
    argv += [rng.choice(SMALL_SIZES[:7]) if a is None else a for a in start]
    for _ in range(rng.randint(0, 5)):
        k = rng.random()
        if k < 0.65:
            opt = rng.choice(opts if rng.random() < 0.9 else MAIN + ["--shape", "--cases", "--mib"])
            argv.append(opt)
            if rng.random() < 0.95:  # sometimes the value is missing
                argv.append(value_for(opt, rng, tmp))
        elif k < 0.85:
            argv.append(rng.choice(flags + FLAGS) if flags else rng.choice(FLAGS))
        else:
            argv.append(rng.choice(["--size=3x3", "--reps=", "--dtype=f16", "=", "-", "\x7f", "é",
                                    "--threads=-1", "--out=" + os.path.join(tmp, "o2.txt"), "--reps=nan"]))
    if not sub and "--counters" not in argv and rng.random() < 0.02:
        argv.append("--counters")
    return argv


NUMERIC = {"--reps", "--warmup", "--batch", "--threads", "--device", "--peak-gbs", "--scale-mib", "--mib"}
NOT_A_NUMBER = {"", " ", "nan", "NaN", "inf", "-inf", "1e99", "abc", "0x10", "1\n2", "1,2", "٣", "1e-400",
                "18446744073709551617", "9223372036854775807", "-2147483649", "-1"}


def must_refuse(argv):
    """True when a numeric option is given a value no option accepts: the run must exit 2."""
    if any(x in ("-h", "--help", "--version") for x in argv):
        return False
    for i, x in enumerate(argv[:-1]):
        if x == "--":
            return False
        if x in NUMERIC and argv[i + 1] in NOT_A_NUMBER:
            return True
    return False


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
        victim = os.path.join(tmp, "victim")
        with open(victim, "w") as f:
            f.write("precious\n")
        link = os.path.join(tmp, "link")
        while runs < a.runs and time.monotonic() - t0 < a.time_limit:
            if not os.path.islink(link):  # a run may only replace the link, never write its target
                if os.path.lexists(link):
                    os.remove(link)
                os.symlink("victim", link)
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
            elif rc != 2 and must_refuse(argv):
                why = f"exit {rc} with a value that is not a number in range"
            if os.path.exists(os.path.join(tmp, "PWNED")):
                why = "a file name ran a shell command"
            with open(victim) as f:
                if f.read() != "precious\n":
                    why = "a symbolic link's target was written"
            if [e for e in os.listdir(tmp) if e.startswith(".xpose-bench-")] and "--plot" not in argv:
                why = "a temporary directory was left behind"
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
