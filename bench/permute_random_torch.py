#!/usr/bin/env python3
"""The random cases of `xpose-bench permute --random N --json FILE` against torch eager
(x.permute(axes).contiguous(), as a clone so that permutations that fuse to a copy are
copied as xpose copies them), torch.compile, jax.jit(jnp.transpose) and CuPy, in one
run, timed like xpose-bench (CUDA events, warm-ups, median of reps), each as a fraction
of a device copy of the same bytes measured in this run. Every result is checked
bitwise against torch eager. The input is the same strided view (torch, CuPy); JAX has
no strided views, so it transposes a contiguous copy of it (marked in the output).

  xpose-bench permute --random 100 --json cases.json
  python3 bench/permute_random_torch.py cases.json [--out results.json]
"""
import argparse
import json
import statistics
import sys


def timed(torch, f, warmup, reps):
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t = []
    for i in range(warmup + reps):
        e0.record()
        f()
        e1.record()
        e1.synchronize()
        if i >= warmup:
            t.append(e0.elapsed_time(e1))
    return statistics.median(t)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases")
    ap.add_argument("--out")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile (a compile per case)")
    a = ap.parse_args()
    import torch

    dtypes = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.complex128}
    try:
        import cupy as cp
    except Exception:  # noqa: BLE001
        cp = None
    try:
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)
        if not any(d.platform == "gpu" for d in jax.devices()):
            jax = None
    except Exception:  # noqa: BLE001
        jax = None
    data = json.load(open(a.cases))
    print(f"seed {data['seed']}: {len(data['cases'])} cases; torch {torch.__version__}, cupy {cp.__version__ if cp else '-'}, "
          f"jax {jax.__version__ if jax else '-'}")
    cols = ["xpose", "eager", "compile", "jax", "cupy"]
    print(f"{'case':>4} {'E':>2} {'class':<10} " + " ".join(f"{c:>8}" for c in cols))
    rows = []
    for c in data["cases"]:
        if c["check"] != "ok" or c["memcpy_ms"] <= 0:
            continue
        es, shape, axes, strides = c["elem_size"], c["shape"], c["axes"], c["strides"]
        dt = dtypes[es]
        parent = torch.randint(-128, 127, (c["parent"] * es,), dtype=torch.int8, device="cuda").view(dt)
        x = parent.as_strided(shape, strides, c["offset"])
        perm = lambda t: t.permute(axes).clone(memory_format=torch.contiguous_format)  # noqa: E731
        want = perm(x)
        n = want.numel() * es
        src = torch.empty(n, dtype=torch.int8, device="cuda")
        dst = torch.empty_like(src)
        ref = timed(torch, lambda: dst.copy_(src), a.warmup, a.reps)
        r = {"id": c["id"], "class": c["class"], "xpose": c["memcpy_ms"] / c["xpose_ms"]}
        r["eager"] = ref / timed(torch, lambda: perm(x), a.warmup, a.reps)
        if not a.no_compile:
            try:
                f = torch.compile(perm, dynamic=False)
                assert torch.equal(f(x).view(torch.int8), want.view(torch.int8))
                r["compile"] = ref / timed(torch, lambda: f(x), a.warmup, a.reps)
            except Exception as e:  # noqa: BLE001
                print(f"  compile: {type(e).__name__}: {e}"[:200], file=sys.stderr)
            torch._dynamo.reset()
        if jax is not None:
            xc = x.clone(memory_format=torch.contiguous_format)  # an aligned allocation
            xj = jax.dlpack.from_dlpack(xc) if es != 16 else jnp.asarray(xc.cpu().numpy())
            fj = jax.jit(lambda t: jnp.transpose(t, axes))
            yj = fj(xj).block_until_ready()
            if es != 16:
                assert torch.equal(torch.from_dlpack(yj).view(torch.int8), want.view(torch.int8))
            r["jax"] = ref / timed(torch, lambda: fj(xj).block_until_ready(), a.warmup, a.reps)
        if cp is not None:
            xp = cp.lib.stride_tricks.as_strided(cp.from_dlpack(parent)[c["offset"]:], shape, [s * es for s in strides])
            yp = xp.transpose(axes).copy(order="C")
            assert torch.equal(torch.from_dlpack(yp).view(torch.int8), want.view(torch.int8))
            r["cupy"] = ref / timed(torch, lambda: xp.transpose(axes).copy(order="C"), a.warmup, a.reps)
        rows.append(r)
        print(f"{r['id']:>4} {es:>2} {r['class']:<10} " + " ".join(f"{r[k]:8.3f}" if k in r else f"{'-':>8}" for k in cols),
              flush=True)
        del parent, x, want, src, dst
    for k in cols:
        v = sorted(r[k] for r in rows if k in r)
        if v:
            print(f"summary {k:<8} {len(v):4d} cases: median {statistics.median(v):.3f} p10 {v[int(0.1 * (len(v) - 1))]:.3f} "
                  f"min {v[0]:.3f}")
    slower = [r["id"] for r in rows if any(k in r and r[k] > r["xpose"] for k in cols[1:])]
    print(f"xpose slower than another library on {len(slower)} of {len(rows)} cases: {slower}")
    if a.out:
        json.dump(rows, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
