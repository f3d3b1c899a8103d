"""The one-call hot path of xpose.permute / xpose.transpose (host overhead):
plain arrays go to the extension in one call (axes normalised there, plans cached per
thread), and must behave exactly as the general path: same results, same errors."""

import numpy as np
import pytest

import xpose
from xpose import _api, _xpose


def _layouts():
    """Arrays of one rank and element size whose plans differ only in what a cache key
    could miss: extents, strides, axes."""
    base = np.arange(6 * 8 * 10, dtype=np.float32).reshape(6, 8, 10)
    views = [base, base[:, ::2], base[::3], base.transpose(1, 0, 2), base[:, :, 1:9], base[:2, :3, :4],
             np.broadcast_to(base[:1], (6, 8, 10)), np.asfortranarray(base)]
    axes = [(2, 0, 1), (1, 2, 0), (0, 2, 1), None, (-1, -3, -2)]
    return [(v, a) for v in views for a in axes]


def test_plan_cache_cycles_bit_exact():
    cases = _layouts()  # more than the cache holds: entries are evicted and refilled
    for _ in range(3):
        for x, axes in cases:
            assert np.array_equal(xpose.permute(x, axes), np.ascontiguousarray(np.transpose(x, axes)))


def test_plan_cache_keeps_conjugate_apart():
    z = (np.arange(12) + 1j * np.arange(12)).astype(np.complex64).reshape(3, 4)
    for _ in range(3):
        assert np.array_equal(xpose.permute(z, (1, 0)), z.T)
        assert np.array_equal(xpose.permute(z, (1, 0), conjugate=True), z.T.conj())


AXES_FORMS = [[1, 0, 2], (np.int64(1), 0, 2), np.array([1, 0, 2]), range(3), (-2, -3, -1), (1, 0, 2)]
BAD_AXES = [(0, 0, 1), (0, 1), (0, 1, 2, 3), (0, 3, 1), (True, 0, 1), (0.0, 1, 2), "012", {0: 1}, 1.5,
            (1 << 70, 0, 1), np.array([0.0, 1.0, 2.0])]


@pytest.mark.parametrize("axes", AXES_FORMS)
def test_axes_forms(axes):
    x = np.arange(24, dtype=np.int16).reshape(2, 3, 4)
    assert np.array_equal(xpose.permute(x, axes), np.ascontiguousarray(np.transpose(x, _api._permute_axes(3, axes))))


def _error(fn):
    try:
        fn()
    except (TypeError, ValueError) as e:
        return type(e), str(e)
    return None


@pytest.mark.parametrize("axes", BAD_AXES, ids=repr)
def test_bad_axes_raise_what_the_validator_raises(axes):
    want = _error(lambda: _api._permute_axes(3, axes))
    assert want is not None
    x = np.zeros((2, 3, 4), np.float32)
    assert _error(lambda: xpose.permute(x, axes)) == want
    assert _error(lambda: xpose.permute(x[:, ::2], axes)) == want  # strided input
    assert _error(lambda: _xpose.permute_new(x.ctypes.data, x.shape, None, 4, axes, np.empty)) == want


class _Sub(np.ndarray):
    pass


def test_general_path_takes_what_the_hot_path_leaves():
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    assert _xpose.permute_buffer(np.ndarray, np.empty, x[:, ::-1], None) is None  # negative strides: copied first
    sub = x.view(_Sub)
    assert _xpose.permute_buffer(np.ndarray, np.empty, sub, None) is None  # a subclass keeps its type
    assert _xpose.permute_buffer(np.ndarray, np.empty, x.astype(object), None) is None  # object dtype: TypeError
    assert np.array_equal(xpose.permute(x[:, ::-1]), x[:, ::-1].T)
    assert type(xpose.permute(sub)) is _Sub
    with pytest.raises(TypeError, match="holds Python objects"):
        xpose.permute(x.astype(object))


def test_torch_plain_tensor_skips_the_dispatcher(monkeypatch):
    torch = pytest.importorskip("torch")
    from xpose import _torch

    def refuse(*args, **kwargs):
        raise AssertionError("the op was called for a plain eager tensor")

    x = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
    xpose.permute(x)  # registers the ops
    for name in ("permute", "transpose", "permute_out"):
        monkeypatch.setattr(_torch, name, refuse)
    assert torch.equal(xpose.permute(x, (2, 0, 1)), x.permute(2, 0, 1).contiguous())
    assert torch.equal(xpose.permute(x[:, ::2], [-1, 0, 1]), x[:, ::2].permute(2, 0, 1).contiguous())
    assert torch.equal(xpose.transpose(x), x.mT.contiguous())
    out = torch.empty(2, 4, 3)
    v = out._version
    assert xpose.transpose(x, out) is out and torch.equal(out, x.mT) and out._version > v
    # Eager autograd records xpose's kernel both ways without the op, whatever the axes' form.
    g = torch.arange(24, dtype=torch.float32).reshape(4, 2, 3)
    for axes in ((2, 0, 1), [-1, 0, -2]):
        xg = x.clone().requires_grad_()
        y = xpose.permute(xg, axes)
        assert y.grad_fn is not None and y.is_contiguous() and torch.equal(y, x.permute(2, 0, 1).contiguous())
        y.backward(g)
        assert torch.equal(xg.grad, g.permute(1, 2, 0))
    xg = x.clone().requires_grad_()
    y = xpose.transpose(xg)
    y.backward(torch.ones_like(y))
    assert torch.equal(y, x.mT.contiguous()) and torch.equal(xg.grad, torch.ones_like(x))
    with torch.no_grad():
        assert xpose.permute(xg, (2, 0, 1)).grad_fn is None


def test_torch_hot_path_allocates_every_rank():
    """The hot path allocates with x.new_empty(*shape): ranks 0 and 1, zero extents, rank 16, dtype and device kept."""
    torch = pytest.importorskip("torch")
    s = torch.tensor(3.5, dtype=torch.float64)
    got = xpose.permute(s, ())
    assert got.shape == () and got.dtype == torch.float64 and got.item() == 3.5
    v = torch.arange(5, dtype=torch.int16)
    assert torch.equal(xpose.permute(v, (0,)), v) and xpose.permute(v, (0,)).data_ptr() != v.data_ptr()
    z = torch.zeros(3, 0, 2)
    assert xpose.permute(z, (2, 0, 1)).shape == (2, 3, 0)
    h = torch.arange(2 ** 16, dtype=torch.uint8).reshape((2,) * 16)
    axes = tuple(range(15, -1, -1))
    assert torch.equal(xpose.permute(h, axes), h.permute(axes).contiguous())
    b = torch.arange(12, dtype=torch.bfloat16).reshape(3, 4)
    assert xpose.transpose(b).dtype == torch.bfloat16 and torch.equal(xpose.transpose(b), b.T.contiguous())


@pytest.mark.parametrize("axes", BAD_AXES, ids=repr)
def test_torch_bad_axes_raise_what_the_validator_raises(axes):
    torch = pytest.importorskip("torch")
    want = _error(lambda: _api._permute_axes(3, axes))
    assert _error(lambda: xpose.permute(torch.zeros(2, 3, 4), axes)) == want
