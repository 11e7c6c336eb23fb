"""Static ``minimize`` gaps: parameter groups, multi_precision master weights,
and ``main_program.clone()`` keeping its LRScheduler.  Compared with real
Paddle 2.6.2 (fixtures/static_minimize_paddle.json, recorded by
tests/interop/record_static_minimize.py) and with eager sampan (the truth
where Paddle's static pass drops a group's weight_decay)."""
import json
import os

import numpy as np
import pytest

import sampan as paddle
from sampan import static

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "static_minimize_paddle.json")


@pytest.fixture(scope="module")
def ref():
    with open(FIXTURE) as f:
        return json.load(f)


def _arrays(ref):
    return [np.array(ref[k], "float32") for k in ("W1", "B1", "W2", "B2")]


def _static_train(ref, make_opt, steps=3, pass_params=False, clone=False):
    paddle.enable_static()
    try:
        main, start = static.Program(), static.Program()
        with static.program_guard(main, start), paddle.utils.unique_name.guard():
            x = static.data("x", [None, 4], "float32")
            fc1, fc2 = paddle.nn.Linear(4, 3), paddle.nn.Linear(3, 1)
            loss = paddle.mean(fc2(paddle.tanh(fc1(x))))
            opt, sched = make_opt(fc1, fc2)
            params = fc1.parameters() + fc2.parameters()
            opt.minimize(loss, parameters=params if pass_params else None)
        prog = main.clone() if clone else main
        exe = static.Executor(paddle.CPUPlace())
        scope = static.Scope()
        losses, lrs = [], []
        with static.scope_guard(scope):
            exe.run(start)
            for p, a in zip(params, _arrays(ref)):
                scope.find_var(p.name).get_tensor().set(a, paddle.CPUPlace())
            for _ in range(steps):
                losses.append(float(exe.run(prog, feed={"x": np.array(ref["X"], "float32")},
                                            fetch_list=[loss.name])[0]))
                if sched is not None:
                    lrs.append(float(np.array(scope.find_var(sched._var_name).get_tensor())))
                    sched.step()
            out = [np.array(scope.find_var(p.name).get_tensor()) for p in params]
        return losses, out, lrs, main, prog
    finally:
        paddle.disable_static()


def _eager_train(ref, make_opt, steps=3):
    fc1, fc2 = paddle.nn.Linear(4, 3), paddle.nn.Linear(3, 1)
    params = fc1.parameters() + fc2.parameters()
    for p, a in zip(params, _arrays(ref)):
        p.set_value(a)
    opt, sched = make_opt(fc1, fc2)
    x = paddle.to_tensor(np.array(ref["X"], "float32"))
    losses = []
    for _ in range(steps):
        loss = paddle.mean(fc2(paddle.tanh(fc1(x))))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
        if sched is not None:
            sched.step()
    return losses, [p.numpy() for p in params]


def _lr_groups(name, **kw):
    def make(fc1, fc2):
        return getattr(paddle.optimizer, name)(
            0.1, parameters=[{"params": fc1.parameters(), "learning_rate": 0.5},
                             {"params": fc2.parameters()}], **kw), None
    return make


GROUP_OPTS = {"SGD": {}, "Momentum": {}, "Adam": {}, "AdamW": {"weight_decay": 0.02}}


@pytest.mark.parametrize("name", list(GROUP_OPTS))
@pytest.mark.parametrize("pass_params", [True, False], ids=["parameters", "default"])
def test_groups_match_paddle(ref, name, pass_params):
    want = ref["groups"][name]
    losses, params, _, main, _ = _static_train(ref, _lr_groups(name, **GROUP_OPTS[name]),
                                               pass_params=pass_params)
    np.testing.assert_allclose(losses, want["losses"], rtol=1e-5)
    for got, w in zip(params, want["params"]):
        np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)
    ops = [op.type for op in main.global_block().ops if op.attr("op_role") & 2]
    assert [t for t in ops if t in ("scale", name.lower())] == want["optimize_ops"]


def _full_groups(name):
    """Per-group learning rate, weight decay, clip and hyperparameters."""
    def make(fc1, fc2):
        extra = {"beta1": 0.8} if name in ("Adam", "AdamW") else \
            {"momentum": 0.5} if name == "Momentum" else {}
        groups = [{"params": fc1.parameters(), "learning_rate": 0.5, "weight_decay": 0.05,
                   "grad_clip": paddle.nn.ClipGradByGlobalNorm(0.05), **extra},
                  {"params": fc2.parameters()}]
        return getattr(paddle.optimizer, name)(0.1, parameters=groups,
                                               weight_decay=0.01), None
    return make


@pytest.mark.parametrize("name", ["SGD", "Momentum", "Adam", "AdamW"])
def test_groups_equal_eager(ref, name):
    """Eager groups are the truth (Paddle's static pass ignores a group's
    weight_decay; sampan applies it as eager step does)."""
    le, pe = _eager_train(ref, _full_groups(name))
    ls, ps, _, _, _ = _static_train(ref, _full_groups(name))
    np.testing.assert_allclose(ls, le, rtol=1e-5)
    for a, b in zip(ps, pe):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_params_in_no_group_stay(ref):
    def make(fc1, fc2):
        return paddle.optimizer.SGD(0.1, parameters=[{"params": fc2.parameters()}]), None
    _, params, _, _, _ = _static_train(ref, make)
    init = _arrays(ref)
    np.testing.assert_array_equal(params[0], init[0])
    np.testing.assert_array_equal(params[1], init[1])
    assert not np.allclose(params[2], init[2])


