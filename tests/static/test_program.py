"""Program building in static mode: Program/Block/Operator/Variable as views over the
ProgramDesc protobuf, naming, serialization round trip, clone, signatures, guards."""
import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.ops import get_op, bind, OpError, in_dynamic_mode, name_key
from sampan.program.proto import framework_pb2 as pb
from sampan.utils import unique_name


@pytest.fixture
def prog():
    """A fresh main/startup pair in static mode, fresh names; eager mode after."""
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup):
            yield main
    finally:
        paddle.disable_static()


def _mlp(main):
    x = static.data("x", [None, 4], "float32")
    w = main.global_block().create_parameter(name="w", shape=[4, 3], dtype="float32")
    h = paddle.matmul(x, w)
    return x, w, paddle.nn.functional.relu(h + 1.0)


def test_modes():
    assert in_dynamic_mode()
    paddle.enable_static()
    try:
        assert not paddle.in_dynamic_mode()
    finally:
        paddle.disable_static()
    assert paddle.in_dynamic_mode()


def test_data_variable_is_a_view_over_its_vardesc(prog):
    x = static.data("x", [None, 4], "float32")
    assert x.shape == (-1, 4) and x.dtype == paddle.float32 and x.name == "x"
    assert x.stop_gradient and x.need_check_feed and not x.persistable
    d = prog.global_block().desc.vars[0]
    assert d.name == "x" and d.type.type == pb.VarType.LOD_TENSOR
    assert list(d.type.lod_tensor.tensor.dims) == [-1, 4]
    assert d.type.lod_tensor.tensor.data_type == pb.VarType.FP32
    assert d.need_check_feed and d.stop_gradient
    x.persistable = True
    assert d.persistable
    assert "x" in repr(x) and "(-1, 4)" in repr(x)


def test_ops_record_slots_attrs_and_outputs(prog):
    x, w, out = _mlp(prog)
    ops = prog.global_block().ops
    assert [op.type for op in ops] == ["matmul_v2", "scale", "relu"]
    mm = ops[0]
    assert mm.input("X") == ["x"] and mm.input("Y") == ["w"]
    assert mm.output_arg_names == [mm.output("Out")[0]]
    assert mm.attr("trans_x") is False and mm.attr("trans_y") is False
    assert mm.attr("op_role") == 0 and mm.attr("op_namescope") == "/"
    assert "test_program.py" in mm.source
    # attributes sorted by name in the message; declared slots all written
    names = [a.name for a in mm.desc.attrs]
    assert names == sorted(names)
    assert [v.parameter for v in mm.desc.inputs] == ["X", "Y"]
    # infer_meta gave shapes/dtypes; stop_gradient follows the inputs
    h = prog.global_block().var(mm.output("Out")[0])
    assert h.shape == (-1, 3) and h.dtype == paddle.float32
    assert not h.stop_gradient            # w is a trainable parameter
    assert out.shape == (-1, 3)


def test_names_follow_paddle(prog):
    x = static.data("x", [2, 3], "float32")
    y = static.data("y", [2, 3], "float32")
    a = paddle.add(x, y)
    b = x + y
    c = a * 2.0
    w = static.data("w", [3, 2], "float32")
    with name_key("linear"):
        d = paddle.matmul(x, w)
        e = paddle.add(d, d)
    t = paddle.transpose(w, [1, 0])
    assert a.name == "elementwise_add_0.tmp_0"
    assert b.name.startswith("tmp_") and c.name.startswith("tmp_")
    assert d.name == "linear_0.tmp_0" and e.name == "linear_0.tmp_1"
    # several outputs of one call: <key>_<n>.tmp_0, .tmp_1 (transpose2's XShape)
    assert t.name == "transpose2_0.tmp_0"
    xshape = prog.global_block().ops[-1].output("XShape")[0]
    assert xshape == "transpose2_0.tmp_1"


def test_name_scope_sets_op_namescope(prog):
    x = static.data("x", [2], "float32")
    with static.name_scope("enc"):
        with static.name_scope("att"):
            y = paddle.exp(x)
    with static.name_scope("enc"):
        z = paddle.exp(y)
    ops = prog.global_block().ops
    assert ops[0].attr("op_namescope") == "/enc/att/"
    assert ops[1].attr("op_namescope") == "/enc_1/"


def test_variable_methods_and_operators_append_ops(prog):
    x = static.data("x", [2, 3], "float32")
    y = (x * x).sum() - x.mean()
    types = [op.type for op in prog.global_block().ops]
    assert "elementwise_mul" in types and "elementwise_sub" in types
    assert y.shape == () and y.dtype == paddle.float32
    with pytest.raises(TypeError, match="no value"):
        x.numpy()


