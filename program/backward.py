"""Static backward: ``append_backward`` and ``gradients`` append grad ops to a
program, built from each op's gradient rule (the same ``GradOp`` records the
eager tape runs, compiled by ``ops.grad_rules.grad_steps``).

One pass (``_Pass``, static/backward_pass.py) over one block:

1. path (``static/backward_path.py``): which variables carry a gradient
   (forward from the sources: trainable leaves, or the requested inputs) and
   which ops lie between them and the targets;
2. emission, walking the path ops backwards: the gradient of an op's output
   is *finalized* when its writer is reached (one contribution: it is named
   ``<var>@GRAD``; several: they are named ``<var>@GRAD@RENAME@block<b>@<k>``
   and a ``sum`` op adds them into ``<var>@GRAD``); a missing gradient of a
   multi-output op's output is a ``fill_any_like`` zero (Paddle's
   fill_zeros_like; ``fill_zeros_like`` itself for a tensor array); grad outputs for inputs that need none are left empty;
3. the collected ops are appended with ``op_role = 1`` (Backward), their
   output variables created with the forward variable's shape and dtype.  A
   name already in the block (a second backward on one program) is replaced by
   a fresh ``unique_name`` (Paddle's ``_rename_grad_``).

Ops that own sub-blocks (``conditional_block``, ``while``) build their grads
through a *grad builder* instead of records::

    register_grad_builder(op_type, fn)
    fn(ctx, op, out_grads) -> None

``op`` is the forward ``Operator``; ``out_grads`` maps each output slot to a
list (one entry per variable of the slot) of gradient names, None where no
gradient reached that output.  ``ctx`` (a ``_Pass``) offers:

- ``ctx.block``: the block the grad ops go to; ``ctx.program``;
- ``ctx.needs_grad(name)``: whether forward variable ``name`` wants a gradient;
- ``ctx.grad_out(name)``: a new output name holding one contribution to the
  gradient of ``name`` (summed with the others by the pass);
- ``ctx.discard(name)``: a throwaway output name (an input needing no grad in a
  duplicable slot);
- ``ctx.zeros(name)``: a variable of zeros shaped like ``name``;
- ``ctx.append_op(type, inputs, outputs, attrs)``: queue one grad op (names
  or the objects above in the slot lists);
- ``ctx.sub_backward(fwd_block, targets, wanted)``: the same algorithm on a
  sub-block, into a new grad block (child of ``fwd_block``, its
  ``forward_block_idx`` set): the gradients of the outer variables
  ``targets`` the sub-block writes are read from seed variables (one per
  target, declared in ``fwd_block``, fed by the grad op's runner), and the
  gradients of
  the outer variables ``wanted`` (as the sub-block read them on entry) are
  left in variables of the grad block; returns ``(grad_block, {target: seed
  name}, {wanted name: grad name})`` (wanted names no gradient reached are
  left out).

The builders of ``conditional_block`` and ``while`` are in
``static/backward_control_flow.py``; their grad ops' runners in
``executor/control_flow_grad.py``.  ``pylayer`` (its user-written backward
block becomes ``pylayer_grad``'s) is in ``program/backward_pylayer.py``, its
runners in ``executor/pylayer.py``.

``checkpoints`` (recompute) is accepted and ignored: the gradients are the same.
"""
from ..ops import OpError, is_graph_value
from ..ops.errors import BackwardTwiceError
from ..ops.dtypes import to_enum
from . import attrs as A
from .backward_pass import BUILDERS, GRAD, _Pass, _Ref, _name

__all__ = ["append_backward", "gradients", "register_grad_builder", "seeded_backward"]

LOSS_ROLE = A.OP_ROLE_BACKWARD | A.OP_ROLE_LOSS


def register_grad_builder(op_type, fn):
    """Build the grads of ``op_type`` ops with ``fn(ctx, op, out_grads)`` (see
    the module docstring) instead of GradOp records."""
    BUILDERS[op_type] = fn


