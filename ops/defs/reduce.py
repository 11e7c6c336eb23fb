"""Reductions (reduce_sum/mean/max/min/prod/amax/amin/all/any, mean), arg_max /
arg_min, cumsum and top_k_v2.

Paddle's dtype rule for reduce_sum: with ``out_dtype`` -1, bool and int32
inputs sum to int64; other dtypes keep theirs.
"""
import numpy as np

from ..declare import defop, defgrad, grad_op, REQUIRED
from ..dtypes import ENUM_TO_NP
from ..meta_rules import reduce_shape, norm_axis, INT64, BOOL, OUT_OF_RANGE
from ..registry import GradOp, Meta, OpError

_REDUCE_ATTRS = (("dim", "INTS", [0]), ("keep_dim", "BOOLEAN", False),
                 ("reduce_all", "BOOLEAN", False), ("in_dtype", "INT", -1),
                 ("out_dtype", "INT", -1))
_PROMOTE_TO_INT64 = (np.dtype("bool"), np.dtype("int32"))


def reduce_out_dtype(attrs, x_dtype, promote=False, fixed=None):
    if fixed is not None:
        return fixed
    od = attrs.get("out_dtype", -1)
    if od is not None and od != -1:
        try:
            return ENUM_TO_NP[od]
        except KeyError:
            raise OpError(f"attribute out_dtype {od} is not a supported VarType") from None
    if promote and x_dtype in _PROMOTE_TO_INT64:
        return INT64
    return x_dtype


def reduce_infer(promote=False, fixed=None):
    def infer(metas, attrs):
        x = metas[0]
        shape = reduce_shape(x.shape, attrs["dim"], attrs["keep_dim"], attrs["reduce_all"])
        return (Meta(shape, reduce_out_dtype(attrs, np.dtype(x.dtype), promote, fixed)),)
    return infer


def _reduce(name, grad_uses=None, promote=False, fixed=None, linear=False):
    """``linear``: the grad op is linear in Out@GRAD, so its own gradient is the
    forward reduction again (Paddle's ReduceSum/MeanDoubleGradMaker)."""
    grad = None
    if grad_uses is not None:
        dd = GradOp(name, {"X": "X@GRAD@GRAD"}, {"Out": "Out@GRAD@GRAD"}) if linear else None
        # (a grad reading only X, not Out, needs X's shape alone: sum, mean)
        defgrad(f"{name}_grad", tuple(grad_uses) + ("Out@GRAD",), "X@GRAD", _REDUCE_ATTRS,
                infer=lambda m, a: (m[0],), grad=dd,
                no_need_buffer=("X",) if grad_uses == ("X",) else ())
        grad = grad_op(f"{name}_grad", uses=grad_uses)
    defop(name, "X", "Out", _REDUCE_ATTRS, infer=reduce_infer(promote, fixed), grad=grad)


_reduce("reduce_sum", ("X",), promote=True, linear=True)
_reduce("reduce_mean", ("X",), linear=True)
_reduce("reduce_max", ("X", "Out"))
_reduce("reduce_min", ("X", "Out"))
_reduce("reduce_amax", ("X", "Out"))
_reduce("reduce_amin", ("X", "Out"))
_reduce("reduce_prod", ("X", "Out"))
_reduce("reduce_all", fixed=BOOL)
_reduce("reduce_any", fixed=BOOL)

# the `mean` op: mean of every element, a 0-D result
defgrad("mean_grad", "X Out@GRAD", "X@GRAD", infer=lambda m, a: (m[0],),
        no_need_buffer=("X",))
defop("mean", "X", "Out", infer=lambda m, a: (Meta((), m[0].dtype),),
      grad=grad_op("mean_grad", uses=("X",)))


# ------------------------------------------------------------------ arg_max / arg_min
def _arg_infer(metas, attrs):
    x = metas[0]
    nd = len(x.shape)
    dt = attrs["dtype"]
    if dt not in (-1, 2, 3):
        raise OpError(f"attribute dtype must be int32 (2) or int64 (3), got {dt}")
    out_dt = ENUM_TO_NP[3 if dt == -1 else dt]
    if attrs["flatten"] or nd == 0:
        shape = (1,) * nd if attrs["keepdims"] else ()
    else:
        ax = norm_axis(attrs["axis"], nd)
        shape = tuple(1 if i == ax else d for i, d in enumerate(x.shape)) \
            if attrs["keepdims"] else tuple(d for i, d in enumerate(x.shape) if i != ax)
    return (Meta(shape, out_dt),)


_ARG_ATTRS = (("axis", "LONG", REQUIRED), ("keepdims", "BOOLEAN", False),
              ("flatten", "BOOLEAN", False), ("dtype", "INT", 3))
defop("arg_max", "X", "Out", _ARG_ATTRS, infer=_arg_infer)
defop("arg_min", "X", "Out", _ARG_ATTRS, infer=_arg_infer)


# ------------------------------------------------------------------ cumsum
def _cumsum_infer(metas, attrs):
    x = metas[0]
    nd = len(x.shape)
    if attrs["flatten"]:
        n = -1 if any(d == -1 for d in x.shape) else int(np.prod(x.shape, dtype=np.int64))
        return (Meta((n,), x.dtype),)
    if nd:
        norm_axis(attrs["axis"], nd, kind=OUT_OF_RANGE)
    return (x,)


_CUMSUM_ATTRS = (("axis", "INT", -1), ("flatten", "BOOLEAN", False),
                 ("exclusive", "BOOLEAN", False), ("reverse", "BOOLEAN", False))
defgrad("cumsum_grad", "X Out@GRAD", "X@GRAD", _CUMSUM_ATTRS, infer=lambda m, a: (m[0],),
        no_need_buffer=("X",))
defop("cumsum", "X", "Out", _CUMSUM_ATTRS, infer=_cumsum_infer,
      grad=grad_op("cumsum_grad", uses=("X",)))


# ------------------------------------------------------------------ top_k_v2
def _topk_infer(metas, attrs):
    x = metas[0]
    nd = len(x.shape)
    if nd == 0:
        return (x, Meta((), INT64))
    ax = norm_axis(attrs["axis"], nd)
    k = -1 if metas[1] is not None else attrs["k"]
    if k != -1 and x.shape[ax] != -1 and not 1 <= k <= x.shape[ax]:
        raise OpError(f"k={k} is out of range for axis {attrs['axis']} of size {x.shape[ax]} "
                      f"(X shape {list(x.shape)})")
    shape = tuple(k if i == ax else d for i, d in enumerate(x.shape))
    return (Meta(shape, x.dtype), Meta(shape, INT64))


_TOPK_ATTRS = (("k", "INT", 1), ("axis", "INT", -1), ("largest", "BOOLEAN", True),
               ("sorted", "BOOLEAN", True))
defgrad("top_k_v2_grad", "X Indices Out@GRAD", "X@GRAD", _TOPK_ATTRS,
        infer=lambda m, a: (m[0],), no_need_buffer=("X",))
defop("top_k_v2", "X K?", "Out Indices", _TOPK_ATTRS, infer=_topk_infer,
      grad=grad_op("top_k_v2_grad", uses=("X", "Indices")), no_grad_inputs=("K",))
