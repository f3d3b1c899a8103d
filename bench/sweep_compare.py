#!/usr/bin/env python3
"""Same-node comparison of two trees' `xpose-bench sweep --format md` tables (a regression check).

Each tree's sweep runs several times, alternately (A, B, A, B ...) on one GPU; every table's
`best` rows carry their fraction of cudaMemcpy measured in the same run. Per case (shape,
dtype) this takes the median over rounds of each tree's fraction and prints: the median of
B / A over the cases, the cases where B is more than --tol below or above A (with both
routes and the per-round fractions), and the cases whose check is not exact.

usage: python3 bench/sweep_compare.py --a old_1.md old_2.md --b new_1.md new_2.md [--tol 0.03]
"""
import argparse
import statistics
import sys


def best_rows(path):
    """{(shape, dtype): (of_memcpy, path, check, class)} of the `best` rows of one table."""
    out = {}
    for line in open(path):
        f = [x.strip() for x in line.split("|")[1:-1]]
        if len(f) >= 12 and f[2] == "best":
            out[(f[0], f[1])] = (float(f[7]), f[11], f[9], f[10])
    return out


def merge(paths):
    """{case: ([fractions per round], path, [checks], class)} over a tree's tables."""
    runs = [best_rows(p) for p in paths]
    cases = {}
    for r in runs:
        for k, (v, path, check, cls) in r.items():
            c = cases.setdefault(k, ([], path, [], cls))
            c[0].append(v)
            c[2].append(check)
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", nargs="+", required=True, help="tables of tree A (the baseline)")
    ap.add_argument("--b", nargs="+", required=True, help="tables of tree B")
    ap.add_argument("--tol", type=float, default=0.03)
    ns = ap.parse_args()
    a, b = merge(ns.a), merge(ns.b)
    common = sorted(set(a) & set(b))
    if not common:
        sys.exit("sweep_compare: no case in both trees' tables")
    ratios = []
    lower, higher, bad = [], [], []
    for k in common:
        fa, fb = statistics.median(a[k][0]), statistics.median(b[k][0])
        r = fb / fa
        ratios.append(r)
        row = (r, k, a[k], b[k], fa, fb)
        if r < 1 - ns.tol:
            lower.append(row)
        elif r > 1 + ns.tol:
            higher.append(row)
        if any(c != "exact" for c in a[k][2] + b[k][2]):
            bad.append(k)
    same = [r for (r, k) in zip(ratios, common) if a[k][1] == b[k][1]]
    print(f"cases in both: {len(common)} (A only {len(set(a) - set(b))}, B only {len(set(b) - set(a))}); "
          f"rounds A {len(ns.a)}, B {len(ns.b)}")
    print(f"median B/A {statistics.median(ratios):.3f}; same route: {len(same)} cases, median "
          f"{statistics.median(same):.3f}" if same else "")
    print(f"B below A by more than {ns.tol:.0%}: {len(lower)}; above: {len(higher)}; not exact: {len(bad)}")

    def table(title, rows):
        print(f"\n{title}\n\n| case | dtype | class | A route | B route | A | B | B/A | A rounds | B rounds |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for r, k, ra, rb, fa, fb in sorted(rows):
            print(f"| {k[0]} | {k[1]} | {ra[3]} | {ra[1]} | {rb[1]} | {fa:.3f} | {fb:.3f} | {r:.3f} | "
                  f"{' '.join(f'{x:.3f}' for x in ra[0])} | {' '.join(f'{x:.3f}' for x in rb[0])} |")

    table(f"B below A by more than {ns.tol:.0%}", lower)
    table(f"B above A by more than {ns.tol:.0%}", higher)
    for k in bad:
        print(f"NOT EXACT: {k[0]} {k[1]}: A {a[k][2]} B {b[k][2]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
