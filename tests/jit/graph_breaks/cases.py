"""Break patterns for the differential suite: each function reads a tensor's
value (or calls numpy) in the middle, so to_static's default mode breaks the
graph there.  ``CASES``: name -> (function, input arrays per call)."""
import math

import numpy as np

import sampan as paddle

F = paddle.nn.functional


def snippet(x):                       # the example
    y = x * 2
    m = float(y.numpy().mean())
    if m > 1.0:
        y = y + math.log(m)
    return paddle.to_tensor(np.arange(3, dtype="float32")) + y.sum()


def branch_float(x):                  # a Python branch on float(t): both arms
    s = float(x.mean())
    if s > 0:
        return paddle.tanh(x) * s
    return x - s


def branch_bool(x):                   # bool(t) in a Python expression
    pos = bool((x.sum() > 0).numpy())
    return x * 2.0 if pos else x * -3.0


def trip_count(x):                    # a loop bound read with int(t.item())
    n = int(abs(x.sum().item())) % 4
    y = x
    for _ in range(n):
        y = paddle.sin(y) + 0.5
    return y


def tolist_read(x):                   # t.tolist()
    rows = x.tolist()
    return x * len(rows) + float(rows[0][0])


def numpy_call(x):                    # a numpy function on a tensor, back to a tensor
    a = np.tanh(x.numpy()) * 2.0
    return paddle.to_tensor(a.astype("float32")) + x * x


def dict_key(x):                      # a dict key chosen by a value
    table = {0: lambda t: t * 2.0, 1: lambda t: paddle.exp(t), 2: lambda t: t - 1.0}
    k = int(x.max().item() * 10) % 3
    return table[k](x) + 1.0


def two_breaks(x):                    # two breaks, the second after more ops
    y = paddle.exp(x) - 1.0
    m = y.mean().item()
    z = y * m if m > 0 else y - m
    n = int(z.abs().sum().numpy()) % 3
    for _ in range(n):
        z = z * 0.5 + 0.1
    return z


def _helper(v):                       # a helper that catches ZeroDivisionError
    try:
        return 1.0 / v
    except ZeroDivisionError:
        return 7.0


def zero_division(x):
    d = float(x.sum().item() * 0.0)
    return x * _helper(d)


def _shapes(seed, shape=(2, 3), n=4):
    rs = np.random.RandomState(seed)
    out = []
    for k in range(n):           # alternating signs: both arms of every guard
        a = rs.standard_normal(shape).astype("float32") + (1.5 if k % 2 == 0 else -1.5)
        out.append(a)
    return out


CASES = {f.__name__: f for f in (snippet, branch_float, branch_bool, trip_count, tolist_read,
                                  numpy_call, dict_key, two_breaks, zero_division)}


def inputs(name):
    return _shapes(abs(hash(name)) % 1000)
