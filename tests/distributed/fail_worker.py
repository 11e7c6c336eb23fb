"""A 2-rank job in which rank 1 fails (argv[1]: raise | kill | hang) after one
all_reduce, while rank 0 goes on to the next one (test_failures.py).  argv[2],
when given, is the PADDLE_PG_TIMEOUT (ms) from the second collective on: the
first one waits for both ranks to start, which takes long on a loaded machine."""
import os
import signal
import sys
import time

import sampan as paddle
import sampan.distributed as dist

dist.init_parallel_env()
rank = dist.get_rank()
x = paddle.ones([4])
dist.all_reduce(x)
if len(sys.argv) > 2:
    os.environ["PADDLE_PG_TIMEOUT"] = sys.argv[2]
if rank == 1:
    how = sys.argv[1]
    if how == "raise":
        raise ValueError("boom from rank 1")
    if how == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if how == "hang":
        time.sleep(600)
for _ in range(3):
    dist.all_reduce(x)
print("rank", rank, "finished", flush=True)
