"""Activation fusions of ``BuildStrategy``: each pass rewrites a forward
pattern into one fused op and, in a training program, the matching grad ops
into the fused op's grad, all or nothing (a pattern whose intermediate values
are read by anything else, or whose backward does not match, is left as it
is).  Every pass returns how many patterns it rewrote.

- ``fuse_elewise_add_act``: ``act(elementwise_add(x, y))``, act relu, tanh or
  scale (bias 0; Paddle's fused scale functor has no bias) ->
  ``fused_elemwise_add_activation`` (IntermediateOut left empty, see below); ``relu_grad`` + ``elementwise_add_grad`` ->
  ``fused_elemwise_add_activation_grad`` (Paddle fuses only the relu grad; a
  tanh/scale forward keeps its grad ops, which read the add's output).
- ``fuse_gemm_epilogue``: ``matmul_v2(x, W)`` (W 2-D) + ``elementwise_add(., b)``
  (b 1-D on the last axis) [+ relu / exact gelu] -> ``fused_gemm_epilogue``;
  the grads -> ``fused_gemm_epilogue_grad``.  ReserveSpace, only with a
  backward: relu's mask in a new bool variable, gelu's input in the matmul's
  output variable.
- ``fuse_bn_act``: training ``batch_norm`` (channel last: NHWC, or 2-D) +
  relu -> ``fused_batch_norm_act``; ``relu_grad`` + ``batch_norm_grad`` ->
  ``fused_batch_norm_act_grad``.
- ``fuse_bn_add_act``: batch_norm + ``elementwise_add(., z)`` (same shape) +
  relu -> ``fused_bn_add_activation`` (grads likewise).
"""
from ...ops.defs.nn_norm import norm_channel_axis
from .graph import Uses, one, replace, same_shape

GRAD = "@GRAD"
ADD_ACTS = ("relu", "tanh", "scale")


def _act_ok(act):
    if act.type == "scale":
        return (not act.input("ScaleTensor") and act.attr("bias") == 0.0)
    if act.type == "gelu":
        return not act.attr("approximate")
    return True


def _grad_of(u, fwd_out, grad_type, out_slot="Out"):
    """The ``grad_type`` op reading ``fwd_out@GRAD`` as its Out@GRAD (or None)."""
    for op in u.readers_of(fwd_out + GRAD):
        if op.type == grad_type and op.input(out_slot + GRAD) == [fwd_out + GRAD]:
            return op
    return None


def _only_reader_of_grad(u, name, op):
    rs = u.readers_of(name)
    return len(rs) == 1 and rs[0] is op


# ------------------------------------------------------------------ elementwise_add + act
def fuse_elewise_add_act(program, keep=()):
    u = Uses(program, keep)
    block = u.block
    n = 0
    for add in [op for op in block.ops if op.type == "elementwise_add"]:
        t = one(add, "Out", "output")
        x, y = one(add, "X"), one(add, "Y")
        act = u.only_reader(t) if t and x and y else None
        if act is None or act.type not in ADD_ACTS or act.input("X") != [t] \
                or not _act_ok(act):
            continue
        out = one(act, "Out", "output")
        # the backward, when there is one: only relu's grad pair is fused (Paddle)
        grads = [op for op in u.readers_of(out) if op.type == act.type + "_grad"]
        fused_grad = None
        if grads:
            fused_grad = _add_act_grad(u, add, act, grads, x, y, t, out)
            if fused_grad is None and act.type == "relu":
                continue
        attrs = {"functor_list": [act.type, "elementwise_add"], "axis": add.attr("axis"),
                 "save_intermediate_out": False,
                 "scale": float(act.attr("scale")) if act.type == "scale" else 0.0}
        # IntermediateOut (Paddle writes the add's output there) stays empty:
        # nothing reads it once the pair is fused, and the kernel then works in
        # one array
        replace(block, (add, act), add, "fused_elemwise_add_activation",
                {"X": [x], "Y": [y]}, {"Out": [out], "IntermediateOut": []}, attrs)
        if fused_grad is not None:
            rg, ag, ins, outs = fused_grad
            replace(block, (rg, ag), rg, "fused_elemwise_add_activation_grad", ins, outs,
                    {**attrs, "functor_list": ["relu_grad", "elementwise_add_grad"]})
        n += 1
    return n


