"""``if``/``elif``/``else`` becomes two branch functions and one runtime call
that picks (a Python or eager condition) or builds a ``cond`` (a static
tensor condition).

    if x > 0:                         def _jst_fn_true_0(z):
        y = x + 1                         y = x + 1
        z = z + y             ->          z = z + y
    else:                                 return (y, z)
        y = -x                        def _jst_fn_false_1(z):
    return y, z                           y = -x
                                          return (y, z)
                                      (y, z) = _jst.convert_ifelse(x > 0, _jst_fn_true_0,
                                                  _jst_fn_false_1, (z,), ('y', 'z'))

Outputs are the names either branch binds that the code after the ``if``
may read (``live_after``); parameters are the bound names a branch reads
first, or must pass through because the other branch alone binds them.
Nested ifs are converted inside out, so ``elif`` chains come out nested.
``a if c else b`` becomes ``_jst.convert_ifexp(c, lambda: a, lambda: b)``.
"""

from . import templates
from .analysis import block_writes, bound_in, exposed_reads
from .base import Feature
from .functionalize import make_fn, call_stmt, state_order


class IfElse(Feature):
    """If statements and expressions -> convert_ifelse / convert_ifexp."""

    def leave_If(self, node):
        body, orelse = node.body, node.orelse
        written = bound_in(body) | bound_in(orelse)
        outs = state_order(self.live_after(written))
        passed = exposed_reads(body) | exposed_reads(orelse)
        sure = block_writes(body) & block_writes(orelse)
        always = self.scope.always_live if self.scope is not None else set()
        params = state_order(n for n in written if n in passed or n in always or
                             (n in outs and n not in sure))
        t, f = self.fresh("fn_true"), self.fresh("fn_false")
        fns = [make_fn(t, params, body, outs, self.scope, node),
               make_fn(f, params, orelse, outs, self.scope, node)]
        call = templates.replace_expr(
            "_jst.convert_ifelse(test, t, f, args, names)", origin=node, test=node.test,
            t=t, f=f, args=templates.names_tuple(params), names=templates.str_tuple(outs))
        return fns + call_stmt(outs, call, node)

    def leave_IfExp(self, node):
        return templates.replace_expr("_jst.convert_ifexp(test, a, b)", origin=node,
                                      test=node.test, a=templates.thunk(node.body),
                                      b=templates.thunk(node.orelse))
