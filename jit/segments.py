"""Graph breaks compiled: a function split at the statements that read values.

When a to_static trace needs a tensor's value (a ``ValueRequest``, see
jit/graph_break.py) at line L of the function, the function is rewritten
once into a *segmented* function, plain Python run eagerly:

- the statements that read values (the lines the trace stopped at), and the
  compound statements around them, stay Python: they run each call on eager
  tensors, so the value is read, the branch is decided and the loop counted
  as eager code does;
- statements with effects that a program cannot replay stay Python too
  (a bare call such as ``print(...)`` or ``lst.append(t)``, a store into an
  attribute, ``del``, ``raise``, ``assert``, ``return``/``break``/``continue``
  inside a compound, definitions, imports);
- every straight run of the other statements becomes a *segment*: a function
  of the local variables it reads, returning those it binds that are read
  elsewhere, wrapped in its own ``StaticFunction``.  A segment is traced once
  per signature and cached; its Python inputs (a float read from a tensor, a
  trip count, a flag) are part of its cache key, so they are its guards: a
  call with other values takes another program, never a wrong one.  After
  ``GUARD_LIMIT`` programs a segment runs as eager code (values that change
  every call would otherwise retrace every call).

Before (line 3 reads a value)::

    def f(x):
        y = x * 2
        m = float(y.numpy().mean())
        if m > 1.0:
            y = y + math.log(m)
        return paddle.to_tensor(np.arange(3, dtype='float32')) + y.sum()

After (segments 0 and 1 are StaticFunctions; ``m`` is segment 1's guard)::

    def f(x):
        y, = _jst_segments[0](x)              # def s0(x): y = x * 2; return (y,)
        m = float(y.numpy().mean())
        return _jst_segments[1](y, m)         # the if and the return, one program

A segment whose own trace reads a value is split the same way (its
StaticFunction segments itself), so every break ends up as Python and
everything between breaks as cached programs.  Segments are ordinary
to_static calls on eager tensors, so gradients flow through them and the
Python between them as through any eager code.  Side effects inside a
segment happen when it is traced, as in any to_static program.
"""
import collections
import copy
import types

import gast

from ..ast_transforms import anno
from .conversion import SEGMENT_TREE, _parse, compile_mapped, converted_filename
from .convert_runtime import UndefinedVar
from .errors import map_location

__all__ = ["Segmented", "break_lines", "GUARD_LIMIT"]

GUARD_LIMIT = 8          # programs per segment before it runs as eager code
_REGIONS = "_jst_segments"
_UNDEF = "_jst_undef_"
_RUNNER = "_jst_segmented"
_COMPOUND = (gast.If, gast.For, gast.While, gast.With, gast.Try)
_PYTHON = (gast.FunctionDef, gast.ClassDef, gast.Import, gast.ImportFrom, gast.Global,
           gast.Nonlocal, gast.Pass, gast.Break, gast.Continue, gast.Delete, gast.Raise,
           gast.Assert)
_SCOPES = (gast.FunctionDef, gast.Lambda, gast.ClassDef)
_MUTATORS = frozenset(("append", "extend", "insert", "pop", "remove", "clear", "update",
                       "setdefault", "popitem", "sort", "reverse"))


def break_lines(exc, function):
    """The user's lines of ``function``'s own code that the traceback of
    ``exc`` passes through (outermost first): the statements to keep as
    Python so the value is read by eager code."""
    filename = converted_filename(function)
    lines, tb = [], exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            loc = map_location(filename, tb.tb_lineno)
            if loc is not None and loc.lineno not in lines:
                lines.append(loc.lineno)
        tb = tb.tb_next
    return lines


