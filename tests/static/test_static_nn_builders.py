"""The static.nn builders row_conv, data_norm, nce, sparse_embedding and
deform_conv2d, and static.ctr_metric_bundle: Paddle's parameters and ops, tiny
programs trained a few steps (the loss decreases, every parameter gets a
gradient), and the numbers of numpy references."""
import contextlib

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.utils import unique_name



def ref_nce(x, w, b, sw, labels, ntrue, prob, nneg):
    """Cost and sample logits of nce for the given sampled ``labels``."""
    o = 1 / (1 + np.exp(-(np.einsum("nd,nsd->ns", x, w[labels]) + b[labels, 0])))
    q = prob[labels] * nneg
    terms = np.where(np.arange(labels.shape[1]) < ntrue, -np.log(o / (o + q)),
                     -np.log(q / (o + q)))
    return (terms * sw).sum(axis=1, keepdims=True), o


@contextlib.contextmanager
def building():
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup):
            yield main, startup
    finally:
        paddle.disable_static()


def _types(prog):
    return [op.type for op in prog.global_block().ops]


def _train(build, feed, steps=8, lr=0.1):
    """Build ``loss = build()`` with SGD, train; returns (losses, the gradient
    of every trainable parameter at the first step, main program)."""
    with building() as (main, startup):
        loss = build()
        static.append_backward(loss)
        params = [p for p in main.all_parameters() if p.trainable and not p.stop_gradient]
        paddle.optimizer.SGD(lr).apply_gradients(
            [(p, main.global_block().var(p.name + "@GRAD")) for p in params])
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    names = [p.name + "@GRAD" for p in params]
    losses, grads = [], None
    for i in range(steps):
        out = exe.run(main, feed=feed, fetch_list=[loss] + names, scope=scope)
        losses.append(float(np.asarray(out[0]).sum()))
        if grads is None:
            grads = dict(zip(names, out[1:]))
    return losses, grads, main


def _check_training(losses, grads):
    assert losses[-1] < losses[0], losses
    for name, g in grads.items():
        assert np.abs(g).sum() > 0, f"no gradient reached {name}"


RNG = np.random.default_rng(11)


def test_row_conv_parameters_ops_and_training():
    xv = RNG.normal(size=(3, 6, 4)).astype("float32")
    target = RNG.normal(size=(3, 6, 4)).astype("float32")

    def build():
        x = static.data("x", [-1, 6, 4], "float32")
        t = static.data("t", [-1, 6, 4], "float32")
        y = static.nn.row_conv(x, 2, act="tanh")
        return paddle.mean((y - t) ** 2)
    losses, grads, main = _train(build, {"x": xv, "t": target})
    assert _types(main)[:2] == ["row_conv", "tanh"]
    assert main.global_block().var("row_conv_0.w_0").shape == (3, 4)
    assert "row_conv_grad" in _types(main)
    _check_training(losses, grads)


def test_row_conv_refuses_float64():
    with building():
        x = static.data("x", [2, 3, 4], "float64")
        with pytest.raises(TypeError):
            static.nn.row_conv(x, 1)


def _data_norm_ref(x, size, s, sq, eps):
    mean, scale = s / size, np.sqrt(size / sq)
    y = (x - mean) * scale
    return y, (np.full_like(size, len(x)), x.sum(0), ((x - mean) ** 2).sum(0) + len(x) * eps)


