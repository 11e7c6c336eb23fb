"""A static backward reads the values its forward ops read, even when a later op of
the block overwrites the variable (program/backward_pass.py: ``@SNAPSHOT`` copies):
a factor a ``while`` carries on, a tensor-array index the loop counts up.
The truth is eager differentiation of the same computation."""
import numpy as np

import sampan as paddle
from sampan.tensor import array_read, array_write, create_array, tensor_array_to_tensor

X = np.array([0.5, -0.3], "float32")
W = np.array([0.7, 1.2], "float32")


def _run(build, feed):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            fetch = build()
        return paddle.static.Executor().run(main, feed=feed, fetch_list=fetch)
    finally:
        paddle.disable_static()


def test_a_product_then_a_loop_carrying_its_factor():
    def build():
        x = paddle.static.data("x", [2], "float32")
        x.stop_gradient = False
        k = paddle.full([], 2.0)
        y = x * k                                   # its grad reads k == 2
        paddle.static.nn.while_loop(lambda k: k < 5.0, lambda k: [k + 1.0], [k])
        return [paddle.static.gradients([y.sum()], [x])[0]]
    (gx,) = _run(build, {"x": X})
    np.testing.assert_allclose(gx, [2.0, 2.0], rtol=1e-6)


def _recurrence_eager(x, w, n):
    hs, outs = [x], []
    for _ in range(n):
        h = paddle.tanh(hs[-1] * w + 0.1)
        outs.append(h * 2.0)
        hs.append(h)
    return paddle.stack(hs)[-1].sum() * 3.0 + paddle.stack(outs).sum()


def test_tensor_array_indexed_by_the_loop_counter():
    def build():
        x = paddle.static.data("x", [2], "float32")
        w = paddle.static.data("w", [2], "float32")
        x.stop_gradient = w.stop_gradient = False
        i, n = paddle.zeros([], "int64"), paddle.full([], 3, "int64")
        arr, out_arr = create_array("float32"), create_array("float32")
        array_write(x, i, arr)                      # i: read here, carried by the loop

        def body(i):
            h = paddle.tanh(array_read(arr, i) * w + 0.1)
            array_write(h * 2.0, i, out_arr)
            i = i + 1
            array_write(h, i, arr)
            return [i]
        paddle.static.nn.while_loop(lambda i: paddle.less_than(i, n), body, [i])
        s = tensor_array_to_tensor(arr, axis=0, use_stack=True)[0]
        o = tensor_array_to_tensor(out_arr, axis=0, use_stack=True)[0]
        loss = s[-1].sum() * 3.0 + o.sum()
        return [loss] + paddle.static.gradients([loss], [x, w])
    loss, gx, gw = _run(build, {"x": X, "w": W})
    x, w = paddle.to_tensor(X, stop_gradient=False), paddle.to_tensor(W, stop_gradient=False)
    ref = _recurrence_eager(x, w, 3)
    rx, rw = paddle.grad([ref], [x, w])
    np.testing.assert_allclose(loss, ref.numpy(), rtol=1e-6)
    np.testing.assert_allclose(gx, rx.numpy(), rtol=1e-5)
    np.testing.assert_allclose(gw, rw.numpy(), rtol=1e-5)
