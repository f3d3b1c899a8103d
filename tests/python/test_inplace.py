"""xpose.transpose_ (in place) on NumPy, PyTorch (CPU; CUDA when a GPU
is present) and CuPy arrays: the returned view shares x's memory and holds the
transpose bit for bit; JAX arrays and bad layouts are refused."""

import numpy as np
import pytest

import xpose

SHAPES = [(1, 1), (1, 9), (9, 1), (7, 7), (2, 3), (13, 101), (101, 13), (64, 96), (96, 64), (33, 1000),
          (1000, 2), (3, 4, 6), (2, 45, 60)]
NP_DTYPES = [np.uint8, np.float16, np.float32, np.float64, np.complex128, np.bool_]


def np_rand(shape, dtype, seed=0):
    raw = np.random.default_rng(seed).integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize,
                                               dtype=np.uint8)
    if dtype == np.bool_:
        raw = raw & 1
    return raw.view(dtype).reshape(shape)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", NP_DTYPES)
def test_numpy_in_place_matches_swapaxes(shape, dtype):
    x = np_rand(shape, dtype, seed=len(shape) + shape[-1])
    want = np.ascontiguousarray(np.swapaxes(x, -1, -2)).view(np.uint8)
    ptr = x.ctypes.data
    y = xpose.transpose_(x)
    assert y.shape == shape[:-2] + (shape[-1], shape[-2])
    assert y.ctypes.data == ptr and np.shares_memory(x, y)
    assert np.array_equal(np.ascontiguousarray(y).view(np.uint8), want)


def test_numpy_refusals():
    with pytest.raises(ValueError, match="C-contiguous"):
        xpose.transpose_(np.zeros((8, 6), np.float32)[:, ::2])
    ro = np.zeros((4, 5), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        xpose.transpose_(ro)
    with pytest.raises(ValueError):
        xpose.transpose_(np.zeros(5, np.float32))
    with pytest.raises(TypeError):
        xpose.transpose_([[1, 2], [3, 4]])


def test_torch_cpu_in_place_view():
    torch = pytest.importorskip("torch")
    for shape in [(5, 7), (8, 8), (3, 4, 9)]:
        x = torch.arange(int(np.prod(shape)), dtype=torch.float64).reshape(shape)
        want = x.transpose(-1, -2).contiguous()
        ptr = x.data_ptr()
        y = xpose.transpose_(x)
        assert y.data_ptr() == ptr and y.shape == want.shape
        assert torch.equal(y, want)
    with pytest.raises(ValueError):
        xpose.transpose_(torch.zeros(6, 4).t())


def test_torch_cuda_in_place_view(torch_cuda):
    torch = torch_cuda
    for shape in [(300, 700), (512, 512), (2, 45, 60), (100003, 3)]:
        for dt in (torch.uint8, torch.float16, torch.float32, torch.float64, torch.complex128):
            x = (torch.arange(int(np.prod(shape)), device="cuda") % 251).to(dt).reshape(shape)
            want = x.transpose(-1, -2).contiguous()
            ptr = x.data_ptr()
            y = xpose.transpose_(x)
            torch.cuda.synchronize()
            assert y.data_ptr() == ptr and torch.equal(y, want)


def test_cupy_in_place_view(cupy_cuda):
    cupy = cupy_cuda
    for shape in [(300, 700), (511, 511), (3, 40, 17)]:
        x = cupy.arange(int(np.prod(shape)), dtype=cupy.float32).reshape(shape)
        want = cupy.ascontiguousarray(cupy.swapaxes(x, -1, -2))
        y = xpose.transpose_(x)
        assert y.data.ptr == x.data.ptr
        assert bool((y == want).all())


def test_jax_is_refused():
    jnp = pytest.importorskip("jax.numpy")
    with pytest.raises(TypeError, match="immutable"):
        xpose.transpose_(jnp.zeros((3, 4)))
