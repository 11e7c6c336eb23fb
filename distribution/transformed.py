"""Distributions built from others: ``Independent`` (batch axes read as
event axes), ``TransformedDistribution`` (a base pushed through transforms,
density by the change-of-variables formula), and the two Paddle defines on
top of it, ``Gumbel`` and ``LogNormal``.
"""
import math
import numbers
import typing

import numpy as np

from .. import tensor as T
from ..dygraph.tape import no_grad
from .continuous import Normal, Uniform
from .distribution import Distribution, is_tensor, sum_rightmost
from .transforms import AffineTransform, ExpTransform, Transform
from .transforms_structural import ChainTransform

__all__ = ["Independent", "TransformedDistribution", "Gumbel", "LogNormal"]

_EULER_GAMMA = float(np.euler_gamma)


class Independent(Distribution):
    """Reinterpret the ``reinterpreted_batch_rank`` rightmost batch axes of
    ``base`` as event axes: log_prob and entropy are summed over them."""

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got {type(base)}")
        if not 0 < reinterpreted_batch_rank <= len(base.batch_shape):
            raise ValueError(f"Expected 0 < reinterpreted_batch_rank <= {len(base.batch_shape)}"
                             f", but got {reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        shape = tuple(base.batch_shape) + tuple(base.event_shape)
        cut = len(base.batch_shape) - reinterpreted_batch_rank
        super().__init__(batch_shape=shape[:cut], event_shape=shape[cut:])

    @property
    def mean(self):
        return self._base.mean

    @property
    def variance(self):
        return self._base.variance

    def sample(self, shape=()):
        return self._base.sample(shape)

    def log_prob(self, value):
        return self._sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        return self._sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)

    def _sum_rightmost(self, value, n):
        return sum_rightmost(value, n)


class TransformedDistribution(Distribution):
    """The distribution of transforms[-1](...transforms[0](x)), x ~ base.

    log_prob(y) = base.log_prob(x) - sum of each transform's
    forward_log_det_jacobian along the inverse path, summed over event axes.
    """

    def __init__(self, base, transforms):
        if not isinstance(base, Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got {type(base)}.")
        if not isinstance(transforms, typing.Sequence):
            raise TypeError(f"Expected type of 'transforms' is Sequence[Transform] or Chain, "
                            f"but got {type(transforms)}.")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("All element of transforms must be Transform type.")
        self._base = base
        self._transforms = transforms
        if not transforms:
            super().__init__(base.batch_shape, base.event_shape)
            return
        chain = ChainTransform(transforms)
        base_shape = tuple(base.batch_shape) + tuple(base.event_shape)
        if len(base_shape) < chain._domain.event_rank:
            raise ValueError(f"'base' needs to have shape with size at least "
                             f"{chain._domain.event_rank}, bug got {len(base_shape)}.")
        if chain._domain.event_rank > len(base.event_shape):
            base = Independent(base, chain._domain.event_rank - len(base.event_shape))
        shape = chain.forward_shape(tuple(base.batch_shape) + tuple(base.event_shape))
        event_rank = chain._codomain.event_rank + \
            max(len(base.event_shape) - chain._domain.event_rank, 0)
        cut = len(shape) - event_rank
        super().__init__(tuple(shape[:cut]), tuple(shape[cut:]))

    def sample(self, shape=()):
        x = self._base.sample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def rsample(self, shape=()):
        x = self._base.rsample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value):
        log_prob = 0.0
        y = value
        event_rank = len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            event_rank += t._domain.event_rank - t._codomain.event_rank
            log_prob = log_prob - sum_rightmost(t.forward_log_det_jacobian(x),
                                                event_rank - t._domain.event_rank)
            y = x
        return log_prob + sum_rightmost(self._base.log_prob(y),
                                        event_rank - len(self._base.event_shape))


def _real_or_tensor(v, what):
    if isinstance(v, numbers.Real):
        return T.full(shape=[], fill_value=float(v), dtype="float32")
    if not is_tensor(v):
        raise TypeError(f"Expected type of {what} is Real|Variable, but got {type(v)}")
    return v


class Gumbel(TransformedDistribution):
    """Gumbel (type-I extreme value) distribution with location ``loc`` and
    scale ``scale``: cdf exp(-exp(-(x - loc)/scale))."""

    def __init__(self, loc, scale):
        loc = _real_or_tensor(loc, "loc")
        scale = _real_or_tensor(scale, "scale")
        if list(loc.shape) != list(scale.shape):
            self.loc, self.scale = T.broadcast_tensors([loc, scale])
        else:
            self.loc, self.scale = loc, scale
        finfo = np.finfo("float32")
        self.base_dist = Uniform(T.full_like(self.loc, float(finfo.tiny)),
                                 T.full_like(self.loc, float(1 - finfo.eps)))
        self.transforms = ()
        super().__init__(self.base_dist, self.transforms)

    @property
    def mean(self):
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def variance(self):
        return T.pow(self.scale, 2) * (math.pi * math.pi) / 6

    @property
    def stddev(self):
        return T.sqrt(self.variance)

    def prob(self, value):
        y = (self.loc - value) / self.scale
        return T.exp(y - T.exp(y)) / self.scale

    def log_prob(self, value):
        return T.log(self.prob(value))

    def cdf(self, value):
        return T.exp(-T.exp(-(value - self.loc) / self.scale))

    def entropy(self):
        return T.log(self.scale) + 1 + _EULER_GAMMA

    def sample(self, shape):
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape):
        """loc - scale * log(-log u), u ~ U(tiny, 1 - eps)."""
        exp = ExpTransform()
        flip = AffineTransform(T.zeros(list(self.scale.shape), dtype=self.loc.dtype),
                               -T.ones_like(self.scale))
        to_loc = AffineTransform(self.loc, -self.scale)
        u = self._base.sample(list(shape))
        return to_loc.forward(exp.inverse(flip.forward(exp.inverse(u))))


class LogNormal(TransformedDistribution):
    """exp(X) for X ~ Normal(loc, scale) (same argument rules as Normal)."""

    def __init__(self, loc, scale):
        self._base = Normal(loc=loc, scale=scale)
        self.loc = self._base.loc
        self.scale = self._base.scale
        super().__init__(self._base, [ExpTransform()])

    @property
    def mean(self):
        return T.exp(self._base.mean + self._base.variance / 2)

    @property
    def variance(self):
        return T.expm1(self._base.variance) * T.exp(2 * self._base.mean + self._base.variance)

    def entropy(self):
        return self._base.entropy() + self._base.mean

    def probs(self, value):
        return T.exp(self.log_prob(value))

    def kl_divergence(self, other):
        return self._base.kl_divergence(other._base)