# ----------------------------------------------------------------- names
def _walk_scope(node):
    """Nodes of ``node`` outside nested functions, lambdas and classes."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        for child in gast.iter_child_nodes(n):
            if not isinstance(child, _SCOPES):
                todo.append(child)


def _load_counts(nodes):
    """How many times each name is read in ``nodes`` (nested functions' free
    reads included)."""
    counts = collections.Counter()
    for s in nodes:
        for n in gast.walk(s):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                counts[n.id] += 1
            elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
                counts[n.target.id] += 1          # `c += 1` reads c
    return counts


def _loads(nodes):
    return set(_load_counts(nodes))


def _stores(nodes):
    """Names ``nodes`` bind in the function's own scope (comprehension
    variables and nested scopes' names left out)."""
    out = set()
    for s in nodes:
        skip = set()
        for n in _walk_scope(s):
            if isinstance(n, gast.comprehension):
                skip.update(id(x) for x in gast.walk(n.target))
            elif isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)) \
                    and id(n) not in skip:
                out.add(n.id)
            elif isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store):
                base = n.value           # `t[i] = v` (a program binds t anew)
                while isinstance(base, gast.Subscript):
                    base = base.value
                if isinstance(base, gast.Name) and id(base) not in skip:
                    out.add(base.id)
            elif isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and \
                    n.func.attr in _MUTATORS and isinstance(n.func.value, gast.Name):
                out.add(n.func.value.id)     # `lst.append(t)`: the segment returns lst
            elif isinstance(n, (gast.Import, gast.ImportFrom)):
                out.update((a.asname or a.name).split(".")[0] for a in n.names)
        if isinstance(s, (gast.FunctionDef, gast.ClassDef)):
            out.add(s.name)
    return out


def _params(args):
    names = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
    return names + [a.id for a in (args.vararg, args.kwarg) if a is not None]


def _lines(node):
    return {o[0] for n in gast.walk(node) if isinstance(n, (gast.stmt, gast.expr))
            and (o := anno.origin(n)) is not None}


def _escapes(node, loops=0):
    """Whether ``node`` transfers control out of itself: a return, or a
    break/continue of a loop around it."""
    if isinstance(node, gast.Return):
        return True
    if isinstance(node, (gast.Break, gast.Continue)):
        return loops == 0
    if isinstance(node, (gast.Yield, gast.YieldFrom, gast.Await)):
        return True
    if isinstance(node, _SCOPES):
        return False
    if isinstance(node, (gast.For, gast.While)):
        return any(_escapes(c, loops + 1) for c in node.body) or \
            any(_escapes(c, loops) for c in node.orelse)
    return any(_escapes(c, loops) for c in gast.iter_child_nodes(node))


def _has_effect(stmt):
    """A statement whose effect a replayed program would lose: a bare call, a
    store into an attribute or into an item of something not a local name
    (``self.hist[0] = v``); a compound statement holding one."""
    if isinstance(stmt, _COMPOUND):
        return any(_has_effect(c) for f in ("body", "orelse", "finalbody")
                   for c in getattr(stmt, f, None) or []) or \
            any(_has_effect(c) for h in getattr(stmt, "handlers", []) for c in h.body)
    if isinstance(stmt, gast.Expr):
        return isinstance(stmt.value, gast.Call)
    targets = stmt.targets if isinstance(stmt, gast.Assign) else \
        [stmt.target] if isinstance(stmt, (gast.AugAssign, gast.AnnAssign)) else []
    for t in targets:
        for n in gast.walk(t):
            if isinstance(n, gast.Attribute) and isinstance(n.ctx, gast.Store):
                return True
            if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store):
                base = n.value
                while isinstance(base, gast.Subscript):
                    base = base.value
                if not isinstance(base, gast.Name):
                    return True
    return False


def _name(id_, ctx):
    return gast.Name(id=id_, ctx=ctx, annotation=None, type_comment=None)


def _at(node, like):
    """``node`` with ``like``'s origin (generated code keeps the user's line)."""
    o = anno.origin(like)
    for n in gast.walk(node):       # (not the Load/Store singletons trees share)
        if o is not None and isinstance(n, (gast.stmt, gast.expr)) and \
                anno.origin(n) is None:
            anno.put(n, "origin", o)
    return node


