"""Predictors in 8 threads give the outputs Paddle 2.6.2 recorded: one shared
Predictor called with run([arrays]) from every thread (Paddle's own shared
Predictor crashes there), and a clone per thread driven through its handles."""
import os
import threading

import numpy as np
import pytest

from sampan.inference import Config, create_predictor

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "shared",
                      "paddle-reference", "models")
N_THREADS, N_RUNS = 8, 10


def _model(name):
    folder = os.path.join(MODELS, name)
    if not os.path.isfile(os.path.join(folder, "outputs.npz")):
        pytest.skip(f"reference model {name} is not in ../shared")
    ins = dict(np.load(os.path.join(folder, "inputs.npz")))
    outs = dict(np.load(os.path.join(folder, "outputs.npz")))
    return create_predictor(Config(os.path.join(folder, "model"))), ins, outs


def _in_threads(work):
    errors = []

    def run(k):
        try:
            for _ in range(N_RUNS):
                work(k)
        except Exception as e:
            errors.append((k, repr(e)))
    threads = [threading.Thread(target=run, args=(k,)) for k in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def _check(got, outs):
    for g, (name, w) in zip(got, outs.items()):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("name", ["lenet", "loop", "mlp_cond"])
def test_one_predictor_shared_by_threads(name):
    pred, ins, outs = _model(name)
    feeds = [ins[n] for n in pred.get_input_names()]
    _in_threads(lambda k: _check(pred.run(feeds), outs))


@pytest.mark.parametrize("name", ["lenet", "bn_embed"])
def test_a_clone_per_thread_through_handles(name):
    pred, ins, outs = _model(name)
    clones = [pred.clone() for _ in range(N_THREADS)]

    def work(k):
        p = clones[k]
        for n in p.get_input_names():
            h = p.get_input_handle(n)
            h.reshape(list(ins[n].shape))
            h.copy_from_cpu(ins[n])
        assert p.run() is True
        _check([p.get_output_handle(n).copy_to_cpu() for n in p.get_output_names()], outs)
    _in_threads(work)
