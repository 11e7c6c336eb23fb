"""``paddle.jit.to_static``: the decorator.

    @to_static                      # bare
    @to_static(input_spec=[...])    # with arguments
    to_static(fn) / to_static(obj.method) / to_static(layer)

On a Layer, its ``forward`` is replaced by a StaticFunction bound to it and
the Layer itself is returned.  ``full_graph=False`` lets a call whose trace
needs a tensor's value run as eager code (a graph break, jit/graph_break.py);
``full_graph=True`` makes that an error.  Not given, it is decided when the
function is decorated, as Paddle 2.6 does: False unless the environment
variable ``ENABLE_FALL_BACK`` is false (``sot_mode_guard(False)`` sets it for a
block).  ``backend`` must be None (or "CINN", accepted and ignored);
``build_strategy`` is kept for the record.  ``check=True`` (or a number of
calls, or a dict of options; default: the global ``jit.set_check`` switch)
compares the first calls with the eager function (jit/check.py).
"""
import contextlib
import os

from .static_function import StaticFunction
from .check import CheckedStaticFunction, check_options
from ..nn.layer.layers import Layer

__all__ = ["to_static", "sot_mode_guard"]

_FALL_BACK = "ENABLE_FALL_BACK"


def _fall_back_enabled():
    return os.environ.get(_FALL_BACK, "true").strip().lower() not in ("0", "false", "off", "no")


@contextlib.contextmanager
def sot_mode_guard(value: bool):
    """Paddle's switch between its graph-breaking (SOT) and whole-program (AST)
    to_static for functions decorated inside the block without ``full_graph``."""
    prev = os.environ.get(_FALL_BACK)
    os.environ[_FALL_BACK] = "true" if value else "false"
    try:
        yield
    finally:
        if prev is None:
            os.environ.pop(_FALL_BACK, None)
        else:
            os.environ[_FALL_BACK] = prev

_KNOWN = {"full_graph", "property", "check"}


def to_static(function=None, input_spec=None, build_strategy=None, backend=None, **kwargs):
    unknown = set(kwargs) - _KNOWN
    if unknown:
        raise TypeError(f"to_static() got unexpected keyword argument(s) {sorted(unknown)}")
    if backend not in (None, "CINN"):
        raise ValueError(f"to_static: backend must be None or 'CINN', got {backend!r}")
    full_graph = kwargs.get("full_graph")
    if full_graph is None:                 # Paddle 2.6: graph breaks allowed by default
        full_graph = not _fall_back_enabled()

    # the equivalence check (jit/check.py), decided once here: unchecked
    # functions get a plain StaticFunction and pay nothing for the feature
    check = check_options(kwargs.get("check"))
    cls = StaticFunction if check is None else CheckedStaticFunction
    extra = {} if check is None else {"check": check}

    def decorate(fn):
        if isinstance(fn, Layer):
            fn.forward = cls(fn.forward, input_spec, build_strategy, backend, full_graph,
                             **extra)
            return fn
        if isinstance(fn, StaticFunction) and input_spec is None and \
                (check is None or isinstance(fn, CheckedStaticFunction)):
            return fn
        return cls(fn, input_spec, build_strategy, backend, full_graph, **extra)

    if function is not None:
        return decorate(function)
    return decorate
