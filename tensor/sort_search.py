"""Sorting, searching and statistics: sort, argsort, unique, unique_consecutive,
kthvalue, mode, median, nanmedian, quantile, nanquantile, searchsorted,
bucketize, histogram, bincount, count_nonzero, cummax, cummin, cumprod,
logcumsumexp, logsumexp, nansum, nanmean, and the in-place cumsum_ and
cumprod_.

median, quantile, nanquantile, nansum, nanmean, count_nonzero and bucketize
are written as Paddle 2.6 writes them in Python (over topk, sort,
take_along_axis, lerp, where ...), so a static Program holds Paddle's op
sequence; the others bind one op each (ops/defs/sort_search.py).
"""
import numbers

import numpy as np

from ..ops import bind, get_op, OpError
from ..ops.dtypes import to_enum, to_np_dtype
from . import manipulation as M
from .creation import full_like, zeros_like, is_var
from .indexing import inplace, take_along_axis, where
from .logic import isnan
from .math import cast, cumsum, divide, floor, ceil
from .stat import sum as _sum, topk

__all__ = ["sort", "argsort", "unique", "unique_consecutive", "kthvalue", "mode", "median",
           "nanmedian", "quantile", "nanquantile", "searchsorted", "bucketize", "histogram",
           "bincount", "count_nonzero", "cummax", "cummin", "cumprod", "cumprod_",
           "logcumsumexp", "logsumexp", "nansum", "nanmean", "cumsum_"]
# every name is a Tensor method too, except searchsorted (as in Paddle 2.6)
METHODS = [n for n in __all__ if n != "searchsorted"]

_OPS = {t: get_op(t) for t in (
    "argsort", "unique", "unique_consecutive", "kthvalue", "mode", "nanmedian",
    "searchsorted", "histogram", "bincount", "cummax", "cummin", "cumprod", "logcumsumexp",
    "logsumexp")}


def _int(v, fn, what):
    """An int argument; anything else a ValueError naming it (as Paddle's eager
    argument parser: 'argument must be int')."""
    if isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)
    raise OpError(f"{fn}: {what} must be an int, got {type(v).__name__} ({v!r})")


def _np_dtype(x):
    return to_np_dtype(x.dtype)


# ------------------------------------------------------------------ sort
def sort(x, axis=-1, descending=False, name=None):
    attrs = {"axis": _int(axis, "sort", "axis"), "descending": bool(descending)}
    return bind(_OPS["argsort"], (x,), attrs)[0]


def argsort(x, axis=-1, descending=False, name=None):
    attrs = {"axis": _int(axis, "argsort", "axis"), "descending": bool(descending)}
    return bind(_OPS["argsort"], (x,), attrs)[1]


def _returns(outs, flags):
    picked = [outs[0]] + [o for o, f in zip(outs[1:], flags) if f]
    return picked[0] if len(picked) == 1 else tuple(picked)


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None,
           dtype="int64", name=None):
    """Sorted unique values (rows along ``axis``), with the first index of each,
    the inverse map and the counts on request, as ``dtype`` (int32 or int64)."""
    attrs = {"return_index": bool(return_index), "return_inverse": bool(return_inverse),
             "return_counts": bool(return_counts), "dtype": to_enum(dtype), "is_sorted": True,
             "axis": [] if axis is None else [_int(axis, "unique", "axis")]}
    out, index, inverse, counts = bind(_OPS["unique"], (x,), attrs)
    return _returns((out, index, inverse, counts), (return_index, return_inverse, return_counts))


def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None, dtype="int64",
                       name=None):
    """The first of each run of equal values (rows along ``axis``), with the
    inverse map and the run lengths on request."""
    attrs = {"return_inverse": bool(return_inverse), "return_counts": bool(return_counts),
             "dtype": to_enum(dtype),
             "axis": [] if axis is None else [_int(axis, "unique_consecutive", "axis")]}
    out, inverse, counts = bind(_OPS["unique_consecutive"], (x,), attrs)
    return _returns((out, inverse, counts), (return_inverse, return_counts))


