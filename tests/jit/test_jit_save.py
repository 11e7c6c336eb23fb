"""sampan.jit.save: Layers (decorated or with input_spec), extra @to_static methods,
tensor-dependent branches, BatchNorm/Dropout in test mode, plain functions, re-saving a
TranslatedLayer; the files load with jit.load, load_inference_model and the Predictor."""
import os
import shutil
import warnings

import numpy as np
import pytest

import sampan as paddle
from sampan.inference import Config, create_predictor
from sampan.save_load import read_params_info
from sampan.save_load.program_io import read_program
from sampan.static import InputSpec

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "shared",
                      "paddle-reference", "models")
SPEC = [InputSpec([None, 4], "float32", "x")]


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(4, 8)
        self.bn = paddle.nn.BatchNorm1D(8)
        self.drop = paddle.nn.Dropout(0.5)
        self.fc2 = paddle.nn.Linear(8, 3)

    @paddle.jit.to_static(input_spec=SPEC)
    def forward(self, x):
        return self.fc2(self.drop(paddle.nn.functional.relu(self.bn(self.fc1(x)))))

    @paddle.jit.to_static(input_spec=SPEC)
    def embed(self, x):
        return self.fc1(x)


def _x(n=5, seed=0):
    return np.random.RandomState(seed).rand(n, 4).astype("float32")


def _eager(layer, x, method="forward"):
    with paddle.no_grad():
        return getattr(layer, method)(paddle.to_tensor(x)).numpy()


def _set_bn_stats(net):
    rng = np.random.RandomState(3)
    net.bn._mean.set_value(rng.rand(8).astype("float32"))
    net.bn._variance.set_value((rng.rand(8) + 0.5).astype("float32"))


