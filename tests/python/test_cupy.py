"""xpose.transpose on CuPy arrays (skipped without a GPU), checked bit for bit
against cupy.ascontiguousarray(x.T)."""

import numpy as np
import pytest

import xpose
from _cases import BATCHED, DTYPES, SHAPES

CUPY_DTYPES = [d for d in DTYPES if d != "bfloat16"]  # CuPy has no bfloat16


def rand(cp, shape, name, seed=0):
    """Random bit patterns of dtype `name` (via NumPy, so that every dtype works)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(name)
    if dt == np.bool_:
        host = rng.integers(0, 2, size=shape).astype(np.bool_)
    else:
        raw = rng.integers(0, 256, size=tuple(shape) + (dt.itemsize,), dtype=np.uint8)
        host = raw.view(dt).reshape(shape)
    return cp.asarray(host)


def expected(cp, x):
    return cp.ascontiguousarray(cp.swapaxes(x, -1, -2))


def assert_bits_equal(cp, got, want):
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.device == want.device
    a = cp.asnumpy(cp.ascontiguousarray(got)).view(np.uint8)
    b = cp.asnumpy(cp.ascontiguousarray(want)).view(np.uint8)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("name", CUPY_DTYPES)
@pytest.mark.parametrize("shape", SHAPES + BATCHED, ids=str)
def test_dtypes_and_shapes(cupy_cuda, name, shape):
    cp = cupy_cuda
    x = rand(cp, shape, name)
    y = xpose.transpose(x)
    assert isinstance(y, cp.ndarray) and y.flags.c_contiguous
    assert_bits_equal(cp, y, expected(cp, x))


VIEWS = {
    "row_step": lambda b: b[::2],
    "col_slice": lambda b: b[:, 3:41],
    "t_view": lambda b: b.T,
    "t_slice": lambda b: b.T[2:30, 1:35],
    "col_step": lambda b: b[:, ::3],
    "reversed_rows": lambda b: b[::-1],
    "batch_swapped": lambda b: b.reshape(4, 10, 50).swapaxes(1, 2),
    "batch_step": lambda b: b.reshape(4, 10, 50)[::2, 1:, 2:],
}


@pytest.mark.parametrize("name", ["int8", "float16", "float32", "complex128"])
@pytest.mark.parametrize("view", list(VIEWS))
def test_strided_views(cupy_cuda, view, name):
    cp = cupy_cuda
    x = VIEWS[view](rand(cp, (40, 50), name))
    assert_bits_equal(cp, xpose.transpose(x), expected(cp, x))


def test_out(cupy_cuda):
    cp = cupy_cuda
    x = rand(cp, (3, 70, 90), "complex64")
    out = cp.empty((3, 90, 70), cp.complex64)
    assert xpose.transpose(x, out) is out
    assert_bits_equal(cp, out, expected(cp, x))


@pytest.mark.parametrize("kind", ["current", "object", "int"])
def test_streams(cupy_cuda, kind):
    cp = cupy_cuda
    x = rand(cp, (1500, 2500), "float32", seed=4)
    cp.cuda.Device().synchronize()  # x is complete before a non-blocking stream reads it
    s = cp.cuda.Stream(non_blocking=True)
    if kind == "current":
        with s:
            # Produced on s, consumed on s without synchronisation. A copy, not x * 1:
            # arithmetic flushes denormals to zero and the bits would differ from x.
            x2 = x.copy()
            y = xpose.transpose(x2)
            z = y.copy()
    else:
        out = cp.empty((2500, 1500), cp.float32)
        cp.cuda.Device().synchronize()
        xpose.transpose(x, out, stream=s if kind == "object" else s.ptr)
        z = out
    s.synchronize()
    assert_bits_equal(cp, z, expected(cp, x))


def test_bad_inputs(cupy_cuda):
    cp = cupy_cuda
    x = cp.zeros((3, 4), cp.float32)
    with pytest.raises(ValueError, match="dtype"):
        xpose.transpose(x, cp.empty((4, 3), cp.float64))
    with pytest.raises(ValueError, match="out"):
        xpose.transpose(x, cp.empty((3, 4), cp.float32))
    sq = cp.zeros((8, 8), cp.float32)
    with pytest.raises(ValueError, match="overlap"):
        xpose.transpose(sq, sq)
    with pytest.raises(ValueError, match="2-D"):
        xpose.transpose(cp.zeros(5))
    with pytest.raises(TypeError, match="out"):
        xpose.transpose(x, np.empty((4, 3), np.float32))
