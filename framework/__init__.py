"""``paddle.framework``: the framework names Paddle 2.6 gathers from
``paddle.base`` (the mode, places, flags, Programs, ``ParamAttr``, saving),
re-exports of sampan's own objects holding no logic."""
from ..base import core  # noqa: F401
from ..base.core import CPUPlace, CUDAPinnedPlace, CUDAPlace, IPUPlace, XPUPlace  # noqa: F401
from ..base.dygraph import base, to_variable  # noqa: F401
from ..base.dygraph.base import disable_dygraph as enable_static  # noqa: F401
from ..base.dygraph.base import enable_dygraph as disable_static  # noqa: F401
from ..base.dygraph.base import grad, no_grad  # noqa: F401
from ..base.framework import (Block, Parameter, Program, _current_expected_place,  # noqa: F401
                              _current_expected_place_, _get_paddle_place,
                              convert_np_dtype_to_dtype_, get_flags, set_flags,
                              in_dygraph_mode as in_dynamic_mode, in_dynamic_or_pir_mode,
                              in_pir_mode, use_pir_api, switch_main_program,
                              switch_startup_program, dygraph_only, dygraph_not_support,
                              _global_flags)
from ..base.param_attr import ParamAttr  # noqa: F401
from ..tensor.creation_base import get_default_dtype, set_default_dtype  # noqa: F401
from . import random  # noqa: F401
from .random import seed  # noqa: F401
from ..save_load import load, save  # noqa: F401

__all__ = []
