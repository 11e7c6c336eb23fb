"""Record real Paddle 2.6.2's losses of ``cnn_amp_model.train`` into
``fixtures/cnn_amp_losses.json`` (run in the interop side venv, from the
repository root):

    ~/.cache/sampan-interop/paddle-2.6.2/bin/python tests/interop/record_amp_cnn.py

Paddle's CPU build runs no AMP: ``auto_cast`` and ``GradScaler`` warn "can only
be enabled on CUDAPlace, XPUPlace and CustomPlace ... so it makes no effect" and
``decorate(level='O2')`` returns the model unchanged, so these are the float32
losses; the warnings are recorded too."""
import json
import os
import sys
import warnings

import paddle

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    "amp")
sys.path.insert(0, HERE)
from cnn_amp_model import train  # noqa: E402


def main():
    paddle.set_device("cpu")
    out = {"paddle": paddle.__version__}
    for name, kw in (("eager_bf16_O1", {}), ("to_static_bf16_O1", {"to_static": True}),
                     ("eager_fp16_O2", {"dtype": "float16", "level": "O2"})):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            losses, scale = train(paddle, **kw)
        out[name] = {"losses": losses, "scale": scale,
                     "warnings": sorted({str(w.message) for w in caught
                                         if "enabled on" in str(w.message)})}
    with open(os.path.join(HERE, "fixtures", "cnn_amp_losses.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
