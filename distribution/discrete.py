"""Discrete distributions: Bernoulli, Categorical, Geometric, Multinomial.

Samples come from sampan's ``bernoulli``, ``multinomial`` and ``uniform`` ops
(so ``sampan.seed`` fixes them); densities are tensor expressions that work
eagerly (with autograd) and in static Programs.
"""
import numbers
from collections.abc import Iterable

import numpy as np

from .. import tensor as T
from ..dygraph.tape import no_grad
from ..ops.mode import in_dynamic_mode
from .distribution import Distribution, ExponentialFamily, dtype_name, is_tensor

__all__ = ["Bernoulli", "Categorical", "Geometric", "Multinomial"]


def _softplus(x):
    """log(1 + exp(x)), stable for large |x|."""
    return T.clip(x, min=0.0) + T.log1p(T.exp(-T.abs(x)))


def _bce_with_logits(logits, label):
    """Elementwise binary cross entropy of ``label`` under ``logits``."""
    return T.clip(logits, min=0.0) - logits * label + T.log1p(T.exp(-T.abs(logits)))


class Bernoulli(ExponentialFamily):
    """Bernoulli distribution: 1 with probability ``probs``, else 0.

    ``probs`` is a float or a Tensor in [0, 1]; it is clipped to
    [eps, 1 - eps] of its dtype (numbers become the default float dtype).
    """

    def __init__(self, probs, name=None):
        self.name = name or "Bernoulli"
        if self._validate_args(probs):
            self.probs = probs
            self.dtype = dtype_name(probs)
        else:
            [self.probs] = self._to_tensor(probs)
            self.dtype = T.get_default_dtype()
        if in_dynamic_mode():
            bad = T.any(self.probs < 0) | T.any(self.probs > 1) | T.any(T.isnan(self.probs))
            if bool(bad):
                raise ValueError("The arg of `probs` must be in range [0, 1].")
        eps = float(np.finfo(self.dtype).eps)
        self.probs = T.cast(T.clip(self.probs, min=eps, max=1 - eps), self.dtype)
        self.logits = self._probs_to_logits(self.probs, is_binary=True)
        super().__init__(batch_shape=self.probs.shape, event_shape=())

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, shape):
        """0/1 draws of shape ``shape + batch_shape`` in ``probs``' dtype."""
        shape = self._extend_shape(tuple(shape))
        with no_grad():
            return T.bernoulli(self.probs.detach().expand(list(shape)))

    def rsample(self, shape, temperature=1.0):
        """Relaxed (Gumbel-softmax / Concrete) draws as Paddle returns them:
        the logit (log u - log(1-u) + logits) / temperature."""
        shape = self._extend_shape(tuple(shape))
        temp = T.full(shape=[], fill_value=float(temperature), dtype=self.dtype)
        probs = self.probs.expand(list(shape))
        u = T.rand(list(shape), dtype=self.dtype)
        return ((T.log(u) - T.log1p(-u)) + (T.log(probs) - T.log1p(-probs))) / temp

    def cdf(self, value):
        value = self._check_values_dtype_in_probs(self.probs, value)
        probs, value = T.broadcast_tensors([self.probs, value])
        zeros, ones = T.zeros_like(probs), T.ones_like(probs)
        return T.where(value < 0, zeros, T.where(value < 1, ones - probs, ones))

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.probs, value)
        logits, value = T.broadcast_tensors([self.logits, value])
        return -_bce_with_logits(logits, value)

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        return _bce_with_logits(self.logits, self.probs)

    def kl_divergence(self, other):
        """p log(p/q) + (1-p) log((1-p)/(1-q)) from the logits."""
        if not isinstance(other, Bernoulli):
            raise TypeError(f"Expected type of other is Bernoulli, but got {type(other)}")
        a, b = self.logits, other.logits
        pa, qa = T.sigmoid(a), T.sigmoid(-a)
        return (-_softplus(-a) * pa - (-_softplus(-b)) * pa) + \
            (-_softplus(a) * qa - (-_softplus(b)) * qa)


