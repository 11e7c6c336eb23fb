"""Facts attached to gast nodes while they are rewritten, and the names the
rewritten code uses.

Annotations live in one dict per node (``_jst_anno``), so a node can carry its
origin (the user's line), or mark itself as generated, without new fields
that ``gast_to_ast`` would trip on.

Generated names all start with ``_jst``:

- ``_jst``: the runtime helper module (``jit.convert_runtime``), a free
  variable of the converted function, never a global;
- ``_jst_fn_<kind>_<n>``: helper functions (branches, loop bodies, conditions);
  they are plumbing, never state, so the variable analysis ignores them;
- ``_jst_ret_flag``/``_jst_ret_val``/``_jst_brk_<n>``/``_jst_cont_<n>``: state
  that canonicalisation adds (threaded through branches and loops like any
  user variable);
- ``_jst_in_<name>``/``_jst_item_<n>``: parameters of helper functions.
"""
import copy

import gast

RUNTIME = "_jst"
RET_FLAG = "_jst_ret_flag"
RET_VAL = "_jst_ret_val"

_KEY = "_jst_anno"


def get(node, key, default=None):
    return node.__dict__.get(_KEY, {}).get(key, default)


def put(node, key, value):
    node.__dict__.setdefault(_KEY, {})[key] = value
    return node


def has(node, key):
    return key in node.__dict__.get(_KEY, {})


# ----------------------------------------------------------------- origins
def origin(node):
    """``(line, function)`` in the user's file, or None for generated nodes."""
    return get(node, "origin")


def attach_origins(tree, line_offset, qualname=None):
    """Stamp every node with its line in the original file and the name of the
    user function that contains it (the top function under ``qualname``,
    nested defs as ``outer.<locals>.inner``)."""
    def walk(node, func):
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            if func is None:
                func = qualname or node.name
            else:
                func = f"{func}.<locals>.{node.name}"
        line = getattr(node, "lineno", None)
        if line is not None:
            put(node, "origin", (line + line_offset, func))
        for child in gast.iter_child_nodes(node):
            walk(child, func)
    walk(tree, None)


def stamp(nodes, like):
    """Give every node under ``nodes`` that has no origin the origin of ``like``."""
    o = origin(like) if like is not None else None
    if o is None:
        return nodes
    for top in nodes if isinstance(nodes, list) else [nodes]:
        for n in gast.walk(top):
            if not has(n, "origin"):
                put(n, "origin", o)
    return nodes


def inherit_origins(tree):
    """Nodes without an origin take their nearest ancestor's (run after each
    transformer, so generated code points at the construct it replaced)."""
    def walk(node, inherited):
        o = get(node, "origin")
        if o is None and inherited is not None:
            put(node, "origin", inherited)
            o = inherited
        for child in gast.iter_child_nodes(node):
            walk(child, o)
    walk(tree, None)


# ----------------------------------------------------------------- names
def is_plumbing(name):
    """Helper-function names and the runtime module: never program state."""
    return name == RUNTIME or name.startswith(("_jst_fn_", "_jst_item_", "_jst_in_"))


def copy_node(node):
    """A deep copy that keeps annotations (``copy.deepcopy`` copies __dict__)."""
    return copy.deepcopy(node)
