"""The conversion pipeline: the passes, in the order they run.

Each step is one walk over the tree; features that do not need each
other's whole-tree results share a walk (their hooks run in the order
listed).  Canonicalisation comes first, so control-flow conversion only
ever sees ``if``, ``while`` and ``for`` with no ``return``/``break``/
``continue`` inside; then the expression rewrites (they must see user calls
before control-flow conversion wraps code in helper functions); then control
flow, innermost construct first.
"""
from . import anno
from .base import Context, annotate_scopes, walk
from .closures import Closures
from .register_hooks import RegisterHooks
from .early_return import EarlyReturn
from .return_statements import ReturnStatements
from .break_continue import BreakContinue
from .logical import Logical
from .asserts import Assert
from .prints import Print
from .casts import Casts
from .lengths import Len
from .isinstance_checks import IsInstance
from .shapes import Shape
from .lists import Lists
from .calls import Calls
from .undefined import UndefinedVars
from .ifelse import IfElse
from .while_loops import WhileLoops
from .for_loops import ForLoops


def _scopes(tree, ctx):
    annotate_scopes(tree)
    return tree


PIPELINE = (
    # what a method lost by leaving its class: zero-argument super(), private names;
    # y.register_hook(...) moved up to y's assignment (ast_transforms/register_hooks.py)
    ("closures", walk(Closures, RegisterHooks)),
    # facts per user function (parameters, globals, captured names), taken
    # before any rewriting adds names
    ("scopes", _scopes),
    # canonicalise returns: `if c: return` + rest -> if/else, then one exit
    # (flags; a return inside a loop also breaks out of it)
    ("returns", walk(EarlyReturn, ReturnStatements)),
    # canonicalise break/continue (the returns' breaks included): flags + guards
    ("break_continue", walk(BreakContinue)),
    # expressions, each feature through its runtime helper; lists rebind on
    # entry (before their calls are wrapped); every other call last
    ("expressions", walk(Logical, Assert, Print, Casts, Len, IsInstance, Shape, Lists,
                         Calls)),
    # control flow: undefined markers on entering each function (they must see
    # the branches and loops), then if / while / for, innermost first
    ("control_flow", walk(UndefinedVars, IfElse, WhileLoops, ForLoops)),
)

PASS_NAMES = tuple(name for name, _ in PIPELINE)


def run(tree, ctx, after_each=None):
    """Run every step over ``tree`` (a gast Module holding one function);
    ``after_each(index, name, tree)`` sees the tree after each step (1-based)."""
    for i, (name, step) in enumerate(PIPELINE, 1):
        tree = step(tree, ctx)
        if after_each is not None:
            after_each(i, name, tree)
    anno.inherit_origins(tree)
    return tree


__all__ = ["PIPELINE", "PASS_NAMES", "Context", "run"]
