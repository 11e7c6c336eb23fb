"""The sampan models the interop tier saves for real Paddle, and the two ways
of saving them.

Models (each with feeds and cases chosen so data-dependent paths are covered):
``mlp_cond`` (Linear -> tensor-dependent branch -> Linear; the two cases take
the two branches), ``bn_cnn`` (Conv2D -> BatchNorm2D with non-trivial running
statistics -> ReLU -> MaxPool -> Linear), ``while_loop`` (halve until small,
at most 8 steps; the cases take 2+ and 0 trips; two outputs, one int64) and
``encoder`` (nn.TransformerEncoderLayer, eval, no dropout) and ``spectral``
(stft magnitudes into a Linear; an fft round trip through complex arithmetic)
and ``pylayer`` (a PyLayer with a custom backward between two Linears: a
``pylayer`` op, saved with its forward block only).

Routes:
* ``jit_save``: the eager Layer (Python ``if``/``while`` on tensors) ->
  ``sampan.jit.to_static(layer, input_spec)`` -> ``sampan.jit.save``; sampan's
  numbers are the eager forward's.
* ``save_inference_model``: the same layers built in static mode (branch and
  loop written with ``static.nn.cond`` / ``static.nn.while_loop``), run by
  ``static.Executor`` (sampan's numbers) and written with
  ``static.save_inference_model``.

``missing_api(model, route)`` names the sampan API a pair still waits for
(checked with hasattr), so its tests skip until that API lands.
"""
import os

import numpy as np

import sampan as paddle
import sampan.nn as nn
import sampan.nn.functional as F

SEED = 20240611


# ----------------------------------------------------------------- models
class MlpCond(nn.Layer):
    def __init__(self):
        super().__init__()
        # No bias on fc1: mean(fc1(-x)) == -mean(fc1(x)), so x and -x take both branches.
        self.fc1 = nn.Linear(16, 32, bias_attr=False)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        h = self.fc1(x)
        if paddle.mean(h) > 0:
            h = F.relu(h)
        else:
            h = F.relu(-h) * 0.5 + 0.25
        return self.fc2(h)

    def static_forward(self, x):
        h = self.fc1(x)
        h = paddle.static.nn.cond(paddle.mean(h) > 0, lambda: F.relu(h),
                                  lambda: F.relu(-h) * 0.5 + 0.25)
        return self.fc2(h)


class BnCnn(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(3, 6, 3, padding=1)
        self.bn = nn.BatchNorm2D(6)
        self.pool = nn.MaxPool2D(2, 2)
        self.fc = nn.Linear(6 * 4 * 4, 5)

    def forward(self, img):
        h = self.pool(F.relu(self.bn(self.conv(img))))
        return self.fc(paddle.flatten(h, 1))

    static_forward = forward


class WhileNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(6, 12)
        self.out = nn.Linear(12, 3)

    def forward(self, x):
        h = paddle.tanh(self.inp(x)) * 3.0
        steps = paddle.full([1], 0, dtype="int64")
        while paddle.max(paddle.abs(h)) > 0.2 and steps < 8:
            h = h * 0.5
            steps = steps + 1
        return self.out(h) + paddle.cast(steps, "float32"), steps

    def static_forward(self, x):
        h = paddle.tanh(self.inp(x)) * 3.0
        steps = paddle.full([1], 0, dtype="int64")

        def cond(h, steps):
            return paddle.logical_and(paddle.max(paddle.abs(h)) > 0.2, steps < 8)

        def body(h, steps):
            return [h * 0.5, steps + 1]

        h, steps = paddle.static.nn.while_loop(cond, body, [h, steps])
        return self.out(h) + paddle.cast(steps, "float32"), steps


class Encoder(nn.Layer):
    def __init__(self):
        super().__init__()
        self.enc = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0)

    def forward(self, src):
        return self.enc(src)

    static_forward = forward


