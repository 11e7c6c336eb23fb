"""In-place writes inside a to_static function do what they do eagerly: an
input written in place (``x.add_(y)``, ``x[0] = v``, ``x.zero_()`` ...) is
the caller's tensor written (jit/tracing.py ``written_inputs``,
jit/partial_program.py), also where the write is inside a tensor-dependent
``if`` (the written value is one more output of the ``cond``:
jit/convert_static.py) or loop (the loop's copy of it, still that tensor at
the body's end: jit/convert_loops.py); and an in-place write inside a branch
is that branch's state (ast_transforms/lists.py ``convert_inplace``), not a
rebinding of the object both branches share.  A call passing a leaf tensor
that needs a gradient for an input the function writes (with gradients
recorded) is refused as the eager write is: before the call runs where every
call writes it, and only on the calls that write it where a tensor-dependent
``if`` or loop may leave it alone (jit/no_value.py ``written_flags``).  (Real Paddle 2.6's
to_static leaves the caller's tensor alone and, for ``add_``, returns a
wrong result; eager is the truth.)"""
import numpy as np
import pytest

import sampan as paddle

from .inplace_parity import make_x as _x, make_y as _y, same_as_eager as _same_as_eager, \
    same_grads_as_eager as _same_grads_as_eager


def add_(x, y):
    x.add_(y)
    return x * 2


def scale_then_clip(x, y):
    x.scale_(3.0)
    x.clip_(-2.0, 4.0)
    return y + 1


def zero_(x, y):
    x.zero_()
    return y * x


def fill_(x, y):
    x.fill_(2.5)
    return x + y


def setitem(x, y):
    x[0] = y[1] * 5
    return x.sum()


def augmented_setitem(x, y):
    x[:, 1] += 10
    return x


def setitem_by_tensor_index(x, y):
    i = paddle.to_tensor(1)
    x[i] = y[0]
    return x.mean()


def in_python_loop(x, y):
    for i in range(3):
        x[i % 2] = y[0] * i
    return x.sum()


def reshape_(x, y):
    x.reshape_([3, 2])
    return x + 1


@pytest.mark.parametrize("fn", [add_, scale_then_clip, zero_, fill_, setitem,
                                augmented_setitem, setitem_by_tensor_index, in_python_loop,
                                reshape_], ids=lambda f: f.__name__)
def test_the_callers_tensor_is_written(fn):
    static = _same_as_eager(fn)
    # the write is real (a test of a function that leaves x alone would pass anyway)
    before = _x()
    assert static[0][2] != before.shape or not np.allclose(static[0][1], before.numpy())


def test_a_function_that_only_reads_its_input_leaves_it():
    def reads(x, y):
        z = x + y
        z.add_(y)                   # a local written in place, not an input
        x = x * 3                   # a rebinding, not a write
        return z + x
    static = _same_as_eager(reads)
    np.testing.assert_array_equal(static[1][1], _x().numpy())


def test_an_in_place_write_in_a_tensor_branch_is_branch_state():
    # the object x is shared by both traced branches: rebinding it in one broke
    # the other ("variable ... is not declared in block ...")
    def branch(x, y):
        if y.sum() > 0:
            x.add_(y)
            x[0] = x[0] * 2
        else:
            x.scale_(-1.0)
        return x * 2
    eager = branch(_x(), _y())
    static = paddle.jit.to_static(branch, full_graph=True)(_x(), _y())
    np.testing.assert_allclose(static.numpy(), eager.numpy(), rtol=1e-6)
    neg = paddle.jit.to_static(branch, full_graph=True)(_x(), -_y())
    np.testing.assert_allclose(neg.numpy(), branch(_x(), -_y()).numpy(), rtol=1e-6)


def branch_write(x, y):
    if y.sum() > 0:
        x.add_(y)
    else:
        x = x * 2                   # a rebinding on this side: the caller's x stays
    return x + 1


def branch_write_through_alias(x, y):
    z = x                           # one tensor, two names
    if y.mean() > 0:
        x.scale_(3.0)
        z.add_(y)                   # reads what x.scale_ wrote
        x[0] = z[1] * 2
    return z - 1


def branch_write_on_both_sides(x, y):
    if y.max() > 1.2:
        x.subtract_(y)
    else:
        x.clip_(-1.0, 1.0)
    return x.sum()


def nested_branch_write(x, y):
    if y.sum() > 0:
        if y.min() > 0.7:
            x.add_(y)
        else:
            x.multiply_(y)
        x.scale_(0.5)
    return y * 2


def elif_branch_write(x, y):
    s = y.sum()
    if s > 100:
        x.zero_()
    elif s > 0:
        x[1] = y[0]
    return x.mean()


def branch_write_of_a_local(x, y):
    w = x * 1.0                     # made before the `if`, returned after it
    if y.sum() > 0:
        w.add_(y)
    return w


