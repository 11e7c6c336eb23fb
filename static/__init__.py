"""Static graph: ``Program``/``Block``/``Operator``/``Variable`` over Paddle's
ProgramDesc protobuf, program building (``program_guard``, ``data``, the
static-mode handler of ``bind``), the printer, and, re-exported from
``sampan.executor``, the ``Executor`` that runs programs (``paddle.static``'s
public names)."""
import os as _os

from .framework import Program, Block, Operator, Variable, Parameter
from .program_guard import (default_main_program, default_startup_program, program_guard,
                            name_scope, switch_main_program, switch_startup_program)
from .static_mode import enable_static, disable_static, op_role_guard
from . import actions as _actions  # noqa: F401  (the static mode actions)
from .data import data, InputSpec
from .backward import append_backward, gradients
from ..kernels.place import CPUPlace, CUDAPlace


def cpu_places(device_count=None):
    """``device_count`` CPU places (default: the CPU_NUM environment variable, else 1)."""
    if device_count is None:
        device_count = int(_os.environ.get("CPU_NUM", 1))
    return [CPUPlace() for _ in range(device_count)]


def cuda_places(device_ids=None):
    ids = [0] if device_ids is None else list(device_ids)
    return [CUDAPlace(i) for i in ids]


# The executor imports this package's modules; importing it last keeps the
# import one-way at load time while ``paddle.static.Executor`` stays public.
from ..executor import Executor, global_scope, scope_guard, Scope  # noqa: E402
from . import nn  # noqa: E402,F401
from .nn.control_flow import Print  # noqa: E402,F401
from ..save_load.inference_model import save_inference_model, load_inference_model  # noqa: E402,E501
from ..save_load.static_io import save, load, load_program_state, set_program_state  # noqa: E402,E501

__all__ = ["Program", "Block", "Operator", "Variable", "Parameter", "default_main_program",
           "default_startup_program", "program_guard", "name_scope", "data", "InputSpec",
           "Executor", "global_scope", "scope_guard", "Scope", "cpu_places", "cuda_places",
           "CPUPlace", "CUDAPlace", "append_backward", "gradients", "save_inference_model",
           "load_inference_model", "save", "load", "load_program_state", "set_program_state",
           "Print"]
