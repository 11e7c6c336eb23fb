"""Batching samples, and the flat form a batch travels in.

``default_collate_fn`` (automatic batching) zips a list of samples field by
field: numpy arrays are stacked (``np.stack``), Tensors stacked
(``paddle.stack``), numbers become one numpy array (so Python ints give int64,
floats float64, bools bool, numpy scalars keep their dtype), strings and bytes
stay a list, dicts become a dict of batches, lists and tuples a list of
batches.  ``default_convert_fn`` (``batch_size=None``) only turns tuples into
lists.

``flatten_batch`` takes the arrays and Tensors out of a collated batch, in
order, and leaves a structure with placeholders; ``restore_batch`` puts
values (Tensors in the main process) back.  Numbers and strings left in the
structure (from a custom ``collate_fn``) come back as they were, as Paddle's
DataLoader gives them.
"""
import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from ..dygraph import Tensor
from ..tensor import stack

__all__ = ["default_collate_fn", "default_convert_fn"]


def default_collate_fn(batch):
    sample = batch[0]
    if isinstance(sample, np.ndarray):
        return np.stack(batch, axis=0)
    if isinstance(sample, Tensor):
        return stack(batch, axis=0)
    if isinstance(sample, numbers.Number):
        return np.array(batch)
    if isinstance(sample, (str, bytes)):
        return batch
    if isinstance(sample, Mapping):
        return {key: default_collate_fn([d[key] for d in batch]) for key in sample}
    if isinstance(sample, Sequence):
        n = len(sample)
        if not all(len(s) == n for s in batch):
            raise RuntimeError("fileds number not same among samples in a batch")
        return [default_collate_fn(list(fields)) for fields in zip(*batch)]
    raise TypeError("batch data con only contains: tensor, numpy.ndarray, dict, list, number, "
                    f"but got {type(sample)}")


def default_convert_fn(batch):
    if isinstance(batch, (Tensor, np.ndarray, str, bytes)):
        return batch
    if isinstance(batch, Mapping):
        return {key: default_convert_fn(batch[key]) for key in batch}
    if isinstance(batch, Sequence):
        return [default_convert_fn(d) for d in batch]
    return batch


class Slot:
    """Placeholder in a flattened structure: the position of a value in the flat list."""
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __reduce__(self):
        return (Slot, (self.index,))


def _is_value(x):
    return isinstance(x, (np.ndarray, Tensor))


def _flatten(node, flat):
    if _is_value(node):
        flat.append(node)
        return Slot(len(flat) - 1)
    if isinstance(node, (str, bytes, numbers.Number)):
        return node
    if isinstance(node, Mapping):
        return {k: _flatten(v, flat) for k, v in node.items()}
    if isinstance(node, Sequence):
        return [_flatten(v, flat) for v in node]
    return node


def flatten_batch(batch, to_numpy=False):
    """(flat list of arrays/Tensors, structure).  Sequences become lists, as
    in Paddle; ``to_numpy`` turns Tensors into numpy arrays (for a pipe)."""
    flat = []
    structure = _flatten(batch, flat)
    if to_numpy:
        flat = [v.numpy() if isinstance(v, Tensor) else v for v in flat]
    return flat, structure


def restore_batch(flat, structure):
    """``structure`` with each placeholder replaced by its value in ``flat``."""
    if isinstance(structure, Slot):
        return flat[structure.index]
    if isinstance(structure, dict):
        return {k: restore_batch(flat, v) for k, v in structure.items()}
    if isinstance(structure, list):
        return [restore_batch(flat, v) for v in structure]
    return structure
