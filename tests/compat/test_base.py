"""``paddle.base``: Paddle 2.6's legacy namespace over sampan's own objects
(``base.dygraph.guard``/``to_variable``, ``base.Program``/``program_guard``,
``base.core.VarDesc.VarType``, ``base.unique_name``)."""
import importlib

import numpy as np
import pytest

import sampan as paddle
from sampan import base


@pytest.fixture(autouse=True)
def _eager_after():
    yield
    paddle.disable_static()


def test_guard_runs_eagerly_inside_static_mode_and_restores_it():
    paddle.enable_static()
    assert not base.dygraph.enabled()
    with base.dygraph.guard():
        assert paddle.in_dynamic_mode() and base.dygraph.enabled()
        x = base.dygraph.to_variable(np.arange(3, dtype="float32"))
        assert isinstance(x, paddle.Tensor)
        np.testing.assert_allclose((x * 2).numpy(), [0, 2, 4])
    assert not paddle.in_dynamic_mode()


def test_guard_gives_fresh_names_and_programs():
    paddle.nn.Linear(2, 2)                       # outside: takes linear_<n>
    outer = base.default_main_program()
    for _ in range(2):
        with base.dygraph.guard():
            assert paddle.nn.Linear(2, 2).weight.name == "linear_0.w_0"
            assert base.default_main_program() is not outer
    assert base.default_main_program() is outer


def test_guard_place():
    with base.dygraph.guard(base.CPUPlace()):
        assert paddle.ones([1]).place == base.CPUPlace()
    with base.dygraph.guard("cpu"):
        assert base.framework._current_expected_place() == base.CPUPlace()
    with pytest.raises(ValueError, match="XPU"):
        with base.dygraph.guard(base.XPUPlace(0)):
            pass


def test_to_variable_keeps_numpy_dtype():
    t = base.dygraph.to_variable(np.ones(3))
    assert t.dtype == paddle.float64 and t.stop_gradient
    assert base.dygraph.to_variable([1.5, 2.0]).dtype == paddle.float64   # np.array first
    assert base.dygraph.to_variable([1, 2]).dtype == paddle.int64
    t = base.dygraph.to_variable(np.ones(3), name="abc", dtype="float32")
    assert t.dtype == paddle.float32 and t.name == "abc"
    x = paddle.ones([2])
    assert base.dygraph.to_variable(x) is x


def test_to_variable_rejects_other_types():
    with pytest.raises(TypeError, match="to_variable must be list, tuple, numpy.ndarray"):
        base.dygraph.to_variable(5)


def test_to_variable_is_dygraph_only():
    paddle.enable_static()
    with pytest.raises(AssertionError, match="only support 'to_variable\\(\\)'"):
        base.dygraph.to_variable(np.array([1.0, 2.0]))


def test_to_variable_in_to_static_function_becomes_assign():
    def f(x):
        y = base.dygraph.to_variable(np.full([2], 3.0, "float64"))
        return x + y.astype("float32")
    sf = paddle.jit.to_static(f, full_graph=True)
    out = sf(paddle.ones([2]))
    np.testing.assert_allclose(out.numpy(), [4.0, 4.0])
    ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert "assign_value" in ops
    # disabled, the function runs eagerly: to_variable as written
    paddle.jit.enable_to_static(False)
    try:
        np.testing.assert_allclose(sf(paddle.ones([2])).numpy(), [4.0, 4.0])
        paddle.enable_static()
        with pytest.raises(AssertionError):      # Paddle's test_declarative case
            sf(np.ones(2, "float32"))
    finally:
        paddle.jit.enable_to_static(True)


def test_program_guard_builds_and_runs():
    main, startup = base.Program(), base.Program()
    paddle.enable_static()
    with base.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        y = paddle.static.nn.fc(x, 2)
        assert base.default_main_program() is main
        assert base.framework.default_startup_program() is startup
    assert [op.type for op in main.global_block().ops] == ["mul", "elementwise_add"]
    exe = base.Executor(base.CPUPlace())
    exe.run(startup)
    out = exe.run(main, feed={"x": np.ones([4, 3], "float32")}, fetch_list=[y])[0]
    assert out.shape == (4, 2)


def test_var_type():
    VarType = base.core.VarDesc.VarType
    assert VarType.FP32 is paddle.float32 and VarType.INT64 is paddle.int64
    assert paddle.ones([1]).dtype == VarType.FP32
    paddle.enable_static()
    with base.program_guard(base.Program()):
        x = paddle.static.data("x", [2], "float64")
    assert x.type == VarType.LOD_TENSOR and x.dtype == VarType.FP64
    assert VarType.LOD_TENSOR_ARRAY == 13 and VarType.SELECTED_ROWS == 8


