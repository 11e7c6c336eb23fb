"""nn.LSTM / GRU / SimpleRNN (one ``rnn`` op) and nn.RNN / BiRNN over cells
against real Paddle 2.6.2: the same weights (the .pdparams Paddle wrote), the
same inputs, Paddle's eager outputs, final states and gradients (input,
initial states, every weight), recorded by tests/interop/record_rnn.py.  Each
case runs eagerly, as a static Program and under to_static.

One divergence, on purpose: Paddle 2.6.2's CPU ``rnn_grad`` is wrong for a
bidirectional network given both sequence_length and non-zero initial states:
for the reverse direction's first valid step of a padded sequence it takes the
previous hidden state as zero (the zeroed padded output) instead of the
initial state carried through the padding, although its forward uses the
carried state.  So W_hh_reverse's gradient (and, for GRU, whose gate
gradients read h_prev, the input's and more) disagree with Paddle's own
forward.  sampan differentiates its forward exactly: in those cases the
gradients Paddle gets wrong are checked against central finite differences
instead (``test_paddle_grad_bug_cases_match_finite_differences``)."""
import os

import numpy as np
import pytest

import sampan as paddle
from sampan import static

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
T, B, I, H = 5, 3, 3, 4
RTOL, ATOL = 1e-4, 1e-5

_CASES = np.load(os.path.join(HERE, "rnn_cases.npz"))
_WEIGHTS = paddle.load(os.path.join(HERE, "rnn_weights.pdparams"))


def _names(prefix=""):
    return sorted({k.split("/")[0] for k in _CASES.files if k.startswith(prefix)})


FUSED = [n for n in _names() if not n.startswith("cell_")]
CELLS = _names("cell_")


def _build(name, load=True):
    if name.startswith("cell_"):
        _, kind, cell, _ = name.split("_")
        cls = getattr(paddle.nn, cell)
        cells = [cls(I, H), cls(I, H)]
        net = paddle.nn.RNN(cells[0]) if kind == "RNN" else paddle.nn.BiRNN(*cells)
    else:
        parts = name.split("_")
        mode = "_".join(parts[:-5]) if parts[0] == "RNN" else parts[0]
        layers = int(parts[-5][1:])
        direction, tm = parts[-4], bool(int(parts[-2][2:]))
        kw = dict(num_layers=layers, direction=direction, time_major=tm)
        if mode == "LSTM":
            net = paddle.nn.LSTM(I, H, **kw)
        elif mode == "GRU":
            net = paddle.nn.GRU(I, H, **kw)
        else:
            net = paddle.nn.SimpleRNN(I, H, activation=mode[4:].lower(), **kw)
    if not load:
        return net
    own = {k.split("/", 1)[1]: v for k, v in _WEIGHTS.items() if k.startswith(name + "/")}
    by_id = {id(p): k for k, p in net.state_dict().items() if k in own}
    full = {k: own[by_id[id(p)]] if k not in own else own[k]
            for k, p in net.state_dict().items()}
    missing, unexpected = net.set_state_dict(full)
    assert not missing and not unexpected
    return net


def _get(name, key):
    k = f"{name}/{key}"
    return _CASES[k] if k in _CASES.files else None


def _inputs(name):
    n_init = sum(1 for k in range(2) if _get(name, f"init{k}") is not None)
    return _get(name, "x"), _get(name, "seq"), [_get(name, f"init{k}") for k in range(n_init)]


def _loss(name, out, states):
    flat = [s for s in (states if isinstance(states, (list, tuple)) else [states])]
    flat = [t for s in flat for t in (s if isinstance(s, (list, tuple)) else [s])]
    flat = [t for s in flat for t in (s if isinstance(s, (list, tuple)) else [s])]
    loss = (out * paddle.to_tensor(_get(name, "wo"))).sum()
    for k, s in enumerate(flat):
        loss = loss + (s * paddle.to_tensor(_get(name, f"ws{k}"))).sum()
    return loss, flat


def _call(net, x, seq, inits):
    init = None
    if inits:
        init = tuple(inits) if len(inits) == 2 else inits[0]
    return net(x, init, seq)


def _paddle_grad_bug(name):
    return "bidirect_seq1" in name and name.endswith("init1")


_EAGER = {}


def _check(name, net, out, states, grads):
    """outs / states: arrays; grads: {key: array}."""
    np.testing.assert_allclose(out, _get(name, "out"), rtol=RTOL, atol=ATOL)
    for k, s in enumerate(states):
        np.testing.assert_allclose(s, _get(name, f"state{k}"), rtol=RTOL, atol=ATOL)
    if _paddle_grad_bug(name):
        if name not in _EAGER:
            _EAGER[name] = _run_eager(name, check=False)
        for key, g in grads.items():
            np.testing.assert_allclose(g, _EAGER[name][key], rtol=5e-4, atol=5e-5,
                                       err_msg=key)
        return
    for key, g in grads.items():
        want = _get(name, f"grad_{key}")
        assert want is not None, key
        np.testing.assert_allclose(g, want, rtol=5e-4, atol=5e-5, err_msg=key)


def _param_keys(name, net):
    return [k for k in net.state_dict() if _get(name, f"grad_{k}") is not None]


