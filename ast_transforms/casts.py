"""Casts of one value, ``int(x)``/``float(x)``/``bool(x)``, go through the
runtime: Python values convert as usual, a static tensor becomes a ``cast``
op (int32, float32, bool, as in Paddle).

    n = int(x)    ->    n = _jst.convert_var_dtype(x, 'int')
"""
import gast

from . import templates
from .base import Feature

_CASTS = ("int", "float", "bool")


class Casts(Feature):
    """Int()/float()/bool() of one value -> convert_var_dtype."""

    def leave_Call(self, node):
        if len(node.args) != 1 or node.keywords or isinstance(node.args[0], gast.Starred):
            return node
        for kind in _CASTS:
            if self.builtin(node.func, kind):
                return templates.replace_expr("_jst.convert_var_dtype(x, kind)", origin=node,
                                              x=node.args[0],
                                              kind=gast.Constant(value=kind, kind=None))
        return node
