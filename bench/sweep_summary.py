#!/usr/bin/env python3
"""Summarises `xpose-bench sweep --format md` tables: for each dtype, the median and
minimum fraction of cudaMemcpy of `best` over the sweep, the cases below 0.85, and the
median per shape class, as a markdown table (docs/RESULTS.md). With --against, the sweep of
another tree (built side by side, run on the same machine) is summarised too, then the
side-by-side: per dtype and class the median of theirs / ours, and the cases where they differ
by more than 3%.

usage: python3 bench/sweep_summary.py sweep.md [sweep2.md ...] [--against other.md ...]
"""
import statistics
import sys


def rows(paths, variant):
    for p in paths:
        for line in open(p):
            f = [x.strip() for x in line.split("|")[1:-1]]
            if len(f) >= 12 and f[2] == variant:
                yield f


def collect(paths, variant):
    by = {}
    for f in rows(paths, variant):
        shape, dt, ofm, check, cls, path = f[0], f[1], float(f[7]), f[9], f[10], f[11]
        by.setdefault(dt, []).append((ofm, shape, cls, path, check))
    return by


def summary(by, variant):
    classes = sorted({c for v in by.values() for _, _, c, _, _ in v})
    print(f"{variant}:\n")
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


def side_by_side(a, b):
    print("\nagainst / this tree, median per dtype and class; then every case off by > 3%:\n")
    pairs = {}
    for dt, v in a.items():
        base = {(x[1], x[2]): x for x in v}
        for x in b.get(dt, []):
            if (x[1], x[2]) in base:
                pairs.setdefault(dt, []).append((base[(x[1], x[2])], x))
    classes = sorted({p[0][2] for v in pairs.values() for p in v})
    print("| dtype | " + " | ".join(classes) + " |")
    print("|---" * (1 + len(classes)) + "|")
    for dt, v in pairs.items():
        cells = []
        for c in classes:
            r = [n[0] / o[0] for o, n in v if o[2] == c and o[0] > 0]
            cells.append(f"{statistics.median(r):.2f}" if r else "-")
        print(f"| {dt} | " + " | ".join(cells) + " |")
    print()
    for dt, v in pairs.items():
        for o, n in v:
            if o[0] > 0 and abs(n[0] / o[0] - 1) > 0.03:
                print(f"- {dt} {o[1]} {o[2]}: best {o[0]:.3f} ({o[3]}) -> against {n[0]:.3f} ({n[3]})"
                      f"{'' if n[4] == 'exact' else ' NOT EXACT'}")


def main():
    args = sys.argv[1:]
    ours, theirs = (args[: args.index("--against")], args[args.index("--against") + 1 :]) if "--against" in args else (args, [])
    a = collect(ours, "best")
    summary(a, "best")
    if theirs:
        b = collect(theirs, "best")
        print()
        summary(b, "best (against)")
        side_by_side(a, b)


if __name__ == "__main__":
    main()
