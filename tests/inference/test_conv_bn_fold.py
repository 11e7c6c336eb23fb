"""The Predictor's conv_bn_fuse pass (inference/conv_bn_fold.py): an inference
batch_norm after a conv2d / depthwise_conv2d / conv2d_transpose (with or without
the conv's bias add) is folded into the convolution's filter and one bias add;
outputs equal the unoptimized program's to float32 rounding (rtol 1e-5, atol
1e-6 relative to the output's scale), and patterns whose intermediates are read
elsewhere are left alone."""
import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec

nn = paddle.nn


class ConvBN(nn.Layer):
    def __init__(self, conv, bn, act=None, extra_read=False):
        super().__init__()
        self.conv, self.bn, self.act, self.extra_read = conv, bn, act, extra_read

    def forward(self, x):
        h = self.conv(x)
        y = self.bn(h)
        if self.act is not None:
            y = self.act(y)
        return y + h.mean() if self.extra_read else y


def _randomize_bn(bn, seed):
    rs = np.random.RandomState(seed)
    c = bn.weight.shape[0]
    bn.weight.set_value(rs.uniform(0.5, 1.5, c).astype("float32"))
    bn.bias.set_value(rs.uniform(-0.5, 0.5, c).astype("float32"))
    bn._mean.set_value(rs.uniform(-0.3, 0.3, c).astype("float32"))
    bn._variance.set_value(rs.uniform(0.5, 2.0, c).astype("float32"))


CASES = {
    "conv_bias_bn": lambda: ConvBN(nn.Conv2D(3, 6, 3, padding=1), nn.BatchNorm2D(6)),
    "conv_nobias_bn_relu": lambda: ConvBN(nn.Conv2D(3, 6, 3, bias_attr=False),
                                          nn.BatchNorm2D(6), nn.ReLU()),
    "depthwise_bn": lambda: ConvBN(nn.Conv2D(4, 4, 3, groups=4, padding=1),
                                   nn.BatchNorm2D(4)),
    "transpose_bn": lambda: ConvBN(nn.Conv2DTranspose(3, 5, 3, stride=2),
                                   nn.BatchNorm2D(5)),
    "nhwc": lambda: ConvBN(nn.Conv2D(3, 6, 3, data_format="NHWC"),
                           nn.BatchNorm2D(6, data_format="NHWC")),
}


def _predictors(model, tmp_path, shape):
    model.eval()
    paddle.jit.save(model, str(tmp_path / "m"), input_spec=[InputSpec([None] + shape,
                                                                      "float32")])
    out = []
    for ir in (False, True):
        cfg = paddle.inference.Config(str(tmp_path / "m.pdmodel"),
                                      str(tmp_path / "m.pdiparams"))
        cfg.switch_ir_optim(ir)
        out.append(paddle.inference.create_predictor(cfg))
    return out


def _types(pred):
    return [op.type for op in pred._core.program.global_block().ops]


@pytest.mark.parametrize("name", sorted(CASES))
def test_folded_program_matches_the_unoptimized_one(name, tmp_path):
    paddle.seed(4)
    model = CASES[name]()
    _randomize_bn(model.bn, 1)
    shape = [8, 8, 3] if name == "nhwc" else [model.conv.weight.shape[1] *
                                              (model.conv._groups if name == "depthwise_bn"
                                               else 1) if name != "transpose_bn" else 3, 8, 8]
    plain, folded = _predictors(model, tmp_path, shape)
    assert "batch_norm" in _types(plain) and "batch_norm" not in _types(folded)
    assert "conv_bn_fuse_pass: batch_norm x1" in folded.explain()
    x = np.random.RandomState(2).standard_normal([2] + shape).astype("float32")
    want, got = plain.run([x])[0], folded.run([x])[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * np.abs(want).max())
    eager = model(paddle.to_tensor(x)).numpy()
    np.testing.assert_allclose(got, eager, rtol=1e-5, atol=1e-6 * np.abs(want).max())


def test_a_conv_output_read_elsewhere_is_not_folded(tmp_path):
    paddle.seed(5)
    model = ConvBN(nn.Conv2D(3, 4, 3), nn.BatchNorm2D(4), extra_read=True)
    _randomize_bn(model.bn, 3)
    plain, folded = _predictors(model, tmp_path, [3, 6, 6])
    assert "conv_bn_fuse_pass" not in folded.explain()      # (the affine pass took it)
    x = np.random.RandomState(0).standard_normal([1, 3, 6, 6]).astype("float32")
    np.testing.assert_allclose(folded.run([x])[0], plain.run([x])[0], rtol=1e-6)


def test_the_pass_can_be_deleted_and_leaves_the_file_alone(tmp_path):
    paddle.seed(6)
    model = CASES["conv_bias_bn"]()
    model.eval()
    paddle.jit.save(model, str(tmp_path / "m"), input_spec=[InputSpec([None, 3, 5, 5],
                                                                      "float32")])
    before = (tmp_path / "m.pdmodel").read_bytes()
    cfg = paddle.inference.Config(str(tmp_path / "m.pdmodel"), str(tmp_path / "m.pdiparams"))
    cfg.delete_pass("conv_bn_fuse_pass")
    cfg.delete_pass("sampan_batch_norm_affine_pass")
    assert "batch_norm" in _types(paddle.inference.create_predictor(cfg))
    paddle.inference.create_predictor(paddle.inference.Config(str(tmp_path / "m")))
    assert (tmp_path / "m.pdmodel").read_bytes() == before


