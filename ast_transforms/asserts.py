"""``assert`` and ``raise`` become runtime calls: a Python or eager value is
checked at once, a static tensor by the program.  The message stays lazy, as
in Python.  A ``raise`` in a branch of a tensor ``if`` fails the run only when
the run takes the branch (an ``assert`` op whose condition is false).

    assert x > 0, "x must be positive"
        ->  _jst.convert_assert(x > 0, lambda: "x must be positive")
    raise ValueError("bad") from e
        ->  _jst.convert_raise(ValueError("bad"), e)

A bare ``raise`` (re-raising in ``except``) stays as written.
"""
from . import templates
from .base import Feature


class Assert(Feature):
    """assert -> convert_assert, raise -> convert_raise."""

    def leave_Raise(self, node):
        if node.exc is None:
            return node
        if node.cause is None:
            return templates.replace("_jst.convert_raise(exc)", origin=node, exc=node.exc)[0]
        return templates.replace("_jst.convert_raise(exc, cause)", origin=node, exc=node.exc,
                                 cause=node.cause)[0]

    def leave_Assert(self, node):
        if node.msg is None:
            return templates.replace("_jst.convert_assert(test)", origin=node,
                                     test=node.test)[0]
        return templates.replace("_jst.convert_assert(test, msg)", origin=node,
                                 test=node.test, msg=templates.thunk(node.msg))[0]
