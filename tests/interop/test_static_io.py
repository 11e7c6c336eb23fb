"""``static.serialize_program`` / ``serialize_persistables`` give Paddle's bytes: written
with ``static.save_to_file`` as ``.pdmodel``/``.pdiparams``, real Paddle 2.6.2's
inference predictor runs them and gives sampan's numbers."""
import numpy as np
import pytest

import sampan as paddle
from sampan import static


@pytest.fixture(scope="module")
def exchange(paddle_side, tmp_path_factory):
    work = tmp_path_factory.mktemp("interop_static_io")
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [None, 3], "float32")
            h = static.nn.fc(x, 5, activation="relu")
            w = static.create_parameter([5, 2], "float32")
            y = paddle.matmul(h, w) + 0.5
        exe = static.Executor()
        exe.run(startup)
        xv = np.random.default_rng(3).standard_normal((4, 3)).astype("float32")
        (want,) = exe.run(main, feed={"x": xv}, fetch_list=[y])
        prefix = str(work / "model")
        static.save_to_file(prefix + ".pdmodel",
                            static.serialize_program([x], [y], program=main))
        static.save_to_file(prefix + ".pdiparams",
                            static.serialize_persistables([x], [y], exe, program=main))
    finally:
        paddle.disable_static()
    np.savez(work / "inputs.npz", x=xv)
    job = {"id": "sio", "kind": "run_model", "prefix": prefix,
           "inputs": str(work / "inputs.npz"), "modes": ["inference"]}
    res = paddle_side.run([job], work / "paddle")["sio"]
    assert res["ok"], res.get("traceback", res.get("error", ""))
    return work / "paddle", res["result"], want


def test_serialized_model_runs_in_real_paddle(exchange):
    folder, report, want = exchange
    info = report["inference"]
    assert info["ok"], info.get("traceback", info.get("error"))
    assert info["input_names"] == ["x"]
    with np.load(folder / "sio.inference.npz") as z:
        np.testing.assert_allclose(z["out0"], want, rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def both_ways(paddle_side, tmp_path_factory):
    """sampan's bytes through Paddle's deserialize_*, Paddle's bytes through sampan's."""
    work = tmp_path_factory.mktemp("interop_static_io_both")
    xv = np.random.default_rng(5).standard_normal((3, 6)).astype("float32")
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [None, 6], "float32")
            y = static.nn.fc(x, 3, activation="sigmoid")
        exe = static.Executor()
        scope = static.Scope()
        with static.scope_guard(scope):
            exe.run(startup)
            (want,) = exe.run(main, feed={"x": xv}, fetch_list=[y])
            static.save_to_file(str(work / "s.program"),
                                static.serialize_program([x], [y], program=main))
            static.save_to_file(str(work / "s.params"),
                                static.serialize_persistables([x], [y], exe, program=main))
    finally:
        paddle.disable_static()
    np.savez(work / "inputs.npz", x=xv)
    job = {"id": "both", "kind": "static_io", "inputs": str(work / "inputs.npz"),
           "program": str(work / "s.program"), "params": str(work / "s.params")}
    res = paddle_side.run([job], work / "paddle")["both"]
    assert res["ok"], res.get("traceback", res.get("error", ""))
    return work / "paddle", res["result"], want, xv


def test_paddle_runs_sampan_bytes_through_deserialize(both_ways):
    folder, _, want, _ = both_ways
    np.testing.assert_allclose(np.load(folder / "sampan_in_paddle.out.npy"), want,
                               rtol=1e-5, atol=1e-6)


def test_sampan_runs_paddle_bytes_through_deserialize(both_ways):
    folder, result, _, xv = both_ways
    paddle.enable_static()
    try:
        prog = static.deserialize_program(static.load_from_file(result["program"]))
        types = [op.type for op in prog.global_block().ops]
        assert types[0] == "feed" and types[-1] == "fetch"
        exe = static.Executor()
        with static.scope_guard(static.Scope()):
            static.deserialize_persistables(prog, static.load_from_file(result["params"]), exe)
            fetch = [op.input("X")[0] for op in prog.global_block().ops if op.type == "fetch"]
            (got,) = exe.run(prog, feed={"x": xv}, fetch_list=fetch)
            # the same tensors give Paddle's persistables bytes, byte for byte
            from sampan.static.io import _persistable_bytes
            assert _persistable_bytes(prog) == static.load_from_file(result["params"])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got, np.load(folder / "paddle.out.npy"), rtol=1e-5, atol=1e-6)
