"""Loading is strict and safe: truncated, corrupt or inconsistent model files raise
sampan's own errors (FormatError, a ValueError, naming the file and the variable or
op at fault) -- never a bare KeyError/IndexError/struct.error/DecodeError -- and no
loader ever runs code from a file."""
import os
import pickle
import shutil

import numpy as np
import pytest

import sampan as paddle
from sampan.inference import Config, create_predictor
from sampan.ops import OpError
from sampan.save_load import FormatError, UnsafePickleError
from sampan.save_load.program_io import (UnknownOpError, feed_fetch_targets, load_params,
                                         parse_program, read_program)
from sampan.program.proto import framework_pb2 as pb

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "shared",
                   "paddle-reference")
MODELS = os.path.join(REF, "models")


@pytest.fixture
def lenet(tmp_path):
    for f in ("model.pdmodel", "model.pdiparams", "model.pdiparams.info"):
        shutil.copy(os.path.join(MODELS, "lenet", f), tmp_path / f)
    return str(tmp_path / "model")


def _desc(prefix):
    d = pb.ProgramDesc()
    d.ParseFromString(open(prefix + ".pdmodel", "rb").read())
    return d


def _write_desc(prefix, desc):
    with open(prefix + ".pdmodel", "wb") as fh:
        fh.write(desc.SerializePartialToString())


