"""Indexing ops: slice, strided_slice, gather, gather_nd, scatter, index_select,
index_sample, take_along_axis, where, where_index (nonzero), masked_select,
set_value (``x[idx] = v``) and index_put (``x[mask] = v``).

Index inputs never receive gradients (``no_grad_inputs``); grad ops that read
the forward input only for its shape list it in their ``no_need_buffer``.  The slicing rules
(``slice_dim``, ``decrease``) are shared with the kernels.
"""
from ..declare import defop, defgrad, grad_op, REQUIRED
from ..meta_rules import norm_axis, broadcast_shapes, INT64, OUT_OF_RANGE, PRECONDITION_NOT_MET
from ..registry import GradOp, Meta, OpError

BIG = 2 ** 31 - 1      # "to the end", as Paddle writes open slice bounds


# ------------------------------------------------------------ slicing rules
def reverse_slice(dim, start, end, step, writing=False):
    """A negative-step slice of an axis of size ``dim`` as Paddle's kernels bound it:
    an end of -1 is "past index 0" (how Paddle writes an open stop going down); an
    end below -dim is clamped, when reading (strided_slice), to exclude index 0,
    and when writing (set_value) to include it.  Returns a Python slice."""
    start = start + dim if start < 0 else start
    if end != -1:
        end = end + dim if end < 0 else end
        end = max(end, -1 if writing else 0)
    if writing:
        start = min(start, dim - 1)
        return slice(start, None if end < 0 else end, step) if start > end else slice(0, 0)
    left, right = max(0, min(start + 1, end + 1)), min(dim, max(start + 1, end + 1))
    if start < 0 or start < end or right <= left:
        return slice(0, 0)
    return slice(right - 1, left - 1 if left > 0 else None, step)


def slice_dim(dim, start, end, step=1):
    """Length of axis ``dim`` sliced by ``start:end:step`` (Python clamping; a
    negative step as Paddle's strided_slice reads it); -1 if unknown."""
    if step == 0:
        raise OpError("slice step must not be 0")
    if dim < 0:
        if step == 1 and 0 <= start <= end < BIG:
            return end - start
        return -1
    if step < 0:
        return len(range(dim)[reverse_slice(dim, int(start), int(end), int(step))])
    return len(range(*slice(int(start), int(end), int(step)).indices(dim)))


def decrease(shape, axes, what="decrease_axis"):
    """Drop ``axes`` (each of size 1, or unknown) from ``shape``."""
    nd = len(shape)
    drop = set()
    for a in axes:
        a = norm_axis(int(a), nd, what)
        if shape[a] not in (1, -1):
            raise OpError(f"{what}: dim {a} has size {shape[a]}, expected 1")
        drop.add(a)
    return tuple(d for i, d in enumerate(shape) if i not in drop)


def _sliced_shape(x, axes, starts, ends, steps, dynamic, decrease_axis):
    out = list(x.shape)
    nd = len(out)
    if not dynamic and not (len(axes) == len(starts) == len(ends) == len(steps)):
        raise OpError(f"axes {list(axes)}, starts {list(starts)}, ends {list(ends)} must have "
                      f"the same length")
    for i, a in enumerate(axes):
        a = norm_axis(int(a), nd, "slice axis")
        out[a] = -1 if dynamic else slice_dim(out[a], starts[i], ends[i], steps[i])
    return Meta(decrease(tuple(out), decrease_axis), x.dtype)


def _slice_infer(metas, attrs):
    x = metas[0]
    dynamic = any(m is not None and m != [] for m in metas[1:])
    axes = attrs["axes"]
    return (_sliced_shape(x, axes, attrs["starts"], attrs["ends"], [1] * len(axes), dynamic,
                          attrs["decrease_axis"]),)


def check_strided_axes(axes):
    """Paddle's strided_slice takes no negative axis (slice does)."""
    for i, a in enumerate(axes):
        if int(a) < 0:
            raise OpError(f"strided_slice: axes[{i}] is {a}; the axes must be >= 0")


def _strided_infer(metas, attrs):
    x = metas[0]
    check_strided_axes(attrs["axes"])
    dynamic = any(m is not None and m != [] for m in metas[1:])
    return (_sliced_shape(x, attrs["axes"], attrs["starts"], attrs["ends"], attrs["strides"],
                          dynamic, attrs["decrease_axis"]),)


def _input_like(metas, attrs):
    return (metas[0],)


