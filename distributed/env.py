"""Who this process is in the job: ``init_parallel_env``, ``get_rank``,
``get_world_size``, ``ParallelEnv``, ``is_initialized``, and the groups
(``Group``, ``new_group``, ``get_group``).

Rank and world size come from MPI when the job runs under an MPI launcher
(``mpiexec``/``mpirun``/Slurm, or ``python -m sampan.distributed.launch``,
which uses mpiexec), and are checked against Paddle's variables when the
launcher sets them (``PADDLE_TRAINER_ID``, ``PADDLE_TRAINERS_NUM``,
``PADDLE_TRAINER_ENDPOINTS``, ``PADDLE_CURRENT_ENDPOINT``).  After
``init_parallel_env`` those variables hold the job's values (set when absent),
so ``ParallelEnv`` and ``io.DistributedBatchSampler`` read them as in Paddle.
A process started on its own is rank 0 of 1 and never loads MPI.
"""
from __future__ import annotations

import os
import socket
import warnings

from . import comm as _comm
from .comm import Communicator, LocalCommunicator, install_excepthook, mpi

__all__ = ["init_parallel_env", "get_rank", "get_world_size", "ParallelEnv", "is_initialized",
           "Group", "new_group", "get_group", "destroy_process_group", "get_backend",
           "is_available"]

# variables MPI launchers set for each process: (rank, size)
_MPI_VARS = (("PMI_RANK", "PMI_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
             ("PMIX_RANK", None), ("MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE"),
             ("SLURM_PROCID", "SLURM_NTASKS"))
_START_PORT = 6170


class _State:
    world = None          # the global Group once initialized
    groups = {}           # id -> Group
    next_id = 1
    errors = None         # COMM_WORLD's Dup carrying failure reports


def _launcher_rank_size():
    """(rank, size) an MPI launcher gave this process, or None."""
    for rv, sv in _MPI_VARS:
        if rv in os.environ:
            size = os.environ.get(sv) if sv else None
            return int(os.environ[rv]), int(size) if size else None
    return None


def _env_int(name, default):
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"environment variable {name} must be an integer, got {raw!r}") from None


class Group:
    """A set of ranks that run collectives together (Paddle's ``Group``):
    ``rank`` is this process's rank inside it (-1 when not a member), ``ranks``
    the members' global ranks, ``id`` the ring id static collective ops name."""

    def __init__(self, rank_in_group, id, ranks, pg=None, name=None):
        self._rank_in_group = rank_in_group
        self._world_size = len(ranks) if rank_in_group >= 0 else -1
        self._id = id
        self._ranks = list(ranks)
        self._pg = pg                       # the Communicator (None for a non-member)
        self._name = name

    rank = property(lambda self: self._rank_in_group)
    ranks = property(lambda self: self._ranks)
    nranks = property(lambda self: len(self._ranks))
    name = property(lambda self: self._name)
    process_group = property(lambda self: self._pg)
    world_size = property(lambda self: self._world_size)
    id = property(lambda self: self._id)

    @property
    def backend(self):
        return "mpi"

    def is_member(self):
        return self.rank >= 0

    def get_group_rank(self, rank):
        return self._ranks.index(rank) if self.is_member() and rank in self._ranks else -1

    def __repr__(self):
        return (f"rank: {self.rank}, nranks: {self.nranks}, id: {self.id}, ranks: "
                + ", ".join(map(str, self.ranks)) + f"; name: {self.name or 'None'}")


def _needs_mpi():
    """A launcher started several processes (a job of one needs no MPI)."""
    found = _launcher_rank_size()
    if found is not None and (found[1] is None or found[1] > 1):
        return True
    return _env_int("PADDLE_TRAINERS_NUM", 1) > 1


def init_parallel_env():
    """Join the job: connect to the other ranks (MPI) and return the global
    ``Group``.  Calling it again returns the same group."""
    if _State.world is not None:
        return _State.world
    if _needs_mpi():
        MPI = mpi()
        world = MPI.COMM_WORLD
        rank, size = world.Get_rank(), world.Get_size()
        want = _env_int("PADDLE_TRAINERS_NUM", None)
        if want is not None and want != size:
            raise RuntimeError(
                f"PADDLE_TRAINERS_NUM={want} but MPI started {size} process(es): run the "
                f"script with `mpiexec -n {want}` or `python -m sampan.distributed.launch "
                f"--nproc_per_node {want}`")
        got = _env_int("PADDLE_TRAINER_ID", None)
        if got is not None and got != rank:
            raise RuntimeError(f"PADDLE_TRAINER_ID={got} but this process is MPI rank {rank}")
        errors = world.Dup()
        _State.errors = errors
        comm = Communicator(world, range(size), errors)
        if size > 1:
            _comm.PEERS[:] = comm.allgather_object((socket.gethostname(), os.getpid()))
            install_excepthook(errors)
        _publish(rank, size, comm)
    else:
        rank, size, comm = 0, 1, LocalCommunicator()   # the launcher variables stay unset
    group = Group(rank, 0, list(range(size)), pg=comm, name="_default_pg")
    _State.world = group
    _State.groups[0] = group
    return group


