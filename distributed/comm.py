"""The communicator: numpy buffers reduced, broadcast and gathered over MPI
(``mpi4py``), with the checks and the watchdog that keep a job from hanging.

* ``mpi4py`` is imported only when a job has more than one process (or runs
  under an MPI launcher): a single process never loads it.
* Every collective first agrees on a small header (the collective, its root or
  reduce op, dtype and shape) with one 2-element-per-field MAX all-reduce, so two
  ranks calling different collectives, or the same one on different shapes or
  dtypes, get a ``ValueError`` naming each rank's side instead of garbage or a
  hang (``SAMPAN_DIST_CHECK=0`` turns the check off).
* Every wait polls its request with a deadline (``PADDLE_PG_TIMEOUT``, ms, as
  Paddle) and a look at the error channel: a rank whose Python code raises
  sends its traceback to every other rank (``install_excepthook``), which raise
  ``RankFailedError`` naming it; then the job is aborted (``MPI.Abort``).
"""
from __future__ import annotations

import os
import sys
import time
import traceback

import numpy as np

__all__ = ["mpi", "Communicator", "LocalCommunicator", "RankFailedError",
           "CollectiveTimeoutError", "install_excepthook", "timeout_seconds"]

_MPI = [None]
_ERR_TAG = 0x5A11
# ReduceOp codes (Paddle's numbering: SUM 0, MAX 1, MIN 2, PROD 3, AVG 4)
SUM, MAX, MIN, PROD, AVG = range(5)
OP_NAMES = ("SUM", "MAX", "MIN", "PROD", "AVG")
_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
           "float64", "complex64", "complex128")
_HEADER = 13            # opcode, arg, dtype, ndim, 8 dims, size
_MAX_DIMS = 8
# the collectives' codes in the header, and what their argument is
NAMES = {1: "all_reduce", 2: "broadcast", 3: "all_gather", 4: "all_gather_object",
         5: "reduce", 6: "scatter", 7: "barrier", 8: "send/recv", 9: "DataParallel bucket",
         10: "c_allreduce", 11: "c_broadcast", 12: "gather", 13: "alltoall",
         14: "reduce_scatter"}
ARG_KIND = {1: "op", 2: "src", 5: "dst", 6: "src", 10: "op", 11: "root", 12: "dst", 14: "op"}


class RankFailedError(RuntimeError):
    """Another rank of the job raised or died; the message names it."""


class CollectiveTimeoutError(RuntimeError):
    """A collective did not complete within the timeout (``PADDLE_PG_TIMEOUT``)."""


def mpi():
    """``mpi4py.MPI``, imported on first use, with the install hint when absent."""
    if _MPI[0] is None:
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise ImportError(
                "sampan.distributed needs mpi4py and an MPI library for more than one "
                "process: pip install 'sampan[distributed]' (mpi4py and mpich), or "
                f"pip install mpi4py over a system MPI ({e})") from None
        _MPI[0] = MPI
    return _MPI[0]


def timeout_seconds():
    """The collective watchdog's timeout: ``PADDLE_PG_TIMEOUT`` in ms (Paddle's
    variable, default 1800000 = 30 min)."""
    raw = os.environ.get("PADDLE_PG_TIMEOUT", "1800000")
    try:
        ms = int(raw)
    except ValueError:
        raise ValueError(f"PADDLE_PG_TIMEOUT must be an integer number of milliseconds, "
                         f"got {raw!r}") from None
    if ms <= 0:
        raise ValueError(f"PADDLE_PG_TIMEOUT must be positive, got {ms}")
    return ms / 1000.0


def _checks_on():
    return os.environ.get("SAMPAN_DIST_CHECK", "1") not in ("0", "false", "False")


def _describe(h):
    opcode, arg, dt, ndim = (int(v) for v in h[:4])
    name = NAMES.get(opcode, f"collective #{opcode}")
    dtype = _DTYPES[dt] if 0 <= dt < len(_DTYPES) else "object"
    if ndim > _MAX_DIMS:
        shape = f"{ndim}-D, {int(h[12])} elements"
    else:
        shape = "[" + ", ".join(str(int(d)) for d in h[4:4 + ndim]) + "]"
    kind = ARG_KIND.get(opcode)
    extra = ""
    if kind == "op":
        extra = f", op={OP_NAMES[arg] if 0 <= arg < 5 else arg}"
    elif kind:
        extra = f", {kind}={arg}"
    return f"{name}({dtype}{shape}{extra})"


