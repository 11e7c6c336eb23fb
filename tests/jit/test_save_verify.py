"""``jit.save(..., verify=True)``: the staged files are loaded and run against the eager
model before they replace the target; a broken exporter is caught and the old files stay."""
import importlib
import os

import numpy as np
import pytest

import sampan as paddle
from sampan.jit.save_verify import SaveVerificationError, example_inputs
from sampan.save_load import inference_model, pdiparams
from sampan.save_load.manifest import SUFFIX

jit_save = importlib.import_module("sampan.jit.save")       # the module, not the function
SPEC = [paddle.static.InputSpec([None, 6], "float32", "x")]


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = paddle.nn.Linear(6, 6)
        self.b = paddle.nn.Linear(6, 3)

    def forward(self, x):
        return self.b(paddle.nn.functional.relu(self.a(x)))


class Two(Net):
    @paddle.jit.to_static(input_spec=[paddle.static.InputSpec([None, 6], "float32")])
    def encode(self, x):
        return paddle.tanh(self.a(x)), self.a(x) * 2.0


def _snapshot(folder):
    return {n: open(os.path.join(folder, n), "rb").read() for n in sorted(os.listdir(folder))}


def test_verify_passes_for_a_good_save(tmp_path):
    net = Net()
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, input_spec=SPEC, verify=True)
    assert sorted(os.listdir(tmp_path)) == ["m.pdiparams", "m.pdiparams.info", "m.pdmodel",
                                            "m" + SUFFIX]
    x = np.random.rand(2, 6).astype("float32")
    np.testing.assert_allclose(paddle.jit.load(prefix)(paddle.to_tensor(x)).numpy(),
                               net(paddle.to_tensor(x)).numpy(), rtol=1e-6)


def test_verify_with_example_tensors_train_mode_and_methods(tmp_path):
    net = Two()
    net.train()
    x = paddle.to_tensor(np.random.rand(5, 6).astype("float32"))
    paddle.jit.save(net, str(tmp_path / "m"), input_spec=[x], verify=True)
    assert net.training and net.a.training        # the layer's mode is given back
    assert os.path.isfile(tmp_path / "m.encode.pdmodel")
    loaded = paddle.jit.load(str(tmp_path / "m"))
    paddle.jit.save(loaded, str(tmp_path / "again"), verify=True)     # TranslatedLayer


def test_verify_with_batch_norm_and_dropout(tmp_path):
    net = paddle.nn.Sequential(paddle.nn.Linear(6, 6), paddle.nn.BatchNorm1D(6),
                               paddle.nn.Dropout(0.5), paddle.nn.Linear(6, 2))
    net(paddle.rand([4, 6]))           # moves the running statistics
    paddle.jit.save(net, str(tmp_path / "bn"), input_spec=SPEC, verify=True)


def test_verify_a_function(tmp_path):
    def f(x, y):
        return paddle.matmul(x, y) + 1.0, paddle.argmax(x, axis=-1)
    specs = [paddle.static.InputSpec([None, 4], "float32"),
             paddle.static.InputSpec([4, 2], "float32")]
    with pytest.warns(UserWarning):
        paddle.jit.save(paddle.jit.to_static(f, input_spec=specs), str(tmp_path / "f"),
                        verify=True)


def test_example_inputs_from_specs():
    xs = example_inputs([paddle.static.InputSpec([None, 3], "int64"),
                         paddle.static.InputSpec([2, None], "float16"),
                         paddle.static.InputSpec([1], "bool")])
    assert xs[0].shape == (2, 3) and xs[0].dtype == np.int64 and set(xs[0].ravel()) <= {0, 1}
    assert xs[1].shape == (2, 2) and xs[1].dtype == np.float16
    assert xs[2].dtype == np.bool_


def _old_model(tmp_path):
    net = Net()
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, input_spec=SPEC)
    return net, prefix, _snapshot(tmp_path)


def test_broken_exporter_dropping_an_op_is_caught(tmp_path, monkeypatch):
    net, prefix, before = _old_model(tmp_path)
    real = jit_save.inference_program

    def drop_relu(program, feeds, fetches, **kw):
        infer, extra = real(program, feeds, fetches, **kw)
        block = infer.global_block()
        for i, op in enumerate(block.ops):
            if op.type == "relu":
                src, dst = op.input("X")[0], op.output("Out")[0]
                block._remove_op(i)
                for later in block.ops:
                    if dst in later.input_arg_names:
                        later._rename_input(dst, src)
                break
        return infer, extra
    monkeypatch.setattr(jit_save, "inference_program", drop_relu)
    with pytest.raises(SaveVerificationError) as ei:
        paddle.jit.save(net, prefix, input_spec=SPEC, verify=True)
    msg = str(ei.value)
    assert "output 0 (" in msg and "of 'forward' differs from the eager model" in msg
    assert "max abs diff" in msg and "were not written" in msg
    assert _snapshot(tmp_path) == before          # untouched, no temp or verify folder left
    paddle.jit.save(net, prefix, input_spec=SPEC)            # without verify: written wrong
    assert _snapshot(tmp_path) != before


def test_broken_exporter_perturbing_a_weight_is_caught(tmp_path, monkeypatch):
    net, prefix, before = _old_model(tmp_path)
    real = pdiparams.write_records

    def perturb(fh, items):
        items = [(n, np.asarray(v) + (1e-3 if n.endswith("w_0") else 0)) for n, v in items]
        return real(fh, items)
    monkeypatch.setattr(pdiparams, "write_records", perturb)
    with pytest.raises(SaveVerificationError, match="values changed|differs"):
        paddle.jit.save(net, prefix, input_spec=SPEC, verify=True)
    assert _snapshot(tmp_path) == before


def test_failed_verify_of_a_new_prefix_writes_nothing(tmp_path, monkeypatch):
    net = Net()
    monkeypatch.setattr(inference_model, "program_bytes", lambda program: b"")  # empty .pdmodel
    with pytest.raises(SaveVerificationError, match="do not load"):
        paddle.jit.save(net, str(tmp_path / "new"), input_spec=SPEC, verify=True)
    assert os.listdir(tmp_path) == []


def test_unknown_config_still_rejected(tmp_path):
    with pytest.raises(ValueError, match="not supported"):
        paddle.jit.save(Net(), str(tmp_path / "m"), input_spec=SPEC, verifyy=True)
