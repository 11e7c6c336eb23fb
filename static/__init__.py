"""``paddle.static``: the public names of static graphs, gathered from where
they live: the Program and its building (``sampan.program``), the Executor
(``sampan.executor``), saving and loading (``sampan.save_load``) and the
layer builders and control flow (``static.nn``).  Nothing below imports this
package."""
import os as _os

from ..kernels.place import CPUPlace, CUDAPlace
from ..program import (Program, Block, Operator, Variable, Parameter, default_main_program,
                       default_startup_program, program_guard, name_scope,
                       switch_main_program, switch_startup_program, enable_static,
                       disable_static, data, InputSpec, append_backward, gradients)
from ..executor import Executor, global_scope, scope_guard, Scope
from ..executor.compiled import CompiledProgram, BuildStrategy, ExecutionStrategy
from ..save_load.inference_model import save_inference_model, load_inference_model
from ..save_load.static_io import save, load, load_program_state, set_program_state
from . import nn
from .nn.control_flow import Print
from .nn.extra import py_func
from ..nn.param_attr import create_parameter
from .io import (normalize_program, serialize_program, deserialize_program,
                 serialize_persistables, deserialize_persistables, save_to_file,
                 load_from_file)
from .extras import (create_global_var, device_guard, accuracy, xpu_places,
                     IpuCompiledProgram, IpuStrategy, ipu_shard_guard, set_ipu_shard,
                     WeightNormParamAttr, ExponentialMovingAverage, auc)
from .nn.metric import ctr_metric_bundle
from . import variable_methods  # noqa: F401,E402  (Variable.detach/register_hook)


def cpu_places(device_count=None):
    """``device_count`` CPU places (default: the CPU_NUM environment variable, else 1)."""
    if device_count is None:
        device_count = int(_os.environ.get("CPU_NUM", 1))
    return [CPUPlace() for _ in range(device_count)]


def cuda_places(device_ids=None):
    ids = [0] if device_ids is None else list(device_ids)
    return [CUDAPlace(i) for i in ids]


__all__ = ["Program", "Block", "Operator", "Variable", "Parameter", "default_main_program",
           "default_startup_program", "program_guard", "name_scope", "data", "InputSpec",
           "Executor", "CompiledProgram", "BuildStrategy", "ExecutionStrategy", "global_scope", "scope_guard", "Scope", "cpu_places", "cuda_places",
           "CPUPlace", "CUDAPlace", "append_backward", "gradients", "save_inference_model",
           "load_inference_model", "save", "load", "load_program_state", "set_program_state",
           "Print", "create_parameter", "normalize_program", "serialize_program",
           "deserialize_program", "serialize_persistables", "deserialize_persistables",
           "save_to_file", "load_from_file", "create_global_var", "device_guard", "accuracy",
           "xpu_places", "IpuCompiledProgram", "IpuStrategy", "ipu_shard_guard",
           "set_ipu_shard", "py_func", "WeightNormParamAttr",
           "ExponentialMovingAverage", "auc", "ctr_metric_bundle"]
