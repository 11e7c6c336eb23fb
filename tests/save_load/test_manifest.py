"""The sidecar manifest (``<prefix>.sampan.json``): every change to a sampan-written model
file is caught by jit.load, the Predictor, load_inference_model and ``inspect --verify``;
files without a manifest (Paddle's own) load as before."""
import io
import json
import os

import numpy as np
import pytest

import sampan as paddle
from sampan import inference
from sampan.cli.main import main as cli_main
from sampan.save_load.fileio import FormatError
from sampan.save_load.manifest import SUFFIX, ManifestError, find_manifest, verify_model

REF = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "paddle-reference",
                   "models")


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = paddle.nn.Linear(8, 8)
        self.b = paddle.nn.Linear(8, 8)

    def forward(self, x):
        return self.b(paddle.nn.functional.relu(self.a(x)))


@pytest.fixture
def model(tmp_path):
    paddle.seed(1)
    net = Net()
    for k, p in enumerate(net.parameters()):    # no two tensors alike (biases are zeros)
        p.set_value(np.random.default_rng(k).standard_normal(p.shape).astype("float32"))
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, input_spec=[paddle.static.InputSpec([None, 8], "float32",
                                                                     "x")])
    return prefix


def _loaders(prefix):
    def jit_load():
        paddle.jit.load(prefix)

    def predictor():
        inference.create_predictor(inference.Config(prefix + ".pdmodel",
                                                    prefix + ".pdiparams"))

    def static_load():
        paddle.enable_static()
        try:
            paddle.static.load_inference_model(prefix, paddle.static.Executor())
        finally:
            paddle.disable_static()
    return {"jit.load": jit_load, "predictor": predictor, "load_inference_model": static_load}


def _assert_all_catch(prefix, *needles):
    for name, fn in _loaders(prefix).items():
        with pytest.raises(FormatError) as ei:
            fn()
        msg = str(ei.value)
        for n in needles:
            assert n in msg, (name, msg)
    mpath, problems = verify_model(prefix + ".pdmodel", prefix + ".pdiparams")
    assert mpath == prefix + SUFFIX and problems
    out = io.StringIO()
    assert cli_main(["inspect", "--verify", prefix], out=out) == 1


def _flip(path, offset, bit=0):
    data = bytearray(open(path, "rb").read())
    data[offset] ^= 1 << bit
    open(path, "wb").write(bytes(data))


def _record_offsets(path):
    from sampan.save_load import pdiparams
    with open(path, "rb") as fh:
        data = fh.read()
    offsets, pos = [], 0
    for rec in pdiparams.read_records(data):
        size = len(pdiparams.record_bytes(rec))
        offsets.append((pos, size - rec.array.nbytes, rec.array.nbytes))
        pos += size
    return offsets


def test_manifest_written_and_clean_model_verifies(model):
    assert os.path.isfile(model + SUFFIX)
    json.loads(open(model + SUFFIX).read())         # plain JSON, readable by any tool
    m = find_manifest(model + ".pdmodel")
    assert set(m.files) == {"m.pdmodel", "m.pdiparams", "m.pdiparams.info"}
    assert [t["name"].rsplit(".", 1)[1] for t in m.files["m.pdiparams"]["tensors"]] == \
        ["b_0", "w_0", "b_0", "w_0"]
    assert m.body["methods"]["forward"]["inputs"] == [
        {"name": "x", "dtype": "float32", "shape": [-1, 8]}]
    for fn in _loaders(model).values():
        fn()
    assert verify_model(model + ".pdmodel", model + ".pdiparams") == (model + SUFFIX, [])
    out = io.StringIO()
    assert cli_main(["inspect", "--verify", model], out=out) == 0
    assert "OK" in out.getvalue()


@pytest.mark.parametrize("where", ["data_first", "data_middle", "data_last", "data_high_bit"])
def test_flipped_bit_in_data_caught(model, where):
    pfile = model + ".pdiparams"
    offs = _record_offsets(pfile)
    start, head, n = offs[{"data_first": 0, "data_middle": 1, "data_last": 3,
                           "data_high_bit": 2}[where]]
    pos = start + head + {"data_first": 0, "data_middle": n // 2, "data_last": n - 1,
                          "data_high_bit": 5}[where]
    _flip(pfile, pos, 7 if where == "data_high_bit" else 0)
    idx = {"data_first": 0, "data_middle": 1, "data_last": 3, "data_high_bit": 2}[where]
    _assert_all_catch(model, "m.pdiparams", f"tensor #{idx}", "values changed",
                      f"bytes {start + head}..{start + head + n - 1} of the file differ")


@pytest.mark.parametrize("offset", [0, 4, 12, 16, 20, 22])
def test_flipped_bit_in_a_record_header_caught(model, offset):
    pfile = model + ".pdiparams"
    start, head, _ = _record_offsets(pfile)[1]
    assert offset < head
    _flip(pfile, start + offset, 1)
    _assert_all_catch(model, "m.pdiparams")


