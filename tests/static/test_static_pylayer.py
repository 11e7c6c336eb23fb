"""paddle.static.nn.static_pylayer: the ``pylayer`` op (forward and backward
blocks), its grad ``pylayer_grad`` running the user's backward block, the
executor runners, and saving for inference (the backward block is dropped).
Structure and numbers are compared with real Paddle 2.6.2
(tests/jit/fixtures/pylayer_paddle.json, recorded by tests/interop/record_pylayer.py)."""
import json
import os

import numpy as np
import pytest

import sampan as paddle
from sampan import static

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "jit", "fixtures",
                       "pylayer_paddle.json")


@pytest.fixture(scope="module")
def ref():
    with open(FIXTURE) as f:
        return json.load(f)["static_pylayer"]


@pytest.fixture
def progs():
    paddle.enable_static()
    main, start = static.Program(), static.Program()
    try:
        with static.program_guard(main, start), paddle.utils.unique_name.guard():
            yield main, start
    finally:
        paddle.disable_static()


def _run(main, start, feed, fetch):
    exe = static.Executor(paddle.CPUPlace())
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(start)
        return exe.run(main, feed=feed, fetch_list=fetch)


def _blocks(program):
    out = []
    for b in program.blocks:
        ops = []
        for op in b.ops:
            d = {"type": op.type, "inputs": {k: op.input(k) for k in op.input_names},
                 "outputs": {k: op.output(k) for k in op.output_names}}
            if op.type == "pylayer":
                d["blocks"] = [x.idx for x in op._blocks_attr("blocks")]
            if op.type == "pylayer_grad":
                d["backward_block"] = op._block_attr("backward_block").idx
            ops.append(d)
        out.append({"idx": b.idx, "parent": b.parent_idx,
                    "forward_block_idx": b.forward_block_idx, "ops": ops,
                    "roles": [op.attr("op_role") for op in b.ops]})
    return out


def _exp_example():
    data = static.data(name="X", shape=[None, 5], dtype="float32")
    data.stop_gradient = False
    ret = static.nn.static_pylayer(lambda x: paddle.exp(x), [data],
                                   lambda dy: 2 * paddle.exp(dy))
    return data, ret


def test_program_matches_paddle(progs, ref):
    main, _ = progs
    _exp_example()
    assert _blocks(main) == ref["program"]
    op = main.global_block().ops[-1]
    assert op.type == "pylayer" and op.attr_type("blocks") == "BLOCKS"


def test_values_and_grad_match_paddle(progs, ref):
    main, start = progs
    data, ret = _exp_example()
    grad = static.gradients([ret], data)[0]
    g, y = _run(main, start, {"X": np.array(ref["x"], "float32")}, [grad, ret])
    np.testing.assert_allclose(y, ref["y"], rtol=1e-6)
    np.testing.assert_allclose(g, ref["grad"], rtol=1e-6)
    # the grad op: Paddle's slots and its backward_block
    gop = [b for b in _blocks(main)[0]["ops"] if b["type"] == "pylayer_grad"][0]
    want = [b for b in ref["program_with_grad"][0]["ops"] if b["type"] == "pylayer_grad"][0]
    assert gop == want


def test_several_inputs_and_outputs(progs):
    main, start = progs
    x = static.data("x", [3], "float32")
    y = static.data("y", [3], "float32")
    x.stop_gradient = y.stop_gradient = False

    def fwd(a, b):
        return a * b, a + b

    def bwd(d1, d2):            # custom: not the autograd of fwd
        return d1 * 3.0, None

    p, s = static.nn.static_pylayer(fwd, [x, y], bwd)
    loss = paddle.sum(p) + paddle.sum(s * 2.0)
    gx, gy = static.gradients([loss], [x, y])
    xv, yv = np.array([1., 2., 3.], "float32"), np.array([4., 5., 6.], "float32")
    fetch = [p, s, gx] + ([gy] if gy is not None else [])
    out = _run(main, start, {"x": xv, "y": yv}, fetch)
    np.testing.assert_allclose(out[0], xv * yv)
    np.testing.assert_allclose(out[1], xv + yv)
    np.testing.assert_allclose(out[2], np.full(3, 3.0))
    if gy is not None:          # the backward gave None for y: no gradient (a leaf)
        assert out[3] is None or np.all(np.asarray(out[3]) == 0)


def test_missing_output_grad_is_zeros(progs):
    main, start = progs
    x = static.data("x", [2], "float32")
    x.stop_gradient = False
    seen = []

    def bwd(d1, d2):
        seen.append(d2)
        return d1 + d2 * 100.0

    a, b = static.nn.static_pylayer(lambda v: (v * 2.0, v * 3.0), [x], bwd)
    (g,) = static.gradients([paddle.sum(a)], [x])      # b gets no gradient: zeros
    out = _run(main, start, {"x": np.ones(2, "float32")}, [g])
    np.testing.assert_allclose(out[0], [1.0, 1.0])


