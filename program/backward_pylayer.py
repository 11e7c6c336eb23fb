"""Grad builder of ``pylayer`` (``register_grad_builder``, see
static/backward.py): the user's backward block, already in the program (the
second block of the op's ``blocks``), becomes the ``backward_block`` of one
grad op, as Paddle 2.6 builds it::

    pylayer_grad(Input, Out@GRAD, Scope) -> Input@GRAD   {backward_block}

``Out@GRAD`` holds one gradient per forward output (zeros where none reached
it or the output stops gradients, i.e. was marked non-differentiable: the
backward function sees materialized gradients, as PyLayer's eager default);
``Input@GRAD`` one per input (a throwaway where none is wanted).
The runner is executor/pylayer.py's.  A pylayer without a backward block
(static_pylayer given no backward_fn; a model saved for inference, which
keeps the forward block only) stops the gradient, as in Paddle: a loaded
model's parameters before it get no gradient.
"""
from .backward import register_grad_builder
from .backward_control_flow import _input_grads


def pylayer_grad(ctx, op, out_grads):
    ins = op.input("Input")
    if not any(ctx.needs_grad(n) for n in ins):
        return
    blocks = op._blocks_attr("blocks")
    if len(blocks) < 2:
        return          # no backward block: the gradient stops here (as Paddle)
    gouts = []
    for n, g in zip(op.output("Out"), out_grads.get("Out", ())):
        if g is None or ctx._var(n).stop_gradient:
            g = ctx.zeros(n)           # none reached it, or marked non-differentiable
        gouts.append(g)
    ctx.append_op("pylayer_grad",
                  {"Input": ins, "Out@GRAD": gouts, "Scope": op.output("Scope")},
                  {"Input@GRAD": _input_grads(ctx, ins)},
                  {"backward_block": blocks[-1]})


register_grad_builder("pylayer", pylayer_grad)
