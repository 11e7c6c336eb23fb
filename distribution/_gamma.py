"""Gamma variates from sampan's own uniform and normal streams.

sampan has no gamma/dirichlet sampling op, so ``Dirichlet.sample`` (and
``Beta.sample`` through it) draw Gamma(alpha, 1) variates here with
Marsaglia & Tsang's squeeze-rejection method (ACM TOMS 26(3), 2000), written
with tensor ops so ``sampan.seed`` makes them reproducible and the same code
builds a static Program:

* for alpha >= 1: d = alpha - 1/3, c = 1/sqrt(9 d); draw x ~ N(0, 1),
  v = (1 + c x)^3, u ~ U(0, 1); accept d v when v > 0 and
  log u < x^2 / 2 + d - d v + d log v;
* for alpha < 1: a draw g for alpha + 1 times u^(1/alpha).

The rejection loop is vectorized: every round proposes for all elements and
keeps the first accepted proposal of each.  The acceptance rate is above 95%
per round, so after ``_ROUNDS`` rounds an element is still pending with
probability below 1e-26; eagerly the loop goes on until none is pending (an
exact sampler), in a static Program it stops after ``_ROUNDS`` rounds.

Results are returned as logarithms so that tiny draws (small alpha, where
u^(1/alpha) underflows) stay finite and a Dirichlet draw is a softmax of them.
"""
from .. import tensor as T
from ..ops.mode import in_dynamic_mode

_ROUNDS = 20
_MAX_EAGER_ROUNDS = 1000


def log_standard_gamma(alpha):
    """log of one Gamma(alpha, 1) draw per element of ``alpha`` (a float
    tensor, all elements > 0), same shape and dtype; no gradient."""
    dtype = alpha.dtype
    shape = alpha.shape
    small = alpha < 1.0
    a = T.where(small, alpha + 1.0, alpha)
    d = a - 1.0 / 3.0
    c = T.rsqrt(9.0 * d)
    result = T.zeros_like(alpha)
    done = T.zeros_like(alpha) > 1.0   # all False, shaped like alpha

    def one_round(result, done):
        x = T.randn(shape, dtype=dtype)
        v = (1.0 + c * x) ** 3
        ok = v > 0.0
        log_v = T.log(T.where(ok, v, T.ones_like(v)))
        u = T.rand(shape, dtype=dtype)
        accept = T.logical_and(ok, T.log(u) < 0.5 * x * x + d - d * v + d * log_v)
        take = T.logical_and(accept, T.logical_not(done))
        result = T.where(take, T.log(d) + log_v, result)
        return result, T.logical_or(done, accept)

    for _ in range(_ROUNDS):
        result, done = one_round(result, done)
    if in_dynamic_mode():
        extra = 0
        while not bool(T.all(done)) and extra < _MAX_EAGER_ROUNDS:
            result, done = one_round(result, done)
            extra += 1
    # the boost for alpha < 1: multiply by u^(1/alpha), i.e. add log(u)/alpha
    u = T.rand(shape, dtype=dtype)
    boost = T.log(u) / alpha
    return T.where(small, result + boost, result)
