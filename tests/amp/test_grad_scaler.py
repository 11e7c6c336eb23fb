"""GradScaler on an AMP place: scaling, unscaling by check_finite_and_unscale,
skipping a step with a non-finite gradient, the scale's moves, the state
machine's errors, state_dict, and the static minimize's op sequence."""
import numpy as np
import pytest

import sampan as paddle


def _setup(**kw):
    net = paddle.nn.Linear(2, 1)
    net.weight.set_value(np.array([[1.0], [2.0]], "float32"))
    net.bias.set_value(np.zeros([1], "float32"))
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    return net, opt, paddle.amp.GradScaler(**kw)


def _x(v=1.0):
    return paddle.to_tensor(np.full([1, 2], v, "float32"))


def test_scale_unscale_step(amp_place):
    net, opt, scaler = _setup(init_loss_scaling=8.0)
    with paddle.amp.auto_cast():
        loss = net(_x()).sum()
    scaled = scaler.scale(loss)
    np.testing.assert_allclose(scaled.numpy(), loss.numpy() * 8, rtol=1e-6)
    scaled.backward()
    np.testing.assert_allclose(net.weight.grad.numpy(), [[8.0], [8.0]])
    scaler.unscale_(opt)
    np.testing.assert_allclose(net.weight.grad.numpy(), [[1.0], [1.0]])
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    np.testing.assert_allclose(net.weight.numpy(), [[0.9], [1.9]], rtol=1e-6)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step"):
        scaler.unscale_(opt)
    scaler.update()
    assert scaler.state_dict()["incr_count"] == 1


def test_non_finite_gradient_skips_the_step_and_halves_the_scale(amp_place, capsys):
    net, opt, scaler = _setup(init_loss_scaling=8.0)
    with paddle.amp.auto_cast():
        loss = net(_x(np.inf)).sum()
    scaler.scale(loss).backward()
    scaler.minimize(opt, loss)
    np.testing.assert_allclose(net.weight.numpy(), [[1.0], [2.0]])
    assert float(scaler._scale) == 4.0
    assert "Found inf or nan, current scale is: 8.0, decrease to: 8.0*0.5" in \
        capsys.readouterr().out


def test_scale_grows_after_n_good_steps(amp_place):
    net, opt, scaler = _setup(init_loss_scaling=4.0, incr_every_n_steps=2)
    for _ in range(4):
        with paddle.amp.auto_cast():
            loss = net(_x()).sum()
        scaled = scaler.scale(loss)
        scaled.backward()
        scaler.minimize(opt, scaled)
        opt.clear_grad()
    assert float(scaler._scale) == 16.0


def test_accessors_and_state_dict(amp_place):
    s = paddle.amp.GradScaler(init_loss_scaling=1024, incr_every_n_steps=5)
    assert s.is_enable() and s.is_use_dynamic_loss_scaling()
    assert s.get_init_loss_scaling() == 1024 and s.get_incr_every_n_steps() == 5
    assert (s.get_incr_ratio(), s.get_decr_ratio(), s.get_decr_every_n_nan_or_inf()) == \
        (2.0, 0.5, 1)
    s.set_init_loss_scaling(100)
    s.set_incr_ratio(3.0)
    s.set_decr_ratio(0.25)
    s.set_decr_every_n_nan_or_inf(3)
    s.set_incr_every_n_steps(7)
    with pytest.raises(AssertionError, match="must be > 1.0"):
        s.set_incr_ratio(0.5)
    with pytest.raises(AssertionError, match="must be < 1.0"):
        s.set_decr_ratio(2.0)
    state = s.state_dict()
    assert float(state["scale"][0]) == 100.0 and state["incr_ratio"] == 3.0
    t = paddle.amp.GradScaler()
    t.load_state_dict(state)
    assert t.state_dict()["decr_every_n_nan_or_inf"] == 3 and t.get_init_loss_scaling() == 100
    with pytest.raises(RuntimeError, match="The input state dict is empty"):
        t.load_state_dict({})
    assert paddle.amp.AmpScaler().get_init_loss_scaling() == 2.0 ** 15


def test_bfloat16_disables_dynamic_scaling(amp_place):
    s = paddle.amp.GradScaler()
    with pytest.warns(UserWarning):
        with paddle.amp.auto_cast(dtype="bfloat16"):
            pass
    loss = paddle.to_tensor(2.0)
    with pytest.warns(UserWarning, match="not recommended to use dynamic loss scaling for "
                                         "bfloat16"):
        assert s.scale(loss) is loss
    assert not s.is_enable()
    with paddle.amp.auto_cast():                    # back to float16 for later tests
        pass


def test_static_minimize_appends_loss_scaling_ops(amp_place):
    scaler = paddle.amp.GradScaler(init_loss_scaling=4.0)
    main, startup = paddle.static.Program(), paddle.static.Program()
    paddle.enable_static()
    try:
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [3, 2], "float32")
            net = paddle.nn.Linear(2, 1)
            with paddle.amp.auto_cast():
                loss = net(x).mean()
            opt = paddle.optimizer.SGD(learning_rate=0.1)
            scaled = scaler.scale(loss)
            scaler.minimize(opt, scaled)
    finally:
        paddle.disable_static()
    types = [op.type for op in main.global_block().ops]
    i = types.index("check_finite_and_unscale")
    assert types[i + 1] == "update_loss_scaling"
    assert types[i + 2:] == ["sgd", "sgd"]
    assert "elementwise_mul" in types[:types.index("fill_constant")]
    upd = main.global_block().ops[i + 1]
    assert upd.attr("incr_every_n_steps") == 2000 and upd.attr("decr_ratio") == 0.5
    assert upd.output("LossScaling") == upd.input("PrevLossScaling")


def test_static_program_runs_and_moves_the_scale(amp_place):
    scaler = paddle.amp.GradScaler(init_loss_scaling=4.0, incr_every_n_steps=2)
    main, startup = paddle.static.Program(), paddle.static.Program()
    paddle.enable_static()
    try:
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [3, 2], "float32")
            net = paddle.nn.Linear(2, 1)
            with paddle.amp.auto_cast():
                loss = net(x).mean()
            scaler.minimize(paddle.optimizer.SGD(learning_rate=0.1), scaler.scale(loss))
        exe = paddle.static.Executor()
        exe.run(startup)
        scales, weights = [], []
        for v in (1.0, 1.0, np.inf, 1.0):
            _, s, w = exe.run(main, feed={"x": np.full([3, 2], v, "float32")},
                              fetch_list=[loss, scaler._scale.name, net.weight])
            scales.append(float(s[0]))
            weights.append(w.ravel().copy())
    finally:
        paddle.disable_static()
    assert scales == [4.0, 8.0, 4.0, 4.0]
    np.testing.assert_allclose(weights[1] - weights[0], [-0.1, -0.1], rtol=1e-3)
    np.testing.assert_array_equal(weights[2], weights[1])     # the inf step changes nothing
