"""Keep freed array memory in the process (glibc malloc tuning).

A training step allocates and frees the same set of arrays every run.  With
glibc's defaults, arrays over 128 KiB come from fresh ``mmap`` s and a free
heap top over 2x that is trimmed back to the system, so every run pays a
page fault (and a page zeroing) per 4 KiB of those arrays: ~290 faults, a
third of the step time, on the W2 MLP step.  Paddle avoids this with its own
caching allocator; numpy has none, so the executor raises glibc's trim and
mmap thresholds once per process (``mallopt``), after which freed buffers are
reused from the heap.

Skipped where there is no glibc ``mallopt`` (macOS, musl) or when the
environment says ``SAMPAN_MALLOC_TUNING=0``.
"""
import ctypes
import ctypes.util
import os

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
TRIM_THRESHOLD = 256 << 20       # keep up to 256 MiB of free heap top
MMAP_THRESHOLD = 32 << 20        # arrays up to 32 MiB come from the heap
_state = {"done": False}


def tune_allocator():
    """Apply the thresholds once; returns True when they are in effect."""
    if _state["done"]:
        return _state["ok"]
    _state["done"], _state["ok"] = True, False
    if os.environ.get("SAMPAN_MALLOC_TUNING", "1") == "0":
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    _state["ok"] = bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)) and \
        bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    return _state["ok"]