ACTS = {"relu": nn.ReLU, "relu6": nn.ReLU6, "hard_swish": nn.Hardswish,
        "swish": nn.Swish, "sigmoid": nn.Sigmoid,
        "leaky_relu": lambda: nn.LeakyReLU(0.05), "gelu": nn.GELU}


@pytest.mark.parametrize("act", sorted(ACTS))
def test_conv_bias_activation_become_one_op(act, tmp_path):
    """conv_elementwise_add_act_fuse_pass: the folded conv + bias add + activation
    run as one sampan_conv2d_fusion (gelu is not fused: it stays after it)."""
    paddle.seed(8)
    model = ConvBN(nn.Conv2D(3, 6, 3, stride=2 if act == "relu" else 1, padding=1),
                   nn.BatchNorm2D(6), ACTS[act]())
    _randomize_bn(model.bn, 5)
    plain, fused = _predictors(model, tmp_path, [3, 7, 7])
    types = _types(fused)
    assert "sampan_conv2d_fusion" in types and "conv2d" not in types
    assert (act == "gelu") == ("gelu" in types)
    x = np.random.RandomState(3).standard_normal([2, 3, 7, 7]).astype("float32")
    want = plain.run([x])[0]
    np.testing.assert_allclose(fused.run([x])[0], want, rtol=1e-5,
                               atol=1e-6 * np.abs(want).max())