# ----------------------------------------------------------------- helpers
def _as_list(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _names(xs, what):
    out = set()
    for x in xs or ():
        if isinstance(x, str):
            out.add(x)
        elif is_graph_value(x):
            out.add(x.name)
        else:
            raise TypeError(f"{what}: items must be Variables or names, got {type(x).__name__}")
    return out


def _check_var(x, what):
    if not is_graph_value(x):
        raise TypeError(f"{what} must be a static Variable, got {type(x).__name__}")
    return x


def _numel_one(shape):
    n = 1
    for d in shape:
        if d < 0:
            return False
        n *= d
    return n == 1


# ----------------------------------------------------------------- public API
def append_backward(loss, parameter_list=None, no_grad_set=None, callbacks=None,
                    checkpoints=None, distop_context=None):
    """Append the backward of scalar ``loss`` to its program; returns
    ``[(param, param@GRAD)]`` for the trainable parameters reached (or those
    of ``parameter_list``, names or Variables), in parameter order."""
    _check_var(loss, "append_backward: loss")
    if not _numel_one(loss.shape):
        raise OpError(f"append_backward: loss '{loss.name}' must hold one value (shape [] "
                      f"or [1]), got shape {list(loss.shape)}; reduce it first "
                      f"(paddle.mean / paddle.sum)")
    return seeded_backward(loss, None, parameter_list, no_grad_set, callbacks)


def seeded_backward(loss, loss_grad=None, parameter_list=None, no_grad_set=None,
                    callbacks=None, walked=None):
    """``append_backward`` from ``loss`` of any shape, its gradient starting as
    ``loss_grad`` (a Variable of the loss's shape; None: ones, as the eager
    ``Tensor.backward(grad_tensor=None)``); what a traced ``loss.backward()``
    appends (static/variable_methods.py).  ``walked``: the ids of the ops
    earlier backwards of a traced function went through, which the eager tape
    has freed: a path through one of them raises eager's RuntimeError (before
    anything is appended), and this path's ops join them."""
    _check_var(loss, "backward: loss")
    block, program = loss.block, loss.block.program
    if callbacks is not None and not isinstance(callbacks, (list, tuple)):
        raise TypeError("append_backward: callbacks must be a list of callables")
    ops = list(block.ops)
    p = _Pass(program, block, block, _names(no_grad_set, "no_grad_set"), callbacks)
    if loss_grad is not None:
        seed = _given_seed(loss, loss_grad, "backward: grad_tensor", same_dtype=True)
    elif _numel_one(loss.shape):
        seed = _Ref(p._fresh(loss.name + GRAD), loss)
        p.append_op("fill_constant", {}, {"Out": [seed]},
                    {"shape": list(loss.shape), "value": 1.0, "dtype": to_enum(loss.np_dtype),
                     "op_role": LOSS_ROLE})
    else:
        seed = _ones_like(p, loss)
    path = p.run(ops, [loss.name], None, {loss.name: seed})
    if walked is not None:
        _refuse_freed(path, walked)
    for name in list(p.pending):          # leaves: parameters, data needing grad
        p.finalize(name)
    if parameter_list is not None:
        params = []
        for x in parameter_list:
            params.append(block._var_recursive(x) if isinstance(x, str) else x)
    else:
        params = [q for q in program.global_block().all_parameters() if q.trainable]
    pairs = []
    for q in params:
        g = p.final.get(q.name)
        if g is not None:
            pairs.append((q, g))
    for q, g in pairs:
        spec = _spec_writing(p.specs, g)
        if spec is not None:
            spec[3]["op_role_var"] = [q.name, _name(g)]
    p.flush()
    return [(q, block._var_recursive(_name(g))) for q, g in pairs]


def _refuse_freed(path, walked):
    for op in reversed(path):              # (the order the backward reaches them)
        if id(op) in walked:
            raise BackwardTwiceError(
                f"trying to run backward through the graph a second time (node of op "
                f"'{op.type}' was freed): an earlier backward() of this to_static function "
                f"went through it, and eager code raises here unless that backward kept the "
                f"graph (retain_graph=True, which to_static does not support)"
                + (f"\n  defined at {op.source}" if op.source else ""))
    walked.update(id(op) for op in path)


def _given_seed(t, g, what, same_dtype=False):
    """The name of ``g``, the starting gradient of target ``t``, checked: a
    Variable of ``t``'s program with ``t``'s rank and dims (where both are
    known), and ``same_dtype``: its dtype."""
    _check_var(g, what)
    if g.block.program is not t.block.program:
        raise ValueError(f"{what} '{g.name}' is not in the program of '{t.name}'")
    if len(g.shape) != len(t.shape) or any(
            a != b and a >= 0 and b >= 0 for a, b in zip(g.shape, t.shape)):
        raise ValueError(f"{what} '{g.name}' has shape {list(g.shape)} but '{t.name}' has "
                         f"{list(t.shape)}; they must be equal")
    if same_dtype and g.np_dtype != t.np_dtype:
        raise TypeError(f"{what} '{g.name}' has dtype {g.np_dtype} but '{t.name}' has "
                        f"{t.np_dtype}; they must be equal")
    return g.name


def _spec_writing(specs, g):
    for spec in reversed(specs):
        for names in spec[2].values():
            if any(x is g for x in names):
                return spec
    return None


def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    """Gradients of ``targets`` (summed) with respect to ``inputs``, as
    Variables (None for an input the targets do not depend on)."""
    targets = [_check_var(t, "gradients: targets") for t in _as_list(targets)]
    inputs = [_check_var(x, "gradients: inputs") for x in _as_list(inputs)]
    tgs = _as_list(target_gradients) or [None] * len(targets)
    if len(tgs) != len(targets):
        raise ValueError(f"gradients: {len(targets)} targets but {len(tgs)} target_gradients")
    if not targets:
        raise ValueError("gradients: no targets")
    block, program = targets[0].block, targets[0].block.program
    for t in targets:
        if t.block is not block:
            raise ValueError("gradients: all targets must be in the same block")
    for x in inputs:
        if x.block.program is not program:
            raise ValueError(f"gradients: input '{x.name}' is not in the targets' program")
    ops = list(block.ops)
    p = _Pass(program, block, block, _names(no_grad_set, "no_grad_set"))
    seeds = {}
    for t, g in zip(targets, tgs):
        g = _ones_like(p, t) if g is None else _given_seed(t, g, "gradients: target_gradient")
        if t.name in seeds:
            raise ValueError(f"gradients: target '{t.name}' is given twice")
        seeds[t.name] = g
    wanted = {x.name for x in inputs}
    p.run(ops, list(seeds), wanted, seeds)
    for name in list(p.pending):
        if name in wanted:
            p.finalize(name)
    p.flush()
    return [None if p.final.get(x.name) is None else
            block._var_recursive(_name(p.final[x.name])) for x in inputs]


def _ones_like(p, t):
    """A gradient seed of ones shaped like ``t`` at run time (-1 dims allowed)."""
    if all(d >= 0 for d in t.shape):
        ref = _Ref(p._fresh(t.name + GRAD), t)
        p.append_op("fill_constant", {}, {"Out": [ref]},
                    {"shape": list(t.shape), "value": 1.0, "dtype": to_enum(t.np_dtype)})
        return ref
    shape = p._fresh(t.name + "_shape")
    p.block.create_var(name=shape, shape=[len(t.shape)], dtype="int32")
    p.append_op("shape", {"Input": [t.name]}, {"Out": [shape]})
    ref = _Ref(p._fresh(t.name + GRAD), t)
    p.append_op("fill_constant", {"ShapeTensor": [shape]}, {"Out": [ref]},
                {"shape": list(t.shape), "value": 1.0, "dtype": to_enum(t.np_dtype)})
    return ref


from . import backward_control_flow  # noqa: E402,F401  (grad builders of sub-block ops)
from . import backward_pylayer  # noqa: E402,F401  (grad builder of pylayer)
