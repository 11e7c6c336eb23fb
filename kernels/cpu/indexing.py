"""numpy kernels of the indexing ops (ops/defs/indexing.py).

Gradients of gathers scatter-add into zeros (``np.add.at``, which sums
repeated indices); writes (scatter, set_value, index_put) copy the input
first, so no array a Tensor holds is ever modified.
"""
import numpy as np

from ..registry import kernel, ALL, FLOATS, NUMERIC
from ...ops import OpError
from ...ops.errors import INVALID_ARGUMENT, OUT_OF_RANGE
from ...ops.meta_rules import norm_axis
from ...ops.defs.indexing import (decrease, check_strided_axes, LEGACY_VALUE_ATTRS,
                                  reverse_slice, check_set_value_rank)
from ...ops.dtypes import to_np_dtype
from .elementwise import reduce_to
from .manipulation import ints_of, int_of


def check_index(op, idx, dim, axis, xshape, kind=INVALID_ARGUMENT):
    """Index values must lie in [-dim, dim): name the bad value and the dim size.
    ``kind``: Paddle's error kind for the op (OutOfRange for gather, scatter)."""
    if idx.size == 0:
        return
    lo, hi = int(idx.min()), int(idx.max())
    if lo < -dim or hi >= dim:
        bad = hi if hi >= dim else lo
        raise OpError(f"op '{op}': index {bad} is out of range for axis {axis} with size "
                      f"{dim} (input shape {list(xshape)})", kind=kind)


def sum_to(g, shape):
    """Sum ``g`` down to ``shape``, which may have more (size-1) dims than ``g``."""
    shape = tuple(shape)
    if g.shape == shape:
        return g
    if g.ndim < len(shape):
        g = g.reshape((1,) * (len(shape) - g.ndim) + g.shape)
    return reduce_to(g, shape)


# ------------------------------------------------------------ slicing
def _slices(shape, axes, starts, ends, steps=None, decrease_axes=(), writing=False):
    """The numpy index of a slice op.  A decreased axis (an int index) takes the
    one element at its start, whatever its end says (a tensor index -1 has end 0);
    negative steps follow Paddle's bounds (``reverse_slice``)."""
    ndim = len(shape)
    idx = [slice(None)] * ndim
    dec = {int(a) + ndim if int(a) < 0 else int(a) for a in decrease_axes}
    for i, a in enumerate(axes):
        a = int(a)
        a = a + ndim if a < 0 else a
        start = int(starts[i])
        if a in dec:
            if not -shape[a] <= start < shape[a]:
                raise OpError(f"index {start} is out of range for axis {a} with size "
                              f"{shape[a]} (input shape {list(shape)})")
            idx[a] = slice(start, start + 1 if start != -1 else None)
        else:
            step = 1 if steps is None else int(steps[i])
            idx[a] = slice(start, int(ends[i]), step) if step > 0 else \
                reverse_slice(shape[a], start, int(ends[i]), step, writing)
    return tuple(idx)


def _slice_index(shape, ins, attrs, strided, dec_key="decrease_axis"):
    if strided:
        st, et, pt, sl, el, pl = ins
        steps = ints_of(pt, pl, attrs["strides"])
        check_strided_axes(attrs["axes"])
    else:
        st, et, sl, el = ins
        steps = None
    return _slices(shape, attrs["axes"], ints_of(st, sl, attrs["starts"]),
                   ints_of(et, el, attrs["ends"]), steps, attrs.get(dec_key, ()))


def _slice_fwd(strided, dec_key="decrease_axis"):
    def k(ins, attrs, need):
        x = ins[0]
        out = x[_slice_index(x.shape, ins[1:], attrs, strided, dec_key)]
        if attrs[dec_key]:
            out = out.reshape(decrease(out.shape, attrs[dec_key]))
        return (out,)
    return k


