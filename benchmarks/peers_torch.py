"""PyTorch on the benchmark workloads, timed by the same harness against the same
numpy floors as sampan's rows: the peer column of ``run.py``.

torch is a benchmark-only optional dependency (sampan never imports it): this
script runs in a Python that has it, in its own process, and prints one JSON
line per measurement; ``run.py --peer-python PY`` starts it and shows each
row's peer beside the row.

    python -m venv ~/.cache/sampan-bench/torch && \\
        ~/.cache/sampan-bench/torch/bin/pip install torch numpy
    ~/.cache/sampan-bench/torch/bin/python benchmarks/peers_torch.py --workloads w1,w6

Variants, each a ratio to the floor of its workload timed in this process,
round-robin with it (``harness.interleaved``):

- w1: ``eager fwd``, ``eager fwd+bwd`` (``y.sum().backward()``), ``compile fwd``
  (``torch.compile`` of the chain: inductor fuses it into one kernel);
- w2, w3: ``eager step`` (MSE, SGD), ``compile step`` (the model compiled, the
  optimizer eager);
- w4b: ``eager call``, ``script call`` (TorchScript of the function);
- w5: ``eager b1``/``b64`` (inference mode), ``script b1``/``b64`` (frozen
  TorchScript);
- w6: ``eager fwd``, ``compile fwd``;
- tfb: ``eager fwd``, ``compile fwd`` (the transformer block of rows_fusion.py).

Every model takes the floor's weights, and every variant reports the largest
difference from the floor's result (W2/W3: the first two losses), as sampan's
rows do.  ``--no-compile`` skips the ``torch.compile`` variants (their first
call compiles for tens of seconds).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PERF_DIR = os.environ.get("SAMPAN_PERF_DIR",
                          os.path.join(os.path.dirname(os.path.dirname(HERE)), "shared", "perf"))
sys.path[:0] = [HERE, PERF_DIR]

import harness  # noqa: E402  (first: pins math-library threads before numpy and torch load)
import argparse  # noqa: E402
import contextlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import floor_numpy as fl  # noqa: E402
import rows_fusion as tfb  # noqa: E402  (registers the "tfb" floor)
from rows_eager import _chain as chain  # noqa: E402  (W1's chain, written on operators)

torch.set_num_threads(harness.THREADS)
F = torch.nn.functional


def _maxdiff(a, b):
    a = a.detach().numpy() if isinstance(a, torch.Tensor) else np.asarray(a)
    return float(np.max(np.abs(a.astype(np.float64) - np.asarray(b, np.float64))))


def _t(a, grad=False):
    return torch.tensor(np.ascontiguousarray(a), requires_grad=grad)


# ----------------------------------------------------------------- W1
def w1(compile_):
    xn, bn, sn = fl.w1_inputs()
    x, b, s = _t(xn), _t(bn), _t(sn)
    xg = _t(xn, grad=True)

    def fwd_bwd():
        chain(xg, b, s).sum().backward()
        g = xg.grad
        xg.grad = None
        return g

    out = {"eager fwd": ("floor_fwd", lambda: chain(x, b, s),
                         _maxdiff(chain(x, b, s), fl.w1_forward(xn, bn, sn))),
           "eager fwd+bwd": ("floor_fwd_bwd", fwd_bwd,
                             _maxdiff(fwd_bwd(), fl.w1_forward_backward(xn, bn, sn)[1]))}
    if compile_:
        fused = torch.compile(chain, fullgraph=True)
        out["compile fwd"] = ("floor_fwd", lambda: fused(x, b, s),
                              _maxdiff(fused(x, b, s), fl.w1_forward(xn, bn, sn)))
    return out


# ----------------------------------------------------------------- W2 / W3 / W5
def mlp(floor):
    layers = []
    for i, (w, b) in enumerate(zip(floor.W, floor.b)):
        lin = torch.nn.Linear(*w.shape)
        with torch.no_grad():
            lin.weight.copy_(_t(w.T))
            lin.bias.copy_(_t(b))
        layers.append(lin)
        if i < len(floor.W) - 1:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def mlp_step(cfg):
    def make(compile_):
        xn, yn = fl.mlp_data(cfg["batch"], cfg["din"], cfg["dout"])
        out = {}
        for name, wrap in (("eager step", None), ("compile step", torch.compile)):
            if wrap is not None and not compile_:
                continue
            floor = fl.MLPFloor(cfg["din"], cfg["width"], cfg["depth"], cfg["dout"], lr=fl.LR)
            model = mlp(floor)
            run = model if wrap is None else wrap(model)
            opt = torch.optim.SGD(model.parameters(), lr=fl.LR)
            x, y = _t(xn), _t(yn)

            def step(run=run, opt=opt, x=x, y=y):
                loss = F.mse_loss(run(x), y)
                loss.backward()
                opt.step()
                opt.zero_grad(set_to_none=True)
                return loss

            diff = max(abs(float(step().detach()) - float(floor.train_step(xn, yn)))
                       for _ in range(2))
            out[name] = ("floor_step", step, diff)
        return out
    return make


def w5(compile_):
    cfg = fl.W2
    floor = fl.MLPFloor(cfg["din"], cfg["width"], cfg["depth"], cfg["dout"])
    model = mlp(floor).eval()
    frozen = torch.jit.freeze(torch.jit.script(model))
    out = {}
    for batch in (1, 64):
        xn, _ = fl.mlp_data(batch, cfg["din"], cfg["dout"])
        x = _t(xn)
        want = floor.forward(xn)
        for name, m in (("eager", model), ("script", frozen)):
            def call(m=m, x=x):
                with torch.inference_mode():
                    return m(x)
            out[f"{name} b{batch}"] = (f"floor_b{batch}", call, _maxdiff(call(), want))
    return out


# ----------------------------------------------------------------- W4B
def cf(x, n):
    if x.mean() > 0:
        y = x * 2.0
    else:
        y = x - 1.0
    i = torch.zeros(1, dtype=torch.int64)
    while bool(i < n):
        y = torch.tanh(y) + 1.0
        i = i + 1
    return y


def w4b(compile_):
    xn = fl.w1_inputs()[0].repeat(16).reshape(8, 8)
    x, n = _t(xn), torch.tensor([fl.CF_N], dtype=torch.int64)
    scripted = torch.jit.script(cf)
    want = fl.cf_floor(xn, fl.CF_N)
    return {"eager call": ("floor_call", lambda: cf(x, n), _maxdiff(cf(x, n), want)),
            "script call": ("floor_call", lambda: scripted(x, n), _maxdiff(scripted(x, n), want))}


# ----------------------------------------------------------------- W6, TFB
def cnn():
    floor = fl.CNNFloor()
    m = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2, 2),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(32, 10))
    with torch.no_grad():
        for layer, w, b in ((m[0], floor.w1, floor.b1), (m[3], floor.w2, floor.b2)):
            layer.weight.copy_(_t(w.transpose(3, 2, 0, 1)))      # [kh,kw,cin,cout] -> OIHW
            layer.bias.copy_(_t(b))
        m[7].weight.copy_(_t(floor.w3.T))
        m[7].bias.copy_(_t(floor.b3))
    return floor, m.eval()


class Block(torch.nn.Module):
    """rows_fusion.TFBFloor's block in torch (the same formulas and weights)."""

    def __init__(self, floor):
        super().__init__()
        self.w = {k: _t(v) for k, v in floor.w.items()}

    @staticmethod
    def ln(x, g, b):
        c = x - x.mean(-1, keepdim=True)
        return c / torch.sqrt((c * c).mean(-1, keepdim=True) + 1e-5) * g + b

    def forward(self, x):
        w, d = self.w, tfb.TFB["d"]
        h = self.ln(x, w["g1"], w["be1"])
        q, k, v = (h @ w["qkv"] + w["bqkv"]).split(d, dim=-1)
        a = torch.softmax((q @ k.transpose(1, 2)) * (1 / d ** 0.5), -1)
        x = x + ((a @ v) @ w["proj"] + w["bproj"])
        h = self.ln(x, w["g2"], w["be2"])
        f = h @ w["fc1"] + w["b1"]
        f = 0.5 * f * (1 + torch.tanh(0.7978845608 * (f + 0.044715 * f * f * f)))
        return x + (f @ w["fc2"] + w["b2"])


