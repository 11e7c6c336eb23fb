"""numpy kernels of the sorting, searching and statistics ops (ops/defs/sort_search.py).

Orders are Paddle's CPU orders: a stable sort with NaN after every number
(before every number when descending); kthvalue is position k-1 of that
order; mode is the smallest of the most frequent values, at its last
occurrence; the scans keep the last position of a tie, and once a NaN is
seen it is the running extreme (at the latest NaN's position).
"""
import functools

import numpy as np

from ...ops import Meta, OpError, get_op
from ...ops.defs.sort_search import (bincount_dtype, index_dtype, nanmedian_axes,
                                     unique_axis)
from ...ops.errors import OUT_OF_RANGE
from ..registry import kernel, register_kernel, FLOATS, NUMERIC

_INT64 = np.dtype("int64")
# Paddle's CPU kernels of these ops: float32, float64, int32, int64 (float16 and
# the small integers are sampan's documented superset)
_SORTABLE = NUMERIC


def _last(x, axis):
    """x with ``axis`` moved last, and the function moving it back."""
    moved = np.moveaxis(x, axis, -1)
    return moved, (lambda a: np.moveaxis(a, -1, axis))


def _meta(a):
    return None if a is None else Meta(a.shape, a.dtype)


def checked_kernel(op_type, dtypes):
    """Register a forward kernel that first runs the op's infer_meta on the actual
    inputs: the eager engine calls kernels only, and these checks (axis ranges,
    k, bins, shapes) are Paddle's errors in every mode."""
    infer = get_op(op_type).infer_meta

    def deco(fn):
        @functools.wraps(fn)
        def run(ins, attrs, need):
            infer(tuple(_meta(a) for a in ins), attrs)
            return fn(ins, attrs, need)
        register_kernel(op_type, dtypes)(run)
        return fn
    return deco


