"""Activations (relu family, sigmoid/tanh, gelu, silu/swish/mish, softplus,
hard_swish/hard_sigmoid) and softmax / log_softmax.

Attribute names and defaults are Paddle's op attributes (``leaky_relu.alpha``
defaults to 0.02 there; the public ``negative_slope`` default 0.01 is set by
``nn.functional``).
"""
from ..declare import defop, defgrad, grad_op
from ..meta_rules import norm_axis
from .math import unary, x_double, DDX, DDOUT


def _out_triple(double, triple, dout, ins, outs):
    """The double and triple grads of tanh / sigmoid, whose grads read Out: the
    double grad maps (Out, DOut, DDX) to the gradients of Out and of DOut
    (Paddle names the DOut slot ``dout``: grad_out / fwd_grad_out); the triple
    grad reads (Out, DOut, DDX, and the gradients of the double grad's two
    outputs) under the slot names ``ins`` and gives the gradients of DOut and
    DDX under ``outs`` (and of Out as Out@GRAD)."""
    return [(double, {"Out": "Out", dout: "Out@GRAD", **DDX},
             {"Out@GRAD": "Out@GRAD", f"{dout}@GRAD": "Out@GRAD@GRAD"}),
            (triple, {"Out": "Out", ins[0]: dout, ins[1]: "grad_x@GRAD",
                      ins[2] + "?": "Out@GRAD@GRAD", ins[3] + "?": f"{dout}@GRAD@GRAD"},
             {"Out@GRAD": "Out@GRAD", outs[0]: f"{dout}@GRAD", outs[1]: "grad_x@GRAD@GRAD"})]


unary("relu", ("Out",), higher=[("relu_grad_grad", {"Out": "Out", **DDX}, DDOUT)])
unary("relu6", ("Out",))
unary("tanh", ("Out",), higher=_out_triple(
    "tanh_grad_grad", "tanh_triple_grad", "grad_out",
    ("grad_out_forward", "grad_x_grad_forward", "grad_out_new@GRAD", "grad_out_grad@GRAD"),
    ("grad_out_forward@GRAD", "grad_x_grad_forward@GRAD")))
unary("sigmoid", ("Out",), higher=_out_triple(
    "sigmoid_grad_grad", "sigmoid_triple_grad", "fwd_grad_out",
    ("fwd_grad_out", "grad_grad_x", "grad_out@GRAD", "grad_grad_out@GRAD"),
    ("fwd_grad_out@GRAD", "grad_grad_x@GRAD")))
unary("logsigmoid")
unary("silu")
unary("leaky_relu", ("X",), (("alpha", "FLOAT", 0.02),),
      higher=[("leaky_relu_grad_grad", {"X": "X", **DDX}, DDOUT)])
unary("elu", ("X", "Out"), (("alpha", "FLOAT", 1.0),), higher=[x_double("elu_grad_grad")])
unary("celu", ("X",), (("alpha", "FLOAT", 1.0),), higher=[x_double("celu_grad_grad")])
unary("selu", ("Out",), (("scale", "FLOAT", 1.0507009873554805),
                         ("alpha", "FLOAT", 1.6732632423543772)))
unary("gelu", ("X",), (("approximate", "BOOLEAN", False),))
unary("softplus", ("X",), (("beta", "FLOAT", 1.0), ("threshold", "FLOAT", 20.0)),
      higher=[x_double("softplus_double_grad")])
unary("swish", ("X",), (("beta", "FLOAT", 1.0),))
unary("mish", ("X",), (("threshold", "FLOAT", 20.0),))
unary("hard_swish", ("X",), (("threshold", "FLOAT", 6.0), ("scale", "FLOAT", 6.0),
                             ("offset", "FLOAT", 3.0)))
unary("hard_sigmoid", ("Out",), (("slope", "FLOAT", 0.2), ("offset", "FLOAT", 0.5)))
unary("brelu", ("X",), (("t_min", "FLOAT", 0.0), ("t_max", "FLOAT", 24.0)))
unary("softsign")
unary("tanh_shrink")
unary("hard_shrink", ("X",), (("threshold", "FLOAT", 0.5),))
unary("softshrink", ("X",), (("lambda", "FLOAT", 0.5),))
unary("thresholded_relu", ("X",), (("threshold", "FLOAT", 1.0),))


def _softmax_infer(metas, attrs):
    x = metas[0]
    nd = len(x.shape)
    if nd:
        norm_axis(attrs["axis"], nd)
    return (x,)


_AXIS = (("axis", "INT", -1),)
for _name in ("softmax", "log_softmax"):
    defgrad(f"{_name}_grad", "Out Out@GRAD", "X@GRAD", _AXIS, infer=lambda m, a: (m[1],))
    defop(_name, "X", "Out", _AXIS, infer=_softmax_infer,
          grad=grad_op(f"{_name}_grad", uses=("Out",)))


# prelu: Out = X > 0 ? X : Alpha * X, Alpha shared ("all"), per channel or per element
def _prelu_infer(metas, attrs):
    from ..registry import OpError
    x, alpha = metas
    mode = attrs["mode"]
    if mode not in ("all", "channel", "element"):
        raise OpError(f"attribute mode must be 'all', 'channel' or 'element', got '{mode}'")
    # only a per-channel Alpha reads the layout (Paddle passes any string through "all")
    if mode == "channel" and attrs["data_format"] not in (
            "NCHW", "NHWC", "NC", "NCL", "NCDHW", "NLC", "NDHWC"):
        raise OpError(f"attribute data_format '{attrs['data_format']}' is not supported")
    return (x,)


_PRELU_ATTRS = (("mode", "STRING", "all"), ("data_format", "STRING", "NCHW"))
defgrad("prelu_grad", "X Alpha Out@GRAD", "X@GRAD? Alpha@GRAD?", _PRELU_ATTRS)
defop("prelu", "X Alpha", "Out", _PRELU_ATTRS, infer=_prelu_infer,
      grad=grad_op("prelu_grad", uses=("X", "Alpha"), wrt=("X", "Alpha")))
