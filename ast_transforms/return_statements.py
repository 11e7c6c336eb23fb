"""Single exit: every ``return`` becomes an assignment, and the function ends
with one ``return``.

Returns at the end of branches (after early-return normalisation, the usual
case) only assign the value:

    if x > 0:                         _jst_ret_val = None
        return a              ->      if x > 0:
    else:                                 _jst_ret_val = a
        return b                      else:
                                          _jst_ret_val = b
                                      return _jst_ret_val

A return anywhere else (inside a loop, before more code) also sets a flag;
inside a loop it breaks out (the break pass then guards the rest of the
body and the loop condition), and code after a statement that may have
returned runs only while the flag is unset:

    for i in range(n):                _jst_ret_flag = False
        if x[i] > 0:                  _jst_ret_val = _jst.Undefined('return value')
            return i          ->      for i in range(n):
    return -1                             if x[i] > 0:
                                              _jst_ret_flag = True
                                              _jst_ret_val = i
                                              break
                                      if not _jst_ret_flag:
                                          _jst_ret_flag = True
                                          _jst_ret_val = -1
                                      return _jst.ret(_jst_ret_val)

Because branches and loop bodies become functions later, no ``return`` of
the user's may stay inside them.
"""
import gast

from . import anno, templates
from .analysis import LOOPS, SCOPES
from .base import Feature


def _own(stmts, kinds):
    """Nodes of ``kinds`` in ``stmts`` that belong to this function."""
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            yield n
        if isinstance(n, SCOPES):
            continue
        stack.extend(gast.iter_child_nodes(n))


def _tail_returns(stmts):
    if not stmts:
        return set()
    last = stmts[-1]
    if isinstance(last, gast.Return):
        return {id(last)}
    if isinstance(last, gast.If):
        return _tail_returns(last.body) | _tail_returns(last.orelse)
    if isinstance(last, (gast.With, gast.AsyncWith)):
        return _tail_returns(last.body)
    return set()


def _value(ret):
    return ret.value if ret.value is not None else gast.Constant(value=None, kind=None)


class _AssignTails(gast.NodeTransformer):
    def visit_Return(self, node):
        return templates.replace("_jst_ret_val = value", origin=node, value=_value(node))

    def _skip(self, node):
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = _skip


class ReturnStatements(Feature):
    """Returns become assignments (and flags where needed)."""

    def leave_FunctionDef(self, node):
        if anno.get(node, "generated") or any(_own(node.body, (gast.Yield, gast.YieldFrom))):
            return node
        returns = list(_own(node.body, gast.Return))
        if not returns or (len(returns) == 1 and node.body[-1] is returns[0]):
            return node
        tails = _tail_returns(node.body)
        if all(id(r) in tails for r in returns):
            body = _AssignTails().visit(gast.Module(body=node.body, type_ignores=[])).body
            node.body = (templates.replace("_jst_ret_val = None", origin=node) + body +
                         templates.replace("return _jst_ret_val", origin=returns[-1]))
            return node
        node.body = (templates.replace("""
                         _jst_ret_flag = False
                         _jst_ret_val = _jst.Undefined('return value')
                     """, origin=node) +
                     self._rewrite(node.body, False) +
                     templates.replace("return _jst.ret(_jst_ret_val)", origin=returns[-1]))
        return node

    leave_AsyncFunctionDef = leave_FunctionDef

    # ------------------------------------------------------------- flag mode
    def _rewrite(self, stmts, in_loop):
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, gast.Return):
                out += templates.replace("""
                            _jst_ret_flag = True
                            _jst_ret_val = value
                        """, origin=s, value=_value(s))
                if in_loop:
                    out.append(anno.stamp(gast.Break(), s))
                return out                       # the rest of the block is dead
            if not any(_own([s], gast.Return)):
                out.append(s)
                continue
            out.append(self._compound(s, in_loop))
            rest = stmts[i + 1:]
            if in_loop:
                if isinstance(s, LOOPS):         # leave the enclosing loop too
                    out += templates.replace("""
                                if _jst_ret_flag:
                                    break
                            """, origin=s)
                out += self._rewrite(rest, in_loop)
            elif rest:
                out += templates.replace("""
                            if not _jst_ret_flag:
                                rest
                        """, origin=rest[0], rest=self._rewrite(rest, False))
            return out
        return out

    def _compound(self, s, in_loop):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                inner = in_loop or (isinstance(s, LOOPS) and field == "body")
                setattr(s, field, self._rewrite(block, inner))
        for h in getattr(s, "handlers", None) or []:
            h.body = self._rewrite(h.body, in_loop)
        return s
