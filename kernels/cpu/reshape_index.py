"""numpy kernels of the triangle, diagonal, index-write and strided-view ops
(ops/defs/reshape_index.py).

Writes copy the input first (no array a Tensor holds is modified); gradients
of gathers scatter-add (``np.add.at`` sums repeated indices).
"""
import numpy as np

from ..registry import kernel, ALL, NUMERIC
from ...ops import OpError, Meta, get_op
from ...ops.errors import OUT_OF_RANGE, PRECONDITION_NOT_MET
from ...ops.dtypes import to_np_dtype
from ...ops.defs.reshape_index import (
    diag_v2_shape, diag_embed_axes, diagonal_axes, diag_len, check_put_along_axis,
    check_index_add, check_scatter_nd, crop_box, view_shape, view_dtype_shape, unfold_shape,
    check_as_strided)
from .manipulation import ints_of

INDEX = ("int32", "int64")


def checked(op_type):
    """Decorator: run the op's infer_meta on the inputs' shapes and dtypes first
    (eager calls do not; its argument checks are the op's one definition)."""
    opdef = get_op(op_type)

    def deco(fn):
        def k(ins, attrs, need):
            opdef.infer_meta(tuple(_meta(a) for a in ins), attrs)
            return fn(ins, attrs, need)
        k.__name__, k.__doc__ = fn.__name__, fn.__doc__
        return k
    return deco


def _meta(a):
    if a is None:
        return None
    if isinstance(a, list):
        return [Meta(x.shape, x.dtype) for x in a]
    return Meta(a.shape, a.dtype)


def _ints(v):
    return np.asarray(v).astype(np.int64, copy=False)


# ------------------------------------------------------------ triangles
def _tri_mask(shape, k, lower):
    r, c = shape[-2], shape[-1]
    return np.tri(r, c, k, dtype=bool) if lower else ~np.tri(r, c, k - 1, dtype=bool)


@kernel("tril_triu", "tril_triu_grad", dtypes=ALL)
def tril_triu(ins, attrs, need):
    x = ins[0]
    mask = _tri_mask(x.shape, attrs["diagonal"], attrs["lower"])
    return (np.where(mask, x, np.zeros((), x.dtype)),)


def _tri_indices(lower, r, c):
    def k(ins, attrs, need):
        rows, cols, off = attrs[r], attrs[c], attrs["offset"]
        dt = to_np_dtype(attrs["dtype"])
        if rows <= 0 or cols <= 0:
            return (np.zeros((2, 0), dt),)
        mask = _tri_mask((rows, cols), off, lower)
        return (np.stack(np.nonzero(mask)).astype(dt),)
    return k


kernel("tril_indices", dtypes=INDEX)(_tri_indices(True, "rows", "cols"))
kernel("triu_indices", dtypes=INDEX)(_tri_indices(False, "row", "col"))


# ------------------------------------------------------------ diagonals
def diag_positions(d1, d2, offset):
    """Row and column indices of diagonal ``offset`` of a d1 x d2 matrix."""
    n = max(diag_len(d1, d2, offset), 0)
    i = np.arange(n)
    return (i, i + offset) if offset >= 0 else (i - offset, i)


@kernel("diag_v2", dtypes=NUMERIC)
def diag_v2(ins, attrs, need):
    x, off = ins[0], attrs["offset"]
    shape = diag_v2_shape(x.shape, off)
    if x.ndim <= 1:
        v = x.reshape(-1)
        out = np.full(shape, attrs["padding_value"]).astype(x.dtype)
        r, c = diag_positions(shape[0], shape[1], off)
        out[r, c] = v
        return (out,)
    r, c = diag_positions(x.shape[0], x.shape[1], off)
    return (x[r, c],)


@kernel("diag_v2_grad", dtypes=NUMERIC)
def diag_v2_grad(ins, attrs, need):
    x, g = ins
    off = attrs["offset"]
    if x.ndim <= 1:
        r, c = diag_positions(g.shape[0], g.shape[1], off)
        return (g[r, c].reshape(x.shape),)
    out = np.zeros(x.shape, g.dtype)
    r, c = diag_positions(x.shape[0], x.shape[1], off)
    out[r, c] = g
    return (out,)


