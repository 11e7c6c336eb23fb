"""save_inference_model / load_inference_model and static.save / static.load:
round trips of programs built in sampan, Paddle's file layout (feed/fetch/scale
ops, holders, sorted variables and records, is_test), pruning, atomic writes."""
import os

import numpy as np
import pytest

import sampan as paddle
from sampan.inference import Config, create_predictor
from sampan.save_load import load_pdiparams
from sampan.save_load.program_io import read_program
from sampan.program.proto import framework_pb2 as pb

static = paddle.static


@pytest.fixture
def fresh_scope():
    scope = static.Scope()
    with static.scope_guard(scope):
        yield scope


def _build(fn):
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, startup):
            out = fn()
    finally:
        paddle.disable_static()
    return main, startup, out


def _mlp():
    x = static.data("x", [None, 6], "float32")
    y = static.data("label", [None, 3], "float32")
    h = paddle.nn.functional.relu(paddle.nn.Linear(6, 8)(x))
    out = paddle.nn.Linear(8, 3)(h)
    loss = paddle.nn.functional.mse_loss(out, y)
    return x, y, out, loss


def _cnn():
    x = static.data("img", [None, 3, 8, 8], "float32")
    h = paddle.nn.BatchNorm2D(4)(paddle.nn.Conv2D(3, 4, 3, padding=1)(x))
    h = paddle.flatten(paddle.nn.functional.relu(h), 1)
    out = paddle.nn.Linear(4 * 64, 5)(h)
    return x, out


def _run(main, feed, fetch):
    exe = static.Executor()
    feed = dict(feed)
    if main.global_block().has_var("label"):     # the executor runs the whole program
        feed["label"] = np.zeros((len(next(iter(feed.values()))), 3), "float32")
    return exe.run(main.clone(for_test=True), feed=feed, fetch_list=fetch)


def test_mlp_round_trip(tmp_path, fresh_scope):
    main, startup, (x, y, out, loss) = _build(_mlp)
    exe = static.Executor()
    exe.run(startup)
    xin = np.random.RandomState(0).rand(4, 6).astype("float32")
    ref = _run(main, {"x": xin}, [out])[0]
    prefix = str(tmp_path / "mlp")
    written = static.save_inference_model(prefix, [x], [out], exe, program=main)
    assert sorted(os.listdir(tmp_path)) == ["mlp.pdiparams", "mlp.pdmodel", "mlp.sampan.json"]
    assert sorted(written) == sorted([prefix + ".pdiparams", prefix + ".pdmodel",
                                      prefix + ".sampan.json"])
    with static.scope_guard(static.Scope()):
        prog, feeds, fetches = static.load_inference_model(prefix, exe)
        assert feeds == ["x"]
        assert [v.name for v in fetches] == ["save_infer_model/scale_0.tmp_0"]
        got = exe.run(prog, feed={"x": xin}, fetch_list=fetches)[0]
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)
    pred = create_predictor(Config(prefix))
    np.testing.assert_allclose(pred.run([xin])[0], ref, rtol=1e-6, atol=1e-6)
    layer = paddle.jit.load(prefix)
    layer.eval()
    with paddle.no_grad():
        np.testing.assert_allclose(layer(paddle.to_tensor(xin)).numpy(), ref, rtol=1e-6,
                                   atol=1e-6)