# ------------------------------------------------------------------ order statistics
def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """(values, indices) of the k-th smallest entries along axis (default -1)."""
    attrs = {"k": _int(k, "kthvalue", "k"), "keepdim": bool(keepdim),
             "axis": -1 if axis is None else _int(axis, "kthvalue", "axis")}
    values, indices = bind(_OPS["kthvalue"], (x,), attrs)
    return values, indices


def mode(x, axis=-1, keepdim=False, name=None):
    """(values, indices): the most frequent value along axis (the smallest of a
    tie) and the position of its last occurrence."""
    attrs = {"axis": _int(axis, "mode", "axis"), "keepdim": bool(keepdim)}
    values, indices = bind(_OPS["mode"], (x,), attrs)
    return values, indices


def _check_tensor(x, fn):
    if not is_var(x):
        raise TypeError(f"{fn}: the input x should be a Tensor, got {type(x).__name__}")


def median(x, axis=None, keepdim=False, name=None):
    """Median along ``axis`` (every element when None): float64 for float64 input,
    float32 otherwise; the mean of the two middle values for an even count; NaN
    where a NaN is reduced.  Paddle's composition: topk of the smaller half,
    slice, and the sum of ``isnan(x) * x`` added to carry NaN."""
    _check_tensor(x, "median")
    shape = list(x.shape)
    if shape and min(shape) == 0:
        raise OpError("median: the size of input x should not be 0")
    dims = len(shape)
    flat = axis is None
    if dims == 0:
        if axis not in (-1, 0, None):
            raise AssertionError("median: when input is 0-D, axis can only be -1, 0 or None")
        flat = True
    if flat:
        x = M.flatten(x)
        axis = 0
    else:
        if not isinstance(axis, int) or not -dims <= axis < dims:
            raise OpError(f"median: axis should be None or an integer in range [-{dims}, "
                          f"{dims}), got {axis!r}")
        axis = axis + dims if axis < 0 else axis
    sz = x.shape[axis]
    kth = sz >> 1
    values = topk(x, kth + 1, axis=axis, largest=False)[0]
    dtype = "float64" if _np_dtype(x) == np.float64 else "float32"
    if sz & 1 == 0:
        out = (M.slice(values, axes=[axis], starts=[kth - 1], ends=[kth])
               + M.slice(values, axes=[axis], starts=[kth], ends=[kth + 1]))
        out = cast(out, dtype) / 2
    else:
        out = cast(M.slice(values, axes=[axis], starts=[kth], ends=[kth + 1]), dtype)
    out = out + _sum(cast(isnan(x), dtype) * x, axis=axis, keepdim=True)
    if flat:
        return M.reshape(out, [1] * dims if keepdim else [])
    return out if keepdim else M.squeeze(out, axis)


def nanmedian(x, axis=None, keepdim=False, name=None):
    """Median along ``axis`` (None, an int or a list) ignoring NaN; x's dtype
    (integers: the two middle values' sum halved toward zero)."""
    _check_tensor(x, "nanmedian")
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        raise OpError("nanmedian: axis list should not be empty")
    if axis is None:
        axis = []
    elif isinstance(axis, (list, tuple)):
        axis = [_int(a, "nanmedian", "axis") for a in axis]
    else:
        axis = [_int(axis, "nanmedian", "axis")]
    return bind(_OPS["nanmedian"], (x,), {"axis": axis, "keepdim": bool(keepdim)})[0]


