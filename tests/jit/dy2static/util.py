"""The differential check of the dy2static tests: a function (or Layer) run
eagerly and under ``to_static(full_graph=True)`` on the same inputs gives the
same values (dtype, shape, numbers) and the same gradients of its float
outputs' sum with respect to the inputs that need one."""
import numpy as np

import sampan as paddle


def flat(out):
    if isinstance(out, dict):
        return [y for k in sorted(out) for y in flat(out[k])]
    if isinstance(out, (list, tuple)):
        return [y for o in out for y in flat(o)]
    return [out]


def tensors(arrays, grad=()):
    """Fresh tensors of ``arrays``; those at positions in ``grad`` need gradients."""
    out = []
    for i, a in enumerate(arrays):
        if isinstance(a, np.ndarray):
            t = paddle.to_tensor(a)
            t.stop_gradient = i not in grad
            out.append(t)
        else:
            out.append(a)
    return out


def run(fn, arrays, grad=()):
    """Values of ``fn`` on fresh tensors and gradients of the sum of its
    differentiable outputs with respect to the inputs at ``grad``."""
    ins = tensors(arrays, grad)
    outs = flat(fn(*ins))
    # (a 0-D result may be held as a numpy scalar: compared as a 0-D array)
    values = [np.asarray(o.numpy()) if isinstance(o, paddle.Tensor) else o for o in outs]
    diff = [o for o in outs if isinstance(o, paddle.Tensor) and not o.stop_gradient]
    grads = []
    if grad and diff:
        loss = paddle.add_n([o.astype("float32").sum() for o in diff])
        loss.backward()
        grads = [None if ins[i].grad is None else ins[i].grad.numpy() for i in grad]
    return values, grads, [o.stop_gradient if isinstance(o, paddle.Tensor) else None
                           for o in outs]


def same_values(ref, got, rtol=1e-5, atol=1e-6):
    assert len(ref) == len(got), (len(ref), len(got))
    for a, b in zip(ref, got):
        if isinstance(a, np.ndarray):
            assert isinstance(b, np.ndarray), type(b)
            assert a.dtype == b.dtype, (a.dtype, b.dtype)
            assert a.shape == b.shape, (a.shape, b.shape)
            np.testing.assert_allclose(b, a, rtol=rtol, atol=atol)
        else:
            assert a == b, (a, b)


def check(fn, *arrays, grad=(), static_fn=None, rtol=1e-5, atol=1e-6):
    """Eager vs to_static: values, stop_gradient flags and input gradients."""
    static_fn = static_fn or paddle.jit.to_static(fn, full_graph=True)
    ref, ref_g, ref_sg = run(fn, arrays, grad)
    got, got_g, got_sg = run(static_fn, arrays, grad)
    same_values(ref, got, rtol, atol)
    # a Python value eagerly (int(t), `not t`) is a tensor under to_static, as in Paddle
    assert [a for a in ref_sg] == [b if a is not None else None for a, b in
                                   zip(ref_sg, got_sg)], (ref_sg, got_sg)
    assert len(ref_g) == len(got_g)
    for a, b in zip(ref_g, got_g):
        assert (a is None) == (b is None), (a, b)
        if a is not None:
            np.testing.assert_allclose(b, a, rtol=rtol, atol=atol)
    return static_fn


def eager_call(layer):
    """A callable running ``layer`` eagerly even after ``to_static(layer)``
    replaced its forward (to_static switched off around the call)."""
    def call(*args, **kwargs):
        paddle.jit.enable_to_static(False)
        try:
            return layer(*args, **kwargs)
        finally:
            paddle.jit.enable_to_static(True)
    return call


def check_layer(layer, *arrays, grad=()):
    """``check`` of a Layer: eager (to_static off) against ``to_static(layer)``."""
    static = paddle.jit.to_static(layer, full_graph=True)
    return check(eager_call(layer), *arrays, grad=grad, static_fn=static)
