"""Shared fixtures of the Python tests: which GPU frameworks can run here."""

import os

# JAX would otherwise reserve 75% of the GPU at first use, starving torch/cupy tests
# that run in the same process.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import pytest  # noqa: E402

import xpose  # noqa: E402


def _gpu_or_skip() -> None:
    if xpose.device_count() == 0:
        pytest.skip("no CUDA device (or xpose built without CUDA)")


@pytest.fixture(scope="session")
def torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    _gpu_or_skip()
    return torch


@pytest.fixture(scope="session")
def cupy_cuda():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("cupy sees no CUDA device")
    except Exception as e:  # no driver
        pytest.skip(f"cupy cannot use CUDA: {e}")
    _gpu_or_skip()
    return cupy


@pytest.fixture(scope="session")
def jax_mod():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


@pytest.fixture(scope="session")
def jax_gpu(jax_mod):
    try:
        gpus = jax_mod.devices("gpu")
    except RuntimeError:
        gpus = []
    if not gpus:
        pytest.skip("JAX sees no GPU")
    _gpu_or_skip()
    return jax_mod
