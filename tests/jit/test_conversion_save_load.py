"""Every tensor case of the conversion suite (conversion_cases.TENSOR_CASES: tensor `if`,
`while`, `for`, break/continue/return inside loops, lists becoming tensor arrays, layers and
methods) saved by jit.save from its to_static form and run by jit.load: the loaded program
gives the eager results on every input, whichever path each input takes."""
import numpy as np
import pytest

import sampan as paddle

from . import conversion_cases as C

pytestmark = pytest.mark.filterwarnings("ignore:jit.save:UserWarning")


def _flat(out):
    if isinstance(out, (list, tuple)):
        return [y for o in out for y in _flat(o)]
    return [out]


@pytest.mark.parametrize("fn,inputs", C.TENSOR_CASES, ids=[f.__name__ for f, _ in C.TENSOR_CASES])
def test_saved_and_loaded_gives_the_eager_results(fn, inputs, tmp_path):
    # eager first, so a layer the function builds on its first call exists before tracing
    refs = [_flat(fn(*[paddle.to_tensor(a) for a in args])) for args in inputs]
    spec = [paddle.static.InputSpec(list(a.shape), str(a.dtype)) for a in inputs[0]]
    path = str(tmp_path / fn.__name__)
    paddle.jit.save(paddle.jit.to_static(fn, input_spec=spec, full_graph=True), path)
    loaded = paddle.jit.load(path)
    for args, ref in zip(inputs, refs):
        got = _flat(loaded(*[paddle.to_tensor(a) for a in args]))
        assert len(got) == len(ref)
        for g, r in zip(got, ref):
            np.testing.assert_allclose(g.numpy(), np.asarray(r.numpy() if hasattr(r, "numpy") else r),
                                       rtol=1e-5, atol=1e-6)
