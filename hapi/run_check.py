"""``paddle.utils.run_check()``: does sampan work on this machine?

Paddle's check trains one step of a small static program and prints that it
works.  sampan's trains a ``Linear(3, 2)`` one SGD step three ways and checks
each against the same step written in numpy: eagerly (loss, weight gradient,
updated weight), as a static Program on the Executor (the loss), and through
``jit.to_static`` (the forward).  A failing part raises an error naming it.
"""
import numpy as np

from .. import nn, optimizer, static
from ..jit import to_static
from ..ops.mode import in_static_mode
from ..tensor.creation_base import to_tensor
from ..utils import unique_name
from ..utils.version import PADDLE_API_VERSION

__all__ = ["run_check"]

_LR = 0.1


def _numpy_step(x, y, w, b):
    """Loss, dL/dW and W after one SGD step of mean((x @ w + b - y)^2)."""
    diff = x @ w + b - y
    gw = x.T @ (2 * diff / diff.size)
    return float(np.mean(diff * diff)), gw, w - _LR * gw


def _check(what, got, want):
    if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
        raise RuntimeError(f"run_check: the {what} differs from numpy's (max difference "
                           f"{np.max(np.abs(np.asarray(got) - want)):.3g}): sampan does not "
                           f"work correctly on this machine")


def _eager(x, y):
    layer = nn.Linear(3, 2)
    w, b = layer.weight.numpy().copy(), layer.bias.numpy().copy()
    opt = optimizer.SGD(learning_rate=_LR, parameters=layer.parameters())
    loss = ((layer(to_tensor(x)) - to_tensor(y)) ** 2).mean()
    loss.backward()
    want_loss, want_gw, want_w = _numpy_step(x, y, w, b)
    _check("eager loss", float(loss), want_loss)
    _check("eager weight gradient", layer.weight.grad.numpy(), want_gw)
    opt.step()
    _check("weight after an SGD step", layer.weight.numpy(), want_w)
    _check("to_static forward", to_static(layer)(to_tensor(x)).numpy(),
           x @ want_w + layer.bias.numpy())
    return w, b


def _static(x, y, w, b):
    main, startup = static.Program(), static.Program()
    static.enable_static()
    try:
        with static.program_guard(main, startup):
            xv = static.data("x", [None, 3], "float32")
            yv = static.data("y", [None, 2], "float32")
            layer = nn.Linear(3, 2)
            loss = ((layer(xv) - yv) ** 2).mean()
            optimizer.SGD(learning_rate=_LR).minimize(loss)
        scope = static.Scope()
        exe = static.Executor()
        exe.run(startup, scope=scope)
        scope.find_var(layer.weight.name).get_tensor().set(w)
        scope.find_var(layer.bias.name).get_tensor().set(b)
        got, = exe.run(main, feed={"x": x, "y": y}, fetch_list=[loss], scope=scope)
    finally:
        static.disable_static()
    _check("static program's loss", got, _numpy_step(x, y, w, b)[0])


def run_check():
    """Train a small model eagerly, statically and through to_static, check each
    against numpy, and say that sampan works (raises naming the part that does not)."""
    print("Running verify PaddlePaddle program ... ")
    was_static = in_static_mode()
    if was_static:
        static.disable_static()
    try:
        rng = np.random.default_rng(0)
        x = rng.standard_normal((4, 3)).astype(np.float32)
        y = rng.standard_normal((4, 2)).astype(np.float32)
        with unique_name.guard():           # the user's layer names are left as they were
            w, b = _eager(x, y)
            _static(x, y, w, b)
    finally:
        if was_static:
            static.enable_static()
    print(f"sampan (PaddlePaddle {PADDLE_API_VERSION}'s API) works well on 1 CPU.")
    print("sampan is installed successfully! Let's start deep learning with PaddlePaddle "
          "code now.")
