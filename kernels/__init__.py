"""Compute functions registered per ``KernelKey(backend, layout, dtype)``.

``kernels/cpu/`` holds the numpy kernels (importing this package registers
them); a GPU backend registers cupy kernels the same way, or borrows the CPU
ones through the fallback in ``select_kernel``.  ``host_memory`` keeps freed
host memory for reuse (glibc's thresholds, set once at import).
"""
from .registry import (KernelKey, register_kernel, kernel, select_kernel, kernels_of,
                       CPU, GPU, ANY, FLOATS, INTS, NUMERIC, ALL)
from .transform import backend_of, to_backend, transform_inputs, array_module, gpu_available
from . import cpu  # noqa: F401  (registers the numpy kernels)
from . import host_memory

host_memory.tune()            # freed host memory kept for reuse (host_memory.py)