class _Base:
    """What both communicators share: rank bookkeeping."""
    rank = 0
    size = 1

    def __repr__(self):
        return f"<{type(self).__name__} rank {self.rank} of {self.size}>"


class LocalCommunicator(_Base):
    """A job of one process without MPI: every collective is local."""

    def __init__(self):
        self.rank, self.size = 0, 1
        self.ranks = [0]

    def check(self, opcode, arr=None, arg=0):
        return None

    def allreduce(self, arr, op=SUM):
        return arr

    def iallreduce(self, arr, op=SUM):
        return _Done()

    def bcast(self, arr, root):
        return arr

    def allgather(self, arr):
        return [arr.copy()]

    def allgather_object(self, obj):
        return [obj]

    def reduce(self, arr, root, op=SUM):
        return arr

    def scatter(self, arrs, out, root):
        np.copyto(out, arrs[0])
        return out

    def barrier(self):
        return None

    def gather(self, arr, root):
        return [arr.copy()]

    def alltoallv(self, send, send_counts, recv_counts, dtype):
        return np.array(send, dtype, copy=True)

    def reduce_scatter(self, stacked, op=SUM):
        return stacked[0].copy()

    def send(self, arr, dst):
        raise ValueError(f"send: dst {dst} is not another rank of a job of one process")

    def recv(self, arr, src):
        raise ValueError(f"recv: src {src} is not another rank of a job of one process")

    def wait(self, req, what="collective"):
        return None


class _Done:
    def Test(self):
        return True