# ------------------------------------------------------------------ argsort
def sort_order(x, axis, descending=False):
    """Stable argsort along axis: NaN last ascending, first descending."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    if x.dtype.kind in "iu":
        return np.argsort(~x, axis=axis, kind="stable")     # ~ reverses integer order
    nan = np.isnan(x)
    key = np.where(nan, 0, -x)
    # lexsort: the last key is the primary one (NaN, i.e. not ~nan, first)
    order = np.lexsort((np.moveaxis(key, axis, -1), np.moveaxis(~nan, axis, -1)), axis=-1)
    return np.moveaxis(order, -1, axis)


@checked_kernel("argsort", _SORTABLE)
def argsort(ins, attrs, need):
    x = ins[0]
    if x.ndim == 0:
        return x.copy(), np.zeros((), _INT64)
    axis = attrs["axis"] % x.ndim
    idx = sort_order(x, axis, attrs["descending"])
    return np.take_along_axis(x, idx, axis=axis), idx.astype(_INT64, copy=False)


def _scatter_along(shape, dtype, idx, g, axis, add=False):
    """Zeros of ``shape`` with ``g`` written (or added) at ``idx`` along axis."""
    dx = np.zeros(shape, dtype)
    if dx.ndim == 0:
        return np.asarray(g, dtype).reshape(())
    if add:
        moved, back = _last(dx, axis)
        im, gm = np.moveaxis(idx, axis, -1), np.moveaxis(g, axis, -1)
        n = moved.shape[-1]
        flat = moved.reshape(-1, n)
        rows = np.arange(flat.shape[0])[:, None]
        np.add.at(flat, (rows, im.reshape(flat.shape[0], -1)), gm.reshape(flat.shape[0], -1))
        return np.ascontiguousarray(back(flat.reshape(moved.shape)))
    np.put_along_axis(dx, idx, g, axis=axis)
    return dx


@kernel("argsort_grad", dtypes=FLOATS)
def argsort_grad(ins, attrs, need):
    idx, x, g = ins
    axis = attrs["axis"] % x.ndim if x.ndim else 0
    return (_scatter_along(x.shape, g.dtype, idx, g, axis),)


# ------------------------------------------------------------------ kthvalue / mode
def _keep(a, axis, keepdim):
    """A reduced result with the reduced axis back when ``keepdim``."""
    return np.expand_dims(a, axis) if keepdim else a


@checked_kernel("kthvalue", _SORTABLE)
def kthvalue(ins, attrs, need):
    x, k = ins[0], attrs["k"]
    if x.ndim == 0:                          # k is 1 (infer_meta checked it)
        return x.copy(), np.zeros((), _INT64)
    axis = attrs["axis"] % x.ndim
    pos = np.take(sort_order(x, axis), [k - 1], axis=axis)
    vals = np.take_along_axis(x, pos, axis=axis)
    if not attrs["keepdim"]:
        pos, vals = np.squeeze(pos, axis), np.squeeze(vals, axis)
    return vals, pos.astype(_INT64, copy=False)


@kernel("kthvalue_grad", "mode_grad", dtypes=FLOATS)
def select_grad(ins, attrs, need):
    x, idx, g = ins
    if x.ndim == 0:
        return (g.copy(),)
    axis, drop = attrs["axis"] % x.ndim, not attrs["keepdim"]
    return (_scatter_along(x.shape, g.dtype, _keep(idx, axis, drop), _keep(g, axis, drop),
                           axis),)


@checked_kernel("mode", _SORTABLE)
def mode(ins, attrs, need):
    x = ins[0]
    if x.ndim == 0:
        return x.copy(), np.zeros((), _INT64)
    axis = attrs["axis"] % x.ndim
    xm, back = _last(x, axis)
    n = xm.shape[-1]
    rows = xm.reshape(-1, n)
    order = np.argsort(rows, axis=-1, kind="stable")
    s = np.take_along_axis(rows, order, axis=-1)
    # runs of equal values (a NaN is a run of its own); at each run's last
    # element its length, elsewhere -1; the first longest run is the smallest value
    pos = np.arange(n)
    start = np.ones(s.shape, bool)
    start[:, 1:] = s[:, 1:] != s[:, :-1]
    first = np.maximum.accumulate(np.where(start, pos, 0), axis=-1)
    end = np.ones(s.shape, bool)
    end[:, :-1] = start[:, 1:]
    length = np.where(end, pos - first + 1, -1)
    best = np.argmax(length, axis=-1)[:, None]
    vals = np.take_along_axis(s, best, axis=-1).reshape(xm.shape[:-1])
    idx = np.take_along_axis(order, best, axis=-1).reshape(xm.shape[:-1]).astype(_INT64)
    return _keep(vals, axis, attrs["keepdim"]), _keep(idx, axis, attrs["keepdim"])


# ------------------------------------------------------------------ nanmedian
def _rows(x, axes):
    """x with the reduced axes last, as (rows, n), and the permutation used."""
    keep = [i for i in range(x.ndim) if i not in axes]
    perm = keep + list(axes)
    xt = np.transpose(x, perm)
    lead = xt.shape[:len(keep)]
    return xt.reshape(int(np.prod(lead, dtype=np.int64)), -1), perm, xt.shape


def _half_sum(a, b):
    """(a + b) / 2 in the inputs' dtype (integers divided toward zero, as C++)."""
    if a.dtype.kind == "f":
        return (a + b) / a.dtype.type(2)
    s = a + b
    return s // 2 + ((s < 0) & (s % 2 != 0))


def _out_shape(x, axes, keepdim):
    if keepdim:
        return tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    return tuple(d for i, d in enumerate(x.shape) if i not in axes)


