"""``paddle.autograd``: the public face of the tape, custom Python layers
(``PyLayer``) and lazily evaluated ``jacobian``/``hessian``."""
from .tape import backward, grad, no_grad, enable_grad, set_grad_enabled, is_grad_enabled
from . import py_layer  # noqa: F401,E402  (paddle.autograd.py_layer)
from .py_layer import (PyLayer, PyLayerContext, saved_tensors_hooks,  # noqa: F401
                       once_differentiable)
from .jacobian import jacobian, hessian, Jacobian, Hessian  # noqa: F401

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "jacobian", "hessian", "PyLayer", "PyLayerContext", "saved_tensors_hooks"]