def test_core_names():
    assert isinstance(paddle.ones([1]), base.core.eager.Tensor)
    assert base.core.CPUPlace is paddle.CPUPlace
    assert base.core.is_compiled_with_cuda() == paddle.is_compiled_with_cuda()
    assert base.core._is_fwd_prim_enabled() is False
    assert base.core._is_bwd_prim_enabled() is False


def test_framework_helpers():
    assert base.framework.convert_np_dtype_to_dtype_(np.float64) is paddle.float64
    assert base.framework.convert_np_dtype_to_dtype_("int32") is paddle.int32
    assert base.framework.grad_var_name("x") == "x@GRAD"
    assert base.framework.in_dygraph_mode() and base.in_dygraph_mode()
    p = paddle.create_parameter([2], "float32")
    assert isinstance(p, base.framework.EagerParamBase)


def test_switch_to_static_graph():
    @base.dygraph.base.switch_to_static_graph
    def build():
        return paddle.in_dynamic_mode()
    assert build() is False and paddle.in_dynamic_mode()


def test_mode_guards_and_checks():
    with base.framework._dygraph_guard(None):
        assert not paddle.in_dynamic_mode()
        with base.framework._dygraph_guard(object()):
            assert paddle.in_dynamic_mode()
    assert paddle.in_dynamic_mode()

    @base.framework.dygraph_only
    def eager_fn():
        return 1

    @base.framework.static_only
    def static_fn():
        return 2
    assert eager_fn() == 1
    with pytest.raises(AssertionError, match="static graph mode"):
        static_fn()
    paddle.enable_static()
    assert static_fn() == 2
    with pytest.raises(AssertionError, match="only support 'eager_fn\\(\\)' in dynamic"):
        eager_fn()


def test_unique_name():
    with base.unique_name.guard():
        assert base.unique_name.generate("abc") == "abc_0"
        assert base.unique_name.generate("abc") == "abc_1"
    with base.unique_name.guard("pre_"):
        assert base.unique_name.generate("abc") == "pre_abc_0"


def test_enable_disable_dygraph():
    base.disable_dygraph()
    assert not paddle.in_dynamic_mode()
    base.enable_dygraph()
    assert paddle.in_dynamic_mode()
    base.disable_imperative()
    assert not paddle.in_dynamic_mode()
    base.enable_imperative()


def test_same_objects_not_copies():
    assert base.Program is paddle.static.Program
    assert base.program_guard is paddle.static.program_guard
    assert base.Executor is paddle.static.Executor
    assert base.ParamAttr is paddle.ParamAttr
    assert base.BuildStrategy is paddle.static.BuildStrategy
    assert base.framework.Variable is paddle.static.Variable
    assert base.dygraph.no_grad is paddle.no_grad
    assert base.set_flags is paddle.set_flags


@pytest.mark.parametrize("module", ["core", "framework", "dygraph", "dygraph.base",
                                    "unique_name", "executor", "param_attr", "backward",
                                    "compiler", "data_feeder", "initializer"])
def test_submodules_import(module):
    mod = importlib.import_module(f"sampan.base.{module}")
    assert mod is eval(f"base.{module}")


def test_no_fluid():
    assert not hasattr(paddle, "fluid")


def test_data_feeder_checks():
    df = base.data_feeder
    assert df.convert_dtype(paddle.float32) == "float32"
    assert df.convert_dtype(np.float64) == "float64"
    assert df.convert_dtype(np.dtype("int32")) == "int32"
    assert df.convert_dtype(paddle.bfloat16) == "uint16"
    with pytest.raises(TypeError, match="dtype must be any of"):
        df.convert_dtype("foo")
    df.check_type(3, "x", base.framework.Variable, "op")      # eagerly: no check
    paddle.enable_static()
    with pytest.raises(TypeError, match="The type of 'x' in op must be"):
        df.check_type(3, "x", base.framework.Variable, "op")
    with base.program_guard(base.Program()):
        x = paddle.static.data("x", [2], "int32")
    df.check_variable_and_dtype(x, "x", ["int32", "int64"], "myop")
    with pytest.raises(TypeError, match="The data type of 'x' in myop must be"):
        df.check_variable_and_dtype(x, "x", ["float32"], "myop")
