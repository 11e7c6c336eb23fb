"""Executor runners of ``pylayer`` and ``pylayer_grad`` (built by
static/nn/static_pylayer.py and program/backward_pylayer.py).

``pylayer(Input) -> Out, Scope`` with ``blocks = [forward, backward]``: a run
runs the forward block (planned once, executor/control_flow.py's
``SubBlock``).  When some op reads its ``Scope`` variable (a ``pylayer_grad``),
the run keeps a ``Scope`` holding what the forward block saw and made, plus
the outer values the backward block reads (its saved tensors may be outer
variables the forward block never read), as ``conditional_block`` does.

``pylayer_grad(Input, Out@GRAD, Scope) -> Input@GRAD`` with
``backward_block``: one run of the user's backward block on the kept scope.
The backward block reads the gradient of forward output ``o`` as
``o@GRAD`` (Paddle's naming) and leaves the gradient of input ``x`` in
``x@GRAD``; the runner feeds ``Out@GRAD`` (aligned with the forward op's
``Out``) under those names and reads the input gradients back by name.  An
input whose gradient the backward function gave as None gets none (a leaf:
parameter, fed input) or zeros.  A backward block read from a Paddle file
reads its saved tensors undeclared (Paddle resolves them through scopes):
they are declared from the forward block when the grad op is planned.
"""
from ..ops import OpError
from .control_flow import SubBlock, _has_reader, _reads, _rewire, _order, _dedupe
from .control_flow_grad import _Env, _leaves, _none_for_leaf
from .plan import register_op_runner

__all__ = []

GRAD = "@GRAD"


def _outer_reads(block, plan):
    """Names the ops of ``block`` read that the enclosing ``plan``'s block
    declares (in its scope chain)."""
    names = _dedupe(n for op in block.ops for n in op.input_arg_names)
    return [n for n in names if plan.block._find_var_recursive(n) is not None]


# ----------------------------------------------------------------- pylayer
def pylayer_runner(ins, plan):
    op = ins.op
    blocks = op._blocks_attr("blocks")
    if not blocks:
        raise OpError(f"{ins.where()}: pylayer needs a forward block (attribute 'blocks' "
                      f"is empty)")
    fwd = blocks[0]
    scope_names = op.output("Scope")
    keep = _has_reader(op.block.program, scope_names)
    sub = SubBlock(fwd, op.output("Out"), plan.backend, keep=keep)
    out_names = sub.out_names
    extra = _outer_reads(blocks[1], plan) if keep and len(blocks) > 1 else []
    read_names, read_idx = _reads(plan, ins, op.input("Input") + sub.outer_inputs() + extra)
    out_idx = tuple(plan._slot(n, ins) for n in out_names)
    scope_idx = plan._slot(scope_names[0], ins) if scope_names else None
    _rewire(plan, ins, (read_idx,), (out_idx, scope_idx))
    _order(ins, fwd)
    kept_extra = [n for n in extra if n in read_names]

    if not keep:
        where = {n: k for k, n in enumerate(read_names)}
        pos_in = [where.get(n, -1) for n in sub.in_names]
        fn, n_out = sub.fn, sub.n_out

        def run_plain(args, attrs, need):
            vals = args[0] + [None]
            return list(fn([vals[p] for p in pos_in])[:n_out]), []
        run_plain.sub_blocks = (sub,)
        return run_plain

    def run(args, attrs, need):
        env = dict(zip(read_names, args[0]))
        outs, scope = sub.run(env)
        for n in kept_extra:
            if scope.find_local_var(n) is None:
                scope.var(n).set(env[n])
        return list(outs), [scope]
    run.sub_blocks = (sub,)
    return run


# ----------------------------------------------------------------- pylayer_grad
def _forward_op(op):
    """The ``pylayer`` op whose Scope this grad op reads (None if none)."""
    scope = op.input("Scope")
    for b in op.block.program.blocks:
        for o in b.ops:
            if o.type == "pylayer" and o.output("Scope") == scope:
                return o
    return None


def _declare_saved(block, fwd):
    """Declare in the backward ``block`` the forward-block variables it reads
    undeclared (saved tensors: Paddle's static_pylayer removes their
    declarations, leaving them to its scopes), once, before planning."""
    if fwd is None:
        return
    fblock = fwd._blocks_attr("blocks")[0]
    for op in block.ops:
        for n in op.input_arg_names:
            if block._find_var_recursive(n) is None and n in fblock.vars:
                v = fblock.vars[n]
                block.create_var(name=n, shape=v.shape, dtype=v.np_dtype, type=v.type)


def _check_grad(name, g, x):
    if g is None or x is None or not hasattr(g, "shape") or not hasattr(x, "shape"):
        return g
    if tuple(g.shape) != tuple(x.shape):
        raise OpError(f"pylayer_grad: the backward function returned a gradient of shape "
                      f"{list(g.shape)} for input '{name}' of shape {list(x.shape)}")
    if g.dtype != x.dtype and x.dtype.kind in "fc":
        g = g.astype(x.dtype)
    return g


def pylayer_grad_runner(ins, plan):
    op = ins.op
    block = op._block_attr("backward_block")
    in_names, gout_names = op.input("Input"), op.input("Out@GRAD")
    fwd = _forward_op(op)
    outs = fwd.output("Out") if fwd is not None else [g[:-len(GRAD)] if g.endswith(GRAD)
                                                      else g for g in gout_names]
    if len(outs) != len(gout_names):
        raise OpError(f"{ins.where()}: {len(gout_names)} output gradients for a pylayer "
                      f"with {len(outs)} outputs")
    seed_names = [o + GRAD for o in outs]
    _declare_saved(block, fwd)
    written = {n for o in block.ops for n in o.output_arg_names}
    grad_of = {x: x + GRAD for x in in_names if x + GRAD in written}
    sub = SubBlock(block, list(dict.fromkeys(grad_of.values())), plan.backend)
    n_in, n_g = len(in_names), len(gout_names)
    in_idx = tuple(plan._slot(n, ins) for n in in_names)
    g_idx = tuple(plan._slot(n, ins) for n in gout_names)
    scope_idx = tuple(plan._slot(n, ins) for n in op.input("Scope"))
    own = set(in_names) | set(gout_names) | set(op.input("Scope"))
    extra_names, extra_idx = _reads(plan, ins, [n for n in _outer_reads(block, plan)
                                                if n not in own])
    out_idx = tuple(plan._slot(n, ins) for n in op.output("Input@GRAD"))
    if len(out_idx) != n_in:
        raise OpError(f"{ins.where()}: Input@GRAD must hold one variable per Input "
                      f"({n_in}), got {len(out_idx)}")
    _rewire(plan, ins, (in_idx, g_idx, scope_idx, extra_idx), (out_idx,))
    leaves = _leaves(op, in_names)

    def run(args, attrs, need):
        xs, gouts, scopes, extra = args
        scope = scopes[0][0] if scopes and scopes[0] else None
        fallback = dict(zip(extra_names, extra))
        fallback.update(zip(in_names, xs))
        env = _Env(scope, dict(zip(seed_names, gouts)), fallback)
        res, _ = sub.run(env)
        got = dict(zip(sub.out_names, res))
        out = []
        for n, x in zip(in_names, xs):
            g = got.get(grad_of[n]) if n in grad_of else None
            out.append(_check_grad(n, g, x) if g is not None else _none_for_leaf(n, x, leaves))
        return (out,)
    run.sub_blocks = (sub,)
    return run


register_op_runner("pylayer", pylayer_runner)
register_op_runner("pylayer_grad", pylayer_grad_runner)
