"""A small CNN (conv-relu-pool-linear, Momentum) trained 20 steps with
``auto_cast`` + ``GradScaler``, eagerly and with the forward under to_static,
against real Paddle 2.6.2's losses (``fixtures/cnn_amp_losses.json``, recorded
by ``tests/interop/record_amp_cnn.py`` on the same weights and data).

Paddle's CPU build runs no AMP (auto_cast and GradScaler warn and make no
effect), so on sampan's CPU the runs equal Paddle's float32 losses.  On an
AMP place (the ``amp_place`` fixture) sampan computes the white-list ops in
float16 with dynamic loss scaling; its losses stay within float16's
tolerance of the float32 ones, and to_static equals eager."""
import json
import os
import warnings

import numpy as np
import pytest

import sampan as paddle

from .cnn_amp_model import train

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "cnn_amp_losses.json")) as _f:
    PADDLE = json.load(_f)


@pytest.mark.parametrize("name, kw", [("eager_bf16_O1", {}),
                                      ("to_static_bf16_O1", {"to_static": True}),
                                      ("eager_fp16_O2", {"dtype": "float16", "level": "O2"})])
def test_cpu_matches_paddle(name, kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        losses, scale = train(paddle, **kw)
    ref = PADDLE[name]
    np.testing.assert_allclose(losses, ref["losses"], rtol=1e-5, atol=1e-6)
    assert scale is ref["scale"] is None
    assert sorted({str(w.message) for w in caught if "enabled on" in str(w.message)}) == \
        ref["warnings"]


def test_amp_place_float16_o1(amp_place):
    eager, scale = train(paddle, dtype="float16")
    static, scale_s = train(paddle, dtype="float16", to_static=True)
    ref = PADDLE["eager_bf16_O1"]["losses"]
    np.testing.assert_allclose(eager, ref, rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(static, eager, rtol=1e-6, atol=1e-6)
    assert scale == scale_s == 2.0 ** 16
    assert not np.array_equal(eager, ref)             # it did compute in float16


def test_amp_place_float16_o2(amp_place, capsys):
    eager, scale = train(paddle, dtype="float16", level="O2")
    static, scale_s = train(paddle, dtype="float16", level="O2", to_static=True)
    np.testing.assert_allclose(static, eager, rtol=1e-6, atol=1e-6)
    assert np.isfinite(eager).all()
    ref = PADDLE["eager_bf16_O1"]["losses"]
    assert eager[0] == pytest.approx(ref[0], abs=5e-3)   # same start, float16 weights
    # 2**16 overflows a float16 gradient on the first step: skipped, scale halved
    assert scale == scale_s == 2.0 ** 15
    assert capsys.readouterr().out.count("Found inf or nan") == 2
    assert np.mean(eager[-5:]) < np.mean(eager[:5])      # it trains
