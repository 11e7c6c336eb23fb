"""paddle.utils: run_check (trains eagerly, statically and through to_static
against numpy; leaves the mode and the layer names as they were), require_version
against the Paddle API sampan implements (Paddle 2.6.2's answers for 2.6.2
installed), try_import, and deprecated (Paddle 2.6.2 returns the function as it
is)."""
import warnings

import numpy as np
import pytest

import sampan as paddle
from sampan.hapi import run_check as rc


def test_run_check_passes_and_restores_mode_and_names(capsys):
    before = paddle.nn.Linear(2, 2).weight.name
    paddle.utils.run_check()
    out = capsys.readouterr().out
    assert "works well on 1 CPU" in out and "installed successfully" in out
    after = paddle.nn.Linear(2, 2).weight.name
    assert int(after.split("_")[1].split(".")[0]) == int(before.split("_")[1].split(".")[0]) + 1
    paddle.enable_static()
    try:
        paddle.utils.run_check()
        assert not paddle.in_dynamic_mode()
    finally:
        paddle.disable_static()
    assert paddle.in_dynamic_mode()


def test_run_check_names_the_part_that_fails(monkeypatch):
    real = rc._numpy_step
    monkeypatch.setattr(rc, "_numpy_step", lambda x, y, w, b: (real(x, y, w, b)[0] + 1.0,)
                        + real(x, y, w, b)[1:])
    with pytest.raises(RuntimeError, match="eager loss differs from numpy's"):
        paddle.utils.run_check()


@pytest.mark.parametrize("args", [("2.0.0",), ("2.6.2",), ("2.0", "3.0"), ("0.0.0",),
                                  ("2.6.2.0", "2.6.2")])
def test_require_version_accepts(args):
    assert paddle.utils.require_version(*args) is None


@pytest.mark.parametrize("args, match", [
    (("2.6.3",), "2.6.3 or higher is required"),
    (("2.0.0", "2.5.0"), r"in \[2.0.0, 2.5.0\] required"),
    (("1.0", "0.5"), r"in \[1.0, 0.5\] required")])
def test_require_version_refuses_with_paddles_version_error(args, match):
    with pytest.raises(Exception, match="^VersionError: .*" + match):
        paddle.utils.require_version(*args)


def test_require_version_checks_its_arguments():
    with pytest.raises(TypeError, match="min_version must be a str"):
        paddle.utils.require_version(2)
    with pytest.raises(TypeError, match="max_version must be a str"):
        paddle.utils.require_version("2.0", 3.0)
    for bad in ("x.y", "1.2.3.4.5", "1.", ""):
        with pytest.raises(ValueError, match="one to four numbers"):
            paddle.utils.require_version(bad)


def test_try_import():
    assert paddle.utils.try_import("json").dumps([1]) == "[1]"
    with pytest.raises(ImportError, match="pip install no_such_mod_xyz"):
        paddle.utils.try_import("no_such_mod_xyz.sub")
    with pytest.raises(ImportError, match="^custom message$"):
        paddle.utils.try_import("no_such_mod_xyz", "custom message")


def test_deprecated_returns_the_function_as_paddle_2_6_2_does():
    def old(x):
        "doc"
        return x + 1
    for level in (0, 1, 2):
        wrapped = paddle.utils.deprecated(update_to="paddle.new", since="2.0", level=level)(old)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert wrapped is old and wrapped(np.int64(1)) == 2 and wrapped.__doc__ == "doc"
