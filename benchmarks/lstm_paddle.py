"""The LSTM row's workload in real PaddlePaddle 2.6.2, for comparison
(run with the side venv's Python; 1 math-library thread):

    OMP_NUM_THREADS=1 ~/.cache/sampan-interop/paddle-2.6.2/bin/python benchmarks/lstm_paddle.py

Prints the median ms per forward call, eager and to_static, with the numpy
loop of rows_rnn.py timed in the same process."""
import os
import sys
import time

import numpy as np
import paddle

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__))))
import importlib.util  # noqa: E402

BATCH, STEPS, SIZE = 16, 32, 128


def median_ms(fn, n=30):
    fn()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return 1e3 * float(np.median(ts))


def main():
    spec = importlib.util.spec_from_file_location("rows_rnn_data", os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "rows_rnn.py"))
    src = open(spec.origin).read().split("# the floor of workload")[0]
    ns = {}
    exec(compile(src.replace("import floor_numpy as fl\nfrom rows import Row\n", ""),
                 spec.origin, "exec"), ns)
    x, ws = ns["lstm_data"]()
    net = paddle.nn.LSTM(SIZE, SIZE)
    net.set_state_dict(dict(zip(["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"],
                                [paddle.to_tensor(w) for w in ws])))
    net.eval()
    xt = paddle.to_tensor(x)
    st = paddle.jit.to_static(net)
    with paddle.no_grad():
        eager = median_ms(lambda: net(xt))
        static = median_ms(lambda: st(xt))
        diff = float(np.abs(net(xt)[0].numpy() - ns["lstm_floor"](x, *ws)).max())
    floor = median_ms(lambda: ns["lstm_floor"](x, *ws))
    print(f"paddle 2.6.2 LSTM fwd: eager {eager:.3f} ms, to_static {static:.3f} ms; "
          f"numpy floor {floor:.3f} ms; ratios {eager / floor:.2f}x / {static / floor:.2f}x; "
          f"max diff vs floor {diff:.1e}")


if __name__ == "__main__":
    main()
