"""Paddle's collective ops of static programs (``c_allreduce_*``, ``c_broadcast``,
``c_allgather``, ``c_reduce_sum``, ``barrier``, the stream syncs and
``c_comm_init``), with the slots and attributes of Paddle 2.6.2's CPU wheel.
Their kernels run over sampan.distributed's communicator of ring ``ring_id``
(``distributed/static_ops.py``).  All are ``side_effect``: the executor keeps
their program order, which every rank must share."""
from ..declare import defop, REQUIRED
from ..registry import GradOp, Meta

_RING = (("ring_id", "INT", 0), ("use_calc_stream", "BOOLEAN", False))


def _same(metas, attrs):
    return (metas[0],)


defop("c_allreduce_sum", ("X", "Cond?"), "Out",
      _RING + (("use_model_parallel", "BOOLEAN", False),), infer=_same,
      grad=GradOp("c_allreduce_sum", {"X": "Out@GRAD"}, {"Out": "X@GRAD"}),
      side_effect=True, inplace={"Out": "X"})
for _t in ("c_allreduce_max", "c_allreduce_min", "c_allreduce_prod"):
    defop(_t, "X", "Out", _RING + (("use_model_parallel", "BOOLEAN", False),), infer=_same,
          side_effect=True, inplace={"Out": "X"})
defop("c_broadcast", "X", "Out", (("ring_id", "INT", 0), ("root", "INT", 0),
                                  ("use_calc_stream", "BOOLEAN", False)),
      infer=_same, side_effect=True, inplace={"Out": "X"})
defop("c_reduce_sum", "X", "Out", (("ring_id", "INT", 0), ("root_id", "INT", 0),
                                   ("use_calc_stream", "BOOLEAN", False)),
      infer=_same, side_effect=True, inplace={"Out": "X"})


def _gather_meta(metas, attrs):
    m = metas[0]
    if m is None:
        return (None,)
    n = attrs.get("nranks", 1)
    shape = list(m.shape)
    if shape:
        shape[0] = shape[0] * n if shape[0] >= 0 else -1
    return (Meta(tuple(shape), m.dtype),)


defop("c_allgather", "X", "Out", _RING + (("nranks", "INT", REQUIRED),), infer=_gather_meta,
      side_effect=True)
defop("barrier", "X", "Out", (("ring_id", "INT", 0),), infer=_same, side_effect=True,
      inplace={"Out": "X"})
# the device streams: a host program computes and communicates in one stream
defop("c_sync_calc_stream", "X", "Out", (), infer=_same, side_effect=True, inplace={"Out": "X"})
defop("c_sync_comm_stream", "X*", "Out*", (("ring_id", "INT", 0),),
      infer=lambda metas, attrs: (metas[0],), side_effect=True)
defop("c_comm_init", "X", (), (("nranks", "INT", REQUIRED), ("rank", "INT", REQUIRED),
                               ("device_id", "INT", -1), ("ring_id", "INT", 0),
                               ("endpoints", "STRING", "")),
      infer=lambda metas, attrs: (), side_effect=True)
