"""Kernels of the collective op records (``ops/defs/collective.py``) over
sampan.distributed's communicators: ring ``ring_id`` is the group of that id
(0: the whole job, initialized on first use like ``init_parallel_env``).  They
live here, not in kernels/, because the communicator does."""
from __future__ import annotations

import numpy as np

from ..kernels.registry import register_kernel, ALL, COMPLEX
from . import comm as _c
from .env import get_group, world_group

# the dtypes of Paddle 2.6.2's CPU kernels (tests/conformance/test_kernel_dtypes.py)
_DTYPES = ("float16", "float32", "float64", "int32", "int64")
_GATHER_DTYPES = _DTYPES + ("bool", "int8", "uint8")
_ANY = ALL + COMPLEX              # the stream/init ops: no kernel in Paddle's CPU wheel


def _comm(attrs, op_type):
    ring = attrs.get("ring_id", 0)
    g = world_group() if ring == 0 else get_group(ring)
    if g is None:
        raise RuntimeError(f"{op_type}: ring_id {ring} names no communication group of this "
                           "process: create it with paddle.distributed.new_group (ring ids "
                           "are group ids) on every rank first")
    if not g.is_member():
        raise RuntimeError(f"{op_type}: this rank is not a member of ring {ring} ({g.ranks})")
    return g.process_group


def _reducer(op_code, op_type):
    def kernel(ins, attrs, need):
        pg = _comm(attrs, op_type)
        a = np.array(ins[0], copy=True)
        pg.check(10, a, op_code)
        return (pg.allreduce(a, op_code),)
    return kernel


for _t, _op in (("c_allreduce_sum", _c.SUM), ("c_allreduce_max", _c.MAX),
                ("c_allreduce_min", _c.MIN), ("c_allreduce_prod", _c.PROD)):
    register_kernel(_t, dtypes=_DTYPES)(_reducer(_op, _t))


@register_kernel("c_broadcast", dtypes=_DTYPES)
def c_broadcast(ins, attrs, need):
    pg = _comm(attrs, "c_broadcast")
    root = attrs.get("root", 0)
    if not 0 <= root < pg.size:
        raise ValueError(f"c_broadcast: root {root} is not a rank of ring "
                         f"{attrs.get('ring_id', 0)} (size {pg.size})")
    a = np.array(ins[0], copy=True)
    pg.check(11, a, root)
    return (pg.bcast(a, root),)


@register_kernel("c_reduce_sum", dtypes=_DTYPES)
def c_reduce_sum(ins, attrs, need):
    pg = _comm(attrs, "c_reduce_sum")
    root = attrs.get("root_id", 0)
    a = np.array(ins[0], copy=True)
    pg.check(5, a, root)
    return (pg.reduce(a, root, _c.SUM),)


@register_kernel("c_allgather", dtypes=_GATHER_DTYPES)
def c_allgather(ins, attrs, need):
    pg = _comm(attrs, "c_allgather")
    if attrs.get("nranks") != pg.size:
        raise ValueError(f"c_allgather: attribute nranks={attrs.get('nranks')} but ring "
                         f"{attrs.get('ring_id', 0)} has {pg.size} ranks")
    a = np.ascontiguousarray(ins[0])
    pg.check(3, a)
    return (np.concatenate(pg.allgather(a), axis=0) if a.ndim else np.stack(pg.allgather(a)),)


@register_kernel("barrier", dtypes=("int32",))
def barrier(ins, attrs, need):
    pg = _comm(attrs, "barrier")
    pg.check(7)
    pg.barrier()
    return (ins[0],)


@register_kernel("c_sync_calc_stream", dtypes=_ANY)
def c_sync_calc_stream(ins, attrs, need):
    return (ins[0],)        # host kernels finish before the next op starts


@register_kernel("c_sync_comm_stream", dtypes=_ANY)
def c_sync_comm_stream(ins, attrs, need):
    return (list(ins[0]),)  # collectives complete before their op returns


@register_kernel("c_comm_init", dtypes=_ANY)
def c_comm_init(ins, attrs, need):
    pg = _comm(attrs, "c_comm_init")
    if attrs["nranks"] != pg.size or attrs["rank"] != pg.rank:
        raise RuntimeError(f"c_comm_init: the program says rank {attrs['rank']} of "
                           f"{attrs['nranks']} for ring {attrs.get('ring_id', 0)}, this process "
                           f"is rank {pg.rank} of {pg.size}")
    return ()
