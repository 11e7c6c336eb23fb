"""Unary math (exp, log, sqrt, abs, rounding, trig), scale, pow, clip, cast,
sum (add_n), squared_l2_norm, clip_by_norm and p_norm, with the double and
triple grads Paddle 2.6 has for them (declared with ``grad_chain``).

Activations live in ``activation.py`` and use the ``unary`` helper below.
"""
import numpy as np

from ..declare import defop, defgrad, grad_op, grad_chain, REQUIRED
from ..dtypes import ENUM_TO_NP, real_of
from ..meta_rules import same_as_x, norm_axis
from ..registry import GradOp, Meta, OpError


def _scale_grad(attrs):
    # d(scale*x + bias)/dx = scale: the grad op is scale itself, without the bias
    return (GradOp("scale", {"X": "Out@GRAD", "ScaleTensor": "ScaleTensor"}, {"Out": "X@GRAD"},
                   lambda a: {"scale": a["scale"], "bias": 0.0, "bias_after_scale": True}),)


defop("scale", "X ScaleTensor?", "Out",
      (("scale", "FLOAT", 1.0), ("bias", "FLOAT", 0.0), ("bias_after_scale", "BOOLEAN", True)),
      infer=same_as_x, grad=_scale_grad, no_grad_inputs=("ScaleTensor",))


def _grad_like_dout(metas, attrs):
    # X@GRAD of an elementwise unary op has the shape and dtype of Out@GRAD
    return (metas[-1],)


def unary(name, grad_uses=("X",), attrs=(), grad=True, higher=(), infer=same_as_x,
          grad_infer=None, **flags):
    """An activation-style op ``Out = f(X)`` whose grad op ``{name}_grad`` reads
    ``grad_uses`` (forward slots) plus ``Out@GRAD``; ``grad=False``: no gradient,
    ``grad=<tuple of GradOp>``: a custom rule.  ``higher``: the levels of
    ``grad_chain`` above ``{name}_grad`` (Paddle's double and triple grads).
    ``grad_infer``: X@GRAD takes X's meta, and X decides the grad kernel's dtype
    (an op whose Out has another dtype than X: abs of a complex X)."""
    rule = None
    if grad is True:
        gflags = {"dtype_from": "X"} if grad_infer else {}
        defgrad(f"{name}_grad", tuple(grad_uses) + ("Out@GRAD",), "X@GRAD", attrs,
                infer=grad_infer or _grad_like_dout,
                grad=grad_chain(attrs, *higher) if higher else None, **gflags)
        rule = grad_op(f"{name}_grad", uses=grad_uses)
    elif grad:
        rule = grad
    defop(name, "X", "Out", attrs, infer=infer, grad=rule, **flags)


def float32_if_int(metas, attrs):
    """Out of exp, expm1 and the logs: X's meta, but float32 for an integer X
    (Paddle 2.6's int32/int64 kernels return float32)."""
    x = metas[0]
    return (x if np.dtype(x.dtype).kind not in "iu" else Meta(x.shape, np.dtype("float32")),)


# Higher-order grad slots as Paddle 2.6 names them, in terms of the slots of the
# grad op below: the first-order DOut (``grad_out``), the incoming DDX
# (``grad_x@GRAD``), the new gradients of X (``X@GRAD``) and of DOut
# (``grad_out@GRAD``, Paddle's DDOut)
DOUT = {"grad_out": "Out@GRAD"}
DDX = {"grad_x@GRAD": "X@GRAD@GRAD"}
DX_NEW = {"X@GRAD": "X@GRAD"}
DDOUT = {"grad_out@GRAD": "Out@GRAD@GRAD"}


def x_double(type):
    """The double grad of an op whose grad reads X: (X, DOut, DDX) -> (DX, DDOut)."""
    return (type, {"X": "X", **DOUT, **DDX}, {**DX_NEW, **DDOUT})


def x_triple(type):
    """Paddle's triple grad of such an op (sin, cos): (X, DOut, DDX, and the
    gradients of the double grad's DX and DDOut) -> gradients of X, DOut, DDX."""
    return (type, {"X": "X", "grad_out_forward": "grad_out",
                   "grad_x_grad_forward": "grad_x@GRAD", "grad_x@GRAD?": "X@GRAD@GRAD",
                   "grad_out_grad@GRAD?": "grad_out@GRAD@GRAD"},
            {"X@GRAD": "X@GRAD", "grad_out_forward@GRAD": "grad_out@GRAD",
             "grad_x_grad_forward@GRAD": "grad_x@GRAD@GRAD"})


