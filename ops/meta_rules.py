"""Shared shape/dtype rules (InferMeta) used by many op declarations.

A rule is ``infer(metas, attrs) -> tuple of Meta``; ``metas`` has one entry per
input slot (a Meta, a list of Meta for duplicable slots, or None).  Unknown
dims are -1.  Rules raise ``OpError`` naming the op's argument and the
expected vs actual shape; the op type is added by the caller.
"""
import numpy as np

from .registry import Meta, OpError
from .errors import OUT_OF_RANGE, PRECONDITION_NOT_MET  # noqa: F401  (for the op rules)

BOOL = np.dtype("bool")
INT64 = np.dtype("int64")
INT32 = np.dtype("int32")
FLOAT32 = np.dtype("float32")


def norm_axis(axis, ndim, what="axis", kind=ValueError):
    """``axis`` in [0, ndim); out of range an OpError of ``kind`` (Paddle's kind
    for the op: InvalidArgument for most, OutOfRange (IndexError) for gather,
    index_select, cumsum; ops/errors.py)."""
    if not -ndim <= axis < max(ndim, 1):
        raise OpError(f"{what} {axis} is out of range for a tensor of rank {ndim} "
                      f"(expected in [{-ndim}, {max(ndim, 1) - 1}])", kind=kind)
    return axis + ndim if axis < 0 else axis


def broadcast_shapes(xs, ys, axis=-1, names=("X", "Y")):
    """Paddle's elementwise broadcast: numpy rules, or Y aligned at ``axis`` of X."""
    xs, ys = tuple(xs), tuple(ys)
    if axis != -1 and len(ys) < len(xs):
        ys = (1,) * axis + ys + (1,) * (len(xs) - axis - len(ys))
    elif axis != -1 and len(xs) < len(ys):
        xs = (1,) * axis + xs + (1,) * (len(ys) - axis - len(xs))
    n = max(len(xs), len(ys))
    xs = (1,) * (n - len(xs)) + xs
    ys = (1,) * (n - len(ys)) + ys
    out = []
    for i, (a, b) in enumerate(zip(xs, ys)):
        if a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        elif a == -1 or b == -1:
            out.append(max(a, b))
        else:
            raise OpError(f"cannot broadcast {names[0]} shape {list(xs)} with {names[1]} "
                          f"shape {list(ys)}: dimension {i} is {a} vs {b}")
    return tuple(out)


def same_as(i=0, dtype=None):
    """Output 0 (and any further outputs) take input i's shape; dtype optional."""
    def infer(metas, attrs):
        m = metas[i]
        return (Meta(m.shape, np.dtype(dtype) if dtype else m.dtype),)
    return infer


def same_as_x(metas, attrs):
    return (metas[0],)


def broadcast_infer(dtype=None):
    def infer(metas, attrs):
        x, y = metas[0], metas[1]
        shape = broadcast_shapes(x.shape, y.shape, attrs.get("axis", -1))
        return (Meta(shape, np.dtype(dtype) if dtype else x.dtype),)
    return infer


def reduce_shape(shape, axes, keep_dim, reduce_all):
    nd = len(shape)
    if reduce_all or axes is None or len(axes) == 0:
        axes = range(nd)
    axes = {norm_axis(a, nd) for a in axes} if nd else set()
    if keep_dim:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def check_rank(m, name, ranks):
    if len(m.shape) not in ranks:
        raise OpError(f"input {name} must have rank in {sorted(ranks)}, got shape {list(m.shape)}")
