"""``for`` becomes a body function over (item, loop variables) and one
runtime call that iterates in Python (lists, tuples, ``range`` of ints, eager
tensors, any iterable) or builds a ``while_loop`` (``range`` with a static
tensor bound, a static tensor's first dimension, ``enumerate`` of one).

    for i, v in enumerate(xs):        def _jst_fn_body_1(_jst_item_0, s):
        s = s + v             ->          i, v = _jst_item_0
                                          s = s + v
                                          return (s,)
                                      (s,) = _jst.convert_for(
                                          _jst.convert_call(enumerate)(xs), None,
                                          _jst_fn_body_1, (s,), ('s',))

A loop the break pass wrapped as ``_jst.Until(xs, lambda: c)`` passes ``c``
as a condition function over the loop variables, checked before each next
item.  The target is a loop variable only if it is read after the loop.
"""
import gast

from . import anno, templates
from .analysis import reads
from .base import Feature
from .functionalize import make_fn, call_stmt
from .while_loops import loop_vars, cond_fn


def _until(it):
    """``(iterable, condition expr)`` of ``_jst.Until(xs, lambda: c)``."""
    if (isinstance(it, gast.Call) and isinstance(it.func, gast.Attribute) and
            it.func.attr == "Until" and isinstance(it.func.value, gast.Name) and
            it.func.value.id == anno.RUNTIME):
        return it.args[0], it.args[1].body
    return it, None


class ForLoops(Feature):
    """For -> convert_for."""

    def leave_For(self, node):
        iterable, cond = _until(node.iter)
        item = self.fresh("item")
        body = templates.replace("target = item", origin=node, target=node.target,
                                 item=item) + node.body
        lv = loop_vars(self, body, reads(cond) if cond is not None else set(), node.orelse)
        b = self.fresh("fn_body")
        fns = [make_fn(b, lv, body, lv, self.scope, node, lead=(item,))]
        c = gast.Constant(value=None, kind=None)
        if cond is not None:
            c = self.fresh("fn_cond")
            fns.insert(0, cond_fn(c, lv, cond, node))
        call = templates.replace_expr(
            "_jst.convert_for(it, c, b, args, names)", origin=node, it=iterable, c=c, b=b,
            args=templates.names_tuple(lv), names=templates.str_tuple(lv))
        return fns + call_stmt(lv, call, node) + node.orelse
