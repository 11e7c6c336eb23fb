"""paddle.text.viterbi_decode / ViterbiDecoder: against real Paddle 2.6.2's
outputs (fixtures/viterbi.npz, recorded by tests/interop/record_text.py), against a
brute-force search over every tag path, eager vs static Program vs to_static,
the layer, and Paddle's argument errors."""
import itertools
import os

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.text import ViterbiDecoder, viterbi_decode

REF = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                           "viterbi.npz"))


def _run(x, trans, lengths, include=True):
    s, p = viterbi_decode(paddle.to_tensor(x), paddle.to_tensor(trans),
                          paddle.to_tensor(lengths), include)
    return s.numpy(), p.numpy()


@pytest.mark.parametrize("k", range(int(REF["n"])))
@pytest.mark.parametrize("include", [True, False])
def test_matches_paddle(k, include):
    x, trans, lengths = REF[f"{k}_x"], REF[f"{k}_trans"], REF[f"{k}_len"]
    s, p = _run(x, trans, lengths, include)
    want_s, want_p = REF[f"{k}_{int(include)}_scores"], REF[f"{k}_{int(include)}_path"]
    assert s.dtype == want_s.dtype == x.dtype and p.dtype == want_p.dtype == np.int64
    assert p.shape == want_p.shape
    np.testing.assert_array_equal(p, want_p)
    np.testing.assert_allclose(s, want_s, rtol=1e-6, atol=1e-6)


def _brute(x, trans, length, include):
    n = trans.shape[0]
    best = None
    for path in itertools.product(range(n), repeat=length):
        score = sum(float(x[t, path[t]]) for t in range(length))
        score += sum(float(trans[a, b]) for a, b in zip(path, path[1:]))
        if include:
            score += float(trans[n - 1, path[0]]) + float(trans[n - 2, path[-1]])
        if best is None or score > best[0]:
            best = (score, path)
    return best


@pytest.mark.parametrize("include", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_brute_force(seed, include):
    rng = np.random.default_rng(seed)
    b, t, n = 3, 4, 3 + seed % 2
    x = rng.standard_normal((b, t, n))
    trans = rng.standard_normal((n, n))
    lengths = np.array([t, 1 + seed % 3, 2], np.int64)
    s, p = _run(x, trans, lengths, include)
    assert p.shape == (b, int(lengths.max()))
    for i in range(b):
        score, path = _brute(x[i], trans, int(lengths[i]), include)
        np.testing.assert_allclose(s[i], score, rtol=1e-10)
        assert tuple(p[i, :lengths[i]]) == path
        assert not p[i, lengths[i]:].any()


def test_static_program_and_to_static_agree_with_eager():
    x, trans, lengths = REF["0_x"], REF["0_trans"], REF["0_len"]
    want = _run(x, trans, lengths)
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xv = static.data("x", [None, 5, 4], "float32")
            tv = static.data("t", [4, 4], "float32")
            lv = static.data("l", [None], "int64")
            s, p = viterbi_decode(xv, tv, lv)
            assert [op.type for op in main.global_block().ops] == ["viterbi_decode"]
            op = main.global_block().ops[0]
            assert op.attr("include_bos_eos_tag") is True
            assert s.dtype == paddle.float32 and p.dtype == paddle.int64
        exe = static.Executor(static.CPUPlace())
        got = exe.run(main, feed={"x": x, "t": trans, "l": lengths}, fetch_list=[s, p])
    finally:
        paddle.disable_static()
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)

    dec = ViterbiDecoder(paddle.to_tensor(trans))
    fn = paddle.jit.to_static(dec)
    s2, p2 = fn(paddle.to_tensor(x), paddle.to_tensor(lengths))
    np.testing.assert_array_equal(p2.numpy(), want[1])
    np.testing.assert_allclose(s2.numpy(), want[0], rtol=1e-6)


def test_layer():
    k = 3
    x, trans, lengths = REF[f"{k}_x"], REF[f"{k}_trans"], REF[f"{k}_len"]
    for include in (True, False):
        dec = ViterbiDecoder(paddle.to_tensor(trans), include_bos_eos_tag=include)
        assert isinstance(dec, paddle.nn.Layer)
        s, p = dec(paddle.to_tensor(x), paddle.to_tensor(lengths))
        np.testing.assert_array_equal(p.numpy(), REF[f"{k}_{int(include)}_path"])
        np.testing.assert_allclose(s.numpy(), REF[f"{k}_{int(include)}_scores"], rtol=1e-6)
        assert s.stop_gradient and p.stop_gradient


def test_errors():
    x = np.zeros((2, 3, 4), np.float32)
    t = np.zeros((4, 4), np.float32)
    ok = np.array([3, 2], np.int64)
    with pytest.raises(ValueError, match="rank 3"):
        _run(x[0], t, ok)
    with pytest.raises(ValueError, match="number of tags"):
        _run(x, t[:3, :3], ok)
    with pytest.raises(ValueError, match="batch size"):
        _run(x, t, ok[:1])
    with pytest.raises(ValueError, match="int64"):
        _run(x, t, ok.astype(np.int32))
    with pytest.raises(ValueError, match="dtype"):
        _run(x, t.astype(np.float64), ok)
    with pytest.raises(IndexError):
        _run(x, t, np.array([4, 1], np.int64))
    with pytest.raises(ValueError, match="positive"):
        _run(x, t, np.array([0, 0], np.int64))
    with pytest.raises(RuntimeError):       # no integer kernel, as in Paddle (NotFound)
        _run(x.astype(np.int64), t.astype(np.int64), ok)
    with pytest.raises(TypeError):
        viterbi_decode(paddle.to_tensor(x), paddle.to_tensor(t), paddle.to_tensor(ok), 1)
