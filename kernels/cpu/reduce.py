"""numpy kernels of the reductions, mean, arg_max/arg_min, cumsum, top_k_v2."""
import math

import numpy as np

from ...ops import OpError
from ...ops.dtypes import ENUM_TO_NP
from ...ops.defs.reduce import reduce_out_dtype
from ..registry import kernel, FLOATS, NUMERIC, ALL

_INT64 = np.dtype("int64")


def reduce_axes(x, attrs):
    """numpy ``axis`` of a reduce op: None for the whole tensor."""
    if attrs["reduce_all"] or x.ndim == 0:
        return None
    dim = attrs["dim"]
    if not dim:
        return None
    return tuple(dim) if len(dim) > 1 else dim[0]


def _kept_shape(x, attrs):
    """x's shape with the reduced axes set to 1 (to broadcast a gradient back)."""
    axes = reduce_axes(x, attrs)
    nd = x.ndim
    if axes is None:
        return (1,) * nd
    axes = {a % nd for a in (axes if isinstance(axes, tuple) else (axes,))}
    return tuple(1 if i in axes else d for i, d in enumerate(x.shape))


def _expand(g, x, attrs):
    return g.reshape(_kept_shape(x, attrs))


def _reducer(op_type, fn, dtypes, promote=False, fixed=None):
    @kernel(op_type, dtypes=dtypes)
    def k(ins, attrs, need):
        x = ins[0]
        dt = reduce_out_dtype(attrs, x.dtype, promote, fixed)
        out = fn(x, reduce_axes(x, attrs), dt, attrs["keep_dim"])
        return (np.asarray(out) if out.dtype == dt else np.asarray(out, dtype=dt),)

    def fast(attrs):
        od = attrs.get("out_dtype", -1)
        if promote or fixed is not None or (od is not None and od != -1):
            return None
        ax = None if attrs["reduce_all"] else reduce_axes(_ND1, attrs)
        kd = attrs["keep_dim"]

        def f(x):       # what k computes, with the attribute work done once
            dt = x.dtype
            out = fn(x, ax if x.ndim else None, dt, kd)
            return np.asarray(out) if out.dtype == dt else np.asarray(out, dtype=dt)
        return f
    k.fast = fast
    k.fresh = True
    return k


_ND1 = np.empty((1,))       # reduce_axes needs an x; only "is it 0-d" matters


