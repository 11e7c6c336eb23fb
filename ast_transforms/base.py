"""Passes as features with hooks, run by one tree walk per pipeline step.

A ``Feature`` handles one language feature.  It declares hooks by node type:
``enter_<Type>(node)`` runs before the node's children are visited,
``leave_<Type>(node)`` after; either returns the node to keep, a replacement,
or (``leave`` only) a list of statements.  A ``Walk`` runs several features
in one traversal, applying their hooks in the order given, so features that
do not depend on each other's whole-tree results share a walk (the
pipeline says which).

The walk keeps ``path`` (``(parent, field, siblings, index)`` from the
module down to the node being visited, which liveness needs) and ``scope``
(facts of the innermost user function).
"""
import dataclasses

import gast

from . import anno
from .analysis import ScopeInfo, live_after

# Builtins the expression features rewrite; a function that rebinds one of
# these names (locally or in its module) keeps the call as written.
REWRITTEN_BUILTINS = ("print", "len", "int", "float", "bool", "isinstance", "super",
                      "range", "enumerate")


@dataclasses.dataclass
class Context:
    """What the passes know about the function being converted."""
    qualname: str = ""
    class_name: str = None            # for private-name mangling in methods
    shadowed: frozenset = frozenset()  # builtins rebound by the function's globals
    counter: int = 0

    def fresh(self, kind):
        self.counter += 1
        return f"_jst_{kind}_{self.counter - 1}"


_SUSPENDING = (gast.Yield, gast.YieldFrom, gast.Await)


def annotate_scopes(tree):
    """Record a ``ScopeInfo`` on every user function before any rewriting, and
    mark generators and coroutines to be left as written (their loops cannot
    become functions: a ``yield`` would move into the helper)."""
    for n in gast.walk(tree):
        if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef)) and \
                not anno.get(n, "generated"):
            anno.put(n, "scope", ScopeInfo(n))
            if isinstance(n, gast.AsyncFunctionDef) or any(
                    isinstance(m, _SUSPENDING) for m in _own(n)):
                anno.put(n, "as_written", True)


def _own(fn):
    stack = list(fn.body)
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda,
                              gast.ClassDef)):
            stack.extend(gast.iter_child_nodes(n))


class Feature:
    """Base of every pass: hooks plus access to the walk's path and scope."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.walk = None

    def fresh(self, kind):
        return self.ctx.fresh(kind)

    @property
    def scope(self):
        return self.walk.scope

    def live_after(self, names):
        """Which of ``names`` the code after the current statement may read."""
        sc = self.scope
        return live_after(self.walk.path, names, sc.always_live if sc is not None else ())

    def builtin(self, node, name):
        """Whether ``node`` (a call's func) is the builtin ``name`` as written."""
        if not (isinstance(node, gast.Name) and node.id == name):
            return False
        if name in self.ctx.shadowed:
            return False
        sc = self.scope
        return sc is None or name not in (sc.params | sc.locals_)


class Walk(gast.NodeTransformer):
    """One traversal applying the hooks of ``features`` (in order)."""

    def __init__(self, ctx, features):
        self.ctx = ctx
        self.features = [cls(ctx) for cls in features]
        for f in self.features:
            f.walk = self
        self.path = []
        self._scopes = []
        self._hooks = {}

    @property
    def scope(self):
        return self._scopes[-1] if self._scopes else None

    def _get(self, kind, name):
        key = (kind, name)
        hooks = self._hooks.get(key)
        if hooks is None:
            hooks = self._hooks[key] = [h for h in (getattr(f, f"{kind}_{name}", None)
                                                    for f in self.features) if h]
        return hooks

    def visit(self, node):
        if anno.get(node, "as_written"):       # generators, coroutines
            return node
        for hook in self._get("enter", type(node).__name__):
            node = hook(node)
        sc = anno.get(node, "scope") if isinstance(node, (gast.FunctionDef,
                                                          gast.AsyncFunctionDef)) else None
        if sc is not None:
            self._scopes.append(sc)
        try:
            node = self.generic_visit(node)
        finally:
            if sc is not None:
                self._scopes.pop()
        for hook in self._get("leave", type(node).__name__):
            node = hook(node)
            if isinstance(node, list):
                break
        return node

    def generic_visit(self, node):
        for field, old in gast.iter_fields(node):
            if isinstance(old, list):
                new = []
                for i, item in enumerate(old):
                    if not isinstance(item, gast.AST):
                        new.append(item)
                        continue
                    self.path.append((node, field, old, i))
                    try:
                        v = self.visit(item)
                    finally:
                        self.path.pop()
                    if v is None:
                        continue
                    if isinstance(v, list):
                        new.extend(v)
                    else:
                        new.append(v)
                old[:] = new
            elif isinstance(old, gast.AST):
                self.path.append((node, field, None, None))
                try:
                    v = self.visit(old)
                finally:
                    self.path.pop()
                setattr(node, field, v)
        return node


def walk(*features):
    """A pipeline step running ``features`` in one traversal."""
    def run(tree, ctx):
        return Walk(ctx, features).visit(tree)
    run.__name__ = "+".join(f.__name__ for f in features)
    return run
