"""``paddle.jit.dy2static``: ``ProgramTranslator`` (enable, get_output,
get_func, get_program, get_code), ``convert_call`` as ``Call``, Paddle's
short names of the runtime helpers, and the source printers."""
import functools

import gast
import numpy as np
import pytest

import sampan as paddle
from sampan import base
from sampan.jit import dy2static
from sampan.jit.dy2static import ProgramTranslator
from sampan.jit.dy2static.utils import func_to_source_code, ast_to_source_code


@pytest.fixture(autouse=True)
def _enabled_after():
    yield
    paddle.jit.enable_to_static(True)
    paddle.disable_static()


def branchy(x):
    x = base.dygraph.to_variable(x)
    if paddle.mean(x) > 0:
        x_v = x - 1
    else:
        x_v = x + 1
    return x_v


def test_singleton():
    assert ProgramTranslator() is ProgramTranslator.get_instance()
    assert paddle.jit.api.ProgramTranslator is ProgramTranslator
    assert paddle.jit.ProgramTranslator is ProgramTranslator
    assert dy2static.program_translator.StaticFunction is paddle.jit.StaticFunction


def test_enable_false_runs_to_static_functions_eagerly():
    modes = []

    def f(x):
        modes.append(paddle.in_dynamic_mode())
        return x * 2
    sf = paddle.jit.to_static(f)
    sf(paddle.ones([2]))                 # traced: static mode
    pt = ProgramTranslator()
    pt.enable(False)
    assert pt.enable_to_static is False
    out = sf(paddle.ones([2]))           # the original function, eagerly
    np.testing.assert_allclose(out.numpy(), [2, 2])
    pt.enable(True)
    assert pt.enable_to_static is True
    sf(paddle.ones([2]))                 # the cached program: f not called
    assert modes == [False, True]


def test_enable_is_jit_enable_to_static():
    paddle.jit.enable_to_static(False)
    assert ProgramTranslator().enable_to_static is False
    paddle.jit.enable_to_static(True)
    assert ProgramTranslator().enable_to_static is True


def test_get_output():
    pt = ProgramTranslator()
    x = np.ones([1, 2], "float32")
    out = pt.get_output(branchy, paddle.to_tensor(x))
    np.testing.assert_allclose(out.numpy(), [[0, 0]])
    out = pt.get_output(branchy, paddle.to_tensor(-x))
    np.testing.assert_allclose(out.numpy(), [[0, 0]])
    out = pt.get_output(branchy, paddle.to_tensor(3 * x))
    np.testing.assert_allclose(out.numpy(), [[2, 2]])


def test_get_output_disabled_warns_and_runs_eagerly():
    pt = ProgramTranslator()
    pt.enable(False)
    with pytest.warns(UserWarning, match="to_static is disabled"):
        out = pt.get_output(branchy, np.full([2], 2.0, "float32"))
    assert isinstance(out, paddle.Tensor)
    np.testing.assert_allclose(out.numpy(), [1, 1])
    with pytest.warns(UserWarning):
        assert pt.get_func(branchy) is branchy


def test_get_program_runs_in_the_executor():
    main, startup, inputs, outputs = ProgramTranslator().get_program(
        branchy, paddle.to_tensor(np.ones([1, 2], "float32")))
    assert isinstance(main, paddle.static.Program)
    assert isinstance(startup, paddle.static.Program)
    assert len(inputs) == 1 and len(outputs) == 1
    assert "conditional_block" in [op.type for op in main.global_block().ops]
    exe = paddle.static.Executor()
    for value, want in ((1.0, 0.0), (-1.0, 0.0), (5.0, 4.0)):
        got = exe.run(main, feed={inputs[0].name: np.full([1, 2], value, "float32")},
                      fetch_list=outputs)[0]
        np.testing.assert_allclose(got, np.full([1, 2], want))


def test_get_func_builds_in_a_program_guard():
    f = ProgramTranslator().get_func(branchy)
    assert callable(f) and f is not branchy
    paddle.enable_static()
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        d = paddle.static.data("d", [1, 2], "float32")
        o = f(d)
    got = paddle.static.Executor().run(main, feed={"d": np.full([1, 2], 4.0, "float32")},
                                       fetch_list=[o])[0]
    np.testing.assert_allclose(got, [[3, 3]])


def test_get_code_is_the_converted_source():
    code = ProgramTranslator().get_code(branchy)
    assert isinstance(code, str)
    assert code.startswith("def branchy(x):") and "convert_ifelse" in code
    assert ProgramTranslator().get_code(paddle.jit.to_static(branchy)) == code


def test_non_callable_is_refused():
    with pytest.raises(TypeError, match="must be a callable"):
        ProgramTranslator().get_output(3)


def test_runtime_helpers_under_paddle_names():
    assert dy2static.Call(len) is not len                 # the converter of len
    assert dy2static.Call(len)([1, 2, 3]) == 3
    assert dy2static.And(lambda: True, lambda: 0) == 0
    assert dy2static.Or(lambda: 0, lambda: "a") == "a"
    assert dy2static.Not(0) is True
    assert dy2static.Len([1, 2]) == 2
    assert dy2static.Shape(paddle.ones([2, 3])) == [2, 3]
    assert dy2static.AsDtype(2.7, "int") == 2
    assert dy2static.convert_call_func.convert_call is dy2static.Call
    conv = dy2static.convert_to_static(branchy)
    assert conv is not branchy
    np.testing.assert_allclose(conv(np.ones(2, "float32")).numpy(), [0, 0])


def test_undefined_var():
    u = dy2static.UndefinedVar("loss")
    with pytest.raises(UnboundLocalError, match="loss"):
        u + 1


def test_source_printers():
    def with_comment(x):
        # a comment
        y = x + 1  # trailing
        return y
    src = func_to_source_code(with_comment)
    assert src.startswith("def with_comment(x):") and "# a comment" not in src
    assert src.splitlines()[1] == ""            # a blank line: line numbers kept
    assert func_to_source_code(functools.partial(with_comment, 1)) == src
    node = gast.parse("a = b + 1")
    assert ast_to_source_code(node).strip() == "a = b + 1"
    with pytest.raises(TypeError, match="should be a function or method"):
        func_to_source_code(3)
    with pytest.raises(TypeError, match="gast.AST or ast.AST"):
        ast_to_source_code("a = 1")


def test_dygraph2static_exception_is_the_conversion_error():
    def f(x):
        if paddle.mean(x) > 0:
            return x, 1
        else:
            return x
    with pytest.raises(dy2static.utils.Dygraph2StaticException, match="same structure"):
        paddle.jit.to_static(f, full_graph=True)(paddle.ones([2]))


def test_logging_utils_and_not_to_static():
    assert dy2static.logging_utils.set_code_level is paddle.jit.set_code_level
    assert dy2static.not_to_static is paddle.jit.not_to_static