def test_infer_meta_errors_name_the_op_and_inputs(prog):
    x = static.data("x", [2, 3], "float32")
    y = static.data("y", [4, 5], "float32")
    with pytest.raises(OpError) as e:
        paddle.matmul(x, y)
    msg = str(e.value)
    assert "matmul_v2" in msg and "x: float32[2, 3]" in msg and "y: float32[4, 5]" in msg
    z = static.data("z", [2, 3], "int64")     # (two float dtypes would promote, as Paddle)
    with pytest.raises(OpError, match="dtype"):
        paddle.add(x, z)


def test_eager_tensor_becomes_a_bound_persistable(prog):
    w = paddle.Parameter(np.ones((3, 2), "float32"), name="layer.w")
    x = static.data("x", [None, 3], "float32")
    y = paddle.matmul(x, w)
    paddle.matmul(x, w)                                   # bound once
    v = prog.global_block().var("layer.w")
    assert v.persistable and isinstance(v, static.Parameter) and v.shape == (3, 2)
    assert prog.bound_tensors["layer.w"] is w
    assert y.shape == (-1, 2)
    other = paddle.Parameter(np.ones((3, 2), "float32"), name="layer.w")
    with pytest.raises(ValueError, match="two different tensors"):
        paddle.matmul(x, other)


def test_inplace_pairs_alias_only_persistable_state(prog):
    gb = prog.global_block()
    p = gb.create_parameter(name="p", shape=[6], dtype="float32")
    g = static.data("g", [6], "float32")
    lr = gb.create_var(name="lr", shape=[1], dtype="float32", persistable=True)
    outs = bind(get_op("sgd"), (p, lr, g, None))
    assert outs[0] is p                               # ParamOut is Param
    r = paddle.reshape(p, [2, 3])                     # reshape2's pair is a buffer hint
    assert r.name != "p" and r.shape == (2, 3) and p.shape == (6,)


def test_serialize_parse_round_trip(prog):
    _mlp(prog)
    data = prog.desc.SerializeToString()
    back = static.Program.parse_from_string(data)
    assert back.desc.SerializeToString() == data
    assert [op.type for op in back.global_block().ops] == ["matmul_v2", "scale", "relu"]
    assert back.global_block().ops[1].attr("bias") == 1.0
    assert isinstance(back.global_block().var("w"), static.Parameter)
    assert back.global_block().var("x").shape == (-1, 4)
    assert back._signature() == prog._signature()
    with pytest.raises(ValueError, match="ProgramDesc"):
        static.Program.parse_from_string(b"\xff\xff not a program")


def test_signature_cached_and_invalidated(prog):
    x = static.data("x", [2], "float32")
    s1 = prog._signature()
    assert prog._signature() == s1 and prog._sig[0] == prog._version
    y = paddle.exp(x)
    s2 = prog._signature()
    assert s2 != s1
    prog.global_block().ops[0]._set_attr("op_device", "cpu")
    assert prog._signature() != s2
    assert y.name in [v.name for v in prog.list_vars()]


def test_clone_is_independent(prog):
    _mlp(prog)
    c = prog.clone()
    assert c.desc.SerializeToString() == prog.desc.SerializeToString()
    c.global_block().ops[1]._set_attr("scale", 3.0)
    assert prog.global_block().ops[1].attr("scale") == 1.0
    assert c.global_block().var("w").trainable


def test_clone_for_test_flips_is_test_and_prunes_training_ops(prog):
    x = static.data("x", [2], "float32")
    y = paddle.exp(x)
    gb = prog.global_block()
    gb.append_op("my_dropout", inputs={"X": [y]}, outputs={"Out": [y]}, attrs={"is_test": False})
    g = gb.create_var(name="x@GRAD", shape=[2], dtype="float32")
    gb.append_op("exp_grad", inputs={"Out": [y], "Out@GRAD": [y]}, outputs={"X@GRAD": [g]},
                 attrs={"op_role": 1})
    t = prog.clone(for_test=True)
    types = [op.type for op in t.global_block().ops]
    assert types == ["exp", "my_dropout"]
    assert t.global_block().ops[1].attr("is_test") is True
    assert not t.global_block().has_var("x@GRAD")
    assert gb.ops[1].attr("is_test") is False and len(gb.ops) == 3


