"""The eager ``Tensor``: an array plus stop_gradient, grad and its place on the tape.

Operators and most methods (``+``, ``reshape``, ``sum`` ...) are installed by
``sampan.tensor.methods`` from the public op functions, so a method and its
function are one definition.  This module holds only what is the Tensor's
own: data access, autograd bookkeeping and identity.
"""
from __future__ import annotations

import itertools

import numpy as np

from ..ops import is_graph_value, update
from ..ops.dtypes import public_dtype, to_np_dtype
from ..kernels.transform import backend_of, to_backend
from ..kernels.place import backend_of_place, place_of_array
from .printing import to_string
from .lazy import Unallocated

_names = itertools.count()
_new = object.__new__


def _fill(t, data, stop_gradient, node, slot, name):
    t._data = data
    t.stop_gradient = stop_gradient
    t._node = node
    t._slot = slot
    t._grad = None
    t._name = name
    t._hooks = None
    t.persistable = False
    t._history = None     # autograd positions before in-place writes (engine.rebound)
    t._alias = None       # (group, path) when it shares storage (dygraph/aliases.py)


class Tensor:
    """A value on a place, optionally recorded on the autograd tape.

    ``_node``/``_slot``: the grad node that produced it and which output it is
    (None for leaves).  ``stop_gradient`` follows Paddle: True for plain
    tensors, False for parameters and for results of ops on tensors that need
    gradients.
    """
    __slots__ = ("_data", "stop_gradient", "_node", "_slot", "_grad", "_name",
                 "_hooks", "persistable", "_version", "_history", "_alias", "__weakref__")

    def __new__(cls, value=None, *args, stop_gradient=True, **kwargs):
        if is_graph_value(value):
            # a static Variable (code traced by to_static): a variable over its value,
            # out of autograd, as the eager form shares a tensor's storage
            out = value.detach()
            out.stop_gradient = bool(stop_gradient)
            return out
        return _new(cls)

    def __init__(self, value=None, place=None, persistable=False, zero_copy=False,
                 name=None, stop_gradient=True, dims=None, dtype=None, type=None):
        """Paddle's public constructor (sampan's own code builds tensors with ``wrap``).

        ``Tensor(ndarray)`` holds a copy of the array (``zero_copy=True``: the
        array itself), ``Tensor(tensor)`` shares the tensor's values as a new
        leaf, ``Tensor()`` is an empty float32 ``[0]``, and the legacy positional
        form ``Tensor(dtype, dims, name, type, persistable)`` an uninitialized
        tensor.  Anything else is a ValueError, as in Paddle 2.6.
        """
        if isinstance(place, (list, tuple)) or dims is not None:
            if dims is None:     # positional (dtype, dims, name, type, persistable)
                dims, name, persistable = (place, persistable if isinstance(persistable, str)
                                           else None, name is True)
            data = Unallocated(list(dims), to_np_dtype(value if dtype is None else dtype),
                               name or "", why="was created without a value")
            place = None
        elif value is None:
            data = np.zeros([0], np.float32)
        elif isinstance(value, Tensor):
            data = value._data
        elif isinstance(value, np.ndarray) or backend_of(value) == "GPU":
            data = value if zero_copy else value.copy()
        else:
            raise ValueError(
                "paddle.Tensor(value): value must be a numpy array or a Tensor, got "
                f"{value.__class__.__name__}; use paddle.to_tensor for lists and Python numbers")
        backend = backend_of_place(place)
        if backend is not None and backend_of(data) != backend:
            data = to_backend(data, backend)
        _fill(self, data, bool(stop_gradient), None, 0, name)
        self.persistable = bool(persistable)
        if isinstance(value, Tensor) and data is value._data:
            _aliases.link(value, self, _aliases.DETACH)     # shares value's storage

    # ------------------------------------------------------------- data
    @property
    def dtype(self):
        return public_dtype(self._data.dtype)

    @property
    def shape(self):
        return list(self._data.shape)

    @property
    def place(self):
        return place_of_array(self._data)

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    @property
    def size(self):
        return int(self._data.size)

    def numpy(self):
        """The value as a new numpy array: writing it leaves the tensor alone (Paddle's
        ``numpy()`` copies too)."""
        a = self._data
        return np.array(a) if backend_of(a) == "CPU" else to_backend(a, "CPU")

    def _host(self):
        """The value on the host without a copy where it is there already: sampan's
        own readers (saving, checking), which never write it."""
        a = self._data
        return a if backend_of(a) == "CPU" else to_backend(a, "CPU")

    # numpy's operators defer to the tensor's (``np_array * t`` is t.__rmul__: a
    # tensor, on the tape) and its ufuncs refuse tensors, as with Paddle
    __array_ufunc__ = None

    def __array__(self, dtype=None, copy=None):
        # a copy, as numpy() (np.asarray(tensor) in Paddle copies); none when the
        # caller asks for none (numpy 2's copy=False) and the dtype allows it
        a = self._host() if copy is False else self.numpy()
        return a.astype(dtype, copy=False) if dtype is not None else a

    def item(self, *args):
        return self._host().item(*args)         # a Python number: no array copy needed

    def tolist(self):
        return self._host().tolist()

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-D tensor")
        return self._data.shape[0]

    def __bool__(self):
        if self._data.size != 1:
            raise ValueError(f"the truth value of a tensor with {self._data.size} elements "
                             "is ambiguous; use .any() or .all()")
        # Paddle 2.6's eager truth value is ``value > 0`` (so a negative number is False);
        # a real numpy value compares as a Python number (10x faster than a 0-d array)
        a = self._data
        if type(a) is np.ndarray and a.dtype.kind != "c":
            return a.item() > 0
        return bool(a.reshape(()) > 0)

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iub":
            raise TypeError(f"only integer tensors can be used as an index, got {self.dtype}")
        return int(self.item())

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __hash__(self):
        return id(self)

    def __repr__(self):
        return to_string(self)       # Paddle's format (printing.py)

    __str__ = __repr__

    # ------------------------------------------------------------- identity
    @property
    def name(self):
        if self._name is None:
            self._name = f"generated_tensor_{next(_names)}"
        return self._name

    @name.setter
    def name(self, value):
        self._name = value

    @property
    def is_leaf(self):
        return self._node is None

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value):
        self._grad = value

    @property
    def gradient_fn(self):
        return self._node

    def gradient(self):
        """The gradient as a numpy array (Paddle's ``Tensor.gradient()``)."""
        return None if self._grad is None else self._grad.numpy()

    def clear_gradient(self, set_to_zero=True):
        g = self._grad
        if g is None:
            return
        if set_to_zero:
            # zeroed where it is, as Paddle's: a caller holding the gradient sees
            # zeros; the next backward puts a new tensor in .grad (``is_cleared``)
            d = g._data
            z = _shared_zeros(d.shape, d.dtype) if type(d) is np.ndarray else np.zeros_like(d)
            if g._node is None and getattr(g, "_alias", None) is None:
                g._data = z
            else:               # a create_graph gradient, or one with views
                self._grad = wrap(z, False)
        else:
            self._grad = None

    def clear_grad(self, set_to_zero=True):
        self.clear_gradient(set_to_zero)

    def set_value(self, value):
        """Replace the values (Paddle's ``Tensor.set_value``): same shape and dtype
        required; the new values are copied.  Inside a to_static function ``value``
        may be a static Variable: the program then writes this tensor (which it
        binds) with an ``assign``, at every call, as the eager write would."""
        if is_graph_value(value):
            if value.np_dtype != self._data.dtype or len(value.shape) != self._data.ndim or any(
                    a >= 0 and a != b for a, b in zip(value.shape, self._data.shape)):
                raise ValueError(f"set_value on {self.name}: the value {value.name} has shape "
                                 f"{list(value.shape)} and dtype {value.np_dtype}, the tensor "
                                 f"{list(self._data.shape)} and {self._data.dtype}")
            update("assign", {"X": value}, self)
            return
        arr = value._data if isinstance(value, Tensor) else np.asarray(value)
        if tuple(arr.shape) != tuple(self._data.shape):
            raise ValueError(f"set_value on {self.name}: shape {list(arr.shape)} does not "
                             f"match the tensor's shape {list(self._data.shape)}")
        if arr.dtype != self._data.dtype:
            raise ValueError(f"set_value on {self.name}: dtype {arr.dtype} does not match "
                             f"the tensor's dtype {self._data.dtype}")
        _aliases.write_data(self, to_backend(arr, backend_of(self._data)).copy())

    def detach(self):
        """A tensor over the same storage, out of autograd (a write into either is
        seen by the other, as in Paddle)."""
        return _aliases.link(self, wrap(self._data, True), _aliases.DETACH)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned
        tensor replaces the gradient.  Returns a handle with ``remove()``."""
        if self.stop_gradient:
            raise RuntimeError("cannot register a hook on a tensor with stop_gradient=True")
        if self._node is None:
            if self._hooks is None:
                self._hooks = []
            hooks = self._hooks
        else:
            hooks = self._node.output_hooks(self._slot)
        hooks.append(hook)
        return _HookHandle(hooks, hook)

    def retain_grads(self):
        """Keep the gradient of a non-leaf tensor in ``.grad`` after backward."""
        if self._node is None or getattr(self, "_retaining", False):
            return

        def keep(g, t=self):
            t._grad = g if t._grad is None else wrap(t._grad._data + g._data, False)
        self.register_hook(keep)

    def backward(self, grad_tensor=None, retain_graph=False):
        from .tape import backward
        backward([self], [grad_tensor], retain_graph)

    # ------------------------------------------------------------- placement
    def cpu(self):
        return wrap(to_backend(self._data, "CPU"), self.stop_gradient)

    def cuda(self, device_id=None, blocking=True):
        return wrap(to_backend(self._data, "GPU"), self.stop_gradient)

    def _is_initialized(self):
        return self._data is not None and not isinstance(self._data, Unallocated)

    @property
    def inplace_version(self):
        """How many in-place writes this tensor has had (Paddle's counter)."""
        return getattr(self, "_version", 0)

    def _bump_inplace_version(self):
        self._version = getattr(self, "_version", 0) + 1

    def _write_shared(self, data):
        """Take ``data`` as this tensor's values where its views must see them
        (layers that write ``_data`` directly call this when ``_alias`` is set)."""
        _aliases.write_data(self, data)


def wrap(data, stop_gradient=True, node=None, slot=0, name=None, cls=Tensor):
    """sampan's own constructor: a tensor over ``data`` as it is (no copy, no
    checks), output ``slot`` of grad ``node`` when it is recorded.  Every op
    result is built here, so it is on the hot path: the fields of ``_fill``
    are set inline (a call less, 15% of the constructor).  Paddle's public
    ``Tensor(...)`` copies and checks; see ``Tensor.__init__``."""
    t = _new(cls)
    t._data = data
    t.stop_gradient = stop_gradient
    t._node = node
    t._slot = slot
    t._grad = None
    t._name = name
    t._hooks = None
    t.persistable = False
    t._history = None
    return t            # (``_alias`` stays unset: read with getattr, as ``_version``)


_ZEROS = {}         # (shape, dtype) -> one read-only zero array


def is_cleared(grad):
    """Whether ``grad`` holds a gradient cleared with set_to_zero (one of the
    shared zero arrays, which no write reaches): the next accumulation
    replaces it instead of adding to it (same result, no add)."""
    d = grad._data
    return _ZEROS.get((d.shape, d.dtype)) is d


def _shared_zeros(shape, dtype):
    """A read-only zero array of ``shape``/``dtype``, one per pair: what a
    cleared gradient holds (sampan rebinds a tensor's array on every write, so
    no write reaches it; an array of its own cost an allocation and a release
    per parameter and step: 6 us at 256 x 256).  Its pages are calloc's, mapped
    only where read."""
    key = (shape, dtype)
    z = _ZEROS.get(key)
    if z is None:
        if len(_ZEROS) >= 1024:
            _ZEROS.clear()
        z = np.zeros(shape, dtype)
        z.flags.writeable = False
        _ZEROS[key] = z
    return z


class _HookHandle:
    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


class Parameter(Tensor):
    """A trainable tensor owned by a Layer (Paddle's EagerParamBase)."""
    __slots__ = ("optimize_attr", "regularizer", "need_clip",
                 "is_distributed", "do_model_average", "__dict__")

    def __init__(self, data, name=None, trainable=True, learning_rate=1.0,
                 regularizer=None, need_clip=True):
        _fill(self, data, not trainable, None, 0, name)
        self.persistable = True
        self.trainable = trainable
        self.optimize_attr = {"learning_rate": learning_rate}
        self.regularizer = regularizer
        self.need_clip = need_clip
        self.is_distributed = False
        self.do_model_average = None

    @property
    def trainable(self):
        """Paddle: a parameter is trainable exactly when it does not stop gradients."""
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, value):
        self.stop_gradient = not value

    def set_init_func(self, fn):
        """Defer this parameter's initialization (``paddle.LazyGuard``): ``fn(param,
        None)`` fills it when ``initialize()`` is called."""
        self._init_func = fn

    def initialize(self):
        """Run the initialization deferred under ``paddle.LazyGuard`` (once)."""
        fn = getattr(self, "_init_func", None)
        if fn is None:
            raise AssertionError("Required self._init_func is not None, but received None.")
        fn(self, None)
        self._init_func = None

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


from . import aliases as _aliases   # noqa: E402  (it builds on Tensor and wrap above)
