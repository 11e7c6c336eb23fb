"""Errors of to_static code point at the user's file and line: a shape error
found while tracing, and one found only when the program runs (a None dim)."""
import os

import numpy as np
import pytest

import sampan as paddle
from sampan.ops import OpError
from sampan.static import InputSpec

THIS = os.path.abspath(__file__)


def shape_bug(x, w):
    y = x * 2.0
    z = paddle.matmul(y, w)       # the failing line
    return z


BUG_LINE = shape_bug.__code__.co_firstlineno + 2


def _t(*shape):
    return paddle.to_tensor(np.random.rand(*shape).astype("float32"))


def _check_message(text):
    assert f'File "{THIS}", line {BUG_LINE}, in shape_bug' in text, text
    assert "z = paddle.matmul(y, w)       # the failing line    <--- HERE" in text, text


def test_trace_time_shape_error_shows_user_line():
    sf = paddle.jit.to_static(shape_bug)
    with pytest.raises(OpError) as info:
        sf(_t(3, 4), _t(5, 2))
    _check_message(str(info.value))
    assert "matmul_v2" in str(info.value)
    assert sf.get_traced_count() == 0


def test_run_time_shape_error_shows_user_line():
    sf = paddle.jit.to_static(shape_bug, input_spec=[InputSpec([None, -1]), InputSpec([-1, 2])])
    with pytest.raises(OpError) as info:
        sf(_t(3, 4), _t(5, 2))
    _check_message(str(info.value))
    assert sf.get_traced_count() == 1
    np.testing.assert_allclose(sf(_t(3, 4) * 0, _t(4, 2)).numpy(), np.zeros((3, 2)))


def test_program_records_user_lines():
    sf = paddle.jit.to_static(shape_bug)
    sf(_t(3, 4), _t(4, 2))
    ops = sf.concrete_program.main_program.global_block().ops
    matmul = [op for op in ops if op.type == "matmul_v2"][0]
    assert matmul.source == f'File "{THIS}", line {BUG_LINE}, in shape_bug'
    assert "def shape_bug" in sf.code


def test_python_error_keeps_its_type():
    @paddle.jit.to_static
    def f(x):
        d = {"a": x}
        return d["missing"]

    with pytest.raises(KeyError) as info:
        f(_t(2))
    assert "return d[\"missing\"]" in str(info.value) or "d['missing']" in str(info.value) \
        or "missing" in str(info.value)
    assert "<--- HERE" in str(info.value)
