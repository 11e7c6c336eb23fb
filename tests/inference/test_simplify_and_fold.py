"""The Predictor's inference simplifications and constant folding
(inference/simplify.py, inference/constant_fold.py): each pass leaves the
outputs equal to the unoptimized program's, on the models it rewrites and on
the ones it must leave alone (a loop counter is written again: not a constant)."""
import os

import numpy as np
import pytest

import sampan as paddle
from sampan.executor import Executor, Scope
from sampan.inference.constant_fold import constant_folding
from sampan.inference.simplify import (dead_code_elimination, delete_dropout_op_pass,
                                       is_test_pass)
from sampan.save_load.manifest import read_model
from sampan.save_load.program_io import feed_fetch_targets
from sampan.static import InputSpec

nn = paddle.nn
REF = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "..", "shared", "paddle-reference", "models")


def _load(prefix):
    program, params = read_model(prefix + ".pdmodel", prefix + ".pdiparams")
    feeds, fetches = feed_fetch_targets(program, prefix + ".pdmodel")
    return program, params, feeds, fetches


def _run(program, params, feed, fetches):
    scope = Scope()
    for k, v in params.items():
        scope.var(k).set(v)
    return Executor().run(program, feed=feed, fetch_list=fetches, scope=scope)


def _types(program):
    return [op.type for op in program.global_block().ops]


def test_dropouts_go_and_downgrade_becomes_a_scale(tmp_path):
    paddle.seed(0)
    net = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.3), nn.ReLU(),
                        nn.Dropout(0.2, mode="downscale_in_infer"), nn.Linear(8, 2))
    net.eval()
    paddle.jit.save(net, str(tmp_path / "m"), input_spec=[InputSpec([None, 4], "float32")])
    program, params, feeds, fetches = _load(str(tmp_path / "m"))
    p = program.clone()
    assert delete_dropout_op_pass(p, params, feeds, fetches) == 2
    assert "dropout" not in _types(p) and _types(p).count("scale") == 2
    x = np.random.RandomState(0).rand(3, 4).astype("float32")
    want = net(paddle.to_tensor(x)).numpy()
    np.testing.assert_allclose(_run(p, params, {feeds[0]: x}, fetches)[0], want, rtol=1e-6)


def test_is_test_is_set_and_dead_ops_go():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data("x", [None, 4], "float32")
            y = paddle.nn.functional.dropout(x, 0.5, training=True)
            unused = paddle.exp(x) * 3.0            # read by nothing
            out = paddle.tanh(y)
    finally:
        paddle.disable_static()
    p = main.clone()
    drop = next(op for op in p.global_block().ops if op.type == "dropout")
    assert drop.attr("is_test") is False
    assert is_test_pass(p, {}, ["x"], [out.name]) >= 1 and drop.attr("is_test") is True
    assert dead_code_elimination(p, {}, ["x"], [out.name]) == 2
    assert "exp" not in _types(p) and unused.name not in {n for op in p.global_block().ops
                                                           for n in op.output_arg_names}


def test_folded_reshape_of_a_bias_is_a_parameter(tmp_path):
    paddle.seed(1)
    net = nn.Sequential(nn.Conv2D(3, 4, 3), nn.ReLU())
    net.eval()
    paddle.jit.save(net, str(tmp_path / "m"), input_spec=[InputSpec([None, 3, 6, 6],
                                                                    "float32")])
    program, params, feeds, fetches = _load(str(tmp_path / "m"))
    p = program.clone()
    assert "reshape2" in _types(p)
    assert constant_folding(p, params, feeds, fetches) == 1
    assert "reshape2" not in _types(p)
    x = np.random.RandomState(1).rand(2, 3, 6, 6).astype("float32")
    np.testing.assert_allclose(_run(p, params, {feeds[0]: x}, fetches)[0],
                               net(paddle.to_tensor(x)).numpy(), rtol=1e-6)


@pytest.mark.skipif(not os.path.isdir(os.path.join(REF, "loop")),
                    reason="../shared/paddle-reference/models is not beside the repository")
def test_a_loop_counter_is_not_folded_and_the_predictor_matches_paddle():
    d = os.path.join(REF, "loop")
    prefix = os.path.join(d, next(f for f in os.listdir(d) if f.endswith(".pdmodel"))[:-8])
    program, params, feeds, fetches = _load(prefix)
    p = program.clone()
    constant_folding(p, dict(params), feeds, fetches)
    assert any(op.type == "while" for op in p.global_block().ops)
    pred = paddle.inference.create_predictor(paddle.inference.Config(prefix + ".pdmodel",
                                                                     prefix + ".pdiparams"))
    data = np.load(os.path.join(d, "inputs.npz"))
    want = np.load(os.path.join(d, "outputs.npz"))
    inputs = [data[n] for n in pred.get_input_names()]
    for _ in range(3):                 # a folded counter would drift from run to run
        for got, name in zip(pred.run(inputs), pred.get_output_names()):
            np.testing.assert_allclose(got, want[name], rtol=1e-5, atol=1e-6)
