"""sampan.distribution against values recorded from real Paddle 2.6.2
(fixtures/paddle_values.json, written by tests/interop/record_distribution.py): every recorded
expression is evaluated with ``sampan`` standing in for ``paddle`` and must
give the same dtype, shape and values, or raise the same error."""
import json
import os
import warnings

import numpy as np
import pytest

import sampan
import sampan.distribution as D

_FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                        "paddle_values.json")
CASES = json.load(open(_FIXTURE))["cases"]


def _check(rec, got):
    kind = rec["kind"]
    if kind == "tensor":
        assert isinstance(got, sampan.Tensor), type(got)
        a = got.numpy()
        assert str(a.dtype) == rec["dtype"]
        assert list(a.shape) == rec["shape"]
        want = np.array(rec["value"], dtype=a.dtype).reshape(rec["shape"])
        if rec["inf"] is not None:
            inf = np.array(rec["inf"], dtype=bool).reshape(rec["shape"])
            assert np.array_equal(np.isinf(a), inf)
            a = np.where(inf, 0, a)
        rtol = 1e-4 if a.dtype == np.float32 else 1e-7
        np.testing.assert_allclose(a, want, rtol=rtol, atol=rtol)
    elif kind == "tensors":
        assert len(got) == len(rec["items"])
        for r, g in zip(rec["items"], got):
            _check(r, g)
    elif kind == "value":
        norm = [list(x) if isinstance(x, (list, tuple)) else x for x in got] \
            if isinstance(got, (list, tuple)) else got
        assert norm == rec["value"]
    else:
        assert type(got).__name__ == rec["type"]


@pytest.mark.parametrize("rec", CASES, ids=[c["expr"][:70] for c in CASES])
def test_matches_paddle(rec):
    env = {"paddle": sampan, "np": np, "D": D}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if rec["kind"] == "error":
            with pytest.raises(Exception) as info:
                eval(rec["expr"], env)
            assert type(info.value).__name__ == rec["type"]
            assert str(info.value) == rec["message"]
            return
        got = eval(rec["expr"], env)
    _check(rec, got)
