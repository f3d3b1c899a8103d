#!/usr/bin/env python3
"""Plot xpose-bench JSON: GB/s against matrix size (bytes per buffer), one line per variant.

Usage: plot_bench.py RESULTS.json OUT.png
"""
import json
import sys

try:
    import matplotlib
except ImportError:
    print("matplotlib is not installed for " + sys.executable, file=sys.stderr)
    sys.exit(1)

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: plot_bench.py RESULTS.json OUT.png", file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        data = json.load(f)
    series: dict[str, list[tuple[float, float]]] = {}
    for r in data["rows"]:
        if not r.get("timed"):
            continue
        size = r["rows"] * r["cols"] * r["batch"] * r["elem_bytes"]
        # The block shape names a GPU ladder launch; "-" (none) is left out of the legend.
        key = " ".join(x for x in (r["variant"], r["dtype"], r.get("block", "-")) if x and x != "-")
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
    # The format follows the extension when matplotlib knows it, else PNG.
    ext = sys.argv[2].rsplit(".", 1)[-1].lower() if "." in sys.argv[2] else ""
    fmt = ext if ext in fig.canvas.get_supported_filetypes() else "png"
    fig.savefig(sys.argv[2], dpi=120, format=fmt)
    return 0


if __name__ == "__main__":
    # One line on failure (xpose-bench quotes it), never a traceback.
    try:
        sys.exit(main())
    except Exception as e:  # noqa: BLE001
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
