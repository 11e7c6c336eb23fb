"""Trains a small model for the DataParallel tests; run by test_data_parallel.py
as one process (the reference, on the whole batch) or under mpiexec (each
rank on its share, wrapped in DataParallel).  Writes per-step losses (the
job's mean) and the final weights to an .npz from rank 0.

    python dp_worker.py MODEL MODE OUT [--nosync] [--steps N]
MODEL: mlp | cnn | unused; MODE: eager | static (the layer under to_static, then
DataParallel) | static_outer (to_static applied to the DataParallel)."""
import argparse
import sys

import numpy as np

import sampan as paddle
import sampan.distributed as dist
import sampan.nn as nn


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 16)
        self.fc3 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc3(nn.functional.relu(self.fc2(nn.functional.relu(self.fc1(x)))))


class CNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2D(1, 4, 3, padding=1)
        self.conv2 = nn.Conv2D(4, 8, 3, padding=1)
        self.pool = nn.MaxPool2D(2)
        self.fc = nn.Linear(8 * 2 * 2, 3)

    def forward(self, x):
        x = self.pool(nn.functional.relu(self.conv1(x)))
        x = self.pool(nn.functional.relu(self.conv2(x)))
        return self.fc(paddle.flatten(x, 1))


class Unused(nn.Layer):
    """fc_b is used only on even steps (a data-dependent forward)."""
    def __init__(self):
        super().__init__()
        self.fc_a = nn.Linear(8, 3)
        self.fc_b = nn.Linear(8, 3)
        self.step = 0

    def forward(self, x):
        y = self.fc_a(x)
        if self.step % 2 == 0:
            y = y + self.fc_b(x)
        return y


def batch(model, step, n):
    rs = np.random.RandomState(1000 + step)
    shape = (n, 1, 8, 8) if model == "cnn" else (n, 8)
    x = rs.randn(*shape).astype("float32")
    w = np.random.RandomState(7).randn(x[0].size, 3)      # a rule the model can learn
    return x, np.argmax(x.reshape(n, -1) @ w, axis=1).reshape(n, 1).astype("int64")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("mode")
    ap.add_argument("out")
    ap.add_argument("--nosync", action="store_true")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--find_unused", action="store_true")
    ap.add_argument("--bucket_mb", type=float, default=25)
    a = ap.parse_args()
    dist.init_parallel_env()
    rank, world = dist.get_rank(), dist.get_world_size()
    paddle.seed(100 + rank)            # rank 1 starts elsewhere: DataParallel must broadcast
    net = {"mlp": MLP, "cnn": CNN, "unused": Unused}[a.model]()
    if a.mode == "static":                      # DataParallel(to_static(layer))
        net = paddle.jit.to_static(net)
    model = paddle.DataParallel(net, comm_buffer_size=a.bucket_mb,
                                last_comm_buffer_size=a.bucket_mb,
                                find_unused_parameters=a.find_unused) if world > 1 else net
    if a.mode == "static_outer":                # to_static(DataParallel(layer))
        model = paddle.jit.to_static(model)
    opt = paddle.optimizer.Momentum(learning_rate=0.02, momentum=0.9,
                                    parameters=model.parameters())
    loss_fn = nn.CrossEntropyLoss()
    full = 8
    per = full // world
    losses = []
    for step in range(a.steps):
        if a.model == "unused":
            net.step = step
        x, y = batch(a.model, step, full)
        xs, ys = x[rank * per:(rank + 1) * per], y[rank * per:(rank + 1) * per]
        if a.nosync:                  # two micro-batches, gradients accumulated
            x2, y2 = batch(a.model, step + 500, full)
            x2, y2 = x2[rank * per:(rank + 1) * per], y2[rank * per:(rank + 1) * per]
            ctx = model.no_sync() if world > 1 else None
            if ctx is not None:
                ctx.__enter__()
            l2 = loss_fn(model(paddle.to_tensor(x2)), paddle.to_tensor(y2))
            l2.backward()
            if ctx is not None:
                ctx.__exit__(None, None, None)
        loss = loss_fn(model(paddle.to_tensor(xs)), paddle.to_tensor(ys))
        loss.backward()
        opt.step()
        opt.clear_grad()
        lv = paddle.to_tensor(loss.numpy().reshape([1]))
        dist.all_reduce(lv, op=dist.ReduceOp.AVG)
        losses.append(float(lv.numpy()[0]))
    # Paddle's convention: rank 0 saves, a barrier, every rank loads
    path = a.out + ".pdparams"
    if rank == 0:
        paddle.save(model.state_dict(), path)
    dist.barrier()
    loaded = paddle.load(path)
    for k, v in model.state_dict().items():      # the ranks' replicas are identical
        np.testing.assert_array_equal(loaded[k].numpy(), v.numpy(), err_msg=k)
    if rank == 0:
        weights = {k: v.numpy() for k, v in model.state_dict().items()}
        np.savez(a.out, losses=np.array(losses), **{"w:" + k: v for k, v in weights.items()})
    dist.barrier()
    print(f"rank {rank} done", flush=True)


if __name__ == "__main__":
    sys.exit(main())
