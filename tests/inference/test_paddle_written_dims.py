"""A file Paddle writes and loads, sampan loads: Paddle 2.6.2 writes the unused
instance_norm outputs of a Conv1D + InstanceNorm1D model with dims [-4] (-1 times
the 4 channels).  Such a size is read as unknown (-1) for a variable computed at
run time; on a persistable variable, whose data must have a shape, it is still
an error naming the variable."""
import os
import shutil

import numpy as np
import pytest

import sampan as paddle
from sampan.program.proto import framework_pb2 as pb
from sampan.save_load.fileio import FormatError

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                    "paddle_instance_norm1d")


def _expected():
    data = np.load(os.path.join(HERE, "expected.npz"))
    return data["x"], data["out"]


def _negative_dims(path):
    desc = pb.ProgramDesc()
    with open(path, "rb") as fh:
        desc.ParseFromString(fh.read())
    return {v.name: list(v.type.lod_tensor.tensor.dims) for b in desc.blocks for v in b.vars
            if v.type.HasField("lod_tensor") and min(v.type.lod_tensor.tensor.dims,
                                                     default=0) < -1}


def test_the_fixture_has_paddles_dims():
    bad = _negative_dims(os.path.join(HERE, "model.pdmodel"))
    assert bad and all(d == [-4] for d in bad.values()), bad


def test_predictor_and_jit_load_run_it_with_paddles_numbers():
    x, want = _expected()
    cfg = paddle.inference.Config(os.path.join(HERE, "model.pdmodel"),
                                  os.path.join(HERE, "model.pdiparams"))
    pred = paddle.inference.create_predictor(cfg)
    np.testing.assert_allclose(pred.run([x])[0], want, rtol=1e-5, atol=1e-6)
    layer = paddle.jit.load(os.path.join(HERE, "model"))
    layer.eval()
    np.testing.assert_allclose(layer(paddle.to_tensor(x)).numpy(), want, rtol=1e-5,
                               atol=1e-6)


def test_a_persistable_with_such_dims_is_still_refused(tmp_path):
    for f in os.listdir(HERE):
        shutil.copy(os.path.join(HERE, f), tmp_path / f)
    desc = pb.ProgramDesc()
    path = tmp_path / "model.pdmodel"
    desc.ParseFromString(path.read_bytes())
    param = next(v for v in desc.blocks[0].vars if v.persistable and
                 v.type.HasField("lod_tensor") and v.name != "feed" and v.name != "fetch")
    del param.type.lod_tensor.tensor.dims[:]
    param.type.lod_tensor.tensor.dims.extend([-4])
    path.write_bytes(desc.SerializeToString())
    with pytest.raises(FormatError, match=rf"'{param.name}'.*\[-4\].*persistable"):
        paddle.inference.create_predictor(paddle.inference.Config(
            str(path), str(tmp_path / "model.pdiparams")))
