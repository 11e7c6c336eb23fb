"""Static training parity: a program built by ``optimizer.minimize`` and run by
the Executor trains exactly like the same model trained eagerly from the same
initial weights (per-step losses to 1e-5): the seed program (Linear + MSELoss +
Adam), SGD / Momentum / AdamW, gradient clipping with L2 weight decay, an
LRScheduler stepping, a CNN with BatchNorm (running statistics and the
``clone(for_test=True)`` evaluation), and the threaded runner against the
serial one."""
import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.executor import ExecutionConfig
from sampan.utils import unique_name

nn = paddle.nn
STEPS = 5


# ----------------------------------------------------------------- models
# each: (network, loss head); loss = head(network(x), y)
def seed_model():
    """The seed program's model: Linear(16, 1) + MSELoss."""
    return nn.Linear(in_features=16, out_features=1), nn.MSELoss()


def mlp_model():
    return nn.Sequential(nn.Linear(16, 12), nn.ReLU(), nn.Linear(12, 1)), nn.MSELoss()


def cnn_model():
    net = nn.Sequential(nn.Conv2D(3, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(),
                        nn.MaxPool2D(2), nn.Flatten(), nn.Linear(4 * 4 * 4, 5))
    return net, nn.CrossEntropyLoss()


SEED_SPEC = (("x", [16, 16], "float32"), ("label", [16, 1], "float32"))
CNN_SPEC = (("x", [6, 3, 8, 8], "float32"), ("y", [6, 1], "int64"))


def batches(spec, steps=STEPS, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        feed = {}
        for name, shape, dtype in spec:
            if dtype == "int64":
                feed[name] = rng.integers(0, 5, shape).astype("int64")
            else:
                feed[name] = rng.standard_normal(shape).astype(dtype)
        out.append(feed)
    return out


# ----------------------------------------------------------------- the two trainers
class StaticRun:
    """Build model + ``make_opt(None).minimize`` in a fresh program; run startup
    in a private scope."""

    def __init__(self, make_model, make_opt, spec, config=None, test_clone=False):
        self.main, self.startup = static.Program(), static.Program()
        paddle.enable_static()
        try:
            with unique_name.guard(), static.program_guard(self.main, self.startup):
                x, y = [static.data(n, s, d) for n, s, d in spec]
                self.layer, head = make_model()
                self.out = self.layer(x)
                self.loss = head(self.out, y)
                self.test = self.main.clone(for_test=True) if test_clone else None
                self.opt = make_opt(None)
                self.ops, self.params_grads = self.opt.minimize(self.loss)
        finally:
            paddle.disable_static()
        self.scope = static.Scope()
        self.exe = static.Executor(config=config)
        self.exe.run(self.startup, scope=self.scope)

    def value(self, name):
        return np.array(self.scope.find_var(name).get())

    def initial_state(self):
        return {v.name: self.value(v.name) for v in self.startup.global_block().vars.values()
                if v.persistable}

    def step(self, feed):
        return float(self.exe.run(self.main, feed=feed, fetch_list=[self.loss],
                                  scope=self.scope)[0])


class EagerRun:
    def __init__(self, make_model, make_opt, state):
        with unique_name.guard():
            self.layer, self.head = make_model()
        for t in self.layer.state_dict().values():
            t.set_value(state[t.name])
        self.opt = make_opt(self.layer.parameters())

    def step(self, feed):
        x, y = (paddle.to_tensor(a) for a in feed.values())
        loss = self.head(self.layer(x), y)
        loss.backward()
        self.opt.step()
        self.opt.clear_grad()
        return float(loss)


def train_both(make_model, make_opt, spec=SEED_SPEC, steps=STEPS, after_step=None,
               **static_kw):
    s = StaticRun(make_model, make_opt, spec, **static_kw)
    e = EagerRun(make_model, make_opt, s.initial_state())
    ls, le = [], []
    for feed in batches(spec, steps):
        ls.append(s.step(feed))
        le.append(e.step(feed))
        if after_step is not None:
            after_step(s, e)
    return s, e, np.array(ls), np.array(le)


def assert_same_training(ls, le):
    np.testing.assert_allclose(ls, le, rtol=1e-5, atol=1e-5)
    assert not np.allclose(ls, ls[0]), "the losses should change as the model trains"


# ----------------------------------------------------------------- the seed program
def test_seed_program_adam_matches_eager():
    s, e, ls, le = train_both(seed_model, lambda p: paddle.optimizer.Adam(parameters=p))
    assert_same_training(ls, le)
    for p in e.layer.parameters():                      # the weights too
        np.testing.assert_allclose(s.value(p.name), p.numpy(), rtol=1e-5, atol=1e-6)


def test_seed_program_runs_as_written():
    """The seed's code verbatim (default programs replaced by fresh ones)."""
    main_program, startup_program = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main_program, startup_program):
            x = paddle.static.data(shape=[16, 16], name='x')
            label = paddle.static.data(shape=[16, 1], name='label')
            out = paddle.nn.Linear(in_features=16, out_features=1)(x)
            loss = paddle.nn.MSELoss()(out, label)
            optimizer = paddle.optimizer.Adam()
            optimizer.minimize(loss)
    finally:
        paddle.disable_static()
    exe = static.Executor(paddle.CPUPlace())
    scope = static.Scope()
    exe.run(startup_program, scope=scope)
    feed = {'x': np.ones((16, 16), np.float32), 'label': np.ones((16, 1), np.float32)}
    losses = [exe.run(main_program, feed=feed, fetch_list=[loss], scope=scope)[0]
              for _ in range(20)]
    assert losses[0].shape == () and losses[0].dtype == np.float32
    assert losses[-1] < losses[0]


@pytest.mark.parametrize("make_opt", [
    lambda p: paddle.optimizer.SGD(learning_rate=0.1, parameters=p),
    lambda p: paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9, parameters=p),
    lambda p: paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9, parameters=p,
                                        use_nesterov=True, weight_decay=0.01),
    lambda p: paddle.optimizer.AdamW(learning_rate=0.01, parameters=p, weight_decay=0.05),
    lambda p: paddle.optimizer.Adam(learning_rate=0.01, parameters=p, beta1=0.8,
                                    weight_decay=paddle.regularizer.L2Decay(0.01)),
    lambda p: paddle.optimizer.RMSProp(learning_rate=0.01, parameters=p, centered=True,
                                       momentum=0.5),
    lambda p: paddle.optimizer.Adagrad(learning_rate=0.1, parameters=p),
], ids=["sgd", "momentum", "momentum_nesterov_l2", "adamw", "adam_l2", "rmsprop", "adagrad"])
def test_optimizers_match_eager(make_opt):
    _, _, ls, le = train_both(mlp_model, make_opt)
    assert_same_training(ls, le)


