"""``paddle.base``: Paddle 2.6's name for what ``paddle.fluid`` was, used by much
2.x model code and by Paddle's own tests (``from paddle import base``,
``base.dygraph.guard()``, ``base.Program``, ``base.core.VarDesc.VarType``).

Every name is a re-export of sampan's own object (the same classes and
functions as ``paddle.static``, ``paddle.nn`` ...); this package holds no
logic.  ``paddle.fluid`` is not part of Paddle 2.6 and is not provided.
"""
from . import core, framework, executor, unique_name, dygraph, backward, compiler  # noqa: F401
from . import param_attr, data_feeder, initializer  # noqa: F401
from .framework import (Program, default_startup_program, default_main_program,  # noqa: F401
                        program_guard, name_scope, cuda_places, cpu_places, xpu_places,
                        in_dygraph_mode, in_pir_mode, in_dynamic_or_pir_mode,
                        is_compiled_with_cinn, is_compiled_with_cuda, is_compiled_with_rocm,
                        is_compiled_with_xpu, Variable, device_guard, set_flags, get_flags)
from .executor import Executor, global_scope, scope_guard  # noqa: F401
from .backward import gradients, append_backward  # noqa: F401
from .param_attr import ParamAttr, WeightNormParamAttr  # noqa: F401
from .core import Scope, CPUPlace, XPUPlace, CUDAPlace, CUDAPinnedPlace, IPUPlace  # noqa: F401
from .compiler import (CompiledProgram, ExecutionStrategy, BuildStrategy,  # noqa: F401
                       IpuCompiledProgram, IpuStrategy)
from .dygraph.base import enable_dygraph, disable_dygraph  # noqa: F401
from .initializer import set_global_initializer  # noqa: F401
from ..static import ipu_shard_guard, set_ipu_shard  # noqa: F401

enable_imperative = enable_dygraph
disable_imperative = disable_dygraph

__all__ = []
