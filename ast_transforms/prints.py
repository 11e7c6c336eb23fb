"""``print`` goes through the runtime: Python values print at once, static
tensors get a print op that prints their value when the program runs.

    print("loss", loss)    ->    _jst.convert_print("loss", loss)
"""
from . import templates
from .base import Feature


class Print(Feature):
    """Print(...) -> convert_print(...)."""

    def leave_Call(self, node):
        if self.builtin(node.func, "print"):
            node.func = templates.replace_expr("_jst.convert_print", origin=node.func)
        return node