class Communicator(_Base):
    """One MPI communicator (the world, or a group's) and its error channel."""

    def __init__(self, comm, ranks, errors):
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.ranks = list(ranks)         # global rank of each member
        self._errors = errors            # the world's error channel (a Dup of COMM_WORLD)

    # ---------------------------------------------------------------- waiting
    def wait(self, req, what="collective"):
        """Wait for ``req``, watching the error channel and the timeout."""
        if req.Test():
            return
        start = time.monotonic()
        spin_until = start + 0.02       # busy-poll first: MPI progresses only inside Test
        deadline = start + timeout_seconds()
        next_look = start + 0.5
        while not req.Test():
            now = time.monotonic()
            if now < spin_until:
                continue
            _poll_errors(self._errors)
            if now > next_look:              # a peer on this machine that vanished
                next_look = now + 0.5
                _check_peers(self.ranks, what)
            if now > deadline:
                raise CollectiveTimeoutError(
                    f"rank {global_rank()}: {what} did not complete within "
                    f"{timeout_seconds():g} s (PADDLE_PG_TIMEOUT): another rank of "
                    f"{self.ranks} is not taking part (it died, hangs, or runs a "
                    "different collective)")
            time.sleep(0.00005 if now - start < 1.0 else 0.001)

    # ---------------------------------------------------------------- the check
    def check(self, opcode, arr=None, arg=0):
        """All members agree on (collective, arg, dtype, shape), or all raise."""
        if self.size == 1 or not _checks_on():
            return
        h = np.full(_HEADER, -1, np.int64)
        h[0], h[1] = opcode, arg
        if arr is not None:
            h[2] = _DTYPES.index(arr.dtype.name) if arr.dtype.name in _DTYPES else 99
            h[3] = arr.ndim
            h[4:4 + min(arr.ndim, _MAX_DIMS)] = arr.shape[:_MAX_DIMS]
            h[12] = arr.size
        both = np.concatenate([h, -h])
        MPI = mpi()
        self.wait(self.comm.Iallreduce(MPI.IN_PLACE, both, op=MPI.MAX), _describe(h))
        if np.array_equal(both[:_HEADER], -both[_HEADER:]):
            return
        every = np.empty((self.size, _HEADER), np.int64)
        self.wait(self.comm.Iallgather(h, every), "the mismatch report")
        sides = ", ".join(f"rank {r} calls {_describe(every[i])}"
                          for i, r in enumerate(self.ranks))
        raise ValueError(f"mismatched collective: the ranks of group {self.ranks} "
                         f"disagree: {sides}")

    # ---------------------------------------------------------------- collectives
    def _op(self, op):
        MPI = mpi()
        return {SUM: MPI.SUM, AVG: MPI.SUM, MAX: MPI.MAX, MIN: MPI.MIN, PROD: MPI.PROD}[op]

    def iallreduce(self, arr, op=SUM):
        """Start an in-place all-reduce of a contiguous array; returns the request."""
        return self.comm.Iallreduce(mpi().IN_PLACE, arr, op=self._op(op))

    def allreduce(self, arr, op=SUM):
        """In place when ``arr`` is contiguous and writable; returns the result."""
        work, back = _wire(arr)
        self.wait(self.iallreduce(work, op), "all_reduce")
        if op == AVG:
            work = _average(work, self.size)
        return _unwire(arr, work, back)

    def bcast(self, arr, root):
        work, back = _wire(arr)
        self.wait(self.comm.Ibcast(work, root=root), "broadcast")
        return _unwire(arr, work, back)

    def allgather(self, arr):
        work, _ = _wire(arr)
        out = np.empty((self.size,) + work.shape, work.dtype)
        self.wait(self.comm.Iallgather(work, out), "all_gather")
        if out.dtype != arr.dtype:
            out = out.astype(arr.dtype)
        return [out[i] for i in range(self.size)]

    def allgather_object(self, obj):
        import pickle
        data = np.frombuffer(pickle.dumps(obj), np.uint8)
        sizes = np.empty(self.size, np.int64)
        self.wait(self.comm.Iallgather(np.array([data.size], np.int64), sizes),
                  "all_gather_object")
        buf = np.empty(int(sizes.sum()), np.uint8)
        MPI = mpi()
        self.wait(self.comm.Iallgatherv(data, [buf, sizes, MPI.BYTE]), "all_gather_object")
        out, off = [], 0
        for n in sizes:
            out.append(pickle.loads(buf[off:off + n].tobytes()))
            off += n
        return out

    def reduce(self, arr, root, op=SUM):
        work, back = _wire(arr)
        MPI = mpi()
        if self.rank == root:
            self.wait(self.comm.Ireduce(MPI.IN_PLACE, work, op=self._op(op), root=root), "reduce")
            if op == AVG:
                work = _average(work, self.size)
            return _unwire(arr, work, back)
        self.wait(self.comm.Ireduce(work, None, op=self._op(op), root=root), "reduce")
        return arr

    def scatter(self, arrs, out, root):
        work, back = _wire(out)
        send = None
        if self.rank == root:
            send = np.ascontiguousarray(np.stack([_wire(a)[0] for a in arrs]))
        self.wait(self.comm.Iscatter(send, work, root=root), "scatter")
        return _unwire(out, work, back)

    def barrier(self):
        self.wait(self.comm.Ibarrier(), "barrier")

    def gather(self, arr, root):
        work, _ = _wire(arr)
        out = np.empty((self.size,) + work.shape, work.dtype) if self.rank == root else None
        self.wait(self.comm.Igather(np.ascontiguousarray(work), out, root=root), "gather")
        if out is None:
            return None
        return [out[i].astype(arr.dtype, copy=False) for i in range(self.size)]

    def alltoallv(self, send, send_counts, recv_counts, dtype):
        """Element counts per peer; ``send`` flat, returns the flat receive buffer."""
        s, _ = _wire(np.ascontiguousarray(send))
        recv = np.empty(int(sum(recv_counts)), s.dtype)
        sc, rc = np.asarray(send_counts, np.int64), np.asarray(recv_counts, np.int64)
        sd = np.concatenate([[0], np.cumsum(sc)[:-1]]).astype(np.int64)
        rd = np.concatenate([[0], np.cumsum(rc)[:-1]]).astype(np.int64)
        MPI = mpi()
        from mpi4py.util.dtlib import from_numpy_dtype
        mt = from_numpy_dtype(s.dtype)
        self.wait(self.comm.Ialltoallv([s, sc.tolist(), sd.tolist(), mt],
                                       [recv, rc.tolist(), rd.tolist(), mt]), "alltoall")
        return recv.astype(dtype, copy=False)

    def reduce_scatter(self, stacked, op=SUM):
        """``stacked``: one block per rank; returns this rank's reduced block."""
        work, _ = _wire(np.ascontiguousarray(stacked))
        out = np.empty(work.shape[1:], work.dtype)
        self.wait(self.comm.Ireduce_scatter_block(work, out, op=self._op(op)), "reduce_scatter")
        if op == AVG:
            out = _average(out, self.size)
        return out.astype(stacked.dtype, copy=False)

    def send(self, arr, dst):
        work, _ = _wire(arr)
        self.wait(self.comm.Isend(np.ascontiguousarray(work), dest=dst, tag=1), f"send to {dst}")

    def recv(self, arr, src):
        work, back = _wire(arr)
        self.wait(self.comm.Irecv(work, source=src, tag=1), f"recv from {src}")
        return _unwire(arr, work, back)


