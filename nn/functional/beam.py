"""``paddle.nn.functional.gather_tree``: the backtrace of beam search over the
``gather_tree`` op (no gradient)."""
from ...ops import bind, get_op

__all__ = ["gather_tree"]

_GATHER_TREE = get_op("gather_tree")


def gather_tree(ids, parents):
    """Full beam sequences from the per-step ids and parent beams ([max_time,
    batch_size, beam_size], int32 or int64): walks from the last step back
    through the parents."""
    if ids.ndim != 3:
        raise ValueError(f"The input ids must be a 3D tensor with shape "
                         f"[length, batch_size, beam_size], got shape {list(ids.shape)}")
    if ids.ndim != parents.ndim:
        raise ValueError("The ids's shape must be the same as parents' shape. ")
    return bind(_GATHER_TREE, (ids, parents))[0]
