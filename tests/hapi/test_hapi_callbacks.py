"""paddle.callbacks: the default list, EarlyStopping, ModelCheckpoint,
LRScheduler, ReduceLROnPlateau, the optional-package callbacks."""
import contextlib
import importlib.util
import io
import os

import numpy as np
import pytest

import sampan as paddle
from sampan import callbacks as cb
from sampan.hapi.callbacks import config_callbacks


class Data(paddle.io.Dataset):
    def __init__(self, n, seed=0):
        rng = np.random.RandomState(seed)
        self.x = rng.randn(n, 4).astype("float32")
        self.y = (self.x[:, :1] > 0).astype("int64")

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


def make_model(lr=0.05):
    nn = paddle.nn
    paddle.seed(3)
    model = paddle.Model(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)))
    model.prepare(paddle.optimizer.SGD(lr, parameters=model.parameters()),
                  nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    return model


def run(fn, *a, **k):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn(*a, **k)
    return buf.getvalue()


def test_config_callbacks_adds_the_defaults():
    es = cb.EarlyStopping()
    lst = config_callbacks([es], model="m", epochs=2, steps=3, verbose=2, save_dir="d",
                           metrics=["loss"])
    kinds = [type(c).__name__ for c in lst]
    assert kinds == ["ProgBarLogger", "EarlyStopping", "ModelCheckpoint", "LRScheduler"]
    assert es.save_dir == "d" and es.params["steps"] == 3 and es.model == "m"
    assert [type(c).__name__ for c in config_callbacks(None, verbose=0)] == \
        ["ModelCheckpoint", "LRScheduler"]
    with pytest.raises(TypeError, match="Callback instances"):
        config_callbacks([object()])


def test_hooks_are_called_in_order():
    calls = []

    class Rec(cb.Callback):
        def __getattribute__(self, name):
            if name.startswith("on_"):
                return lambda *a: calls.append(name)
            return object.__getattribute__(self, name)

    run(make_model().fit, Data(8), Data(4), batch_size=4, epochs=1, verbose=0,
        callbacks=[Rec()])
    assert calls == ["on_train_begin", "on_epoch_begin", "on_train_batch_begin",
                     "on_train_batch_end", "on_train_batch_begin", "on_train_batch_end",
                     "on_epoch_end", "on_eval_begin", "on_eval_batch_begin",
                     "on_eval_batch_end", "on_eval_end", "on_train_end"]


def test_early_stopping_stops_and_saves_best(tmp_path):
    model = make_model(lr=0.0)          # no progress at all: stops after patience+1 evals
    es = cb.EarlyStopping(monitor="loss", patience=1, verbose=1, save_best_model=True)
    epochs = []

    class Epochs(cb.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            epochs.append(epoch)

    out = run(model.fit, Data(8), Data(8, 1), batch_size=4, epochs=10, verbose=0,
              save_dir=str(tmp_path), callbacks=[es, Epochs()])
    assert epochs == [0, 1]
    assert "Epoch 2: Early stopping." in out
    assert "Best checkpoint has been saved at" in out
    assert os.path.isfile(tmp_path / "best_model.pdparams")


def test_early_stopping_modes_and_baseline():
    assert cb.EarlyStopping(monitor="acc").monitor_op is np.greater
    assert cb.EarlyStopping(monitor="loss").monitor_op is np.less
    assert cb.EarlyStopping(monitor="acc", mode="min").monitor_op is np.less
    with pytest.warns(UserWarning, match="mode bad is unknown"):
        cb.EarlyStopping(mode="bad")
    es = cb.EarlyStopping(monitor="acc", baseline=0.99, patience=0, verbose=0,
                          save_best_model=False)
    model = make_model()
    es.set_model(model)
    es.on_train_begin()
    es.on_eval_end({"acc": 0.5})                  # below the baseline: stop
    assert model.stop_training
    with pytest.warns(UserWarning, match="Monitor of EarlyStopping"):
        es.on_eval_end({"other": 1})


def test_model_checkpoint_writes_each_epoch_and_final(tmp_path):
    model = make_model()
    out = run(model.fit, Data(8), batch_size=4, epochs=3, verbose=0, save_freq=2,
              save_dir=str(tmp_path))
    files = sorted(os.listdir(tmp_path))
    # SGD has no state, so no .pdopt (as in Paddle); no temporary file is left
    assert files == ["0.pdparams", "2.pdparams", "final.pdparams"]
    assert f"save checkpoint at {os.path.abspath(str(tmp_path / 'final'))}" in out
    fresh = make_model()
    fresh.load(str(tmp_path / "final"))
    for a, b in zip(model.parameters(), fresh.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_lr_scheduler_by_step_and_by_epoch():
    for kwargs, expected in [({}, 4), ({"by_step": False, "by_epoch": True}, 2)]:
        nn = paddle.nn
        sched = paddle.optimizer.lr.StepDecay(1.0, step_size=1, gamma=0.5)
        model = paddle.Model(nn.Linear(4, 2))
        model.prepare(paddle.optimizer.SGD(sched, parameters=model.parameters()),
                      nn.CrossEntropyLoss())
        run(model.fit, Data(8), batch_size=4, epochs=2, verbose=0,
            callbacks=[cb.LRScheduler(**kwargs)])
        assert sched.last_epoch == expected
        assert model._optimizer.get_lr() == pytest.approx(0.5 ** expected)
    with pytest.raises(ValueError, match="mutually exclusive"):
        cb.LRScheduler(by_step=True, by_epoch=True)


def test_default_lr_scheduler_steps_every_batch():
    nn = paddle.nn
    sched = paddle.optimizer.lr.StepDecay(1.0, step_size=1, gamma=0.5)
    model = paddle.Model(nn.Linear(4, 2))
    model.prepare(paddle.optimizer.SGD(sched, parameters=model.parameters()),
                  nn.CrossEntropyLoss())
    run(model.fit, Data(12), batch_size=4, epochs=1, verbose=0)
    assert sched.last_epoch == 3


def test_reduce_lr_on_plateau():
    model = make_model()
    model._optimizer._learning_rate = 0.2
    # min_delta 10 on accuracy: only the first evaluation counts as an improvement
    cbk = cb.ReduceLROnPlateau(monitor="acc", mode="min", factor=0.5, patience=1,
                               min_delta=10, verbose=1)
    out = run(model.fit, Data(8), Data(8, 1), batch_size=4, epochs=3, verbose=0,
              callbacks=[cbk])
    assert model._optimizer.get_lr() == pytest.approx(0.05)
    assert "\nEpoch 2: ReduceLROnPlateau reducing learning rate to 0.1." in out
    assert "\nEpoch 3: ReduceLROnPlateau reducing learning rate to 0.05." in out
    with pytest.raises(ValueError, match="factor >= 1.0"):
        cb.ReduceLROnPlateau(factor=1.0)
    sched_model = make_model()
    sched_model._optimizer._learning_rate = paddle.optimizer.lr.StepDecay(0.1, 1)
    c2 = cb.ReduceLROnPlateau()
    c2.set_model(sched_model)
    with pytest.warns(UserWarning, match="Expected learning_rate be float"):
        c2.on_eval_end({"loss": [1.0]})


def test_reduce_lr_exact_schedule():
    model = make_model()
    model._optimizer._learning_rate = 1.0
    c = cb.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=2, verbose=0, cooldown=1,
                             min_lr=0.2)
    c.set_model(model)
    c.on_train_begin()
    lrs = []
    for loss in [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]:
        c.on_eval_end({"loss": [loss]})
        lrs.append(model._optimizer.get_lr())
    assert lrs == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.2, 0.2]     # real Paddle's sequence


@pytest.mark.skipif(importlib.util.find_spec("visualdl") is not None,
                    reason="visualdl is installed")
def test_visualdl_without_the_package_names_it(tmp_path):
    model = make_model()
    with pytest.raises(ImportError, match="visualdl"):
        run(model.fit, Data(8), batch_size=4, epochs=1, verbose=0,
            callbacks=[cb.VisualDL(str(tmp_path))])


@pytest.mark.skipif(importlib.util.find_spec("wandb") is not None, reason="wandb installed")
def test_wandb_without_the_package_names_it():
    with pytest.raises(ImportError, match="pip install wandb"):
        cb.WandbCallback(project="p")


def test_curve_plotter():
    if importlib.util.find_spec("matplotlib") is None:
        with pytest.raises(ImportError, match="matplotlib"):
            cb.CurvePlotter("curves.png")
        return
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "curves.png")
        plot = cb.CurvePlotter(path)
        run(make_model().fit, Data(8), Data(4), batch_size=4, epochs=2, verbose=0,
            callbacks=[plot])
        assert len(plot.history["train"]["loss"]) == 4 and len(plot.history["eval"]["acc"]) == 2
        with open(path, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"


class _FakeWriter:
    def __init__(self, log_dir):
        self.log_dir, self.scalars, self.closed = log_dir, [], False

    def add_scalar(self, tag, step, value):
        self.scalars.append((tag, step, round(float(value), 6)))

    def close(self):
        self.closed = True


def test_visualdl_writes_train_and_eval_scalars(monkeypatch, tmp_path):
    import types
    made = []
    fake = types.ModuleType("visualdl")
    fake.LogWriter = lambda d: made.append(_FakeWriter(d)) or made[-1]
    monkeypatch.setitem(__import__("sys").modules, "visualdl", fake)
    run(make_model().fit, Data(8), Data(4), batch_size=4, epochs=2, verbose=0,
        callbacks=[cb.VisualDL(str(tmp_path))])
    w = made[0]
    assert w.log_dir == str(tmp_path) and w.closed
    tags = [(t, s) for t, s, _ in w.scalars]
    assert tags[:4] == [("train/loss", 1), ("train/acc", 1), ("train/loss", 2), ("train/acc", 2)]
    assert ("eval/loss", 0) in tags and ("eval/acc", 1) in tags
    assert len(w.scalars) == 2 * 4 + 2 * 2


def test_wandb_logs_through_the_run(monkeypatch):
    import types
    logged = []

    class Run:
        def define_metric(self, *a, **k):
            logged.append(("define", a[0]))

        def log(self, d):
            logged.append(("log", dict(d)))

        def finish(self):
            logged.append(("finish",))

    fake = types.ModuleType("wandb")
    fake.run = None
    fake.init = lambda **k: logged.append(("init", k.get("project"))) or Run()
    monkeypatch.setitem(__import__("sys").modules, "wandb", fake)
    run(make_model().fit, Data(8), Data(4), batch_size=4, epochs=1, verbose=0,
        callbacks=[cb.WandbCallback(project="demo")])
    assert logged[0] == ("init", "demo") and logged[-1] == ("finish",)
    logs = [x[1] for x in logged if x[0] == "log"]
    assert logs[0]["train/step"] == 1 and set(logs[0]) == {"train/step", "train/loss",
                                                           "train/acc"}
    assert logs[-1]["epoch"] == 0 and "eval/acc" in logs[-1]


def test_a_failed_checkpoint_leaves_the_previous_file_whole(tmp_path, monkeypatch):
    import sampan.hapi.model as hm
    model = make_model()
    model.save(str(tmp_path / "final"))
    before = (tmp_path / "final.pdparams").read_bytes()
    real = hm._save

    def failing(obj, path, *a, **k):      # fails half way through pickling
        return real({"w": np.zeros(1000, "float32"), "bad": lambda: 0}, path, *a, **k)

    monkeypatch.setattr(hm, "_save", failing)
    with pytest.raises(Exception):
        cb_ = cb.ModelCheckpoint(save_dir=str(tmp_path))
        cb_.set_model(model)
        run(cb_.on_train_end)
    assert (tmp_path / "final.pdparams").read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["final.pdparams"]
