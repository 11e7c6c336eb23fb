"""Variables first bound inside a branch or loop start as an undefined marker,
so they can be handed to branch and loop functions before Python has bound
them; reading one that no path bound raises a clear error naming it.

    def f(x):                         def f(x):
        if x > 0:                         y = _jst.Undefined('y')
            y = 1             ->          if x > 0:
        return y                              y = 1
                                          return y

Only names the function might not have bound yet are marked: those bound
inside an ``if``/``while``/``for`` and not surely bound by an earlier
top-level statement.  Parameters, ``global`` and ``nonlocal`` names are never
touched (the marker would overwrite the outer binding).
"""
import gast

from . import anno, templates
from .analysis import bound_in, definite_writes
from .base import Feature

_CONTROL = (gast.If, gast.While, gast.For, gast.Try, gast.With)


class UndefinedVars(Feature):
    """Undefined markers for names bound only inside control flow (runs on
    entering a function, before its branches and loops are converted)."""

    def enter_FunctionDef(self, node):
        sc = anno.get(node, "scope")
        if sc is None:
            return node
        skip = sc.params | sc.globals | sc.nonlocals
        done, need = set(), []
        for s in node.body:
            if isinstance(s, _CONTROL):      # (names it surely binds need no marker)
                for n in sorted(bound_in(s) - done - skip - definite_writes(s)):
                    if n not in need and not anno.is_plumbing(n):
                        need.append(n)
            done |= definite_writes(s)
        inits = []
        for n in need:
            inits += templates.replace("n = _jst.Undefined(label)", origin=node, n=n,
                                       label=gast.Constant(value=n, kind=None))
        node.body = _after_docstring(node.body, inits)
        last = node.body[-1] if node.body else None
        if isinstance(last, gast.Return) and isinstance(last.value, gast.Name) and \
                last.value.id in need:        # `return y` of an unbound y must raise
            last.value = templates.replace_expr("_jst.ret(v)", origin=last, v=last.value)
        return node

    enter_AsyncFunctionDef = enter_FunctionDef


def _after_docstring(body, stmts):
    if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[:1] + stmts + body[1:]
    return stmts + body
