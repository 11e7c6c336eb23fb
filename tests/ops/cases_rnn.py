"""Op-spec cases of ops/defs/rnn.py: ``rnn`` (each mode; layers, directions,
SequenceLength) and ``gather_tree``.  The rnn reference runs every sequence on
its own over its valid steps only (the reverse direction from its last valid
step), one cell formula per mode, and pads the outputs with zeros."""
import numpy as np

from .spec import Case, rand

T, B, I, H = 4, 2, 3, 2
GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _sig(v):
    return 1 / (1 + np.exp(-v))


def _cell(mode, x, h, c, wi, wh, bi, bh):
    a, b = wi @ x + bi, wh @ h + bh
    if mode == "LSTM":
        i, f, g, o = np.split(a + b, 4)
        c = _sig(f) * c + _sig(i) * np.tanh(g)
        return _sig(o) * np.tanh(c), c
    if mode == "GRU":
        (xr, xz, xc), (hr, hz, hc) = np.split(a, 3), np.split(b, 3)
        r, z = _sig(xr + hr), _sig(xz + hz)
        cand = np.tanh(xc + r * hc)
        return z * h + (1 - z) * cand, None
    return (np.tanh(a + b) if mode == "RNN_TANH" else np.maximum(a + b, 0)), None


def ref_rnn(Input, PreState, WeightList, SequenceLength=None, attrs=None):
    mode, layers = attrs["mode"], attrs["num_layers"]
    d = 2 if attrs["is_bidirec"] else 1
    t_len, batch, _ = Input.shape
    lens = [t_len] * batch if SequenceLength is None else list(SequenceLength)
    n = 2 * layers * d
    hs = [np.zeros((layers * d, batch, H)) for _ in PreState]
    out = np.zeros((t_len, batch, d * H))
    for b in range(batch):
        seq = Input[:, b]
        for l in range(layers):
            nxt = np.zeros((t_len, d * H))
            for k in range(d):
                j = l * d + k
                wi, wh = WeightList[2 * j], WeightList[2 * j + 1]
                bi, bh = WeightList[n + 2 * j], WeightList[n + 2 * j + 1]
                h = PreState[0][j, b]
                c = PreState[1][j, b] if len(PreState) == 2 else None
                steps = range(lens[b])
                for t in (reversed(steps) if k else steps):
                    h, c = _cell(mode, seq[t], h, c, wi, wh, bi, bh)
                    nxt[t, k * H:(k + 1) * H] = h
                hs[0][j, b] = h
                if c is not None:
                    hs[1][j, b] = c
            seq = nxt
        out[:, b] = seq
    return out, hs


def _case(mode, layers=1, bidirec=False, seq=None, seed=0, **kw):
    d = 2 if bidirec else 1
    g = GATES[mode]
    ws, bs = [], []
    for l in range(layers):
        for k in range(d):
            s = seed + 10 * l + k
            ws += [rand(g * H, I if l == 0 else d * H, seed=s, low=-0.8, high=0.8),
                   rand(g * H, H, seed=s + 100, low=-0.8, high=0.8)]
            bs += [rand(g * H, seed=s + 200, low=-0.5, high=0.5),
                   rand(g * H, seed=s + 300, low=-0.5, high=0.5)]
    states = [rand(layers * d, B, H, seed=seed + 400 + i) for i in range(2 if mode == "LSTM"
                                                                         else 1)]
    inputs = {"Input": rand(T, B, I, seed=seed + 500), "PreState": states,
              "WeightList": ws + bs}
    if seq is not None:
        inputs["SequenceLength"] = np.array(seq, "int64")
    attrs = {"mode": mode, "num_layers": layers, "is_bidirec": bidirec, "input_size": I,
             "hidden_size": H, "is_test": False}
    name = f"rnn_{mode.lower()}_l{layers}{'_bi' if bidirec else ''}{'_seq' if seq else ''}"
    return Case("rnn", inputs, attrs, ref=ref_rnn, outputs=("Out", "State"),
                grad_outputs=("Out", "State"), grad=("Input", "PreState", "WeightList"),
                id=name, **kw)


def ref_gather_tree(Ids, Parents):
    t_len, batch, beam = Ids.shape
    out = np.zeros_like(Ids)
    for b in range(batch):
        for k in range(beam):
            p = k
            for t in range(t_len - 1, -1, -1):
                out[t, b, k] = Ids[t, b, p]
                p = Parents[t, b, p]
    return out


_IDS = np.random.default_rng(7).integers(0, 9, (5, 2, 3))
_PARENTS = np.random.default_rng(8).integers(0, 3, (5, 2, 3))
CASES = [
    _case("LSTM", seed=1),
    _case("GRU", seed=2),
    _case("RNN_TANH", seed=3),
    _case("RNN_RELU", seed=4),
    _case("LSTM", layers=2, bidirec=True, seq=[4, 2], seed=5),
    _case("GRU", layers=2, bidirec=True, seq=[3, 1], seed=6),
    _case("RNN_TANH", bidirec=True, seq=[2, 4], seed=7),
    _case("GRU", layers=2, seed=8),
    Case("gather_tree", {"Ids": _IDS, "Parents": _PARENTS}, ref=ref_gather_tree, grad=False),
    Case("gather_tree", {"Ids": _IDS.astype("int32"), "Parents": _PARENTS.astype("int32")},
         ref=ref_gather_tree, grad=False, id="gather_tree_int32"),
]
