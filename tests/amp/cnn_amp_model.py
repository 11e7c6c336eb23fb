"""The small CNN of the AMP training check, written once for sampan and for
real Paddle (``tests/interop/record_amp_cnn.py`` runs it there): conv-relu-pool-linear on
fixed weights and data from numpy's RandomState, Momentum, 20 steps of
``auto_cast`` + ``GradScaler`` (``scaler.scale(loss).backward();
scaler.minimize(opt, scaled)``), eagerly or with the forward under to_static."""
import numpy as np

STEPS = 20
BATCH = 8


def weights_and_data():
    rs = np.random.RandomState(2024)
    w = {"conv.weight": (rs.randn(4, 1, 3, 3) * 0.3).astype("float32"),
         "conv.bias": (rs.randn(4) * 0.1).astype("float32"),
         "fc.weight": (rs.randn(64, 10) * 0.1).astype("float32"),
         "fc.bias": (rs.randn(10) * 0.1).astype("float32")}
    xs = [rs.rand(BATCH, 1, 10, 10).astype("float32") for _ in range(STEPS)]
    ys = [rs.randint(0, 10, (BATCH, 1)).astype("int64") for _ in range(STEPS)]
    return w, xs, ys


P = None


def _net_class(paddle):
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = paddle.nn.Conv2D(1, 4, 3)
            self.fc = paddle.nn.Linear(64, 10)

        def forward(self, x):
            y = P.nn.functional.max_pool2d(P.nn.functional.relu(self.conv(x)), 2)
            return self.fc(P.flatten(y, 1))
    return Net


def train(paddle, to_static=False, dtype="bfloat16", level="O1", scaler_kwargs=None):
    """Losses of 20 steps and the final loss scale (None when the scaler is off)."""
    global P
    P = paddle                   # the forward reads it as a global (to_static converts it)
    F = paddle.nn.functional
    w, xs, ys = weights_and_data()
    net = _net_class(paddle)()
    net.set_state_dict({k: paddle.to_tensor(v) for k, v in w.items()})
    opt = paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.9,
                                    parameters=net.parameters())
    net, opt = paddle.amp.decorate(net, opt, level=level, dtype=dtype)
    scaler = paddle.amp.GradScaler(**(scaler_kwargs or {}))
    fwd = paddle.jit.to_static(net, full_graph=True) if to_static else net
    losses = []
    for x, y in zip(xs, ys):
        with paddle.amp.auto_cast(dtype=dtype, level=level):
            logits = fwd(paddle.to_tensor(x))
            loss = F.cross_entropy(logits, paddle.to_tensor(y))
        scaled = scaler.scale(loss)
        scaled.backward()
        scaler.minimize(opt, scaled)
        opt.clear_grad()
        losses.append(float(loss.astype("float32")))
    scale = float(scaler._scale) if scaler.is_enable() else None
    return losses, scale