def _wire(arr):
    """A contiguous writable array MPI can move (bool and float16 travel as
    uint8/float32) and whether it must be copied back into ``arr``."""
    if arr.dtype == np.bool_:
        return arr.astype(np.uint8), True
    if arr.dtype == np.float16:
        return arr.astype(np.float32), True
    if arr.flags.c_contiguous and arr.flags.writeable:
        return arr, False
    return np.ascontiguousarray(arr).copy(), True


def _unwire(arr, work, back):
    if not back and work is arr:
        return arr
    res = work.astype(arr.dtype, copy=False)
    if arr.flags.writeable:
        np.copyto(arr, res.reshape(arr.shape))
        return arr
    return res.reshape(arr.shape)


def _average(work, n):
    if np.issubdtype(work.dtype, np.floating) or np.issubdtype(work.dtype, np.complexfloating):
        work /= n
        return work
    if work.dtype == np.uint8:
        raise TypeError("ReduceOp.AVG needs a numeric tensor, got bool")
    np.copyto(work, (work / n).astype(work.dtype))   # integers: truncated as C divides
    return work


# ------------------------------------------------------------------ errors
def global_rank():
    from . import env
    return env.get_rank()


def _poll_errors(errors):
    """Raise ``RankFailedError`` when another rank reported a failure."""
    if errors is None:
        return
    MPI = mpi()
    st = MPI.Status()
    if errors.Iprobe(source=MPI.ANY_SOURCE, tag=_ERR_TAG, status=st):
        n = st.Get_count(MPI.BYTE)
        buf = bytearray(n)
        errors.Recv([buf, MPI.BYTE], source=st.Get_source(), tag=_ERR_TAG)
        src = st.Get_source()
        raise RankFailedError(f"rank {src} failed, so rank {errors.Get_rank()} stops:\n"
                              + buf.decode("utf-8", "replace"))


# (hostname, pid) of every rank of the job (env.init_parallel_env fills it)
PEERS = []


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as fh:       # a zombie is dead too
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def _check_peers(ranks, what):
    """Raise ``RankFailedError`` when a rank of ``ranks`` on this machine is gone."""
    if not PEERS:
        return
    host = PEERS[global_rank()][0]
    for r in ranks:
        h, pid = PEERS[r]
        if h == host and not _alive(pid):
            raise RankFailedError(
                f"rank {r} (pid {pid} on {h}) is gone without a Python traceback (it exited, "
                f"was killed or crashed), so rank {global_rank()} stops in {what}")


_HOOK = {"installed": False}


def install_excepthook(errors, grace=2.0):
    """On an uncaught exception: print it naming this rank, send it to every other
    rank (they raise ``RankFailedError`` at their next wait), then ``MPI.Abort``
    so no rank is left waiting."""
    if _HOOK["installed"]:
        return
    _HOOK["installed"] = True

    def hook(tp, value, tb):
        rank = errors.Get_rank()
        text = "".join(traceback.format_exception(tp, value, tb))
        sys.stderr.write(f"[sampan.distributed] rank {rank} of {errors.Get_size()} failed:\n"
                         f"{text}")
        sys.stderr.flush()
        MPI = mpi()
        if not isinstance(value, RankFailedError):      # not already a relayed failure
            data = text.encode("utf-8")
            reqs = [errors.Isend([data, MPI.BYTE], dest=r, tag=_ERR_TAG)
                    for r in range(errors.Get_size()) if r != rank]
            end = time.monotonic() + grace
            while time.monotonic() < end and not MPI.Request.Testall(reqs):
                time.sleep(0.01)
            time.sleep(min(grace, 0.5))       # let the others print what they received
        errors.Abort(1)

    sys.excepthook = hook
