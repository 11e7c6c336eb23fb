"""Executor runners for the ops a single kernel call cannot run: the owners of
sub-blocks (``conditional_block``, ``while``), the tensor-array ops (they read
the array they update), ``print`` (it names its variable and counts its runs)
and ``select_output`` (its output count is the op's).

Each runner factory is called once, when the enclosing block is planned
(``plan.register_op_runner``).  A sub-block is planned then too, once
(``SubBlock``: its own ``Plan``, dependencies, liveness and compiled serial
runner; the runner names it in ``fn.sub_blocks``, for ``Interpreter.explain``),
and each run of the op runs that cached plan on values taken from the
enclosing plan's table: what the sub-block reads from outside comes in as the
instruction's inputs, what it writes outside goes out as its outputs.

So that the enclosing plan orders and frees correctly, the instruction of a
control-flow op reads every outer variable its sub-block reads (nested blocks
included, through their ops' slots) and the current value of every outer
variable it writes (kept when a branch does not run), and writes every outer
variable its sub-block writes.  A variable nothing has written yet (a fresh
tensor array, a cond output) is not read: it starts empty (None / []).

Scopes kept for gradients (read by ``conditional_block_grad``/``while_grad``,
which are built by static backward): when some op of the program reads the
op's ``Scope``/``StepScopes`` variable (and, for ``while``, ``is_test`` is
off), that variable's value is a list of ``Scope`` objects, one per run of the
sub-block (``conditional_block``: one, or none when the branch did not run;
``while``: one per iteration, in order).  Each holds the values that run saw
on entry (every outer variable the sub-block reads, under its own name, as it
was when the iteration started) and every variable of the sub-block itself as
the run left it.  Otherwise the value is an empty list and the sub-block frees
its temporaries as it goes.
"""
import itertools

import numpy as np

from ..ops import OpError
from ..program.variable import VarType
from ..kernels.cpu import control_flow as K
from . import deps as D, liveness as L
from .plan import Plan, register_op_runner
from .runner import CompiledSerial
from .scope import Scope

_ARRAY = VarType.LOD_TENSOR_ARRAY

__all__ = ["SubBlock", "known_before", "outer_names"]


# ----------------------------------------------------------------- helpers
def _dedupe(names):
    return list(dict.fromkeys(names))


def outer_names(block, names):
    """The names among ``names`` that ``block`` does not declare itself."""
    return [n for n in names if n not in block.vars]


def _written_so_far(plan):
    """Indices written by the instructions planned so far (cached, grown)."""
    cache = plan.__dict__.setdefault("_cf_written", [0, set()])
    done, written = cache
    for ins in plan.instrs[done:]:
        written.update(ins.writes)
    cache[0] = len(plan.instrs)
    return written


def _feed_targets(block):
    return {n for op in block.ops if op.type == "feed" for n in op.output("Out")}


def known_before(plan, idx):
    """Whether variable ``idx`` of ``plan`` holds a value when the instruction
    being planned runs: persistable or fed, written by an earlier instruction,
    or (in a sub-block) supplied from outside by the enclosing runner."""
    v = plan.vars[idx]
    if v.persistable or v.is_data or v.need_check_feed:
        return True
    if idx in _written_so_far(plan):
        return True
    name = plan.names[idx]
    if name in plan.feed_names:       # fed by the caller (a program without feed ops)
        return True
    if plan.block.parent_idx >= 0 and name not in plan.block.vars:
        return True
    return name in _feed_targets(plan.block)


def _has_reader(program, names):
    names = set(names)
    return bool(names) and any(n in names for b in program.blocks for op in b.ops
                               for n in op.input_arg_names)


def _block_flags(block, seen=None):
    """(random, side_effect) of the ops of ``block`` and of the blocks they own."""
    seen = set() if seen is None else seen
    seen.add(block.idx)
    rnd = eff = False
    for op in block.ops:
        od = op.opdef
        if od is not None:
            rnd = rnd or od.random
            eff = eff or od.side_effect
        for b in op.sub_blocks():
            if b not in seen:
                r, e = _block_flags(block.program.block(b), seen)
                rnd, eff = rnd or r, eff or e
    return rnd, eff


class _Ordered:
    """An OpDef as the dependency pass sees it, with the ordering flags of the
    sub-block's ops (a branch with a dropout draws from the one generator)."""

    def __init__(self, opdef, random, side_effect):
        self._od, self.random, self.side_effect = opdef, random, side_effect

    def __getattr__(self, name):
        return getattr(self._od, name)


def _order(ins, block):
    rnd, eff = _block_flags(block)
    if rnd or eff:
        ins.opdef = _Ordered(ins.opdef, rnd or ins.opdef.random, eff or ins.opdef.side_effect)


