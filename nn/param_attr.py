"""``ParamAttr`` and parameter creation (Paddle's LayerHelperBase.create_parameter).

``make_parameter`` is the one place a parameter is born: it resolves the
attribute (``False`` = no parameter), names it ``<owner>.w_<n>`` / ``.b_<n>``
through ``unique_name``, picks the initializer (attr > global > layer default
> Xavier / Constant(0)); ``ops.create_parameter`` makes it in the active mode
(eagerly filled now, or declared in the main program and filled by an op of
the startup program).
``Layer.create_parameter`` and the top-level ``create_parameter`` both use it.
"""
import copy
import numbers

import numpy as np

from .. import ops as _ops
from ..ops.dtypes import default_float, to_np_dtype
from ..utils import unique_name

__all__ = ["ParamAttr", "create_parameter"]


class ParamAttr:
    """How a parameter is created and trained (Paddle 2.x ``paddle.ParamAttr``)."""

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=True, need_clip=True):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"ParamAttr: name must be a str or None, got {type(name).__name__}")
        if not isinstance(learning_rate, numbers.Real) or isinstance(learning_rate, bool):
            raise TypeError("ParamAttr: learning_rate must be a float or int, got "
                            f"{type(learning_rate).__name__}")
        if not isinstance(trainable, (bool, np.bool_)):
            raise TypeError(f"ParamAttr: trainable must be a bool, got {type(trainable).__name__}")
        from .initializer import Initializer
        if initializer is not None and not isinstance(initializer, Initializer):
            raise TypeError("ParamAttr: initializer must be a paddle.nn.initializer.Initializer, "
                            f"got {type(initializer).__name__}")
        self.name = name
        if self.name == "":
            raise ValueError("ParamAttr: name must not be an empty string")
        self.initializer = initializer
        self.learning_rate = learning_rate
        self.regularizer = regularizer
        self.trainable = bool(trainable)
        self.do_model_average = do_model_average
        self.need_clip = need_clip

    def __repr__(self):
        return (f"ParamAttr(name={self.name!r}, initializer={self.initializer!r}, "
                f"learning_rate={self.learning_rate}, trainable={self.trainable})")

    # --------------------------------------------------------- defaults
    def _set_default_initializer(self, initializer):
        if initializer is None:
            if self.initializer is None:
                raise ValueError("ParamAttr.initializer is not set")
            return
        if self.initializer is None:
            self.initializer = initializer

    def _set_default_param_initializer(self):
        from .initializer import XavierUniform
        self._set_default_initializer(XavierUniform())

    def _set_default_bias_initializer(self):
        from .initializer import Constant
        self._set_default_initializer(Constant(0.0))

    @staticmethod
    def _to_attr(arg):
        """None/str/Initializer/ParamAttr/bool (or a list of them) -> ParamAttr
        (or False, meaning "no parameter")."""
        from .initializer import Initializer
        if arg is None:
            return ParamAttr()
        if isinstance(arg, (list, tuple)):
            return [ParamAttr._to_attr(a) for a in arg]
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if isinstance(arg, Initializer):
            return ParamAttr(initializer=arg)
        if isinstance(arg, bool):
            return ParamAttr._to_attr(None) if arg else False
        raise TypeError(f"{type(arg).__name__} cast to ParamAttr: expected None, str, bool, "
                        "Initializer or ParamAttr")

    def _to_kwargs(self, with_initializer=False):
        kw = {"name": self.name, "optimize_attr": {"learning_rate": self.learning_rate},
              "regularizer": self.regularizer, "trainable": self.trainable,
              "do_model_average": self.do_model_average, "need_clip": self.need_clip}
        if with_initializer:
            kw["initializer"] = self.initializer
        return kw


def make_parameter(owner, shape, attr=None, dtype=None, is_bias=False,
                   default_initializer=None):
    """Create (and initialize) a parameter named after ``owner`` (a layer's
    full name); returns None when ``attr`` is False."""
    from .initializer import _global_weight_initializer, _global_bias_initializer
    if isinstance(attr, str) and attr == "":
        attr = None
    attr = ParamAttr._to_attr(copy.deepcopy(attr))
    if attr is False:
        return None
    if isinstance(attr, list):
        raise TypeError("create_parameter: attr must be a single ParamAttr, not a list")
    shape = _check_shape(shape, owner)
    dtype = to_np_dtype(dtype if dtype is not None else default_float())
    if is_bias:
        suffix, glob = "b", _global_bias_initializer()
    else:
        suffix, glob = "w", _global_weight_initializer()
    if glob is not None:
        default_initializer = glob
    if attr.name is None:
        attr.name = unique_name.generate(f"{owner}.{suffix}")
    if default_initializer is None and attr.initializer is None:
        if dtype.kind != "f":
            raise TypeError(f"cannot create parameter '{attr.name}' of dtype {dtype} with the "
                            "default initializer (it needs a float dtype); pass an initializer")
        if is_bias:
            attr._set_default_bias_initializer()
        else:
            attr._set_default_param_initializer()
    else:
        attr._set_default_initializer(default_initializer)
    build = getattr(attr, "_create_weight_normalize", None)   # static.WeightNormParamAttr
    if build is not None:
        return build(owner, shape, dtype)
    return _ops.create_parameter(attr, shape, dtype)


def _check_shape(shape, owner):
    if isinstance(shape, np.ndarray):
        shape = shape.tolist()
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"create_parameter ({owner}): shape must be a list or tuple, "
                        f"got {type(shape).__name__}")
    out = []
    for i, s in enumerate(shape):
        if not isinstance(s, (numbers.Integral, np.integer)) or isinstance(s, bool):
            raise TypeError(f"create_parameter ({owner}): shape[{i}] must be an int, "
                            f"got {type(s).__name__}")
        if s <= 0:
            raise ValueError(f"create_parameter ({owner}): every dim of the shape must be > 0, "
                             f"but shape[{i}] is {s} (shape {list(shape)})")
        out.append(int(s))
    return out


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """``paddle.create_parameter``: a standalone parameter, named
    ``create_parameter_<n>.w_0`` unless ``name``/``attr`` name it."""
    owner = unique_name.generate("create_parameter")
    if attr is None:
        attr = ParamAttr(name=name)
    return make_parameter(owner, shape, attr, dtype, is_bias, default_initializer)
