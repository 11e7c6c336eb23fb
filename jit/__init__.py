"""``sampan.jit``: ``to_static`` (StaticFunction, the conversion and program
caches, the partial program that runs converted programs for eager callers),
``save``/``load`` (TranslatedLayer) and the error mapping back to user source."""
from .api import to_static
from .static_function import StaticFunction, enable_to_static
from .save import save, load, TranslatedLayer  # noqa: F401 (H6)
from .conversion import not_to_static, ignore_module, set_code_level, set_verbosity
from . import py_layer as _py_layer  # noqa: F401,E402  (PyLayer.apply in programs)
from . import dy2static  # noqa: F401,E402  (Paddle's converter names, ProgramTranslator)
from .dy2static import ProgramTranslator  # noqa: F401,E402  (paddle.jit.ProgramTranslator of 2.x)
api.ProgramTranslator = ProgramTranslator  # Paddle 2.6 code reaches it as paddle.jit.api's
from .explain import explain  # noqa: F401,E402  (sampan extension: graph-break report)
from .graph_break import GraphBreakError  # noqa: F401,E402
from .check import set_check, EquivalenceError, EquivalenceWarning  # noqa: F401,E402 (check)
from .report import report  # noqa: F401,E402 (sampan extension: conversion report)
from .save_verify import SaveVerificationError  # noqa: F401,E402 (jit.save(verify=True))
from .symbols import symbolic_shape  # noqa: F401,E402 (sampan extension: symbolic dims)

__all__ = ["to_static", "StaticFunction", "enable_to_static", "not_to_static",
           "ignore_module", "set_code_level", "set_verbosity", "save", "load",
           "TranslatedLayer"]