@checked_kernel("nanmedian", _SORTABLE)
def nanmedian(ins, attrs, need):
    x = ins[0]
    axes = nanmedian_axes(attrs["axis"], x.ndim)
    if x.size == 0:
        raise OpError("op 'nanmedian': the input must not be empty, got shape "
                      f"{list(x.shape)}")
    rows, _, _ = _rows(x, axes)
    m, n = rows.shape
    nan = np.isnan(rows) if rows.dtype.kind == "f" else np.zeros(rows.shape, bool)
    cnt = n - nan.sum(axis=-1)
    order = np.argsort(rows, axis=-1, kind="stable")          # NaN last
    lo = np.maximum((cnt - 1) // 2, 0)[:, None]
    hi = np.maximum(cnt // 2, 0)[:, None]
    i_lo = np.take_along_axis(order, lo, axis=-1)[:, 0]
    i_hi = np.take_along_axis(order, hi, axis=-1)[:, 0]
    r = np.arange(m)
    out = _half_sum(rows[r, i_lo], rows[r, i_hi])
    empty = cnt == 0
    if empty.any():
        out = np.where(empty, np.nan, out).astype(rows.dtype)
        i_lo, i_hi = np.where(empty, -1, i_lo), np.where(empty, -1, i_hi)
    shape = _out_shape(x, axes, attrs["keepdim"]) if axes else \
        (x.shape if attrs["keepdim"] else ())
    index = np.stack([i_lo, i_hi], axis=-1).astype(_INT64).reshape(shape + (2,))
    return np.asarray(out, x.dtype).reshape(shape), index


@kernel("nanmedian_grad", dtypes=FLOATS)
def nanmedian_grad(ins, attrs, need):
    x, index, g = ins
    axes = nanmedian_axes(attrs["axis"], x.ndim)
    rows, perm, tshape = _rows(x, axes)
    m = rows.shape[0]
    index = index.reshape(m, 2)
    g = g.reshape(m)
    dx = np.zeros(rows.shape, g.dtype)
    r = np.arange(m)
    ok = index[:, 0] >= 0
    half = g * g.dtype.type(0.5)
    np.add.at(dx, (r[ok], index[ok, 0]), half[ok])
    np.add.at(dx, (r[ok], index[ok, 1]), half[ok])
    return (np.ascontiguousarray(np.transpose(dx.reshape(tshape), np.argsort(perm))),)


# ------------------------------------------------------------------ unique
def _unique_rows(x, axis):
    """(unique values, first index, inverse, counts) along axis (None: flattened),
    sorted; numpy's np.unique."""
    if axis is None:
        u, first, inv, cnt = np.unique(x.reshape(-1), return_index=True, return_inverse=True,
                                       return_counts=True)
    elif x.shape[axis] == 0:
        u, first, inv, cnt = x, *(np.zeros(0, np.int64),) * 3
    else:
        u, first, inv, cnt = np.unique(x, return_index=True, return_inverse=True,
                                       return_counts=True, axis=axis)
    return u, first, inv.reshape(-1), cnt


@checked_kernel("unique", _SORTABLE)
def unique(ins, attrs, need):
    x = ins[0]
    it = index_dtype(attrs["dtype"], "unique")
    axis = unique_axis(attrs["axis"], x.ndim, "unique")
    u, first, inv, cnt = _unique_rows(x, axis)
    if not attrs["is_sorted"]:
        # the legacy order: unique values in the order of their first appearance
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        u = u[order] if axis is None else np.take(u, order, axis=axis)
        first, cnt, inv = first[order], cnt[order], rank[inv]
    return (np.ascontiguousarray(u), first.astype(it), inv.astype(it), cnt.astype(it))


@checked_kernel("unique_consecutive", _SORTABLE)
def unique_consecutive(ins, attrs, need):
    x = ins[0]
    it = index_dtype(attrs["dtype"], "unique_consecutive")
    axis = unique_axis(attrs["axis"], x.ndim, "unique_consecutive")
    a = x.reshape(-1) if axis is None else np.moveaxis(x, axis, 0)
    n = a.shape[0]
    rows = a.reshape(n, -1)
    new = np.ones(n, bool)
    if n > 1:
        new[1:] = (rows[1:] != rows[:-1]).any(axis=-1) if rows.shape[1] else False
    keep = np.flatnonzero(new)
    out = a[keep]
    if axis is not None:
        out = np.moveaxis(out, 0, axis)
    inverse = np.cumsum(new) - 1
    counts = np.diff(np.append(keep, n))
    return (np.ascontiguousarray(out), inverse.astype(it), counts.astype(it))


# ------------------------------------------------------------------ searchsorted
@checked_kernel("searchsorted", ("float32", "float64", "int32", "int64"))
def searchsorted(ins, attrs, need):
    seq, values = ins
    side = "right" if attrs["right"] else "left"
    dt = np.int32 if attrs["out_int32"] else np.int64
    if seq.ndim == 1:
        out = np.searchsorted(seq, values, side=side)
    else:
        n, k = seq.shape[-1], values.shape[-1] if values.ndim else 1
        s2, v2 = seq.reshape(-1, n), values.reshape(-1, k)
        out = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(s2, v2)]) \
            if len(s2) else np.zeros(v2.shape, np.int64)
        out = out.reshape(values.shape)
    if values.dtype.kind == "f":
        # a NaN value goes after every element (Paddle's kernel)
        out = np.where(np.isnan(values), seq.shape[-1], out)
    return (np.asarray(out, dt),)


