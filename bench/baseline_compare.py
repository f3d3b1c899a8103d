#!/usr/bin/env python3
"""Before/after of `best` from `scripts/gpu.sh baseline` (another source tree against this one).

Reads LOGDIR/before_K.csv, after_K.csv, before_batch_K.csv, after_batch_K.csv (xpose-bench
--format csv of the baseline tree and of this tree, run alternately, K = 1..rounds) and prints
one row per case: the median over rounds of `best`'s median time before and after, their
ratio, the per-round ratios and the bitwise checks; then the largest ratio.

usage: python3 bench/baseline_compare.py LOGDIR
"""
import csv
import glob
import os
import statistics
import sys


def best_rows(path):
    """{case: (ms, check)} of the `best` rows of one xpose-bench csv (case = size and dtype)."""
    rows = {}
    with open(path, newline="") as f:
        for r in csv.reader(f):
            if "best" not in r or r[0] == "size":
                continue
            i = r.index("best")
            # size and dtype are one field ("8192x8192 i8") or two ("8192x8192,i8").
            case = " ".join(r[:i])
            rows[case] = (float(r[i + 2]), r[-1])
    return rows


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: baseline_compare.py LOGDIR")
    d = sys.argv[1]
    before, after = {}, {}
    for kind in ("", "batch_"):
        for path in sorted(glob.glob(os.path.join(d, f"before_{kind}[0-9]*.csv"))):
            k = path.rsplit("_", 1)[1][:-4]
            other = os.path.join(d, f"after_{kind}{k}.csv")
            if not os.path.exists(other):
                continue
            for case, v in best_rows(path).items():
                before.setdefault(case, []).append(v)
            for case, v in best_rows(other).items():
                after.setdefault(case, []).append(v)
    if not before:
        sys.exit(f"no before_K.csv / after_K.csv pairs in {d}")
    worst, worst_case, bad = 0.0, "", 0
    print(f"{'case':<22} {'before ms':>10} {'after ms':>10} {'after/before':>12}  per round             checks")
    for case in before:
        if case not in after:
            continue
        b = statistics.median(ms for ms, _ in before[case])
        a = statistics.median(ms for ms, _ in after[case])
        per = " ".join(f"{x[0] / y[0]:.3f}" for x, y in zip(after[case], before[case]))
        checks = {c for _, c in before[case] + after[case]}
        bad += any(c != "exact" for c in checks)
        r = a / b
        if r > worst:
            worst, worst_case = r, case
        print(f"{case:<22} {b:>10.4f} {a:>10.4f} {r:>12.3f}  {per:<21} {','.join(sorted(checks))}")
    rounds = max(len(v) for v in before.values())
    print(f"rounds: {rounds}; cases not exact: {bad}")
    print(f"largest after / before (median over rounds): {worst:.3f} ({worst_case})")


if __name__ == "__main__":
    main()
