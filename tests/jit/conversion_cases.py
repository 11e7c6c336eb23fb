"""User functions for the conversion tests (they need a real source file).

``TENSOR_CASES``: functions of float32 tensors (plus int64 tensors where
named ``n``), each with inputs that take different paths; the tests run them
eagerly, converted eagerly, and converted into a static program.
``PYTHON_CASES``: functions of plain Python values, for canonicalisation
corner cases (conversion must never change what Python computes).
"""
import numpy as np

import sampan as paddle
import sampan.nn as nn
import sampan.nn.functional as F

A = np.array([1.0, 2.0, 3.0], "float32")
B = np.array([-1.0, -2.0, 0.5], "float32")
S = np.array([0.1, 0.2, -0.1], "float32")
M = np.arange(6, dtype="float32").reshape(2, 3) - 2.0
N3 = np.array([3], "int64")
N0 = np.array([0], "int64")


# ----------------------------------------------------------------- if / else
def if_else(x):
    if x.mean() > 0:
        y = x * 2
    else:
        y = x - 1
    return y


def if_no_else(x):
    y = x
    if x.sum() > 0:
        y = y + 10
    return y


def elif_chain(x):
    m = x.mean()
    if m > 1:
        y = x * 2
    elif m > 0:
        y = x + 10
    else:
        y = -x
    return y


def nested_if(x):
    if x.sum() > 0:
        if x.max() > 2.5:
            y = x * 3
        else:
            y = x * 4
    else:
        y = x
        if x.min() < -1.5:
            y = y - 100
    return y


def early_return(x):
    if x.sum() > 0:
        return x + 1
    z = x * 3
    return z


def early_return_chain(x):
    if x.max() > 2.5:
        return x * 0 + 3
    if x.max() > 0:
        return x * 0 + 2
    return x * 0 + 1


def return_tuple_in_branch(x):
    if x.mean() > 0:
        return x * 2, x.sum()
    return x, x.sum() * 0


def if_expression(x):
    y = x * 2 if x.mean() > 0 else x * -1
    return y


def python_cond_in_tensor_code(x, flag=True):
    if flag:                      # a Python value specialises the program
        x = x + 1
    if x.mean() > 2:
        x = x * 2
    return x


# ----------------------------------------------------------------- logic
def logic_ops(x):
    if x.sum() > 0 and x.max() < 2.5:
        y = x + 1
    elif x.min() < -1.5 or not x.max() > 0:
        y = x - 1
    else:
        y = x * 0
    return y


def logic_python_short_circuit(x):
    items = []
    if len(items) > 0 and items[0] > 0:   # the right side would fail if evaluated
        return x
    return x + 1


# ----------------------------------------------------------------- while
def while_python_counter(x):
    i = 0
    s = x * 0
    while i < 4:
        s = s + x
        i += 1
    return s


def while_tensor_cond(x):
    s = x
    while s.sum() < 30:
        s = s * 2
    return s


def while_true_break(x):
    s = x
    while True:
        s = s + 1
        if s.mean() > 8:
            break
    return s


def while_continue(x):
    i = 0
    s = x * 0
    while i < 6:
        i += 1
        if i % 2 == 0:
            continue
        s = s + x * i
    return s


def while_tensor_and(x):
    h = x
    steps = paddle.full([1], 0, dtype="int64")
    while paddle.max(paddle.abs(h)) > 0.2 and steps < 8:
        h = h * 0.5
        steps = steps + 1
    return h, steps


def arg_reassigned_in_loop(x):
    y = x
    while y.sum() < 40:
        y = y * 2
    return y, x


# ----------------------------------------------------------------- for
def for_range_python(x):
    acc = x * 0
    for i in range(3):
        acc = acc + x * (i + 1)
    return acc


def for_range_tensor(x, n):
    acc = x * 0
    k = paddle.zeros([1], dtype="float32")
    for i in range(n):
        acc = acc + paddle.tanh(x + acc) * 0.5 + k * 0.01
        k = k + 1.0
    return acc


def for_rows(x):
    s = x[0] * 0
    for row in x:
        s = s + row
    return s


def for_enumerate(x):
    s = x[0] * 0
    c = 0
    for k, row in enumerate(x):
        s = s + row
        c = c + k
    return s, c


def for_list(x):
    out = x * 0
    for w in [1.0, -2.0, 0.5]:
        out = out + x * w
    return out


def for_break_on_tensor(x):
    s = x * 0
    for i in range(5):
        s = s + x
        if s.sum() > 10:
            break
    return s


