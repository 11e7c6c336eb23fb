"""Code generation from AST templates.

A template is ordinary Python source whose placeholder names are replaced by
nodes, names or lists of nodes: the template is parsed once (cached), copied,
and substituted node by node, so generated code is never assembled from
strings of user code.

    replace('''
        def fn(params):
            body
            return outs
    ''', fn="_jst_fn_true_0", params=["x", "y"], body=stmts, outs=tuple_node)

Substitution rules for a placeholder ``p``:

- a ``str`` renames it (``Name`` ids, ``FunctionDef`` names, parameter names);
- a node replaces it (copied; a Name/Tuple/List gets the placeholder's ctx);
- a list replaces it inside a list field (statements where ``p`` stands as
  an expression statement, parameters, call arguments, tuple elements); a
  list of ``str`` in a parameter list gives parameters of those names.
"""
import functools
import textwrap

import gast

from . import anno


@functools.lru_cache(maxsize=None)
def _parse(template):
    return gast.parse(textwrap.dedent(template))


def clone(node):
    """A fresh copy of a template tree (templates carry no annotations, so
    this is much cheaper than ``copy.deepcopy``)."""
    if isinstance(node, list):
        return [clone(n) for n in node]
    if not isinstance(node, gast.AST):
        return node
    new = type(node)(**{f: clone(getattr(node, f, None)) for f in node._fields})
    for a in node._attributes:
        if hasattr(node, a):
            setattr(new, a, getattr(node, a))
    return new


def _with_ctx(node, ctx):
    if isinstance(node, (gast.Name, gast.Tuple, gast.List, gast.Starred)):
        node.ctx = ctx()
        for e in getattr(node, "elts", ()):
            _set_ctx(e, ctx)
        if isinstance(node, gast.Starred):
            _set_ctx(node.value, ctx)
    return node


def _set_ctx(node, ctx):
    if isinstance(node, (gast.Name, gast.Tuple, gast.List, gast.Starred)):
        node.ctx = ctx()
        for e in getattr(node, "elts", ()):
            _set_ctx(e, ctx)
        if isinstance(node, gast.Starred):
            _set_ctx(node.value, ctx)


def name(id_, ctx=gast.Load):
    return gast.Name(id=id_, ctx=ctx(), annotation=None, type_comment=None)


def names_tuple(ids, ctx=gast.Load):
    return gast.Tuple(elts=[name(i, ctx) for i in ids], ctx=ctx())


def str_tuple(strings):
    return gast.Tuple(elts=[gast.Constant(value=s, kind=None) for s in strings],
                      ctx=gast.Load())


class _Replacer(gast.NodeTransformer):
    """Substitutes placeholders; a node given for a placeholder is moved into
    the result (copied only when the template uses it again)."""

    def __init__(self, subs):
        self.subs = subs
        self.used = set()

    def _node(self, v, ctx):
        if id(v) in self.used:
            v = anno.copy_node(v)
        self.used.add(id(v))
        return _with_ctx(v, ctx)

    def _value(self, node, ctx):
        v = self.subs[node.id]
        if isinstance(v, str):
            return name(v, ctx)
        if isinstance(v, list):
            return [name(x, ctx) if isinstance(x, str) else self._node(x, ctx) for x in v]
        return self._node(v, ctx)

    def visit_Name(self, node):
        if node.id in self.subs:
            return self._value(node, type(node.ctx))
        return node

    def visit_Expr(self, node):
        if isinstance(node.value, gast.Name) and node.value.id in self.subs:
            v = self.subs[node.value.id]
            if isinstance(v, list) and all(isinstance(s, gast.stmt) for s in v):
                return list(v)
        return self.generic_visit(node)

    def visit_FunctionDef(self, node):
        v = self.subs.get(node.name)
        if isinstance(v, str):
            node.name = v
        return self.generic_visit(node)


def thunk(expr):
    """``lambda: expr`` (marked as generated: it runs where it stands, so the
    analysis does not count it as a closure)."""
    lam = gast.Lambda(args=gast.arguments(args=[], posonlyargs=[], vararg=None,
                                          kwonlyargs=[], kw_defaults=[], kwarg=None,
                                          defaults=[]),
                      body=expr)
    anno.put(lam, "generated", True)
    return anno.stamp(lam, expr)


def replace(template, origin=None, **subs):
    """The template's statements with placeholders substituted; generated nodes
    get the origin of ``origin`` (the construct they stand for)."""
    out = []
    replacer = _Replacer(subs)
    for stmt in clone(_parse(template).body):
        r = replacer.visit(stmt)
        out.extend(r if isinstance(r, list) else [r])
    return anno.stamp(out, origin)


def replace_expr(template, origin=None, **subs):
    """Like ``replace`` for a template that is a single expression."""
    stmt = replace(template, origin=origin, **subs)[0]
    return stmt.value
