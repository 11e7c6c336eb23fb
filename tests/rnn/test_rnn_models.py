"""Recurrent models end to end: a text classifier (Embedding + 2-layer
bidirectional LSTM + Linear), a GRU seq2seq with attention and a BiRNN(GRUCell)
tagger (a while op under to_static) train 20 steps
under to_static with the losses of eager training; exported with jit.save
they run in sampan's Predictor and jit.load with the eager outputs, and in
real Paddle 2.6.2 (paddle.inference and paddle.jit.load, through the interop
harness) with equal outputs."""
import os

import numpy as np
import pytest

import sampan as paddle
from sampan import inference

from . import models

NAMES = ["text_classifier", "seq2seq", "cell_tagger"]
STEPS = 20


def _pair(name):
    paddle.seed(11)
    a = models.build(paddle, name)
    b = models.build(paddle, name)
    b.set_state_dict(a.state_dict())
    return a, b


def _train(net, step_fn, name):
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
    losses = []
    for s in range(STEPS):
        inputs, label = models.data(name, s)
        logits = step_fn(*[paddle.to_tensor(v) for v in inputs])
        loss = models.loss_of(paddle, name, logits, label)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss.numpy()))
    return losses


@pytest.mark.parametrize("name", NAMES)
def test_to_static_training_equals_eager(name):
    eager, st = _pair(name)
    want = _train(eager, eager, name)
    fn = paddle.jit.to_static(st)
    got = _train(st, fn, name)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert want[-1] < want[0]


def _export(name, prefix):
    paddle.seed(5)
    net = models.build(paddle, name)
    net.eval()
    paddle.jit.save(paddle.jit.to_static(net, input_spec=models.input_spec(paddle, name)),
                    prefix)
    inputs, _ = models.data(name, 99)
    want = net(*[paddle.to_tensor(v) for v in inputs]).numpy()
    return net, inputs, want


@pytest.mark.parametrize("name", NAMES)
def test_exported_model_runs_in_sampan(name, tmp_path):
    prefix = str(tmp_path / name)
    _, inputs, want = _export(name, prefix)
    with open(prefix + ".pdmodel", "rb") as fh:
        assert (b"while" if name == "cell_tagger" else b"rnn") in fh.read()
    loaded = paddle.jit.load(prefix)
    loaded.eval()
    np.testing.assert_allclose(loaded(*[paddle.to_tensor(v) for v in inputs]).numpy(), want,
                               rtol=1e-5, atol=1e-6)
    pred = inference.create_predictor(inference.Config(prefix + ".pdmodel",
                                                       prefix + ".pdiparams"))
    for n, v in zip(pred.get_input_names(), inputs):
        pred.get_input_handle(n).copy_from_cpu(v)
    pred.run()
    got = pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def paddle_runs(paddle_side, tmp_path_factory):
    from interop import harness
    workdir = tmp_path_factory.mktemp("rnn_interop")
    jobs, wants = [], {}
    for name in NAMES:
        prefix = str(workdir / name / "model")
        os.makedirs(os.path.dirname(prefix), exist_ok=True)
        _, inputs, want = _export(name, prefix)
        spec = models.input_spec(paddle, name)
        feeds = str(workdir / (name + ".npz"))
        np.savez(feeds, **{s.name: v for s, v in zip(spec, inputs)})
        jobs.append({"id": name, "kind": "run_model", "prefix": prefix, "inputs": feeds,
                     "modes": ["inference", "jit_load"]})
        wants[name] = want
    results = paddle_side.run(jobs, workdir)
    return harness, workdir, results, wants


@pytest.mark.parametrize("mode", ["inference", "jit_load"])
@pytest.mark.parametrize("name", NAMES)
def test_exported_model_runs_in_real_paddle(name, mode, paddle_runs):
    harness, workdir, results, wants = paddle_runs
    failure = harness.mode_failure(results, name, mode)
    assert failure is None, failure
    got = harness.job_outputs(str(workdir), name, mode)
    np.testing.assert_allclose(got[0], wants[name], rtol=1e-5, atol=1e-5)
