"""Triangles, diagonals, index writes and strided views: tril_triu, tril_indices,
triu_indices, diag_v2, diag_embed, diagonal, fill_diagonal, fill_diagonal_tensor,
kron, repeat_interleave, put_along_axis, index_add, scatter_nd_add, multiplex,
crop_tensor, meshgrid, shard_index, view_shape, view_dtype, tensor_unfold and
as_strided.

Slots, attributes and grad ops are Paddle 2.6.2's.  Where Paddle's op has no
gradient (diag_embed, shard_index, the index generators, view_dtype) none is
declared; fill_diagonal_tensor's gradient reaches X only, as in Paddle.  The
shape rules are plain functions shared with the kernels
(``kernels/cpu/reshape_index.py``).
"""
import numpy as np

from ..declare import defop, defgrad, grad_op, REQUIRED
from ..dtypes import to_np_dtype
from ..meta_rules import norm_axis, OUT_OF_RANGE, PRECONDITION_NOT_MET
from ..registry import GradOp, Meta, OpError
from .manipulation import values_in


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _linear_again(fwd, x="X", out="Out", extra=None):
    """Second-order rule of a linear grad op: the forward op applied to the
    gradient arriving at the grad op's output."""
    ins = {x: x + "@GRAD@GRAD"}
    ins.update(extra or {})
    return GradOp(fwd, ins, {out: out + "@GRAD@GRAD"})


def _index_dtype(m, what, kind=ValueError):
    if m.dtype.kind not in "iu":
        raise OpError(f"{what} must be an int32 or int64 tensor, got dtype {m.dtype}", kind=kind)


def _like_grad_input(i):
    """infer_meta of a grad op whose only output has the meta of input ``i``."""
    return lambda metas, attrs: (metas[i],)


# ------------------------------------------------------------ triangles
def _tril_triu_infer(metas, attrs):
    x = metas[0]
    if len(x.shape) < 2:
        raise OpError(f"tril/triu: Input(X) must have rank >= 2, got shape {list(x.shape)}")
    return (x,)


_TRIL_ATTRS = (("diagonal", "INT", 0), ("lower", "BOOLEAN", False))
defgrad("tril_triu_grad", "Out@GRAD", "X@GRAD", _TRIL_ATTRS, infer=_like_grad_input(0),
        grad=GradOp("tril_triu", {"X": "X@GRAD@GRAD"}, {"Out": "Out@GRAD@GRAD"}))
defop("tril_triu", "X", "Out", _TRIL_ATTRS, infer=_tril_triu_infer,
      grad=grad_op("tril_triu_grad"))


def tri_count(rows, cols, offset, lower):
    """How many (i, j) of a rows x cols grid lie on or below (lower) / above
    (upper) diagonal ``offset``."""
    n = 0
    for i in range(max(rows, 0)):
        if lower:
            n += min(max(i + offset + 1, 0), max(cols, 0))
        else:
            n += max(cols - max(i + offset, 0), 0)
    return n


def _indices_infer(lower, r, c):
    def infer(metas, attrs):
        dt = to_np_dtype(attrs["dtype"])
        return (Meta((2, tri_count(attrs[r], attrs[c], attrs["offset"], lower)), dt),)
    return infer


defop("tril_indices", (), "out", (("rows", "INT", 0), ("cols", "INT", 0), ("offset", "INT", 0),
                                  ("dtype", "INT", 3)),
      infer=_indices_infer(True, "rows", "cols"), dtype_from="dtype")
defop("triu_indices", (), "out", (("row", "INT", 0), ("col", "INT", 0), ("offset", "INT", 0),
                                  ("dtype", "INT", 3)),
      infer=_indices_infer(False, "row", "col"), dtype_from="dtype")


# ------------------------------------------------------------ diagonals
def diag_len(d1, d2, offset):
    """Length of diagonal ``offset`` of a d1 x d2 matrix (may be negative:
    the offset lies outside the matrix); -1 when unknown."""
    if d1 < 0 or d2 < 0:
        return -1
    return min(d1, d2 - offset) if offset >= 0 else min(d1 + offset, d2)


