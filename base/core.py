"""``paddle.base.core``: the names Paddle's C++ core module gives Python code
(places, ``VarDesc.VarType``, ``eager.Tensor``, what this build can use),
re-exported from where sampan keeps them."""
import types as _types

from ..kernels.place import (CPUPlace, CUDAPlace, CUDAPinnedPlace, XPUPlace,  # noqa: F401
                             IPUPlace)
from ..dygraph.tensor import Tensor as _Tensor
from ..program.legacy import (VarDesc, _is_fwd_prim_enabled, _is_bwd_prim_enabled,  # noqa: F401
                              _is_all_prim_enabled)
from ..executor import Scope  # noqa: F401
from ..ops.flags import global_flags as globals  # noqa: F401,A004  (core.globals())
from ..tensor.creation_base import is_compiled_with_cuda  # noqa: F401
from ..device import (is_compiled_with_rocm, is_compiled_with_xpu,  # noqa: F401
                      is_compiled_with_cinn, is_compiled_with_ipu, is_compiled_with_distribute,
                      is_compiled_with_custom_device, get_all_custom_device_type,
                      get_all_device_type, get_available_device, get_available_custom_device)

# ``core.eager.Tensor``: the eager tensor class (``paddle.Tensor``)
eager = _types.SimpleNamespace(Tensor=_Tensor)
