"""Graph breaks compiled into cached segments (jit/segments.py): a broken
call runs the Python between breaks and cached programs for the straight runs
between them; values, gradients and side effects are eager's, warm calls do
not trace, and a guard (a Python value read from a tensor) selects among
programs, never a wrong one."""
import numpy as np
import pytest

import sampan as paddle
from sampan.jit.segments import GUARD_LIMIT

from .cases import two_breaks

F = paddle.nn.functional


def _programs(sf):
    """Programs traced by the segments of every broken key (nested splits
    included), and how many segments there are."""
    seg = sf._segments
    todo, progs, count = list(seg.segments) if seg else [], 0, 0
    while todo:
        s = todo.pop()
        count += 1
        progs += len(s._program_cache)
        if s._segments is not None:
            todo += s._segments.segments
    return progs, count


def _check(fn, arrays, grad=True, calls=2):
    sf = paddle.jit.to_static(fn)
    for _ in range(calls):
        for a in arrays:
            xe = paddle.to_tensor(a, stop_gradient=not grad)
            xs = paddle.to_tensor(a, stop_gradient=not grad)
            ye, ys = fn(xe), sf(xs)
            np.testing.assert_allclose(ys.numpy(), ye.numpy(), rtol=1e-5, atol=1e-6)
            if grad:
                ye.sum().backward()
                ys.sum().backward()
                np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy(), rtol=1e-5,
                                           atol=1e-6)
    return sf


def test_warm_calls_reuse_the_segments_programs():
    sf = paddle.jit.to_static(two_breaks)
    x = paddle.full([2, 3], 0.4)
    sf(x)
    progs, count = _programs(sf)
    assert count >= 3 and progs >= 3
    for _ in range(5):
        np.testing.assert_allclose(sf(x).numpy(), two_breaks(x).numpy(), rtol=1e-6)
    assert _programs(sf) == (progs, count)


def _branch(x):
    s = float(x.mean())
    if s > 0:
        y = paddle.tanh(x) * 2.0
    else:
        y = x - 1.0
    return y + 1.0


def test_branch_on_a_read_value_is_python_and_each_arm_one_program():
    sf = paddle.jit.to_static(_branch)
    rs = np.random.RandomState(0)
    for k in range(10):           # ten different values, two signs
        a = (rs.rand(2, 3).astype("float32") + 0.1) * (1 if k % 2 else -1)
        np.testing.assert_allclose(sf(paddle.to_tensor(a)).numpy(),
                                   _branch(paddle.to_tensor(a)).numpy(), rtol=1e-6)
    progs, _ = _programs(sf)
    assert progs <= 3             # the arms and what follows, not one per value


def test_a_value_used_in_ops_is_a_guard_and_past_the_limit_runs_eagerly():
    def f(x):
        m = float(x.mean())
        return x * m + paddle.tanh(x)

    sf = paddle.jit.to_static(f)
    for k in range(GUARD_LIMIT + 4):
        a = np.full([3], 0.1 * (k + 1), "float32")
        np.testing.assert_allclose(sf(paddle.to_tensor(a)).numpy(),
                                   f(paddle.to_tensor(a)).numpy(), rtol=1e-6)
    seg = sf._segments.segments[-1]
    assert len(seg._program_cache) == GUARD_LIMIT and seg._over_cap is not None
    assert "now eager" in str(paddle.jit.explain(sf, paddle.to_tensor(a)))
    # a value seen before still takes its own program
    a = np.full([3], 0.1, "float32")
    np.testing.assert_allclose(sf(paddle.to_tensor(a)).numpy(),
                               f(paddle.to_tensor(a)).numpy(), rtol=1e-6)


def test_break_inside_a_python_loop_and_an_early_return():
    def f(x):
        for i in range(3):
            s = float(x.abs().sum())
            if s > 50.0:
                return x * 0.0 + s
            x = x * 2.0 + 1.0
        y = paddle.tanh(x)
        return y * 3.0

    _check(f, [np.full([2, 2], 0.5, "float32"), np.full([2, 2], 9.0, "float32")])