class Spectral(nn.Layer):
    """Complex tensors and the spectral ops: stft magnitudes into a Linear, and
    an rfft / irfft / fft / ifft round trip through complex arithmetic."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5 * 9, 3)

    def forward(self, x):
        spec = paddle.signal.stft(x, 8, hop_length=4)                # [N, 5, 9] complex64
        feat = paddle.log(paddle.abs(spec) + 1e-3)
        f = paddle.fft.rfft(x, norm="ortho")                         # [N, 17]
        f = f * paddle.complex(paddle.cos(paddle.real(f)), paddle.sin(paddle.imag(f)))
        back = paddle.fft.irfft(f, n=32, norm="ortho")
        mix = paddle.real(paddle.fft.ifft(paddle.fft.fft(x) * paddle.conj(paddle.fft.fft(x))))
        return self.fc(paddle.flatten(feat, 1)), back + paddle.as_real(f).sum() + mix

    static_forward = forward


class _ScaledGrad(paddle.autograd.PyLayer):
    """tanh forward, a custom (scaled) backward: a ``pylayer`` op in programs."""

    @staticmethod
    def forward(ctx, x):
        y = paddle.tanh(x)
        ctx.save_for_backward(y)
        return y * 1.5

    @staticmethod
    def backward(ctx, dy):
        y, = ctx.saved_tensor()
        return dy * (1.0 - y * y) * 0.1


class PyLayerNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(8, 6)
        self.out = nn.Linear(6, 2)

    def forward(self, x):
        return self.out(_ScaledGrad.apply(self.inp(x)))

    def static_forward(self, x):
        h = paddle.static.nn.static_pylayer(lambda v: paddle.tanh(v) * 1.5, [self.inp(x)],
                                            lambda dy: dy * 0.1)
        return self.out(h)


def _bn_stats(channels):
    rng = np.random.RandomState(7)
    mean = (rng.randn(channels) * 0.3).astype("float32")
    var = (rng.rand(channels) * 1.5 + 0.5).astype("float32")
    return mean, var


def _cases():
    rng = np.random.RandomState(SEED)
    x = rng.randn(3, 16).astype("float32")
    return {
        "mlp_cond": [{"x": x}, {"x": -x}],
        "bn_cnn": [{"img": rng.randn(2, 3, 8, 8).astype("float32")}],
        "while_loop": [{"x": rng.randn(4, 6).astype("float32")},
                       {"x": (rng.randn(2, 6) * 0.01).astype("float32")}],
        "encoder": [{"src": rng.randn(2, 5, 16).astype("float32")}],
        "spectral": [{"x": rng.randn(2, 32).astype("float32")}],
        "pylayer": [{"x": rng.randn(3, 8).astype("float32")}],
    }


# name -> (Layer class, [(feed name, shape, dtype)], sampan APIs it needs per route)
MODELS = {
    "mlp_cond": (MlpCond, [("x", [None, 16], "float32")],
                 {"save_inference_model": ["static.nn.cond"]}),
    "bn_cnn": (BnCnn, [("img", [None, 3, 8, 8], "float32")], {}),
    "while_loop": (WhileNet, [("x", [None, 6], "float32")],
                   {"save_inference_model": ["static.nn.while_loop"]}),
    "encoder": (Encoder, [("src", [None, 5, 16], "float32")], {}),
    "spectral": (Spectral, [("x", [None, 32], "float32")], {}),
    "pylayer": (PyLayerNet, [("x", [None, 8], "float32")],
                {"save_inference_model": ["static.nn.static_pylayer"]}),
}
CASES = _cases()
ROUTE_APIS = {"jit_save": ["jit.to_static", "jit.save"],
              "save_inference_model": ["static.save_inference_model"]}
ROUTES = list(ROUTE_APIS)
# (model, route, mode) real Paddle fails on with its own files too (checked with
# Paddle-saved models): its jit.load builds a pylayer_grad from an inference
# pylayer (forward block only) and raises "Expect blocks contains at least 2 block"
PADDLE_LIMITS = {("pylayer", "save_inference_model", "jit_load"):
                 "jit.load of a save_inference_model file holding a pylayer op"}


def _has(dotted):
    obj = paddle
    for part in dotted.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def missing_api(model, route):
    need = ROUTE_APIS[route] + MODELS[model][2].get(route, [])
    return ["sampan." + d for d in need if not _has(d)]


def _as_list(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


# ----------------------------------------------------------------- routes
def save_jit(model, prefix):
    """Eager layer -> to_static -> jit.save; returns sampan's outputs per case."""
    cls, feeds, _ = MODELS[model]
    paddle.seed(SEED)
    layer = cls()
    if model == "bn_cnn":
        mean, var = _bn_stats(6)
        layer.bn._mean.set_value(mean)
        layer.bn._variance.set_value(var)
    layer.eval()
    with paddle.no_grad():
        expected = [[np.asarray(o.numpy()) for o in _as_list(
            layer(*[paddle.to_tensor(case[n]) for n, _, _ in feeds]))] for case in CASES[model]]
    spec = [paddle.static.InputSpec(shape=s, dtype=d, name=n) for n, s, d in feeds]
    static_layer = paddle.jit.to_static(layer, input_spec=spec)
    paddle.jit.save(static_layer, prefix)
    return expected


def _set_bn_stats(program, scope):
    """Running statistics of every batch_norm op (static route)."""
    for op in program.global_block().ops:
        if op.type == "batch_norm":
            mean, var = _bn_stats(scope.find_var(op.input("Mean")[0]).get_tensor().shape()[0])
            scope.find_var(op.input("Mean")[0]).get_tensor().set(mean, paddle.CPUPlace())
            scope.find_var(op.input("Variance")[0]).get_tensor().set(var, paddle.CPUPlace())


def save_static(model, prefix):
    """Static program -> Executor (sampan's outputs) -> save_inference_model."""
    cls, feeds, _ = MODELS[model]
    static = paddle.static
    paddle.seed(SEED)
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            layer = cls()
            layer.eval()
            feed_vars = [static.data(name=n, shape=s, dtype=d) for n, s, d in feeds]
            fetch_vars = _as_list(layer.static_forward(*feed_vars))
        exe = static.Executor(static.CPUPlace())
        scope = static.Scope()
        with static.scope_guard(scope):
            exe.run(startup)
            _set_bn_stats(main, scope)
            expected = [[np.asarray(o) for o in exe.run(main, feed=case, fetch_list=fetch_vars)]
                        for case in CASES[model]]
            static.save_inference_model(prefix, feed_vars, fetch_vars, exe, program=main)
    finally:
        paddle.disable_static()
    return expected


SAVERS = {"jit_save": save_jit, "save_inference_model": save_static}


def write_cases(model, folder):
    """inputs_<k>.npz per case (keys in feed order); returns their paths."""
    paths = []
    for k, case in enumerate(CASES[model]):
        path = os.path.join(folder, "%s.inputs_%d.npz" % (model, k))
        np.savez(path, **case)
        paths.append(path)
    return paths
