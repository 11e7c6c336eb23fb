"""Shape manipulation functions (``paddle.reshape``, ``concat``, ``split``, ...).

Each calls one op through ``bind``; list arguments that hold tensors (a shape
with a tensor dim, sections given as tensors) travel as the op's tensor
inputs.  The in-place variants (``reshape_``, ``squeeze_``, ``unsqueeze_``)
rebind the Tensor to the result (see ``indexing.inplace``).
"""
import numbers

import numpy as np

from ..dygraph.aliases import view_op
from ..dygraph.engine import unrecorded_array
from ..dygraph.tensor import wrap
from ..ops.defs.manipulation import reshape_target, check_perm
from ..ops import bind, get_op, OpError
from ..ops.meta_rules import norm_axis
from .creation import full, is_var, int_list_args as _int_list_args

__all__ = ["reshape", "reshape_", "transpose", "flatten", "squeeze", "squeeze_", "unsqueeze",
           "unsqueeze_", "concat", "split", "chunk", "stack", "unstack", "unbind", "slice",
           "strided_slice", "expand", "expand_as", "broadcast_to", "broadcast_tensors", "tile",
           "flip", "roll", "moveaxis", "shape", "numel"]
# x.numel() is the op (a 0-D int64 tensor, as Paddle's); x.size is a Python int
METHODS = [n for n in __all__ if n not in ("shape", "broadcast_tensors")]

_OPS = {t: get_op(t) for t in (
    "reshape2", "transpose2", "flatten_contiguous_range", "squeeze2", "unsqueeze2", "concat",
    "split", "stack", "unstack", "unbind", "slice", "strided_slice", "expand_v2",
    "expand_as_v2", "broadcast_tensors", "tile", "flip", "roll", "shape", "size")}


def int_list_args(value, what="shape"):
    """creation.int_list_args with tensors passed as they are (Paddle's
    manipulation functions do not cast them)."""
    return _int_list_args(value, what, cast_int32=False)


def _one_element_checks(shape):
    """The ``numel(t) == 1`` checks Paddle's expand/tile append for each tensor
    of a shape argument (their results are not used: Paddle asserts on them)."""
    for t in [shape] if is_var(shape) else [v for v in shape if is_var(v)]:
        numel(t) == 1     # noqa: B015  (the ops only, as Paddle appends them)


def _axes(axis):
    if axis is None:
        return []
    if isinstance(axis, (numbers.Integral, np.integer)):
        return [int(axis)]
    return [int(a) for a in axis]


# ------------------------------------------------------------ reshape family
@view_op
def reshape(x, shape, name=None):
    ints, st, sl = int_list_args(shape)
    if st is None and sl is None:
        a = unrecorded_array(x)
        if a is not None:       # the op's value (a view), without the op
            return wrap(a.reshape(reshape_target(ints, a.shape)))
        return bind(_OPS["reshape2"], (x, None, None), {"shape": ints})[0]
    return bind(_OPS["reshape2"], (x, st, sl), {"shape": ints if sl else []})[0]


def reshape_(x, shape, name=None):
    from .indexing import inplace
    return inplace(x, lambda t: reshape(t, shape), view=True)


@view_op
def transpose(x, perm, name=None):
    a = unrecorded_array(x)
    if a is not None:           # the op's value (a view), without the op
        return wrap(a.transpose(check_perm(perm, a.ndim)))
    return bind(_OPS["transpose2"], (x,), {"axis": [int(p) for p in perm]})[0]


