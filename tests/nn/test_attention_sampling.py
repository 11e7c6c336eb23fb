"""nn.functional attention and sampling (nn/functional/attention.py,
sampling.py): scaled_dot_product_attention against a numpy reference eagerly
and in a static Program (with its backward), the dropout and training
switches, sparse_attention's argument errors, grid_sample through static
backward, class_center_sample's seeds and properties."""
import numpy as np
import pytest

import sampan as paddle
from sampan.ops import OpError

from ops.cases_nn_attention import ref_sparse_attention, _csr
from ops.cases_nn_sampling import ref_grid_sample

F = paddle.nn.functional
RNG = np.random.default_rng(11)


def rnd(*shape, dtype="float64"):
    return RNG.uniform(-1, 1, shape).astype(dtype)


def ref_sdpa(q, k, v, mask=None, causal=False):
    q, k, v = (np.swapaxes(t, 1, 2) for t in (q, k, v))        # [b, h, s, d]
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.triu(np.ones(s.shape[-2:], bool), 1), -np.inf, s)
    if mask is not None:
        s = s + mask
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.swapaxes(p @ v, 1, 2)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("with_mask", [False, True])
def test_sdpa_matches_reference_eager(causal, with_mask):
    q, k, v = rnd(2, 5, 3, 4), rnd(2, 5, 3, 4), rnd(2, 5, 3, 6)
    mask = rnd(2, 3, 5, 5) if with_mask else None
    out = F.scaled_dot_product_attention(
        paddle.to_tensor(q), paddle.to_tensor(k), paddle.to_tensor(v),
        None if mask is None else paddle.to_tensor(mask), is_causal=causal)
    np.testing.assert_allclose(out.numpy(), ref_sdpa(q, k, v, mask, causal), rtol=1e-10,
                               atol=1e-12)


def test_sdpa_gradient_matches_finite_differences():
    q, k, v = rnd(1, 3, 2, 2), rnd(1, 3, 2, 2), rnd(1, 3, 2, 2)
    w = rnd(1, 3, 2, 2)
    ts = [paddle.to_tensor(a, stop_gradient=False) for a in (q, k, v)]
    out = F.scaled_dot_product_attention(*ts, is_causal=True)
    (out * paddle.to_tensor(w)).sum().backward()
    for i, a in enumerate((q, k, v)):
        num = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            vals = []
            for sign in (1, -1):
                args = [q, k, v]
                b = a.copy()
                b[idx] += sign * 1e-6
                args[i] = b
                vals.append((ref_sdpa(*args, causal=True) * w).sum())
            num[idx] = (vals[0] - vals[1]) / 2e-6
        np.testing.assert_allclose(ts[i].grad.numpy(), num, rtol=1e-5, atol=1e-7)


def test_sdpa_static_program_and_backward():
    q, k, v, m = rnd(2, 4, 2, 3), rnd(2, 4, 2, 3), rnd(2, 4, 2, 3), rnd(2, 2, 4, 4)
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            xs = [paddle.static.data(n, list(a.shape), "float64")
                  for n, a in zip("qkvm", (q, k, v, m))]
            for x in xs[:3]:
                x.stop_gradient = False
            out = F.scaled_dot_product_attention(*xs[:3], attn_mask=xs[3], is_causal=True)
            grads = paddle.static.gradients([out.sum()], xs[:3])
        types = [op.type for op in main.global_block().ops]
        assert "softmax_grad" in types and "matmul_v2_grad" in types
        exe = paddle.static.Executor()
        got = exe.run(main, feed=dict(zip("qkvm", (q, k, v, m))), fetch_list=[out] + grads)
    finally:
        paddle.disable_static()
    # (a static Program stores scale's factor as a float32 attribute, as Paddle does)
    np.testing.assert_allclose(got[0], ref_sdpa(q, k, v, m, True), rtol=1e-6, atol=1e-7)
    ts = [paddle.to_tensor(a, stop_gradient=False) for a in (q, k, v)]
    F.scaled_dot_product_attention(*ts, paddle.to_tensor(m), is_causal=True).sum().backward()
    for t, g in zip(ts, got[1:]):
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_sdpa_dropout_only_in_training():
    q = paddle.to_tensor(rnd(2, 6, 2, 4))
    ref = F.scaled_dot_product_attention(q, q, q).numpy()
    ev = F.scaled_dot_product_attention(q, q, q, dropout_p=0.9, training=False)
    np.testing.assert_allclose(ev.numpy(), ref, rtol=1e-12)
    paddle.seed(3)
    tr = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5).numpy()
    assert tr.shape == ref.shape and not np.allclose(tr, ref)


def test_sdpa_rank_error_names_the_argument():
    q = paddle.to_tensor(rnd(4, 2, 8))
    with pytest.raises(IndexError, match="query must be a 4-D"):
        F.scaled_dot_product_attention(q, q, q)


