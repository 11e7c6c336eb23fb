"""``python -m sampan.distributed.launch`` and ``paddle.distributed.spawn`` on
one machine with 2 ranks; the mpiexec command for several machines."""
import os
import sys

import pytest

import sampan.distributed as dist
from sampan.distributed.launch import build_command
from mpi_helper import requires_mpi, run, script, pythonpath


@requires_mpi
def test_launcher_sets_paddles_variables(tmp_path):
    r = run([script("launch_target.py"), "--flag", "v", str(tmp_path)], n=2, launcher=True,
            timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = sorted(p.read_text() for p in tmp_path.glob("rank*.txt"))
    eps = "127.0.0.1:6170,127.0.0.1:6171"
    assert lines == [
        f"PADDLE_TRAINER_ID=0 PADDLE_TRAINERS_NUM=2 PADDLE_TRAINER_ENDPOINTS={eps} "
        f"PADDLE_CURRENT_ENDPOINT=127.0.0.1:6170 PADDLE_LOCAL_RANK=0 sum=3",
        f"PADDLE_TRAINER_ID=1 PADDLE_TRAINERS_NUM=2 PADDLE_TRAINER_ENDPOINTS={eps} "
        f"PADDLE_CURRENT_ENDPOINT=127.0.0.1:6171 PADDLE_LOCAL_RANK=1 sum=3"]


@requires_mpi
def test_launcher_log_dir(tmp_path):
    logs = tmp_path / "log"
    r = run(["--log_dir", str(logs), script("launch_target.py"), "--flag", "v", str(tmp_path)],
            n=2, launcher=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(logs)) == ["workerlog.0", "workerlog.1"]
    assert "PADDLE_TRAINER_ID=1 " in (logs / "workerlog.1").read_text()


def test_launcher_errors(tmp_path):
    r = run([str(tmp_path / "missing.py")], n=2, launcher=True, timeout=120)
    assert r.returncode != 0 and "missing.py" in r.stderr
    with pytest.raises(ValueError, match="nproc_per_node"):
        build_command(0, "127.0.0.1", "t.py", [], "mpiexec", flavour="hydra")


def test_multi_machine_commands():
    argv, env = build_command(2, "10.0.0.1,10.0.0.2", "train.py", ["--lr", "0.1"],
                              "/opt/mpi/bin/mpiexec", flavour="hydra")
    assert argv[:7] == ["/opt/mpi/bin/mpiexec", "-n", "4", "-hosts", "10.0.0.1,10.0.0.2",
                        "-ppn", "2"]
    assert argv[-5:] == ["-m", "sampan.distributed.launch.worker", "train.py", "--lr", "0.1"]
    assert env["PADDLE_TRAINERS_NUM"] == "4" and env["PADDLE_NNODES"] == "2"
    assert env["PADDLE_TRAINER_ENDPOINTS"] == \
        "10.0.0.1:6170,10.0.0.1:6171,10.0.0.2:6170,10.0.0.2:6171"
    argv, _ = build_command(2, "10.0.0.1,10.0.0.2", "train.py", [], "mpirun",
                            flavour="openmpi")
    assert argv[:5] == ["mpirun", "-n", "4", "--host", "10.0.0.1:2,10.0.0.2:2"]
    assert "-x" in argv and "PADDLE_TRAINER_ENDPOINTS" in argv


@requires_mpi
def test_spawn(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(pythonpath().split(os.pathsep)[0])
    monkeypatch.setenv("PADDLE_PG_TIMEOUT", "60000")
    import launch_target
    ctx = dist.spawn(launch_target.train, args=(str(tmp_path),), nprocs=2)
    assert ctx.nprocs == 2
    got = sorted(p.read_text() for p in tmp_path.glob("rank*.txt"))
    assert len(got) == 2 and all(g.endswith("sum=3") for g in got)
    assert got[1].startswith("PADDLE_TRAINER_ID=1 PADDLE_TRAINERS_NUM=2 ")
    with pytest.raises(Exception, match="Process 1 terminated with the following error"):
        dist.spawn(launch_target.train, args=(None, 1), nprocs=2)
    with pytest.raises(TypeError, match="picklable"):
        dist.spawn(lambda: None, nprocs=2)


@requires_mpi
def test_example_runs_under_the_launcher():
    example = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "examples", "train_data_parallel.py")
    r = run([example], n=2, launcher=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "epoch 2: loss" in r.stdout and "(2 rank(s))" in r.stdout
    assert "loaded on every rank" in r.stdout


def test_the_watcher_orders_local_deaths_and_skips_ranks_that_ended(tmp_path):
    """The launcher's watcher (main._watch) notes this host's ranks as they die,
    a dead child not yet reaped (a zombie) counting as dead; _first_death
    skips a rank marked done by worker.py.  Two sleeping processes stand in
    for ranks; no MPI needed."""
    import socket
    import subprocess
    import threading
    import time
    from sampan.distributed.launch import main

    kids = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            for _ in range(2)]
    for r, k in enumerate(kids):
        (tmp_path / f"rank.{r}").write_text(f"{socket.gethostname()} {k.pid}")
    stop = [None]
    job = type("Job", (), {"poll": lambda self: stop[0]})()
    order = []
    t = threading.Thread(target=main._watch, args=(job, str(tmp_path), order))
    t.start()
    try:
        time.sleep(0.1)
        kids[1].kill()                  # rank 1 first (left unreaped: a zombie)
        time.sleep(0.1)
        kids[0].kill()
        time.sleep(0.1)
    finally:
        stop[0] = 0
        t.join()
        for k in kids:
            k.kill()
            k.wait()
    assert order == [(1, kids[1].pid), (0, kids[0].pid)]
    assert main._first_death(order, str(tmp_path)) == (1, kids[1].pid)
    (tmp_path / "done.1").write_text("")
    assert main._first_death(order, str(tmp_path)) == (0, kids[0].pid)
