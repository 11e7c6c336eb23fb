"""Paddle 2.6's legacy-IR names for what this package owns, as ``paddle.base``
(``base.core``, ``base.framework``) and ``paddle.framework`` spell them.

* ``VarDesc.VarType``: the VarType enum of the ProgramDesc.  Its data-type
  members are sampan's public dtypes themselves (``VarType.FP32 is
  sampan.float32``, as ``core.VarDesc.VarType.FP32 is paddle.float32`` in
  Paddle 2.6), its variable kinds the enum's integers (``LOD_TENSOR`` == 7,
  what ``Variable.type`` returns).
* The IR: sampan builds ProgramDesc programs only (Paddle's legacy IR), so
  ``in_pir_mode``/``use_pir_api`` say False whatever ``FLAGS_enable_pir_api``
  holds.
* ``grad_var_name`` and ``convert_np_dtype_to_dtype_``: Paddle's naming and
  dtype helpers over the same rules the rest of ``program`` uses.
"""
import functools

import numpy as np

from ..ops import in_dynamic_mode
from ..ops.dtypes import PUBLIC, BFLOAT16, ENUM_NAMES, public_dtype, to_np_dtype
from .proto import framework_pb2 as _pb

__all__ = ["VarDesc", "grad_var_name", "convert_np_dtype_to_dtype_", "in_pir_mode",
           "use_pir_api", "in_dynamic_or_pir_mode", "GRAD_SUFFIX", "_is_fwd_prim_enabled",
           "_is_bwd_prim_enabled", "_is_all_prim_enabled", "IrGuard", "OldIrGuard",
           "test_with_pir_api", "test_with_old_ir_only", "convert_dtype", "check_type",
           "check_dtype", "check_variable_and_dtype"]

GRAD_SUFFIX = "@GRAD"


def _var_type_members():
    members = {}
    for name, value in _pb.VarType.Type.items():
        members[name] = value
    for value, name in ENUM_NAMES.items():          # data types: the public dtypes
        members[name] = BFLOAT16 if name == "BF16" else PUBLIC[to_np_dtype(value).name]
    return members


class _VarType:
    """``core.VarDesc.VarType``: data types (the public dtype objects) and the
    kinds of variables (the enum's integers)."""

    def __init__(self, members):
        self.__dict__.update(members)
        self._members = dict(members)

    def __iter__(self):
        return iter(self._members.values())

    def __repr__(self):
        return "<VarDesc.VarType>"


class VarDesc:
    """``core.VarDesc``: only its ``VarType`` enum (a VarDesc itself is the
    protobuf message behind ``Variable.desc``)."""
    VarType = _VarType(_var_type_members())


def grad_var_name(var_name):
    """The name of ``var_name``'s gradient variable (``x`` -> ``x@GRAD``)."""
    return var_name + GRAD_SUFFIX


def convert_np_dtype_to_dtype_(np_dtype):
    """A numpy dtype (or any dtype spelling) as Paddle's dtype object."""
    return public_dtype(to_np_dtype(np_dtype))


def in_pir_mode():
    """False: sampan builds legacy-IR Programs (ProgramDesc) only."""
    return False


def use_pir_api():
    """False: the PIR API is not part of sampan (``FLAGS_enable_pir_api`` is
    accepted and recorded, and changes nothing)."""
    return False


def in_dynamic_or_pir_mode():
    """True eagerly (there is no PIR mode in sampan)."""
    return in_dynamic_mode()


def _is_fwd_prim_enabled():
    """False: sampan runs each op's own kernel, it never decomposes forward ops
    into primitive ops (Paddle's ``core._is_fwd_prim_enabled``)."""
    return False


def _is_bwd_prim_enabled():
    """False: gradients come from each op's grad ops, never from primitives."""
    return False


def _is_all_prim_enabled():
    return False


# ----------------------------------------------------------------- the IR switch
class IrGuard:
    """``paddle.pir_utils.IrGuard``: Paddle's switch to its new IR (PIR).
    sampan has the legacy IR only: the block builds ProgramDesc Programs
    (``in_pir_mode()`` stays False).  As in Paddle, a guard entered eagerly
    runs its block in static mode and returns to eager mode on exit."""

    def __init__(self):
        self.in_dygraph_outside = False

    def __enter__(self):
        from .static_mode import enable_static
        self.in_dygraph_outside = in_dynamic_mode()
        if self.in_dygraph_outside:
            enable_static()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        from .static_mode import disable_static
        if self.in_dygraph_outside:
            disable_static()
        return False


class OldIrGuard:
    """``paddle.pir_utils.OldIrGuard``: run the block on the legacy IR, which
    is the only IR sampan has (the mode is left as it is)."""

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False


def test_with_pir_api(func):
    """Run ``func`` as it is, then again under ``IrGuard`` (Paddle's test helper)."""
    @functools.wraps(func)
    def impl(*args, **kwargs):
        func(*args, **kwargs)
        with IrGuard():
            func(*args, **kwargs)
    return impl


def test_with_old_ir_only(func):
    """Run ``func`` under ``OldIrGuard``."""
    @functools.wraps(func)
    def impl(*args, **kwargs):
        with OldIrGuard():
            return func(*args, **kwargs)
    return impl


# ----------------------------------------------------------------- input checks
_DTYPE_NAMES = ("bool", "float16", "uint16", "float32", "float64", "int8", "int16", "int32",
                "int64", "uint8", "complex64", "complex128")


def convert_dtype(dtype):
    """A dtype (Paddle dtype, numpy type or dtype, name) as its name, e.g.
    ``'float32'`` (``base.data_feeder.convert_dtype``); bfloat16 is
    ``'uint16'`` as in Paddle."""
    if dtype is BFLOAT16 or (isinstance(dtype, str) and dtype == "bfloat16"):
        return "uint16"
    name = None
    if isinstance(dtype, type):
        name = dtype.__name__
    elif getattr(dtype, "np_dtype", None) is not None:
        name = dtype.np_dtype.name
    elif isinstance(dtype, (str, np.dtype)):
        name = str(dtype)
    if name in _DTYPE_NAMES:
        return name
    raise TypeError(f"dtype must be any of [{', '.join(_DTYPE_NAMES + ('bfloat16',))}], "
                    f"but received {dtype}")


def check_type(input, input_name, expected_type, op_name, extra_message=""):
    """Static mode: a TypeError unless ``input`` is an ``expected_type``
    (eagerly nothing is checked, as in Paddle)."""
    if in_dynamic_mode():
        return
    if not isinstance(input, expected_type):
        raise TypeError(f"The type of '{input_name}' in {op_name} must be {expected_type}, "
                        f"but received {type(input)}. {extra_message}")


def check_dtype(input_dtype, input_name, expected_dtype, op_name, extra_message=""):
    """Static mode: a TypeError unless ``input_dtype``'s name is in ``expected_dtype``."""
    if in_dynamic_mode():
        return
    if convert_dtype(input_dtype) not in expected_dtype:
        raise TypeError(f"The data type of '{input_name}' in {op_name} must be "
                        f"{expected_dtype}, but received {convert_dtype(input_dtype)}. "
                        f"{extra_message}")


def check_variable_and_dtype(input, input_name, expected_dtype, op_name, extra_message=""):
    from .variable import Variable
    check_type(input, input_name, Variable, op_name, extra_message)
    check_dtype(input.dtype, input_name, expected_dtype, op_name, extra_message)
