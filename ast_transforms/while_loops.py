"""``while`` becomes a condition function, a body function and one runtime
call that loops in Python (Python or eager condition) or builds a
``while_loop`` (the condition is, or becomes, a static tensor).

    while i < n:                      def _jst_fn_cond_0(i, s):
        s = s + i                         return i < n
        i = i + 1             ->      def _jst_fn_body_0(i, s):
                                          s = s + i
                                          i = i + 1
                                          return (i, s)
                                      (i, s) = _jst.convert_while_loop(
                                          _jst_fn_cond_0, _jst_fn_body_0, (i, s), ('i', 's'))

Loop variables are the names the body binds that are carried to the next
iteration (read before being bound in the body, or read by the condition)
or read after the loop.  A loop's ``else`` (no ``break`` left by now) runs
after it.
"""
from . import anno, templates
from .analysis import bound_in, exposed_reads, reads
from .base import Feature
from .functionalize import make_fn, call_stmt, state_order


def loop_vars(transformer, body, head_reads, orelse=()):
    """The names the loop carries: written in ``body`` and read by the next
    iteration, the loop's head, its ``else`` clause or the code after it."""
    written = bound_in(body)
    always = transformer.scope.always_live if transformer.scope is not None else set()
    carried = exposed_reads(body) | head_reads | always | exposed_reads(orelse)
    live = transformer.live_after(written)
    return state_order(n for n in written if n in carried or n in live)


def cond_fn(name, params, test, origin):
    """``def name(params): return test``."""
    fn = templates.replace("""
        def fn(params):
            return test
    """, fn=name, params=list(params), test=test)[0]
    anno.put(fn, "generated", True)
    return anno.stamp(fn, origin)


class WhileLoops(Feature):
    """While -> convert_while_loop."""

    def leave_While(self, node):
        lv = loop_vars(self, node.body, reads(node.test), node.orelse)
        c, b = self.fresh("fn_cond"), self.fresh("fn_body")
        fns = [cond_fn(c, lv, node.test, node), make_fn(b, lv, node.body, lv, self.scope, node)]
        call = templates.replace_expr(
            "_jst.convert_while_loop(c, b, args, names)", origin=node, c=c, b=b,
            args=templates.names_tuple(lv), names=templates.str_tuple(lv))
        return fns + call_stmt(lv, call, node) + node.orelse
