"""to_static gives back what eager gives back, beyond values: the identity of
returned parameters, no gradient (None) for parameters a call did not use,
None where the function returned nothing, and the item/slice reads of a list
that became a tensor array."""
import numpy as np

import sampan as paddle

from fuzz.worker import compare, execute  # tests/ is on sys.path, as for every test package


class _ReturnsWeight(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = paddle.nn.Linear(2, 2)

    def forward(self, x):
        return x * 2.0, self.lin.weight


def test_returned_parameter_is_the_parameter():
    m = _ReturnsWeight()
    a, w = paddle.jit.to_static(m)(paddle.ones([2]))
    assert w is m.lin.weight and not w.stop_gradient
    (a.sum() + w.sum()).backward()
    np.testing.assert_array_equal(m.lin.weight.grad.numpy(), np.ones((2, 2), "float32"))


class _Loop(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = paddle.nn.Linear(4, 4)
        self.rare = paddle.nn.Linear(4, 4)
        self.out = paddle.nn.Linear(4, 2)

    def forward(self, x, n):
        i = paddle.zeros([1], dtype="int64")
        h = x
        while i < n:
            if h.mean() > 100.0:
                h = self.rare(h)
            h = paddle.tanh(self.lin(h))
            i = i + 1
        return self.out(h)


def test_parameters_of_untaken_branches_and_empty_loops_get_no_gradient():
    for n in (0, 2):
        grads = []
        for static in (False, True):
            paddle.seed(1)
            m = _Loop()
            f = paddle.jit.to_static(m) if static else m
            f(paddle.ones([3, 4]), paddle.to_tensor([n])).sum().backward()
            grads.append([None if p.grad is None else p.grad.numpy() for p in m.parameters()])
        for e, s in zip(*grads):
            assert (e is None) == (s is None)
            if e is not None:
                np.testing.assert_allclose(s, e, rtol=1e-5, atol=1e-6)


class _TwoBranches(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = paddle.nn.Linear(3, 2)
        self.b = paddle.nn.Linear(3, 2)

    def forward(self, x):
        if x.mean() > 0:
            y = self.a(x)
        else:
            y = self.b(x) * 2.0
        return y


def _adam_weights(static):
    paddle.seed(1)
    net = _TwoBranches()
    f = paddle.jit.to_static(net) if static else net
    opt = paddle.optimizer.Adam(0.1, parameters=net.parameters())
    rng = np.random.RandomState(0)
    for i in range(5):
        x = paddle.to_tensor(rng.randn(4, 3).astype("float32") + (1.0 if i % 2 else -1.0))
        (f(x) ** 2).mean().backward()
        opt.step()
        opt.clear_grad(set_to_zero=False)
    return [p.numpy() for p in net.parameters()]


def test_adam_through_a_tensor_if_matches_eager():
    for e, s in zip(_adam_weights(False), _adam_weights(True)):
        np.testing.assert_allclose(s, e, rtol=1e-5, atol=1e-6)


def _maybe(x):
    if x.sum() > 0:
        return x * 2.0


def test_no_return_gives_none():
    f = paddle.jit.to_static(_maybe)
    assert f(paddle.to_tensor([-1.0, -2.0])) is None
    np.testing.assert_allclose(f(paddle.to_tensor([1.0, 2.0])).numpy(), [2.0, 4.0])


# ------------------------------------------------------------------ lists and item writes
def _differential(fn, *inputs):
    inputs = [np.asarray(a, dtype="float32") for a in inputs]
    bad = compare(execute(fn, inputs), execute(paddle.jit.to_static(fn), inputs))
    assert bad is None, "%s: %s" % bad


def _iterate_array(x):
    lst = [x]
    for i in range(x.sum().astype("int64")):
        lst.append(x * float(i))
    s = x * 0.0
    for k, v in enumerate(lst):
        s = s + v * float(k + 1)
    for v in lst:
        s = s + v
    return s, len(lst)


def test_iterating_a_list_that_became_a_tensor_array():
    _differential(_iterate_array, [1.0, 1.5])


def _set_in_branch(x):
    y = x * 1.0
    out = [x, x]
    if x.sum() > 0:
        y[0] = 5.0
        out[0] = x * 2.0
    return y, out[0] + out[1]


def _set_in_loop(x):
    out = [x, x]
    d = {"a": x}
    for i in range(x.sum().astype("int64")):
        out[1] += 1.0
        d["a"] = d["a"] * 2.0
    y = x * 1.0
    y[1] = 3.0
    return out[1], d["a"], y


def test_item_writes_in_tensor_branches_and_loops():
    _differential(_set_in_branch, [1.0, 1.5])
    _differential(_set_in_branch, [-1.0, -1.5])
    _differential(_set_in_loop, [1.0, 1.5])


def _lists_apart(x):
    lst = [x]
    if x.sum() > 0:
        if x.mean() > 1.0:
            lst.append(x * 2.0)
        else:
            lst.append(x * 3.0)
            lst.append(x * 4.0)
    other = [x]
    if x.sum() > 0:
        other.append(x)
    else:
        other = [x, x * 2.0, x]
    return paddle.stack(lst).sum(axis=0), len(lst), paddle.stack(other).sum(axis=0)


def test_lists_of_different_lengths_out_of_tensor_branches():
    for x in ([2.0, 3.0], [0.5, 0.3], [-1.0, -2.0]):
        _differential(_lists_apart, x)
