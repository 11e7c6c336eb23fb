"""The static-graph seed's first example (two static.data, nn.Linear, MSELoss,
Adam().minimize) built in real Paddle 2.6.2 and in sampan: the op types of the
main and the startup program, in order, are the same (issue 3: "the op types
of simple programs equal Paddle's")."""
import pytest

import sampan as paddle

PROGRAMS = ["main", "startup"]


def _missing():
    # backward (H1) is the API to look for; static minimize (H3) has no name of its own.
    return [] if hasattr(paddle.static, "append_backward") else ["sampan.static.append_backward"]


def _sampan_op_types():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data(shape=[16, 16], name="x")
            label = paddle.static.data(shape=[16, 1], name="label")
            out = paddle.nn.Linear(in_features=16, out_features=1)(x)
            loss = paddle.nn.MSELoss()(out, label)
            paddle.optimizer.Adam().minimize(loss)
        return {"main": [op.type for op in main.global_block().ops],
                "startup": [op.type for op in startup.global_block().ops]}
    finally:
        paddle.disable_static()


@pytest.fixture(scope="module")
def paddle_op_types(paddle_side, tmp_path_factory):
    results = paddle_side.run([{"id": "seed", "kind": "seed_program"}],
                              tmp_path_factory.mktemp("interop_seed"))
    res = results["seed"]
    assert res["ok"], "real Paddle could not build the seed program:\n" + res["traceback"]
    return res["result"]


@pytest.mark.parametrize("program", PROGRAMS)
def test_seed_program_op_types_equal_paddles(program, request):
    missing = _missing()
    if missing:
        pytest.skip("waiting for sampan API: " + ", ".join(missing))
    want = request.getfixturevalue("paddle_op_types")[program]
    got = _sampan_op_types()[program]
    assert got == want, "%s program op types\n sampan: %s\n paddle: %s" % (program, got, want)
