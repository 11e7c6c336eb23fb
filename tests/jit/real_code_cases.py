"""Python that real model code is written in, for the differential suite of
test_real_code.py: each function of a float32 [2, 3] tensor runs eagerly and
under to_static (values and input gradients equal), and is saved with jit.save
and run again from the files by jit.load.

Every public function here is a case; helpers start with ``_``.
"""
import numpy as np
import sampan as paddle
import sampan.nn as nn
import sampan.nn.functional as F

SCALE = 2.0

def setitem_kinds(x):
    y = x * 1.0
    y[:, 1] = paddle.ones([x.shape[0]]) * 7.0
    y[0, ::2] += 1.0
    y[..., None, 0:1] = 3.0
    y[y > 5.0] = 0.5
    idx = paddle.to_tensor([0])
    y[idx] = y[idx] * 2
    return y

def getitem_kinds(x):
    a = x[:, ::-1]
    b = x[..., 1]
    c = x[None, :, 1:3]
    d = x[x > 0]
    e = x[paddle.to_tensor([1, 0])]
    return a.sum() + b.sum() + c.sum() + d.sum() + e.sum()

def cond_expr(x):
    y = x * 2 if x.mean() > 0 else x - 1
    return y

def nested_def_closure(x):
    k = 3.0
    def inner(v, s=2.0):
        def deeper(w):
            return w * k + s
        return deeper(v) if v.sum() > 0 else -deeper(v)
    return inner(x)

def comprehensions(x):
    parts = [x * i for i in range(3)]
    d = {f"p{i}": p for i, p in enumerate(parts)}
    s = sum(v.sum() for v in d.values())
    return s + paddle.stack([p.mean() for p in parts if p is not None]).sum()

def _pair(x):
    return {"a": x + 1, "b": [x * 2, (x - 1, x / 2)]}

def nested_containers(x):
    d = _pair(x)
    a, (b, (c, e)) = d["a"], d["b"]
    return a + b + c + e

def star_unpack(x):
    first, *rest = paddle.split(x, 3, axis=-1) if x.shape[-1] % 3 == 0 else [x, x, x]
    head, *_, tail = [x, x * 2, x * 3, x * 4]
    return first.sum() + sum(r.sum() for r in rest) + head.sum() + tail.sum()

def _kw(x, *args, scale=1.0, **kw):
    out = x * scale
    for a in args:
        out = out + a
    for k in sorted(kw):
        out = out - kw[k]
    return out

def args_kwargs(x):
    return _kw(x, x, 1.0, scale=SCALE, p=x * 0.5, q=2.0)

def globals_consts(x):
    return x * SCALE + np.float32(1.5)

def for_over_tensor(x):
    acc = paddle.zeros([x.shape[1]])
    for row in x:
        acc = acc + row
    return acc

def enumerate_zip(x):
    acc = x[0] * 0
    for i, (a, b) in enumerate(zip(x, x[::-1])):
        acc = acc + a * b * (i + 1)
    return acc

def while_else(x):
    i = paddle.zeros([1], "int64")
    s = x.sum() * 0
    while i < 4:
        s = s + x.sum()
        i += 1
    else:
        s = s * 2
    return s

def for_else_tensor(x):
    for v in x:
        if v.sum() > 100:
            break
    else:
        return x * 0
    return x

def py_recursion(x, n=3):
    if n == 0:
        return x
    return py_recursion(x * 2, n - 1)

class Base(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
    def act(self, x):
        return F.relu(x)
    def forward(self, x):
        return self.act(self.fc(x))

class Child(Base):
    factor = 2.0
    def __init__(self):
        super().__init__()
        self.extra = nn.Linear(3, 3)
    @staticmethod
    def shift(x):
        return x + 1
    @classmethod
    def mult(cls, x):
        return x * cls.factor
    @property
    def both(self):
        return [self.fc, self.extra]
    def forward(self, x):
        y = super().forward(x)
        for layer in self.both:
            y = layer(y)
        if hasattr(self, "extra") and isinstance(self.extra, nn.Linear):
            y = self.mult(self.shift(y))
        return getattr(self, "extra")(y)

def _net():
    paddle.seed(7)
    return Child()

_NET = []
def methods_super(x):
    if not _NET:
        _NET.append(_net())
    return _NET[0](x)

def _twice(fn):
    def wrapped(*a, **k):
        return fn(*a, **k) * 2
    return wrapped

@_twice
def _decorated(x):
    return x + 1

def other_decorators(x):
    return _decorated(x)

def fstring_print(x):
    print(f"shape {x.shape}")
    s = f"{SCALE:.1f}"
    return x * float(s)

def no_grad_inside(x):
    with paddle.no_grad():
        y = x * 2
    return x + y

def try_python(x):
    try:
        v = {"a": 1}["b"]
    except KeyError:
        v = 2
    return x * v

def lambdas(x):
    f = lambda t: t * 2 + 1
    return f(x) + (lambda t: t.sum())(x)

def generator_use(x):
    g = (x * i for i in range(3))
    return paddle.add_n(list(g))

def tensor_assert(x):
    assert paddle.all(x > -100), "too small"
    return x + 1

def tensor_bool_ops(x):
    if x.sum() > 0 and x.mean() < 100 or x.max() > 1000:
        return x
    return -x

def list_return_between(x):
    outs = []
    for i in range(3):
        outs.append(x * i)
    a, b, c = outs
    return paddle.concat(outs), a + b + c

def aug_assign_slices(x):
    y = paddle.zeros_like(x)
    y[:, :2] += x[:, :2]
    y[1:] *= 3.0
    y[:, -1] -= 1.0
    return y

def shape_arith(x):
    b, n = x.shape
    y = x.reshape([-1, n // 1])
    return y.reshape([b, n]).sum(axis=-1, keepdim=True) / n

def int_tensor_loop(x):
    n = paddle.shape(x)[0]
    i = 0
    s = x[0] * 0
    while i < n:
        s = s + x[i]
        i = i + 1
    return s


@paddle.jit.not_to_static
def _plain(x):
    return x * 3


def not_to_static_call(x):
    return _plain(x) + 1


def dict_between_functions(x):
    d = {"x": x, "n": 2}
    d = _scale_dict(d)
    return d["x"] * d["n"]


def _scale_dict(d):
    out = dict(d)
    out["x"] = out["x"] + 1 if out["x"].mean() > 0 else out["x"] - 1
    return out
