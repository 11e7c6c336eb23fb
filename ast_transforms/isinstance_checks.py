"""``isinstance`` goes through the runtime, so a static Variable counts as a
``Tensor`` while the program is being built (the same code then takes the
same path eagerly and in static mode).

    isinstance(x, paddle.Tensor)    ->    _jst.convert_isinstance(x, paddle.Tensor)
"""
import gast

from . import templates
from .base import Feature


class IsInstance(Feature):
    """Isinstance(a, b) -> convert_isinstance(a, b)."""

    def leave_Call(self, node):
        if self.builtin(node.func, "isinstance") and len(node.args) == 2 and \
                not node.keywords and not any(isinstance(a, gast.Starred) for a in node.args):
            node.func = templates.replace_expr("_jst.convert_isinstance", origin=node.func)
        return node
