"""What symbolic dims cost: the to_static trace of a transformer block (the
model of tests/jit/symbolic) with concrete shapes (no symbols: the rules never
run), with an anonymous None batch dim (named ``x_d0``) and with ``'B'``; and
one call of the traced program (the executor: never touched by symbols).

    python benchmarks/symbolic_dims_cost.py [--reps 30]

Prints the median milliseconds of each.  Run it on two trees (PYTHONPATH) to
compare before/after."""
import argparse
import statistics
import time

import numpy as np

import sampan as paddle
import sampan.nn.functional as F
from sampan.static import InputSpec


class Block(paddle.nn.Layer):
    def __init__(self, d=64, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = paddle.nn.Linear(d, 3 * d)
        self.proj = paddle.nn.Linear(d, d)
        self.ln1 = paddle.nn.LayerNorm(d)
        self.ln2 = paddle.nn.LayerNorm(d)
        self.ff1 = paddle.nn.Linear(d, 4 * d)
        self.ff2 = paddle.nn.Linear(4 * d, d)

    def forward(self, x):
        d = x.shape[-1]
        h = self.ln1(x)
        q, k, v = paddle.split(self.qkv(h), 3, axis=-1)
        q, k, v = [t.reshape([0, 0, self.heads, d // self.heads]).transpose([0, 2, 1, 3])
                   for t in (q, k, v)]
        att = F.softmax(paddle.matmul(q, k, transpose_y=True) * 0.125, axis=-1)
        o = paddle.matmul(att, v).transpose([0, 2, 1, 3]).reshape([0, 0, d])
        x = x + self.proj(o)
        x = x + self.ff2(F.gelu(self.ff1(self.ln2(x))))
        return x.reshape([-1, d])


def trace_ms(spec, reps, x):
    times = []
    for _ in range(reps):
        m = Block()
        t0 = time.perf_counter()
        sf = paddle.jit.to_static(m, full_graph=True, input_spec=spec)
        if spec is None:
            sf(x)                       # traces for the concrete shape (and runs once)
        else:
            sf.forward.concrete_program
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def call_ms(reps, x):
    m = Block()
    sf = paddle.jit.to_static(m, full_graph=True, input_spec=[InputSpec([None, 16, 64])])
    sf(x)
    times = []
    for _ in range(reps * 10):
        t0 = time.perf_counter()
        sf(x)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=30)
    a = ap.parse_args()
    x = paddle.to_tensor(np.random.RandomState(0).randn(4, 16, 64).astype("float32"))
    trace_ms(None, 3, x)                # warm: source conversion, imports
    rows = [("trace+first call, tensor (no symbols)", trace_ms(None, a.reps, x)),
            ("trace, InputSpec([4, 16, 64]) (no symbols)",
             trace_ms([InputSpec([4, 16, 64])], a.reps, x)),
            ("trace, InputSpec([None, 16, 64])", trace_ms([InputSpec([None, 16, 64])],
                                                          a.reps, x))]
    try:
        rows.append(("trace, InputSpec(['B', 16, 64])",
                     trace_ms([InputSpec(["B", 16, 64])], a.reps, x)))
    except ValueError:
        rows.append(("trace, InputSpec(['B', 16, 64])", float("nan")))
    rows.append(("call of the traced program", call_ms(a.reps, x)))
    for name, ms in rows:
        print(f"{name:<44} {ms:8.3f} ms")


if __name__ == "__main__":
    main()