class Categorical(Distribution):
    """Categorical distribution over the last axis of ``logits``.

    As in Paddle 2.6, ``sample`` draws from softmax(logits), while
    ``probs``/``log_prob`` read ``logits`` as unnormalized probabilities
    (logits / logits.sum(-1)), and ``entropy``/``kl_divergence`` use softmax.
    """

    def __init__(self, logits, name=None):
        self.name = name if name is not None else "Categorical"
        self.dtype = "float32"
        if self._validate_args(logits):
            self.logits = logits
            self.dtype = dtype_name(logits)
        else:
            if isinstance(logits, np.ndarray) and str(logits.dtype) in ("float32", "float64"):
                self.dtype = str(logits.dtype)
            self.logits = self._to_tensor(logits)[0]
            if dtype_name(self.logits) != self.dtype:
                self.logits = T.cast(self.logits, self.dtype)
        self._prob = self.logits / T.sum(self.logits, axis=-1, keepdim=True)
        super().__init__()

    def sample(self, shape):
        """Category indices (int64) of shape ``shape + logits.shape[:-1]``."""
        shape = list(shape)
        n = int(np.prod(np.array(shape))) if shape else 1
        lshape = list(self.logits.shape)
        if len(lshape) > 1:
            out_shape = shape + lshape[:-1]
            logits = T.reshape(self.logits, [int(np.prod(lshape[:-1])), lshape[-1]])
        else:
            out_shape = shape
            logits = self.logits
        idx = T.multinomial(self._logits_to_probs(logits), n, True)
        perm = list(range(len(idx.shape)))
        perm.insert(0, perm.pop(-1))
        return T.reshape(T.transpose(idx, perm), out_shape)

    def _normalized(self, logits):
        logits = logits - T.max(logits, axis=-1, keepdim=True)
        e = T.exp(logits)
        z = T.sum(e, axis=-1, keepdim=True)
        return logits, e / z, z

    def kl_divergence(self, other):
        """KL over the last axis (kept, size 1) of the softmax distributions."""
        if not isinstance(other, Categorical):
            raise TypeError(f"Expected type of other is Categorical, but got {type(other)}")
        la, pa, za = self._normalized(self.logits)
        lb, _, zb = self._normalized(other.logits)
        return T.sum(pa * (la - T.log(za) - lb + T.log(zb)), axis=-1, keepdim=True)

    def entropy(self):
        la, pa, za = self._normalized(self.logits)
        return -T.sum(pa * (la - T.log(za)), axis=-1)

    def probs(self, value):
        """Probability of the categories ``value`` (int tensor)."""
        if len(self._prob.shape) == 1:
            return T.reshape(T.gather(self._prob, T.reshape(value, [-1])), value.shape)
        if len(value.shape) == 1:
            idx = T.reshape(value, (len(self._prob.shape) - 1) * [1] + [-1])
            return T.take_along_axis(self._prob, idx, axis=-1)
        return T.take_along_axis(self._prob, value, axis=-1)

    def log_prob(self, value):
        return T.log(self.probs(value))


