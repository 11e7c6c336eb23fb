"""Paddle's collective op types in static programs: the records (slots and
attributes of Paddle 2.6.2's wheel), their kernels on 2 ranks, and a fleet
static program that trains on 2 ranks as one process does on the whole batch."""
import numpy as np
import pytest

import sampan as paddle
from sampan.ops import get_op
from mpi_helper import requires_mpi, run, script

# (inputs, outputs, attributes) as Paddle 2.6.2's OpProtos list them
PADDLE = {
    "c_allreduce_sum": (["X", "Cond"], ["Out"], ["ring_id", "use_calc_stream",
                                                 "use_model_parallel"]),
    "c_allreduce_max": (["X"], ["Out"], ["ring_id", "use_calc_stream", "use_model_parallel"]),
    "c_allreduce_min": (["X"], ["Out"], ["ring_id", "use_calc_stream", "use_model_parallel"]),
    "c_allreduce_prod": (["X"], ["Out"], ["ring_id", "use_calc_stream", "use_model_parallel"]),
    "c_broadcast": (["X"], ["Out"], ["ring_id", "root", "use_calc_stream"]),
    "c_sync_calc_stream": (["X"], ["Out"], []),
    "c_sync_comm_stream": (["X"], ["Out"], ["ring_id"]),
    "c_comm_init": (["X"], [], ["nranks", "rank", "device_id", "ring_id", "endpoints"]),
    "barrier": (["X"], ["Out"], ["ring_id"]),
    "c_allgather": (["X"], ["Out"], ["ring_id", "use_calc_stream", "nranks"]),
    "c_reduce_sum": (["X"], ["Out"], ["ring_id", "root_id", "use_calc_stream"]),
}


@pytest.mark.parametrize("op_type", sorted(PADDLE))
def test_op_records_have_paddles_slots(op_type):
    od = get_op(op_type)
    ins, outs, attrs = PADDLE[op_type]
    assert [s.name for s in od.inputs] == ins
    assert [s.name for s in od.outputs] == outs
    assert [a.name for a in od.attrs] == attrs
    assert od.side_effect         # program order is kept: every rank runs them alike


def test_one_process_program_and_errors():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [3], "float32")
            blk = main.global_block()
            blk.append_op(type="c_allreduce_sum", inputs={"X": [x]}, outputs={"Out": [x]},
                          attrs={"ring_id": 0})
            y = blk.create_var(name="y", dtype="float32", shape=[3])
            blk.append_op(type="c_allreduce_sum", inputs={"X": [x]}, outputs={"Out": [y]},
                          attrs={"ring_id": 9})
        exe = paddle.static.Executor()
        with pytest.raises(Exception, match="ring_id 9 names no communication group"):
            exe.run(main, feed={"x": np.ones(3, "float32")}, fetch_list=[y])
    finally:
        paddle.disable_static()
        paddle.distributed.destroy_process_group()


@requires_mpi
def test_collective_ops_on_two_ranks():
    r = run([script("static_worker.py"), "ops"], n=2, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "OK [0, 1]" in r.stdout.splitlines(), r.stdout


@requires_mpi
def test_fleet_static_program_trains_like_one_process(tmp_path):
    outs = []
    for n in (None, 2):
        out = str(tmp_path / f"run{n}.npz")
        r = run([script("static_worker.py"), "train", out], n=n, timeout=180)
        assert r.returncode == 0, r.stdout + r.stderr
        outs.append(np.load(out))
    ref, dp = outs
    assert ref["losses"][-5:].mean() < ref["losses"][:5].mean()
    for k in ref.files:
        np.testing.assert_allclose(dp[k], ref[k], rtol=2e-5, atol=2e-6, err_msg=k)
