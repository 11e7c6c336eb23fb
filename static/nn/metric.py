"""``paddle.static.ctr_metric_bundle``: the local sums of the CTR metrics
(squared error, absolute error, predicted CTR, q value, positives, instances),
persistable ``[1]`` float32 variables zero-filled by the startup program and
accumulated in place by each run, with Paddle 2.6's op sequence."""
from ...ops import bind, get_op
from ...ops.dtypes import to_enum
from ...utils import unique_name
from ...program.program_guard import default_main_program, default_startup_program
from ...program.static_mode import append_op, bookkeeping

__all__ = ["ctr_metric_bundle"]


def _var(shape, persistable):
    """One of the bundle's float32 variables of the main program."""
    name = unique_name.generate_with_ignorable_key("_generated_var")
    main = default_main_program().global_block()
    v = main.create_var(name=name, shape=shape, dtype="float32", persistable=persistable,
                        stop_gradient=True)
    return v


def _zero_fill(v):
    """A ``fill_constant`` 0 of ``v`` in the startup program, on the CPU."""
    sb = default_startup_program().global_block()
    if v.name in sb.vars:
        return
    init = sb.create_var(name=v.name, shape=[1], dtype="float32", persistable=True,
                         stop_gradient=True)
    sb.append_op(type="fill_constant", outputs={"Out": [init]},
                 attrs={"shape": [1], "dtype": to_enum("float32"), "value": 0.0,
                        "str_value": "0.0", "force_cpu": True, **bookkeeping()})


def ctr_metric_bundle(input, label, ins_tag_weight=None):
    """Returns ``(local_sqrerr, local_abserr, local_prob, local_q, local_pos_num,
    local_ins_num)``: the running sums of ``(input - label)^2``, ``|input -
    label|``, ``input``, ``sigmoid(input)`` (times the tag weight), ``label`` and
    the instance count (times ``ins_tag_weight[0]``: 0 marks a fake batch)."""
    if ins_tag_weight is None:
        ins_tag_weight = bind(get_op("fill_constant"), (None, None, None),
                              {"shape": [1, 1], "dtype": to_enum("float32"), "value": 1.0,
                               "str_value": "1.0"})[0]
    assert tuple(input.shape) == tuple(label.shape), \
        f"ctr_metric_bundle: input {list(input.shape)} and label {list(label.shape)} " \
        f"must have one shape"
    abserr, sqrerr, prob, q, pos_num, ins_num = (_var([1], True) for _ in range(6))
    elesub, sig, ones = (_var([-1], False) for _ in range(3))
    b_prob, b_abserr, b_sqrerr, b_q, b_pos, b_ins = (_var([1], False) for _ in range(6))
    for v in (abserr, b_abserr, sqrerr, b_sqrerr, prob, b_prob, q, b_q, b_pos, b_ins,
              pos_num, ins_num):
        _zero_fill(v)
    block = default_main_program().current_block()

    def op(type, ins, out, attrs=None):
        append_op(block, type, {k: [v] for k, v in ins.items()}, {"Out": [out]}, attrs)

    red = {"dim": [0], "keep_dim": False, "reduce_all": False}
    op("elementwise_sub", {"X": input, "Y": label}, elesub)
    op("squared_l2_norm", {"X": elesub}, b_sqrerr)
    op("elementwise_add", {"X": b_sqrerr, "Y": sqrerr}, sqrerr)
    op("l1_norm", {"X": elesub}, b_abserr)
    op("elementwise_add", {"X": b_abserr, "Y": abserr}, abserr)
    op("reduce_sum", {"X": input}, b_prob, red)
    op("elementwise_add", {"X": b_prob, "Y": prob}, prob)
    op("sigmoid", {"X": input}, sig)
    op("reduce_sum", {"X": sig}, b_q, red)
    op("reduce_sum", {"X": label}, b_pos, red)
    op("elementwise_add", {"X": b_pos, "Y": pos_num}, pos_num)
    append_op(block, "fill_constant_batch_size_like", {"Input": [label]}, {"Out": [ones]},
              {"shape": [-1, 1], "dtype": to_enum("float32"), "value": 1.0})
    op("reduce_sum", {"X": ones}, b_ins, red)
    append_op(block, "slice", {"Input": [ins_tag_weight]}, {"Out": [ins_tag_weight]},
              {"axes": [0], "starts": [0], "ends": [1]})
    op("elementwise_mul", {"X": b_ins, "Y": ins_tag_weight}, b_ins, {"axis": 0})
    op("elementwise_add", {"X": b_ins, "Y": ins_num}, ins_num)
    op("elementwise_mul", {"X": b_q, "Y": ins_tag_weight}, b_q, {"axis": 0})
    op("elementwise_add", {"X": b_q, "Y": q}, q)
    return sqrerr, abserr, prob, q, pos_num, ins_num