@kernel("diag_embed", dtypes=NUMERIC)
@checked("diag_embed")
def diag_embed(ins, attrs, need):
    x, off = ins[0], attrs["offset"]
    a, b = diag_embed_axes(x.ndim, attrs["dim1"], attrs["dim2"])
    m = x.shape[-1] + abs(off)
    out = np.zeros(x.shape[:-1] + (m, m), x.dtype)
    r, c = diag_positions(m, m, off)
    out[..., r, c] = x
    # the two new dims sit at the end; move them to dim1 / dim2
    return (np.ascontiguousarray(np.moveaxis(out, (-2, -1), (a, b))),)


def _diagonal_view(x, offset, a, b):
    """(view of x with axes a, b last, row indices, column indices)."""
    xt = np.moveaxis(x, (a, b), (-2, -1))
    r, c = diag_positions(xt.shape[-2], xt.shape[-1], offset)
    return xt, r, c


@kernel("diagonal", dtypes=ALL)
def diagonal(ins, attrs, need):
    x = ins[0]
    a, b = diagonal_axes(x.ndim, attrs["axis1"], attrs["axis2"])
    xt, r, c = _diagonal_view(x, attrs["offset"], a, b)
    return (np.ascontiguousarray(xt[..., r, c]),)


@kernel("diagonal_grad", dtypes=ALL)
def diagonal_grad(ins, attrs, need):
    x, g = ins
    a, b = diagonal_axes(x.ndim, attrs["axis1"], attrs["axis2"])
    out = np.zeros(x.shape, g.dtype)
    ot, r, c = _diagonal_view(out, attrs["offset"], a, b)
    ot[..., r, c] = g
    return (out,)


def fill_diagonal_positions(shape, offset, wrap):
    """Flat positions Paddle's fill_diagonal writes: every ``sum(strides)``-th
    element (the main diagonal of all dims at once), shifted by ``offset``
    within its row; without ``wrap`` only the first ``cols`` rows."""
    cols = shape[1]
    size = int(np.prod(shape))
    step = sum(int(np.prod(shape[k + 1:])) for k in range(len(shape)))
    if not wrap:
        size = min(size, cols * cols)
    i = np.arange(0, size, step)
    keep = (i % cols + offset >= 0) & (i % cols + offset < cols)
    return i[keep] + offset


@kernel("fill_diagonal", dtypes=ALL)
@checked("fill_diagonal")
def fill_diagonal(ins, attrs, need):
    x = ins[0]
    out = x.copy()
    pos = fill_diagonal_positions(x.shape, attrs["offset"], attrs["wrap"])
    out.reshape(-1)[pos] = np.array(attrs["value"]).astype(x.dtype)
    return (out,)


@kernel("fill_diagonal_grad", dtypes=ALL)
def fill_diagonal_grad(ins, attrs, need):
    g = ins[0]
    out = g.copy()
    out.reshape(-1)[fill_diagonal_positions(g.shape, attrs["offset"], attrs["wrap"])] = 0
    return (out,)


def _fill_diag_tensor(x, y, attrs):
    out = x.copy()
    a, b = diagonal_axes(x.ndim, attrs["dim1"], attrs["dim2"], "fill_diagonal_tensor")
    ot, r, c = _diagonal_view(out, attrs["offset"], a, b)
    if y is None:
        ot[..., r, c] = 0
    else:
        ot[..., r, c] = y.reshape(ot.shape[:-2] + (len(r),))
    return out


@kernel("fill_diagonal_tensor", dtypes=ALL)
@checked("fill_diagonal_tensor")
def fill_diagonal_tensor(ins, attrs, need):
    return (_fill_diag_tensor(ins[0], ins[1], attrs),)


@kernel("fill_diagonal_tensor_grad", dtypes=ALL)
def fill_diagonal_tensor_grad(ins, attrs, need):
    return (_fill_diag_tensor(ins[0], None, attrs),)


# ------------------------------------------------------------ kron / repeat_interleave
def _kron_operands(x, y):
    n = max(x.ndim, y.ndim)
    return x.reshape((1,) * (n - x.ndim) + x.shape), y.reshape((1,) * (n - y.ndim) + y.shape)


@kernel("kron", dtypes=NUMERIC)
def kron(ins, attrs, need):
    x, y = _kron_operands(*ins)
    return (np.kron(x, y).astype(x.dtype, copy=False),)


