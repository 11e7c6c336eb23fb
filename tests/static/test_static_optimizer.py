"""``optimizer.minimize`` on a static program: the ops, variables and
attributes it appends are Paddle's (op types and order, accumulator and
learning-rate variables with their startup ``fill_constant``, update-op slots
writing the persistables in place, op_role / op_role_var, clip and
regularization ops), the learning-rate scheduler hook, and the eager
``minimize`` left as it was."""
import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.utils import unique_name

nn = paddle.nn

SEED_FORWARD = ["matmul_v2", "elementwise_add", "elementwise_sub", "square", "reduce_mean"]
SEED_BACKWARD = ["fill_constant", "reduce_mean_grad", "square_grad", "elementwise_sub_grad",
                 "elementwise_add_grad", "matmul_v2_grad"]


def build(make_opt, model=None, minimize_kw=None):
    """The seed program (Linear(16, 1) + MSELoss) with ``make_opt()``'s minimize.
    Returns (main, startup, loss, layer, (optimize_ops, params_grads))."""
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup):
            x = static.data(shape=[16, 16], name="x")
            label = static.data(shape=[16, 1], name="label")
            layer = model() if model is not None else nn.Linear(16, 1)
            loss = nn.MSELoss()(layer(x), label)
            result = make_opt().minimize(loss, **(minimize_kw or {}))
    finally:
        paddle.disable_static()
    return main, startup, loss, layer, result


def types(program):
    return [op.type for op in program.global_block().ops]


def ops_of(program, *op_types):
    return [op for op in program.global_block().ops if op.type in op_types]


def feed(seed=0):
    rng = np.random.default_rng(seed)
    return {"x": rng.standard_normal((16, 16)).astype("float32"),
            "label": rng.standard_normal((16, 1)).astype("float32")}


# ----------------------------------------------------------------- the seed program
def test_seed_program_op_types_are_paddles():
    main, startup, loss, _, (opt_ops, params_grads) = build(paddle.optimizer.Adam)
    assert types(main) == SEED_FORWARD + SEED_BACKWARD + ["adam", "adam"]
    assert [op.type for op in opt_ops] == ["adam", "adam"]
    assert sorted((p.name, g.name) for p, g in params_grads) == [
        ("linear_0.b_0", "linear_0.b_0@GRAD"), ("linear_0.w_0", "linear_0.w_0@GRAD")]
    # the update ops go by parameter name (Paddle sorts the pairs)
    assert [op.input("Param") for op in opt_ops] == [["linear_0.b_0"], ["linear_0.w_0"]]


def test_adam_state_variables_and_startup():
    main, startup, *_ = build(paddle.optimizer.Adam)
    gb = main.global_block()
    accs = ["moment1_0", "moment2_0", "beta1_pow_acc_0", "beta2_pow_acc_0"]
    for p, shape in (("linear_0.w_0", (16, 1)), ("linear_0.b_0", (1,))):
        for a, s, value in zip(accs, (shape, shape, (1,), (1,)), (0.0, 0.0, 0.9, 0.999)):
            name = f"{p}_{a}"
            v = gb.var(name)
            assert v.persistable and v.shape == s and v.dtype == paddle.float32
            init = [op for op in startup.global_block().ops if op.output("Out") == [name]]
            assert [op.type for op in init] == ["fill_constant"]
            assert init[0].attr("value") == pytest.approx(value)
            assert list(init[0].attr("shape")) == list(s)
    lr = gb.var("learning_rate_0")
    assert lr.persistable and lr.shape == ()
    init = [op for op in startup.global_block().ops if op.output("Out") == ["learning_rate_0"]]
    assert init[0].type == "fill_constant" and init[0].attr("value") == pytest.approx(0.001)
    # startup: the parameters' initializers first, then the optimizer's state
    assert types(startup)[:2] == ["uniform_random", "fill_constant"]


