"""The naming rule at the door: string dims in InputSpec and static.data,
checks of inputs sharing a symbol, and errors that name the symbol."""
import re

import pytest

import sampan as paddle
from sampan.static import InputSpec


def test_input_spec_string_dims():
    s = InputSpec(["B", 8], "float32", name="x")
    assert s.shape == (-1, 8) and s.shape[0] == -1
    assert repr(s) == "InputSpec(shape=(B, 8), dtype=paddle.float32, name=x, stop_gradient=False)"
    assert InputSpec(["B+1", "T*2"]).shape == (-1, -1)
    with pytest.raises(ValueError, match=r"dimension 'B C' is not a symbol name"):
        InputSpec(["B C", 8])
    with pytest.raises(ValueError, match=r"dimension .__import__\(.os.\)."):
        InputSpec(["__import__('os')", 8])


def _pair(x, y):
    return paddle.concat([x, y[:, :4]], axis=1)


def test_shared_symbol_is_checked_with_its_name():
    sf = paddle.jit.to_static(_pair, full_graph=True, input_spec=[
        InputSpec(["B", 4], "float32", name="x"), InputSpec(["B", 6], "float32", name="y")])
    assert sf(paddle.ones([3, 4]), paddle.ones([3, 6])).shape == [3, 8]
    assert sf.concrete_program.outputs[0].type_str() == "float32[B, 8]"
    with pytest.raises(ValueError, match=re.escape(
            "argument 'y' has size 5 at dimension 0, where its InputSpec has symbol B; "
            "but B is 3 (dimension 0 of argument 'x')")):
        sf(paddle.ones([3, 4]), paddle.ones([5, 6]))


def test_expression_dim_is_checked():
    def f(x, y):
        return paddle.concat([x, y[1:]], axis=0)
    sf = paddle.jit.to_static(f, full_graph=True, input_spec=[
        InputSpec(["B", 4], "float32", name="x"), InputSpec(["B+1", 4], "float32", name="y")])
    assert sf(paddle.ones([2, 4]), paddle.ones([3, 4])).shape == [4, 4]
    assert sf.concrete_program.outputs[0].type_str() == "float32[B*2, 4]"
    with pytest.raises(ValueError, match=r"argument 'y' has size 2 at dimension 0, where "
                                         r"its InputSpec says B\+1 = 3 \(B=2\)"):
        sf(paddle.ones([2, 4]), paddle.ones([2, 4]))


def test_outside_spec_warning_names_the_symbol():
    def f(x):
        return x * 2
    sf = paddle.jit.to_static(f, full_graph=True,
                              input_spec=[InputSpec(["B", 4], "float32", name="x")])
    with pytest.warns(UserWarning, match=r"outside its InputSpec shape \[B, 4\]"):
        sf(paddle.ones([2, 5]))


def test_unshared_symbols_cost_no_check():
    def f(x):
        return x + 1
    sf = paddle.jit.to_static(f, full_graph=True,
                              input_spec=[InputSpec(["B", 4], "float32", name="x")])
    assert sf._signature.relations == []
    sf(paddle.ones([2, 4]))


def test_executor_feed_error_names_the_symbol():
    main = paddle.static.Program()
    paddle.enable_static()
    try:
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data("x", ["B", 3], "float32")
            y = x * 2
        exe = paddle.static.Executor()
        import numpy as np
        with pytest.raises(ValueError, match=r"expected shape \[B, 3\]"):
            exe.run(main, feed={"x": np.ones((2, 4), "float32")}, fetch_list=[y])
    finally:
        paddle.disable_static()