def _quantile(x, q, axis, keepdim, ignore_nan):
    """Paddle's _compute_quantile: sort, then lerp between the values at floor and
    ceil of ``q * (count - 1)`` (float64 results)."""
    _check_tensor(x, "quantile")
    if isinstance(q, (int, float)) and not isinstance(q, bool):
        q = [q]
    elif isinstance(q, (list, tuple)):
        if len(q) <= 0:
            raise OpError("quantile: q should not be empty")
    else:
        raise TypeError(f"quantile: type of q should be int, float, list or tuple, got "
                        f"{type(q).__name__}")
    dims = len(x.shape)
    out_shape = list(x.shape)
    bad = "quantile: axis should be None, an int or a list of ints in range [-rank(x), rank(x))"
    if axis is None:
        x = M.flatten(x)
        axis = 0
        out_shape = [1] * dims
    elif isinstance(axis, list):
        src = []
        for a in axis:
            if not isinstance(a, int) or not -dims <= a < dims:
                raise OpError(f"{bad}, got {axis}")
            a = a + dims if a < 0 else a
            src.append(a)
            out_shape[a] = 1
        # Paddle's moveaxis turns its (list) destination non-negative in place, and
        # the flatten and the reduced axis then read it: the trailing axes
        dst = list(range(dims - len(axis), dims))
        x = M.moveaxis(x, src, list(range(-len(axis), 0)))
        if not dst:
            x = M.flatten(x)
            axis = 0
        else:
            x = M.flatten(x, dst[0], dst[-1])
            axis = dst[0]
    else:
        if not isinstance(axis, int) or not -dims <= axis < dims:
            raise OpError(f"{bad}, got {axis!r}")
        axis = axis + dims if axis < 0 else axis
        out_shape[axis] = 1
    mask = isnan(x)
    valid = _sum(mask.logical_not(), axis=axis, keepdim=True, dtype="float64")
    indices = []
    for qn in q:
        if qn < 0 or qn > 1:
            raise OpError(f"quantile: q should be in range [0, 1], got {qn}")
        index = qn * (valid - 1)
        if not ignore_nan:
            last = full_like(index, fill_value=x.shape[axis] - 1)
            index = where(mask.any(axis=axis, keepdim=True), last, index)
        indices.append(index)
    ordered = sort(x, axis)
    outs = []
    for index in indices:
        below = floor(index).astype("int32")
        upper = ceil(index).astype("int32")
        v_upper = take_along_axis(ordered, upper, axis=axis)
        v_below = take_along_axis(ordered, below, axis=axis)
        weights = index - below.astype("float64")
        # paddle.lerp with a tensor weight: the lerp op (declared with the
        # elementwise math, ops/defs/math_extra.py)
        out = bind(get_op("lerp"), (v_below.astype("float64"), v_upper.astype("float64"),
                                    weights))[0]
        out = M.squeeze(out, axis=axis) if not keepdim else M.reshape(out, out_shape)
        outs.append(out)
    return M.stack(outs, 0) if len(q) > 1 else outs[0]


def quantile(x, q, axis=None, keepdim=False):
    """The q-quantiles along ``axis`` (NaN where a NaN is reduced); float64."""
    return _quantile(x, q, axis, keepdim, ignore_nan=False)


def nanquantile(x, q, axis=None, keepdim=False):
    """The q-quantiles along ``axis`` ignoring NaN; float64."""
    return _quantile(x, q, axis, keepdim, ignore_nan=True)


# ------------------------------------------------------------------ searching, counting
def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None):
    """Positions that keep ``sorted_sequence`` (its last dim) sorted if each value
    were inserted there (after equal entries when ``right``)."""
    return bind(_OPS["searchsorted"], (sorted_sequence, values),
                {"out_int32": bool(out_int32), "right": bool(right)})[0]


def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None):
    """``searchsorted`` of x's values in a 1-D ``sorted_sequence``."""
    if len(sorted_sequence.shape) != 1:
        raise OpError(f"bucketize: sorted_sequence must be 1-D, got "
                      f"{len(sorted_sequence.shape)} dims")
    return searchsorted(sorted_sequence, x, out_int32, right, name)


def histogram(input, bins=100, min=0, max=0, name=None):
    """Counts (int64) of ``bins`` equal bins over [min, max] (x's range when equal)."""
    attrs = {"bins": _int(bins, "histogram", "bins"), "min": _int(min, "histogram", "min"),
             "max": _int(max, "histogram", "max")}
    return bind(_OPS["histogram"], (input,), attrs)[0]