def diag_v2_shape(xshape, offset):
    if len(xshape) > 2:
        raise OpError(f"diag: the input X must be 0-D, 1-D or 2-D, got shape {list(xshape)}")
    if len(xshape) <= 1:
        n = xshape[0] if xshape else 1
        m = -1 if n < 0 else n + abs(offset)
        return (m, m)
    n = diag_len(xshape[0], xshape[1], offset)
    if n < -1 or (n == -1 and xshape[0] >= 0 and xshape[1] >= 0):
        raise OpError(f"diag: offset {offset} lies outside the matrix of shape {list(xshape)} "
                      f"(expected in [{-xshape[0]}, {xshape[1]}])", kind=PRECONDITION_NOT_MET)
    return (n,)


def _diag_v2_infer(metas, attrs):
    x = metas[0]
    return (Meta(diag_v2_shape(tuple(x.shape), attrs["offset"]), x.dtype),)


_DIAG_ATTRS = (("offset", "INT", 0), ("padding_value", "FLOAT", 0.0))
defgrad("diag_v2_grad", "X Out@GRAD", "X@GRAD", _DIAG_ATTRS, no_need_buffer=("X",))
defop("diag_v2", "X", "Out", _DIAG_ATTRS, infer=_diag_v2_infer,
      grad=grad_op("diag_v2_grad", uses=("X",)), no_need_buffer=("X",))


def diag_embed_axes(rank, dim1, dim2):
    """dim1, dim2 of diag_embed normalised against the output rank ``rank + 1``."""
    n = rank + 1
    for name, d in (("dim1", dim1), ("dim2", dim2)):
        if not -n <= d < n:
            raise OpError(f"diag_embed: {name} {d} is out of range (expected in [{-n}, {n - 1}] "
                          f"for an input of rank {rank})", kind=OUT_OF_RANGE)
    a, b = dim1 % n, dim2 % n
    if a == b:
        raise OpError(f"diag_embed: dim1 {dim1} and dim2 {dim2} are the same dimension")
    return a, b


def _diag_embed_infer(metas, attrs):
    x = metas[0]
    a, b = diag_embed_axes(len(x.shape), attrs["dim1"], attrs["dim2"])
    n = x.shape[-1]
    m = -1 if n < 0 else n + abs(attrs["offset"])
    out = list(x.shape[:-1])
    for ax in sorted((a, b)):
        out.insert(ax, m)
    return (Meta(tuple(out), x.dtype),)


defop("diag_embed", "Input", "Out",
      (("offset", "INT", 0), ("dim1", "INT", -2), ("dim2", "INT", -1)), infer=_diag_embed_infer)


def diagonal_axes(rank, axis1, axis2, op="diagonal"):
    if rank < 2:
        raise OpError(f"{op}: the input must have rank >= 2, got rank {rank}", kind=OUT_OF_RANGE)
    a = norm_axis(axis1, rank, f"{op}: axis1", OUT_OF_RANGE)
    b = norm_axis(axis2, rank, f"{op}: axis2", OUT_OF_RANGE)
    if a == b:
        raise OpError(f"{op}: axis1 {axis1} and axis2 {axis2} are the same dimension")
    return a, b


def diagonal_shape(xshape, offset, axis1, axis2, op="diagonal"):
    a, b = diagonal_axes(len(xshape), axis1, axis2, op)
    n = diag_len(xshape[a], xshape[b], offset)
    rest = tuple(d for i, d in enumerate(xshape) if i not in (a, b))
    return rest + (-1 if n == -1 and (xshape[a] < 0 or xshape[b] < 0) else max(n, 0),)


def _diagonal_infer(metas, attrs):
    x = metas[0]
    return (Meta(diagonal_shape(tuple(x.shape), attrs["offset"], attrs["axis1"], attrs["axis2"]),
                 x.dtype),)


