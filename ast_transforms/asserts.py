"""``assert`` becomes a runtime call: a Python or eager value is checked at
once, a static tensor by the program.  The message stays lazy, as in Python.

    assert x > 0, "x must be positive"
        ->  _jst.convert_assert(x > 0, lambda: "x must be positive")
"""
from . import templates
from .base import Feature


class Assert(Feature):
    """assert -> convert_assert."""

    def leave_Assert(self, node):
        if node.msg is None:
            return templates.replace("_jst.convert_assert(test)", origin=node,
                                     test=node.test)[0]
        return templates.replace("_jst.convert_assert(test, msg)", origin=node,
                                 test=node.test, msg=templates.thunk(node.msg))[0]
