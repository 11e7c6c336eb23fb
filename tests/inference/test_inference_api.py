"""paddle.inference's smaller names: PredictorPool (one predictor per thread,
driven through its handles, against the outputs Paddle 2.6.2 recorded),
XpuConfig and the Config XPU methods (no XPU backend: refused as Paddle's CPU
build refuses), get_num_bytes_of_data_type, the TensorRT versions and
_get_phi_kernel_name (against the names recorded from Paddle 2.6.2)."""
import json
import os
import threading

import numpy as np
import pytest

from sampan import inference
from sampan.inference import Config, DataType, PredictorPool, XpuConfig
from sampan.ops import list_ops

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "shared",
                      "paddle-reference", "models")
PHI_NAMES = os.path.join(os.path.dirname(HERE), "conformance", "fixtures",
                         "phi_kernel_names.json")


def _lenet():
    folder = os.path.join(MODELS, "lenet")
    if not os.path.isfile(os.path.join(folder, "outputs.npz")):
        pytest.skip("reference model lenet is not in ../shared")
    return (Config(os.path.join(folder, "model")),
            dict(np.load(os.path.join(folder, "inputs.npz"))),
            dict(np.load(os.path.join(folder, "outputs.npz"))))


def test_predictor_pool_one_predictor_per_thread():
    config, ins, outs = _lenet()
    pool = PredictorPool(config, 4)
    preds = [pool.retrive(i) for i in range(4)]
    assert len({id(p) for p in preds}) == 4 and pool.retrive(0) is preds[0]
    errors = []

    def work(p):
        try:
            for _ in range(5):
                for name in p.get_input_names():
                    p.get_input_handle(name).copy_from_cpu(ins[name])
                p.run()
                for name, want in zip(p.get_output_names(), outs.values()):
                    np.testing.assert_allclose(p.get_output_handle(name).copy_to_cpu(), want,
                                               rtol=1e-5, atol=1e-5)
        except Exception as e:
            errors.append(repr(e))
    threads = [threading.Thread(target=work, args=(p,)) for p in preds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_predictor_pool_size_and_index_are_checked():
    config, _, _ = _lenet()
    for size in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="pool size"):
            PredictorPool(config, size)
    pool = PredictorPool(config)
    assert pool.retrive(0) is not None
    for idx in (1, -1, "0"):
        with pytest.raises(ValueError, match="1 predictors in the pool"):
            pool.retrive(idx)
    with pytest.raises(ValueError, match="names no model file"):
        PredictorPool(Config(), 2)     # Paddle 2.6.2 crashes here (segmentation fault)


def test_xpu_config_has_paddles_fields_and_is_refused():
    # Paddle 2.6.2's XpuConfig() defaults
    want = {"device_id": 0, "l3_size": 0, "l3_ptr": None, "l3_autotune_size": 0,
            "context_gm_size": -1, "context": None, "stream": None, "conv_autotune_level": 0,
            "conv_autotune_file": "", "conv_autotune_file_writeback": False,
            "fc_autotune_level": 0, "fc_autotune_file": "", "fc_autotune_file_writeback": False,
            "gemm_compute_precision": 1, "transformer_softmax_optimize_level": 0,
            "transformer_encoder_adaptive_seqlen": True,
            "quant_post_static_gelu_out_threshold": 10.0,
            "quant_post_dynamic_activation_method": 0,
            "quant_post_dynamic_weight_precision": 1, "quant_post_dynamic_op_types": []}
    x = XpuConfig()
    assert {k: getattr(x, k) for k in want} == want
    c = Config()
    assert not c.use_xpu() and c.xpu_device_id() == 0
    with pytest.raises(RuntimeError, match="no XPU backend"):
        c.enable_xpu()
    with pytest.raises(RuntimeError, match="enable_xpu first"):
        c.set_xpu_config(x)
    with pytest.raises(RuntimeError, match="enable_xpu first"):
        c.set_xpu_device_id(1)
    assert c.xpu_config().device_id == 0


def test_bytes_of_each_data_type():
    for name, dt in DataType.BY_NUMPY.items():
        assert inference.get_num_bytes_of_data_type(dt) == np.dtype(name).itemsize, name
    for bad in (99, "float32", None):
        with pytest.raises(ValueError, match="not an inference DataType"):
            inference.get_num_bytes_of_data_type(bad)


def test_tensorrt_versions_say_none():
    assert inference.get_trt_compile_version() == (0, 0, 0)
    assert inference.get_trt_runtime_version() == (0, 0, 0)


def test_phi_kernel_names_are_paddles():
    with open(PHI_NAMES) as f:
        recorded = json.load(f)["names"]
    got = {op: inference._get_phi_kernel_name(op) for op in list_ops()}
    assert {op: n for op, n in got.items() if n != op} == recorded
    assert inference._get_phi_kernel_name("elementwise_add") == "add"
    assert inference._get_phi_kernel_name("no_such_op") == "no_such_op"
