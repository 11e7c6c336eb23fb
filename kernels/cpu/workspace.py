"""Reused scratch memory for kernels' internal blocks (im2col's window block).

A multi-megabyte temporary that a kernel writes and a GEMM reads costs twice:
once to fill, and once more because fresh memory from the allocator faults in
page by page as it is first written (measured: filling a 4.7 MB window block
took 0.72 ms in new memory and 0.35 ms in memory written before).  Like the
scratchpads of oneDNN and Paddle's workspace, a kernel asks for
``scratch(name, shape, dtype)`` and gets an array over a buffer kept per
thread and per name, grown when a larger one is asked for.

The array is valid until the same thread asks for the same name again: a
kernel uses it for a temporary that never leaves the kernel (it is never an
output, and never held across a call that could ask for the same name).
Buffers above ``MAX_BYTES`` are not kept.
"""
import threading

import numpy as np

__all__ = ["scratch"]

MAX_BYTES = 64 << 20

_local = threading.local()


def scratch(name, shape, dtype):
    """An uninitialized C-contiguous array of ``shape``/``dtype`` over this
    thread's buffer ``name``."""
    dtype = np.dtype(dtype)
    size = dtype.itemsize
    for s in shape:
        size *= s
    if size > MAX_BYTES:
        return np.empty(shape, dtype)
    bufs = getattr(_local, "bufs", None)
    if bufs is None:
        bufs = _local.bufs = {}
    buf = bufs.get(name)
    if buf is None or buf.size < size:
        buf = bufs[name] = np.empty(max(size, 1), np.uint8)
    return buf[:size].view(dtype).reshape(shape)
