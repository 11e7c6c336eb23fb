"""``paddle.distribution``: probability distributions, transforms between
random variables and KL divergences (Paddle 2.6's 31 public names).

Written on sampan's public tensor functions, so densities, entropies and
reparameterized samples carry gradients eagerly and build static Programs
under ``to_static``; samples come from sampan's random ops (``sampan.seed``).

Modules: ``distribution`` (base classes), ``continuous``, ``discrete``,
``transformed`` (Independent, TransformedDistribution, Gumbel, LogNormal),
``transforms``, ``kl``; ``_gamma`` draws the Gamma variates behind
Dirichlet and Beta sampling.
"""
from .distribution import Distribution, ExponentialFamily
from .continuous import Beta, Cauchy, Dirichlet, Laplace, Normal, Uniform
from .discrete import Bernoulli, Categorical, Geometric, Multinomial
from .transformed import Gumbel, Independent, LogNormal, TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, ExpTransform, PowerTransform,
                         SigmoidTransform, SoftmaxTransform, TanhTransform, Transform)
from .transforms_structural import (ChainTransform, IndependentTransform, ReshapeTransform,
                                    StackTransform, StickBreakingTransform)
from .kl import kl_divergence, register_kl

__all__ = [
    "Bernoulli", "Beta", "Categorical", "Cauchy", "Dirichlet", "Distribution",
    "ExponentialFamily", "Geometric", "Gumbel", "Independent", "Laplace", "LogNormal",
    "Multinomial", "Normal", "TransformedDistribution", "Uniform",
    "kl_divergence", "register_kl",
    "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform",
    "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
    "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "TanhTransform",
    "Transform",
]
