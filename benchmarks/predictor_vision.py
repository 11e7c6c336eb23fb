"""sampan's Predictor against Paddle Inference on every ``paddle.vision.models``
constructor exported by real PaddlePaddle 2.6.2 (issue 23).

    python benchmarks/predictor_vision.py                      # every model, b1 and b16
    python benchmarks/predictor_vision.py --models resnet18,mobilenet_v2 --batches 1
    python benchmarks/predictor_vision.py --no-ir              # both engines without passes

1. Paddle's side (its interop venv, ``~/.cache/sampan-interop/paddle-2.6.2``, made
   by tests/interop): each constructor built with ``paddle.seed(2024)`` weights,
   ``eval()``, ``jit.save`` with ``InputSpec([None, 3, S, S])`` into a cache outside
   the repository (``$SAMPAN_BENCH_CACHE`` or ``~/.cache/sampan-bench/vision-2.6.2``;
   kept between runs), then timed by Paddle Inference (IR optimisation on,
   1 math-library thread, memory optimisation on) on a seeded normal input per
   batch size; Paddle's outputs are kept for the comparison.
2. sampan's side, in this process (this checkout, 1 thread): the same files by
   ``sampan.inference`` (its passes on), the same inputs, outputs compared with
   Paddle's (max abs difference over the output's scale).

Times are medians of ``--repeat`` runs after one warm-up; Paddle runs in its own
interpreter and the two engines' runs alternate, so a shared machine's load
falls on both: read the ratio column.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"           # before numpy loads

import numpy as np  # noqa: E402

PADDLE_PY = os.path.join(os.environ.get("SAMPAN_INTEROP_CACHE",
                                        os.path.expanduser("~/.cache/sampan-interop")),
                         "paddle-2.6.2", "bin", "python")
CACHE = os.environ.get("SAMPAN_BENCH_CACHE",
                       os.path.expanduser("~/.cache/sampan-bench/vision-2.6.2"))
SIZES = {"inception_v3": 299}      # the others take 224 x 224

_PADDLE_SIDE = r'''
import json, os, sys, time
os.environ.setdefault("GLOG_minloglevel", "3")
import numpy as np
import paddle
import paddle.inference as pi
cache, ir, sizes = sys.argv[1], sys.argv[2] == "1", json.loads(sys.argv[3])
preds = {}


def prepare(name):
    d = os.path.join(cache, name)
    prefix = os.path.join(d, "model")
    size = sizes.get(name, 224)
    if not os.path.exists(prefix + ".pdmodel"):
        os.makedirs(d, exist_ok=True)
        paddle.seed(2024)
        net = getattr(paddle.vision.models, name)()
        net.eval()
        paddle.jit.save(net, prefix, input_spec=[
            paddle.static.InputSpec([None, 3, size, size], "float32", "x")])
    cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    cfg.disable_gpu()
    cfg.set_cpu_math_library_num_threads(1)
    cfg.switch_ir_optim(ir)
    cfg.enable_memory_optim()
    preds[name] = pi.create_predictor(cfg)


def run(name, b):
    pred = preds[name]
    size = sizes.get(name, 224)
    path = os.path.join(cache, name, f"input_b{b}.npy")
    if not os.path.exists(path):
        np.save(path, np.random.RandomState(b).standard_normal(
            [b, 3, size, size]).astype("float32"))
    x = np.load(path)
    h = pred.get_input_handle(pred.get_input_names()[0])
    o = pred.get_output_handle(pred.get_output_names()[0])
    h.reshape(x.shape)
    t = time.perf_counter()
    h.copy_from_cpu(x)
    pred.run()
    y = o.copy_to_cpu()
    t = time.perf_counter() - t
    np.save(os.path.join(cache, name, f"paddle_out_b{b}.npy"), y)
    return t


for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == "prepare":
        prepare(cmd[1])
        print("ok", flush=True)
    elif cmd[0] == "run":
        print(run(cmd[1], int(cmd[2])), flush=True)
    elif cmd[0] == "drop":         # one model at a time: 38 predictors outgrow 24 GB
        preds.pop(cmd[1], None)
        print("ok", flush=True)
'''


class _Paddle:
    # Paddle Inference in its own interpreter, answering one command per line,
    # so the two engines' runs alternate (a shared machine's load hits both)
    def __init__(self, ir):
        if not os.path.exists(PADDLE_PY):
            sys.exit(f"real Paddle's side venv is missing ({PADDLE_PY}); run tests/interop "
                     f"once (SAMPAN_INTEROP=1) to create it")
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
        self.proc = subprocess.Popen([PADDLE_PY, "-c", _PADDLE_SIDE, CACHE, "1" if ir else "0",
                                      json.dumps(SIZES)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)

    def ask(self, *words):
        self.proc.stdin.write(" ".join(map(str, words)) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            sys.exit(f"Paddle's side stopped (exit {self.proc.wait()})")
        return line.strip()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def _checkout():
    """This checkout imported as ``sampan``."""
    import importlib.util
    if "sampan" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "sampan", os.path.join(ROOT, "__init__.py"), submodule_search_locations=[ROOT])
        mod = importlib.util.module_from_spec(spec)
        sys.modules["sampan"] = mod
        spec.loader.exec_module(mod)
    return sys.modules["sampan"]


def _models(arg):
    if arg:
        return arg.split(",")
    return [n for n in _checkout().vision.models.__all__ if n[0].islower()]


def _compare(paddle, names, batches, repeat, ir):
    """Rows (name, batch, paddle s, sampan s, relative max diff), or (name, None,
    reason) for a model sampan does not load; the runs alternate."""
    side = _Paddle(ir)
    rows = []
    try:
        for name in names:
            side.ask("prepare", name)
            prefix = os.path.join(CACHE, name, "model")
            cfg = paddle.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
            cfg.switch_ir_optim(ir)
            cfg.set_cpu_math_library_num_threads(1)
            try:
                pred = paddle.inference.create_predictor(cfg)
            except Exception as e:              # a model sampan cannot load: say so
                rows.append((name, None, f"{type(e).__name__}: {e}"[:80]))
                continue
            for b in batches:
                side.ask("run", name, b)                  # warm-up (and the input)
                x = np.load(os.path.join(CACHE, name, f"input_b{b}.npy"))
                got = pred.run([x])[0]
                pt, st = [], []
                for _ in range(repeat):
                    pt.append(float(side.ask("run", name, b)))
                    t = time.perf_counter()
                    pred.run([x])
                    st.append(time.perf_counter() - t)
                want = np.load(os.path.join(CACHE, name, f"paddle_out_b{b}.npy"))
                diff = float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))
                rows.append((name, b, float(np.median(pt)), float(np.median(st)), diff))
                print("  %-22s b%-3d paddle %8.2f ms  sampan %8.2f ms  ratio %.2f" % (
                    name, b, rows[-1][2] * 1e3, rows[-1][3] * 1e3, rows[-1][3] / rows[-1][2]),
                    file=sys.stderr, flush=True)
            del pred
            side.ask("drop", name)
    finally:
        side.close()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="")
    ap.add_argument("--batches", default="1,16")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-ir", action="store_true", help="both engines with passes off")
    args = ap.parse_args()
    names = _models(args.models)
    batches = [int(b) for b in args.batches.split(",")]
    ir = not args.no_ir
    rows = _compare(_checkout(), names, batches, args.repeat, ir)
    from sampan.kernels.blas_threads import blas_core
    print(f"\nsampan Predictor vs Paddle Inference 2.6.2, IR passes {'on' if ir else 'off'}, "
          f"1 thread, median of {args.repeat} alternating runs (ms); ratio = sampan / Paddle; "
          f"sampan's OpenBLAS kernels: {blas_core()}")
    print(f"{'model':<22}{'batch':>6}{'paddle':>11}{'sampan':>11}{'ratio':>8}{'max diff':>11}")
    ratios = []
    for row in rows:
        if row[1] is None:
            print(f"{row[0]:<22}{'':>6}  not loaded: {row[2]}")
            continue
        name, b, pt, st, diff = row
        ratios.append(st / pt)
        print(f"{name:<22}{b:>6}{pt * 1e3:>11.2f}{st * 1e3:>11.2f}{st / pt:>8.2f}{diff:>11.1e}")
    if ratios:
        print(f"\n{len(ratios)} model/batch rows: sampan at or below Paddle on "
              f"{sum(r <= 1.0 for r in ratios)}; median ratio {np.median(ratios):.2f}, "
              f"max {max(ratios):.2f}")


if __name__ == "__main__":
    main()