_DIAGONAL_ATTRS = (("offset", "INT", 0), ("axis1", "INT", 0), ("axis2", "INT", 1))
defgrad("diagonal_grad", "Input Out@GRAD", "Input@GRAD", _DIAGONAL_ATTRS,
        grad=_linear_again("diagonal", "Input"), no_need_buffer=("Input",))
defop("diagonal", "Input", "Out", _DIAGONAL_ATTRS, infer=_diagonal_infer,
      grad=grad_op("diagonal_grad", uses=("Input",), wrt=("Input",)), no_need_buffer=("Input",))


def _fill_diagonal_infer(metas, attrs):
    x = metas[0]
    if len(x.shape) < 2:
        raise OpError(f"fill_diagonal_: the input must have rank >= 2, got shape {list(x.shape)}")
    return (x,)


_FILL_DIAG_ATTRS = (("value", "FLOAT", 0.0), ("offset", "INT", 0), ("wrap", "BOOLEAN", False))
defgrad("fill_diagonal_grad", "Out@GRAD", "X@GRAD", _FILL_DIAG_ATTRS, infer=_like_grad_input(0))
defop("fill_diagonal", "X", "Out", _FILL_DIAG_ATTRS, infer=_fill_diagonal_infer,
      grad=grad_op("fill_diagonal_grad"), inplace={"Out": "X"})


def _fill_diagonal_tensor_infer(metas, attrs):
    x, y = metas
    want = diagonal_shape(tuple(x.shape), attrs["offset"], attrs["dim1"], attrs["dim2"],
                          "fill_diagonal_tensor")
    if all(d >= 0 for d in want) and all(d >= 0 for d in y.shape) \
            and _numel(want) != _numel(y.shape):
        raise OpError(f"fill_diagonal_tensor: Y has shape {list(y.shape)}, expected "
                      f"{list(want)} (the diagonal of X {list(x.shape)} with offset "
                      f"{attrs['offset']}, dim1 {attrs['dim1']}, dim2 {attrs['dim2']})")
    return (x,)


_FILL_DIAG_T_ATTRS = (("offset", "LONG", 0), ("dim1", "INT", 0), ("dim2", "INT", 1))
defgrad("fill_diagonal_tensor_grad", "Out@GRAD", "X@GRAD", _FILL_DIAG_T_ATTRS,
        infer=_like_grad_input(0))
defop("fill_diagonal_tensor", "X Y", "Out", _FILL_DIAG_T_ATTRS,
      infer=_fill_diagonal_tensor_infer, grad=grad_op("fill_diagonal_tensor_grad"),
      same_dtype=("X", "Y"), inplace={"Out": "X"}, no_grad_inputs=("Y",))


# ------------------------------------------------------------ kron / repeat_interleave
def _kron_infer(metas, attrs):
    x, y = metas
    n = max(len(x.shape), len(y.shape))
    xs = (1,) * (n - len(x.shape)) + tuple(x.shape)
    ys = (1,) * (n - len(y.shape)) + tuple(y.shape)
    return (Meta(tuple(-1 if a < 0 or b < 0 else a * b for a, b in zip(xs, ys)), x.dtype),)


defgrad("kron_grad", "X Y Out@GRAD", "X@GRAD? Y@GRAD?")
defop("kron", "X Y", "Out", infer=_kron_infer,
      grad=grad_op("kron_grad", uses=("X", "Y"), wrt=("X", "Y")), same_dtype=("X", "Y"))


