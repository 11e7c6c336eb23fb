"""Train a small CNN with ``paddle.Model`` on synthetic images, the way a
Paddle user would, then serve it with the inference Predictor:

1. a ``Dataset`` of 1x16x16 images of three kinds (horizontal stripes,
   vertical stripes, a centred square), with augmentations (random flips
   from ``paddle.vision.transforms`` when it is importable, else numpy,
   plus pixel noise), read by ``paddle.io.DataLoader`` with two worker
   processes;
2. ``paddle.summary`` and ``paddle.flops`` of the network;
3. ``Model.fit`` with the progress bar, an ``EarlyStopping`` callback and
   an epoch-wise ``LRScheduler``, then ``Model.evaluate``;
4. ``Model.save(path, training=False)``: an inference model
   (``.pdmodel``/``.pdiparams``) run by ``paddle.inference``'s Predictor,
   whose predictions are checked against ``Model.predict``.

    python examples/train_vision_model.py [workdir]
"""
import os
import sys
import tempfile

import numpy as np

import sampan as paddle
from sampan import nn
from sampan.static import InputSpec

try:
    from sampan.vision import transforms as T
except ImportError:          # vision is optional here: numpy flips do the same
    T = None

SIZE = 16
CLASSES = ("horizontal", "vertical", "square")


def draw(kind, rng):
    img = np.zeros((SIZE, SIZE), "float32")
    if kind == 0:
        img[rng.randint(0, 2)::3, :] = 1.0
    elif kind == 1:
        img[:, rng.randint(0, 2)::3] = 1.0
    else:
        a = rng.randint(3, 6)
        img[a:SIZE - a, a:SIZE - a] = 1.0
    return img


class Shapes(paddle.io.Dataset):
    """``n`` images (1xHxW float32, [0, 1] plus noise) and their int64 labels."""

    def __init__(self, n, seed, augment):
        rng = np.random.RandomState(seed)
        self.labels = rng.randint(0, len(CLASSES), size=n).astype("int64")
        self.images = [draw(k, rng) for k in self.labels]
        self.augment = augment
        self.seed = seed
        if augment and T is not None:
            self.flips = T.Compose([T.RandomHorizontalFlip(0.5), T.RandomVerticalFlip(0.5)])
        else:
            self.flips = None

    def __getitem__(self, i):
        img = self.images[i]
        rng = np.random.RandomState(self.seed * 100003 + i + np.random.randint(1 << 20))
        if self.augment:
            if self.flips is not None:
                img = np.asarray(self.flips(img[:, :, None])).reshape(SIZE, SIZE)
            else:
                img = img[::-1] if rng.rand() < 0.5 else img
                img = img[:, ::-1] if rng.rand() < 0.5 else img
            img = img + rng.normal(0, 0.2, img.shape).astype("float32")
        return np.ascontiguousarray(img[None], dtype="float32"), self.labels[i:i + 1]

    def __len__(self):
        return len(self.labels)


class SmallCNN(nn.Layer):
    def __init__(self, num_classes=len(CLASSES)):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2D(1, 8, 3, padding=1), nn.BatchNorm2D(8), nn.ReLU(), nn.MaxPool2D(2),
            nn.Conv2D(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2D(2))
        self.classifier = nn.Linear(16 * 2 * 2, num_classes)

    def forward(self, x):
        return self.classifier(paddle.flatten(self.features(x), 1))


def predict_with_predictor(prefix, x):
    config = paddle.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    predictor = paddle.inference.create_predictor(config)
    handle = predictor.get_input_handle(predictor.get_input_names()[0])
    handle.reshape(list(x.shape))
    handle.copy_from_cpu(x)
    predictor.run()
    return predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()


def main(workdir=None, epochs=4):
    workdir = workdir or tempfile.mkdtemp(prefix="sampan_vision_")
    paddle.seed(2024)
    np.random.seed(2024)
    train = paddle.io.DataLoader(Shapes(480, 1, augment=True), batch_size=32, shuffle=True,
                                 num_workers=2, drop_last=True)
    val = Shapes(96, 2, augment=False)

    net = SmallCNN()
    paddle.summary(net, (1, 1, SIZE, SIZE))
    paddle.flops(net, [1, 1, SIZE, SIZE])

    model = paddle.Model(net, inputs=[InputSpec([None, 1, SIZE, SIZE], "float32", "image")],
                         labels=[InputSpec([None, 1], "int64", "label")])
    sched = paddle.optimizer.lr.StepDecay(0.01, step_size=2, gamma=0.5)
    model.prepare(paddle.optimizer.Adam(sched, parameters=model.parameters()),
                  nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    model.fit(train, val, epochs=epochs, batch_size=32, verbose=1, log_freq=5,
              callbacks=[paddle.callbacks.LRScheduler(by_step=False, by_epoch=True),
                         paddle.callbacks.EarlyStopping("acc", patience=2,
                                                        save_best_model=False)])
    result = model.evaluate(val, batch_size=32, verbose=0)
    print(f"validation: loss {result['loss'][0]:.4f}, accuracy {result['acc']:.3f}")

    prefix = os.path.join(workdir, "inference", "small_cnn")
    model.save(prefix, training=False)
    x = np.stack([val[i][0] for i in range(8)])
    served = predict_with_predictor(prefix, x)
    eager = model.predict_batch([x])[0]
    match = np.allclose(served, eager, rtol=1e-4, atol=1e-5)
    names = [CLASSES[k] for k in served.argmax(1)]
    print(f"Predictor on 8 validation images: {names}")
    print(f"Predictor predictions {'match' if match else 'DO NOT match'} Model.predict_batch "
          f"(files under {os.path.dirname(prefix)})")
    return result, match


if __name__ == "__main__":
    res, ok = main(sys.argv[1] if len(sys.argv) > 1 else None)
    sys.exit(0 if ok and res["acc"] > 0.9 else 1)
