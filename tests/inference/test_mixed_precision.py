"""``paddle.inference.convert_to_mixed_precision`` (inference/mixed_precision.py):
what the converted files hold, and that they run close to the float32 model."""
import numpy as np
import pytest

import sampan as paddle
import sampan.inference as pi
from sampan.inference import convert_to_mixed_precision, PrecisionType, PlaceType
from sampan.save_load.program_io import read_program, load_params


class _Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(3, 8, 3, padding=1)
        self.bn = paddle.nn.BatchNorm2D(8)
        self.fc = paddle.nn.Linear(8, 4)

    def forward(self, x):
        x = paddle.nn.functional.relu(self.bn(self.conv(x)))
        return paddle.nn.functional.softmax(self.fc(x.mean([2, 3])))


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    paddle.seed(3)
    net = _Net()
    net.eval()
    prefix = str(tmp_path_factory.mktemp("fp32") / "net")
    paddle.jit.save(net, prefix,
                    input_spec=[paddle.static.InputSpec([None, 3, 8, 8], "float32", "x")])
    return prefix


def _convert(model, tmp_path, **kw):
    out = str(tmp_path / "sub" / "mixed")
    convert_to_mixed_precision(model + ".pdmodel", model + ".pdiparams", out + ".pdmodel",
                               out + ".pdiparams", PrecisionType.Half, PlaceType.GPU, **kw)
    program = read_program(out + ".pdmodel")
    return out, program, load_params(program, out + ".pdiparams")


def _run(prefix, x):
    cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    p = pi.create_predictor(cfg)
    p.get_input_handle(p.get_input_names()[0]).copy_from_cpu(x)
    p.run()
    return p.get_output_handle(p.get_output_names()[0]).copy_to_cpu()


def _ops(program):
    return [op.type for op in program.global_block().ops]


def test_weights_become_float16_and_io_stays_float32(model, tmp_path):
    out, program, params = _convert(model, tmp_path)
    ops = _ops(program)
    # the feed is read through a cast to float16, the fetch through one back
    assert ops[ops.index("feed") + 1] == "cast"
    assert ops[ops.index("fetch") - 1] == "cast"
    assert ops.count("cast") == 2
    bn = next(op for op in program.global_block().ops if op.type == "batch_norm")
    conv = next(op for op in program.global_block().ops if op.type == "conv2d")
    assert params[conv.input("Filter")[0]].dtype == np.float16
    for slot in ("Scale", "Bias", "Mean", "Variance"):      # batch_norm keeps float32
        assert params[bn.input(slot)[0]].dtype == np.float32
    fc_w = next(op for op in program.global_block().ops if op.type == "matmul_v2").input("Y")[0]
    assert params[fc_w].dtype == np.float16
    for op in program.global_block().ops:
        if op.type == "cast":
            src = program.global_block()._find_var_recursive(op.input("X")[0])
            dst = program.global_block()._find_var_recursive(op.output("Out")[0])
            assert {str(src.dtype), str(dst.dtype)} == {"paddle.float32", "paddle.float16"}
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype("float32")
    want, got = _run(model, x), _run(out, x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-2, atol=2e-3)


def test_without_keep_io_types_the_model_reads_and_writes_float16(model, tmp_path):
    out, program, _ = _convert(model, tmp_path, keep_io_types=False)
    assert "cast" not in _ops(program)
    x = np.random.default_rng(1).standard_normal((1, 3, 8, 8)).astype("float16")
    got = _run(out, x)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype("float32"), _run(model, x.astype("float32")),
                               rtol=2e-2, atol=2e-3)


def test_a_black_listed_op_runs_in_float32_between_casts(model, tmp_path):
    out, program, _ = _convert(model, tmp_path, black_list={"relu"})
    ops = program.global_block().ops
    relu = next(i for i, op in enumerate(ops) if op.type == "relu")
    assert ops[relu - 1].type == "cast" and ops[relu + 1].type == "cast"
    assert ops[relu - 1].attr("out_dtype") == 5 and ops[relu + 1].attr("out_dtype") == 4
    x = np.random.default_rng(2).standard_normal((1, 3, 8, 8)).astype("float32")
    np.testing.assert_allclose(_run(out, x), _run(model, x), rtol=2e-2, atol=2e-3)


def test_float64_becomes_float32(tmp_path):
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data("x", [2, 3], "float32")
            y = paddle.cast(x, "float64") * 2.0 + paddle.full([3], 1.0, "float64")
            out = paddle.cast(y, "float32")
        exe = paddle.static.Executor()
        exe.run(start)
        prefix = str(tmp_path / "f64")
        paddle.static.save_inference_model(prefix, [x], [out], exe, program=main)
    finally:
        paddle.disable_static()
    mixed, program, _ = _convert(prefix, tmp_path)
    for b in program.blocks:
        for v in b.vars.values():
            assert str(v.dtype) != "paddle.float64", v.name
    xv = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_allclose(_run(mixed, xv), 2 * xv + 1, rtol=1e-3)


@pytest.mark.parametrize("precision, backend, kind", [
    (PrecisionType.Half, PlaceType.CPU, ValueError),       # Paddle refuses the CPU too
    (PrecisionType.Bfloat16, PlaceType.GPU, ValueError),   # no bfloat16 in numpy
    (PrecisionType.Int8, PlaceType.GPU, ValueError),
])
def test_refused_requests_write_nothing(model, tmp_path, precision, backend, kind):
    out = str(tmp_path / "m")
    with pytest.raises(kind):
        convert_to_mixed_precision(model + ".pdmodel", model + ".pdiparams", out + ".pdmodel",
                                   out + ".pdiparams", precision, backend)
    assert not list(tmp_path.iterdir())


def test_an_unknown_keyword_is_refused(model, tmp_path):
    with pytest.raises(TypeError, match="grey_list"):
        convert_to_mixed_precision(model + ".pdmodel", model + ".pdiparams",
                                   str(tmp_path / "m.pdmodel"), str(tmp_path / "m.pdiparams"),
                                   PrecisionType.Half, PlaceType.GPU, grey_list={"relu"})
