"""A saved einsum as Paddle's saver writes it (``Out`` only: its intermediate
``InnerCache`` / ``XShape`` outputs left off) loads in sampan, predicts, and
fine-tunes: the loader gives the intermediates back (one per operand), which
einsum's grad op reads."""
import os

import numpy as np

import sampan as paddle
from sampan.program.proto import framework_pb2 as pb
from sampan.static import InputSpec


class _Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = paddle.nn.Linear(3, 3)

    def forward(self, x, y):
        h = self.lin(x)
        return (paddle.einsum("bij,bjk->bik", h, y).sum()
                + paddle.einsum("bij,bjk,bkl->bil", h, y, h).sum()
                + paddle.einsum("bii->bi", h).sum())


def _strip_einsum_intermediates(path):
    desc = pb.ProgramDesc()
    with open(path, "rb") as f:
        desc.ParseFromString(f.read())
    n = 0
    for block in desc.blocks:
        for op in block.ops:
            if op.type == "einsum":
                keep = [v for v in op.outputs if v.parameter == "Out"]
                del op.outputs[:]
                op.outputs.extend(keep)
                n += 1
    with open(path, "wb") as f:
        f.write(desc.SerializeToString())
    return n


def test_einsum_saved_without_intermediates_loads_and_trains(tmp_path):
    paddle.seed(3)
    net = _Net()
    spec = [InputSpec([2, 3, 3], "float32", "x"), InputSpec([2, 3, 3], "float32", "y")]
    prefix = str(tmp_path / "einsum")
    paddle.jit.save(paddle.jit.to_static(net, input_spec=spec), prefix)
    assert _strip_einsum_intermediates(prefix + ".pdmodel") == 4
    os.remove(prefix + ".sampan.json")      # now a model as Paddle writes it: no manifest

    rng = np.random.default_rng(0)
    x, y = (paddle.to_tensor(rng.uniform(-1, 1, (2, 3, 3)).astype("float32"))
            for _ in range(2))
    want = net(x, y)
    want.backward()
    want_grads = {p.name: p.grad.numpy() for p in net.parameters()}

    loaded = paddle.jit.load(prefix)
    loaded.train()
    got = loaded(x, y)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    got.backward()
    grads = sorted((p.grad.numpy() for p in loaded.parameters()), key=lambda g: g.size)
    for g, w in zip(grads, sorted(want_grads.values(), key=lambda g: g.size)):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