def out_dx_double(type):
    """The double grad of sqrt / rsqrt (grad reads Out): (Out, DX, DDX) -> (DOut', DDOut)."""
    return (type, {"Out": "Out", "grad_x": "X@GRAD", **DDX},
            {"Out@GRAD": "Out@GRAD", **DDOUT})


# sign's gradient is zero everywhere: Paddle emits a scale op with scale 0
_ZERO_SCALE = (GradOp("scale", {"X": "Out@GRAD"}, {"Out": "X@GRAD"},
                      lambda a: {"scale": 0.0, "bias": 0.0, "bias_after_scale": True}),)

# exp_grad computes Out * DOut, an elementwise_mul of its two inputs, so its
# gradient is that product's grad op (Paddle 2.6 has no exp double grad)
_EXP_DOUBLE = GradOp("elementwise_mul_grad",
                     {"X": "Out", "Y": "Out@GRAD", "Out@GRAD": "X@GRAD@GRAD"},
                     {"X@GRAD": "Out@GRAD", "Y@GRAD": "Out@GRAD@GRAD"}, lambda a: {"axis": -1})

unary("sign", grad=_ZERO_SCALE)
def _real_of_x(metas, attrs):
    # abs of a complex X is real (float32 for complex64, float64 for complex128)
    x = metas[0]
    return (Meta(x.shape, real_of(x.dtype)),)


unary("abs", higher=[("abs_double_grad", {"x": "X", **DDX}, DDOUT)], infer=_real_of_x,
      grad_infer=lambda m, a: (m[0],))
unary("exp", ("Out",), higher=[_EXP_DOUBLE], infer=float32_if_int)
unary("expm1", ("Out",), infer=float32_if_int)
unary("log", higher=[x_double("log_grad_grad")], infer=float32_if_int)
unary("log2", infer=float32_if_int)
unary("log10", infer=float32_if_int)
unary("log1p", infer=float32_if_int)
unary("sqrt", ("Out",), higher=[out_dx_double("sqrt_grad_grad")])
unary("rsqrt", ("Out",), higher=[out_dx_double("rsqrt_grad_grad")])
unary("square", higher=[x_double("square_grad_grad")])
unary("reciprocal", ("Out",))
unary("floor", ())
unary("ceil", ())
unary("round", ())
unary("sin", higher=[x_double("sin_double_grad"), x_triple("sin_triple_grad")])
unary("cos", higher=[x_double("cos_double_grad"), x_triple("cos_triple_grad")])
unary("tan")
unary("asin")
unary("acos")
unary("atan")
unary("sinh")
unary("cosh")
unary("erf")


# ------------------------------------------------------------------ pow (scalar exponent)
_POW_ATTRS = (("factor", "FLOAT", 1.0),)
_FT = {"FactorTensor?": "FactorTensor"}
defgrad("pow_grad", "X FactorTensor? Out@GRAD", "X@GRAD", _POW_ATTRS,
        infer=lambda m, a: (m[0],),
        grad=grad_chain(_POW_ATTRS,
                        ("pow_double_grad", {"X": "X", **_FT, **DOUT, **DDX},
                         {**DX_NEW, **DDOUT}),
                        ("pow_triple_grad", {"X": "X", **_FT, "grad_out": "grad_out",
                                             "grad_grad_x": "grad_x@GRAD",
                                             "grad_x@GRAD?": "X@GRAD@GRAD",
                                             "grad_grad_out@GRAD?": "grad_out@GRAD@GRAD"},
                         {"X@GRAD": "X@GRAD", "grad_out@GRAD": "grad_out@GRAD",
                          "grad_grad_x@GRAD": "grad_x@GRAD@GRAD"})))
defop("pow", "X FactorTensor?", "Out", _POW_ATTRS, infer=same_as_x,
      grad=grad_op("pow_grad", uses=("X", "FactorTensor")), no_grad_inputs=("FactorTensor",))


# ------------------------------------------------------------------ clip
_CLIP_ATTRS = (("min", "FLOAT", REQUIRED), ("max", "FLOAT", REQUIRED))


def _clip_infer(metas, attrs):
    lo, hi = attrs["min"], attrs["max"]
    if metas[1] is None and metas[2] is None and lo > hi:
        raise OpError(f"attribute max ({hi}) must be >= min ({lo})")
    return (metas[0],)