def bincount(x, weights=None, minlength=0, name=None):
    """Occurrences of each non-negative integer in 1-D x (weighted sums with
    ``weights``), at least ``minlength`` of them."""
    if _np_dtype(x) not in (np.int32, np.int64):
        raise TypeError(f"bincount: elements of x should all be integers (int32 or int64), "
                        f"got {_np_dtype(x)}")
    return bind(_OPS["bincount"], (x, weights),
                {"minlength": _int(minlength, "bincount", "minlength")})[0]


def count_nonzero(x, axis=None, keepdim=False, name=None):
    """Number of nonzero entries along axis (int64): cast to bool, to int64, sum."""
    if isinstance(axis, int):
        axis = [axis]
    return _sum(cast(cast(x, "bool"), "int64"), axis=axis, keepdim=keepdim)


# ------------------------------------------------------------------ scans
def _cum_extreme(op, fn, x, axis, dtype):
    if axis is None:
        axis = -1
        x = M.flatten(x, 0, len(x.shape) - 1)
    attrs = {"axis": _int(axis, fn, "axis"), "dtype": to_enum(dtype)}
    out, indices = bind(_OPS[op], (x,), attrs)
    return out, indices


def cummax(x, axis=None, dtype="int64", name=None):
    """(running maximum, its latest position) along axis (flattened when None)."""
    return _cum_extreme("cummax", "cummax", x, axis, dtype)


def cummin(x, axis=None, dtype="int64", name=None):
    """(running minimum, its latest position) along axis (flattened when None)."""
    return _cum_extreme("cummin", "cummin", x, axis, dtype)


def _cast_to(x, dtype):
    if dtype is not None and to_np_dtype(dtype) != _np_dtype(x):
        return cast(x, dtype)
    return x


def cumprod(x, dim=None, dtype=None, name=None):
    """Cumulative product along ``dim`` (required), after casting to ``dtype``."""
    x = _cast_to(x, dtype)
    return bind(_OPS["cumprod"], (x,), {"dim": _int(dim, "cumprod", "dim")})[0]


def cumprod_(x, dim=None, dtype=None, name=None):
    return inplace(x, lambda t: cumprod(t, dim, dtype))


def cumsum_(x, axis=None, dtype=None, name=None):
    return inplace(x, lambda t: cumsum(t, axis, dtype))


def logcumsumexp(x, axis=None, dtype=None, name=None):
    """``log(cumsum(exp(x)))`` along axis (flattened when None), computed stably."""
    x = _cast_to(x, dtype)
    if axis is None:
        return bind(_OPS["logcumsumexp"], (x,), {"axis": -1, "flatten": True})[0]
    return bind(_OPS["logcumsumexp"], (x,), {"axis": _int(axis, "logcumsumexp", "axis"),
                                             "flatten": False})[0]


def logsumexp(x, axis=None, keepdim=False, name=None):
    """``log(sum(exp(x)))`` over axis (None, an int or a list)."""
    if axis is not None and not isinstance(axis, list):
        if isinstance(axis, (tuple, range)):
            axis = list(axis)
        elif isinstance(axis, int):
            axis = [axis]
        else:
            raise TypeError(f"logsumexp: the type of axis must be int, list or tuple, but "
                            f"received {type(axis)}")
    axis = [] if axis is None else [_int(a, "logsumexp", "axis") for a in axis]
    reduce_all = axis == [] or len(axis) == len(x.shape)
    return bind(_OPS["logsumexp"], (x,), {"axis": axis, "keepdim": bool(keepdim),
                                          "reduce_all": reduce_all})[0]


# ------------------------------------------------------------------ NaN-ignoring reductions
def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    """``sum`` with NaN counted as zero."""
    zero = zeros_like(x)
    tmp = where(isnan(x), zero, x)
    return _sum(tmp, axis, dtype, keepdim)


def nanmean(x, axis=None, keepdim=False, name=None):
    """``mean`` of the non-NaN entries (NaN where there are none)."""
    if isinstance(axis, int):
        axis = [axis]
    cnt = _sum(~isnan(x), axis=axis, keepdim=keepdim)
    return divide(nansum(x, axis=axis, keepdim=keepdim), cnt.astype(x.dtype))
