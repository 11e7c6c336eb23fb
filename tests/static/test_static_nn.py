"""``static.nn`` layer builders: parameters named after the builder (declared in
the main program, initialized by the startup program), Paddle's op types, and
the numbers of the same computation in numpy."""
import contextlib

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.utils import unique_name


@contextlib.contextmanager
def building():
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup):
            yield main, startup
    finally:
        paddle.disable_static()


def run(main, startup, feed, fetch):
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=fetch, scope=scope)


def test_fc_is_mul_plus_bias_plus_activation():
    with building() as (main, startup):
        x = static.data("x", [-1, 2, 3], "float32")
        y = static.nn.fc(x, 4, num_flatten_dims=1, activation="relu")
    assert [op.type for op in main.global_block().ops] == ["mul", "elementwise_add", "relu"]
    assert sorted(p.name for p in main.all_parameters()) == ["fc_0.b_0", "fc_0.w_0"]
    assert main.global_block().var("fc_0.w_0").shape == (6, 4)
    assert y.shape == (-1, 4) and main.global_block().ops[0].output("Out") == ["fc_0.tmp_0"]
    xv = np.random.default_rng(0).normal(size=(5, 2, 3)).astype("float32")
    got, w, b = run(main, startup, {"x": xv}, [y, "fc_0.w_0", "fc_0.b_0"])
    np.testing.assert_allclose(got, np.maximum(xv.reshape(5, 6) @ w + b, 0), rtol=1e-5)


def test_fc_several_inputs_are_summed():
    with building() as (main, startup):
        a = static.data("a", [-1, 2], "float32")
        b = static.data("b", [-1, 3], "float32")
        y = static.nn.fc([a, b], 2, bias_attr=False)
    types = [op.type for op in main.global_block().ops]
    assert types == ["mul", "mul", "sum"]
    av, bv = np.ones((1, 2), "float32"), np.ones((1, 3), "float32")
    got, w0, w1 = run(main, startup, {"a": av, "b": bv}, [y, "fc_0.w_0", "fc_0.w_1"])
    np.testing.assert_allclose(got, av @ w0 + bv @ w1, rtol=1e-5)


def test_norm_conv_embedding_builders():
    with building() as (main, startup):
        img = static.data("img", [2, 3, 5, 5], "float32")
        ids = static.data("ids", [2, 4], "int64")
        c = static.nn.conv2d(img, 4, 3, padding=1, act="relu")
        bn = static.nn.batch_norm(c, is_test=True)
        ln = static.nn.layer_norm(bn, begin_norm_axis=1)
        gn = static.nn.group_norm(c, groups=2)
        inn = static.nn.instance_norm(c)
        pr = static.nn.prelu(c, "channel")
        emb = static.nn.embedding(ids, size=[10, 6])
    names = sorted(p.name for p in main.all_parameters())
    assert "conv2d_0.w_0" in names and "batch_norm_0.w_1" in names
    assert "embedding_0.w_0" in names and "layer_norm_0.w_0" in names
    rng = np.random.default_rng(1)
    feed = {"img": rng.normal(size=(2, 3, 5, 5)).astype("float32"),
            "ids": rng.integers(0, 10, (2, 4)).astype("int64")}
    out = run(main, startup, feed, [c, bn, ln, gn, inn, pr, emb, "embedding_0.w_0"])
    assert [o.shape for o in out[:7]] == [(2, 4, 5, 5)] * 6 + [(2, 4, 6)]
    np.testing.assert_allclose(out[1], out[0] / np.sqrt(1 + 1e-5), rtol=1e-5)  # fresh stats
    flat = out[2].reshape(2, -1)
    np.testing.assert_allclose(flat.mean(1), 0, atol=1e-5)
    np.testing.assert_allclose(out[6], out[7][feed["ids"]])


def test_prelu_mode_is_checked():
    with building():
        x = static.data("x", [2, 3], "float32")
        with pytest.raises(ValueError, match="mode"):
            static.nn.prelu(x, "bad")
