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


def test_gpu_stream_argument_refused(jax_gpu):
    jax = jax_gpu
    x, _ = rand(jax, (5, 7), "float32", jax.devices("gpu")[0])
    with pytest.raises(ValueError, match="XLA's stream"):
        xpose.transpose(x, stream=0)


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


def _jax_checks(jax, dev):
    """jit, grad, vmap and placement of xpose on JAX arrays of `dev`."""
    import jax.numpy as jnp

    x = jax.device_put(jnp.arange(60.0).reshape(3, 4, 5), dev)
    f = jax.jit(lambda a: xpose.permute(a, (2, 0, 1)))
    assert np.array_equal(f(x), jnp.transpose(x, (2, 0, 1)))
    assert np.array_equal(jax.jit(xpose.transpose)(x), jnp.swapaxes(x, -1, -2))
    # grad: the cotangent permuted back (a weighted sum makes every entry distinct).
    w = jnp.arange(60.0).reshape(5, 3, 4)
    g = jax.grad(lambda a: (xpose.permute(a, (2, 0, 1)) * w).sum())(x)
    assert np.array_equal(g, jnp.transpose(w, (1, 2, 0)))
    z = jax.device_put((jnp.arange(12.0) + 1j * jnp.arange(12.0)[::-1]).reshape(3, 4), dev)
    for conj in (False, True):
        fz = lambda a, c=conj: xpose.transpose(a, conjugate=c)  # noqa: E731
        want = jnp.conj(z.T) if conj else z.T
        assert np.array_equal(fz(z), want)
        ct = jnp.arange(12.0).reshape(4, 3) * (1 - 2j)
        _, vjp = jax.vjp(fz, z)
        _, vjp_ref = jax.vjp(lambda a, c=conj: jnp.conj(a.T) if c else a.T, z)
        assert np.array_equal(vjp(ct)[0], vjp_ref(ct)[0])
    # vmap, over any input axis: the batch axis stays first.
    for ax in range(3):
        got = jax.vmap(lambda a: xpose.permute(a, (1, 0)), in_axes=ax)(x)
        assert np.array_equal(got, jax.vmap(lambda a: a.T, in_axes=ax)(x))
    got = jax.jit(jax.vmap(jax.grad(lambda a: (xpose.transpose(a) ** 2).sum())))(x)
    assert np.array_equal(got, 2 * x)
    # Placement like jnp.transpose: committed only if the input was.
    plain = jnp.arange(6.0).reshape(2, 3)
    assert xpose.transpose(plain).committed == jnp.transpose(plain).committed
    assert xpose.transpose(x).committed and list(xpose.transpose(x).devices()) == [dev]


def test_cpu_jit_grad_vmap(jax_mod):
    _jax_checks(jax_mod, jax_mod.devices("cpu")[0])


def test_gpu_jit_grad_vmap(jax_gpu):
    _jax_checks(jax_gpu, jax_gpu.devices("gpu")[0])


def test_gpu_jit_no_host_sync(jax_gpu):
    """A jitted xpose call queued behind tens of milliseconds of GPU work returns before that work is done: the FFI
    handler enqueues on XLA's stream and never waits for it. (Timing a loop of fresh large outputs instead measures
    XLA's allocator, which calls cudaMalloc for each new buffer when preallocation is off, as conftest sets it.)"""
    import time

    import jax.numpy as jnp

    jax = jax_gpu
    dev = jax.devices("gpu")[0]
    a = jax.device_put(jnp.full((4096, 4096), 1.0 / 4096, jnp.float32), dev)

    @jax.jit
    def slow(a):  # 80 dependent 4096^3 matmuls: tens of ms of GPU work, values stay 1/4096
        return jax.lax.fori_loop(0, 80, lambda i, b: b @ a, a)

    step = jax.jit(lambda b: xpose.transpose(b) + 1.0)
    for _ in range(2):  # compile both, settle the allocator's pool
        step(slow(a)).block_until_ready()
    t0 = time.perf_counter()
    slow(a).block_until_ready()
    gpu = time.perf_counter() - t0
    b = slow(a)  # queued: returns at once
    t0 = time.perf_counter()
    y = step(b)
    dispatched = time.perf_counter() - t0
    y.block_until_ready()
    assert gpu > 0.01, gpu  # the slow work is slow enough to tell a wait from none
    assert dispatched < 0.25 * gpu, (dispatched, gpu)  # xpose's call did not wait for the queued work
    assert np.array_equal(np.asarray(y), np.asarray(b).T + np.float32(1.0))


def test_ffi_errors_are_exceptions(jax_mod):
    import jax.numpy as jnp

    x = jnp.zeros((3, 4))
    with pytest.raises(ValueError, match="bad_axes"):
        xpose.permute(x, (0, 0))
    with pytest.raises(ValueError, match="complex"):
        xpose.transpose(x, conjugate=True)
    with pytest.raises(TypeError, match="immutable"):
        xpose.transpose_(x)
