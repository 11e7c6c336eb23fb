"""``paddle.distributed``: data parallelism over MPI (mpi4py).

    python -m sampan.distributed.launch --nproc_per_node 2 train.py
    mpiexec -n 2 python train.py                     # the same job

``init_parallel_env()`` joins the job; the collectives (``all_reduce`` ...)
work on eager Tensors in place; ``DataParallel`` averages gradients in
buckets during the backward; ``fleet`` holds the collective subset of Paddle's
fleet API; ``spawn`` starts the ranks from Python.  Importing this package
does not import mpi4py: a job of one process never needs it.  See README.md
("Distributed training") for installing and multi-machine runs.
"""
from .env import (init_parallel_env, get_rank, get_world_size, ParallelEnv,  # noqa: F401
                  is_initialized, Group, new_group, get_group, destroy_process_group,
                  get_backend, is_available)
from .collective import (ReduceOp, all_reduce, broadcast, all_gather,  # noqa: F401
                         all_gather_object, reduce, scatter, barrier, send, recv, isend, irecv,
                         broadcast_object_list, scatter_object_list, wait)
from .collective_extra import gather, alltoall, alltoall_single, reduce_scatter  # noqa: F401
from .comm import RankFailedError, CollectiveTimeoutError  # noqa: F401
from .parallel import DataParallel  # noqa: F401
from . import static_ops  # noqa: F401  (kernels of the c_* collective op records)
from .spawn import spawn  # noqa: F401
from . import fleet  # noqa: F401
from .launch import launch  # noqa: F401


class ParallelMode:
    """Paddle's parallel modes (fleet's topology): sampan runs DATA_PARALLEL."""
    DATA_PARALLEL = 0
    TENSOR_PARALLEL = 1
    PIPELINE_PARALLEL = 2
    SHARDING_PARALLEL = 3
    SEGMENT_PARALLEL = 4


__all__ = ["init_parallel_env", "get_rank", "get_world_size", "ParallelEnv", "is_initialized",
           "new_group", "get_group", "destroy_process_group", "get_backend", "is_available",
           "ReduceOp", "all_reduce", "broadcast", "all_gather", "all_gather_object", "reduce",
           "scatter", "barrier", "send", "recv", "isend", "irecv", "broadcast_object_list",
           "scatter_object_list", "wait", "DataParallel", "spawn", "fleet", "gather", "alltoall",
           "alltoall_single", "reduce_scatter", "launch", "ParallelMode"]
