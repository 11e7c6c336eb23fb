"""Continuous distributions: Normal, Uniform, Cauchy, Laplace, Beta, Dirichlet.

Parameters follow Paddle 2.6: ``Normal``/``Uniform`` take numbers, lists,
numpy arrays (converted to constant tensors, broadcast together; float64
arrays stay float64, everything else becomes float32) or tensors (used as
given); ``Cauchy``/``Laplace``/``Beta`` take Python reals (0-D float32
tensors) or tensors, broadcast together.  Reparameterized ``rsample`` exists
where Paddle has it, so gradients flow from samples to the parameters.
"""
import math
import numbers
from collections.abc import Iterable

import numpy as np

from .. import tensor as T
from ..dygraph.tape import no_grad
from ..tensor.random import _gaussian
from . import _gamma
from .distribution import Distribution, ExponentialFamily, dtype_name, is_tensor

__all__ = ["Normal", "Uniform", "Cauchy", "Laplace", "Beta", "Dirichlet"]

_LOG_SQRT_2PI = math.log(math.sqrt(2.0 * math.pi))


def _check_real_or_tensor(v, what):
    if not (isinstance(v, numbers.Real) or is_tensor(v)):
        raise TypeError(f"Expected type of {what} is Real|Variable, but got {type(v)}")


def _real_to_tensor(v):
    return T.full(shape=[], fill_value=float(v), dtype="float32") \
        if isinstance(v, numbers.Real) else v


def _check_value_tensor(value):
    if not is_tensor(value):
        raise TypeError(f"Expected type of value is Variable, but got {type(value)}")


class _LocScaleFromArrays(Distribution):
    """Shared constructor of Normal and Uniform: two parameters that are
    either both tensors or both numbers/lists/arrays."""

    def _init_params(self, a, b, name, default_name):
        self.all_arg_is_float = False
        self.name = name if name is not None else default_name
        self.dtype = "float32"
        if isinstance(a, int) and not isinstance(a, bool):
            a = float(a)
        if isinstance(b, int) and not isinstance(b, bool):
            b = float(b)
        if self._validate_args(a, b):
            self.dtype = dtype_name(a)
            return a, b
        if isinstance(a, float) and isinstance(b, float):
            self.all_arg_is_float = True
        if isinstance(a, np.ndarray) and str(a.dtype) in ("float32", "float64"):
            self.dtype = str(a.dtype)
        elif isinstance(b, np.ndarray) and str(b.dtype) in ("float32", "float64"):
            self.dtype = str(b.dtype)
        a, b = self._to_tensor(a, b)
        if dtype_name(a) != self.dtype:
            a, b = T.cast(a, self.dtype), T.cast(b, self.dtype)
        return a, b


class Normal(_LocScaleFromArrays):
    """Normal (Gaussian) distribution N(loc, scale^2).

    Args: loc (mean), scale (standard deviation): float, list, numpy array or
    Tensor; name (optional).  ``batch_shape`` is ``loc``'s shape.
    """

    def __init__(self, loc, scale, name=None):
        self.loc, self.scale = self._init_params(loc, scale, name, "Normal")
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return self.scale.pow(2)

    def sample(self, shape=(), seed=0):
        """Samples of shape ``shape + batch_shape`` (just ``shape`` when both
        parameters were Python floats); ``seed`` > 0 gives a fixed stream."""
        if not isinstance(shape, Iterable):
            raise TypeError("sample shape must be Iterable object.")
        shape = list(shape)
        batch_shape = list((self.loc + self.scale).shape)
        out_shape = shape + batch_shape
        eps = _gaussian(out_shape, 0.0, 1.0, self.dtype, seed=seed)
        out = eps * (T.zeros(out_shape, dtype=self.dtype) + self.scale) + self.loc
        if self.all_arg_is_float:
            return T.reshape(out, shape)
        return out

    def rsample(self, shape=()):
        """Reparameterized samples loc + eps * scale, shape
        ``shape + batch_shape``."""
        if not isinstance(shape, Iterable):
            raise TypeError("sample shape must be Iterable object.")
        shape = self._extend_shape(tuple(shape))
        eps = T.randn(list(shape), dtype=self.dtype)
        return self.loc + eps * self.scale

    def entropy(self):
        """0.5 + 0.5 log(2 pi) + log(scale), over the broadcast batch."""
        zero = T.zeros(list((self.loc + self.scale).shape), dtype=self.dtype)
        return (0.5 + zero) + (0.5 * math.log(2 * math.pi) + T.log(self.scale + zero))

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.loc, value)
        var = self.scale * self.scale
        return -1.0 * ((value - self.loc) * (value - self.loc)) / (2.0 * var) - \
            (T.log(self.scale) + _LOG_SQRT_2PI)

    def probs(self, value):
        value = self._check_values_dtype_in_probs(self.loc, value)
        var = self.scale * self.scale
        return T.exp(-1.0 * ((value - self.loc) * (value - self.loc)) / (2.0 * var)) / \
            (math.sqrt(2 * math.pi) * self.scale)

    def kl_divergence(self, other):
        """KL(self || other) = 0.5 (r + ((mu1 - mu2)/s2)^2 - 1 - log r),
        r = (s1/s2)^2."""
        if not isinstance(other, Normal):
            raise TypeError(f"The type of 'other' in kl_divergence must be Normal, "
                            f"but received {type(other)}.")
        ratio = self.scale / other.scale
        ratio = ratio * ratio
        t1 = (self.loc - other.loc) / other.scale
        t1 = t1 * t1
        return 0.5 * ratio + 0.5 * (t1 - 1.0 - T.log(ratio))


