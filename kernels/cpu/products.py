"""numpy kernels of ops/defs/products.py: cross, mv, addmm, trace, dist,
renorm, einsum, and their grads."""
import numpy as np

from ...ops import OpError
from ...ops.defs.products import (cross_axis, mv_check, addmm_shape, trace_axes,
                                  parse_einsum)
from ..registry import kernel, FLOATS, NUMERIC
from .elementwise import reduce_to
from .math_extra import f32


# ------------------------------------------------------------------ cross
@kernel("cross", dtypes=NUMERIC)
def cross(ins, attrs, need):
    x, y = ins
    ax = cross_axis(x.shape, y.shape, attrs["dim"])
    return (np.cross(x, y, axis=ax),)


@kernel("cross_grad", dtypes=NUMERIC)
def cross_grad(ins, attrs, need):
    # <g, x cross y> = <x, y cross g> = <y, g cross x>
    x, y, g = ins
    ax = cross_axis(x.shape, y.shape, attrs["dim"])
    return np.cross(y, g, axis=ax), np.cross(g, x, axis=ax)


# ------------------------------------------------------------------ mv
@kernel("mv", dtypes=FLOATS)
def mv(ins, attrs, need):
    x, v = ins
    mv_check(x.shape, v.shape)
    return (np.asarray(x @ v),)


@kernel("mv_grad", dtypes=FLOATS)
def mv_grad(ins, attrs, need):
    x, v, g = ins
    return np.outer(g, v), np.asarray(x.T @ g)


# ------------------------------------------------------------------ addmm
@kernel("addmm", dtypes=FLOATS)
def addmm(ins, attrs, need):
    i, x, y = ins
    addmm_shape(i.shape, x.shape, y.shape)
    dt = x.dtype.type
    beta, alpha = dt(f32(attrs["Beta"])), dt(f32(attrs["Alpha"]))
    out = alpha * (x @ y)
    if beta != 0:           # beta = 0 ignores input (its NaNs too), as BLAS does
        out = beta * i + out
    return (np.asarray(out, dtype=x.dtype),)


@kernel("addmm_grad", dtypes=FLOATS)
def addmm_grad(ins, attrs, need):
    i, x, y, g = ins
    dt = g.dtype.type
    alpha, beta = dt(f32(attrs["Alpha"])), dt(f32(attrs["Beta"]))
    di = reduce_to(g * beta, i.shape) if need is None or need[0] else None
    dx = (g @ y.T) * alpha if need is None or need[1] else None
    dy = (x.T @ g) * alpha if need is None or need[2] else None
    return di, dx, dy


# ------------------------------------------------------------------ trace
@kernel("trace", dtypes=NUMERIC)
def trace(ins, attrs, need):
    x = ins[0]
    a1, a2 = trace_axes(x.shape, attrs["offset"], attrs["axis1"], attrs["axis2"])
    return (np.asarray(np.trace(x, attrs["offset"], a1, a2), dtype=x.dtype),)


@kernel("trace_grad", dtypes=NUMERIC)
def trace_grad(ins, attrs, need):
    x, g = ins
    a1, a2 = trace_axes(x.shape, attrs["offset"], attrs["axis1"], attrs["axis2"])
    dx = np.zeros(x.shape, g.dtype)
    view = np.moveaxis(dx, (a1, a2), (-2, -1))         # writes go to dx
    off = attrs["offset"]
    rows, cols = view.shape[-2], view.shape[-1]
    r0, c0 = (0, off) if off >= 0 else (-off, 0)
    n = max(0, min(rows - r0, cols - c0))
    k = np.arange(n)
    view[..., r0 + k, c0 + k] = g[..., None]
    return (dx,)


# ------------------------------------------------------------------ dist
def _p_reduce(d, p):
    a = np.abs(d)
    if a.size == 0:
        return np.zeros((), d.dtype)
    if p == 0:
        return np.asarray(np.count_nonzero(d), d.dtype)
    if p == np.inf:
        return np.asarray(a.max(), d.dtype)
    if p == -np.inf:
        return np.asarray(a.min(), d.dtype)
    return np.asarray(np.sum(a ** p) ** (1.0 / p), d.dtype)


@kernel("dist", dtypes=FLOATS)
def dist(ins, attrs, need):
    x, y = ins
    return (_p_reduce(x - y, f32(attrs["p"])),)


@kernel("dist_grad", dtypes=FLOATS)
def dist_grad(ins, attrs, need):
    x, y, out, g = ins
    d = x - y
    p = f32(attrs["p"])
    o = out.reshape(())
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0 or o == 0:
            gd = np.zeros_like(d)
        elif p in (np.inf, -np.inf):
            gd = np.sign(d) * (np.abs(d) == o)
        else:
            gd = np.sign(d) * np.abs(d) ** (p - 1) / o ** (p - 1)
    gd = np.asarray(gd * g.reshape(()), dtype=d.dtype)
    dx = reduce_to(gd, x.shape) if need is None or need[0] else None
    dy = reduce_to(-gd, y.shape) if need is None or need[1] else None
    return dx, dy