def test_training_through_static_pylayer(progs):
    """A scaled gradient (x0.1) through the pylayer: the Linear before it
    trains with a tenth of autograd's gradient."""
    main, start = progs
    x = static.data("x", [None, 4], "float32")
    fc1 = paddle.nn.Linear(4, 3)
    fc2 = paddle.nn.Linear(3, 1)
    h = fc1(x)
    h2 = static.nn.static_pylayer(lambda v: paddle.tanh(v), [h],
                                  lambda dy: dy * 0.1)
    loss = paddle.mean(fc2(h2))
    pg = static.append_backward(loss)
    names = {p.name: g for p, g in pg}
    w1 = fc1.weight.name
    xv = np.random.RandomState(0).randn(5, 4).astype("float32")
    exe = static.Executor(paddle.CPUPlace())
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(start)
        gw1, hv, w2 = exe.run(main, feed={"x": xv},
                              fetch_list=[names[w1], h, fc2.weight.name])
    # d loss / d h2 = w2^T / N; custom backward: x 0.1 (no tanh derivative)
    dh = np.tile(w2.reshape(1, -1), (5, 1)) / 5.0 * 0.1
    np.testing.assert_allclose(gw1, xv.T @ dh, rtol=1e-5, atol=1e-7)


def test_sgd_minimize_through_pylayer(progs):
    main, start = progs
    x = static.data("x", [None, 2], "float32")
    fc = paddle.nn.Linear(2, 2)
    y = static.nn.static_pylayer(lambda v: paddle.round(v), [fc(x)], lambda dy: dy)
    loss = paddle.mean(y * 1.0 + fc(x) * 0.0)
    paddle.optimizer.SGD(0.1).minimize(loss)
    xv = np.array([[1.0, 2.0], [3.0, 4.0]], "float32")
    exe = static.Executor(paddle.CPUPlace())
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(start)
        b0 = np.array(scope.find_var(fc.bias.name).get_tensor()).copy()
        exe.run(main, feed={"x": xv}, fetch_list=[loss])
        b1 = np.array(scope.find_var(fc.bias.name).get_tensor())
    # straight-through: d loss / d bias = 1/(N*C) * N per column = 0.5
    np.testing.assert_allclose(b0 - b1, [0.05, 0.05], rtol=1e-5)


def test_no_backward_stops_gradient(progs):
    main, start = progs
    x = static.data("x", [2], "float32")
    w = static.create_parameter([2], "float32", name="w_pyl",
                                default_initializer=paddle.nn.initializer.Constant(1.0))
    y = static.nn.static_pylayer(lambda v: v * 2.0, [x * 1.0])
    assert y.stop_gradient
    loss = paddle.sum(y * w)
    pg = dict((p.name, g) for p, g in static.append_backward(loss))
    assert "w_pyl" in pg
    out = _run(main, start, {"x": np.array([1., 2.], "float32")}, [pg["w_pyl"]])
    np.testing.assert_allclose(out[0], [2.0, 4.0])


def test_errors(progs):
    x = static.data("x", [2], "float32")
    x.stop_gradient = False
    with pytest.raises(ValueError, match="stop_gradient"):
        static.nn.static_pylayer(lambda v: v * 2.0, [x])
    with pytest.raises(AssertionError):
        static.nn.static_pylayer(lambda v: v * 2.0, (x,), lambda d: d)
    with pytest.raises(ValueError, match="one gradient"):
        static.nn.static_pylayer(lambda v: v * 2.0, [x], lambda d: (d, d))
    with pytest.raises(TypeError):
        static.nn.static_pylayer(None, [x], lambda d: d)


def test_dygraph_mode_refused():
    with pytest.raises(AssertionError, match="PyLayer"):
        static.nn.static_pylayer(lambda v: v, [paddle.ones([2])])


def test_save_inference_model_drops_backward_block(progs, tmp_path):
    main, start = progs
    x = static.data("x", [None, 3], "float32")
    fc = paddle.nn.Linear(3, 2)
    y = static.nn.static_pylayer(lambda v: paddle.tanh(v) * 2.0, [fc(x)], lambda d: d * 0.5)
    out = paddle.sum(y, axis=1)
    exe = static.Executor(paddle.CPUPlace())
    xv = np.random.RandomState(1).randn(4, 3).astype("float32")
    prefix = str(tmp_path / "m")
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(start)
        want = exe.run(main, feed={"x": xv}, fetch_list=[out])[0]
        static.save_inference_model(prefix, [x], [out], exe, program=main)
        prog, feeds, fetches = static.load_inference_model(prefix, exe)
        got = exe.run(prog, feed={feeds[0]: xv}, fetch_list=fetches)[0]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    ops = [op for op in prog.global_block().ops if op.type == "pylayer"]
    assert len(ops) == 1 and len(ops[0]._blocks_attr("blocks")) == 1
    assert prog.num_blocks == 2
    # the training program keeps both blocks
    assert len([op for op in main.global_block().ops
                if op.type == "pylayer"][0]._blocks_attr("blocks")) == 2


def test_paddle_training_program_runs():
    """A training Program Paddle wrote (its backward block reads a saved
    forward-block tensor it does not declare) loads and runs: Paddle's numbers."""
    import base64
    with open(FIXTURE) as f:
        ref = json.load(f)["saved_program"]
    prog = static.Program.parse_from_string(base64.b64decode(ref["program"]))
    exe = static.Executor(paddle.CPUPlace())
    for _ in range(2):          # planned once, the declarations added stay valid
        y, g = exe.run(prog, feed={"x": np.array(ref["x"], "float32")},
                       fetch_list=ref["fetch"])
        np.testing.assert_allclose(y, ref["y"], rtol=1e-6)
        np.testing.assert_allclose(g, ref["grad"], rtol=1e-5)