defgrad("clip_grad", "X Min? Max? Out@GRAD", "X@GRAD", _CLIP_ATTRS,
        infer=lambda m, a: (m[0],),
        grad=grad_chain(_CLIP_ATTRS, ("clip_double_grad",
                                      {"X": "X", "Min?": "Min", "Max?": "Max", **DDX}, DDOUT)))
defop("clip", "X Min? Max?", "Out", _CLIP_ATTRS, infer=_clip_infer,
      grad=grad_op("clip_grad", uses=("X", "Min", "Max")), no_grad_inputs=("Min", "Max"))


# ------------------------------------------------------------------ cast
def _cast_infer(metas, attrs):
    try:
        dt = ENUM_TO_NP[attrs["out_dtype"]]
    except KeyError:
        raise OpError(f"attribute out_dtype {attrs['out_dtype']} is not a supported "
                      f"VarType data type") from None
    return (Meta(metas[0].shape, dt),)


defop("cast", "X", "Out",
      (("out_dtype", "INT", REQUIRED), ("in_dtype", "INT", REQUIRED),
       ("use_mkldnn", "BOOLEAN", False)),
      infer=_cast_infer,
      # the gradient of a cast is the cast back (Paddle's CastOpGradMaker)
      grad=(GradOp("cast", {"X": "Out@GRAD"}, {"Out": "X@GRAD"},
                   lambda a: {"in_dtype": a["out_dtype"], "out_dtype": a["in_dtype"]}),))


# ------------------------------------------------------------------ sum (add_n)
def _sum_infer(metas, attrs):
    xs = metas[0]
    if not xs:
        raise OpError("input X must hold at least one tensor")
    first = xs[0]
    for i, m in enumerate(xs[1:], 1):
        if len(m.shape) != len(first.shape) or any(
                a != b and a != -1 and b != -1 for a, b in zip(m.shape, first.shape)):
            raise OpError(f"inputs X[0] {list(first.shape)} and X[{i}] {list(m.shape)} "
                          f"must have the same shape")
        if m.dtype != first.dtype:
            raise OpError(f"inputs X[0] ({first.dtype}) and X[{i}] ({m.dtype}) must have "
                          f"the same dtype")
    return (first,)


_SUM_ATTRS = (("use_mkldnn", "BOOLEAN", False), ("mkldnn_data_type", "STRING", "float32"))
# Paddle's static backward emits one scale op per input; sampan uses one grad op
defgrad("sum_grad", "X* Out@GRAD", "X@GRAD*", _SUM_ATTRS,
        infer=lambda m, a: (list(m[0]),),
        grad=GradOp("sum", {"X": "X@GRAD@GRAD"}, {"Out": "Out@GRAD@GRAD"}),
        no_need_buffer=("X",))
defop("sum", "X*", "Out", _SUM_ATTRS, infer=_sum_infer,
      grad=grad_op("sum_grad", uses=("X",)))


# ------------------------------------------------------------------ norms
defgrad("squared_l2_norm_grad", "X Out@GRAD", "X@GRAD", infer=lambda m, a: (m[0],))
defop("squared_l2_norm", "X", "Out", infer=lambda m, a: (Meta((1,), m[0].dtype),),
      grad=grad_op("squared_l2_norm_grad", uses=("X",)))

defop("clip_by_norm", "X", "Out", (("max_norm", "FLOAT", REQUIRED),), infer=same_as_x)

_PNORM_ATTRS = (("porder", "FLOAT", 2.0), ("axis", "INT", -1), ("epsilon", "FLOAT", 1e-12),
                ("keepdim", "BOOLEAN", False), ("asvector", "BOOLEAN", False))


def _p_norm_infer(metas, attrs):
    x = metas[0]
    nd = len(x.shape)
    if attrs["asvector"]:
        shape = (1,) * nd if attrs["keepdim"] else ()
    else:
        ax = norm_axis(attrs["axis"], nd) if nd else 0
        shape = tuple(1 if i == ax else d for i, d in enumerate(x.shape)) \
            if attrs["keepdim"] else tuple(d for i, d in enumerate(x.shape) if i != ax)
    return (Meta(shape, x.dtype),)


defgrad("p_norm_grad", "X Out Out@GRAD", "X@GRAD", _PNORM_ATTRS, infer=lambda m, a: (m[0],))
defop("p_norm", "X", "Out", _PNORM_ATTRS, infer=_p_norm_infer,
      grad=grad_op("p_norm_grad", uses=("X", "Out")))

__all__ = ["unary", "x_double", "x_triple", "DOUT", "DDX", "DX_NEW", "DDOUT"]
