"""What a method loses when its source is compiled again outside its class,
given back:

- zero-argument ``super()`` needs the ``__class__`` cell of the class body,
  so it is spelled out (``__class__`` then becomes a free variable the
  converted function takes from the original's closure):

      super().forward(x)    ->    super(__class__, self).forward(x)

- private names (``self.__w``) were mangled by the class body's compiler, so
  they are mangled here by the same rule (``self._Net__w``).

Nested functions, closures and ``nonlocal`` need no rewriting of their own:
the converted function is built on the original's closure cells, and the
control-flow passes thread ``nonlocal``/``global`` and captured variables
through branches and loops (see ``functionalize``).
"""
import gast

from .base import Feature


def mangle(name, class_name):
    if not class_name or not name.startswith("__") or name.endswith("__") or "." in name:
        return name
    stripped = class_name.lstrip("_")
    return f"_{stripped}{name}" if stripped else name


class Closures(Feature):
    """Explicit super(), mangled private names."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self._self_name = None

    def enter_FunctionDef(self, node):
        if self._self_name is None:          # the converted function itself
            args = node.args.posonlyargs + node.args.args
            self._self_name = args[0].id if args else ""
        return node

    def leave_Call(self, node):
        if (isinstance(node.func, gast.Name) and node.func.id == "super" and
                not node.args and not node.keywords and self._self_name and
                self.ctx.class_name):
            node.args = [gast.Name(id="__class__", ctx=gast.Load(), annotation=None,
                                   type_comment=None),
                         gast.Name(id=self._self_name, ctx=gast.Load(), annotation=None,
                                   type_comment=None)]
        return node

    def leave_Attribute(self, node):
        node.attr = mangle(node.attr, self.ctx.class_name)
        return node

    def leave_Name(self, node):
        node.id = mangle(node.id, self.ctx.class_name)
        return node