def _repeat_interleave_infer(metas, attrs):
    x, reps = metas
    nd = len(x.shape)
    ax = norm_axis(attrs["dim"], max(nd, 1), "repeat_interleave: axis")
    out = list(x.shape) if nd else [1]
    if reps is not None:
        _index_dtype(reps, "repeat_interleave: RepeatsTensor")
        if len(reps.shape) != 1:
            raise OpError(f"repeat_interleave: RepeatsTensor must be 1-D, got shape "
                          f"{list(reps.shape)}")
        if reps.shape[0] >= 0 and out[ax] >= 0 and reps.shape[0] != out[ax]:
            raise OpError(f"repeat_interleave: RepeatsTensor has {reps.shape[0]} values but "
                          f"the input's dim {ax} has size {out[ax]}; they must be equal")
        out[ax] = -1
    else:
        if attrs["Repeats"] < 0:
            raise OpError(f"repeat_interleave: repeats must be >= 0, got {attrs['Repeats']}")
        out[ax] = -1 if out[ax] < 0 else out[ax] * attrs["Repeats"]
    return (Meta(tuple(out), x.dtype),)


_REPEAT_ATTRS = (("Repeats", "INT", 0), ("dim", "INT", 0))
defgrad("repeat_interleave_grad", "X RepeatsTensor? Out@GRAD", "X@GRAD", _REPEAT_ATTRS,
        no_need_buffer=("X",))
defop("repeat_interleave", "X RepeatsTensor?", "Out", _REPEAT_ATTRS,
      infer=_repeat_interleave_infer,
      grad=grad_op("repeat_interleave_grad", uses=("X", "RepeatsTensor")),
      no_need_buffer=("X",), no_grad_inputs=("RepeatsTensor",))


# ------------------------------------------------------------ index writes
PUT_REDUCES = ("assign", "add", "mul", "multiply", "mean", "amin", "amax")


def check_put_along_axis(xshape, ishape, vshape, axis, reduce):
    if reduce not in PUT_REDUCES:
        raise OpError(f"put_along_axis: reduce must be one of {list(PUT_REDUCES)}, got "
                      f"'{reduce}'")
    nd = len(xshape)
    if len(ishape) != nd:
        raise OpError(f"put_along_axis: Index has rank {len(ishape)} but Input has rank {nd} "
                      f"(shapes {list(ishape)} and {list(xshape)}); they must be equal")
    ax = norm_axis(axis, max(nd, 1), "put_along_axis: axis")
    if len(vshape) != nd:
        raise OpError(f"put_along_axis: Value has shape {list(vshape)}; it must have Index's "
                      f"rank {nd} (Index shape {list(ishape)})")
    for i, (d, k, v) in enumerate(zip(xshape, ishape, vshape)):
        if k < 0:
            continue
        if (i != ax and 0 <= d < k) or (0 <= v < k):
            raise OpError(f"put_along_axis: Index shape {list(ishape)} must not exceed Input "
                          f"shape {list(xshape)} (apart from axis {ax}) nor Value shape "
                          f"{list(vshape)}")
    return ax


def _put_along_axis_infer(metas, attrs):
    x, idx, v = metas
    _index_dtype(idx, "put_along_axis: Index", kind=TypeError)
    check_put_along_axis(tuple(x.shape), tuple(idx.shape), tuple(v.shape), attrs["Axis"],
                         attrs["Reduce"])
    return (x,)


_PUT_ATTRS = (("Axis", "INT", REQUIRED), ("Reduce", "STRING", "assign"),
              ("Include_self", "BOOLEAN", True))
defgrad("put_along_axis_grad", "Input Index Value Result Result@GRAD", "Input@GRAD? Value@GRAD?",
        _PUT_ATTRS)
defop("put_along_axis", "Input Index Value", "Result", _PUT_ATTRS, infer=_put_along_axis_infer,
      grad=grad_op("put_along_axis_grad", uses=("Input", "Index", "Value", "Result"),
                   gouts=("Result",), wrt=("Input", "Value")),
      same_dtype=("Input", "Value"), inplace={"Result": "Input"}, no_grad_inputs=("Index",))


