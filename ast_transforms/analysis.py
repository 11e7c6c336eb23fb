"""Which names a piece of code reads and binds: the variable analysis every
control-flow transformer shares.

- ``bound_in(nodes)``: names bound in the current scope (assignments, loop and
  ``with`` targets, ``def``/``class``/``import`` names, walrus targets),
  without looking inside nested scopes;
- ``reads(nodes)``: every name loaded anywhere inside, nested scopes included
  (a closure defined here may run later), so it over-approximates;
- ``definite_writes(stmt)`` / ``exposed_reads(stmts)``: names surely bound by
  a statement, and names read before being surely bound in a block (a loop
  carries those from one iteration to the next);
- ``live_after(path, names)``: which of ``names`` may be read after the
  statement at the end of ``path`` (later statements of every enclosing
  block up to the function, whole enclosing loops, ``try`` handlers);
- ``ScopeInfo``: per user function, its parameters, ``global``/``nonlocal``
  names and the names its own nested functions capture.

Helper names of generated code (``anno.is_plumbing``) are never state.
"""
import gast

from . import anno

SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
LOOPS = (gast.For, gast.While, gast.AsyncFor)


def _as_list(nodes):
    if nodes is None:
        return []
    return nodes if isinstance(nodes, list) else [nodes]


# ----------------------------------------------------------------- binding
def _target_names(t, out):
    if isinstance(t, gast.Name):
        out.add(t.id)
    elif isinstance(t, (gast.Tuple, gast.List)):
        for e in t.elts:
            _target_names(e, out)
    elif isinstance(t, gast.Starred):
        _target_names(t.value, out)


def _bound(node, out):
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        out.add(node.name)
        return                          # the body is its own scope
    if isinstance(node, gast.Lambda):
        return
    if isinstance(node, COMPREHENSIONS):
        for n in gast.walk(node):       # only walrus targets leak out of them
            if isinstance(n, gast.NamedExpr):
                _target_names(n.target, out)
        return
    if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
        out.add(node.id)
    elif isinstance(node, (gast.Import, gast.ImportFrom)):
        for a in node.names:
            out.add((a.asname or a.name).split(".")[0])
    elif isinstance(node, gast.ExceptHandler) and node.name is not None:
        _target_names(node.name, out)
    for child in gast.iter_child_nodes(node):
        _bound(child, out)


def bound_in(nodes):
    out = set()
    for n in _as_list(nodes):
        _bound(n, out)
    return {n for n in out if not anno.is_plumbing(n)}


# ----------------------------------------------------------------- reading
def _params(fn):
    args = fn.args
    return {a.id for a in args.posonlyargs + args.args + args.kwonlyargs +
            [args.vararg, args.kwarg] if a is not None}


def _reads(node, out):
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)):
        out |= free_reads(node)
        if not isinstance(node, gast.Lambda):
            for d in node.decorator_list + node.args.defaults + \
                    [d for d in node.args.kw_defaults if d is not None]:
                _reads(d, out)
        return
    if isinstance(node, gast.Name):
        if isinstance(node.ctx, gast.Load):
            out.add(node.id)
        return
    if isinstance(node, gast.AugAssign):
        _target_names(node.target, out)
    for child in gast.iter_child_nodes(node):
        _reads(child, out)


def free_reads(fn):
    """Names a nested function (or lambda) reads from enclosing scopes."""
    inner = set()
    body = fn.body if isinstance(fn.body, list) else [fn.body]
    for s in body:
        _reads(s, inner)
    own = _params(fn) | (bound_in(body) if isinstance(fn.body, list) else set())
    return inner - own


def reads(nodes):
    """Names read by ``nodes`` in this scope, including what nested functions
    read from it (they may run later)."""
    out = set()
    for n in _as_list(nodes):
        _reads(n, out)
    return out


def definite_writes(stmt):
    """Names bound on every path through ``stmt`` (conservative: loops and
    ``try`` bodies may not run to the end, so they bind nothing surely)."""
    if isinstance(stmt, (gast.Assign, gast.AnnAssign, gast.AugAssign)):
        out = set()
        for t in getattr(stmt, "targets", None) or [stmt.target]:
            _target_names(t, out)
        if isinstance(stmt, gast.AnnAssign) and stmt.value is None:
            return set()
        return out
    if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef,
                         gast.Import, gast.ImportFrom)):
        return bound_in(stmt)
    if isinstance(stmt, gast.If):
        return block_writes(stmt.body) & block_writes(stmt.orelse)
    if isinstance(stmt, (gast.With, gast.AsyncWith)):
        out = block_writes(stmt.body)
        for item in stmt.items:
            if item.optional_vars is not None:
                _target_names(item.optional_vars, out)
        return out
    if isinstance(stmt, gast.Expr):
        return bound_in(stmt)           # walrus inside an expression statement
    return set()