def _truth(c, op, what):
    if type(c) is np.ndarray and c.size == 1:
        return bool(c)
    if c is None:
        raise OpError(f"{op}: the condition {what} holds no value")
    a = np.asarray(c)
    if a.size != 1:
        raise OpError(f"{op}: the condition {what} must hold one element, got shape "
                      f"{list(a.shape)}")
    return bool(a.reshape(-1)[0])


# ----------------------------------------------------------------- sub-blocks
class SubBlock:
    """A block planned once and run on values by name.

    ``out_names``: the outer variables the caller wants back (more are added:
    every outer variable the block writes).  ``in_names``: what a run reads
    (outer variables and persistables, then anything read before written).
    ``keep``: a run also returns a ``Scope`` holding its values (see the
    module docstring) and the block frees nothing."""

    def __init__(self, block, out_names, backend, keep=False):
        self.block, self.keep = block, keep
        written = _dedupe(n for op in block.ops if op.type not in ("feed", "fetch")
                          for n in op.output_arg_names)
        self.out_names = _dedupe(list(out_names) + outer_names(block, written))
        fetch = list(self.out_names)
        if keep:
            fetch += [n for n in written if n in block.vars and n not in self.out_names]
        self.plan = plan = Plan(block, (), fetch, backend)
        self.live = live = L.build(plan, D.build(plan.instrs))
        self.fn = CompiledSerial(plan, live)
        self.in_names = [plan.names[i] for i in plan.loaded]
        self.fetch_names = fetch
        self.n_out = len(self.out_names)

    def compiled_loop(self, cond, truth):
        """The block compiled as a loop body run while ``truth(value of cond)``
        (runner.CompiledSerial's ``loop``; no kept scopes): a function of the
        values of ``in_names`` then of ``loop_extra`` (the other loop-carried
        outputs), returning the values of ``out_names`` first."""
        plan = self.plan
        loaded = set(plan.loaded)
        self.loop_extra = [n for n in self.out_names if plan.index[n] not in loaded]
        return CompiledSerial(plan, self.live, loop=(
            plan.index[cond], truth, tuple(plan.index[n] for n in self.loop_extra)))

    def outer_inputs(self):
        """The outer variables (and persistables) a run reads."""
        return [n for n in self.in_names
                if n not in self.block.vars or self.block.vars[n].persistable]

    def run(self, env):
        """(values of ``out_names``, Scope or None) after one run on ``env``."""
        inputs = [env.get(n) for n in self.in_names]
        outs = self.fn(inputs)
        if not self.keep:
            return outs[:self.n_out], None
        scope = Scope()
        for n, v in zip(self.in_names, inputs):
            scope.var(n).set(v)
        for n, v in zip(self.fetch_names[self.n_out:], outs[self.n_out:len(self.fetch_names)]):
            scope.var(n).set(v)
        return outs[:self.n_out], scope


def _reads(plan, ins, names):
    """(names, indices) of those ``names`` that hold a value when ``ins`` runs."""
    keep_n, keep_i = [], []
    for n in _dedupe(names):
        i = plan._slot(n, ins)
        if known_before(plan, i):
            keep_n.append(n)
            keep_i.append(i)
    return keep_n, tuple(keep_i)


def _rewire(plan, ins, reads, outs):
    ins.ins, ins.outs, ins.need = reads, outs, None
    plan._flatten(ins)


# ----------------------------------------------------------------- conditional_block
def conditional_block_runner(ins, plan):
    op = ins.op
    block = op._block_attr("sub_block")
    scope_names = op.output("Scope")
    sub = SubBlock(block, op.output("Out"), plan.backend,
                   keep=_has_reader(op.block.program, scope_names))
    out_names = sub.out_names
    cond_idx = tuple(plan._slot(n, ins) for n in op.input("Cond"))
    read_names, read_idx = _reads(plan, ins, op.input("Input") + sub.outer_inputs() + out_names)
    out_idx = tuple(plan._slot(n, ins) for n in out_names)
    scope_idx = plan._slot(scope_names[0], ins) if scope_names else None
    _rewire(plan, ins, (cond_idx, read_idx), (out_idx, scope_idx))
    _order(ins, block)
    scalar = bool(op.attr("is_scalar_condition")) if op.has_attr("is_scalar_condition") \
        else False

    what = f"'{op.input('Cond')[0]}'" if scalar else None

    def should_run(conds):
        if scalar:
            return _truth(conds[0], "conditional_block", what)
        return all(c is not None and np.asarray(c).size > 0 for c in conds)

    def run(args, attrs, need):
        conds, vals = args
        env = dict(zip(read_names, vals))
        if not should_run(conds):
            return [env.get(n) for n in out_names], []
        outs, scope = sub.run(env)
        return list(outs), ([scope] if scope is not None else [])
    run.sub_blocks = (sub,)
    if sub.keep:
        return run

    # no kept scope: values by positions fixed here, no dict per run (-1: no value yet)
    where = {n: k for k, n in enumerate(read_names)}
    pos_in = [where.get(n, -1) for n in sub.in_names]
    pos_out = [where.get(n, -1) for n in out_names]
    fn, n_out = sub.fn, sub.n_out

    def run_plain(args, attrs, need):
        conds, vals = args
        vals = vals + [None]
        if not should_run(conds):
            return [vals[p] for p in pos_out], []
        return list(fn([vals[p] for p in pos_in])[:n_out]), []
    run_plain.sub_blocks = (sub,)
    return run_plain


