"""The fuzzer's own tests, and the CI campaign.

The generator is deterministic and its programs run eagerly; the comparison classifies
synthetic eager/static pairs correctly; the runner attributes crashes and hangs to the program
that caused them; the shrinker reduces a synthetic failure. Then `test_ci_campaign`: a fixed
seed range through `sampan.jit.to_static`, which must all AGREE.
"""
import collections
import importlib
import os

import numpy as np
import pytest

from .gen import FEATURES, WIDE_FEATURES, Config, generate
from .runner import campaign, render_repro, run_requests
from .shrink import count_statements, shrink_result
from .worker import (AGREE, CRASH, EAGER_ERROR, MISMATCH, STATIC_ERROR, TIMEOUT, check_program,
                     compare, execute, signature)

import sampan as paddle

CI_SEEDS = range(0, 300)   # the fixed CI range; failures found elsewhere go to tests/jit/
CI_JOBS = 2


def to_static_missing():
    return not hasattr(importlib.import_module("sampan.jit"), "to_static")


# -- generator ----------------------------------------------------------------------------------
def test_generator_is_deterministic_per_seed():
    for seed in (0, 1, 17, 12345):
        a, b = generate(seed), generate(seed)
        assert a.source == b.source and a.features == b.features and a.shapes == b.shapes
    assert len({generate(s).source for s in range(20)}) == 20


def test_generated_programs_are_valid_and_run_eagerly(tmp_path):
    for seed in range(60):
        prog = generate(seed)
        compile(prog.source, "<seed %d>" % seed, "exec")
        res = check_program(prog.source, seed, static="identity", name="gen_%d" % seed,
                            directory=str(tmp_path))
        assert res["status"] == AGREE, (seed, res.get("message"), prog.source)


def test_generator_covers_every_construct():
    seen = collections.Counter(f for s in CI_SEEDS for f in generate(s).features)
    assert FEATURES - set(seen) == set(), "constructs never generated in the CI range"
    assert set(seen) <= FEATURES


def test_programs_take_different_paths_on_chosen_inputs(tmp_path):
    """Inputs are chosen so both sides of conditions run: most programs see >1 path (among
    the first-order ones: second-order programs have Python control flow only)."""
    from .worker import arcs_taken, candidate_inputs, load_program, select_inputs
    multi = first_order = 0
    for seed in range(40):
        prog = generate(seed)
        mod = load_program(prog.source, "paths_%d" % seed, str(tmp_path))
        cands = candidate_inputs(mod.INPUT_SHAPES, seed, 8)
        chosen = select_inputs(mod.f, cands, mod.__file__, 3)
        assert len(chosen) >= 2
        paths = {frozenset(arcs_taken(mod.f, cands[i], mod.__file__)) for i in chosen}
        multi += len(paths) > 1
        first_order += not prog.second_order
    assert multi >= first_order // 2


def test_wide_config_adds_constructs_beyond_the_contract():
    wide = set().union(*(generate(s, Config(wide=True)).features for s in range(300)))
    assert WIDE_FEATURES <= wide


# -- classifier ---------------------------------------------------------------------------------
def _run(fn, *arrays):
    return execute(fn, [np.asarray(a, dtype="float32") for a in arrays])


def test_compare_agree_and_mismatch_kinds():
    x = [[0.5, -1.0, 2.0]]
    base = _run(lambda t: (paddle.tanh(t), t.sum()), x)
    assert compare(base, _run(lambda t: (paddle.tanh(t), t.sum()), x)) is None
    assert compare(base, _run(lambda t: (paddle.tanh(t) + 1e-3, t.sum()), x))[0] == "value"
    assert compare(base, _run(lambda t: (paddle.tanh(t),), x))[0] == "structure"
    assert compare(base, _run(lambda t: [paddle.tanh(t), t.sum()], x))[0] == "structure"
    assert compare(base, _run(lambda t: (paddle.tanh(t), t.sum().reshape([1])), x))[0] == "shape"
    assert compare(base, _run(lambda t: (paddle.tanh(t).astype("float64"), t.sum()), x))[0] == "dtype"
    assert compare(base, _run(lambda t: (paddle.tanh(t).detach(), t.sum()), x))[0] == "stop_gradient"
    # same values, gradient scaled: caught through the input gradient
    assert compare(_run(lambda t: t * 2.0, x),
                   _run(lambda t: (t * 2.0).detach() + t - t.detach(), x))[0] == "grad"


def test_compare_tolerance_scales_with_magnitude():
    from .worker import _close
    big = np.array([1.5e3, 2.0e2, 1.5e-5], dtype="float32")
    assert _close(big, np.array([1.5e3, 2.0e2, 0.0], dtype="float32"))   # cancellation residue
    assert not _close(big, np.array([1.5e3, 2.1e2, 1.5e-5], dtype="float32"))
    assert not _close(np.array([1e-3]), np.array([2e-3]))
    assert _close(np.array([1, 2]), np.array([1, 2])) and not _close(np.array([1, 2]), np.array([1, 3]))


def test_compare_gradients_none_equals_zero_but_not_nonzero():
    x, y = [1.0, 2.0], [3.0, 4.0]
    eager = _run(lambda a, b: a * 2.0, x, y)           # b unused: eager grad None
    zero = _run(lambda a, b: a * 2.0 + b * 0.0, x, y)  # b grad exactly zero
    assert eager[1][1] is None and compare(eager, zero) is None
    lost = _run(lambda a, b: (a * 2.0).detach() + b * 0.0, x, y)
    assert compare(eager, lost)[0] == "grad"           # a static grad of zero where eager has one


