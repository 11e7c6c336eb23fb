"""The static form of the eager calls user code makes inside converted
functions (Paddle's test_to_tensor / test_detach / register_hook / numpy
behaviours): ``paddle.to_tensor`` (``assign_value``, ``cast``), ``detach``
(``share_data``), ``register_hook`` (the hook runs on the gradient in the
backward, wherever the statement stands), ``numpy()``/``tolist()`` under
full_graph=True (a clear error naming the line), ``paddle.amp.auto_cast``."""
import numpy as np
import pytest

import sampan as paddle

from .util import check

X = np.array([[1.0, -2.0, 3.0], [0.5, 2.5, -1.5]], "float32")


def _op_types(sf):
    return [op.type for op in sf.concrete_program.main_program.global_block().ops]


# ----------------------------------------------------------------- to_tensor
def to_tensor_values(x):
    a = paddle.to_tensor(x)
    b = paddle.to_tensor([1.0, 2.0, 3.0])
    c = paddle.to_tensor(np.ones([3], "float32"))
    return a + b + c


def to_tensor_dtypes(x):
    a = paddle.to_tensor(x, dtype="float64")
    b = paddle.to_tensor(3)
    c = paddle.to_tensor([1, 2, 3], dtype="int32", stop_gradient=False)
    d = paddle.to_tensor(True)
    return a, b, c, d


def test_to_tensor_values_and_ops():
    sf = check(to_tensor_values, X, grad=(0,))    # eager: the copy stops x's gradient
    assert _op_types(sf) == ["share_data", "assign_value", "assign_value",
                             "elementwise_add", "elementwise_add"]


def test_to_tensor_of_a_stopped_tensor_appends_nothing():
    sf = paddle.jit.to_static(to_tensor_values, full_graph=True)
    sf(paddle.to_tensor(X))
    assert _op_types(sf) == ["assign_value", "assign_value", "elementwise_add",
                             "elementwise_add"]                 # as Paddle 2.6.2


def to_tensor_then_write(x):
    y = paddle.to_tensor(x)
    y[0] = 5.0
    return x, y


def test_to_tensor_is_a_copy():
    check(to_tensor_then_write, X)


def to_tensor_leaf(x):
    a = paddle.to_tensor(x, stop_gradient=False)
    b = paddle.to_tensor(x, dtype="float64", stop_gradient=False)
    return a * x, b


def test_to_tensor_of_a_tensor_is_a_new_leaf():
    check(to_tensor_leaf, X, grad=(0,))


def test_to_tensor_dtypes_and_ops():
    sf = check(to_tensor_dtypes, X)
    assert _op_types(sf)[:4] == ["cast", "assign_value", "assign_value", "cast"]


# ----------------------------------------------------------------- detach
def detach_then_add(x):
    y = x * 2.0
    return y.detach() + y


def detach_in_branch(x):
    y = paddle.tanh(x)
    if x.sum() > 0:
        z = y.detach() * x
    else:
        z = y * x
    return z


def test_detach_stops_the_gradient():
    sf = check(detach_then_add, X, grad=(0,))
    assert "share_data" in _op_types(sf)
    check(detach_in_branch, X, grad=(0,))
    check(detach_in_branch, -X, grad=(0,))


def test_detached_variable_is_named_and_stops_gradient():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            x = paddle.static.data("x", [2, 3], "float32")
            x.stop_gradient = False
            y = x.detach()
            assert y.stop_gradient and y.name.startswith("detach_x")
            assert main.global_block().ops[-1].type == "share_data"
    finally:
        paddle.disable_static()


# ----------------------------------------------------------------- register_hook
def hook_after_use(x):
    y = x * 2.0
    z = y * y
    y.register_hook(lambda g: g * 3.0)
    return z.sum()


def hook_before_use(x):
    y = paddle.tanh(x)
    y.register_hook(lambda g: g + 1.0)
    return (y * x).sum()


def hook_on_input(x):
    x.register_hook(lambda g: g * 0.5)
    return (x * x).sum()


def hook_named_function(x):
    y = x * 3.0
    seen = []

    def double(g):
        seen.append(g)
        return g * 2.0
    y.register_hook(double)
    out = paddle.exp(y).sum()
    return out


