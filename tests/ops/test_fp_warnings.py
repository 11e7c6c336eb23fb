"""Kernels give inf and nan without numpy's floating-point warnings, as
Paddle's are silent (kernels/__init__.py's filter); a user's own numpy calls
keep theirs."""
import re
import warnings

import numpy as np

import sampan as paddle


def _runtime(caught):
    return [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


def test_eager_and_static_kernels_are_silent_on_inf_and_nan():
    with warnings.catch_warnings(record=True) as caught:
        # this module's own warnings always recorded (a default filter would
        # show each once per place)
        warnings.filterwarnings("always", category=RuntimeWarning, module=re.escape(__name__))
        x = paddle.to_tensor([1.0, -1.0, 0.0])
        outs = [x / 0, paddle.log(x), paddle.exp(x * 1000), paddle.sqrt(x), x % 0.0,
                paddle.pow(x, -1.0)]
        paddle.enable_static()
        try:
            main = paddle.static.Program()
            with paddle.static.program_guard(main, paddle.static.Program()):
                xs = paddle.static.data("x", [3])
                ys = paddle.log(xs) / 0
            got = paddle.static.Executor().run(main, feed={"x": np.array([1.0, -1.0, 0.0],
                                                                          "float32")},
                                               fetch_list=[ys])[0]
        finally:
            paddle.disable_static()
        assert _runtime(caught) == []
        np.log(np.array([-1.0]))                   # the user's numpy still warns
        assert any(m.startswith("invalid value encountered in log") for m in _runtime(caught))
    np.testing.assert_array_equal(outs[0].numpy(), [np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(outs[1].numpy(), [0.0, np.nan, -np.inf])
    np.testing.assert_array_equal(got, [np.nan, np.nan, -np.inf])     # log(x) / 0


def test_sampan_own_runtime_warnings_still_show():
    from sampan.kernels import FP_WARNINGS
    assert re.match(FP_WARNINGS, "divide by zero encountered in divide")
    assert not re.match(FP_WARNINGS, "fused kernel could not compile; running its numpy kernel")
