"""The attributes of the ops sampan's static Programs hold against real Paddle
2.6.2's (fixtures/static_attrs.json, recorded by ``python -m
tests.conformance.regen_attrs``): for every conformance case with a static mode,
where both Programs have the same op types in the same order, each attribute
Paddle writes has the same value in sampan's op (see static_attrs.py)."""
import json
import math
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import sampan  # noqa: E402

import run_case  # noqa: E402
import static_attrs  # noqa: E402
from cases import families  # noqa: E402

FIXTURE = os.path.join(HERE, "fixtures", "static_attrs.json")
FAMILIES = families()


def _recorded():
    if not os.path.isfile(FIXTURE):
        return {}
    with open(FIXTURE) as fh:
        return json.load(fh)


RECORDED = _recorded()
PARAMS = [pytest.param(fam, id=fam) for fam in sorted(RECORDED) if fam in FAMILIES]


def _same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) \
                and not isinstance(a, bool) and not isinstance(b, bool):
            return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _float64_exact(want, got):
    """fill_constant's str_value: Paddle writes none and a float32 ``value``
    where sampan also writes the number exactly (a float64 constant of the
    operator path, e.g. ``t < 1e-5``: Paddle's static Program compares with the
    float32-rounded number, its eager code -- and a run of sampan's file --
    with the number itself)."""
    try:
        exact = float(got["str_value"])
    except (KeyError, ValueError):
        return False
    return (want.get("str_value") == "" and exact != want["value"]
            and _same(float(np.float32(exact)), want["value"]))


def _cast_down(want, got):
    """The cast of a mixed real/complex operator: Paddle 2.6.2's static
    operators cast the right operand to the left one's dtype (complex128 to
    complex64, a complex to a float: the imaginary part dropped); its eager
    result (and sampan's Program) is the wider complex dtype."""
    return (want["in_dtype"], want["out_dtype"]) == (got["out_dtype"], got["in_dtype"]) \
        and got["out_dtype"] in _COMPLEX


_COMPLEX = {23, 24}     # VarType COMPLEX64, COMPLEX128

# (family, case id or None for every case, op type, attribute) -> why Paddle's
# value is not the one to write (a Paddle bug: eager is the truth), or a test
# of the two ops' attributes (both dicts) that says when the difference is that one
WAIVED = {
    ("linalg_ext", "linalg.lu.no_pivot", "lu", "pivots"):
        "Paddle's static lu writes its flag as 'pivot', not the op's 'pivots' (left True); "
        "eager passes pivots=False (and the CPU kernel refuses it)",
    ("linalg_ext", "linalg.pinv.hermitian", "eigh", "UPLO"):
        "eager pinv(hermitian=True) calls eigh with the literal 'UPLO' (not 'L': the upper "
        "triangle is read); static writes 'L'",
    ("math_extra", "einsum.three", "einsum", "equation"):
        "3+ operands: Paddle orders the pairwise contractions by opt_einsum's path search, "
        "sampan left to right (the same product)",
    ("math_extra", "einsum.three_bcast", "einsum", "equation"):
        "3+ operands: Paddle orders the pairwise contractions by opt_einsum's path search, "
        "sampan left to right (the same product)",
    ("sort_search", "kthvalue.axis0_keep", "kthvalue", "keepdim"):
        "Paddle's static kthvalue never writes keepdim (eager honours it)",
    (None, None, "fill_constant", "str_value"): _float64_exact,
    ("spectral", None, "cast", "in_dtype"): _cast_down,
    ("spectral", None, "cast", "out_dtype"): _cast_down,
}


def _waived(family, cid, typ, name, want, got):
    for key in ((family, cid, typ, name), (family, None, typ, name), (None, None, typ, name)):
        why = WAIVED.get(key)
        if why is not None:
            return isinstance(why, str) or bool(why(want, got))
    return False


def differences(paddle_ops, sampan_ops, family=None, cid=None):
    """['op #k type: attr paddle=.. sampan=..', ...] where the op types agree,
    less the WAIVED ones."""
    if [t for t, _ in paddle_ops] != [t for t, _ in sampan_ops]:
        return []           # another op sequence: the conformance test reports it
    out = []
    for k, ((typ, want), (_, got)) in enumerate(zip(paddle_ops, sampan_ops)):
        for name, value in sorted(want.items()):
            if name not in got:
                out.append(f"op #{k} {typ}: attribute {name} missing (paddle {value!r})")
            elif not _same(value, got[name]) and not _waived(family, cid, typ, name, want, got):
                out.append(f"op #{k} {typ}: {name} paddle={value!r} sampan={got[name]!r}")
    return out


@pytest.mark.parametrize("family", PARAMS)
def test_static_op_attributes_match_paddle(family, tmp_path):
    cases = {c.id: (i, c) for i, c in enumerate(FAMILIES[family])}
    fns = run_case.load_functions(FAMILIES[family], str(tmp_path), family, sampan)
    problems = []
    for cid, entry in sorted(RECORDED[family].items()):
        if cid not in cases:
            continue
        i, case = cases[cid]
        if entry["code"] != case.code:
            problems.append(f"{cid}: stale fixture (python -m tests.conformance.regen_attrs {family})")
            continue
        sampan.seed(0)
        mine = static_attrs.op_attrs(sampan, fns[i], case)
        if mine is None:
            continue        # sampan raises: the conformance test reports it
        problems += [f"{cid}: {d}" for d in differences(entry["ops"], mine, family, cid)]
    assert not problems, f"{len(problems)} attribute differences:\n" + "\n".join(problems[:60])
