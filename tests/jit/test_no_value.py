"""A path with no ``return`` gives None under to_static, decided by the program itself
(jit/no_value.py: a has-value flag beside each output that may hold the placeholder),
never by the output's value: a real result equal to Paddle's marker value is returned."""
import numpy as np
import pytest

import sampan as paddle
from sampan.jit import partial_program as P
from sampan.jit.no_value import FLAG_SUFFIX
from sampan.static.nn.control_flow import RETURN_NO_VALUE_MAGIC_NUM

MARK = RETURN_NO_VALUE_MAGIC_NUM


def maybe(x):
    if x.sum() > 0:
        return x * 2.0


def marker_valued(x):
    if x.sum() > 0:
        return paddle.full([2], MARK, "float32")          # a real value, equal to the marker


def marker_everywhere(x):
    if x.sum() > 0:
        return x * 0.0 + MARK, x
    return x * 0.0 + MARK, x * 3.0


def in_loop(x):
    while x.mean() < 2.0:
        x = x + 1.0
        if x.sum() > 3.0:
            return x


def _t(*v, grad=False):
    return paddle.to_tensor(np.array(v, "float32"), stop_gradient=not grad)


@pytest.mark.parametrize("grad", [False, True])
def test_no_return_gives_none_else_the_value(grad):
    f = paddle.jit.to_static(maybe)
    assert f(_t(-1.0, -2.0, grad=grad)) is None
    np.testing.assert_allclose(f(_t(1.0, 2.0, grad=grad)).numpy(), [2.0, 4.0])


@pytest.mark.parametrize("grad", [False, True])
def test_a_result_equal_to_the_marker_is_a_value(grad):
    f = paddle.jit.to_static(marker_valued)
    got = f(_t(1.0, 2.0, grad=grad))
    assert got is not None
    np.testing.assert_array_equal(got.numpy(), np.full(2, MARK, "float32"))
    assert f(_t(-1.0, -2.0, grad=grad)) is None
    # a program with no placeholder never drops an output
    g = paddle.jit.to_static(marker_everywhere)
    a, b = g(_t(1.0, 2.0, grad=grad))
    np.testing.assert_array_equal(a.numpy(), np.full(2, MARK, "float32"))
    np.testing.assert_allclose(b.numpy(), [1.0, 2.0])


def test_return_in_a_tensor_loop():
    f = paddle.jit.to_static(in_loop)
    np.testing.assert_allclose(f(_t(0.1, 0.1)).numpy(), [2.1, 2.1])
    assert f(_t(5.0, 5.0)) is None
    assert f(_t(1.5, 1.2)) is not None


def test_gradients_flow_on_the_path_with_a_value():
    f = paddle.jit.to_static(maybe)
    x = _t(1.0, 2.0, grad=True)
    f(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_the_traced_program_is_left_as_it_is():
    f = paddle.jit.to_static(maybe)
    f(_t(1.0, 2.0))
    traced = f.concrete_program.main_program
    names = {n for b in traced.blocks for op in b.ops for n in op.output_arg_names}
    assert not any(n.endswith(FLAG_SUFFIX) for n in names)
    pp = f.partial_program if hasattr(f, "partial_program") else None
    run = [pp] if pp is not None else []
    for p in run:
        assert p.program is not traced and p.flag_names[0].endswith(FLAG_SUFFIX)


def test_gradient_paths_come_from_the_backward_analysis(monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("analysis failed")
    monkeypatch.setattr(P, "find_path", broken)
    f = paddle.jit.to_static(lambda x: x * 2.0)
    with pytest.raises(KeyError, match="analysis failed"):      # surfaces, not swallowed
        f(_t(1.0, grad=True))
