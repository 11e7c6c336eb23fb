"""The static Program: ``Program``/``Block``/``Operator``/``Variable`` over
Paddle's ProgramDesc protobuf, building one (``program_guard``, ``data``, the
static mode's handler of ``bind`` and its other mode actions), the printer,
and the backward (``append_backward``, ``gradients``).

It imports only ``ops``, ``kernels`` and ``utils``: the executor, the file
formats and the library sit above it, and ``sampan.static`` (Paddle's
``paddle.static`` namespace) gathers them for users.
"""
from .framework import Program, Block, Operator, Variable, Parameter
from .program_guard import (default_main_program, default_startup_program, program_guard,
                            name_scope, switch_main_program, switch_startup_program,
                            building)
from .static_mode import enable_static, disable_static, op_role_guard
from . import actions as _actions  # noqa: F401  (the static mode actions)
from .data import data, InputSpec
from .backward import append_backward, gradients
from . import backward_grad as _backward_grad  # noqa: F401,E402  (paddle.grad of Variables)

__all__ = ["Program", "Block", "Operator", "Variable", "Parameter", "default_main_program",
           "default_startup_program", "program_guard", "name_scope", "switch_main_program",
           "switch_startup_program", "building", "enable_static", "disable_static",
           "op_role_guard", "data", "InputSpec", "append_backward", "gradients"]
