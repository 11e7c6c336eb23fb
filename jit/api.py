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
``build_strategy`` is kept for the record.
"""
import contextlib
import os

from .static_function import StaticFunction
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

_KNOWN = {"full_graph", "property"}


def to_static(function=None, input_spec=None, build_strategy=None, backend=None, **kwargs):
    unknown = set(kwargs) - _KNOWN
    if unknown:
        raise TypeError(f"to_static() got unexpected keyword argument(s) {sorted(unknown)}")
    if backend not in (None, "CINN"):
        raise ValueError(f"to_static: backend must be None or 'CINN', got {backend!r}")
    full_graph = kwargs.get("full_graph")
    if full_graph is None:                 # Paddle 2.6: graph breaks allowed by default
        full_graph = not _fall_back_enabled()

    def decorate(fn):
        if isinstance(fn, Layer):
            fn.forward = StaticFunction(fn.forward, input_spec, build_strategy, backend,
                                        full_graph)
            return fn
        if isinstance(fn, StaticFunction) and input_spec is None:
            return fn
        return StaticFunction(fn, input_spec, build_strategy, backend, full_graph)

    if function is not None:
        return decorate(function)
    return decorate
