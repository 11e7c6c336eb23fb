"""Fusion and convolution rows (issue 18): what the elementwise fusion pass
(program/passes/fuse_elementwise.py, numba) and the stride-1 convolution
buy, each against the numpy floor of the same workload.

- W1 (1000-op chain on [4]) run by a ``CompiledProgram`` with
  ``BuildStrategy.enable_auto_fusion`` and by ``to_static(build_strategy=...)``:
  the chain is one compiled kernel.
- W6 (small CNN forward, batch 32) by the plain Executor ("static exe") and by
  a CompiledProgram with fusion (each conv's bias add and relu fused).
- TFB: a transformer block forward (batch 8, 64 tokens, width 128) written
  with hand-written LayerNorm, tanh-GELU and softmax chains (as GPT-style code
  writes them), unfused and fused; its floor is the same block in plain numpy
  (``tfb_floor`` below, registered as workload "tfb").
Without numba the fused rows run the unfused program (the pass rewrites
nothing), so their ratios show that too.
"""
import math

import numpy as np

import floor_numpy as fl
from rows import Row
from rows_inference import _cnn

F32 = np.float32
TFB = dict(batch=8, seq=64, d=128, ff=512)


# ----------------------------------------------------------------- TFB floor
class TFBFloor:
    """x + attn(ln1(x)); x + mlp(ln2(x)) in numpy, float32 (same formulas as
    the sampan model below)."""

    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        d, ff = TFB["d"], TFB["ff"]
        self.w = {"qkv": rng.standard_normal((d, 3 * d)) / math.sqrt(d),
                  "bqkv": rng.standard_normal(3 * d) * 0.02,
                  "proj": rng.standard_normal((d, d)) / math.sqrt(d),
                  "bproj": rng.standard_normal(d) * 0.02,
                  "fc1": rng.standard_normal((d, ff)) / math.sqrt(d),
                  "b1": rng.standard_normal(ff) * 0.02,
                  "fc2": rng.standard_normal((ff, d)) / math.sqrt(ff),
                  "b2": rng.standard_normal(d) * 0.02,
                  "g1": 1 + rng.standard_normal(d) * 0.1, "be1": rng.standard_normal(d) * 0.1,
                  "g2": 1 + rng.standard_normal(d) * 0.1, "be2": rng.standard_normal(d) * 0.1}
        self.w = {k: v.astype(F32) for k, v in self.w.items()}

    @staticmethod
    def ln(x, g, b):
        m = x.mean(-1, keepdims=True)
        c = x - m
        v = (c * c).mean(-1, keepdims=True)
        return c / np.sqrt(v + F32(1e-5)) * g + b

    @staticmethod
    def gelu(x):
        return F32(0.5) * x * (F32(1) + np.tanh(F32(0.7978845608) * (x + F32(0.044715) * x * x * x)))

    def forward(self, x):
        w, d = self.w, TFB["d"]
        h = self.ln(x, w["g1"], w["be1"])
        qkv = h @ w["qkv"] + w["bqkv"]
        q, k, v = qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:]
        s = (q @ k.transpose(0, 2, 1)) * F32(1 / math.sqrt(d))
        e = np.exp(s - s.max(-1, keepdims=True))
        a = e / e.sum(-1, keepdims=True)
        x = x + ((a @ v) @ w["proj"] + w["bproj"])
        h = self.ln(x, w["g2"], w["be2"])
        return x + (self.gelu(h @ w["fc1"] + w["b1"]) @ w["fc2"] + w["b2"])


def tfb_data(seed=3):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((TFB["batch"], TFB["seq"], TFB["d"])).astype(F32)


# the TFB workload joins the floors of floor_numpy (unit: ms per forward)
_floor_cases = fl.floor_cases


def _cases(workload):
    if workload == "tfb":
        m, x = TFBFloor(), tfb_data()
        return {"floor_fwd": lambda: m.forward(x)}
    return _floor_cases(workload)


if "tfb" not in fl.UNITS:
    fl.floor_cases = _cases
    fl.UNITS["tfb"] = ("ms/call", 1e3)


# ----------------------------------------------------------------- programs
def _strategy(paddle, fuse):
    bs = paddle.static.BuildStrategy()
    bs.fuse_bn_add_act_ops = False
    bs.enable_auto_fusion = fuse
    return bs


