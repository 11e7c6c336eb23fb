"""paddle.Model in eager mode: fit/evaluate/predict on a tiny synthetic
dataset, the batch steps, save/load (training and inference) round trips."""
import contextlib
import io
import os
import warnings

import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec


class Blobs(paddle.io.Dataset):
    """Three separable classes in 4-D."""

    def __init__(self, n, seed=0):
        rng = np.random.RandomState(seed)
        self.y = rng.randint(0, 3, size=(n, 1)).astype("int64")
        centers = np.eye(3, 4, dtype="float32") * 3
        self.x = (centers[self.y[:, 0]] + rng.randn(n, 4).astype("float32") * 0.5)

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


def mlp():
    nn = paddle.nn
    return nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))


def make_model(inputs=None, lr=0.1, metrics=True, opt="Adam"):
    paddle.seed(7)
    with paddle.utils.unique_name.guard():    # the same parameter names every time
        net = mlp()
    model = paddle.Model(net, inputs=inputs,
                         labels=[InputSpec([None, 1], "int64", "label")] if inputs else None)
    optim = getattr(paddle.optimizer, opt)(learning_rate=lr, parameters=model.parameters())
    model.prepare(optim, paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy() if metrics else None)
    return model


def quiet(fn, *a, **k):
    with contextlib.redirect_stdout(io.StringIO()):
        return fn(*a, **k)


X_SPEC = [InputSpec([None, 4], "float32", "x")]


def test_fit_lowers_the_loss_and_evaluate_reports_metrics():
    model = make_model(X_SPEC)
    before = quiet(model.evaluate, Blobs(32, 1), batch_size=8, verbose=0)
    quiet(model.fit, Blobs(64), Blobs(32, 1), batch_size=8, epochs=3, verbose=0)
    after = quiet(model.evaluate, Blobs(32, 1), batch_size=8, verbose=0)
    assert sorted(after) == ["acc", "loss"]
    assert isinstance(after["loss"], list) and len(after["loss"]) == 1
    assert after["loss"][0] < before["loss"][0] * 0.5
    assert after["acc"] > 0.9


def test_evaluate_metric_equals_paddle_metric_over_all_batches():
    model = make_model(X_SPEC)
    quiet(model.fit, Blobs(48), batch_size=16, epochs=1, verbose=0)
    data = Blobs(30, 2)
    res = quiet(model.evaluate, data, batch_size=7, verbose=0)
    logits = np.concatenate(quiet(model.predict, data, batch_size=7, verbose=0)[0])
    expect = float(paddle.metric.accuracy(paddle.to_tensor(logits),
                                          paddle.to_tensor(data.y)).numpy())
    np.testing.assert_allclose(res["acc"], expect, rtol=1e-6)
    # the logged loss is the last batch's
    last = paddle.nn.functional.cross_entropy(paddle.to_tensor(logits[28:]),
                                              paddle.to_tensor(data.y[28:]))
    np.testing.assert_allclose(res["loss"][0], float(last.numpy()), rtol=1e-5)


def test_predict_outputs_and_stacking():
    model = make_model(X_SPEC)
    out = quiet(model.predict, Blobs(10), batch_size=4, verbose=0)
    assert len(out) == 1 and [o.shape for o in out[0]] == [(4, 3), (4, 3), (2, 3)]
    stacked = quiet(model.predict, Blobs(10), batch_size=4, stack_outputs=True, verbose=0)
    assert stacked[0].shape == (10, 3)
    np.testing.assert_allclose(stacked[0], np.vstack(out[0]))


def test_fit_accepts_a_dataloader_and_num_iters():
    model = make_model(X_SPEC)
    loader = paddle.io.DataLoader(Blobs(40), batch_size=8, shuffle=True)
    seen = []

    class Count(paddle.callbacks.Callback):
        def on_train_batch_end(self, step, logs=None):
            seen.append((step, logs["batch_size"]))

    quiet(model.fit, loader, epochs=5, num_iters=7, verbose=0, callbacks=[Count()])
    assert len(seen) == 7 and seen[5] == (0, 8)


