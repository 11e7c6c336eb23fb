"""paddle.distributed on this machine: all-reduce bandwidth and a data-parallel step.

    mpiexec -n 2 python benchmarks/distributed_bench.py allreduce   # 1 KB .. 64 MB
    python benchmarks/distributed_bench.py step                     # 1 rank
    mpiexec -n 2 python benchmarks/distributed_bench.py step        # 2 ranks

``allreduce``: per size, the median time of an in-place float32 SUM all-reduce
by raw mpi4py (``Allreduce(IN_PLACE)``: the floor), by
``paddle.distributed.all_reduce`` (header check + polled wait) and by it with
``SAMPAN_DIST_CHECK=0`` semantics (check skipped), with the bus bandwidth
``2(n-1)/n * bytes / time``.

``step``: one training step (forward, backward, SGD) of an MLP (4 x
Linear(1024), global batch 256, each rank its share): the median time of
(1) the plain layer, (2) DataParallel with 2 MB buckets (all-reduce overlapping
the backward) and (3) DataParallel with one bucket (its all-reduce starts only
when the backward has finished: no overlap), and how many buckets started
before the backward ended.  Run it with 1 and 2 ranks to compare.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import sampan as paddle  # noqa: E402
import sampan.distributed as dist  # noqa: E402
from sampan.distributed import comm as _comm  # noqa: E402


def _median(fn, reps, comm):
    ts = []
    for _ in range(reps):
        comm.Barrier()
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    # the slowest rank's median decides
    return comm.allreduce(float(np.median(ts)), op=_comm.mpi().MAX)


def allreduce():
    dist.init_parallel_env()
    MPI = _comm.mpi()
    world = MPI.COMM_WORLD
    n, rank = world.Get_size(), world.Get_rank()
    if rank == 0:
        print(f"all-reduce, float32 SUM, {n} ranks (bus bandwidth GB/s = 2(n-1)/n * bytes/t)")
        print(f"{'size':>8} {'mpi4py us':>11} {'sampan us':>11} {'no-check us':>12} "
              f"{'mpi4py GB/s':>12} {'sampan GB/s':>12}")
    size = 1024
    while size <= 64 * 1024 * 1024:
        a = np.ones(size // 4, np.float32)
        t = paddle.to_tensor(a.copy())
        reps = 50 if size <= (1 << 20) else 10
        raw = _median(lambda: world.Allreduce(MPI.IN_PLACE, a, op=MPI.SUM), reps, world)
        ours = _median(lambda: dist.all_reduce(t), reps, world)
        os.environ["SAMPAN_DIST_CHECK"] = "0"
        nocheck = _median(lambda: dist.all_reduce(t), reps, world)
        del os.environ["SAMPAN_DIST_CHECK"]
        bus = 2 * (n - 1) / n * size
        if rank == 0:
            label = f"{size // 1024} KB" if size < (1 << 20) else f"{size >> 20} MB"
            print(f"{label:>8} {raw * 1e6:11.1f} {ours * 1e6:11.1f} {nocheck * 1e6:12.1f} "
                  f"{bus / raw / 1e9:12.3f} {bus / ours / 1e9:12.3f}", flush=True)
        size *= 4


class MLP(paddle.nn.Layer):
    def __init__(self, width=1024, depth=4):
        super().__init__()
        self.layers = paddle.nn.LayerList([paddle.nn.Linear(width, width) for _ in range(depth)])

    def forward(self, x):
        for i, l in enumerate(self.layers):
            x = l(x)
            if i + 1 < len(self.layers):
                x = paddle.nn.functional.relu(x)
        return x


def step():
    dist.init_parallel_env()
    n, rank = dist.get_world_size(), dist.get_rank()
    per = 256 // n
    rs = np.random.RandomState(rank)
    x = paddle.to_tensor(rs.randn(per, 1024).astype("float32"))
    y = paddle.to_tensor(rs.randn(per, 1024).astype("float32"))
    rows = [("plain layer", None)]
    if n > 1:
        rows += [("DataParallel, 2 MB buckets", 2), ("DataParallel, one bucket", 1024)]
    import warnings
    warnings.simplefilter("ignore")
    world = _comm.mpi().COMM_WORLD if n > 1 else None
    if rank == 0:
        print(f"data-parallel step: MLP 4 x Linear(1024), global batch 256, {n} rank(s)")
    for label, mb in rows:
        paddle.seed(1)
        net = MLP()
        model = net if mb is None else paddle.DataParallel(net, comm_buffer_size=mb,
                                                           last_comm_buffer_size=mb)
        opt = paddle.optimizer.SGD(0.001, parameters=model.parameters())

        def one():
            loss = paddle.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
        for _ in range(3):
            one()
        ts = []
        for _ in range(15):
            if world is not None:
                world.Barrier()
            t0 = time.perf_counter()
            one()
            ts.append(time.perf_counter() - t0)
        med = float(np.median(ts))
        if world is not None:
            med = world.allreduce(med, op=_comm.mpi().MAX)
        extra = ""
        if mb is not None:
            r = model._reducer
            extra = f"  ({len(r.buckets)} buckets, {r.early} started during the backward)"
        if rank == 0:
            print(f"  {label:28s} {med * 1e3:8.1f} ms/step{extra}", flush=True)
        if mb is not None:
            timeline(model, x, y, rank)


class _Clock:
    """Stands in for the reducer's communicator, noting when each bucket starts."""

    def __init__(self, comm):
        self.comm, self.starts, self.t0 = comm, [], 0.0

    def iallreduce(self, buf):
        self.starts.append(time.perf_counter() - self.t0)
        return self.comm.iallreduce(buf)

    def __getattr__(self, name):
        return getattr(self.comm, name)


def timeline(model, x, y, rank):
    """One step's backward: when each bucket's all-reduce started, and when the
    backward (which waits for them) returned, in ms from its start."""
    r = model._reducer
    clock = _Clock(r.comm)
    r.comm = clock
    loss = paddle.nn.functional.mse_loss(model(x), y)
    clock.t0 = time.perf_counter()
    loss.backward()
    end = time.perf_counter() - clock.t0
    r.comm = clock.comm
    if rank == 0:
        starts = ", ".join(f"{t * 1e3:.1f}" for t in clock.starts)
        print(f"      timeline: buckets started at [{starts}] ms; backward with the waits "
              f"returned at {end * 1e3:.1f} ms", flush=True)


if __name__ == "__main__":
    {"allreduce": allreduce, "step": step}[sys.argv[1] if len(sys.argv) > 1 else "allreduce"]()
