"""xpose: matrix transposition at copy speed for NumPy, PyTorch, CuPy and JAX.

``xpose.transpose(x)`` transposes a matrix (or the last two axes of a batch of
matrices) on the device that holds it: the library's CUDA kernels for GPU
arrays, its blocked multi-threaded CPU backend for host arrays. See
``help(xpose.transpose)``; ``python -m xpose.bench`` compares it with the
frameworks' own transposes.
"""

from ._api import built_with_cuda, device_count, transpose
from ._api import permute  # N-d permutation (np.transpose semantics)

from ._api import transpose_  # in place

for _f in (transpose, transpose_, device_count, built_with_cuda, permute):
    _f.__module__ = __name__  # help() and reprs show xpose.transpose, not xpose._api
del _f

from ._xpose import __version__  # the library's version (CMakeLists.txt, project(VERSION))
from ._frameworks import register_loaded as _register_loaded

_register_loaded()  # torch already imported: its adapter now, so that torch.compile'd functions do not recompile
del _register_loaded

__all__ = ["transpose", "transpose_", "permute", "device_count", "built_with_cuda", "__version__"]
