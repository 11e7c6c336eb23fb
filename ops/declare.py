"""Shorthand for op declarations, so each op reads as one call.

    defop("relu", "X", "Out", infer=same_as_x,
          grad=grad_op("relu_grad", uses=("Out",), wrt=("X",)))

Slot strings: ``"X"`` plain, ``"X*"`` duplicable, ``"X?"`` dispensable,
``"XShape~"`` intermediate (combinable: ``"ShapeTensor*?"``).
Attributes: ``("axis", "INT", -1)``; a default of ``REQUIRED`` marks an
attribute that has no default.
"""
from .registry import Attr, GradOp, OpDef, Slot, register_op, GRAD_SUFFIX, Meta

REQUIRED = object()


def parse_slot(s):
    if isinstance(s, Slot):
        return s
    name = s.rstrip("*?~")
    flags = s[len(name):]
    return Slot(name, duplicable="*" in flags, dispensable="?" in flags,
                intermediate="~" in flags)


def _slots(spec):
    if isinstance(spec, str):
        spec = spec.split()
    return tuple(parse_slot(s) for s in spec)


def _attrs(spec):
    out = []
    for a in spec:
        if isinstance(a, Attr):
            out.append(a)
        else:
            name, typ, default = a
            if default is REQUIRED:
                out.append(Attr(name, typ, None, required=True))
            else:
                out.append(Attr(name, typ, default))
    return tuple(out)


def grad_op(type, uses=(), gouts=("Out",), wrt=("X",), attrs=None, extra_inputs=None):
    """A grad op record: inputs are the forward slots ``uses`` plus the gradients
    of forward outputs ``gouts`` (``Out@GRAD``); outputs are ``X@GRAD`` for each
    forward input in ``wrt``."""
    ins = {u: u for u in uses}
    ins.update({g + GRAD_SUFFIX: g + GRAD_SUFFIX for g in gouts})
    if extra_inputs:
        ins.update(extra_inputs)
    outs = {w + GRAD_SUFFIX: w + GRAD_SUFFIX for w in wrt}
    return GradOp(type, ins, outs, attrs)


def grad_infer(in_slots, out_slots):
    """infer_meta for a grad op: ``N@GRAD`` has the meta of input ``N``
    (or of ``N@GRAD`` input when N itself is not an input)."""
    index = {s.name: i for i, s in enumerate(in_slots)}
    src = []
    for s in out_slots:
        base = s.name[:-len(GRAD_SUFFIX)] if s.name.endswith(GRAD_SUFFIX) else s.name
        src.append(index.get(base, index.get(s.name)))

    def infer(metas, attrs):
        return tuple(metas[i] if i is not None else None for i in src)
    return infer


def _infer_by_record(in_slots, ins, outs):
    """infer_meta of a higher-order grad op from its record: an output that is the
    gradient of slot S has the meta of the input read from S (``D_X`` targets
    ``X@GRAD``, the input ``X`` reads ``X``); otherwise that of the first input
    (elementwise ops: every slot has one shape)."""
    index = {s.name: i for i, s in enumerate(in_slots)}
    by_source = {src: index[parse_slot(k).name] for k, src in ins.items()}
    src = [by_source.get(t[:-len(GRAD_SUFFIX)], 0) for t in outs.values()]

    def infer(metas, attrs):
        return tuple(metas[i] for i in src)
    return infer


def grad_chain(attrs, *levels):
    """Declare the higher-order grad ops above a first-order grad op and return
    the grad rule of that op.

    ``levels[0]`` is the gradient of the first-order grad op (Paddle's double
    grad), ``levels[1]`` the gradient of ``levels[0]`` (the triple grad), and so
    on.  A level is ``(type, inputs, outputs)`` or ``(type, inputs, outputs,
    infer)``: ``inputs`` maps each slot of the new op to its source and
    ``outputs`` each slot to its target, both in terms of the level below's
    slots (as in ``GradOp``: ``"Out"``, ``"grad_out@GRAD"`` the gradient of its
    output ``grad_out``, ``"X@GRAD"`` as a target the gradient of its input X).
    An input slot written ``"DDX?"`` is dispensable; every output is.  The last
    level may instead be a ``GradOp`` of an op declared elsewhere (the chain
    ends in an existing op, e.g. a linear grad op whose gradient is itself).
    Every new op takes ``attrs`` (the forward op's attributes)."""
    rule = None
    for level in reversed(levels):
        if isinstance(level, GradOp):
            rule = level
            continue
        type, ins, outs, *infer = level
        in_slots = _slots(tuple(ins))
        infer = infer[0] if infer else _infer_by_record(in_slots, ins, outs)
        first = next((s.name for s in in_slots if not s.dispensable), None)
        defgrad(type, tuple(ins), tuple(s + "?" for s in outs), attrs, infer=infer,
                grad=rule, dtype_from=first)
        rule = GradOp(type, {parse_slot(k).name: v for k, v in ins.items()}, dict(outs))
    return rule


def defop(type, inputs, outputs, attrs=(), infer=None, grad=None, **flags):
    """Declare and register one op; ``grad`` is a GradOp, a tuple of them, or a
    function of the forward attrs returning a tuple."""
    if isinstance(grad, GradOp):
        grad = (grad,)
    ins, outs = _slots(inputs), _slots(outputs)
    if infer is None and type.endswith("_grad"):
        infer = grad_infer(ins, outs)
    return register_op(OpDef(type=type, inputs=ins, outputs=outs, attrs=_attrs(attrs),
                             infer_meta=infer, grad=grad, **flags))


def defgrad(type, inputs, outputs, attrs=(), infer=None, grad=None, **flags):
    """Declare a grad op: like defop, with the kernel dtype decided by the first
    incoming gradient (``Out@GRAD``) unless ``dtype_from`` says otherwise."""
    if "dtype_from" not in flags:
        names = [parse_slot(s).name for s in (inputs.split() if isinstance(inputs, str) else inputs)]
        flags["dtype_from"] = next((n for n in names if n.endswith(GRAD_SUFFIX)), None)
    return defop(type, inputs, outputs, attrs, infer, grad, **flags)


__all__ = ["defop", "defgrad", "grad_op", "grad_infer", "grad_chain", "REQUIRED", "Meta",
           "GRAD_SUFFIX"]
