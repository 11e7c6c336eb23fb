"""Shape manipulation ops: reshape2, transpose2, flatten, squeeze2/unsqueeze2,
concat/split, stack/unstack/unbind, expand_v2/expand_as_v2, broadcast_tensors, tile,
flip, roll, pad/pad3d, shape/size.

The ``*2`` ops emit Paddle's intermediate ``XShape`` (an empty array of shape
``(0,) + x.shape``): their grad ops read the input shape from it, so the
forward input's buffer is never kept for the backward.  The shape rules here
are plain functions, shared with the kernels (``kernels/cpu/manipulation.py``).
Linear ops get a second-order rule that re-applies the forward op to DDX.
"""
import math

from ..declare import defop, defgrad, grad_op, grad_chain, REQUIRED
from ..meta_rules import norm_axis, broadcast_shapes, INT32, INT64
from ..registry import GradOp, Meta, OpError


# ------------------------------------------------------------ shape rules
def _numel(shape):
    return math.prod(shape)


def reshape_target(shape, xshape):
    """Paddle's reshape rule: 0 copies the input dim, one -1 is inferred."""
    for s in shape:           # the common case first: positive Python ints, sizes agree
        if type(s) is not int or s <= 0:
            break
    else:
        if _numel(shape) == _numel(xshape) and min(xshape, default=0) >= 0:
            return tuple(shape)
    out, infer_at = [], None
    for i, s in enumerate(shape):
        s = int(s)
        if s == 0:
            if i >= len(xshape):
                raise OpError(f"reshape: shape {list(shape)} has 0 (copy) at position {i}, "
                              f"but the input shape {list(xshape)} has only {len(xshape)} dims")
            out.append(xshape[i])
        elif s == -1:
            if infer_at is not None:
                raise OpError(f"reshape: shape {list(shape)} has more than one -1")
            infer_at = i
            out.append(-1)
        elif s < -1:
            raise OpError(f"reshape: shape {list(shape)} has invalid dim {s} at position {i}")
        else:
            out.append(s)
    if any(d < 0 for d in xshape):     # unknown input size (static batch dim)
        return tuple(out)
    n = _numel(xshape)
    known = _numel(d for i, d in enumerate(out) if i != infer_at)
    if infer_at is not None:
        if known == 0 or n % known:
            raise OpError(f"cannot reshape a tensor of shape {list(xshape)} ({n} elements) "
                          f"to shape {list(shape)}")
        out[infer_at] = n // known
    elif known != n:
        raise OpError(f"cannot reshape a tensor of shape {list(xshape)} ({n} elements) to "
                      f"shape {list(shape)} ({known} elements)")
    return tuple(out)


_PERMS = {}     # (perm, ndim) -> the checked, normalized perm (eager calls repeat them)


def check_perm(axis, ndim):
    key = (tuple(axis), ndim)
    got = _PERMS.get(key)
    if got is None:
        got = _check_perm(axis, ndim)
        if len(_PERMS) < 4096:
            _PERMS[key] = got
    return got


def _check_perm(axis, ndim):
    axis = [int(a) for a in axis]
    norm = [a + ndim if a < 0 else a for a in axis]
    if len(axis) != ndim or sorted(norm) != list(range(ndim)):
        raise OpError(f"transpose: perm {axis} is not a permutation of the {ndim} dims "
                      f"of the input")
    return tuple(norm)


def flatten_shape(xshape, start, stop):
    nd = len(xshape)
    if nd == 0:
        return (1,)
    start, stop = norm_axis(start, nd, "start_axis"), norm_axis(stop, nd, "stop_axis")
    if start > stop:
        raise OpError(f"flatten: start_axis {start} must not be greater than stop_axis {stop}")
    mid = xshape[start:stop + 1]
    m = -1 if any(d < 0 for d in mid) else _numel(mid)
    return tuple(xshape[:start]) + (m,) + tuple(xshape[stop + 1:])


