"""Source conversion (jit.conversion + the runtime helpers), run eagerly:
conversion never changes what a function computes in Python; the converted
source is visible and in linecache; caches, not_to_static/ignore_module and
set_code_level behave."""
import linecache
import logging

import numpy as np
import pytest

import sampan as paddle
from sampan.jit import conversion
from sampan.jit.conversion import convert_function, converted_source
from sampan.jit.convert_runtime import UndefinedVariableError

from . import conversion_cases as C


def _ids(cases):
    return [fn.__name__ for fn, _ in cases]


def _numpy(out):
    if isinstance(out, (list, tuple)):
        return [_numpy(o) for o in out]
    return np.asarray(out.numpy()) if hasattr(out, "numpy") else out


def _assert_same(a, b):
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b and type(a) is type(b)


# ----------------------------------------------------------------- meaning kept
@pytest.mark.parametrize("fn,inputs", C.TENSOR_CASES, ids=_ids(C.TENSOR_CASES))
def test_converted_tensor_functions_give_the_eager_results(fn, inputs):
    conv = convert_function(fn)
    for args in inputs:
        ref = _numpy(fn(*[paddle.to_tensor(a) for a in args]))
        got = _numpy(conv(*[paddle.to_tensor(a) for a in args]))
        _assert_same(ref, got)


@pytest.mark.parametrize("fn,inputs", C.PYTHON_CASES, ids=_ids(C.PYTHON_CASES))
def test_converted_python_functions_give_the_same_values(fn, inputs):
    conv = convert_function(fn)
    for args in inputs:
        assert conv(*args) == fn(*args)


def test_gradients_flow_through_converted_code():
    x1 = paddle.to_tensor(C.A, stop_gradient=False)
    x2 = paddle.to_tensor(C.A, stop_gradient=False)
    C.nested_if(x1).sum().backward()
    convert_function(C.nested_if)(x2).sum().backward()
    np.testing.assert_array_equal(x1.grad.numpy(), x2.grad.numpy())


def test_undefined_variable_read_raises_a_named_error():
    def f(flag):
        if flag:
            y = 1
        return y
    conv = convert_function(f)
    assert conv(True) == 1
    with pytest.raises(UndefinedVariableError, match="'y'"):
        conv(False)


def test_falling_off_the_end_returns_none():
    def f(n):
        if n > 0:
            return n
    conv = convert_function(f)
    assert conv(2) == 2 and conv(-1) is None


def test_methods_and_closures_keep_their_cells():
    def make():
        hits = []

        def f(v):
            if v > 0:
                hits.append(v)
            return len(hits)
        return f, hits
    f, hits = make()
    conv = convert_function(f)
    assert conv(3) == 1 and conv(-1) == 1 and conv(5) == 2 and hits == [3, 5]

    net = C._net()
    bound = convert_function(net.twice)
    x = paddle.to_tensor(C.M)
    np.testing.assert_array_equal(bound(x).numpy(), net.twice(x).numpy())


# ----------------------------------------------------------------- source, caches
def test_converted_source_is_visible_and_in_linecache():
    src = converted_source(C.if_else)
    assert src.startswith("def if_else(x):")
    assert "_jst.convert_ifelse(" in src and "def _jst_fn_true_" in src
    conv = convert_function(C.if_else)
    filename = conv.__code__.co_filename
    assert filename.startswith("<sampan converted if_else")
    cached = "".join(linecache.getlines(filename))
    assert "def _jst_converted(x):" in cached or "def if_else" in cached
    assert "_jst.convert_ifelse(" in cached
    assert conv.__name__ == "if_else" and conv.__qualname__ == C.if_else.__qualname__


def test_conversion_is_cached_per_function_and_per_code():
    assert convert_function(C.if_else) is convert_function(C.if_else)

    def make(k):
        def f(v):
            if v > k:
                return 1
            return 0
        return f
    f1, f2 = make(1), make(5)
    c1, c2 = convert_function(f1), convert_function(f2)
    assert c1 is not c2 and c1.__code__ is c2.__code__     # one compile, two closures
    assert (c1(3), c2(3)) == (1, 0)
    assert convert_function(c1) is c1                       # converted code stays as is


def test_not_to_static_and_ignore_module(monkeypatch):
    @conversion.not_to_static
    def plain(v):
        return v + 1

    def caller(v):
        return plain(v)
    from sampan.jit.convert_runtime import convert_call
    assert convert_call(plain) is plain
    assert convert_call(C._helper) is not C._helper
    monkeypatch.setattr(conversion, "_ignored", set(conversion._ignored))
    conversion.ignore_module([C])
    assert convert_call(C._helper.__globals__["_helper"]) is C._helper
    assert convert_call(len) is not len and convert_call(np.sum) is np.sum
    assert convert_function(caller)(1) == 2


def test_set_code_level_prints_code_after_a_pass(capsys, monkeypatch):
    monkeypatch.setattr(conversion, "_settings", dict(conversion._settings))

    def fresh(v):
        if v > 0:
            v = v - 1
        return v
    conversion.set_code_level(2, also_to_stdout=True)
    convert_function(fresh)
    out = capsys.readouterr().out
    assert "after pass 2 (scopes)" in out and "if v > 0" in out
    conversion.set_code_level(100, also_to_stdout=True)

    def fresh2(v):
        return -v if v else v
    convert_function(fresh2)
    assert "_jst.convert_ifexp(" in capsys.readouterr().out


def test_set_verbosity_logs_decisions(caplog, monkeypatch):
    monkeypatch.setattr(conversion, "_settings", dict(conversion._settings))
    conversion.set_verbosity(1)

    def g(v):
        return v
    with caplog.at_level(logging.INFO, logger="sampan.jit"):
        convert_function(g)
    assert any("converted" in r.getMessage() for r in caplog.records)


def test_unconvertible_functions_raise_conversion_error():
    nolambda = eval("lambda v: v")          # no file to find its source in
    with pytest.raises(conversion.ConversionError, match="lambda"):
        convert_function(nolambda)
    twins = [lambda v: v + 1, lambda v: v * 3]   # one line, same parameters: told apart
    assert [convert_function(t)(2) for t in twins] == [3, 6]  # by their columns

    def gen(n):
        yield n
    with pytest.raises(conversion.ConversionError, match="generator"):
        convert_function(gen)
    ns = {}
    exec("def nosrc(v):\n    return v\n", ns)
    with pytest.raises(conversion.ConversionError, match="source"):
        convert_function(ns["nosrc"])
