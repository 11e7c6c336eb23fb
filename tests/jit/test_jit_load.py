"""sampan.jit.load -> TranslatedLayer: Paddle-exported reference models reproduce their
outputs; parameters and buffers are eager tensors bound to the program (no copies);
gradients flow through the loaded program so it can be fine-tuned; train()/eval();
program(); extra methods; clear input errors."""
import os
import shutil

import numpy as np
import pytest

import sampan as paddle
from sampan.jit import TranslatedLayer
from sampan.ops import OpError

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "shared",
                      "paddle-reference", "models")
CASES = [(m, sfx) for m in ("lenet", "bn_embed", "loop", "mlp_cond") for sfx in ("", "_alt")
         if os.path.isfile(os.path.join(MODELS, m, f"outputs{sfx}.npz"))]


def _saved(layer, tensors):
    """{name in the model file: tensor} (loaded tensors are named '<name>.load_<n>')."""
    return {layer._saved_names[t.name]: t for t in tensors}


def _case(model, sfx=""):
    folder = os.path.join(MODELS, model)
    return (os.path.join(folder, "model"), dict(np.load(os.path.join(folder, f"inputs{sfx}.npz"))),
            dict(np.load(os.path.join(folder, f"outputs{sfx}.npz"))))


@pytest.mark.parametrize("model,sfx", CASES)
def test_reference_model(model, sfx):
    prefix, ins, outs = _case(model, sfx)
    layer = paddle.jit.load(prefix)
    assert isinstance(layer, TranslatedLayer) and isinstance(layer, paddle.nn.Layer)
    layer.eval()
    with paddle.no_grad():
        got = layer(*[paddle.to_tensor(v) for v in ins.values()])
    got = got if isinstance(got, list) else [got]
    assert len(got) == len(outs)
    for g, w in zip(got, outs.values()):
        assert isinstance(g, paddle.Tensor)
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-5, atol=1e-5)
    # with gradients recorded (parameters are trainable) the numbers are the same
    got = layer(*[paddle.to_tensor(v) for v in ins.values()])
    got = got if isinstance(got, list) else [got]
    np.testing.assert_allclose(got[0].numpy(), list(outs.values())[0], rtol=1e-5, atol=1e-5)


def test_parameters_and_buffers():
    layer = paddle.jit.load(_case("bn_embed")[0])
    params = _saved(layer, layer.parameters())
    buffers = set(_saved(layer, layer.buffers()))
    assert buffers == {"batch_norm1d_0.w_1", "batch_norm1d_0.w_2"}   # running statistics
    assert "embedding_0.w_0" in params and "batch_norm1d_0.w_0" in params
    assert all(isinstance(p, paddle.Parameter) and p.trainable for p in params.values())
    # the program reads the layer's own arrays: no copies
    bound = layer._methods["forward"].program._bound
    assert all(bound[p.name] is p for p in params.values())


def test_loaded_names_never_clash_with_new_layers():
    layer = paddle.jit.load(_case("lenet")[0])
    names = {p.name for p in layer.parameters()}
    assert all(".load_" in n for n in names)
    fresh = paddle.nn.Linear(3, 3)
    assert fresh.weight.name not in names
    block = layer.program().global_block()
    assert all(block.has_var(n) for n in names)


def test_without_info_file_same_split(tmp_path):
    src = os.path.join(MODELS, "bn_embed")
    for f in ("model.pdmodel", "model.pdiparams"):
        shutil.copy(os.path.join(src, f), tmp_path / f)
    layer = paddle.jit.load(str(tmp_path / "model"))
    assert set(_saved(layer, layer.buffers())) == {"batch_norm1d_0.w_1", "batch_norm1d_0.w_2"}
    assert len(layer.parameters()) == 7


def test_gradient_through_loaded_program():
    prefix, ins, _ = _case("lenet")
    layer = paddle.jit.load(prefix)
    layer.eval()
    out = layer(paddle.to_tensor(ins["img"]))
    assert not out.stop_gradient
    out.mean().backward()
    params = _saved(layer, layer.parameters())
    # d mean(out) / d bias of the last Linear = batch / (batch * 10) for every class
    np.testing.assert_allclose(params["linear_2.b_0"].grad.numpy(), np.full(10, 0.1, "float32"),
                               rtol=1e-6)
    assert all(p.grad is not None for p in params.values())


def test_gradient_matches_finite_differences():
    prefix, ins, _ = _case("mlp_cond")
    layer = paddle.jit.load(prefix)
    layer.eval()
    x = paddle.to_tensor(ins["x"])
    p = _saved(layer, layer.parameters())["linear_1.b_0"]
    layer(x).sum().backward()
    g = p.grad.numpy().copy()
    eps = 1e-2
    base = p.numpy().copy()
    for j in range(len(base)):
        vals = []
        for d in (eps, -eps):
            w = base.copy()
            w[j] += d
            p.set_value(w)
            with paddle.no_grad():
                vals.append(float(layer(x).sum().numpy()))
        np.testing.assert_allclose(g[j], (vals[0] - vals[1]) / (2 * eps), rtol=1e-2, atol=1e-3)
    p.set_value(base)


