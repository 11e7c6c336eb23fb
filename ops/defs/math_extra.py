"""More elementwise math: the inverse hyperbolic functions, the special
functions (digamma, lgamma, polygamma, the modified Bessel functions
i0/i0e/i1/i1e, erfinv), trunc, logit, stanh, atan2, heaviside/fmax/fmin
(``elementwise_*``), nextafter, lerp, and logspace.

Slot names are Paddle 2.6's, including the lower-case ``x``/``out`` of its
newer ops (polygamma, the Bessel functions, nextafter).  Paddle has no double
grads for any of these.
"""
import numpy as np

from ..declare import defop, defgrad, grad_op, REQUIRED
from ..meta_rules import broadcast_infer, broadcast_shapes, same_as_x
from ..registry import Meta, OpError
from ..errors import NOT_FOUND
from .creation import attr_dtype
from .math import unary


# ------------------------------------------------------------------ X -> Out
def _grad_like_dout(metas, attrs):
    return (metas[-1],)


unary("acosh")
unary("asinh")
unary("atanh")
unary("digamma")
unary("lgamma")
unary("erfinv", ("Out",))
unary("trunc", ())
unary("logit", attrs=(("eps", "FLOAT", 1e-6),))
unary("stanh", attrs=(("scale_a", "FLOAT", 0.67), ("scale_b", "FLOAT", 1.7159)))


# ------------------------------------------------------------------ x -> out (lower case)
def lower_unary(name, grad_uses=("x",), attrs=()):
    """``out = f(x)`` with Paddle's lower-case slots; ``{name}_grad`` reads
    ``grad_uses`` and ``out@GRAD`` and writes ``x@GRAD``."""
    defgrad(f"{name}_grad", tuple(grad_uses) + ("out@GRAD",), "x@GRAD", attrs,
            infer=_grad_like_dout)
    defop(name, "x", "out", attrs, infer=same_as_x,
          grad=grad_op(f"{name}_grad", uses=grad_uses, gouts=("out",), wrt=("x",)))


lower_unary("polygamma", attrs=(("n", "INT", REQUIRED),))
lower_unary("i0")
lower_unary("i0e", ("x", "out"))
lower_unary("i1", ("x", "out"))
lower_unary("i1e", ("x", "out"))


# ------------------------------------------------------------------ atan2
def _atan2_infer(metas, attrs):
    x, y = metas
    if len(x.shape) != len(y.shape):
        raise OpError(f"atan2: the rank ({len(x.shape)}) of X1 {list(x.shape)} must equal the "
                      f"rank ({len(y.shape)}) of X2 {list(y.shape)}")
    if any(a != b and a >= 0 and b >= 0 for a, b in zip(x.shape, y.shape)):
        raise OpError(f"atan2: X1 {list(x.shape)} and X2 {list(y.shape)} must have the same "
                      f"shape")
    # Paddle's integer kernels return float64
    dt = np.dtype("float64") if np.dtype(x.dtype).kind in "iu" else x.dtype
    return (Meta(tuple(x.shape), dt),)


defgrad("atan2_grad", "X1 X2 Out@GRAD", "X1@GRAD? X2@GRAD?", dtype_from="X1")
defop("atan2", "X1 X2", "Out", infer=_atan2_infer, same_dtype=("X1", "X2"),
      grad=grad_op("atan2_grad", uses=("X1", "X2"), wrt=("X1", "X2")))


# ------------------------------------------------------------------ heaviside, fmax, fmin
# broadcast like the other elementwise ops, but without an ``axis`` attribute
for _name in ("elementwise_heaviside", "elementwise_fmax", "elementwise_fmin"):
    defgrad(f"{_name}_grad", "X Y Out@GRAD", "X@GRAD? Y@GRAD?")
    defop(_name, "X Y", "Out", infer=broadcast_infer(), same_dtype=("X", "Y"),
          grad=grad_op(f"{_name}_grad", uses=("X", "Y"), wrt=("X", "Y")))


# ------------------------------------------------------------------ nextafter
FLOAT_KINDS = ("float32", "float64")


def nextafter_check(x_dtype, y_dtype, x_shape, y_shape):
    """Paddle's nextafter: its kernel is chosen by x (float32/float64 only), y must
    have x's dtype and x's shape (no broadcasting)."""
    if np.dtype(x_dtype).name not in FLOAT_KINDS:
        raise OpError(f"nextafter: x has dtype {np.dtype(x_dtype).name}; it must be float32 "
                      f"or float64", kind=NOT_FOUND)
    if np.dtype(x_dtype) != np.dtype(y_dtype):
        raise OpError(f"nextafter: y has dtype {np.dtype(y_dtype).name} but x has "
                      f"{np.dtype(x_dtype).name}; they must match")
    if len(x_shape) != len(y_shape) or any(a != b and a >= 0 and b >= 0
                                           for a, b in zip(x_shape, y_shape)):
        raise OpError(f"nextafter: x and y must have the same shape, got x {list(x_shape)} "
                      f"and y {list(y_shape)}")


def _nextafter_infer(metas, attrs):
    x, y = metas
    nextafter_check(x.dtype, y.dtype, x.shape, y.shape)
    return (x,)


defop("nextafter", "x y", "out", infer=_nextafter_infer)


# ------------------------------------------------------------------ lerp
def _lerp_infer(metas, attrs):
    x, y, w = metas
    shape = broadcast_shapes(x.shape, y.shape, names=("X", "Y"))
    shape = broadcast_shapes(shape, w.shape, names=("broadcast X, Y", "Weight"))
    return (Meta(shape, x.dtype),)


# Paddle's lerp_grad gives X and Y a gradient, never Weight
defgrad("lerp_grad", "X Y Weight Out Out@GRAD", "X@GRAD? Y@GRAD?",
        infer=lambda m, a: (m[0], m[1]))
defop("lerp", "X Y Weight", "Out", infer=_lerp_infer, same_dtype=("X", "Y", "Weight"),
      grad=grad_op("lerp_grad", uses=("X", "Y", "Weight", "Out"), wrt=("X", "Y")),
      no_grad_inputs=("Weight",))


# ------------------------------------------------------------------ logspace
def _logspace_infer(metas, attrs):
    for m, name in zip(metas, ("Start", "Stop", "Num", "Base")):
        if int(np.prod(m.shape)) not in (1, -1) and -1 not in m.shape:
            raise OpError(f"logspace: {name} must hold one value, got shape {list(m.shape)}")
    return (Meta((-1,), attr_dtype(attrs)),)


defop("logspace", "Start Stop Num Base", "Out", (("dtype", "INT", REQUIRED),),
      infer=_logspace_infer, dtype_from="dtype")
