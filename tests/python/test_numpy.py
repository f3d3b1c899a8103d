"""xpose.transpose on NumPy arrays (the CPU backend): runs everywhere, CI included.
Every result is compared bit for bit with numpy.ascontiguousarray(x.T)."""

import subprocess
import sys

import numpy as np
import pytest

import xpose

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]
try:  # bfloat16 for NumPy comes from ml_dtypes when it is installed
    import ml_dtypes

    DTYPES.append(ml_dtypes.bfloat16)
except ImportError:
    pass

SHAPES = [(0, 0), (0, 7), (7, 0), (1, 1), (1, 100), (100, 1), (2, 3), (31, 33), (33, 31),
          (32, 32), (64, 65), (127, 129), (3, 1003), (1003, 3), (257, 300)]
BATCHED = [(0, 4, 5), (1, 1, 1), (3, 17, 33), (5, 1, 7), (4, 64, 3), (2, 100, 101)]


def random_array(shape, dtype, seed=0):
    """Random bit patterns (NaN payloads and all) of `dtype`; bools are 0/1."""
    dt = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    if dt == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    raw = rng.integers(0, 256, size=tuple(shape) + (dt.itemsize,), dtype=np.uint8)
    return raw.view(dt).reshape(shape)


def expected(x):
    return np.ascontiguousarray(np.swapaxes(x, -1, -2))


def assert_bits_equal(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.flags.c_contiguous
    assert np.array_equal(np.ascontiguousarray(got).view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES + BATCHED, ids=str)
def test_dtypes_and_shapes(dtype, shape):
    x = random_array(shape, dtype)
    before = x.copy()
    y = xpose.transpose(x)
    assert type(y) is np.ndarray
    assert_bits_equal(y, expected(x))
    assert np.array_equal(x.view(np.uint8), before.view(np.uint8))  # input untouched


def test_small_example():
    a = np.arange(6).reshape(2, 3)
    assert xpose.transpose(a).tolist() == [[0, 3], [1, 4], [2, 5]]


def test_large_threaded():
    x = random_array((1500, 2333), np.float32, seed=3)
    assert_bits_equal(xpose.transpose(x), expected(x))


def test_other_plain_data_dtypes():
    for x in (np.arange(12).astype("datetime64[s]").reshape(3, 4),
              np.array([[b"ab", b"cd"], [b"ef", b"gh"]], dtype="S2"),
              np.zeros((3, 5), dtype=[("a", np.int16), ("b", np.int16)])):
        assert_bits_equal(xpose.transpose(x), expected(x))


# --- strided inputs --------------------------------------------------------------

def _base(shape=(40, 50), dtype=np.float32, seed=1):
    return random_array(shape, dtype, seed)


VIEWS = {
    "row_step": lambda b: b[::2],
    "col_slice": lambda b: b[:, 3:41],
    "offset_block": lambda b: b[5:, 7:],
    "single_row": lambda b: b[4:5, :],
    "single_col": lambda b: b[:, 4:5],
    "transposed_view": lambda b: b.T,
    "transposed_slice": lambda b: b.T[2:30, 1:35],
    "col_step": lambda b: b[:, ::3],
    "reversed_rows": lambda b: b[::-1],
    "reversed_cols": lambda b: b[:, ::-1],
    "broadcast_rows": lambda b: np.broadcast_to(b[0], (9, b.shape[1])),
    "broadcast_cols": lambda b: np.broadcast_to(b[:, :1], (b.shape[0], 7)),
}


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32, np.complex128],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("view", list(VIEWS), ids=str)
def test_strided_views(view, dtype):
    x = VIEWS[view](_base(dtype=dtype))
    assert_bits_equal(xpose.transpose(x), expected(x))


BATCH_VIEWS = {
    "batch_step": lambda b: b[::2],
    "batch_slices": lambda b: b[1:, 2:9, 3:],
    "batch_broadcast": lambda b: np.broadcast_to(b[0], (4,) + b.shape[1:]),
    "swapped_last_two": lambda b: np.swapaxes(b, 1, 2),
    "swapped_slice": lambda b: np.swapaxes(b, 1, 2)[::2, 1:, :-1],
    "batch_last": lambda b: np.moveaxis(b, 0, 2),
    "reversed_batch": lambda b: b[::-1],
}


@pytest.mark.parametrize("view", list(BATCH_VIEWS), ids=str)
def test_strided_batches(view):
    x = BATCH_VIEWS[view](_base((6, 20, 30), np.float64))
    assert_bits_equal(xpose.transpose(x), expected(x))


def test_field_of_structured_array():
    rec = np.zeros((7, 9), dtype=[("a", np.float32), ("b", np.int16)])
    rec["a"] = random_array((7, 9), np.float32, seed=2)
    x = rec["a"]  # strides of 6-byte records: not whole float32 elements
    assert_bits_equal(xpose.transpose(x), expected(x))
    with pytest.raises(ValueError, match="whole elements"):
        xpose.transpose(x.T.copy(), np.zeros((7, 9), dtype=rec.dtype)["a"])


# --- out= ------------------------------------------------------------------------

def test_out_contiguous_is_returned():
    x = _base((20, 30))
    out = np.full((30, 20), np.nan, np.float32)
    y = xpose.transpose(x, out)
    assert y is out
    assert_bits_equal(out, expected(x))


def test_out_keyword_and_batched():
    x = _base((3, 20, 30))
    out = np.empty((3, 30, 20), np.float32)
    assert xpose.transpose(x, out=out) is out
    assert_bits_equal(out, expected(x))