@kernel("kron_grad", dtypes=NUMERIC)
def kron_grad(ins, attrs, need):
    x0, y0, g = ins
    x, y = _kron_operands(x0, y0)
    n = x.ndim
    # Out[i1 j1 i2 j2 ...] = X[i1 i2 ...] * Y[j1 j2 ...]
    g2 = g.reshape(tuple(d for pair in zip(x.shape, y.shape) for d in pair))
    gi, xi, yi = list(range(2 * n)), list(range(0, 2 * n, 2)), list(range(1, 2 * n, 2))
    dx = dy = None
    if need is None or need[0]:
        dx = np.einsum(g2, gi, y, yi, xi).reshape(x0.shape).astype(g.dtype, copy=False)
    if need is None or need[1]:
        dy = np.einsum(g2, gi, x, xi, yi).reshape(y0.shape).astype(g.dtype, copy=False)
    return dx, dy


def _repeats(x, reps, attrs):
    ax = attrs["dim"] % max(x.ndim, 1)
    if reps is None:
        return attrs["Repeats"], ax
    r = _ints(reps).reshape(-1)
    n = x.shape[ax] if x.ndim else 1
    if r.size != n:
        raise OpError(f"repeat_interleave: RepeatsTensor has {r.size} values but the input's "
                      f"dim {ax} has size {n}; they must be equal")
    if (r < 0).any():
        raise OpError(f"repeat_interleave: repeats must be >= 0, got {r.tolist()}")
    return r, ax


@kernel("repeat_interleave", dtypes=NUMERIC)
@checked("repeat_interleave")
def repeat_interleave(ins, attrs, need):
    x, reps = ins
    r, ax = _repeats(x, reps, attrs)
    return (np.repeat(x.reshape(x.shape or (1,)), r, axis=ax),)


@kernel("repeat_interleave_grad", dtypes=NUMERIC)
def repeat_interleave_grad(ins, attrs, need):
    x, reps, g = ins
    r, ax = _repeats(x, reps, attrs)
    n = x.shape[ax] if x.ndim else 1
    counts = np.full(n, r) if np.ndim(r) == 0 else r
    owner = np.repeat(np.arange(n), counts)          # which input row each output row copies
    out = np.zeros((n,) + np.moveaxis(g, ax, 0).shape[1:], g.dtype)
    np.add.at(out, owner, np.moveaxis(g, ax, 0))
    return (np.moveaxis(out, 0, ax).reshape(x.shape),)


# ------------------------------------------------------------ put_along_axis
def _targets(x, idx, axis):
    """Flat positions in x that each index element writes, in C order."""
    idx = _ints(idx)
    dim = x.shape[axis]
    if idx.size and (idx.min() < -dim or idx.max() >= dim):
        bad = idx.max() if idx.max() >= dim else idx.min()
        raise OpError(f"put_along_axis: index {bad} is out of range for axis {axis} with size "
                      f"{dim} (input shape {list(x.shape)})", kind=PRECONDITION_NOT_MET)
    coords = list(np.indices(idx.shape, sparse=True))
    coords[axis] = np.where(idx < 0, idx + dim, idx)
    return np.ravel_multi_index(tuple(np.broadcast_arrays(*coords)), x.shape).reshape(-1)


def _values(v, ishape):
    """The values each index element writes (Value may be larger than Index)."""
    return v[tuple(slice(0, k) for k in ishape)].reshape(-1)


def _put(x, idx, v, attrs):
    ax = check_put_along_axis(x.shape, idx.shape, v.shape, attrs["Axis"], attrs["Reduce"])
    t, vals = _targets(x, idx, ax), _values(v, idx.shape)
    return ax, t, vals, attrs["Reduce"], attrs["Include_self"]


@kernel("put_along_axis", dtypes=NUMERIC)
@checked("put_along_axis")
def put_along_axis(ins, attrs, need):
    x, idx, v = ins
    _, t, vals, reduce, self_ = _put(x, idx, v, attrs)
    out = x.copy()
    flat = out.reshape(-1)
    if reduce == "assign":
        flat[t] = vals
    elif reduce == "add":
        if not self_:
            flat[t] = 0
        np.add.at(flat, t, vals)
    elif reduce in ("mul", "multiply"):
        if not self_:
            flat[t] = 1
        np.multiply.at(flat, t, vals)
    elif reduce == "mean":
        total = np.zeros(flat.shape, np.float64 if x.dtype.kind == "f" else np.int64)
        count = np.zeros(flat.shape, np.int64)
        np.add.at(total, t, vals)
        np.add.at(count, t, 1)
        hit = count > 0
        if self_:
            total[hit] += flat[hit]
            count[hit] += 1
        mean = total[hit] / count[hit]
        flat[hit] = (np.trunc(mean) if x.dtype.kind in "iu" else mean).astype(x.dtype)
    else:
        ufunc = np.maximum if reduce == "amax" else np.minimum
        if not self_:
            info = np.finfo(x.dtype) if x.dtype.kind == "f" else np.iinfo(x.dtype)
            flat[t] = info.min if reduce == "amax" else info.max
        ufunc.at(flat, t, vals)
    return (out,)


