"""What the op table cannot check for the sorting / searching family: the
gradient of an exclusive logcumsumexp (its first output is the dtype's lowest
number, which overflows a finite-difference loss), and that the ops Paddle
gives no gradient (unique, unique_consecutive, bincount ...) stop it silently
in a loaded program, whose variables carry no stop_gradient flags."""
import numpy as np
import pytest

import sampan as paddle
from sampan.kernels.cpu.sort_search import logcumsumexp_grad, logcumsumexp_k


@pytest.mark.parametrize("reverse", [False, True])
def test_exclusive_logcumsumexp_gradient(reverse):
    rng = np.random.default_rng(0)
    x, g = rng.uniform(-1, 1, (3, 5)), rng.uniform(-1, 1, (3, 5))
    attrs = {"axis": 1, "flatten": False, "exclusive": True, "reverse": reverse}
    out = logcumsumexp_k([x], attrs, None)[0]
    dx = logcumsumexp_grad([x, out, g], attrs, None)[0]
    live = np.ones(x.shape, bool)
    live[:, -1 if reverse else 0] = False        # the constant (lowest) outputs

    def loss(a):
        return np.sum(logcumsumexp_k([a], attrs, None)[0][live] * g[live])

    num, eps = np.zeros_like(x), 1e-6
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        num[i] = (loss(up) - loss(down)) / (2 * eps)
    np.testing.assert_allclose(dx, num, rtol=1e-6, atol=1e-8)


class _Counts(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        u = paddle.unique(paddle.round(h))
        w = paddle.bincount(paddle.cast(paddle.abs(paddle.round(h)), "int64").flatten(),
                            weights=h.flatten())
        return paddle.sum(h) + paddle.sum(u) + paddle.sum(w)


def test_no_gradient_ops_stop_it_in_a_loaded_program(tmp_path):
    layer = _Counts()
    x = paddle.to_tensor(np.random.default_rng(1).uniform(-2, 2, (3, 4)).astype("float32"))
    static = paddle.jit.to_static(
        layer, input_spec=[paddle.static.InputSpec([3, 4], "float32", "x")])
    paddle.jit.save(static, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    out = loaded(x)
    out.backward()
    want = layer(x)
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-5)
    grads = [p.grad for p in loaded.parameters()]
    assert all(g is not None for g in grads)
