"""sampan_fc_pack_pass (inference/fc_pack.py) and its op sampan_fc_packed: the
packed product equals the float64 one for any batch (1 to 16 rows, leading
dims), widths that are not a multiple of the block, with and without relu;
a weight packed for another vector width is unpacked; the pass rewrites the
fully connected layers whose weight reaches PLAIN_MIN_BYTES (keeping the plain
weight below MIN_BYTES, which small products take) and the predictor's outputs
equal the unoptimized ones; bad packed shapes are named."""
import numpy as np
import pytest

import sampan as paddle
from sampan.inference import Config, create_predictor
from sampan.inference import fc_pack as pass_mod
from sampan.kernels.cpu import gemm_kernel as G
from sampan.kernels.cpu import fused
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


@pytest.mark.skipif(G.lanes() != 16,
                    reason="needs a host with two vector widths (AVX-512 and 8 lanes)")
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


@pytest.mark.parametrize("keep_plain", [False, True])
def test_pass_packs_the_large_layers_and_keeps_the_outputs(tmp_path, monkeypatch, keep_plain):
    prefix = _saved_mlp(tmp_path, (40, 300, 33))
    # the first weight (40 x 300 floats) reaches the threshold, the second does not;
    # below MIN_BYTES the plain weight stays beside the packed one
    monkeypatch.setattr(pass_mod, "PLAIN_MIN_BYTES", 40 * 300 * 4)
    monkeypatch.setattr(pass_mod, "MIN_BYTES", 1 << 30 if keep_plain else 40 * 300 * 4)
    monkeypatch.setattr(fused, "PACKED_MIN_MACS", 6 * 40 * 300)     # 6 rows take the kernel
    monkeypatch.setattr(G, "PACKED_LANES", {G.lanes()})  # (the rule of the widths: below)
    plain = Config(prefix)
    plain.switch_ir_optim(False)
    fast = create_predictor(Config(prefix))
    assert _types(fast).count(pass_mod.PACKED_FC) == 1 and _types(fast).count("sampan_fc") == 1
    (op,) = [op for op in fast.program.global_block().ops if op.type == pass_mod.PACKED_FC]
    assert bool(op.input("Plain")) == keep_plain
    assert "sampan_fc_pack_pass: sampan_fc x1 -> sampan_fc_packed x1" in fast.explain()
    for rows in (1, 6, 6):          # twice: the second call reuses the prepared product
        x = np.random.RandomState(rows).standard_normal((rows, 40)).astype("float32")
        want = create_predictor(plain).run([x])[0]
        got = fast.run([x])[0]
        assert np.abs(got - want).max() <= TOL * np.abs(want).max()
    cfg = Config(prefix)
    cfg.delete_pass("sampan_fc_pack_pass")
    assert pass_mod.PACKED_FC not in _types(create_predictor(cfg))


def test_widths_where_packed_products_lose_keep_blas(tmp_path, monkeypatch):
    # (AVX2: gemm_kernel.PACKED_LANES)
    prefix = _saved_mlp(tmp_path, (40, 300, 33))
    monkeypatch.setattr(pass_mod, "PLAIN_MIN_BYTES", 40 * 300 * 4)
    monkeypatch.setattr(G, "PACKED_LANES", set())
    assert pass_mod.PACKED_FC not in _types(create_predictor(Config(prefix)))


@pytest.mark.parametrize("rows", [1, 4, 5, 9, 40])
@pytest.mark.parametrize("relu", [False, True])
def test_plain_weight_takes_the_small_products(rows, relu, monkeypatch):
    """With ``plain`` given, products under the thresholds run through BLAS on
    it (a packed W zeroed shows which path ran), the rest through the kernel."""
    monkeypatch.setattr(fused, "PACKED_MIN_MACS", 9 * 37 * 70)
    rs = np.random.RandomState(rows)
    k, n = 37, 70
    x = rs.standard_normal((rows, k)).astype(np.float32)
    w = rs.standard_normal((k, n)).astype(np.float32)
    b = rs.standard_normal(n).astype(np.float32)
    want = x.astype(np.float64) @ w.astype(np.float64) + b
    if relu:
        want = np.maximum(want, 0)
    got = fc_packed(x, G.pack_columns(w), b, relu, n, plain=w)
    assert np.abs(got - want).max() <= TOL * np.abs(want).max()
    zeroed = fc_packed(x, np.zeros_like(G.pack_columns(w)), b, relu, n, plain=w)
    by_kernel = rows >= fused.PACKED_MIN_ROWS and rows * k * n >= fused.PACKED_MIN_MACS
    assert np.array_equal(zeroed, np.maximum(np.broadcast_to(b, zeroed.shape), 0) if relu
                          else np.broadcast_to(b, zeroed.shape)) == by_kernel


