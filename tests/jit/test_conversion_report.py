"""``sampan.jit.report``: every problem of converting a function or a Layer,
in one call (jit/report.py)."""
import math
import time

import numpy as np
import pytest

import sampan as paddle
import sys

import sampan.jit.report  # noqa: F401 (the module, shadowed by the function)
from sampan.static import InputSpec

R = sys.modules["sampan.jit.report"]

COUNT = 0


def helper(y):
    global COUNT
    COUNT += 1
    return y * 2


class Bad(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)
        self.calls = 0

    def forward(self, x):
        h = self.fc(x)
        scale = time.time()                      # frozen
        noise = np.random.rand(4)                # frozen
        m = np.mean(h)                           # numpy on a tensor
        idx = paddle.nonzero(h > 0)              # data-dependent shape
        extra = paddle.nn.Linear(4, 4)           # layer created in forward
        print("in forward")                      # runs at trace only
        assert self.calls >= 0                   # runs at trace only
        self.calls = self.calls + 1              # Python state
        v = h.numpy()                            # value read
        return helper(h) + float(h.sum()) + scale + noise.sum() + m + idx.shape[0] + \
            extra.weight.shape[0] + v.shape[0]


def _line(fn, text):
    lines, first = __import__("inspect").getsourcelines(fn)
    return first + next(k for k, t in enumerate(lines) if text in t)


def test_bad_model_lists_every_problem_in_one_call():
    r = paddle.jit.report(Bad(), paddle.to_tensor(np.ones((2, 4), "float32")))
    assert r.traced is False
    kinds = set(r.kinds)
    assert {R.FROZEN, R.NUMPY, R.DATA_SHAPE, R.PARAM_IN_FORWARD, R.TRACE_ONLY,
            R.VALUE_READ} <= kinds
    got = {(p.line, p.kind) for p in r if p.file == __file__}
    f = Bad.forward
    expect = [("time.time()", R.FROZEN), ("np.random.rand", R.FROZEN),
              ("np.mean(h)", R.NUMPY), ("paddle.nonzero", R.DATA_SHAPE),
              ("extra = paddle.nn.Linear", R.PARAM_IN_FORWARD),
              ('print("in forward")', R.TRACE_ONLY), ("assert self.calls", R.TRACE_ONLY),
              ("self.calls = self.calls", R.TRACE_ONLY), ("v = h.numpy()", R.VALUE_READ),
              ("float(h.sum())", R.VALUE_READ)]
    for text, kind in expect:
        assert (_line(f, text), kind) in got, (text, kind, str(r))
    # the helper it calls is read too
    assert (_line(helper, "global COUNT"), R.TRACE_ONLY) in got
    # each problem names its line's text and a rewrite; the text lists them all
    for p in r:
        assert p.code and p.suggestion
    text = str(r)
    assert f"{len(r)} problem(s)" in text and "suggestion:" in text
    assert len({p.line for p in r}) >= 10


class Clean(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 2)

    def forward(self, x):
        y = paddle.tanh(self.fc(x))
        if paddle.mean(y) > 0:                   # a tensor if: a cond op, no problem
            y = y * 2
        print(y)                                 # a tensor: a print op
        return y


def test_clean_model_has_no_problem_and_traces():
    r = paddle.jit.report(Clean(), InputSpec([None, 4], "float32"))
    assert len(r) == 0 and r.traced, str(r)
    assert "0 problem(s)" in str(r)


def test_trace_pass_adds_what_the_source_pass_misses():
    def f(x):
        y = x * 2
        s = math.sqrt(y.sum())                   # a value read through a Python call
        return y * s

    r = paddle.jit.report(f, paddle.to_tensor(np.ones([3], "float32")))
    line = _line(f, "math.sqrt")
    assert [(p.line, p.kind) for p in r] == [(line, R.VALUE_READ)], str(r)
    assert "tmp" in r.problems[0].message or "value of" in r.problems[0].message


def test_data_dependent_op_found_in_the_program():
    def f(x):
        return paddle.masked_select(x, x > 0)

    r = paddle.jit.report(paddle.jit.to_static(f), paddle.to_tensor(np.ones([3], "float32")))
    assert [p.kind for p in r] == [R.DATA_SHAPE]


def test_generator_is_unsupported_and_source_only_report():
    def g(x):
        for i in range(2):
            yield x * i

    r = paddle.jit.report(g)
    assert [p.kind for p in r] == [R.UNSUPPORTED] and not r.traced


def test_bad_argument():
    with pytest.raises(TypeError, match="report needs a function"):
        paddle.jit.report(3)


def test_command_line(capsys):
    from sampan.jit.report import main
    rc = main([f"{__name__}:Bad", "--input=-1,4:float32"])
    out = capsys.readouterr().out
    assert rc == 1 and "problem(s) of 6 kind(s)" in out and "suggestion:" in out
    assert main([f"{__name__}:Clean", "--input", "None,4"]) == 0
    with pytest.raises(SystemExit):
        main([f"{__name__}:Missing"])
    with pytest.raises(SystemExit):
        main([f"{__name__}:Bad", "--input", "a,b"])