def test_adam_op_slots_write_persistables_in_place():
    main, *_ = build(lambda: paddle.optimizer.Adam(learning_rate=0.01, beta1=0.8))
    op = ops_of(main, "adam")[1]
    p = "linear_0.w_0"
    assert op.input("Param") == [p] and op.input("Grad") == [p + "@GRAD"]
    assert op.input("LearningRate") == ["learning_rate_0"]
    for slot, acc in (("Moment1", "moment1_0"), ("Moment2", "moment2_0"),
                      ("Beta1Pow", "beta1_pow_acc_0"), ("Beta2Pow", "beta2_pow_acc_0")):
        assert op.input(slot) == [f"{p}_{acc}"]
        assert op.output(slot + "Out") == [f"{p}_{acc}"]
    assert op.output("ParamOut") == [p]
    assert op.attr("beta1") == pytest.approx(0.8)
    assert op.attr("op_role") == 2
    assert op.attr("op_role_var") == [p, p + "@GRAD"]


def test_forward_and_backward_roles():
    main, *_ = build(paddle.optimizer.SGD)
    roles = [op.attr("op_role") for op in main.global_block().ops]
    assert roles[:4] == [0] * 4                     # (Paddle marks the loss op 256)
    assert all(r & 1 for r in roles[5:11])          # backward (the seed fill_constant: |loss)
    assert roles[11:] == [2, 2]


@pytest.mark.parametrize("make_opt,op_type,accs", [
    (lambda: paddle.optimizer.SGD(learning_rate=0.1), "sgd", []),
    (lambda: paddle.optimizer.Momentum(learning_rate=0.1), "momentum", ["velocity_0"]),
    (lambda: paddle.optimizer.AdamW(learning_rate=0.1), "adamw",
     ["moment1_0", "moment2_0", "beta1_pow_acc_0", "beta2_pow_acc_0"]),
], ids=["sgd", "momentum", "adamw"])
def test_update_op_per_optimizer(make_opt, op_type, accs):
    main, startup, *_ = build(make_opt)
    assert types(main)[11:] == [op_type, op_type]
    for a in accs:
        assert main.global_block().var("linear_0.w_0_" + a).persistable
    op = ops_of(main, op_type)[0]
    assert op.output("ParamOut") == op.input("Param") == ["linear_0.b_0"]
    if op_type == "momentum":
        assert op.output("VelocityOut") == ["linear_0.b_0_velocity_0"]
    if op_type == "adamw":
        assert op.attr("coeff") == pytest.approx(0.01) and op.attr("with_decay")


# ----------------------------------------------------------------- clip, decay, lr
def test_global_norm_clip_one_parameter():
    def model():
        return nn.Linear(16, 1, bias_attr=False)
    main, *_ = build(lambda: paddle.optimizer.SGD(grad_clip=nn.ClipGradByGlobalNorm(1.0)),
                     model)
    assert types(main)[9:] == ["squared_l2_norm", "sum", "sqrt", "fill_constant",
                               "elementwise_max", "elementwise_div", "elementwise_mul", "sgd"]


def test_global_norm_clip_ops():
    main, *_ = build(lambda: paddle.optimizer.SGD(grad_clip=nn.ClipGradByGlobalNorm(1.0)))
    clip = types(main)[11:-2]
    assert clip == ["squared_l2_norm", "squared_l2_norm", "sum", "sqrt",
                    "fill_constant", "elementwise_max", "elementwise_div",
                    "elementwise_mul", "elementwise_mul"]
    for op in ops_of(main, "elementwise_mul"):       # gradients scaled in place
        assert op.output("Out") == op.input("X")
        assert op.input("X")[0].endswith("@GRAD")
        assert op.attr("op_role") == 2 and op.attr("op_role_var")[1] == op.input("X")[0]
    for op in main.global_block().ops[11:-2]:
        assert op.attr("op_namescope").startswith("/gradient_clip")
        assert op.attr("op_role") == 2
    # the norm's ops carry the last pair (Paddle's shape)
    assert main.global_block().ops[13].attr("op_role_var") == ["linear_0.w_0",
                                                               "linear_0.w_0@GRAD"]
    sgd = ops_of(main, "sgd")
    assert [op.input("Grad") for op in sgd] == [["linear_0.b_0@GRAD"], ["linear_0.w_0@GRAD"]]