def test_fast_form_follows_new_weight_arrays():
    """The executor's form keeps a prepared product per W and bias array, and
    makes a new one when another array comes (a weight set again)."""
    rs = np.random.RandomState(3)
    k, n = 24, 50
    x = rs.standard_normal((8, k)).astype(np.float32)
    run = fused.sampan_fc_packed.fast({"activation_type": "", "out_features": n})
    for _ in range(2):
        w = rs.standard_normal((k, n)).astype(np.float32)
        b = rs.standard_normal(n).astype(np.float32)
        got = run(x, G.pack_columns(w), b, None)
        want = x.astype(np.float64) @ w + b
        assert np.abs(got - want).max() <= TOL * np.abs(want).max()
    for bad in (run, lambda *a: fused.fc_packed(a[0], a[1], a[2], False, n, a[3])):
        with pytest.raises(ValueError, match=r"last dim must be W's K = 24; got shape \[8, 25\]"):
            bad(np.ones((8, 25), np.float32), G.pack_columns(w), b, w)


def test_packed_product_rejects_bad_operands():
    wp = G.pack_columns(np.ones((8, 40), np.float32))
    with pytest.raises(ValueError, match="packed float32 .* covering 65 columns"):
        G.packed_product(wp, 65)
    with pytest.raises(ValueError, match=r"\(blocks, K >= 1, \d+\) covering 40 columns"):
        G.packed_product(np.zeros((2, 0, G.block_width()), np.float32), 40)
    with pytest.raises(ValueError, match="bias must be \\(40,\\); got \\(39,\\)"):
        G.packed_product(wp, 40, np.zeros(39, np.float32))
    run = G.packed_product(wp, 40)
    with pytest.raises(ValueError, match=r"x must be a C-contiguous float32 \(M, 8\); "
                                         r"got \(3, 9\)"):
        run(np.ones((3, 9), np.float32))
    with pytest.raises(ValueError, match="C-contiguous float32"):
        run(np.ones((3, 8), np.float64))
    assert run(np.ones((0, 8), np.float32)).shape == (0, 40)


def test_small_layers_stay_on_blas(tmp_path):
    assert pass_mod.PACKED_FC not in _types(create_predictor(Config(_saved_mlp(tmp_path))))


def test_packed_shapes_are_checked():
    from sampan.ops.registry import get_op, Meta, OpError
    op = get_op("sampan_fc_packed")
    x, b = Meta((4, 20), "float32"), Meta((40,), "float32")
    attrs = dict(op.default_attrs, out_features=40)
    (m,) = op.infer_meta([x, Meta((2, 20, 32), "float32"), b, None], attrs)
    assert tuple(m.shape) == (4, 40)
    (m,) = op.infer_meta([x, Meta((2, 20, 32), "float32"), b, Meta((20, 40), "float32")], attrs)
    assert tuple(m.shape) == (4, 40)
    with pytest.raises(OpError, match="holds 64 columns at most; out_features is 65"):
        op.infer_meta([x, Meta((2, 20, 32), "float32"), b, None], dict(attrs, out_features=65))
    with pytest.raises(OpError, match="needs a packed W"):
        op.infer_meta([x, Meta((20, 40), "float32"), b, None], attrs)
    with pytest.raises(OpError, match="sampan_fc_packed: Input's last dim 20 .* W's first dim 21"):
        op.infer_meta([x, Meta((2, 21, 32), "float32"), b, None], attrs)
    with pytest.raises(OpError, match=r"Plain must be W unpacked, \[20, 40\] float32; "
                                      r"got \[20, 41\]"):
        op.infer_meta([x, Meta((2, 20, 32), "float32"), b, Meta((20, 41), "float32")], attrs)
