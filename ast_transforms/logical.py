"""``and``/``or``/``not`` go through runtime helpers; operands after the
first are wrapped in lambdas, so Python's short-circuit is kept whenever the
operands are Python values.

    a and b or not c    ->    _jst.convert_logical_or(
                                  lambda: _jst.convert_logical_and(lambda: a, lambda: b),
                                  lambda: _jst.convert_logical_not(c))

An operand holding a walrus, ``yield`` or ``await`` would change meaning
inside a lambda; such an expression is left as written.
"""
import gast

from . import templates
from .base import Feature

_NOT_IN_LAMBDA = (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)


class Logical(Feature):
    """Logical operators -> convert_logical_*."""

    def leave_BoolOp(self, node):
        if any(isinstance(n, _NOT_IN_LAMBDA) for v in node.values for n in gast.walk(v)):
            return node
        template = "_jst.convert_logical_and(operands)" if isinstance(node.op, gast.And) \
            else "_jst.convert_logical_or(operands)"
        return templates.replace_expr(template, origin=node,
                                      operands=[templates.thunk(v) for v in node.values])

    def leave_UnaryOp(self, node):
        if not isinstance(node.op, gast.Not):
            return node
        return templates.replace_expr("_jst.convert_logical_not(x)", origin=node,
                                      x=node.operand)
