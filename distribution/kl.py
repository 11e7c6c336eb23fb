"""``kl_divergence(p, q)`` and ``register_kl``: a table of KL functions keyed
by (type of p, type of q), looked up by the most specific registered pair of
base classes, plus the closed forms Paddle 2.6 registers."""
import functools
import warnings

from .. import tensor as T
from .continuous import Beta, Cauchy, Dirichlet, Laplace, Normal, Uniform
from .discrete import Bernoulli, Categorical, Geometric
from .distribution import Distribution, ExponentialFamily, _gradients, sum_rightmost
from .transformed import LogNormal

__all__ = ["register_kl", "kl_divergence"]

_REGISTER_TABLE = {}


def kl_divergence(p, q):
    """KL(p || q) = E_p[log p(x) - log q(x)], from the registered function
    for the closest matching pair of classes (NotImplementedError if none)."""
    return _dispatch(type(p), type(q))(p, q)


def register_kl(cls_p, cls_q):
    """Decorator registering ``f(p, q)`` as the KL divergence of instances of
    ``cls_p`` and ``cls_q`` (subclasses of Distribution)."""
    if not (isinstance(cls_p, type) and issubclass(cls_p, Distribution)) or \
            not (isinstance(cls_q, type) and issubclass(cls_q, Distribution)):
        raise TypeError("cls_p and cls_q must be subclass of Distribution")

    def decorator(f):
        _REGISTER_TABLE[cls_p, cls_q] = f
        return f
    return decorator


@functools.total_ordering
class _Order:
    """Orders class pairs lexicographically by specificity (a subclass
    comes before its bases)."""

    def __init__(self, *classes):
        self.classes = classes

    def __eq__(self, other):
        return self.classes == other.classes

    def __le__(self, other):
        for x, y in zip(self.classes, other.classes):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch(cls_p, cls_q):
    matches = [(a, b) for a, b in _REGISTER_TABLE if issubclass(cls_p, a) and issubclass(cls_q, b)]
    if not matches:
        raise NotImplementedError
    left = min(_Order(*m) for m in matches).classes
    right = tuple(reversed(min(_Order(*reversed(m)) for m in matches).classes))
    if _REGISTER_TABLE[left] is not _REGISTER_TABLE[right]:
        warnings.warn(f"Ambiguous kl_divergence({cls_p.__name__}, {cls_q.__name__}). "
                      f"Please register_kl({left[0].__name__}, {right[1].__name__})",
                      RuntimeWarning)
    return _REGISTER_TABLE[left]


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    pa, pb, qa, qb = p.alpha, p.beta, q.alpha, q.beta
    return (T.lgamma(qa) + T.lgamma(qb) + T.lgamma(pa + pb)
            - (T.lgamma(pa) + T.lgamma(pb) + T.lgamma(qa + qb))
            + (pa - qa) * T.digamma(pa) + (pb - qb) * T.digamma(pb)
            + (qa + qb - (pa + pb)) * T.digamma(pa + pb))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    pc, qc = p.concentration, q.concentration
    p0 = pc.sum(-1)
    return (T.lgamma(p0) - T.lgamma(qc.sum(-1)) - (T.lgamma(pc) - T.lgamma(qc)).sum(-1)
            + ((pc - qc) * (T.digamma(pc) - T.digamma(p0).unsqueeze(-1))).sum(-1))


def _own_closed_form(p, q):
    """The pair's closed form, the distribution's own ``kl_divergence``."""
    return p.kl_divergence(q)


# (Uniform is registered as in Paddle 2.6, where Uniform has no kl_divergence method)
for _cls in (Bernoulli, Categorical, Cauchy, Normal, Uniform, Laplace, Geometric):
    register_kl(_cls, _cls)(_own_closed_form)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log-normalizer F between the natural
    parameters: F(q) - F(p) - <q - p, grad F(p)> (same family only)."""
    if type(p) is not type(q):
        raise NotImplementedError
    p_params = []
    for param in p._natural_parameters:
        param = param.detach()
        param.stop_gradient = False
        p_params.append(param)
    q_params = q._natural_parameters
    p_log_norm = p._log_normalizer(*p_params)
    try:
        p_grads = _gradients(p_log_norm.sum(), p_params)
    except RuntimeError as e:
        raise TypeError(f"Cann't compute kl_divergence({type(p).__name__}, {type(q).__name__}) "
                        f"use bregman divergence. Please register_kl({type(p).__name__}, "
                        f"{type(q).__name__}).") from e
    kl = q._log_normalizer(*q_params) - p_log_norm
    for pp, qp, g in zip(p_params, q_params, p_grads):
        kl = kl - sum_rightmost((qp - pp) * g, len(q.event_shape))
    return kl


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return p._base.kl_divergence(q._base)
