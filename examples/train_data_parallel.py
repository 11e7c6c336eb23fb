"""Data-parallel training as a Paddle script writes it; run it on 2 processes with

    python -m sampan.distributed.launch --nproc_per_node 2 examples/train_data_parallel.py
    mpiexec -n 2 python examples/train_data_parallel.py          # the same job

or alone (one process).  Each rank reads its share of the data
(DistributedBatchSampler), DataParallel averages the gradients, rank 0 saves the
weights, and every rank loads them back after a barrier.
"""
import os
import tempfile

import numpy as np

import sampan as paddle
import sampan.distributed as dist


class Blobs(paddle.io.Dataset):
    """Three Gaussian blobs in 16-D, labelled by blob."""

    def __init__(self, n=768):
        rs = np.random.RandomState(0)
        self.y = rs.randint(0, 3, n).astype("int64")
        centers = rs.randn(3, 16).astype("float32") * 0.4
        self.x = centers[self.y] + rs.randn(n, 16).astype("float32")

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i:i + 1]


def main():
    dist.init_parallel_env()
    rank, world = dist.get_rank(), dist.get_world_size()
    data = Blobs()
    sampler = paddle.io.DistributedBatchSampler(data, batch_size=64 // world, shuffle=True)
    loader = paddle.io.DataLoader(data, batch_sampler=sampler)
    model = paddle.DataParallel(paddle.nn.Sequential(
        paddle.nn.Linear(16, 64), paddle.nn.ReLU(), paddle.nn.Linear(64, 3)))
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = paddle.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
        mean = paddle.to_tensor([float(loss)])
        dist.all_reduce(mean, op=dist.ReduceOp.AVG)
        if rank == 0:
            print(f"epoch {epoch}: loss {float(mean):.4f} ({world} rank(s))", flush=True)
    path = os.path.join(tempfile.gettempdir(), "sampan_dp_example.pdparams")
    if rank == 0:
        paddle.save(model.state_dict(), path)
    dist.barrier()
    state = paddle.load(path)
    assert all(np.array_equal(state[k].numpy(), v.numpy()) for k, v in model.state_dict().items())
    if rank == 0:
        print("saved on rank 0 and loaded on every rank:", path)


if __name__ == "__main__":
    main()
