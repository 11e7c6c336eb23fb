"""A failing rank never leaves the others hanging: a rank that raises has its
traceback printed by every other rank (RankFailedError naming it); a killed
rank is named by the launcher; a rank that stops taking part makes the others
time out (PADDLE_PG_TIMEOUT) with an error; the whole job exits non-zero, fast."""
import time

from mpi_helper import requires_mpi, run, script


@requires_mpi
def test_a_raising_rank_stops_the_others_with_its_traceback():
    t0 = time.monotonic()
    r = run([script("fail_worker.py"), "raise"], n=2, timeout=120)
    assert r.returncode != 0 and time.monotonic() - t0 < 60
    assert "finished" not in r.stdout
    err = r.stderr
    assert "rank 1 of 2 failed" in err and "ValueError: boom from rank 1" in err
    # rank 0 names rank 1 and repeats its traceback
    assert "RankFailedError: rank 1 failed, so rank 0 stops" in err
    assert err.count("boom from rank 1") >= 2


@requires_mpi
def test_a_killed_rank_is_named_and_the_job_ends():
    t0 = time.monotonic()
    r = run([script("fail_worker.py"), "kill"], n=2, timeout=120, launcher=True)
    assert r.returncode != 0 and time.monotonic() - t0 < 60
    assert "finished" not in r.stdout
    assert "rank 1 (pid" in r.stderr and "died" in r.stderr, r.stdout + r.stderr


@requires_mpi
def test_a_silent_rank_times_out():
    t0 = time.monotonic()
    # 3 s once both ranks are up; starting them keeps the default (60 s in run())
    r = run([script("fail_worker.py"), "hang", "3000"], n=2, timeout=120)
    assert r.returncode != 0 and time.monotonic() - t0 < 60
    assert "CollectiveTimeoutError: rank 0: all_reduce(float32[4], op=SUM) did not " \
           "complete within 3 s (PADDLE_PG_TIMEOUT)" in r.stderr, r.stderr
