"""Checks every collective on 2 ranks against the values Paddle's docs give;
prints "OK <rank>" at the end (test_collectives.py runs it)."""
import os

import numpy as np

import sampan as paddle
import sampan.distributed as dist

assert not dist.is_initialized()
g = dist.init_parallel_env()
assert dist.is_initialized() and g.nranks == 2 and g.id == 0
r = dist.get_rank()
assert r == g.rank and dist.get_world_size() == 2
env = dist.ParallelEnv()
assert (env.rank, env.world_size) == (r, 2)
assert os.environ["PADDLE_TRAINER_ID"] == str(r) and os.environ["PADDLE_TRAINERS_NUM"] == "2"
eps = os.environ["PADDLE_TRAINER_ENDPOINTS"].split(",")
assert len(eps) == 2 and os.environ["PADDLE_CURRENT_ENDPOINT"] == eps[r]

# DistributedBatchSampler reads the variables init_parallel_env published
sampler = paddle.io.DistributedBatchSampler(list(range(10)), batch_size=2)
assert (sampler.local_rank, sampler.nranks) == (r, 2)
assert [i for b in sampler for i in b] == ([0, 1, 4, 5, 8] if r == 0 else [2, 3, 6, 7, 9])

# Paddle's doc example: [[4,5,6],[4,5,6]] + [[1,2,3],[1,2,3]]
data = paddle.to_tensor([[4, 5, 6], [4, 5, 6]] if r == 0 else [[1, 2, 3], [1, 2, 3]])
before = data.inplace_version
task = dist.all_reduce(data)
task.wait()
np.testing.assert_array_equal(data.numpy(), [[5, 7, 9], [5, 7, 9]])
assert data.inplace_version == before + 1 and data.dtype == paddle.int64
for op, want in ((dist.ReduceOp.MAX, [3.0, 2.0]), (dist.ReduceOp.MIN, [1.0, 1.0]),
                 (dist.ReduceOp.PROD, [3.0, 2.0]), (dist.ReduceOp.AVG, [2.0, 1.5])):
    t = paddle.to_tensor([1.0, 2.0] if r == 0 else [3.0, 1.0])
    dist.all_reduce(t, op=op)
    np.testing.assert_allclose(t.numpy(), want, err_msg=str(op))
h = paddle.to_tensor(np.array([1, 0.5], "float16") * (r + 1))      # travels as float32
dist.all_reduce(h)
assert h.dtype == paddle.float16 and h.numpy().tolist() == [3.0, 1.5]
b = paddle.to_tensor([True, False] if r == 0 else [False, False])
dist.all_reduce(b, op=dist.ReduceOp.MAX)
assert b.numpy().tolist() == [True, False] and b.dtype == paddle.bool

t = paddle.to_tensor([float(r)] * 3)
dist.broadcast(t, src=1)
assert t.numpy().tolist() == [1.0] * 3

lst = []
dist.all_gather(lst, paddle.to_tensor([r, r + 10]))
assert [x.numpy().tolist() for x in lst] == [[0, 10], [1, 11]]
lst2 = [paddle.zeros([2], "int64"), paddle.zeros([2], "int64")]
dist.all_gather(lst2, paddle.to_tensor([r, r]))
assert [x.numpy().tolist() for x in lst2] == [[0, 0], [1, 1]]

objs = ["stale"]
dist.all_gather_object(objs, {"rank": r, "name": f"w{r}"})
assert objs == [{"rank": 0, "name": "w0"}, {"rank": 1, "name": "w1"}]
ol = [r, "x"] if r == 1 else [None, None]
dist.broadcast_object_list(ol, src=1)
assert ol == [1, "x"]

t = paddle.to_tensor([1.0, 2.0 + r])
dist.reduce(t, dst=0)
assert t.numpy().tolist() == ([2.0, 5.0] if r == 0 else [1.0, 3.0])   # only dst changes

out = paddle.zeros([2, 2])
dist.scatter(out, [paddle.ones([2, 2]), paddle.full([2, 2], 2.0)] if r == 0 else None, src=0)
assert out.numpy().tolist() == [[1.0 + r] * 2] * 2

