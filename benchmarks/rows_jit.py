"""to_static rows: W1 (1000-op chain), W2/W3 (MLP training step with the model
decorated by ``to_static``), W4b (an ``if`` on a tensor and a tensor-bounded
``while``): the cached call against the numpy floor of the same workload.

The first call (conversion + tracing + planning, and for W2 the backward
program) is measured in a fresh Python process, so no cache of this process
helps it, and reported in the row's checks as ``first_s`` (aims: W4b under
0.05 s, the W2 training step under 0.1 s).
"""
import os
import subprocess
import sys
import tempfile

import floor_numpy as fl
from rows import Row, HERE
from rows_eager import _chain, _maxdiff, _mlp_with_floor, mlp_step

ROOT = os.path.dirname(HERE)


# ----------------------------------------------------------------- first calls
_FIRST = r"""
import sys, time, importlib.util
sys.path[:0] = [{perf!r}]
import harness  # pins threads
spec = importlib.util.spec_from_file_location("sampan", {init!r},
                                              submodule_search_locations=[{root!r}])
paddle = importlib.util.module_from_spec(spec); sys.modules["sampan"] = paddle
spec.loader.exec_module(paddle)
import floor_numpy as fl
{body}
"""

_W4B_FIRST = """
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
x = paddle.to_tensor(fl.w1_inputs()[0].repeat(16).reshape(8, 8))
n = paddle.to_tensor([fl.CF_N], dtype="int64")
sf = paddle.jit.to_static(cf, full_graph=True)
t0 = time.perf_counter(); sf(x, n); print(time.perf_counter() - t0)
"""

_W2_FIRST = """
cfg = fl.W2
xn, yn = fl.mlp_data(cfg["batch"], cfg["din"], cfg["dout"])
x, y = paddle.to_tensor(xn), paddle.to_tensor(yn)
layers, d = [], cfg["din"]
for i in range(cfg["depth"]):
    o = cfg["dout"] if i == cfg["depth"] - 1 else cfg["width"]
    layers.append(paddle.nn.Linear(d, o))
    if i < cfg["depth"] - 1:
        layers.append(paddle.nn.ReLU())
    d = o
class WithLoss(paddle.nn.Layer):
    def __init__(self, net):
        super().__init__()
        self.net = net
    def forward(self, x, y):
        return paddle.nn.functional.mse_loss(self.net(x), y)
model = paddle.jit.to_static(WithLoss(paddle.nn.Sequential(*layers)), full_graph=True)
opt = paddle.optimizer.SGD(learning_rate=fl.LR, parameters=model.parameters())
t0 = time.perf_counter()
loss = model(x, y); loss.backward(); opt.step(); opt.clear_grad()
print(time.perf_counter() - t0)
"""


def first_call_seconds(body):
    """Seconds of a first call, timed in a fresh process (best of 3)."""
    perf = os.path.dirname(fl.__file__)
    code = _FIRST.format(perf=perf, init=os.path.join(ROOT, "__init__.py"), root=ROOT,
                         body=body)
    best = None
    with tempfile.TemporaryDirectory() as tmp:     # a file: conversion reads the source
        script = os.path.join(tmp, "first_call.py")
        with open(script, "w") as f:
            f.write(code)
        for _ in range(3):
            t = _run_script(script)
            best = t if best is None else min(best, t)
    return best


def _run_script(script):
    out = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1])
    return float(out.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------- rows
def w1_to_static(paddle):
    xn, bn, sn = fl.w1_inputs()
    x, b, s = (paddle.to_tensor(a) for a in (xn, bn, sn))
    sf = paddle.jit.to_static(_chain, full_graph=True)
    got = sf(x, b, s)
    return (lambda: sf(x, b, s)), {"vs_floor": _maxdiff(got, fl.w1_forward(xn, bn, sn))}


def mlp_to_static_step(cfg, first=False):
    def make(paddle):
        xn, yn, x, y, net, floor = _mlp_with_floor(paddle, cfg)

        class WithLoss(paddle.nn.Layer):
            def __init__(self, net):
                super().__init__()
                self.net = net

            def forward(self, x, y):
                return paddle.nn.functional.mse_loss(self.net(x), y)

        model = paddle.jit.to_static(WithLoss(net), full_graph=True)
        opt = paddle.optimizer.SGD(learning_rate=fl.LR, parameters=model.parameters())

        def step():
            loss = model(x, y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss

        diffs = [abs(float(step()) - float(floor.train_step(xn, yn))) for _ in range(2)]
        checks = {"loss_vs_floor": max(diffs)}
        if first:
            checks["first_s"] = first_call_seconds(_W2_FIRST)
        return step, checks
    return make


def w4b_to_static(paddle):
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
    sf = paddle.jit.to_static(cf, full_graph=True)
    got = sf(x, n)
    checks = {"vs_floor": _maxdiff(got, fl.cf_floor(xn, fl.CF_N)),
              "traced": float(sf.get_traced_count()),
              "first_s": first_call_seconds(_W4B_FIRST)}
    return (lambda: sf(x, n)), checks


ROWS = [
    Row("W1 to_static fwd", "w1", "floor_fwd", 1.5, w1_to_static, peer="compile fwd"),
    Row("W2 to_static step", "w2", "floor_step", 1.15, mlp_to_static_step(fl.W2, first=True),
        peer="compile step"),
    Row("W3 to_static step", "w3", "floor_step", 4.0, mlp_to_static_step(fl.W3),
        peer="compile step"),
    Row("W2 to_static whole step", "w2", "floor_step", 1.15, mlp_step(fl.W2, traced=True),
        peer="compile step"),
    Row("W4B to_static call", "w4b", "floor_call", 5.0, w4b_to_static, peer="script call"),
]