@pytest.mark.parametrize("clip,op_type", [(lambda: nn.ClipGradByValue(0.1), "clip"),
                                          (lambda: nn.ClipGradByNorm(0.1), "clip_by_norm")])
def test_per_gradient_clip_ops(clip, op_type):
    main, *_ = build(lambda: paddle.optimizer.SGD(grad_clip=clip()))
    assert types(main)[11:] == [op_type, op_type, "sgd", "sgd"]
    clips = ops_of(main, op_type)
    for c, s in zip(clips, ops_of(main, "sgd")):
        assert s.input("Grad") == c.output("Out")      # the update reads the clipped grad
        assert c.attr("op_role_var") == s.attr("op_role_var") == \
            [s.input("Param")[0], c.output("Out")[0]]


def test_l2_decay_ops_are_scale_and_sum_into_the_grad():
    main, *_ = build(lambda: paddle.optimizer.Adam(
        weight_decay=paddle.regularizer.L2Decay(0.5)))
    assert types(main)[11:] == ["scale", "sum", "scale", "sum", "adam", "adam"]
    scale, total = ops_of(main, "scale")[1], ops_of(main, "sum")[1]
    assert scale.input("X") == ["linear_0.w_0"] and scale.attr("scale") == pytest.approx(0.5)
    assert total.input("X") == ["linear_0.w_0@GRAD", scale.output("Out")[0]]
    assert total.output("Out") == ["linear_0.w_0@GRAD"]
    assert total.attr("op_role_var") == ["linear_0.w_0", "linear_0.w_0@GRAD"]


def test_momentum_l2_decay_rides_in_the_op():
    main, *_ = build(lambda: paddle.optimizer.Momentum(
        weight_decay=paddle.regularizer.L2Decay(0.1)))
    assert types(main)[11:] == ["momentum", "momentum"]
    op = ops_of(main, "momentum")[0]
    assert op.attr("regularization_method") == "l2_decay"
    assert op.attr("regularization_coeff") == pytest.approx(0.1)


def test_parameter_learning_rate_scales_the_lr():
    def model():
        return nn.Linear(16, 1, weight_attr=paddle.ParamAttr(learning_rate=2.0))
    main, *_ = build(lambda: paddle.optimizer.SGD(learning_rate=0.1), model)
    assert types(main)[11:] == ["sgd", "scale", "sgd"]
    scale = ops_of(main, "scale")[0]
    assert scale.input("X") == ["learning_rate_0"] and scale.attr("scale") == pytest.approx(2)
    assert scale.attr("op_role") == 18 and scale.attr("op_role_var") == []
    assert scale.attr("op_namescope").endswith("/scale_with_param_lr/")
    assert ops_of(main, "sgd")[1].input("LearningRate") == scale.output("Out")


def test_lr_scheduler_value_is_fed_by_the_executor():
    sched = paddle.optimizer.lr.StepDecay(learning_rate=0.5, step_size=1, gamma=0.1)
    main, startup, loss, *_ = build(lambda: paddle.optimizer.SGD(learning_rate=sched))
    assert main.lr_scheduler is sched and sched._var_name == "learning_rate_0"
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    seen = []
    for _ in range(3):
        before = np.array(scope.find_var("linear_0.b_0").get())
        exe.run(main, feed=feed(), fetch_list=[loss], scope=scope)
        seen.append(float(scope.find_var("learning_rate_0").get()))
        assert not np.allclose(scope.find_var("linear_0.b_0").get(), before)
        sched.step()
    np.testing.assert_allclose(seen, [0.5, 0.05, 0.005], rtol=1e-6)


