"""Training through graph control flow: a tensor-dependent while loop and a
tensor if in forward, written with Python statements (converted) and with
the explicit static.nn ops; eager and to_static give the same losses and
weights."""
import importlib.util

import numpy as np
import pytest

import sampan as paddle

F = paddle.nn.functional
HAS_CONVERTER = importlib.util.find_spec("sampan.jit.conversion") is not None
needs_converter = pytest.mark.skipif(not HAS_CONVERTER, reason="jit/conversion.py missing")


class LoopNet(paddle.nn.Layer):
    """h = tanh(W h + b) repeated n times, n a tensor."""

    def __init__(self):
        super().__init__()
        self.lin = paddle.nn.Linear(4, 4)
        self.out = paddle.nn.Linear(4, 2)

    def forward(self, x, n):
        i = paddle.zeros([1], dtype="int64")
        h = x
        while i < n:
            h = paddle.tanh(self.lin(h))
            i = i + 1
        return self.out(h)


class ExplicitLoopNet(LoopNet):
    def forward(self, x, n):
        i = paddle.zeros([1], dtype="int64")
        _, h = paddle.static.nn.while_loop(
            lambda i, h: i < n, lambda i, h: [i + 1, paddle.tanh(self.lin(h))], [i, x])
        return self.out(h)


class BranchNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = paddle.nn.Linear(4, 2)
        self.b = paddle.nn.Linear(4, 2)

    def forward(self, x):
        if x.mean() > 0:
            y = self.a(x) * 2.0
        else:
            y = self.b(x) - 1.0
        return y


class ExplicitBranchNet(BranchNet):
    def forward(self, x):
        return paddle.static.nn.cond(x.mean() > 0, lambda: self.a(x) * 2.0,
                                     lambda: self.b(x) - 1.0)


def _train(cls, static, batches, steps=6, opt_cls=None):
    paddle.seed(11)
    model = cls()
    if static:
        model = paddle.jit.to_static(model)
    opt = (opt_cls or paddle.optimizer.Adam)(learning_rate=0.05,
                                             parameters=model.parameters())
    losses = []
    for i in range(steps):
        args, y = batches[i % len(batches)]
        loss = F.mse_loss(model(*args), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return np.array(losses), {k: v.numpy().copy() for k, v in model.state_dict().items()}, model


def _parity(cls, batches, traced, opt_cls=None):
    le, se, _ = _train(cls, False, batches, opt_cls=opt_cls)
    ls, ss, model = _train(cls, True, batches, opt_cls=opt_cls)
    np.testing.assert_allclose(ls, le, rtol=1e-5, atol=1e-6)
    for k in se:
        np.testing.assert_allclose(ss[k], se[k], rtol=1e-5, atol=1e-6, err_msg=k)
    assert model.forward.get_traced_count() == traced
    return model


def _loop_batches():
    rng = np.random.RandomState(0)
    out = []
    for n in (1, 3, 2):
        x = paddle.to_tensor(rng.standard_normal((3, 4)).astype("float32"))
        y = paddle.to_tensor(rng.standard_normal((3, 2)).astype("float32"))
        out.append(((x, paddle.to_tensor([n], dtype="int64")), y))
    return out


def _branch_batches():
    rng = np.random.RandomState(1)
    out = []
    for sign in (1.0, -1.0, 1.0):
        x = paddle.to_tensor((np.abs(rng.standard_normal((3, 4))) * sign).astype("float32"))
        y = paddle.to_tensor(rng.standard_normal((3, 2)).astype("float32"))
        out.append(((x,), y))
    return out


def test_explicit_while_loop_trains():
    model = _parity(ExplicitLoopNet, _loop_batches(), traced=1)
    ops = [op.type for op in model.forward.concrete_program.main_program.global_block().ops]
    assert "while" in ops


# The parameters of the branch a call did not take get no gradient from the
# program (their grad stays None, as in eager), so Adam's moments and step
# counts match eager's too.
def test_explicit_cond_trains():
    _parity(ExplicitBranchNet, _branch_batches(), traced=1)


def test_untaken_branch_parameters_get_no_gradient():
    model = paddle.jit.to_static(ExplicitBranchNet())
    x = paddle.to_tensor(np.ones((2, 4), "float32"))
    model(x).sum().backward()
    assert model.a.weight.grad is not None and np.abs(model.a.weight.grad.numpy()).sum() > 0
    assert model.b.weight.grad is None and model.b.bias.grad is None


@needs_converter
def test_python_while_on_tensor_trains():
    model = _parity(LoopNet, _loop_batches(), traced=1)
    ops = [op.type for op in model.forward.concrete_program.main_program.global_block().ops]
    assert "while" in ops


@needs_converter
def test_python_if_on_tensor_trains():
    model = _parity(BranchNet, _branch_batches(), traced=1)
    ops = [op.type for op in model.forward.concrete_program.main_program.global_block().ops]
    assert "conditional_block" in ops or "select_input" in ops
