"""``paddle.nn.utils`` and the spectral / sync normalization layers:
weight_norm and spectral_norm hooks (parameters and names as real Paddle's,
recorded in fixtures/paddle_state_dicts.json; values against numpy;
training eagerly and under to_static, the hooked layer on its own or inside a
model), parameters_to_vector / vector_to_parameters, clip_grad_norm_ /
clip_grad_value_ against numpy, nn.SpectralNorm and static.nn.spectral_norm,
SyncBatchNorm as BatchNorm on one process."""
import json
import os

import numpy as np
import pytest

import sampan as paddle
import sampan.nn as nn
from sampan.nn.utils import (clip_grad_norm_, clip_grad_value_, parameters_to_vector,
                             remove_weight_norm, spectral_norm, vector_to_parameters,
                             weight_norm)
from sampan.utils import unique_name

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "paddle_state_dicts.json")) as fh:
    PADDLE = json.load(fh)
RS = np.random.RandomState(21)


def T(a, stop_gradient=True):
    return paddle.to_tensor(np.asarray(a, "float32"), stop_gradient=stop_gradient)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def entries(layer, names=True):
    return [[k, list(v.shape)] + ([v.name] if names else [])
            for k, v in layer.state_dict().items()]


# ------------------------------------------------------------------ weight_norm
@pytest.mark.parametrize("key, build, dim", [
    ("weight_norm_linear_3_4", lambda: nn.Linear(3, 4), 0),
    ("weight_norm_conv_dimNone", lambda: nn.Conv2D(3, 5, 3), None),
])
def test_weight_norm_parameters_as_paddle(key, build, dim):
    with unique_name.guard():
        layer = weight_norm(build(), dim=dim)
    assert entries(layer) == PADDLE[key]


@pytest.mark.parametrize("dim", [0, 1, 2, 3, -1, None])
def test_weight_norm_values(dim):
    conv = nn.Conv2D(2, 3, 2)
    w = conv.weight.numpy().copy()
    weight_norm(conv, dim=dim)
    d = -1 if dim is None else dim
    axes = tuple(a for a in range(4) if a != d) if d != -1 else None
    norm = np.sqrt((w ** 2).sum(axis=axes, keepdims=d != -1))
    close(conv.weight_g.numpy(), norm.reshape(conv.weight_g.shape))
    close(conv.weight.numpy(), w)                     # g * v / |v| is w again
    x = T(RS.rand(1, 2, 4, 4))
    g = np.asarray(RS.rand(*conv.weight_g.shape) + 0.5, "float32")
    conv.weight_g.set_value(g)
    out = conv(x)
    want = g.reshape(norm.shape) * w / norm if d != -1 else g * w / norm
    close(conv.weight.numpy(), want)
    out.sum().backward()
    assert conv.weight_g.grad is not None and conv.weight_v.grad.shape == [3, 2, 2, 2]


def test_weight_norm_errors_and_remove():
    lin = nn.Linear(3, 4)
    weight_norm(lin)
    with pytest.raises(RuntimeError):
        weight_norm(lin)
    with pytest.raises(AssertionError):
        weight_norm(nn.Linear(3, 4), dim=2)
    w = lin.weight.numpy().copy()
    remove_weight_norm(lin)
    assert list(lin.state_dict()) == ["bias", "weight"] and not lin._forward_pre_hooks
    close(lin.weight.numpy(), w)
    with pytest.raises(ValueError):
        remove_weight_norm(lin)


# ------------------------------------------------------------------ spectral_norm
def test_spectral_norm_parameters_as_paddle():
    for key, build in (("spectral_norm_conv_3_5_3", lambda: nn.Conv2D(3, 5, 3)),
                       ("spectral_norm_linear_3_4", lambda: nn.Linear(3, 4))):
        with unique_name.guard():
            layer = spectral_norm(build())
        got, want = entries(layer), PADDLE[key]
        # u and v are buffers holding computed tensors: their names are generated
        assert [e[:2] for e in got] == [e[:2] for e in want]
        assert [e[2] for e in got[:2]] == [e[2] for e in want[:2]]


def _np_spectral(w_mat, u, v, iters, eps=1e-12):
    for _ in range(iters):
        v = w_mat.T @ u
        v = v / max(np.linalg.norm(v), eps)
        u = w_mat @ v
        u = u / max(np.linalg.norm(u), eps)
    return u, v, u @ w_mat @ v


