"""numpy kernels of the recurrent ops declared in ops/defs/rnn.py: ``rnn``
(forward over layers and directions, input projections of every step as one
matmul, the recurrence step by step), ``rnn_grad`` (backpropagation through
time over the same steps, recomputed from the inputs: Reserve carries
nothing) and ``gather_tree``."""
import numpy as np

from ...ops.defs.rnn import check_rnn_inputs, rnn_geometry
from ..random import rng_for
from ..registry import kernel

_DT = ("float32", "float64")


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _masks(seq, t_len, batch, dtype):
    """[T, B, 1] step masks (1 where the step is within the sequence), or None."""
    if seq is None:
        return None
    lens = np.asarray(seq).reshape(-1).astype(np.int64)
    return (np.arange(t_len)[:, None] < lens[None, :]).astype(dtype)[:, :, None]


def _weights(ws, layers, d, l, k):
    """(W_ih, W_hh, b_ih, b_hh) of layer ``l``, direction ``k``."""
    j = 2 * (l * d + k)
    n = 2 * layers * d
    return ws[j], ws[j + 1], ws[n + j], ws[n + j + 1]


def _run_direction(mode, x, h, c, w_ih, w_hh, b_ih, b_hh, mask, reverse, cache):
    """One direction of one layer over x [T, B, I]; returns (out [T, B, H], h, c).
    With ``cache`` (a list) each step's values for the backward are appended."""
    t_len = x.shape[0]
    xw = np.matmul(x, w_ih.T) + b_ih
    out = np.empty(x.shape[:2] + (w_hh.shape[1],), x.dtype)
    # the recurrent weights transposed once into a contiguous copy: a transposed
    # view made every step's small GEMM up to 30% slower (OpenBLAS's SkylakeX kernels)
    w_hh_t = np.ascontiguousarray(w_hh.T) if t_len > 1 else w_hh.T
    hid = w_hh.shape[1]
    steps = range(t_len - 1, -1, -1) if reverse else range(t_len)
    for t in steps:
        hw = h @ w_hh_t + b_hh
        if mode == "LSTM":
            g = xw[t] + hw
            i, f = _sigmoid(g[:, :hid]), _sigmoid(g[:, hid:2 * hid])
            cc, o = np.tanh(g[:, 2 * hid:3 * hid]), _sigmoid(g[:, 3 * hid:])
            c_new = f * c + i * cc
            tc = np.tanh(c_new)
            h_new = o * tc
            step = (h, c, i, f, cc, o, tc)
        elif mode == "GRU":
            xg = xw[t]
            r = _sigmoid(xg[:, :hid] + hw[:, :hid])
            z = _sigmoid(xg[:, hid:2 * hid] + hw[:, hid:2 * hid])
            hc = hw[:, 2 * hid:]
            cc = np.tanh(xg[:, 2 * hid:] + r * hc)
            h_new = (h - cc) * z + cc
            c_new = None
            step = (h, r, z, cc, hc)
        else:
            a = xw[t] + hw
            h_new = np.tanh(a) if mode == "RNN_TANH" else np.maximum(a, 0)
            c_new = None
            step = (h, h_new)
        if mask is not None:
            m = mask[t]
            out[t] = h_new * m
            h = h_new * m + h * (1 - m)
            if c_new is not None:
                c = c_new * m + c * (1 - m)
        else:
            out[t] = h_new
            h, c = h_new, c_new
        if cache is not None:
            cache.append((t,) + step)
    return out, h, c


def _dropout_masks(attrs, seed, layers, shape_of, dtype):
    """The (scaled) dropout masks applied to the inputs of layers 1.. (None when off)."""
    p = attrs["dropout_prob"]
    if attrs["is_test"] or p == 0.0 or layers == 1:
        return [None] * layers
    rng = np.random.default_rng(seed)
    out = [None]
    for _ in range(1, layers):
        keep = rng.random(shape_of) >= p
        out.append(keep.astype(dtype) / dtype.type(1.0 - p) if p < 1 else
                   np.zeros(shape_of, dtype))
    return out


def _forward(ins, attrs, seed, caches=None):
    x, states, ws, seq = ins
    _, n_states, d, layers, hidden = rnn_geometry(attrs)
    mode = attrs["mode"]
    t_len, batch = x.shape[:2]
    mask = _masks(seq, t_len, batch, x.dtype)
    drops = _dropout_masks(attrs, seed, layers, (t_len, batch, d * hidden), x.dtype)
    h0 = states[0]
    c0 = states[1] if n_states == 2 else None
    hs, cs = np.empty_like(h0), (np.empty_like(c0) if c0 is not None else None)
    inp = x
    layer_inputs = []
    for l in range(layers):
        if drops[l] is not None:
            inp = inp * drops[l]
        layer_inputs.append(inp)
        outs = []
        for k in range(d):
            j = l * d + k
            cache = [] if caches is not None else None
            o, h, c = _run_direction(mode, inp, h0[j], None if c0 is None else c0[j],
                                     *_weights(ws, layers, d, l, k), mask, k == 1, cache)
            if caches is not None:
                caches.append(cache)
            outs.append(o)
            hs[j] = h
            if cs is not None:
                cs[j] = c
        inp = outs[0] if d == 1 else np.concatenate(outs, axis=-1)
    return inp, [hs] if cs is None else [hs, cs], layer_inputs, drops, mask


def _seed_state(attrs):
    """A fresh seed for the dropout masks, carried in DropoutState as 8 bytes."""
    if attrs["is_test"] or attrs["dropout_prob"] == 0.0 or attrs["num_layers"] == 1:
        return 0
    return int(rng_for(attrs).integers(1, 2 ** 62))