_SLICE_T = "StartsTensor? EndsTensor? StartsTensorList*? EndsTensorList*?"
_SLICE_NG = ("StartsTensor", "EndsTensor", "StartsTensorList", "EndsTensorList")
_SLICE_ATTRS = (("axes", "INTS", REQUIRED), ("starts", "INTS", []), ("ends", "INTS", []),
                ("infer_flags", "INTS", []), ("decrease_axis", "INTS", []))
_SLICE_USES = ("Input",) + _SLICE_NG


def _slice_ddx(op):
    ins = {"Input": "Input@GRAD@GRAD"}
    ins.update({s: s for s in _SLICE_NG})
    if op == "strided_slice":
        ins.update({"StridesTensor": "StridesTensor", "StridesTensorList": "StridesTensorList"})
    return GradOp(op, ins, {"Out": "Out@GRAD@GRAD"})


defgrad("slice_grad", f"Input {_SLICE_T} Out@GRAD", "Input@GRAD", _SLICE_ATTRS,
        infer=_input_like, grad=_slice_ddx("slice"), no_need_buffer=("Input",))
defop("slice", f"Input {_SLICE_T}", "Out", _SLICE_ATTRS, infer=_slice_infer,
      grad=grad_op("slice_grad", uses=_SLICE_USES, wrt=("Input",)),
      no_grad_inputs=_SLICE_NG)

_STRIDED_T = ("StartsTensor? EndsTensor? StridesTensor? StartsTensorList*? EndsTensorList*? "
              "StridesTensorList*?")
_STRIDED_NG = _SLICE_NG + ("StridesTensor", "StridesTensorList")
_STRIDED_ATTRS = (("axes", "INTS", REQUIRED), ("starts", "INTS", []), ("ends", "INTS", []),
                  ("strides", "INTS", []), ("infer_flags", "INTS", []),
                  ("decrease_axis", "INTS", []))
defgrad("strided_slice_grad", f"Input {_STRIDED_T} Out@GRAD", "Input@GRAD", _STRIDED_ATTRS,
        infer=_input_like, grad=_slice_ddx("strided_slice"), no_need_buffer=("Input",))
defop("strided_slice", f"Input {_STRIDED_T}", "Out", _STRIDED_ATTRS, infer=_strided_infer,
      grad=grad_op("strided_slice_grad", uses=("Input",) + _STRIDED_NG, wrt=("Input",)),
      no_grad_inputs=_STRIDED_NG)


# ------------------------------------------------------------ gathers
def _index_dtype(m, what):
    if m.dtype.kind not in "iu":
        raise OpError(f"{what} must be an integer tensor, got dtype {m.dtype}")


def _gather_infer(metas, attrs):
    x, idx, axis_t = metas
    _index_dtype(idx, "gather: Index")
    ishape = tuple(idx.shape)
    if len(ishape) == 2 and ishape[1] == 1:
        ishape = ishape[:1]
    if len(ishape) > 1:
        raise OpError(f"gather: Index must be 0-D or 1-D (or [N, 1]), got shape {list(idx.shape)}")
    if axis_t is not None:
        return (Meta((-1,) * (len(x.shape) - 1 + len(ishape)), x.dtype),)
    ax = norm_axis(attrs["axis"], len(x.shape), kind=OUT_OF_RANGE)
    return (Meta(tuple(x.shape[:ax]) + ishape + tuple(x.shape[ax + 1:]), x.dtype),)


defgrad("gather_grad", "X Index Axis? Out@GRAD", "X@GRAD", (("axis", "INT", 0),),
        grad=GradOp("gather", {"X": "X@GRAD@GRAD", "Index": "Index", "Axis": "Axis"},
                    {"Out": "Out@GRAD@GRAD"}), no_need_buffer=("X",))
defop("gather", "X Index Axis?", "Out", (("axis", "INT", 0),), infer=_gather_infer,
      grad=grad_op("gather_grad", uses=("X", "Index", "Axis")),
      no_grad_inputs=("Index", "Axis"))


def _gather_nd_infer(metas, attrs):
    x, idx = metas
    _index_dtype(idx, "gather_nd: Index")
    if not idx.shape:
        raise OpError("gather_nd: Index must have rank >= 1")
    k = idx.shape[-1]
    if k > len(x.shape):
        raise OpError(f"gather_nd: Index's last dim {k} exceeds the rank of X {list(x.shape)}")
    return (Meta(tuple(idx.shape[:-1]) + tuple(x.shape[k:]), x.dtype),)


defgrad("gather_nd_grad", "X Index Out@GRAD", "X@GRAD",
        grad=GradOp("gather_nd", {"X": "X@GRAD@GRAD", "Index": "Index"},
                    {"Out": "Out@GRAD@GRAD"}), no_need_buffer=("X",))
