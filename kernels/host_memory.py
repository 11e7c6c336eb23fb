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
``MMAP_THRESHOLD`` (32 MB, glibc's largest) and its trim threshold at
``TRIM_THRESHOLD`` (freed heap is returned to the system past 512 MB).

Blocks past 32 MB stay mmap'ed and are returned at once: a user's large array
goes back to the system when freed.  A model served by the Predictor
allocates such blocks on every run (a batch of 16 MobileNetV2 maps is 77 MB
per layer) and faults them in again each time: MobileNetV1 at batch 16 took
281 (huge-page) faults per run, 562 MB zeroed.  ``large_from_heap()`` (a
context manager the Predictor holds around a run whose values can pass the
threshold, judged from the model's declared shapes and the batch) serves every block from the
heap while a run is in progress (glibc's ``M_MMAP_MAX`` at 0), so the next run
finds them freed and in place: 0 faults per run, 177 -> 173 ms in one process
(benchmarks/predictor_vision.py's model).  It restores glibc's default (65536
mmap'ed blocks) when the last run in progress leaves.

Nothing is changed where the process is not on glibc, where the user set
glibc's own variables (``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_``,
``MALLOC_TOP_PAD_``, ``MALLOC_MMAP_MAX_``) or where ``SAMPAN_HOST_MALLOC=system``
(or the older ``SAMPAN_MALLOC_TUNING=0``) asks for glibc's defaults.
"""
import ctypes
import os
import platform
import threading

__all__ = ["tune", "tuned", "large_from_heap"]

MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 512 << 20
_M_TRIM_THRESHOLD = -1          # mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD = -3
_M_MMAP_MAX = -4
_GLIBC_MMAP_MAX = 65536         # glibc's default M_MMAP_MAX
_GLIBC_VARS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_",
               "MALLOC_MMAP_MAX_")

_STATE = {"tuned": False, "mallopt": None, "holders": 0}
_LOCK = threading.Lock()


def _opted_out():
    return os.environ.get("SAMPAN_HOST_MALLOC", "") == "system" or \
        os.environ.get("SAMPAN_MALLOC_TUNING", "1") == "0" or \
        any(v in os.environ for v in _GLIBC_VARS) or \
        platform.system() != "Linux" or platform.libc_ver()[0] != "glibc"


def tune():
    """Fix the thresholds (module docstring); returns whether they were set."""
    if _STATE["tuned"]:
        return True
    if _opted_out():
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    ok = mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 and \
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
    _STATE["tuned"] = ok
    _STATE["mallopt"] = mallopt if ok else None
    return ok


def tuned():
    """Whether ``tune`` set the thresholds in this process."""
    return _STATE["tuned"]


class _LargeFromHeap:
    """``with large_from_heap():`` every block comes from the heap while the body
    runs (module docstring); nests and may be held by several threads at once."""
    __slots__ = ()

    def __enter__(self):
        mallopt = _STATE["mallopt"]
        if mallopt is not None:
            with _LOCK:
                _STATE["holders"] += 1
                if _STATE["holders"] == 1:
                    mallopt(_M_MMAP_MAX, 0)
        return self

    def __exit__(self, *exc):
        mallopt = _STATE["mallopt"]
        if mallopt is not None:
            with _LOCK:
                _STATE["holders"] -= 1
                if _STATE["holders"] == 0:
                    mallopt(_M_MMAP_MAX, _GLIBC_MMAP_MAX)
        return False


_HOLD = _LargeFromHeap()


def large_from_heap():
    return _HOLD