@pytest.mark.parametrize("flip", [False, True], ids=["taken", "not-taken"])
@pytest.mark.parametrize("fn", [branch_write, branch_write_through_alias,
                                branch_write_on_both_sides, nested_branch_write,
                                elif_branch_write, branch_write_of_a_local],
                         ids=lambda f: f.__name__)
def test_an_input_written_in_a_tensor_branch_is_the_callers_tensor_written(fn, flip):
    # both branches traced into one cond: the written value leaves it as one more
    # output (jit/convert_static.py _NeedWrites) and rebinds the input after it
    _same_as_eager(fn, sign=-1.0 if flip else 1.0)


def while_write(x, y):
    i = paddle.zeros([1], dtype="int64")
    n = paddle.full([1], 3, dtype="int64")
    while i < n:
        x.add_(y)
        i = i + 1
    return x * 2


def for_range_write(x, y):
    n = paddle.full([], 2, dtype="int64")
    for _ in range(n):
        x[0] = x[0] + y[1]
        x.scale_(0.5)
    return x.sum()


def loop_rebinding_only(x, y):
    i = paddle.zeros([1], dtype="int64")
    while i < 2:
        x = x + y                   # a new tensor each turn: the caller's x stays
        i = i + 1
    return x


def loop_with_branch_write(x, y):
    i = paddle.zeros([1], dtype="int64")
    while i < 3:
        if x.sum() > 3:
            x.subtract_(y)
        else:
            x.add_(y * 4)
        i = i + 1
    return x


@pytest.mark.parametrize("fn", [while_write, for_range_write, loop_rebinding_only,
                                loop_with_branch_write], ids=lambda f: f.__name__)
def test_an_input_written_in_a_tensor_loop_is_the_callers_tensor_written(fn):
    # the loop carries a copy of x; an x still that tensor at the body's end was
    # written in place, so the caller's tensor takes the loop's result
    # (jit/convert_loops.py static_while)
    _same_as_eager(fn)


def test_a_branch_write_is_one_cond_with_the_value_as_an_output():
    f = paddle.jit.to_static(branch_write, full_graph=True)
    x = _x()
    f(x, _y())
    types = [op.type for op in f.concrete_program.main_program.global_block().ops]
    assert types.count("conditional_block") == 2          # the rebuilt cond only
    np.testing.assert_allclose(x.numpy(), (_x() + _y()).numpy(), rtol=1e-6)


def test_a_method_ending_in_underscore_of_another_object_is_left_alone():
    class Counter:
        def __init__(self):
            self.n = 0

        def bump_(self):
            self.n += 1             # returns None: the name keeps the object

    def f(x, c):
        c.bump_()
        return x + c.n
    c = Counter()
    out = paddle.jit.to_static(f, full_graph=True)(_x(), c)
    np.testing.assert_allclose(out.numpy(), _x().numpy() + 1)
    assert c.n == 1


# ------------------------------------------------------------ a layer's own tensors
class _Counting(paddle.nn.Layer):
    """A buffer and a parameter written in forward, by ``write(self)``."""

    def __init__(self, write):
        super().__init__()
        self.register_buffer("count", paddle.zeros([1]))
        self.lin = paddle.nn.Linear(3, 2)
        self.write = write

    def forward(self, x):
        self.write(self)
        return self.lin(x) * self.count


def _set_value(m):
    m.count.set_value(m.count + 1)


def _add_(m):
    m.count.add_(paddle.ones([1]))


def _setitem(m):
    m.count[0] = m.count[0] + 1


def _normalize_weight(m):
    _add_(m)
    with paddle.no_grad():
        m.lin.weight.set_value(m.lin.weight / m.lin.weight.norm() * 2.0)


def _scale_weight(m):
    _add_(m)
    with paddle.no_grad():
        m.lin.weight.scale_(0.5)


@pytest.mark.parametrize("write", [_set_value, _add_, _setitem, _normalize_weight,
                                   _scale_weight], ids=lambda f: f.__name__.strip("_"))
def test_a_layers_buffer_and_parameter_written_in_forward(write):
    # the program reads the tensors themselves and writes them at every call
    # (an eager snapshot taken while tracing froze the value into the program,
    # and set_value of a Variable broke the graph)
    runs = []
    for traced in (False, True):
        paddle.seed(4)
        m = _Counting(write)
        f = paddle.jit.to_static(m, full_graph=True) if traced else m
        outs = [f(_x()[:, :3]).numpy() for _ in range(3)]
        runs.append((outs, {k: v.numpy() for k, v in m.state_dict().items()}))
    (oe, se), (os_, ss) = runs
    for a, b in zip(os_, oe):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert ss.keys() == se.keys()
    for k in se:
        np.testing.assert_allclose(ss[k], se[k], rtol=1e-5, atol=1e-6)
    assert float(ss["count"][0]) == 3.0


def test_set_value_of_a_variable_checks_its_shape():
    m = _Counting(lambda m: m.count.set_value(paddle.ones([2])))
    with pytest.raises(ValueError, match=r"set_value on .* shape \[2\]"):
        paddle.jit.to_static(m, full_graph=True)(_x()[:, :3])


