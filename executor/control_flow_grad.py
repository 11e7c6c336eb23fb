"""Executor runners of ``conditional_block_grad`` and ``while_grad`` (built by
static/backward_control_flow.py; see its docstring for their slots and the
``seed_vars``/``grad_vars`` attributes).

The grad block is planned once, when the enclosing block is planned (H2's
``SubBlock``: its own plan and compiled runner), and run on the values the
forward run kept: the forward op's ``Scope``/``StepScopes`` variable holds one
``Scope`` per run of the sub-block (executor/control_flow.py), with the outer
values that run saw on entry and the sub-block's own variables.  The seeds
(gradients of the op's outputs) are fed by name.

- ``conditional_block_grad``: one run of the grad block in the branch's scope;
  a branch that did not run passes the gradient of a variable it would have
  updated (in Input and Out) through, and gives zeros for the others, except
  leaves (parameters, fed inputs: variables no op writes), whose gradient it
  leaves unset (None), as eager leaves the ``.grad`` of a parameter an
  untaken branch never used; ``sum`` counts None as zeros.  So does
  ``while_grad`` for a leaf no iteration gave a gradient.
- ``while_grad``: the iterations in reverse; the gradient of each loop
  variable at the start of an iteration is the seed of the iteration before;
  the gradients of the other inputs are summed over the iterations.  With no
  iteration a loop variable's gradient passes through unchanged.

A tensor array is updated in place (``write_to_array`` has no input slot for
the old array), so the grad block's gradient of an array holds what passes
through the writes (static backward re-seeds it at each in-place write) plus
what the reads contribute; where the grad block computes none for an array
(no read on the path), its gradient passes through unchanged.  Any other
input whose gradient the grad block does not compute gets zeros.
"""
import numpy as np

from .control_flow import SubBlock
from .plan import register_op_runner

__all__ = []


class _Env:
    """Values by name for one run of a grad block: seeds, then the forward
    run's scope, then the grad op's own inputs."""
    __slots__ = ("seeds", "scope", "fallback")

    def __init__(self, scope, seeds, fallback):
        self.scope, self.seeds, self.fallback = scope, seeds, fallback

    def get(self, name):
        if name in self.seeds:
            return self.seeds[name]
        v = self.scope.find_var(name) if self.scope is not None else None
        if v is not None:
            return v.get()
        return self.fallback.get(name)


def _zeros(v):
    if v is None:
        return None
    if isinstance(v, list):               # a tensor array
        return [None if a is None else np.zeros_like(a) for a in v]
    return np.zeros_like(v)


def _is_array(v):
    return v is None or type(v) is list


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, list):
        n = max(len(a), len(b))
        a, b = a + [None] * (n - len(a)), b + [None] * (n - len(b))
        return [_add(x, y) for x, y in zip(a, b)]
    return a + b


def _leaves(op, names):
    """Which of ``names`` no op of the program writes (parameters, fed inputs):
    nothing consumes their gradient but ``sum`` and fetches, so it may stay
    unset."""
    program = op.block.program
    written = set()
    for b in program.blocks:
        for o in b.ops:
            if o.type != "feed":
                written.update(o.output_arg_names)
    return {n for n in names if n not in written}


def _none_for_leaf(n, v, leaves):
    return None if n in leaves else _zeros(v)


def _grad_block(ins, plan):
    """(op, slot positions, grad block runner, seed names, grad names)."""
    op = ins.op
    seed_vars = list(op.attr("seed_vars"))
    grad_vars = list(op.attr("grad_vars"))
    sub = SubBlock(op._block_attr("sub_block"), [g for g in dict.fromkeys(grad_vars) if g],
                   plan.backend)
    pos = {s: i for i, s in enumerate(op._inputs)}
    return op, pos, sub, seed_vars, grad_vars


def _run(sub, env):
    res, _ = sub.run(env)
    return dict(zip(sub.out_names, res))


def conditional_block_grad_runner(ins, plan):
    op, pos, sub, seed_vars, grad_vars = _grad_block(ins, plan)
    in_names, out_names = op.input("Input"), op.input("Out")
    leaves = _leaves(op, in_names)

    def run(args, attrs, need):
        xs = args[pos["Input"]]
        scopes = args[pos["Scope"]][0] if args[pos["Scope"]] else None
        seeds = dict(zip(out_names, args[pos["Out@GRAD"]]))
        if not scopes:                       # the branch did not run: identity
            return ([seeds[n] if n in seeds else _none_for_leaf(n, x, leaves)
                     for n, x in zip(in_names, xs)],)
        env = _Env(scopes[0], dict(zip(seed_vars, args[pos["Out@GRAD"]])),
                   dict(zip(in_names, xs)))
        got = _run(sub, env)
        out = []
        for n, x, g in zip(in_names, xs, grad_vars):
            v = got.get(g) if g else None
            if v is None:                    # an array's gradient passes through
                v = seeds[n] if n in seeds and _is_array(x) else _none_for_leaf(n, x, leaves)
            out.append(v)
        return (out,)
    run.sub_blocks = (sub,)
    return run


def while_grad_runner(ins, plan):
    op, pos, sub, seed_vars, grad_vars = _grad_block(ins, plan)
    x_names, out_names = op.input("X"), op.input("Out")
    grad_of = {x: g for x, g in zip(x_names, grad_vars) if g}
    invariant = [x for x in dict.fromkeys(x_names) if x not in out_names and x in grad_of]
    leaves = _leaves(op, x_names)

    def run(args, attrs, need):
        xs = args[pos["X"]]
        steps = args[pos["StepScopes"]][0] if args[pos["StepScopes"]] else None
        carry = dict(zip(out_names, args[pos["Out@GRAD"]]))
        fallback = dict(zip(x_names, xs))
        acc = {}
        for scope in reversed(steps or ()):
            seeds = {s: carry[o] for o, s in zip(out_names, seed_vars)}
            got = _run(sub, _Env(scope, seeds, fallback))
            new = {}
            for o in out_names:
                g = got.get(grad_of[o]) if o in grad_of else None
                if g is None:                    # an array's gradient passes through
                    g = carry[o] if _is_array(carry[o]) else _zeros(carry[o])
                new[o] = g
            for x in invariant:
                acc[x] = _add(acc.get(x), got.get(grad_of[x]))
            carry = new
        out = []
        for x, v in zip(x_names, xs):
            g = carry.get(x) if x in carry else acc.get(x)
            out.append(g if g is not None else _none_for_leaf(x, v, leaves))
        return (out,)
    run.sub_blocks = (sub,)
    return run


register_op_runner("conditional_block_grad", conditional_block_grad_runner)
register_op_runner("while_grad", while_grad_runner)
