"""``paddle.grad`` given static Variables (user code inside a to_static
function, or a Program being built): the static handler of the
``graph_grad`` mode action.  As Paddle's dy2static does, the backward of the
outputs is appended to their program (``backward.gradients``: the same grad
ops ``append_backward`` emits); what the call returns follows Paddle's eager
``paddle.grad``, the truth under to_static:

- a list with one gradient Variable per input; an input the outputs do not
  depend on raises ``ValueError`` unless ``allow_unused=True`` (then None);
- ``create_graph=False``: the gradients are constants of the rest of the
  program (``stop_gradient=True``: no gradient flows back through them, as
  the eager result is detached); ``create_graph=True``: they stay
  differentiable, so a loss built on them trains through the grad ops
  (double-grad ops from the same op records);
- ``grad_outputs``: a Variable (or None for ones) per output.
"""
from ..ops import is_graph_value, set_mode_action
from . import attrs as A
from .backward import gradients

__all__ = ["static_grad"]


def _as_list(xs):
    return list(xs) if isinstance(xs, (list, tuple)) else [xs]


def static_grad(outputs, inputs, grad_outputs, create_graph, allow_unused, no_grad_vars):
    outs, ins = _as_list(outputs), _as_list(inputs)
    for what, xs in (("outputs", outs), ("inputs", ins)):
        if not xs:
            raise ValueError(f"paddle.grad: {what} cannot be empty")
        for i, x in enumerate(xs):
            if not is_graph_value(x):
                raise TypeError(f"paddle.grad: {what}[{i}] must be a Tensor (a static Variable "
                                f"here, like the others), got {type(x).__name__}")
    gouts = None
    if grad_outputs is not None:
        gouts = _as_list(grad_outputs)
        if len(gouts) != len(outs):
            raise ValueError(f"paddle.grad: {len(outs)} outputs but {len(gouts)} "
                             f"grad_outputs")
    # an output with stop_gradient=True contributes nothing (the eager tape skips it)
    keep = [i for i, x in enumerate(outs) if not x.stop_gradient]
    no_grad = None
    if no_grad_vars is not None:
        no_grad = _as_list(no_grad_vars)
    grads = [None] * len(ins)
    if keep:
        program = outs[0].block.program
        before = [len(b.ops) for b in program.blocks]
        grads = gradients([outs[i] for i in keep], ins,
                          None if gouts is None else [gouts[i] for i in keep], no_grad)
        _forward_role(program, before)
    result = []
    for i, (x, g) in enumerate(zip(ins, grads)):
        if g is None:
            if not allow_unused:
                raise ValueError(f"inputs[{i}] ({x.name}) is not reachable from the outputs; "
                                 f"pass allow_unused=True to get None for it")
        elif not create_graph:
            g.stop_gradient = True
        result.append(g)
    return result


def _forward_role(program, before):
    """The grad ops are part of the user's forward computation (kept by
    ``clone(for_test=True)`` and jit.save, differentiated by the program's own
    backward): op_role Forward."""
    for b in program.blocks:
        start = before[b.idx] if b.idx < len(before) else 0
        for op in b.ops[start:]:
            op._set_attr("op_role", A.OP_ROLE_FORWARD)


set_mode_action("static", "graph_grad", static_grad)