@pytest.mark.parametrize("clip", [
    lambda: nn.ClipGradByGlobalNorm(0.5),
    lambda: nn.ClipGradByNorm(0.3),
    lambda: nn.ClipGradByValue(0.05),
], ids=["global_norm", "norm", "value"])
def test_grad_clip_and_l2_decay_match_eager(clip):
    def make_opt(p):
        return paddle.optimizer.Adam(learning_rate=0.02, parameters=p, grad_clip=clip(),
                                     weight_decay=paddle.regularizer.L2Decay(0.02))
    _, _, ls, le = train_both(mlp_model, make_opt)
    assert_same_training(ls, le)


def test_sgd_global_norm_clip_is_active():
    """A small clip norm changes the trajectory (the clip ops really run)."""
    def sgd(clip):
        return lambda p: paddle.optimizer.SGD(learning_rate=0.1, parameters=p, grad_clip=clip)
    _, _, clipped, eager = train_both(mlp_model, sgd(nn.ClipGradByGlobalNorm(0.01)))
    _, _, free, _ = train_both(mlp_model, sgd(None))
    assert_same_training(clipped, eager)
    assert abs(clipped[-1] - free[-1]) > 1e-4


def test_lr_scheduler_steps_match_eager():
    scheds = {}

    def make_opt(p):
        sched = paddle.optimizer.lr.StepDecay(learning_rate=0.05, step_size=2, gamma=0.3)
        scheds["eager" if p is not None else "static"] = sched
        return paddle.optimizer.SGD(learning_rate=sched, parameters=p)

    seen = []

    def after_step(s, e):
        seen.append((float(s.value(scheds["static"]._var_name)), scheds["static"]()))
        scheds["static"].step()
        scheds["eager"].step()

    s, _, ls, le = train_both(mlp_model, make_opt, steps=6, after_step=after_step)
    assert_same_training(ls, le)
    # the variable held the scheduler's value of each run: 0.05, 0.05, 0.015, ...
    np.testing.assert_allclose([a for a, _ in seen], [b for _, b in seen], rtol=1e-6)
    assert len({round(a, 6) for a, _ in seen}) == 3
    assert s.main.lr_scheduler is scheds["static"]


