"""A value requested from a static Variable while its program is being built.

A Program's Variables have no values until the program runs, so reading one
(``.numpy()``, ``.item()``, ``float(v)``, ``int(v)``, ``v.tolist()``, a numpy
call that converts it) cannot be answered while building.  The request raises
``ValueRequest``: a ``TypeError`` (what Paddle raises in static mode) that
also names the variable, the kind of read and the user's source line, so
to_static can turn it into a graph break (its default ``full_graph=False``)
or into a clear error (``full_graph=True``).
"""
import contextlib
import threading

from .location import user_location

__all__ = ["ValueRequest", "ListValueRequest", "request_value", "resolving"]


class ValueRequest(TypeError):
    """Raised by a value read on a static Variable during program building."""

    def __init__(self, var_name, reason, location):
        self.var_name = var_name
        self.reason = reason
        self.location = location
        where = f" at {location.filename}:{location.lineno}" if location is not None else ""
        super().__init__(f"static Variable '{var_name}' has no value while the program is "
                         f"being built ({reason}{where}); fetch it with "
                         f"Executor.run(fetch_list=[...])")


class ListValueRequest(ValueRequest, AssertionError):
    """``tolist()`` of a Variable: also the AssertionError Paddle raises there."""

    def __init__(self, var_name, reason, location=None):
        super().__init__(var_name, reason, location)
        self.args = (self.args[0] + "; tolist() works in dynamic graph mode only",)


class _Resolver(threading.local):
    fn = None


_resolver = _Resolver()


@contextlib.contextmanager
def resolving(fn):
    """While active on this thread, a value read calls ``fn(var, reason,
    location)`` for the value (a numpy array) instead of raising: how
    ``jit.save`` traces past reads that its InputSpecs decide
    (jit/spec_values.py).  ``fn`` may raise the ValueRequest itself."""
    prev = _resolver.fn
    _resolver.fn = fn
    try:
        yield
    finally:
        _resolver.fn = prev


def request_value(var, reason, cls=ValueRequest):
    """The value of ``var`` where a resolver is active (``resolving``); else
    raise the ValueRequest of reading it (``reason``: how it was read)."""
    fn = _resolver.fn
    if fn is not None:
        return fn(var, reason, user_location(), cls)
    raise cls(var.name, reason, user_location())
