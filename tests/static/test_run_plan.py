"""One way to run a plan on arrays (executor/run_plan.py): the Executor, the partial
program (to_static's runner; ``jit.load`` runs through it) and the inference Predictor
check feeds, report variables nobody feeds and unknown fetches with one set of
messages, naming the variable, expected against actual."""
import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.executor import PlanRun, Scope
from sampan.inference import Config, create_predictor
from sampan.jit.partial_program import PartialProgram
from sampan.utils import unique_name


class _Concrete:
    """What ``PartialProgram`` reads of a concrete program."""

    def __init__(self, main_program, inputs, outputs):
        self.main_program, self.inputs, self.outputs = main_program, inputs, outputs


def _build(extra=None):
    """x: float32[-1, 3] -> Linear(3, 2); ``extra(main, h)`` may add ops."""
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup):
            x = static.data("x", [None, 3], "float32")
            out = paddle.nn.Linear(3, 2)(x)
            if extra is not None:
                out = extra(main, out)
    finally:
        paddle.disable_static()
    return main, startup, x, out


@pytest.fixture
def model(tmp_path):
    """The three callers over one saved model, each ``run(x) -> out``."""
    main, startup, x, out = _build()
    scope, exe = Scope(), static.Executor()
    with static.scope_guard(scope):
        exe.run(startup)
        prefix = str(tmp_path / "m")
        static.save_inference_model(prefix, [x], [out], exe, program=main)
    pred = create_predictor(Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    layer = paddle.jit.load(prefix)
    layer.eval()
    out_name = pred.get_output_names()[0]

    def executor(v):
        return exe.run(main, feed={"x": v}, fetch_list=[out], scope=scope)[0]

    def predictor(v):
        pred.get_input_handle("x").copy_from_cpu(v)
        pred.run()
        return pred.get_output_handle(out_name).copy_to_cpu()

    def predictor_list(v):
        return pred.run([v])[0]

    def loaded(v):
        with paddle.no_grad():
            return layer(paddle.to_tensor(v)).numpy()

    def loaded_training(v):          # the partial program's forward + backward plans
        t = paddle.to_tensor(v, stop_gradient=False)
        y = layer(t)
        y.sum().backward()
        return y.numpy()

    return {"executor": executor, "predictor": predictor, "predictor_list": predictor_list,
            "loaded": loaded, "loaded_training": loaded_training, "pred": pred, "layer": layer,
            "exe": exe, "main": main, "scope": scope, "out": out}


CALLERS = ["executor", "predictor", "predictor_list", "loaded", "loaded_training"]
NOUN = {"executor": "feed"}          # how each caller names a feed: "feed" for Executor.run's dict


def test_callers_agree(model):
    x = np.arange(6, dtype="float32").reshape(2, 3)
    want = model["executor"](x)
    for c in CALLERS[1:]:
        np.testing.assert_allclose(model[c](x), want, rtol=1e-6, err_msg=c)


@pytest.mark.parametrize("caller", CALLERS)
def test_wrong_dtype(model, caller):
    noun = NOUN.get(caller, "input")
    with pytest.raises(ValueError, match=rf"{noun} 'x': expected dtype float32, got float64; "
                                         rf"convert it with \.astype\('float32'\)"):
        model[caller](np.zeros((2, 3)))


@pytest.mark.parametrize("caller", CALLERS)
def test_wrong_shape(model, caller):
    noun = NOUN.get(caller, "input")
    with pytest.raises(ValueError, match=rf"{noun} 'x': expected shape \[-1, 3\] "
                                         rf"\(-1 is any size\), got \[2, 4\]"):
        model[caller](np.zeros((2, 4), "float32"))
    with pytest.raises(ValueError, match=r"'x': expected shape \[-1, 3\].*got \[3\]"):
        model[caller](np.zeros(3, "float32"))                      # the rank counts too


def test_missing_feed(model):
    with pytest.raises(ValueError, match=r"data 'x' \(float32\[-1, 3\]\) is read by op #0 "
                                         r"'matmul_v2' \(block 0\) but was not fed.*"
                                         r"pass feed=\{'x': array\}"):
        model["exe"].run(model["main"], feed={}, fetch_list=[model["out"]],
                         scope=model["scope"])
    pred = model["pred"]
    with pytest.raises(ValueError, match=r"input 'x' \(float32\[-1, 3\]\) was not fed; call "
                                         r"get_input_handle\('x'\)\.copy_from_cpu"):
        pred.run()
    with pytest.raises(ValueError, match=r"takes a list of 1 input"):
        pred.run([])
    with pytest.raises(ValueError, match=r"takes 1 input"):
        model["layer"]()


def _ghost(main, out):
    """``out + h`` where ``h`` is declared but nothing feeds, computes or holds it."""
    h = main.global_block().create_var(name="h", shape=[2], dtype="float32")
    return out + h


def test_unfed_read_variable():
    main, startup, x, y = _build(_ghost)
    msg = (r"variable 'h' \(float32\[2\]\) is read by op #2 'elementwise_add' \(block 0\) "
           r"but was not fed, is not computed by the program and ")
    scope, exe = Scope(), static.Executor()
    exe.run(startup, scope=scope)
    feed = {"x": np.ones((1, 3), "float32")}
    with pytest.raises(ValueError, match=msg + r"has no value in the scope; "
                                               r"pass feed=\{'h': array\}"):
        exe.run(main, feed=feed, fetch_list=[y], scope=scope)
    scope.var("h").set(np.full(2, 10.0, "float32"))       # a scope value stands for a feed
    got, = exe.run(main, feed=feed, fetch_list=[y], scope=scope)
    # the partial program (and so to_static / jit.load) and the Predictor hold no scope:
    # the plan is refused when it is built
    tensors = {n: paddle.to_tensor(scope.find_var(n).get()) for n in
               [p.name for p in main.all_parameters()]}
    main._bound = tensors
    pp = PartialProgram(_Concrete(main, [x], [y]))
    with pytest.raises(ValueError, match=msg + "is not a persistable"):
        pp([paddle.to_tensor(feed["x"])])
    arrays = {n: t._data for n, t in tensors.items()}
    with pytest.raises(ValueError, match=msg + "is not a persistable"):
        PlanRun(main, ["x"], [y.name], arrays=arrays, check="all", noun="input")
    fed = PlanRun(main, ["x", "h"], [y.name], arrays=arrays)      # fed, it runs
    np.testing.assert_allclose(got, fed.run_arrays([feed["x"], scope.find_var("h").get()])[0])


def test_unknown_fetch(model):
    msg = r"fetch target 'nope' is not a variable of the program"
    with pytest.raises(ValueError, match=msg):
        model["exe"].run(model["main"], feed={"x": np.ones((1, 3), "float32")},
                         fetch_list=["nope"], scope=model["scope"])
    other = static.Program().global_block().create_var(name="nope", shape=[1],
                                                       dtype="float32")
    main = model["main"]
    x = main.global_block().var("x")
    with pytest.raises(ValueError, match=msg):
        PartialProgram(_Concrete(main, [x], [other]))([paddle.ones([1, 3])])
    with pytest.raises(ValueError, match=msg):
        PlanRun(main, ["x"], ["nope"], scope=Scope())
    with pytest.raises(ValueError, match="the model has no output 'nope'"):
        model["pred"].get_output_handle("nope")


def test_uninitialized_persistable():
    main, startup, x, out = _build()
    w = main.all_parameters()[0].name
    with pytest.raises(RuntimeError, match=rf"persistable variable '{w}' \(float32\[3, 2\]\), "
                                           r"read by op #0 'matmul_v2' \(block 0\), is not "
                                           r"initialized in the scope; run the startup"):
        static.Executor().run(main, feed={"x": np.ones((1, 3), "float32")},
                              fetch_list=[out], scope=Scope())
    x_var = main.global_block().var("x")
    main._bound = {}
    with pytest.raises(RuntimeError, match=rf"persistable variable '{w}' .* is not an eager "
                                           r"tensor"):
        PartialProgram(_Concrete(main, [x_var], [out]))([paddle.ones([1, 3])])


def test_fetched_feeds_and_persistables_are_copies():
    main, startup, x, out = _build()
    scope, exe = Scope(), static.Executor()
    exe.run(startup, scope=scope)
    w = main.all_parameters()[0]
    v = np.ones((1, 3), "float32")
    got_x, got_w, _ = exe.run(main, feed={"x": v}, fetch_list=[x, w, out], scope=scope)
    assert got_x is not v and not np.shares_memory(got_x, v)
    assert not np.shares_memory(got_w, scope.find_var(w.name).get())
    interp = exe.prepare(main, {"x": v}, [x, w, out], scope)
    assert interp.fetch_aliased == (True, True, False)


def test_checks_are_settled_at_build():
    main, startup, x, out = _build()
    run = PlanRun(main, ["x"], [out.name], arrays={p.name: np.ones(p.shape, "float32")
                                                   for p in main.all_parameters()})
    spec, = run.feeds
    assert (spec.name, spec.dims, spec.dtype) == ("x", (-1, 3), np.dtype("float32"))
    a = np.ones((5, 3), "float32")
    assert spec.check(a) is a
    assert spec.accept([[1, 2, 3]]).dtype == np.float32        # lists take the declared dtype
    with pytest.raises(TypeError, match="exactly one source"):
        PlanRun(main, ["x"], [out.name], scope=Scope(), arrays={})
