"""Reductions and order statistics: sum, mean, max, min, amax, amin, prod, all,
any, var, std, argmax, argmin, topk.

Reductions follow Paddle's argument rules: ``axis`` None (every axis), an int,
or a list/tuple; ``keepdim``; ``sum`` of bool/int32 gives int64 unless
``dtype`` says otherwise.
"""
import builtins
import operator

import numpy as np

from ..ops import bind, get_op, OpError
from ..ops.dtypes import to_enum, to_np_dtype

__all__ = ["sum", "mean", "max", "min", "amax", "amin", "prod", "all", "any", "var", "std",
           "argmax", "argmin", "topk"]
METHODS = list(__all__)

_OPS = {n: get_op(n) for n in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
                               "reduce_amax", "reduce_amin", "reduce_prod", "reduce_all",
                               "reduce_any", "arg_max", "arg_min", "top_k_v2")}


def _axis_list(axis, x, fn):
    """(dim list, reduce_all) as Paddle's ``_get_reduce_axis`` computes them."""
    rank = len(x.shape)
    if axis is None:
        dims = []
    elif isinstance(axis, (list, tuple)):
        dims = [operator.index(a) for a in axis]
    else:
        try:
            dims = [operator.index(axis)]
        except TypeError:
            raise OpError(f"{fn}: axis must be None, an int or a list of ints, "
                          f"got {type(axis).__name__}") from None
    for a in dims:
        if not -builtins.max(rank, 1) <= a < builtins.max(rank, 1):
            raise OpError(f"{fn}: axis {a} is out of range for a tensor of rank {rank} "
                          f"(expected in [{-builtins.max(rank, 1)}, "
                          f"{builtins.max(rank, 1) - 1}])")
    return dims, (not dims or len(dims) == rank)


def _reduce(op_type, x, axis, keepdim, extra=None, fn=None):
    dims, reduce_all = _axis_list(axis, x, fn or op_type)
    attrs = {"dim": dims, "keep_dim": bool(keepdim), "reduce_all": reduce_all}
    if extra:
        attrs.update(extra)
    return bind(_OPS[op_type], (x,), attrs)[0]


def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    # Paddle's sum writes no reduce_all (False): an empty dim reduces every axis
    extra = {"reduce_all": False}
    if dtype is not None:
        extra.update(in_dtype=to_enum(x.dtype), out_dtype=to_enum(dtype))
    return _reduce("reduce_sum", x, axis, keepdim, extra, "sum")


def mean(x, axis=None, keepdim=False, name=None):
    return _reduce("reduce_mean", x, axis, keepdim, fn="mean")


def max(x, axis=None, keepdim=False, name=None):
    return _reduce("reduce_max", x, axis, keepdim, fn="max")


def min(x, axis=None, keepdim=False, name=None):
    return _reduce("reduce_min", x, axis, keepdim, fn="min")


def amax(x, axis=None, keepdim=False, name=None):
    return _reduce("reduce_amax", x, axis, keepdim, fn="amax")


def amin(x, axis=None, keepdim=False, name=None):
    return _reduce("reduce_amin", x, axis, keepdim, fn="amin")


def prod(x, axis=None, keepdim=False, dtype=None, name=None):
    if dtype is not None and to_np_dtype(dtype) != to_np_dtype(x.dtype):
        from .math import cast
        x = cast(x, dtype)
    return _reduce("reduce_prod", x, axis, keepdim, fn="prod")


def all(x, axis=None, keepdim=False, name=None):
    return _reduce("reduce_all", x, axis, keepdim, fn="all")


def any(x, axis=None, keepdim=False, name=None):
    return _reduce("reduce_any", x, axis, keepdim, fn="any")


def _count(x, axis):
    dims, reduce_all = _axis_list(axis, x, "var")
    shape = x.shape
    if reduce_all:
        return int(np.prod(shape, dtype=np.int64))
    return int(np.prod([shape[a] for a in dims], dtype=np.int64))


def var(x, axis=None, unbiased=True, keepdim=False, name=None):
    """Variance, composed as Paddle 2.6 composes it (so the static op sequence and
    the integer behaviour match): ``sum((x - mean(x)) ** 2) / n`` with ``n`` the
    ratio of numels (minus one when unbiased, at least one)."""
    from .creation import ones
    from .manipulation import numel
    from .math import cast, pow as pow_
    from .indexing import where
    u = mean(x, axis, True)
    out = sum(pow_(x - u, 2), axis, keepdim=keepdim)
    n = cast(numel(x), "int64") / cast(numel(out), "int64")
    n = cast(n, x.dtype)
    if unbiased:
        one = ones([], x.dtype)
        n = where(n > one, n - 1.0, one)
    n.stop_gradient = True
    return out / n


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    from .math import sqrt
    return sqrt(var(x, axis, unbiased, keepdim))


def _arg(op_type, fn, x, axis, keepdim, dtype):
    if dtype is None:
        raise OpError(f"{fn}: dtype must be int32 or int64, got None")
    enum = to_enum(dtype)
    if enum not in (2, 3):
        raise OpError(f"{fn}: dtype must be int32 or int64, got {to_np_dtype(dtype)}")
    flatten = axis is None
    if not flatten:
        axis = operator.index(axis)
        rank = len(x.shape)
        if not -builtins.max(rank, 1) <= axis < builtins.max(rank, 1):
            raise OpError(f"{fn}: axis {axis} is out of range for a tensor of rank {rank}")
    attrs = {"axis": 0 if flatten else axis, "keepdims": bool(keepdim), "flatten": flatten,
             "dtype": enum}
    return bind(_OPS[op_type], (x,), attrs)[0]


def argmax(x, axis=None, keepdim=False, dtype="int64", name=None):
    return _arg("arg_max", "argmax", x, axis, keepdim, dtype)


def argmin(x, axis=None, keepdim=False, dtype="int64", name=None):
    return _arg("arg_min", "argmin", x, axis, keepdim, dtype)


def topk(x, k, axis=None, largest=True, sorted=True, name=None):
    """(values, indices) of the k largest (smallest) entries along axis (default -1)."""
    attrs = {"axis": -1 if axis is None else operator.index(axis), "largest": bool(largest),
             "sorted": bool(sorted)}
    if hasattr(k, "shape"):
        values, indices = bind(_OPS["top_k_v2"], (x, k), attrs)
    else:
        attrs["k"] = operator.index(k)
        values, indices = bind(_OPS["top_k_v2"], (x, None), attrs)
    return values, indices
