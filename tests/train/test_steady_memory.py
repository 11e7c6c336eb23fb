"""A long run does not grow: 3000 training steps (eager and to_static) and
3000 Predictor runs hold the process's resident memory flat after warm-up
(keeping each eager step's loss, with its graph, grows it by 17 MB)."""
import gc
import os

import numpy as np
import pytest

import sampan as paddle

STEPS, WARMUP = 3000, 300
ALLOWED_MB = 8.0

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/statm"),
                                reason="resident memory is read from /proc")


def _rss_mb():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _growth(step):
    for _ in range(WARMUP):
        step()
    gc.collect()
    before = _rss_mb()
    for _ in range(STEPS - WARMUP):
        step()
    gc.collect()
    return _rss_mb() - before


def _mlp():
    paddle.seed(0)
    return paddle.nn.Sequential(paddle.nn.Linear(16, 32), paddle.nn.ReLU(),
                                paddle.nn.Linear(32, 1))


@pytest.mark.parametrize("static", [False, True], ids=["eager", "to_static"])
def test_training_steps_hold_memory_flat(static):
    net = _mlp()
    model = paddle.jit.to_static(net) if static else net
    opt = paddle.optimizer.Adam(1e-3, parameters=net.parameters())
    x = paddle.to_tensor(np.random.RandomState(0).rand(8, 16).astype("float32"))
    y = paddle.to_tensor(np.random.RandomState(1).rand(8, 1).astype("float32"))
    losses = []

    def step():
        loss = paddle.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    grew = _growth(step)
    assert grew < ALLOWED_MB, f"resident memory grew {grew:.1f} MB over {STEPS} steps"
    assert losses[-1] < losses[0]                 # it did train


def test_predictor_runs_hold_memory_flat(tmp_path):
    net = _mlp()
    paddle.jit.save(net, str(tmp_path / "m"),
                    input_spec=[paddle.static.InputSpec([None, 16], "float32", "x")])
    pred = paddle.inference.create_predictor(paddle.inference.Config(str(tmp_path / "m")))
    x = np.random.RandomState(0).rand(8, 16).astype("float32")
    want = net(paddle.to_tensor(x)).numpy()
    grew = _growth(lambda: pred.run([x]))
    assert grew < ALLOWED_MB, f"resident memory grew {grew:.1f} MB over {STEPS} runs"
    np.testing.assert_allclose(pred.run([x])[0], want, rtol=1e-5, atol=1e-6)
