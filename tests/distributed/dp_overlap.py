"""Prints, per rank and mode, how many gradient buckets DataParallel started
before the backward ended (tiny buckets: one parameter each)."""
import sampan as paddle
import sampan.distributed as dist
from dp_worker import MLP

dist.init_parallel_env()
for mode in ("eager", "static"):
    net = MLP()
    if mode == "static":
        net = paddle.jit.to_static(net)
    m = paddle.DataParallel(net, comm_buffer_size=1e-4, last_comm_buffer_size=1e-4)
    loss = m(paddle.randn([4, 8])).mean()
    loss.backward()
    rows = []
    dist.all_gather_object(rows, f"buckets {dist.get_rank()} {mode} {len(m._reducer.buckets)} "
                                 f"{m._reducer.early}")
    if dist.get_rank() == 0:
        print("\n".join(rows), flush=True)

# DataParallel called inside a to_static function cannot see the step's backward
m = paddle.DataParallel(MLP())


@paddle.jit.to_static
def step(x):
    return m(x).mean()


try:
    step(paddle.randn([4, 8]))
except NotImplementedError as e:
    assert "DataParallel(paddle.jit.to_static(layer))" in str(e)
    if dist.get_rank() == 0:
        print("inside to_static: NotImplementedError", flush=True)

# ranks that built different models: every rank raises, naming the difference
try:
    paddle.DataParallel(paddle.nn.Linear(8, 3 + dist.get_rank()))
except ValueError as e:
    assert "rank 1's layer differs from rank 0's (2 vs 2 parameters and buffers); first " \
           "difference: 'weight' float32[8, 4] (trainable) on rank 1, 'weight' float32[8, 3] " \
           "(trainable) on rank 0" in str(e), str(e)
    if dist.get_rank() == 0:
        print("different models: ValueError", flush=True)
