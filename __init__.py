"""sampan: a dynamic-to-static toolkit with PaddlePaddle's API and file formats.

``import sampan as paddle`` runs ordinary Paddle 2.x code eagerly; see
README.md and ARCHITECTURE.md for the map.
"""
from .utils.version import __version__  # noqa: F401

from . import ops                      # op declarations
from . import kernels                  # numpy kernels
from .dygraph import Tensor, Parameter, no_grad, enable_grad, set_grad_enabled, \
    is_grad_enabled, grad  # noqa: F401
from .kernels.place import CPUPlace, CUDAPlace, CUDAPinnedPlace  # noqa: F401
from .ops.dtypes import PUBLIC as _DTYPES
from .ops import in_dynamic_mode  # noqa: F401
from . import tensor as _tensor_pkg
from .tensor import *  # noqa: F401,F403
from .tensor import methods as _methods

_methods.install(Tensor)
from .dygraph import fast_operators as _fast_operators  # noqa: E402
_fast_operators.install(Tensor, ops.get_op, _tensor_pkg.operators.SCALE_ATTRS,
                        _tensor_pkg.operators._fill)

from . import static  # noqa: E402  (Program, Executor; installs the static handler)
from .program.framework import Variable as _Variable  # noqa: E402
from .program.static_mode import tmp_names as _tmp_names  # noqa: E402
_methods.install(_Variable, eager=False, wrap_operators=_tmp_names)
from .static import enable_static, disable_static  # noqa: E402,F401

from . import utils, nn, optimizer  # noqa: E402,F401
from . import distribution  # noqa: E402,F401
from . import metric  # noqa: E402,F401
from .optimizer import regularizer  # noqa: E402,F401
from .nn.param_attr import ParamAttr, create_parameter  # noqa: E402,F401
from .nn.initializer.lazy_init import LazyGuard  # noqa: E402,F401
from .save_load import save, load  # noqa: E402,F401
from .dygraph import autograd  # noqa: E402,F401
from .tensor import linalg_api as linalg  # noqa: E402,F401
from .tensor import spectral_fft as fft, spectral_signal as signal  # noqa: E402,F401
from . import jit, inference  # noqa: E402,F401
from . import device  # noqa: E402,F401
from .device import version  # noqa: E402,F401  (paddle.version)
from . import io  # noqa: E402,F401
from . import text  # noqa: E402,F401
from . import amp  # noqa: E402,F401
from . import vision  # noqa: E402,F401
from .hapi import Model, summary, flops, callbacks  # noqa: E402,F401
from .hapi import hub  # noqa: E402,F401
from .hapi.run_check import run_check as _run_check  # noqa: E402
utils.run_check = _run_check        # paddle.utils.run_check (it trains: above utils/)
from . import distributed  # noqa: E402,F401  (mpi4py only once a job has >1 rank)
from .distributed import DataParallel  # noqa: E402,F401
from . import base, framework, pir_utils  # noqa: E402,F401  (Paddle 2.6's legacy names)

import sys as _sys  # noqa: E402
_sys.modules[__name__ + ".autograd"] = autograd
_sys.modules[__name__ + ".linalg"] = linalg
_sys.modules[__name__ + ".fft"] = fft
_sys.modules[__name__ + ".signal"] = signal
_sys.modules[__name__ + ".callbacks"] = callbacks
_sys.modules[__name__ + ".hub"] = hub
_sys.modules[__name__ + ".version"] = version

bool = _DTYPES["bool"]  # noqa: A001
int8, int16, int32, int64 = (_DTYPES[k] for k in ("int8", "int16", "int32", "int64"))
uint8 = _DTYPES["uint8"]
float16, float32, float64 = (_DTYPES[k] for k in ("float16", "float32", "float64"))
complex64, complex128 = _DTYPES["complex64"], _DTYPES["complex128"]
dtype = type(float32)

from .dygraph.gc_freeze import freeze_import_heap as _freeze_import_heap  # noqa: E402
from .dygraph.gc_freeze import widen_young_generation as _widen_young  # noqa: E402
_freeze_import_heap()       # the import's objects leave the collector's walks (gc_freeze.py)
_widen_young()              # a step's tape is freed before the collector walks it
