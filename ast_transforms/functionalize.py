"""Turning a block of statements into a helper function over explicit state,
the shape every control-flow pass generates:

    def _jst_fn_body_3(x, s):          # state in as parameters
        <block>
        return (x, s)                  # state out as a tuple

State the user's function shares with something else — variables its own
nested functions capture, and ``global``/``nonlocal`` names — must be written
where it lives the moment the block writes it, so the helper declares it and
copies the incoming value over (the copy matters when both branches of a
tensor ``if`` are traced one after the other):

    def _jst_fn_true_4(_jst_in_total):
        nonlocal total
        total = _jst_in_total
        total = total + x
        return (total,)
"""
import gast

from . import anno, templates
from .analysis import bound_in


def state_order(names):
    """One fixed order for state tuples (sorted: stable across runs)."""
    return sorted(names)


def make_fn(name, params, body, outs, scope, origin, lead=()):
    """``def name(*lead, *params): <threading> body; return tuple(outs)``."""
    shared = scope.always_live if scope is not None else set()
    written = bound_in(body) | set(outs)
    threaded = [n for n in state_order(written | set(params)) if n in shared]
    arg_names = list(lead) + [f"_jst_in_{p}" if p in threaded else p for p in params]
    prologue = []
    for n in threaded:
        prologue.append(gast.Global(names=[n]) if n in scope.globals
                        else gast.Nonlocal(names=[n]))
        if n in params:
            prologue += templates.replace("n = src", n=n, src=f"_jst_in_{n}")
    fn = templates.replace("""
        def fn(params):
            body
            return outs
    """, fn=name, params=arg_names, body=prologue + body,
                            outs=templates.names_tuple(outs))[0]
    anno.put(fn, "generated", True)
    return anno.stamp(fn, origin)


def call_stmt(outs, call, origin):
    """``(o1, o2) = call`` (or just ``call`` when nothing comes back)."""
    if not outs:
        return anno.stamp([gast.Expr(value=call)], origin)
    return templates.replace("outs = call", origin=origin,
                             outs=templates.names_tuple(outs, gast.Store), call=call)
