#!/usr/bin/env python3
"""Plot xpose-bench JSON: GB/s against matrix size (bytes per buffer), one line per variant.

Usage: plot_bench.py RESULTS.json OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> int:
    data = json.load(open(sys.argv[1]))
    series: dict[str, list[tuple[float, float]]] = {}
    for r in data["rows"]:
        if not r.get("timed"):
            continue
        size = r["rows"] * r["cols"] * r["batch"] * r["elem_bytes"]
        key = f'{r["variant"]} {r["dtype"]} {r["block"]}'
        series.setdefault(key, []).append((size, r["gbps"]))
    fig, ax = plt.subplots(figsize=(8, 5))
    for key, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=key)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("bytes per buffer")
    ax.set_ylabel("GB/s (1e9 B/s, read + write)")
    meta = data.get("meta", {})
    ax.set_title(f'xpose-bench on {meta.get("device", "?")}')
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
