"""The transforms that combine transforms or act on whole events: a chain of
transforms, a transform made to treat rightmost axes as one event
(``IndependentTransform``), reshaping events, stacking transforms along an
axis, and the stick-breaking map onto the simplex (the base class and the
elementwise transforms: transforms.py).
"""
import math
import typing

from .. import tensor as T
from .distribution import sum_rightmost
from .transforms import Transform, Type, _Independent, _Stack, _Variable, _real

__all__ = ["ChainTransform", "IndependentTransform", "ReshapeTransform", "StackTransform",
           "StickBreakingTransform"]


class ChainTransform(Transform):
    """The composition of ``transforms``, the first applied first."""

    def __init__(self, transforms):
        if not isinstance(transforms, typing.Sequence):
            raise TypeError(f"Expected type of 'transforms' is Sequence, but got "
                            f"{type(transforms)}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("All elements of transforms should be Transform type.")
        self.transforms = transforms
        super().__init__()

    def _is_injective(self):
        return all(t._is_injective() for t in self.transforms)

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        value = 0.0
        event_rank = self._domain.event_rank
        for t in self.transforms:
            value = value + sum_rightmost(t.forward_log_det_jacobian(x),
                                          event_rank - t._domain.event_rank)
            x = t.forward(x)
            event_rank += t._codomain.event_rank - t._domain.event_rank
        return value

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in self.transforms:
            shape = t.inverse_shape(shape)
        return shape

    def _sum_rightmost(self, value, n):
        return sum_rightmost(value, n)

    @property
    def _domain(self):
        domain = self.transforms[0]._domain
        rank = self.transforms[-1]._codomain.event_rank
        for t in reversed(self.transforms):
            rank -= t._codomain.event_rank - t._domain.event_rank
            rank = max(rank, t._domain.event_rank)
        return _Independent(domain, rank - domain.event_rank)

    @property
    def _codomain(self):
        codomain = self.transforms[-1]._codomain
        rank = self.transforms[0]._domain.event_rank
        for t in self.transforms:
            rank += t._codomain.event_rank - t._domain.event_rank
            rank = max(rank, t._codomain.event_rank)
        return _Independent(codomain, rank - codomain.event_rank)


class IndependentTransform(Transform):
    """``base`` with its ``reinterpreted_batch_rank`` rightmost batch axes
    read as event axes: the log-det-Jacobian is summed over them."""

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Transform):
            raise TypeError(f"Expected 'base' is Transform type, but get {type(base)}")
        if reinterpreted_batch_rank <= 0:
            raise ValueError(f"Expected 'reinterpreted_batch_rank' is grater than zero, but got "
                             f"{reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__()

    def _is_injective(self):
        return self._base._is_injective()

    def _forward(self, x):
        if x.dim() < self._domain.event_rank:
            raise ValueError("Input dimensions is less than event dimensions.")
        return self._base.forward(x)

    def _inverse(self, y):
        if y.dim() < self._codomain.event_rank:
            raise ValueError("Input dimensions is less than event dimensions.")
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return self._base.forward_log_det_jacobian(x).sum(
            list(range(-self._reinterpreted_batch_rank, 0)))

    def _forward_shape(self, shape):
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self._base.inverse_shape(shape)

    @property
    def _domain(self):
        return _Independent(self._base._domain, self._reinterpreted_batch_rank)

    @property
    def _codomain(self):
        return _Independent(self._base._codomain, self._reinterpreted_batch_rank)


class ReshapeTransform(Transform):
    """Reshape the event part of a tensor from ``in_event_shape`` to
    ``out_event_shape`` (same number of elements); log-det-Jacobian 0."""
    _type = Type.BIJECTION

    def __init__(self, in_event_shape, out_event_shape):
        if not isinstance(in_event_shape, typing.Sequence) or \
                not isinstance(out_event_shape, typing.Sequence):
            raise TypeError(f"Expected type of 'in_event_shape' and 'out_event_shape' is "
                            f"Squence[int], but got 'in_event_shape': {in_event_shape}, "
                            f"'out_event_shape': {out_event_shape}")
        in_size = math.prod(in_event_shape)
        out_size = math.prod(out_event_shape)
        if in_size != out_size:
            raise ValueError(f"The numel of 'in_event_shape' should be 'out_event_shape', "
                             f"but got {in_size}!={out_size}")
        self._in_event_shape = tuple(in_event_shape)
        self._out_event_shape = tuple(out_event_shape)
        super().__init__()

    @property
    def in_event_shape(self):
        return self._in_event_shape

    @property
    def out_event_shape(self):
        return self._out_event_shape

    @property
    def _domain(self):
        return _Independent(_real, len(self._in_event_shape))

    @property
    def _codomain(self):
        return _Independent(_real, len(self._out_event_shape))

    def _forward(self, x):
        batch = tuple(x.shape)[:x.dim() - len(self._in_event_shape)]
        return x.reshape(list(batch + self._out_event_shape))

    def _inverse(self, y):
        batch = tuple(y.shape)[:y.dim() - len(self._out_event_shape)]
        return y.reshape(list(batch + self._in_event_shape))

    @staticmethod
    def _swap(shape, old, new, what):
        if len(shape) < len(old):
            raise ValueError(f"Expected {what} is not less than {len(old)}, but got {len(shape)}")
        if tuple(shape[-len(old):]) != tuple(old):
            raise ValueError(f"Event shape mismatch, expected: {old}, but got "
                             f"{shape[-len(old):]}")
        return tuple(shape[:-len(old)]) + new

    def _forward_shape(self, shape):
        return self._swap(shape, self._in_event_shape, self._out_event_shape,
                          "length of 'shape'")

    def _inverse_shape(self, shape):
        return self._swap(shape, self._out_event_shape, self._in_event_shape,
                          "'shape' length")

    def _forward_log_det_jacobian(self, x):
        shape = list(x.shape[:x.dim() - len(self._in_event_shape)])
        return T.zeros(shape, dtype=x.dtype)


class StackTransform(Transform):
    """Apply ``transforms[i]`` to slice i of the input along ``axis``."""

    def __init__(self, transforms, axis=0):
        if not transforms or not isinstance(transforms, typing.Sequence):
            raise TypeError(f"Expected 'transforms' is Sequence[Transform], but got "
                            f"{type(transforms)}.")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("Expected all element in transforms is Transform Type.")
        if not isinstance(axis, int):
            raise TypeError(f"Expected 'axis' is int, but got{type(axis)}.")
        self._transforms = transforms
        self._axis = axis

    def _is_injective(self):
        return all(t._is_injective() for t in self._transforms)

    @property
    def transforms(self):
        return self._transforms

    @property
    def axis(self):
        return self._axis

    def _map(self, v, method):
        self._check_size(v)
        parts = T.unstack(v, self._axis)
        return T.stack([getattr(t, method)(p) for p, t in zip(parts, self._transforms)],
                       self._axis)

    def _forward(self, x):
        return self._map(x, "forward")

    def _inverse(self, y):
        return self._map(y, "inverse")

    def _forward_log_det_jacobian(self, x):
        return self._map(x, "forward_log_det_jacobian")

    def _check_size(self, v):
        if not -v.dim() <= self._axis < v.dim():
            raise ValueError(f"Input dimensions {v.dim()} should be grater than stack transform "
                             f"axis {self._axis}.")
        if v.shape[self._axis] != len(self._transforms):
            raise ValueError(f"Input size along {self._axis} should be equal to the length of "
                             f"transforms.")

    @property
    def _domain(self):
        return _Stack([t._domain for t in self._transforms], self._axis)

    @property
    def _codomain(self):
        return _Stack([t._codomain for t in self._transforms], self._axis)


def _offset(k, dtype):
    """[k, k-1, ..., 1] as a constant tensor (the stick-breaking offsets)."""
    return k + 1 - T.cumsum(T.ones([k], dtype=dtype), -1)


class StickBreakingTransform(Transform):
    """Map R^K onto the (K+1)-simplex by stick breaking: z_i =
    sigmoid(x_i - log(K + 1 - i)), y_i = z_i prod_{j<i} (1 - z_j), and the
    last coordinate takes what is left."""
    _type = Type.BIJECTION

    def _forward(self, x):
        from ..nn import functional as F
        k = x.shape[-1]
        z = T.sigmoid(x - _offset(k, x.dtype).log())
        rest = T.cumprod(1 - z, -1)
        pad = [0] * 2 * (len(x.shape) - 1)
        return F.pad(z, pad + [0, 1], value=1) * F.pad(rest, pad + [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = _offset(y_crop.shape[-1], y.dtype)
        sf = 1 - T.cumsum(y_crop, -1)
        return y_crop.log() - sf.log() + offset.log()

    def _forward_log_det_jacobian(self, x):
        from ..nn import functional as F
        y = self.forward(x)
        x = x - _offset(x.shape[-1], x.dtype).log()
        return (-x + F.log_sigmoid(x) + y[..., :-1].log()).sum(-1)

    def _forward_shape(self, shape):
        if not shape:
            raise ValueError(f"Expected 'shape' is not empty, but got {shape}")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def _inverse_shape(self, shape):
        if not shape:
            raise ValueError(f"Expected 'shape' is not empty, but got {shape}")
        return tuple(shape[:-1]) + (shape[-1] - 1,)

    @property
    def _domain(self):
        return _Independent(_real, 1)

    @property
    def _codomain(self):
        return _Variable(False, 1, "simplex")