# ----------------------------------------------------------------- multi_precision
def _mp_program(name):
    paddle.enable_static()
    try:
        main, start = static.Program(), static.Program()
        with static.program_guard(main, start), paddle.utils.unique_name.guard():
            x = static.data("x", [None, 3], "float16")
            w = static.create_parameter([3], "float16", name="w")
            loss = paddle.mean(paddle.cast(x * w, "float32"))
            getattr(paddle.optimizer, name)(0.1, multi_precision=True).minimize(loss)
        return main, start, loss
    finally:
        paddle.disable_static()


@pytest.mark.parametrize("name", ["Momentum", "Adam", "AdamW"])
def test_multi_precision_program_matches_paddle(ref, name):
    want = ref["multi_precision"][name]
    main, start, _ = _mp_program(name)
    upd = [op for op in main.global_block().ops if op.type == want["type"]][0]
    got_in = {k: upd.input(k) for k in want["inputs"]}
    got_out = {k: upd.output(k) for k in want["outputs"]}
    assert got_in == want["inputs"] and got_out == want["outputs"]
    assert upd.attr("multi_precision") is True
    masters = {v.name: [str(v.dtype), v.persistable, list(v.shape)]
               for v in main.global_block().vars.values() if "fp32_master" in v.name}
    assert masters == want["vars"]
    startup = [[op.type, op.input_arg_names, op.output_arg_names]
               for op in start.global_block().ops if "master" in " ".join(op.output_arg_names)]
    assert startup == want["startup"]


@pytest.mark.parametrize("name", ["Momentum", "Adam", "AdamW", "SGD", "Lamb"])
def test_multi_precision_static_equals_eager(name):
    w0 = np.array([0.5, -1.25, 2.0], "float16")
    xs = np.random.RandomState(4).randn(4, 2, 3).astype("float16")
    # eager
    w = paddle.create_parameter([3], "float16")
    w.set_value(w0)
    opt = getattr(paddle.optimizer, name)(0.1, multi_precision=True, parameters=[w])
    for x in xs:
        loss = paddle.mean(paddle.cast(paddle.to_tensor(x) * w, "float32"))
        loss.backward()
        opt.step()
        opt.clear_grad()
    eager_w = w.numpy()
    eager_master = list(opt._master_weights.values())[0].numpy()
    # static
    main, start, loss = _mp_program(name)
    exe = static.Executor(paddle.CPUPlace())
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(start)
        scope.find_var("w").get_tensor().set(w0, paddle.CPUPlace())
        # the master is filled from w by the startup program: refill it from w0
        master = [v.name for v in main.global_block().vars.values()
                  if v.name.endswith("fp32_master_0")][0]
        scope.find_var(master).get_tensor().set(w0.astype("float32"), paddle.CPUPlace())
        for x in xs:
            exe.run(main, feed={"x": x}, fetch_list=[loss])
        got_w = np.array(scope.find_var("w").get_tensor())
        got_master = np.array(scope.find_var(master).get_tensor())
    assert got_w.dtype == np.float16 and got_master.dtype == np.float32
    np.testing.assert_allclose(got_master, eager_master, rtol=1e-6)
    np.testing.assert_array_equal(got_w, eager_w)
    np.testing.assert_array_equal(got_w, got_master.astype("float16"))


def test_master_filled_from_param_by_startup():
    main, start, _ = _mp_program("Momentum")
    exe = static.Executor(paddle.CPUPlace())
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(start)
        w = np.array(scope.find_var("w").get_tensor())
        m = np.array(scope.find_var("w_fp32_master_0").get_tensor())
    assert m.dtype == np.float32
    np.testing.assert_array_equal(m, w.astype("float32"))


# ----------------------------------------------------------------- clone + LRScheduler
def _sched_opt(fc1, fc2):
    sched = paddle.optimizer.lr.StepDecay(0.5, step_size=1, gamma=0.5)
    return paddle.optimizer.Momentum(sched), sched


def test_clone_keeps_lr_scheduler(ref):
    want = ref["clone_with_scheduler"]
    losses, params, lrs, main, prog = _static_train(ref, _sched_opt, steps=4, clone=True)
    assert prog is not main and prog.lr_scheduler is main.lr_scheduler
    assert want["has_scheduler"]
    np.testing.assert_allclose(lrs, want["lrs"])
    np.testing.assert_allclose(losses, want["losses"], rtol=1e-5)
    for got, w in zip(params, want["params"]):
        np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)
    assert getattr(main.clone(for_test=True), "lr_scheduler", None) is None
    assert not want["test_clone_has_scheduler"]


def test_clone_training_equals_original(ref):
    a = _static_train(ref, _sched_opt, steps=4, clone=True)
    b = _static_train(ref, _sched_opt, steps=4, clone=False)
    np.testing.assert_allclose(a[0], b[0], rtol=1e-6)
