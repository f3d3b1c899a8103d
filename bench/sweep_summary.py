#!/usr/bin/env python3
"""Summarises an `xpose-bench sweep --format md` table: for each dtype, the median and
minimum fraction of cudaMemcpy of `best` over the sweep, the cases below 0.85, and the
median per shape class, as a markdown table (docs/RESULTS.md).

usage: python3 bench/sweep_summary.py sweep.md [sweep2.md ...]
"""
import statistics
import sys


def rows(paths):
    for p in paths:
        for line in open(p):
            f = [x.strip() for x in line.split("|")[1:-1]]
            if len(f) >= 12 and f[2] == "best":
                yield f


def main():
    by = {}
    for f in rows(sys.argv[1:]):
        shape, dt, ofm, check, cls, path = f[0], f[1], float(f[7]), f[9], f[10], f[11]
        by.setdefault(dt, []).append((ofm, shape, cls, path, check))
    classes = sorted({c for v in by.values() for _, _, c, _, _ in v})
    print("| dtype | cases | exact | median | min | < 0.85 | " + " | ".join(classes) + " |")
    print("|---" * (6 + len(classes)) + "|")
    for dt, v in by.items():
        fr = [x[0] for x in v]
        per = []
        for c in classes:
            cv = [x[0] for x in v if x[2] == c]
            per.append(f"{statistics.median(cv):.2f}" if cv else "-")
        print(f"| {dt} | {len(v)} | {sum(x[4] == 'exact' for x in v)} | {statistics.median(fr):.3f} | "
              f"{min(fr):.3f} | {sum(f < 0.85 for f in fr)} | " + " | ".join(per) + " |")
    allf = [x[0] for v in by.values() for x in v]
    print(f"\nall dtypes: {len(allf)} cases, median {statistics.median(allf):.3f}, min {min(allf):.3f}, "
          f"{sum(f < 0.85 for f in allf)} below 0.85")
    print("\nslowest ten (fraction of memcpy, shape, dtype, class, path):")
    for fr, shape, cls, path, dt in sorted((x[0], x[1], x[2], x[3], d) for d, v in by.items() for x in v)[:10]:
        print(f"- {fr:.3f} {shape} {dt} {cls} {path}")


if __name__ == "__main__":
    main()
