"""``len(x)`` goes through the runtime: for a static tensor whose first
dimension is unknown it is a runtime value (``shape`` + ``slice``), for a
tensor array its ``lod_array_length``.

    n = len(x)    ->    n = _jst.convert_len(x)
"""
import gast

from . import templates
from .base import Feature


class Len(Feature):
    """Len(x) -> convert_len(x)."""

    def leave_Call(self, node):
        if self.builtin(node.func, "len") and len(node.args) == 1 and not node.keywords \
                and not isinstance(node.args[0], gast.Starred):
            return templates.replace_expr("_jst.convert_len(x)", origin=node, x=node.args[0])
        return node