defop("gather_nd", "X Index", "Out", infer=_gather_nd_infer,
      grad=grad_op("gather_nd_grad", uses=("X", "Index")),
      no_grad_inputs=("Index",))


def _index_select_infer(metas, attrs):
    x, idx = metas
    _index_dtype(idx, "index_select: Index")
    if len(idx.shape) != 1:
        raise OpError(f"index_select: Index must be 1-D, got shape {list(idx.shape)}")
    d = norm_axis(attrs["dim"], len(x.shape), "dim", kind=OUT_OF_RANGE)
    out = list(x.shape)
    out[d] = idx.shape[0]
    return (Meta(tuple(out), x.dtype),)


defgrad("index_select_grad", "X Index Out@GRAD", "X@GRAD", (("dim", "INT", 0),),
        no_need_buffer=("X",))
defop("index_select", "X Index", "Out", (("dim", "INT", 0),), infer=_index_select_infer,
      grad=grad_op("index_select_grad", uses=("X", "Index")),
      no_grad_inputs=("Index",))


def _index_sample_infer(metas, attrs):
    x, idx = metas
    _index_dtype(idx, "index_sample: Index")
    if len(x.shape) != 2 or len(idx.shape) != 2:
        raise OpError(f"index_sample: X and Index must be 2-D, got {list(x.shape)} and "
                      f"{list(idx.shape)}")
    if x.shape[0] >= 0 and idx.shape[0] >= 0 and x.shape[0] != idx.shape[0]:
        raise OpError(f"index_sample: X has {x.shape[0]} rows but Index has {idx.shape[0]}")
    return (Meta(tuple(idx.shape), x.dtype),)


defgrad("index_sample_grad", "X Index Out@GRAD", "X@GRAD", no_need_buffer=("X",))
defop("index_sample", "X Index", "Out", infer=_index_sample_infer,
      grad=grad_op("index_sample_grad", uses=("X", "Index")),
      no_grad_inputs=("Index",))


def _take_infer(metas, attrs):
    x, idx = metas
    _index_dtype(idx, "take_along_axis: Index")
    if len(idx.shape) != len(x.shape):
        raise OpError(f"take_along_axis: Index rank {len(idx.shape)} must equal Input rank "
                      f"{len(x.shape)}")
    norm_axis(attrs["Axis"], len(x.shape), "Axis")
    return (Meta(tuple(idx.shape), x.dtype),)


defgrad("take_along_axis_grad", "Input Index Result@GRAD", "Input@GRAD", (("Axis", "INT", 0),),
        no_need_buffer=("Input",))
defop("take_along_axis", "Input Index", "Result", (("Axis", "INT", 0),), infer=_take_infer,
      grad=grad_op("take_along_axis_grad", uses=("Input", "Index"), gouts=("Result",),
                   wrt=("Input",)),
      no_grad_inputs=("Index",))


# ------------------------------------------------------------ scatter
def _scatter_infer(metas, attrs):
    x, ids, upd = metas
    _index_dtype(ids, "scatter: Ids")
    n = ids.shape[0] if ids.shape else None
    if len(ids.shape) > 2 or (len(ids.shape) == 2 and ids.shape[1] != 1):
        raise OpError(f"scatter: Ids must be 0-D, 1-D or [N, 1], got shape {list(ids.shape)}")
    want = tuple(x.shape[1:]) if n is None else (n,) + tuple(x.shape[1:])
    if len(upd.shape) != len(want) or any(a != b and a >= 0 and b >= 0
                                           for a, b in zip(upd.shape, want)):
        raise OpError(f"scatter: Updates has shape {list(upd.shape)}, expected {list(want)} "
                      f"(Ids {list(ids.shape)}, X {list(x.shape)})")
    return (x,)


defgrad("scatter_grad", "Ids Updates Out@GRAD", "X@GRAD Updates@GRAD",
        (("overwrite", "BOOLEAN", True),), infer=lambda m, a: (m[2], m[1]))
defop("scatter", "X Ids Updates", "Out", (("overwrite", "BOOLEAN", True),),
      infer=_scatter_infer,
      grad=grad_op("scatter_grad", uses=("Ids", "Updates"), wrt=("X", "Updates")),
      same_dtype=("X", "Updates"), no_grad_inputs=("Ids",))


# ------------------------------------------------------------ where / masks
def _where_infer(metas, attrs):
    c, x, y = metas
    if c.dtype.kind != "b":
        raise OpError(f"where: Condition must be bool, got dtype {c.dtype}")
    s = broadcast_shapes(x.shape, y.shape)
    s = broadcast_shapes(c.shape, s, names=("Condition", "X/Y"))
    return (Meta(s, x.dtype),)


