"""auto_cast / decorate: Paddle's CPU behaviour (no effect, with its warning)
and, on an AMP place, the casts put in op dispatch, eagerly, in static
programs and under to_static."""
import warnings

import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F
from sampan.ops import mode

F16, F32 = paddle.float16, paddle.float32


def _rand(*shape, dtype="float32"):
    return paddle.to_tensor(np.random.RandomState(0).rand(*shape).astype(dtype))


# ----------------------------------------------------------------- the CPU: as Paddle's
def test_cpu_auto_cast_warns_and_has_no_effect():
    x, w = _rand(2, 3), _rand(3, 4)
    with pytest.warns(UserWarning, match="amp_guard can only be enabled on CUDAPlace, "
                                         "XPUPlace, and CustomPlace, current place is "
                                         "Place\\(cpu\\), so it makes no effect"):
        with paddle.amp.auto_cast(dtype="bfloat16"):
            assert paddle.matmul(x, w).dtype == F32
    assert mode._current[0] is mode._handlers["eager"]


def test_cpu_decorate_o2_and_scaler_pass_through():
    net = paddle.nn.Linear(3, 4)
    opt = paddle.optimizer.SGD(parameters=net.parameters())
    assert paddle.amp.decorate(net, opt, level="O2") == (net, opt)
    assert net.weight.dtype == F32
    with pytest.warns(UserWarning, match="AmpScaler can only be enabled on CUDAPlace"):
        s = paddle.amp.GradScaler()
    assert not s.is_enable() and s.state_dict() == {}
    loss = net(_rand(2, 3)).mean()
    assert s.scale(loss) is loss


def test_supported_queries_on_cpu():
    assert paddle.amp.is_float16_supported() is False
    assert paddle.amp.is_float16_supported("gpu:0") is True
    assert paddle.amp.is_bfloat16_supported() is False


@pytest.mark.parametrize("kw, msg", [({"level": "O3"}, "level should be O0, OD, O1 or O2"),
                                     ({"dtype": "float32"}, "dtype should be 'float16' or "
                                                            "'bfloat16'")])
def test_bad_arguments(kw, msg):
    cm = paddle.amp.auto_cast(**kw)          # checked on entering, as Paddle's
    with pytest.raises(ValueError, match=msg):
        with cm:
            pass


def test_custom_lists_overlap():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="Custom white list overlap custom black list"):
            with paddle.amp.auto_cast(custom_white_list={"exp"}, custom_black_list={"exp"}):
                pass


def test_decorate_errors():
    net = paddle.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="level should be O1 or O2"):
        paddle.amp.decorate(net, level="O0")
    with pytest.raises(ValueError, match="dtype only support float16 or bfloat16"):
        paddle.amp.decorate(net, dtype="float64")


# ----------------------------------------------------------------- on an AMP place
def test_o1_white_black_gray(amp_place):
    x, w = _rand(2, 3), _rand(3, 4)
    with paddle.amp.auto_cast():
        y = paddle.matmul(x, w)                        # white: float16
        assert y.dtype == F16
        assert (y + _rand(2, 4)).dtype == F32          # gray with a float32 input
        assert F.relu(y).dtype == F16                  # gray, float16 inputs only
        assert paddle.exp(y).dtype == F32              # black
        assert F.softmax(y).dtype == F32
        assert y.mean().dtype == F32
        assert (x.astype("float64") * 2).dtype == paddle.float64   # float64 untouched
    np.testing.assert_allclose(y.numpy(), x.numpy() @ w.numpy(), rtol=2e-3, atol=2e-3)
    assert paddle.matmul(x, w).dtype == F32            # off after the block
    assert mode._current[0] is mode._handlers["eager"]


def test_o1_gradients_flow_back_in_float32(amp_place):
    x = _rand(2, 3)
    w = paddle.create_parameter([3, 4], "float32")
    with paddle.amp.auto_cast():
        loss = paddle.matmul(x, w).sum()
    loss.backward()
    assert w.grad.dtype == F32
    np.testing.assert_allclose(w.grad.numpy(), np.repeat(x.numpy().sum(0)[:, None], 4, 1),
                               rtol=2e-3)


def test_custom_lists_and_nesting(amp_place):
    a, b = _rand(2, 3), _rand(2, 3)
    with paddle.amp.auto_cast(custom_white_list={"elementwise_add"}):
        assert (a + b).dtype == F16
        with paddle.amp.auto_cast(enable=False):
            assert (a + b).dtype == F32
        assert (a + b).dtype == F16
    with paddle.amp.auto_cast(custom_black_list={"matmul_v2"}):
        assert paddle.matmul(a, b.T).dtype == F32