def test_cnn_with_batch_norm_round_trip(tmp_path, fresh_scope):
    main, startup, (x, out) = _build(_cnn)
    exe = static.Executor()
    exe.run(startup)
    rng = np.random.RandomState(1)
    for name in ("batch_norm2d_0.w_1", "batch_norm2d_0.w_2"):      # non-trivial statistics
        v = fresh_scope.find_var(name)
        if v is not None:
            v.set((rng.rand(4) + 0.5).astype("float32"))
    xin = rng.rand(2, 3, 8, 8).astype("float32")
    ref = _run(main, {"img": xin}, [out])[0]
    prefix = str(tmp_path / "cnn")
    static.save_inference_model(prefix, x, out, exe, program=main)
    program = read_program(prefix + ".pdmodel")
    bn = [op for op in program.global_block().ops if op.type == "batch_norm"][0]
    assert bn.attr("is_test") is True
    # "extra" outputs are left off as Paddle does (clip_extra); reshape2 keeps its XShape
    ops = {op.type: op for op in program.global_block().ops}
    assert "XShape" not in ops["flatten_contiguous_range"].output_names
    assert "ReserveSpace" not in bn.output_names
    assert ops["reshape2"].output("XShape")
    static.save_inference_model(prefix + "_full", x, out, exe, program=main, clip_extra=False)
    full = {op.type: op for op in read_program(prefix + "_full.pdmodel").global_block().ops}
    assert full["flatten_contiguous_range"].output("XShape")
    # gradients still flow through the loaded program (jit.load gives XShape back)
    layer = paddle.jit.load(prefix)
    layer.eval()
    layer(paddle.to_tensor(xin)).sum().backward()
    assert all(p.grad is not None for p in layer.parameters())
    for ir in (True, False):
        cfg = Config(prefix + ".pdmodel", prefix + ".pdiparams")
        cfg.switch_ir_optim(ir)
        np.testing.assert_allclose(create_predictor(cfg).run([xin])[0], ref, rtol=1e-5,
                                   atol=1e-6)


def test_paddle_layout(tmp_path, fresh_scope):
    main, startup, (x, y, out, loss) = _build(_mlp)
    exe = static.Executor()
    exe.run(startup)
    prefix = str(tmp_path / "m")
    static.save_inference_model(prefix, [x], [out], exe, program=main)
    desc = pb.ProgramDesc()
    desc.ParseFromString(open(prefix + ".pdmodel", "rb").read())
    assert desc.version.version == 2006002
    assert len(desc.op_version_map.pair) == 68
    b0 = desc.blocks[0]
    ops = [op.type for op in b0.ops]
    assert ops[0] == "feed" and ops[-1] == "fetch" and ops[-2] == "scale"
    assert "mse_loss" not in ops and "reduce_mean" not in ops     # pruned: not an output's
    scale = b0.ops[-2]
    assert list(scale.outputs[0].arguments) == ["save_infer_model/scale_0.tmp_0"]
    names = [v.name for v in b0.vars]
    assert names[-2:] == ["feed", "fetch"]
    assert names[:-2] == sorted(names[:-2])
    assert "label" not in names                                  # not needed: dropped
    holders = {v.name: v for v in b0.vars[-2:]}
    assert holders["feed"].type.type == pb.VarType.FEED_MINIBATCH and holders["feed"].persistable
    assert holders["fetch"].type.type == pb.VarType.FETCH_LIST and holders["fetch"].persistable
    for op in b0.ops:
        attrs = {a.name for a in op.attrs}
        assert {"op_role", "op_namescope", "op_device", "op_role_var"} <= attrs, op.type
        assert [a.name for a in op.attrs] == sorted(a.name for a in op.attrs)
    for v in b0.vars:
        assert not v.HasField("is_parameter") and not v.HasField("stop_gradient")
    params = sorted(v.name for v in b0.vars if v.persistable and v.name not in ("feed", "fetch"))
    arrays = load_pdiparams(prefix + ".pdiparams", params)
    assert list(arrays) == sorted(params)
    for n, a in arrays.items():
        np.testing.assert_array_equal(a, np.asarray(fresh_scope.find_var(n).get()))


def test_feed_and_fetch_order(tmp_path, fresh_scope):
    def build():
        a = static.data("a", [None, 3], "float32")
        b = static.data("b", [None, 3], "float32")
        s = a + b
        d = a - b
        big = paddle.greater_than(s, d)
        return a, b, s, d, big
    main, startup, (a, b, s, d, big) = _build(build)
    exe = static.Executor()
    prefix = str(tmp_path / "m")
    static.save_inference_model(prefix, [a, b], [d, s, big], exe, program=main)
    assert not os.path.exists(prefix + ".pdiparams")              # no parameters, no file
    block = read_program(prefix + ".pdmodel").global_block()
    feeds = [(op.output("Out")[0], op.attr("col")) for op in block.ops if op.type == "feed"]
    assert feeds == [("b", 1), ("a", 0)]                           # prepended: reverse col
    fetches = [(op.input("X")[0], op.attr("col")) for op in block.ops if op.type == "fetch"]
    assert fetches == [("save_infer_model/scale_0.tmp_0", 0),
                       ("save_infer_model/scale_1.tmp_0", 1), (big.name, 2)]   # bool: as is
    pred = create_predictor(Config(prefix + ".pdmodel", ""))
    assert pred.get_input_names() == ["a", "b"]
    av, bv = np.ones((2, 3), "float32"), np.full((2, 3), 2.0, "float32")
    r = pred.run([av, bv])
    np.testing.assert_array_equal(r[0], av - bv)
    np.testing.assert_array_equal(r[1], av + bv)
    np.testing.assert_array_equal(r[2], (av + bv) > (av - bv))


