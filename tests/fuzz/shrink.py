"""Shrinker: reduce a failing fuzz program to a small one that still fails the same way.

Greedy reduction over the program's AST, each candidate judged by the same worker process the
runner uses (so crashes and hangs stay isolated) on the failing input pinned: a candidate is
kept when `worker.signature` of its result equals the original's (same class, same exception
type and first line, or same kind of mismatch) - which also requires that it still runs
eagerly, since an eager error is a different signature. Passes, largest reductions first:
drop a parameter of `f` (and its input), delete a statement, replace a compound statement by
one of its bodies, drop an `else`, replace an expression by one of its operands, shrink integer
constants. Rounds repeat until nothing more can be removed or the check budget is spent.
"""
import ast
import copy
import tempfile

import numpy as np

from .worker import candidate_inputs, signature

COMPOUND = (ast.If, ast.While, ast.For)
NAMESPACES = ("paddle", "F")


class Shrinker:
    def __init__(self, source, input_sets, target, check, entry="f", max_checks=400):
        self.tree = ast.parse(source)
        self.inputs = [[np.asarray(a, dtype="float32") for a in s] for s in input_sets]
        self.target, self.check, self.entry = target, check, entry
        self.max_checks, self.checks, self.seen = max_checks, 0, set()
        self.last_result = None

    # -- edits: each returns a list of thunks; a thunk returns (tree, inputs) or None --------
    def param_edits(self, tree):
        fn = self._entry(tree)
        return [(lambda j=j: self._drop_param(j)) for j in range(len(fn.args.args))] if fn else []

    def stmt_edits(self, tree):
        sites = []
        for idx, node in enumerate(ast.walk(tree)):
            for fld in ("body", "orelse"):
                stmts = getattr(node, fld, None)
                if not isinstance(stmts, list) or isinstance(node, ast.Module):
                    continue
                for pos, st in enumerate(stmts):
                    sites.append((_size(st), idx, fld, pos))
        for pos, st in enumerate(tree.body):  # helper functions nobody calls any more
            if isinstance(st, ast.FunctionDef) and st.name != self.entry:
                sites.append((_size(st), 0, "body", pos))
        sites.sort(key=lambda s: -s[0])
        return [(lambda s=s: self._edit(lambda nodes: _delete(nodes[s[1]], s[2], s[3])))
                for s in sites]

    def inline_edits(self, tree):
        out = []
        for idx, node in enumerate(ast.walk(tree)):
            if isinstance(node, COMPOUND):
                out.append(lambda idx=idx: self._edit(lambda nodes: _inline(nodes, idx, "body")))
                if node.orelse:
                    out.append(lambda idx=idx: self._edit(lambda nodes: _inline(nodes, idx, "orelse")))
                    out.append(lambda idx=idx: self._edit(lambda nodes: setattr(nodes[idx], "orelse", [])))
        return out

    def expr_edits(self, tree):
        out = []
        for idx, node in enumerate(ast.walk(tree)):
            for k in range(len(_operands(node))):
                out.append(lambda idx=idx, k=k: self._edit(lambda nodes: _hoist(nodes, idx, k)))
        return out

    def const_edits(self, tree):
        out, inside = [], set()
        for st in tree.body:  # module constants (INPUT_SHAPES) describe the pinned inputs
            if isinstance(st, ast.FunctionDef):
                inside.update(id(n) for n in ast.walk(st))
        for idx, node in enumerate(ast.walk(tree)):
            if id(node) in inside and isinstance(node, ast.Constant) and type(node.value) is int and node.value > 1:
                for v in (1, node.value - 1):
                    out.append(lambda idx=idx, v=v: self._edit(
                        lambda nodes: setattr(nodes[idx], "value", v)))
        return out

    # -- applying edits ---------------------------------------------------------------------
    def _edit(self, fn):
        tree = copy.deepcopy(self.tree)
        if fn(list(ast.walk(tree))) is False:
            return None
        return tree, self.inputs

    def _drop_param(self, j):
        tree = copy.deepcopy(self.tree)
        fn = self._entry(tree)
        del fn.args.args[j]
        for st in tree.body:
            if isinstance(st, ast.Assign) and getattr(st.targets[0], "id", "") == "INPUT_SHAPES":
                del st.value.elts[j]
        return tree, [[a for i, a in enumerate(s) if i != j] for s in self.inputs]

    def _entry(self, tree):
        return next((st for st in tree.body if isinstance(st, ast.FunctionDef) and st.name == self.entry), None)

    def accept(self, cand):
        if cand is None or self.checks >= self.max_checks:
            return False
        tree, inputs = cand
        if not all(_bounded(w) for w in ast.walk(tree) if isinstance(w, ast.While)):
            return False  # never shrink a loop's counter bound away: the result must terminate
        try:
            src = ast.unparse(ast.fix_missing_locations(tree))
        except Exception:
            return False
        key = (src, len(inputs[0]) if inputs else 0)
        if key in self.seen:
            return False
        self.seen.add(key)
        self.checks += 1
        res = self.check(src, inputs)
        if signature(res) != self.target:
            return False
        self.tree, self.inputs, self.last_result = tree, inputs, res
        return True

    def run(self):
        passes = (self.param_edits, self.stmt_edits, self.inline_edits, self.expr_edits, self.const_edits)
        changed = True
        while changed and self.checks < self.max_checks:
            changed = False
            for edits in passes:
                i = 0
                while self.checks < self.max_checks:
                    thunks = edits(self.tree)
                    if i >= len(thunks):
                        break
                    if self.accept(thunks[i]()):
                        changed = True   # the next candidate now sits at the same index
                    else:
                        i += 1
        return ast.unparse(self.tree) + "\n", self.inputs


