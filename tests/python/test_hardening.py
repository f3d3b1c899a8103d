"""Hardening pins for the Python package: each test failed before its fix."""

import shutil
from pathlib import Path
import subprocess
import tracemalloc

import numpy as np
import pytest

import xpose
import xpose.bench


def _bits_equal(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()


@pytest.mark.parametrize("axis", [-2, -1])
def test_broadcast_input_is_not_materialised(axis):
    # Before: np.ascontiguousarray(x) first, so the peak was twice the output.
    n = 1 << 21
    if axis == -2:
        x = np.broadcast_to(np.arange(n, dtype=np.float32), (4, n))
    else:
        x = np.broadcast_to(np.arange(n, dtype=np.float32)[:, None], (n, 4))
    out_bytes = x.size * x.itemsize
    tracemalloc.start()
    try:
        got = xpose.transpose(x)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    _bits_equal(got, np.ascontiguousarray(x.T))
    assert peak < 1.3 * out_bytes, f"peak {peak} bytes for a {out_bytes}-byte output"


def test_broadcast_batches_rows_and_scalars():
    base = np.random.default_rng(1).integers(0, 1 << 16, size=(3, 1, 7), dtype=np.uint16)
    for x in (np.broadcast_to(base, (3, 5, 7)), np.broadcast_to(base[:1], (4, 5, 7)),
              np.broadcast_to(np.float64(2.5), (6, 9)), np.broadcast_to(base[0, 0, :1], (5, 1))):
        _bits_equal(xpose.transpose(x), np.ascontiguousarray(np.swapaxes(x, -1, -2)))
    out = np.empty((7, 5), np.uint16)
    assert xpose.transpose(np.broadcast_to(base[0], (5, 7)), out) is out
    _bits_equal(out, np.ascontiguousarray(np.broadcast_to(base[0], (5, 7)).T))


def test_masked_array_keeps_its_mask():
    x = np.ma.masked_array(np.arange(6, dtype=np.int32).reshape(2, 3), mask=[[0, 1, 0], [1, 0, 0]], fill_value=-7)
    got = xpose.transpose(x)
    assert isinstance(got, np.ma.MaskedArray)
    assert got.mask.tolist() == x.mask.T.tolist()
    assert got.filled(-1).tolist() == x.T.filled(-1).tolist()
    assert got.fill_value == -7
    with pytest.raises(TypeError):
        xpose.transpose(x, np.empty((3, 2), np.int32))


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_ndarray_subclasses_keep_their_type():
    m = np.matrix([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    got = xpose.transpose(m)
    assert type(got) is np.matrix
    assert (got == m.T).all()

    class Tagged(np.ndarray):
        pass

    t = np.arange(12, dtype=np.int16).reshape(3, 4).view(Tagged)
    got = xpose.transpose(t)
    assert type(got) is Tagged
    _bits_equal(got.view(np.ndarray), np.ascontiguousarray(t.view(np.ndarray).T))


def _at_offset_8(shape, dtype):
    """An array whose data pointer is 8 bytes past a 16-byte boundary (NumPy calls it aligned)."""
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.zeros(n + 32, np.uint8)
    start = (8 - raw.ctypes.data % 16) % 16
    a = raw[start:start + n].view(dtype).reshape(shape)
    assert a.ctypes.data % 16 == 8 and a.flags.aligned
    return a


def test_complex128_aligned_to_8_bytes():
    x = _at_offset_8((33, 65), np.complex128)
    rng = np.random.default_rng(2)
    x[...] = rng.standard_normal((33, 65)) + 1j * rng.standard_normal((33, 65))
    _bits_equal(xpose.transpose(x), np.ascontiguousarray(x.T))
    out = _at_offset_8((65, 33), np.complex128)
    xpose.transpose(x, out)
    _bits_equal(out, np.ascontiguousarray(x.T))
    _bits_equal(xpose.transpose(x.T), np.ascontiguousarray(x))  # the pitched-copy path


class _DLPackOnly:
    """Not an array of any known framework: only the DLPack protocol."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, *args, **kwargs):
        return self._a.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_generic_dlpack_object():
    a = np.arange(35, dtype=np.float32).reshape(5, 7)
    _bits_equal(xpose.transpose(_DLPackOnly(a)), np.ascontiguousarray(a.T))


def test_threads_keyword():
    a = np.arange(300 * 200, dtype=np.int32).reshape(300, 200)
    for t in (None, 0, 1, 2, 3):
        _bits_equal(xpose.transpose(a, threads=t), np.ascontiguousarray(a.T))
    for bad in (-1, 10**6, 2**31):
        with pytest.raises(ValueError):
            xpose.transpose(a, threads=bad)
    for bad in ("2", 2.0, True):
        with pytest.raises(TypeError):
            xpose.transpose(a, threads=bad)


@pytest.mark.parametrize("stream", ["0", 1.5, object(), True])
def test_wrong_stream_type_is_a_type_error_for_cpu_arrays(stream):
    with pytest.raises(TypeError):
        xpose.transpose(np.zeros((2, 3), np.float32), stream=stream)


def test_extension_does_not_need_libcudart():
    readelf = shutil.which("readelf")
    if readelf is None:
        pytest.skip("readelf (binutils) is not installed")
    if (Path(xpose._api._xpose.__file__).resolve().parents[2] / "CMakeCache.txt").exists():
        pytest.skip("the test build's module links the toolkit's shared CUDA runtime (make test); "
                    "pip-built wheels link it statically (XPOSE_CUDART_STATIC)")
    needed = subprocess.run([readelf, "-d", xpose._api._xpose.__file__], capture_output=True, text=True,
                            check=True).stdout
    assert "libcudart" not in needed, "the extension must link the CUDA runtime statically"


def test_bench_rejects_bad_counts_cleanly(capsys):
    for argv in (["--cpu", "--reps", "0"], ["--cpu", "--warmup", "-1"], ["--cpu", "--size", "0x5"],
                 ["--cpu", "--dtypes", "float7"], ["--cpu", "--dtypes", ","]):
        with pytest.raises(SystemExit) as e:
            xpose.bench.main(argv)
        assert e.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err and "Traceback" not in "\n".join(err), argv


@pytest.mark.parametrize("name", ["f32", "float32", "c128", "bf16"])
def test_bench_accepts_both_dtype_spellings(name, capsys):
    try:
        rc = xpose.bench.main(["--cpu", "--size", "16x24", "--reps", "1", "--warmup", "0", "--dtypes", name])
    except SystemExit as e:  # bfloat16 needs ml_dtypes on NumPy
        pytest.fail(f"exit {e.code}: {capsys.readouterr().err}")
    assert rc == 0


def test_public_signature_is_typed():
    import typing

    hints = typing.get_type_hints(xpose.transpose)
    assert hints["threads"] == typing.Optional[int]
    bound = hints["x"].__bound__
    assert bound is not None and hasattr(bound, "__dlpack__")
