"""Symbols survive jit.save: the .pdmodel keeps -1, the .sampan.json sidecar
records the relations, and sampan's jit.load, Predictor and ``sampan inspect``
read them back; shape errors then name the symbol."""
import io
import json

import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec
from sampan.save_load.program_io import read_program

from .models import Block


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    paddle.seed(7)
    m = Block()
    m.eval()
    prefix = str(tmp_path_factory.mktemp("symsave") / "block")
    paddle.jit.save(m, prefix, input_spec=[InputSpec(["B", 8, 16], "float32", name="x")])
    return m, prefix


def _manifest(prefix):
    with open(prefix + ".sampan.json", encoding="utf-8") as fh:
        text = fh.read()
    return json.loads(text[:text.rindex(',\n "manifest_sha256"')] + "\n}")


def test_pdmodel_holds_minus_one(saved):
    _, prefix = saved
    program = read_program(prefix + ".pdmodel")       # the file alone: no symbols
    block = program.global_block()
    assert block.var("x").shape == (-1, 8, 16)
    assert all(v._sym is None for v in program.list_vars())
    assert "[B" not in str(program)


def test_sidecar_records_relations(saved):
    _, prefix = saved
    body = _manifest(prefix)
    fwd = body["methods"]["forward"]
    table = fwd["symbols"]
    assert table["x"] == ["B", 8, 16]
    outs = [o["name"] for o in fwd["outputs"]]
    assert [table[n] for n in outs] == [["B*8", 16], ["B+1", 8, 16]]
    assert fwd["inputs"][0]["shape"] == [-1, 8, 16]        # the specs keep Paddle's -1


def test_jit_load_reads_symbols_back(saved):
    m, prefix = saved
    loaded = paddle.jit.load(prefix)
    text = str(loaded.program())
    assert "float32[B, 8, 16]" in text and "float32[B*8, 16]" in text and \
        "float32[B+1, 8, 16]" in text
    x = paddle.to_tensor(np.random.RandomState(0).randn(3, 8, 16).astype("float32"))
    for g, w in zip(loaded(x), m(x)):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


def test_predictor_error_names_the_symbol(saved):
    _, prefix = saved
    from sampan.inference import Config, create_predictor
    pred = create_predictor(Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    with pytest.raises(ValueError, match=r"input 'x': expected shape \[B, 8, 16\].*"
                                         r"got \[2, 7, 16\]"):
        pred.get_input_handle("x").copy_from_cpu(np.zeros((2, 7, 16), "float32"))
    out = pred.run([np.ones((2, 8, 16), "float32")])
    assert out[0].shape == (16, 16) and out[1].shape == (3, 8, 16)


def test_inspect_shows_symbols(saved):
    from sampan.cli.main import main
    _, prefix = saved
    buf = io.StringIO()
    assert main(["inspect", prefix], out=buf) == 0
    text = buf.getvalue()
    assert "float32  [B, 8, 16]" in text                 # the inputs table
    assert "float32[B*8, 16]" in text and "float32[B+1, 8, 16]" in text


def test_sidecar_symbols_never_change_the_desc(saved, tmp_path):
    """A table naming a dim the desc knows (8) is ignored: symbols only label -1."""
    from sampan.program.symbolic import attach
    _, prefix = saved
    program = read_program(prefix + ".pdmodel")
    attach(program, {"x": ["B", "S", 16], "nope": ["B"], "linear_0.w_0": ["B", 48]})
    assert program.global_block().var("x").type_str() == "float32[B, 8, 16]"
    assert program.global_block().var("x").shape == (-1, 8, 16)


def test_loaded_model_saved_again_keeps_symbols(saved, tmp_path):
    _, prefix = saved
    again = str(tmp_path / "again")
    paddle.jit.save(paddle.jit.load(prefix), again)
    table = _manifest(again)["methods"]["forward"]["symbols"]
    assert table["x"] == ["B", 8, 16]
    assert ["B*8", 16] in table.values()
    assert ["B+1", 8, 16] in table.values()


def test_static_save_inference_model_records_symbols(tmp_path):
    main, startup = paddle.static.Program(), paddle.static.Program()
    paddle.enable_static()
    try:
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", ["N", 6], "float32")
            y = paddle.reshape(paddle.static.nn.fc(x, 6), [-1, 3])
        exe = paddle.static.Executor()
        exe.run(startup)
        prefix = str(tmp_path / "static")
        paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
    finally:
        paddle.disable_static()
    table = _manifest(prefix)["methods"]["forward"]["symbols"]
    assert table["x"] == ["N", 6] and ["N*2", 3] in table.values()
