"""The ``sampan`` command line (inspect / run / bench) on the reference models, through
``main([...])`` and through ``python -m sampan.cli`` in a subprocess."""
import io
import os
import subprocess
import sys

import numpy as np
import pytest

from sampan.cli.main import main

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODELS = os.path.join(os.path.dirname(ROOT), "shared", "paddle-reference", "models")
LENET = os.path.join(MODELS, "lenet")


def _main(argv):
    out = io.StringIO()
    rc = main(argv, out=out)
    return rc, out.getvalue()


def test_inspect_lenet():
    rc, text = _main(["inspect", os.path.join(LENET, "model.pdmodel")])
    assert rc == 0, text
    lines = text.splitlines()
    assert "version 2006002" in lines[0]
    assert lines[1] == "inputs (1):"
    assert lines[2].split() == ["img", "float32", "[-1,", "1,", "28,", "28]"]
    assert lines[3] == "outputs (1):"
    assert lines[4].split()[:2] == ["save_infer_model/scale_0.tmp_0", "float32"]
    assert "ops (22 in 1 block(s), 10 types):" in text
    counts = dict(ln.split() for ln in lines if ln.startswith("  ") and len(ln.split()) == 2
                  and ln.split()[1].isdigit())
    assert counts["elementwise_add"] == "5" and counts["conv2d"] == "2"
    numel = 6 * 25 + 6 + 16 * 6 * 25 + 16 + 400 * 120 + 120 + 120 * 84 + 84 + 84 * 10 + 10
    assert f"parameters: 10 tensors, {numel:,} values" in text
    assert "program:" in text and "= conv2d(" in text


@pytest.mark.parametrize("form", ["prefix", "dir"])
def test_inspect_accepts_prefix_and_dir(form):
    target = os.path.join(LENET, "model") if form == "prefix" else LENET
    rc, text = _main(["inspect", target])
    assert rc == 0 and "inputs (1):" in text


def test_inspect_control_flow_model_shows_sub_blocks():
    rc, text = _main(["inspect", os.path.join(MODELS, "loop", "model.pdmodel"), "--details"])
    assert rc == 0
    assert "inputs (2):" in text and "3 block(s)" in text and "while" in text
    assert "block 1" in text and "op_role" in text


def test_run_prints_and_saves(tmp_path):
    ins = dict(np.load(os.path.join(LENET, "inputs.npz")))
    outs = dict(np.load(os.path.join(LENET, "outputs.npz")))
    np.save(tmp_path / "img.npy", ins["img"])
    rc, text = _main(["run", os.path.join(LENET, "model"), "--input",
                      f"img={tmp_path / 'img.npy'}"])
    assert rc == 0 and "save_infer_model/scale_0.tmp_0: float32[2, 10]" in text
    rc, text = _main(["run", os.path.join(LENET, "model"), "--input",
                      f"img={tmp_path / 'img.npy'}", "--output", str(tmp_path / "out")])
    assert rc == 0
    got = np.load(tmp_path / "out" / "save_infer_model_scale_0.tmp_0.npy")
    np.testing.assert_allclose(got, outs["save_infer_model/scale_0.tmp_0"], rtol=1e-5,
                               atol=1e-5)


def test_run_two_inputs_from_npz(tmp_path):
    folder = os.path.join(MODELS, "loop")
    outs = dict(np.load(os.path.join(folder, "outputs.npz")))
    rc, text = _main(["run", os.path.join(folder, "model"), "--input",
                      os.path.join(folder, "inputs.npz"), "--output", str(tmp_path / "r.npz")])
    assert rc == 0, text
    got = dict(np.load(tmp_path / "r.npz"))
    for k, v in outs.items():
        np.testing.assert_allclose(got[k], v, rtol=1e-5, atol=1e-5)


def test_bench_reports_percentiles():
    rc, text = _main(["bench", os.path.join(LENET, "model"), "--batch", "4", "--runs", "5",
                      "--warmup", "1"])
    assert rc == 0, text
    assert "img float32[4, 1, 28, 28]" in text
    assert "p50" in text and "p90" in text and "p99" in text and "samples/s" in text


def test_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.pdmodel"
    bad.write_bytes(b"not a model at all")
    assert main(["inspect", str(bad)], out=io.StringIO()) == 1
    err = capsys.readouterr().err
    assert err.startswith("sampan: error: ") and "bad.pdmodel" in err
    assert err.count("\n") == 1
    assert main(["run", os.path.join(LENET, "model")], out=io.StringIO()) == 1
    assert "missing ['img']" in capsys.readouterr().err
    assert main(["run", os.path.join(LENET, "model"), "--input", "x=nope.npy"],
                out=io.StringIO()) == 1
    assert "nope.npy" in capsys.readouterr().err
    assert main(["frobnicate"], out=io.StringIO()) == 2


def test_python_dash_m(tmp_path):
    # run this checkout (not an installed copy): a folder whose "sampan" is the repo root
    link = tmp_path / "sampan"
    link.symlink_to(ROOT)
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    r = subprocess.run([sys.executable, "-m", "sampan.cli", "inspect",
                        os.path.join(LENET, "model.pdmodel")], capture_output=True, text=True,
                       env=env, cwd=str(tmp_path), timeout=300)
    assert r.returncode == 0, r.stderr
    assert "inputs (1):" in r.stdout and "img" in r.stdout
    r = subprocess.run([sys.executable, "-m", "sampan.cli", "inspect", "/nonexistent"],
                       capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=300)
    assert r.returncode == 1 and r.stderr.startswith("sampan: error:")


def test_entry_point_declared():
    text = open(os.path.join(ROOT, "pyproject.toml")).read()
    assert '[project.scripts]\nsampan = "sampan.cli.main:main"' in text
