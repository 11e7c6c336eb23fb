"""``paddle.jit.dy2static.convert_operators``: the runtime helpers whose
calling convention is Paddle's (Python semantics for Python values and eager
Tensors, graph ops for static Variables).  sampan's if/while helpers pass
their branch variables differently from Paddle's ``convert_ifelse(pred,
true_fn, false_fn, get_args, set_args, names)`` and are not exported here."""
from ..convert_runtime import (convert_logical_and, convert_logical_or,  # noqa: F401
                               convert_logical_not, convert_len, convert_shape,
                               convert_var_dtype, convert_print, convert_call)

__all__ = ["convert_logical_and", "convert_logical_or", "convert_logical_not", "convert_len",
           "convert_shape", "convert_var_dtype", "convert_print"]
