"""Python builtins and operators on tensors in converted code (Paddle's
test_cast.py / test_isinstance.py / test_lambda.py / test_len.py /
test_logical.py / test_print.py / test_assert.py behaviours)."""
import numpy as np
import pytest

import sampan as paddle

from .util import check, check_layer

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], "float32")
N = np.array([3], "int64")


# ----------------------------------------------------------------- cast
def casts(x, n):
    a = int(n)
    b = float(n)
    c = bool(n)
    return a, b, c, x * float(x.sum() > 0)


def cast_python_values(x):
    return int(2.7) + float("1.5") + bool([]), x + int(3.9)


def test_casts():
    check(casts, X, N, grad=(0,))
    check(casts, -X, N * 0, grad=(0,))
    check(cast_python_values, X, grad=(0,))


# ----------------------------------------------------------------- isinstance
class Wrapped(paddle.nn.Layer):
    def forward(self, x):
        if isinstance(x, paddle.Tensor):
            x = x * 2.0
        if isinstance(x, (list, tuple)):
            x = x[0]
        return x + 1.0


def isinstance_of_tensor(x):
    return isinstance(x, paddle.Tensor), isinstance(x, (int, paddle.Tensor)), \
        isinstance([x], list), x + 1.0


def test_isinstance():
    check(isinstance_of_tensor, X, grad=(0,))
    net = Wrapped()
    check_layer(net, X, grad=(0,))


# ----------------------------------------------------------------- lambda
def lambdas(x):
    f = lambda t: t * 2.0 + 1.0                     # noqa: E731
    g = lambda t, k=3.0: paddle.tanh(t) * k         # noqa: E731
    y = f(x) if x.mean() > 0 else g(x)
    h = (lambda t: t - 1.0)(y)
    return list(map(lambda t: t * t, [h, y]))


def lambda_with_tensor_ifexp(x):
    pick = lambda t: t + 1.0 if t.sum() > 0 else t - 1.0   # noqa: E731
    return pick(x)


def test_lambdas():
    for a in (X, -X):
        check(lambdas, a, grad=(0,))
        check(lambda_with_tensor_ifexp, a, grad=(0,))


def test_lambda_to_static():
    f = paddle.jit.to_static(lambda t: t * 3.0 + 1.0, full_graph=True)
    np.testing.assert_allclose(f(paddle.to_tensor(X)).numpy(), X * 3.0 + 1.0, rtol=1e-6)


# ----------------------------------------------------------------- len
def lens(x):
    a = len(x)
    b = len([x, x, x])
    c = len(x[0])
    return a, b, c, x * float(a)


def len_of_array_built_in_loop(x):
    arr = []
    i = paddle.zeros([1], "int64")
    while i < 3:
        arr.append(x)
        i += 1
    return len(arr), paddle.stack(arr).sum()


def test_len():
    check(lens, X, grad=(0,))
    check(len_of_array_built_in_loop, X, grad=(0,))


def test_len_with_unknown_leading_dim():
    def f(x):
        return paddle.full([1], len(x), "int64") + 0
    sf = paddle.jit.to_static(f, input_spec=[paddle.static.InputSpec([None, 3], "float32")],
                              full_graph=True)
    for rows in (2, 5):
        a = np.ones([rows, 3], "float32")
        np.testing.assert_array_equal(sf(paddle.to_tensor(a)).numpy().reshape(-1), [rows])


# ----------------------------------------------------------------- logical
def logical(x):
    a = x.mean() > 0 and x.max() > 1.0
    b = x.min() < -0.5 or x.sum() > 100.0
    c = not x.mean() > 0
    d = 1 and x.sum() > 0
    e = 0 or x.sum() > 0
    return a, b, c, d, e


def logical_python(x):
    a = [] or [1]
    b = 3 and "s"
    return a, b, not None, x + 1.0


def test_logical():
    check(logical, X)
    check(logical, -X)
    check(logical_python, X, grad=(0,))


# ----------------------------------------------------------------- print / assert
def prints(x):
    print("python", 1)
    print(x)
    print("sum", x.sum(), sep="|")
    return x + 1.0


def test_print_runs_and_keeps_values(capsys):
    check(prints, X, grad=(0,))
    out = capsys.readouterr().out
    assert "python 1" in out


def asserts(x):
    assert x.shape[1] == 3, "three columns"
    assert x.sum() > -100.0
    return x * 2.0


def test_assert_passes_and_python_assert_fails():
    check(asserts, X, grad=(0,))
    sf = paddle.jit.to_static(asserts, full_graph=True)
    with pytest.raises(AssertionError, match="three columns"):
        sf(paddle.to_tensor(np.ones([2, 4], "float32")))


def test_tensor_assert_fails_at_run_time():
    def f(x):
        assert x.sum() > 0, "positive sum"
        return x
    sf = paddle.jit.to_static(f, full_graph=True)
    sf(paddle.to_tensor(X))
    with pytest.raises(Exception, match="positive sum|Assert"):
        sf(paddle.to_tensor(-X))