# ------------------------------------------------------------------ renorm
def _renorm_scale(x, attrs):
    """(the norm of each slice along ``axis`` shaped to broadcast, the factor)."""
    ax = attrs["axis"]
    if not -x.ndim <= ax < x.ndim:
        raise OpError(f"op 'renorm': axis {ax} is out of range for a tensor of rank {x.ndim}")
    ax %= x.ndim
    others = tuple(i for i in range(x.ndim) if i != ax)
    p, max_norm = f32(attrs["p"]), f32(attrs["max_norm"])
    with np.errstate(divide="ignore", over="ignore"):
        inv = np.float64(1.0) / np.float64(p)           # p = 0: every norm is inf
        norm = np.sum(np.abs(x) ** p, axis=others, keepdims=True) ** inv
    scale = np.where(norm > max_norm, max_norm / (norm + 1e-7), 1.0)
    return norm, scale, others


@kernel("renorm", dtypes=FLOATS)
def renorm(ins, attrs, need):
    x = ins[0]
    _, scale, _ = _renorm_scale(x, attrs)
    return (np.asarray(x * scale, dtype=x.dtype),)


@kernel("renorm_grad", dtypes=FLOATS)
def renorm_grad(ins, attrs, need):
    # out = x c / (N + e) where N > c: dx = s g - c/(N + e)^2 dN/dx sum(g x),
    # dN/dx = sign(x) |x|^(p-1) / N^(p-1)
    x, g = ins
    norm, scale, others = _renorm_scale(x, attrs)
    p, c = f32(attrs["p"]), f32(attrs["max_norm"])
    over = norm > c
    with np.errstate(divide="ignore", invalid="ignore"):
        dn = np.sign(x) * np.abs(x) ** (p - 1) / norm ** (p - 1)
        gx = np.sum(g * x, axis=others, keepdims=True)
        corr = np.where(over, c / (norm + 1e-7) ** 2, 0.0) * dn * gx
    return (np.asarray(g * scale - np.where(over, corr, 0.0), dtype=x.dtype),)


# ------------------------------------------------------------------ einsum
def _diagonal(labels, unique, a):
    """The writeable view of ``a`` (labelled ``labels``) along its diagonals:
    the labels ``unique``, each once."""
    return np.einsum(f"{labels}->{unique}", a)


def einsum_eval(e, arrays):
    """The contraction of a parsed equation ``e`` (ops/defs/products.py)."""
    res = np.asarray(np.einsum(e.equation, *arrays, optimize=len(arrays) > 2))
    if e.unique_output == e.output:
        return res
    out = np.zeros(e.out_shape(), res.dtype)
    _diagonal(e.output, e.unique_output, out)[...] = res
    return out


@kernel("einsum", dtypes=FLOATS)
def einsum(ins, attrs, need):
    xs = ins[0]
    if len({x.dtype for x in xs}) > 1:
        raise OpError(f"op 'einsum': the operands have dtypes {[x.dtype.name for x in xs]}; "
                      f"they must match")
    e = parse_einsum(attrs["equation"], [x.shape for x in xs])
    out = einsum_eval(e, xs).astype(xs[0].dtype, copy=False)
    if any(np.may_share_memory(out, x) for x in xs):    # "ij->ji", "ii->i": numpy views
        out = out.copy()
    # InnerCache keeps the operands for the grad; XShape their shapes (no data)
    shapes = [np.broadcast_to(np.zeros((), x.dtype), x.shape) for x in xs]
    return out, list(xs), shapes


@kernel("einsum_grad", dtypes=FLOATS)
def einsum_grad(ins, attrs, need):
    _, xs, g = ins
    e = parse_einsum(attrs["equation"], [x.shape for x in xs])
    out_labels = e.unique_output
    if out_labels != e.output:          # only the diagonal reached the output
        g = _diagonal(e.output, out_labels, g)
    grads = []
    for k, x in enumerate(xs):
        labels = e.inputs[k]
        uniq = "".join(dict.fromkeys(labels))
        others = [(lab, a) for j, (lab, a) in enumerate(zip(e.inputs, xs)) if j != k]
        present = set(out_labels).union(*(set(lab) for lab, _ in others))
        keep = "".join(c for c in uniq if c in present)
        eq = ",".join([out_labels] + [lab for lab, _ in others]) + "->" + keep
        part = np.einsum(eq, g, *(a for _, a in others))
        # labels only this operand has were summed away: the gradient is
        # constant along them
        full = np.expand_dims(part, tuple(i for i, c in enumerate(uniq) if c not in present)) \
            if len(keep) < len(uniq) else part
        full = np.broadcast_to(full, tuple(e.sizes[c] for c in uniq))
        if len(uniq) == len(labels):
            dx = np.array(full)
        else:                   # a repeated label: the gradient sits on the diagonal
            dx = np.zeros(x.shape, g.dtype)
            _diagonal(labels, uniq, dx)[...] = full
        grads.append(np.asarray(dx, dtype=x.dtype).reshape(x.shape))
    return (grads,)
