"""Which ops and variables a static backward pass covers (static/backward.py).

A variable *carries* a gradient when it is differentiable (float or complex,
not in ``no_grad_set``, not stopped) and depends on a *source*: for
``append_backward`` every leaf (a variable read before any op of the block
writes it) with ``stop_gradient=False`` (trainable parameters, data the user
marked); for ``gradients`` the requested inputs.  The path is the ops with a
carrying input and a carrying output the targets depend on.

``stop_gradient``: a leaf with it set is stopped, as in Paddle.  sampan's
static mode also sets it on an op's outputs when all the op's inputs had it
(as eager does), so a produced variable is stopped only when the flag cannot
come from that propagation: its op (the one creating it: a later in-place
write, e.g. a while body's ``assign`` to a loop variable, says nothing about
the flag) is differentiable and some *stable* input
of the op (a persistable or a produced variable; a data leaf's flag is often
flipped after the ops reading it were built) is not stopped, i.e. the user set
the flag.  This keeps ``gradients`` with respect to an intermediate of a
data-only computation, and data marked ``stop_gradient=False`` late, working.

A leaf written by an op built under no_grad (an optimizer's update of a
parameter in a traced step, ``param.add_()`` under ``paddle.no_grad()``) is a
leaf again after that op, as the eager tensor stays one: what reads it later
gives it a gradient, and the writing op is not on the path.

A tensor array written in place (``write_to_array``, a branch writing an
outer array) keeps carrying its gradient through a write of a value that
carries none: the other elements still do.

An op without a gradient rule on the path is an error, unless it is one of
the ops whose gradient is zero by nature (creation, random, shape ops) or its
outputs were built with ``stop_gradient=True`` (sampan marks the outputs of
ops without a rule so; eager records nothing for them either).
"""
from ..ops import GRAD_SUFFIX
from ..ops.grad_rules import differentiable_outputs
from .variable import VarType

LOD_TENSOR_ARRAY = VarType.LOD_TENSOR_ARRAY

FLOAT_KINDS = "fc"

# Ops whose outputs do not depend differentiably on their inputs (Paddle
# registers no grad for them): the gradient stops there silently.
ZERO_GRAD_OPS = frozenset({
    "fill_any_like", "fill_zeros_like", "fill_constant", "fill_constant_batch_size_like",
    "assign_value", "shape", "size", "one_hot", "one_hot_v2", "arg_max", "arg_min",
    "argsort", "uniform_random", "gaussian_random", "truncated_gaussian_random",
    "uniform_random_batch_size_like", "gaussian_random_batch_size_like", "randint",
    "randperm", "bernoulli", "multinomial", "sampling_id", "range", "linspace", "eye",
    "is_empty", "isfinite", "isinf", "isnan", "isfinite_v2", "isinf_v2", "isnan_v2",
    "accuracy", "auc", "lod_array_length",
    "unique", "unique_consecutive", "searchsorted", "histogram", "bincount",
    "share_data",
})


def _differentiable(var):
    """Float variables; and integer ones computed from variables needing a
    gradient (a float cast to int, ``paddle.shape(x)[0] * x``): Paddle and the
    eager tape differentiate through those too.  Integer results of ops without
    a gradient (shape, argmax) are stop_gradient and stay out."""
    dt = var.np_dtype if var is not None else None
    if dt is None:
        return False
    return dt.kind in FLOAT_KINDS or (dt.kind in "iu" and not var.stop_gradient)


def _diff_slots(op, builders):
    """Output slots of ``op`` whose gradient some grad op reads."""
    od = op.opdef
    if op.type in builders or od is None or od.grad is None:
        return set(op._outputs)
    if callable(od.grad):
        d = set()
        attrs = {k: v for k, v in op.all_attrs().items() if not k.startswith("op_")}
        for g in od.grad_ops(attrs):
            for src in g.inputs.values():
                if src.endswith(GRAD_SUFFIX):
                    d.add(src[:-len(GRAD_SUFFIX)])
        return d
    return {od.outputs[i].name for i in differentiable_outputs(od)}


def _has_rule(op, builders):
    return op.type in builders or (op.opdef is not None and op.opdef.grad is not None)


def find_path(ops, targets, sources, no_grad, lookup, builders, trust=False):
    """``(path ops in forward order, carrying variable names)``.

    ``sources`` is None (every unstopped leaf) or a set of requested names
    (``trust``: taken whatever their stop_gradient, as in a nested pass whose
    enclosing pass decided them); ``lookup(name)`` gives a Variable;
    ``builders`` the ops with grad builders (their outputs' stop_gradient flags
    are ignored: the control-flow builders copy them from inside)."""
    carry, written, seen = set(), set(), set()
    leaves = set()          # the source leaves (every unstopped leaf: sources is None)

    def leaf_source(n):
        if n in no_grad:
            return False
        v = lookup(n)
        if not _differentiable(v) or (v.stop_gradient and not trust):
            return False
        return sources is None or n in sources

    for op in ops:
        for n in op.input_arg_names:
            if n not in written and n not in seen:
                seen.add(n)
                if leaf_source(n):
                    carry.add(n)
                    if sources is None:
                        leaves.add(n)
        active = not op.no_grad and any(n in carry for n in op.input_arg_names)
        outs = op._outputs
        diff = _diff_slots(op, builders) if active else ()
        rule = _has_rule(op, builders)
        explicit = rule and op.type not in builders and any(
            not _stopped_flag(lookup, n) for n in op.input_arg_names
            if n in written or _persistable(lookup, n))
        for slot, names in outs.items():
            for n in names:
                v = lookup(n)
                # the flag speaks for the op that created the variable only
                own = n not in written and n not in seen and v.block is op.block
                ok = n not in no_grad and _differentiable(v) and \
                    not (v.stop_gradient and explicit and own)
                requested = sources is not None and n in sources and ok
                flows = active and slot in diff and ok and (
                    rule or (not v.stop_gradient and op.type not in ZERO_GRAD_OPS
                             and not (op.opdef is not None and op.opdef.random)))
                if flows or requested or (op.no_grad and n in leaves):
                    # (a leaf written under no_grad, a parameter's optimizer
                    # update, is a leaf again: what reads it after gives the
                    # parameter its gradient, as eager code does)
                    carry.add(n)
                elif not _partial_write(op, n, v):
                    carry.discard(n)
            written.update(names)
    need = set(n for n in targets if n in carry)
    path = []
    for op in reversed(ops):
        if any(n in need for n in op.output_arg_names):
            if op.no_grad or not any(n in carry for n in op.input_arg_names):
                continue
            path.append(op)
            need.update(n for n in op.input_arg_names if n in carry)
    path.reverse()
    return path, carry


def _partial_write(op, n, v):
    """Whether ``op`` updates tensor array ``n`` in place (writing some of its
    elements without reading it): the array keeps the gradient it carries.  An
    ``assign`` replaces the whole array (a list rebound to a new one: ``pop()``)."""
    return v is not None and v.type == LOD_TENSOR_ARRAY and op.type != "assign" and \
        n not in op.input_arg_names


def _persistable(lookup, n):
    v = lookup(n)
    return v is not None and v.persistable


def _stopped_flag(lookup, n):
    v = lookup(n)
    return v is None or v.stop_gradient