def test_training_program_is_pruned(tmp_path, fresh_scope):
    main, startup, (x, y, out, loss) = _build(_mlp)
    paddle.enable_static()
    try:
        with static.program_guard(main, startup):
            paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    finally:
        paddle.disable_static()
    exe = static.Executor()
    exe.run(startup)
    xin = np.random.RandomState(0).rand(4, 6).astype("float32")
    exe.run(main, feed={"x": xin, "label": np.zeros((4, 3), "float32")}, fetch_list=[loss])
    ref = _run(main, {"x": xin}, [out])[0]
    prefix = str(tmp_path / "m")
    static.save_inference_model(prefix, [x], [out], exe, program=main)
    program = read_program(prefix + ".pdmodel")
    types = {op.type for b in program.blocks for op in b.ops}
    assert not any(t.endswith("_grad") or t == "sgd" for t in types), types
    assert not any("@GRAD" in v.name or "learning_rate" in v.name
                   for v in program.list_vars())
    np.testing.assert_allclose(create_predictor(Config(prefix)).run([xin])[0], ref,
                               rtol=1e-6, atol=1e-6)


def test_resave_a_loaded_model_keeps_its_outputs(tmp_path, fresh_scope):
    main, startup, (x, y, out, loss) = _build(_mlp)
    exe = static.Executor()
    exe.run(startup)
    static.save_inference_model(str(tmp_path / "a"), [x], [out], exe, program=main)
    prog, feeds, fetches = static.load_inference_model(str(tmp_path / "a"), exe)
    feed_vars = [prog.global_block().var(n) for n in feeds]
    static.save_inference_model(str(tmp_path / "b"), feed_vars, fetches, exe, program=prog)
    a = open(tmp_path / "a.pdiparams", "rb").read()
    assert open(tmp_path / "b.pdiparams", "rb").read() == a
    block = read_program(str(tmp_path / "b.pdmodel")).global_block()
    assert [op.type for op in block.ops].count("scale") == 1


def test_save_errors(tmp_path, fresh_scope):
    main, startup, (x, y, out, loss) = _build(_mlp)
    exe = static.Executor()
    with pytest.raises(ValueError, match="directory"):
        static.save_inference_model(str(tmp_path), [x], [out], exe, program=main)
    with pytest.raises(ValueError, match="feed_vars"):
        static.save_inference_model(str(tmp_path / "m"), ["x"], [out], exe, program=main)
    with pytest.raises(ValueError, match="startup"):             # parameters not initialized
        static.save_inference_model(str(tmp_path / "m"), [x], [out], exe, program=main)
    exe.run(startup)
    with pytest.raises(ValueError, match="label"):               # loss needs the unfed label
        static.save_inference_model(str(tmp_path / "m"), [x], [loss], exe, program=main)
    assert os.listdir(tmp_path) == []


def test_failed_save_leaves_old_files_and_no_temp_files(tmp_path, fresh_scope, monkeypatch):
    main, startup, (x, y, out, loss) = _build(_mlp)
    exe = static.Executor()
    exe.run(startup)
    prefix = str(tmp_path / "m")
    static.save_inference_model(prefix, [x], [out], exe, program=main)
    before = {f: open(tmp_path / f, "rb").read() for f in os.listdir(tmp_path)}
    import sampan.save_load.pdiparams as pdi

    def failing(fh, items):         # the disk fills up half-way through the params file
        fh.write(b"partial")
        raise OSError("disk full")
    monkeypatch.setattr(pdi, "write_records", failing)
    with pytest.raises(OSError, match="disk full"):
        static.save_inference_model(prefix, [x], [out], exe, program=main)
    after = {f: open(tmp_path / f, "rb").read() for f in os.listdir(tmp_path)}
    assert after == before


