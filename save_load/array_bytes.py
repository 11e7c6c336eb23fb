"""An array's raw bytes written to a file without building them in memory first.

``byte_chunks(arr)`` yields 1-d ``uint8`` arrays whose concatenation equals
``arr.tobytes()`` (C order): a contiguous array is one zero-copy view of its own memory;
any other is copied ``CHUNK`` bytes at a time.  The writers of ``.pdiparams`` records and
of pickled ndarrays (``safe_pickle``) use it, so saving a checkpoint holds at most a
chunk beyond the tensors themselves.
"""
import numpy as np

CHUNK = 1 << 20  # bytes copied at once for a non-contiguous array


def _flat_bytes(c):
    """The bytes of a C-contiguous array as a 1-d uint8 view (no copy)."""
    return c.reshape(-1).view(np.uint8)


def byte_chunks(arr, limit=None):
    """Views (contiguous ``arr``) or small copies of ``arr``'s C-order bytes, in order.

    ``limit``: also split a contiguous array into views of at most ``limit`` bytes (for
    callers that transform each piece); copies are never larger than ``limit or CHUNK``."""
    if arr.nbytes == 0:
        return
    if arr.flags.c_contiguous:
        flat = _flat_bytes(arr)
        if limit is None or flat.size <= limit:
            yield flat
        else:
            for i in range(0, flat.size, limit):
                yield flat[i:i + limit]
        return
    yield from _copied_chunks(arr, limit or CHUNK)


def _copied_chunks(a, limit):
    # a is not C-contiguous, so ndim >= 1
    row = a.nbytes // a.shape[0] if a.shape[0] else 0
    if row > limit and a.ndim > 1:
        for sub in a:  # one row is too big: split each row further
            yield from byte_chunks(sub, limit)
        return
    step = max(1, limit // max(row, 1))
    for i in range(0, a.shape[0], step):
        yield _flat_bytes(np.ascontiguousarray(a[i:i + step]))


def write_array(write, arr):
    """``write`` (a binary file's write) every byte of ``arr`` in C order; returns nbytes."""
    for piece in byte_chunks(arr):
        write(piece)
    return arr.nbytes
