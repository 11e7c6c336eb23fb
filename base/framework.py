"""``paddle.base.framework``: Programs and their parts, the mode and the IR,
flags, places and the unique-name generator, as Paddle 2.6 names them
(re-exports of sampan's own objects)."""
from ..program import (Program, Block, Operator, Variable, Parameter,  # noqa: F401
                       default_main_program, default_startup_program, program_guard,
                       name_scope, switch_main_program, switch_startup_program)
from ..program.legacy import (grad_var_name, convert_np_dtype_to_dtype_, in_pir_mode,  # noqa: F401
                              use_pir_api, in_dynamic_or_pir_mode)
from ..ops import in_dynamic_mode as in_dygraph_mode  # noqa: F401
from ..ops.flags import set_flags, get_flags, global_flags as _global_flags  # noqa: F401
from ..dygraph.tensor import Parameter as EagerParamBase  # noqa: F401
from ..tensor.legacy_dygraph import (  # noqa: F401
                                     current_expected_place as _current_expected_place,
                                     current_expected_place as _current_expected_place_,
                                     get_paddle_place as _get_paddle_place,
                                     dygraph_mode_guard as _dygraph_guard,
                                     place_guard as _dygraph_place_guard, dygraph_only,
                                     static_only, dygraph_not_support)
from ..tensor.creation_base import is_compiled_with_cuda  # noqa: F401
from ..device import (is_compiled_with_rocm, is_compiled_with_xpu,  # noqa: F401
                      is_compiled_with_cinn)
from ..static import device_guard, cpu_places, cuda_places, xpu_places  # noqa: F401
from ..utils import unique_name  # noqa: F401
from . import core  # noqa: F401