defgrad("where_grad", "Condition X Y Out@GRAD", "X@GRAD? Y@GRAD?", no_need_buffer=("X", "Y"))
defop("where", "Condition X Y", "Out", infer=_where_infer,
      grad=grad_op("where_grad", uses=("Condition", "X", "Y"), wrt=("X", "Y")),
      same_dtype=("X", "Y"), dtype_from="X", no_grad_inputs=("Condition",))

def _where_index_infer(metas, attrs):
    if not metas[0].shape:
        raise OpError("where_index: Condition must have at least 1 dim, got a 0-D tensor")
    return (Meta((-1, len(metas[0].shape)), INT64),)


defop("where_index", "Condition", "Out", infer=_where_index_infer)


def _masked_infer(metas, attrs):
    x, mask = metas
    if mask.dtype.kind != "b":
        raise OpError(f"masked_select: Mask must be bool, got dtype {mask.dtype}")
    try:
        broadcast_shapes(x.shape, mask.shape, names=("X", "Mask"))
    except OpError as e:            # Paddle: PreconditionNotMet (RuntimeError)
        raise OpError(str(e), kind=PRECONDITION_NOT_MET) from None
    return (Meta((-1,), x.dtype),)


defgrad("masked_select_grad", "X Mask Y@GRAD", "X@GRAD", no_need_buffer=("X",))
defop("masked_select", "X Mask", "Y", infer=_masked_infer,
      grad=grad_op("masked_select_grad", uses=("X", "Mask"), gouts=("Y",)),
      dtype_from="X", no_grad_inputs=("Mask",))


# ------------------------------------------------------------ writes
_SET_VALUE_T = "StartsTensorList*? EndsTensorList*? StepsTensorList*?"
# Paddle 2.6.2's attributes: a number written without a ValueTensor is ``values``
# (Scalars: float64, int64 or bool); older Paddle wrote ``fp32_values`` etc., which the
# kernel still reads in loaded programs (LEGACY_VALUE_ATTRS).
_SET_VALUE_ATTRS = (
    ("dtype", "INT", 5), ("axes", "LONGS", REQUIRED), ("starts", "LONGS", []),
    ("ends", "LONGS", []), ("steps", "LONGS", []), ("decrease_axes", "LONGS", []),
    ("none_axes", "LONGS", []), ("values", "SCALARS", []), ("shape", "LONGS", []))
LEGACY_VALUE_ATTRS = ("bool_values", "fp32_values", "int32_values", "int64_values",
                      "fp64_values", "fp16_values")


# Paddle's static backward emits ``assign`` (Out@GRAD -> Input@GRAD) when there is
# no ValueTensor; sampan always emits set_value_grad, which zeroes the overwritten
# region of Input@GRAD (the overwritten values do not reach the output).
def _set_value_grad_infer(metas, attrs):
    g, v = metas[0], metas[1]
    return (g, v)


defgrad("set_value_grad", f"Out@GRAD ValueTensor? {_SET_VALUE_T}",
        "Input@GRAD? ValueTensor@GRAD?", _SET_VALUE_ATTRS, infer=_set_value_grad_infer)
def check_set_value_rank(ndim):
    if ndim == 0:
        raise OpError("set_value: Input is 0-D; Paddle's set_value writes into tensors of "
                      "rank 1 to 6 (reshape a 0-D tensor to [1] first)")


def _set_value_infer(metas, attrs):
    check_set_value_rank(len(metas[0].shape))
    return _input_like(metas, attrs)


defop("set_value", f"Input ValueTensor? {_SET_VALUE_T}", "Out", _SET_VALUE_ATTRS,
      infer=_set_value_infer,
      grad=grad_op("set_value_grad",
                   uses=("ValueTensor", "StartsTensorList", "EndsTensorList",
                         "StepsTensorList"), wrt=("Input", "ValueTensor")),
      inplace={"Out": "Input"}, dtype_from="Input",
      no_grad_inputs=("StartsTensorList", "EndsTensorList", "StepsTensorList"))


defgrad("index_put_grad", "x indices* value out@GRAD", "x@GRAD? value@GRAD?",
        (("accumulate", "BOOLEAN", False),), no_need_buffer=("x",))
defop("index_put", "x indices* value", "out", (("accumulate", "BOOLEAN", False),),
      infer=_input_like,
      grad=grad_op("index_put_grad", uses=("x", "indices", "value"), gouts=("out",),
                   wrt=("x", "value")),
      inplace={"out": "x"}, same_dtype=("x", "value"), no_grad_inputs=("indices",))
