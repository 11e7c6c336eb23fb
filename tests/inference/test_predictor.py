"""The inference Predictor: every reference model exported by Paddle 2.6.2 reproduces its
stored outputs (with sampan's graph passes on and off), Paddle Inference's handle API,
clone() sharing weights, run([arrays]), Config forms, clear errors."""
import os
import shutil

import numpy as np
import pytest

import sampan as paddle
from sampan import inference
from sampan.inference import Config, create_predictor
from sampan.inference.passes import FC_OP

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "shared",
                   "paddle-reference")
MODELS = os.path.join(REF, "models")
CASES = [(m, sfx) for m in ("lenet", "bn_embed", "loop", "mlp_cond") for sfx in ("", "_alt")
         if os.path.isfile(os.path.join(MODELS, m, f"outputs{sfx}.npz"))]


def _case(model, sfx):
    folder = os.path.join(MODELS, model)
    ins = dict(np.load(os.path.join(folder, f"inputs{sfx}.npz")))
    outs = dict(np.load(os.path.join(folder, f"outputs{sfx}.npz")))
    return folder, ins, outs


def test_all_cases_found():
    assert len(CASES) == 6, CASES


@pytest.mark.parametrize("ir_optim", [True, False])
@pytest.mark.parametrize("model,sfx", CASES)
def test_reference_model_with_handles(model, sfx, ir_optim):
    folder, ins, outs = _case(model, sfx)
    cfg = Config(os.path.join(folder, "model.pdmodel"), os.path.join(folder, "model.pdiparams"))
    cfg.disable_gpu()
    cfg.set_cpu_math_library_num_threads(1)
    cfg.disable_glog_info()
    cfg.switch_ir_optim(ir_optim)
    pred = create_predictor(cfg)
    assert pred.get_input_names() == list(ins)
    assert pred.get_output_names() == list(outs)
    for name in pred.get_input_names():
        h = pred.get_input_handle(name)
        h.reshape(list(ins[name].shape))
        h.copy_from_cpu(np.ascontiguousarray(ins[name]))
        assert h.shape() == list(ins[name].shape) and h.name() == name
    assert pred.run() is True
    for name in pred.get_output_names():
        got = pred.get_output_handle(name).copy_to_cpu()
        assert got.shape == outs[name].shape and got.dtype == outs[name].dtype
        np.testing.assert_allclose(got, outs[name], rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("model,sfx", CASES)
def test_reference_model_run_list(model, sfx):
    folder, ins, outs = _case(model, sfx)
    pred = create_predictor(Config(os.path.join(folder, "model")))
    got = pred.run([ins[n] for n in pred.get_input_names()])
    assert len(got) == len(outs)
    for g, w in zip(got, outs.values()):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    # eager Tensors in, Tensors out
    got = pred.run([paddle.to_tensor(ins[n]) for n in pred.get_input_names()])
    assert isinstance(got[0], paddle.Tensor)
    np.testing.assert_allclose(got[0].numpy(), list(outs.values())[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["cond", "while", "linear"])
def test_minimal_models(name):
    folder = os.path.join(REF, "minimal", name)
    params = os.path.join(folder, "model.pdiparams")
    pred = create_predictor(Config(os.path.join(folder, "model.pdmodel"),
                                   params if os.path.isfile(params) else ""))
    for sfx in ("", "_alt"):
        if not os.path.isfile(os.path.join(folder, f"inputs{sfx}.npz")):
            continue
        _, ins, outs = folder, dict(np.load(os.path.join(folder, f"inputs{sfx}.npz"))), \
            dict(np.load(os.path.join(folder, f"outputs{sfx}.npz")))
        got = pred.run([ins[n] for n in pred.get_input_names()])
        for g, w in zip(got, outs.values()):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_clone_shares_weights_not_handles():
    folder, ins, outs = _case("lenet", "")
    pred = create_predictor(Config(os.path.join(folder, "model")))
    twin = pred.clone()
    assert twin._core is pred._core
    for a, b in zip(pred._core.run.load(), twin._core.run.load()):
        assert a is b                                         # the same arrays
    assert twin.get_input_handle("img") is not pred.get_input_handle("img")
    x = ins["img"]
    twin.get_input_handle("img").copy_from_cpu(x)
    pred.get_input_handle("img").copy_from_cpu(np.zeros_like(x))
    twin.run()
    pred.run()
    name = twin.get_output_names()[0]
    np.testing.assert_allclose(twin.get_output_handle(name).copy_to_cpu(), outs[name],
                               rtol=1e-5, atol=1e-5)
    assert not np.allclose(pred.get_output_handle(name).copy_to_cpu(), outs[name])


def test_handles_copy_semantics():
    folder, ins, outs = _case("lenet", "")
    pred = create_predictor(Config(os.path.join(folder, "model")))
    x = ins["img"].copy()
    h = pred.get_input_handle("img")
    h.copy_from_cpu(x)
    x[:] = 0                                       # the handle holds its own copy
    pred.run()
    out = pred.get_output_handle(pred.get_output_names()[0])
    first, second = out.copy_to_cpu(), out.copy_to_cpu()
    assert first is not second
    first[:] = 0
    np.testing.assert_allclose(second, list(outs.values())[0], rtol=1e-5, atol=1e-5)
    assert out.type() == inference.DataType.FLOAT32


def test_input_errors():
    folder, ins, _ = _case("lenet", "")
    pred = create_predictor(Config(os.path.join(folder, "model")))
    with pytest.raises(ValueError, match="copy_from_cpu"):
        pred.run()
    with pytest.raises(ValueError, match="run\\(\\) first"):
        pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()
    h = pred.get_input_handle("img")
    with pytest.raises(ValueError, match="float32"):
        h.copy_from_cpu(ins["img"].astype("float64"))
    with pytest.raises(ValueError, match=r"input 'img': expected shape \[-1, 1, 28, 28\]"):
        h.copy_from_cpu(np.zeros((2, 3, 28, 28), "float32"))
    with pytest.raises(ValueError, match="no input 'x'"):
        pred.get_input_handle("x")
    with pytest.raises(ValueError, match="1 input"):
        pred.run([ins["img"], ins["img"]])
    with pytest.raises(ValueError, match="no model file"):
        create_predictor(Config())
    with pytest.raises(TypeError):
        create_predictor("model.pdmodel")


def test_config_forms(tmp_path):
    folder = os.path.join(MODELS, "lenet")
    for f in ("model.pdmodel", "model.pdiparams"):
        shutil.copy(os.path.join(folder, f), tmp_path / f)
    forms = [Config(str(tmp_path / "model")), Config(str(tmp_path)),
             Config(str(tmp_path / "model.pdmodel"), str(tmp_path / "model.pdiparams"))]
    c = Config()
    c.set_model(str(tmp_path / "model.pdmodel"), str(tmp_path / "model.pdiparams"))
    forms.append(c)
    c = Config()
    c.set_prog_file(str(tmp_path / "model.pdmodel"))
    c.set_params_file(str(tmp_path / "model.pdiparams"))
    forms.append(c)
    for cfg in forms:
        assert cfg.prog_file() == str(tmp_path / "model.pdmodel")
        assert cfg.params_file() == str(tmp_path / "model.pdiparams")
    # the settings Paddle users call are accepted
    cfg = forms[0]
    cfg.enable_use_gpu(100, 0)
    cfg.disable_gpu()
    cfg.enable_memory_optim()
    cfg.enable_mkldnn()
    cfg.disable_mkldnn()
    cfg.switch_use_feed_fetch_ops(False)
    cfg.switch_specify_input_names(True)
    cfg.set_cpu_math_library_num_threads(4)
    assert cfg.cpu_math_library_num_threads() == 4
    assert cfg.use_gpu() is False and cfg.ir_optim() is True
    assert "model.pdmodel" in cfg.summary()
    assert create_predictor(cfg).get_input_names() == ["img"]


def test_fc_fuse_pass_and_identity_scale(tmp_path):
    static = paddle.static
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", [None, 5], "float32")
            h = paddle.nn.functional.relu(paddle.nn.Linear(5, 7)(x))
            out = paddle.nn.Linear(7, 2)(h)
    finally:
        paddle.disable_static()
    with static.scope_guard(static.Scope()):
        exe = static.Executor()
        exe.run(startup)
        static.save_inference_model(str(tmp_path / "m"), [x], [out], exe, program=main)
    xin = np.random.RandomState(0).randn(3, 5).astype("float32")
    results = {}
    for ir in (True, False):
        cfg = Config(str(tmp_path / "m"))
        cfg.switch_ir_optim(ir)
        pred = create_predictor(cfg)
        results[ir] = pred.run([xin])[0]
        types = [op.type for op in pred.program.global_block().ops]
        if ir:
            assert types.count(FC_OP) == 2 and "matmul_v2" not in types
            assert "scale" not in types
        else:
            assert FC_OP not in types and "scale" in types
    np.testing.assert_array_equal(results[True], results[False])
    cfg = Config(str(tmp_path / "m"))
    cfg.delete_pass("fc_fuse_pass")
    assert FC_OP not in [op.type for op in create_predictor(cfg).program.global_block().ops]