def _leaf():
    return paddle.to_tensor(np.ones((2, 3), "float32"), stop_gradient=False)


@pytest.mark.parametrize("fn", [add_, setitem, branch_write, while_write],
                         ids=lambda f: f.__name__)
def test_writing_a_leaf_that_needs_a_gradient_is_refused_as_eagerly(fn):
    # eager refuses the write (ValueError) and so does the call, before running:
    # the caller's tensor is left as it was
    with pytest.raises(ValueError, match="Leaf Tensor"):
        fn(_leaf(), _y())
    f = paddle.jit.to_static(fn, full_graph=True)
    x = _leaf()
    with pytest.raises(ValueError, match="Leaf Tensor .* input 0 in place"):
        f(x, _y())
    np.testing.assert_array_equal(x.numpy(), np.ones((2, 3), "float32"))
    with paddle.no_grad():          # no gradient recorded: the write is allowed
        f(x, _y())
    assert not np.array_equal(x.numpy(), np.ones((2, 3), "float32"))


def while_write_maybe(x, y):
    i = paddle.zeros([1], dtype="int64")
    n = paddle.full([1], 3, dtype="int64") * (y.sum() > 0).astype("int64")
    while i < n:
        x.add_(y)
        i = i + 1
    return x * 2


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["writes", "leaves-it"])
@pytest.mark.parametrize("fn", [branch_write, nested_branch_write, elif_branch_write,
                                branch_write_through_alias, while_write_maybe],
                         ids=lambda f: f.__name__)
def test_a_leaf_is_refused_only_by_calls_that_write_it(fn, sign):
    # eager raises at the write, so only where the path writes: the call does the
    # same, and where it leaves the leaf alone it runs as eagerly, gradients too
    def run(f):
        x = _leaf()
        try:
            out = f(x, _y(sign))
        except ValueError as e:
            assert "Leaf Tensor" in str(e)
            return None, x.numpy(), None
        if not out.stop_gradient:
            out.sum().backward()
        return out.numpy(), x.numpy(), None if x.grad is None else x.grad.numpy()

    oe, xe, ge = run(fn)
    static = paddle.jit.to_static(fn, full_graph=True)
    os_, xs, gs = run(static)
    assert (oe is None) == (os_ is None) == (sign > 0)
    # the flags live in the program the call runs, not in the traced one (jit.save's)
    traced = static.concrete_program.main_program
    assert not any(n.endswith("@WRITTEN") for b in traced.blocks for n in b.vars)
    np.testing.assert_array_equal(xs, xe)           # refused: the caller's x as it was
    if oe is not None:
        np.testing.assert_allclose(os_, oe, rtol=1e-6)
        assert (gs is None) == (ge is None)
        if ge is not None:
            np.testing.assert_allclose(gs, ge, rtol=1e-6)


def test_a_write_under_no_grad_inside_the_function_is_allowed():
    def under_no_grad(x, y):
        with paddle.no_grad():
            x.add_(y)
        return x * 2
    eager_x, static_x = _leaf(), _leaf()
    re = under_no_grad(eager_x, _y())
    rs = paddle.jit.to_static(under_no_grad, full_graph=True)(static_x, _y())
    np.testing.assert_allclose(rs.numpy(), re.numpy(), rtol=1e-6)
    np.testing.assert_allclose(static_x.numpy(), eager_x.numpy(), rtol=1e-6)


class _Shift(paddle.nn.Layer):
    """Writes its input in place with a parameter: the input then needs a gradient."""

    def __init__(self):
        super().__init__()
        self.b = self.create_parameter([3], default_initializer=paddle.nn.initializer.Constant(0.5))

    def forward(self, x):
        x.add_(self.b * 2)
        return x.sum()


def scale_and_return(x, y):
    x.scale_(3.0)
    return x


def scale_in_branch(x, y):
    if y.sum() > 0:
        x.multiply_(y)
    return x * 2


@pytest.mark.parametrize("fn", [scale_then_clip, scale_and_return, scale_in_branch, setitem],
                         ids=lambda f: f.__name__)
def test_a_written_input_differentiates_through_the_write_as_eagerly(fn):
    # the caller's tensor takes the call's node for its new value (a slot of the
    # run_program node): later uses of it reach what the write did
    _same_grads_as_eager(fn, lambda out, x: out.sum() + (x * x).sum())


def test_an_input_written_with_a_parameter_carries_its_gradient():
    def run(traced):
        paddle.seed(0)
        layer = _Shift()
        f = paddle.jit.to_static(layer, full_graph=True) if traced else layer
        x = _x()                                  # stops gradients: no leaf error
        s = f(x)
        (s + (x * x).sum()).backward()
        return layer.b.grad.numpy(), x.numpy(), x.stop_gradient

    (gs, xs, sgs), (ge, xe, sge) = run(True), run(False)
    np.testing.assert_allclose(xs, xe, rtol=1e-6)
    np.testing.assert_allclose(gs, ge, rtol=1e-5)
    assert sgs == sge is False
