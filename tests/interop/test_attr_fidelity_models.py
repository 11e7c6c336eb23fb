"""Attributes that change what real PaddlePaddle 2.6.2 computes from sampan's
files (found by tests/conformance/test_static_attrs.py), saved by sampan and
run in real Paddle:

* a negative ``axes`` entry of ``slice``: Paddle's kernel leaves that axis
  unsliced; a negative ``Axis`` of ``take_along_axis`` crashes its kernel
  (sampan writes both normalized, as Paddle's functions do);
* float64 constants of ``fill_constant``: its ``value`` attribute is a float32,
  so ``full(.., 0.1, 'float64')`` is exact only through ``str_value``."""
import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec

from . import fn_models

MODES = fn_models.MODES


def _axes(x, y):
    idx = paddle.to_tensor([[2, 0], [1, 1], [0, 3], [3, 2]])
    return (paddle.slice(x, [-1], [1], [3]), paddle.take_along_axis(x, idx, -1),
            paddle.flatten(x, -2, -1), paddle.diff(y, axis=-1),
            paddle.strided_slice(y, [1], [-1], [-3], [-1]), y[-1:-3:-1], y[3:-1:-1],
            paddle.sum(y, [0, 1]))


def _constants(x, y):
    x64 = paddle.cast(x, "float64") * 0
    v = x64 + paddle.full([1], 0.1 + 1e-12, "float64")
    return (x64 + paddle.full([1], 0.1, "float64"), paddle.cast(v > 0.1, "int32"),
            x64 + paddle.linalg.pinv(paddle.cast(y, "float64")),
            paddle.linspace(-0.5, 9, 4, "int32") + 0, paddle.eye(3) + 0,
            paddle.full_like(y, 2))


MODELS = {"axes": _axes, "constants": _constants}
SPEC = [InputSpec([4, 4], "float32", "x"), InputSpec([4, 4], "float32", "y")]


def _inputs():
    rng = np.random.RandomState(5)
    return {"x": rng.uniform(-1, 1, (4, 4)).astype("float32"),
            "y": rng.uniform(-1, 1, (4, 4)).astype("float32")}


@pytest.fixture(scope="module")
def batch(paddle_side, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("interop_attr_fidelity")
    return fn_models.save_and_run(paddle_side, workdir, MODELS, _inputs(), SPEC)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(MODELS))
def test_program_runs_in_real_paddle_as_in_sampan(name, mode, batch):
    fn_models.check(batch, name, mode, rtol=1e-12 if name == "constants" else 2e-4,
                    atol=0 if name == "constants" else 2e-4)
