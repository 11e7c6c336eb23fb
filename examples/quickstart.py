"""Quickstart: sampan end to end, written as ordinary Paddle code.

    python -m pip install . && python examples/quickstart.py

1. train a small MLP eagerly (its loss falls; the same on every run: paddle.seed);
2. decorate it with ``paddle.jit.to_static`` and time eager against static;
3. ``paddle.jit.save`` it as ``.pdmodel``/``.pdiparams`` (files real Paddle loads);
4. load those files with the inference Predictor, predict, and check the
   predictions equal the eager model's.
"""
import os
import tempfile
import time

import numpy as np

import sampan as paddle
from sampan import nn
from sampan.static import InputSpec


def make_data(n=256, din=8, dout=2, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, din)).astype("float32")
    w = rng.standard_normal((din, dout)).astype("float32")
    y = np.maximum(x @ w, 0.0) + 0.1 * x[:, :dout]
    return paddle.to_tensor(x), paddle.to_tensor(y.astype("float32"))


def train(model, x, y, steps):
    loss_fn = nn.MSELoss()
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    losses = []
    for step in range(steps + 1):
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
        if step % 20 == 0:
            print(f"step {step:4d}  loss {float(loss):.6f}")
    print(f"loss fell from {losses[0]:.4f} to {losses[-1]:.4f}")
    return losses


def median_seconds(fn, repeat=51):
    fn()                                    # warm-up (the first static call traces)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def predict_with_predictor(prefix, x):
    config = paddle.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    predictor = paddle.inference.create_predictor(config)
    name = predictor.get_input_names()[0]
    handle = predictor.get_input_handle(name)
    handle.reshape(list(x.shape))
    handle.copy_from_cpu(x)
    predictor.run()
    return predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()


def main(steps=200, workdir=None):
    paddle.seed(2024)
    x, y = make_data()
    model = nn.Sequential(
        nn.Linear(8, 32), nn.ReLU(),
        nn.Linear(32, 32), nn.ReLU(),
        nn.Linear(32, 2))
    losses = train(model, x, y, steps)

    # 2. the same Layer as a static program (one program serves every batch size)
    model.eval()
    with paddle.no_grad():
        eager_out = model(x).numpy()
        eager_s = median_seconds(lambda: model(x))
    static_model = paddle.jit.to_static(
        model, input_spec=[InputSpec([None, 8], "float32", "x")])
    with paddle.no_grad():
        static_out = static_model(x).numpy()
        static_s = median_seconds(lambda: static_model(x))
    print(f"forward of 256 rows: eager {eager_s * 1e6:.1f} us, to_static {static_s * 1e6:.1f} us "
          f"({eager_s / static_s:.2f}x)")
    print(f"to_static output equals eager: max |diff| = "
          f"{np.abs(static_out - eager_out).max():.2e}")

    # 3-4. save, load with the Predictor, predict
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(workdir or tmp, "mlp")
        paddle.jit.save(static_model, prefix)
        print("saved", ", ".join(sorted(f for f in os.listdir(os.path.dirname(prefix))
                                        if f.startswith("mlp"))))
        predicted = predict_with_predictor(prefix, x.numpy())
    diff = float(np.abs(predicted - eager_out).max())
    match = diff <= 1e-5
    print(f"Predictor predictions {'match' if match else 'DO NOT match'} the eager model "
          f"(max |diff| = {diff:.2e})")
    return {"losses": losses, "diff": diff, "match": match,
            "eager_s": eager_s, "static_s": static_s}


if __name__ == "__main__":
    result = main()
    raise SystemExit(0 if result["match"] else 1)