def test_sub_blocks_and_recursive_lookup(prog):
    x = static.data("x", [2], "float32")
    sub = prog._create_block()
    assert prog.current_block() is sub and sub.parent_idx == 0 and prog.num_blocks == 2
    y = paddle.exp(x)                        # built into the sub-block
    assert sub.has_var(y.name) and not prog.global_block().has_var(y.name)
    assert sub._var_recursive("x") is x
    prog._rollback()
    assert prog.current_block() is prog.global_block()
    op = prog.global_block().append_op("my_cond", inputs={"Cond": [x]}, outputs={},
                                       attrs={"sub_block": sub})
    assert op.attr_type("sub_block") == "BLOCK" and op._block_attr("sub_block") is sub
    back = static.Program.parse_from_string(prog.desc.SerializeToString())
    assert back.block(1).parent_idx == 0 and back.global_block().ops[0].attr("sub_block") == 1


def test_program_guard_restores_and_checks():
    before = static.default_main_program()
    p = static.Program()
    with static.program_guard(p):
        assert static.default_main_program() is p
    assert static.default_main_program() is before
    with pytest.raises(TypeError, match="Program"):
        with static.program_guard("not a program"):
            pass


def test_unknown_slot_and_attr_are_refused(prog):
    x = static.data("x", [2], "float32")
    gb = prog.global_block()
    with pytest.raises(OpError, match="slot"):
        gb.append_op("exp", inputs={"Q": [x]}, outputs={})
    with pytest.raises(OpError, match="attribute"):
        gb.append_op("exp", inputs={"X": [x]}, outputs={}, attrs={"bogus": 1})


def test_attr_types_follow_the_declaration(prog):
    x = static.data("x", [2, 3], "float32")
    paddle.sum(x, axis=1)
    op = prog.global_block().ops[-1]
    for a in op.desc.attrs:
        spec = op.opdef.attr_specs.get(a.name)
        if spec is not None:
            assert pb.AttrType.Name(a.type) == spec.type, a.name


def test_input_spec():
    s = static.InputSpec([None, 8], "float32", "x")
    assert s.shape == (-1, 8) and s.dtype == paddle.float32 and s.name == "x"
    assert repr(s) == "InputSpec(shape=(-1, 8), dtype=paddle.float32, name=x, stop_gradient=False)"
    s.batch(16)
    assert s.shape == (16, -1, 8)
    s.unbatch()
    assert s.shape == (-1, 8)
    t = static.InputSpec.from_numpy(np.zeros((2, 3), "int64"), name="ids")
    assert t.shape == (2, 3) and t.dtype == paddle.int64
    e = static.InputSpec.from_tensor(paddle.to_tensor(np.zeros((5,), "float32")))
    assert e.shape == (5,)
    assert static.InputSpec([2], "float32", "a") == static.InputSpec((2,), "float32", "a")
    with pytest.raises(ValueError):
        static.InputSpec([-3])


def test_public_names():
    for name in ("Program", "program_guard", "default_main_program", "default_startup_program",
                 "data", "InputSpec", "Executor", "global_scope", "scope_guard", "Scope",
                 "name_scope", "cpu_places"):
        assert hasattr(static, name), name
    assert not hasattr(paddle, "Executor")
    assert len(static.cpu_places(2)) == 2


def test_parsing_never_mutates_the_desc(prog):
    gb = prog.global_block()
    gb.create_parameter(name="frozen", shape=[2], dtype="float32", trainable=False)
    gb.create_parameter(name="live", shape=[2], dtype="float32")
    data = prog.desc.SerializeToString()
    back = static.Program.parse_from_string(data)
    assert back.desc.SerializeToString() == data
    assert not back.global_block().var("frozen").trainable
    assert back.global_block().var("live").trainable


def test_static_layers_register_parameters_and_name_outputs_like_paddle():
    """A Layer built in static mode holds its static Parameters; F.linear's
    outputs use Paddle's LayerHelper naming, consuming the `linear` counter
    (so a Linear created after a forward is linear_2)."""
    import sampan as paddle
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start), paddle.utils.unique_name.guard():
            x = paddle.static.data("x", [None, 4], "float32")
            l1 = paddle.nn.Linear(4, 3)
            h = l1(x)
            l2 = paddle.nn.Linear(3, 2)
            l2(h)
        assert [p.name for p in l1.parameters()] == ["linear_0.w_0", "linear_0.b_0"]
        assert [p.name for p in l2.parameters()] == ["linear_2.w_0", "linear_2.b_0"]
        outs = [op.output_arg_names[0] for op in main.global_block().ops]
        assert outs == ["linear_1.tmp_0", "linear_1.tmp_1", "linear_3.tmp_0", "linear_3.tmp_1"]
    finally:
        paddle.disable_static()