def test_batch_steps():
    model = make_model(X_SPEC)
    ds = Blobs(8)
    x, y = ds.x, ds.y
    w0 = model.network[0].weight.numpy().copy()
    loss, metrics = model.train_batch([x], [y])
    assert isinstance(loss[0], np.ndarray) and loss[0].shape in ((), (1,))
    assert len(metrics) == 1
    assert not np.allclose(model.network[0].weight.numpy(), w0)
    w1 = model.network[0].weight.numpy().copy()
    model.train_batch([x], [y], update=False)            # gradients only
    np.testing.assert_array_equal(model.network[0].weight.numpy(), w1)
    assert model.network[0].weight.grad is not None
    ev = model.eval_batch([x], [y])
    assert len(ev) == 2 and len(ev[0]) == 1
    pred = model.predict_batch([x])
    assert len(pred) == 1 and pred[0].shape == (8, 3)


def test_accumulate_grad_batches_steps_every_k():
    model = make_model(X_SPEC, opt="SGD")
    steps = []
    opt = model._optimizer
    orig = opt.minimize

    def minimize(loss, *a, **k):
        steps.append(1)
        return orig(loss, *a, **k)

    opt.minimize = minimize
    quiet(model.fit, Blobs(40), batch_size=8, epochs=1, verbose=0, accumulate_grad_batches=2)
    assert len(steps) == 3        # after batches 2, 4 and the last (5)


def test_prepare_and_fit_errors():
    model = paddle.Model(mlp())
    with pytest.raises(AssertionError, match="model not ready"):
        model.train_batch([np.zeros((2, 4), "float32")], [np.zeros((2, 1), "int64")])
    with pytest.raises(TypeError, match="'loss' must be"):
        model.prepare(None, loss=3)
    with pytest.raises(AssertionError, match="is not sub class of Metric"):
        model.prepare(None, metrics=[object()])
    with pytest.raises(ValueError, match="amp_configs"):
        model.prepare(None, amp_configs={"level": "O3"})
    with pytest.raises(AssertionError, match="train_data must be given"):
        model.fit()
    with pytest.raises(ValueError, match=r"Input\[0\].name"):
        paddle.Model(mlp(), inputs=[InputSpec([None, 4])])
    with pytest.raises(TypeError, match="nn.Layer"):
        paddle.Model(lambda x: x)


def test_save_load_training_round_trip(tmp_path):
    model = make_model(X_SPEC)
    quiet(model.fit, Blobs(32), batch_size=8, epochs=1, verbose=0)
    prefix = str(tmp_path / "ckpt" / "m")
    model.save(prefix)
    assert os.path.isfile(prefix + ".pdparams") and os.path.isfile(prefix + ".pdopt")
    assert not [f for f in os.listdir(tmp_path / "ckpt") if "tmp" in f]
    other = make_model(X_SPEC)
    other.load(prefix)
    for a, b in zip(model.parameters(), other.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # a further step gives the same parameters in both (optimizer state restored)
    ds = Blobs(8, 3)
    model.train_batch([ds.x], [ds.y])
    other.train_batch([ds.x], [ds.y])
    np.testing.assert_allclose(model.parameters()[0].numpy(), other.parameters()[0].numpy(),
                               rtol=1e-6)
    other.load(prefix + ".pdparams", reset_optimizer=True)


def test_load_mismatch(tmp_path):
    model = make_model(X_SPEC)
    prefix = str(tmp_path / "m")
    model.save(prefix)
    nn = paddle.nn
    wider = paddle.Model(nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 5)))
    with pytest.raises(ValueError, match=r"receives a shape \[16, 3\], but the expected shape"):
        wider.load(prefix)
    with pytest.warns(UserWarning, match="Skip loading for 2.weight"):
        wider.load(prefix, skip_mismatch=True)
    np.testing.assert_array_equal(wider.network[0].weight.numpy(),
                                  model.network[0].weight.numpy())
    with pytest.raises(AssertionError, match="Failed to load parameters"):
        wider.load(str(tmp_path / "nothing"))


def _predictor_run(prefix, x):
    config = paddle.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    pred = paddle.inference.create_predictor(config)
    h = pred.get_input_handle(pred.get_input_names()[0])
    h.reshape(list(x.shape))
    h.copy_from_cpu(x)
    pred.run()
    return pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()


def test_save_inference_model_runs_in_the_predictor(tmp_path):
    model = make_model(X_SPEC)
    quiet(model.fit, Blobs(32), batch_size=8, epochs=1, verbose=0)
    prefix = str(tmp_path / "infer" / "m")
    model.save(prefix, training=False)
    assert model.network.training      # the network's mode is restored
    assert os.path.isfile(prefix + ".pdmodel") and os.path.isfile(prefix + ".pdiparams")
    x = Blobs(5, 4).x
    np.testing.assert_allclose(_predictor_run(prefix, x), model.predict_batch([x])[0],
                               rtol=1e-5, atol=1e-6)


