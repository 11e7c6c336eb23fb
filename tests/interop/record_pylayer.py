"""Records tests/jit/fixtures/pylayer_paddle.json from real PaddlePaddle 2.6.2
(run with the side venv's python: ``~/.cache/sampan-interop/paddle-2.6.2/bin/python
tests/interop/record_pylayer.py``): what ``static.nn.static_pylayer`` and a
PyLayer under ``to_static(full_graph=True)`` build, and their numbers; and
``pylayer_net.pdmodel``/``.pdiparams``, that net saved by Paddle's jit.save.
Read by tests/static/test_static_pylayer.py and tests/jit/test_pylayer_to_static.py."""
import json
import os

import numpy as np
import paddle

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "jit", "fixtures",
                   "pylayer_paddle.json")
rng = np.random.RandomState(3)
W = rng.randn(4, 3).astype("float32")
B = rng.randn(3).astype("float32") * 0.1
X = rng.randn(5, 4).astype("float32")


def blocks_of(program):
    out = []
    for b in program.blocks:
        ops = []
        for op in b.ops:
            d = {"type": op.type, "inputs": {k: op.input(k) for k in op.input_names},
                 "outputs": {k: op.output(k) for k in op.output_names}}
            if op.type == "pylayer":
                d["blocks"] = list(op._blocks_attr_ids("blocks"))
            if op.type == "pylayer_grad":
                d["backward_block"] = op._block_attr_id("backward_block")
            ops.append(d)
        out.append({"idx": b.idx, "parent": b.parent_idx,
                    "forward_block_idx": b.forward_block_idx, "ops": ops,
                    "roles": [op.attr("op_role") for op in b.ops]})
    return out


def static_case():
    paddle.enable_static()
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        data = paddle.static.data(name="X", shape=[None, 5], dtype="float32")
        data.stop_gradient = False
        ret = paddle.static.nn.static_pylayer(lambda x: paddle.exp(x), [data],
                                              lambda dy: 2 * paddle.exp(dy))
        before = blocks_of(main)
        grad = paddle.static.gradients([ret], data)[0]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(start)
    x = np.array([[1.0, 2.0, 3.0, 4.0, 5.0], [0.5, -1.0, 0.0, 0.25, 1.5]], "float32")
    g, y = exe.run(main, feed={"X": x}, fetch_list=[grad, ret])
    paddle.disable_static()
    return {"x": x.tolist(), "grad": g.tolist(), "y": y.tolist(), "program": before,
            "program_with_grad": blocks_of(main)}


def saved_program_case():
    """A training Program whose backward block reads a saved forward-block
    tensor (as dy2static's StaticPyLayerContext leaves it: undeclared),
    serialized for sampan to load and run."""
    import base64
    import functools
    from paddle.jit.dy2static.py_layer import StaticPyLayerContext

    def fwd(ctx, v):
        t = paddle.tanh(v)
        ctx.save_for_backward(t)
        return t * 2.0

    def bwd(ctx, d):
        t, = ctx.saved_tensor()
        return d * t * 10.0

    paddle.enable_static()
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [3], "float32")
        x.stop_gradient = False
        ctx = StaticPyLayerContext()
        y = paddle.static.nn.static_pylayer(functools.partial(fwd, ctx), [x],
                                            functools.partial(bwd, ctx))
        g = paddle.static.gradients([y], [x])[0]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(start)
    xv = np.array([0.1, -0.5, 2.0], "float32")
    yv, gv = exe.run(main, feed={"x": xv}, fetch_list=[y, g])
    paddle.disable_static()
    return {"program": base64.b64encode(main.desc.serialize_to_string()).decode(),
            "x": xv.tolist(), "y": yv.tolist(), "grad": gv.tolist(), "fetch": [y.name, g.name]}


class STE(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x, scale):
        y = paddle.round(x * scale) / scale
        ctx.save_for_backward(x)
        ctx.scale = scale
        return y

    @staticmethod
    def backward(ctx, dy):
        x, = ctx.saved_tensor()
        return dy * paddle.clip(1.0 - x * x, 0.0, 1.0) * 0.5


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)

    def forward(self, x):
        h = self.fc(x)
        y = STE.apply(h, 4.0)
        return (y * y).mean()


def train(static):
    net = Net()
    net.fc.weight.set_value(W)
    net.fc.bias.set_value(B)
    run = paddle.jit.to_static(net, full_graph=True) if static else net
    opt = paddle.optimizer.SGD(0.5, parameters=net.parameters())
    losses = []
    for _ in range(3):
        loss = run(paddle.to_tensor(X))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    res = {"losses": losses, "w": net.fc.weight.numpy().tolist(),
           "b": net.fc.bias.numpy().tolist()}
    if static:
        res["program"] = blocks_of(run.forward.concrete_program.main_program)
        # a model Paddle saves with a pylayer op (kept beside this file)
        prefix = os.path.join(os.path.dirname(OUT), "pylayer_net")
        paddle.jit.save(run, prefix, input_spec=[paddle.static.InputSpec([None, 4], "float32")])
        res["saved_out"] = float(paddle.jit.load(prefix)(paddle.to_tensor(X)))
    return res


def main():
    out = {"static_pylayer": static_case(), "saved_program": saved_program_case(),
           "train_eager": train(False),
           "train_to_static": train(True), "W": W.tolist(), "B": B.tolist(), "X": X.tolist()}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
