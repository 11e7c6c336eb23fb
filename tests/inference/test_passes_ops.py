"""Every op a Predictor runs, the ones its graph passes write included, is
declared in the op registry: ``has_op`` alone answers "is this op known" (the
``feed``/``fetch`` holders excepted: they are where the plan's feeds and
fetches come from, not instructions), and the fused op runs as a declared op
through its kernel, like any other."""
import os

import numpy as np
import pytest

import sampan  # noqa: F401
from sampan.executor.plan import HOLDERS
from sampan.inference import Config, create_predictor
from sampan.inference.passes import FC_OP
from sampan.ops import has_op, get_op

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "shared",
                      "paddle-reference", "models")
NAMES = sorted(m for m in os.listdir(MODELS)
               if os.path.isfile(os.path.join(MODELS, m, "model.pdmodel"))) \
    if os.path.isdir(MODELS) else []


def _predictor(model):
    folder = os.path.join(MODELS, model)
    return create_predictor(Config(os.path.join(folder, "model.pdmodel"),
                                   os.path.join(folder, "model.pdiparams")))


def test_reference_models_found():
    assert len(NAMES) >= 4, NAMES


@pytest.mark.parametrize("model", NAMES)
def test_every_op_of_an_optimized_program_is_declared(model):
    program = _predictor(model).program
    types = {op.type for b in program.blocks for op in b.ops}
    assert not [t for t in types if t not in HOLDERS and not has_op(t)], types
    assert FC_OP in types          # (every reference model has a Linear the pass fuses)


def test_the_fused_op_runs_through_its_kernel():
    pred = _predictor("lenet")
    folder = os.path.join(MODELS, "lenet")
    ins = dict(np.load(os.path.join(folder, "inputs.npz")))
    want = dict(np.load(os.path.join(folder, "outputs.npz")))
    got = pred.run([ins[n] for n in pred.get_input_names()])
    for g, n in zip(got, pred.get_output_names()):
        np.testing.assert_allclose(g, want[n], rtol=1e-5, atol=1e-5)
    fc = get_op(FC_OP)
    assert fc.kernels and fc.infer_meta is not None and not fc.differentiable
