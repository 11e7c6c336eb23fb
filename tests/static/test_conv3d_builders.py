"""static.nn.conv3d / conv3d_transpose (and conv2d / conv2d_transpose, built by
the same code): Paddle 2.6.2's parameter names, shapes and initializers, op
sequence (conv op, elementwise_add on the channel axis, activation), output
names and shapes (all recorded from real Paddle), and values equal to
nn.functional's with the same parameters."""
import numpy as np
import pytest

import sampan as paddle
from sampan import static

F = paddle.nn.functional


@pytest.fixture
def progs():
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    try:
        with paddle.utils.unique_name.guard(), static.program_guard(main, startup):
            yield main, startup
    finally:
        paddle.disable_static()


def _ops(prog):
    return [(op.type, op.attr("axis") if op.has_attr("axis") else None)
            for op in prog.global_block().ops]


def _params(prog):
    return [(p.name, tuple(p.shape)) for p in prog.global_block().all_parameters()]


def test_conv3d_names_shapes_ops(progs):
    main, startup = progs
    x = static.data("x", [2, 3, 5, 6, 6], "float32")
    y = static.nn.conv3d(x, 4, 3, padding=1, act="relu")
    assert y.name == "conv3d_0.tmp_2" and tuple(y.shape) == (2, 4, 5, 6, 6)
    assert _ops(main) == [("conv3d", None), ("elementwise_add", 1), ("relu", None)]
    assert _params(main) == [("conv3d_0.w_0", (4, 3, 3, 3, 3)), ("conv3d_0.b_0", (4,))]
    init = startup.global_block().ops
    assert [op.type for op in init] == ["gaussian_random", "fill_constant"]
    assert init[0].attr("std") == pytest.approx((2.0 / (27 * 3)) ** 0.5)


def test_conv3d_ndhwc_groups_no_bias(progs):
    main, startup = progs
    x = static.data("x", [2, 5, 6, 6, 3], "float32")
    y = static.nn.conv3d(x, 4, 3, data_format="NDHWC")
    assert tuple(y.shape) == (2, 3, 4, 4, 4)
    assert _ops(main) == [("conv3d", None), ("elementwise_add", 4)]
    z = static.nn.conv3d(x, 6, [1, 2, 3], groups=3, bias_attr=False, data_format="NDHWC")
    assert z.name == "conv3d_1.tmp_0" and tuple(z.shape) == (2, 5, 5, 4, 6)
    assert _params(main)[-1] == ("conv3d_1.w_0", (6, 1, 1, 2, 3))


def test_conv3d_transpose_names_shapes_ops(progs):
    main, startup = progs
    x = static.data("x", [2, 3, 5, 6, 6], "float32")
    y = static.nn.conv3d_transpose(x, 4, filter_size=3, stride=2)
    assert y.name == "conv3d_transpose_0.tmp_1" and tuple(y.shape) == (2, 4, 11, 13, 13)
    assert _ops(main) == [("conv3d_transpose", None), ("elementwise_add", 1)]
    assert _params(main) == [("conv3d_transpose_0.w_0", (3, 4, 3, 3, 3)),
                             ("conv3d_transpose_0.b_0", (4,))]
    init = startup.global_block().ops
    assert init[0].type == "uniform_random"           # Xavier: sqrt(6 / (fan_in + fan_out))
    assert init[0].attr("max") == pytest.approx((6.0 / (4 * 27 + 3 * 27)) ** 0.5)
    op = main.global_block().ops[0]
    assert op.attr("data_format") == "NCHW" and op.attr("output_size") == []


def test_conv3d_transpose_filter_from_output_size(progs):
    main, _ = progs
    x = static.data("x", [2, 3, 5, 6, 6], "float32")
    y = static.nn.conv3d_transpose(x, 4, output_size=[12, 14, 14], stride=2)
    assert tuple(y.shape) == (2, 4, 12, 14, 14)
    z = static.nn.conv3d_transpose(x, 4, output_size=11)
    assert tuple(z.shape) == (2, 4, 11, 11, 11)
    assert _params(main)[0] == ("conv3d_transpose_0.w_0", (3, 4, 4, 4, 4))
    assert _params(main)[2] == ("conv3d_transpose_1.w_0", (3, 4, 7, 6, 6))
    assert main.global_block().ops[0].attr("output_size") == [12, 14, 14]
    w = static.data("w", [2, 5, 6, 6, 3], "float32")
    v = static.nn.conv3d_transpose(w, 6, filter_size=2, groups=3, data_format="NDHWC")
    assert tuple(v.shape) == (2, 6, 7, 7, 6)
    assert main.global_block().ops[-1].attr("axis") == 4
    assert main.global_block().ops[-2].attr("data_format") == "NHWC"