# ----------------------------------------------------------------- arguments
def test_minimize_parameters_and_no_grad_set():
    main, startup, loss, layer, (ops, pg) = build(
        paddle.optimizer.SGD, minimize_kw={"parameters": ["linear_0.w_0"]})
    assert [p.name for p, _ in pg] == ["linear_0.w_0"]
    assert [op.input("Param") for op in ops] == [["linear_0.w_0"]]
    main, startup, loss, layer, (ops, pg) = build(
        paddle.optimizer.SGD, minimize_kw={"no_grad_set": {"linear_0.b_0"}})
    assert [op.input("Param") for op in ops] == [["linear_0.w_0"]]


def test_trained_program_serializes_and_runs_after_parsing():
    main, startup, loss, *_ = build(paddle.optimizer.Adam)
    again = static.Program.parse_from_string(main.desc.SerializeToString())
    assert types(again) == types(main)
    exe, s1, s2 = static.Executor(), static.Scope(), static.Scope()
    exe.run(startup, scope=s1)
    exe.run(startup, scope=s2)
    for name in ("linear_0.w_0", "linear_0.b_0"):
        s2.find_var(name).set(np.array(s1.find_var(name).get()))
    for _ in range(3):
        a = exe.run(main, feed=feed(), fetch_list=[loss.name], scope=s1)[0]
        b = exe.run(again, feed=feed(), fetch_list=[loss.name], scope=s2)[0]
        assert a == b


def test_backward_then_apply_gradients_equals_minimize():
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup):
            x = static.data(shape=[16, 16], name="x")
            label = static.data(shape=[16, 1], name="label")
            loss = nn.MSELoss()(nn.Linear(16, 1)(x), label)
            opt = paddle.optimizer.Adam()
            pg = opt.backward(loss)
            assert types(main) == SEED_FORWARD + SEED_BACKWARD
            ops = opt.apply_gradients(pg)
    finally:
        paddle.disable_static()
    assert types(main) == SEED_FORWARD + SEED_BACKWARD + ["adam", "adam"]
    assert [op.type for op in ops] == ["adam", "adam"]


def test_parameter_regularizer_takes_the_place_of_weight_decay():
    def model():
        return nn.Linear(16, 1, weight_attr=paddle.ParamAttr(
            regularizer=paddle.regularizer.L1Decay(0.1)))
    main, *_ = build(lambda: paddle.optimizer.SGD(
        weight_decay=paddle.regularizer.L2Decay(0.5)), model)
    # bias: the optimizer's L2Decay; weight: its own L1Decay (sign, scale)
    assert types(main)[11:] == ["scale", "sum", "sign", "scale", "sum", "sgd", "sgd"]


# ----------------------------------------------------------------- eager unchanged
def test_eager_minimize_still_applies_computed_grads():
    paddle.seed(3)
    lin = nn.Linear(4, 2)
    opt = paddle.optimizer.Adam(learning_rate=0.1, parameters=lin.parameters())
    x = paddle.to_tensor(np.ones((3, 4), "float32"))
    before = lin.weight.numpy().copy()
    loss = lin(x).mean()
    loss.backward()
    ops, pg = opt.minimize(loss)
    assert ops == [] and len(pg) == 2
    assert not np.allclose(lin.weight.numpy(), before)


def test_static_parameters_accepted_by_constructor():
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup):
            x = static.data(shape=[4, 3], name="x")
            lin = nn.Linear(3, 1)
            loss = lin(x).mean()
            # (static Parameters; nn.Layer.parameters() does not list them in static mode yet)
            opt = paddle.optimizer.Momentum(parameters=main.global_block().all_parameters())
            ops, _ = opt.minimize(loss)
    finally:
        paddle.disable_static()
    assert [op.type for op in ops] == ["momentum", "momentum"]
