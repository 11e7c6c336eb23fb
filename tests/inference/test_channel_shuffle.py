"""sampan_concat_shuffle (ops/defs/fused.py, kernels/cpu/manipulation.py) and
the Predictor's sampan_channel_shuffle_fuse_pass (inference/channel_shuffle.py):
the op equals concat -> channel shuffle -> split bit for bit for any inputs,
group and sections; bad ones are named; the pass rewrites ShuffleNet's block
tails and nothing whose intermediates something else reads, and the optimized
predictor's outputs equal the unoptimized one's bit for bit."""
import numpy as np
import pytest

import sampan as paddle
from sampan.inference.channel_shuffle import FUSED_OP
from sampan.kernels.cpu.manipulation import sampan_concat_shuffle
from sampan.ops import OpError
from sampan.ops.registry import get_op
from sampan.static import InputSpec
from .predictors import predictor as _predictor, op_types as _types

PASS = "sampan_channel_shuffle_fuse_pass"


def _reference(xs, g, sections):
    y = np.concatenate(xs, axis=1)
    n, c = y.shape[:2]
    z = y.reshape((n, g, c // g) + y.shape[2:]).swapaxes(1, 2).reshape(y.shape)
    return np.split(z, np.cumsum(sections)[:-1], axis=1)


def _run(xs, g, sections):
    return sampan_concat_shuffle([xs], {"group": g, "sections": sections}, None)[0]


@pytest.mark.parametrize("channels, g, sections", [
    ([58, 58], 2, [58, 58]),        # ShuffleNetV2's block tail
    ([58, 58], 2, [116]),           # its last block: no split
    ([3, 5, 4], 3, [5, 7]),         # unequal inputs, runs crossing them
    ([6], 3, [1, 2, 3]),            # one input, odd sections
    ([4, 4], 4, [3, 5]),
    ([1, 1], 2, [1, 1]),
])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_op_equals_concat_shuffle_split(channels, g, sections, dtype):
    rs = np.random.RandomState(sum(channels))
    xs = [(rs.standard_normal((3, c, 5, 4)) * 9).astype(dtype) for c in channels]
    got = _run(xs, g, sections)
    want = _reference(xs, g, sections)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.flags.c_contiguous
        np.testing.assert_array_equal(a, b)


def test_infer_names_bad_group_and_sections():
    from sampan.ops.registry import Meta
    infer = get_op(FUSED_OP).infer_meta
    xs = [Meta((2, 6, 4, 4), "float32"), Meta((2, 6, 4, 4), "float32")]
    outs = infer([xs], {"group": 2, "sections": [5, 7]})[0]
    assert [tuple(m.shape) for m in outs] == [(2, 5, 4, 4), (2, 7, 4, 4)]
    with pytest.raises(OpError, match="12 channels do not divide into group = 5"):
        infer([xs], {"group": 5, "sections": [12]})
    with pytest.raises(OpError, match="add up to the 12 channels"):
        infer([xs], {"group": 2, "sections": [6, 5]})
    with pytest.raises(OpError, match="one dtype"):
        infer([[xs[0], Meta((2, 6, 4, 4), "float64")]], {"group": 2, "sections": [12]})
    with pytest.raises(OpError, match="dims except axis 1 must match"):
        infer([[xs[0], Meta((2, 6, 4, 5), "float32")]], {"group": 2, "sections": [12]})


def test_pass_fuses_shufflenet_and_keeps_its_outputs(tmp_path):
    paddle.seed(2)
    net = paddle.vision.models.shufflenet_v2_x0_25(num_classes=10)
    net.eval()
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, input_spec=[InputSpec([None, 3, 64, 64], "float32")])
    fast, plain = _predictor(prefix), _predictor(prefix, skip=[PASS])
    fused = _types(fast)
    # 16 blocks: 13 block tails with the next block's split, 3 before a stage's
    # downsampling block or the last conv without one
    assert fused.count(FUSED_OP) == 16
    assert "transpose2" not in fused and "split" not in fused and "concat" not in fused
    assert FUSED_OP not in _types(plain) and _types(plain).count("transpose2") == 16
    assert "%s: concat x16, reshape2 x32, split x13, transpose2 x16 -> %s x16" % (
        PASS, FUSED_OP) in fast.explain()
    for n in (1, 3):
        x = np.random.RandomState(n).standard_normal([n, 3, 64, 64]).astype("float32")
        (want,), (got,) = plain.run([x]), fast.run([x])
        np.testing.assert_array_equal(got, want)


class Tail(paddle.nn.Layer):
    """A block tail whose concat (``leak="concat"``) or shuffled output
    (``leak="shuffled"``) is also read elsewhere."""

    def __init__(self, leak):
        super().__init__()
        self.leak = leak
        self.conv = paddle.nn.Conv2D(8, 8, 1)

    def forward(self, x):
        a, b = paddle.split(x, 2, axis=1)
        y = paddle.concat([a, self.conv(b)], axis=1)
        z = y.reshape([-1, 2, 8, 6, 6]).transpose([0, 2, 1, 3, 4]).reshape([-1, 16, 6, 6])
        s0, s1 = paddle.split(z, 2, axis=1)
        out = s0 * 2.0 + s1
        if self.leak == "concat":
            out = out + y[:, :8]
        elif self.leak == "shuffled":
            out = out + z[:, 8:]
        return out


# a concat read elsewhere keeps the whole chain; a shuffled output read
# elsewhere keeps its split (the chain up to it is fused); the input's own
# split is no block tail's
@pytest.mark.parametrize("leak, fused, splits", [(None, 1, 1), ("concat", 0, 2),
                                                 ("shuffled", 1, 2)])
def test_intermediates_read_elsewhere_keep_the_ops(tmp_path, leak, fused, splits):
    paddle.seed(4)
    net = Tail(leak)
    net.eval()
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, input_spec=[InputSpec([None, 16, 6, 6], "float32")])
    fast, plain = _predictor(prefix), _predictor(prefix, skip=[PASS])
    assert _types(fast).count(FUSED_OP) == fused and _types(fast).count("split") == splits
    x = np.random.RandomState(1).standard_normal([2, 16, 6, 6]).astype("float32")
    (want,), (got,) = plain.run([x]), fast.run([x])
    np.testing.assert_array_equal(got, want)


def test_pass_is_listed_and_can_be_deleted():
    cfg = paddle.inference.Config()
    assert PASS in cfg.pass_builder().all_passes()