def check_index_add(xshape, ishape, vshape, axis):
    nd = len(xshape)
    ax = norm_axis(axis, max(nd, 1), "index_add: axis", OUT_OF_RANGE)
    if len(ishape) != 1:
        raise OpError(f"index_add: Index must be 1-D, got shape {list(ishape)}")
    want = list(xshape) if nd else [1]
    want[ax] = ishape[0]
    if len(vshape) != len(want) or any(a != b and a >= 0 and b >= 0
                                       for a, b in zip(vshape, want)):
        raise OpError(f"index_add: AddValue has shape {list(vshape)}, expected {want} (X shape "
                      f"{list(xshape)} with Index's {ishape[0]} entries along axis {ax})")
    return ax


def _index_add_infer(metas, attrs):
    x, idx, v = metas
    _index_dtype(idx, "index_add: Index")
    check_index_add(tuple(x.shape), tuple(idx.shape), tuple(v.shape), attrs["axis"])
    return (x,)


defgrad("index_add_grad", "Index AddValue Out@GRAD", "X@GRAD? AddValue@GRAD?",
        (("axis", "INT", 0),), infer=lambda m, a: (m[2], Meta(m[1].shape, m[2].dtype)),
        no_need_buffer=("AddValue",))
defop("index_add", "X Index AddValue", "Out", (("axis", "INT", 0),), infer=_index_add_infer,
      grad=grad_op("index_add_grad", uses=("Index", "AddValue"), wrt=("X", "AddValue")),
      same_dtype=("X", "AddValue"), inplace={"Out": "X"}, no_grad_inputs=("Index",))


def check_scatter_nd(xshape, ishape, ushape, op="scatter_nd_add"):
    if not ishape:
        raise OpError(f"{op}: Index must have rank >= 1, got a 0-D tensor")
    k = ishape[-1]
    if k > len(xshape):
        raise OpError(f"{op}: the last dim of Index ({k}) exceeds the rank of X "
                      f"{list(xshape)}")
    want = tuple(ishape[:-1]) + tuple(xshape[k:]) if k >= 0 else None
    if want is not None and (len(ushape) != len(want) or any(
            a != b and a >= 0 and b >= 0 for a, b in zip(ushape, want))):
        raise OpError(f"{op}: Updates has shape {list(ushape)}, expected {list(want)} "
                      f"(Index shape {list(ishape)}, X shape {list(xshape)})")


def _scatter_nd_add_infer(metas, attrs):
    x, idx, upd = metas
    _index_dtype(idx, "scatter_nd_add: Index")
    check_scatter_nd(tuple(x.shape), tuple(idx.shape), tuple(upd.shape))
    return (x,)


defgrad("scatter_nd_add_grad", "Index Updates Out@GRAD", "X@GRAD? Updates@GRAD?",
        infer=lambda m, a: (m[2], Meta(m[1].shape, m[2].dtype)), no_need_buffer=("Updates",))
defop("scatter_nd_add", "X Index Updates", "Out", infer=_scatter_nd_add_infer,
      grad=grad_op("scatter_nd_add_grad", uses=("Index", "Updates"), wrt=("X", "Updates")),
      same_dtype=("X", "Updates"), inplace={"Out": "X"}, no_grad_inputs=("Index",))


def _multiplex_infer(metas, attrs):
    xs, ids = metas
    if len(xs) < 2:
        raise OpError(f"multiplex: inputs must hold at least 2 candidate tensors, got {len(xs)}")
    _index_dtype(ids, "multiplex: index")
    if len(ids.shape) != 2 or ids.shape[1] not in (1, -1):
        raise OpError(f"multiplex: index must have shape [N, 1], got {list(ids.shape)}",
                      kind=PRECONDITION_NOT_MET)
    s0 = tuple(xs[0].shape)
    for i, m in enumerate(xs[1:], 1):
        if m.dtype != xs[0].dtype:
            raise OpError(f"multiplex: inputs[{i}] has dtype {m.dtype} but inputs[0] has "
                          f"{xs[0].dtype}; they must match")
        if len(m.shape) != len(s0) or any(a != b and a >= 0 and b >= 0
                                          for a, b in zip(m.shape, s0)):
            raise OpError(f"multiplex: inputs[{i}] has shape {list(m.shape)} but inputs[0] "
                          f"has {list(s0)}; all must have one shape")
    if not s0:
        raise OpError("multiplex: the candidate tensors must have rank >= 1")
    if s0[0] >= 0 and ids.shape[0] >= 0 and ids.shape[0] != s0[0]:
        raise OpError(f"multiplex: index has {ids.shape[0]} rows but the candidates have "
                      f"{s0[0]}")
    return (xs[0],)


