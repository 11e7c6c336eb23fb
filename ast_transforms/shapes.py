"""Reading ``x.shape`` goes through the runtime: for a static tensor with
unknown dimensions the unknown entries are runtime values (``shape`` op
sliced), so ``x.shape[0]`` under a None batch dimension is the batch size
when the program runs; known dimensions stay Python ints.

    n = x.shape[0]    ->    n = _jst.convert_shape(x)[0]
"""
import gast

from . import templates
from .base import Feature


class Shape(Feature):
    """x.shape (read) -> convert_shape(x)."""

    def leave_Attribute(self, node):
        if node.attr == "shape" and isinstance(node.ctx, gast.Load):
            return templates.replace_expr("_jst.convert_shape(x)", origin=node, x=node.value)
        return node
