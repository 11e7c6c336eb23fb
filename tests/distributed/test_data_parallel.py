"""DataParallel on 2 ranks trains exactly as one process on the whole batch:
the same per-step loss (the ranks' mean) and final weights, eagerly and with
the forward under to_static; rank 1 starts from other weights, so the
wrap-time broadcast is tested too.  Also no_sync, find_unused_parameters, and
that buckets start during the backward (dp_worker.py is the training script)."""
import numpy as np
import pytest

import sampan as paddle
from mpi_helper import requires_mpi, run, script


def _train(tmp_path, name, n, *args):
    out = str(tmp_path / f"{name}.npz")
    r = run([script("dp_worker.py"), *args, out], n=n, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return np.load(out)


def _same(ref, dp):
    assert set(ref.files) == set(dp.files)
    np.testing.assert_allclose(dp["losses"], ref["losses"], rtol=2e-5, atol=1e-6)
    for k in ref.files:
        np.testing.assert_allclose(dp[k], ref[k], rtol=2e-5, atol=2e-6, err_msg=k)


@requires_mpi
@pytest.mark.parametrize("model,mode", [("mlp", "eager"), ("mlp", "static"),
                                        ("cnn", "eager"), ("cnn", "static"),
                                        ("mlp", "static_outer")])
def test_two_ranks_match_one_process(tmp_path, model, mode):
    ref = _train(tmp_path, "ref", None, model, mode)
    dp = _train(tmp_path, "dp", 2, model, mode)
    assert len(ref["losses"]) == 20 and np.all(np.isfinite(ref["losses"]))
    assert ref["losses"][-5:].mean() < ref["losses"][:5].mean()      # it learns
    _same(ref, dp)


@requires_mpi
def test_no_sync_accumulates_then_averages(tmp_path):
    ref = _train(tmp_path, "ref", None, "mlp", "eager", "--nosync", "--steps", "6")
    dp = _train(tmp_path, "dp", 2, "mlp", "eager", "--nosync", "--steps", "6")
    _same(ref, dp)


@requires_mpi
def test_find_unused_parameters(tmp_path):
    ref = _train(tmp_path, "ref", None, "unused", "eager", "--steps", "6")
    dp = _train(tmp_path, "dp", 2, "unused", "eager", "--steps", "6", "--find_unused")
    _same(ref, dp)
    r = run([script("dp_worker.py"), "unused", "eager", str(tmp_path / "x.npz"), "--steps", "4"],
            n=2, timeout=120)
    assert r.returncode != 0
    assert "find_unused_parameters=True" in r.stderr and "linear_1.w_0" in r.stderr


@requires_mpi
def test_buckets_start_during_backward():
    r = run([script("dp_overlap.py")], n=2, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = sorted(l for l in r.stdout.splitlines() if l.startswith("buckets"))
    assert len(lines) == 4, r.stdout
    for line in lines:     # buckets <rank> <mode> <n buckets> <started before the end>
        _, rank, mode, n, early = line.split()
        assert int(n) == 6 and int(early) >= 5, line
    assert "inside to_static: NotImplementedError" in r.stdout
    assert "different models: ValueError" in r.stdout


def test_one_process_is_the_layer_itself():
    net = paddle.nn.Linear(3, 2)
    with pytest.warns(UserWarning, match="one process"):
        dp = paddle.DataParallel(net)
    x = paddle.randn([4, 3])
    np.testing.assert_array_equal(dp(x).numpy(), net(x).numpy())
    assert list(dp.state_dict()) == list(net.state_dict())
    assert [p.name for p in dp.parameters()] == [p.name for p in net.parameters()]
    with dp.no_sync():
        dp(x).sum().backward()
    assert net.weight.grad is not None
    with pytest.raises(ValueError, match="comm_buffer_size"):
        paddle.DataParallel(net, comm_buffer_size=0)
    with pytest.raises(TypeError, match="nn.Layer"):
        paddle.DataParallel(lambda x: x)
    paddle.distributed.destroy_process_group()


def test_bucket_assignment():
    from sampan.distributed.reducer import build_buckets
    ps = [paddle.create_parameter([256], "float32") for _ in range(4)] + \
         [paddle.create_parameter([256], "float64")]
    # 1 KB per float32 param, filled in declaration order: the bucket of the first
    # parameters (all-reduced last) is capped at 1 KB, the others at 2 KB; a dtype
    # change closes a bucket; the list is in backward (readiness) order
    b = build_buckets(ps, 2048, 1024)
    assert b == [[4], [3], [2, 1], [0]]
    assert build_buckets(ps, 1 << 20, 1 << 20) == [[4], [3, 2, 1, 0]]