def test_decorator_form(amp_place):
    @paddle.amp.auto_cast()
    def f(x, w):
        return paddle.matmul(x, w)
    assert f(_rand(2, 3), _rand(3, 2)).dtype == F16


def test_o2_and_od(amp_place):
    h = _rand(2, 3).astype("float16")
    x = _rand(2, 3)
    with paddle.amp.auto_cast(level="O2"):
        assert paddle.exp(h).dtype == F16              # exp is not black at O2
        assert (h + x).dtype == F32                    # promoted
    with paddle.amp.auto_cast(level="O2", use_promote=False):
        assert (h + x).dtype == F16
    with paddle.amp.auto_cast(level="OD"):
        assert F.relu(h).dtype == F32                  # OD: only the white list is low
        assert paddle.matmul(x, x.T).dtype == F16


def test_norm_casts_only_x(amp_place):
    ln = paddle.nn.LayerNorm(3)
    h = _rand(2, 3).astype("float16")
    with paddle.amp.auto_cast(level="O2"):
        out = ln(h)                                    # fp16 X, fp32 scale/bias: layer_norm
    assert ln.weight.dtype == F32                      # stays in float32 (black at O1 only)
    assert out.dtype == F16


def test_decorate_o2_casts_parameters_keeps_batch_norm(amp_place):
    net = paddle.nn.Sequential(paddle.nn.Conv2D(3, 4, 3), paddle.nn.BatchNorm2D(4),
                               paddle.nn.LayerNorm([4, 2, 2]))
    opt = paddle.optimizer.Momentum(parameters=net.parameters())
    net, opt = paddle.amp.decorate(net, opt, level="O2", save_dtype="float32")
    assert net[0].weight.dtype == F16 and net[0].bias.dtype == F16
    assert net[1].weight.dtype == F32 and net[1]._mean.dtype == F32
    assert net[2].weight.dtype == F32                  # float16: LayerNorm kept too
    assert opt._multi_precision
    assert all(v.dtype == F32 for v in net.state_dict().values())
    net2 = paddle.amp.decorate(paddle.nn.Linear(2, 2), level="O2",
                               excluded_layers=paddle.nn.Linear)
    assert net2.weight.dtype == F32


def test_static_program_gets_cast_ops(amp_place):
    main, startup = paddle.static.Program(), paddle.static.Program()
    paddle.enable_static()
    try:
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [2, 6], "float32")
            fc = paddle.nn.Linear(6, 3)
            with paddle.amp.auto_cast():
                y = F.softmax(fc(x))
    finally:
        paddle.disable_static()
    types = [op.type for op in main.global_block().ops]
    assert types == ["cast", "cast", "matmul_v2", "cast", "elementwise_add", "softmax"]
    casts = [op for op in main.global_block().ops if op.type == "cast"]
    assert [(c.attr("in_dtype"), c.attr("out_dtype")) for c in casts] == [(5, 4), (5, 4), (4, 5)]
    assert y.dtype == F32


def test_to_static_traces_a_program_per_amp_state(amp_place):
    net = paddle.nn.Linear(3, 4)
    f = paddle.jit.to_static(net, full_graph=True)
    x = _rand(2, 3)
    ref = f(x)
    with paddle.amp.auto_cast():
        low = f(x)
    again = f(x)
    assert ref.dtype == F32 and again.dtype == F32
    assert low.dtype == F32            # matmul in float16, the bias add promotes
    assert len(f.forward.program_cache) == 2
    np.testing.assert_allclose(low.numpy(), ref.numpy(), rtol=5e-3, atol=5e-3)
    np.testing.assert_array_equal(again.numpy(), ref.numpy())


def test_auto_cast_inside_a_to_static_function(amp_place):
    w = paddle.to_tensor(np.eye(3, dtype="float32"))

    @paddle.jit.to_static(full_graph=True)
    def f(x):
        with paddle.amp.auto_cast():
            y = paddle.matmul(x, w)
        return y

    x = _rand(2, 3)
    out = f(x)
    assert out.dtype == F16
    np.testing.assert_allclose(out.numpy(), x.numpy(), rtol=1e-3)
    ops = [op.type for op in f.concrete_program.main_program.global_block().ops]
    assert ops.count("cast") == 2 and "matmul_v2" in ops


def test_auto_cast_is_per_thread(amp_place):
    import threading
    x, w = _rand(2, 3), _rand(3, 4)
    seen = []
    with paddle.amp.auto_cast():
        t = threading.Thread(target=lambda: seen.append(paddle.matmul(x, w).dtype))
        t.start()
        t.join()
        assert paddle.matmul(x, w).dtype == F16
    assert seen == [F32]