def moveaxis(x, source, destination, name=None):
    src, dst = _axes(source), _axes(destination)
    nd = len(x.shape)
    if len(src) != len(dst):        # Paddle's checks here are asserts: AssertionError
        raise OpError(f"moveaxis: source {src} and destination {dst} differ in length",
                      kind=AssertionError)
    src = [norm_axis(s, nd, "moveaxis: source", AssertionError) for s in src]
    dst = [norm_axis(d, nd, "moveaxis: destination", AssertionError) for d in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise OpError(f"moveaxis: each axis of source {src} and of destination {dst} must "
                      f"be unique")
    rest = [i for i in range(nd) if i not in src]
    perm = [None] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(rest)
    return transpose(x, [p if p is not None else next(it) for p in perm])


@view_op
def flatten(x, start_axis=0, stop_axis=-1, name=None):
    # Paddle writes the axes normalized (as given for a 0-D x); the op checks the range
    start_axis, stop_axis = int(start_axis), int(stop_axis)
    nd = len(x.shape)
    if nd:
        start_axis += nd if -nd <= start_axis < 0 else 0
        stop_axis += nd if -nd <= stop_axis < 0 else 0
    return bind(_OPS["flatten_contiguous_range"], (x,),
                {"start_axis": start_axis, "stop_axis": stop_axis})[0]


def flatten_(x, start_axis=0, stop_axis=-1, name=None):
    from .indexing import inplace
    return inplace(x, lambda t: flatten(t, start_axis, stop_axis), view=True)


@view_op
def squeeze(x, axis=None, name=None):
    return bind(_OPS["squeeze2"], (x,), {"axes": _axes(axis)})[0]


def squeeze_(x, axis=None, name=None):
    from .indexing import inplace
    return inplace(x, lambda t: squeeze(t, axis), view=True)


@view_op
def unsqueeze(x, axis, name=None):
    ints, at, al = int_list_args(axis, "axis")
    return bind(_OPS["unsqueeze2"], (x, at, al), {"axes": [] if at is not None or al else ints})[0]


def unsqueeze_(x, axis, name=None):
    from .indexing import inplace
    return inplace(x, lambda t: unsqueeze(t, axis), view=True)


# ------------------------------------------------------------ concat / split / stack
def concat(x, axis=0, name=None):
    xs = list(x)
    if is_var(axis):
        return bind(_OPS["concat"], (xs, axis))[0]
    return bind(_OPS["concat"], (xs, None), {"axis": int(axis)})[0]


def split(x, num_or_sections, axis=0, name=None):
    at = axis if is_var(axis) else None
    attrs = {"axis": 0 if at is not None else int(axis)}
    if at is None:
        a, nd = attrs["axis"], len(x.shape)
        if a < -nd:                 # Paddle asserts rank(x) + axis >= 0: AssertionError
            raise OpError(f"split: axis {a} is out of range for a tensor of rank {nd} "
                          f"(rank(x) + axis must be >= 0)", kind=AssertionError)
        # written non-negative, as Paddle does (its kernels reject a negative axis)
        attrs["axis"] = norm_axis(a, nd, "split: axis")
    sl = None
    if isinstance(num_or_sections, (numbers.Integral, np.integer)):
        attrs["num"] = int(num_or_sections)
        if at is None:
            dim = x.shape[attrs["axis"]]
            if dim >= 0 and attrs["num"] > 0 and dim % attrs["num"]:
                raise OpError(f"split: the dim {dim} of x (shape {list(x.shape)}) along axis "
                              f"{axis} is not divisible by num_or_sections={num_or_sections}")
    else:
        ints, _, sl = int_list_args(num_or_sections, "num_or_sections")
        attrs["sections"] = ints
    return list(bind(_OPS["split"], (x, at, sl), attrs)[0])


def chunk(x, chunks, axis=0, name=None):
    return split(x, int(chunks), axis)


def stack(x, axis=0, name=None):
    return bind(_OPS["stack"], (list(x),), {"axis": int(axis)})[0]


def unstack(x, axis=0, num=None):
    nd = len(x.shape)
    ax = norm_axis(int(axis), nd, "unstack: axis")
    n = x.shape[ax] if num is None else int(num)
    if n < 0:
        raise OpError(f"unstack: the dim along axis {axis} is unknown; pass num")
    return list(bind(_OPS["unstack"], (x,), {"axis": int(axis), "num": n})[0])


@view_op
def unbind(input, axis=0):
    return list(bind(_OPS["unbind"], (input,), {"axis": int(axis)})[0])


# ------------------------------------------------------------ slices
def _slice_args(values, name):
    ints, t, tl = int_list_args(values, name)
    return ints, t, tl


def _infer_flags(n, lists, whole=False):
    """Paddle's ``infer_flags``: -1 where a list holds a tensor (every axis when
    ``whole``: a 1-D tensor of slice's starts/ends), else 1."""
    if whole:
        return [-1] * n
    flags = [1] * n
    for values in lists:
        if isinstance(values, (list, tuple)):
            for i, v in enumerate(values[:n]):
                if is_var(v):
                    flags[i] = -1
    return flags


@view_op
def slice(input, axes, starts, ends):
    # Paddle writes a negative axis counted from the end (an out-of-range one,
    # which Paddle clamps into a wrong shape, is left for the op to refuse)
    nd = len(input.shape)
    axes = [a + nd if -nd <= a < 0 else a for a in _axes(axes)]
    s_ints, st, sl = _slice_args(starts, "starts")
    e_ints, et, el = _slice_args(ends, "ends")
    attrs = {"axes": axes, "starts": s_ints, "ends": e_ints,
             "infer_flags": _infer_flags(len(axes), (starts, ends) if sl or el else (),
                                         st is not None or et is not None)}
    return bind(_OPS["slice"], (input, st, et, sl, el), attrs)[0]


@view_op
def strided_slice(x, axes, starts, ends, strides, name=None):
    axes = _axes(axes)
    n = len(axes)
    s_ints, st, sl = _slice_args(starts, "starts")
    e_ints, et, el = _slice_args(ends, "ends")
    p_ints, pt, pl = _slice_args(strides, "strides")
    if et is None and pt is None and el is None and pl is None:
        e_ints = _ends_going_down(x, axes, e_ints, p_ints)
    attrs = {"axes": axes, "starts": s_ints, "ends": e_ints, "strides": p_ints,
             "infer_flags": _infer_flags(n, (starts, ends, strides) if sl or el or pl else ())}
    return bind(_OPS["strided_slice"], (x, st, et, pt, sl, el, pl), attrs)[0]


def _ends_going_down(x, axes, ends, strides):
    """An end below -dim on a negative stride, as Python means it: Paddle's kernel would
    stop before index 0, so it is written as -1 (Paddle's open stop, through index 0)
    where the axis size is known; an end in [-dim, -2] reads alike and is kept."""
    out = list(ends)
    for i, (a, e, p) in enumerate(zip(axes, ends, strides)):
        dim = x.shape[a] if -len(x.shape) <= a < len(x.shape) else -1
        if p < 0 and e < -dim and dim >= 0:       # [-dim, -2]: read alike, kept
            out[i] = -1
    return out


# ------------------------------------------------------------ expand / tile / flip
def _expand(x, shape, tensor_mark):
    _one_element_checks(shape)
    ints, st, sl = int_list_args(shape)
    if sl:      # the attribute's entry for a tensor: -2 (expand) or -1 (broadcast_to)
        ints = [tensor_mark if is_var(v) else int(v) for v in shape]
    return bind(_OPS["expand_v2"], (x, st, sl), {"shape": ints})[0]


def expand(x, shape, name=None):
    return _expand(x, shape, -2)


def broadcast_to(x, shape, name=None):
    return _expand(x, shape, -1)


def expand_as(x, y, name=None):
    return bind(_OPS["expand_as_v2"], (x, y), {"target_shape": list(y.shape)})[0]


def broadcast_tensors(input, name=None):
    return list(bind(_OPS["broadcast_tensors"], (list(input),))[0])


def tile(x, repeat_times, name=None):
    if not is_var(repeat_times):
        _one_element_checks(repeat_times)
    ints, rt, rl = int_list_args(repeat_times, "repeat_times")
    # Paddle writes [-1] beside a RepeatTimes tensor
    return bind(_OPS["tile"], (x, rt, rl), {"repeat_times": ints if rt is None else [-1]})[0]


def flip(x, axis, name=None):
    return bind(_OPS["flip"], (x,), {"axis": _axes(axis)})[0]


def roll(x, shifts, axis=None, name=None):
    if is_var(shifts):
        return bind(_OPS["roll"], (x, shifts), {"axis": _axes(axis)})[0]
    return bind(_OPS["roll"], (x, None), {"shifts": _axes(shifts), "axis": _axes(axis)})[0]


# ------------------------------------------------------------ pad (for nn.functional.pad)
_PAD, _PAD3D = get_op("pad"), get_op("pad3d")
# rank -> (data formats, unsqueeze axes for channel-first / channel-last)
# (Paddle's: a 3-D input's length is pad3d's depth, a 4-D input gets depth 1)
_PAD_LAYOUT = {3: (("NCL", "NLC"), [3, 4], [2, 3]), 4: (("NCHW", "NHWC"), [2], [1]),
               5: (("NCDHW", "NDHWC"), [], [])}


def pad(x, pad, mode="constant", value=0.0, data_format="NCHW", name=None):
    """``paddle.nn.functional.pad``'s semantics (kept out of ``__all__``: Paddle
    has no top-level ``paddle.pad``).  A constant pad listing 2 values per dim
    (first dim first) is the ``pad`` op; otherwise ``pad`` lists the last
    spatial dims first ([left, right, top, bottom, front, back]) and the input
    (3-D, 4-D or 5-D) goes through ``pad3d``."""
    nd = len(x.shape)
    if mode == "constant" and not is_var(pad) and len(pad) == 2 * nd:
        return bind(_PAD, (x,), {"paddings": [int(p) for p in pad],
                                 "pad_value": float(value)})[0]
    if nd not in _PAD_LAYOUT:
        raise OpError(f"pad: mode '{mode}' needs a 3-D, 4-D or 5-D input, got shape "
                      f"{list(x.shape)}")
    formats, first, last = _PAD_LAYOUT[nd]
    if data_format not in formats:
        raise OpError(f"pad: data_format for a {nd}-D input must be one of {list(formats)}, "
                      f"got '{data_format}'")
    channel_last = data_format == formats[1]
    axes = last if channel_last else first
    if axes:
        x = unsqueeze(x, axes)
    attrs = {"mode": mode, "value": float(value),
             "data_format": "NDHWC" if channel_last else "NCDHW"}
    if is_var(pad):
        if nd == 3:
            pad = concat([full([4], 0, "int32"), pad], 0)
        out = bind(_PAD3D, (x, pad), attrs)[0]
    else:
        pad = [int(p) for p in pad]
        attrs["paddings"] = [0, 0, 0, 0] + pad if nd == 3 and len(pad) == 2 else \
            pad + [0] * (6 - len(pad))
        out = bind(_PAD3D, (x, None), attrs)[0]
    return squeeze(out, axes) if axes else out


# ------------------------------------------------------------ shape / numel
def shape(input):
    """The shape of ``input`` as a 1-D int32 Tensor."""
    return bind(_OPS["shape"], (input,))[0]


def numel(x, name=None):
    """The number of elements as a 0-D int64 Tensor."""
    return bind(_OPS["size"], (x,))[0]


def _T(x):
    return transpose(x, list(range(len(x.shape)))[::-1])


EXTRA_METHODS = {"flatten_": flatten_, "T": property(_T), "mT": property(
    lambda x: transpose(x, list(range(len(x.shape) - 2)) + [len(x.shape) - 1,
                                                            len(x.shape) - 2]))}
