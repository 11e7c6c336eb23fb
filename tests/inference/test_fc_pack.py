"""sampan_fc_pack_pass (inference/fc_pack.py) and its op sampan_fc_packed: the
packed product equals the float64 one for any batch (1 to 16 rows, leading
dims), widths that are not a multiple of the block, with and without relu;
a weight packed for another vector width is unpacked; the pass rewrites the
fully connected layers whose weight reaches MIN_BYTES and the predictor's
outputs equal the unoptimized ones; bad packed shapes are named."""
import numpy as np
import pytest

import sampan as paddle
from sampan.inference import Config, create_predictor
from sampan.inference import fc_pack as pass_mod
from sampan.kernels.cpu import gemm_kernel as G
from sampan.kernels.cpu.fused import fc_packed

pytestmark = pytest.mark.skipif(not G.available(), reason="no GEMM kernel on this host")
TOL = 1e-5


@pytest.mark.parametrize("lead", [(1,), (3,), (4,), (5,), (16,), (2, 3)])
@pytest.mark.parametrize("relu", [False, True])
def test_packed_product_equals_float64(lead, relu):
    rs = np.random.RandomState(len(lead) * 10 + lead[0])
    k, n = 37, 70                                   # 70: a partial last block
    x = rs.standard_normal(lead + (k,)).astype(np.float32)
    w = rs.standard_normal((k, n)).astype(np.float32)
    b = rs.standard_normal(n).astype(np.float32)
    want = x.astype(np.float64) @ w.astype(np.float64) + b
    if relu:
        want = np.maximum(want, 0)
    got = fc_packed(x, G.pack_columns(w), b, relu, n)
    assert got.shape == lead + (n,) and got.dtype == np.float32
    assert np.abs(got - want).max() <= TOL * np.abs(want).max()


def test_weight_packed_for_another_width_is_unpacked(monkeypatch):
    rs = np.random.RandomState(1)
    x = rs.standard_normal((3, 20)).astype(np.float32)
    w = rs.standard_normal((20, 40)).astype(np.float32)
    b = np.zeros(40, np.float32)
    wide = G.pack_columns(w)
    monkeypatch.setitem(G._STATE, "fn", G._compile(lanes=8))
    assert G.block_width() * 2 == wide.shape[2]
    got = fc_packed(x, wide, b, False, 40)
    assert np.abs(got - x @ w).max() <= TOL * np.abs(x @ w).max()


def _saved_mlp(tmp_path, widths=(5, 7, 2)):
    static = paddle.static
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", [None, widths[0]], "float32")
            h = paddle.nn.functional.relu(paddle.nn.Linear(widths[0], widths[1])(x))
            out = paddle.nn.Linear(widths[1], widths[2])(h)
    finally:
        paddle.disable_static()
    with static.scope_guard(static.Scope()):
        exe = static.Executor()
        exe.run(startup)
        static.save_inference_model(str(tmp_path / "m"), [x], [out], exe, program=main)
    return str(tmp_path / "m")


def _types(pred):
    return [op.type for op in pred.program.global_block().ops]


def test_pass_packs_the_large_layers_and_keeps_the_outputs(tmp_path, monkeypatch):
    prefix = _saved_mlp(tmp_path, (40, 300, 33))
    # the first weight (40 x 300 floats) reaches the threshold, the second does not
    monkeypatch.setattr(pass_mod, "MIN_BYTES", 40 * 300 * 4)
    plain = Config(prefix)
    plain.switch_ir_optim(False)
    fast = create_predictor(Config(prefix))
    assert _types(fast).count(pass_mod.PACKED_FC) == 1 and _types(fast).count("sampan_fc") == 1
    assert "sampan_fc_pack_pass: sampan_fc x1 -> sampan_fc_packed x1" in fast.explain()
    for rows in (1, 6):
        x = np.random.RandomState(rows).standard_normal((rows, 40)).astype("float32")
        want = create_predictor(plain).run([x])[0]
        got = fast.run([x])[0]
        assert np.abs(got - want).max() <= TOL * np.abs(want).max()
    cfg = Config(prefix)
    cfg.delete_pass("sampan_fc_pack_pass")
    assert pass_mod.PACKED_FC not in _types(create_predictor(cfg))


def test_small_layers_stay_on_blas(tmp_path):
    assert pass_mod.PACKED_FC not in _types(create_predictor(Config(_saved_mlp(tmp_path))))


def test_packed_shapes_are_checked():
    from sampan.ops.registry import get_op, Meta, OpError
    op = get_op("sampan_fc_packed")
    x, b = Meta((4, 20), "float32"), Meta((40,), "float32")
    attrs = dict(op.default_attrs, out_features=40)
    (m,) = op.infer_meta([x, Meta((2, 20, 32), "float32"), b], attrs)
    assert tuple(m.shape) == (4, 40)
    with pytest.raises(OpError, match="holds 64 columns at most; out_features is 65"):
        op.infer_meta([x, Meta((2, 20, 32), "float32"), b], dict(attrs, out_features=65))
    with pytest.raises(OpError, match="needs a packed W"):
        op.infer_meta([x, Meta((20, 40), "float32"), b], attrs)
    with pytest.raises(OpError, match="sampan_fc_packed: Input's last dim 20 .* W's first dim 21"):
        op.infer_meta([x, Meta((2, 21, 32), "float32"), b], attrs)