@kernel("rnn", dtypes=_DT)
def rnn(ins, attrs, need):
    check_rnn_inputs(*ins, attrs)
    seed = _seed_state(attrs)
    out, states, _, _, _ = _forward(ins, attrs, seed)
    return (out, np.frombuffer(np.int64(seed).tobytes(), np.uint8).copy(), states,
            np.zeros((0,), np.uint8))


def _step_back(mode, step, dh, dc, w_hh, mask_t):
    """Gradients through one step: (dh_prev, dc_prev, gate grads for the input
    projection, gate grads for the hidden projection)."""
    if mode == "LSTM":
        t, h, c, i, f, cc, o, tc = step
        if mask_t is not None:
            dh_n, dc_n = dh * mask_t, dc * mask_t
            dh_keep, dc_keep = dh * (1 - mask_t), dc * (1 - mask_t)
        else:
            dh_n, dc_n, dh_keep, dc_keep = dh, dc, 0, 0
        dct = dc_n + dh_n * o * (1 - tc * tc)
        dg = np.concatenate([dct * cc * i * (1 - i), dct * c * f * (1 - f),
                             dct * i * (1 - cc * cc), dh_n * tc * o * (1 - o)], axis=1)
        return dg @ w_hh + dh_keep, dct * f + dc_keep, dg, dg
    if mask_t is not None:
        dh_n, dh_keep = dh * mask_t, dh * (1 - mask_t)
    else:
        dh_n, dh_keep = dh, 0
    if mode == "GRU":
        t, h, r, z, cc, hc = step
        dz = dh_n * (h - cc) * z * (1 - z)
        dac = dh_n * (1 - z) * (1 - cc * cc)
        dr = dac * hc * r * (1 - r)
        dx = np.concatenate([dr, dz, dac], axis=1)
        dhg = np.concatenate([dr, dz, dac * r], axis=1)
        return dhg @ w_hh + dh_n * z + dh_keep, None, dx, dhg
    t, h, hn = step
    da = dh_n * (1 - hn * hn) if mode == "RNN_TANH" else dh_n * (hn > 0)
    return da @ w_hh + dh_keep, None, da, da


@kernel("rnn_grad", dtypes=_DT)
def rnn_grad(ins, attrs, need):
    x, states, ws, seq, _, dstate, _, g_out, g_states = ins
    _, n_states, d, layers, hidden = rnn_geometry(attrs)
    mode = attrs["mode"]
    seed = int(np.frombuffer(np.asarray(dstate, np.uint8).tobytes()[:8], np.int64)[0]) \
        if dstate is not None and np.asarray(dstate).size >= 8 else 0
    caches = []
    _, _, layer_inputs, drops, mask = _forward((x, states, ws, seq), attrs, seed, caches)
    g_states = list(g_states or [None] * n_states)
    g_h = g_states[0] if g_states[0] is not None else np.zeros_like(states[0])
    g_c = None
    if n_states == 2:
        g_c = g_states[1] if g_states[1] is not None else np.zeros_like(states[1])
    d_states = [np.zeros_like(s) for s in states]
    d_ws = [np.zeros_like(w) for w in ws]
    dout = g_out if g_out is not None else np.zeros(x.shape[:2] + (d * hidden,), x.dtype)
    for l in range(layers - 1, -1, -1):
        inp = layer_inputs[l]
        dinp = np.zeros_like(inp)
        for k in range(d):
            j = l * d + k
            w_ih, w_hh, _, _ = _weights(ws, layers, d, l, k)
            dh = g_h[j].copy()
            dc = g_c[j].copy() if g_c is not None else None
            do = dout[..., k * hidden:(k + 1) * hidden]
            dxw = np.zeros(inp.shape[:2] + (w_ih.shape[0],), x.dtype)
            dw_hh = np.zeros_like(w_hh)
            db_hh = np.zeros(w_hh.shape[0], x.dtype)
            for step in reversed(caches[j]):
                t = step[0]
                m = None if mask is None else mask[t]
                dh_t = dh + (do[t] if m is None else do[t] * m)
                dh, dc, dx_g, dh_g = _step_back(mode, step, dh_t, dc, w_hh, m)
                dxw[t] = dx_g
                dw_hh += dh_g.T @ step[1]
                db_hh += dh_g.sum(axis=0)
            flat = dxw.reshape(-1, dxw.shape[-1])
            n = 2 * layers * d
            d_ws[2 * j] = (flat.T @ inp.reshape(-1, inp.shape[-1])).astype(x.dtype)
            d_ws[2 * j + 1] = dw_hh
            d_ws[n + 2 * j] = flat.sum(axis=0).astype(x.dtype)
            d_ws[n + 2 * j + 1] = db_hh
            dinp += dxw @ w_ih
            d_states[0][j] = dh
            if dc is not None:
                d_states[1][j] = dc
        if drops[l] is not None:
            dinp = dinp * drops[l]
        dout = dinp
    return dout, d_states, d_ws


@kernel("gather_tree", dtypes=("int32", "int64"))
def gather_tree(ins, attrs, need):
    ids, parents = ins
    out = np.empty_like(ids)
    t_len = ids.shape[0]
    if t_len == 0:
        return (out,)
    b_idx = np.arange(ids.shape[1])[:, None]
    out[-1] = ids[-1]
    parent = parents[-1]
    for t in range(t_len - 2, -1, -1):
        out[t] = ids[t][b_idx, parent]
        parent = parents[t][b_idx, parent]
    return (out,)