# ----------------------------------------------------------------- the rewrite
class _Rewrite:
    """Builds the segmented function's body and its segments' definitions."""

    def __init__(self, fn_node, breaks, method, free):
        self.breaks = set(breaks)
        self.free = free
        self.method = method
        self.params = _params(fn_node.args)
        self.declared = {n for s in _walk_scope(fn_node) if isinstance(s, (gast.Global,
                                                                            gast.Nonlocal))
                         for n in s.names}
        self.locals = (set(self.params) | _stores(fn_node.body)) - self.declared
        self.reads = _load_counts(fn_node.body)
        # locals that nested functions read: they live in one cell of the
        # function's, so whatever binds them, or defines a closure over them,
        # stays Python (a segment would bind a copy of its own)
        self.captured = {n.id for s in _walk_scope(fn_node)
                         for f in gast.iter_child_nodes(s) if isinstance(f, _SCOPES)
                         for n in gast.walk(f) if isinstance(n, gast.Name)
                         and isinstance(n.ctx, gast.Load)} & self.locals
        # ... and the nested functions themselves: a segment calling one would
        # bind the tensors it reads into its program as they were when traced
        self.closures = {d.name for st in _walk_scope(fn_node)
                         for d in gast.iter_child_nodes(st) if isinstance(d, gast.FunctionDef)} | \
            {t.id for a in _walk_scope(fn_node) if isinstance(a, gast.Assign)
             and isinstance(a.value, gast.Lambda) for t in a.targets
             if isinstance(t, gast.Name)} if self.captured else set()
        self.in_loop = False
        # names bound by the statements that read values: a branch or a loop
        # bound decided by one stays Python, so its segments do not take the
        # value as an input (a guard on the exact value, retraced per value)
        self.read_values = set()
        for st in _walk_scope(fn_node):
            if isinstance(st, gast.stmt) and not isinstance(st, _COMPOUND + (gast.FunctionDef,)) \
                    and _lines(st) & self.breaks:
                self.read_values |= _stores([st])
        self.regions = []        # (FunctionDef, first statement)
        self.undefined = set()   # locals a segment may read before they are bound
        self.python_lines = []   # first lines of the statements kept as Python

    def body(self, stmts):
        out, run = [], []
        for s in stmts:
            hit = bool(_lines(s) & self.breaks) or self._closes_over(s) or \
                self._decided_by_read(s)
            if isinstance(s, _COMPOUND) and (hit or _escapes(s) or _has_effect(s)):
                out += self._flush(run)
                out.append(self._compound(s))
            elif isinstance(s, gast.Return) and not hit:
                run.append(s)
                out += self._flush(run)
            elif hit or _escapes(s) or _has_effect(s) or isinstance(s, _PYTHON):
                out += self._flush(run)
                if not (isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant)):
                    self.python_lines.append(anno.origin(s)[0] if anno.origin(s) else 0)
                out.append(s)
            else:
                run.append(s)
        out += self._flush(run)
        return out or [gast.Pass()]

    def _decided_by_read(self, s):
        head = s.test if isinstance(s, (gast.If, gast.While)) else \
            s.iter if isinstance(s, gast.For) else None
        return head is not None and bool(_loads([head]) & self.read_values)

    def _closes_over(self, s):
        """``s`` binds a captured local, or defines a lambda reading one."""
        if not (self.captured or self.declared):
            return False
        if _stores([s]) & self.declared:      # a global's or an outer function's
            return True
        return bool(_stores([s]) & self.captured) or bool(_loads([s]) & self.closures) or any(
            isinstance(n, gast.Lambda) and _loads([n.body]) & self.captured
            for n in gast.walk(s))

    def declarations(self, names, like):
        """``global``/``nonlocal`` statements for ``names`` (the original's
        free variables are the factory's parameters: ``nonlocal`` finds their
        cells)."""
        glob = [n for n in names if n not in self.free]
        nonl = [n for n in names if n in self.free]
        return ([_at(gast.Global(names=glob), like)] if glob else []) + \
            ([_at(gast.Nonlocal(names=nonl), like)] if nonl else [])

    def _compound(self, s):
        s = copy.copy(s)
        self.python_lines.append(anno.origin(s)[0] if anno.origin(s) else 0)
        for field in ("body", "orelse", "finalbody"):
            if getattr(s, field, None):
                outer = self.in_loop
                self.in_loop = outer or (field == "body" and isinstance(s, (gast.For,
                                                                             gast.While)))
                setattr(s, field, self.body(getattr(s, field)))
                self.in_loop = outer
        if isinstance(s, gast.Try):
            s.handlers = [copy.copy(h) for h in s.handlers]
            for h in s.handlers:
                h.body = self.body(h.body)
        return s

    def _flush(self, run):
        if not run:
            return []
        stmts, run[:] = list(run), []
        k = len(self.regions)
        returns = isinstance(stmts[-1], gast.Return)
        ins = sorted((_loads(stmts) & self.locals) - ({self.params[0]} if self.method else
                                                      set()))
        # bound here and read elsewhere (or read here first, on the next turn
        # of a Python loop around the segment)
        mine = _load_counts(stmts)
        later = {n for n, c in self.reads.items() if c > mine.get(n, 0)}
        if self.in_loop:
            later |= set(ins)
        own = {self.params[0]} if self.method else set()     # (never rebound)
        outs = [] if returns else sorted((_stores(stmts) & later) - self.declared - own)
        # an output the segment binds on some paths only keeps its value from
        # before on the others: every output is an input too
        ins = sorted(set(ins) | (set(outs) & self.locals))
        self.undefined.update(n for n in ins if n not in self.params)
        body = copy.deepcopy(stmts)
        body[:0] = self.declarations(sorted(self.declared & _stores(stmts)), stmts[0])
        if not returns:
            body.append(_at(gast.Return(value=gast.Tuple(
                elts=[_name(n, gast.Load()) for n in outs], ctx=gast.Load())), stmts[-1]))
        first = [self.params[0]] if self.method else []
        args = gast.arguments(args=[_name(n, gast.Param()) for n in first + ins],
                              posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                              kwarg=None, defaults=[])
        fdef = _at(gast.FunctionDef(name=f"_jst_segment{k}", args=args, body=body,
                                    decorator_list=[], returns=None, type_comment=None,
                                    type_params=[]), stmts[0])
        self.regions.append((fdef, stmts[0]))
        call = gast.Call(func=gast.Subscript(value=_name(_REGIONS, gast.Load()),
                                             slice=gast.Constant(value=k, kind=None),
                                             ctx=gast.Load()),
                         args=[_name(n, gast.Load()) for n in ins], keywords=[])
        if returns:
            stmt = gast.Return(value=call)
        elif outs:
            stmt = gast.Assign(targets=[gast.Tuple(elts=[_name(n, gast.Store()) for n in outs],
                                                   ctx=gast.Store())], value=call,
                               type_comment=None)
        else:
            stmt = gast.Expr(value=call)
        return [_at(stmt, stmts[0])]


