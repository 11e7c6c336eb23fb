"""Which mode is active, and ``bind``: the one entry every public op function calls.

A mode handler is registered by ``sampan.dygraph`` (eager: run the kernel,
record a grad node) and later by ``sampan.static`` (append an Operator).  Only
this module asks which mode is active.  A handler receives the OpDef, the
inputs (one entry per input slot: a tensor-like, a list for duplicable slots,
or None) and the attributes as given (None = all defaults); it returns a tuple
with one entry per output slot.
"""
import threading

from .registry import OpError

_handlers = {"eager": None, "static": None}
_constants = {"eager": None, "static": None}   # array -> tensor of the mode (see constant)


def _no_handler(op, inputs, attrs):
    mode = "static" if _local.static else "eager"
    raise OpError(f"op '{op.type}': no handler for the {mode} mode is installed")


class _ThreadMode(threading.local):
    """The mode is per thread (as Paddle's): a thread tracing a to_static
    function does not turn another thread's eager code static.  A new thread
    starts eager."""

    def __init__(self):
        self.static = False
        self.current = _handlers["eager"] or _no_handler   # read by bind (hot path)


_local = _ThreadMode()


def set_mode_handler(mode, fn):
    if mode not in _handlers:
        raise ValueError(f"unknown mode '{mode}', expected one of {sorted(_handlers)}")
    _handlers[mode] = fn
    _local.current = _handlers["static" if _local.static else "eager"] or _no_handler


def set_static_mode(flag: bool):
    _local.static = flag = bool(flag)
    _local.current = _handlers["static" if flag else "eager"] or _no_handler


def in_static_mode() -> bool:
    return _local.static


def in_dynamic_mode() -> bool:
    return not _local.static


def bind(op, inputs, attrs=None):
    """Run (eager) or append (static) ``op`` on ``inputs`` with ``attrs``."""
    return _local.current(op, inputs, attrs)


def set_constant_handler(mode, fn):
    if mode not in _constants:
        raise ValueError(f"unknown mode '{mode}', expected one of {sorted(_constants)}")
    _constants[mode] = fn


def constant(array, stop_gradient=True, dtype=None):
    """A tensor holding a host array, converted to numpy ``dtype`` when given:
    eagerly the array itself, in a static Program an ``assign_value`` op (and a
    ``cast`` to ``dtype``), which is what Paddle's to_tensor appends there."""
    fn = _constants["static" if _local.static else "eager"]
    if fn is None:
        raise OpError("no constant handler for the active mode is installed")
    return fn(array, stop_gradient, dtype)
