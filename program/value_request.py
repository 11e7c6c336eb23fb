"""A value requested from a static Variable while its program is being built.

A Program's Variables have no values until the program runs, so reading one
(``.numpy()``, ``.item()``, ``float(v)``, ``int(v)``, ``v.tolist()``, a numpy
call that converts it) cannot be answered while building.  The request raises
``ValueRequest``: a ``TypeError`` (what Paddle raises in static mode) that
also names the variable, the kind of read and the user's source line, so
to_static can turn it into a graph break (its default ``full_graph=False``)
or into a clear error (``full_graph=True``).
"""
from .location import user_location

__all__ = ["ValueRequest", "ListValueRequest", "request_value"]


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


def request_value(var, reason, cls=ValueRequest):
    """Raise the ValueRequest of reading ``var`` (``reason``: how it was read)."""
    raise cls(var.name, reason, user_location())
