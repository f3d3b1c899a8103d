"""xpose: matrix transposition at copy speed for NumPy, PyTorch, CuPy and JAX.

``xpose.transpose(x)`` transposes a matrix (or the last two axes of a batch of
matrices) on the device that holds it: the library's CUDA kernels for GPU
arrays, its blocked multi-threaded CPU backend for host arrays. See
``help(xpose.transpose)``; ``python -m xpose.bench`` compares it with the
frameworks' own transposes.
"""

from ._api import built_with_cuda, device_count, transpose

__version__ = "0.1.0"
__all__ = ["transpose", "device_count", "built_with_cuda", "__version__"]
