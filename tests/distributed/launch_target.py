"""Run by test_launch.py through the launcher and by spawn: prints the
launcher variables each rank sees and checks one all_reduce."""
import os
import sys

import sampan as paddle
import sampan.distributed as dist


def train(out_dir=None, fail_rank=-1):
    dist.init_parallel_env()
    r = dist.get_rank()
    if r == fail_rank:
        raise RuntimeError(f"rank {r} was told to fail")
    t = paddle.to_tensor([1.0 + r])
    dist.all_reduce(t)
    keys = ("PADDLE_TRAINER_ID", "PADDLE_TRAINERS_NUM", "PADDLE_TRAINER_ENDPOINTS",
            "PADDLE_CURRENT_ENDPOINT", "PADDLE_LOCAL_RANK")
    line = " ".join(f"{k}={os.environ.get(k)}" for k in keys) + f" sum={t.numpy()[0]:g}"
    if out_dir:
        with open(os.path.join(out_dir, f"rank{r}.txt"), "w") as fh:
            fh.write(line)
    print(line, flush=True)


if __name__ == "__main__":
    assert sys.argv[1:3] == ["--flag", "v"], sys.argv      # the script's own arguments
    train(sys.argv[3])
