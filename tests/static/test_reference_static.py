"""Models exported by real Paddle 2.6.2 (../shared/paddle-reference/models) run on
sampan's executor: the program parses from model.pdmodel, the parameters load
from model.pdiparams (persistables in sorted-name order) into a Scope, and the
outputs for inputs*.npz match outputs*.npz, with the serial and the threaded
runner.  ``loop`` has two data-dependent ``while`` ops, ``mlp_cond`` a
conditional_block pair joined by select_input."""
import os

import numpy as np
import pytest

import sampan  # noqa: F401
from sampan.executor import Executor, ExecutionConfig, Scope
from sampan.ops import has_op
from sampan.save_load import pdiparams
from sampan.static import Program

REF = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "..", "shared", "paddle-reference", "models")
MODELS = ["lenet", "bn_embed", "loop", "mlp_cond"]
HOLDERS = {"feed", "fetch"}


def _load(model):
    d = os.path.join(REF, model)
    with open(os.path.join(d, "model.pdmodel"), "rb") as f:
        program = Program.parse_from_string(f.read())
    names = [v.name for v in program.global_block().vars.values()
             if v.persistable and v.name not in ("feed", "fetch")]
    scope = Scope()
    for name, a in pdiparams.load_pdiparams(os.path.join(d, "model.pdiparams"), names).items():
        scope.var(name).set(a)
    return program, scope


def _cases(model):
    d = os.path.join(REF, model)
    out = []
    for sfx in ("", "_alt"):
        path = os.path.join(d, f"inputs{sfx}.npz")
        if os.path.exists(path):
            out.append((dict(np.load(path)), dict(np.load(os.path.join(d, f"outputs{sfx}.npz")))))
    assert out, f"no inputs for {model}"
    return out


@pytest.mark.parametrize("model", MODELS)
def test_every_op_type_is_known(model):
    program, _ = _load(model)
    types = {op.type for b in program.blocks for op in b.ops} - HOLDERS
    assert not [t for t in types if not has_op(t)]


@pytest.mark.parametrize("runner", ["serial", "threaded"])
@pytest.mark.parametrize("model", MODELS)
def test_reference_outputs(model, runner):
    program, scope = _load(model)
    exe = Executor(config=ExecutionConfig(runner=runner))
    try:
        for feed, want in _cases(model):
            got = exe.run(program, feed=feed, scope=scope)
            assert len(got) == len(want)
            for (name, w), g in zip(want.items(), got):
                assert g.shape == w.shape and g.dtype == w.dtype, name
                np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=name)
            again = exe.run(program, feed=feed, scope=scope)     # the cached plan
            for g, a in zip(got, again):
                np.testing.assert_array_equal(g, a)
    finally:
        exe.close()


def test_loop_trip_count_follows_the_feed():
    program, scope = _load("loop")
    exe = Executor()
    feed, _ = _cases("loop")[0]
    outs = [exe.run(program, feed=dict(feed, n=np.array([k], "int64")), scope=scope)[0]
            for k in (0, 1, 3, 5)]
    assert not np.allclose(outs[0], outs[1]) and not np.allclose(outs[2], outs[3])
    np.testing.assert_allclose(outs[2], _cases("loop")[0][1]["save_infer_model/scale_0.tmp_0"],
                               rtol=1e-5, atol=1e-5)


def test_mlp_cond_takes_both_branches():
    """inputs.npz takes the true branch, inputs_alt.npz the false one."""
    program, scope = _load("mlp_cond")
    exe = Executor()
    for feed, want in _cases("mlp_cond"):
        interp = exe.prepare(program, feed, None, scope)
        got = exe.run(program, feed=feed, scope=scope)
        np.testing.assert_allclose(got[0], list(want.values())[0], rtol=1e-5, atol=1e-5)
        assert interp is exe.prepare(program, feed, None, scope)
