"""``paddle.framework`` and ``paddle.pir_utils``: Paddle 2.6's framework names
over sampan's objects; sampan builds legacy-IR Programs only."""
import importlib

import numpy as np
import pytest

import sampan as paddle
from sampan import base, framework, pir_utils


@pytest.fixture(autouse=True)
def _eager_after():
    yield
    paddle.disable_static()


def test_mode():
    assert framework.in_dynamic_mode()
    framework.enable_static()
    assert not framework.in_dynamic_mode() and not paddle.in_dynamic_mode()
    framework.disable_static()
    assert framework.in_dynamic_mode()


def test_names_are_sampan_objects():
    assert framework.core is base.core
    assert framework.ParamAttr is paddle.ParamAttr
    assert framework.Program is paddle.static.Program
    assert framework.Block is paddle.static.Block
    assert framework.Parameter is paddle.static.Parameter
    assert framework.CPUPlace is paddle.CPUPlace and framework.CUDAPlace is paddle.CUDAPlace
    assert framework.seed is paddle.seed and framework.save is paddle.save
    assert framework.random.get_rng_state is paddle.get_rng_state
    assert framework.dygraph_only is base.framework.dygraph_only
    assert framework.get_default_dtype is paddle.get_default_dtype
    assert framework.grad is paddle.grad
    assert framework.base is base.dygraph.base
    assert importlib.import_module("sampan.framework") is framework


def test_expected_place():
    assert framework._current_expected_place() == paddle.CPUPlace()
    assert framework._get_paddle_place("cpu") == paddle.CPUPlace()
    assert framework._get_paddle_place("gpu:1") == paddle.CUDAPlace(1)
    assert framework._get_paddle_place(None) is None
    with pytest.raises(ValueError):
        framework._get_paddle_place(3)
    with pytest.raises(ValueError):
        framework._get_paddle_place("tpu")


def test_no_grad_and_to_variable():
    t = framework.to_variable(np.ones(2, "float32"))
    t.stop_gradient = False
    with framework.no_grad():
        assert (t * 2).stop_gradient
    assert not (t * 2).stop_gradient


def test_legacy_ir_reported():
    assert framework.use_pir_api() is False
    assert framework.in_pir_mode() is False
    assert framework.in_dynamic_or_pir_mode() is True
    framework.enable_static()
    assert framework.in_dynamic_or_pir_mode() is False


def test_ir_guard_from_eager_runs_static_and_returns():
    with pir_utils.IrGuard():
        assert not paddle.in_dynamic_mode()
        assert not framework.in_pir_mode()           # still the legacy IR
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            x = paddle.static.data("x", [2], "float32")
            y = x + 1
        out = paddle.static.Executor().run(main, feed={"x": np.ones(2, "float32")},
                                           fetch_list=[y])[0]
        np.testing.assert_allclose(out, [2, 2])
    assert paddle.in_dynamic_mode()


def test_ir_guard_in_static_mode_stays_static():
    paddle.enable_static()
    with pir_utils.IrGuard():
        assert not paddle.in_dynamic_mode()
    assert not paddle.in_dynamic_mode()


def test_old_ir_guard_and_test_helpers():
    with pir_utils.OldIrGuard():
        assert paddle.in_dynamic_mode()
    modes = []

    @pir_utils.test_with_pir_api
    def run():
        modes.append(paddle.in_dynamic_mode())
    run()
    assert modes == [True, False] and paddle.in_dynamic_mode()

    @pir_utils.test_with_old_ir_only
    def run2():
        return 7
    assert run2() == 7
