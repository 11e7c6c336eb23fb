"""``paddle.autograd.PyLayer``: a function with a user-written forward and
backward, recorded on the tape as ONE grad node whose backward is Python
(``py_node.PyOp``).

``apply`` runs ``forward(ctx, *args, **kwargs)`` with recording off; when grad
mode is on and an input Tensor needs a gradient, one node is recorded over
the input positions (each Tensor argument, and each list/tuple of Tensors,
is one position, in call order, keyword arguments after positional ones) and
the Tensor outputs become its outputs.  The backward calls
``backward(ctx, *grads)`` (one gradient per Tensor output; missing ones are
zeros unless ``ctx.set_materialize_grads(False)``) and checks what it returns
as Paddle does: one entry per input position, None where the input stops
gradients.  Under ``create_graph=True`` the backward runs with recording on,
so its result is itself differentiable.

An output that IS an input (returned as is) is an in-place result: it moves
to the new node (``engine.rebound``), unless ``ctx.mark_not_inplace`` names
it, in which case a new Tensor over the same data is returned.
"""
from ..ops import OpError, in_static_mode, py_layer_apply
from .engine import recording, rebound
from .py_node import PyOp, record
from .tape import no_grad
from .tensor import Tensor
from .tensor import wrap

__all__ = ["PyLayer", "PyLayerContext", "once_differentiable", "saved_tensors_hooks"]

_HOOKS = []          # active (pack_hook, unpack_hook) pairs, innermost last


class saved_tensors_hooks:
    """Context manager: tensors saved with ``ctx.save_for_backward`` inside it
    are stored as ``pack_hook(tensor)`` and given back by ``saved_tensor`` as
    ``unpack_hook(packed)``.  (sampan applies the hooks to PyLayer-saved
    tensors; built-in ops keep their saved arrays as they are.)"""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _HOOKS.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _HOOKS.pop()
        return False


class PyLayerContext:
    """What ``forward`` hands to ``backward``: saved tensors, any attributes
    set on it, and the marks below."""

    def save_for_backward(self, *tensors):
        if _HOOKS:
            pack, unpack = _HOOKS[-1]
            self._unpack = unpack
            self.container = tuple(pack(t) if isinstance(t, Tensor) else t for t in tensors)
            self._packed = tuple(isinstance(t, Tensor) for t in tensors)
        else:
            self.container = tensors

    def saved_tensor(self):
        packed = getattr(self, "_packed", None)
        if packed is None:
            return self.container
        return tuple(self._unpack(c) if p else c for c, p in zip(self.container, packed))

    def mark_not_inplace(self, *args):
        self.not_inplace_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool):
        self.materialize_grads = value


class PyLayerBackward(PyLayerContext):
    """The ``ctx`` class: ``ctx.backward(*grads)`` calls the layer's backward."""
    _forward_cls = None

    def backward(self, *args):
        return self._forward_cls.backward(self, *args)