def _publish(rank, size, comm):
    """Set Paddle's launcher variables this job's values where absent."""
    os.environ.setdefault("PADDLE_TRAINER_ID", str(rank))
    os.environ.setdefault("PADDLE_TRAINERS_NUM", str(size))
    if "PADDLE_TRAINER_ENDPOINTS" not in os.environ or "PADDLE_CURRENT_ENDPOINT" not in os.environ:
        try:
            ip = socket.gethostbyname(socket.gethostname())
        except OSError:
            ip = "127.0.0.1"
        ips = comm.allgather_object(ip) if comm is not None and size > 1 else [ip]
        eps = [f"{h}:{_START_PORT + r}" for r, h in enumerate(ips)]
        os.environ.setdefault("PADDLE_TRAINER_ENDPOINTS", ",".join(eps))
        os.environ.setdefault("PADDLE_CURRENT_ENDPOINT", eps[rank])


def is_initialized():
    """Whether ``init_parallel_env`` has run in this process."""
    return _State.world is not None


def world_group():
    """The global group, initializing a job of one process when nothing ran
    ``init_parallel_env`` (Paddle's collectives then work on the local rank)."""
    return _State.world if _State.world is not None else init_parallel_env()


def get_rank(group=None):
    """This process's rank in ``group`` (the global one by default; -1 when not a member)."""
    if group is not None:
        return group.rank
    if _State.world is not None:
        return _State.world.rank
    return ParallelEnv().rank


def get_world_size(group=None):
    """The number of ranks in ``group`` (the whole job by default)."""
    if group is not None:
        return group.world_size
    if _State.world is not None:
        return _State.world.nranks
    return ParallelEnv().world_size


def new_group(ranks=None, backend=None, timeout=None):
    """A group of the given global ranks (all ranks by default).  Every rank of
    the job must call it, in the same order, as in Paddle."""
    world = world_group()
    n = world.nranks
    ranks = sorted(range(n) if ranks is None else ranks)
    bad = [r for r in ranks if not isinstance(r, int) or not 0 <= r < n]
    if bad or len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group: ranks must be distinct integers in [0, {n}), got {ranks}")
    if backend not in (None, "mpi", "gloo", "nccl"):
        raise ValueError(f"new_group: backend {backend!r} is not available (sampan runs on MPI)")
    gid = _State.next_id
    _State.next_id += 1
    me = world.rank
    if n == 1:
        pg = LocalCommunicator() if me in ranks else None
    else:
        MPI = mpi()
        sub = world.process_group.comm.Split(0 if me in ranks else MPI.UNDEFINED, me)
        pg = Communicator(sub, ranks, _State.errors) if sub != MPI.COMM_NULL else None
    group = Group(ranks.index(me) if me in ranks else -1, gid, ranks, pg=pg,
                  name=f"_default_pg{gid}")
    _State.groups[gid] = group
    return group


def get_group(id=0):
    """The group with ring id ``id`` (None when there is none)."""
    return _State.groups.get(id)


def destroy_process_group(group=None):
    """Forget ``group`` (all groups and the job's state when None)."""
    if group is None:
        _State.world = None
        _State.groups = {}
        _State.next_id = 1
    else:
        _State.groups.pop(group.id, None)


def get_backend(group=None):
    return "MPI" if world_group().nranks > 1 else "LOCAL"


def is_available():
    """Whether more than one process can work together (mpi4py importable)."""
    try:
        mpi()
    except ImportError:
        return False
    return True


class ParallelEnv:
    """Paddle's view of the launcher's variables; under a bare MPI launcher
    (before ``init_parallel_env`` sets them) rank and size come from MPI's."""

    def __init__(self):
        found = _launcher_rank_size()
        mrank, msize = found if found else (0, 1)
        self._rank = _env_int("PADDLE_TRAINER_ID", mrank)
        self._world_size = _env_int("PADDLE_TRAINERS_NUM", msize if msize else 1)
        self._device_type = os.environ.get("PADDLE_XCCL_BACKEND", "")
        self._pg_timeout = _env_int("PADDLE_PG_TIMEOUT", 1800000)
        self._device_id = int(os.environ.get("FLAGS_selected_gpus", "0").split(",")[0] or 0)
        self._trainer_endpoints = os.environ.get("PADDLE_TRAINER_ENDPOINTS", "").split(",")
        self._current_endpoint = os.environ.get("PADDLE_CURRENT_ENDPOINT", "")
        self._nrings = _env_int("FLAGS_nccl_nrings", 1)

    rank = property(lambda self: self._rank)
    world_size = property(lambda self: self._world_size)
    device_id = property(lambda self: self._device_id)
    device_type = property(lambda self: self._device_type)
    current_endpoint = property(lambda self: self._current_endpoint)
    trainer_endpoints = property(lambda self: self._trainer_endpoints)
    nrings = property(lambda self: self._nrings)
    pg_timeout = property(lambda self: self._pg_timeout)
    # Paddle 1.x names
    local_rank = rank
    nranks = world_size
    dev_id = device_id


def warn_single(what):
    warnings.warn(f"{what}: the job has one process, so it runs as a single process "
                  "(start it with `python -m sampan.distributed.launch --nproc_per_node N` "
                  "or `mpiexec -n N` for more)", stacklevel=3)
