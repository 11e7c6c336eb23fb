"""``raise`` and ``assert`` on tensor conditions under to_static fail the run
exactly when eager Python would: a raise in a branch of a tensor ``if`` only
when the run takes that branch, with the user's exception class and message
(Paddle's AST mode raises while converting, whatever the condition: its eager
result is the truth); a tensor assert is checked by an ``assert`` op."""
import numpy as np
import pytest

import sampan as paddle


def _t(*values):
    return paddle.to_tensor(np.array(values, "float32"))


def too_big(x):
    if x.mean() > 100:
        raise ValueError("too big")
    return x + 1


def nested(x):
    if x.sum() > 0:
        y = x * 2
        if x.mean() > 10:
            raise KeyError("inner")
        y = y + 1
    else:
        raise RuntimeError("negative")
    return y


def with_cause(x):
    if x.sum() < 0:
        raise TypeError("wrapped") from ZeroDivisionError("root")
    return x


def either_way(x):
    if x.sum() > 0:
        raise ValueError("positive")
    else:
        raise ValueError("not positive")


def checked(x):
    assert x.mean() < 100, "mean too big"
    return x + 1


@pytest.mark.parametrize("fn, good, bad, error, text", [
    (too_big, (1.0, 2.0), (200.0, 300.0), ValueError, "too big"),
    (with_cause, (1.0,), (-1.0,), TypeError, "wrapped"),
    (checked, (1.0, 2.0), (500.0, 1.0), AssertionError, "mean too big"),
])
def test_the_run_fails_only_when_eager_would(fn, good, bad, error, text):
    sf = paddle.jit.to_static(fn)
    np.testing.assert_allclose(sf(_t(*good)).numpy(), fn(_t(*good)).numpy())
    with pytest.raises(error) as eager:
        fn(_t(*bad))
    with pytest.raises(error, match=text) as static:
        sf(_t(*bad))
    assert str(eager.value).splitlines()[0] == str(static.value).splitlines()[0]
    assert "the error happened in your code" in str(static.value)
    assert sf.get_traced_count() == 1          # one program did both
    np.testing.assert_allclose(sf(_t(*good)).numpy(), fn(_t(*good)).numpy())


def test_raise_in_nested_branches_picks_the_branch_taken():
    sf = paddle.jit.to_static(nested)
    np.testing.assert_allclose(sf(_t(1.0, 2.0)).numpy(), [3.0, 5.0])
    with pytest.raises(KeyError, match="inner"):
        sf(_t(20.0, 30.0))
    with pytest.raises(RuntimeError, match="negative"):
        sf(_t(-1.0, -2.0))
    assert sf.get_traced_count() == 1


def test_raise_on_both_sides_always_fails():
    with pytest.raises(ValueError, match="positive"):
        paddle.jit.to_static(either_way)(_t(1.0))


def test_the_raise_is_an_assert_op_in_the_branch_block():
    sf = paddle.jit.to_static(too_big)
    sf(_t(1.0))
    prog = sf.concrete_program.main_program
    top = [op.type for op in prog.global_block().ops]
    assert "assert" not in top and "conditional_block" in top
    assert any(op.type == "assert" for b in prog.blocks[1:] for op in b.ops)


def test_assert_op_in_a_static_program():
    from sampan.static.nn.control_flow import Assert
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [3], "float32")
            Assert(paddle.all(x > 0), [x], summarize=2)
            with pytest.raises(TypeError, match="bool"):
                Assert(x)
        exe = paddle.static.Executor()
        exe.run(main, feed={"x": np.ones(3, "float32")}, fetch_list=[])
        with pytest.raises(ValueError, match=r"Cond.*false\s+Data\[0\] \[3\]: \[-1\.0, -2\.0\]\n"):
            exe.run(main, feed={"x": -np.arange(1, 4, dtype="float32")}, fetch_list=[])
    finally:
        paddle.disable_static()


def test_a_training_run_keeps_the_users_exception():
    # the training program is a clone of the traced one: the assert op's origin
    # (the user's exception and line) travels with it
    sf = paddle.jit.to_static(checked)
    x = paddle.to_tensor(np.array([500.0, 1.0], "float32"), stop_gradient=False)
    with pytest.raises(AssertionError, match="mean too big") as info:
        sf(x)
    assert "<--- HERE" in str(info.value)