class PyLayerMeta(type):
    def __init__(cls, name, bases, attrs):
        cls._backward_function = type(name + "_backward", (PyLayerBackward,),
                                      {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


def _is(x, seq):
    return any(x is s for s in (seq or ()))


def _positions(args, kwargs):
    pos = []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor):
            pos.append(a)
        elif isinstance(a, (list, tuple)) and a and all(isinstance(x, Tensor) for x in a):
            pos.append(list(a))
    return pos


def _needs_grad(p):
    return any(not x.stop_gradient for x in p) if type(p) is list else not p.stop_gradient


class PyLayer(PyLayerContext, metaclass=PyLayerMeta):
    """Subclass with static ``forward(ctx, ...)`` and ``backward(ctx, *grads)``;
    call ``apply``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for PyLayer.")

    @staticmethod
    def backward(ctx, *args):
        raise NotImplementedError("You must implement the backward function for PyLayer.")

    @classmethod
    def apply(cls, *args, **kwargs):
        if in_static_mode():            # to_static / static mode: a pylayer op
            return py_layer_apply(cls, args, kwargs)
        ctx = cls._backward_function()
        positions = _positions(args, kwargs)
        with no_grad():
            outs = cls.forward(ctx, *args, **kwargs)
        if not recording() or not any(_needs_grad(p) for p in positions):
            return outs
        single = not isinstance(outs, (tuple, list))
        out_list = [outs] if single else list(outs)
        slots = [i for i, o in enumerate(out_list) if isinstance(o, Tensor)]
        if not slots:
            return outs
        name = f"PyLayer_{cls.__name__}"
        metas = [(out_list[i]._data.shape, out_list[i]._data.dtype) for i in slots]
        op = PyOp(name, len(slots), _array_backward(ctx, name, positions, metas),
                  _graph_backward(ctx, name, positions, metas))
        node = record(op, positions, None, [out_list[i]._data for i in slots])
        flat_in = [x for p in positions for x in (p if type(p) is list else (p,))]
        nd = getattr(ctx, "non_differentiable", None)
        not_inplace = getattr(ctx, "not_inplace_tensors", None)
        for k, i in enumerate(slots):
            o = out_list[i]
            if _is(o, nd):
                if _is(o, flat_in):
                    out_list[i] = wrap(o._data)
                else:
                    o._node, o.stop_gradient = None, True
                continue
            if _is(o, flat_in):
                if _is(o, not_inplace) or (o._node is None and not o.stop_gradient):
                    out_list[i] = wrap(o._data, False, node, k)
                else:
                    rebound(o, node, k, False)
            else:
                o._node, o._slot, o.stop_gradient = node, k, False
        if single:
            return out_list[0]
        return type(outs)(out_list) if isinstance(outs, tuple) else out_list


def _zeros(meta, as_tensor):
    import numpy as np
    a = np.zeros(meta[0], meta[1])
    return wrap(a) if as_tensor else a


def _check(name, positions, res, graph):
    """Paddle's checks on what ``backward`` returned; one gradient (array, or
    Tensor when ``graph``) or None per input position."""
    res = list(res) if isinstance(res, (tuple, list)) else [res]
    if len(res) != len(positions):
        raise ValueError(f"The number of outputs of `PyLayer.backward` should be "
                         f"{len(positions)}, but received {len(res)}.")
    out = []
    for i, (p, g) in enumerate(zip(positions, res)):
        if g is None:
            out.append(None)
            continue
        if not _needs_grad(p):
            raise ValueError(f"{name}'s backward function should return None at {i} position, "
                             f"because it's forward Tensor's stopgradient is true.")
        if type(p) is list:
            if not isinstance(g, (list, tuple)) or len(g) != len(p):
                raise ValueError(f"{name}'s backward should return a list of {len(p)} "
                                 f"gradients at {i} position")
            out.append([None if x is None else x if graph else x._data for x in g])
        else:
            if not isinstance(g, Tensor):
                raise OpError(f"{name}'s backward returned {type(g).__name__} at {i} "
                              f"position; expected a Tensor or None")
            if list(g._data.shape) != list(p._data.shape):
                raise ValueError(f"{name}'s backward returned a gradient of shape "
                                 f"{list(g._data.shape)} at {i} position for an input of "
                                 f"shape {list(p._data.shape)}")
            out.append(g if graph else g._data)
    return out


def _grads_in(ctx, gouts, metas, as_tensor):
    mat = getattr(ctx, "materialize_grads", True)
    return [(g if as_tensor else wrap(g)) if g is not None else
            (_zeros(m, True) if mat else None) for g, m in zip(gouts, metas)]


def _array_backward(ctx, name, positions, metas):
    def backward(node, gouts):
        with no_grad():
            res = ctx.backward(*_grads_in(ctx, gouts, metas, False))
        return _check(name, positions, res, False)
    return backward


def _graph_backward(ctx, name, positions, metas):
    def backward(node, gouts, wanted):
        return _check(name, positions, ctx.backward(*_grads_in(ctx, gouts, metas, True)),
                      True)
    return backward


def once_differentiable(backward):
    """Decorator for a PyLayer's backward: it runs with recording off."""
    def wrapper(ctx, *args):
        with no_grad():
            return backward(ctx, *args)
    return wrapper