def _add_act_grad(u, add, act, grads, x, y, t, out):
    """(relu_grad, elementwise_add_grad, inputs, outputs) of the fused grad, or
    None when the backward is not that pair."""
    if act.type != "relu" or len(grads) != 1:
        return None
    rg = grads[0]
    if rg.input("Out") != [out] or rg.output("X" + GRAD) != [t + GRAD]:
        return None
    ag = _grad_of(u, t, "elementwise_add_grad")
    if ag is None or ag.input("X") != [x] or ag.input("Y") != [y] \
            or not _only_reader_of_grad(u, t + GRAD, ag):
        return None
    # Paddle's fused grad reads no X: dX takes Out's shape, so X must have it
    if not same_shape(u.var(x), u.var(out)):
        return None
    ins = {"X": [], "Y": [y], "Out": [out], "IntermediateOut": [],
           "Out" + GRAD: rg.input("Out" + GRAD)}
    outs = {"X" + GRAD: ag.output("X" + GRAD), "Y" + GRAD: ag.output("Y" + GRAD),
            "IntermediateOut" + GRAD: []}
    return rg, ag, ins, outs


# ------------------------------------------------------------------ matmul + add [+ act]
GEMM_ACTS = ("relu", "gelu")


def fuse_gemm_epilogue(program, keep=()):
    u = Uses(program, keep)
    block = u.block
    n = 0
    for mm in [op for op in block.ops if op.type == "matmul_v2"]:
        m = _match_gemm(u, mm)
        if m is None:
            continue
        fwd, ins, out, act, reserve, grad = m
        # at the add: the bias may be computed after the matmul
        replace(block, fwd, fwd[1], "fused_gemm_epilogue", ins,
                {"Out": [out], "ReserveSpace": [reserve] if reserve else []},
                {"trans_x": mm.attr("trans_x"), "trans_y": mm.attr("trans_y"),
                 "activation": act})
        if grad is not None:
            old, at, gins, gouts = grad
            replace(block, old, at, "fused_gemm_epilogue_grad", gins, gouts,
                    {"trans_x": mm.attr("trans_x"), "trans_y": mm.attr("trans_y"),
                     "activation_grad": "none" if act == "none" else act + "_grad"})
        n += 1
    return n


def _match_gemm(u, mm):
    x, w, t = one(mm, "X"), one(mm, "Y"), one(mm, "Out", "output")
    if not (x and w and t) or t in u.keep:
        return None
    xv, wv = u.var(x), u.var(w)
    if xv is None or wv is None or len(wv.shape) != 2 or len(xv.shape) < 2:
        return None
    readers = u.readers_of(t)
    add = next((op for op in readers if op.type == "elementwise_add"), None)
    if add is None or add.input("X") != [t]:
        return None
    b = one(add, "Y")
    bv = u.var(b) if b else None
    tv = u.var(t)
    if bv is None or len(bv.shape) != 1 or tv is None \
            or add.attr("axis") not in (-1, len(tv.shape) - 1) \
            or bv.shape[0] != tv.shape[-1] or bv.np_dtype != tv.np_dtype:
        return None
    s = one(add, "Out", "output")
    act_op = next((op for op in u.readers_of(s) if op.type in GEMM_ACTS
                   and op.input("X") == [s]), None) if s and s not in u.keep else None
    if act_op is not None and not _act_ok(act_op):
        act_op = None
    out = one(act_op, "Out", "output") if act_op is not None else s
    act = act_op.type if act_op is not None else "none"
    fwd = (mm, add) + ((act_op,) if act_op is not None else ())
    # every reader of the intermediates must be part of the pattern
    add_grad = _grad_of(u, s, "elementwise_add_grad")
    allowed_t = {id(add)} | ({id(add_grad)} if add_grad is not None else set())
    if any(id(op) not in allowed_t for op in readers):
        return None
    grad = _gemm_grad(u, mm, add, act_op, x, w, b, t, s, out, add_grad)
    if grad == "mismatch":
        return None
    if act_op is not None:
        s_readers = {id(op) for op in u.readers_of(s)}
        ok = {id(act_op)} | ({id(grad[0][0])} if grad is not None and act == "gelu" else set())
        if s_readers - ok:
            return None
    reserve = None
    if grad is not None and act == "relu":      # relu's mask: a new bool variable
        reserve = u.block.create_var(name=t + "@RESERVE", shape=tv.shape, dtype="bool",
                                     persistable=False).name
    elif grad is not None and act == "gelu":    # gelu's input: the matmul's variable
        reserve = t
    if grad is not None:
        grad[2]["ReserveSpace"] = [reserve] if reserve else []
    return fwd, {"X": [x], "Y": [w], "Bias": [b]}, out, act, reserve, grad