# -- AST helpers -----------------------------------------------------------------------------
def _size(node):
    return sum(1 for _ in ast.walk(node))


def _delete(owner, fld, pos):
    stmts = getattr(owner, fld)
    if pos >= len(stmts):
        return False
    del stmts[pos]
    if not stmts and not isinstance(owner, ast.Module) and fld == "body":
        stmts.append(ast.Pass())


def _parents(nodes):
    where = {}
    for n in nodes:
        for fld, val in ast.iter_fields(n):
            if isinstance(val, list):
                for i, v in enumerate(val):
                    if isinstance(v, ast.AST):
                        where[id(v)] = (n, fld, i)
            elif isinstance(val, ast.AST):
                where[id(val)] = (n, fld, None)
    return where


def _replace(nodes, node, new):
    owner, fld, pos = _parents(nodes)[id(node)]
    if pos is None:
        setattr(owner, fld, new)
    else:
        getattr(owner, fld)[pos:pos + 1] = new if isinstance(new, list) else [new]


def _inline(nodes, idx, fld):
    node = nodes[idx]
    body = getattr(node, fld)
    if not body:
        return False
    _replace(nodes, node, list(body))


def _operands(node):
    """Sub-expressions an expression could be replaced by (never the called function)."""
    if isinstance(node, ast.Call):
        ops = list(node.args) + [k.value for k in node.keywords]
        f = node.func
        if isinstance(f, ast.Attribute) and not (isinstance(f.value, ast.Name) and f.value.id in NAMESPACES):
            ops.append(f.value)  # a method call: e.tanh() -> e
        return [o for o in ops if not isinstance(o, (ast.Constant, ast.List))]
    if isinstance(node, ast.BinOp):
        return [o for o in (node.left, node.right) if not isinstance(o, ast.Constant)]
    if isinstance(node, ast.UnaryOp):
        return [] if isinstance(node.operand, ast.Constant) else [node.operand]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.Subscript):
        return [node.value]
    return []


def _hoist(nodes, idx, k):
    node = nodes[idx]
    ops = _operands(node)
    if k >= len(ops):
        return False
    _replace(nodes, node, ops[k])


def _bounded(loop):
    """The generator's termination guard is intact: a counter incremented at the top level of
    the body and compared in the loop test (`c < n and ...`) or in a top-level `if c > n: break`."""
    counters = {st.target.id for st in loop.body
                if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name)}

    def compares_counter(test):
        return isinstance(test, ast.Compare) and any(
            isinstance(n, ast.Name) and n.id in counters for n in ast.walk(test))
    test = loop.test
    if compares_counter(test) or (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)
                                  and any(compares_counter(v) for v in test.values)):
        return True
    return any(isinstance(st, ast.If) and compares_counter(st.test) and len(st.body) == 1
               and isinstance(st.body[0], ast.Break) for st in loop.body)


def count_statements(source):
    """Statements inside the program's functions (the size the shrinker reduces)."""
    return sum(isinstance(n, ast.stmt) and not isinstance(n, ast.FunctionDef)
               for fn in ast.parse(source).body if isinstance(fn, ast.FunctionDef)
               for n in ast.walk(fn))


# -- entry point used by the runner ------------------------------------------------------------
def shrink_result(source, result, static="sampan", timeout=30.0, seed=0, max_checks=400, check=None):
    """(smaller source, its result) failing like `result`. The failing input is pinned when
    the result names it; otherwise (crash, hang, conversion error) all candidate inputs are."""
    if result.get("inputs"):
        input_sets = [result["inputs"]]
    else:
        shapes = ast.literal_eval(next(
            st.value for st in ast.parse(source).body
            if isinstance(st, ast.Assign) and getattr(st.targets[0], "id", "") == "INPUT_SHAPES"))
        input_sets = candidate_inputs(shapes, seed, 8)
    own = check is None
    if own:
        from .runner import Worker
        logs = tempfile.TemporaryDirectory(prefix="sampan_fuzz_shrink_")
        worker = Worker(logs.name)
        counter = iter(range(1 << 30))

        def check(src, inputs):
            req = {"id": "shrink%d" % next(counter), "source": src, "seed": seed, "static": static,
                   "inputs": [[np.asarray(a).tolist() for a in s] for s in inputs]}
            return worker.run(req, timeout)
    try:
        sh = Shrinker(source, input_sets, signature(result), check, max_checks=max_checks)
        small, inputs = sh.run()
    finally:
        if own:
            worker.stop()
            logs.cleanup()
    res = dict(sh.last_result or result)
    if len(inputs) == 1:
        res["inputs"] = [np.asarray(a).tolist() for a in inputs[0]]
    return small, res
