"""Inference rows: W5 (the W2 MLP, 4 x Linear(256) with ReLU, at batch 1 and 64)
run by the inference Predictor and by ``jit.load`` after ``jit.save``, and W6 (the
small CNN, batch 32) by the Predictor.  The Predictor models are built as static
programs with the public layers, given the numpy floor's weights, saved with
``save_inference_model`` and loaded with ``inference.Config`` + ``create_predictor``;
the timed call is what a Paddle Inference user writes: ``reshape``,
``copy_from_cpu``, ``run``, ``copy_to_cpu``."""
import os
import tempfile

import numpy as np

import floor_numpy as fl
from rows import Row


def _save(paddle, build, weights):
    """Build ``build(paddle) -> (x, out, params in order)`` statically, set the
    weights, save it; returns the path prefix."""
    static = paddle.static
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, startup):
            x, out, params = build(paddle)
    finally:
        paddle.disable_static()
    scope = static.Scope()
    exe = static.Executor()
    with static.scope_guard(scope):
        exe.run(startup)
        for p, w in zip(params, weights):
            scope.var(p.name).set(np.ascontiguousarray(w, dtype=np.float32))
        prefix = os.path.join(tempfile.mkdtemp(prefix="sampan_bench_"), "model")
        static.save_inference_model(prefix, [x], [out], exe, program=main)
    return prefix


def _predictor(paddle, prefix):
    inf = paddle.inference
    cfg = inf.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    cfg.disable_gpu()
    cfg.set_cpu_math_library_num_threads(1)
    cfg.disable_glog_info()
    pred = inf.create_predictor(cfg)
    ih = pred.get_input_handle(pred.get_input_names()[0])
    oh = pred.get_output_handle(pred.get_output_names()[0])

    def run(a):
        ih.reshape(list(a.shape))
        ih.copy_from_cpu(a)
        pred.run()
        return oh.copy_to_cpu()
    return run


# ----------------------------------------------------------------- W5
def _mlp(paddle):
    cfg = fl.W2
    x = paddle.static.data("x", [None, cfg["din"]], "float32")
    h, params, d = x, [], cfg["din"]
    for i in range(cfg["depth"]):
        o = cfg["dout"] if i == cfg["depth"] - 1 else cfg["width"]
        lin = paddle.nn.Linear(d, o)
        params += [lin.weight, lin.bias]
        h = lin(h)
        if i < cfg["depth"] - 1:
            h = paddle.nn.functional.relu(h)
        d = o
    return x, h, params


_W5 = {}


def _w5_predictor(paddle):
    if "run" not in _W5:
        cfg = fl.W2
        floor = fl.MLPFloor(cfg["din"], cfg["width"], cfg["depth"], cfg["dout"])
        weights = [w for pair in zip(floor.W, floor.b) for w in pair]
        _W5["run"] = _predictor(paddle, _save(paddle, _mlp, weights))
        _W5["floor"] = floor
    return _W5["run"], _W5["floor"]


def _w5(batch):
    def make(paddle):
        run, floor = _w5_predictor(paddle)
        x, _ = fl.mlp_data(batch, fl.W2["din"], fl.W2["dout"])
        got = run(x)
        return (lambda: run(x)), {"vs_floor": float(np.max(np.abs(got - floor.forward(x))))}
    return make


_W5J = {}


def _w5_jit_loaded(paddle):
    """The W2 MLP as an eager Sequential with the floor's weights, to_static + jit.save,
    then jit.load (eval mode) -- what a Paddle user runs for inference in dygraph."""
    if "layer" not in _W5J:
        cfg = fl.W2
        floor = fl.MLPFloor(cfg["din"], cfg["width"], cfg["depth"], cfg["dout"])
        layers, d = [], cfg["din"]
        for i in range(cfg["depth"]):
            o = cfg["dout"] if i == cfg["depth"] - 1 else cfg["width"]
            lin = paddle.nn.Linear(d, o)
            lin.weight.set_value(floor.W[i])
            lin.bias.set_value(floor.b[i])
            layers.append(lin)
            if i < cfg["depth"] - 1:
                layers.append(paddle.nn.ReLU())
            d = o
        net = paddle.nn.Sequential(*layers)
        net.eval()
        spec = [paddle.static.InputSpec([None, cfg["din"]], "float32", "x")]
        prefix = os.path.join(tempfile.mkdtemp(prefix="sampan_bench_"), "mlp")
        paddle.jit.save(paddle.jit.to_static(net, input_spec=spec), prefix)
        loaded = paddle.jit.load(prefix)
        loaded.eval()
        _W5J["layer"], _W5J["floor"] = loaded, floor
    return _W5J["layer"], _W5J["floor"]


def _w5_jit(batch):
    def make(paddle):
        layer, floor = _w5_jit_loaded(paddle)
        xn, _ = fl.mlp_data(batch, fl.W2["din"], fl.W2["dout"])
        x = paddle.to_tensor(xn)

        def call():
            with paddle.no_grad():
                return layer(x)
        got = call().numpy()
        return call, {"vs_floor": float(np.max(np.abs(got - floor.forward(xn))))}
    return make


# ----------------------------------------------------------------- W6
def _cnn(paddle):
    nn = paddle.nn
    x = paddle.static.data("x", [None, 3, 32, 32], "float32")
    c1, c2 = nn.Conv2D(3, 16, 3, padding=1), nn.Conv2D(16, 32, 3, padding=1)
    lin = nn.Linear(32, 10)
    h = nn.MaxPool2D(2, 2)(nn.functional.relu(c1(x)))
    h = nn.functional.relu(c2(h))
    h = nn.Flatten()(nn.AdaptiveAvgPool2D(1)(h))
    return x, lin(h), [c1.weight, c1.bias, c2.weight, c2.bias, lin.weight, lin.bias]


def _w6(paddle):
    floor = fl.CNNFloor()
    weights = [floor.w1.transpose(3, 2, 0, 1), floor.b1, floor.w2.transpose(3, 2, 0, 1),
               floor.b2, floor.w3, floor.b3]
    run = _predictor(paddle, _save(paddle, _cnn, weights))
    x = fl.cnn_data(fl.W6_BATCH)
    got = run(x)
    return (lambda: run(x)), {"vs_floor": float(np.max(np.abs(got - floor.forward(x))))}


ROWS = [
    Row("W5 predictor b1", "w5", "floor_b1", 1.5, _w5(1), peer="script b1"),
    Row("W5 predictor b64", "w5", "floor_b64", 1.05, _w5(64), peer="script b64"),
    Row("W5 jit.load b1", "w5", "floor_b1", 2.0, _w5_jit(1), peer="script b1"),
    Row("W5 jit.load b64", "w5", "floor_b64", 1.1, _w5_jit(64), peer="script b64"),
    Row("W6 predictor fwd", "w6", "floor_fwd", 1.0, _w6, peer="compile fwd"),
]
