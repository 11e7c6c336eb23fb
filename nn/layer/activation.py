"""Activation layers.  Most are a table row: the class name, the
``nn.functional`` function it calls, and its constructor arguments in Paddle's
order with Paddle's defaults (passed positionally to the function after x).
PReLU owns a parameter and is written out."""
import inspect

from ...ops.dtypes import get_default_dtype
from .. import functional as F
from ..initializer import Constant
from .layers import Layer

# class name -> (functional name, ((argument, default), ...))
_TABLE = {
    "ReLU": ("relu", ()),
    "ReLU6": ("relu6", ()),
    "LeakyReLU": ("leaky_relu", (("negative_slope", 0.01),)),
    "ELU": ("elu", (("alpha", 1.0),)),
    "CELU": ("celu", (("alpha", 1.0),)),
    "SELU": ("selu", (("scale", 1.0507009873554804934193349852946),
                      ("alpha", 1.6732632423543772848170429916717))),
    "GELU": ("gelu", (("approximate", False),)),
    "Sigmoid": ("sigmoid", ()),
    "LogSigmoid": ("log_sigmoid", ()),
    "Tanh": ("tanh", ()),
    "Tanhshrink": ("tanhshrink", ()),
    "Silu": ("silu", ()),
    "Swish": ("swish", ()),
    "Mish": ("mish", ()),
    "Softplus": ("softplus", (("beta", 1), ("threshold", 20))),
    "Softsign": ("softsign", ()),
    "Softshrink": ("softshrink", (("threshold", 0.5),)),
    "Hardshrink": ("hardshrink", (("threshold", 0.5),)),
    "Hardswish": ("hardswish", ()),
    "Hardsigmoid": ("hardsigmoid", ()),
    "Hardtanh": ("hardtanh", (("min", -1.0), ("max", 1.0))),
    "ThresholdedReLU": ("thresholded_relu", (("threshold", 1.0),)),
    "Softmax": ("softmax", (("axis", -1),)),
    "LogSoftmax": ("log_softmax", (("axis", -1),)),
    "Maxout": ("maxout", (("groups", None), ("axis", 1))),
}
_REQUIRED = {"Maxout": ("groups",)}


def _make(cls_name, fn_name, params):
    names = tuple(p for p, _ in params)
    required = _REQUIRED.get(cls_name, ())
    sig = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                             **({} if n in required else {"default": d})) for n, d in params]
        + [inspect.Parameter("name", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)])

    def __init__(self, *args, **kwargs):
        bound = sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        Layer.__init__(self)
        values = bound.arguments
        self._args = tuple(values[n] for n in names)
        self._name = values["name"]
        for n in names:
            setattr(self, "_" + n, values[n])

    def forward(self, x):
        return getattr(F, fn_name)(x, *self._args)

    def extra_repr(self):
        parts = [f"{n}={v}" for n, v in zip(names, self._args)]
        if self._name:
            parts.append(f"name={self._name}")
        return ", ".join(parts)

    __init__.__signature__ = sig
    doc = f"Layer form of ``paddle.nn.functional.{fn_name}``."
    return type(cls_name, (Layer,), {"__init__": __init__, "forward": forward,
                                      "extra_repr": extra_repr, "__doc__": doc,
                                      "__module__": __name__, "__qualname__": cls_name})


for _cls, (_fn, _params) in _TABLE.items():
    globals()[_cls] = _make(_cls, _fn, _params)


class Softmax2D(Layer):
    """Softmax over the channel axis of [N, C, H, W] or [C, H, W] input."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        if len(x.shape) not in (3, 4):
            raise ValueError(f"Softmax2D: expected a 3D or 4D input, got {len(x.shape)}D")
        return F.softmax(x, axis=-3)


class PReLU(Layer):
    """max(0, x) + weight * min(0, x) with a learned weight (``_weight``) of
    ``num_parameters`` values starting at ``init``."""

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW",
                 name=None):
        super().__init__()
        self._num_parameters, self._init = num_parameters, init
        self._weight_attr, self._name, self._data_format = weight_attr, name, data_format
        self._weight = self.create_parameter(attr=self._weight_attr, shape=[num_parameters],
                                             dtype=get_default_dtype(), is_bias=False,
                                             default_initializer=Constant(init))

    def forward(self, x):
        return F.prelu(x, self._weight, data_format=self._data_format)

    def extra_repr(self):
        s = (f"num_parameters={self._num_parameters}, data_format={self._data_format}, "
             f"init={self._init}, dtype={self._dtype}")
        return s + (f", name={self._name}" if self._name else "")


__all__ = list(_TABLE) + ["Softmax2D", "PReLU"]