class Uniform(_LocScaleFromArrays):
    """Uniform distribution on [low, high).

    Args as ``Normal``'s: low, high (float, list, numpy array or Tensor),
    name.  Outside (low, high) the density is 0 (log_prob -inf).
    """

    def __init__(self, low, high, name=None):
        self.batch_size_unknown = False
        self.low, self.high = self._init_params(low, high, name, "Uniform")
        super().__init__(self.low.shape)

    def sample(self, shape, seed=0):
        """Samples of shape ``shape + batch_shape`` (``shape`` alone for float
        parameters)."""
        shape = list(shape)
        batch_shape = list((self.low + self.high).shape)
        out_shape = shape + batch_shape
        u = T.uniform(out_shape, dtype=self.dtype, min=0.0, max=1.0, seed=seed)
        out = u * (T.zeros(out_shape, dtype=self.dtype) + (self.high - self.low)) + self.low
        if self.all_arg_is_float:
            return T.reshape(out, shape)
        return out

    def _inside(self, value):
        lb = T.cast(self.low < value, dtype_name(value))
        ub = T.cast(value < self.high, dtype_name(value))
        return lb * ub

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.low, value)
        return T.log(self._inside(value)) - T.log(self.high - self.low)

    def probs(self, value):
        value = self._check_values_dtype_in_probs(self.low, value)
        return self._inside(value) / (self.high - self.low)

    def entropy(self):
        return T.log(self.high - self.low)


class Cauchy(Distribution):
    """Cauchy distribution with location ``loc`` and scale ``scale`` (Python
    reals or tensors).  It has no mean or variance: those properties raise."""

    def __init__(self, loc, scale, name=None):
        self.name = name if name is not None else "Cauchy"
        _check_real_or_tensor(loc, "loc")
        _check_real_or_tensor(scale, "scale")
        loc, scale = _real_to_tensor(loc), _real_to_tensor(scale)
        if list(loc.shape) != list(scale.shape):
            self.loc, self.scale = T.broadcast_tensors([loc, scale])
        else:
            self.loc, self.scale = loc, scale
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=self.loc.shape, event_shape=())

    @property
    def mean(self):
        raise ValueError("Cauchy distribution has no mean.")

    @property
    def variance(self):
        raise ValueError("Cauchy distribution has no variance.")

    @property
    def stddev(self):
        raise ValueError("Cauchy distribution has no stddev.")

    def sample(self, shape, name=None):
        with no_grad():
            return self.rsample(shape, name)

    def rsample(self, shape, name=None):
        """loc + scale * tan(pi (u - 1/2)), u ~ U(0, 1)."""
        if not isinstance(shape, (np.ndarray, list, tuple)) and not is_tensor(shape):
            raise TypeError(f"Expected type of shape is Sequence[int], but got {type(shape)}")
        shape = self._extend_shape(tuple(shape))
        loc = self.loc.expand(list(shape))
        scale = self.scale.expand(list(shape))
        u = T.rand(list(shape), dtype=self.dtype)
        return loc + scale * T.tan(np.pi * (u - 0.5))

    def prob(self, value):
        _check_value_tensor(value)
        return self.log_prob(value).exp()

    def log_prob(self, value):
        _check_value_tensor(value)
        value = self._check_values_dtype_in_probs(self.loc, value)
        loc, scale, value = T.broadcast_tensors([self.loc, self.scale, value])
        return -T.log1p(T.square((value - loc) / scale)) - (math.log(math.pi) + T.log(scale))

    def cdf(self, value):
        _check_value_tensor(value)
        value = self._check_values_dtype_in_probs(self.loc, value)
        loc, scale, value = T.broadcast_tensors([self.loc, self.scale, value])
        return T.atan((value - loc) / scale) / np.pi + 0.5

    def entropy(self):
        """log(4 pi scale)."""
        return math.log(4 * math.pi) + T.log(self.scale)

    def kl_divergence(self, other):
        """log(((s1 + s2)^2 + (l1 - l2)^2) / (4 s1 s2))."""
        if not isinstance(other, Cauchy):
            raise TypeError(f"Expected type of other is Cauchy, but got {type(other)}")
        t1 = T.log(T.pow(self.scale + other.scale, 2) + T.pow(self.loc - other.loc, 2))
        t2 = T.log(4 * (self.scale * other.scale))
        return t1 - t2


