"""``lst.append(v)`` and ``lst.pop()`` on a local list rebind the list, so a
list grown inside a loop is loop state; when the loop runs on a tensor
condition the runtime turns the list into a tensor array (``array_write``).
On a Python list the helpers mutate it in place, exactly as written.

    out.append(y)         ->    out = _jst.convert_append(out, y)
    y = out.pop()         ->    (out, y) = _jst.convert_pop(out)
    out.pop(0)            ->    (out, _jst_item_0) = _jst.convert_pop(out, 0)
"""
import gast

from . import templates
from .base import Feature


def _method_call(expr, method):
    """``(list name, call)`` when ``expr`` is ``<name>.<method>(...)``."""
    if (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) and
            expr.func.attr == method and isinstance(expr.func.value, gast.Name) and
            not expr.keywords and not any(isinstance(a, gast.Starred) for a in expr.args)):
        return expr.func.value.id, expr
    return None, None


class Lists(Feature):
    """List append/pop statements rebind the list (before calls are wrapped)."""

    def _local(self, name):
        sc = self.scope
        return sc is not None and name in (sc.params | sc.locals_)

    def enter_Expr(self, node):
        lst, call = _method_call(node.value, "append")
        if lst and self._local(lst) and len(call.args) == 1:
            return templates.replace("lst = _jst.convert_append(lst, v)", origin=node,
                                     lst=lst, v=call.args[0])[0]
        lst, call = _method_call(node.value, "pop")
        if lst and self._local(lst) and len(call.args) <= 1:
            return templates.replace("(lst, junk) = _jst.convert_pop(lst, args)", origin=node,
                                     lst=lst, junk=self.fresh("item"), args=call.args)[0]
        return node

    def enter_Assign(self, node):
        lst, call = _method_call(node.value, "pop")
        if lst and self._local(lst) and len(call.args) <= 1 and len(node.targets) == 1:
            return templates.replace("(lst, target) = _jst.convert_pop(lst, args)",
                                     origin=node, lst=lst, target=node.targets[0],
                                     args=call.args)[0]
        return node