def _gemm_grad(u, mm, add, act_op, x, w, b, t, s, out, add_grad):
    """The fused grad's (ops replaced, position, inputs, outputs); None when the
    program has no backward through this pattern; "mismatch" when it has one
    this pass cannot fuse."""
    act_grad = None
    if act_op is not None:
        act_grad = _grad_of(u, out, act_op.type + "_grad")
        if act_grad is None:
            return None if add_grad is None and not u.readers_of(s + GRAD) else "mismatch"
        if act_grad.output("X" + GRAD) != [s + GRAD] or \
                not _only_reader_of_grad(u, s + GRAD, add_grad) or add_grad is None:
            return "mismatch"
        dout = act_grad.input("Out" + GRAD)
    else:
        if add_grad is None:
            return None
        dout = add_grad.input("Out" + GRAD)
    if add_grad.input("X") != [t] or add_grad.input("Y") != [b]:
        return "mismatch"
    mm_grad = _grad_of(u, t, "matmul_v2_grad")
    if mm_grad is None or mm_grad.input("X") != [x] or mm_grad.input("Y") != [w] \
            or not _only_reader_of_grad(u, t + GRAD, mm_grad) \
            or add_grad.output("X" + GRAD) != [t + GRAD]:
        return "mismatch"
    old = ((act_grad,) if act_grad is not None else ()) + (add_grad, mm_grad)
    ins = {"DOut": dout, "X": [x], "Y": [w], "ReserveSpace": []}     # (set by the caller)
    outs = {"DX": mm_grad.output("X" + GRAD), "DY": mm_grad.output("Y" + GRAD),
            "DBias": add_grad.output("Y" + GRAD)}
    return old, old[0], ins, outs


# ------------------------------------------------------------------ batch_norm [+ add] + relu
def _bn_ok(u, bn):
    if bn.attr("is_test") or bn.attr("use_global_stats") or bn.attr("trainable_statistics"):
        return False
    if bn.input("MomentumTensor") or not bn.input("Scale") or not bn.input("Bias"):
        return False
    xv = u.var(one(bn, "X") or "")
    if xv is None or not 2 <= len(xv.shape) <= 5:
        return False
    try:
        return norm_channel_axis(len(xv.shape), bn.attr("data_layout")) == len(xv.shape) - 1
    except Exception:
        return False


_BN_IN = ("X", "Scale", "Bias", "Mean", "Variance")
_BN_STATS = ("MeanOut", "VarianceOut", "SavedMean", "SavedVariance")


def fuse_bn_act(program, keep=()):
    return _fuse_bn(program, keep, with_add=False)


def fuse_bn_add_act(program, keep=()):
    return _fuse_bn(program, keep, with_add=True)