class Laplace(Distribution):
    """Laplace distribution, density exp(-|x - loc| / scale) / (2 scale)."""

    def __init__(self, loc, scale):
        _check_real_or_tensor(loc, "loc")
        _check_real_or_tensor(scale, "scale")
        loc, scale = _real_to_tensor(loc), _real_to_tensor(scale)
        if (len(scale.shape) > 0 or len(loc.shape) > 0) and loc.dtype == scale.dtype:
            self.loc, self.scale = T.broadcast_tensors([loc, scale])
        else:
            self.loc, self.scale = loc, scale
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        return self.loc

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def _validate_value(self, value):
        if isinstance(value, numbers.Real):
            value = T.full(shape=[], fill_value=float(value), dtype="float32")
        if value.dtype != self.scale.dtype:
            value = T.cast(value, self.scale.dtype)
        if len(self.scale.shape) > 0 or len(self.loc.shape) > 0 or len(value.shape) > 0:
            return tuple(T.broadcast_tensors([self.loc, self.scale, value]))
        return self.loc, self.scale, value

    def log_prob(self, value):
        loc, scale, value = self._validate_value(value)
        return -T.log(2 * scale) - T.abs(value - loc) / scale

    def entropy(self):
        return 1 + T.log(2 * self.scale)

    def cdf(self, value):
        loc, scale, value = self._validate_value(value)
        return 0.5 - 0.5 * T.sign(value - loc) * T.expm1(-T.abs(value - loc) / scale)

    def icdf(self, value):
        loc, scale, value = self._validate_value(value)
        term = value - 0.5
        return loc - scale * T.sign(term) * T.log1p(-2 * T.abs(term))

    def sample(self, shape=()):
        with no_grad():
            return self.rsample(tuple(shape))

    def rsample(self, shape):
        """Inverse-cdf sampling from u ~ U(-1, 1) (open interval)."""
        eps = self._get_eps()
        shape = self._extend_shape(tuple(shape))
        u = T.uniform(list(shape), dtype=self.loc.dtype,
                      min=float(np.nextafter(-1, 1)) + eps / 2, max=1.0 - eps / 2)
        return self.loc - self.scale * T.sign(u) * T.log1p(-T.abs(u))

    def _get_eps(self):
        return 2.22045e-16 if dtype_name(self.loc) in ("float64", "complex128") else 1.19209e-07

    def kl_divergence(self, other):
        """log(s2/s1) + (s1 exp(-|l1 - l2|/s1) + |l1 - l2|) / s2 - 1."""
        t = T.abs(self.loc - other.loc)
        term1 = (self.scale * T.exp(-t / self.scale) + t) / other.scale
        return term1 + T.log(other.scale / self.scale) - 1


class Dirichlet(ExponentialFamily):
    """Dirichlet distribution over the simplex, ``concentration`` (Tensor,
    at least 1-D, positive); event shape is its last axis."""

    def __init__(self, concentration):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one dimensional")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:])

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self):
        c0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (c0 - self.concentration) / (c0.pow(2) * (c0 + 1))

    def sample(self, shape=()):
        """Normalized Gamma draws (no gradient), shape
        ``shape + batch_shape + event_shape``."""
        shape = self._extend_shape(tuple(shape))
        with no_grad():
            conc = self.concentration.detach().expand(list(shape))
            log_g = _gamma.log_standard_gamma(conc)
            from ..nn import functional as F
            return F.softmax(log_g, axis=-1)

    def prob(self, value):
        return T.exp(self.log_prob(value))

    def log_prob(self, value):
        c = self.concentration
        return (T.log(value) * (c - 1.0)).sum(-1) + T.lgamma(c.sum(-1)) - T.lgamma(c).sum(-1)

    def entropy(self):
        c = self.concentration
        c0 = c.sum(-1)
        k = c.shape[-1]
        return (T.lgamma(c).sum(-1) - T.lgamma(c0) - (k - c0) * T.digamma(c0)
                - ((c - 1.0) * T.digamma(c)).sum(-1))

    @property
    def _natural_parameters(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - T.lgamma(x.sum(-1))


class Beta(ExponentialFamily):
    """Beta distribution on [0, 1], a 2-category Dirichlet of
    (alpha, beta) (Python reals or tensors, broadcast together)."""

    def __init__(self, alpha, beta):
        alpha, beta = _real_to_tensor(alpha), _real_to_tensor(beta)
        self.alpha, self.beta = T.broadcast_tensors([alpha, beta])
        self._dirichlet = Dirichlet(T.stack([self.alpha, self.beta], -1))
        super().__init__(self._dirichlet._batch_shape)

    @property
    def mean(self):
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        s = self.alpha + self.beta
        return self.alpha * self.beta / (s.pow(2) * (s + 1))

    def prob(self, value):
        return T.exp(self.log_prob(value))

    def log_prob(self, value):
        return self._dirichlet.log_prob(T.stack([value, 1.0 - value], -1))

    def sample(self, shape=()):
        """The first coordinate of a Dirichlet draw (a trailing axis of size
        1 is squeezed, as Paddle does)."""
        return T.squeeze(self._dirichlet.sample(tuple(shape))[..., 0], axis=-1)

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return T.lgamma(x) + T.lgamma(y) - T.lgamma(x + y)
