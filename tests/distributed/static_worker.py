"""Static programs with Paddle's collective ops (test_static_collective.py).

    python static_worker.py ops            # each c_* op on 2 ranks, prints "OK <rank>"
    python static_worker.py train OUT      # fleet static training, writes OUT.npz
"""
import sys

import numpy as np

import sampan as paddle
import sampan.distributed as dist
from sampan.distributed import fleet


def check_ops():
    dist.init_parallel_env()
    r = dist.get_rank()
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        blk = main.global_block()
        outs = {}
        for t in ("c_allreduce_sum", "c_allreduce_max", "c_allreduce_min", "c_allreduce_prod",
                  "c_broadcast", "c_allgather", "c_reduce_sum"):
            o = blk.create_var(name=f"out_{t}", dtype="float32",
                               shape=[4, 3] if t == "c_allgather" else [2, 3])
            attrs = {"ring_id": 0}
            if t == "c_broadcast":
                attrs["root"] = 1
            if t == "c_allgather":
                attrs["nranks"] = 2
            blk.append_op(type=t, inputs={"X": [x]}, outputs={"Out": [o]}, attrs=attrs)
            outs[t] = o
        blk.append_op(type="c_sync_calc_stream", inputs={"X": [x]}, outputs={"Out": [x]})
        flag = paddle.full([1], 1, dtype="int32")       # what Paddle's barrier() feeds
        blk.append_op(type="barrier", inputs={"X": [flag]}, outputs={"Out": [flag]},
                      attrs={"ring_id": 0})
        blk.append_op(type="c_comm_init", inputs={"X": [x]}, outputs={},
                      attrs={"nranks": 2, "rank": r, "ring_id": 0})
    exe = paddle.static.Executor()
    exe.run(startup)
    v = np.arange(6, dtype="float32").reshape(2, 3) + 1 + r       # rank0: 1..6, rank1: 2..7
    got = dict(zip(outs, exe.run(main, feed={"x": v}, fetch_list=list(outs.values()))))
    a, b = np.arange(6).reshape(2, 3) + 1.0, np.arange(6).reshape(2, 3) + 2.0
    np.testing.assert_allclose(got["c_allreduce_sum"], a + b)
    np.testing.assert_allclose(got["c_allreduce_max"], b)
    np.testing.assert_allclose(got["c_allreduce_min"], a)
    np.testing.assert_allclose(got["c_allreduce_prod"], a * b)
    np.testing.assert_allclose(got["c_broadcast"], b)
    np.testing.assert_allclose(got["c_allgather"], np.concatenate([a, b]))
    np.testing.assert_allclose(got["c_reduce_sum"], a + b if r == 0 else v)
    types = [op.type for op in main.global_block().ops]
    assert "c_allreduce_sum" in types and "c_comm_init" in types
    done = []
    dist.all_gather_object(done, r)   # one line from rank 0: ranks' prints can interleave
    if r == 0:
        print("OK", done, flush=True)


def train(out):
    fleet.init(is_collective=True)
    r, n = dist.get_rank(), dist.get_world_size()
    paddle.seed(10 + r)                 # the startup program's c_broadcast aligns them
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 8], "float32")
        y = paddle.static.data("y", [None, 1], "int64")
        h = paddle.nn.functional.relu(paddle.nn.Linear(8, 16)(x))
        logits = paddle.nn.Linear(16, 3)(h)
        loss = paddle.nn.functional.cross_entropy(logits, y)
        opt = fleet.distributed_optimizer(paddle.optimizer.Momentum(0.05, 0.9))
        opt.minimize(loss)
    types = [op.type for op in main.global_block().ops]
    assert ("c_allreduce_sum" in types) == (n > 1)
    exe = paddle.static.Executor()
    exe.run(startup)
    full, per = 8, 8 // n
    w = np.random.RandomState(7).randn(8, 3)
    losses = []
    for step in range(20):
        rs = np.random.RandomState(step)
        xv = rs.randn(full, 8).astype("float32")
        yv = np.argmax(xv @ w, 1).reshape(-1, 1).astype("int64")
        lv, = exe.run(main, feed={"x": xv[r * per:(r + 1) * per], "y": yv[r * per:(r + 1) * per]},
                      fetch_list=[loss])
        losses.append(float(np.mean(dist.get_group(0).process_group.allgather_object(
            float(lv)) if n > 1 else [float(lv)])))
    if r == 0:
        params = {p.name: np.array(paddle.static.global_scope().find_var(p.name).get_tensor())
                  for p in main.all_parameters()}
        np.savez(out, losses=np.array(losses), **params)
    print("done", r, flush=True)


if __name__ == "__main__":
    check_ops() if sys.argv[1] == "ops" else train(sys.argv[2])
