"""``paddle.jit.dy2static``: the public parts of Paddle's dynamic-to-static
converter, over sampan's (``jit.conversion``, ``jit.convert_runtime``):
``ProgramTranslator``, ``convert_to_static``, ``Call`` (``convert_call``),
the logic/len/shape/cast helpers under Paddle's short names, ``UndefinedVar``
and the source printers (``utils.func_to_source_code``,
``ast_to_source_code``)."""
from . import program_translator, utils, convert_call_func, convert_operators  # noqa: F401
from . import logging_utils  # noqa: F401
from . import basic_api  # noqa: F401  (to_variable in converted code)
from .convert_call_func import convert_call as Call  # noqa: F401
from .convert_operators import (convert_logical_and as And, convert_logical_or as Or,  # noqa: F401
                                convert_logical_not as Not, convert_len as Len,
                                convert_shape as Shape, convert_var_dtype as AsDtype)
from .program_translator import ProgramTranslator, convert_to_static  # noqa: F401
from .utils import UndefinedVar, ast_to_source_code  # noqa: F401
from ..conversion import not_to_static  # noqa: F401

__all__ = []