def hook_returning_none(x):
    y = x + 1.0
    y.register_hook(lambda g: None)
    return (y * y).sum()


def hook_then_stop_gradient_set(x):
    x.stop_gradient = False
    y = x * x
    x.register_hook(lambda g: g - 1.0)
    return y


@pytest.mark.parametrize("fn", [hook_after_use, hook_before_use, hook_on_input,
                                hook_named_function, hook_returning_none])
def test_register_hook_gives_the_eager_gradients(fn):
    check(fn, X, grad=(0,))


def test_register_hook_after_setting_stop_gradient():
    check(hook_then_stop_gradient_set, X)


def test_register_hook_on_a_stopped_variable_is_the_eager_error():
    def f(x):
        y = x * 2.0
        y.register_hook(lambda g: g)
        return y
    x = paddle.to_tensor(X)
    with pytest.raises(RuntimeError, match="stop_gradient=True"):
        f(x)
    with pytest.raises(RuntimeError, match="stop_gradient=True"):
        paddle.jit.to_static(f, full_graph=True)(x)


def test_register_hook_statement_moves_up_in_the_converted_code():
    sf = paddle.jit.to_static(hook_after_use, full_graph=True)
    lines = [ln.strip() for ln in sf.code.splitlines()]
    hook = next(i for i, ln in enumerate(lines) if "register_hook" in ln)
    use = next(i for i, ln in enumerate(lines) if ln.startswith("z ="))
    assert hook < use


# ----------------------------------------------------------------- numpy / tolist
def reads_numpy(x):
    n = x.numpy()
    return x + float(n.sum())


def reads_tolist(x):
    return x + len(x.tolist())


@pytest.mark.parametrize("fn, what", [(reads_numpy, "numpy"), (reads_tolist, "tolist")])
def test_value_reads_under_full_graph_name_the_line(fn, what):
    sf = paddle.jit.to_static(fn, full_graph=True)
    with pytest.raises(TypeError) as info:
        sf(paddle.to_tensor(X))
    msg = str(info.value)
    assert what in msg and "test_tensor_methods.py" in msg and fn.__name__ in msg


# ----------------------------------------------------------------- amp
def under_auto_cast(x):
    with paddle.amp.auto_cast():
        y = paddle.matmul(x, x, transpose_y=True)
    return y + 1.0


@pytest.mark.filterwarnings("ignore:amp_guard")
def test_auto_cast_inside_to_static():
    check(under_auto_cast, X, grad=(0,))


# ----------------------------------------------------------------- other methods
def tensor_clone(x):
    y = paddle.to_tensor(x).clone()
    return y, x.clone() * 2.0


def tensor_size_dynamic(x):
    x = paddle.reshape(x, paddle.shape(x))          # the shape is known only at run time
    return x.size


def true_div(x, y):
    return x / y


def test_clone_size_true_div():
    check(tensor_clone, X, grad=(0,))
    sf = paddle.jit.to_static(tensor_size_dynamic, full_graph=True)
    assert int(sf(paddle.to_tensor(X))) == tensor_size_dynamic(paddle.to_tensor(X)) == 6
    check(true_div, np.array([3], "int64"), np.array([4], "int64"))


def test_item_under_full_graph_names_the_line():
    def f(x):
        return x.clone().item()
    with pytest.raises(Exception, match="item") as info:
        paddle.jit.to_static(f, full_graph=True)(paddle.ones([1]))
    assert "test_tensor_methods.py" in str(info.value)


def hook_in_tensor_branch(x):
    y = x * 2.0
    if x.mean() > 0:
        y.register_hook(lambda g: g * 10.0)
    return (y * y).sum()


def hook_in_python_loop(x):
    y = x
    for _ in range(2):
        y = paddle.tanh(y)
        y.register_hook(lambda g: g * 2.0)
    return y.sum()


@pytest.mark.parametrize("fn", [hook_in_tensor_branch, hook_in_python_loop])
def test_hooks_in_branches_and_loops(fn):
    check(fn, X, grad=(0,))
    check(fn, -X, grad=(0,))
