"""The tape's walk by record stamps (dygraph/tape.py) with the compiled node
backward (dygraph/grad_fast.py) on and off: the same gradients on graph shapes
that stress the order (diamonds, fan-out, several roots, long chains, shared
operands, in-place writes, nodes no gradient reaches), hooks and the
second-backward check."""
import numpy as np
import pytest

import sampan as paddle
from sampan.dygraph.tape import set_fast_backward


def leaf(values):
    return paddle.to_tensor(np.asarray(values, dtype="float32"), stop_gradient=False)


def _both(build):
    """``build() -> (roots, leaves)`` run with the fast path on and off."""
    out = []
    for fast in (True, False):
        prev = set_fast_backward(fast)
        try:
            roots, leaves = build()
            paddle.autograd.backward(roots)
            out.append([None if t.grad is None else t.grad.numpy().copy() for t in leaves])
        finally:
            set_fast_backward(prev)
    for a, b in zip(*out):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(a, b)
    return out[0]


def test_walk_order_diamonds_fanout_and_several_roots():
    def build():
        x, w = leaf([1.0, -2.0, 3.0]), leaf([0.5, 0.25, 2.0])
        h = x * w
        a = h + x                 # fan-out of x and h
        b = h * h
        c = a * b + h             # diamond back to h
        d = (c * 2.0).sum()
        e = (b - a).sum()         # a second root sharing the graph
        return [d, e], [x, w]
    g = _both(build)
    x, w = np.array([1.0, -2.0, 3.0], "float32"), np.array([0.5, 0.25, 2.0], "float32")
    h = x * w
    # d = sum(2((h + x) h^2 + h)), e = sum(h^2 - h - x)
    dh = 2 * (3 * h * h + 2 * x * h + 1) + (2 * h - 1)
    dx = 2 * h * h - 1
    np.testing.assert_allclose(g[0], dh * w + dx, rtol=1e-5)
    np.testing.assert_allclose(g[1], dh * x, rtol=1e-5)


def test_chain_shared_operand_and_long_chain():
    def build():
        x, s = leaf([0.5, 1.5]), leaf([0.6, 0.59])
        y = x
        for _ in range(300):
            y = y * s + y * 0.4     # y used twice per step: two edges into one node
        return [y.sum()], [x, s]
    g = _both(build)
    s = np.array([0.6, 0.59], "float64")
    np.testing.assert_allclose(g[0], (s + 0.4) ** 300, rtol=1e-3)


def test_inplace_write_and_unreached_nodes():
    def build():
        x = leaf([1.0, 2.0, 3.0])
        y = x * 2.0
        z = y * y                 # reads y before the write
        y.add_(x)                 # y's position moves to the add node
        unused = (x * 5.0).sum()  # a node no gradient reaches
        w = (z + y * 3.0).sum()
        return [w], [x]
    g = _both(build)
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(g[0], 8 * x + 9, rtol=1e-6)


def test_chain_next_node_queued_when_a_later_input_reaches_another():
    """A node's first input hands its producer to the walk as the chain's next
    node; its second input then reaches another producer (directly, and through
    an in-place write): the first must be queued by stamp, not run next."""
    def build():
        x = leaf([1.0, -1.0, 2.0])
        u = x * 4.0               # older than y: must run after y's producers
        y = x * 2.0
        v = y * 3.0
        z = u * v                 # u hands off first, v reaches another node
        y.add_(x)                 # y moves; z did not read it
        p = u * y                 # y read after the write: its history is empty
        q = (u * 1.5) * v         # u's producer reached again through a product
        return [(z + p + q).sum()], [x]
    g = _both(build)
    x = np.array([1.0, -1.0, 2.0])
    # z = 24 x^2, p = 4x * 3x = 12 x^2, q = 6x * 6x = 36 x^2
    np.testing.assert_allclose(g[0], 2 * (24 + 12 + 36) * x, rtol=1e-6)

    def build_moved():
        x = leaf([1.0, -1.0, 2.0])
        y = x * 2.0
        w = x * 5.0
        y.add_(x)                 # y = 3x, produced by the add node
        return [(w * y).sum()], [x]     # w's producer first, then y's moved position
    np.testing.assert_allclose(_both(build_moved)[0], 30 * x, rtol=1e-6)


def test_hooks_and_second_backward_still_checked():
    x = leaf([1.0, 2.0])
    y = x * 3.0
    seen = []
    y.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 2)
    z = (y * y).sum()
    z.backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), 2 * 2 * 9 * np.array([1.0, 2.0]))
    assert len(seen) == 1
    z.backward()
    with pytest.raises(RuntimeError, match="second time"):
        z.backward()
