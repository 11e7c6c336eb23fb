"""Higher-order grad ops as real Paddle 2.6.2 writes them: a program
differentiated two or three times in static mode holds the same double and
triple grad op types, with the same input and output slot names, in sampan
and in Paddle (the builder is paddle_side.higher_order_ops, run on each)."""
import pytest

import sampan as paddle

from .paddle_side import higher_order_ops

V, M, IMG = [[3]], [[2, 3], [3, 4]], [[1, 2, 4, 4], [3, 2, 3, 3]]
CASES = [
    # (id, expression, shapes, order)
    ("tanh", "paddle.tanh(x)", V, 3),
    ("sigmoid", "F.sigmoid(x)", V, 3),
    ("sin", "paddle.sin(x)", V, 3),
    ("cos", "paddle.cos(x)", V, 3),
    ("pow", "paddle.pow(x, 2.5)", V, 3),
    ("mul", "x * y", V, 3),
    ("matmul", "paddle.matmul(x, y)", M, 3),
    ("relu", "F.relu(x)", V, 2),
    ("leaky_relu", "F.leaky_relu(x, 0.1)", V, 2),
    ("elu", "F.elu(x, 0.5)", V, 2),
    ("celu", "F.celu(x, 0.5)", V, 2),
    ("softplus", "F.softplus(x)", V, 2),
    ("sqrt", "paddle.sqrt(x)", V, 2),
    ("rsqrt", "paddle.rsqrt(x)", V, 2),
    ("square", "paddle.square(x)", V, 2),
    ("log", "paddle.log(x)", V, 2),
    ("abs", "paddle.abs(x)", V, 2),
    ("clip", "paddle.clip(x, -0.5, 0.5)", V, 2),
    ("add", "paddle.tanh(x) + y", V, 2),
    ("sub", "paddle.tanh(x) - y", V, 2),
    ("div", "x / y", V, 2),
    ("reshape", "paddle.reshape(x, [6]) * paddle.reshape(x, [6])", [[2, 3]], 2),
    ("conv2d", "F.conv2d(x, y, padding=1)", IMG, 2),
    ("conv3d", "F.conv3d(x, y, padding=1)", [[1, 2, 3, 3, 3], [2, 2, 2, 2, 2]], 2),
    ("avg_pool", "F.avg_pool2d(x, 2)", [[1, 2, 4, 4]], 2),
    ("pad3d", "F.pad(x, [1, 1, 1, 1], mode='reflect')", [[1, 2, 4, 4]], 2),
    ("batch_norm", "paddle.nn.BatchNorm1D(3)(paddle.tanh(x))", [[4, 3, 2]], 2),
    ("instance_norm", "paddle.nn.InstanceNorm1D(3)(paddle.tanh(x))", [[4, 3, 2]], 2),
]


@pytest.fixture(scope="module")
def paddle_slots(paddle_side, tmp_path_factory):
    job = {"id": "grad_slots", "kind": "grad_slots",
           "cases": [{"id": i, "expr": e, "shapes": s, "order": o} for i, e, s, o in CASES]}
    results = paddle_side.run([job], tmp_path_factory.mktemp("interop_grad_slots"))
    res = results["grad_slots"]
    assert res["ok"], "real Paddle could not build the programs:\n" + res["traceback"]
    return res["result"]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_higher_order_grad_ops_have_paddles_slots(case, paddle_slots):
    cid, expr, shapes, order = case
    res = paddle_slots[cid]
    assert res["ok"], f"{cid}: real Paddle could not build the program: {res['error']}"
    want = res["ops"]
    got = higher_order_ops(paddle, expr, shapes, order)
    assert got, f"{cid}: sampan wrote no double/triple grad op"
    # Paddle may also differentiate a grad op whose result nothing reads (the
    # gradient of a filled constant): sampan's ops are a subset of Paddle's
    assert set(got) <= set(want), f"{cid}: op types sampan {sorted(got)}, " \
                                  f"paddle {sorted(want)}"
    assert any(t.endswith("_triple_grad") for t in got) == \
        any(t.endswith("_triple_grad") for t in want), f"{cid}: triple grads differ"
    for t in got:
        assert got[t] == want[t], f"{cid}: {t} slots sampan {got[t]}, paddle {want[t]}"
