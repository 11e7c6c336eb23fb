"""Eager mode: the Tensor, the eager op handler and the autograd tape."""
from .tensor import Tensor, Parameter
from . import engine  # noqa: F401  (installs the eager handler)
from . import actions  # noqa: F401  (the eager mode actions)
from . import numerics  # noqa: F401  (FLAGS_check_nan_inf: swaps in checking handlers)
from .tape import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled, grad,
                   backward)