def _fuse_bn(program, keep, with_add):
    u = Uses(program, keep)
    block = u.block
    n = 0
    for bn in [op for op in block.ops if op.type == "batch_norm"]:
        if not _bn_ok(u, bn):
            continue
        y = one(bn, "Y", "output")
        if not y or y in u.keep:
            continue
        add = z = None
        if with_add:
            add = next((op for op in u.readers_of(y) if op.type == "elementwise_add"
                        and op.input("X") == [y]), None)
            ag = _grad_of(u, one(add, "Out", "output") or "", "elementwise_add_grad") \
                if add is not None else None
            if add is None or {id(op) for op in u.readers_of(y)} - {id(add), id(ag)}:
                continue
            z = one(add, "Y")
            if z is None or not same_shape(u.var(z), u.var(y)) or add.attr("axis") != -1:
                continue
            s = one(add, "Out", "output")
            relu = u.only_reader(s, "relu") if s else None
        else:
            s, relu = y, u.only_reader(y, "relu")
        if relu is None:
            continue
        out = one(relu, "Out", "output")
        grad = _bn_grad(u, bn, add, relu, y, s, out, z)
        if grad == "mismatch":
            continue
        ins = {k: bn.input(k) for k in _BN_IN}
        outs = {k: bn.output(k) for k in _BN_STATS}
        outs.update({"Y": [out], "ReserveSpace": []})
        if with_add:
            ins["Z"] = [z]
        attrs = {"momentum": bn.attr("momentum"), "epsilon": bn.attr("epsilon"),
                 "act_type": "relu"}
        ftype = "fused_bn_add_activation" if with_add else "fused_batch_norm_act"
        fwd = (bn,) + ((add,) if add is not None else ()) + (relu,)
        # at the add (Z may be computed after the batch_norm) or the batch_norm
        replace(block, fwd, add if add is not None else bn, ftype, ins, outs, attrs)
        if grad is not None:
            old, gins, gouts = grad
            replace(block, old, old[0], ftype + "_grad", gins, gouts,
                    {"epsilon": attrs["epsilon"], "act_type": "relu"})
        n += 1
    return n


def _bn_grad(u, bn, add, relu, y, s, out, z):
    rg = _grad_of(u, out, "relu_grad")
    if rg is None:
        return None if not u.readers_of(y + GRAD) else "mismatch"
    if rg.input("Out") != [out] or rg.output("X" + GRAD) != [s + GRAD]:
        return "mismatch"
    old = [rg]
    gz = []
    if add is not None:
        ag = _grad_of(u, s, "elementwise_add_grad")
        if ag is None or not _only_reader_of_grad(u, s + GRAD, ag) \
                or ag.output("X" + GRAD) != [y + GRAD]:
            return "mismatch"
        old.append(ag)
        gz = ag.output("Y" + GRAD)
    bg = _grad_of(u, y, "batch_norm_grad", "Y")
    if bg is None or bg.input("X") != bn.input("X") \
            or not _only_reader_of_grad(u, y + GRAD, bg) \
            or (add is None and not _only_reader_of_grad(u, s + GRAD, bg)):
        return "mismatch"
    if len(u.readers_of(out)) and any(op.type == "relu_grad" and op is not rg
                                      for op in u.readers_of(out)):
        return "mismatch"
    old.append(bg)
    ins = {"X": bn.input("X"), "Scale": bn.input("Scale"), "Bias": bn.input("Bias"),
           "Y": [out], "SavedMean": bn.output("SavedMean"),
           "SavedVariance": bn.output("SavedVariance"), "ReserveSpace": [],
           "Y" + GRAD: rg.input("Out" + GRAD)}
    outs = {"X" + GRAD: bg.output("X" + GRAD), "Scale" + GRAD: bg.output("Scale" + GRAD),
            "Bias" + GRAD: bg.output("Bias" + GRAD)}
    if add is not None:
        outs["Z" + GRAD] = gz
    return tuple(old), ins, outs
