"""Transforms y = f(x) between random variables, with their log-abs-det
Jacobians, for building ``TransformedDistribution``s.

Each transform knows its domain and codomain as a ``_Variable`` (an
``event_rank``: how many rightmost axes form one event, plus a constraint),
so chains and distributions can sum log-det-Jacobians over the right axes.
Public methods check their input and call the ``_forward``/``_inverse``/
``_forward_log_det_jacobian``/``_inverse_log_det_jacobian`` hooks a subclass
defines; a missing log-det side is derived from the other one.  Here: the
base and the transforms of one value at a time; those that combine transforms
or move axes are in transforms_structural.py.
"""
import enum
import math
import typing

from .. import tensor as T
from .distribution import Distribution, is_tensor

__all__ = ["Transform", "AbsTransform", "AffineTransform", "ExpTransform", "PowerTransform",
           "SigmoidTransform", "SoftmaxTransform", "TanhTransform"]


class Type(enum.Enum):
    """How a transform maps: bijection, injection, surjection or other."""
    BIJECTION = "bijection"
    INJECTION = "injection"
    SURJECTION = "surjection"
    OTHER = "other"

    @classmethod
    def is_injective(cls, _type):
        return _type in (cls.BIJECTION, cls.INJECTION)


class _Variable:
    """The support of a transform's input or output: discreteness, event
    rank and a name for its constraint (real, positive, range, simplex)."""

    def __init__(self, is_discrete=False, event_rank=0, constraint="real"):
        self._is_discrete = is_discrete
        self._event_rank = event_rank
        self._constraint = constraint

    @property
    def is_discrete(self):
        return self._is_discrete

    @property
    def event_rank(self):
        return self._event_rank


class _Independent(_Variable):
    """``base`` with ``n`` more rightmost axes in each event."""

    def __init__(self, base, n):
        self._base = base
        self._reinterpreted_batch_rank = n
        super().__init__(base.is_discrete, base.event_rank + n, base._constraint)


class _Stack(_Variable):
    """Variables stacked along ``axis``."""

    def __init__(self, variables, axis=0):
        self._vars = variables
        self._axis = axis
        super().__init__()

    @property
    def is_discrete(self):
        return any(v.is_discrete for v in self._vars)

    @property
    def event_rank(self):
        rank = max(v.event_rank for v in self._vars)
        if self._axis + rank < 0:
            rank += 1
        return rank


_real = _Variable(False, 0, "real")
_positive = _Variable(False, 0, "positive")


def _check_tensor(v, what, expect="a Tensor or Real"):
    if not is_tensor(v):
        raise TypeError(f"Expected '{what}' is {expect}, but got {type(v)}.")


def _check_value(v, what, dim_name, event_rank, expect="a Tensor or Real"):
    """A transform's input ``v``: a tensor of at least ``event_rank`` dimensions
    (Paddle's messages, ``what`` and ``dim_name`` as it names the argument)."""
    _check_tensor(v, what, expect)
    if v.dim() < event_rank:
        raise ValueError(f"The dimensions of {dim_name}({v.dim()}) should be grater than or "
                         f"equal to {event_rank}")


class Transform:
    """Base class of transforms.  Calling a transform on a Tensor applies
    ``forward``; on a Distribution it gives a ``TransformedDistribution``; on
    another Transform it gives their chain (this one applied first)."""

    _type = Type.INJECTION

    def __init__(self):
        super().__init__()

    @classmethod
    def _is_injective(cls):
        return Type.is_injective(cls._type)

    def __call__(self, input):
        if isinstance(input, Distribution):
            from .transformed import TransformedDistribution
            return TransformedDistribution(input, [self])
        if isinstance(input, Transform):
            from .transforms_structural import ChainTransform
            return ChainTransform([self, input])
        return self.forward(input)

    def forward(self, x):
        """y = f(x)."""
        _check_value(x, "x", "x", self._domain.event_rank)
        return self._forward(x)

    def inverse(self, y):
        """x = f^-1(y)."""
        _check_value(y, "y", "y", self._codomain.event_rank)
        return self._inverse(y)

    def forward_log_det_jacobian(self, x):
        """log |det J_f(x)|."""
        _check_value(x, "y", "x", self._domain.event_rank)     # Paddle calls x "y" here
        if not self._is_injective():
            raise NotImplementedError("forward_log_det_jacobian can't be implemented for "
                                      "non-injectivetransforms.")
        return self._call_forward_log_det_jacobian(x)

    def inverse_log_det_jacobian(self, y):
        """log |det J_{f^-1}(y)| (= -forward_log_det_jacobian(f^-1(y)))."""
        _check_value(y, "y", "y", self._codomain.event_rank, "a Tensor")
        return self._call_inverse_log_det_jacobian(y)

    def forward_shape(self, shape):
        """Shape of f(x) for an x of ``shape``."""
        if not isinstance(shape, typing.Sequence):
            raise TypeError(f"Expected shape is Sequence[int] type, but got {type(shape)}.")
        return self._forward_shape(shape)

    def inverse_shape(self, shape):
        """Shape of f^-1(y) for a y of ``shape``."""
        if not isinstance(shape, typing.Sequence):
            raise TypeError(f"Expected shape is Sequence[int] type, but got {type(shape)}.")
        return self._inverse_shape(shape)

    @property
    def _domain(self):
        return _real

    @property
    def _codomain(self):
        return _real

    def _forward(self, x):
        raise NotImplementedError("Forward not implemented")

    def _inverse(self, y):
        raise NotImplementedError("Inverse not implemented")

    def _call_forward_log_det_jacobian(self, x):
        if hasattr(self, "_forward_log_det_jacobian"):
            return self._forward_log_det_jacobian(x)
        if hasattr(self, "_inverse_log_det_jacobian"):
            return -self._inverse_log_det_jacobian(self.forward(x))
        raise NotImplementedError("Neither _forward_log_det_jacobian nor "
                                  "_inverse_log_det_jacobian is implemented. One of them is "
                                  "required.")

    def _call_inverse_log_det_jacobian(self, y):
        if hasattr(self, "_inverse_log_det_jacobian"):
            return self._inverse_log_det_jacobian(y)
        if hasattr(self, "_forward_log_det_jacobian"):
            return -self._forward_log_det_jacobian(self._inverse(y))
        raise NotImplementedError("Neither _forward_log_det_jacobian nor "
                                  "_inverse_log_det_jacobian is implemented. One of them is "
                                  "required")

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape


class AbsTransform(Transform):
    """y = |x|, a surjection: ``inverse`` returns both preimages (-y, y)."""
    _type = Type.SURJECTION

    def _forward(self, x):
        return x.abs()

    def _inverse(self, y):
        return -y, y

    def _inverse_log_det_jacobian(self, y):
        zero = T.zeros([], dtype=y.dtype)
        return zero, zero

    @property
    def _codomain(self):
        return _positive


class AffineTransform(Transform):
    """y = loc + scale * x (``loc`` and ``scale`` Tensors)."""
    _type = Type.BIJECTION

    def __init__(self, loc, scale):
        if not is_tensor(loc):
            raise TypeError(f"Expected 'loc' is a Tensor, but got {type(loc)}")
        if not is_tensor(scale):
            raise TypeError(f"Expected scale is a Tensor, but got {type(scale)}")
        self._loc = loc
        self._scale = scale
        super().__init__()

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _forward(self, x):
        return self._loc + self._scale * x

    def _inverse(self, y):
        return (y - self._loc) / self._scale

    def _forward_log_det_jacobian(self, x):
        return T.log(T.abs(self._scale))

    def _forward_shape(self, shape):
        return tuple(T.broadcast_shape(T.broadcast_shape(list(shape), list(self._loc.shape)),
                                       list(self._scale.shape)))

    _inverse_shape = _forward_shape


class ExpTransform(Transform):
    """y = exp(x); log-det-Jacobian x."""
    _type = Type.BIJECTION

    @property
    def _codomain(self):
        return _positive

    def _forward(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def _forward_log_det_jacobian(self, x):
        return x


class PowerTransform(Transform):
    """y = x ** power (``power`` a Tensor)."""
    _type = Type.BIJECTION

    def __init__(self, power):
        if not is_tensor(power):
            raise TypeError(f"Expected 'power' is a tensor, but got {type(power)}")
        self._power = power
        super().__init__()

    @property
    def power(self):
        return self._power

    @property
    def _codomain(self):
        return _positive

    def _forward(self, x):
        return x.pow(self._power)

    def _inverse(self, y):
        return y.pow(1 / self._power)

    def _forward_log_det_jacobian(self, x):
        return T.log(T.abs(self._power * x.pow(self._power - 1)))

    def _forward_shape(self, shape):
        return tuple(T.broadcast_shape(list(shape), list(self._power.shape)))

    _inverse_shape = _forward_shape


class SigmoidTransform(Transform):
    """y = sigmoid(x), onto (0, 1)."""

    @property
    def _codomain(self):
        return _Variable(False, 0, "range(0, 1)")

    def _forward(self, x):
        return T.sigmoid(x)

    def _inverse(self, y):
        return y.log() - (-y).log1p()

    def _forward_log_det_jacobian(self, x):
        from ..nn import functional as F
        return -F.softplus(-x) - F.softplus(x)


class SoftmaxTransform(Transform):
    """y = softmax(x) over the last axis; not injective (``inverse`` returns
    log y, one preimage), so it has no log-det-Jacobian."""
    _type = Type.OTHER

    @property
    def _domain(self):
        return _Independent(_real, 1)

    @property
    def _codomain(self):
        return _Variable(False, 1, "simplex")

    def _forward(self, x):
        e = (x - x.max(-1, keepdim=True)).exp()
        return e / e.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(f"Expected length of shape is grater than 1, but got {len(shape)}")
        return shape

    _inverse_shape = _forward_shape


class TanhTransform(Transform):
    """y = tanh(x), onto (-1, 1)."""
    _type = Type.BIJECTION

    @property
    def _codomain(self):
        return _Variable(False, 0, "range(-1, 1)")

    def _forward(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def _forward_log_det_jacobian(self, x):
        from ..nn import functional as F
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))