def test_data_norm_summaries_are_updated_by_the_optimizer():
    """The grad op gives the summaries this batch's statistics, which SGD
    applies (Paddle's CPU behaviour: batch_size 2 - 0.1 * 4 = 1.6)."""
    xv = (np.arange(12, dtype="float32").reshape(4, 3) / 5)
    with building() as (main, startup):
        x = static.data("x", [4, 3], "float32")
        x.stop_gradient = False
        y = static.nn.data_norm(x, param_attr={"batch_size": 2.0, "batch_sum": 1.0,
                                               "batch_square": 3.0}, epsilon=1e-4)
        loss = paddle.sum(y * y)
        paddle.optimizer.SGD(0.1).minimize(loss)
    assert sorted(p.name for p in main.all_parameters()) == \
        ["dn.batch_size", "dn.batch_square_sum", "dn.batch_sum"]
    assert _types(main)[0] == "data_norm" and "data_norm_grad" in _types(main)
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    size, s, sq = np.full(3, 2.0), np.full(3, 1.0), np.full(3, 3.0)
    for _ in range(2):
        got, bsize, bsum, bsq = exe.run(main, feed={"x": xv}, scope=scope, fetch_list=[
            y, "dn.batch_size", "dn.batch_sum", "dn.batch_square_sum"])
        want, (gsize, gsum, gsq) = _data_norm_ref(xv, size, s, sq, 1e-4)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        size, s, sq = size - 0.1 * gsize, s - 0.1 * gsum, sq - 0.1 * gsq
        np.testing.assert_allclose(bsize, size, rtol=1e-5)
        np.testing.assert_allclose(bsum, s, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(bsq, sq, rtol=1e-5)


def test_data_norm_scale_and_shift_trains():
    xv = RNG.normal(size=(8, 5)).astype("float32")
    target = RNG.normal(size=(8, 5)).astype("float32")

    def build():
        x = static.data("x", [-1, 5], "float32")
        t = static.data("t", [-1, 5], "float32")
        y = static.nn.data_norm(x, name="dn2", enable_scale_and_shift=True,
                                param_attr={"scale_w": 0.5, "bias": 0.1})
        return paddle.mean((y - t) ** 2)
    losses, grads, main = _train(build, {"x": xv, "t": target}, lr=0.05)
    names = sorted(p.name for p in main.all_parameters())
    assert names == ["dn2.batch_size", "dn2.batch_square_sum", "dn2.batch_sum", "dn2.bias",
                     "dn2.scale_w"]
    assert losses[1] < losses[0]
    assert np.abs(grads["dn2.scale_w@GRAD"]).sum() > 0
    assert np.abs(grads["dn2.bias@GRAD"]).sum() > 0


def test_data_norm_bad_layout_and_rank():
    with building():
        with pytest.raises(ValueError):
            static.nn.data_norm(static.data("x", [4], "float32"))
        with pytest.raises(ValueError):
            static.nn.data_norm(static.data("y", [4, 3], "float32"), data_layout="NCDHW")


def test_nce_parameters_ops_and_training():
    xv = RNG.normal(size=(6, 5)).astype("float32")
    lab = RNG.integers(0, 9, size=(6, 1)).astype("int64")

    def build():
        x = static.data("x", [-1, 5], "float32")
        label = static.data("label", [-1, 1], "int64")
        cost = static.nn.nce(x, label, 9, num_neg_samples=4, seed=7)
        return paddle.mean(cost)
    losses, grads, main = _train(build, {"x": xv, "label": lab}, lr=0.5)
    assert _types(main)[:3] == ["nce", "scale", "reduce_mean"]
    assert main.global_block().var("nce_0.w_0").shape == (9, 5)
    assert main.global_block().var("nce_0.b_0").shape == (9, 1)
    assert set(grads) == {"nce_0.w_0@GRAD", "nce_0.b_0@GRAD"}
    _check_training(losses, grads)


@pytest.mark.parametrize("sampler", ["uniform", "log_uniform", "custom_dist"])
def test_nce_cost_matches_numpy_for_the_sampled_labels(sampler):
    dist = np.array([0.05, 0.1, 0.3, 0.05, 0.2, 0.3])
    xv = RNG.normal(size=(4, 3)).astype("float32")
    lab = np.array([[1, 2], [0, 5], [3, 3], [4, 1]], "int64")
    with building() as (main, startup):
        x = static.data("x", [4, 3], "float32")
        label = static.data("label", [4, 2], "int64")
        sw = static.data("sw", [4, 1], "float32")
        cost = static.nn.nce(x, label, 6, sample_weight=sw, num_neg_samples=5,
                             sampler=sampler, custom_dist=dist if sampler == "custom_dist"
                             else None)
    nce_op = main.global_block().ops[0]
    logits_name, labels_name = nce_op.output("SampleLogits")[0], nce_op.output("SampleLabels")[0]
    swv = np.array([[1.0], [0.5], [2.0], [1.0]], "float32")
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    got, logits, labels, w, b = exe.run(
        main, feed={"x": xv, "label": lab, "sw": swv}, scope=scope,
        fetch_list=[cost, logits_name, labels_name, "nce_0.w_0", "nce_0.b_0"])
    assert labels.dtype == np.int64 and labels.shape == (4, 7)
    np.testing.assert_array_equal(labels[:, :2], lab)
    assert labels.min() >= 0 and labels.max() < 6
    v = np.arange(6)
    prob = {"uniform": np.full(6, 1 / 6), "log_uniform": np.log((v + 2) / (v + 1)) / np.log(6),
            "custom_dist": dist}[sampler]
    want_cost, want_logits = ref_nce(xv.astype("float64"), w.astype("float64"),
                                     b.astype("float64"), swv.astype("float64"), labels, 2,
                                     prob, 5)
    np.testing.assert_allclose(logits, want_logits, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got, want_cost / 6, rtol=1e-5, atol=1e-6)


def test_nce_custom_dist_samples_follow_the_distribution():
    dist = np.array([0.5, 0.0, 0.25, 0.25])
    with building() as (main, startup):
        x = static.data("x", [2000, 2], "float32")
        label = static.data("label", [2000, 1], "int64")
        static.nn.nce(x, label, 4, num_neg_samples=5, sampler="custom_dist", custom_dist=dist,
                      seed=3)
    labels_name = main.global_block().ops[0].output("SampleLabels")[0]
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    feed = {"x": np.zeros((2000, 2), "float32"), "label": np.zeros((2000, 1), "int64")}
    a, = exe.run(main, feed=feed, fetch_list=[labels_name], scope=scope)
    b, = exe.run(main, feed=feed, fetch_list=[labels_name], scope=scope)
    np.testing.assert_array_equal(a, b)                  # a non-zero seed repeats its draws
    freq = np.bincount(a[:, 1:].reshape(-1), minlength=4) / a[:, 1:].size
    np.testing.assert_allclose(freq, dist, atol=0.02)


def test_nce_errors():
    with building():
        x = static.data("x", [4, 3], "float32")
        label = static.data("label", [4, 1], "int64")
        with pytest.raises(Exception, match="Unsupported sampler"):
            static.nn.nce(x, label, 5, sampler="zipf")
        with pytest.raises(AssertionError):
            static.nn.nce(x, label, 5, sampler="custom_dist")
        with pytest.raises(TypeError):
            static.nn.nce(x, static.data("l32", [4, 1], "int32"), 5)
        with pytest.raises(ValueError):
            static.nn.nce(static.data("x3", [4, 3, 2], "float32"), label, 5)


def test_sparse_embedding_is_lookup_table_and_trains():
    ids = np.array([[1], [3], [3], [0]], "int64")
    target = RNG.normal(size=(4, 3)).astype("float32")

    def build():
        i = static.data("ids", [-1, 1], "int64")
        t = static.data("t", [-1, 3], "float32")
        e = static.nn.sparse_embedding(i, [5, 3], padding_idx=-5)
        return paddle.mean((e - t) ** 2)
    losses, grads, main = _train(build, {"ids": ids, "t": target}, lr=1.0)
    op = main.global_block().ops[0]
    assert op.type == "lookup_table" and "lookup_table_grad" in _types(main)
    assert op.attr("padding_idx") == 0 and op.attr("is_distributed") is True
    assert op.attr("table_class") == "MemorySparseTable" and op.attr("entry") == "none"
    g = grads["sparse_embedding_0.w_0@GRAD"]
    assert np.all(g[0] == 0) and np.all(g[[2, 4]] == 0) and np.abs(g[[1, 3]]).sum() > 0
    assert losses[-1] < losses[0]


def test_sparse_embedding_errors():
    with building():
        i = static.data("ids", [4, 1], "int64")
        with pytest.raises(TypeError):
            static.nn.sparse_embedding(static.data("i32", [4, 1], "int32"), [5, 3])
        with pytest.raises(ValueError):
            static.nn.sparse_embedding(i, [5, 3], table_class="Dense")
        with pytest.raises(TypeError):
            static.nn.sparse_embedding(i, [5, 3], dtype="int64")


@pytest.mark.parametrize("masked", [True, False])
def test_deform_conv2d_ops_parameters_and_training(masked):
    xv = RNG.normal(size=(2, 4, 5, 5)).astype("float32")
    offv = RNG.uniform(-1, 1, size=(2, 18, 5, 5)).astype("float32")
    mv = RNG.uniform(0.2, 1, size=(2, 9, 5, 5)).astype("float32")
    target = RNG.normal(size=(2, 4, 5, 5)).astype("float32")

    def build():
        x = static.data("x", [-1, 4, 5, 5], "float32")
        off = static.data("off", [-1, 18, 5, 5], "float32")
        m = static.data("m", [-1, 9, 5, 5], "float32") if masked else None
        t = static.data("t", [-1, 4, 5, 5], "float32")
        y = static.nn.deform_conv2d(x, off, m, 4, 3, padding=1, groups=2)
        return paddle.mean((y - t) ** 2)
    feed = {"x": xv, "off": offv, "t": target}
    if masked:
        feed["m"] = mv
    losses, grads, main = _train(build, feed, lr=0.05)
    op = "deformable_conv" if masked else "deformable_conv_v1"
    assert _types(main)[:2] == [op, "elementwise_add"]
    assert f"{op}_grad" in _types(main)
    assert main.global_block().var("deformable_conv_0.w_0").shape == (4, 2, 3, 3)
    assert set(grads) == {"deformable_conv_0.w_0@GRAD", "deformable_conv_0.b_0@GRAD"}
    _check_training(losses, grads)


def test_deform_conv2d_zero_offset_is_conv2d():
    xv = RNG.normal(size=(1, 2, 4, 4)).astype("float32")
    with building() as (main, startup):
        x = static.data("x", [1, 2, 4, 4], "float32")
        off = static.data("off", [1, 8, 3, 3], "float32")
        y = static.nn.deform_conv2d(x, off, None, 3, 2, bias_attr=False)
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    got, w = exe.run(main, feed={"x": xv, "off": np.zeros((1, 8, 3, 3), "float32")},
                     fetch_list=[y, "deformable_conv_0.w_0"], scope=scope)
    want = paddle.nn.functional.conv2d(paddle.to_tensor(xv), paddle.to_tensor(w)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_deform_conv2d_errors():
    with building():
        x = static.data("x", [1, 3, 4, 4], "float32")
        off = static.data("off", [1, 18, 4, 4], "float32")
        with pytest.raises(ValueError):
            static.nn.deform_conv2d(x, off, None, 4, 3, padding=1, groups=2)
        with pytest.raises(ValueError):
            static.nn.deform_conv2d(static.data("x3", [3, 4, 4], "float32"), off, None, 2, 3)


def test_ctr_metric_bundle_ops_and_accumulated_values():
    p = np.array([[0.2], [0.7], [0.9]], "float32")
    lab = np.array([[0.0], [1.0], [1.0]], "float32")
    w = np.array([[0.5], [1.0], [1.0]], "float32")
    with building() as (main, startup):
        pv = static.data("p", [-1, 1], "float32")
        lv = static.data("l", [-1, 1], "float32")
        wv = static.data("w", [-1, 1], "float32")
        outs = static.ctr_metric_bundle(pv, lv, wv)
    assert _types(main) == [
        "elementwise_sub", "squared_l2_norm", "elementwise_add", "l1_norm", "elementwise_add",
        "reduce_sum", "elementwise_add", "sigmoid", "reduce_sum", "reduce_sum",
        "elementwise_add", "fill_constant_batch_size_like", "reduce_sum", "slice",
        "elementwise_mul", "elementwise_add", "elementwise_mul", "elementwise_add"]
    assert all(v.persistable for v in outs)
    assert [op.attr("force_cpu") for op in startup.global_block().ops] == [True] * 12
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    d = p - lab
    one = [(d ** 2).sum(), np.abs(d).sum(), p.sum(), (1 / (1 + np.exp(-p))).sum() * 0.5,
           lab.sum(), 3 * 0.5]
    for k in (1, 2):
        got = exe.run(main, feed={"p": p, "l": lab, "w": w}, fetch_list=list(outs),
                      scope=scope)
        for g, want in zip(got, one):
            np.testing.assert_allclose(np.asarray(g).reshape(-1), [k * want], rtol=1e-5)


def test_ctr_metric_bundle_default_weight_and_shape_check():
    with building() as (main, startup):
        pv = static.data("p", [-1, 1], "float32")
        lv = static.data("l", [-1, 1], "float32")
        outs = static.ctr_metric_bundle(pv, lv)
        with pytest.raises(AssertionError):
            static.ctr_metric_bundle(pv, static.data("l2", [-1, 2], "float32"))
    assert _types(main)[0] == "fill_constant"
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    got = exe.run(main, feed={"p": np.full((4, 1), 0.5, "float32"),
                              "l": np.ones((4, 1), "float32")}, fetch_list=list(outs),
                  scope=scope)
    np.testing.assert_allclose(np.asarray(got[5]).reshape(-1), [4.0])
    np.testing.assert_allclose(np.asarray(got[0]).reshape(-1), [1.0])


def test_static_only_builders_refuse_eager_mode():
    x = paddle.ones([4, 3])
    for build in (lambda: static.nn.data_norm(x),
                  lambda: static.nn.nce(x, paddle.zeros([4, 1], "int64"), 5),
                  lambda: static.nn.deform_conv2d(paddle.ones([1, 1, 3, 3]),
                                                  paddle.zeros([1, 8, 2, 2]), None, 1, 2)):
        with pytest.raises(AssertionError, match="only supported in static graph mode"):
            build()


def test_data_norm_scale_and_shift_without_param_attr_uses_defaults():
    with building() as (main, startup):
        x = static.data("x", [3, 2], "float32")
        y = static.nn.data_norm(x, enable_scale_and_shift=True)
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    xv = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "float32")
    got, = exe.run(main, feed={"x": xv}, fetch_list=[y], scope=scope)
    np.testing.assert_allclose(got, xv, rtol=1e-6)        # sum 0, size = square sum


def test_out_of_range_ids_and_labels_are_clear_errors():
    with building() as (main, startup):
        i = static.data("ids", [2, 1], "int64")
        e = static.nn.sparse_embedding(i, [4, 2])
        x = static.data("x", [2, 3], "float32")
        label = static.data("label", [2, 1], "int64")
        c = static.nn.nce(x, label, 4, num_neg_samples=2)
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    with pytest.raises(ValueError, match="out of range"):
        exe.run(main, feed={"ids": np.array([[1], [4]], "int64"), "x": np.ones((2, 3), "float32"),
                            "label": np.zeros((2, 1), "int64")}, fetch_list=[e], scope=scope)
    with pytest.raises(ValueError, match="out of range"):
        exe.run(main, feed={"ids": np.array([[1], [0]], "int64"), "x": np.ones((2, 3), "float32"),
                            "label": np.array([[1], [7]], "int64")}, fetch_list=[c], scope=scope)
