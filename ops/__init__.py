"""The op registry: one declaration per op (slots, attrs, infer_meta, grad rule,
scheduling facts), and the single dispatch point ``bind`` shared by every mode.

Importing this package declares every op (``ops/defs``).  It imports nothing
else of sampan; kernels register themselves from ``sampan.kernels``.
"""
from .registry import (OpDef, Slot, Attr, GradOp, Meta, OpError, GRAD_SUFFIX,
                       register_op, get_op, has_op, list_ops, all_opdefs,
                       shape_only_inputs)
from .errors import kind_of
from . import errors
from .mode import (bind, bind_in_graph, in_static_mode, in_dynamic_mode, set_static_mode,
                   set_mode_handler, set_constant_handler, constant, set_mode_action,
                   create_parameter, create_state, update, new_array, name_key, op_role,
                   name_scope, for_each_pair, named_outputs,
                   call_static_function, while_loop, py_layer_apply, graph_grad, is_graph_value,
                   static_guard,
                   grad_enabled, set_grad_query)
from .dtypes import get_default_dtype, set_default_dtype, default_float
from . import defs  # noqa: F401  (declares every op)
