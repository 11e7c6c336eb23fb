"""The Python real models are written in (real_code_cases.py), run eagerly and
under to_static: equal values and input gradients, on inputs that take every
path; then saved by jit.save and run from the files by jit.load, equal again."""
import inspect

import numpy as np
import pytest

import sampan as paddle

from . import real_code_cases as R

pytestmark = pytest.mark.filterwarnings("ignore:jit.save:UserWarning")

CASES = [fn for name, fn in inspect.getmembers(R, inspect.isfunction)
         if not name.startswith("_") and fn.__module__ == R.__name__]
X = np.arange(6, dtype="float32").reshape(2, 3) - 2.0
INPUTS = (X, -X, X * 0.25 + 0.1)


def _flat(out):
    if isinstance(out, (list, tuple)):
        return [y for o in out for y in _flat(o)]
    return [out]


def _run(fn, a):
    x = paddle.to_tensor(a)
    x.stop_gradient = False
    outs = _flat(fn(x))
    diff = [o for o in outs if not o.stop_gradient]
    grad = paddle.grad([o.sum() for o in diff], [x], allow_unused=True)[0] if diff else None
    return [o.numpy() for o in outs], None if grad is None else grad.numpy()


def _same(ref, got):
    assert len(ref) == len(got)
    for a, b in zip(ref, got):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_to_static_gives_the_eager_values_and_gradients(fn):
    static_fn = paddle.jit.to_static(fn, full_graph=True)
    for a in INPUTS:
        ref, ref_grad = _run(fn, a)
        got, got_grad = _run(static_fn, a)
        _same(ref, got)
        assert (ref_grad is None) == (got_grad is None)
        if ref_grad is not None:
            np.testing.assert_allclose(got_grad, ref_grad, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_saved_and_loaded_gives_the_eager_values(fn, tmp_path):
    fn(paddle.to_tensor(INPUTS[0]))     # a case that builds its layer on first call
    #                                     builds it eagerly (run alone, as in the file)
    static_fn = paddle.jit.to_static(fn, full_graph=True)
    path = str(tmp_path / "m")
    paddle.jit.save(static_fn, path, input_spec=[paddle.static.InputSpec([2, 3], "float32")])
    loaded = paddle.jit.load(path)
    for a in INPUTS:
        ref = [o.numpy() for o in _flat(fn(paddle.to_tensor(a)))]
        _same(ref, [o.numpy() for o in _flat(loaded(paddle.to_tensor(a)))])
