"""``paddle.static.nn.spectral_norm``: Paddle's builder, its ``u`` / ``v``
vectors as N(0, 1) parameters that stop gradients (``spectral_norm_<n>.w_0``,
``.w_1``) and one ``spectral_norm`` op (nn/layer/norm_extra.py binds it)."""
import numpy as np

from ...nn.initializer import Normal
from ...ops import is_graph_value
from ...tensor import numel
from ...nn.layer.norm_extra import spectral_norm_op
from ...nn.param_attr import ParamAttr
from .common import _owner, _param

__all__ = ["spectral_norm"]


def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    dtype = getattr(weight, "dtype", None)
    if dtype is None or getattr(dtype, "name", str(dtype)).replace("paddle.", "") not in (
            "float32", "float64"):
        raise TypeError(f"The data type of 'weight' in spectral_norm must be float32 or "
                        f"float64, but received {dtype}.")
    for what, v, typ in (("dim", dim, int), ("power_iters", power_iters, int),
                         ("eps", eps, float)):
        if not isinstance(v, typ):
            raise TypeError(f"The type of '{what}' in spectral_norm must be {typ}, but "
                            f"received {type(v)}.")
    shape = list(weight.shape)
    positive = numel(weight) > 0      # Paddle asserts this (in a Program: ops, no check)
    if 0 in shape or not (is_graph_value(positive) or bool(positive)):
        raise AssertionError("Any dimension of input cannot be equal to 0.")
    if dim not in (0, 1):
        raise ValueError(f"The input `dim` must be 0 (if weight in fc) or 1 (if weight in "
                         f"conv), but received dim={dim}")
    h = shape[dim]
    w = int(np.prod(shape)) // h
    with _owner("spectral_norm", name) as owner:
        vecs = []
        for n in (h, w):
            p = _param(owner, [n], ParamAttr(), weight.dtype, init=Normal(0.0, 1.0))
            p.stop_gradient = True
            vecs.append(p)
        return spectral_norm_op(weight, vecs[0], vecs[1], dim, power_iters, eps)
