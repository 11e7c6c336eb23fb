"""The cost of model manifests (save_load/manifest.py), run as
``python benchmarks/manifest_cost.py``: jit.load and create_predictor of an MLP with and
without its ``.sampan.json`` sidecar, jit.save with and without writing it, and
``jit.save(verify=True)``.  Best of n, page-cached files."""
import os
import tempfile
import time

import sampan as paddle
from sampan import inference
from sampan.save_load import manifest as M

def mlp(width, depth=4):
    layers = []
    for _ in range(depth):
        layers += [paddle.nn.Linear(width, width), paddle.nn.ReLU()]
    return paddle.nn.Sequential(*layers)

def best(fn, n):
    ts = []
    for _ in range(n):
        t = time.perf_counter(); fn(); ts.append(time.perf_counter() - t)
    return min(ts) * 1e3

for width, n in ((256, 30), (2048, 5)):
    net = mlp(width)
    spec = [paddle.static.InputSpec([None, width], "float32", "x")]
    d = tempfile.mkdtemp(); p = os.path.join(d, "m")
    real = M.ManifestBuilder.wrap
    M.ManifestBuilder.wrap = lambda self, files: files
    save_off = best(lambda: paddle.jit.save(net, p, input_spec=spec), n)
    M.ManifestBuilder.wrap = real
    save_on = best(lambda: paddle.jit.save(net, p, input_spec=spec), n)
    save_ver = best(lambda: paddle.jit.save(net, p, input_spec=spec, verify=True), n)
    cfg = lambda: inference.Config(p + ".pdmodel", p + ".pdiparams")
    load_on = best(lambda: paddle.jit.load(p), n)
    pred_on = best(lambda: inference.create_predictor(cfg()), n)
    os.rename(p + M.SUFFIX, p + ".off")
    load_off = best(lambda: paddle.jit.load(p), n)
    pred_off = best(lambda: inference.create_predictor(cfg()), n)
    mb = os.path.getsize(p + ".pdiparams") / 2**20
    print(f"MLP 4x{width} ({mb:.1f} MiB params), best of {n} (ms):")
    print(f"  jit.load        off {load_off:8.2f}  on {load_on:8.2f}  ratio {load_on/load_off:.3f}")
    print(f"  create_predictor off {pred_off:8.2f}  on {pred_on:8.2f}  ratio {pred_on/pred_off:.3f}")
    print(f"  jit.save        off {save_off:8.2f}  on {save_on:8.2f}  ratio {save_on/save_off:.3f}")
    print(f"  jit.save verify=True {save_ver:8.2f}  ratio to plain save {save_ver/save_on:.3f}")