def squeeze_shape(xshape, axes):
    nd = len(xshape)
    if not axes:
        return tuple(d for d in xshape if d != 1)
    drop = {norm_axis(int(a), nd, "squeeze axis") for a in axes} if nd else set()
    return tuple(d for i, d in enumerate(xshape) if not (i in drop and d in (1, -1)))


def unsqueeze_shape(xshape, axes):
    out = list(xshape)
    for a in axes:
        a = int(a)
        r = len(out)
        if not -r - 1 <= a <= r:
            raise OpError(f"unsqueeze: axis {a} is out of range for rank {r} "
                          f"(expected in [{-r - 1}, {r}])")
        out.insert(a + r + 1 if a < 0 else a, 1)
    return tuple(out)


def expand_target(xshape, shape):
    shape = [int(s) for s in shape]
    if len(shape) < len(xshape):
        raise OpError(f"expand: target shape {shape} has fewer dims than the input "
                      f"shape {list(xshape)}")
    lead = len(shape) - len(xshape)
    out = []
    for i, s in enumerate(shape):
        d = xshape[i - lead] if i >= lead else None
        if s == -1:
            if d is None:
                raise OpError(f"expand: -1 in target shape {shape} at a new leading dim {i}")
            out.append(d)
        elif d is not None and d not in (1, -1, s):
            raise OpError(f"expand: input dim {i - lead} of shape {list(xshape)} is {d}; "
                          f"it must be 1 or equal the target {s} (target shape {shape})")
        else:
            out.append(s)
    return tuple(out)


def check_repeat_times(reps):
    for r in reps:
        if int(r) <= 0:
            raise OpError(f"tile: every element of repeat_times must be positive, got "
                          f"{[int(v) for v in reps]}")


def check_roll_shifts(shifts, axes):
    if axes and len(shifts) != len(axes):
        raise OpError(f"roll: shifts {list(shifts)} and axis {list(axes)} must have the same "
                      f"length (or give no axis)")


def check_same_dtype(dtypes, op):
    dts = list(dtypes)
    if len(set(dts)) > 1:
        raise OpError(f"{op}: inputs have different dtypes {[str(d) for d in dts]}; cast "
                      f"them to one dtype first")


def tile_shape(xshape, reps):
    reps = [int(r) for r in reps]
    check_repeat_times(reps)
    n = max(len(reps), len(xshape))
    reps = [1] * (n - len(reps)) + reps
    xs = [1] * (n - len(xshape)) + list(xshape)
    return tuple(-1 if d < 0 else d * r for d, r in zip(xs, reps))


