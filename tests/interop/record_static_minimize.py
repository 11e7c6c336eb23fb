"""Records tests/optimizer/fixtures/static_minimize_paddle.json from real
PaddlePaddle 2.6.2 (``~/.cache/sampan-interop/paddle-2.6.2/bin/python
tests/interop/record_static_minimize.py``): static ``minimize`` with parameter
groups, the programs multi_precision=True builds (Paddle's CPU kernels cannot
run float16 there, so structure only), and training ``main.clone()`` with an
LRScheduler.  Read by tests/optimizer/test_static_minimize_groups.py."""
import json
import os

import numpy as np
import paddle

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "optimizer", "fixtures",
                   "static_minimize_paddle.json")
rng = np.random.RandomState(11)
W1 = rng.randn(4, 3).astype("float32")
B1 = rng.randn(3).astype("float32") * 0.1
W2 = rng.randn(3, 1).astype("float32")
B2 = rng.randn(1).astype("float32") * 0.1
X = rng.randn(6, 4).astype("float32")


def _net(x):
    fc1 = paddle.nn.Linear(4, 3)
    fc2 = paddle.nn.Linear(3, 1)
    return fc1, fc2, paddle.mean(fc2(paddle.tanh(fc1(x))))


def _init(scope, fc1, fc2):
    for p, a in zip([fc1.weight, fc1.bias, fc2.weight, fc2.bias], [W1, B1, W2, B2]):
        scope.find_var(p.name).get_tensor().set(a, paddle.CPUPlace())


def _params(scope, fc1, fc2):
    return [np.array(scope.find_var(p.name).get_tensor()).tolist()
            for p in [fc1.weight, fc1.bias, fc2.weight, fc2.bias]]


def groups(opt_name, kwargs):
    """Groups with their own learning rate (what Paddle's static pass honours),
    minimize given the parameter list."""
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [None, 4], "float32")
        fc1, fc2, loss = _net(x)
        opt = getattr(paddle.optimizer, opt_name)(
            0.1, parameters=[{"params": fc1.parameters(), "learning_rate": 0.5},
                             {"params": fc2.parameters()}], **kwargs)
        opt.minimize(loss, parameters=fc1.parameters() + fc2.parameters())
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    losses = []
    with paddle.static.scope_guard(scope):
        exe.run(start)
        _init(scope, fc1, fc2)
        for _ in range(3):
            losses.append(float(exe.run(main, feed={"x": X}, fetch_list=[loss])[0]))
        params = _params(scope, fc1, fc2)
    ops = [op.type for op in main.global_block().ops if op.attr("op_role") & 2]
    return {"losses": losses, "params": params, "optimize_ops": ops}


def groups_without_parameters():
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [None, 4], "float32")
        fc1, fc2, loss = _net(x)
        opt = paddle.optimizer.SGD(0.1, parameters=[{"params": fc1.parameters()}])
        try:
            opt.minimize(loss)
            return "ok"
        except Exception as e:
            return type(e).__name__


def multi_precision(opt_name):
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start), paddle.utils.unique_name.guard():
        x = paddle.static.data("x", [None, 3], "float16")
        w = paddle.static.create_parameter([3], "float16", name="w")
        loss = paddle.mean(paddle.cast(x * w, "float32"))
        getattr(paddle.optimizer, opt_name)(0.1, multi_precision=True).minimize(loss)
    upd = [op for op in main.global_block().ops if op.type in ("momentum", "adam", "adamw")][0]
    masters = {v.name: [str(v.dtype), v.persistable, list(v.shape)]
               for v in main.global_block().vars.values() if "fp32_master" in v.name}
    return {"type": upd.type, "inputs": {k: upd.input(k) for k in upd.input_names},
            "outputs": {k: upd.output(k) for k in upd.output_names},
            "multi_precision": upd.attr("multi_precision"), "vars": masters,
            "startup": [[op.type, op.input_arg_names, op.output_arg_names]
                        for op in start.global_block().ops if "master" in
                        " ".join(op.output_arg_names)]}


def clone_with_scheduler():
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [None, 4], "float32")
        fc1, fc2, loss = _net(x)
        sched = paddle.optimizer.lr.StepDecay(0.5, step_size=1, gamma=0.5)
        paddle.optimizer.Momentum(sched).minimize(loss)
    train = main.clone()
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    losses, lrs = [], []
    with paddle.static.scope_guard(scope):
        exe.run(start)
        _init(scope, fc1, fc2)
        for _ in range(4):
            losses.append(float(exe.run(train, feed={"x": X}, fetch_list=[loss.name])[0]))
            lrs.append(float(np.array(scope.find_var(sched._var_name).get_tensor())))
            sched.step()
        params = _params(scope, fc1, fc2)
    return {"losses": losses, "lrs": lrs, "params": params,
            "has_scheduler": hasattr(train, "lr_scheduler"),
            "test_clone_has_scheduler": hasattr(main.clone(for_test=True), "lr_scheduler")}


def main():
    paddle.enable_static()
    out = {"W1": W1.tolist(), "B1": B1.tolist(), "W2": W2.tolist(), "B2": B2.tolist(),
           "X": X.tolist(),
           "groups": {"SGD": groups("SGD", {}), "Momentum": groups("Momentum", {}),
                      "Adam": groups("Adam", {}),
                      "AdamW": groups("AdamW", {"weight_decay": 0.02})},
           "groups_without_parameters": groups_without_parameters(),
           "multi_precision": {n: multi_precision(n) for n in ("Momentum", "Adam", "AdamW")},
           "clone_with_scheduler": clone_with_scheduler()}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