def test_check_program_classes(tmp_path):
    src = generate(3).source
    assert check_program(src, 3, static="identity", directory=str(tmp_path))["status"] == AGREE
    bad = src.replace("def f(", "def f_unused(", 1) + "\n\ndef f(x, y):\n    return undefined_name\n"
    assert check_program(bad, 3, static="identity", directory=str(tmp_path))["status"] == EAGER_ERROR
    cos = "import sampan as paddle\nINPUT_SHAPES = [[3]]\n\ndef f(x):\n    return paddle.cos(x)\n"
    res = check_program(cos, 0, static="fail_on_cos", directory=str(tmp_path))
    assert res["status"] == STATIC_ERROR and res["exc_type"] == "NotImplementedError"
    assert signature(res) == "STATIC_ERROR:call:NotImplementedError:cannot convert cos"
    sin = "import sampan as paddle\nINPUT_SHAPES = [[3]]\n\ndef f(x):\n    return paddle.sin(x) * 2.0\n"
    res = check_program(sin, 0, static="sin_off", directory=str(tmp_path))
    assert res["status"] == MISMATCH and res["kind"] == "value" and len(res["inputs"]) == 1


@pytest.mark.skipif(to_static_missing(), reason="sampan.jit has no to_static yet (issue 4)")
def test_check_program_refuses_agreement_without_a_traced_program(tmp_path):
    jit = importlib.import_module("sampan.jit")
    jit.enable_to_static(False)
    try:
        res = check_program(SIMPLE % "", 0, directory=str(tmp_path))
    finally:
        jit.enable_to_static(True)
    assert res["status"] == MISMATCH and res["kind"] == "not_traced"
    assert check_program(SIMPLE % "", 0, directory=str(tmp_path), name="p2")["status"] == AGREE


# -- runner isolation -----------------------------------------------------------------------------
SIMPLE = "import sampan as paddle\nimport os\nINPUT_SHAPES = [[3]]\n\ndef f(x):\n%s    return x * 2.0\n"


def test_runner_attributes_crash_and_hang_to_their_program():
    bodies = ["", "    os.abort()\n", "", "    while True:\n        pass\n", ""]
    reqs = [{"id": str(i), "source": SIMPLE % b, "seed": i, "static": "identity"}
            for i, b in enumerate(bodies)]
    res = run_requests(reqs, jobs=1, timeout=4)
    assert [res[str(i)]["status"] for i in range(5)] == [AGREE, CRASH, AGREE, TIMEOUT, AGREE]
    assert res["1"]["returncode"] != 0


def test_campaign_writes_reports_and_runnable_repros(tmp_path):
    summary, results = campaign(6, seed=5, out=str(tmp_path), jobs=2, static="sin_off")
    assert summary["generated"] == 6 and sum(summary["counts"].values()) == 6
    assert (tmp_path / "results.jsonl").read_text().count("\n") == 6
    fails = sorted(os.listdir(tmp_path / "failures"))
    assert len(fails) == 6 - summary["counts"][AGREE]
    for name in fails:
        compile((tmp_path / "failures" / name).read_text(), name, "exec")


def test_repro_file_runs_standalone(tmp_path):
    import subprocess
    import sys
    res = {"status": MISMATCH, "kind": "value", "message": "m", "inputs": [[0.1, 0.2, 0.3]]}
    path = tmp_path / "repro.py"
    path.write_text(render_repro(SIMPLE % "", res))
    if to_static_missing():
        pytest.skip("sampan.jit has no to_static yet")
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "eager outputs" in out.stdout and "to_static outputs" in out.stdout


# -- shrinker ------------------------------------------------------------------------------------
def test_shrinker_reduces_a_synthetic_static_error():
    seed = next(s for s in range(200) if "paddle.cos(" in generate(s).source
                and count_statements(generate(s).source) > 20)
    prog = generate(seed)
    res = check_program(prog.source, seed, static="fail_on_cos", name="shr_a")
    assert res["status"] == STATIC_ERROR
    small, small_res = shrink_result(prog.source, res, static="fail_on_cos", seed=seed)
    assert "paddle.cos(" in small and count_statements(small) <= 4
    assert signature(small_res) == signature(res)
    assert check_program(small, seed, static="fail_on_cos", name="shr_b")["status"] == STATIC_ERROR


def test_shrinker_reduces_a_synthetic_mismatch():
    seed = next(s for s in range(200) if "paddle.sin(" in generate(s).source
                and count_statements(generate(s).source) > 20
                and check_program(generate(s).source, s, static="sin_off", name="shr_c%d" % s)["status"] == MISMATCH)
    prog = generate(seed)
    res = check_program(prog.source, seed, static="sin_off", name="shr_d")
    small, small_res = shrink_result(prog.source, res, static="sin_off", seed=seed)
    # at most: a call and a return in f, a copy, an item write with the sin and a return
    # in a helper (the smallest program keeping a sin that lives in an item write)
    assert count_statements(small) <= 5 and "paddle.sin(" in small
    assert small_res["status"] == MISMATCH
    again = check_program(small, seed, static="sin_off", inputs=[small_res["inputs"]], name="shr_e")
    assert again["status"] == MISMATCH


# -- the CI campaign -----------------------------------------------------------------------------
@pytest.mark.skipif(to_static_missing(), reason="sampan.jit has no to_static yet (issue 4)")
def test_ci_campaign(tmp_path):
    """A fixed seed range through to_static: every program must agree with eager execution."""
    summary, results = campaign(len(CI_SEEDS), seed=CI_SEEDS.start, out=str(tmp_path),
                                jobs=CI_JOBS, timeout=60)
    bad = {sig: seeds[:5] for sig, seeds in summary["signatures"].items()}
    assert summary["counts"][AGREE] == len(CI_SEEDS), (
        "to_static disagrees with eager (reproduce: python -m tests.fuzz.runner --seeds S "
        "--out DIR --shrink 5): %s" % bad)