def _prod_of_others(vals, t):
    """For each value, the product of the other values writing the same position."""
    out = np.ones_like(vals)
    if not len(t):
        return out
    order = np.argsort(t, kind="stable")
    ts, vs = t[order], vals[order]
    starts = np.flatnonzero(np.r_[True, ts[1:] != ts[:-1]])
    for s, e in zip(starts, np.r_[starts[1:], len(ts)]):
        grp = vs[s:e]
        before = np.cumprod(np.r_[1, grp[:-1]])              # product of those before
        after = np.r_[np.cumprod(grp[::-1])[::-1][1:], 1]      # and of those after
        out[order[s:e]] = before * after
    return out


@kernel("put_along_axis_grad", dtypes=NUMERIC)
def put_along_axis_grad(ins, attrs, need):
    x, idx, v, res, g = ins
    _, t, vals, reduce, self_ = _put(x, idx, v, attrs)
    gf, xf, rf = g.reshape(-1), x.reshape(-1), res.reshape(-1)
    hit = np.zeros(gf.shape, bool)
    hit[t] = True
    dx = gf.copy()
    dv_flat = np.zeros(vals.shape, g.dtype)
    if reduce == "assign":
        dx[hit] = 0
        last = np.zeros(gf.shape, np.int64)
        last[t] = np.arange(len(t))                  # the last writer of each position
        won = last[t] == np.arange(len(t))
        dv_flat[won] = gf[t[won]]
    elif reduce == "add":
        if not self_:
            dx[hit] = 0
        dv_flat = gf[t].copy()
    elif reduce in ("mul", "multiply"):
        prod = np.ones(gf.shape, g.dtype)
        np.multiply.at(prod, t, vals)
        dx[hit] = gf[hit] * prod[hit] if self_ else 0
        dv_flat = gf[t] * _prod_of_others(vals, t) * (xf[t] if self_ else 1)
    elif reduce == "mean":
        count = np.zeros(gf.shape, np.int64)
        np.add.at(count, t, 1)
        count += hit & self_
        dx[hit] = gf[hit] / count[hit] if self_ else 0
        dv_flat = gf[t] / count[t]
    else:
        # amax / amin: the gradient is shared by every contributor equal to the result
        count = np.zeros(gf.shape, np.int64)
        np.add.at(count, t, vals == rf[t])
        self_wins = hit & (xf == rf) & self_
        count += self_wins
        dx[hit] = 0
        dx[self_wins] = gf[self_wins] / count[self_wins]
        dv_flat = np.where(vals == rf[t], gf[t] / np.maximum(count[t], 1), 0)
    dv = np.zeros(v.shape, g.dtype)
    dv[tuple(slice(0, k) for k in idx.shape)] = dv_flat.reshape(idx.shape)
    return (dx.reshape(x.shape).astype(g.dtype, copy=False) if need is None or need[0] else None,
            dv.astype(g.dtype, copy=False) if need is None or need[1] else None)


# ------------------------------------------------------------ index_add / scatter_nd_add
def _index_add_index(x, idx, ax):
    idx = _ints(idx)
    dim = x.shape[ax] if x.ndim else 1
    if idx.size and (idx.min() < 0 or idx.max() >= dim):
        bad = idx.max() if idx.max() >= dim else idx.min()
        raise OpError(f"index_add: index {bad} is out of range for axis {ax} with size {dim}; "
                      f"expected in [0, {dim})")
    return idx


@kernel("index_add", dtypes=NUMERIC)
@checked("index_add")
def index_add(ins, attrs, need):
    x, idx, v = ins
    ax = check_index_add(x.shape, idx.shape, v.shape, attrs["axis"])
    idx = _index_add_index(x, idx, ax)
    out = x.copy()
    np.add.at(np.moveaxis(out.reshape(x.shape or (1,)), ax, 0), idx,
              np.moveaxis(v.reshape(v.shape or (1,)), ax, 0))
    return (out,)


@kernel("index_add_grad", dtypes=NUMERIC)
def index_add_grad(ins, attrs, need):
    idx, v, g = ins
    ax = attrs["axis"] % max(g.ndim, 1)
    dv = np.take(g.reshape(g.shape or (1,)), _ints(idx), axis=ax).reshape(v.shape)
    return g.copy(), dv


