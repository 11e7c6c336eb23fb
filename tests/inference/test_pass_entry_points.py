"""The inference passes beyond the Predictor: ``inference.optimize_program``
for programs from ``static.load_inference_model`` (run by the Executor), and
``jit.load(..., ir_optim=True)`` for a loaded layer's eval calls (the training
program untouched, folded weights dropped by ``train()``/``set_state_dict``);
``Config.pass_builder`` lists Paddle's pass names and ``delete_pass`` skips one."""
import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec

nn = paddle.nn


class Small(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2D(4)
        self.fc = nn.Linear(4 * 5 * 5, 3)

    def forward(self, x):
        h = nn.functional.relu(self.bn(self.conv(x)))
        return self.fc(paddle.flatten(h, 1))


@pytest.fixture()
def saved(tmp_path):
    paddle.seed(11)
    net = Small()
    rs = np.random.RandomState(0)
    net.bn._mean.set_value(rs.uniform(-0.2, 0.2, 4).astype("float32"))
    net.bn._variance.set_value(rs.uniform(0.5, 1.5, 4).astype("float32"))
    net.eval()
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, input_spec=[InputSpec([None, 3, 5, 5], "float32")])
    x = rs.standard_normal([2, 3, 5, 5]).astype("float32")
    return prefix, x, net(paddle.to_tensor(x)).numpy()


def test_optimize_program_for_the_executor(saved):
    prefix, x, want = saved
    paddle.enable_static()
    try:
        exe = paddle.static.Executor()
        prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        opt, opt_fetches = paddle.inference.optimize_program(prog, feeds, fetches)
        got = exe.run(opt, feed={feeds[0]: x}, fetch_list=opt_fetches)[0]
        plain = exe.run(prog, feed={feeds[0]: x}, fetch_list=fetches)[0]
    finally:
        paddle.disable_static()
    assert "batch_norm" in [op.type for op in prog.global_block().ops]
    assert "batch_norm" not in [op.type for op in opt.global_block().ops]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(plain, want, rtol=1e-6, atol=1e-7)


def test_jit_load_ir_optim_in_eval_and_refolds_after_training(saved):
    prefix, x, want = saved
    layer = paddle.jit.load(prefix, ir_optim=True)
    layer.eval()
    np.testing.assert_allclose(layer(paddle.to_tensor(x)).numpy(), want, rtol=1e-5,
                               atol=1e-6)
    ops = [op.type for op in layer._methods["forward"].runner(False).program.global_block().ops]
    assert "batch_norm" not in ops
    # a training step changes the weights: eval afterwards uses them, folded anew
    layer.train()
    opt = paddle.optimizer.SGD(0.5, parameters=layer.parameters())
    loss = layer(paddle.to_tensor(x)).square().mean()
    loss.backward()
    opt.step()
    layer.eval()
    plain = paddle.jit.load(prefix)
    for a, b in zip(list(plain.parameters()) + list(plain.buffers()),
                    list(layer.parameters()) + list(layer.buffers())):
        a.set_value(b.numpy())
    plain.eval()
    assert not np.allclose(plain(paddle.to_tensor(x)).numpy(), want, atol=1e-4)
    np.testing.assert_allclose(layer(paddle.to_tensor(x)).numpy(),
                               plain(paddle.to_tensor(x)).numpy(), rtol=1e-5, atol=1e-6)


def test_pass_builder_names_and_delete_pass(saved):
    prefix, x, want = saved
    cfg = paddle.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    names = cfg.pass_builder().all_passes()
    assert {"conv_bn_fuse_pass", "fc_fuse_pass", "constant_folding_pass",
            "is_test_pass"} <= set(names)
    cfg.delete_pass("conv_bn_fuse_pass")
    cfg.delete_pass("sampan_batch_norm_affine_pass")
    cfg.delete_pass("a_pass_sampan_does_not_have")
    assert "conv_bn_fuse_pass" not in cfg.pass_builder().all_passes()
    pred = paddle.inference.create_predictor(cfg)
    assert "batch_norm" in [op.type for op in pred.program.global_block().ops]
    np.testing.assert_allclose(pred.run([x])[0], want, rtol=1e-5, atol=1e-6)
    assert "conv_bn_fuse_pass" not in pred.explain()
