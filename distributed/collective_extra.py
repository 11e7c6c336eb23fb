"""More of Paddle's collectives on eager Tensors: ``gather``, ``alltoall``,
``alltoall_single``, ``reduce_scatter`` (signatures of Paddle 2.6.2; ranks are
global ranks; results land in the given tensors)."""
from __future__ import annotations

import numpy as np

from ..dygraph.tensor import wrap
from .collective import (ReduceOp, _Task, _array, _group, _in_group, _op, _store,  # noqa: F401
                         _tensor)

__all__ = ["gather", "alltoall", "alltoall_single", "reduce_scatter"]


def _list(xs, fn, what):
    if not isinstance(xs, list):
        raise TypeError(f"{fn}: {what} must be a list, got {type(xs).__name__}")
    for t in xs:
        _tensor(t, fn, f"each element of {what}")
    return xs


def _fill(out_list, arrays, fn):
    if not out_list:
        out_list.extend(wrap(a) for a in arrays)
    elif len(out_list) == len(arrays):
        for t, a in zip(out_list, arrays):
            _store(_tensor(t, fn, "each output tensor"), a)
    else:
        raise ValueError(f"{fn}: the output list holds {len(out_list)} tensors; give an empty "
                         f"list or one of {len(arrays)} (one per rank)")


def gather(tensor, gather_list=None, dst=0, group=None, sync_op=True):
    """Every rank's ``tensor`` into rank ``dst``'s ``gather_list``."""
    g = _group(group, "gather")
    _tensor(tensor, "gather")
    if not g.is_member():
        return None
    root = _in_group(g, dst, "gather", "dst")
    a = _array(tensor)
    g.process_group.check(12, a, int(dst))
    parts = g.process_group.gather(a, root)
    if g.rank == root:
        _fill(_list(gather_list if gather_list is not None else [], "gather", "gather_list"),
              parts, "gather")
    return _Task()


def alltoall(in_tensor_list, out_tensor_list, group=None, sync_op=True):
    """Rank i's ``in_tensor_list[j]`` becomes rank j's ``out_tensor_list[i]``."""
    g = _group(group, "alltoall")
    _list(in_tensor_list, "alltoall", "in_tensor_list")
    _list(out_tensor_list, "alltoall", "out_tensor_list")
    if not g.is_member():
        return None
    n = g.nranks
    if len(in_tensor_list) != n:
        raise ValueError(f"alltoall: in_tensor_list holds {len(in_tensor_list)} tensors, the "
                         f"group has {n} ranks")
    arrs = [_array(t) for t in in_tensor_list]
    if any(x.shape != arrs[0].shape or x.dtype != arrs[0].dtype for x in arrs):
        raise ValueError("alltoall: the tensors of in_tensor_list must share shape and dtype, "
                         f"got {[f'{x.dtype}{list(x.shape)}' for x in arrs]}")
    g.process_group.check(13, arrs[0])
    size = arrs[0].size
    flat = g.process_group.alltoallv(np.concatenate([x.ravel() for x in arrs]), [size] * n,
                                     [size] * n, arrs[0].dtype)
    _fill(out_tensor_list, [flat[i * size:(i + 1) * size].reshape(arrs[0].shape)
                            for i in range(n)], "alltoall")
    return _Task()


def _splits(sizes, total, n, fn, what):
    if sizes is None:
        if total % n:
            raise ValueError(f"{fn}: dim 0 of {what} ({total}) does not divide by the {n} "
                             f"ranks; give {what[:-7]}_split_sizes")
        return [total // n] * n
    sizes = list(sizes)
    if len(sizes) != n or sum(sizes) != total or any(s < 0 for s in sizes):
        raise ValueError(f"{fn}: {what[:-7]}_split_sizes {sizes} must be {n} non-negative "
                         f"sizes adding up to dim 0 of {what} ({total})")
    return sizes


def alltoall_single(in_tensor, out_tensor, in_split_sizes=None, out_split_sizes=None,
                    group=None, sync_op=True):
    """Rows of ``in_tensor`` split by ``in_split_sizes`` go to the ranks in order;
    ``out_tensor`` receives theirs, by ``out_split_sizes``."""
    g = _group(group, "alltoall_single")
    _tensor(in_tensor, "alltoall_single", "in_tensor")
    _tensor(out_tensor, "alltoall_single", "out_tensor")
    if not g.is_member():
        return None
    n = g.nranks
    a, o = _array(in_tensor), _array(out_tensor)
    if a.dtype != o.dtype or a.shape[1:] != o.shape[1:]:
        raise ValueError(f"alltoall_single: in_tensor {a.dtype}{list(a.shape)} and out_tensor "
                         f"{o.dtype}{list(o.shape)} must share dtype and trailing dims")
    ins = _splits(in_split_sizes, a.shape[0], n, "alltoall_single", "in_tensor")
    outs = _splits(out_split_sizes, o.shape[0], n, "alltoall_single", "out_tensor")
    row = int(np.prod(a.shape[1:], dtype=np.int64))
    g.process_group.check(13, a[:0])
    flat = g.process_group.alltoallv(a.ravel(), [s * row for s in ins], [s * row for s in outs],
                                     a.dtype)
    _store(out_tensor, flat.reshape(o.shape))
    return _Task()


def reduce_scatter(tensor, tensor_list, op=ReduceOp.SUM, group=None, sync_op=True):
    """Reduce ``tensor_list`` element-wise over the ranks; rank i gets element i."""
    g = _group(group, "reduce_scatter")
    _tensor(tensor, "reduce_scatter")
    _list(tensor_list, "reduce_scatter", "tensor_list")
    op = _op(op, "reduce_scatter")
    if not g.is_member():
        return None
    if len(tensor_list) != g.nranks:
        raise ValueError(f"reduce_scatter: tensor_list holds {len(tensor_list)} tensors, the "
                         f"group has {g.nranks} ranks")
    a = _array(tensor)
    arrs = [_array(t) for t in tensor_list]
    for i, x in enumerate(arrs):
        if x.shape != a.shape or x.dtype != a.dtype:
            raise ValueError(f"reduce_scatter: tensor_list[{i}] is {x.dtype}{list(x.shape)}, "
                             f"the output tensor {a.dtype}{list(a.shape)}")
    g.process_group.check(14, a, op)
    _store(tensor, g.process_group.reduce_scatter(np.stack(arrs), op))
    return _Task()
