"""The tensor surface's new functions inside tensor control flow: eager and to_static give
the same values and gradients (sorting, cumulative products, einsum, triangles, the
gather/scatter family, logsumexp, linalg.norm, an fft), also when the branch or loop
count depends on a tensor."""
import numpy as np
import pytest

import sampan as paddle


def mixer(x, w):
    """x [4, 4], w [4]: the new ops under a tensor `if` and a tensor `while`."""
    s = paddle.sort(x, axis=-1, descending=True)
    idx = paddle.argsort(x, axis=0)
    top, _ = paddle.topk(x, k=2, axis=1)
    if paddle.logsumexp(x) > 1.0:
        y = paddle.cumprod(paddle.tril(x) + 1.0, dim=1)
    else:
        y = paddle.cumsum(paddle.triu(x), axis=0)
    z = paddle.einsum("ij,j->i", y, w) + paddle.take_along_axis(s, idx, axis=0).sum(axis=0)
    i = paddle.zeros([], "int64")
    while i < paddle.argmax(w) + 1:
        z = z + paddle.linalg.norm(x, p=2, axis=1) * 0.1
        i = i + 1
    spec = paddle.abs(paddle.fft.rfft(z))
    put = paddle.put_along_axis(y, paddle.to_tensor([[0], [1], [2], [3]]), 0.5, axis=1)
    return (z.sum() + spec.mean() + top.sum() + put.mean()
            + paddle.where(x > 0, x, paddle.zeros_like(x)).sum())


@pytest.mark.parametrize("seed", [0, 3])
def test_new_ops_in_control_flow_eager_equals_to_static(seed):
    rng = np.random.RandomState(seed)
    xs = rng.uniform(-1, 1, (4, 4)).astype("float32")
    ws = rng.uniform(-1, 1, (4,)).astype("float32")
    results = []
    for fn in (mixer, paddle.jit.to_static(mixer)):
        x = paddle.to_tensor(xs, stop_gradient=False)
        w = paddle.to_tensor(ws, stop_gradient=False)
        out = fn(x, w)
        out.backward()
        results.append((out.numpy(), x.grad.numpy(), w.grad.numpy()))
    (e, ex, ew), (s, sx, sw) = results
    np.testing.assert_allclose(s, e, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(sx, ex, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(sw, ew, rtol=1e-4, atol=1e-5)


def test_both_branches_are_in_the_program():
    sf = paddle.jit.to_static(mixer)
    sf(paddle.ones([4, 4]), paddle.ones([4]))
    prog = sf.concrete_program.main_program
    types = {op.type for b in prog.blocks for op in b.ops}
    for t in ("argsort", "top_k_v2", "tril_triu", "cumprod", "cumsum", "einsum",
              "logsumexp", "take_along_axis", "put_along_axis", "fft_r2c", "while",
              "conditional_block"):
        assert t in types, t