def _mean(x, ax, dt, kd):
    """np.mean(x, ax, dtype=dt, keepdims=kd) without its Python-level wrapper
    for float32/float64 (the same sum, the same division in float64 by the
    count as an intp, so the same bits); other cases call np.mean."""
    if not x.size:
        raise OpError("op 'reduce_mean': the tensor to reduce is empty (its mean is "
                      "undefined; Paddle raises too)")
    if dt is not x.dtype or dt.kind != "f" or dt.itemsize < 4:
        return np.mean(x, axis=ax, dtype=dt, keepdims=kd)
    s = np.add.reduce(x, axis=ax, dtype=dt, keepdims=kd)
    if type(s) is np.ndarray:
        return np.true_divide(s, np.intp(x.size // max(s.size, 1)), out=s, casting="unsafe")
    # a full reduction: the same float64 division as numpy's, in Python floats
    return np.asarray(float(s) / x.size, dtype=dt)


_reducer("reduce_sum", lambda x, ax, dt, kd: np.sum(x, axis=ax, dtype=dt, keepdims=kd),
         NUMERIC + ("bool",), promote=True)
_reducer("reduce_mean", _mean, FLOATS)


def _int_mean(x, ax, dt, kd):
    """Paddle's int32/int64/bool mean (Eigen's mean in X's own type): the sum in
    X's dtype (wrapping on overflow), divided by the count truncating toward
    zero; for bool the sum is an or, so the mean is ``any``."""
    if not x.size:
        raise OpError("op 'reduce_mean': the tensor to reduce is empty (Paddle: "
                      "\"Tensor need be reduced must not empty\")")
    if x.dtype.kind == "b":
        return np.any(x, axis=ax, keepdims=kd)
    s = np.asarray(np.sum(x, axis=ax, dtype=x.dtype, keepdims=kd))
    n = x.dtype.type(x.size // max(s.size, 1))
    q = s // n
    q += ((s < 0) & (q * n != s)).astype(x.dtype)     # floor -> toward zero
    return q


_reducer("reduce_mean", _int_mean, ("bool", "int32", "int64"))
_reducer("reduce_prod", lambda x, ax, dt, kd: np.prod(x, axis=ax, dtype=dt, keepdims=kd),
         NUMERIC)
for _t in ("reduce_max", "reduce_amax"):
    _reducer(_t, lambda x, ax, dt, kd: np.max(x, axis=ax, keepdims=kd), NUMERIC)
for _t in ("reduce_min", "reduce_amin"):
    _reducer(_t, lambda x, ax, dt, kd: np.min(x, axis=ax, keepdims=kd), NUMERIC)
_reducer("reduce_all", lambda x, ax, dt, kd: np.all(x, axis=ax, keepdims=kd), ALL,
         fixed=np.dtype(bool))
_reducer("reduce_any", lambda x, ax, dt, kd: np.any(x, axis=ax, keepdims=kd), ALL,
         fixed=np.dtype(bool))


def _broadcast(g, x):
    """A writable array of x's shape and dtype holding g broadcast."""
    out = np.empty(x.shape, dtype=x.dtype)
    out[...] = g
    return out


@kernel("reduce_sum_grad", dtypes=NUMERIC)
def reduce_sum_grad(ins, attrs, need):
    x, g = ins
    return (_broadcast(_expand(g, x, attrs), x),)


@kernel("reduce_mean_grad", dtypes=FLOATS)
def reduce_mean_grad(ins, attrs, need):
    x, g = ins
    kept = _kept_shape(x, attrs)
    n = x.size // max(math.prod(kept), 1) if x.size else 1
    return (_broadcast(g.reshape(kept) / n, x),)


def _mean_grad_fast(attrs):
    memo = {}       # x's shape -> (kept shape, count): the attribute work, once per shape

    def f(x, g):
        shape = x.shape
        e = memo.get(shape)
        if e is None:
            kept = _kept_shape(x, attrs)
            e = (kept, x.size // max(math.prod(kept), 1) if x.size else 1)
            if len(memo) < 64:
                memo[shape] = e
        out = np.empty(shape, dtype=x.dtype)
        out[...] = g.reshape(e[0]) / e[1]
        return out
    return f


reduce_mean_grad.fast = _mean_grad_fast


# the gradient is a new array (executor/reuse.py); X only gives the shape
# (declared: the grad ops' no_need_buffer)
for _k in (reduce_sum_grad, reduce_mean_grad):
    _k.fresh = True


def _extreme_grad(even):
    def k(ins, attrs, need):
        x, out, g = ins
        mask = x == _expand(out, x, attrs)
        gx = _expand(g, x, attrs)
        if even:   # amax/amin share the gradient among ties
            cnt = mask.sum(axis=reduce_axes(x, attrs), keepdims=True)
            gx = gx / cnt
        return (np.where(mask, gx, 0).astype(x.dtype, copy=False),)
    return k


kernel("reduce_max_grad", "reduce_min_grad", dtypes=NUMERIC)(_extreme_grad(False))
kernel("reduce_amax_grad", "reduce_amin_grad", dtypes=NUMERIC)(_extreme_grad(True))


@kernel("reduce_prod_grad", dtypes=FLOATS)
def reduce_prod_grad(ins, attrs, need):
    # Paddle's rule dX = dOut * Out / X (undefined where X is 0)
    x, out, g = ins
    with np.errstate(divide="ignore", invalid="ignore"):
        return ((_expand(g, x, attrs) * _expand(out, x, attrs) / x).astype(x.dtype),)


@kernel("mean", dtypes=FLOATS)
def mean(ins, attrs, need):
    return (np.asarray(np.mean(ins[0]), dtype=ins[0].dtype),)


@kernel("mean_grad", dtypes=FLOATS)
def mean_grad(ins, attrs, need):
    x, g = ins
    return (_broadcast(g.reshape(()) / max(x.size, 1), x),)


# ------------------------------------------------------------------ arg_max / arg_min
def _arg(fn):
    def k(ins, attrs, need):
        x = ins[0]
        dt = ENUM_TO_NP[3 if attrs["dtype"] == -1 else attrs["dtype"]]
        if attrs["flatten"] or x.ndim == 0:
            r = np.asarray(fn(x.reshape(-1)) if x.size else 0, dtype=dt)
            return (r.reshape((1,) * x.ndim) if attrs["keepdims"] else r,)
        r = fn(x, axis=attrs["axis"], keepdims=attrs["keepdims"])
        return (np.asarray(r, dtype=dt),)
    return k


kernel("arg_max", dtypes=NUMERIC)(_arg(np.argmax))
kernel("arg_min", dtypes=NUMERIC)(_arg(np.argmin))


# ------------------------------------------------------------------ cumsum
def _shift(a, axis):
    """Exclusive scan from inclusive: a shifted by one along axis, zero first."""
    out = np.zeros_like(a)
    src = [slice(None)] * a.ndim
    dst = [slice(None)] * a.ndim
    src[axis] = slice(None, -1)
    dst[axis] = slice(1, None)
    out[tuple(dst)] = a[tuple(src)]
    return out


def cumsum(x, axis, flatten, exclusive, reverse):
    if flatten:
        x, axis = x.reshape(-1), 0
    if x.ndim == 0:
        return x.copy()
    if reverse:
        x = np.flip(x, axis)
    out = np.cumsum(x, axis=axis, dtype=x.dtype)
    if exclusive:
        out = _shift(out, axis)
    if reverse:
        out = np.ascontiguousarray(np.flip(out, axis))
    return out


@kernel("cumsum", dtypes=NUMERIC)
def cumsum_k(ins, attrs, need):
    return (cumsum(ins[0], attrs["axis"], attrs["flatten"], attrs["exclusive"],
                   attrs["reverse"]),)


@kernel("cumsum_grad", dtypes=NUMERIC)
def cumsum_grad(ins, attrs, need):
    # the adjoint of a scan is the scan in the other direction
    x, g = ins
    d = cumsum(g, -1 if attrs["flatten"] else attrs["axis"], False, attrs["exclusive"],
               not attrs["reverse"])
    return (d.reshape(x.shape),)


# ------------------------------------------------------------------ top_k_v2
def topk_indices(x, k, axis, largest):
    """Indices of the k largest (smallest) along axis, ties by lower index first."""
    key = x
    if largest:
        key = -x.astype(np.int64) if x.dtype.kind in "ub" else -x
    if k < x.shape[axis] // 4:
        # partition, then order the k candidates by (value, index): a stable sort
        # by index followed by a stable sort by value
        part = np.take(np.argpartition(key, k - 1, axis=axis), np.arange(k), axis=axis)
        part = np.sort(part, axis=axis)
        vals = np.take_along_axis(key, part, axis=axis)
        return np.take_along_axis(part, np.argsort(vals, axis=axis, kind="stable"), axis=axis)
    idx = np.argsort(key, axis=axis, kind="stable")
    return np.take(idx, np.arange(k), axis=axis)


@kernel("top_k_v2", dtypes=NUMERIC)
def top_k_v2(ins, attrs, need):
    x, kt = ins
    if x.ndim == 0:
        return x.copy(), np.zeros((), _INT64)
    k = attrs["k"] if kt is None else int(kt.reshape(-1)[0])
    axis = attrs["axis"]
    if not -x.ndim <= axis < x.ndim:
        raise OpError(f"op 'top_k_v2': axis {axis} is out of range for a tensor of rank "
                      f"{x.ndim}")
    axis %= x.ndim
    idx = topk_indices(x, k, axis, attrs["largest"])
    return np.take_along_axis(x, idx, axis=axis), idx.astype(_INT64, copy=False)


@kernel("top_k_v2_grad", dtypes=FLOATS)
def top_k_v2_grad(ins, attrs, need):
    x, idx, g = ins
    dx = np.zeros(x.shape, dtype=g.dtype)
    if x.ndim == 0:
        return (g.copy(),)
    np.put_along_axis(dx, idx, g, axis=attrs["axis"] % x.ndim)
    return (dx,)
