"""``sampan inspect --convert module:Layer [--input-spec ...]``: the conversion
report (``sampan.jit.report``) from the command line, the same text."""
import io
import time

import numpy as np
import pytest

import sampan as paddle
from sampan.cli.main import main
from sampan.cli.convert import parse_input_spec


class Bad(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        stamp = time.time()                      # frozen at trace
        m = np.mean(h)                           # numpy on a tensor
        idx = paddle.nonzero(h > 0)              # data-dependent shape
        extra = paddle.nn.Linear(8, 8)           # layer created in forward
        print("in forward")                      # runs at trace only
        return h + stamp + m + idx.shape[0] + extra.weight.shape[0]


class Clean(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(8, 4)

    def forward(self, x):
        return paddle.nn.functional.relu(self.fc(x)).reshape([-1])


class NeedsArgs(paddle.nn.Layer):
    def __init__(self, width):
        super().__init__()


def clean_fn(x, y):
    return paddle.concat([x, y], axis=0)


def _run(*argv):
    buf = io.StringIO()
    rc = main(list(argv), out=buf)
    return rc, buf.getvalue()


def test_same_report_as_the_api():
    rc, text = _run("inspect", "--convert", f"{__name__}:Bad", "--input-spec", "x:float32[B,8]")
    assert rc == 1
    want = str(paddle.jit.report(Bad(), paddle.static.InputSpec(["B", 8], "float32", "x")))
    assert text.strip() == want.strip()
    for kind in ("Python value frozen at trace", "numpy call on a tensor",
                 "data-dependent shape", "parameter created in forward",
                 "runs only when traced"):
        assert f"[{kind}]" in text
    assert "test_inspect_convert.py:" in text and "suggestion:" in text


def test_clean_layer_and_function():
    rc, text = _run("inspect", "--convert", f"{__name__}:Clean", "--input-spec", "[None,8]")
    assert rc == 0, text
    rc, _ = _run("inspect", "--convert", f"{__name__}:clean_fn",
                 "--input-spec", "x:float32[B,4]", "--input-spec", "y:float32[B+1,4]")
    assert rc == 0
    rc, _ = _run("inspect", "--convert", f"{__name__}:Clean")       # source only
    assert rc == 0


def test_input_spec_syntax():
    s = parse_input_spec("ids:int64[B, S]")
    assert s.name == "ids" and str(s.dtype) == "paddle.int64" and s.shape == (-1, -1)
    assert str(list(s.shape)) == "[B, S]"
    s = parse_input_spec("float16[?, 3, -1, 4]")
    assert s.name is None and s.shape == (-1, 3, -1, 4) and str(s.dtype) == "paddle.float16"
    assert parse_input_spec("[2,3]").shape == (2, 3)
    for bad, why in (("x:float32", "write \\[NAME:\\]DTYPE\\[DIMS\\]"),
                     ("x:floaty[2]", "floaty"), ("x:float32[B C]", "not a symbol name")):
        with pytest.raises(ValueError, match=why):
            parse_input_spec(bad)


def test_bad_targets_are_one_line_errors(capsys):
    for target, why in ((f"{__name__}:Missing", "has no attribute 'Missing'"),
                        ("no_such_module_xyz:Net", "cannot import module"),
                        (f"{__name__}:NeedsArgs", "cannot be built with no arguments"),
                        (f"{__name__}", "module:Layer or module:function"),
                        ("io:StringIO", "not a sampan/paddle Layer")):
        rc, _ = _run("inspect", "--convert", target)
        err = capsys.readouterr().err
        assert rc == 1 and err.startswith("sampan: error: ") and why in err, err
    rc, _ = _run("inspect", "--convert", f"{__name__}:Clean", "--input-spec", "x:float32")
    assert rc == 1 and "--input-spec 'x:float32'" in capsys.readouterr().err
    rc, _ = _run("inspect")
    assert rc == 1 and "needs a MODEL" in capsys.readouterr().err


def test_help_documents_convert(capsys):
    with pytest.raises(SystemExit):
        from sampan.cli.main import _parser
        _parser().parse_args(["inspect", "--help"])
    out = capsys.readouterr().out
    assert "--convert MODULE:ATTR" in out and "--input-spec" in out and "x:float32[B,8]" in out


def test_module_found_from_the_current_folder(tmp_path, monkeypatch):
    import sys
    (tmp_path / "cvt_user_net_mod.py").write_text(
        "import sampan as paddle\n"
        "class Net(paddle.nn.Layer):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = paddle.nn.Linear(8, 2)\n"
        "    def forward(self, x):\n"
        "        return float(self.fc(x).sum())\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    rc, text = _run("inspect", "--convert", "cvt_user_net_mod:Net", "--input-spec", "[B,8]")
    assert rc == 1 and "[tensor value read]" in text and "cvt_user_net_mod.py:7" in text