def test_spectral_norm_values_and_power_iteration():
    lin = nn.Linear(4, 3)
    w = lin.weight.numpy().copy()                   # [4, 3]; dim 1 for Linear
    spectral_norm(lin, n_power_iterations=2)
    u0, v0 = lin.weight_u.numpy().copy(), lin.weight_v.numpy().copy()
    assert u0.shape == (3,) and v0.shape == (4,)
    x = T(RS.rand(2, 4))
    lin(x)
    mat = w.T                                       # dim 1 moved first
    u, v, sigma = _np_spectral(mat, u0, v0, 2)
    close(lin.weight_u.numpy(), u)
    close(lin.weight_v.numpy(), v)
    close(lin.weight.numpy(), w / sigma)
    lin.eval()                                      # no power iteration when testing
    lin(x)
    close(lin.weight_u.numpy(), u)
    close(lin.weight.numpy(), w / (u @ mat @ v))
    with pytest.raises(ValueError):
        spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(RuntimeError):
        spectral_norm(lin)


# ------------------------------------------------------------------ training
class _Net(nn.Layer):
    def __init__(self, kind):
        super().__init__()
        self.lin = nn.Linear(4, 3)
        self.out = nn.Linear(3, 1)
        (weight_norm if kind == "weight" else spectral_norm)(self.lin)

    def forward(self, x):
        return self.out(paddle.tanh(self.lin(x)))


def _train(kind, mode, steps=4):
    paddle.seed(3)
    net = _Net(kind)
    if mode == "model":
        f = paddle.jit.to_static(net)
    elif mode == "layer":                          # the hook runs eagerly, before the program
        net.lin = paddle.jit.to_static(net.lin)
        f = net
    else:
        f = net
    opt = paddle.optimizer.SGD(0.2, parameters=net.parameters())
    x = T(np.random.RandomState(0).rand(5, 4))
    losses = []
    for _ in range(steps):
        loss = (f(x) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(loss.item())
    return losses, net


@pytest.mark.parametrize("kind", ["weight", "spectral"])
def test_hooks_train_eagerly_and_under_to_static(kind):
    eager, net_e = _train(kind, "eager")
    assert eager[-1] < eager[0]
    for mode in ("model", "layer"):
        got, net_s = _train(kind, mode)
        close(got, eager, 1e-5)
        for (k, a), (_, b) in zip(net_e.state_dict().items(), net_s.state_dict().items()):
            close(a.numpy(), b.numpy(), 1e-5)


# ------------------------------------------------------------------ vectors
def test_parameters_to_vector_and_back():
    lin = nn.Linear(3, 2)
    vec = parameters_to_vector(lin.parameters())
    assert vec.shape == [8] and not vec.stop_gradient
    close(vec.numpy(), np.concatenate([lin.weight.numpy().ravel(), lin.bias.numpy()]))
    vector_to_parameters(paddle.arange(8, dtype="float32"), lin.parameters())
    close(lin.weight.numpy(), np.arange(6).reshape(3, 2))
    close(lin.bias.numpy(), [6, 7])
    assert lin.weight.shape == [3, 2] and isinstance(lin.weight, paddle.Tensor)
    with pytest.raises(ValueError):
        vector_to_parameters(paddle.arange(5, dtype="float32"), lin.parameters())


# ------------------------------------------------------------------ clipping
def _grads():
    a = T(np.arange(6).reshape(2, 3), False)
    b = T([3.0, -4.0], False)
    ((a * T(RS.rand(2, 3) + 1)).sum() + (b * b).sum()).backward()
    return a, b


@pytest.mark.parametrize("norm_type", [2.0, 1, float("inf"), 0])
def test_clip_grad_norm_(norm_type):
    a, b = _grads()
    ga, gb = a.grad.numpy().copy(), b.grad.numpy().copy()
    flat = np.concatenate([ga.ravel(), gb])
    # Paddle: the norm of the per-tensor norms (for 0: the tensors with a nonzero grad)
    want_total = (np.abs(flat).max() if norm_type == float("inf") else
                  np.count_nonzero([np.count_nonzero(ga), np.count_nonzero(gb)])
                  if norm_type == 0 else np.linalg.norm(flat, norm_type))
    total = clip_grad_norm_([a, b], 1.5, norm_type=norm_type)
    close(total.numpy(), want_total, 1e-5)
    coef = min(1.5 / (want_total + 1e-6), 1.0)
    close(a.grad.numpy(), ga * coef)
    close(b.grad.numpy(), gb * coef)


def test_clip_grad_norm_edges():
    a, b = _grads()
    ga = a.grad.numpy().copy()
    clip_grad_norm_(a, 1e6)                                # a single tensor, no clipping
    close(a.grad.numpy(), ga)
    assert float(clip_grad_norm_([T([1.0])], 1.0)) == 0.0  # no gradients
    with pytest.raises(ValueError):
        clip_grad_norm_([a], 1.0, norm_type=3)
    b.grad.set_value(np.array([np.inf, 1.0], "float32"))
    with pytest.raises(RuntimeError):
        clip_grad_norm_([a, b], 1.0, error_if_nonfinite=True)


def test_clip_grad_value_():
    a, b = _grads()
    ga, gb = a.grad.numpy().copy(), b.grad.numpy().copy()
    clip_grad_value_([a, b], 2.5)
    close(a.grad.numpy(), np.clip(ga, -2.5, 2.5))
    close(b.grad.numpy(), np.clip(gb, -2.5, 2.5))


# ------------------------------------------------------------------ layers
def test_spectral_norm_layer():
    with unique_name.guard():
        sn = nn.SpectralNorm([2, 8, 3, 3], dim=1, power_iters=2)
    assert entries(sn) == PADDLE["SpectralNorm_2_8_3_3_dim1"]
    assert all(p.stop_gradient for p in sn.parameters())
    x = T(RS.rand(2, 8, 3, 3), False)
    u0, v0 = sn.weight_u.numpy().copy(), sn.weight_v.numpy().copy()
    out = sn(x)
    mat = x.numpy().transpose(1, 0, 2, 3).reshape(8, -1)
    u, v = u0, v0
    for _ in range(2):
        v = mat.T @ u
        v = v / (np.linalg.norm(v) + 1e-12)
        u = mat @ v
        u = u / (np.linalg.norm(u) + 1e-12)
    close(out.numpy(), x.numpy() / (u @ mat @ v), 1e-5)
    close(sn.weight_u.numpy(), u0)                 # the op leaves U and V alone
    with pytest.raises(ValueError):
        nn.SpectralNorm([2, 3, 4], dim=2)(T(RS.rand(2, 3, 4)))


def test_static_spectral_norm_builder():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup), unique_name.guard():
            x = paddle.static.data("x", [3, 4, 5], "float32")
            x.stop_gradient = False
            out = paddle.static.nn.spectral_norm(x, dim=1, power_iters=2)
            paddle.static.append_backward(paddle.mean(out))
        types = [op.type for op in main.global_block().ops]
        assert types[:4] == ["size", "fill_constant", "greater_than", "spectral_norm"]
        assert "spectral_norm_grad" in types
        params = main.global_block().all_parameters()
        assert [(p.name, list(p.shape)) for p in params] == [
            ("spectral_norm_0.w_0", [4]), ("spectral_norm_0.w_1", [15])]
        assert all(p.stop_gradient for p in params)
        exe = paddle.static.Executor()
        exe.run(startup)
        feed = RS.rand(3, 4, 5).astype("float32")
        res, = exe.run(main, feed={"x": feed}, fetch_list=[out])
        assert res.shape == (3, 4, 5) and np.all(np.isfinite(res))
    finally:
        paddle.disable_static()