# ------------------------------------------------------------------ histogram / bincount
def _data_range(x):
    """min and max of x as std::min_element / max_element see them: NaN when the
    first element is NaN, otherwise the extremes of the numbers."""
    if x.size == 0:
        return x.dtype.type(0), x.dtype.type(0)
    if x.dtype.kind == "f":
        if np.isnan(x[0]):
            return x[0], x[0]
        return np.nanmin(x), np.nanmax(x)
    return x.min(), x.max()


@checked_kernel("histogram", ("float32", "float64", "int32", "int64"))
def histogram(ins, attrs, need):
    x = ins[0].reshape(-1)
    bins = attrs["bins"]
    t = x.dtype.type
    lo, hi = t(attrs["min"]), t(attrs["max"])
    if lo == hi:
        lo, hi = _data_range(x)
    if lo == hi:
        lo, hi = lo - t(1), hi + t(1)
    # Paddle's check (it tests min for inf and max for NaN only)
    if x.dtype.kind == "f" and (np.isinf(lo) or np.isnan(hi)):
        raise OpError("op 'histogram': range of min, max is not finite", kind=OUT_OF_RANGE)
    inside = x[(x >= lo) & (x <= hi)]
    if x.dtype.kind == "f":
        b = ((inside - lo) * t(bins) / (hi - lo)).astype(np.int64)
    else:
        b = (inside.astype(np.int64) - np.int64(lo)) * bins // (np.int64(hi) - np.int64(lo))
    b = np.minimum(b, bins - 1)
    return (np.bincount(b, minlength=bins).astype(_INT64),)


@checked_kernel("bincount", ("float32", "float64", "int32", "int64"))
def bincount(ins, attrs, need):
    x, w = ins                               # shapes and minlength: infer_meta checked
    xi = x.astype(np.int64)
    if xi.size and xi.min() < 0:
        raise OpError("op 'bincount': the elements of x must be non-negative integers")
    out = np.bincount(xi, weights=None if w is None else w.astype(np.float64),
                      minlength=attrs["minlength"])
    return (out.astype(bincount_dtype(None if w is None else w.dtype)),)


# ------------------------------------------------------------------ cummax / cummin
def _cum_extreme(x, axis, take_max):
    """The running extreme and its (latest) position along axis."""
    acc = np.maximum if take_max else np.minimum
    out = acc.accumulate(x, axis=axis)          # np.maximum / minimum propagate NaN
    hit = x == out
    if x.dtype.kind == "f":
        hit |= np.isnan(x)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    pos = np.arange(x.shape[axis]).reshape(shape)
    idx = np.maximum.accumulate(np.where(hit, pos, 0), axis=axis)
    return out, idx


def _cumext(take_max):
    def k(ins, attrs, need):
        x = ins[0]
        it = index_dtype(attrs["dtype"], "cummax/cummin", ValueError)
        if x.ndim == 0:
            return x.copy(), np.zeros((), it)
        out, idx = _cum_extreme(x, attrs["axis"] % x.ndim, take_max)
        return out, idx.astype(it)
    return k


checked_kernel("cummax", _SORTABLE)(_cumext(True))
checked_kernel("cummin", _SORTABLE)(_cumext(False))


@kernel("cummax_grad", "cummin_grad", dtypes=FLOATS)
def cumext_grad(ins, attrs, need):
    x, idx, g = ins
    if x.ndim == 0:
        return (g.copy(),)
    return (_scatter_along(x.shape, g.dtype, idx.astype(np.int64), g, attrs["axis"] % x.ndim,
                           add=True),)


# ------------------------------------------------------------------ cumprod
@checked_kernel("cumprod", NUMERIC)
def cumprod(ins, attrs, need):
    x = ins[0]
    if x.ndim == 0:
        return (x.copy(),)
    return (np.cumprod(x, axis=attrs["dim"] % x.ndim, dtype=x.dtype),)


def _reverse_cumsum(a, axis):
    return np.flip(np.cumsum(np.flip(a, axis), axis=axis), axis)