def test_conv2d_builders(progs):
    main, startup = progs
    x = static.data("x", [2, 3, 6, 6], "float32")
    y = static.nn.conv2d(x, 4, 3, act="relu")
    assert y.name == "conv2d_0.tmp_2" and tuple(y.shape) == (2, 4, 4, 4)
    assert _ops(main) == [("conv2d", None), ("elementwise_add", 1), ("relu", None)]
    # depthwise only without cudnn: named after the op
    d = static.nn.conv2d(x, 6, 3, groups=3, use_cudnn=False)
    assert d.name == "depthwise_conv2d_0.tmp_1" and _ops(main)[-2][0] == "depthwise_conv2d"
    assert _params(main)[-2] == ("depthwise_conv2d_0.w_0", (6, 1, 3, 3))
    t = static.nn.conv2d_transpose(x, 4, filter_size=3)
    assert t.name == "conv2d_transpose_0.tmp_1" and tuple(t.shape) == (2, 4, 8, 8)
    t2 = static.nn.conv2d_transpose(x, 3, filter_size=2, groups=3, use_cudnn=False)
    assert t2.name == "depthwise_conv2d_transpose_0.tmp_1"
    n = static.data("n", [2, 6, 6, 3], "float32")
    t3 = static.nn.conv2d_transpose(n, 4, output_size=[9, 8], stride=[1, 1],
                                    data_format="NHWC")
    assert tuple(t3.shape) == (2, 9, 8, 4) and _ops(main)[-1] == ("elementwise_add", 3)
    assert _params(main)[-2] == ("conv2d_transpose_1.w_0", (3, 4, 4, 3))
    inits = [(op.type, op.attr("std") if op.type == "gaussian_random" else None)
             for op in startup.global_block().ops][:2]
    assert inits == [("gaussian_random", pytest.approx((2.0 / 27) ** 0.5)),
                     ("fill_constant", None)]


@pytest.mark.parametrize("call", [
    lambda x: static.nn.conv3d(x, 4, 3, data_format="NCHW"),
    lambda x: static.nn.conv3d(x, 4, 3, groups=2),
    lambda x: static.nn.conv3d(x, 4, 3, groups=0),
    lambda x: static.nn.conv3d_transpose(x, 4),
    lambda x: static.nn.conv3d_transpose(x, 5, filter_size=2, groups=3),
    lambda x: static.nn.conv3d_transpose(x, 4, filter_size=2, param_attr=False),
])
def test_errors(progs, call):
    x = static.data("x", [2, 3, 5, 6, 6], "float32")
    with pytest.raises(ValueError):
        call(x)


def test_rank_error(progs):
    x = static.data("x", [2, 3, 6, 6], "float32")
    with pytest.raises(ValueError, match="5D"):
        static.nn.conv3d(x, 4, 3)


def _run(build, x_shape):
    """Run a builder with constant-free random parameters and return its output,
    the parameters' values and the input."""
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", list(x_shape), "float32")
            y = build(x)
        exe = static.Executor()
        exe.run(startup)
        xv = np.random.default_rng(0).standard_normal(x_shape).astype("float32")
        params = [p.name for p in main.global_block().all_parameters()]
        outs = exe.run(main, feed={"x": xv}, fetch_list=[y] + params)
        return xv, outs[0], outs[1:]
    finally:
        paddle.disable_static()


def test_conv3d_values_match_functional():
    xv, out, (w, b) = _run(lambda x: static.nn.conv3d(x, 4, [2, 3, 3], stride=[1, 2, 1],
                                                       padding=1, act="tanh"), (2, 3, 4, 6, 5))
    want = F.tanh(F.conv3d(paddle.to_tensor(xv), paddle.to_tensor(w), paddle.to_tensor(b),
                           stride=[1, 2, 1], padding=1))
    np.testing.assert_allclose(out, want.numpy(), rtol=1e-5, atol=1e-5)


def test_conv3d_transpose_values_match_functional():
    xv, out, (w, b) = _run(lambda x: static.nn.conv3d_transpose(
        x, 6, filter_size=2, stride=2, groups=3, data_format="NDHWC"), (2, 3, 4, 4, 3))
    want = F.conv3d_transpose(paddle.to_tensor(xv), paddle.to_tensor(w), paddle.to_tensor(b),
                              stride=2, groups=3, data_format="NDHWC")
    np.testing.assert_allclose(out, want.numpy(), rtol=1e-5, atol=1e-5)