def _slice_bwd(strided):
    def k(ins, attrs, need):
        x, g = ins[0], ins[-1]
        gx = np.zeros(x.shape, g.dtype)
        region = gx[_slice_index(x.shape, ins[1:-1], attrs, strided)]
        region[...] = g.reshape(region.shape)
        return (gx,)
    return k


kernel("slice", dtypes=ALL)(_slice_fwd(False))
kernel("strided_slice", dtypes=ALL)(_slice_fwd(True))
kernel("slice_grad", dtypes=FLOATS)(_slice_bwd(False))
kernel("strided_slice_grad", dtypes=FLOATS)(_slice_bwd(True))


# ------------------------------------------------------------ gathers
def _gather_args(x, idx, at, attrs):
    axis = norm_axis(int_of(at, attrs["axis"]), x.ndim, "op 'gather': axis", OUT_OF_RANGE)
    if idx.ndim == 2 and idx.shape[1] == 1:
        idx = idx.reshape(-1)
    elif idx.ndim > 1:
        raise OpError(f"op 'gather': Index must be 0-D, 1-D or [N, 1], got shape "
                      f"{list(idx.shape)}")
    return axis, idx


@kernel("gather", dtypes=NUMERIC)
def gather(ins, attrs, need):
    x, idx, at = ins
    axis, idx = _gather_args(x, idx, at, attrs)
    check_index("gather", idx, x.shape[axis], axis, x.shape, OUT_OF_RANGE)
    return (np.take(x, idx, axis=axis),)


def _add_along(shape, axis, idx, g):
    """zeros(shape) with g scatter-added at ``idx`` along ``axis``."""
    out = np.zeros(shape, g.dtype)
    om = np.moveaxis(out, axis, 0)
    if idx.ndim == 0:
        om[int(idx)] += g
    else:
        np.add.at(om, idx, np.moveaxis(g, axis, 0))
    return out


@kernel("gather_grad", dtypes=FLOATS)
def gather_grad(ins, attrs, need):
    x, idx, at, g = ins
    axis, idx = _gather_args(x, idx, at, attrs)
    return (_add_along(x.shape, axis, idx, g),)


def _nd_index(x, idx, op):
    k = idx.shape[-1]
    for j in range(k):
        check_index(op, idx[..., j], x.shape[j], j, x.shape)
    return tuple(np.moveaxis(idx, -1, 0))


@kernel("gather_nd", dtypes=ALL)
def gather_nd(ins, attrs, need):
    x, idx = ins
    if idx.shape[-1] == 0:
        return (np.array(np.broadcast_to(x, idx.shape[:-1] + x.shape)),)
    return (x[_nd_index(x, idx, "gather_nd")],)


@kernel("gather_nd_grad", dtypes=FLOATS)
def gather_nd_grad(ins, attrs, need):
    x, idx, g = ins
    gx = np.zeros(x.shape, g.dtype)
    if idx.shape[-1] == 0:
        return (g.reshape((-1,) + x.shape).sum(0),)
    np.add.at(gx, tuple(np.moveaxis(idx, -1, 0)), g)
    return (gx,)


@kernel("index_select", dtypes=NUMERIC)
def index_select(ins, attrs, need):
    x, idx = ins
    if idx.ndim != 1:
        raise OpError(f"op 'index_select': Index must be 1-D, got shape {list(idx.shape)}")
    d = norm_axis(attrs["dim"], x.ndim, "op 'index_select': dim", OUT_OF_RANGE)
    check_index("index_select", idx, x.shape[d], d, x.shape)
    return (np.take(x, idx, axis=d),)


@kernel("index_select_grad", dtypes=FLOATS)
def index_select_grad(ins, attrs, need):
    x, idx, g = ins
    d = attrs["dim"] + x.ndim if attrs["dim"] < 0 else attrs["dim"]
    return (_add_along(x.shape, d, idx, g),)


