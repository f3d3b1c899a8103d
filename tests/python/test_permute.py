"""xpose.permute: np.transpose semantics on NumPy (CPU backend, runs everywhere) and
on the GPU frameworks (skipped without a device). Results are compared bit for bit
with numpy.ascontiguousarray(np.transpose(x, axes))."""

import numpy as np
import pytest

import xpose
from test_numpy import random_array  # random bit patterns of a dtype

DTYPES = [np.bool_, np.int8, np.uint16, np.float16, np.float32, np.int64, np.float64, np.complex64,
          np.complex128]


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint8) if a.dtype != np.bool_ else a.astype(np.uint8)


CASES = [((2, 3, 4), (2, 0, 1)), ((2, 3, 4), None), ((5, 1, 7, 3), (3, 1, 0, 2)), ((4, 5), (0, 1)),
         ((3, 4, 5, 6), (0, 1, 3, 2)), ((3, 4, 5, 6), (1, 0, 2, 3)), ((7,), (0,)), ((), ()),
         ((2, 3, 4), (-1, 0, -2)), ((1, 2, 1, 3, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2), tuple(range(15, -1, -1)))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axes", CASES)
def test_numpy_matches_np_transpose(shape, axes, dtype):
    x = random_array(shape, dtype, seed=len(shape))
    got = xpose.permute(x, axes)
    want = np.transpose(x, axes)
    assert got.shape == want.shape and got.dtype == x.dtype
    assert np.array_equal(bits(got), bits(want))


def test_numpy_strided_input_and_output():
    base = random_array((6, 8, 10, 4), np.float32, seed=3)
    x = base[::2, 1:7, ::3]  # padded, stepped input
    out_base = np.full((10, 8, 6, 7), np.nan, dtype=np.float32)
    out = out_base[:4, 1:7, :3, 2:6]  # (4, 6, 3, 4): padded output
    res = xpose.permute(x, (3, 1, 0, 2), out=out)
    assert res is out
    assert np.array_equal(bits(out), bits(np.transpose(x, (3, 1, 0, 2))))
    untouched = out_base.copy()
    untouched[:4, 1:7, :3, 2:6] = 0
    assert np.isnan(untouched[4:]).all() and np.isnan(untouched[:, 0]).all()


def test_numpy_reversed_view_is_copied_first():
    x = random_array((5, 6, 7), np.int32, seed=4)[::-1, :, ::-1]
    assert np.array_equal(xpose.permute(x, (1, 2, 0)), np.transpose(x, (1, 2, 0)))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_conjugate(dtype):
    x = (random_array((4, 5, 6), np.float32 if dtype == np.complex64 else np.float64, 5) +
         1j * random_array((4, 5, 6), np.float32 if dtype == np.complex64 else np.float64, 6)).astype(dtype)
    got = xpose.permute(x, (2, 0, 1), conjugate=True)
    assert np.array_equal(bits(got), bits(np.conj(np.transpose(x, (2, 0, 1)))))


@pytest.mark.parametrize("axes", [(0, 0, 1), (0, 1), (0, 1, 2, 3), (0, 1, 3), (0, -4, 1)])
def test_bad_axes_raise_and_leave_out_untouched(axes):
    x = random_array((2, 3, 4), np.float32)
    out = np.full((4, 3, 2), 7.0, dtype=np.float32)
    with pytest.raises(ValueError, match="bad_axes"):
        xpose.permute(x, axes, out=out)
    assert (out == 7.0).all()


def test_bad_out_and_objects():
    x = random_array((2, 3, 4), np.float32)
    with pytest.raises(ValueError, match="shape_mismatch"):
        xpose.permute(x, (2, 1, 0), out=np.empty((4, 2, 3), np.float32))
    with pytest.raises(ValueError, match="overlap"):
        xpose.permute(x, (0, 1, 2), out=x)
    with pytest.raises(ValueError, match="conjugate"):
        xpose.permute(x, None, conjugate=True)
    with pytest.raises(TypeError):
        xpose.permute([[1, 2]], (1, 0))


def test_torch_gpu(torch_cuda):
    torch = torch_cuda
    for dtype in (torch.float32, torch.float16, torch.float64, torch.complex64, torch.int8):
        x = torch.arange(2 * 3 * 5 * 7, dtype=torch.float64).reshape(2, 3, 5, 7).to(dtype).cuda()
        for axes in ((3, 1, 0, 2), (0, 1, 3, 2), (1, 0, 2, 3)):
            got = xpose.permute(x, axes)
            assert torch.equal(got, x.permute(*axes).contiguous())
    xs = torch.randn(6, 8, 10, device="cuda")[::2, 1:7]
    assert torch.equal(xpose.permute(xs, (2, 0, 1)), xs.permute(2, 0, 1).contiguous())
    c = torch.randn(3, 4, dtype=torch.complex64, device="cuda")
    assert torch.equal(xpose.permute(c, (1, 0), conjugate=True), c.t().conj().resolve_conj().contiguous())


def test_cupy_gpu(cupy_cuda):
    cupy = cupy_cuda
    x = cupy.arange(3 * 4 * 5 * 6, dtype=cupy.float32).reshape(3, 4, 5, 6)
    for axes in ((3, 2, 1, 0), (0, 2, 1, 3), (2, 0, 3, 1)):
        assert bool((xpose.permute(x, axes) == cupy.ascontiguousarray(cupy.transpose(x, axes))).all())


def test_jax_gpu(jax_gpu):
    jax = jax_gpu
    import jax.numpy as jnp

    x = jax.device_put(jnp.arange(2 * 3 * 4 * 5, dtype=jnp.float32).reshape(2, 3, 4, 5), jax.devices("gpu")[0])
    for axes in ((3, 1, 0, 2), (0, 1, 3, 2)):
        got = xpose.permute(x, axes)
        assert bool((got == jnp.transpose(x, axes)).all())
    assert jax is not None