class Residual(nn.Layer):
    """conv-BN (-relu) - conv-BN + shortcut (a conv-BN where ``down``), relu:
    ResNet's basic block; ``shortcut_first`` computes the shortcut branch first."""

    def __init__(self, cin, cout, k, down=False, shortcut_first=False, act=True):
        super().__init__()
        self.a = ConvBN(nn.Conv2D(cin, cout, k, padding=k // 2), nn.BatchNorm2D(cout),
                        nn.ReLU())
        self.b = ConvBN(nn.Conv2D(cout, cout, k, padding=k // 2), nn.BatchNorm2D(cout))
        self.down = ConvBN(nn.Conv2D(cin, cout, 1), nn.BatchNorm2D(cout)) if down else None
        self.shortcut_first, self.act = shortcut_first, act
        for i, m in enumerate([self.a, self.b] + ([self.down] if down else [])):
            _randomize_bn(m.bn, 10 + i)

    def forward(self, x):
        s = self.down(x) if self.down is not None and self.shortcut_first else None
        y = self.b(self.a(x))
        if s is None:
            s = self.down(x) if self.down is not None else x
        y = y + s if self.shortcut_first else s + y
        return nn.functional.relu(y) if self.act else y


@pytest.mark.parametrize("k, down, shortcut_first, act", [
    (3, False, False, True), (1, True, False, True), (3, True, True, True),
    (1, False, True, False), (3, False, False, False)])
def test_residual_add_goes_into_the_conv(k, down, shortcut_first, act, tmp_path):
    """conv_elementwise_add2_act_fuse_pass: conv + bias + the shortcut's add (+ relu)
    become one sampan_conv2d_fusion reading the shortcut as ResidualData, placed
    where the add stood (the shortcut conv may come after the main one); two
    branches meeting at one add fuse one of them."""
    paddle.seed(9)
    model = Residual(4 if down else 6, 6, k, down, shortcut_first, act)
    plain, fused = _predictors(model, tmp_path, [4 if down else 6, 9, 9])
    types = _types(fused)
    assert "conv_elementwise_add2_act_fuse_pass" in fused.explain()
    residual_ops = [op for op in fused._core.program.global_block().ops
                    if "ResidualData" in op.input_names and op.input("ResidualData")]
    assert len(residual_ops) == 1 and "elementwise_add" not in types
    assert ("relu" in types) is False and "sampan_fused_elementwise" not in types
    assert residual_ops[0].attr("activation") == ("relu" if act else "")
    x = np.random.RandomState(4).standard_normal([2, 4 if down else 6, 9, 9]).astype("float32")
    want = plain.run([x])[0]
    got = fused.run([x])[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * np.abs(want).max())
    eager = model(paddle.to_tensor(x)).numpy()
    np.testing.assert_allclose(got, eager, rtol=1e-5, atol=1e-6 * np.abs(want).max())
    cfg = paddle.inference.Config(str(tmp_path / "m.pdmodel"), str(tmp_path / "m.pdiparams"))
    cfg.delete_pass("conv_elementwise_add2_act_fuse_pass")
    kept = paddle.inference.create_predictor(cfg)
    assert not any("ResidualData" in op.input_names and op.input("ResidualData")
                   for op in kept._core.program.global_block().ops)
    np.testing.assert_allclose(kept.run([x])[0], want, rtol=1e-5, atol=1e-6 * np.abs(want).max())


class PlainConv(nn.Layer):
    """A conv without bias (GoogLeNet's, DenseNet's), then an activation or not."""

    def __init__(self, cin, cout, k, act):
        super().__init__()
        self.conv = nn.Conv2D(cin, cout, k, padding=k // 2, bias_attr=False)
        self.act = act

    def forward(self, x):
        y = self.conv(x)
        return nn.functional.relu(y) if self.act else y


@pytest.mark.parametrize("cin, cout, k, act", [(3, 5, 1, True), (3, 5, 3, False),
                                              (64, 64, 3, True)])
def test_conv_without_bias_becomes_one_op(cin, cout, k, act, tmp_path):
    """sampan_conv_act_fuse_pass: a conv2d without a bias add (+ relu) runs as a
    sampan_conv2d_fusion without Bias, with the conv's bits; a wide 3x3 one then
    runs as Winograd."""
    paddle.seed(11)
    model = PlainConv(cin, cout, k, act)
    plain, fused = _predictors(model, tmp_path, [cin, 14, 14])
    types = _types(fused)
    assert "conv2d" not in types and ("relu" in types) is False
    assert "sampan_conv_act_fuse_pass: conv2d x1" in fused.explain()
    conv_ops = [op for op in fused._core.program.global_block().ops if "conv" in op.type]
    assert [op.type for op in conv_ops] == \
        ["sampan_conv2d_winograd" if cin == 64 else "sampan_conv2d_fusion"]
    op = conv_ops[0]
    assert not op.input("Bias") and op.attr("activation") == ("relu" if act else "")
    x = np.random.RandomState(5).standard_normal([2, cin, 14, 14]).astype("float32")
    x[0, :, 0, 0] = 0.0
    want, got = plain.run([x])[0], fused.run([x])[0]
    if cin == 64:       # Winograd: equal to rounding
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * np.abs(want).max())
    else:
        np.testing.assert_array_equal(got.view("u4"), want.view("u4"))


class PreActivation(nn.Layer):
    """DenseNet's layer: BN - ReLU - 1x1 conv (no bias); ``reuse`` reads the BN
    output a second time (then it must stay a tensor of its own)."""

    def __init__(self, cin, cout, relu=True, reuse=False):
        super().__init__()
        self.bn = nn.BatchNorm2D(cin)
        self.conv = nn.Conv2D(cin, cout, 1, bias_attr=False)
        self.relu, self.reuse = relu, reuse
        _randomize_bn(self.bn, 21)

    def forward(self, x):
        h = self.bn(x)
        if self.relu:
            h = nn.functional.relu(h)
        y = self.conv(h)
        return y + h.mean() if self.reuse else y


@pytest.mark.parametrize("relu, reuse", [(True, False), (False, False), (True, True)])
def test_batch_norm_relu_goes_into_the_1x1_conv(relu, reuse, tmp_path):
    """sampan_affine_conv_fuse_pass: the batch_norm's affine map (+ relu) read
    only by a 1x1 conv becomes that conv's input map."""
    paddle.seed(12)
    model = PreActivation(6, 4, relu, reuse)
    plain, fused = _predictors(model, tmp_path, [6, 7, 7])
    conv = [op for op in fused._core.program.global_block().ops
            if op.type == "sampan_conv2d_fusion"]
    assert len(conv) == 1
    assert bool(conv[0].input("InScale")) == (not reuse)
    if not reuse:
        assert conv[0].attr("in_activation") == ("relu" if relu else "")
        assert "elementwise_mul" not in _types(fused) and "relu" not in _types(fused)
        assert "sampan_affine_conv_fuse_pass" in fused.explain()
    for n in (1, 3):
        x = np.random.RandomState(n).standard_normal([n, 6, 7, 7]).astype("float32")
        want = plain.run([x])[0]
        np.testing.assert_allclose(fused.run([x])[0], want, rtol=1e-5,
                                   atol=1e-6 * np.abs(want).max())


def test_fused_conv_input_map_is_checked():
    from sampan.ops.registry import get_op, Meta, OpError
    op = get_op("sampan_conv2d_fusion")
    attrs = dict(op.default_attrs)
    x, w = Meta((1, 6, 5, 5), "float32"), Meta((4, 6, 1, 1), "float32")
    c6, c5 = Meta((6,), "float32"), Meta((5,), "float32")
    with pytest.raises(OpError, match="InScale and InShift go together"):
        op.infer_meta([x, w, None, None, c6, None], attrs)
    with pytest.raises(OpError, match=r"InShift must be 1-D with one value per input "
                                      r"channel \(6\), got shape \[5\]"):
        op.infer_meta([x, w, None, None, c6, c5], attrs)
    with pytest.raises(OpError, match="in_activation must be '' or 'relu'"):
        op.infer_meta([x, w, None, None, c6, c6], dict(attrs, in_activation="gelu"))
    (m,) = op.infer_meta([x, w, None, None, c6, c6], dict(attrs, in_activation="relu"))
    assert tuple(m.shape) == (1, 4, 5, 5)