@kernel("index_sample", dtypes=NUMERIC)
def index_sample(ins, attrs, need):
    x, idx = ins
    check_index("index_sample", idx, x.shape[1], 1, x.shape)
    return (np.take_along_axis(x, idx.astype(np.int64), axis=1),)


@kernel("index_sample_grad", dtypes=FLOATS)
def index_sample_grad(ins, attrs, need):
    x, idx, g = ins
    gx = np.zeros(x.shape, g.dtype)
    np.add.at(gx, (np.arange(x.shape[0])[:, None], idx), g)
    return (gx,)


@kernel("take_along_axis", dtypes=NUMERIC)
def take_along_axis(ins, attrs, need):
    x, idx = ins
    if idx.dtype.kind not in "iu":
        raise OpError(f"op 'take_along_axis': Index must be an integer tensor, got dtype "
                      f"{idx.dtype}")
    axis = attrs["Axis"] + x.ndim if attrs["Axis"] < 0 else attrs["Axis"]
    check_index("take_along_axis", idx, x.shape[axis], axis, x.shape)
    return (np.take_along_axis(x, idx, axis=axis),)


@kernel("take_along_axis_grad", dtypes=FLOATS)
def take_along_axis_grad(ins, attrs, need):
    x, idx, g = ins
    axis = attrs["Axis"] + x.ndim if attrs["Axis"] < 0 else attrs["Axis"]
    grid = list(np.ogrid[tuple(slice(n) for n in idx.shape)])
    grid[axis] = idx
    gx = np.zeros(x.shape, g.dtype)
    np.add.at(gx, tuple(grid), g)
    return (gx,)


# ------------------------------------------------------------ scatter
def _ids(ids):
    return ids.reshape(-1) if ids.ndim == 2 else ids


@kernel("scatter", dtypes=NUMERIC)
def scatter(ins, attrs, need):
    x, ids, upd = ins
    ids = _ids(ids)
    check_index("scatter", ids, x.shape[0], 0, x.shape, OUT_OF_RANGE)
    out = x.copy()
    if attrs["overwrite"]:
        out[ids] = upd
    else:
        out[ids] = 0
        np.add.at(out, ids, upd)
    return (out,)


@kernel("scatter_grad", dtypes=FLOATS)
def scatter_grad(ins, attrs, need):
    ids, upd, g = ins
    ids = _ids(ids)
    gx = gu = None
    if need is None or need[0]:
        gx = g.copy()
        gx[ids] = 0
    if need is None or need[1]:
        gu = g[ids]
    return gx, gu


# ------------------------------------------------------------ where / masks
@kernel("where", dtypes=NUMERIC)
def where(ins, attrs, need):
    c, x, y = ins
    if c.dtype != np.bool_:
        raise OpError(f"op 'where': Condition must be bool, got dtype {c.dtype}")
    return (np.where(c, x, y),)


@kernel("where_grad", dtypes=FLOATS + ("int32", "int64"))
def where_grad(ins, attrs, need):
    c, x, y, g = ins
    zero = g.dtype.type(0)
    gx = gy = None
    if need is None or need[0]:
        gx = reduce_to(np.where(c, g, zero), x.shape)
    if need is None or need[1]:
        gy = reduce_to(np.where(c, zero, g), y.shape)
    return gx, gy


@kernel("where_index", dtypes=ALL)
def where_index(ins, attrs, need):
    if ins[0].ndim == 0:
        raise OpError("op 'where_index': Condition must have at least 1 dim, got a 0-D tensor")
    return (np.argwhere(ins[0]).astype(np.int64),)


@kernel("masked_select", dtypes=NUMERIC)
def masked_select(ins, attrs, need):
    x, m = ins
    if x.shape != m.shape:
        x, m = np.broadcast_arrays(x, m)
    return (x[m],)