def _run_eager(name, check=True):
    net = _build(name)
    x, seq, inits = _inputs(name)
    xt = paddle.to_tensor(x, stop_gradient=False)
    its = [paddle.to_tensor(a, stop_gradient=False) for a in inits]
    out, states = _call(net, xt, None if seq is None else paddle.to_tensor(seq), its)
    loss, flat = _loss(name, out, states)
    loss.backward()
    grads = {"x": xt.grad.numpy()}
    grads.update({f"init{k}": t.grad.numpy() for k, t in enumerate(its)})
    sd = net.state_dict()
    grads.update({k: sd[k].grad.numpy() for k in _param_keys(name, net)})
    if check:
        _check(name, net, out.numpy(), [s.numpy() for s in flat], grads)
    return grads


@pytest.mark.parametrize("name", FUSED + CELLS)
def test_eager_equals_paddle(name):
    _run_eager(name)


def _loss_value(name, net, x, seq, inits):
    out, states = _call(net, paddle.to_tensor(x), None if seq is None else
                        paddle.to_tensor(seq), [paddle.to_tensor(a) for a in inits])
    return float(_loss(name, out, states)[0].numpy())


@pytest.mark.parametrize("name", [n for n in FUSED if _paddle_grad_bug(n) and "L1" in n])
def test_paddle_grad_bug_cases_match_finite_differences(name):
    """Where Paddle's rnn_grad is wrong, sampan's gradients (input and the
    reverse W_hh) are those of the forward both compute: central differences
    (float64 weights and inputs)."""
    net = _build(name)
    net.to(dtype="float64")
    x, seq, inits = _inputs(name)
    x, inits = x.astype("float64"), [a.astype("float64") for a in inits]
    grads = _run_eager(name, check=False)
    w = net.state_dict()["weight_hh_l0_reverse"]
    eps = 1e-6
    for key, arr, setter in (("x", x, None), ("weight_hh_l0_reverse", w.numpy(), w)):
        num = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            vals = []
            for sgn in (1, -1):
                a = arr.copy()
                a[idx] += sgn * eps
                if setter is None:
                    vals.append(_loss_value(name, net, a, seq, inits))
                else:
                    setter.set_value(a)
                    vals.append(_loss_value(name, net, x, seq, inits))
            num[idx] = (vals[0] - vals[1]) / (2 * eps)
        if setter is not None:
            setter.set_value(arr)
        np.testing.assert_allclose(grads[key], num, rtol=1e-3, atol=1e-4, err_msg=key)
        assert not np.allclose(num, _get(name, f"grad_{key}"), atol=1e-3) or key == "x"


def _run_static(name):
    x, seq, inits = _inputs(name)
    main, startup = static.Program(), static.Program()
    values = {k: v.numpy() for k, v in _build(name).state_dict().items()}
    paddle.enable_static()
    try:
        return _build_static(name, main, startup, x, seq, inits, values)
    finally:
        paddle.disable_static()


def _build_static(name, main, startup, x, seq, inits, values):
    with static.program_guard(main, startup):
        net = _build(name, load=False)
        xv = static.data("x", list(x.shape), "float32")
        xv.stop_gradient = False
        sv = static.data("seq", [B], "int64") if seq is not None else None
        ivs = []
        for k, a in enumerate(inits):
            v = static.data(f"init{k}", list(a.shape), "float32")
            v.stop_gradient = False
            ivs.append(v)
        out, states = _call(net, xv, sv, ivs)
        loss, flat = _loss(name, out, states)
        keys = _param_keys(name, net)
        sd = net.state_dict()
        wrt = [xv] + ivs + [sd[k] for k in keys]
        grads = static.gradients([loss], wrt)
    exe = static.Executor()
    exe.run(startup)
    for key, p in net.state_dict().items():      # the weights Paddle wrote
        static.global_scope().find_var(p.name).get_tensor().set(values[key])
    feed = {"x": x}
    if seq is not None:
        feed["seq"] = seq
    feed.update({f"init{k}": a for k, a in enumerate(inits)})
    res = exe.run(main, feed=feed, fetch_list=[out] + flat + grads)
    n = 1 + len(flat)
    g = dict(zip(["x"] + [f"init{k}" for k in range(len(ivs))] + keys, res[n:]))
    _check(name, net, res[0], res[1:n], g)
    return main


@pytest.mark.parametrize("name", FUSED[::3] + CELLS)
def test_static_equals_paddle(name):
    main = _run_static(name)
    types = [op.type for op in main.global_block().ops]
    if name.startswith("cell_"):
        assert "while" in types and "rnn" not in types
    else:
        assert types.count("rnn") == 1 and "rnn_grad" in types


@pytest.mark.parametrize("name", FUSED[1::3] + CELLS)
def test_to_static_equals_paddle(name):
    net = _build(name)
    x, seq, inits = _inputs(name)

    def fwd(xt, seq_t, *its):
        out, states = _call(net, xt, seq_t, list(its))
        return out, states

    sf = paddle.jit.to_static(fwd)
    xt = paddle.to_tensor(x, stop_gradient=False)
    its = [paddle.to_tensor(a, stop_gradient=False) for a in inits]
    out, states = sf(xt, None if seq is None else paddle.to_tensor(seq), *its)
    loss, flat = _loss(name, out, states)
    loss.backward()
    grads = {"x": xt.grad.numpy()}
    grads.update({f"init{k}": t.grad.numpy() for k, t in enumerate(its)})
    sd = net.state_dict()
    grads.update({k: sd[k].grad.numpy() for k in _param_keys(name, net)})
    _check(name, net, out.numpy(), [s.numpy() for s in flat], grads)