def test_sync_batch_norm_is_batch_norm():
    x = T(RS.rand(2, 3, 4, 4))
    with unique_name.guard():
        sbn = nn.SyncBatchNorm(3)
    assert entries(sbn) == PADDLE["SyncBatchNorm_3"]
    bn = nn.BatchNorm2D(3)
    close(sbn(x).numpy(), bn(x).numpy())
    close(sbn._mean.numpy(), bn._mean.numpy())
    sbn.eval(), bn.eval()
    close(sbn(x).numpy(), bn(x).numpy())
    seq = nn.Sequential(nn.Conv2D(3, 3, 1), nn.Sequential(nn.BatchNorm1D(3)))
    conv = nn.SyncBatchNorm.convert_sync_batchnorm(seq)
    inner = conv[1][0]
    assert type(inner) is nn.SyncBatchNorm and inner.weight is seq[1][0].weight
    assert inner._mean is seq[1][0]._mean
    assert nn.SyncBatchNorm(3, data_format="NLC")(T(RS.rand(2, 5, 3))).shape == [2, 5, 3]


def test_assign_into_a_buffer_under_to_static():
    """What the spectral-norm hook relies on: ``paddle.assign(v, buffer)`` in a
    traced program writes the layer's eager buffer (an ``assign`` op whose
    output is the buffer's bound variable), so later calls see the update."""
    class M(nn.Layer):
        def __init__(self):
            super().__init__()
            self.register_buffer("u", paddle.ones([3]))

        def forward(self, x):
            with paddle.no_grad():
                paddle.assign(self.u * 2.0, self.u)
            return x + self.u

    m = M()
    f = paddle.jit.to_static(m)
    x = paddle.ones([3])
    close(f(x).numpy(), [3, 3, 3])
    close(m.u.numpy(), [2, 2, 2])
    close(f(x).numpy(), [5, 5, 5])
    close(m.u.numpy(), [4, 4, 4])
    ops = [op.type for op in m.forward.concrete_program.main_program.global_block().ops]
    assert "assign" in ops