defgrad("multiplex_grad", "Ids X* Out@GRAD", "X@GRAD*",
        infer=lambda m, a: ([Meta(x.shape, m[2].dtype) for x in m[1]],), no_need_buffer=("X",))
defop("multiplex", "X* Ids", "Out", infer=_multiplex_infer,
      grad=grad_op("multiplex_grad", uses=("Ids", "X")), no_grad_inputs=("Ids",))


# ------------------------------------------------------------ crop / meshgrid
def crop_box(xshape, shape, offsets):
    """Checked (offsets, sizes) of a crop; -1 in shape runs to the end."""
    nd = len(xshape)
    if len(shape) != nd:
        raise OpError(f"crop: shape {list(shape)} must have one entry per dim of the input "
                      f"(shape {list(xshape)})")
    if len(offsets) != nd:
        raise OpError(f"crop: offsets {list(offsets)} must have one entry per dim of the input "
                      f"(shape {list(xshape)})")
    sizes = []
    for i, (d, s, o) in enumerate(zip(xshape, shape, offsets)):
        s, o = int(s), int(o)
        if o < 0:
            raise OpError(f"crop: offsets[{i}] is {o}; offsets must be >= 0")
        if s == 0 or s < -1:
            raise OpError(f"crop: shape[{i}] is {s}; each entry must be positive or -1")
        if s == -1:
            s = d - o if d >= 0 else -1
        if d >= 0 and s >= 0 and o + s > d:
            raise OpError(f"crop: offsets[{i}] + shape[{i}] = {o} + {s} exceeds the input's "
                          f"dim {i} of size {d} (input shape {list(xshape)})")
        sizes.append(s)
    return sizes


def _crop_infer(metas, attrs):
    x, shape_t, shape_list, off_t, off_list = metas
    nd = len(x.shape)
    if shape_t is not None:
        return (Meta((-1,) * values_in(shape_t), x.dtype),)
    shape = list(attrs["shape"])
    if shape_list:
        shape = [s if s > 0 else -1 for s in shape]
    if off_t is not None or off_list:
        return (Meta(tuple(s if s > 0 else -1 for s in shape), x.dtype),)
    offsets = attrs["offsets"] or [0] * nd
    known = crop_box(tuple(x.shape), shape, offsets)
    return (Meta(tuple(known), x.dtype),)


_CROP_ATTRS = (("shape", "INTS", []), ("offsets", "INTS", []))
defgrad("crop_tensor_grad", "X Offsets? OffsetsTensor*? Out@GRAD", "X@GRAD", _CROP_ATTRS,
        no_need_buffer=("X",))
defop("crop_tensor", "X Shape? ShapeTensor*? Offsets? OffsetsTensor*?", "Out", _CROP_ATTRS,
      infer=_crop_infer,
      grad=grad_op("crop_tensor_grad", uses=("X", "Offsets", "OffsetsTensor")),
      no_need_buffer=("X",),
      no_grad_inputs=("Shape", "ShapeTensor", "Offsets", "OffsetsTensor"))


