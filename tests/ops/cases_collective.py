"""Op-spec cases: the collective ops (ops/defs/collective.py) in a job of one
process, where each is the identity (c_allgather of 1 rank is its input).
Their multi-rank values are checked by tests/distributed/ on 2 ranks."""
import numpy as np

from .spec import Case, rand

A = rand(2, 3, seed=71)
B = rand(4, seed=72)

CASES = [
    Case("c_allreduce_sum", {"X": A}, ref=lambda X: X),
    Case("c_allreduce_max", {"X": A}, ref=lambda X: X, grad=False),
    Case("c_allreduce_min", {"X": A}, ref=lambda X: X, grad=False),
    Case("c_allreduce_prod", {"X": A}, ref=lambda X: X, grad=False),
    Case("c_broadcast", {"X": A}, {"root": 0}, ref=lambda X: X, grad=False),
    Case("c_reduce_sum", {"X": A}, {"root_id": 0}, ref=lambda X: X, grad=False),
    Case("c_allgather", {"X": A}, {"nranks": 1}, ref=lambda X: X, grad=False),
    # (Paddle's static barrier reads an int32 [1] tensor: paddle.full([1], 1, "int32"))
    Case("barrier", {"X": np.ones([1], "int32")}, ref=lambda X: X, grad=False),
    Case("c_sync_calc_stream", {"X": A}, ref=lambda X: X, grad=False),
    Case("c_sync_comm_stream", {"X": [A, B]}, ref=lambda X: (X,), grad=False),
    Case("c_comm_init", {"X": A}, {"nranks": 1, "rank": 0}, ref=lambda X: (), grad=False),
]
