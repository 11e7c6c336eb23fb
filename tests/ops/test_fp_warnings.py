"""Kernels give inf and nan without numpy's floating-point warnings, as
Paddle's are silent (kernels/__init__.py's filter); a user's own numpy calls
keep theirs.  Run as a user's script runs (a fresh interpreter): pytest keeps
its own copy of the warnings filters around collection and each test, so a
filter added when sampan is imported under it does not last."""
import json
import re
import subprocess
import sys

_SCRIPT = r'''
import json
import warnings
import numpy as np
import sampan as paddle

with warnings.catch_warnings(record=True) as caught:
    x = paddle.to_tensor([1.0, -1.0, 0.0])
    outs = [x / 0, paddle.log(x), paddle.exp(x * 1000), paddle.sqrt(x), x % 0.0,
            paddle.pow(x, -1.0)]
    x.stop_gradient = False
    (paddle.log(x) * 0).sum().backward()          # a node backward: 1 / x at 0
    paddle.enable_static()
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        xs = paddle.static.data("x", [3])
        ys = paddle.log(xs) / 0
    got = paddle.static.Executor().run(main, feed={"x": np.array([1.0, -1.0, 0.0], "float32")},
                                       fetch_list=[ys])[0]
    paddle.disable_static()
    ours = [str(w.message) for w in caught]
    np.log(np.array([-1.0]))                       # the user's own numpy still warns
    mine = [str(w.message) for w in caught][len(ours):]
np.testing.assert_array_equal(outs[0].numpy(), [np.inf, -np.inf, np.nan])
np.testing.assert_array_equal(outs[1].numpy(), [0.0, np.nan, -np.inf])
np.testing.assert_array_equal(got, [np.nan, np.nan, -np.inf])      # log(x) / 0
print(json.dumps([ours, mine]))
'''


def test_kernels_are_silent_on_inf_and_nan_and_user_numpy_is_not():
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    ours, mine = json.loads(out.stdout.strip().splitlines()[-1])
    assert ours == [], "sampan's kernels warned: %s" % ours
    assert mine and mine[0].startswith("invalid value encountered in log"), mine


def test_the_filter_names_only_numpy_floating_point_messages():
    from sampan.kernels import FP_WARNINGS
    assert re.match(FP_WARNINGS, "divide by zero encountered in divide")
    assert re.match(FP_WARNINGS, "overflow encountered in exp")
    assert not re.match(FP_WARNINGS, "fused kernel could not compile; running its numpy kernel")
