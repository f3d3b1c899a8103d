"""xpose.transpose on JAX arrays: GPU arrays (skipped without a GPU) and CPU arrays.
JAX arrays are immutable: the result is a new array, and out= is refused."""

import numpy as np
import pytest

import xpose
from _cases import DTYPES


def rand(jax, shape, name, device, seed=0):
    import jax.numpy as jnp

    rng = np.random.default_rng(seed)
    dt = jnp.dtype(name)
    if dt == np.bool_:
        host = rng.integers(0, 2, size=shape).astype(np.bool_)
    else:
        raw = rng.integers(0, 256, size=tuple(shape) + (dt.itemsize,), dtype=np.uint8)
        host = raw.view(dt).reshape(shape)
    x = jax.device_put(host, device)
    assert np.asarray(x).dtype == dt
    return x, host


def check(jax, x, host, device):
    y = xpose.transpose(x)
    assert isinstance(y, jax.Array)
    assert list(y.devices()) == [device]
    got = np.asarray(y)
    want = np.ascontiguousarray(np.swapaxes(host, -1, -2))
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


SHAPES = [(0, 5), (1, 1), (31, 33), (3, 1003), (257, 300), (3, 17, 33), (2, 100, 101)]


@pytest.mark.parametrize("name", DTYPES)
def test_gpu(jax_gpu, name):
    jax = jax_gpu
    dev = jax.devices("gpu")[0]
    for shape in SHAPES:
        x, host = rand(jax, shape, name, dev)
        check(jax, x, host, dev)


def test_gpu_stream_argument(jax_gpu):
    jax = jax_gpu
    dev = jax.devices("gpu")[0]
    x, host = rand(jax, (500, 700), "float32", dev)
    y = xpose.transpose(x, stream=0)
    assert np.array_equal(np.asarray(y).view(np.uint32), host.T.copy().view(np.uint32))


@pytest.mark.parametrize("name", ["bool", "int8", "float16", "bfloat16", "float32", "complex128"])
def test_cpu(jax_mod, name):
    jax = jax_mod
    dev = jax.devices("cpu")[0]
    for shape in SHAPES:
        x, host = rand(jax, shape, name, dev)
        check(jax, x, host, dev)


def test_out_refused(jax_mod):
    import jax.numpy as jnp

    x = jnp.zeros((3, 4))
    with pytest.raises(ValueError, match="immutable"):
        xpose.transpose(x, jnp.zeros((4, 3)))


def test_inside_jit_refused(jax_mod):
    jax = jax_mod
    import jax.numpy as jnp

    with pytest.raises(TypeError, match="jit"):
        jax.jit(lambda a: xpose.transpose(a))(jnp.zeros((3, 4)))