def block_writes(stmts):
    """Names bound on every path through a block."""
    out = set()
    for s in stmts:
        out |= definite_writes(s)
        if always_leaves(s):
            break
    return out


def exposed_reads(stmts):
    """Names a block may read before binding them itself."""
    return _exposed(stmts, frozenset())[0]


def _exposed(stmts, done):
    out = set()
    for s in stmts:
        if isinstance(s, gast.If):
            out |= reads(s.test) - done
            e1, d1 = _exposed(s.body, done)
            e2, d2 = _exposed(s.orelse, done)
            out |= e1 | e2
            done = d1 & d2
        elif isinstance(s, LOOPS):
            head = s.test if isinstance(s, gast.While) else s.iter
            out |= reads(head) - done
            inner = done | (bound_in(s.target) if not isinstance(s, gast.While) else set())
            out |= _exposed(s.body, inner)[0] | _exposed(s.orelse, done)[0]
        elif isinstance(s, (gast.With, gast.AsyncWith)):
            out |= reads(s.items) - done
            targets = set()
            for item in s.items:
                if item.optional_vars is not None:
                    _target_names(item.optional_vars, targets)
            e, done = _exposed(s.body, done | targets)
            out |= e
        else:
            out |= reads(s) - done
            done = done | definite_writes(s)
        if always_leaves(s):
            break
    return out, done


def always_leaves(stmt):
    return isinstance(stmt, (gast.Return, gast.Raise, gast.Break, gast.Continue))


# ----------------------------------------------------------------- liveness
def _scan(stmts, names):
    """Split ``names`` over a statement sequence into (read, killed)."""
    live, killed = set(), set()
    pending = set(names)
    for s in stmts:
        if not pending:
            break
        hit = pending & reads(s)
        live |= hit
        pending -= hit
        k = pending & definite_writes(s)
        killed |= k
        pending -= k
    return live, killed


def live_after(path, names, always=()):
    """The subset of ``names`` that may be read after the statement ``path``
    ends at.  ``path`` lists ``(parent, field, siblings, index)`` from the
    function down to that statement (``Walk.path``)."""
    names = set(names)
    live = names & set(always)
    pending = names - live
    for parent, field, siblings, index in reversed(path):
        if not pending:
            break
        if isinstance(siblings, list) and siblings and isinstance(siblings[0], gast.stmt):
            hit, killed = _scan(siblings[index + 1:], pending)
            live |= hit
            pending -= hit | killed
        if isinstance(parent, SCOPES):
            break
        if isinstance(parent, LOOPS) and field == "body":
            # the next iteration: its condition, then the body from the top; or the
            # loop's else clause when the loop ends
            head = parent.test if isinstance(parent, gast.While) else parent.iter
            hit = pending & (reads(head) | exposed_reads(parent.body) |
                             exposed_reads(parent.orelse))
            live |= hit
            pending -= hit
        elif isinstance(parent, gast.Try) and field == "body":
            hit = pending & reads(parent.handlers + parent.orelse + parent.finalbody)
            live |= hit
            pending -= hit
        elif isinstance(parent, gast.Try) and field == "handlers":
            hit = pending & reads(parent.finalbody)
            live |= hit
            pending -= hit
    return live


# ----------------------------------------------------------------- scopes
class ScopeInfo:
    """Facts of one user function that decide how its state is threaded."""

    def __init__(self, fn):
        self.node = fn
        self.params = _params(fn)
        self.globals, self.nonlocals = set(), set()
        for n in _own_nodes(fn.body):
            if isinstance(n, gast.Global):
                self.globals.update(n.names)
            elif isinstance(n, gast.Nonlocal):
                self.nonlocals.update(n.names)
        self.locals_ = bound_in(fn.body)
        self.captured = _captured(fn)

    @property
    def always_live(self):
        """Names whose writes must reach the function's own variable at once:
        closures, ``global`` and ``nonlocal`` names."""
        return self.captured | self.globals | self.nonlocals


def _own_nodes(stmts):
    """Nodes of a function body, not descending into nested scopes."""
    stack = list(stmts)
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, SCOPES + COMPREHENSIONS) and not anno.get(n, "generated"):
            continue
        stack.extend(gast.iter_child_nodes(n))


def _captured(fn):
    """Names of ``fn`` used by its user-written nested functions and lambdas
    (they may run later and would see a stale value if a write were
    deferred).  Comprehensions run where they stand, so they do not count;
    nor do lambdas that canonicalisation generated (marked ``generated``)."""
    out = set()
    for n in _own_nodes(fn.body):
        if isinstance(n, SCOPES) and not anno.get(n, "generated"):
            for m in gast.walk(n):
                if isinstance(m, gast.Name):
                    out.add(m.id)
    return out & (bound_in(fn.body) | _params(fn))
