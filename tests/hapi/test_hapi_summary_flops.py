"""paddle.summary and paddle.flops against what real Paddle 2.6.2 printed
for the same nets (fixtures/paddle_hapi.json, tests/interop/record_hapi.py)."""
import contextlib
import io
import json
import os
import sys

import pytest

import sampan as paddle

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hapi_nets as nets  # noqa: E402

REC = json.load(open(os.path.join(HERE, "fixtures", "paddle_hapi.json")))["nets"]


def _run(fn):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        out = fn()
    return out, buf.getvalue()


def _build(builder):
    with paddle.utils.unique_name.guard():
        return builder(paddle)


@pytest.mark.parametrize("name,builder,size", [(c[0], c[1], c[2]) for c in nets.CASES])
def test_summary_table_equals_paddles(name, builder, size):
    net = _build(builder)
    info, text = _run(lambda: paddle.summary(net, size))
    assert text == REC[name]["summary"]
    assert {k: int(v) for k, v in info.items()} == REC[name]["summary_info"]
    assert net.training     # restored after the eval-mode run


@pytest.mark.parametrize("name,builder,size", nets.INT_CASES)
def test_summary_of_int_input_nets_equals_paddles(name, builder, size):
    net = _build(builder)
    info, text = _run(lambda: paddle.summary(net, size, dtypes="int64"))
    assert text == REC[name]["summary"]
    assert {k: int(v) for k, v in info.items()} == REC[name]["summary_info"]


@pytest.mark.parametrize("name,builder,size", [(c[0], c[1], c[3]) for c in nets.CASES
                                               if c[3] is not None])
def test_flops_equal_paddles(name, builder, size):
    net = _build(builder)
    total, text = _run(lambda: paddle.flops(net, size, print_detail=True))
    assert total == REC[name]["flops"]
    # the class paths differ only by the package name
    assert text.replace("sampan.", "paddle.") == REC[name]["flops_text"]
    assert net.training and not any(k in net.conv._buffers if hasattr(net, "conv") else False
                                    for k in ("total_ops", "input_shape"))


def test_summary_inputs_and_specs():
    net = _build(nets.two_inputs)
    x, y = paddle.rand([3, 8]), paddle.rand([3, 6])
    _, by_size = _run(lambda: paddle.summary(net, [(3, 8), (3, 6)]))
    _, by_spec = _run(lambda: paddle.summary(net, [paddle.static.InputSpec([3, 8]),
                                                   paddle.static.InputSpec([3, 6])]))
    assert by_size == by_spec
    net2 = _build(nets.mlp)
    info, text = _run(lambda: paddle.summary(net2, input=paddle.rand([5, 4])))
    assert text == REC["mlp"]["summary"] and info["total_params"] == 131
    del x, y


def test_summary_errors():
    net = nets.mlp(paddle)
    with pytest.raises(ValueError, match="input_size and input cannot be None"):
        paddle.summary(net)
    with pytest.raises(ValueError, match="only the dim of batch_size"):
        paddle.summary(net, (None, None, 4))
    with pytest.raises(ValueError, match="greater than zero"):
        paddle.summary(net, (0, 4))


def test_summary_dtypes_and_leaf_model():
    emb = paddle.nn.Embedding(10, 3)
    info, text = _run(lambda: paddle.summary(emb, (2, 5), dtypes="int64"))
    assert info == {"total_params": 30, "trainable_params": 30}
    assert "[[2, 5]]" in text and "[2, 5, 3]" in text


def test_flops_custom_op_and_uncounted():
    class Scale(paddle.nn.Layer):
        def forward(self, x):
            return x * 2

    def count_scale(m, x, y):
        m.total_ops += int(y.numel())

    net = paddle.nn.Sequential(paddle.nn.Linear(4, 6), Scale(), paddle.nn.Hardswish())
    total, text = _run(lambda: paddle.flops(net, [2, 4], custom_ops={Scale: count_scale}))
    assert total == 4 * 2 * 6 + 12
    assert "Customize Function has been applied" in text
    assert "Cannot find suitable count function" in text and "Hardswish" in text
    assert f"Total Flops: {total}     Total Params: 30" in text


def test_flops_of_other_objects():
    with pytest.warns(UserWarning, match="nn.Layer or paddle.static.Program"):
        assert paddle.flops("not a net", [1]) == -1


def test_static_program_flops():
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        # fresh names: the table names the weight (conv2d_0.w_0 whatever ran before)
        with paddle.static.program_guard(main, start), paddle.utils.unique_name.guard():
            x = paddle.static.data("x", [None, 3, 8, 8], "float32")
            y = paddle.static.nn.conv2d(x, 4, 3)
            z = paddle.nn.functional.avg_pool2d(y, 2)
            z + 1.0
        total, text = _run(lambda: paddle.flops(main, None, print_detail=True))
    finally:
        paddle.disable_static()
    # Paddle 2.6.2 prints the same table and total (run in the side venv): conv2d has no
    # Bias slot (the bias is an elementwise_add), `scale` is not counted
    conv = 4 * 6 * 6 * (3 * 3 * 3)            # output per sample * filter size
    add = 4 * 6 * 6
    pool = (2 * 2 + 1) * 4 * 3 * 3
    assert total == conv + add + pool == 4212
    assert "|      conv2d     | conv2d_0.w_0 |  3888 |" in text
    assert "| elementwise_add |              |  144  |" in text


class _Decorated(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)

    @paddle.jit.to_static
    def forward(self, x):
        return self.fc(x)


def test_flops_of_a_to_static_network_counts_its_eager_code():
    total, text = _run(lambda: paddle.flops(_Decorated(), [2, 4]))
    assert total == 4 * 2 * 3 and "Total Params: 15" in text
