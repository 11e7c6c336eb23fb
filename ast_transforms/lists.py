"""``lst.append(v)`` and ``lst.pop()`` on a local list rebind the list, so a
list grown inside a loop is loop state; when the loop runs on a tensor
condition the runtime turns the list into a tensor array (``array_write``).
On a Python list the helpers mutate it in place, exactly as written.

    out.append(y)         ->    out = _jst.convert_append(out, y)
    y = out.pop()         ->    (out, y) = _jst.convert_pop(out)
    out.pop(0)            ->    (out, _jst_item_0) = _jst.convert_pop(out, 0)

Reading an item of such a list goes through the runtime too, since after
a loop on a tensor it may be a tensor array (``array_read``):

    out[-1]               ->    _jst.convert_getitem(out, -1)
    out[1:]               ->    _jst.convert_getitem(out, slice(1, None, None))

Writing an item rebinds the container (a list, dict or tensor written in a
branch or loop is then its state; a static tensor gets a new tensor):

    out[0] = y            ->    out = _jst.convert_setitem(out, 0, y)
    out[i] += y           ->    out = _jst.convert_setitem(out, i, out[i] + y)

So does an in-place method statement (a method name ending in ``_``): the
runtime keeps ``x`` where the call returns no tensor (another object's method)

    x.add_(y)             ->    x = _jst.convert_inplace(x, x.add_(y))
"""
import gast

from . import anno, templates
from .analysis import _own_nodes
from .base import Feature


def _method_call(expr, method):
    """``(list name, call)`` when ``expr`` is ``<name>.<method>(...)``."""
    if (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) and
            expr.func.attr == method and isinstance(expr.func.value, gast.Name) and
            not expr.keywords and not any(isinstance(a, gast.Starred) for a in expr.args)):
        return expr.func.value.id, expr
    return None, None


def _inplace_call(expr):
    """``name`` when ``expr`` calls an in-place method of a name (``x.add_(y)``,
    ``x.zero_()``: a public method whose name ends in ``_``)."""
    if isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) and \
            isinstance(expr.func.value, gast.Name):
        attr = expr.func.attr
        if attr.endswith("_") and not attr.startswith("_") and len(attr) > 1:
            return expr.func.value.id
    return None


def _grown(fn):
    """Names of ``fn`` whose ``append``/``pop`` methods it calls."""
    names = set()
    for n in _own_nodes(fn.body):
        for method in ("append", "pop"):
            lst, _ = _method_call(n, method)
            if lst:
                names.add(lst)
    return names


class Lists(Feature):
    """List append/pop statements rebind the list (before calls are wrapped);
    items of such lists are read through the runtime."""

    def enter_FunctionDef(self, node):
        sc = anno.get(node, "scope")
        if sc is not None:
            sc.grown_lists = _grown(node)
        return node

    enter_AsyncFunctionDef = enter_FunctionDef

    def enter_Subscript(self, node):
        sc = self.scope
        if not (isinstance(node.ctx, gast.Load) and isinstance(node.value, gast.Name) and
                node.value.id in getattr(sc, "grown_lists", ()) and self._local(node.value.id)):
            return node
        return templates.replace_expr("_jst.convert_getitem(lst, index)", origin=node,
                                      lst=node.value.id, index=self._index(node))

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
        name = _inplace_call(node.value)
        if name is not None and self._local(name):
            return templates.replace("x = _jst.convert_inplace(x, call)", origin=node, x=name,
                                     call=node.value)[0]
        return node

    def _index(self, node):
        """The subscript as an expression: slices (also inside a tuple index,
        ``x[:, 0]``) become ``slice(...)`` calls, which are valid outside ``[]``."""
        def expr(index):
            if isinstance(index, gast.Slice):
                none = gast.Constant(value=None, kind=None)
                return templates.replace_expr("slice(a, b, c)", origin=node,
                                              a=index.lower or none, b=index.upper or none,
                                              c=index.step or none)
            if isinstance(index, gast.Tuple) and any(isinstance(e, gast.Slice)
                                                      for e in index.elts):
                return gast.Tuple(elts=[expr(e) for e in index.elts], ctx=gast.Load())
            return index
        return expr(node.slice)

    def _item_target(self, target):
        """The container name when ``target`` is ``<local name>[...]``."""
        if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) and \
                self._local(target.value.id):
            return target.value.id
        return None

    def enter_AugAssign(self, node):
        name = self._item_target(node.target)
        index = node.target.slice if name else None
        # only an index that is safe to evaluate twice
        if name is None or not isinstance(index, (gast.Name, gast.Constant)):
            return node
        read = gast.Subscript(value=gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                              type_comment=None),
                              slice=index, ctx=gast.Load())
        value = gast.BinOp(left=read, op=node.op, right=node.value)
        return templates.replace("x = _jst.convert_setitem(x, index, value)", origin=node,
                                 x=name, index=index, value=value)[0]

    def enter_Assign(self, node):
        name = self._item_target(node.targets[0]) if len(node.targets) == 1 else None
        if name is not None:
            return templates.replace("x = _jst.convert_setitem(x, index, value)", origin=node,
                                     x=name, index=self._index(node.targets[0]),
                                     value=node.value)[0]
        lst, call = _method_call(node.value, "pop")
        if lst and self._local(lst) and len(call.args) <= 1 and len(node.targets) == 1:
            return templates.replace("(lst, target) = _jst.convert_pop(lst, args)",
                                     origin=node, lst=lst, target=node.targets[0],
                                     args=call.args)[0]
        return node