def for_else(x):
    s = x
    for i in range(3):
        if s.max() > 100:
            break
        s = s * 2
    else:
        s = s + 1
    return s


def return_inside_loop(x):
    s = x
    for i in range(6):
        s = s + 1
        if s.mean() > 5:
            return s, i
    return s, -1


def return_inside_tensor_loop(x, n):
    s = x
    for i in range(n):
        s = s + 1
        if s.mean() > 4:
            return s * 2
    return s


def nested_loops_break(x):
    total = x * 0
    for i in range(3):
        j = 0
        while j < 4:
            total = total + x
            if total.sum() > 20:
                break
            j += 1
    return total


def list_append_in_loop(x, n):
    outs = []
    for i in range(n):
        outs.append(x * 2 + 1)
    return paddle.stack(outs)


def list_pop_in_loop(x, n):
    outs = []
    for i in range(n):
        outs.append(x + 1.0)
        outs.append(x * 3)
        y = outs.pop()
    return paddle.stack(outs), y


def list_append_python_loop(x):
    outs = []
    for i in range(3):
        outs.append(x + i)
    return paddle.concat(outs)


# ----------------------------------------------------------------- builtins
def casts_len_shape(x):
    n = len(x)
    rows = x.shape[0]
    y = x * float(n) + rows
    if bool(x.sum() > 0):
        y = y + 1
    return y


def isinstance_check(x):
    if isinstance(x, paddle.Tensor):
        return x + 1
    return x


def dynamic_batch(x):
    b = x.shape[0]
    return paddle.reshape(x, [b, -1]) * 2


# ----------------------------------------------------------------- calls
def _helper(v, scale):
    if v.sum() > 0:
        return v * scale
    return v / scale


def calls_helper(x):
    return _helper(x, 2.0) + _helper(-x, 3.0)


def closure_capture(x):
    scale = 2.0

    def inner(v):
        if v.sum() > 0:
            return v * scale
        return v / scale
    return inner(x) + inner(-x)


def nonlocal_update(x):
    count = x * 0

    def bump(v):
        nonlocal count
        if v.sum() > 0:
            count = count + v
        else:
            count = count - v
    bump(x)
    bump(x * -3)
    return count