def test_load_errors(tmp_path):
    exe = static.Executor()
    with pytest.raises(FileNotFoundError):
        static.load_inference_model(str(tmp_path / "missing"), exe)
    with pytest.raises(ValueError):
        static.load_inference_model(None, exe)


def test_load_from_bytes():
    ref = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))), "shared", "paddle-reference", "models", "lenet")
    model = open(os.path.join(ref, "model.pdmodel"), "rb").read()
    params = open(os.path.join(ref, "model.pdiparams"), "rb").read()
    exe = static.Executor()
    with static.scope_guard(static.Scope()):
        prog, feeds, fetches = static.load_inference_model(None, exe, model_filename=model,
                                                           params_filename=params)
        x = dict(np.load(os.path.join(ref, "inputs.npz")))["img"]
        got = exe.run(prog, feed={"img": x}, fetch_list=fetches)[0]
    want = list(np.load(os.path.join(ref, "outputs.npz")).values())[0]
    np.testing.assert_allclose(got, want, atol=1e-5)


# ----------------------------------------------------------------- static.save / load
def test_static_save_load_round_trip(tmp_path, fresh_scope):
    main, startup, (x, y, out, loss) = _build(_mlp)
    paddle.enable_static()
    try:
        with static.program_guard(main, startup):
            paddle.optimizer.Adam(learning_rate=0.01).minimize(loss)
    finally:
        paddle.disable_static()
    exe = static.Executor()
    exe.run(startup)
    feed = {"x": np.random.rand(4, 6).astype("float32"), "label": np.ones((4, 3), "float32")}
    exe.run(main, feed=feed, fetch_list=[loss])
    saved = {n: np.array(fresh_scope.find_var(n).get()) for n in fresh_scope.local_var_names()
             if fresh_scope.find_var(n).get() is not None}
    prefix = str(tmp_path / "ckpt")
    static.save(main, prefix)
    assert sorted(os.listdir(tmp_path)) == ["ckpt.pdmodel", "ckpt.pdopt", "ckpt.pdparams"]
    state = static.load_program_state(prefix)
    params = {p.name for p in main.all_parameters()}
    assert params <= set(state)
    assert any("moment1" in k for k in state)                     # optimizer state in .pdopt
    with static.scope_guard(static.Scope()) as _:
        static.load(main, prefix, exe)
        scope = static.global_scope()
        for n in state:
            np.testing.assert_array_equal(np.asarray(scope.find_var(n).get()), saved[n])
    with static.scope_guard(static.Scope()):
        static.load(main, prefix + ".pdparams", exe, var_list=list(main.all_parameters()))
    prog = read_program(prefix + ".pdmodel")
    assert any(op.type == "adam" for op in prog.global_block().ops)


def test_static_load_checks(tmp_path, fresh_scope):
    main, startup, (x, y, out, loss) = _build(_mlp)
    exe = static.Executor()
    exe.run(startup)
    prefix = str(tmp_path / "ckpt")
    static.save(main, prefix)
    from sampan.save_load import safe_pickle
    state = static.load_program_state(prefix + ".pdparams")
    params = {k: v for k, v in state.items() if k in {p.name for p in main.all_parameters()}}
    name = sorted(params)[0]
    bad = dict(params, **{name: np.zeros((2, 2), params[name].dtype)})
    with open(prefix + ".pdparams", "wb") as fh:
        fh.write(safe_pickle.dumps(bad, 4))
    with pytest.raises(ValueError, match="expected shape"):
        static.load(main, prefix, exe)
    del bad[name]
    with open(prefix + ".pdparams", "wb") as fh:
        fh.write(safe_pickle.dumps(bad, 4))
    with pytest.raises(ValueError, match="Can not find"):
        static.load(main, prefix, exe)
    with pytest.raises(ValueError, match="not exits"):
        static.load(main, str(tmp_path / "nothing"), exe)


def test_load_with_folder_and_file_names():
    ref = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))), "shared", "paddle-reference", "models", "lenet")
    exe = static.Executor()
    for names in (("model.pdmodel", "model.pdiparams"), ("model", "model")):
        with static.scope_guard(static.Scope()):
            prog, feeds, fetches = static.load_inference_model(
                ref, exe, model_filename=names[0], params_filename=names[1])
            assert feeds == ["img"] and len(fetches) == 1
