"""Grad builders of the sub-block owners (``register_grad_builder``, see
static/backward.py): ``conditional_block`` -> ``conditional_block_grad``,
``while`` -> ``while_grad``.  Their runners are in executor/control_flow_grad.py.

Each builder differentiates the forward sub-block once into a grad block
(``ctx.sub_backward``) and appends one grad op in the enclosing grad block:

    conditional_block_grad(Cond, Input, Out, Out@GRAD, Scope) -> Input@GRAD
    while_grad(X, Out, Out@GRAD, StepScopes) -> X@GRAD

with Paddle's slots, plus two attributes naming the grad block's variables
the runner exchanges with the enclosing block: ``seed_vars`` (aligned with
``Out``: the grad-block variable fed with that output's gradient) and
``grad_vars`` (aligned with ``Input``/``X``: the grad-block variable holding
that input's gradient after a run, "" where none is computed).  ``Input@GRAD``
/ ``X@GRAD`` are aligned with ``Input``/``X``; an input needing no gradient
gets a throwaway variable.

``while``: the loop variables are the outer variables the body both reads and
writes (in ``X`` and ``Out``); the grad block turns the gradient of a loop
variable at the end of an iteration into its gradient at the start, which the
runner feeds to the previous iteration; the gradients of the other inputs
(parameters, loop invariants) are summed over the iterations.  A forward value
the grad block reads is the one the iteration saw (the step scopes keep them);
a grad op reading an outer variable the body overwrites in place (not through
``while_loop``'s final ``assign``) would see its value on entry.
"""
from .backward import register_grad_builder


def _input_grads(ctx, names):
    """One output per input name: a contribution to its gradient (the first time
    a name needing one appears), else a throwaway variable."""
    seen, out = set(), []
    for n in names:
        out.append(ctx.grad_out(n) if ctx.needs_grad(n) and n not in seen else ctx.discard(n))
        seen.add(n)
    return out


def _cf_attrs(gb, seed_vars, grad_vars, **extra):
    return {"sub_block": gb, "seed_vars": seed_vars, "grad_vars": grad_vars, **extra}


def conditional_block_grad(ctx, op, out_grads):
    ins = op.input("Input")
    wanted = [n for n in dict.fromkeys(ins) if ctx.needs_grad(n)]
    if not wanted:
        return
    outs, gouts = [], []
    for n, g in zip(op.output("Out"), out_grads.get("Out", ())):
        if g is not None:
            outs.append(n)
            gouts.append(g)
    gb, seeds, grads = ctx.sub_backward(op._block_attr("sub_block"), outs, wanted)
    scalar = op.attr("is_scalar_condition") if op.has_attr("is_scalar_condition") else False
    ctx.append_op("conditional_block_grad",
                  {"Cond": op.input("Cond"), "Input": ins, "Out": outs, "Out@GRAD": gouts,
                   "Scope": op.output("Scope")},
                  {"Input@GRAD": _input_grads(ctx, ins)},
                  _cf_attrs(gb, [seeds[n] for n in outs],
                            [grads.get(n, "") for n in ins],
                            is_scalar_condition=bool(scalar)))


def while_grad(ctx, op, out_grads):
    xs = op.input("X")
    wanted = [n for n in dict.fromkeys(xs) if ctx.needs_grad(n)]
    if not wanted:
        return
    outs, gouts = [], []
    for n, g in zip(op.output("Out"), out_grads.get("Out", ())):
        if ctx.needs_grad(n):
            outs.append(n)
            gouts.append(g if g is not None else ctx.zeros(n))
    gb, seeds, grads = ctx.sub_backward(op._block_attr("sub_block"), outs, wanted)
    ctx.append_op("while_grad",
                  {"X": xs, "Out": outs, "Out@GRAD": gouts,
                   "StepScopes": op.output("StepScopes")},
                  {"X@GRAD": _input_grads(ctx, xs)},
                  _cf_attrs(gb, [seeds[n] for n in outs], [grads.get(n, "") for n in xs]))


register_grad_builder("conditional_block", conditional_block_grad)
register_grad_builder("while", while_grad)
