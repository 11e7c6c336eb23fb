"""``paddle.DataParallel``: one replica of a layer per rank, gradients averaged.

At wrap time every rank checks that it holds the same parameters (names,
shapes, dtypes) and takes rank 0's values (and buffers).  Each forward (unless
inside ``no_sync()``) arms the reducer (``reducer.py``): the backward
all-reduces the gradients in buckets of ``comm_buffer_size`` MB as they become
final, overlapping communication with the rest of the backward, and leaves
the rank-averaged gradients in ``.grad``.  With one process it is the layer
itself (Paddle warns and runs single-card).
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..dygraph.aliases import write_data
from ..dygraph import Tensor
from ..ops import is_graph_value
from ..nn import Layer
from .env import world_group, warn_single
from .reducer import Reducer

__all__ = ["DataParallel", "sync_params_buffers"]


def _flatten(out, acc):
    if isinstance(out, Tensor):
        acc.append(out)
    elif isinstance(out, (list, tuple)):
        for o in out:
            _flatten(o, acc)
    elif isinstance(out, dict):
        for o in out.values():
            _flatten(o, acc)
    return acc


def _has_graph_value(out):
    if isinstance(out, (list, tuple)):
        return any(_has_graph_value(o) for o in out)
    if isinstance(out, dict):
        return any(_has_graph_value(o) for o in out.values())
    return is_graph_value(out)


def _entry(sig, k):
    if k >= len(sig):
        return "nothing"
    name, shape, dtype, stop = sig[k]
    return f"'{name}' {dtype}{list(shape)}{'' if stop else ' (trainable)'}"


def sync_params_buffers(model, comm_group=None, src_rank=0, is_model_parallel=False,
                        fuse_params=True):
    """Broadcast ``model``'s parameters and buffers from ``src_rank``, checking first
    that every rank holds the same ones (a clear error names the difference)."""
    g = world_group() if comm_group is None else comm_group
    if not g.is_member() or g.nranks == 1:
        return
    pg = g.process_group
    items = [(n, t) for n, t in model.state_dict().items() if isinstance(t, Tensor)]
    sig = [(n, tuple(t._data.shape), t._data.dtype.name, bool(t.stop_gradient))
           for n, t in items]          # trainable-ness decides the gradient buckets
    sigs = pg.allgather_object(sig)
    for r, other in enumerate(sigs):
        if other != sigs[0]:
            k = next((i for i, (a, b) in enumerate(zip(sigs[0], other)) if a != b),
                     min(len(other), len(sigs[0])))
            raise ValueError(
                f"DataParallel: rank {g.ranks[r]}'s layer differs from rank {g.ranks[0]}'s "
                f"({len(other)} vs {len(sigs[0])} parameters and buffers); first difference: "
                f"{_entry(other, k)} on rank {g.ranks[r]}, {_entry(sigs[0], k)} on rank "
                f"{g.ranks[0]}: every rank must build the same model")
    root = g.ranks.index(src_rank)
    for _, t in items:
        a = t._data
        res = pg.bcast(a if a.flags.writeable else a.copy(), root)
        if res is not a:
            write_data(t, res)


class DataParallel(Layer):
    """Run ``layers`` data-parallel over the ranks of ``group`` (the whole job)."""

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, group=None):
        if not isinstance(layers, Layer):
            raise TypeError(f"DataParallel wraps a paddle.nn.Layer, got {type(layers).__name__}")
        super().__init__(layers.full_name() + "_data_parallel")
        for name, v in (("comm_buffer_size", comm_buffer_size),
                        ("last_comm_buffer_size", last_comm_buffer_size)):
            if not isinstance(v, (int, float)) or v <= 0:
                raise ValueError(f"DataParallel: {name} (MB) must be a positive number, "
                                 f"got {v!r}")
        self._layers = layers
        self.find_unused_parameters = bool(find_unused_parameters)
        self.grad_need_sync = True
        self.group = world_group() if group is None else group
        self._strategy = strategy
        self.comm_buffer_size = int(comm_buffer_size * 1024 * 1024)
        self.last_comm_buffer_size = int(last_comm_buffer_size * 1024 * 1024)
        self._reducer = None
        if self.group.nranks > 1 and self.group.is_member():
            sync_params_buffers(self._layers, self.group)
            params, seen = [], set()
            for p in self._layers.parameters():
                if not p.stop_gradient and id(p) not in seen:
                    seen.add(id(p))
                    params.append(p)
            if params:
                self._reducer = Reducer(params, self.group.process_group,
                                        self.comm_buffer_size, self.last_comm_buffer_size,
                                        self.find_unused_parameters)
        elif self.group.nranks == 1:
            warn_single("DataParallel")

    @contextlib.contextmanager
    def no_sync(self):
        """Inside, backward keeps gradients local (they accumulate); the next
        synced backward averages the accumulated gradients."""
        prev = self.grad_need_sync
        self.grad_need_sync = False
        try:
            yield
        finally:
            self.grad_need_sync = prev

    def __call__(self, *inputs, **kwargs):
        # the reducer is armed here, not in forward: forward may be a to_static
        # program (``to_static(DataParallel(layer))``) whose Python runs once
        outputs = super().__call__(*inputs, **kwargs)
        if self._reducer is not None and self.grad_need_sync and self._grad_on():
            flat = _flatten(outputs, [])
            if not flat and _has_graph_value(outputs):
                raise NotImplementedError(
                    "DataParallel called inside a to_static function cannot average the "
                    "gradients of the step: apply to_static to the layer "
                    "(DataParallel(paddle.jit.to_static(layer))) or to the DataParallel "
                    "itself, and call it eagerly")
            self._reducer.prepare(flat)
        return outputs

    def forward(self, *inputs, **kwargs):
        return self._layers(*inputs, **kwargs)

    @staticmethod
    def _grad_on():
        from ..dygraph import is_grad_enabled
        return is_grad_enabled()

    def scale_loss(self, loss):
        """Paddle 2.x keeps this for old code: the loss is returned unchanged."""
        return loss

    def apply_collective_grads(self):
        """Paddle 2.x keeps this for old code: gradients are already averaged."""
        return None

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="",
                   use_hook=True):
        return self._layers.state_dict(destination, include_sublayers, structured_name_prefix,
                                       use_hook)

    def set_state_dict(self, state_dict, use_structured_name=True):
        return self._layers.set_state_dict(state_dict, use_structured_name)

    set_dict = set_state_dict
    load_dict = set_state_dict