# ------------------------------------------------------------------ sparse_attention
def test_sparse_attention_gradients_and_static():
    q, k, v = rnd(1, 2, 4, 3), rnd(1, 2, 4, 3), rnd(1, 2, 4, 3)
    off, cols = _csr([[0, 1], [1], [3, 2, 0], [0, 1, 2, 3]], 1, 2)
    ts = [paddle.to_tensor(a, stop_gradient=False) for a in (q, k, v)]
    out = F.sparse_attention(*ts, paddle.to_tensor(off), paddle.to_tensor(cols))
    np.testing.assert_allclose(out.numpy(), ref_sparse_attention(q, k, v, off, cols),
                               rtol=1e-10, atol=1e-12)
    out.sum().backward()
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            xs = [paddle.static.data(n, [1, 2, 4, 3], "float64") for n in "qkv"]
            o = paddle.static.data("o", list(off.shape), "int32")
            c = paddle.static.data("c", list(cols.shape), "int32")
            for x in xs:
                x.stop_gradient = False
            y = F.sparse_attention(*xs, o, c)
            grads = paddle.static.gradients([y.sum()], xs)
        assert [op.type for op in main.global_block().ops][0] == "sparse_attention"
        got = paddle.static.Executor().run(
            main, feed={"q": q, "k": k, "v": v, "o": off, "c": cols}, fetch_list=[y] + grads)
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got[0], out.numpy(), rtol=1e-12)
    for t, g in zip(ts, got[1:]):
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("change, match", [
    (dict(cols=[[[0, 1, 4, 0, 0, 0, 0, 0]]]), "Columns must lie in"),
    (dict(off=[[[0, 3, 2, 4, 8]]]), "non-decreasing"),
    (dict(off=[[[0, 2, 4]]]), "Offset must have shape"),
    (dict(q=(1, 1, 4, 2, 1)), "Q must be 4-D"),
    (dict(k=(1, 1, 3, 2)), "K must have Q's shape"),
])
def test_sparse_attention_errors(change, match):
    off = change.get("off", [[[0, 2, 4, 6, 8]]])
    cols = change.get("cols", [[[0, 1, 0, 1, 2, 3, 2, 3]]])
    q = paddle.to_tensor(rnd(*change.get("q", (1, 1, 4, 2))))
    k = paddle.to_tensor(rnd(*change.get("k", (1, 1, 4, 2))))
    with pytest.raises(OpError, match=match):
        F.sparse_attention(q, k, k if "k" in change else q,
                           paddle.to_tensor(np.array(off, "int32")),
                           paddle.to_tensor(np.array(cols, "int32")))


# ------------------------------------------------------------------ grid_sample
def test_grid_sample_static_backward_matches_eager():
    x, g = rnd(2, 2, 3, 4), rnd(2, 3, 2, 2) * 1.2
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            xv = paddle.static.data("x", [2, 2, 3, 4], "float64")
            gv = paddle.static.data("g", [2, 3, 2, 2], "float64")
            xv.stop_gradient = gv.stop_gradient = False
            y = F.grid_sample(xv, gv, padding_mode="reflection", align_corners=False)
            grads = paddle.static.gradients([(y * y).sum()], [xv, gv])
        assert [op.type for op in main.global_block().ops][0] == "grid_sampler"
        got = paddle.static.Executor().run(main, feed={"x": x, "g": g},
                                           fetch_list=[y] + grads)
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got[0], ref_grid_sample(x, g, "bilinear", "reflection", False),
                               rtol=1e-12, atol=1e-12)
    xt, gt = (paddle.to_tensor(a, stop_gradient=False) for a in (x, g))
    yt = F.grid_sample(xt, gt, padding_mode="reflection", align_corners=False)
    (yt * yt).sum().backward()
    np.testing.assert_allclose(got[1], xt.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(got[2], gt.grad.numpy(), rtol=1e-12)


def test_grid_sample_identity_grid_reproduces_input():
    x = rnd(1, 3, 4, 5)
    theta = paddle.to_tensor(np.array([[[1.0, 0, 0], [0, 1.0, 0]]]))
    for align in (True, False):
        grid = F.affine_grid(theta, [1, 3, 4, 5], align_corners=align)
        for mode in ("bilinear", "nearest"):
            out = F.grid_sample(paddle.to_tensor(x), grid, mode=mode, align_corners=align)
            np.testing.assert_allclose(out.numpy(), x, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ class_center_sample
def test_class_center_sample_seeded_and_complete():
    label = paddle.to_tensor(np.array([4, 9, 4, 1, 30], "int64"))
    paddle.seed(5)
    r1, c1 = F.class_center_sample(label, 40, 12)
    paddle.seed(5)
    r2, c2 = F.class_center_sample(label, 40, 12)
    np.testing.assert_array_equal(c1.numpy(), c2.numpy())
    c = c1.numpy()
    assert c.shape == (12,) and list(c[:4]) == [1, 4, 9, 30] and len(set(c)) == 12
    np.testing.assert_array_equal(c[r1.numpy()], label.numpy())
    _, every = F.class_center_sample(label, 40, 40)
    assert sorted(every.numpy()) == list(range(40))


def test_class_center_sample_program_seed_fixes_the_draw():
    """Paddle sets fix_seed/seed from default_main_program().random_seed."""
    label = paddle.to_tensor(np.array([2, 2, 7], "int32"))
    prog = paddle.static.default_main_program()
    old = prog.random_seed
    prog.random_seed = 17
    try:
        draws = [F.class_center_sample(label, 50, 10)[1].numpy() for _ in range(2)]
    finally:
        prog.random_seed = old
    np.testing.assert_array_equal(draws[0], draws[1])
    assert draws[0].dtype == np.int32 and list(draws[0][:2]) == [2, 7]