def _meshgrid_infer(metas, attrs):
    xs = metas[0]
    if len(xs) < 2:
        raise OpError(f"meshgrid: expected at least 2 input tensors, got {len(xs)}")
    for i, m in enumerate(xs):
        if len(m.shape) > 1:
            raise OpError(f"meshgrid: expected 0-D or 1-D tensors, but input {i} has shape "
                          f"{list(m.shape)}")
        if m.dtype != xs[0].dtype:
            raise OpError(f"meshgrid: input {i} has dtype {m.dtype} but input 0 has "
                          f"{xs[0].dtype}; they must match")
    shape = tuple(m.shape[0] if m.shape else 1 for m in xs)
    return ([Meta(shape, m.dtype) for m in xs],)


# Paddle names the grad op's incoming gradients ``outputs@GRAD``
defgrad("meshgrid_grad", "X* outputs@GRAD*", "X@GRAD*",
        infer=lambda m, a: ([Meta(x.shape, g.dtype) for x, g in zip(m[0], m[1])],),
        no_need_buffer=("X",))
defop("meshgrid", "X*", "Out*", infer=_meshgrid_infer,
      grad=grad_op("meshgrid_grad", uses=("X",), gouts=(),
                   extra_inputs={"outputs@GRAD": "Out@GRAD"}))


# ------------------------------------------------------------ shard_index
def _shard_index_infer(metas, attrs):
    x = metas[0]
    if len(x.shape) < 2:
        raise OpError(f"shard_index: the input must have rank >= 2 (its last dim 1), got shape "
                      f"{list(x.shape)}")
    if x.shape[-1] not in (1, -1):
        raise OpError(f"shard_index: the last dim of the input must be 1, got shape "
                      f"{list(x.shape)}")
    n, s = attrs["nshards"], attrs["shard_id"]
    if attrs["index_num"] <= 0 or n <= 0:
        raise OpError(f"shard_index: index_num ({attrs['index_num']}) and nshards ({n}) must "
                      f"be positive")
    if not 0 <= s < n:
        raise OpError(f"shard_index: shard_id must be in [0, {n}) (nshards {n}), got {s}")
    return (x,)


defop("shard_index", "X", "Out", (("index_num", "INT", REQUIRED), ("nshards", "INT", REQUIRED),
                                 ("shard_id", "INT", REQUIRED), ("ignore_value", "INT", -1)),
      infer=_shard_index_infer)


# ------------------------------------------------------------ views
def view_shape(xshape, dims):
    dims = tuple(int(d) for d in dims)
    if any(d < 0 for d in dims) or (all(d >= 0 for d in xshape)
                                    and _numel(dims) != _numel(xshape)):
        raise OpError(f"view: a tensor of shape {list(xshape)} cannot be viewed as shape "
                      f"{list(dims)}: the dims must be non-negative and hold the same number "
                      f"of elements (-1 is not inferred; use reshape)")
    return dims


defgrad("view_shape_grad", "input out@GRAD", "input@GRAD", (("dims", "LONGS", []),),
        no_need_buffer=("input",))
defop("view_shape", "input", "out", (("dims", "LONGS", []),),
      infer=lambda m, a: (Meta(view_shape(tuple(m[0].shape), a["dims"]), m[0].dtype),),
      grad=grad_op("view_shape_grad", uses=("input",), gouts=("out",), wrt=("input",)),
      no_need_buffer=("input",))


