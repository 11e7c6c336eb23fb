"""The op registry: one declaration per op (slots, attrs, infer_meta, grad rule,
scheduling facts), and the single dispatch point ``bind`` shared by every mode.

Importing this package declares every op (``ops/defs``).  It imports nothing
else of sampan; kernels register themselves from ``sampan.kernels``.
"""
from .registry import (OpDef, Slot, Attr, GradOp, Meta, OpError, GRAD_SUFFIX,
                       register_op, get_op, has_op, list_ops, all_opdefs)
from .mode import (bind, in_static_mode, in_dynamic_mode, set_static_mode,
                   set_mode_handler, set_constant_handler, constant)
from . import defs  # noqa: F401  (declares every op)
