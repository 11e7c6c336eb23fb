"""``break`` and ``continue`` become flag variables; the statements after them
run under a guard, and the loop condition checks the break flag.

    while x < 10:                     _jst_brk_0 = False
        x = x + 1                     while not _jst_brk_0 and x < 10:
        if x > y:             ->          x = x + 1
            break                         if x > y:
        z = z + x                             _jst_brk_0 = True
                                          if not _jst_brk_0:
                                              z = z + x

A ``for`` loop cannot carry an extra condition in its header, so its
iterable is wrapped: ``for i in _jst.Until(xs, lambda: not _jst_brk_0):``
stops before taking the next item once the lambda is false (plain Python
semantics); the ``for`` pass turns the lambda into the loop's condition.
``continue`` sets ``_jst_cont_<n>``, reset at the top of each iteration, and
guards the rest of the body the same way.  A loop's ``else`` runs when the
break flag is unset.
"""
import gast

from . import anno, templates
from .analysis import LOOPS, SCOPES
from .base import Feature

_BLOCKS = ("body", "orelse", "finalbody")


def _targets(stmts, kind):
    """Whether ``stmts`` hold a ``kind`` (Break/Continue) of this loop level."""
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, kind):
            return True
        if isinstance(n, LOOPS + SCOPES):
            continue
        stack.extend(gast.iter_child_nodes(n))
    return False


def _guard(stmts, flag, kind):
    """Replace this level's ``kind`` statements in ``stmts`` by ``flag = True``
    and run what follows a possible jump only while the flag is unset."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, kind):
            out += templates.replace("flag = True", origin=s, flag=flag)
            return out
        if not _targets([s], kind):
            out.append(s)
            continue
        for field in _BLOCKS:
            block = getattr(s, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                setattr(s, field, _guard(block, flag, kind))
        for h in getattr(s, "handlers", None) or []:
            h.body = _guard(h.body, flag, kind)
        out.append(s)
        rest = stmts[i + 1:]
        if rest:
            out += templates.replace("""
                        if not flag:
                            rest
                    """, origin=rest[0], flag=flag, rest=_guard(rest, flag, kind))
        return out
    return out


class BreakContinue(Feature):
    """break/continue -> flags and guards."""

    def leave_While(self, node):
        return self._loop(node)

    def leave_For(self, node):
        return self._loop(node)

    def _loop(self, node):
        before, after = [], []
        if _targets(node.body, gast.Continue):
            cont = self.fresh("cont")
            node.body = (templates.replace("cont = False", origin=node, cont=cont) +
                         _guard(node.body, cont, gast.Continue))
        if _targets(node.body, gast.Break):
            brk = self.fresh("brk")
            node.body = _guard(node.body, brk, gast.Break)
            before = templates.replace("brk = False", origin=node, brk=brk)
            if isinstance(node, gast.While):
                node.test = templates.replace_expr("not brk and test", origin=node.test,
                                                   brk=brk, test=node.test)
            else:
                node.iter = templates.replace_expr("_jst.Until(it, lambda: not brk)",
                                                   origin=node.iter, it=node.iter, brk=brk)
                anno.put(node.iter.args[1], "generated", True)
            if node.orelse:
                after = templates.replace("""
                            if not brk:
                                orelse
                        """, origin=node.orelse[0], brk=brk, orelse=node.orelse)
                node.orelse = []
        return before + [node] + after
