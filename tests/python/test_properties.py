"""Property-based tests of the Python bridge (Hypothesis): random shapes,
strides (negative, zero, padded, transposed views), dtypes and output layouts,
compared bitwise with NumPy; random bad arguments must raise TypeError or ValueError."""

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is not installed (scripts/install-deps.sh)")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import xpose  # noqa: E402

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.float16, np.int32, np.float32, np.uint64, np.float64,
          np.complex64, np.complex128, np.dtype("datetime64[ns]"), np.dtype("V2")]
SETTINGS = dict(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                derandomize=True)


def _bits(a):
    """The array's bytes in C order, whatever its dtype (NaN payloads included)."""
    a = np.ascontiguousarray(a)
    return a.view(np.uint8).tobytes() if a.size else b""


@st.composite
def strided_arrays(draw):
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    ndim = draw(st.sampled_from([2, 3]))
    shape = tuple(draw(st.integers(0, 3 if ndim == 3 and i == 0 else 40)) for i in range(ndim))
    # A larger parent, then a view: steps (negative too) and offsets along every axis.
    steps = [draw(st.sampled_from([1, 1, 1, 2, 3, -1, -2])) for _ in range(ndim)]
    parent_shape = tuple(max(1, n * abs(s)) + draw(st.integers(0, 3)) for n, s in zip(shape, steps))
    nbytes = int(np.prod(parent_shape)) * dtype.itemsize
    raw = np.frombuffer(draw(st.binary(min_size=nbytes, max_size=nbytes)) if nbytes <= 4096
                        else np.random.default_rng(draw(st.integers(0, 2**32))).bytes(nbytes), np.uint8)
    parent = raw.copy().view(dtype).reshape(parent_shape)
    idx = []
    for n, s, p in zip(shape, steps, parent_shape):
        if s > 0:
            idx.append(slice(0, n * s, s))
        else:
            idx.append(slice(p - 1, (p - 1 - n * -s) if p - 1 - n * -s >= 0 else None, s))
    x = parent[tuple(idx)]
    x = x[tuple(slice(0, n) for n in shape)]
    kind = draw(st.sampled_from(["view", "view", "transposed", "broadcast_rows", "broadcast_cols", "broadcast_batch"]))
    if kind == "transposed":
        x = np.swapaxes(x, -1, -2)
    elif kind == "broadcast_rows" and x.shape[-2] > 0:
        x = np.broadcast_to(x[..., :1, :], x.shape)
    elif kind == "broadcast_cols" and x.shape[-1] > 0:
        x = np.broadcast_to(x[..., :, :1], x.shape)
    elif kind == "broadcast_batch" and x.ndim == 3 and x.shape[0] > 0:
        x = np.broadcast_to(x[:1], x.shape)
    return x


@settings(**SETTINGS)
@given(strided_arrays(), st.sampled_from([None, 1, 2]))
def test_matches_numpy_bitwise(x, threads):
    want = np.swapaxes(x, -1, -2)
    got = xpose.transpose(x, threads=threads)
    assert got.shape == want.shape and got.dtype == x.dtype
    assert _bits(got) == _bits(want)


@settings(**SETTINGS)
@given(strided_arrays(), st.integers(0, 5), st.booleans())
def test_padded_out_matches_numpy_and_keeps_padding(x, pad, batch_gap):
    r, c = x.shape[-2], x.shape[-1]
    lead = x.shape[:-2]
    store_shape = lead + (c + (1 if batch_gap and lead else 0), r + pad)
    store = np.zeros(store_shape, x.dtype)
    store.view(np.uint8)[...] = 0x5A
    before = store.copy()
    out = store[..., :c, :r]
    assert xpose.transpose(x, out) is out
    assert _bits(out) == _bits(np.swapaxes(x, -1, -2))
    mask = np.ones(store.shape, bool)
    mask[..., :c, :r] = False
    assert _bits(store[mask]) == _bits(before[mask]), "padding was written"


BAD_INPUTS = st.one_of(
    st.none(), st.integers(), st.floats(), st.text(max_size=5), st.lists(st.integers(), max_size=4),
    st.builds(lambda n: np.zeros(n, np.float32), st.integers(0, 5)),            # 1-D
    st.builds(lambda n: np.zeros((), np.float32), st.integers(0, 3)),            # 0-D
    st.builds(lambda n: np.empty((2, n), object), st.integers(1, 3)),            # object dtype
    st.builds(lambda n: np.zeros((2, n), "V3"), st.integers(1, 3)),              # 3-byte elements
)


@settings(**SETTINGS)
@given(BAD_INPUTS)
def test_bad_inputs_raise_type_or_value_error(x):
    with pytest.raises((TypeError, ValueError)):
        xpose.transpose(x)


@settings(**SETTINGS)
@given(st.integers(0, 6), st.integers(0, 6), st.data())
def test_bad_outputs_raise_and_leave_out_alone(r, c, data):
    x = np.arange(r * c, dtype=np.int32).reshape(r, c)
    bad = data.draw(st.sampled_from(["shape", "dtype", "readonly", "overlap", "type", "aliased"]))
    if bad == "shape":
        out = np.full((c + 1, r), 7, np.int32)
    elif bad == "dtype":
        out = np.full((c, r), 7, np.int64)
    elif bad == "readonly":
        out = np.full((c, r), 7, np.int32)
        out.flags.writeable = False
    elif bad == "overlap":
        if r * c == 0 or r != c:
            return
        out = x  # in place
    elif bad == "type":
        out = [[7] * r] * c
    else:  # two output elements at one address: overlapping_output
        if r < 2 or c == 0:  # an empty output is a valid no-op whatever its strides
            return
        out = np.lib.stride_tricks.as_strided(np.full(c, 7, np.int32), (c, r), (4, 0))
    before = np.array(out, copy=True) if isinstance(out, np.ndarray) else None
    with pytest.raises((TypeError, ValueError)):
        xpose.transpose(x, out)
    if before is not None:
        assert _bits(out) == _bits(before)


@settings(**SETTINGS)
@given(st.one_of(st.integers(-2**40, 2**40), st.text(max_size=3), st.floats(), st.booleans()))
def test_threads_argument(threads):
    x = np.arange(12, dtype=np.uint8).reshape(3, 4)
    valid = isinstance(threads, int) and not isinstance(threads, bool) and 0 <= threads <= 256
    if valid:
        assert _bits(xpose.transpose(x, threads=threads)) == _bits(x.T)
    elif isinstance(threads, int) and not isinstance(threads, bool) and threads > 256:
        try:  # above 4 x cores (at least 256) is rejected; below it runs
            assert _bits(xpose.transpose(x, threads=threads)) == _bits(x.T)
        except ValueError:
            pass
    else:
        with pytest.raises((TypeError, ValueError)):
            xpose.transpose(x, threads=threads)


@pytest.mark.filterwarnings("ignore:The given NumPy array is not writable")
def test_torch_cpu_matches_numpy():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")

    @settings(**SETTINGS)
    @given(strided_arrays())
    def check(x):
        if x.dtype.kind in "MVb" or x.dtype == np.uint64:
            # no torch equivalent; bool: random bytes other than 0 and 1 are not valid
            # torch bools (its own copies normalise them), so bits cannot be compared
            return
        try:
            t = torch.from_numpy(x)  # read-only broadcasts too (torch warns, nothing writes to it)
        except ValueError:  # negative strides: torch refuses them
            return
        got = xpose.transpose(t)
        assert isinstance(got, torch.Tensor)
        assert _bits(got.numpy()) == _bits(np.swapaxes(x, -1, -2))

    check()
