"""``paddle.set_flags``/``get_flags`` (also as ``paddle.framework`` and
``paddle.base``): flags sampan acts on are honoured, the others recorded."""
import numpy as np
import pytest

import sampan as paddle
from sampan import base, framework


@pytest.fixture(autouse=True)
def _restore_flags():
    names = ["FLAGS_check_nan_inf", "FLAGS_check_nan_inf_level", "FLAGS_use_mkldnn",
             "FLAGS_enable_pir_api", "FLAGS_cudnn_deterministic"]
    names = [n for n in names if n in paddle.ops.flags.FLAGS]
    saved = paddle.get_flags(names)
    yield
    paddle.set_flags(saved)


def test_check_nan_inf_turns_the_check_on_and_off():
    framework.set_flags({"FLAGS_check_nan_inf": True})
    assert base.framework.get_flags("FLAGS_check_nan_inf") == {"FLAGS_check_nan_inf": True}
    with pytest.raises(RuntimeError, match="NAN or INF"), np.errstate(invalid="ignore"):
        paddle.log(paddle.to_tensor([-1.0]))
    base.set_flags({"FLAGS_check_nan_inf": False})
    with np.errstate(invalid="ignore"):
        out = paddle.log(paddle.to_tensor([-1.0]))
    assert np.isnan(out.numpy()).all()


def test_check_nan_inf_level_one_reports_and_goes_on(capfd):
    paddle.set_flags({"FLAGS_check_nan_inf": 1, "FLAGS_check_nan_inf_level": 1})
    assert paddle.get_flags("FLAGS_check_nan_inf") == {"FLAGS_check_nan_inf": True}
    with np.errstate(invalid="ignore"):
        out = paddle.log(paddle.to_tensor([-1.0]))
    assert np.isnan(out.numpy()).all()
    assert "num_nan=1" in capfd.readouterr().err


def test_other_flags_are_recorded():
    paddle.set_flags({"FLAGS_use_mkldnn": True})
    assert paddle.get_flags(["FLAGS_use_mkldnn"]) == {"FLAGS_use_mkldnn": True}
    paddle.set_flags({"FLAGS_enable_pir_api": True})
    assert framework.get_flags(("FLAGS_enable_pir_api",)) == {"FLAGS_enable_pir_api": True}
    assert framework.in_pir_mode() is False            # recorded; sampan has one IR


def test_errors():
    with pytest.raises(ValueError, match="FLAGS_nope cannot set"):
        paddle.set_flags({"FLAGS_nope": 1})
    with pytest.raises(ValueError, match="FLAGS_nope cannot get"):
        paddle.get_flags("FLAGS_nope")
    with pytest.raises(TypeError):
        paddle.set_flags(["FLAGS_use_mkldnn"])
    with pytest.raises(TypeError):
        paddle.get_flags(3)


def test_same_functions_everywhere():
    assert framework.set_flags is base.set_flags is paddle.set_flags
    assert framework.get_flags is base.framework.get_flags is paddle.get_flags


def test_core_globals_mapping():
    g = base.core.globals()
    assert g is framework._global_flags() is base.framework._global_flags()
    assert "FLAGS_check_nan_inf" in g and "FLAGS_nope" not in g
    assert len(g.keys()) == len(paddle.ops.flags.FLAGS)
    g["FLAGS_check_nan_inf"] = True                  # through set_flags: the check is on
    assert paddle.get_flags("FLAGS_check_nan_inf") == {"FLAGS_check_nan_inf": True}
    with pytest.raises(RuntimeError, match="NAN or INF"), np.errstate(invalid="ignore"):
        paddle.log(paddle.to_tensor([-1.0]))
    g["FLAGS_check_nan_inf"] = False
    assert g["FLAGS_check_nan_inf"] is False and g.get("FLAGS_nope", 5) == 5
    assert g.get_default("FLAGS_use_mkldnn") is False and g.is_public("FLAGS_use_mkldnn")
    with pytest.raises(RuntimeError, match="Cannot find global variable FLAGS_nope"):
        g["FLAGS_nope"]
    with pytest.raises(RuntimeError, match="FLAGS_nope is not writable"):
        g["FLAGS_nope"] = 1