# ----------------------------------------------------------------- while
def while_runner(ins, plan):
    op = ins.op
    block = op._block_attr("sub_block")
    cond = op.input("Condition")
    if len(cond) != 1:
        raise OpError(f"{ins.where()}: while needs exactly one Condition variable, got {cond}")
    cond = cond[0]
    steps_names = op.output("StepScopes")
    is_test = bool(op.attr("is_test")) if op.has_attr("is_test") else False
    keep = not is_test and _has_reader(op.block.program, steps_names)
    sub = SubBlock(block, op.output("Out"), plan.backend, keep)
    if cond not in sub.out_names:
        raise OpError(f"{ins.where()}: the loop body (block {block.idx}) never writes the "
                      f"condition '{cond}', so the loop would never end")
    out_names = sub.out_names
    read_names, read_idx = _reads(plan, ins, [cond] + op.input("X") + sub.outer_inputs()
                                  + out_names)
    if cond not in read_names:
        raise OpError(f"{ins.where()}: the condition '{cond}' has no value before the loop")
    out_idx = tuple(plan._slot(n, ins) for n in out_names)
    steps_idx = plan._slot(steps_names[0], ins) if steps_names else None
    _rewire(plan, ins, (read_idx,), (out_idx, steps_idx))
    _order(ins, block)
    what = f"'{cond}'"
    if not keep:
        return _compiled_while(sub, cond, read_names, what)

    def run(args, attrs, need):
        env = dict(zip(read_names, args[0]))
        steps = []
        while _truth(env.get(cond), "while", what):
            outs, scope = sub.run(env)
            env.update(zip(out_names, outs))
            if scope is not None:
                steps.append(scope)
        return [env.get(n) for n in out_names], steps
    run.sub_blocks = (sub,)
    return run


def _compiled_while(sub, cond, read_names, what):
    """A loop keeping no step scopes: the body compiled once with the loop
    around it; a run maps the op's read values to the loop's inputs by
    positions fixed here (the last one, an appended None, stands for a
    variable with no value yet)."""
    def truth(c):
        if type(c) is np.ndarray and c.size == 1:
            return bool(c)
        return _truth(c, "while", what)

    loop = sub.compiled_loop(cond, truth)
    where = {n: k for k, n in enumerate(read_names)}
    pos = [where.get(n, -1) for n in sub.in_names + sub.loop_extra]
    n_out = sub.n_out

    def run(args, attrs, need):
        vals = args[0] + [None]
        return list(loop([vals[p] for p in pos])[:n_out]), []
    run.sub_blocks = (sub,)
    return run


# ----------------------------------------------------------------- arrays, print, select
def _array_reader(slot_pos):
    """An op reading a tensor array in input ``slot_pos``: an array nothing has
    written yet is read as empty."""
    def factory(ins, plan):
        fn, ins.key = plan._kernel(ins)
        s = ins.ins[slot_pos]
        if s is not None and plan.vars[s].type == _ARRAY and not known_before(plan, s):
            ins.ins = ins.ins[:slot_pos] + (None,) + ins.ins[slot_pos + 1:]
            plan._flatten(ins)
        return fn
    return factory


def write_to_array_runner(ins, plan):
    """The kernel also gets the array's current value (a third input)."""
    fn, ins.key = plan._kernel(ins)
    out = ins.outs[0]
    if known_before(plan, out):
        ins.ins = ins.ins + (out,)
        plan._flatten(ins)
    return fn


def print_runner(ins, plan):
    op = ins.op
    name = op.input("In")[0]
    count = itertools.count(1)

    def run(args, attrs, need):
        x = args[0]
        first_n = attrs["first_n"]
        if K.should_print(attrs) and (first_n <= 0 or next(count) <= first_n):
            K.print_value(x, attrs, name)
        return (x.copy(),)
    return run


def select_output_runner(ins, plan):
    n = len(ins.outs[0]) if ins.outs[0] is not None else 0
    return lambda args, attrs, need: K.select_output_n(args, n)


register_op_runner("conditional_block", conditional_block_runner)
register_op_runner("while", while_runner)
register_op_runner("write_to_array", write_to_array_runner)
register_op_runner("read_from_array", _array_reader(0))
register_op_runner("lod_array_length", _array_reader(0))
register_op_runner("tensor_array_to_tensor", _array_reader(0))
register_op_runner("tensor_array_to_tensor_grad", _array_reader(0))
register_op_runner("fill_zeros_like", _array_reader(0))
register_op_runner("print", print_runner)
register_op_runner("select_output", select_output_runner)