@kernel("cumprod_grad", dtypes=FLOATS)
def cumprod_grad(ins, attrs, need):
    x, out, g = ins
    if x.ndim == 0:
        return (g.copy(),)
    axis = attrs["dim"] % x.ndim
    if np.all(x != 0):
        return (np.ascontiguousarray(_reverse_cumsum(g * out, axis) / x),)
    # with zeros: dx_j = prod(x_<j) * S_j, S_j = g_j + x_{j+1} S_{j+1}
    xm, back = _last(x, axis)
    gm = np.moveaxis(g, axis, -1)
    n = xm.shape[-1]
    s = np.zeros(gm.shape, g.dtype)
    s[..., n - 1] = gm[..., n - 1]
    for j in range(n - 2, -1, -1):
        s[..., j] = gm[..., j] + xm[..., j + 1] * s[..., j + 1]
    before = np.ones(xm.shape, x.dtype)
    before[..., 1:] = np.cumprod(xm[..., :-1], axis=-1)
    return (np.ascontiguousarray(back(before * s)),)


# ------------------------------------------------------------------ logcumsumexp
def logcumsumexp(x, axis, exclusive=False, reverse=False):
    """The scan of logaddexp from Paddle's identity, the dtype's lowest number (so
    a leading -inf gives that number, not -inf)."""
    if reverse:
        x = np.flip(x, axis)
    low = np.full_like(np.take(x, [0], axis=axis), np.finfo(x.dtype).min)
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.logaddexp.accumulate(np.concatenate([low, x], axis=axis), axis=axis)
    n = x.shape[axis]
    out = np.take(out, np.arange(n) if exclusive else np.arange(1, n + 1), axis=axis)
    if reverse:
        out = np.flip(out, axis)
    return np.ascontiguousarray(out)


def _lcse_axis(x, attrs):
    if attrs["flatten"]:
        return x.reshape(-1), 0
    return x, attrs["axis"] % max(x.ndim, 1)


@checked_kernel("logcumsumexp", FLOATS)
def logcumsumexp_k(ins, attrs, need):
    x, axis = _lcse_axis(ins[0], attrs)
    if x.ndim == 0:
        return (x.copy(),)
    return (logcumsumexp(x, axis, attrs["exclusive"], attrs["reverse"]),)


@kernel("logcumsumexp_grad", dtypes=FLOATS)
def logcumsumexp_grad(ins, attrs, need):
    # dx_i = sum over the outputs j that include x_i of g_j exp(x_i - out_j), split
    # by the sign of g so each part is a logcumsumexp the other way
    x0, out, g = ins
    x, axis = _lcse_axis(x0, attrs)
    if x.ndim == 0:
        return (g.copy(),)
    out, g = out.reshape(x.shape), g.reshape(x.shape)
    ex, rev = attrs["exclusive"], not attrs["reverse"]
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        pos = np.where(g > 0, np.log(np.where(g > 0, g, 1)), -np.inf) - out
        neg = np.where(g < 0, np.log(np.where(g < 0, -g, 1)), -np.inf) - out
        dx = (np.exp(logcumsumexp(pos, axis, ex, rev) + x)
              - np.exp(logcumsumexp(neg, axis, ex, rev) + x))
    return (dx.astype(x0.dtype).reshape(x0.shape),)


# ------------------------------------------------------------------ logsumexp
def _lse_axes(x, attrs):
    if attrs["reduce_all"] or not attrs["axis"]:
        return tuple(range(x.ndim))
    return tuple(sorted({a % x.ndim for a in attrs["axis"]}))


@checked_kernel("logsumexp", FLOATS)
def logsumexp(ins, attrs, need):
    x = ins[0]
    if x.ndim == 0:
        return (x.copy(),)
    axes = _lse_axes(x, attrs)
    m = np.max(x, axis=axes, keepdims=True)
    with np.errstate(invalid="ignore", over="ignore"):
        out = np.log(np.sum(np.exp(x - m), axis=axes, keepdims=True)) + m
    if not attrs["keepdim"]:
        out = np.squeeze(out, axes)
    return (np.asarray(out, x.dtype),)


@kernel("logsumexp_grad", dtypes=FLOATS)
def logsumexp_grad(ins, attrs, need):
    x, out, g = ins
    if x.ndim == 0:
        return (g.copy(),)
    axes = _lse_axes(x, attrs)
    if not attrs["keepdim"]:
        out, g = np.expand_dims(out, axes), np.expand_dims(g, axes)
    return (np.asarray(g * np.exp(x - out), x.dtype),)
