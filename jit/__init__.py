"""``sampan.jit``: ``to_static`` (StaticFunction, the conversion and program
caches, the partial program that runs converted programs for eager callers),
``save``/``load`` (TranslatedLayer) and the error mapping back to user source."""
from .api import to_static
from .static_function import StaticFunction, enable_to_static
from .save import save, load, TranslatedLayer  # noqa: F401 (H6)
from .conversion import not_to_static, ignore_module, set_code_level, set_verbosity
from . import py_layer as _py_layer  # noqa: F401,E402  (PyLayer.apply in programs)

__all__ = ["to_static", "StaticFunction", "enable_to_static", "not_to_static",
           "ignore_module", "set_code_level", "set_verbosity", "save", "load",
           "TranslatedLayer"]