def test_out_padded_rows():
    x = _base((20, 30))
    big = np.zeros((30, 25), np.float32)
    out = big[:, :20]
    xpose.transpose(x, out)
    assert np.array_equal(out.view(np.uint32), expected(x).view(np.uint32))
    assert np.all(big[:, 20:] == 0)  # the padding is untouched


def test_out_padded_rows_from_transposed_view():
    x = _base((30, 20)).T
    big = np.zeros((30, 25), np.float32)
    xpose.transpose(x, big[:, :20])
    assert np.array_equal(big[:, :20].view(np.uint32), expected(x).view(np.uint32))
    assert np.all(big[:, 20:] == 0)


# --- bad input -------------------------------------------------------------------

@pytest.mark.parametrize("obj", [[[1, 2], [3, 4]], 3.0, "ab", None, object()], ids=repr)
def test_not_an_array(obj):
    with pytest.raises(TypeError, match="xpose"):
        xpose.transpose(obj)


@pytest.mark.parametrize("dtype", [object, "S3", np.dtype([("a", np.int8), ("b", np.int16)])],
                         ids=str)
def test_unsupported_dtype(dtype):
    x = np.zeros((3, 4), dtype=dtype)
    with pytest.raises(TypeError, match="xpose"):
        xpose.transpose(x)


@pytest.mark.parametrize("shape", [(), (5,)], ids=str)
def test_bad_rank(shape):
    with pytest.raises(ValueError, match="2-D"):
        xpose.transpose(np.zeros(shape, np.float32))


@pytest.mark.parametrize("out_shape", [(3, 4), (3, 5), (4, 4), (1, 4, 3), (12,)], ids=str)
def test_out_bad_shape(out_shape):
    with pytest.raises(ValueError, match="out"):
        xpose.transpose(np.zeros((3, 4), np.float32), np.empty(out_shape, np.float32))


def test_out_bad_dtype():
    with pytest.raises(ValueError, match="dtype"):
        xpose.transpose(np.zeros((3, 4), np.float32), np.empty((4, 3), np.int32))


def test_out_read_only():
    out = np.empty((4, 3), np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        xpose.transpose(np.zeros((3, 4), np.float32), out)


def test_out_any_non_negative_strides():
    # The core takes any output strides whose elements stay apart (no
    # unit-stride rule of the binding's own): a transposed view, a step, padding.
    x = _base((3, 4))
    out = np.full((3, 4), np.nan, np.float32).T
    assert xpose.transpose(x, out) is out
    assert np.array_equal(out.view(np.uint32), expected(x).view(np.uint32))
    big = np.zeros((4, 7), np.float32)
    xpose.transpose(x, big[:, ::2][:, :3])
    assert np.array_equal(big[:, 0:6:2].view(np.uint32), expected(x).view(np.uint32))
    assert not big[:, 1::2].any() and not big[:, 6].any()  # the gaps are untouched


def test_out_batches_overlap():
    out = np.lib.stride_tricks.as_strided(np.empty(40, np.float32), (3, 4, 3), (0, 12, 4))
    with pytest.raises(ValueError, match="overlapping_output"):
        xpose.transpose(np.zeros((3, 3, 4), np.float32), out)


def test_out_wrong_framework():
    with pytest.raises(TypeError, match="out"):
        xpose.transpose(np.zeros((3, 4), np.float32), [[0.0] * 3] * 4)


def test_overlap_same_array():
    x = np.zeros((8, 8), np.float32)
    with pytest.raises(ValueError, match="overlap"):
        xpose.transpose(x, x)


def test_overlap_shared_buffer():
    buf = np.zeros(200, np.float32)
    x, out = buf[:60].reshape(6, 10), buf[50:110].reshape(10, 6)
    with pytest.raises(ValueError, match="overlap"):
        xpose.transpose(x, out)
    with pytest.raises(ValueError, match="overlap"):
        xpose.transpose(x.T, buf[40:100].reshape(6, 10))  # the copy path checks too
    assert not buf.any()  # nothing was written


def test_misaligned_pointer():
    raw = np.zeros(4 * 12 + 1, np.uint8)
    x = raw[1:].view(np.float32).reshape(3, 4)
    with pytest.raises(ValueError, match="misaligned"):
        xpose.transpose(x)


def test_bad_stream_type_is_ignored_for_cpu():
    # CPU arrays ignore the stream (documented); a GPU stream handle is harmless here.
    x = _base((5, 6))
    assert_bits_equal(xpose.transpose(x, stream=0), expected(x))


# --- module surface --------------------------------------------------------------

def test_help_is_useful():
    doc = xpose.transpose.__doc__
    for word in ("stream", "out", "TypeError", "ValueError", "bfloat16", "contiguous"):
        assert word in doc
    assert xpose.transpose.__annotations__


def test_discovery():
    assert isinstance(xpose.device_count(), int) and xpose.device_count() >= 0
    assert isinstance(xpose.built_with_cuda(), bool)
    if not xpose.built_with_cuda():
        assert xpose.device_count() == 0


def test_bench_runs_on_cpu(tmp_path):
    js = tmp_path / "bench.json"
    r = subprocess.run([sys.executable, "-m", "xpose.bench", "--cpu", "--size", "300x200",
                        "--dtypes", "float32,int8,bool", "--reps", "3", "--warmup", "1",
                        "--json", str(js)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr + r.stdout
    assert "GB/s" in r.stdout
    import json

    rows = json.loads(js.read_text())["rows"]
    assert {row["dtype"] for row in rows} == {"float32", "int8", "bool"}
    assert all(row["correct"] for row in rows)