# ----------------------------------------------------------------- CNN with BatchNorm
def test_cnn_batchnorm_matches_eager():
    s, e, ls, le = train_both(cnn_model, lambda p: paddle.optimizer.Momentum(
        learning_rate=0.05, momentum=0.9, parameters=p), spec=CNN_SPEC, test_clone=True)
    assert_same_training(ls, le)
    bn = e.layer[1]
    for t in (bn._mean, bn._variance):                  # running statistics
        np.testing.assert_allclose(s.value(t.name), t.numpy(), rtol=1e-5, atol=1e-6)
    assert not np.allclose(bn._mean.numpy(), 0.0)
    # evaluation: the for_test clone uses the running statistics, like eager .eval()
    f = batches(CNN_SPEC, 1, seed=7)[0]
    x = f["x"]
    got = s.exe.run(s.test, feed=f, fetch_list=[s.out.name], scope=s.scope)[0]
    e.layer.eval()
    want = e.layer(paddle.to_tensor(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert all(op.attr("is_test") for op in s.test.global_block().ops
               if op.type == "batch_norm")


def test_for_test_clone_after_minimize_drops_training_ops():
    s = StaticRun(mlp_model, lambda p: paddle.optimizer.Adam(
        parameters=p, grad_clip=nn.ClipGradByGlobalNorm(1.0)), SEED_SPEC)
    test = s.main.clone(for_test=True)
    roles = {op.attr("op_role") for op in test.global_block().ops}
    assert roles <= {0, 256}
    x = batches(SEED_SPEC, 1)[0]
    got = s.exe.run(test, feed=x, fetch_list=[s.loss.name], scope=s.scope)[0]
    before = s.value("linear_0.w_0")
    assert np.isfinite(got)
    np.testing.assert_array_equal(s.value("linear_0.w_0"), before)   # nothing updated


# ----------------------------------------------------------------- runners
@pytest.mark.parametrize("make_model,spec", [(seed_model, SEED_SPEC), (mlp_model, SEED_SPEC),
                                             (cnn_model, CNN_SPEC)],
                         ids=["seed", "mlp", "cnn"])
def test_threaded_runner_identical_to_serial(make_model, spec):
    def make_opt(p):
        return paddle.optimizer.Adam(learning_rate=0.01, parameters=p,
                                     grad_clip=nn.ClipGradByGlobalNorm(1.0))
    s = StaticRun(make_model, make_opt, spec)
    state = s.initial_state()
    runs = {}
    for runner in ("serial", "threaded"):
        exe, scope = static.Executor(config=ExecutionConfig(runner=runner)), static.Scope()
        for n, v in state.items():
            scope.var(n).set(v.copy())
        losses = [exe.run(s.main, feed=f, fetch_list=[s.loss], scope=scope)[0]
                  for f in batches(spec)]
        runs[runner] = (losses, {n: np.array(scope.find_var(n).get()) for n in state})
        exe.close()
    assert runs["serial"][0] == runs["threaded"][0]
    for n, v in runs["serial"][1].items():
        np.testing.assert_array_equal(runs["threaded"][1][n], v)
