"""sampan_batch_norm_affine_pass (inference/bn_affine.py): an inference
batch_norm no conv took in (DenseNet's BN-ReLU before a conv) becomes a
per-channel elementwise_mul + elementwise_add, computed as the batch_norm
kernel computes them: the predictor's outputs equal those without the pass
(to float32 rounding: the fusion after it may compile the chain), and a
batch_norm whose statistics output is read stays."""
import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec
from .predictors import predictor as _predictor, op_types as _types

nn = paddle.nn


class PreAct(nn.Layer):
    def __init__(self, layout="NCHW"):
        super().__init__()
        self.bn = nn.BatchNorm2D(4, data_format=layout)
        self.conv = nn.Conv2D(4, 3, 3, padding=1, data_format=layout)

    def forward(self, x):
        return self.conv(nn.functional.relu(self.bn(x)))


def _randomize(bn):
    rs = np.random.RandomState(5)
    for p, lo, hi in ((bn.weight, 0.5, 1.5), (bn.bias, -0.5, 0.5), (bn._mean, -0.3, 0.3),
                      (bn._variance, 0.5, 2.0)):
        p.set_value(rs.uniform(lo, hi, 4).astype("float32"))


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_batch_norm_becomes_its_affine_map(tmp_path, layout):
    paddle.seed(3)
    net = PreAct(layout)
    _randomize(net.bn)
    net.eval()
    shape = [4, 6, 5] if layout == "NCHW" else [6, 5, 4]
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, input_spec=[InputSpec([None] + shape, "float32")])
    plain = _predictor(prefix, skip=["sampan_batch_norm_affine_pass"])
    fast = _predictor(prefix)
    assert "batch_norm" in _types(plain) and "batch_norm" not in _types(fast)
    assert "sampan_batch_norm_affine_pass: batch_norm x1 -> elementwise_add x1, " \
           "elementwise_mul x1" in fast.explain()
    x = np.random.RandomState(1).standard_normal([2] + shape).astype("float32")
    want, got = plain.run([x])[0], fast.run([x])[0]
    assert np.abs(got - want).max() <= 1e-6 * np.abs(want).max()
    eager = net(paddle.to_tensor(x)).numpy()
    assert np.abs(got - eager).max() <= 1e-5 * np.abs(eager).max()


def test_a_read_statistic_keeps_the_batch_norm():
    from sampan.inference.bn_affine import batch_norm_affine
    from sampan.inference.passes import _uses
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data("x", [None, 4, 3, 3], "float32")
            bn = nn.BatchNorm2D(4)
            bn.eval()
            y = bn(x)
        block = main.global_block()
        op = next(o for o in block.ops if o.type == "batch_norm")
        params = {op.input(s)[0]: np.ones(4, "float32")
                  for s in ("Scale", "Bias", "Mean", "Variance")}
        saved = op.output("SavedMean")[0]
        block.append_op("scale", inputs={"X": [saved]},
                        outputs={"Out": [block.create_var(name="read", dtype="float32")]},
                        attrs={"scale": 1.0})
        assert batch_norm_affine(main, params, {"x"}, [y.name], _uses(main)) == 0
        block._remove_op(len(block.ops) - 1)
        assert batch_norm_affine(main, params, {"x"}, [y.name], _uses(main)) == 1
        assert [o.type for o in block.ops].count("batch_norm") == 0
    finally:
        paddle.disable_static()
