"""xpose.dist over mpi4py (NumPy arrays): pytest launches this file under mpirun with
P = 1..4 ranks (plus 6, oversubscribed); each rank checks its own block exactly and that
bad sizes raise ValueError on every rank. A timeout proves that nothing hangs."""

import builtins
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

WORKER = "XPOSE_DIST_MPI_WORKER"


def _global(batch: int, R: int, C: int, dtype) -> np.ndarray:
    """The whole (batch, R, C) matrix, the same on every rank (random bits, seeded)."""
    raw = np.random.default_rng(1234 + R * 7 + C).integers(0, 256, size=batch * R * C * np.dtype(dtype).itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(batch, R, C)


def _uneven(n: int, P: int):
    w = [0 if (P >= 3 and r == 1) else r % 3 + 1 for r in range(P)]
    v = [n * w[r] // sum(w) for r in range(P)]
    v[-1] += n - sum(v)
    return v


def _worker() -> int:
    from mpi4py import MPI

    import xpose.dist

    comm = MPI.COMM_WORLD
    P, me = comm.Get_size(), comm.Get_rank()
    failures = []
    cases = [  # batch, R, C, dtype, uneven rows, explicit out_rows
        (1, 37, 29, np.float32, True, False),
        (1, 64, 64, np.float32, False, False),
        (3, 23, 41, np.uint16, True, True),
        (2, 19, 17, np.uint8, True, True),
        (1, 11, 13, np.complex128, False, True),
        (1, 2, 3, np.float64, False, False),
    ]
    for batch, R, C, dt, uneven_rows, explicit in cases:
        g = _global(batch, R, C, dt)
        rows = _uneven(R, P) if uneven_rows else [xpose.dist.even_split(R, P, r) for r in range(P)]
        outs = list(reversed(_uneven(C, P))) if explicit else [xpose.dist.even_split(C, P, r) for r in range(P)]
        r0, c0 = sum(rows[:me]), sum(outs[:me])
        x = g[:, r0 : r0 + rows[me], :]
        x = x[0] if batch == 1 else x
        got = xpose.dist.transpose(x, outs[me] if explicit else None)
        want = np.swapaxes(g, 1, 2)[:, c0 : c0 + outs[me], :]
        want = want[0] if batch == 1 else want
        if got.shape != want.shape or got.tobytes() != np.ascontiguousarray(want).tobytes():
            failures.append(f"rank {me}: case {(batch, R, C, np.dtype(dt).name)}: wrong result")
    # Bad sizes on one rank: ValueError everywhere, nobody hangs.
    bad = [
        ("cols differ", lambda: np.zeros((2, 5 + (me == P - 1)), np.float32), None, None),
        ("dtype differs", lambda: np.zeros((2, 5), np.float32 if me else np.float64), None, None),
        ("out_rows do not add up", lambda: np.zeros((2, 5), np.float32), 5 if me == 0 else 1, None),
        ("nranks is wrong", lambda: np.zeros((2, 5), np.float32), None, P + 1),
    ]
    for name, make, out_rows, nranks in bad:
        if P == 1 and name in ("cols differ", "dtype differs"):
            continue
        if P == 1 and name == "out_rows do not add up":
            out_rows = 4
        try:
            xpose.dist.transpose(make(), out_rows, nranks=nranks)
            failures.append(f"rank {me}: {name}: no error")
        except ValueError:
            pass
    everyone = comm.allgather(failures)
    if me == 0:
        flat = [f for fs in everyone for f in fs]
        for f in flat:
            print(f, file=sys.stderr)
        print(f"xpose.dist mpi4py P={P}: {'FAIL' if flat else 'OK'}")
    return 1 if any(everyone) else 0


def _bad_rank_worker() -> int:
    """Each bad argument on each rank in turn (the others' arguments right):
    every rank must raise the same exception type with the same message, no rank may
    hang (the launcher's timeout), before or after the first collective."""
    from mpi4py import MPI

    import xpose.dist

    comm = MPI.COMM_WORLD
    P, me = comm.Get_size(), comm.Get_rank()
    good = np.arange(2 * 6, dtype=np.float32).reshape(2, 6)
    huge = 1 << 24  # a broadcast block whose output (2^48 bytes) cannot be allocated
    bad = [  # name, x, out_rows, keywords, expected type
        ("x is a list", good.tolist(), None, {}, TypeError),
        ("x is 1-D", good.ravel(), None, {}, ValueError),
        ("x is 4-D", good[None, None], None, {}, ValueError),
        ("object dtype", good.astype(object), None, {}, TypeError),
        ("out_rows is a str", good, "3", {}, TypeError),
        ("out_rows is a float", good, 2.5, {}, TypeError),
        ("out_rows is a bool", good, True, {}, TypeError),
        ("out_rows negative", good, -1, {}, ValueError),
        ("out_rows above cols", good, 7, {}, ValueError),
        ("nranks is a str", good, None, {"nranks": "2"}, TypeError),
        ("group= for NumPy", good, None, {"group": object()}, TypeError),
        ("dtype differs", good.astype(np.float64), None, {}, ValueError),
    ]
    failures = []
    cases = [(name, culprit) for name, *_ in bad for culprit in range(P)] + [("huge block", c) for c in range(P)]
    for name, culprit in cases:
        if name == "huge block":  # after the first collective: MemoryError on the culprit only
            x = np.broadcast_to(np.zeros((1, 1), np.uint8), (huge, huge)) if me == culprit else np.zeros((0, huge), np.uint8)
            out_rows, kw, want = (huge if me == culprit else 0), {}, MemoryError
        else:
            _, bx, bo, bkw, want = next(b for b in bad if b[0] == name)
            x, out_rows, kw = (bx, bo, bkw) if me == culprit else (good, None, {})
            if name == "dtype differs" and P == 1:
                continue
        try:
            xpose.dist.transpose(x, out_rows, **kw)
            got = ("no error", "")
        except Exception as e:  # noqa: BLE001 - compared below
            got = (type(e).__name__ if not isinstance(e, MemoryError) else "MemoryError", str(e))
        everyone = comm.allgather(got)
        kind = getattr(builtins, everyone[0][0], None)
        if len(set(everyone)) != 1 or not (isinstance(kind, type) and issubclass(kind, want)):
            failures.append(f"{name} on rank {culprit}: {everyone}")
    everyone = comm.allgather(failures)
    if me == 0:
        flat = [f for fs in everyone for f in fs]
        for f in flat:
            print(f, file=sys.stderr)
        print(f"xpose.dist bad rank P={P}: {'FAIL' if flat else 'OK'} ({len(cases)} cases)")
    return 1 if any(everyone) else 0


def _mpirun():
    return shutil.which("mpirun") or shutil.which("mpiexec")


@pytest.mark.parametrize("P", [1, 2, 3, 4, 6])
def test_dist_mpi4py(P):
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (scripts/install-deps.sh installs it)")
    launcher = _mpirun()
    if launcher is None:
        pytest.skip("no mpirun / mpiexec on PATH")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1")
    env[WORKER] = "1"
    version = subprocess.run([launcher, "--version"], capture_output=True, text=True).stdout
    flags = ["--oversubscribe"] if ("Open MPI" in version or "OpenRTE" in version) else []
    proc = subprocess.run(
        [launcher, "-np", str(P), *flags, sys.executable, os.path.abspath(__file__)],
        env=env, capture_output=True, text=True, timeout=180,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert f"P={P}: OK" in proc.stdout


@pytest.mark.parametrize("P", [2, 3, 5])
def test_dist_mpi4py_one_bad_rank(P):
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (scripts/install-deps.sh installs it)")
    launcher = _mpirun()
    if launcher is None:
        pytest.skip("no mpirun / mpiexec on PATH")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1")
    env[WORKER] = "bad"
    version = subprocess.run([launcher, "--version"], capture_output=True, text=True).stdout
    flags = ["--oversubscribe"] if ("Open MPI" in version or "OpenRTE" in version) else []
    proc = subprocess.run(
        [launcher, "-np", str(P), *flags, sys.executable, os.path.abspath(__file__)],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert f"bad rank P={P}: OK" in proc.stdout


if __name__ == "__main__" and os.environ.get(WORKER):
    sys.exit(_bad_rank_worker() if os.environ[WORKER] == "bad" else _worker())