def view_dtype_shape(xshape, src, dst):
    """The shape of a tensor of dtype ``src`` reinterpreted as ``dst`` (the last
    dim scales by the ratio of the item sizes)."""
    a, b = np.dtype(src).itemsize, np.dtype(dst).itemsize
    if a == b:
        return tuple(xshape)
    if not xshape:
        raise OpError(f"view: a 0-D {np.dtype(src)} tensor cannot be viewed as "
                      f"{np.dtype(dst)} (the item sizes differ)")
    last = xshape[-1]
    if last >= 0 and (last * a) % b:
        raise OpError(f"view: the last dim of shape {list(xshape)} holds {last * a} bytes of "
                      f"{np.dtype(src)}, not a multiple of {np.dtype(dst)}'s {b}")
    return tuple(xshape[:-1]) + (-1 if last < 0 else last * a // b,)


def _view_dtype_infer(metas, attrs):
    x = metas[0]
    dt = to_np_dtype(attrs["dtype"])
    return (Meta(view_dtype_shape(tuple(x.shape), x.dtype, dt), dt),)


defop("view_dtype", "input", "out", (("dtype", "INT", REQUIRED),), infer=_view_dtype_infer)


def unfold_shape(xshape, axis, size, step):
    """(axis, output shape) of unfold; a 0-D input is one element (any axis) and
    gives shape [size]."""
    if step <= 0:
        raise OpError(f"unfold: step must be greater than 0, got {step}")
    if not xshape:
        if not 0 <= size <= 1:
            raise OpError(f"unfold: size ({size}) must be in [0, 1] for a 0-D input")
        return 0, (size,)
    shape = list(xshape)
    ax = norm_axis(axis, len(shape), "unfold: axis")
    d = shape[ax]
    if size < 0 or (d >= 0 and size > d):
        raise OpError(f"unfold: size ({size}) must be in [0, {d}] (the input's dim {ax}, shape "
                      f"{list(xshape)})")
    shape[ax] = -1 if d < 0 else (d - size) // step + 1
    return ax, tuple(shape) + (size,)


_UNFOLD_ATTRS = (("axis", "LONG", REQUIRED), ("size", "LONG", REQUIRED),
                 ("step", "LONG", REQUIRED))
defgrad("tensor_unfold_grad", "input out@GRAD", "input@GRAD", _UNFOLD_ATTRS,
        no_need_buffer=("input",))
defop("tensor_unfold", "input", "out", _UNFOLD_ATTRS,
      infer=lambda m, a: (Meta(unfold_shape(tuple(m[0].shape), a["axis"], a["size"],
                                            a["step"])[1], m[0].dtype),),
      grad=grad_op("tensor_unfold_grad", uses=("input",), gouts=("out",), wrt=("input",)),
      no_need_buffer=("input",))


def check_as_strided(xshape, itemsize, dims, stride, offset):
    """as_strided reads element ``offset + sum(i_k * stride_k * itemsize)`` bytes
    into the input's buffer: every one must lie inside it.  ``offset`` counts
    bytes (Paddle's storage offset), ``stride`` elements."""
    if len(dims) != len(stride):
        raise OpError(f"as_strided: shape {list(dims)} and stride {list(stride)} must have the "
                      f"same length")
    if any(int(d) < 0 for d in dims) or any(int(s) < 0 for s in stride) or offset < 0:
        raise OpError(f"as_strided: shape {list(dims)}, stride {list(stride)} and offset "
                      f"{offset} must be non-negative")
    if any(d < 0 for d in xshape) or any(int(d) == 0 for d in dims):
        return
    last = offset + (sum((int(d) - 1) * int(s) for d, s in zip(dims, stride)) + 1) * itemsize
    if last > _numel(xshape) * itemsize:
        raise OpError(f"as_strided: shape {list(dims)} with stride {list(stride)} and offset "
                      f"{offset} reads past the end of the input (shape {list(xshape)}, "
                      f"{_numel(xshape) * itemsize} bytes)")


def _as_strided_infer(metas, attrs):
    x = metas[0]
    check_as_strided(tuple(x.shape), x.dtype.itemsize, attrs["dims"], attrs["stride"],
                     attrs["offset"])
    return (Meta(tuple(int(d) for d in attrs["dims"]), x.dtype),)


_AS_STRIDED_ATTRS = (("dims", "LONGS", []), ("stride", "LONGS", []), ("offset", "LONG", 0))
defgrad("as_strided_grad", "input out@GRAD", "input@GRAD", _AS_STRIDED_ATTRS,
        no_need_buffer=("input",))
defop("as_strided", "input", "out", _AS_STRIDED_ATTRS, infer=_as_strided_infer,
      grad=grad_op("as_strided_grad", uses=("input",), gouts=("out",), wrt=("input",)),
      no_need_buffer=("input",))

