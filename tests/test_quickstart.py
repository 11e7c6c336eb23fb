"""The README's main command: examples/quickstart.py goes all the way (train
eagerly, to_static, jit.save, Predictor) and its predictions match eager."""
import importlib.util
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_quickstart_end_to_end(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location(
        "quickstart", os.path.join(ROOT, "examples", "quickstart.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    result = mod.main(steps=20, workdir=str(tmp_path))
    assert result["losses"][-1] < 0.5 * result["losses"][0]
    assert result["match"] and result["diff"] <= 1e-5
    assert {"mlp.pdmodel", "mlp.pdiparams", "mlp.pdiparams.info"} <= set(os.listdir(tmp_path))
    assert np.isfinite(result["static_s"]) and result["static_s"] > 0
    assert "match the eager model" in capsys.readouterr().out
