"""The functions of the real-code differential suite (tests/jit/real_code_cases.py),
saved by sampan and run in real PaddlePaddle 2.6.2 (paddle.inference and
paddle.jit.load): the files sampan writes for slicing, closures, containers, tensor
control flow and the rest run in Paddle with sampan's outputs."""
import importlib.util
import inspect
import os

import numpy as np
import pytest

from sampan.static import InputSpec

from . import fn_models


def _cases_module():
    path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "jit", "real_code_cases.py")
    spec = importlib.util.spec_from_file_location("real_code_cases_interop", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


R = _cases_module()
CASES = [fn for name, fn in inspect.getmembers(R, inspect.isfunction)
         if not name.startswith("_") and fn.__module__ == R.__name__]

MODES = fn_models.MODES
MODELS = {fn.__name__: (lambda x, y, fn=fn: fn(x + y)) for fn in CASES}
SPEC = [InputSpec([2, 3], "float32", "x"), InputSpec([2, 3], "float32", "y")]


def _inputs():
    rng = np.random.RandomState(3)
    return {"x": rng.uniform(-2, 2, (2, 3)).astype("float32"),
            "y": rng.uniform(-1, 1, (2, 3)).astype("float32")}


@pytest.fixture(scope="module")
def batch(paddle_side, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("interop_real_code")
    return fn_models.save_and_run(paddle_side, workdir, MODELS, _inputs(), SPEC)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(MODELS))
def test_real_code_model_runs_in_real_paddle(name, mode, batch):
    fn_models.check(batch, name, mode)
