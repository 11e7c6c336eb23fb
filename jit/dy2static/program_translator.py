"""``paddle.jit.dy2static.program_translator``: ``ProgramTranslator``, the
singleton Paddle 2.x code uses to switch to_static on and off globally and to
get a function's static output, converted function, Program or converted
code; and the classes Paddle keeps in this module (``StaticFunction``,
``ConcreteProgram``, ``ProgramCache``).

``enable``/``enable_to_static`` are ``paddle.jit.enable_to_static``'s switch
(one switch, read by every StaticFunction).  The ``get_*`` methods convert
with sampan's own converter and program cache: the StaticFunction made for a
function is kept (weakly) so repeated calls reuse its programs.
"""
import threading
import warnings
import weakref

from ...ops import is_graph_value
from ...static.nn import nest
from ..static_function import StaticFunction, enable_to_static, to_static_enabled

_switch = enable_to_static          # the class's attribute of the same name shadows it
from ..tracing import ConcreteProgram  # noqa: F401
from ..program_cache import ProgramCache  # noqa: F401
from ..conversion import convert_function, converted_source

__all__ = ["ProgramTranslator", "StaticFunction", "ConcreteProgram", "ProgramCache",
           "enable_to_static", "convert_to_static"]


def convert_to_static(function):
    """The converted function of ``function`` (its control flow through the
    runtime helpers), cached per function."""
    return convert_function(_unwrap(function))


def _unwrap(function):
    if isinstance(function, StaticFunction):
        return function.dygraph_function
    return function


def _check_callable(function, method):
    if not callable(function):
        raise TypeError(f"ProgramTranslator.{method}: the input dygraph_func must be a "
                        f"callable, but received {type(function).__name__}")


class ProgramTranslator:
    """Translates dygraph functions into static graph functions (a singleton:
    ``ProgramTranslator() is ProgramTranslator.get_instance()``)."""

    _singleton_lock = threading.Lock()
    _instance = None

    def __new__(cls, *args, **kwargs):
        with cls._singleton_lock:
            if cls._instance is None:
                inst = object.__new__(cls)
                inst._static_functions = weakref.WeakKeyDictionary()
                cls._instance = inst
        return cls._instance

    @classmethod
    def get_instance(cls):
        return cls()

    @classmethod
    def reset(cls):
        """Forget the programs made through the translator; to_static enabled."""
        inst = cls()
        inst._static_functions = weakref.WeakKeyDictionary()
        _switch(True)

    # ------------------------------------------------------------- the switch
    @property
    def enable_to_static(self):
        return to_static_enabled()

    @enable_to_static.setter
    def enable_to_static(self, value):
        _switch(value)

    def enable(self, enable_to_static):
        """Turn converting to static graphs on or off globally: off, every
        ``to_static`` function runs its original (eager) code."""
        _switch(enable_to_static)

    # ------------------------------------------------------------- getters
    def _static_function(self, function):
        if isinstance(function, StaticFunction):
            return function
        key = getattr(function, "__func__", function)
        try:
            table = self._static_functions.setdefault(key, {})
        except TypeError:                    # not weakly referenceable
            return StaticFunction(function)
        owner = id(getattr(function, "__self__", None))
        sf = table.get(owner)
        if sf is None:
            sf = table[owner] = StaticFunction(function)
        return sf

    def _disabled(self, method):
        warnings.warn(f"ProgramTranslator.{method}: to_static is disabled "
                      f"(ProgramTranslator().enable(False)), the dygraph function runs as "
                      f"written", stacklevel=3)

    def get_output(self, dygraph_func, *args, **kwargs):
        """The outputs of ``dygraph_func(*args, **kwargs)``, computed by its
        static program (eagerly when to_static is disabled)."""
        _check_callable(dygraph_func, "get_output")
        if not to_static_enabled():
            self._disabled("get_output")
            return _unwrap(dygraph_func)(*args, **kwargs)
        return self._static_function(dygraph_func)(*args, **kwargs)

    def get_func(self, dygraph_func):
        """The converted function: called in static mode (under a
        ``program_guard``) it appends its ops to the current Program."""
        _check_callable(dygraph_func, "get_func")
        if not to_static_enabled():
            self._disabled("get_func")
            return dygraph_func
        return convert_to_static(dygraph_func)

    def get_program(self, dygraph_func, *args, **kwargs):
        """``(main_program, startup_program, inputs, outputs)`` of
        ``dygraph_func`` traced for these arguments: the Variables to feed and
        to fetch.  When to_static is disabled, the eager outputs."""
        _check_callable(dygraph_func, "get_program")
        if not to_static_enabled():
            self._disabled("get_program")
            return _unwrap(dygraph_func)(*args, **kwargs)
        concrete, _ = self._static_function(dygraph_func).get_concrete_program(*args,
                                                                               **kwargs)
        inputs = [v for v in nest.flatten(concrete.inputs) if is_graph_value(v)]
        outputs = [v for v in nest.flatten(concrete.outputs) if is_graph_value(v)]
        return concrete.main_program, concrete.startup_program, inputs, outputs

    def get_code(self, dygraph_func):
        """The converted source code of ``dygraph_func`` (a str)."""
        _check_callable(dygraph_func, "get_code")
        return converted_source(_unwrap(dygraph_func))
