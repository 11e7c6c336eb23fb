"""The expression type (ops/symbolic.py): arithmetic, printing, the safe
parser, and SymDim being the int -1 everywhere but in its text."""
import copy
import json
import pickle

import numpy as np
import pytest

from sampan.ops.symbolic import Sym, SymDim, parse, has_symbol, dim_text

B, T = Sym.symbol("B"), Sym.symbol("T")


def test_arithmetic_and_printing():
    assert str(B * 8) == "B*8"
    assert str(B + 1) == "B+1"
    assert str(B - 1) == "B-1"
    assert str(B * T * 2 + B - 3) == "B*T*2+B-3"
    assert str((B * 8).divide(8)) == "B"
    assert str((B * T * 16).divide(B * 4)) == "T*4"
    assert str(B.divide(2)) == "B/2"
    assert (B * 8).divide(T) is None            # not exact: refused, not guessed
    assert (B + 1) - 1 == B and B * 0 == Sym.const(0)
    assert (B * 8 + 1).evaluate({"B": 3}) == 25 and (B + T).evaluate({"B": 1}) is None


def test_parse_round_trip_and_refuses_code():
    for e in (B, B * 8, B + 1, B * T * 2 - 3, B.divide(2), B * B):
        assert parse(str(e)) == e
    for bad in ("__import__('os')", "B.x", "f(B)", "B[0]", "1.5*B", "lambda: 1", ""):
        with pytest.raises(ValueError):
            parse(bad)


def test_symdim_is_minus_one():
    d = SymDim("B")
    assert d == -1 and d < 0 and int(d) == -1 and hash(d) == hash(-1)
    assert d * 8 == -8 and type(d * 8) is int            # int arithmetic, as Paddle's -1
    assert [d, 8] == [-1, 8] and (d, 8) == (-1, 8)
    assert str(d) == repr(d) == f"{d}" == "B" and f"{d:d}" == "-1"
    assert str([d, 8]) == "[B, 8]"
    assert json.dumps([d, 8]) == "[-1, 8]"
    assert np.prod([d, 8]) == -8 and np.array([d, 8]).dtype.kind == "i"
    assert str(pickle.loads(pickle.dumps(d))) == "B" and copy.deepcopy(d) is d
    assert has_symbol((8, d)) and not has_symbol((8, -1))
    assert dim_text(SymDim(B * 8)) == "B*8" and dim_text(8) == 8
    with pytest.raises(ValueError):
        SymDim("not a name!")