class Block(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.__scale = 0.5          # a private (mangled) attribute

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            h = F.relu(h)
        else:
            h = h * self.__scale
        return h

    def twice(self, x):
        return self.forward(self.forward(x))


class Stack(Block):
    def __init__(self):
        super().__init__()
        self.blocks = nn.LayerList([Block(), Block()])
        self.tail = nn.Sequential(Block(), nn.Tanh())

    def forward(self, x):
        y = super().forward(x)
        for blk in self.blocks:
            y = y + blk(y)
        return self.tail(y)


_NET = {}


def _net():
    if "stack" not in _NET:
        paddle.seed(7)
        _NET["stack"] = Stack()
    return _NET["stack"]


def layer_call(x):
    return _net()(x)


def method_call(x):
    return _net().twice(x)


TENSOR_CASES = [
    (if_else, [(A,), (B,)]),
    (if_no_else, [(A,), (B,)]),
    (elif_chain, [(A,), (S,), (B,)]),
    (nested_if, [(A,), (S,), (B,), (B * 0.1,)]),
    (early_return, [(A,), (B,)]),
    (early_return_chain, [(A,), (S,), (-A,)]),
    (return_tuple_in_branch, [(A,), (B,)]),
    (if_expression, [(A,), (B,)]),
    (python_cond_in_tensor_code, [(A,), (B,)]),
    (logic_ops, [(S,), (A,), (B,), (-A,)]),
    (logic_python_short_circuit, [(A,)]),
    (while_python_counter, [(A,), (B,)]),
    (while_tensor_cond, [(A,), (A * 10,)]),
    (while_true_break, [(A,), (B,)]),
    (while_continue, [(A,)]),
    (while_tensor_and, [(A,), (S * 0.1,)]),
    (arg_reassigned_in_loop, [(A,), (A * 20,)]),
    (for_range_python, [(A,)]),
    (for_range_tensor, [(A, N3), (A, N0)]),
    (for_rows, [(M,)]),
    (for_enumerate, [(M,)]),
    (for_list, [(A,)]),
    (for_break_on_tensor, [(A,), (S,)]),
    (for_else, [(A,), (A * 30,)]),
    (return_inside_loop, [(A,), (A * 10,)]),
    (return_inside_tensor_loop, [(A, N3), (A * 0, N3), (A, N0)]),
    (nested_loops_break, [(A,), (S,)]),
    (list_append_in_loop, [(A, N3)]),
    (list_pop_in_loop, [(A, N3)]),
    (list_append_python_loop, [(A,)]),
    (casts_len_shape, [(A,), (B,)]),
    (isinstance_check, [(A,)]),
    (dynamic_batch, [(M,)]),
    (calls_helper, [(A,), (B,)]),
    (closure_capture, [(A,), (B,)]),
    (nonlocal_update, [(A,), (B,)]),
    (layer_call, [(M,), (-M,)]),
    (method_call, [(M,), (-M,)]),
]


# ----------------------------------------------------------------- plain Python
def py_early_returns(n):
    if n < 0:
        return "negative"
    if n == 0:
        return "zero"
    for i in range(10):
        if i * i > n:
            return ("root above", i)
    return None


def py_break_continue(xs):
    out = []
    for x in xs:
        if x is None:
            continue
        if x > 100:
            break
        out.append(x * 2)
    else:
        out.append("no break")
    return out


def py_while_else(n):
    i = 0
    while i < n:
        i += 3
        if i == 9:
            break
    else:
        return ("else", i)
    return ("break", i)


def py_nested_returns(a, b):
    for i in range(a):
        for j in range(b):
            if i + j == 3:
                return i, j
    return -1, -1


def py_logic_values(a, b):
    return (a and b, a or b, not a, a and not b or b)


def py_closure_counter(n):
    total = 0

    def add(k):
        nonlocal total
        total += k
    for i in range(n):
        if i % 2:
            add(i)
    return total


def py_comprehension_and_lambda(xs):
    k = 3
    ys = [x * k for x in xs if x % 2]
    f = lambda v: v + k   # noqa: E731
    if ys:
        return [f(y) for y in ys]
    return []


def py_del_and_rebind(n):
    acc = []
    for i in range(n):
        acc.append(i)
        if len(acc) > 2:
            acc.pop(0)
    last = acc.pop() if acc else None
    return acc, last


def py_try_in_loop(xs):
    out = []
    for x in xs:
        try:
            out.append(10 // x)
        except ZeroDivisionError:
            out.append("div0")
            continue
        finally:
            out.append("f")
    return out


def py_with_return(n):
    import contextlib
    with contextlib.nullcontext():
        if n > 2:
            return "big"
    return "small"


def py_int_float_bool(x):
    return int(x), float(x), bool(x), len(str(x))


PYTHON_CASES = [
    (py_early_returns, [(-1,), (0,), (5,), (200,)]),
    (py_break_continue, [([1, None, 3],), ([1, 200, 3],), ([],)]),
    (py_while_else, [(5,), (20,), (0,)]),
    (py_nested_returns, [(3, 3), (1, 1), (4, 0)]),
    (py_logic_values, [(0, 1), (1, 0), (2, 3), ([], "a")]),
    (py_closure_counter, [(0,), (7,)]),
    (py_comprehension_and_lambda, [([1, 2, 3],), ([2, 4],)]),
    (py_del_and_rebind, [(0,), (5,)]),
    (py_try_in_loop, [([1, 0, 5],)]),
    (py_with_return, [(1,), (5,)]),
    (py_int_float_bool, [(3.7,), (0,)]),
]


# ----------------------------------------------------------------- errors
def shape_error(x, w):
    y = x + 1
    z = paddle.matmul(y, w)  # SHAPE-ERROR
    return z


def bound_on_one_side(x):
    if x.mean() > 0:
        y = x * 2
    return y


def loop_var_changes_type(x):
    acc = None
    i = 0
    while i < x.shape[0]:
        acc = x[i]
        i += 1
    return acc


def tensor_recursion(x):
    if x.sum() > 0:
        return tensor_recursion(x - 1)
    return x


def py_nested_generator(n):
    def gen(k):
        for i in range(k):
            if i % 2:
                continue
            yield i
    total = 0
    for v in gen(n):
        total += v
    return total, list(gen(n))


PYTHON_CASES.append((py_nested_generator, [(0,), (7,)]))


G_TOTAL = 0


def py_global_update(n):
    global G_TOTAL
    G_TOTAL = 0
    for i in range(n):
        if i % 2:
            G_TOTAL = G_TOTAL + i
    return G_TOTAL


PYTHON_CASES.append((py_global_update, [(0,), (6,)]))
