"""Binary elementwise ops with Paddle broadcasting (``axis`` aligns Y inside X),
their grads, the double grads of add/sub/mul/div (Paddle's
``elementwise_*_grad_grad`` ops, the grad rules of the ``*_grad`` ops) and of
pow (sampan's own: Paddle has none), and the triple grads of add and mul."""
from ..declare import defop, defgrad, grad_op, grad_chain
from ..meta_rules import broadcast_infer
from ..registry import GradOp

_AXIS = (("axis", "INT", -1),)


def _binary(name, grad_uses=None, double=None, grad_shape_only=()):
    """Declare ``name`` and, when ``grad_uses`` is given, ``name_grad`` whose inputs
    are those forward slots plus Out@GRAD and whose outputs are X@GRAD, Y@GRAD
    (``grad_shape_only``: the slots it reads only for their shapes)."""
    grad = None
    if grad_uses is not None:
        grad = grad_op(f"{name}_grad", uses=grad_uses, gouts=("Out",), wrt=("X", "Y"))
        defgrad(f"{name}_grad", tuple(grad_uses) + ("Out@GRAD",), "X@GRAD? Y@GRAD?", _AXIS,
                grad=double, no_need_buffer=grad_shape_only)
    defop(name, "X Y", "Out", _AXIS, infer=broadcast_infer(), grad=grad,
          same_dtype=("X", "Y"))


_DD_IN = {"DDX?": "X@GRAD@GRAD", "DDY?": "Y@GRAD@GRAD"}
_DDOUT = {"DDOut": "Out@GRAD@GRAD"}


def _like_dout(metas, attrs):
    return (metas[1],)


# add/sub: DDOut = DDX +- DDY.  Its gradient is Paddle's add triple grad, and
# for sub (no triple grad in Paddle) sub's own grad op, which computes the same
# two reductions of D_DDOut
_ADD_DD = grad_chain(_AXIS, ("elementwise_add_grad_grad",
                             {"Y": "Y", "DOut": "Out@GRAD", **_DD_IN}, _DDOUT, _like_dout),
                     ("elementwise_add_triple_grad",
                      {"DDX": "DDX", "DDY": "DDY", "D_DDOut": "DDOut@GRAD"},
                      {"D_DDX": "DDX@GRAD", "D_DDY": "DDY@GRAD"}))
_SUB_DD = grad_chain(_AXIS, ("elementwise_sub_grad_grad",
                             {"Y": "Y", "DOut": "Out@GRAD", **_DD_IN}, _DDOUT, _like_dout),
                     GradOp("elementwise_sub_grad",
                            {"X": "DDX", "Y": "DDY", "Out@GRAD": "DDOut@GRAD"},
                            {"X@GRAD": "DDX@GRAD", "Y@GRAD": "DDY@GRAD"}))
# mul is bilinear: its double grad (X@GRAD, Y@GRAD, DDOut) and triple grad
_MUL_DD = grad_chain(_AXIS, ("elementwise_mul_grad_grad",
                             {"X": "X", "Y": "Y", "DOut": "Out@GRAD", **_DD_IN},
                             {"X@GRAD": "X@GRAD", "Y@GRAD": "Y@GRAD", **_DDOUT}),
                     ("elementwise_mul_triple_grad",
                      {"X": "X", "Y": "Y", "DOut": "DOut", "DDX?": "DDX", "DDY?": "DDY",
                       "D_DX?": "X@GRAD@GRAD", "D_DY?": "Y@GRAD@GRAD",
                       "D_DDOut?": "DDOut@GRAD"},
                      {"D_X": "X@GRAD", "D_Y": "Y@GRAD", "D_DOut": "DOut@GRAD",
                       "D_DDX": "DDX@GRAD", "D_DDY": "DDY@GRAD"}))
# pow (x ** tensor, and x ** scalar as Paddle's static builders emit it: a
# filled Y): Paddle 2.6 has no double grad for it; sampan's has mul's slots
_POW_DD = grad_chain(_AXIS, ("elementwise_pow_grad_grad",
                             {"X": "X", "Y": "Y", "DOut": "Out@GRAD", **_DD_IN},
                             {"X@GRAD": "X@GRAD", "Y@GRAD": "Y@GRAD", **_DDOUT}))
# div's grad reads Out, so its double grad also gives Out a gradient ("DOut"), and
# reads the first-order DX (= DOut / Y) instead of DOut, as Paddle does
_DIV_DD = grad_chain(_AXIS, ("elementwise_div_grad_grad",
                             {"Y": "Y", "Out": "Out", "DX?": "X@GRAD", **_DD_IN},
                             {"Y@GRAD": "Y@GRAD", "DOut": "Out@GRAD", **_DDOUT},
                             lambda m, a: (m[0], m[1], m[1])))

_binary("elementwise_add", ("X", "Y"), _ADD_DD, grad_shape_only=("X", "Y"))
_binary("elementwise_sub", ("X", "Y"), _SUB_DD, grad_shape_only=("X", "Y"))
_binary("elementwise_mul", ("X", "Y"), _MUL_DD)
_binary("elementwise_div", ("X", "Y", "Out"), _DIV_DD)
_binary("elementwise_pow", ("X", "Y"), _POW_DD)
_binary("elementwise_max", ("X", "Y"))
_binary("elementwise_min", ("X", "Y"))
_binary("elementwise_mod")
_binary("elementwise_floordiv")