def test_layer_with_extra_method(tmp_path):
    net = Net()
    _set_bn_stats(net)
    net.eval()
    x = _x()
    ref, ref_embed = _eager(net, x), _eager(net, x, "embed")
    prefix = str(tmp_path / "net")
    paddle.jit.save(net, prefix)
    assert sorted(os.listdir(tmp_path)) == ["net.embed.pdiparams", "net.embed.pdmodel",
                                            "net.pdiparams", "net.pdiparams.info", "net.pdmodel",
                                            "net.sampan.json"]
    info = read_params_info(prefix + ".pdiparams.info")
    by_struct = {e["structured_name"]: e for e in info.values()}
    assert set(by_struct) == set(net.state_dict())
    assert by_struct["bn._mean"]["trainable"] is False and by_struct["bn._mean"]["stop_gradient"]
    assert by_struct["fc1.weight"]["trainable"] is True
    program = read_program(prefix + ".pdmodel")
    for op in program.global_block().ops:
        if op.has_attr("is_test"):
            assert op.attr("is_test") is True, op.type
    loaded = paddle.jit.load(prefix)
    loaded.eval()
    np.testing.assert_allclose(_eager(loaded, x), ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_eager(loaded, x, "embed"), ref_embed, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(create_predictor(Config(prefix)).run([x])[0], ref, rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(
        create_predictor(Config(prefix + ".embed.pdmodel", prefix + ".embed.pdiparams")).run(
            [x])[0], ref_embed, rtol=1e-5, atol=1e-6)
    exe = paddle.static.Executor()
    with paddle.static.scope_guard(paddle.static.Scope()):
        prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        assert feeds == ["x"]
        got = exe.run(prog, feed={"x": x}, fetch_list=fetches)[0]
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_saved_in_train_mode_is_test_mode(tmp_path):
    net = Net()
    _set_bn_stats(net)
    net.train()
    x = _x()
    paddle.jit.save(net, str(tmp_path / "m"))
    net.eval()
    ref = _eager(net, x)
    np.testing.assert_allclose(create_predictor(Config(str(tmp_path / "m"))).run([x])[0], ref,
                               rtol=1e-5, atol=1e-6)


class Plain(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)

    def forward(self, x):
        h = self.fc(x)
        return paddle.static.nn.cond(h.mean() > 0, lambda: h * 2.0, lambda: h - 1.0)


def test_undecorated_layer_with_input_spec_and_a_branch(tmp_path):
    net = Plain()
    prefix = str(tmp_path / "plain")
    with pytest.raises(ValueError, match="input_spec"):
        paddle.jit.save(net, prefix)
    paddle.jit.save(net, prefix, input_spec=SPEC)
    types = [op.type for op in read_program(prefix + ".pdmodel").global_block().ops]
    assert types.count("conditional_block") == 2 and "select_input" in types
    pred = create_predictor(Config(prefix))
    loaded = paddle.jit.load(prefix)
    loaded.eval()
    for sign in (1.0, -1.0):
        x = (sign * (_x() + 0.1)).astype("float32")
        ref = _eager(net, x)
        np.testing.assert_allclose(pred.run([x])[0], ref, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(_eager(loaded, x), ref, rtol=1e-5, atol=1e-6)


def test_to_static_layer_and_output_spec(tmp_path):
    class Two(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(4, 2)

        def forward(self, x):
            y = self.fc(x)
            return y, y.sum()

    net = paddle.jit.to_static(Two(), input_spec=SPEC)
    x = _x()
    with paddle.no_grad():
        y, s = net(paddle.to_tensor(x))
    paddle.jit.save(net, str(tmp_path / "both"))
    out = create_predictor(Config(str(tmp_path / "both"))).run([x])
    np.testing.assert_allclose(out[0], y.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[1], s.numpy(), rtol=1e-5, atol=1e-5)
    paddle.jit.save(net, str(tmp_path / "first"), output_spec=[0])
    pred = create_predictor(Config(str(tmp_path / "first")))
    assert len(pred.get_output_names()) == 1
    types = [op.type for op in read_program(str(tmp_path / "first.pdmodel")).global_block().ops]
    assert "reduce_sum" not in types                     # pruned: the sum is not an output
    with pytest.raises(ValueError, match="out of range"):
        paddle.jit.save(net, str(tmp_path / "bad"), output_spec=[5])


def test_plain_function_saves_no_parameters(tmp_path):
    def f(a, b):
        return a * 2.0 + b

    spec = [InputSpec([None, 3], "float32", "a"), InputSpec([None, 3], "float32", "b")]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        paddle.jit.save(f, str(tmp_path / "f"), input_spec=spec)
    assert any("no parameters are saved" in str(m.message) for m in w)
    assert sorted(os.listdir(tmp_path)) == ["f.pdmodel", "f.sampan.json"]
    pred = create_predictor(Config(str(tmp_path / "f.pdmodel"), ""))
    assert pred.get_input_names() == ["a", "b"]
    a, b = np.ones((2, 3), "float32"), np.full((2, 3), 0.5, "float32")
    np.testing.assert_array_equal(pred.run([a, b])[0], a * 2.0 + b)


def test_resave_translated_layer(tmp_path):
    src = os.path.join(MODELS, "lenet")
    layer = paddle.jit.load(os.path.join(src, "model"))
    prefix = str(tmp_path / "again")
    paddle.jit.save(layer, prefix)
    assert open(prefix + ".pdiparams", "rb").read() == \
        open(os.path.join(src, "model.pdiparams"), "rb").read()
    info = read_params_info(prefix + ".pdiparams.info")
    assert info == read_params_info(os.path.join(src, "model.pdiparams.info"))
    ins = dict(np.load(os.path.join(src, "inputs.npz")))
    outs = dict(np.load(os.path.join(src, "outputs.npz")))
    pred = create_predictor(Config(prefix))
    assert pred.get_output_names() == list(outs)
    np.testing.assert_allclose(pred.run([ins["img"]])[0], list(outs.values())[0], rtol=1e-5,
                               atol=1e-5)


def test_fine_tuned_translated_layer_saves_new_weights(tmp_path):
    src = os.path.join(MODELS, "mlp_cond")
    layer = paddle.jit.load(os.path.join(src, "model"))
    x = paddle.to_tensor(dict(np.load(os.path.join(src, "inputs.npz")))["x"])
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())
    layer(x).mean().backward()
    opt.step()
    layer.eval()
    with paddle.no_grad():
        ref = layer(x).numpy()
    paddle.jit.save(layer, str(tmp_path / "tuned"))
    got = create_predictor(Config(str(tmp_path / "tuned"))).run([x.numpy()])[0]
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_save_errors(tmp_path):
    net = Net()
    with pytest.raises(ValueError, match="dirname/file_prefix"):
        paddle.jit.save(net, str(tmp_path) + "/")
    with pytest.raises(ValueError, match="directory"):
        paddle.jit.save(net, str(tmp_path))
    with pytest.raises(ValueError, match="not supported"):
        paddle.jit.save(net, str(tmp_path / "m"), frobnicate=True)
    with pytest.raises(TypeError):
        paddle.jit.save(42, str(tmp_path / "m"))
    assert os.listdir(tmp_path) == []


def test_model_copied_then_loaded_elsewhere(tmp_path):
    net = Net()
    net.eval()
    x = _x()
    paddle.jit.save(net, str(tmp_path / "a" / "net"))
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    loaded = paddle.jit.load(str(tmp_path / "b" / "net"))
    loaded.eval()
    np.testing.assert_allclose(_eager(loaded, x), _eager(net, x), rtol=1e-5, atol=1e-6)
