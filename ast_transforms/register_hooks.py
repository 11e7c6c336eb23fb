"""``y.register_hook(hook)`` statements move up to just after ``y`` is bound.

Eagerly a hook sees the whole gradient of ``y``, whatever the order of the
hook and the uses of ``y``.  In a static program the hook is an op that
rewrites ``y`` (static/variable_methods.py): only the uses after it are
hooked.  So, as Paddle's RegisterHookTransformer does, each statement
``<name>.register_hook(...)`` of a statement list moves to just after the
last earlier statement of that list that writes ``<name>`` (binds it, or sets
one of its attributes: ``y.stop_gradient = False``) or binds a name the
statement reads (the hook function itself); with none, to the top of the
list.

    y = x * 2                     y = x * 2
    z = y * y             ->      y = _jst.convert_register_hook(y, h)
    y.register_hook(h)            z = y * y

The statement also becomes an assignment to ``y`` (the runtime returns the
hooked value), so a hook registered in a branch or loop body on a tensor is
branch or loop state like any other write of ``y``.
"""
import gast

from . import anno, templates
from .base import Feature

__all__ = ["RegisterHooks"]

_BODIES = ("body", "orelse", "finalbody")


def _hooked_name(stmt):
    """``name`` when ``stmt`` is ``name.register_hook(...)``, else None."""
    if not isinstance(stmt, gast.Expr) or not isinstance(stmt.value, gast.Call):
        return None
    f = stmt.value.func
    if isinstance(f, gast.Attribute) and f.attr == "register_hook" and \
            isinstance(f.value, gast.Name):
        return f.value.id
    return None


def _writes(stmt):
    """Names ``stmt`` binds, and names whose attributes or items it sets."""
    out = set()
    if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        out.add(stmt.name)
        return out
    for n in gast.walk(stmt):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            out.add(n.id)
        elif isinstance(n, (gast.Attribute, gast.Subscript)) and \
                isinstance(n.ctx, gast.Store) and isinstance(n.value, gast.Name):
            out.add(n.value.id)
        elif isinstance(n, gast.alias):
            out.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)) \
                and n is not stmt:
            out.add(n.name)
    return out


def _reads(stmt):
    return {n.id for n in gast.walk(stmt) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)}


def reorder(body):
    """``body`` with each register_hook statement moved up (module doc)."""
    if not any(_hooked_name(s) is not None for s in body):
        return body
    body = list(body)
    i = 0
    while i < len(body):
        name = _hooked_name(body[i])
        if name is None:
            i += 1
            continue
        needs = _reads(body[i]) | {name}
        j = i - 1
        while j >= 0 and not (_writes(body[j]) & needs):
            j -= 1
        if j + 1 < i:
            body.insert(j + 1, body.pop(i))
        i += 1
    return [_as_assignment(s) if _hooked_name(s) is not None else s for s in body]


def _as_assignment(stmt):
    """``y.register_hook(args)`` -> ``y = _jst.convert_register_hook(y, args)``."""
    call = stmt.value
    name = call.func.value.id
    new = gast.Call(func=templates.replace_expr("_jst.convert_register_hook"),
                    args=[templates.name(name)] + list(call.args), keywords=call.keywords)
    assign = gast.Assign(targets=[templates.name(name, gast.Store)], value=new,
                         type_comment=None)
    gast.copy_location(assign, stmt)
    return anno.stamp(assign, stmt)


class RegisterHooks(Feature):
    """Every statement list of the function: hooks moved up."""

    def enter_FunctionDef(self, node):
        for n in gast.walk(node):
            for field in _BODIES:
                stmts = getattr(n, field, None)
                if isinstance(stmts, list) and stmts and isinstance(stmts[0], gast.stmt):
                    setattr(n, field, reorder(stmts))
        return node