def test_fine_tuning_reduces_the_loss():
    prefix, ins, _ = _case("lenet")
    layer = paddle.jit.load(prefix)
    layer.train()
    x = paddle.to_tensor(ins["img"])
    target = paddle.to_tensor(np.eye(10, dtype="float32")[[3, 7]])
    opt = paddle.optimizer.SGD(learning_rate=0.05, parameters=layer.parameters())
    losses = []
    for _ in range(5):
        loss = paddle.nn.functional.mse_loss(layer(x), target)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss.numpy()))
    assert losses[-1] < losses[0] * 0.9, losses


def test_train_and_eval_modes():
    prefix, ins, outs = _case("bn_embed")
    layer = paddle.jit.load(prefix)
    m = layer._methods["forward"]
    assert all(op.attr("is_test") for op in m.program.global_block().ops if op.has_attr("is_test"))
    assert not any(op.attr("is_test") for op in m.train_program.global_block().ops
                   if op.has_attr("is_test"))
    assert layer.training                          # a Layer starts in train mode, as Paddle's
    layer.eval()
    with paddle.no_grad():
        a = layer(paddle.to_tensor(ins["ids"])).numpy()
    np.testing.assert_allclose(a, outs["save_infer_model/scale_0.tmp_0"], rtol=1e-5, atol=1e-5)


def test_program_has_no_feed_fetch_or_output_copies():
    layer = paddle.jit.load(_case("lenet")[0])
    types = [op.type for op in layer.program().global_block().ops]
    assert "feed" not in types and "fetch" not in types and "scale" not in types
    assert types[0] == "conv2d"
    spec = layer._input_spec()
    assert spec[0].name == "img" and list(spec[0].shape) == [-1, 1, 28, 28]
    assert layer._output_spec()[0].name == "linear_2.tmp_1"
    with pytest.raises(ValueError, match="no method"):
        layer.program("nope")


def test_extra_methods(tmp_path):
    src = os.path.join(MODELS, "lenet")
    for f in ("model.pdmodel", "model.pdiparams", "model.pdiparams.info"):
        shutil.copy(os.path.join(src, f), tmp_path / f)
    shutil.copy(os.path.join(src, "model.pdmodel"), tmp_path / "model.predict.pdmodel")
    shutil.copy(os.path.join(src, "model.pdiparams"), tmp_path / "model.predict.pdiparams")
    layer = paddle.jit.load(str(tmp_path / "model"))
    _, ins, outs = _case("lenet")
    layer.eval()
    with paddle.no_grad():
        a = layer.predict(paddle.to_tensor(ins["img"]))
    np.testing.assert_allclose(a.numpy(), list(outs.values())[0], rtol=1e-5, atol=1e-5)
    assert len(layer.parameters()) == 10            # shared between the methods


def test_input_errors():
    prefix, ins, _ = _case("lenet")
    layer = paddle.jit.load(prefix)
    with pytest.raises(ValueError, match="float32"):
        layer(paddle.to_tensor(ins["img"].astype("float64")))
    with pytest.raises(ValueError, match="1 input"):
        layer(paddle.to_tensor(ins["img"]), paddle.to_tensor(ins["img"]))
    with pytest.raises(ValueError, match=r"input 'img': expected shape \[-1, 1, 28, 28\]"):
        layer(paddle.to_tensor(np.zeros((1, 3, 28, 28), "float32")))


@pytest.mark.filterwarnings("ignore:jit.save:UserWarning")
def test_saved_function_with_tensor_control_flow_runs_loaded(tmp_path):
    """A to_static function whose `if` and `while` read an input directly: the loaded
    program has no feed ops, and its sub-blocks must still see the fed input."""
    @paddle.jit.to_static
    def branchy(x):
        if x.sum() > 0:
            return x + 1
        return x - 1

    @paddle.jit.to_static
    def loopy(x):
        i = paddle.zeros([1], "int64")
        while i < 3:
            x = x * 2 + i.astype("float32")
            i += 1
        return x

    spec = [paddle.static.InputSpec([None, 3], "float32")]
    for fn in (branchy, loopy):
        path = str(tmp_path / fn.__name__)
        paddle.jit.save(fn, path, input_spec=spec)
        loaded = paddle.jit.load(path)
        for sign in (1.0, -1.0):
            x = paddle.to_tensor(sign * np.arange(6, dtype="float32").reshape(2, 3) + sign)
            np.testing.assert_allclose(loaded(x).numpy(), fn(x).numpy(), rtol=1e-6)


PADDLE_LOOPS = os.path.join(os.path.dirname(__file__), "fixtures", "paddle_control_flow")


@pytest.mark.parametrize("n", [3, 6, 40])
def test_paddle_exported_loops_breaks_and_lists_run_loaded(n):
    """A model real Paddle 2.6.2 exported with 8 blocks (tests/interop/record_paddle_control_flow.py): every
    variable its sub-blocks read resolves, in jit.load and in the Predictor."""
    from sampan.inference import Config, create_predictor
    exp = np.load(os.path.join(PADDLE_LOOPS, "expected.npz"))
    x, nn_ = exp["x"], np.array([n], "int64")
    prefix = os.path.join(PADDLE_LOOPS, "model")
    got = paddle.jit.load(prefix)(paddle.to_tensor(x), paddle.to_tensor(nn_))
    np.testing.assert_allclose(got.numpy(), exp[f"out_n{n}"], rtol=1e-5, atol=1e-5)
    pred = create_predictor(Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    (out,) = pred.run([x, nn_])
    np.testing.assert_allclose(out, exp[f"out_n{n}"], rtol=1e-5, atol=1e-5)