def split_sizes(dim, num, sections, axis_name="axis"):
    """Section sizes along the split axis (one -1 section is inferred)."""
    if num > 0:
        if dim >= 0 and dim % num:
            raise OpError(f"split: the dim {dim} along {axis_name} is not divisible by "
                          f"num={num}")
        return [dim // num if dim >= 0 else -1] * num
    sections = [int(s) for s in sections]
    if not sections:
        raise OpError("split: give num > 0 or a list of sections")
    if sections.count(-1) > 1:
        raise OpError(f"split: sections {sections} may contain at most one -1")
    if dim < 0:
        return [s if s != -1 else -1 for s in sections]
    known = sum(s for s in sections if s != -1)
    if -1 in sections:
        if known > dim:
            raise OpError(f"split: sections {sections} exceed the dim {dim}")
        return [dim - known if s == -1 else s for s in sections]
    if known != dim:
        raise OpError(f"split: sections {sections} sum to {known}, but the dim along "
                      f"{axis_name} is {dim}")
    return sections


def _xshape(m):
    return Meta((0,) + tuple(m.shape), m.dtype)


def _unknown(rank, dtype):
    return Meta((-1,) * rank, dtype)


def values_in(m):
    """How many values a 1-D (or 0-D) int tensor input carries (0 when unknown)."""
    return max(m.shape[0], 0) if m.shape else 1


def _shape_from_xshape(metas, attrs):
    xs, g = metas[0], metas[1]
    return (Meta(tuple(xs.shape[1:]), g.dtype),)


def _redo(fwd, extra=None, attrs=None):
    """Second-order rule of a linear grad op: the forward op applied to DDX."""
    ins = {"X": "X@GRAD@GRAD"}
    ins.update(extra or {})
    return GradOp(fwd, ins, {"Out": "Out@GRAD@GRAD"}, attrs)


# ------------------------------------------------------------ reshape family
def _reshape_infer(metas, attrs):
    x, shape_t, shape_list = metas
    if shape_t is not None:
        out = (-1,) * values_in(shape_t)
    elif shape_list:
        out = (-1,) * len(shape_list)
    else:
        out = reshape_target(attrs["shape"], x.shape)
    return Meta(out, x.dtype), _xshape(x)


# reshape2_grad_grad reshapes DDX to DOut's shape; its gradient reshapes D_DDOut
# back to DDX's shape, which is the same op with DDX giving the shape
defgrad("reshape2_grad_grad", "DOut DDX", "DDOut", infer=lambda m, a: (m[0],),
        grad=GradOp("reshape2_grad_grad", {"DOut": "DDX", "DDX": "DDOut@GRAD"},
                    {"DDOut": "DDX@GRAD"}))
defgrad("reshape2_grad", "XShape Out@GRAD", "X@GRAD", infer=_shape_from_xshape,
        grad=GradOp("reshape2_grad_grad", {"DOut": "Out@GRAD", "DDX": "X@GRAD@GRAD"},
                    {"DDOut": "Out@GRAD@GRAD"}))
defop("reshape2", "X Shape? ShapeTensor*?", "Out XShape~",
      (("shape", "INTS", []), ("use_quantizer", "BOOLEAN", False)),
      infer=_reshape_infer, grad=grad_op("reshape2_grad", uses=("XShape",)),
      inplace={"Out": "X"}, no_grad_inputs=("Shape", "ShapeTensor"))


def _transpose_infer(metas, attrs):
    x = metas[0]
    perm = check_perm(attrs["axis"], len(x.shape))
    return Meta(tuple(x.shape[p] for p in perm), x.dtype), _xshape(x)


defgrad("transpose2_grad", "XShape Out@GRAD", "X@GRAD", (("axis", "INTS", []),),
        infer=_shape_from_xshape, grad=_redo("transpose2"))
defop("transpose2", "X", "Out XShape~", (("axis", "INTS", REQUIRED),),
      infer=_transpose_infer, grad=grad_op("transpose2_grad", uses=("XShape",)))


def _flatten_infer(metas, attrs):
    x = metas[0]
    return (Meta(flatten_shape(tuple(x.shape), attrs["start_axis"], attrs["stop_axis"]),
                 x.dtype), _xshape(x))


_FLAT_ATTRS = (("start_axis", "INT", 1), ("stop_axis", "INT", 1))
defgrad("flatten_contiguous_range_grad", "XShape Out@GRAD", "X@GRAD", _FLAT_ATTRS,
        infer=_shape_from_xshape, grad=_redo("flatten_contiguous_range"))
defop("flatten_contiguous_range", "X", "Out XShape~", _FLAT_ATTRS, infer=_flatten_infer,
      grad=grad_op("flatten_contiguous_range_grad", uses=("XShape",)), inplace={"Out": "X"})


def _squeeze_infer(metas, attrs):
    x = metas[0]
    return Meta(squeeze_shape(tuple(x.shape), attrs["axes"]), x.dtype), _xshape(x)


defgrad("squeeze2_grad", "XShape Out@GRAD", "X@GRAD", (("axes", "INTS", []),),
        infer=_shape_from_xshape, grad=_redo("squeeze2"))
defop("squeeze2", "X", "Out XShape~", (("axes", "INTS", []),), infer=_squeeze_infer,
      grad=grad_op("squeeze2_grad", uses=("XShape",)), inplace={"Out": "X"})


def _unsqueeze_infer(metas, attrs):
    x, axes_t, axes_list = metas
    if axes_t is not None or axes_list:
        n = len(axes_list) if axes_list else values_in(axes_t)
        return _unknown(len(x.shape) + n, x.dtype), _xshape(x)
    return Meta(unsqueeze_shape(tuple(x.shape), attrs["axes"]), x.dtype), _xshape(x)


defgrad("unsqueeze2_grad", "XShape Out@GRAD", "X@GRAD", (("axes", "INTS", []),),
        infer=_shape_from_xshape, grad=_redo("unsqueeze2"))
defop("unsqueeze2", "X AxesTensor? AxesTensorList*?", "Out XShape~", (("axes", "INTS", []),),
      infer=_unsqueeze_infer, grad=grad_op("unsqueeze2_grad", uses=("XShape",)),
      inplace={"Out": "X"}, no_grad_inputs=("AxesTensor", "AxesTensorList"))


# ------------------------------------------------------------ concat / split
def concat_shape(shapes, axis, names=None):
    if not shapes:
        raise OpError("concat: X is an empty list")
    nd = len(shapes[0])
    names = names or [f"X[{i}]" for i in range(len(shapes))]
    if nd == 0:
        raise OpError("concat: inputs must have rank >= 1, got 0-D tensors")
    ax = norm_axis(axis, nd)
    out = list(shapes[0])
    for n, s in zip(names[1:], shapes[1:]):
        if len(s) != nd:
            raise OpError(f"concat: {n} has shape {list(s)} (rank {len(s)}) but {names[0]} "
                          f"has shape {list(shapes[0])} (rank {nd}); ranks must match")
        for i, (a, b) in enumerate(zip(out, s)):
            if i == ax:
                out[i] = -1 if a < 0 or b < 0 else a + b
            elif a >= 0 and b >= 0 and a != b:
                raise OpError(f"concat: {n} has shape {list(s)} but {names[0]} has shape "
                              f"{list(shapes[0])}; all dims except axis {ax} must match")
            elif a < 0:
                out[i] = b
    return tuple(out)


def _concat_infer(metas, attrs):
    xs, axis_t = metas
    dts = {m.dtype for m in xs}
    if len(dts) > 1:
        raise OpError(f"concat: inputs have different dtypes {[str(m.dtype) for m in xs]}; "
                      "cast them to one dtype first")
    if axis_t is not None:
        return (_unknown(len(xs[0].shape), xs[0].dtype),)
    return (Meta(concat_shape([tuple(m.shape) for m in xs], attrs["axis"]), xs[0].dtype),)


_CONCAT_DDX = GradOp("concat", {"X": "X@GRAD@GRAD", "AxisTensor": "AxisTensor"},
                     {"Out": "Out@GRAD@GRAD"})


defgrad("concat_grad", "X* AxisTensor? Out@GRAD", "X@GRAD*", (("axis", "INT", 0),),
        grad=_CONCAT_DDX, no_need_buffer=("X",))
defop("concat", "X* AxisTensor?", "Out", (("axis", "INT", 0),), infer=_concat_infer,
      grad=grad_op("concat_grad", uses=("X", "AxisTensor")), no_grad_inputs=("AxisTensor",))


def _split_infer(metas, attrs):
    x, axis_t, sec_list = metas
    nd = len(x.shape)
    if axis_t is not None or sec_list:
        n = attrs["num"] or len(attrs["sections"]) or len(sec_list or ())
        return ([_unknown(nd, x.dtype) for _ in range(n)],)
    ax = norm_axis(attrs["axis"], nd)
    sizes = split_sizes(x.shape[ax], attrs["num"], attrs["sections"])
    return ([Meta(tuple(x.shape[:ax]) + (s,) + tuple(x.shape[ax + 1:]), x.dtype)
             for s in sizes],)


# Paddle's split gradient is a concat of the output gradients
_SPLIT_GRAD = GradOp("concat", {"X": "Out@GRAD", "AxisTensor": "AxisTensor"}, {"Out": "X@GRAD"},
                     lambda a: {"axis": a["axis"]})


defop("split", "X AxisTensor? SectionsTensorList*?", "Out*",
      (("sections", "INTS", []), ("num", "INT", 0), ("axis", "INT", 0),
       ("use_mkldnn", "BOOLEAN", False), ("mkldnn_data_type", "STRING", "float32")),
      infer=_split_infer, grad=_SPLIT_GRAD,
      no_grad_inputs=("AxisTensor", "SectionsTensorList"))


# ------------------------------------------------------------ stack / unstack
def _stack_infer(metas, attrs):
    xs = metas[0]
    if not xs:
        raise OpError("stack: X is an empty list")
    check_same_dtype((m.dtype for m in xs), "stack")
    s0 = tuple(xs[0].shape)
    for i, m in enumerate(xs[1:], 1):
        if len(m.shape) != len(s0) or any(a != b and a >= 0 and b >= 0
                                          for a, b in zip(m.shape, s0)):
            raise OpError(f"stack: X[{i}] has shape {list(m.shape)} but X[0] has shape "
                          f"{list(s0)}; all inputs must have the same shape")
    ax = norm_axis(attrs["axis"], len(s0) + 1)
    return (Meta(s0[:ax] + (len(xs),) + s0[ax:], xs[0].dtype),)


def _unstack_metas(m, axis, num=0):
    nd = len(m.shape)
    ax = norm_axis(axis, nd)
    n = m.shape[ax] if m.shape[ax] >= 0 else num
    if num and m.shape[ax] >= 0 and num != m.shape[ax]:
        raise OpError(f"unstack: num={num} but the dim along axis {axis} is {m.shape[ax]}")
    s = tuple(m.shape[:ax]) + tuple(m.shape[ax + 1:])
    return [Meta(s, m.dtype) for _ in range(n)]


# stack_grad unstacks Y@GRAD, so its own gradient stacks DDX (and vice versa)
_STACK_DDX = GradOp("stack", {"X": "X@GRAD@GRAD"}, {"Y": "Y@GRAD@GRAD"})
_UNSTACK_DDX = GradOp("unstack", {"X": "X@GRAD@GRAD"}, {"Y": "Y@GRAD@GRAD"})

defgrad("stack_grad", "Y@GRAD", "X@GRAD*", (("axis", "INT", 0),),
        infer=lambda m, a: (_unstack_metas(m[0], a["axis"]),), grad=_STACK_DDX)
defop("stack", "X*", "Y", (("axis", "INT", 0),), infer=_stack_infer,
      grad=grad_op("stack_grad", gouts=("Y",)))

_UNSTACK_ATTRS = (("axis", "INT", 0), ("num", "INT", 0))
defgrad("unstack_grad", "Y@GRAD*", "X@GRAD", _UNSTACK_ATTRS,
        infer=lambda m, a: _stack_infer((m[0],), a), grad=_UNSTACK_DDX)
defop("unstack", "X", "Y*", _UNSTACK_ATTRS,
      infer=lambda m, a: (_unstack_metas(m[0], a["axis"], a["num"]),),
      grad=grad_op("unstack_grad", gouts=("Y",)))


# Paddle's unbind gradient is a stack of the output gradients
_UNBIND_GRAD = GradOp("stack", {"X": "Out@GRAD"}, {"Y": "X@GRAD"}, lambda a: {"axis": a["axis"]})


defop("unbind", "X", "Out*", (("axis", "INT", 0),),
      infer=lambda m, a: (_unstack_metas(m[0], a["axis"]),), grad=_UNBIND_GRAD)


# ------------------------------------------------------------ expand / tile
def _expand_infer(metas, attrs):
    x, shape_t, shape_list = metas
    if shape_t is not None:
        return (_unknown(values_in(shape_t), x.dtype),)
    if shape_list:
        return (_unknown(len(shape_list), x.dtype),)
    return (Meta(expand_target(tuple(x.shape), attrs["shape"]), x.dtype),)


defgrad("expand_v2_grad", "X Shape? expand_shapes_tensor*? Out@GRAD", "X@GRAD",
        (("shape", "INTS", []),), grad=_redo("expand_v2", {"Shape": "Shape",
                                                            "expand_shapes_tensor":
                                                            "expand_shapes_tensor"}),
        no_need_buffer=("X",))
defop("expand_v2", "X Shape? expand_shapes_tensor*?", "Out", (("shape", "INTS", []),),
      infer=_expand_infer,
      grad=grad_op("expand_v2_grad", uses=("X", "Shape", "expand_shapes_tensor")),
      no_grad_inputs=("Shape", "expand_shapes_tensor"))


def _expand_as_infer(metas, attrs):
    x, y = metas
    target = tuple(y.shape) if y is not None else tuple(attrs["target_shape"])
    return (Meta(expand_target(tuple(x.shape), target), x.dtype),)


defgrad("expand_as_v2_grad", "X Out@GRAD", "X@GRAD", (("target_shape", "INTS", []),),
        no_need_buffer=("X",))
defop("expand_as_v2", "X Y?", "Out", (("target_shape", "INTS", []),), infer=_expand_as_infer,
      grad=grad_op("expand_as_v2_grad", uses=("X",)), no_grad_inputs=("Y",))


def _broadcast_tensors_infer(metas, attrs):
    xs = metas[0]
    if not xs:
        raise OpError("broadcast_tensors: X is an empty list")
    dts = {m.dtype for m in xs}
    if len(dts) > 1:
        raise OpError(f"broadcast_tensors: inputs have different dtypes "
                      f"{[str(m.dtype) for m in xs]}; cast them to one dtype first")
    shape = ()
    for i, m in enumerate(xs):
        shape = broadcast_shapes(shape, m.shape, names=("X[:%d]" % i, "X[%d]" % i))
    return ([Meta(shape, m.dtype) for m in xs],)


# each output is its input expanded: the gradient sums each Out@GRAD back down
defgrad("broadcast_tensors_grad", "X* Out@GRAD*", "X@GRAD*",
        infer=lambda m, a: ([Meta(x.shape, g.dtype) for x, g in zip(m[0], m[1])],),
        no_need_buffer=("X",))
defop("broadcast_tensors", "X*", "Out*", infer=_broadcast_tensors_infer,
      grad=grad_op("broadcast_tensors_grad", uses=("X",)))


def _tile_infer(metas, attrs):
    x, rep_t, rep_list = metas
    if rep_t is not None or rep_list:
        n = len(rep_list) if rep_list else values_in(rep_t)
        return (_unknown(max(n, len(x.shape)), x.dtype),)
    return (Meta(tile_shape(tuple(x.shape), attrs["repeat_times"]), x.dtype),)


defgrad("tile_grad", "X RepeatTimes? repeat_times_tensor*? Out@GRAD", "X@GRAD",
        (("repeat_times", "INTS", []),),
        grad=_redo("tile", {"RepeatTimes": "RepeatTimes",
                            "repeat_times_tensor": "repeat_times_tensor"}),
        no_need_buffer=("X",))
defop("tile", "X RepeatTimes? repeat_times_tensor*?", "Out", (("repeat_times", "INTS", []),),
      infer=_tile_infer, grad=grad_op("tile_grad", uses=("X", "RepeatTimes",
                                                         "repeat_times_tensor")),
      no_grad_inputs=("RepeatTimes", "repeat_times_tensor"))


# ------------------------------------------------------------ flip / roll / pad
def _check_axes(metas, attrs, key="axis"):
    nd = len(metas[0].shape)
    for a in attrs[key]:
        norm_axis(int(a), nd, key)
    return (metas[0],)


defop("flip", "X", "Out", (("axis", "INTS", []),), infer=_check_axes,
      grad=GradOp("flip", {"X": "Out@GRAD"}, {"Out": "X@GRAD"}))

_ROLL_ATTRS = (("shifts", "LONGS", []), ("axis", "LONGS", []))
defgrad("roll_grad", "X ShiftsTensor? Out@GRAD", "X@GRAD", _ROLL_ATTRS, no_need_buffer=("X",))
def _roll_infer(metas, attrs):
    if metas[1] is None:
        check_roll_shifts(attrs["shifts"], attrs["axis"])
    return _check_axes(metas, attrs)


defop("roll", "X ShiftsTensor?", "Out", _ROLL_ATTRS, infer=_roll_infer,
      grad=grad_op("roll_grad", uses=("X", "ShiftsTensor")), no_grad_inputs=("ShiftsTensor",))


def _pad_infer(metas, attrs, sign=1):
    x = metas[0]
    p = [int(v) for v in attrs["paddings"]]
    if len(p) != 2 * len(x.shape):
        raise OpError(f"pad: paddings {p} must hold 2 values per dim of the input shape "
                      f"{list(x.shape)}")
    return (Meta(tuple(-1 if d < 0 else d + sign * (p[2 * i] + p[2 * i + 1])
                       for i, d in enumerate(x.shape)), x.dtype),)


_PAD_ATTRS = (("paddings", "INTS", []), ("pad_value", "FLOAT", 0.0))
defgrad("pad_grad", "Out@GRAD", "X@GRAD", _PAD_ATTRS,
        infer=lambda m, a: _pad_infer(m, a, -1),
        grad=_redo("pad", attrs=lambda a: {"paddings": a["paddings"], "pad_value": 0.0}))
defop("pad", "X", "Out", _PAD_ATTRS, infer=_pad_infer,
      grad=grad_op("pad_grad"))

PAD3D_MODES = ("constant", "reflect", "replicate", "circular")


def pad3d_spatial(data_format):
    """Indices of the (D, H, W) axes of a 5-D input."""
    if data_format == "NCDHW":
        return (2, 3, 4)
    if data_format == "NDHWC":
        return (1, 2, 3)
    raise OpError(f"pad3d: data_format must be 'NCDHW' or 'NDHWC', got '{data_format}'")


def _pad3d_infer(metas, attrs):
    x, pad_t = metas
    if len(x.shape) != 5:
        raise OpError(f"pad3d: input X must be 5-D, got shape {list(x.shape)}")
    if attrs["mode"] not in PAD3D_MODES:
        raise OpError(f"pad3d: mode must be one of {list(PAD3D_MODES)}, got '{attrs['mode']}'")
    d, h, w = pad3d_spatial(attrs["data_format"])
    out = list(x.shape)
    if pad_t is not None:
        for a in (d, h, w):
            out[a] = -1
        return (Meta(tuple(out), x.dtype),)
    p = [int(v) for v in attrs["paddings"]]
    if len(p) != 6:
        raise OpError(f"pad3d: paddings must have 6 values [left, right, top, bottom, front, "
                      f"back], got {p}")
    for a, (lo, hi) in ((w, p[0:2]), (h, p[2:4]), (d, p[4:6])):
        out[a] = -1 if out[a] < 0 else out[a] + lo + hi
    return (Meta(tuple(out), x.dtype),)


_PAD3D_ATTRS = (("paddings", "INTS", []), ("mode", "STRING", "constant"),
                ("value", "FLOAT", 0.0), ("data_format", "STRING", "NCDHW"))
# pad3d is linear in X: the gradient of its grad pads DDX (with zeros)
defgrad("pad3d_grad", "X Paddings? Out@GRAD", "X@GRAD", _PAD3D_ATTRS,
        grad=grad_chain(_PAD3D_ATTRS, ("pad3d_double_grad",
                                       {"Paddings?": "Paddings", "grad_x@GRAD": "X@GRAD@GRAD"},
                                       {"grad_out@GRAD": "Out@GRAD@GRAD"},
                                       lambda m, a: _pad3d_infer((m[1], m[0]), a))),
        no_need_buffer=("X",))
defop("pad3d", "X Paddings?", "Out", _PAD3D_ATTRS, infer=_pad3d_infer,
      grad=grad_op("pad3d_grad", uses=("X", "Paddings")), no_grad_inputs=("Paddings",))

# ------------------------------------------------------------ shape / size
defop("shape", "Input", "Out", infer=lambda m, a: (Meta((len(m[0].shape),), INT32),),
      no_need_buffer=("Input",))
defop("size", "Input", "Out", infer=lambda m, a: (Meta((), INT64),),
      no_need_buffer=("Input",))
