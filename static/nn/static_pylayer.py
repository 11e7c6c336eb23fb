"""``paddle.static.nn.static_pylayer``: a function with a user-written
backward in a static program, built as Paddle 2.6 builds it: one ``pylayer``
op (``Input`` -> ``Out``, ``Scope``) whose ``blocks`` attribute names two
sub-blocks of the current block:

- the forward block runs ``forward_fn(*inputs)`` and ``assign`` s each result
  to a new ``_generated_var_<n>`` of the parent block (the op's ``Out``);
- the backward block (when ``backward_fn`` is given; its ops have op_role
  Backward and its ``forward_block_idx`` is the forward block) copies the
  gradient of each output, read as ``<out>@GRAD``, to a local variable,
  runs ``backward_fn`` on those, and leaves the gradient of the i-th Variable
  input ``x`` in ``x@GRAD`` (the result renamed, as Paddle does, or copied).

Static backward turns the op into ``pylayer_grad`` running the backward block
(program/backward_pylayer.py); the executor runs both
(executor/pylayer.py).  Variables the backward block reads from the forward
block (saved tensors) are declared in the backward block under their names;
the run finds their values in the forward run's scope.

``PyLayer.apply`` under ``to_static`` builds one of these
(jit/py_layer.py).
"""
from ...ops import is_graph_value as is_static, in_static_mode
from ...program.program_guard import default_main_program
from ...program.static_mode import append_op, op_role_guard
from ...program.variable import VarType
from ...program import attrs as A
from . import nest
from .control_flow import _SubBlock, _generated_var, _copy_to_parent, _as_var

__all__ = ["static_pylayer"]

GRAD = "@GRAD"


def _check_inputs(inputs, backward_fn):
    if not isinstance(inputs, list):
        raise AssertionError(f"static_pylayer: inputs must be a list of Variables, got "
                             f"{type(inputs).__name__}")
    if backward_fn is None:
        for v in inputs:
            if is_static(v) and v.stop_gradient is False:
                raise ValueError(f"``stop_gradient`` attr of all inputs to ``forward_fn`` are "
                                 f"expected to be True, when ``backward_fn == None``, but "
                                 f"{v.name}.stop_gradient got {v.stop_gradient}")


def _build_forward(program, forward_fn, inputs):
    with _SubBlock(program) as fblock:
        origin = forward_fn(*inputs)
        output = None
        if origin is not None:
            output = nest.map_structure(lambda v: _copy_to_parent(program, v), origin)
    outs = [x for x in nest.flatten(output) if is_static(x)] if output is not None else []
    return fblock, origin, output, outs


def _grad_target(bblock, x):
    """The backward-block variable ``x@GRAD`` (declared like ``x``)."""
    name = x.name + GRAD
    v = bblock.vars.get(name)
    if v is None:
        v = bblock.create_var(name=name, shape=x.shape, dtype=x.np_dtype, type=x.type)
    return v


def _build_backward(program, backward_fn, fwd_inputs, fwd_outputs):
    with _SubBlock(program) as bblock, op_role_guard(A.OP_ROLE_BACKWARD):
        grads_in = []
        for v in fwd_outputs:
            seed = bblock.create_var(name=v.name + GRAD, shape=v.shape, dtype=v.np_dtype,
                                     type=v.type)
            local = _generated_var(bblock, like=v)
            local.stop_gradient = False
            append_op(bblock, "assign", {"X": [seed]}, {"Out": [local]})
            grads_in.append(local)
        res = backward_fn(*grads_in)
        flat = nest.flatten(res) if res is not None else []
        if len(flat) != len(fwd_inputs):
            raise ValueError(f"static_pylayer: backward_fn must return one gradient (or None) "
                             f"per Variable input of forward_fn: {len(fwd_inputs)} expected, "
                             f"got {len(flat)}")
        written = {n for op in bblock.ops for n in op.output_arg_names}
        for g, x in zip(flat, fwd_inputs):
            if g is None:
                continue
            g = _as_var(program, g)
            if not is_static(g):
                raise TypeError(f"static_pylayer: backward_fn returned "
                                f"{type(g).__name__} for the gradient of '{x.name}'; "
                                f"expected a Variable or None")
            target = x.name + GRAD
            if g.block is bblock and g.name in written and target not in bblock.vars \
                    and g.name != target:
                bblock._rename_var(g.name, target)          # Paddle's renaming
                written.add(target)
            elif g.name != target:
                append_op(bblock, "assign", {"X": [g]}, {"Out": [_grad_target(bblock, x)]})
    return bblock


def static_pylayer(forward_fn, inputs, backward_fn=None, name=None):
    """``forward_fn(*inputs)`` as a ``pylayer`` op whose gradient is
    ``backward_fn`` (one gradient per output in, one per Variable input out;
    see the module docstring).  Static mode only."""
    if not in_static_mode():
        raise AssertionError("please use PyLayer instead of static_pylayer in dygraph mode")
    if forward_fn is None or not callable(forward_fn):
        raise TypeError("static_pylayer: forward_fn must be callable")
    if backward_fn is not None and not callable(backward_fn):
        raise TypeError("static_pylayer: backward_fn must be callable")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"static_pylayer: name must be a str or None, got "
                        f"{type(name).__name__}")
    _check_inputs(inputs, backward_fn)
    program = default_main_program()
    inputs = [_as_var(program, x) for x in inputs]
    fwd_inputs = [x for x in inputs if is_static(x)]
    fblock, origin, output, outs = _build_forward(program, forward_fn, inputs)
    parent = program.current_block()
    scope = _generated_var(parent, type=VarType.STEP_SCOPES)
    op = append_op(parent, "pylayer", {"Input": fwd_inputs},
                   {"Out": outs, "Scope": [scope]}, {"blocks": [fblock]})
    for v in outs:          # only float outputs carry gradients into backward_fn
        v.stop_gradient = backward_fn is None or v.np_dtype is None or \
            v.np_dtype.kind not in "fc"
    if backward_fn is not None:
        bblock = _build_backward(program, backward_fn, fwd_inputs, outs)
        bblock._set_forward_block_idx(fblock.idx)
        op._set_attr("blocks", [fblock, bblock])
    return output
