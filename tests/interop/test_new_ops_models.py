"""A model built from a dozen of the tensor surface's new ops, saved by sampan
(``jit.save``), runs in real PaddlePaddle 2.6.2 (paddle.inference and paddle.jit.load)
and gives sampan's outputs: sort/argsort/topk, cumsum/cumprod, einsum, tril/triu,
take_along_axis/put_along_axis/index_add, logsumexp, where, linalg.norm, rfft, kron,
searchsorted, lerp, and reversed slices (Paddle's bounds going down)."""
import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec

from . import harness

MODES = ["inference", "jit_load"]


class _Mixer(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = paddle.nn.Linear(4, 4)

    def forward(self, x, w):
        h = self.lin(x)
        s = paddle.sort(h, axis=-1, descending=True)
        order = paddle.argsort(h, axis=0)
        top, top_i = paddle.topk(h, k=2, axis=1)
        tri = paddle.cumprod(paddle.tril(h) + 1.0, dim=1) + paddle.cumsum(paddle.triu(h), 0)
        mixed = paddle.einsum("ij,j->i", tri, w)
        gathered = paddle.take_along_axis(s, order, axis=0)
        put = paddle.put_along_axis(tri, paddle.zeros([4, 1], "int64"), 0.5, axis=1)
        added = paddle.index_add(h, paddle.to_tensor([0, 2]), 0, paddle.ones([2, 4]))
        lse = paddle.logsumexp(h, axis=1)
        pos = paddle.where(h > 0, h, paddle.zeros_like(h))
        norm = paddle.linalg.norm(h, p=2, axis=1)
        spec = paddle.abs(paddle.fft.rfft(mixed))
        kr = paddle.kron(w.reshape([2, 2]), paddle.ones([2, 2]))
        bins = paddle.searchsorted(paddle.to_tensor([-1.0, 0.0, 1.0]), w)
        blend = paddle.lerp(h, pos, 0.25)
        flipped = h[::-1, -1:-7:-2] + h[2::-1, 3:0:-1].sum()   # Paddle's bounds going down
        return (s, order, top, top_i, mixed, gathered, put, added, lse, norm, spec, kr,
                bins, blend, flipped)


def _inputs():
    rng = np.random.RandomState(11)
    return {"x": rng.uniform(-1, 1, (4, 4)).astype("float32"),
            "w": rng.uniform(-1, 1, (4,)).astype("float32")}


@pytest.fixture(scope="module")
def batch(paddle_side, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("interop_new_ops")
    feeds = _inputs()
    inputs = str(workdir / "inputs.npz")
    np.savez(inputs, **feeds)
    paddle.seed(5)
    model = _Mixer()
    model.eval()
    expected = [o.numpy() for o in model(*[paddle.to_tensor(feeds[k]) for k in ("x", "w")])]
    prefix = str(workdir / "mixer" / "model")
    spec = [InputSpec([4, 4], "float32", "x"), InputSpec([4], "float32", "w")]
    paddle.jit.save(paddle.jit.to_static(model, input_spec=spec), prefix)
    jobs = [{"id": "mixer", "kind": "run_model", "prefix": prefix, "inputs": inputs,
             "modes": MODES}]
    return str(workdir), expected, paddle_side.run(jobs, workdir)


@pytest.mark.parametrize("mode", MODES)
def test_new_ops_model_runs_in_real_paddle(mode, batch):
    workdir, expected, results = batch
    failure = harness.mode_failure(results, "mixer", mode)
    assert failure is None, f"real Paddle ({mode}) failed on sampan's model:\n{failure}"
    got = harness.job_outputs(workdir, "mixer", mode)
    assert len(got) == len(expected) == 15
    for i, (g, w) in enumerate(zip(got, expected)):
        assert g.dtype == w.dtype and g.shape == w.shape, \
            f"output {i}: paddle {g.dtype}{g.shape}, sampan {w.dtype}{w.shape}"
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=f"output {i}")