if r == 0:
    dist.send(paddle.to_tensor([7.0, 8.0]), dst=1)
    q = paddle.zeros([3], "int32")
    dist.recv(q, src=1)
    assert q.numpy().tolist() == [1, 2, 3]
else:
    q = paddle.zeros([2])
    dist.recv(q, src=0)
    assert q.numpy().tolist() == [7.0, 8.0]
    dist.send(paddle.to_tensor(np.array([1, 2, 3], "int32")), dst=0)
dist.barrier()

# gather, alltoall, alltoall_single, reduce_scatter
gl = []
dist.gather(paddle.to_tensor([r, 2 * r]), gl, dst=1)
assert [x.numpy().tolist() for x in gl] == ([] if r == 0 else [[0, 0], [1, 2]])
outs = []
dist.alltoall([paddle.to_tensor([10 * r + 0.0]), paddle.to_tensor([10 * r + 1.0])], outs)
assert [x.numpy().tolist() for x in outs] == [[0.0 + r], [10.0 + r]]
src = paddle.to_tensor(np.arange(3 * 2).reshape(3, 2) + 100 * r)
dst = paddle.zeros([3 if r == 0 else 3, 2], "int64")
# rank 0 sends row 0 to itself, rows 1-2 to rank 1; rank 1 sends rows 0-1 to 0, row 2 to itself
dist.alltoall_single(src, dst, in_split_sizes=[1, 2] if r == 0 else [2, 1],
                     out_split_sizes=[1, 2] if r == 0 else [2, 1])
want = [[0, 1], [100, 101], [102, 103]] if r == 0 else [[2, 3], [4, 5], [104, 105]]
assert dst.numpy().tolist() == want, dst.numpy().tolist()
rs_out = paddle.zeros([2])
dist.reduce_scatter(rs_out, [paddle.to_tensor([1.0, 2.0]) * (r + 1),
                             paddle.to_tensor([3.0, 4.0]) * (r + 1)])
assert rs_out.numpy().tolist() == ([3.0, 6.0] if r == 0 else [9.0, 12.0])

# a group of rank 1 alone: rank 0 is not a member and returns at once
sub = dist.new_group([1])
assert sub.nranks == 1 and sub.rank == (0 if r == 1 else -1) and sub.id == 1
assert dist.get_group(1) is sub and dist.get_rank(sub) == sub.rank
t = paddle.to_tensor([5.0])
assert (dist.all_reduce(t, group=sub) is None) == (r == 0) and t.numpy().tolist() == [5.0]
pair = dist.new_group([0, 1])
t = paddle.to_tensor([1.0])
dist.all_reduce(t, group=pair)
assert t.numpy().tolist() == [2.0]

# mismatches: every rank raises a ValueError naming both sides
for mine, what in ((np.ones(3 if r == 0 else 4, "float32"), "float32[3]"),
                   (np.ones(3, "float32" if r == 0 else "float64"), "float64[3]")):
    try:
        dist.all_reduce(paddle.to_tensor(mine))
    except ValueError as e:
        assert "rank 0 calls all_reduce(float32[3]" in str(e) and what in str(e), str(e)
    else:
        raise AssertionError("a mismatched all_reduce passed")
try:           # different collectives
    if r == 0:
        dist.all_reduce(paddle.ones([2]))
    else:
        dist.broadcast(paddle.ones([2]), src=0)
except ValueError as e:
    assert "all_reduce" in str(e) and "broadcast" in str(e), str(e)
else:
    raise AssertionError("all_reduce against broadcast passed")
try:           # recv into the wrong shape: the receiver says so
    if r == 0:
        dist.send(paddle.ones([4]), dst=1)
        dist.barrier()
    else:
        dist.recv(paddle.zeros([5]), src=0)
except ValueError as e:
    assert r == 1 and "rank 0 sends float32[4]" in str(e) and "float32[5]" in str(e), str(e)
    q = paddle.zeros([4])
    dist.get_group(0).process_group.recv(q.numpy(), 0)       # drain the message
    dist.barrier()
dist.barrier()
done = []
dist.all_gather_object(done, r)       # one line from rank 0: ranks' prints can interleave
if r == 0:
    print("OK", done, flush=True)
