"""API parity with NumPy / PyTorch: axes validated like np.transpose (every wrong
type drawn), transpose over any batch rank, conjugate= in transpose, threads= and
DLPack objects in permute, masked arrays in transpose_."""

import decimal
import fractions
import itertools

import numpy as np
import pytest

import xpose

X3 = np.arange(24, dtype=np.int32).reshape(2, 3, 4)


def _wrong_types():
    """Axes of every kind that is not a sequence of integers, for a 3-D array."""
    scalars = [1.0, 1.9, np.float64(1), np.float32(0), True, np.bool_(False), "1", b"1", None, 1j,
               fractions.Fraction(1), decimal.Decimal(1), object(), [1], (0,)]
    bad = []
    for s in scalars:  # one bad element among good ones, in each position
        for k in range(3):
            ax = [0, 1, 2]
            ax[k] = s
            bad.append(tuple(ax))
    bad += [(1.9, 0.2, 2.5), "102", "0,1,2", b"\x00\x01\x02", {0: 1, 1: 0, 2: 2}, {0, 1, 2}, frozenset({0, 1, 2}),
            np.array([2.0, 0.0, 1.0]), np.array([True, False, True]), np.array(["0", "1", "2"]),
            np.array([[0, 1, 2]]), 1.5, 2.0, True, iter([0, 1, 2]), (i for i in range(3)), object()]
    return bad


@pytest.mark.parametrize("axes", _wrong_types(), ids=lambda a: type(a).__name__)
def test_axes_of_wrong_type_raise_typeerror(axes):
    with pytest.raises(TypeError):
        xpose.permute(X3, axes)


@pytest.mark.parametrize("axes", [(), (0,), (0, 1), (0, 1, 2, 3), (0, 0, 1), (0, 1, 3), (0, 1, -4), (2**70, 0, 1),
                                  1])
def test_axes_of_wrong_value_raise_valueerror(axes):
    with pytest.raises(ValueError, match="bad_axes"):
        xpose.permute(X3, axes)
    with pytest.raises((ValueError, IndexError)):
        np.transpose(X3, axes)


@pytest.mark.parametrize("axes", [(2, 0, 1), [2, 0, 1], (-1, 0, -2), range(3), np.array([1, 2, 0]),
                                  (np.int64(2), np.uint8(1), np.int32(0)), np.array([1, 0, 2], np.uint16), None])
def test_integer_axes_accepted_like_numpy(axes):
    got = xpose.permute(X3, axes)
    assert np.array_equal(got, np.transpose(X3, axes)) and got.flags.c_contiguous


def test_int_axis_for_1d_and_0d():
    v = np.arange(5)
    assert np.array_equal(xpose.permute(v, 0), v)
    assert np.array_equal(xpose.permute(v, np.int64(-1)), v)
    assert np.array_equal(xpose.permute(np.full((), 3.0), ()), np.full((), 3.0))


def test_all_permutations_and_negatives():
    for p in itertools.permutations(range(3)):
        for signs in itertools.product((0, -3), repeat=3):
            ax = tuple(a + s for a, s in zip(p, signs))
            assert np.array_equal(xpose.permute(X3, ax), np.transpose(X3, ax))


def test_transpose_any_batch_rank():
    x = np.arange(2 * 3 * 4 * 5 * 6).reshape(2, 3, 4, 5, 6)
    for nd in (2, 3, 4, 5):
        a = x.reshape(-1)[: int(np.prod(x.shape[-nd:]))].reshape(x.shape[-nd:])
        assert np.array_equal(xpose.transpose(a), np.swapaxes(a, -1, -2))
    with pytest.raises(ValueError, match="at least 2-D"):
        xpose.transpose(np.zeros(3))


def test_transpose_conjugate():
    z = (np.arange(24) + 1j * np.arange(24)[::-1]).reshape(2, 3, 4)
    assert np.array_equal(xpose.transpose(z, conjugate=True), np.conj(np.swapaxes(z, -1, -2)))
    assert np.array_equal(xpose.transpose(z, conjugate=False), np.swapaxes(z, -1, -2))
    with pytest.raises(ValueError, match="complex"):
        xpose.transpose(np.zeros((2, 3)), conjugate=True)
    with pytest.raises(TypeError, match="conjugate"):
        xpose.transpose(z, conjugate="yes")


def test_permute_threads_and_dlpack():
    x = np.arange(24.0).reshape(2, 3, 4)
    for th in (None, 1, 2):
        assert np.array_equal(xpose.permute(x, (2, 0, 1), threads=th), np.transpose(x, (2, 0, 1)))
    with pytest.raises(ValueError, match="threads"):
        xpose.permute(x, threads=-1)
    with pytest.raises(TypeError, match="threads"):
        xpose.permute(x, threads=1.0)

    class Plain:  # only the DLPack protocol
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, *args, **kwargs):
            return self.a.__dlpack__(*args, **kwargs)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    got = xpose.permute(Plain(x), (1, 2, 0))
    assert np.array_equal(got, np.transpose(x, (1, 2, 0)))
    assert np.array_equal(xpose.transpose(Plain(x)), np.swapaxes(x, -1, -2))


@pytest.mark.parametrize("shape", [(3, 5), (4, 4), (2, 3, 5)])
def test_masked_transpose_inplace_transposes_the_mask(shape):
    data = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    mask = (data % 3 == 0)
    x = np.ma.MaskedArray(data.copy(), mask=mask.copy(), fill_value=-7.0)
    want = np.ma.MaskedArray(np.swapaxes(data, -1, -2), mask=np.swapaxes(mask, -1, -2))
    y = xpose.transpose_(x)
    assert isinstance(y, np.ma.MaskedArray) and y.fill_value == -7.0
    assert np.array_equal(np.ma.getdata(y), np.ma.getdata(want))
    assert np.array_equal(np.ma.getmaskarray(y), np.ma.getmaskarray(want))
    # No mask at all: only the data.
    z = np.ma.MaskedArray(data.copy())
    assert np.array_equal(np.ma.getdata(xpose.transpose_(z)), np.swapaxes(data, -1, -2))


def test_masked_permute_keeps_mask():
    data = np.arange(24.0).reshape(2, 3, 4)
    x = np.ma.MaskedArray(data, mask=data > 10)
    got = xpose.permute(x, (2, 0, 1))
    want = np.transpose(x, (2, 0, 1))
    assert np.array_equal(got.data, want.data) and np.array_equal(got.mask, want.mask)


def test_torch_axes_and_batch_rank():
    torch = pytest.importorskip("torch")
    t = torch.arange(120.0).reshape(2, 3, 4, 5)
    assert torch.equal(xpose.transpose(t), t.mT)
    assert torch.equal(xpose.permute(t, torch.Size([3, 1, 0, 2])), t.permute(3, 1, 0, 2))
    z = torch.randn(2, 3, 4, dtype=torch.complex64)
    assert torch.equal(xpose.transpose(z, conjugate=True), z.mH.resolve_conj())
    assert torch.equal(xpose.permute(z, (2, 0, 1), threads=1), z.permute(2, 0, 1))
    for bad in [(1.0, 0, 2, 3), (True, 0, 2, 3), "0123", {0, 1, 2, 3}]:
        with pytest.raises(TypeError):
            xpose.permute(t, bad)
    with pytest.raises(ValueError, match="bad_axes"):
        xpose.permute(t, ())