def _forward_variants(floor_fwd, model, xn, compile_):
    x = _t(xn)
    out = {}
    for name, m in (("eager fwd", model), ("compile fwd", None)):
        if m is None:
            if not compile_:
                continue
            m = torch.compile(model)

        def call(m=m):
            with torch.inference_mode():
                return m(x)
        out[name] = ("floor_fwd", call, _maxdiff(call(), floor_fwd(xn)))
    return out


def w6(compile_):
    floor, model = cnn()
    return _forward_variants(floor.forward, model, fl.cnn_data(fl.W6_BATCH), compile_)


def tfb_block(compile_):
    floor = tfb.TFBFloor()
    return _forward_variants(floor.forward, Block(floor), tfb.tfb_data(), compile_)


WORKLOADS = {"w1": w1, "w2": mlp_step(fl.W2), "w3": mlp_step(fl.W3), "w4b": w4b, "w5": w5,
             "w6": w6, "tfb": tfb_block}


def measure(workload, samples, target, compile_):
    """{variant: record} of one workload: each variant's median and its floor's."""
    unit, scale = fl.UNITS[workload]
    try:
        made = WORKLOADS[workload](compile_)
    except Exception as e:     # a peer that cannot run here: reported, not fatal
        return {"*": dict(error=f"{type(e).__name__}: {e}"[:200])}
    floors = fl.floor_cases(workload)
    fns = {k: f for k, (_, f, _) in made.items()}
    for v in {fv for fv, _, _ in made.values()}:
        fns[v] = floors[v]
    res, _ = harness.interleaved(fns, samples, target)
    med = {k: float(np.median(v)) * scale for k, v in res.items()}
    return {k: dict(floor=fv, unit=unit, median=med[k], floor_median=med[fv],
                    ratio=med[k] / med[fv], check=diff)
            for k, (fv, _, diff) in made.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=1, help="math-library threads (harness)")
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--samples", type=int, default=11)
    ap.add_argument("--target", type=float, default=0.05, help="seconds per timing sample")
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile variants")
    args = ap.parse_args()
    for w in [w.strip().lower() for w in args.workloads.split(",") if w.strip()]:
        if w not in WORKLOADS:
            sys.exit(f"unknown workload {w!r}; known: {sorted(WORKLOADS)}")
        with contextlib.redirect_stdout(io.StringIO()):     # JSON lines only on stdout
            recs = measure(w, args.samples, args.target, not args.no_compile)
        for variant, rec in recs.items():
            print(json.dumps(dict(workload=w, variant=variant, torch=torch.__version__,
                                  **rec)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
