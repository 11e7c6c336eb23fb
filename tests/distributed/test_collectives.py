"""paddle.distributed's collectives: on 2 ranks (collectives_worker.py checks
the values), and in one process (no MPI: each collective is local), plus the
argument errors and the launcher variables."""
import os
import subprocess
import sys

import numpy as np
import pytest

import sampan as paddle
import sampan.distributed as dist
from mpi_helper import requires_mpi, run, script, env


@pytest.fixture
def fresh():
    saved = dict(os.environ)
    dist.destroy_process_group()
    yield
    dist.destroy_process_group()
    os.environ.clear()
    os.environ.update(saved)


@requires_mpi
def test_collectives_on_two_ranks():
    r = run([script("collectives_worker.py")], n=2, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "OK [0, 1]" in r.stdout.splitlines(), r.stdout


def test_one_process_needs_no_mpi():
    code = ("import sys, sampan as paddle, sampan.distributed as dist\n"
            "g = dist.init_parallel_env(); t = paddle.to_tensor([1.0, 2.0])\n"
            "dist.all_reduce(t); dist.barrier(); m = paddle.DataParallel\n"
            "assert (g.rank, g.nranks) == (0, 1) and t.numpy().tolist() == [1.0, 2.0]\n"
            "assert 'mpi4py' not in sys.modules, 'mpi4py imported'\nprint('fine')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=env(), timeout=120)
    assert r.returncode == 0 and "fine" in r.stdout, r.stderr


def test_local_collectives(fresh):
    assert not dist.is_initialized()
    assert dist.get_rank() == 0 and dist.get_world_size() == 1
    g = dist.init_parallel_env()
    assert dist.is_initialized() and dist.init_parallel_env() is g
    t = paddle.to_tensor([1.0, 3.0])
    for op in (dist.ReduceOp.SUM, dist.ReduceOp.AVG, dist.ReduceOp.MAX, dist.ReduceOp.PROD):
        dist.all_reduce(t, op=op)
    assert t.numpy().tolist() == [1.0, 3.0]
    lst = []
    dist.all_gather(lst, t)
    assert len(lst) == 1 and lst[0].numpy().tolist() == [1.0, 3.0]
    objs = []
    dist.all_gather_object(objs, {"a": 1})
    assert objs == [{"a": 1}]
    out = paddle.zeros([2])
    dist.scatter(out, [paddle.to_tensor([4.0, 5.0])], src=0)
    assert out.numpy().tolist() == [4.0, 5.0]
    dist.broadcast(t, src=0)
    dist.reduce(t, dst=0)
    dist.barrier()
    gl = []
    dist.gather(t, gl, dst=0)
    outs = []
    dist.alltoall([t], outs)
    rs = paddle.zeros([2])
    dist.reduce_scatter(rs, [t])
    o = paddle.zeros([2])
    dist.alltoall_single(t, o)
    for x in (gl[0], outs[0], rs, o):
        assert x.numpy().tolist() == [1.0, 3.0]
    with pytest.raises(ValueError, match="split_sizes"):
        dist.alltoall_single(t, o, in_split_sizes=[1])


def test_argument_errors(fresh):
    t = paddle.to_tensor([1.0])
    with pytest.raises(ValueError, match="ReduceOp"):
        dist.all_reduce(t, op=7)
    with pytest.raises(ValueError, match="src 3 is not a rank of the group"):
        dist.broadcast(t, src=3)
    with pytest.raises(ValueError, match="dst 1 is not a rank"):
        dist.reduce(t, dst=1)
    with pytest.raises(TypeError, match="tensor must be a Tensor"):
        dist.all_reduce(np.ones(2))
    with pytest.raises(TypeError, match="tensor_list must be a list"):
        dist.all_gather((), t)
    with pytest.raises(ValueError, match="tensor_list holds 2"):
        dist.all_gather([t, t], t)
    with pytest.raises(RuntimeError, match="should not be empty"):
        dist.scatter(t, [], src=0)
    with pytest.raises(ValueError, match="this rank"):
        dist.send(t, dst=0)
    with pytest.raises(ValueError, match="ranks must be distinct integers"):
        dist.new_group([0, 5])
    with pytest.raises(TypeError, match="group must be"):
        dist.all_reduce(t, group="world")


def test_parallel_env_reads_the_launcher_variables(monkeypatch):
    monkeypatch.setenv("PADDLE_TRAINER_ID", "3")
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "4")
    monkeypatch.setenv("PADDLE_TRAINER_ENDPOINTS", "10.0.0.1:6170,10.0.0.1:6171")
    monkeypatch.setenv("PADDLE_CURRENT_ENDPOINT", "10.0.0.1:6171")
    e = dist.ParallelEnv()
    assert (e.rank, e.world_size, e.local_rank, e.nranks) == (3, 4, 3, 4)
    assert e.trainer_endpoints == ["10.0.0.1:6170", "10.0.0.1:6171"]
    assert e.current_endpoint == "10.0.0.1:6171"
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "four")
    with pytest.raises(ValueError, match="PADDLE_TRAINERS_NUM must be an integer"):
        dist.ParallelEnv()


def test_bare_mpi_launcher_variables(monkeypatch, fresh):
    for k in ("PADDLE_TRAINER_ID", "PADDLE_TRAINERS_NUM"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("PMI_RANK", "1")
    monkeypatch.setenv("PMI_SIZE", "2")
    assert (dist.ParallelEnv().rank, dist.ParallelEnv().world_size) == (1, 2)
    assert (dist.get_rank(), dist.get_world_size()) == (1, 2)


def test_reduce_op_values_are_paddles():
    assert (dist.ReduceOp.SUM, dist.ReduceOp.MAX, dist.ReduceOp.MIN, dist.ReduceOp.PROD,
            dist.ReduceOp.AVG) == (0, 1, 2, 3, 4)
