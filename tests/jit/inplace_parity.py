"""Eager-vs-to_static parity of functions ``fn(x, y)`` that write x in place
(tests/jit/test_to_static_inplace_inputs.py, test_to_static_views.py)."""
import numpy as np

import sampan as paddle


def make_x(rows=2):
    return paddle.to_tensor(np.arange(rows * 3, dtype="float32").reshape(rows, 3) - 2.0)


def make_y(sign=1.0, rows=2):
    return paddle.to_tensor(sign * np.linspace(0.5, 1.5, rows * 3, dtype="float32")
                            .reshape(rows, 3))


def run(fn, traced, calls=2, sign=1.0):
    """Per call: the result and the caller's x afterwards (x is kept across
    calls, so the second call reads what the first wrote)."""
    f = paddle.jit.to_static(fn, full_graph=True) if traced else fn
    x, y = make_x(), make_y(sign)
    out = []
    for _ in range(calls):
        r = f(x, y)
        out.append((r.numpy().copy(), x.numpy().copy(), x.shape))
    return out


def same_as_eager(fn, sign=1.0):
    """Results and the caller's x equal eager's on every call; returns the
    to_static run (``run``'s list)."""
    eager, static = run(fn, False, sign=sign), run(fn, True, sign=sign)
    for (re, xe, se), (rs, xs, ss) in zip(eager, static):
        np.testing.assert_allclose(rs, re, rtol=1e-6)
        np.testing.assert_allclose(xs, xe, rtol=1e-6)
        assert ss == se
    return static


def grads_through(fn, traced, loss):
    """(w.grad, x after the call) for ``x = 1.5 * w`` (w a leaf needing a
    gradient, x not a leaf, so the function may write it) and ``loss(out, x)``
    differentiated after ``out = fn(x, make_y())``."""
    f = paddle.jit.to_static(fn, full_graph=True) if traced else fn
    w = paddle.to_tensor(np.linspace(-1, 1, 6, dtype="float32").reshape(2, 3),
                         stop_gradient=False)
    x = w * 1.5
    out = f(x, make_y())
    loss(out, x).backward()
    return w.grad.numpy(), x.numpy()


def same_grads_as_eager(fn, loss):
    (gs, xs), (ge, xe) = grads_through(fn, True, loss), grads_through(fn, False, loss)
    np.testing.assert_allclose(xs, xe, rtol=1e-6)
    np.testing.assert_allclose(gs, ge, rtol=1e-5, atol=1e-6)