def test_swapped_tensors_of_the_same_shape_caught(model):
    pfile = model + ".pdiparams"
    offs = _record_offsets(pfile)
    data = bytearray(open(pfile, "rb").read())
    (s1, h1, n1), (s3, h3, n3) = offs[1], offs[3]       # linear_0.w_0 <-> linear_1.w_0
    a, b = bytes(data[s1 + h1:s1 + h1 + n1]), bytes(data[s3 + h3:s3 + h3 + n3])
    data[s1 + h1:s1 + h1 + n1], data[s3 + h3:s3 + h3 + n3] = b, a
    open(pfile, "wb").write(bytes(data))
    _assert_all_catch(model, "tensor #1", "tensor #3", "swapped")


@pytest.mark.parametrize("keep", [0.5, 0.99])
def test_truncated_params_caught(model, keep):
    pfile = model + ".pdiparams"
    data = open(pfile, "rb").read()
    open(pfile, "wb").write(data[:int(len(data) * keep)])
    _assert_all_catch(model, "m.pdiparams")


def test_edited_pdmodel_caught(model):
    from sampan.save_load.program_io import read_program, program_bytes
    prog = read_program(model + ".pdmodel")
    for op in prog.global_block().ops:
        if op.type == "relu":
            op._set_attr("op_namescope", "/edited/")
    open(model + ".pdmodel", "wb").write(program_bytes(prog))
    _assert_all_catch(model, "m.pdmodel", "changed or damaged")


@pytest.mark.parametrize("where", [0.0, 0.5, 0.9])
def test_flipped_bit_in_pdmodel_caught(model, where):
    size = os.path.getsize(model + ".pdmodel")
    _flip(model + ".pdmodel", int(size * where), 2)
    _assert_all_catch(model, "m.pdmodel", "sha256")


def test_appended_byte_and_edited_info_caught(model):
    with open(model + ".pdiparams.info", "ab") as fh:
        fh.write(b"\0")
    with pytest.raises(FormatError, match="pdiparams.info"):
        paddle.jit.load(model)


def test_damaged_manifest_is_an_error_naming_it(model):
    text = open(model + SUFFIX).read().replace('"size": ', '"size": 1', 1)
    open(model + SUFFIX, "w").write(text)
    with pytest.raises(ManifestError, match="sampan.json.*damaged"):
        paddle.jit.load(model)


def test_missing_manifest_loads_as_before(model):
    os.remove(model + SUFFIX)
    for fn in _loaders(model).values():
        fn()
    assert verify_model(model + ".pdmodel", model + ".pdiparams") == (None, [])
    out = io.StringIO()
    assert cli_main(["inspect", "--verify", model], out=out) == 0
    assert "no manifest" in out.getvalue()


def test_changed_weight_without_manifest_is_not_detectable(model):
    """What the manifest adds: Paddle's format alone loads a flipped data bit."""
    os.remove(model + SUFFIX)
    start, head, _ = _record_offsets(model + ".pdiparams")[1]
    _flip(model + ".pdiparams", start + head + 3)
    paddle.jit.load(model)          # loads and would run wrong


@pytest.mark.parametrize("name", ["lenet", "bn_embed", "loop", "mlp_cond"])
def test_paddle_written_models_still_load(tmp_path, name):
    src = os.path.join(REF, name)
    if not os.path.isdir(src):
        pytest.skip("paddle-reference models not present")
    prefix = os.path.join(src, "model")
    assert find_manifest(prefix + ".pdmodel") is None
    layer = paddle.jit.load(prefix)
    inference.create_predictor(inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    assert verify_model(prefix + ".pdmodel", prefix + ".pdiparams") == (None, [])
    # saved again by sampan: now it carries a manifest, and a flipped bit is caught
    out = str(tmp_path / "again")
    paddle.jit.save(layer, out)
    assert find_manifest(out + ".pdmodel") is not None
    paddle.jit.load(out)
    offs = _record_offsets(out + ".pdiparams")
    k = max(range(len(offs)), key=lambda i: offs[i][2])
    start, head, n = offs[k]
    _flip(out + ".pdiparams", start + head + n // 2, 3)
    with pytest.raises(ManifestError, match="values changed"):
        paddle.jit.load(out)


def test_save_inference_model_writes_a_manifest(tmp_path):
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data("x", [None, 3], "float32")
            y = paddle.static.nn.fc(x, 2)
        exe = paddle.static.Executor()
        exe.run(start)
        prefix = str(tmp_path / "s")
        paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
        assert find_manifest(prefix + ".pdmodel") is not None
        offs = _record_offsets(prefix + ".pdiparams")
        start_, head, _ = offs[-1]
        _flip(prefix + ".pdiparams", start_ + head + 1)
        with pytest.raises(ManifestError, match="values changed"):
            paddle.static.load_inference_model(prefix, exe)
    finally:
        paddle.disable_static()


def test_manifest_hashes_are_of_the_files_on_disk(model):
    import hashlib
    m = find_manifest(model + ".pdmodel")
    for name, e in m.files.items():
        data = open(os.path.join(os.path.dirname(model), name), "rb").read()
        assert hashlib.sha256(data).hexdigest() == e["sha256"] and len(data) == e["size"]
