"""``fuse_all_optimizer_ops``: the per-parameter update ops of a program
(``sgd``, ``momentum``, ``adam``) grouped by type, attributes and parameter
dtype, each group of two or more replaced by one multi-tensor op updating
every parameter of the group in one kernel call: Paddle's ``merged_momentum``
and ``merged_adam``, and ``sampan_merged_sgd`` (Paddle has no merged sgd; it
fuses sgd over coalesced buffers).  The kernels run the single-tensor update
per parameter, so the numbers are the same.

Ops the multi-tensor forms cannot express stay as they are: a MasterParam
(multi-precision), adam's SkipUpdate / Beta1Tensor / Beta2Tensor /
EpsilonTensor inputs or lazy_mode.  A group is fused only when no other op
between its first and last member reads or writes what the group updates.
"""
from ..attrs import BOOKKEEPING
from .graph import replace

_ADAM_TENSORS = ("MasterParam", "SkipUpdate", "Beta1Tensor", "Beta2Tensor", "EpsilonTensor")


def _key(u_block, op):
    """The group an update op belongs to, or None when it cannot be merged."""
    if op.type not in ("sgd", "momentum", "adam"):
        return None
    if op.input("MasterParam") or (op.type == "adam" and (
            any(op.input(s) for s in _ADAM_TENSORS) or op.attr("lazy_mode"))):
        return None
    p = op.input("Param")
    if len(p) != 1:
        return None
    var = u_block._find_var_recursive(p[0])
    attrs = tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                         for k, v in op.all_attrs().items()
                         if k not in BOOKKEEPING and k not in ("regularization_method",
                                                               "regularization_coeff")))
    lr = tuple(op.input("LearningRate")) if op.type == "sgd" else ()
    return op.type, attrs, str(var.np_dtype) if var is not None else None, lr


def _touched(op):
    return set(op.input_arg_names) | set(op.output_arg_names)


def fuse_all_optimizer_ops(program, keep=()):
    block = program.global_block()
    groups = {}
    for op in block.ops:
        k = _key(block, op)
        if k is not None:
            groups.setdefault(k, []).append(op)
    n = 0
    for (typ, _, _, _), ops in groups.items():
        if len(ops) < 2 or not _isolated(block, ops):
            continue
        _merge(block, typ, ops)
        n += 1
    return n


def _isolated(block, ops):
    """No op between the group's first and last member (other than members)
    reads or writes a variable the group's ops write."""
    ids = {id(o) for o in ops}
    pos = [i for i, o in enumerate(block.ops) if id(o) in ids]
    written = set()
    for o in ops:
        written.update(o.output_arg_names)
    for op in block.ops[pos[0]:pos[-1] + 1]:
        if id(op) not in ids and _touched(op) & written:
            return False
    return True


def _cat(ops, slot):
    return [n for op in ops for n in op.input(slot)]


def _cat_out(ops, slot):
    return [n for op in ops for n in op.output(slot)]


def _merge(block, typ, ops):
    last = ops[-1]
    attrs = {k: v for k, v in ops[0].all_attrs().items() if k not in BOOKKEEPING}
    lrs = _cat(ops, "LearningRate")
    if len(set(lrs)) == 1:
        lrs = lrs[:1]
    if typ == "sgd":
        replace(block, ops, last, "sampan_merged_sgd",
                {"Param": _cat(ops, "Param"), "LearningRate": lrs, "Grad": _cat(ops, "Grad")},
                {"ParamOut": _cat_out(ops, "ParamOut")}, {})
    elif typ == "momentum":
        methods = [op.attr("regularization_method") for op in ops]
        coeffs = [float(op.attr("regularization_coeff")) for op in ops]
        if not any(methods):
            methods, coeffs = [], []
        replace(block, ops, last, "merged_momentum",
                {"Param": _cat(ops, "Param"), "Grad": _cat(ops, "Grad"),
                 "Velocity": _cat(ops, "Velocity"), "LearningRate": lrs, "MasterParam": []},
                {"ParamOut": _cat_out(ops, "ParamOut"),
                 "VelocityOut": _cat_out(ops, "VelocityOut"), "MasterParamOut": []},
                {"mu": attrs["mu"], "use_nesterov": attrs["use_nesterov"],
                 "regularization_method": methods, "regularization_coeff": coeffs,
                 "multi_precision": attrs["multi_precision"],
                 "rescale_grad": attrs["rescale_grad"]})
    else:
        slots = ("Param", "Grad", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow")
        ins = {s: _cat(ops, s) for s in slots}
        ins.update({"LearningRate": lrs, "MasterParam": []})
        outs = {s + "Out": _cat_out(ops, s + "Out") for s in slots if s != "Grad"}
        outs["MasterParamOut"] = []
        replace(block, ops, last, "merged_adam", ins, outs,
                {k: attrs[k] for k in ("beta1", "beta2", "epsilon", "multi_precision",
                                       "use_global_beta_pow")})
