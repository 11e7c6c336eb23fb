"""The progress bar and ProgBarLogger print Paddle 2.6.2's format: exact
strings for a controlled clock, and fit/evaluate/predict logs equal to the
ones Paddle printed (fixtures/paddle_hapi.json) once numbers and timings
are masked."""
import contextlib
import io
import json
import os
import re

import numpy as np
import pytest

import sampan as paddle
from sampan.hapi import progressbar as pb

HERE = os.path.dirname(os.path.abspath(__file__))
REC = json.load(open(os.path.join(HERE, "fixtures", "paddle_hapi.json")))["fit"]


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(pb.time, "time", c)
    monkeypatch.setattr(pb, "_max_width", lambda: 30)
    return c


def test_verbose2_lines(clock):
    out = io.StringIO()
    bar = pb.ProgressBar(num=20, verbose=2, file=out)
    clock.t += 0.03
    bar.update(10, [("loss", [0.12345]), ("acc", 0.5)])
    clock.t += 0.05
    bar.update(20, [("loss", [0.0001]), ("lr", "x")])
    assert out.getvalue() == ("step 10/20 - loss: 0.1235 - acc: 0.5000 - 3ms/step\n"
                              "step 20/20 - loss: 1.0000e-04 - lr: x - 4ms/step\n")


def test_verbose1_bar_eta_and_redraw(clock):
    out = io.StringIO()
    bar = pb.ProgressBar(num=20, verbose=1, file=out)
    clock.t += 0.03
    bar.update(10, [("loss", [0.12345]), ("acc", 0.5)])
    first = "step 10/20 [==============>...............] - loss: 0.1235 - acc: 0.5000" \
            " - ETA: 0s - 3ms/step"
    assert out.getvalue() == "\r" + first
    clock.t += 30 * 10
    bar.update(20, [("loss", [0.5])])
    second = "step 20/20 [==============================] - loss: 0.5000 - 15s/step"
    pad = " " * (len(first) - len(second))
    assert out.getvalue() == "\r" + first + "\b" * len(first) + "\r" + second + pad + "\n"


def test_eta_formats_and_unknown_length(clock):
    out = io.StringIO()
    bar = pb.ProgressBar(num=1000, verbose=1, file=out)
    clock.t += 10.0
    bar.update(1)
    assert "ETA: 2:46:30 - 10s/step" in out.getvalue()
    out2 = io.StringIO()
    bar2 = pb.ProgressBar(num=None, verbose=1, file=out2)
    clock.t += 0.0035
    bar2.update(7, [("acc", np.float32(0.25))])
    assert out2.getvalue() == "\rstep   7 - acc: 0.2500 - 500us/step\n"
    with pytest.raises(TypeError, match="num should be None or integer"):
        pb.ProgressBar(num=0)


class Data(paddle.io.Dataset):
    def __init__(self, n):
        rng = np.random.RandomState(0)
        self.x = rng.randn(n, 4).astype("float32")
        self.y = (self.x[:, :1] > 0).astype("int64")

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


def _mask(text):
    text = re.sub(r"\x08+", "<BS>", text)
    text = re.sub(r"-?\d+\.\d{4}(e[-+]\d+)?", "<N>", text)
    text = re.sub(r"\d+(us|ms|s)/step", "<T>/step", text)
    text = re.sub(r"ETA: [\d:]+s?", "ETA: <E>", text)
    return re.sub(r" +(\n|<BS>)", r"\1", text)    # padding over a longer previous line


@pytest.mark.parametrize("verbose", [1, 2])
def test_fit_evaluate_predict_logs_match_paddles(verbose, monkeypatch):
    monkeypatch.setattr(pb, "_max_width", lambda: 30)    # Paddle's width off a terminal
    nn = paddle.nn
    model = paddle.Model(nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3)))
    model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()),
                  nn.CrossEntropyLoss(), paddle.metric.Accuracy(topk=(1, 2)))
    logs = {}
    for key, fn in [("fit", lambda: model.fit(Data(20), Data(8), batch_size=4, epochs=2,
                                              log_freq=2, verbose=verbose, shuffle=False)),
                    ("eval", lambda: model.evaluate(Data(8), batch_size=4, verbose=verbose,
                                                    log_freq=1)),
                    ("predict", lambda: model.predict(Data(6), batch_size=4,
                                                      verbose=verbose))]:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            fn()
        logs[key] = buf.getvalue()
        assert _mask(logs[key]) == _mask(REC[f"{key}_v{verbose}"]), key


def test_verbose0_prints_nothing():
    nn = paddle.nn
    model = paddle.Model(nn.Linear(4, 2))
    model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()),
                  nn.CrossEntropyLoss())
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        model.fit(Data(8), batch_size=4, epochs=1, verbose=0)
        model.evaluate(Data(8), batch_size=4, verbose=0)
    assert buf.getvalue() == ""


def test_verbose3_adds_reader_and_batch_costs():
    nn = paddle.nn
    model = paddle.Model(nn.Linear(4, 2))
    model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()),
                  nn.CrossEntropyLoss())
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        model.fit(Data(8), batch_size=4, epochs=1, verbose=3, log_freq=1)
    lines = [ln for ln in buf.getvalue().splitlines() if ln.startswith("step")]
    assert len(lines) == 2
    assert re.fullmatch(r"step 1/2 - loss: \d\.\d{4} - avg_reader_cost: \d+\.\d{5} sec - "
                        r"avg_batch_cost: \d+\.\d{5} sec - ips: \d+\.\d{5} samples/sec - "
                        r"\d+(us|ms|s)/step", lines[0]), lines[0]
