"""A whole training step inside to_static (Paddle 2.6's AST to_static runs
``loss.backward(); opt.step(); opt.clear_grad()`` in the converted function,
its test/dygraph_to_static/test_train_step.py): every optimizer and learning-
rate scheduler gives the eager step's losses and weights, the optimizer's
state stays the eager tensors (state_dict, mixing with eager steps), clip,
weight decay and parameter groups apply, and the places where it cannot work
say so."""
from functools import partial

import numpy as np
import pytest

import sampan as paddle

OPT = paddle.optimizer
LR = OPT.lr


class Tiny(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.l1 = paddle.nn.Linear(6, 8)
        self.l2 = paddle.nn.Linear(8, 3)

    def forward(self, x):
        return self.l2(paddle.tanh(self.l1(x)))


def train_step(net, x, opt):
    loss = (net(x) ** 2).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    return loss


def _x(seed=0):
    return paddle.to_tensor(np.random.RandomState(seed).standard_normal((16, 6))
                            .astype("float32"))


def _run(step, make_opt, make_lr, steps=4, seed=7):
    paddle.seed(seed)
    net = Tiny()
    lr = make_lr()
    opt = make_opt(learning_rate=lr, parameters=net.parameters())
    x = _x()
    losses = []
    for _ in range(steps):
        loss = step(net, x, opt)
        if isinstance(lr, LR.ReduceOnPlateau):
            lr.step(loss)
        elif isinstance(lr, LR.LRScheduler):
            lr.step()
        losses.append(float(loss))
    return losses, [p.numpy() for p in net.parameters()], opt


def _same(eager, static, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(static[0], eager[0], rtol=rtol, atol=atol)
    for a, b in zip(static[1], eager[1]):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


OPTIMIZERS = {
    "sgd": OPT.SGD, "momentum": OPT.Momentum, "adam": OPT.Adam, "adamw": OPT.AdamW,
    "adamax": OPT.Adamax, "adagrad": OPT.Adagrad, "adadelta": OPT.Adadelta,
    "rmsprop": OPT.RMSProp, "lamb": partial(OPT.Lamb, lamb_weight_decay=0.01),
    "momentum_nesterov": partial(OPT.Momentum, use_nesterov=True, weight_decay=0.01),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_every_optimizer_matches_eager(name):
    make = OPTIMIZERS[name]
    eager = _run(train_step, make, lambda: 0.05)
    static_step = paddle.jit.to_static(train_step, full_graph=True)
    static = _run(static_step, make, lambda: 0.05)
    assert static[0][-1] != static[0][0]            # it trained
    _same(eager, static)
    # the accumulators are the eager optimizer's own tensors, as eagerly (the two
    # runs' layers differ only in their names' counters)
    e_state, s_state = eager[2].state_dict(), static[2].state_dict()
    assert len(e_state) == len(s_state) and (len(e_state) > 0 or name == "sgd")
    for (ke, ve), (ks, vs) in zip(e_state.items(), s_state.items()):
        assert ke.split(".", 1)[-1] == ks.split(".", 1)[-1]
        if hasattr(ve, "numpy"):
            np.testing.assert_allclose(vs.numpy(), ve.numpy(), rtol=1e-5, atol=1e-6)


SCHEDULERS = {
    "noam": partial(LR.NoamDecay, d_model=0.01, warmup_steps=100),
    "piecewise": partial(LR.PiecewiseDecay, boundaries=[1, 2, 3], values=[0.1, 0.2, 0.3, 0.4]),
    "natural_exp": partial(LR.NaturalExpDecay, learning_rate=0.5, gamma=0.1),
    "inverse_time": partial(LR.InverseTimeDecay, learning_rate=0.5, gamma=0.1),
    "polynomial": partial(LR.PolynomialDecay, learning_rate=0.5, decay_steps=20),
    "warmup": partial(LR.LinearWarmup, learning_rate=0.5, warmup_steps=2, start_lr=0,
                      end_lr=0.5),
    "exponential": partial(LR.ExponentialDecay, learning_rate=0.5, gamma=0.9),
    "multistep": partial(LR.MultiStepDecay, learning_rate=0.5, milestones=[1, 2], gamma=0.8),
    "step": partial(LR.StepDecay, learning_rate=0.5, step_size=2, gamma=0.8),
    "lambda": partial(LR.LambdaDecay, learning_rate=0.5, lr_lambda=lambda e: 0.95 ** e),
    "plateau": partial(LR.ReduceOnPlateau, learning_rate=1.0, factor=0.5, patience=0),
    "cosine": partial(LR.CosineAnnealingDecay, learning_rate=0.5, T_max=10),
    "multiplicative": partial(LR.MultiplicativeDecay, learning_rate=0.5,
                              lr_lambda=lambda e: 0.95),
    "one_cycle": partial(LR.OneCycleLR, max_learning_rate=1.0, total_steps=4),
    "cyclic": partial(LR.CyclicLR, base_learning_rate=0.5, max_learning_rate=1.0,
                      step_size_up=2, step_size_down=1),
    "warm_restarts": partial(LR.CosineAnnealingWarmRestarts, learning_rate=0.5, T_0=1,
                             T_mult=1),
}


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_schedulers_step_between_calls(name):
    make_lr = SCHEDULERS[name]
    eager = _run(train_step, OPT.SGD, make_lr)
    static = _run(paddle.jit.to_static(train_step, full_graph=True), OPT.SGD, make_lr)
    _same(eager, static)


def test_the_rate_is_read_at_every_call():
    # set_lr between calls: a rate of 0 leaves the weights as they are
    step = paddle.jit.to_static(train_step, full_graph=True)
    paddle.seed(1)
    net = Tiny()
    opt = OPT.SGD(learning_rate=0.1, parameters=net.parameters())
    x = _x()
    step(net, x, opt)
    opt.set_lr(0.0)
    before = [p.numpy().copy() for p in net.parameters()]
    step(net, x, opt)
    for a, p in zip(before, net.parameters()):
        np.testing.assert_array_equal(p.numpy(), a)
    opt.set_lr(0.1)
    step(net, x, opt)
    assert any(not np.array_equal(p.numpy(), a) for a, p in zip(before, net.parameters()))


def test_clip_decay_and_parameter_groups():
    def make(learning_rate, parameters):
        params = list(parameters)
        w = [p for p in params if len(p.shape) == 2]
        b = [p for p in params if len(p.shape) == 1]
        return OPT.Momentum(learning_rate=learning_rate, momentum=0.8,
                            parameters=[{"params": w, "weight_decay": 0.1,
                                         "learning_rate": 0.5}, {"params": b}],
                            grad_clip=paddle.nn.ClipGradByGlobalNorm(0.05))
    eager = _run(train_step, make, lambda: 0.2)
    static = _run(paddle.jit.to_static(train_step, full_graph=True), make, lambda: 0.2)
    _same(eager, static)


def test_eager_and_traced_steps_share_the_state():
    # two eager Adam steps then two traced ones == four eager steps
    def run(mixed):
        paddle.seed(3)
        net = Tiny()
        opt = OPT.Adam(learning_rate=0.05, parameters=net.parameters())
        x = _x(2)
        traced = paddle.jit.to_static(train_step, full_graph=True)
        losses = [float((traced if mixed and i >= 2 else train_step)(net, x, opt))
                  for i in range(4)]
        return losses, [p.numpy() for p in net.parameters()]
    _same(run(False), run(True))


def test_layer_method_and_minimize():
    class Model(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.net = Tiny()
            self.opt = OPT.Adam(learning_rate=0.05, parameters=self.net.parameters())

        def train_minimize(self, x):
            loss = (self.net(x) ** 2).mean()
            ops, pairs = self.opt.minimize(loss)
            self.minimized = ([op.type for op in ops], [p.name for p, _ in pairs])
            self.opt.clear_grad()
            return loss

    def run(convert):
        paddle.seed(5)
        m = Model()
        fn = paddle.jit.to_static(m.train_minimize, full_graph=True) if convert else None
        x = _x(4)
        out = []
        for _ in range(3):
            if convert:
                out.append(float(fn(x)))
            else:
                loss = (m.net(x) ** 2).mean()
                loss.backward()
                m.opt.step()
                m.opt.clear_grad()
                out.append(float(loss))
        if convert:     # what the traced minimize returned: the update ops, the pairs
            types, names = m.minimized
            assert types.count("adam") == 4 and sorted(names) == sorted(
                p.name for p in m.net.parameters())
        return out, [p.numpy() for p in m.net.parameters()]
    _same(run(False), run(True))


def test_two_losses_add_their_gradients():
    def step2(net, x, opt):
        a = net(x).mean()
        b = (net(x) ** 2).sum() * 0.01
        a.backward()
        b.backward()
        opt.step()
        opt.clear_grad()
        return a + b
    eager = _run(step2, OPT.SGD, lambda: 0.1, steps=3)
    static = _run(paddle.jit.to_static(step2, full_graph=True), OPT.SGD, lambda: 0.1, steps=3)
    _same(eager, static)


def test_the_returned_loss_records_nothing():
    step = paddle.jit.to_static(train_step, full_graph=True)
    paddle.seed(0)
    net = Tiny()
    opt = OPT.SGD(learning_rate=0.1, parameters=net.parameters())
    loss = step(net, _x(), opt)
    assert loss.stop_gradient
    # .grad as the eager step leaves it: cleared to zeros (tests/jit/test_traced_grads.py)
    assert all(p.grad is not None and not np.any(p.grad.numpy()) for p in net.parameters())


def test_what_cannot_work_says_so():
    def with_retain(net, x, opt):
        loss = net(x).mean()
        loss.backward(retain_graph=True)
        return loss

    net = Tiny()
    opt = OPT.SGD(learning_rate=0.1, parameters=net.parameters())
    with pytest.raises(AssertionError, match="retain_graph"):
        paddle.jit.to_static(with_retain, full_graph=True)(net, _x(), opt)
    # a plain static program has no eager backward or step (Paddle: AssertionError)
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [4, 6], "float32")
            lin = paddle.nn.Linear(6, 2)
            loss = lin(x).mean()
            with pytest.raises(AssertionError, match="append_backward"):
                loss.backward()
            sopt = OPT.SGD(0.1, parameters=lin.parameters())
            with pytest.raises(AssertionError, match="minimize"):
                sopt.step()
            with pytest.raises(AssertionError, match="minimize"):
                sopt.clear_grad()
    finally:
        paddle.disable_static()


def test_fused_program_and_normalization_layers():
    # the elementwise fusion pass (build_strategy) keeps the backward and updates
    def run(mode):
        paddle.seed(3)
        net = paddle.nn.Sequential(paddle.nn.Linear(6, 16), paddle.nn.GELU(),
                                   paddle.nn.LayerNorm(16), paddle.nn.Linear(16, 2))
        opt = OPT.AdamW(0.01, parameters=net.parameters())

        def step(x):
            loss = (paddle.nn.functional.softmax(net(x)) * 3.0 + 1.0).square().mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        if mode == "fused":
            bs = paddle.static.BuildStrategy()
            bs.enable_auto_fusion = True
            step = paddle.jit.to_static(step, full_graph=True, build_strategy=bs)
        elif mode == "static":
            step = paddle.jit.to_static(step, full_graph=True)
        losses = [float(step(_x(5))) for _ in range(4)]
        return losses, [p.numpy() for p in net.parameters()]
    eager = run("eager")
    _same(eager, run("static"))
    _same(eager, run("fused"))
