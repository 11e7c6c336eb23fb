"""numpy kernels of ops/defs/tensor_surface.py: the in-place fills, the random
draws (bernoulli, multinomial, poisson, exponential, gaussian_inplace) and
is_empty.  Random kernels draw from ``kernels/random.py`` (``rng_for``: the
op's own seed, or the global generator).
"""
import numpy as np

from ...ops import OpError
from ...ops.defs.tensor_surface import multinomial_check
from ..random import rng_for
from ..registry import kernel, ALL, COMPLEX

_F = ("float32", "float64")


def _zeros_like_grad(ins, attrs, need):
    return (np.zeros_like(ins[0]),)


# ------------------------------------------------------------------ fills
@kernel("fill_any", dtypes=ALL + COMPLEX)
def fill_any(ins, attrs, need):
    x = ins[0]
    return (np.full(x.shape, attrs["value"]).astype(x.dtype),)


kernel("fill_any_grad", dtypes=("bool", "float16", "float32", "float64", "int32",
                                "int64"))(_zeros_like_grad)
kernel("gaussian_inplace_grad", "poisson_grad", dtypes=_F)(_zeros_like_grad)


@kernel("gaussian_inplace", dtypes=_F)
def gaussian_inplace(ins, attrs, need):
    x = ins[0]
    r = rng_for(attrs).standard_normal(x.shape)
    return ((r * attrs["std"] + attrs["mean"]).astype(x.dtype),)


@kernel("exponential", dtypes=_F)
def exponential(ins, attrs, need):
    """``-log(1 - u) / lambda`` for u uniform in [0, 1) (a negative lambda gives
    negative samples, as Paddle's kernel)."""
    x = ins[0]
    u = rng_for(attrs).random(x.shape)
    return ((-np.log1p(-u) / attrs["lambda"]).astype(x.dtype),)


# ------------------------------------------------------------------ random draws
@kernel("bernoulli", dtypes=_F)
def bernoulli(ins, attrs, need):
    p = ins[0]
    if p.size:
        bad = p[(p < 0) | (p > 1) | np.isnan(p)]
        if bad.size:
            v = float(bad.ravel()[0])
            raise OpError(f"op 'bernoulli': the probability should be in [0, 1], but got {v}",
                          kind=IndexError)
    return ((rng_for(attrs).random(p.shape) < p).astype(p.dtype),)


@kernel("poisson", dtypes=_F)
def poisson(ins, attrs, need):
    """Poisson counts of rate X (a negative rate counts 0, as Paddle's kernel)."""
    lam = np.maximum(ins[0].astype(np.float64), 0.0)
    return (rng_for(attrs).poisson(lam).astype(ins[0].dtype),)


def _row_probs(row, n, replacement):
    """The sampling distribution of one row of unnormalized probabilities,
    with Paddle's checks (an Inf weight takes all the mass)."""
    if np.isnan(row).any() or (row < 0).any():
        v = float(row[np.isnan(row) | (row < 0)][0])
        raise OpError(f"op 'multinomial': the input of multinomial distribution should be "
                      f">= 0, but got {v}")
    total = float(row.astype(np.float64).sum())
    if not total > 0:
        raise OpError("op 'multinomial': the sum of one multinomial distribution probability "
                      f"should be > 0, but got {total}")
    if not replacement and int((row != 0).sum()) < n:
        raise OpError("op 'multinomial': when replacement is False, the number of samples "
                      f"({n}) should be at most the number of non-zero categories "
                      f"({int((row != 0).sum())})")
    if np.isinf(total):
        w = np.isinf(row).astype(np.float64)
        return w / w.sum()
    return row.astype(np.float64) / total


@kernel("multinomial", dtypes=_F)
def multinomial(ins, attrs, need):
    x = ins[0]
    n, replacement = int(attrs["num_samples"]), bool(attrs["replacement"])
    multinomial_check(x.shape, n)
    rng = rng_for(attrs)
    rows = x.reshape(-1, x.shape[-1])
    out = np.empty((rows.shape[0], n), np.int64)
    for i, row in enumerate(rows):
        p = _row_probs(row, n, replacement)
        out[i] = rng.choice(row.shape[0], size=n, replace=replacement, p=p)
    return (out.reshape(x.shape[:-1] + (n,)),)


# ------------------------------------------------------------------ queries
@kernel("is_empty", dtypes=("float32", "float64", "int32", "int64"))
def is_empty(ins, attrs, need):
    return (np.array(ins[0].size == 0),)


# ------------------------------------------------------------------ top-p sampling
@kernel("top_p_sampling", dtypes=("float16", "float32", "float64"))
def top_p_sampling(ins, attrs, need):
    """Per row of x (scores over the last axis): the candidates in descending
    order, those below ``threshold`` dropped (the best one always kept); a
    draw r = u * ps (u uniform in [0, 1)) picks the first candidate whose
    running sum reaches r (the best one when r <= 0, so a ps <= 0 picks it).
    Returns its score and its index, each with a last dim of 1."""
    x, ps, thr = ins
    seed = int(attrs["seed"])
    rng = rng_for({"seed": seed if seed > 0 else 0})
    rows = x.reshape(-1, x.shape[-1])
    if ps.shape[0] != rows.shape[0]:
        raise OpError(f"op 'top_p_sampling': ps has {ps.shape[0]} values for {rows.shape[0]} "
                      "rows of x")
    ids = np.empty(rows.shape[0], np.int64)
    for i, row in enumerate(rows):
        order = np.argsort(-row.astype(np.float64), kind="stable")
        scores = row[order].astype(np.float64)
        if thr is not None:
            keep = scores >= float(thr.reshape(-1)[i if thr.size > 1 else 0])
            keep[0] = True
            order, scores = order[keep], scores[keep]
        r = rng.random() * float(ps[i])
        k = 0 if r <= 0 else int(np.searchsorted(np.cumsum(scores), r, side="left"))
        ids[i] = order[min(k, len(order) - 1)]
    out = np.take_along_axis(rows, ids[:, None], axis=1)
    shape = x.shape[:-1] + (1,)
    return (out.reshape(shape), ids.reshape(shape))