class Geometric(Distribution):
    """Geometric distribution: the number of failures before the first
    success, success probability ``probs`` in (0, 1]."""

    def __init__(self, probs):
        if isinstance(probs, numbers.Real):
            probs = T.full(shape=[], fill_value=float(probs), dtype="float32")
        elif not is_tensor(probs):
            raise TypeError("Expected type of probs is Number.Real|Tensor|framework.Variable, "
                            f"but got {type(probs)}")
        if in_dynamic_mode() and bool(T.any(probs <= 0) | T.any(probs > 1)):
            raise ValueError("Expected parameter probs of distribution Geometric to satisfy the"
                             "constraint Interval(lower_bound=0.0, upper_bound=1.0)")
        self.probs = probs
        super().__init__(tuple(probs.shape))

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    @property
    def stddev(self):
        return T.sqrt(self.variance)

    @staticmethod
    def _check_k(k):
        if not (isinstance(k, numbers.Integral) or is_tensor(k)):
            raise TypeError(f"Expected type of k is number.Real|framework.Variable, "
                            f"but got {type(k)}")

    def pmf(self, k):
        """(1 - p)^k p."""
        self._check_k(k)
        return T.pow(1.0 - self.probs, k) * self.probs

    def log_pmf(self, k):
        self._check_k(k)
        return T.log(self.pmf(k))

    def sample(self, shape=()):
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """floor(log u / log(1 - p)), u ~ U(tiny, 1)."""
        shape = self._extend_shape(tuple(shape))
        u = T.uniform(list(shape), dtype=self.probs.dtype,
                      min=float(np.finfo("float32").tiny), max=1.0)
        return T.floor(T.log(u) / T.log1p(-self.probs))

    def entropy(self):
        p = self.probs
        return -((1.0 - p) * T.log(1.0 - p) + p * T.log(p)) / p

    def cdf(self, k):
        """1 - (1 - p)^(k + 1)."""
        self._check_k(k)
        return 1.0 - T.pow(1.0 - self.probs, k + 1)

    def kl_divergence(self, other):
        if not isinstance(other, Geometric):
            raise TypeError(f"Exected type of other is geometric.Geometric, "
                            f"but got {type(other)}")
        p, q = self.probs, other.probs
        return p * T.log(p / q) + (1.0 - p) * T.log((1.0 - p) / (1.0 - q))


class Multinomial(Distribution):
    """Multinomial distribution: counts of ``total_count`` (int >= 1) draws
    from the categories of ``probs`` (Tensor, last axis, renormalized)."""

    def __init__(self, total_count, probs):
        if not isinstance(total_count, int) or total_count < 1:
            raise ValueError("input parameter total_count must be int type and grater than zero.")
        if probs.dim() < 1:
            raise ValueError("probs parameter shoule not be none and over one dimension")
        self.probs = probs / probs.sum(-1, keepdim=True)
        self.total_count = total_count
        self._categorical = Categorical(logits=self._probs_to_logits(probs))
        super().__init__(probs.shape[:-1], probs.shape[-1:])

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def prob(self, value):
        return T.exp(self.log_prob(value))

    def log_prob(self, value):
        if T.is_integer(value):
            value = T.cast(value, self.probs.dtype)
        logits, value = T.broadcast_tensors([T.log(self.probs), value])
        # 0 * log(0) counts as 0
        logits = T.where(T.logical_and(value == 0, T.isinf(logits)), T.zeros_like(logits), logits)
        return (T.lgamma(value.sum(-1) + 1) - T.lgamma(value + 1).sum(-1)
                + (value * logits).sum(-1))

    def sample(self, shape=()):
        """Count vectors of shape ``shape + batch_shape + event_shape``."""
        if not isinstance(shape, Iterable):
            raise TypeError("sample shape must be Iterable object.")
        from ..nn import functional as F
        draws = self._categorical.sample([self.total_count] + list(shape))
        k = self.probs.shape[-1]
        return T.cast(F.one_hot(draws, k), self.probs.dtype).sum(0)

    def entropy(self):
        """n H(categorical) - log n! + sum_i E[log x_i!], x_i ~ Binomial(n, p_i)."""
        dt = self.probs.dtype
        n = T.full(shape=[], fill_value=self.total_count, dtype=dt)
        support = T.reshape(T.arange(self.total_count + 1, dtype=dt),
                            (-1,) + (1,) * len(self.probs.shape))[1:]
        pmf = T.exp(self._binomial_logpmf(n, support))
        return (n * self._categorical.entropy() - T.lgamma(n + 1)
                + (pmf * T.lgamma(support + 1)).sum([0, -1]))

    def _binomial_logpmf(self, count, value):
        logits = self._probs_to_logits(self.probs, is_binary=True)
        relu = (T.clip(logits, min=0) + logits - T.clip(logits, max=0)) / 2
        norm = (count * relu + count * T.log1p(T.exp(-T.abs(logits)))
                - T.lgamma(count + 1))
        return value * logits - T.lgamma(value + 1) - T.lgamma(count - value + 1) - norm