@kernel("masked_select_grad", dtypes=FLOATS)
def masked_select_grad(ins, attrs, need):
    x, m, g = ins
    shape = np.broadcast_shapes(x.shape, m.shape)
    gx = np.zeros(shape, g.dtype)
    gx[np.broadcast_to(m, shape)] = g
    return (reduce_to(gx, x.shape),)


# ------------------------------------------------------------ set_value / index_put
def _set_value_index(shape, ins, attrs):
    st, et, pt = ins
    return _slices(shape, attrs["axes"], ints_of(None, st, attrs["starts"]),
                   ints_of(None, et, attrs["ends"]), ints_of(None, pt, attrs["steps"]),
                   attrs["decrease_axes"], writing=True)


def _user_shape(region_shape, attrs):
    """The shape ``x[idx]`` has for the user: decreased axes dropped, None axes added."""
    s = list(decrease(region_shape, attrs["decrease_axes"], "decrease_axes"))
    for a in sorted(int(a) for a in attrs["none_axes"]):
        s.insert(a, 1)
    return tuple(s)


def _attr_values(attrs, dtype):
    for n in ("values",) + LEGACY_VALUE_ATTRS:
        if attrs.get(n):
            vals = np.asarray(attrs[n]).astype(to_np_dtype(attrs["dtype"]))
            return vals.reshape(attrs["shape"] or (len(vals),))
    raise OpError("op 'set_value': no ValueTensor and no values attribute given")


@kernel("set_value", dtypes=ALL)
def set_value(ins, attrs, need):
    x, v = ins[0], ins[1]
    check_set_value_rank(x.ndim)
    out = x.copy()
    region = out[_set_value_index(x.shape, ins[2:], attrs)]
    if v is None:
        v = _attr_values(attrs, x.dtype)
    user = _user_shape(region.shape, attrs)
    while v.ndim > len(user) and v.shape[0] == 1:     # [1]-shaped values into a 0-D slot
        v = v.reshape(v.shape[1:])
    try:
        v = np.broadcast_to(v.astype(x.dtype, copy=False), user)
    except ValueError:
        raise OpError(f"op 'set_value': cannot assign a value of shape {list(v.shape)} to a "
                      f"slice of shape {list(user)}") from None
    region[...] = v.reshape(region.shape)
    return (out,)


@kernel("set_value_grad", dtypes=FLOATS)
def set_value_grad(ins, attrs, need):
    g, v = ins[0], ins[1]
    idx = _set_value_index(g.shape, ins[2:], attrs)
    gx = gv = None
    if need is None or need[0]:
        gx = g.copy()
        gx[idx] = 0
    if v is not None and (need is None or need[1]):
        region = g[idx]
        gv = sum_to(region.reshape(_user_shape(region.shape, attrs)), v.shape)
    return gx, gv


def _put_index(x, indices):
    if len(indices) == 1 and indices[0].dtype == np.bool_:
        m = indices[0]
        if m.shape != x.shape[:m.ndim]:
            raise OpError(f"op 'index_put': bool mask of shape {list(m.shape)} does not match "
                          f"the input's leading dims {list(x.shape[:m.ndim])}")
        return m
    for j, ix in enumerate(indices):
        check_index("index_put", ix, x.shape[j], j, x.shape)
    return tuple(indices)


@kernel("index_put", dtypes=ALL)
def index_put(ins, attrs, need):
    x, indices, v = ins
    idx = _put_index(x, indices)
    out = x.copy()
    if attrs["accumulate"]:
        np.add.at(out, idx, v)
    else:
        out[idx] = v
    return (out,)


@kernel("index_put_grad", dtypes=FLOATS)
def index_put_grad(ins, attrs, need):
    x, indices, v, g = ins
    idx = _put_index(g, indices)
    gx = gv = None
    if need is None or need[0]:
        gx = g if attrs["accumulate"] else g.copy()
        if not attrs["accumulate"]:
            gx[idx] = 0
    if need is None or need[1]:
        gv = sum_to(g[idx], v.shape)
    return gx, gv
