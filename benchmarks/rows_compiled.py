"""CompiledProgram rows: the W2 and W3 static training steps and the W6 CNN
forward run by the Executor through ``static.CompiledProgram``, once with
every BuildStrategy pass off ("off") and once per pass on (``+name``; "all":
every fusion together), so the table shows what each graph pass buys against
the same numpy floor as the plain static rows (rows_static.py)."""
import numpy as np

import floor_numpy as fl
from rows import Row
from rows_static import mlp_static_step
from rows_inference import _cnn

FUSIONS = ("fuse_elewise_add_act_ops", "fuse_gemm_epilogue", "fuse_all_optimizer_ops")
SHORT = {"fuse_elewise_add_act_ops": "elewise_add_act", "fuse_gemm_epilogue": "gemm_epilogue",
         "fuse_all_optimizer_ops": "all_optimizer", "enable_inplace": "inplace"}


def _strategy(paddle, settings):
    bs = paddle.static.BuildStrategy()
    bs.fuse_bn_add_act_ops = False
    for k, v in settings.items():
        setattr(bs, k, v)
    return bs


def mlp_compiled_step(cfg, settings):
    return mlp_static_step(
        cfg, lambda paddle, main: paddle.static.CompiledProgram(main, _strategy(paddle, settings)))


def cnn_compiled_fwd(settings):
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
        prog = paddle.static.CompiledProgram(main, _strategy(paddle, settings))
        xn = fl.cnn_data(fl.W6_BATCH)

        def run():
            return exe.run(prog, feed={"x": xn}, fetch_list=[out], scope=scope)[0]
        got = run()
        return run, {"vs_floor": float(np.max(np.abs(got - floor.forward(xn))))}
    return make


def _variants(names):
    yield "off", {}
    for n in names:
        yield "+" + SHORT[n], {n: True}
    yield "inplace off", {"enable_inplace": False}
    yield "all", {n: True for n in names}


ROWS = (
    [Row(f"W2 compiled step {v}", "w2", "floor_step", 1.15, mlp_compiled_step(fl.W2, s),
         peer="compile step") for v, s in _variants(FUSIONS)]
    + [Row(f"W3 compiled step {v}", "w3", "floor_step", 2.0, mlp_compiled_step(fl.W3, s),
           peer="compile step") for v, s in _variants(FUSIONS)]
    + [Row(f"W6 compiled fwd {v}", "w6", "floor_fwd", 1.5, cnn_compiled_fwd(s), peer="compile fwd")
       for v, s in _variants(FUSIONS[:2])]
)
