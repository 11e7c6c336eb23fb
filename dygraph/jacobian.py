"""``paddle.autograd.jacobian`` / ``hessian`` (eager): lazily evaluated
Jacobian objects as Paddle 2.6 builds them.

A ``Jacobian`` of ys ([N] or scalar) w.r.t. xs ([M] or scalar) has the
flattened shape [N, M] (batched, ``batch_axis=0``: ys [B, N], xs [B, M] give
[B, N, M]).  Indexing it evaluates only the rows it needs, one ``grad`` call
(with ``create_graph=True``) per row of ys, cached; any other attribute or an
arithmetic operator evaluates the whole matrix (``J[:]``).  ``hessian`` is the
Jacobian of the Jacobian.
"""
from collections.abc import Sequence

import numpy as np

from ..ops import bind, get_op
from .tape import grad as _grad
from .tensor import Tensor
from .tensor import wrap

__all__ = ["jacobian", "hessian", "Jacobian", "Hessian"]

_CONCAT = get_op("concat")


def _concat(xs, axis):
    return bind(_CONCAT, (list(xs), None), {"axis": int(axis)})[0]


def _as_tensors(xs):
    return tuple(xs) if isinstance(xs, Sequence) else xs


def _binary(fn):
    def method(self, other):
        lhs = self._evaluate_all()
        rhs = other._evaluate_all() if isinstance(other, Jacobian) else other
        return fn(lhs, rhs)
    return method


