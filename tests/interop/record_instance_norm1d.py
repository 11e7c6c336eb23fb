"""Records tests/inference/fixtures/paddle_instance_norm1d/ with real PaddlePaddle 2.6.2
(run in the interop side venv: ~/.cache/sampan-interop/paddle-2.6.2/bin/python
tests/interop/record_instance_norm1d.py): Conv1D + InstanceNorm1D exported by jit.save.
Paddle writes the unused instance_norm outputs (SavedMean, SavedVariance) with dims
[-C] (-1 times the channels) and loads the file; sampan must too.  expected.npz holds
the input and Paddle's output."""
import os

import numpy as np
import paddle

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "inference",
                    "fixtures", "paddle_instance_norm1d")


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv1D(3, 4, 3)
        self.norm = paddle.nn.InstanceNorm1D(4)

    def forward(self, x):
        return self.norm(self.conv(x))


paddle.seed(0)
net = Net()
net.eval()
x = np.random.RandomState(0).rand(2, 3, 8).astype("float32")
os.makedirs(HERE, exist_ok=True)
paddle.jit.save(net, os.path.join(HERE, "model"),
                input_spec=[paddle.static.InputSpec([None, 3, 8], "float32", "x")])
np.savez(os.path.join(HERE, "expected.npz"), x=x, out=net(paddle.to_tensor(x)).numpy())
