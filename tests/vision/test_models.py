"""paddle.vision.models against real Paddle 2.6.2 (fixtures recorded by
tests/interop/record_vision_models.py): every builder's state dict (keys, order,
shapes), the eval outputs of the smallest model of each family on
deterministic weights (model_cases.py), a LeNet file written by paddle.save,
and pretrained weights from the local cache."""
import gzip
import hashlib
import importlib
import inspect
import json
import os

import numpy as np
import pytest

import sampan as paddle
from sampan.vision import models
from sampan.vision.models import _utils, resnet

from . import model_cases as mc

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


@pytest.fixture(scope="module")
def structure():
    with gzip.open(os.path.join(FIXTURES, "paddle_model_structure.json.gz")) as fh:
        return json.loads(fh.read())


@pytest.fixture(scope="module")
def outputs():
    with np.load(os.path.join(FIXTURES, "paddle_model_outputs.npz")) as data:
        return {k: data[k] for k in data.files}


def _build(case):
    """The model of an output case with its deterministic weights; built under
    LazyGuard (no initialization to pay for), the weights loaded afterwards."""
    builder, kwargs, _ = mc.OUTPUT_CASES[case]
    with paddle.LazyGuard():
        model = getattr(models, builder)(**kwargs)
    shapes = {k: v.shape for k, v in model.state_dict().items()}
    model.set_state_dict(mc.make_weights(case, shapes))
    model.eval()
    return model


def _run(model, x):
    with paddle.no_grad():
        out = model(paddle.to_tensor(x))
    return [o.numpy() for o in (out if isinstance(out, list) else [out])]


def _close(got, want, what):
    assert got.shape == want.shape and got.dtype == np.float32, \
        f"{what}: sampan {got.dtype}{got.shape}, paddle {want.dtype}{want.shape}"
    scale = float(np.abs(want).max())
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * scale, err_msg=what)


def test_public_names_are_paddles():
    assert len(models.__all__) == 51 and len(set(models.__all__)) == 51
    for name in models.__all__:
        assert getattr(paddle.vision.models, name) is getattr(models, name)
        assert getattr(paddle.vision, name) is getattr(models, name)
    for name in mc.BUILDERS:
        params = inspect.signature(getattr(models, name)).parameters
        assert params["pretrained"].default is False, name
    assert inspect.signature(models.vgg11).parameters["batch_norm"].default is False
    assert inspect.signature(models.mobilenet_v1).parameters["scale"].default == 1.0


@pytest.mark.parametrize("case", list(mc.STRUCTURE_CASES))
def test_state_dict_is_paddles(case, structure):
    builder, kwargs = mc.STRUCTURE_CASES[case]
    with paddle.LazyGuard():        # the shapes without filling 100M+ parameters
        model = getattr(models, builder)(**kwargs)
    got = [[k, list(v.shape)] for k, v in model.state_dict().items()]
    want = structure[case]
    missing = sorted({k for k, _ in want} - {k for k, _ in got})
    extra = sorted({k for k, _ in got} - {k for k, _ in want})
    assert not missing and not extra, f"{case}: missing {missing[:5]}, extra {extra[:5]}"
    assert got == want


@pytest.mark.parametrize("case", list(mc.OUTPUT_CASES))
def test_eval_output_is_paddles(case, outputs):
    got = _run(_build(case), mc.make_input(case, mc.OUTPUT_CASES[case][2]))
    n = len([k for k in outputs if k.startswith(case + "/")])
    assert len(got) == n
    for i, g in enumerate(got):
        _close(g, outputs[f"{case}/out{i}"], f"{case} output {i}")


@pytest.mark.parametrize("case", list(mc.TRAIN_CASES))
def test_train_step_is_paddles(case, outputs):
    """Train mode (batch statistics): the output, gradients of a weighted sum
    through the whole network, and the updated running statistics."""
    builder, kwargs, shape, grads, buffers = mc.TRAIN_CASES[case]
    model = getattr(models, builder)(**kwargs)
    model.set_state_dict(mc.make_weights(case, {k: v.shape
                                                for k, v in model.state_dict().items()}))
    model.train()
    out = model(paddle.to_tensor(mc.make_input(case, shape)))
    weight = mc.make_input(case + "/loss", out.shape)
    (out * paddle.to_tensor(weight)).sum().backward()
    _close(out.numpy(), outputs[f"{case}/out0"], f"{case} output")
    state = model.state_dict()
    for key in grads:
        _close(state[key].grad.numpy(), outputs[f"{case}/grad/{key}"], f"{case} grad {key}")
    for key in buffers:
        _close(state[key].numpy(), outputs[f"{case}/state/{key}"], f"{case} {key}")


def test_paddle_saved_lenet_loads(outputs):
    state = paddle.load(os.path.join(FIXTURES, "lenet_paddle.pdparams"))
    model = models.LeNet()
    missing, unexpected = model.set_state_dict(state)
    assert not missing and not unexpected
    model.eval()
    got = _run(model, mc.make_input("lenet", mc.OUTPUT_CASES["lenet"][2]))[0]
    _close(got, outputs["lenet_paddle/out0"], "LeNet with Paddle's weights file")


def test_train_mode_runs_backward():
    model = models.mobilenet_v3_small(scale=0.25, num_classes=4)
    model.train()
    x = paddle.to_tensor(mc.make_input("train", [2, 3, 32, 32]))
    loss = model(x).mean()
    loss.backward()
    grads = [p for p in model.parameters() if not p.stop_gradient and p.grad is None]
    assert not grads, f"no gradient for {[p.name for p in grads][:5]}"


