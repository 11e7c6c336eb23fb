"""Every call goes through ``convert_call``, which at run time converts user
functions, methods and Layers (recursively, cached) and hands back builtins,
sampan, numpy and ignored modules untouched.

    y = helper(x, k=2)    ->    y = _jst.convert_call(helper)(x, k=2)

Calls to the runtime itself and ``super(...)`` are left alone.
"""
import gast

from . import anno, templates
from .base import Feature


def _is_runtime(func):
    while isinstance(func, gast.Attribute):
        func = func.value
    return isinstance(func, gast.Name) and (func.id == anno.RUNTIME or
                                            anno.is_plumbing(func.id))


class Calls(Feature):
    """F(...) -> convert_call(f)(...)."""

    def leave_Call(self, node):
        if _is_runtime(node.func) or (isinstance(node.func, gast.Name) and
                                      node.func.id == "super"):
            return node
        node.func = templates.replace_expr("_jst.convert_call(f)", origin=node.func,
                                           f=node.func)
        return node
