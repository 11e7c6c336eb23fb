"""sampan against recorded real-Paddle 2.6.2 results (fixtures/<family>.json).

Each case of cases/<family>.py runs in sampan eager, as a static Program and
under to_static, and must agree with what Paddle did (compare.py says what
"agree" means).  Paddle is never needed here: regen.py records the fixtures.
"""
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import sampan  # noqa: E402

import compare  # noqa: E402
import run_case  # noqa: E402
from cases import families  # noqa: E402

FAMILIES = families()
_FIXTURES = {}
_FUNCS = {}


def _fixture(family):
    if family not in _FIXTURES:
        path = os.path.join(HERE, "fixtures", family + ".json")
        if not os.path.exists(path):
            pytest.fail(f"no fixture {path}: run `python -m tests.conformance.regen {family}`")
        with open(path) as fh:
            _FIXTURES[family] = json.load(fh)["cases"]
    return _FIXTURES[family]


def _function(family, index, tmp_root):
    if family not in _FUNCS:
        _FUNCS[family] = run_case.load_functions(FAMILIES[family], str(tmp_root), family,
                                                 sampan)
    return _FUNCS[family][index]


PARAMS = [pytest.param(fam, i, id=f"{fam}:{c.id}")
          for fam, cases in FAMILIES.items() for i, c in enumerate(cases)]


@pytest.fixture(scope="session")
def gen_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("conformance")


@pytest.mark.parametrize("family,index", PARAMS)
def test_case(family, index, gen_dir):
    case = FAMILIES[family][index]
    entry = _fixture(family).get(case.id)
    code = case.paddle_code or case.code
    if entry is None or entry.get("code") != code or entry.get("args") != list(case.args):
        pytest.fail(f"fixture of {case.id} is missing or stale: run "
                    f"`python -m tests.conformance.regen {family}`")
    fn = _function(family, index, gen_dir)
    got = run_case.run_one(sampan, fn, case)
    problems = []
    for mode in case.modes:
        want, ops = compare.expected(entry, mode, case.rtol, case.atol, case)
        for d in compare.diff_results(got[mode], want, case.rtol, case.atol):
            problems.append(f"{mode}: {d}")
        if got[mode].get("ok") and want.get("ok"):
            problems += [f"{mode}: {d}" for d in compare.diff_warnings(got[mode], want)]
        if ops is not None and got[mode].get("ok") and got[mode].get("ops") != ops:
            problems.append(f"{mode}: ops {got[mode].get('ops')} vs Paddle's {ops}")
    if case.grad and entry["eager"].get("grad") is not None:
        want_g = entry["eager"]["grad"]
        got_g = got["eager"].get("grad")
        if isinstance(want_g, dict) or isinstance(got_g, dict):
            if isinstance(want_g, dict) != isinstance(got_g, dict):
                problems.append(f"grad: {got_g} vs Paddle's {want_g}")
        else:
            for k, (g, w) in enumerate(zip(got_g, want_g)):
                if (g is None) != (w is None):
                    problems.append(f"grad[{k}]: {g} vs Paddle's {w}")
                elif w is not None:
                    problems += compare.diff_values(g, w, case.rtol, case.atol, f"grad[{k}]")
    assert not problems, f"{case.id}: {case.code!r} on {list(case.args)}\n  " + \
        "\n  ".join(problems)