def test_save_inference_without_inputs_uses_the_batch_shapes(tmp_path):
    model = make_model(None)
    with pytest.raises(RuntimeError, match="needs 'inputs' or running before saving"):
        model.save(str(tmp_path / "m"), training=False)
    ds = Blobs(6)
    model.train_batch([ds.x], [ds.y])
    with pytest.warns(UserWarning, match=r"input shape to be saved is \[\[6, 4\]\]"):
        model.save(str(tmp_path / "m"), training=False)
    np.testing.assert_allclose(_predictor_run(str(tmp_path / "m"), ds.x),
                               model.predict_batch([ds.x])[0], rtol=1e-5, atol=1e-6)


def test_two_input_network_and_model_summary():
    nn = paddle.nn

    class TwoIn(nn.Layer):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(2, 3), nn.Linear(3, 3)

        def forward(self, x, z):
            return self.a(x) + self.b(z)

    rng = np.random.RandomState(0)
    data = paddle.io.TensorDataset([paddle.to_tensor(rng.randn(12, 2).astype("float32")),
                                    paddle.to_tensor(rng.randn(12, 3).astype("float32")),
                                    paddle.to_tensor(rng.randint(0, 3, (12, 1)))])
    model = paddle.Model(TwoIn(), inputs=[InputSpec([None, 2], "float32", "x"),
                                          InputSpec([None, 3], "float32", "z")])
    model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()),
                  nn.CrossEntropyLoss())
    res = quiet(model.evaluate, data, batch_size=4, verbose=0)
    assert list(res) == ["loss"]
    info = quiet(model.summary)
    assert info["total_params"] == 9 + 12
    info2 = quiet(model.summary, [(1, 2), (1, 3)])
    assert info2 == info


@pytest.fixture
def static_mode():
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()), \
                paddle.static.scope_guard(paddle.static.Scope()):
            yield
    finally:
        paddle.disable_static()


def test_static_mode_fit_evaluate_predict_save_load(static_mode, tmp_path):
    paddle.seed(7)
    with pytest.raises(TypeError, match="'inputs' must be list"):
        paddle.Model(mlp())
    model = paddle.Model(mlp(), X_SPEC, [InputSpec([None, 1], "int64", "label")])
    model.prepare(paddle.optimizer.Adam(0.05, parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    before = quiet(model.evaluate, Blobs(32, 1), batch_size=8, verbose=0)
    quiet(model.fit, Blobs(64), Blobs(32, 1), batch_size=16, epochs=3, verbose=2)
    after = quiet(model.evaluate, Blobs(32, 1), batch_size=8, verbose=0)
    assert after["loss"][0] < before["loss"][0] * 0.5 and after["acc"] > 0.9
    out = quiet(model.predict, Blobs(10), batch_size=4, stack_outputs=True, verbose=0)
    assert out[0].shape == (10, 3)
    with pytest.raises(AssertionError, match="update == False"):
        model.train_batch([Blobs(4).x], [Blobs(4).y], update=False)
    prefix = str(tmp_path / "s")
    model.save(prefix)
    assert os.path.isfile(prefix + ".pdparams") and os.path.isfile(prefix + ".pdopt")
    x = Blobs(6, 5).x
    ref = model.predict_batch([x])[0]
    ds = Blobs(16, 6)
    model.train_batch([ds.x], [ds.y])               # moves the weights
    assert not np.allclose(model.predict_batch([x])[0], ref)
    model.load(prefix)
    np.testing.assert_allclose(model.predict_batch([x])[0], ref, rtol=1e-6)
    model.save(prefix + "_infer", training=False)
    np.testing.assert_allclose(_predictor_run(prefix + "_infer", x), ref, rtol=1e-5,
                               atol=1e-6)


def test_amp_o1_configs_train():
    model = make_model(X_SPEC)
    model.prepare(model._optimizer, paddle.nn.CrossEntropyLoss(),
                  amp_configs={"level": "O1", "init_loss_scaling": 128.0})
    ds = Blobs(8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss = model.train_batch([ds.x], [ds.y])
    assert np.isfinite(loss[0]).all() and model._scaler is not None