def test_to_static_gives_eager_output(outputs):
    model = _build("resnet18")
    x = mc.make_input("resnet18", mc.OUTPUT_CASES["resnet18"][2])
    eager = _run(model, x)[0]
    static = paddle.jit.to_static(
        model, input_spec=[paddle.static.InputSpec([None, 3, 64, 64], "float32", "x")])
    got = _run(static, x)[0]
    np.testing.assert_allclose(got, eager, rtol=1e-5, atol=1e-5)
    _close(got, outputs["resnet18/out0"], "to_static resnet18")


def test_intermediate_layer_getter():
    model = models.resnet18()
    getter = _utils.IntermediateLayerGetter(model, {"layer1": "feat1", "layer3": "feat2"})
    assert list(getter.keys())[-1] == "layer3"
    out = getter(paddle.rand([1, 3, 64, 64]))
    assert [(k, v.shape) for k, v in out.items()] == [("feat1", [1, 64, 16, 16]),
                                                      ("feat2", [1, 256, 4, 4])]
    with pytest.raises(ValueError, match="return_layers are not present"):
        _utils.IntermediateLayerGetter(model, {"layer9": "x"})


def test_densenet_without_pool_returns_the_feature_map():
    # Paddle 2.6 raises UnboundLocalError here (its forward never sets the result)
    model = models.densenet121(with_pool=False, num_classes=0)
    model.eval()
    assert model(paddle.rand([1, 3, 32, 32])).shape == [1, 1024, 1, 1]


@pytest.mark.parametrize("build, error, match", [
    (lambda: models.ShuffleNetV2(scale=0.75), NotImplementedError, r"scale size:\[0.75\]"),
    (lambda: models.shufflenet_v2_x1_0(act="gelu"), RuntimeError, "not supported: gelu"),
    (lambda: models.SqueezeNet("1.2"), AssertionError, "supported versions"),
    (lambda: models.DenseNet(layers=100), AssertionError, "supported layers"),
    (lambda: models.ResNet(resnet.BasicBlock, 20), KeyError, "20"),
    (lambda: resnet.BasicBlock(8, 8, dilation=2), NotImplementedError, "Dilation > 1"),
    (lambda: models.vgg11(pretrained=True, num_classes=0), AssertionError,
     "vgg11 model do not have"),
    (lambda: models.mobilenet_v2(pretrained=True, scale=0.5), AssertionError,
     "mobilenetv2_0.5 model do not have"),
])
def test_bad_arguments_raise_paddles_errors(build, error, match):
    with pytest.raises(error, match=match):
        build()


def test_pretrained_missing_file_says_where_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setattr(_utils, "WEIGHTS_HOME", str(tmp_path))
    with pytest.raises(RuntimeError) as info:
        models.resnet18(pretrained=True)
    msg = str(info.value)
    assert "https://paddle-hapi.bj.bcebos.com/models/resnet18.pdparams" in msg
    assert os.path.join(str(tmp_path), "resnet18.pdparams") in msg
    assert "cf548f46534aa3560945be4b95cd11c4" in msg


def test_pretrained_weights_load_from_the_cache(tmp_path, monkeypatch, outputs):
    """A weights file in the cache (Paddle's file name) with the expected md5
    is loaded; one with another md5 is refused."""
    case = "resnet18"
    path = str(tmp_path / "resnet18.pdparams")
    shapes = {k: v.shape for k, v in models.resnet18().state_dict().items()}
    paddle.save(mc.make_weights(case, shapes), path)
    with open(path, "rb") as fh:
        md5 = hashlib.md5(fh.read()).hexdigest()
    monkeypatch.setattr(_utils, "WEIGHTS_HOME", str(tmp_path))
    url = resnet.model_urls[case][0]
    with pytest.raises(RuntimeError, match="md5"):
        models.resnet18(pretrained=True)        # Paddle's md5 is not this file's
    monkeypatch.setitem(resnet.model_urls, case, (url, md5))
    model = models.resnet18(pretrained=True)
    model.eval()
    got = _run(model, mc.make_input(case, mc.OUTPUT_CASES[case][2]))[0]
    _close(got, outputs["resnet18/out0"], "resnet18(pretrained=True)")


def test_model_urls_are_paddles():
    """Every pretrained file, its URL and md5, as in Paddle's modules."""
    with open(os.path.join(FIXTURES, "paddle_model_urls.json")) as fh:
        want = json.load(fh)
    got = {}
    for mod in mc.MODULES:
        # (the modules, not the builders of the same name vision.models exports)
        for arch, (url, md5) in importlib.import_module(
                "sampan.vision.models." + mod).model_urls.items():
            got[arch] = [mod, url, md5]
    assert got == want


def test_conv_norm_activation_is_paddles():
    """Facts from Paddle 2.6: a bias only without norm layer; 'same' padding
    (kernel_size - 1) // 2 * dilation; a Sequential of conv, norm, activation."""
    from sampan.vision.ops import ConvNormActivation
    plain = ConvNormActivation(3, 8, norm_layer=None)
    assert [(k, v.shape) for k, v in plain.state_dict().items()] == \
        [("0.weight", [8, 3, 3, 3]), ("0.bias", [8])]
    m = ConvNormActivation(3, 8, kernel_size=5, dilation=2)
    assert [k for k in m.state_dict()] == ["0.weight", "1.weight", "1.bias", "1._mean",
                                           "1._variance"]
    assert len(m) == 3 and isinstance(m[2], paddle.nn.ReLU)
    assert m(paddle.rand([1, 3, 16, 16])).shape == [1, 8, 16, 16]
    assert len(ConvNormActivation(3, 8, activation_layer=None)) == 2