class Jacobian:
    """Jacobian of ``ys`` w.r.t. ``xs``; index it (``J[i]``, ``J[:, j]``, ``J[:]``)
    to evaluate."""

    def __init__(self, ys, xs, is_batched=False):
        if not is_batched:
            if not 0 <= len(xs.shape) <= 1:
                raise ValueError(f"xs.ndim should be 0 or 1 when is_batched=False"
                                 f" but got {len(xs.shape)}")
            if not 0 <= len(ys.shape) <= 1:
                raise ValueError(f"ys.ndim should be 0 or 1 when is_batched=False"
                                 f" but got {len(ys.shape)}")
            self._jacobian = _JacobianNoBatch(ys, xs)
        else:
            if not 1 <= len(ys.shape) <= 2:
                raise ValueError(f"ys.ndim should be 1 or 2 when is_batched=True"
                                 f" but got {len(ys.shape)}")
            if not 1 <= len(xs.shape) <= 2:
                raise ValueError(f"xs.ndim should be 1 or 2 when is_batched=True"
                                 f" but got {len(xs.shape)}")
            self._jacobian = _JacobianBatchFirst(ys, xs)

    @property
    def shape(self):
        """The shape of the flattened Jacobian matrix."""
        return self._jacobian.shape

    def __getitem__(self, indexes):
        return self._jacobian[indexes]

    def __getattr__(self, name):
        if name.startswith("__") or name == "_jacobian":
            raise AttributeError(name)
        if name == "_evaluate_all":
            return self._jacobian._evaluate_all
        return getattr(self._jacobian._evaluate_all(), name)

    __add__ = _binary(lambda a, b: a + b)
    __sub__ = _binary(lambda a, b: a - b)
    __mul__ = _binary(lambda a, b: a * b)
    __div__ = __truediv__ = _binary(lambda a, b: a / b)
    __pow__ = _binary(lambda a, b: a ** b)
    __mod__ = _binary(lambda a, b: a % b)
    __floordiv__ = _binary(lambda a, b: a // b)
    __matmul__ = _binary(lambda a, b: a @ b)
    __eq__ = _binary(lambda a, b: a == b)
    __ne__ = _binary(lambda a, b: a != b)
    __lt__ = _binary(lambda a, b: a < b)
    __le__ = _binary(lambda a, b: a <= b)
    __gt__ = _binary(lambda a, b: a > b)
    __ge__ = _binary(lambda a, b: a >= b)
    __hash__ = object.__hash__


class Hessian(Jacobian):
    pass


class _Jacobian:
    def __init__(self, ys, xs):
        self.original_xs_shape = xs.shape
        self.original_ys_shape = ys.shape
        self._xs = xs
        self._ys = ys
        if len(self._ys.shape) == 0 and not self.is_batched:
            self._ys = self._ys.reshape([-1])
        if len(self._ys.shape) == 1 and self.is_batched:
            self._ys = self._ys.reshape([-1, 1])
        self._flatten_xs = self._flatten(_as_tensors(self._xs))
        self._flatten_ys = self._flatten(_as_tensors(self._ys))
        self._cache = {}

    def _lazy_indexes(self, indexes):
        idx = indexes[self._lazy_axis]
        return (idx,) if isinstance(idx, int) else tuple(range(idx.start, idx.stop, idx.step))

    def _shifted_indexes(self, indexes, lazy_axis_size=0):
        idx = indexes[self._lazy_axis]
        shifted = 0 if isinstance(idx, int) else slice(0, lazy_axis_size, 1)
        return indexes[:self._lazy_axis] + (shifted,) + indexes[self._lazy_axis + 1:]

    def __getitem__(self, indexes):
        if self.is_batched is False:
            if len(self.shape) == 0:
                raise IndexError("0-D tensor can not be indexed.")
            elif len(self.shape) == 1:
                indexes = (0, indexes) if len(self.original_ys_shape) == 0 else (indexes, 0)
        else:
            if len(self.shape) == 1:
                indexes = (indexes, 0, 0)
            elif len(self.shape) == 2:
                if isinstance(indexes, slice):
                    indexes = (indexes, slice(None, None, None))
                else:
                    indexes = ((indexes[0], 0, indexes[1]) if len(self.original_ys_shape) == 1
                               else (indexes[0], indexes[1], 0))
        indexes = _multi_index(indexes, self.inner_shape)
        if isinstance(indexes[self._lazy_axis], int):
            other = indexes[:self._lazy_axis] + indexes[self._lazy_axis + 1:]
            return self._cached_evaluate(indexes[self._lazy_axis])[other]
        lazy_indexes = self._lazy_indexes(indexes)
        shape = list(self.inner_shape)
        shape[self._lazy_axis] = len(lazy_indexes)
        part_jac = _concat([self._cached_evaluate(i) for i in lazy_indexes],
                           axis=self._lazy_axis).reshape(shape)
        result = part_jac[self._shifted_indexes(indexes, len(lazy_indexes))]
        for _ in range(len(result.shape) - len(self.shape)):
            result = result.squeeze(-1)
        return result

    def _cached_evaluate(self, k):
        if k is None:
            return self._cached_evaluate(0).reshape([])
        v = self._cache.get(k)
        if v is None:
            v = self._evaluate(k)
            self._cache[k] = v
        return v

    def _evaluate_all(self):
        if len(self.shape) == 0:
            return self._cached_evaluate(None)
        return self[:]


class _JacobianNoBatch(_Jacobian):
    """f: R^M -> R^N; shape (N, M); rows evaluated lazily."""
    _lazy_axis = 0

    def __init__(self, ys, xs):
        self.is_batched = False
        super().__init__(ys, xs)
        self.inner_shape = [*self._flatten_ys.shape[0:1], *self._flatten_xs.shape[0:1]]
        self.shape = [*self.original_ys_shape[0:1], *self.original_xs_shape[0:1]]

    def _flatten(self, xs):
        if not isinstance(xs, Sequence):
            return xs.reshape((-1,))
        return _concat(tuple(x.reshape((-1,)) for x in xs), 0)

    def _evaluate(self, row_index):
        return self._flatten(_grad_for_jacobian(self._flatten_ys[row_index], self._xs))


class _JacobianBatchFirst(_Jacobian):
    """f: R^{B,M} -> R^{B,N}; shape (B, N, M); axis 1 evaluated lazily."""
    _lazy_axis = 1

    def __init__(self, ys, xs):
        self.is_batched = True
        super().__init__(ys, xs)
        self.inner_shape = [*self._flatten_xs.shape[0:1], *self._flatten_ys.shape[1:2],
                            *self._flatten_xs.shape[1:2]]
        self.shape = [*self._flatten_xs.shape[0:1], *self.original_ys_shape[1:2],
                      *self.original_xs_shape[1:2]]

    def _flatten(self, xs):
        if not isinstance(xs, Sequence):
            return xs.reshape((xs.shape[0], -1))
        return _concat(tuple(x.reshape((x.shape[0], -1)) for x in _as_tensors(xs)), 1)

    def _evaluate(self, row_index):
        return self._flatten(_grad_for_jacobian(self._flatten_ys[:, row_index], self._xs))


def _multi_index(indexes, shape):
    indexes = indexes if isinstance(indexes, Sequence) else (indexes,)
    if any(i is Ellipsis for i in indexes):
        raise IndexError('Ellipsis index currently is not supported.')
    indexes = indexes + (slice(0, None, None),) * (len(shape) - len(indexes))
    out = []
    for i, index in enumerate(indexes):
        if isinstance(index, slice):
            index = slice(index.start or 0, index.stop or shape[i], index.step or 1)
            out.append(slice(index.start + shape[i] if index.start < 0 else index.start,
                             index.stop + shape[i] if index.stop < 0 else index.stop,
                             index.step))
        elif isinstance(index, int):
            out.append(index + shape[i] if index < 0 else index)
        else:
            raise TypeError(f'Not supported index type {index}.')
    return tuple(out)


def jacobian(ys, xs, batch_axis=None):
    """Jacobian(s) of ``ys`` w.r.t. ``xs`` (each a Tensor or a tuple/list of
    them: a tuple of tuples for both sequences); ``batch_axis`` None or 0."""
    if batch_axis is not None and batch_axis != 0:
        raise ValueError(f"batch_axis should be None or 0, but got {batch_axis}.")
    b = batch_axis is not None
    ys_seq, xs_seq = isinstance(ys, Sequence), isinstance(xs, Sequence)
    if ys_seq and xs_seq:
        return tuple(tuple(Jacobian(y, x, b) for x in xs) for y in ys)
    if ys_seq:
        return tuple(Jacobian(y, xs, b) for y in ys)
    if xs_seq:
        return tuple(Jacobian(ys, x, b) for x in xs)
    return Jacobian(ys, xs, b)


def hessian(ys, xs, batch_axis=None):
    """Hessian(s) of a scalar ``ys`` (per sample with ``batch_axis=0``) w.r.t. ``xs``."""
    if batch_axis is None:
        if ys.size > 1:
            raise ValueError(f"Only support ys.numel()({ys.size})==1 when batch_axis is None.")
        ys = ys.reshape(())
    elif isinstance(batch_axis, int):
        if ys[0].size > 1:
            raise ValueError(f"Only support ys[0].numel()({ys.size})==1 when batch_axis is int")
        if batch_axis != 0:
            raise ValueError("Only support batch_axis=0 yet.")
        ys = ys.reshape((-1,))
    else:
        raise ValueError(f"batch_axis should be None or int, but got {type(batch_axis)}.")
    jac = jacobian(ys, xs, batch_axis)
    if not isinstance(xs, Sequence):
        h = jacobian(jac, xs, batch_axis)
        h.__class__ = Hessian
        return h
    h = tuple(jacobian(j, xs, batch_axis) for j in jac)
    for row in h:
        for e in row:
            e.__class__ = Hessian
    return h


def _zeros_for(xs, refs):
    if xs is None:
        z = wrap(np.zeros_like(refs._data))
        z.stop_gradient = refs.stop_gradient
        return z
    if isinstance(xs, Sequence):
        return tuple(_zeros_for(x, refs[i]) for i, x in enumerate(xs))
    return xs


def _grad_for_jacobian(ys, xs):
    g = _grad(ys, xs, None, create_graph=True, allow_unused=True)
    if isinstance(xs, Tensor) and isinstance(g, Sequence) and len(g) > 0:
        g = g[0]
    return _zeros_for(g, xs)