def _tfb_program(paddle, floor):
    """The block built statically with the public functions, the floor's weights."""
    d = TFB["d"]
    w = {k: paddle.to_tensor(v) for k, v in floor.w.items()}

    def ln(x, g, b):
        m = paddle.mean(x, axis=-1, keepdim=True)
        c = x - m
        v = paddle.mean(c * c, axis=-1, keepdim=True)
        return c / paddle.sqrt(v + 1e-5) * g + b

    def gelu(x):
        return 0.5 * x * (1.0 + paddle.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))

    main = paddle.static.Program()
    paddle.enable_static()
    try:
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data("x", [TFB["batch"], TFB["seq"], d], "float32")
            h = ln(x, w["g1"], w["be1"])
            qkv = paddle.matmul(h, w["qkv"]) + w["bqkv"]
            q, k, v = paddle.split(qkv, 3, axis=-1)
            s = paddle.matmul(q, k, transpose_y=True) * (1 / math.sqrt(d))
            e = paddle.exp(s - paddle.max(s, axis=-1, keepdim=True))
            a = e / paddle.sum(e, axis=-1, keepdim=True)
            y = x + (paddle.matmul(paddle.matmul(a, v), w["proj"]) + w["bproj"])
            h = ln(y, w["g2"], w["be2"])
            out = y + (paddle.matmul(gelu(paddle.matmul(h, w["fc1"]) + w["b1"]), w["fc2"])
                       + w["b2"])
    finally:
        paddle.disable_static()
    return main, out


def tfb_fwd(fuse):
    def make(paddle):
        floor = TFBFloor()
        main, out = _tfb_program(paddle, floor)
        exe = paddle.static.Executor()
        prog = paddle.static.CompiledProgram(main, _strategy(paddle, True)) if fuse else main
        xn = tfb_data()

        def run():
            return exe.run(prog, feed={"x": xn}, fetch_list=[out])[0]
        got = run()
        return run, {"vs_floor": float(np.max(np.abs(got - floor.forward(xn))))}
    return make


def w1_compiled_fused(paddle):
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
    prog = static.CompiledProgram(main, _strategy(paddle, True))
    feed = {"x": xn, "b": bn, "s": sn}

    def run():
        return exe.run(prog, feed=feed, fetch_list=[y])[0]
    got = run()
    return run, {"vs_floor": float(np.max(np.abs(got - fl.w1_forward(xn, bn, sn))))}


def w1_to_static_fused(paddle):
    xn, bn, sn = fl.w1_inputs()
    x, b, s = (paddle.to_tensor(a) for a in (xn, bn, sn))

    def chain(x, b, s):
        for _ in range(fl.N_OPS // 2):
            x = x + b
            x = x * s
        return x
    sf = paddle.jit.to_static(chain, build_strategy=_strategy(paddle, True), full_graph=True)
    got = sf(x, b, s).numpy()
    return (lambda: sf(x, b, s)), {"vs_floor": float(np.max(np.abs(got - fl.w1_forward(
        xn, bn, sn))))}


def w6_static(fuse):
    def make(paddle):
        floor = fl.CNNFloor()
        weights = [floor.w1.transpose(3, 2, 0, 1), floor.b1, floor.w2.transpose(3, 2, 0, 1),
                   floor.b2, floor.w3, floor.b3]
        main, startup = paddle.static.Program(), paddle.static.Program()
        paddle.enable_static()
        try:
            with paddle.static.program_guard(main, startup):
                x, out, params = _cnn(paddle)
        finally:
            paddle.disable_static()
        scope = paddle.static.Scope()
        exe = paddle.static.Executor()
        exe.run(startup, scope=scope)
        for p, w in zip(params, weights):
            scope.find_var(p.name).set(np.ascontiguousarray(w))
        prog = paddle.static.CompiledProgram(main, _strategy(paddle, True)) if fuse else main
        xn = fl.cnn_data(fl.W6_BATCH)

        def run():
            return exe.run(prog, feed={"x": xn}, fetch_list=[out], scope=scope)[0]
        got = run()
        return run, {"vs_floor": float(np.max(np.abs(got - floor.forward(xn))))}
    return make


ROWS = [
    Row("W1 compiled fused fwd", "w1", "floor_fwd", 0.2, w1_compiled_fused, peer="compile fwd"),
    Row("W1 to_static fused fwd", "w1", "floor_fwd", 0.2, w1_to_static_fused, peer="compile fwd"),
    Row("W6 static exe fwd", "w6", "floor_fwd", 0.4, w6_static(False), peer="compile fwd"),
    Row("W6 compiled fused fwd", "w6", "floor_fwd", 0.4, w6_static(True), peer="compile fwd"),
    Row("TFB static exe fwd", "tfb", "floor_fwd", 1.5, tfb_fwd(False), peer="eager fwd"),
    Row("TFB compiled fused fwd", "tfb", "floor_fwd", 1.0, tfb_fwd(True), peer="compile fwd"),
]