def _nd_targets(x, idx):
    idx = _ints(idx)
    k = idx.shape[-1]
    for a in range(k):
        col, dim = idx[..., a], x.shape[a]
        if col.size and (col.min() < 0 or col.max() >= dim):
            bad = col.max() if col.max() >= dim else col.min()
            raise OpError(f"scatter_nd_add: index {bad} is out of range for dim {a} of X with "
                          f"size {dim} (X shape {list(x.shape)}); expected in [0, {dim})",
                          kind=OUT_OF_RANGE)
    return tuple(idx[..., a] for a in range(k)), k


@kernel("scatter_nd_add", dtypes=NUMERIC)
@checked("scatter_nd_add")
def scatter_nd_add(ins, attrs, need):
    x, idx, upd = ins
    check_scatter_nd(x.shape, idx.shape, upd.shape)
    cols, k = _nd_targets(x, idx)
    out = x.copy()
    if k == 0:
        out += upd.reshape((-1,) + x.shape).sum(0, dtype=x.dtype)
    else:
        np.add.at(out, cols, upd)
    return (out,)


@kernel("scatter_nd_add_grad", dtypes=NUMERIC)
def scatter_nd_add_grad(ins, attrs, need):
    idx, upd, g = ins
    cols, k = _nd_targets(g, idx)
    du = np.broadcast_to(g, upd.shape).copy() if k == 0 else g[cols].reshape(upd.shape)
    return g.copy(), du


# ------------------------------------------------------------ multiplex
def _multiplex_ids(ids, n):
    ids = _ints(ids).reshape(-1)
    if ids.size and (ids.min() < 0 or ids.max() >= n):
        bad = ids.max() if ids.max() >= n else ids.min()
        raise OpError(f"multiplex: index {bad} is out of range for {n} candidate tensors; "
                      f"expected in [0, {n})", kind=PRECONDITION_NOT_MET)
    return ids


@kernel("multiplex", dtypes=NUMERIC)
@checked("multiplex")
def multiplex(ins, attrs, need):
    xs, ids = ins
    ids = _multiplex_ids(ids, len(xs))
    return (np.stack(xs)[ids, np.arange(len(ids))],)


@kernel("multiplex_grad", dtypes=NUMERIC)
def multiplex_grad(ins, attrs, need):
    ids, xs, g = ins
    ids = _multiplex_ids(ids, len(xs))
    outs = []
    for k in range(len(xs)):
        sel = (ids == k).reshape((-1,) + (1,) * (g.ndim - 1))
        outs.append(np.where(sel, g, np.zeros((), g.dtype)))
    return (outs,)


# ------------------------------------------------------------ crop_tensor
def _crop_args(x, ins, attrs):
    _, shape_t, shape_list, off_t, off_list = ins
    shape = ints_of(shape_t, shape_list, attrs["shape"])
    offsets = ints_of(off_t, off_list, attrs["offsets"]) or [0] * x.ndim
    sizes = crop_box(x.shape, shape, offsets)
    return tuple(slice(o, o + s) for o, s in zip(offsets, sizes))


@kernel("crop_tensor", dtypes=NUMERIC)
def crop_tensor(ins, attrs, need):
    x = ins[0]
    return (x[_crop_args(x, ins, attrs)].copy(),)


@kernel("crop_tensor_grad", dtypes=NUMERIC)
def crop_tensor_grad(ins, attrs, need):
    x, off_t, off_list, g = ins
    offsets = ints_of(off_t, off_list, attrs["offsets"]) or [0] * x.ndim
    out = np.zeros(x.shape, g.dtype)
    out[tuple(slice(o, o + s) for o, s in zip(offsets, g.shape))] = g
    return (out,)


# ------------------------------------------------------------ meshgrid / shard_index
@kernel("meshgrid", dtypes=NUMERIC)
@checked("meshgrid")
def meshgrid(ins, attrs, need):
    xs = [x.reshape(-1) for x in ins[0]]
    return ([np.ascontiguousarray(a) for a in np.meshgrid(*xs, indexing="ij")],)


@kernel("meshgrid_grad", dtypes=NUMERIC)
def meshgrid_grad(ins, attrs, need):
    xs, gs = ins
    n = len(xs)
    outs = []
    for k, (x, g) in enumerate(zip(xs, gs)):
        if g is None:
            outs.append(np.zeros(x.shape, gs[0].dtype if gs[0] is not None else x.dtype))
            continue
        axes = tuple(a for a in range(n) if a != k)
        outs.append(g.sum(axis=axes).reshape(x.shape))
    return (outs,)


