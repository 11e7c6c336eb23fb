"""Compute functions registered per ``KernelKey(backend, layout, dtype)``.

``kernels/cpu/`` holds the numpy kernels (importing this package registers
them); a GPU backend registers cupy kernels the same way, or borrows the CPU
ones through the fallback in ``select_kernel``.  ``host_memory`` keeps freed
host memory for reuse (glibc's thresholds, set once at import).

numpy's floating-point warnings ("divide by zero encountered in divide",
"overflow encountered in exp", ...) raised in sampan's own code are ignored:
Paddle's kernels give the same inf and nan silently.  The filter names only
those messages and sampan's modules, so a user's numpy keeps its warnings and
sampan's own RuntimeWarnings (a fusion that fell back, ...) still show; it
costs nothing where no warning is raised.  (pytest restores its own copy of
the filters around collection and each test: under it the warnings show.)
"""
import warnings
from .registry import (KernelKey, register_kernel, kernel, select_kernel, kernels_of,
                       CPU, GPU, ANY, FLOATS, INTS, NUMERIC, ALL)
from .transform import backend_of, to_backend, transform_inputs, array_module, gpu_available
from . import cpu  # noqa: F401  (registers the numpy kernels)
from . import host_memory

host_memory.tune()            # freed host memory kept for reuse (host_memory.py)

FP_WARNINGS = r"(divide by zero|invalid value|overflow|underflow) encountered in "
warnings.filterwarnings("ignore", message=FP_WARNINGS, category=RuntimeWarning,
                        module=r"sampan(\.|$)")
