#!/usr/bin/env python3
"""Per-case comparison of LibreTT's TTC set with xpose's, from two logs of one GPU.

usage: librett_compare.py LIBRETT_LOG XPOSE_TTC_LOG
  LIBRETT_LOG    output of `librett_bench -bench 6 -elemsize 8` (gpu.sh step librett)
  XPOSE_TTC_LOG  output of `xpose-bench ttc --dtype f64` (gpu.sh step ttc:f64), same GPU

LibreTT lists TTC's 57 permutations in column-major order, case k = TTC case k. Both
tools count bytes read + written; LibreTT's fraction is taken against xpose's cudaMemcpy
rate of that case (GB/s / fraction). LibreTT's rate is the median of its printed runs.
"""
import statistics
import sys


def librett_cases(path):
    cases = []
    for block in open(path).read().split("number of elements")[1:]:
        lines = block.strip().split("\n")
        try:
            dims = lines[lines.index("dimensions") + 1].split()
            perm = lines[lines.index("permutation") + 1].split()
        except ValueError:
            continue
        rates = [float(x.split()[-2]) for x in lines if x.startswith("wall time")]
        if rates:
            cases.append(("x".join(dims), ",".join(perm), statistics.median(rates)))
    return cases


def xpose_cases(path):
    cases = []
    for line in open(path):
        f = line.split()
        if len(f) >= 9 and f[0].startswith("ttc") and f[5] == "ok":
            cases.append((f[0], f[1], f[2], f[4], float(f[7]), float(f[8])))
    return cases


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lt, xp = librett_cases(sys.argv[1]), xpose_cases(sys.argv[2])
    if len(lt) != len(xp) or not xp:
        sys.exit(f"case counts differ or are empty: LibreTT {len(lt)}, xpose {len(xp)}")
    print("| case | shape (row-major) | axes | algorithm | xpose GB/s | of memcpy | LibreTT GB/s (dims, column-major) | of memcpy | xpose / LibreTT |")
    print("|---|---|---|---|---|---|---|---|---|")
    fx, fl, ratio = [], [], []
    for (case, shape, axes, alg, gbs, frac), (dims, _perm, lgbs) in zip(xp, lt):
        lfrac = lgbs / (gbs / frac)
        fx.append(frac), fl.append(lfrac), ratio.append(gbs / lgbs)
        print(f"| {case} | {shape} | {axes} | {alg} | {gbs:.1f} | {frac:.3f} | {lgbs:.1f} ({dims}) | {lfrac:.3f} | {gbs / lgbs:.2f}x |")
    print(f"\nxpose of memcpy: median {statistics.median(fx):.3f}, min {min(fx):.3f}; LibreTT: median "
          f"{statistics.median(fl):.3f}, min {min(fl):.3f}, max {max(fl):.3f}; xpose / LibreTT: median "
          f"{statistics.median(ratio):.2f}x, min {min(ratio):.3f}x; cases where xpose is slower: {sum(r < 1 for r in ratio)}")


if __name__ == "__main__":
    main()
