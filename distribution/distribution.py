"""The base classes of ``paddle.distribution``: ``Distribution`` (shapes,
argument conversion, the sampling/density interface) and
``ExponentialFamily`` (entropy from the log-normalizer's gradient).

Every computation goes through sampan's public op functions
(``sampan.tensor``), so a distribution's methods record gradients eagerly and
append operators when called on static Variables (``to_static``).  numpy is
used only to turn Python/numpy parameters into constant tensors.
"""
import warnings

import numpy as np

from .. import tensor as T
from ..dygraph import tape as _tape
from ..ops.dtypes import to_np_dtype
from ..ops.mode import in_dynamic_mode
from ..program import backward as _backward
from ..tensor.creation import is_var

__all__ = ["Distribution", "ExponentialFamily"]

_FLOATS = ("float32", "float64")


def is_tensor(v):
    """True for an eager Tensor or a static Variable (Paddle's ``Variable``)."""
    return is_var(v)


def dtype_name(x):
    """'float32' / 'float64' / ... for a Tensor, Variable, DType, numpy dtype or name."""
    return str(to_np_dtype(getattr(x, "dtype", x)))


def sum_rightmost(value, n):
    """Sum ``value`` over its ``n`` rightmost axes (``value`` itself for n <= 0)."""
    return value.sum(list(range(-n, 0))) if n > 0 else value


class Distribution:
    """Abstract base of all distributions.

    ``batch_shape`` is the shape of a bunch of independent (not identically
    distributed) distributions; ``event_shape`` the shape of one draw (``()``
    for scalar distributions, ``(n,)`` for an n-variate one).  Subclasses
    implement the methods they support; the rest raise NotImplementedError.
    """

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        super().__init__()

    @property
    def batch_shape(self):
        """Shape of the batch of distributions (a tuple)."""
        return self._batch_shape

    @property
    def event_shape(self):
        """Shape of a single draw (a tuple)."""
        return self._event_shape

    @property
    def mean(self):
        """Mean of the distribution."""
        raise NotImplementedError

    @property
    def variance(self):
        """Variance of the distribution."""
        raise NotImplementedError

    def sample(self, shape=()):
        """Draw samples (no gradient)."""
        raise NotImplementedError

    def rsample(self, shape=()):
        """Draw reparameterized samples (gradients flow to the parameters)."""
        raise NotImplementedError

    def entropy(self):
        """Entropy of the distribution."""
        raise NotImplementedError

    def kl_divergence(self, other):
        """KL divergence KL(self || other)."""
        raise NotImplementedError

    def prob(self, value):
        """Density/mass at ``value``: exp(log_prob(value))."""
        return self.log_prob(value).exp()

    def log_prob(self, value):
        """Log density/mass at ``value``."""
        raise NotImplementedError

    def probs(self, value):
        """Density/mass at ``value`` (the old name of ``prob``)."""
        raise NotImplementedError

    # -- helpers shared by the subclasses ---------------------------------
    def _extend_shape(self, sample_shape):
        """sample_shape + batch_shape + event_shape, as a tuple."""
        return tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape)

    def _validate_args(self, *args):
        """True when all arguments are tensors, False when none is; mixing
        tensors with numbers is an error."""
        is_variable = any(is_tensor(a) for a in args)
        is_number = any(not is_tensor(a) for a in args)
        if is_variable and is_number:
            raise ValueError("if one argument is Tensor, all arguments should be Tensor")
        return is_variable

    def _to_tensor(self, *args):
        """Turn floats, lists, tuples and numpy arrays into constant tensors,
        broadcast against each other; float64 if any argument is float64,
        float32 otherwise."""
        arrays = []
        for arg in args:
            if not isinstance(arg, (float, list, tuple, np.ndarray)):
                raise TypeError("Type of input args must be float, list, tuple, numpy.ndarray "
                                f"or Tensor, but received type {type(arg)}")
            a = np.array(arg)
            if str(a.dtype) not in _FLOATS:
                warnings.warn("data type of argument only support float32 and float64, your "
                              "argument will be convert to float32.")
                a = a.astype("float32")
            arrays.append(a)
        total = sum(arrays[1:], arrays[0] * 0) if arrays else np.zeros(())
        dtype = np.result_type(*arrays)
        out = []
        for a in arrays:
            b = np.broadcast_to(a, np.broadcast_shapes(a.shape, total.shape)).astype(dtype)
            out.append(T.assign(np.array(b, copy=True)))
        return tuple(out)

    def _check_values_dtype_in_probs(self, param, value):
        """Cast ``value`` to ``param``'s float dtype (with a warning) when they
        differ."""
        vd, pd = dtype_name(value), dtype_name(param)
        if not in_dynamic_mode() and vd not in _FLOATS:
            raise TypeError(f"The data type of 'value' in log_prob must be one of "
                            f"['float32', 'float64'], but received {vd}.")
        if vd != pd and vd in _FLOATS:
            warnings.warn("dtype of input 'value' needs to be the same as parameters of "
                          "distribution class. dtype of 'value' will be converted.")
            return T.cast(value, pd)
        return value

    def _probs_to_logits(self, probs, is_binary=False):
        """log-odds (binary) or log-probabilities (categorical)."""
        if is_binary:
            return T.log(probs) - T.log1p(-probs)
        return T.log(probs)

    def _logits_to_probs(self, logits, is_binary=False):
        """sigmoid (binary) or softmax over the last axis (categorical)."""
        from ..nn import functional as F
        return F.sigmoid(logits) if is_binary else F.softmax(logits, axis=-1)


def _gradients(out, inputs):
    """d out / d inputs in either mode (eager: a differentiable grad)."""
    if in_dynamic_mode():
        return _tape.grad(out, inputs, create_graph=True)
    return _backward.gradients(out, inputs)


class ExponentialFamily(Distribution):
    """Base of exponential-family distributions, p(x) = h(x) exp(<t(x), θ> - F(θ)).

    Subclasses give the natural parameters θ (``_natural_parameters``), the
    log-normalizer F (``_log_normalizer``) and E[log h(x)]
    (``_mean_carrier_measure``); the entropy then is
    F(θ) - <θ, ∇F(θ)> - E[log h(x)], the gradient taken by autograd.
    """

    @property
    def _natural_parameters(self):
        raise NotImplementedError

    def _log_normalizer(self):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """Entropy through the Bregman identity (needs the three hooks above)."""
        entropy_value = -self._mean_carrier_measure
        params = []
        for p in self._natural_parameters:
            p = p.detach()
            p.stop_gradient = False
            params.append(p)
        log_norm = self._log_normalizer(*params)
        grads = _gradients(log_norm.sum(), params)
        entropy_value = entropy_value + log_norm
        for p, g in zip(params, grads):
            entropy_value = entropy_value - p * g
        return entropy_value
