"""Threads: to_static functions called from 8 threads at once give what one
thread gives (the first calls trace concurrently: tracing is one thread at a
time, the mode is per thread, so other threads' eager code stays eager), and
eager training in threads is unaffected by a thread tracing."""
import threading

import numpy as np

import sampan as paddle

N_THREADS = 8


class _Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = paddle.nn.Linear(8, 16)
        self.b = paddle.nn.Linear(16, 4)

    def forward(self, x):
        h = paddle.nn.functional.relu(self.a(x))
        if h.mean() > 0.1:                       # a tensor `if` and a loop: sub-blocks
            h = h * 2
        i = 0
        while i < 3:
            h = h + 1
            i += 1
        return self.b(h)


def _inputs(k):
    # a different batch size per thread: each thread traces its own program
    return np.random.RandomState(k).rand(k + 1, 8).astype("float32")


def _in_threads(work):
    errors, results = [], {}

    def run(k):
        try:
            results[k] = work(k)
        except Exception as e:               # reported below with the thread's index
            errors.append((k, repr(e)))
    threads = [threading.Thread(target=run, args=(k,)) for k in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


def test_to_static_layer_in_threads_equals_serial_eager():
    paddle.seed(3)
    net = _Net()
    want = {k: net(paddle.to_tensor(_inputs(k))).numpy() for k in range(N_THREADS)}
    fast = paddle.jit.to_static(net)

    def work(k):
        x = paddle.to_tensor(_inputs(k))
        outs = [fast(x).numpy() for _ in range(20)]
        assert all(np.array_equal(o, outs[0]) for o in outs)
        return outs[0]
    got = _in_threads(work)
    for k in range(N_THREADS):
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6)
    assert fast.forward.get_traced_count() == N_THREADS


def _train(k, static, start):
    net = _Net()
    net.set_state_dict(start[k])       # the global random generator is shared: seed outside
    step = paddle.jit.to_static(net) if static else net
    opt = paddle.optimizer.SGD(0.01, parameters=net.parameters())
    x = paddle.to_tensor(_inputs(k))
    losses = []
    for _ in range(15):
        loss = (step(x) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses


def test_training_in_threads_equals_serial():
    # eager and to_static training side by side: a tracing thread must not turn
    # an eager thread's ops static, nor share gradients
    paddle.seed(5)
    start = [{n: p.numpy() for n, p in _Net().state_dict().items()} for _ in range(N_THREADS)]
    want = {k: _train(k, k % 2 == 1, start) for k in range(N_THREADS)}
    got = _in_threads(lambda k: _train(k, k % 2 == 1, start))
    for k in range(N_THREADS):
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, err_msg=f"thread {k}")
