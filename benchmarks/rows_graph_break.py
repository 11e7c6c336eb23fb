"""Graph-break rows (issue 22): W4B's workload written with a value read in the
middle (``float(x.mean().numpy())`` decides a Python branch), so to_static's default
mode (full_graph=False) breaks the graph there.  Two rows, timed in one run
against the same numpy floor: the warm to_static call and the same function
run eagerly (the break must cost no more than eager).  When real Paddle
2.6.2's side venv exists, its warm to_static (SOT) and eager calls of the same
function are timed in its own process and reported in the to_static row's
checks, as microseconds and as ratios to the floor timed in that process
(``paddle_sot_x``, ``paddle_eager_x``); ``vs_eager_x`` is sampan's warm
to_static call over its eager call, timed interleaved in the row's process.
A broken key runs as the Python between breaks plus cached segment programs
(jit/segments.py): here the read and the Python branch run as Python, each arm
and the loop as one cached program.""" 
import json
import os
import subprocess
import tempfile
import time

import floor_numpy as fl
from rows import Row
from rows_eager import _maxdiff

_PADDLE_PY = os.path.join(os.environ.get("SAMPAN_INTEROP_CACHE",
                                         os.path.expanduser("~/.cache/sampan-interop")),
                          "paddle-2.6.2", "bin", "python")

_SRC = """
def cfb(x, n):
    m = float(x.mean().numpy())  # a value leaves the graph: one break
    if m > 0:
        y = x * 2.0
    else:
        y = x - 1.0
    i = 0
    while i < n:
        y = paddle.tanh(y) + 1.0
        i += 1
    return y
"""

_PADDLE = r"""
import json, sys, timeit, os
os.environ.setdefault("GLOG_minloglevel", "3")
import numpy as np
import paddle
sys.path[:0] = [{perf!r}]
import floor_numpy as fl
""" + _SRC + r"""
xn = fl.w1_inputs()[0].repeat(16).reshape(8, 8)
x = paddle.to_tensor(xn)
sf = paddle.jit.to_static(cfb)
for _ in range(5):
    sf(x, fl.CF_N); cfb(x, fl.CF_N)
assert np.allclose(sf(x, fl.CF_N).numpy(), fl.cf_floor(xn, fl.CF_N), atol=1e-5)
def med(fn, k=400):
    return min(sorted(timeit.repeat(fn, number=k, repeat=7))[:4]) / k
out = dict(sot=med(lambda: sf(x, fl.CF_N)), eager=med(lambda: cfb(x, fl.CF_N)),
           floor=med(lambda: fl.cf_floor(xn, fl.CF_N)))
print(json.dumps(out))
"""


paddle = None      # the measured package (set by _function), as cfb's code reads it


def cfb(x, n):     # = _SRC (Paddle's process runs that text)
    m = float(x.mean().numpy())  # a value leaves the graph: one break
    if m > 0:
        y = x * 2.0
    else:
        y = x - 1.0
    i = 0
    while i < n:
        y = paddle.tanh(y) + 1.0
        i += 1
    return y


def _function(pkg):
    global paddle
    paddle = pkg
    return cfb


def _paddle_times():
    if not os.path.exists(_PADDLE_PY):
        return {}
    perf = os.path.dirname(fl.__file__)
    try:       # from a file: Paddle's SOT reads the function's source
        with tempfile.TemporaryDirectory() as d:
            script = os.path.join(d, "graph_break_paddle.py")
            with open(script, "w") as f:
                f.write(_PADDLE.format(perf=perf))
            r = subprocess.run([_PADDLE_PY, script], capture_output=True, text=True,
                               timeout=300)
        t = json.loads(r.stdout.strip().splitlines()[-1])
    except Exception:
        return {}
    return {"paddle_sot_us": t["sot"] * 1e6, "paddle_eager_us": t["eager"] * 1e6,
            "paddle_sot_x": t["sot"] / t["floor"], "paddle_eager_x": t["eager"] / t["floor"]}


def _inputs(paddle):
    xn = fl.w1_inputs()[0].repeat(16).reshape(8, 8)
    return xn, paddle.to_tensor(xn)


def _best(fn, k=200, rounds=7):
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        best = min(best, (time.perf_counter() - t0) / k)
    return best


def break_to_static(paddle):
    xn, x = _inputs(paddle)
    fn = _function(paddle)
    sf = paddle.jit.to_static(fn)
    got = sf(x, fl.CF_N)
    call, eager = (lambda: sf(x, fl.CF_N)), (lambda: fn(x, fl.CF_N))
    # warm call / eager call of the same function, best of interleaved rounds
    tc, te = float("inf"), float("inf")
    for _ in range(7):
        tc, te = min(tc, _best(call, 100, 1)), min(te, _best(eager, 100, 1))
    ratio = tc / te
    checks = {"vs_floor": _maxdiff(got, fl.cf_floor(xn, fl.CF_N)),
              "broken_keys": float(len(sf._broken)), "vs_eager_x": ratio, **_paddle_times()}
    return call, checks


def break_eager(paddle):
    xn, x = _inputs(paddle)
    fn = _function(paddle)
    got = fn(x, fl.CF_N)
    return (lambda: fn(x, fl.CF_N)), {"vs_floor": _maxdiff(got, fl.cf_floor(xn, fl.CF_N))}


ROWS = [
    Row("W4B break to_static", "w4b", "floor_call", 8.0, break_to_static),
    Row("W4B break eager", "w4b", "floor_call", 8.0, break_eager),
]
