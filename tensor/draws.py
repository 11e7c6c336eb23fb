"""Random draws parameterized by a tensor: ``paddle.bernoulli`` (0/1 with
probability x), ``paddle.poisson`` (counts of rate x),
``paddle.multinomial`` (category indices drawn from the rows of x) and
``paddle.tensor.top_p_sampling`` (nucleus sampling of the rows of x; Paddle
2.6 has it on GPUs only, sampan's kernel is a CPU one).  They draw
from the generator ``paddle.seed`` seeds (numpy's streams, so the values are
reproducible within sampan but not Paddle's numbers).  Their results stop
gradients, except ``poisson``'s, whose gradient is zero, as in Paddle.
"""
from ..ops import bind, get_op

__all__ = ["bernoulli", "poisson", "multinomial", "top_p_sampling"]
METHODS = ["multinomial", "top_p_sampling"]

_BERNOULLI = get_op("bernoulli")
_POISSON = get_op("poisson")
_MULTINOMIAL = get_op("multinomial")
_TOP_P = get_op("top_p_sampling")


def bernoulli(x, name=None):
    """0 or 1 per element, 1 with probability x (x in [0, 1]), in x's dtype."""
    return bind(_BERNOULLI, (x,))[0]


def poisson(x, name=None):
    """A Poisson count per element with rate x, in x's dtype."""
    return bind(_POISSON, (x,))[0]


def multinomial(x, num_samples=1, replacement=False, name=None):
    """``num_samples`` category indices (int64) per row of x (1-D or 2-D,
    unnormalized non-negative weights), with or without replacement."""
    return bind(_MULTINOMIAL, (x,), {"num_samples": int(num_samples),
                                     "replacement": bool(replacement)})[0]


def top_p_sampling(x, ps, threshold=None, seed=None, name=None):
    """(scores, ids): one index per row of x drawn from the smallest set of its
    highest scores whose sum reaches ``ps`` (per row), scores below
    ``threshold`` excluded; ``seed`` > 0 gives the op its own stream."""
    return tuple(bind(_TOP_P, (x, ps, threshold), {"seed": -1 if seed is None else int(seed)}))