# ----------------------------------------------------------------- the runner
class Segmented:
    """The segmented form of one StaticFunction's function: ``run(args,
    kwargs)`` calls it; ``segments`` are the StaticFunctions of its straight
    runs; ``breaks`` maps each break line to the reason read there."""

    def __init__(self, sf):
        self.sf = sf
        self.breaks = {}
        self.segments = []
        self.python_lines = []
        self.runner = None

    def add(self, lines, reason):
        """Keep ``lines`` as Python (rebuilding when a new one appears)."""
        new = [n for n in lines if n not in self.breaks]
        for n in new:
            self.breaks[n] = reason
        if new or self.runner is None:
            self._build()

    def run(self, args, kwargs):
        inst = self.sf._class_instance
        return self.runner(inst, *args, **kwargs) if inst is not None \
            else self.runner(*args, **kwargs)

    def _build(self):
        from .static_function import StaticFunction
        fn = self.sf._dygraph_function
        tree, node = _parse(fn)
        method = self.sf._class_instance is not None
        rw = _Rewrite(node, self.breaks, method, set(fn.__code__.co_freevars))
        body = rw.body(node.body)
        pre = [_at(gast.Assign(targets=[_name(n, gast.Store())],
                               value=_name(_UNDEF + n, gast.Load()), type_comment=None),
                   node) for n in sorted(rw.undefined)]
        runner_def = gast.FunctionDef(name=_RUNNER, args=node.args, body=pre + body,
                                      decorator_list=[], returns=None, type_comment=None,
                                      type_params=[])
        anno.put(runner_def, "origin", anno.origin(node))
        runner_def.body[:0] = rw.declarations(sorted(rw.declared), node)
        regions = [r for r, _ in rw.regions]
        params = list(fn.__code__.co_freevars) + [_REGIONS] + \
            [_UNDEF + n for n in sorted(rw.undefined)]
        factory = gast.FunctionDef(
            name="_jst_segments_factory",
            args=gast.arguments(args=[_name(p, gast.Param()) for p in params], posonlyargs=[],
                                vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                defaults=[]),
            body=[runner_def] + copy.deepcopy(regions) + [gast.Pass()], decorator_list=[],
            returns=None, type_comment=None, type_params=[])
        module = gast.Module(body=[factory], type_ignores=[])
        user_file = getattr(fn, "_sampan_user_file", None) or fn.__code__.co_filename
        code, _, _ = compile_mapped(module, f"segments of {fn.__qualname__}", user_file,
                                    fn.__qualname__)
        fcode = next(c for c in code.co_consts if isinstance(c, types.CodeType))
        codes = {c.co_name: c for c in fcode.co_consts if isinstance(c, types.CodeType)}
        segments = []
        cells = {name: fn.__closure__[i] for i, name in enumerate(fn.__code__.co_freevars)}
        cells[_REGIONS] = types.CellType(segments)
        for n in rw.undefined:
            cells[_UNDEF + n] = types.CellType(UndefinedVar(n))

        def make(c, name, defaults=None):
            f = types.FunctionType(c, fn.__globals__, name, defaults,
                                   tuple(cells[v] for v in c.co_freevars) or None)
            f.__qualname__, f.__module__ = fn.__qualname__, fn.__module__
            return f

        self.runner = make(codes[_RUNNER], fn.__name__, fn.__defaults__)
        self.runner.__kwdefaults__ = fn.__kwdefaults__
        old = self.segments
        self.segments = []
        for k, (rdef, first) in enumerate(rw.regions):
            f = make(codes[rdef.name], f"{fn.__name__}.segment{k}")
            setattr(f, SEGMENT_TREE, gast.Module(body=[copy.deepcopy(rdef)], type_ignores=[]))
            f._sampan_user_file = user_file
            target = types.MethodType(f, self.sf._class_instance) if method else f
            seg = StaticFunction(target, build_strategy=self.sf._build_strategy)
            seg._program_cap = GUARD_LIMIT
            seg._segment_of = (self, k, min(_lines(first), default=0))
            segments.append(seg)
        self.segments = segments
        self.python_lines = rw.python_lines
        del old

    def all_breaks(self):
        """``(line, reason)`` of every break, those inside segments included."""
        out = sorted(self.breaks.items())
        for seg in self.segments:
            inner = getattr(seg, "_segments", None)
            if inner is not None:
                out += inner.all_breaks()
        return sorted(set(out))

