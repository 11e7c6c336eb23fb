"""Static-graph rows: W1 (1000-op elementwise chain) built as a Program with the
public functions in static mode and run by the Executor (plan once, run many),
against the numpy floor of the same chain; W2 and W3 (one MLP training step:
forward, ``append_backward``, ``sgd`` ops, all in one program built by
``SGD.minimize``), against the floor's hand-written step from the same initial
weights."""
import numpy as np

import floor_numpy as fl
from rows import Row


def w1_static_forward(paddle):
    xn, bn, sn = fl.w1_inputs()
    static = paddle.static
    main = static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", list(xn.shape), "float32")
            b = static.data("b", list(bn.shape), "float32")
            s = static.data("s", list(sn.shape), "float32")
            y = x
            for _ in range(fl.N_OPS // 2):
                y = y + b
                y = y * s
    finally:
        paddle.disable_static()
    exe = static.Executor()
    feed = {"x": xn, "b": bn, "s": sn}

    def run():
        return exe.run(main, feed=feed, fetch_list=[y])[0]
    got = run()
    return run, {"vs_floor": float(np.max(np.abs(got - fl.w1_forward(xn, bn, sn))))}


def _static_mlp(paddle, cfg):
    """(main, startup, loss, linear layers) of the MLP training program."""
    static = paddle.static
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", [cfg["batch"], cfg["din"]], "float32")
            y = static.data("y", [cfg["batch"], cfg["dout"]], "float32")
            h, d, linears = x, cfg["din"], []
            for i in range(cfg["depth"]):
                o = cfg["dout"] if i == cfg["depth"] - 1 else cfg["width"]
                linears.append(paddle.nn.Linear(d, o))
                h = linears[-1](h)
                if i < cfg["depth"] - 1:
                    h = paddle.nn.functional.relu(h)
                d = o
            loss = paddle.nn.functional.mse_loss(h, y)
            paddle.optimizer.SGD(learning_rate=fl.LR).minimize(loss)
    finally:
        paddle.disable_static()
    return main, startup, loss, linears


def mlp_static_step(cfg, compile=None):
    """``compile(paddle, main)``: what the Executor runs instead of ``main`` (a
    CompiledProgram, rows_compiled.py)."""
    def make(paddle):
        xn, yn = fl.mlp_data(cfg["batch"], cfg["din"], cfg["dout"])
        main, startup, loss, linears = _static_mlp(paddle, cfg)
        scope = paddle.static.Scope()
        exe = paddle.static.Executor()
        exe.run(startup, scope=scope)
        floor = fl.MLPFloor(cfg["din"], cfg["width"], cfg["depth"], cfg["dout"], lr=fl.LR)
        for l, w, b in zip(linears, floor.W, floor.b):     # the floor's initial weights
            scope.find_var(l.weight.name).set(w.copy())
            scope.find_var(l.bias.name).set(b.copy())
        feed = {"x": xn, "y": yn}
        prog = main if compile is None else compile(paddle, main)

        def step():
            return exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)[0]

        diffs = [abs(float(step()) - float(floor.train_step(xn, yn))) for _ in range(2)]
        return step, {"loss_vs_floor": max(diffs)}
    return make


ROWS = [
    Row("W1 static exe fwd", "w1", "floor_fwd", 1.5, w1_static_forward, peer="compile fwd"),
    Row("W2 static exe step", "w2", "floor_step", 1.15, mlp_static_step(fl.W2),
        peer="compile step"),
    Row("W3 static exe step", "w3", "floor_step", 2.0, mlp_static_step(fl.W3), peer="compile step"),
]
