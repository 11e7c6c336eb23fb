"""The math library's thread count: what Paddle's
``Config.set_cpu_math_library_num_threads`` sets for its MKL/OpenBLAS, here
for numpy's BLAS.  The library is found among the shared objects this process
has loaded (``/proc/self/maps``: numpy's wheels bring OpenBLAS, under plain or
``scipy_`` prefixed, 64-bit suffixed names; some builds use MKL) and set through
its own C function.  Where none is found (another OS, another BLAS) the calls
report False / None and change nothing."""
import ctypes
import os

__all__ = ["set_blas_threads", "blas_threads", "blas_core"]

# (set, get) C functions, tried in order
_APIS = (("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
         ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"),
         ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
         ("openblas_set_num_threads", "openblas_get_num_threads"),
         ("MKL_Set_Num_Threads", "MKL_Get_Max_Threads"))
_CORE_NAMES = ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
               "openblas_get_corename64_", "openblas_get_corename")
_found = []
_lib = []


def _api():
    if _found:
        return _found[0]
    api = None
    try:
        with open("/proc/self/maps") as fh:
            paths = {line.split()[-1] for line in fh
                     if line.rstrip().endswith(".so") or ".so." in line}
    except OSError:
        paths = set()
    for path in sorted(p for p in paths if "blas" in os.path.basename(p).lower()
                       or "mkl" in os.path.basename(p).lower()):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for set_name, get_name in _APIS:
            if hasattr(lib, set_name) and hasattr(lib, get_name):
                api = (getattr(lib, set_name), getattr(lib, get_name))
                break
        if api is not None:
            _lib.append(lib)
            break
    _found.append(api)
    return api


def set_blas_threads(n):
    """Use ``n`` threads in numpy's BLAS; False where its library is unknown."""
    api = _api()
    if api is None:
        return False
    api[0](ctypes.c_int(int(n)))
    return True


def blas_threads():
    """The BLAS thread count (None where its library is unknown)."""
    api = _api()
    return None if api is None else int(api[1]())


def blas_core():
    """The kernel family OpenBLAS chose for this processor ('Haswell', 'SkylakeX', ...;
    ``OPENBLAS_CORETYPE`` overrides its own detection), None for another BLAS.  GEMM speed,
    hence convolution and Linear speed, depends on it: benchmarks print it beside their
    figures."""
    if _api() is None or not _lib:
        return None
    for name in _CORE_NAMES:
        fn = getattr(_lib[0], name, None)
        if fn is not None:
            fn.restype = ctypes.c_char_p
            return fn().decode()
    return None