@kernel("shard_index", dtypes=INDEX)
@checked("shard_index")
def shard_index(ins, attrs, need):
    x = ins[0]
    num, n, sid = attrs["index_num"], attrs["nshards"], attrs["shard_id"]
    if x.size and (x.min() < 0 or x.max() >= num):
        bad = x.max() if x.max() >= num else x.min()
        raise OpError(f"shard_index: every input value must be in [0, index_num={num}), got "
                      f"{bad}")
    size = (num + n - 1) // n
    out = np.where(x // size == sid, x - sid * size, attrs["ignore_value"])
    return (out.astype(x.dtype),)


# ------------------------------------------------------------ views
@kernel("view_shape", dtypes=ALL)
def view_shape_k(ins, attrs, need):
    x = ins[0]
    return (x.reshape(view_shape(x.shape, attrs["dims"])).copy(),)


@kernel("view_shape_grad", dtypes=ALL)
def view_shape_grad(ins, attrs, need):
    x, g = ins
    return (g.reshape(x.shape).copy(),)


@kernel("view_dtype", dtypes=ALL)
@checked("view_dtype")
def view_dtype(ins, attrs, need):
    x = ins[0]
    dt = to_np_dtype(attrs["dtype"])
    shape = view_dtype_shape(x.shape, x.dtype, dt)
    return (np.ascontiguousarray(x).reshape(-1).view(dt).reshape(shape).copy(),)


@kernel("tensor_unfold", dtypes=ALL)
def tensor_unfold(ins, attrs, need):
    x = ins[0]
    ax, shape = unfold_shape(x.shape, attrs["axis"], attrs["size"], attrs["step"])
    if x.ndim == 0:
        return (np.full(shape, x),)
    x1 = x
    n, size, step = shape[ax], attrs["size"], attrs["step"]
    win = np.lib.stride_tricks.sliding_window_view(x1, size, axis=ax)
    sel = [slice(None)] * x1.ndim
    sel[ax] = slice(0, (n - 1) * step + 1 if n else 0, step)
    return (np.ascontiguousarray(win[tuple(sel)]).reshape(shape),)


@kernel("tensor_unfold_grad", dtypes=ALL)
def tensor_unfold_grad(ins, attrs, need):
    x, g = ins
    ax, shape = unfold_shape(x.shape, attrs["axis"], attrs["size"], attrs["step"])
    size, step = attrs["size"], attrs["step"]
    if x.ndim == 0:
        return (g.sum().reshape(()),)
    out = np.zeros(x.shape, g.dtype)
    om, gm = np.moveaxis(out, ax, -1), np.moveaxis(g, ax, -2)
    for w in range(shape[ax]):
        om[..., w * step:w * step + size] += gm[..., w, :]
    return (out,)


def _strided_positions(dims, stride, offset, itemsize):
    """Element positions (flat) that as_strided reads; offset must be whole elements."""
    if offset % itemsize:
        raise OpError(f"as_strided: the gradient needs a byte offset that is a multiple of the "
                      f"item size {itemsize}, got {offset}")
    pos = np.full(tuple(int(d) for d in dims), offset // itemsize, np.int64)
    for k, (d, s) in enumerate(zip(dims, stride)):
        shape = [1] * len(dims)
        shape[k] = int(d)
        pos = pos + np.arange(int(d)).reshape(shape) * int(s)
    return pos


@kernel("as_strided", dtypes=ALL)
def as_strided(ins, attrs, need):
    x = np.ascontiguousarray(ins[0])
    dims, stride, off = attrs["dims"], attrs["stride"], attrs["offset"]
    check_as_strided(x.shape, x.itemsize, dims, stride, off)
    shape = tuple(int(d) for d in dims)
    if 0 in shape:
        return (np.zeros(shape, x.dtype),)
    view = np.ndarray(shape, x.dtype, buffer=x.reshape(-1).view(np.uint8), offset=off,
                      strides=tuple(int(s) * x.itemsize for s in stride))
    return (view.copy(),)


@kernel("as_strided_grad", dtypes=ALL)
def as_strided_grad(ins, attrs, need):
    x, g = ins
    out = np.zeros(x.size, g.dtype)
    pos = _strided_positions(attrs["dims"], attrs["stride"], attrs["offset"], x.itemsize)
    np.add.at(out, pos.reshape(-1), g.reshape(-1))
    return (out.reshape(x.shape),)