def _all_loaders(prefix):
    """Load ``prefix`` with every loader; returns nothing, raises what they raise."""
    exe = paddle.static.Executor()
    paddle.static.load_inference_model(prefix, exe)
    create_predictor(Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    paddle.jit.load(prefix)


def _expect_format_error(prefix, *needles):
    for load in (lambda: paddle.static.load_inference_model(prefix, paddle.static.Executor()),
                 lambda: create_predictor(Config(prefix + ".pdmodel", prefix + ".pdiparams")),
                 lambda: paddle.jit.load(prefix)):
        with pytest.raises(FormatError) as info:
            load()
        for n in needles:
            assert n in str(info.value), str(info.value)
    return str(info.value)


# ----------------------------------------------------------------- .pdmodel bytes
def test_truncated_model_raises_format_error_at_every_cut(lenet):
    data = open(lenet + ".pdmodel", "rb").read()
    full = _desc(lenet)
    cuts = sorted(set(list(range(0, 64)) + list(range(64, len(data), 97)) +
                      [len(data) - k for k in range(1, 40)]))
    for cut in cuts:
        try:
            program = parse_program(data[:cut], "cut.pdmodel")
            feed_fetch_targets(program, "cut.pdmodel")
        except FormatError as exc:
            assert "cut.pdmodel" in str(exc)
            continue
        # a cut on a top-level field boundary can leave a complete, shorter message:
        # then it must be the same program (only optional trailing fields lost)
        assert list(program.desc.blocks) == list(full.blocks), cut


def test_flipped_bytes_never_raise_foreign_errors(lenet):
    data = bytearray(open(lenet + ".pdmodel", "rb").read())
    x = np.random.RandomState(0).rand(1, 1, 28, 28).astype("float32")
    rng = np.random.RandomState(1)
    positions = sorted(set(rng.randint(0, len(data), 150).tolist()))
    cases = [(pos, mask) for pos in positions for mask in (0xFF, 0x01)]
    outcomes = {"format": 0, "loaded": 0, "run error": 0}
    for pos, mask in cases:
        bad = bytearray(data)
        bad[pos] ^= mask
        with open(lenet + ".pdmodel", "wb") as fh:
            fh.write(bad)
        try:
            pred = create_predictor(Config(lenet + ".pdmodel", lenet + ".pdiparams"))
        except FormatError as exc:
            assert "model.pdmodel" in str(exc) or "model.pdiparams" in str(exc), str(exc)
            outcomes["format"] += 1
            continue
        except OpError:                  # a planned op refuses its (corrupt) attributes
            outcomes["run error"] += 1
            continue
        outcomes["loaded"] += 1
        try:
            pred.run([x])
        except OpError:                  # ExecutionError names the op and its inputs
            outcomes["run error"] += 1
    assert outcomes["format"] > len(cases) // 3, outcomes


def test_not_a_model(tmp_path):
    for i, data in enumerate((b"", b"hello world, not a protobuf", os.urandom(300),
                              b"\x0a\xff\xff\xff\xff\x0f")):
        path = tmp_path / f"m{i}.pdmodel"
        path.write_bytes(data)
        with pytest.raises(FormatError, match=f"m{i}.pdmodel"):
            read_program(str(path))


def test_missing_model_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.pdmodel"):
        read_program(str(tmp_path / "nope.pdmodel"))
    with pytest.raises(ValueError, match="not exists"):
        paddle.jit.load(str(tmp_path / "nope"))


def test_missing_required_field(lenet):
    d = _desc(lenet)
    d.blocks[0].ClearField("parent_idx")
    _write_desc(lenet, d)
    _expect_format_error(lenet, "model.pdmodel", "parent_idx")


def test_unknown_op_type_is_named_with_the_op_list(lenet):
    d = _desc(lenet)
    d.blocks[0].ops[3].type = "elementwise_addd"
    _write_desc(lenet, d)
    with pytest.raises(UnknownOpError) as info:
        paddle.jit.load(lenet)
    msg = str(info.value)
    assert "'elementwise_addd'" in msg and "model.pdmodel" in msg
    assert "conv2d x2" in msg and "matmul_v2 x3" in msg      # the model's op list


def test_op_naming_an_undeclared_variable(lenet):
    d = _desc(lenet)
    op = d.blocks[0].ops[1]                  # conv2d
    for slot in op.inputs:
        if slot.parameter == "Input":
            slot.arguments[0] = "ghost_var"
    _write_desc(lenet, d)
    _expect_format_error(lenet, "ghost_var", "conv2d")


def test_duplicate_variable(lenet):
    d = _desc(lenet)
    d.blocks[0].vars.add().CopyFrom(d.blocks[0].vars[0])
    _write_desc(lenet, d)
    _expect_format_error(lenet, "declared twice", d.blocks[0].vars[0].name)


def test_bad_block_index(lenet):
    d = _desc(lenet)
    d.blocks[0].idx = 3
    _write_desc(lenet, d)
    _expect_format_error(lenet, "block #0")


def test_sub_block_out_of_range(tmp_path):
    src = os.path.join(REF, "minimal", "cond", "model.pdmodel")
    d = pb.ProgramDesc()
    d.ParseFromString(open(src, "rb").read())
    for op in d.blocks[0].ops:
        if op.type == "conditional_block":
            for a in op.attrs:
                if a.name == "sub_block":
                    a.block_idx = 42
            break
    path = tmp_path / "m.pdmodel"
    path.write_bytes(d.SerializeToString())
    with pytest.raises(FormatError, match="sub-block index 42 is out of range"):
        read_program(str(path))


def test_cycle_of_sub_blocks(tmp_path):
    src = os.path.join(REF, "minimal", "while", "model.pdmodel")
    d = pb.ProgramDesc()
    d.ParseFromString(open(src, "rb").read())
    body = d.blocks[1]
    op = body.ops.add()
    op.CopyFrom([o for o in d.blocks[0].ops if o.type == "while"][0])
    for a in op.attrs:
        if a.name == "sub_block":
            a.block_idx = 1                       # block 1 owning itself ...
    path = tmp_path / "m.pdmodel"
    path.write_bytes(d.SerializeToString())
    with pytest.raises(FormatError, match="out of range"):
        read_program(str(path))
    nb = d.blocks.add(idx=2, parent_idx=1)        # ... or 1 -> 2 -> 1
    nb.ops.add().CopyFrom(op)
    for a in op.attrs:
        if a.name == "sub_block":
            a.block_idx = 2
    path.write_bytes(d.SerializeToString())
    with pytest.raises(FormatError, match="cycle"):
        read_program(str(path))


def test_attribute_of_the_wrong_kind(lenet):
    d = _desc(lenet)
    for a in d.blocks[0].ops[1].attrs:            # conv2d strides INTS -> STRING
        if a.name == "strides":
            a.type = pb.AttrType.STRING
            del a.ints[:]
            a.s = "oops"
    _write_desc(lenet, d)
    _expect_format_error(lenet, "strides", "STRING")


def test_compatible_attribute_type_is_converted(lenet):
    d = _desc(lenet)
    for a in d.blocks[0].ops[3].attrs:            # elementwise_add axis INT -> LONG
        if a.name == "axis":
            a.type, a.l = pb.AttrType.LONG, a.i
            a.ClearField("i")
    _write_desc(lenet, d)
    program = read_program(lenet + ".pdmodel")
    op = program.global_block().ops[3]
    assert op.attr("axis") == -1 and op.attr_type("axis") == "INT"


def test_missing_attributes_take_declared_defaults(tmp_path):
    d = pb.ProgramDesc()
    d.ParseFromString(open(os.path.join(REF, "minimal", "linear", "model.pdmodel"),
                           "rb").read())
    for op in d.blocks[0].ops:
        if op.type == "matmul_v2":
            del op.attrs[:]                   # trans_x / trans_y left out (FORMAT.md 7.2 #4)
    (tmp_path / "model.pdmodel").write_bytes(d.SerializeToString())
    shutil.copy(os.path.join(REF, "minimal", "linear", "model.pdiparams"),
                tmp_path / "model.pdiparams")
    pred = create_predictor(Config(str(tmp_path / "model")))
    x = dict(np.load(os.path.join(REF, "minimal", "linear", "inputs.npz")))["x"]
    want = list(np.load(os.path.join(REF, "minimal", "linear", "outputs.npz")).values())[0]
    np.testing.assert_allclose(pred.run([x])[0], want, atol=1e-5)


# ----------------------------------------------------------------- feed / fetch
def _set_col(op, col):
    for a in op.attrs:
        if a.name == "col":
            a.i = col


def test_feed_col_out_of_range(lenet):
    d = _desc(lenet)
    _set_col(d.blocks[0].ops[0], 5)
    _write_desc(lenet, d)
    _expect_format_error(lenet, "col 5 is out of range")


def test_feed_without_col(lenet):
    d = _desc(lenet)
    op = d.blocks[0].ops[0]
    keep = [a for a in op.attrs if a.name != "col"]
    del op.attrs[:]
    op.attrs.extend(keep)
    _write_desc(lenet, d)
    _expect_format_error(lenet, "no 'col'")


def test_missing_fetch_op(lenet):
    d = _desc(lenet)
    del d.blocks[0].ops[-1]
    _write_desc(lenet, d)
    _expect_format_error(lenet, "no fetch ops")


def test_missing_feed_op(lenet):
    d = _desc(lenet)
    del d.blocks[0].ops[0]
    _write_desc(lenet, d)
    _expect_format_error(lenet, "no feed ops")


# ----------------------------------------------------------------- .pdiparams
def test_params_truncated_at_many_offsets(lenet):
    data = open(lenet + ".pdiparams", "rb").read()
    program = read_program(lenet + ".pdmodel")
    for cut in list(range(0, 40)) + list(range(40, len(data), 4099)) + [len(data) - 1]:
        with open(lenet + ".pdiparams", "wb") as fh:
            fh.write(data[:cut])
        with pytest.raises(FormatError) as info:
            load_params(program, lenet + ".pdiparams", lenet + ".pdmodel")
        assert "model.pdiparams" in str(info.value)
    with open(lenet + ".pdiparams", "wb") as fh:
        fh.write(data[:-7])
    msg = _expect_format_error(lenet, "model.pdiparams", "truncated")
    assert "linear_2.w_0" in msg           # the last tensor (sorted order) is the one cut


def test_params_with_trailing_bytes(lenet):
    with open(lenet + ".pdiparams", "ab") as fh:
        fh.write(b"\0" * 16)
    _expect_format_error(lenet, "model.pdiparams", "follow the last")


def test_params_wrong_version(lenet):
    data = bytearray(open(lenet + ".pdiparams", "rb").read())
    data[0] = 1
    with open(lenet + ".pdiparams", "wb") as fh:
        fh.write(data)
    _expect_format_error(lenet, "model.pdiparams", "version")


def test_params_flipped_bytes(lenet):
    data = bytearray(open(lenet + ".pdiparams", "rb").read())
    program = read_program(lenet + ".pdmodel")
    for pos in range(0, 40):
        bad = bytearray(data)
        bad[pos] ^= 0x5A
        with open(lenet + ".pdiparams", "wb") as fh:
            fh.write(bad)
        try:
            load_params(program, lenet + ".pdiparams", lenet + ".pdmodel")
        except FormatError as exc:
            assert "model.pdiparams" in str(exc)


def test_param_size_mismatch_names_the_variable(lenet):
    d = _desc(lenet)
    for v in d.blocks[0].vars:
        if v.name == "conv2d_0.w_0":
            v.type.lod_tensor.tensor.dims[0] = 7      # the file holds [6, 1, 5, 5]
    _write_desc(lenet, d)
    _expect_format_error(lenet, "conv2d_0.w_0", "[6, 1, 5, 5]", "[7, 1, 5, 5]")


def test_param_dtype_mismatch_names_the_variable(lenet):
    d = _desc(lenet)
    for v in d.blocks[0].vars:
        if v.name == "linear_0.b_0":
            v.type.lod_tensor.tensor.data_type = pb.VarType.FP64
    _write_desc(lenet, d)
    _expect_format_error(lenet, "linear_0.b_0", "float64")


def test_params_file_short_by_a_record(lenet):
    d = _desc(lenet)
    v = d.blocks[0].vars.add()
    v.CopyFrom([x for x in d.blocks[0].vars if x.name == "linear_2.w_0"][0])
    v.name = "zz_extra.w_0"                       # the program wants one more tensor
    _write_desc(lenet, d)
    _expect_format_error(lenet, "model.pdiparams", "zz_extra.w_0")


def test_missing_params_file(lenet):
    os.remove(lenet + ".pdiparams")
    with pytest.raises(FileNotFoundError, match="model.pdiparams"):
        create_predictor(Config(lenet + ".pdmodel", lenet + ".pdiparams"))
    with pytest.raises(FileNotFoundError, match="conv2d_0.b_0"):
        paddle.jit.load(lenet)


# ----------------------------------------------------------------- no code from files
class _Boom:
    def __reduce__(self):
        return (os.system, ("touch " + _Boom.sentinel,))


def test_params_info_pickle_never_runs_code(lenet, tmp_path):
    _Boom.sentinel = str(tmp_path / "pwned")
    with open(lenet + ".pdiparams.info", "wb") as fh:
        pickle.dump({"conv2d_0.b_0": _Boom()}, fh, protocol=2)
    with pytest.raises(UnsafePickleError, match="system"):
        paddle.jit.load(lenet)
    assert not os.path.exists(_Boom.sentinel)


def test_static_load_pickle_never_runs_code(tmp_path):
    _Boom.sentinel = str(tmp_path / "pwned")
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data("x", [None, 2], "float32")
            paddle.nn.Linear(2, 2)(x)
    finally:
        paddle.disable_static()
    with open(tmp_path / "m.pdparams", "wb") as fh:
        pickle.dump({"w": _Boom()}, fh, protocol=2)
    with pytest.raises(UnsafePickleError):
        paddle.static.load(main, str(tmp_path / "m"))
    assert not os.path.exists(_Boom.sentinel)
