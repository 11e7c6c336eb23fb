"""Recurrent rows: an LSTM forward (nn.LSTM, one ``rnn`` op; batch 16, length 32,
input and hidden 128, 1 thread), eagerly and under ``to_static``, against a
hand-written numpy LSTM loop of the same weights timed in the same process
(registered here as workload ``lstm`` of the floor module).

Real Paddle 2.6.2's own time for the same workload comes from
``lstm_paddle.py`` run in its side venv (see the README table)."""
import numpy as np

import floor_numpy as fl
from rows import Row

BATCH, STEPS, SIZE = 16, 32, 128


def lstm_data():
    rng = np.random.default_rng(0)
    s = 1.0 / np.sqrt(SIZE)
    ws = [rng.uniform(-s, s, shp).astype("float32") for shp in
          ((4 * SIZE, SIZE), (4 * SIZE, SIZE), (4 * SIZE,), (4 * SIZE,))]
    x = rng.standard_normal((BATCH, STEPS, SIZE)).astype("float32")
    return x, ws


def lstm_floor(x, w_ih, w_hh, b_ih, b_hh):
    """The numpy loop: gates i, f, c, o; returns the [B, T, H] outputs."""
    xw = x @ w_ih.T + (b_ih + b_hh)
    h = np.zeros((x.shape[0], SIZE), np.float32)
    c = np.zeros_like(h)
    out = np.empty((x.shape[0], x.shape[1], SIZE), np.float32)
    w_hh_t = np.ascontiguousarray(w_hh.T)
    for t in range(x.shape[1]):
        g = xw[:, t] + h @ w_hh_t
        i = 1 / (1 + np.exp(-g[:, :SIZE]))
        f = 1 / (1 + np.exp(-g[:, SIZE:2 * SIZE]))
        o = 1 / (1 + np.exp(-g[:, 3 * SIZE:]))
        c = f * c + i * np.tanh(g[:, 2 * SIZE:3 * SIZE])
        h = o * np.tanh(c)
        out[:, t] = h
    return out


# the floor of workload "lstm", beside floor_numpy's own workloads
fl.UNITS.setdefault("lstm", ("ms/call", 1e3))
_floor_cases = fl.floor_cases


def _cases(workload):
    if workload == "lstm":
        x, ws = lstm_data()
        return {"floor_fwd": lambda: lstm_floor(x, *ws)}
    return _floor_cases(workload)


fl.floor_cases = _cases


def _lstm(static):
    def make(paddle):
        x, ws = lstm_data()
        net = paddle.nn.LSTM(SIZE, SIZE)
        names = ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]
        cells = ["0.cell.weight_ih", "0.cell.weight_hh", "0.cell.bias_ih", "0.cell.bias_hh"]
        # the layer's state dict names each weight twice (Paddle's two naming styles)
        net.set_state_dict({**dict(zip(names, ws)), **dict(zip(cells, ws))})
        net.eval()
        xt = paddle.to_tensor(x)
        fn = paddle.jit.to_static(net) if static else net

        def run():
            with paddle.no_grad():
                return fn(xt)[0]
        got = run().numpy()
        return run, {"vs_floor": float(np.max(np.abs(got - lstm_floor(x, *ws))))}
    return make


ROWS = [
    Row("LSTM eager fwd", "lstm", "floor_fwd", 1.5, _lstm(False)),
    Row("LSTM to_static fwd", "lstm", "floor_fwd", 1.5, _lstm(True)),
]
