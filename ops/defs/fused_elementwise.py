"""``sampan_fused_elementwise``: a tree of elementwise ops (binary
arithmetic, activations, scale), optionally ending in one reduction, run as
one op.  Written only by sampan's fusion pass (program/passes/
fuse_elementwise.py) into the programs it runs (a CompiledProgram's clone,
the Predictor's copy, a to_static forward plan), never into a saved program,
so it has no Paddle counterpart; it is declared here so the registry knows it
(planning, printing, errors) like every op.

``expr`` (a JSON string) lists the ops replaced, in order:
``{"steps": [[op_type, {slot: ref}, {attr: value}], ...]}`` where a ref is
``k`` (>= 0: the fused op's input ``X[k]``) or ``-1 - j`` (the first output of
step ``j``).  ``Out`` is the last step's output.  Its meta is what the
replaced ops' own infer_meta give, replayed (``steps_of``)."""
import functools
import json

from ..declare import defop
from ..registry import OpError, get_op

FUSED_OP = "sampan_fused_elementwise"


@functools.lru_cache(maxsize=512)
def steps_of(expr):
    """The decoded steps of ``expr``: a tuple of (opdef, ((slot index, ref), ...),
    complete attrs); checked once per distinct string."""
    try:
        raw = json.loads(expr)["steps"]
    except (ValueError, KeyError, TypeError) as e:
        raise OpError(f"{FUSED_OP}: attribute 'expr' is not a fused expression: {e}") from None
    if not raw:
        raise OpError(f"{FUSED_OP}: attribute 'expr' has no steps")
    out = []
    for j, (op_type, ins, attrs) in enumerate(raw):
        od = get_op(op_type)
        refs = []
        for slot, ref in ins.items():
            if slot not in od.input_index:
                raise OpError(f"{FUSED_OP}: step {j} ('{op_type}') has no input slot '{slot}'")
            if ref < 0 and -1 - ref >= j:
                raise OpError(f"{FUSED_OP}: step {j} ('{op_type}') reads step {-1 - ref}, "
                              f"which does not come before it")
            refs.append((od.input_index[slot], ref))
        out.append((od, tuple(refs), od.complete_attrs(attrs)))
    return tuple(out)


def _infer(metas, attrs):
    xs = metas[0]
    vals = []
    for j, (od, refs, a) in enumerate(steps_of(attrs["expr"])):
        ins = [None] * len(od.inputs)
        for pos, ref in refs:
            if ref >= 0 and ref >= len(xs):
                raise OpError(f"{FUSED_OP}: step {j} ('{od.type}') reads X[{ref}], but the op "
                              f"has {len(xs)} inputs")
            ins[pos] = xs[ref] if ref >= 0 else vals[-1 - ref]
        vals.append(od.infer_meta(tuple(ins), a)[0] if od.infer_meta is not None else ins[0])
    return (vals[-1],)


defop(FUSED_OP, "X*", "Out", (("expr", "STRING", ""),), infer=_infer)
