"""Grad steps: an op's ``GradOp`` records compiled once into index form, shared
by the eager tape (dygraph/) and the static backward (static/backward*.py) so
the records have one interpretation.

A ``GradStep`` says, for one grad op of a forward op, where each of its
inputs comes from (kind 0: forward input slot i; 1: forward output slot i; 2:
the gradient of forward output slot i) and which forward input slot each of
its outputs is the gradient of.
"""
from .registry import OpError, GRAD_SUFFIX, get_op

__all__ = ["GradStep", "grad_steps", "differentiable_outputs"]


class GradStep:
    """One grad op of a node, compiled once per op: where each of its inputs
    comes from (forward input, forward output, or output gradient) and which
    forward input each of its outputs is the gradient of."""
    __slots__ = ("opdef", "srcs", "dsts", "attrs_fn", "names")

    def __init__(self, fwd, gop):
        self.opdef = get_op(gop.type)
        self.attrs_fn = gop.attrs
        srcs = []
        for slot in self.opdef.inputs:
            src = gop.inputs.get(slot.name)
            srcs.append(None if src is None else _source(fwd, src, gop.type))
        self.srcs = tuple(srcs)
        dsts = []
        for slot in self.opdef.outputs:
            tgt = gop.outputs.get(slot.name)
            if tgt is None:
                dsts.append(None)
                continue
            base = tgt[:-len(GRAD_SUFFIX)]
            if base not in fwd.input_index:
                raise OpError(f"grad op '{gop.type}' output {slot.name} targets '{tgt}', "
                              f"but '{fwd.type}' has no input slot '{base}'")
            dsts.append(fwd.input_index[base])
        self.dsts = tuple(dsts)
        self.names = tuple(self.opdef.attr_specs)

    def own_attrs(self, attrs):
        """The attrs of the grad op itself (forward attrs it does not declare dropped)."""
        return {k: attrs[k] for k in self.names if k in attrs}


def _source(fwd, src, gtype):
    if src in fwd.input_index:
        return (0, fwd.input_index[src])
    if src in fwd.output_index:
        return (1, fwd.output_index[src])
    if src.endswith(GRAD_SUFFIX) and src[:-len(GRAD_SUFFIX)] in fwd.output_index:
        return (2, fwd.output_index[src[:-len(GRAD_SUFFIX)]])
    raise OpError(f"grad op '{gtype}' reads '{src}', which is neither a slot of "
                  f"'{fwd.type}' nor the gradient of one of its outputs")


def _mark_fast_backward(op):
    """Whether eager grad nodes of ``op`` can take the unrolled path (dygraph/tape.py)."""
    steps = op.__dict__.get("_grad_steps")
    op.fast_bw = (steps is not None and len(steps) == 1 and op.n_outputs == 1
                  and not op.list_outputs and all(not s.duplicable for s in op.inputs))


def grad_steps(op, attrs):
    """The compiled grad steps of ``op`` (cached when the rule is static)."""
    steps = op.__dict__.get("_grad_steps")
    if steps is not None:
        return steps
    steps = tuple(GradStep(op, g) for g in op.grad_ops(attrs))
    if not callable(op.grad):
        op._grad_steps = steps
        _mark_fast_backward(op)
    return steps


def differentiable_outputs(op):
    """Output slot indices whose gradient some grad op reads."""
    d = op.__dict__.get("_diff_outs")
    if d is None:
        d = set()
        rules = op.grad if not callable(op.grad) else op.grad(op.default_attrs)
        for g in rules or ():
            for src in g.inputs.values():
                if src.endswith(GRAD_SUFFIX) and src[:-len(GRAD_SUFFIX)] in op.output_index:
                    d.add(op.output_index[src[:-len(GRAD_SUFFIX)]])
        d = op._diff_outs = frozenset(d)
    return d
