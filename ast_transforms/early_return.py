"""Early-return normalisation: the code after an ``if`` whose branch always
leaves the function moves into the other branch.

    if x > 0:                      if x > 0:
        return a          ->           return a
    y = x * 2                      else:
    return y                           y = x * 2
                                       return y

Afterwards most returns sit at the end of a branch (tail position), so the
return pass needs no flags for them, and an ``if`` on a tensor sees both
outcomes as branches.
"""
import gast

from .base import Feature

_BLOCKS = ("body", "orelse", "finalbody")


def _always_exits(stmts):
    """Whether every path through ``stmts`` ends in ``return`` or ``raise``."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (gast.Return, gast.Raise)):
        return True
    if isinstance(last, gast.If):
        return _always_exits(last.body) and _always_exits(last.orelse)
    return False


def normalise(stmts):
    for i, s in enumerate(stmts):
        if not isinstance(s, gast.If):
            continue
        rest = stmts[i + 1:]
        if not rest:
            break
        if _always_exits(s.body):
            if not _always_exits(s.orelse):
                s.orelse = normalise(s.orelse + rest)
            return stmts[:i + 1]
        if s.orelse and _always_exits(s.orelse):
            s.body = normalise(s.body + rest)
            return stmts[:i + 1]
    return stmts


class EarlyReturn(Feature):
    """``if ...: return`` followed by code becomes ``if/else``."""

    def _blocks(self, node):
        for field in _BLOCKS:
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                setattr(node, field, normalise(block))
        return node

    leave_FunctionDef = leave_AsyncFunctionDef = leave_If = leave_For = leave_While = \
        leave_With = leave_Try = leave_ExceptHandler = _blocks
