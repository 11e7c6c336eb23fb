"""How freed host memory goes back to the system: kept for reuse.

Every eager step and every executor run allocates its arrays anew (numpy has
no pool beyond small blocks).  glibc's malloc serves blocks above a dynamic
threshold (128 KB at first) with fresh mmap'ed pages and gives the top of its
heap back whenever more than twice that threshold is free, so a training
step that frees and re-allocates the same 256 KB gradients page-faults them
in again on every step, and how often depends on the allocation history: the
W2 eager step (benchmarks/run.py) measured 1.48-1.98x the numpy floor in some
processes and 1.15-1.22x in others; with the thresholds fixed, 1.15-1.18x in
every run.  Paddle keeps freed memory in its own caching allocator
(``auto_growth``) for the same reason.

``tune()`` (run when sampan is imported) fixes glibc's mmap threshold at
``MMAP_THRESHOLD`` (32 MB, glibc's largest; larger blocks stay mmap'ed and
are returned at once) and its trim threshold at ``TRIM_THRESHOLD`` (freed heap
is returned to the system past 512 MB).  It changes nothing where the
process is not on glibc, where the user set glibc's own variables
(``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_``, ``MALLOC_TOP_PAD_``)
or where ``SAMPAN_HOST_MALLOC=system`` asks for glibc's defaults.
"""
import ctypes
import os
import platform

__all__ = ["tune", "tuned"]

MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 512 << 20
_M_TRIM_THRESHOLD = -1          # mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD = -3
_GLIBC_VARS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_")

_STATE = {"tuned": False}


def tune():
    """Fix the thresholds (module docstring); returns whether they were set."""
    if _STATE["tuned"]:
        return True
    if os.environ.get("SAMPAN_HOST_MALLOC", "") == "system" or \
            any(v in os.environ for v in _GLIBC_VARS) or \
            platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    ok = mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 and \
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
    _STATE["tuned"] = ok
    return ok


def tuned():
    """Whether ``tune`` set the thresholds in this process."""
    return _STATE["tuned"]