def test_closure_over_a_local_rebound_between_segments():
    def f(x):
        y = x * 2.0

        def inner(a):
            return a + y              # reads the current y each time

        out = inner(x)
        for _ in range(int(x.sum().item()) % 3 + 1):
            y = y + 1.0
            out = out + inner(x)
        return out

    _check(f, [np.full([2], 0.25, "float32"), np.full([2], 0.5, "float32")])


def test_setitem_and_augmented_assignment_after_a_break():
    def f(x):
        c = int(x.sum().item() > 0)
        y = x * 1.0
        y[0] = y[1] * 3.0 + c
        y += x
        return y

    _check(f, [np.arange(1, 5, dtype="float32").reshape(2, 2)], grad=False)


def test_side_effects_between_segments_run_every_call(capsys):
    seen = []

    def f(x):
        y = paddle.exp(x)
        seen.append(float(y.sum()))
        print("sum", round(seen[-1], 3))
        return y * 2.0

    sf = paddle.jit.to_static(f)
    for v in (0.0, 1.0, 0.0):
        sf(paddle.full([2], v))
    assert seen == pytest.approx([2.0, 2 * np.e, 2.0], rel=1e-6)
    assert capsys.readouterr().out.count("sum") == 3


_counter = 0


def test_global_and_nonlocal_declarations_are_kept():
    hits = 0

    def f(x):
        global _counter
        nonlocal hits
        s = float(x.sum())
        _counter += 1
        hits += 1
        return x * s

    sf = paddle.jit.to_static(f)
    before = _counter
    for _ in range(3):
        sf(paddle.ones([2]))
    assert _counter - before == 3 and hits == 3


class Blocks(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = paddle.nn.LayerList([paddle.nn.Linear(4, 4) for _ in range(3)])
        self.head = paddle.nn.Linear(4, 2)

    def forward(self, x):
        for blk in self.blocks:
            x = F.gelu(blk(x))
            if float(x.abs().mean()) > 10.0:      # a break inside a Python loop
                x = x * 0.1
        return self.head(x)


def test_layer_with_a_break_in_a_loop_trains_like_eager():
    paddle.seed(7)
    eager, static = Blocks(), Blocks()
    static.set_state_dict(eager.state_dict())
    static = paddle.jit.to_static(static)
    opts = [paddle.optimizer.Adam(0.01, parameters=m.parameters()) for m in (eager, static)]
    rs = np.random.RandomState(1)
    for _ in range(4):
        a = rs.standard_normal([3, 4]).astype("float32")
        losses = []
        for net, opt in zip((eager, static), opts):
            loss = net(paddle.to_tensor(a)).square().mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        assert losses[1] == pytest.approx(losses[0], rel=1e-5)
    for p, q in zip(eager.parameters(), static.parameters()):
        np.testing.assert_allclose(q.numpy(), p.numpy(), rtol=1e-5, atol=1e-6)
    assert static.forward._segments is not None


def test_report_lists_the_segments_and_their_guards():
    rep = paddle.jit.explain(two_breaks, paddle.full([2, 3], 0.4))
    assert rep.segments and all(g["traced"] >= 1 for g in rep.segments)
    text = str(rep)
    assert "compiled segment" in text and "m == 0.49" in text


class Recorder(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)
        self.hist = [0.0]
        self.flag = None

    def forward(self, x):
        y = self.fc(x)
        m = float(y.mean())
        if y.sum() > 0:                  # a tensor branch with effects on self
            self.hist[0] = m
            self.flag = "pos"
        z = y * 2.0
        z[0] = z[1] + m
        return z


def test_effects_inside_a_tensor_branch_happen_only_when_eager_takes_it():
    paddle.seed(2)
    eager, static = Recorder(), Recorder()
    static.set_state_dict(eager.state_dict())
    static = paddle.jit.to_static(static)
    for v in (0.5, -0.5, 0.5, -0.5):
        x = paddle.full([2, 3], v)
        np.testing.assert_allclose(static(x).numpy(), eager(x).numpy(), rtol=1e-6)
        assert static.hist == pytest.approx(eager.hist) and static.flag == eager.flag
