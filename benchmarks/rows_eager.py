"""Eager-engine rows: W1 (1000-op elementwise chain, forward and forward+backward),
W2 and W3 (one MLP training step with SGD), written against the Paddle API only,
with the shapes and data of ``../shared/perf`` (same as ``bench_paddle.py``).

Each ``make`` also returns checks: the eager result against the numpy floor
computed from the same inputs (W2/W3: the first two losses from the same
initial weights), so a fast but wrong engine shows up in the table.
"""
import numpy as np

import floor_numpy as fl
from rows import Row


def _maxdiff(a, b):
    a = np.asarray(a.numpy() if hasattr(a, "numpy") else a, dtype=np.float64)
    return float(np.max(np.abs(a - np.asarray(b, dtype=np.float64))))


def _chain(x, b, s):
    for _ in range(fl.N_OPS // 2):
        x = x + b
        x = x * s
    return x


def w1_forward(paddle):
    xn, bn, sn = fl.w1_inputs()
    x, b, s = (paddle.to_tensor(a) for a in (xn, bn, sn))
    return (lambda: _chain(x, b, s)), {"vs_floor": _maxdiff(_chain(x, b, s),
                                                           fl.w1_forward(xn, bn, sn))}


def w1_forward_backward(paddle):
    xn, bn, sn = fl.w1_inputs()
    b, s = paddle.to_tensor(bn), paddle.to_tensor(sn)
    x = paddle.to_tensor(xn, stop_gradient=False)

    def step():
        _chain(x, b, s).sum().backward()
        g = x.grad.numpy()          # (clear_gradient zeroes the held gradient, as Paddle's)
        x.clear_gradient()
        return g

    return step, {"grad_vs_floor": _maxdiff(step(), fl.w1_forward_backward(xn, bn, sn)[1])}


def _mlp(paddle, cfg):
    layers, d = [], cfg["din"]
    for i in range(cfg["depth"]):
        o = cfg["dout"] if i == cfg["depth"] - 1 else cfg["width"]
        layers.append(paddle.nn.Linear(d, o))
        if i < cfg["depth"] - 1:
            layers.append(paddle.nn.ReLU())
        d = o
    return paddle.nn.Sequential(*layers)


def _mlp_with_floor(paddle, cfg):
    """(xn, yn, x, y, net, floor): the MLP's data as arrays and tensors, the
    model, and the numpy floor holding the model's initial weights."""
    xn, yn = fl.mlp_data(cfg["batch"], cfg["din"], cfg["dout"])
    x, y = paddle.to_tensor(xn), paddle.to_tensor(yn)
    net = _mlp(paddle, cfg)
    floor = fl.MLPFloor(cfg["din"], cfg["width"], cfg["depth"], cfg["dout"], lr=fl.LR)
    linears = [l for l in net.sublayers() if isinstance(l, paddle.nn.Linear)]
    floor.W = [l.weight.numpy().copy() for l in linears]
    floor.b = [l.bias.numpy().copy() for l in linears]
    return xn, yn, x, y, net, floor


def mlp_step(cfg, traced=False):
    """One SGD step of the MLP; ``traced``: the whole step (forward,
    ``loss.backward()``, ``opt.step()``, ``opt.clear_grad()``) inside one
    to_static function, one program holding the backward and the updates
    (optimizer/static_minimize.py; the row is rows_jit.py's)."""
    def make(paddle):
        xn, yn, x, y, model, floor = _mlp_with_floor(paddle, cfg)
        opt = paddle.optimizer.SGD(learning_rate=fl.LR, parameters=model.parameters())

        def train(x, y):
            loss = paddle.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss

        if traced:
            train = paddle.jit.to_static(train, full_graph=True)

        def step():
            return train(x, y)

        diffs = [abs(float(step()) - float(floor.train_step(xn, yn))) for _ in range(2)]
        return step, {"loss_vs_floor": max(diffs)}
    return make


def w4b_eager(paddle):
    """W4b's function (an ``if`` on a tensor, a tensor-bounded ``while``) run eagerly:
    the per-op dispatch cost of small ops (the to_static row is ``rows_jit.py``)."""
    def cf(x, n):
        if x.mean() > 0:
            y = x * 2.0
        else:
            y = x - 1.0
        i = paddle.zeros([1], dtype="int64")
        while i < n:
            y = paddle.tanh(y) + 1.0
            i = i + 1
        return y

    xn = fl.w1_inputs()[0].repeat(16).reshape(8, 8)
    x = paddle.to_tensor(xn)
    n = paddle.to_tensor([fl.CF_N], dtype="int64")
    return (lambda: cf(x, n)), {"vs_floor": _maxdiff(cf(x, n), fl.cf_floor(xn, fl.CF_N))}


ROWS = [
    Row("W1 eager fwd", "w1", "floor_fwd", 2.5, w1_forward, peer="eager fwd"),
    Row("W1 eager fwd+bwd", "w1", "floor_fwd_bwd", 4.0, w1_forward_backward,
        peer="eager fwd+bwd"),
    Row("W4B eager call", "w4b", "floor_call", 6.0, w4b_eager, peer="eager call"),
    Row("W2 eager step", "w2", "floor_step", 1.2, mlp_step(fl.W2), peer="eager step"),
    Row("W3 eager step", "w3", "floor_step", 4.0, mlp_step(fl.W3), peer="eager step"),
]
