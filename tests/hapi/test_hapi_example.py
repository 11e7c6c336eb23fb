"""examples/train_vision_model.py runs end to end: fit with the progress bar
over a 2-worker DataLoader, evaluate, save for inference, the Predictor
agrees with Model.predict_batch."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_train_vision_model_example(tmp_path):
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "examples",
                                                        "train_vision_model.py"),
                           str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = proc.stdout
    assert "Epoch 1/4" in out and "Eval samples: 96" in out
    assert "Total params: 1,475" in out and "Total Flops:" in out
    assert "Predictor predictions match Model.predict_batch" in out
    assert os.path.isfile(tmp_path / "inference" / "small_cnn.pdmodel")
