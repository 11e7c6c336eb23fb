"""Ops behind the Tensor surface: the in-place fills (``fill_any``:
``Tensor.fill_``/``zero_``; ``gaussian_inplace``: ``normal_``;
``exponential``: ``exponential_``), the random draws ``bernoulli``,
``multinomial`` and ``poisson``, and ``is_empty``.

A fill replaces every value of its input, so the gradient reaching the
input through it is zero: ``fill_any_grad``, ``gaussian_inplace_grad`` and
``poisson_grad`` are Paddle's grad ops; Paddle's static ``exponential`` has
none (its eager one gives zeros), so here its gradient is
``fill_zeros_like``.  ``bernoulli`` and ``multinomial`` have no gradient
(their outputs stop it).  The random ops draw from ``kernels/random.py``.
"""
from ..declare import defop, defgrad, grad_op
from ..meta_rules import same_as_x, BOOL, INT64
from ..registry import GradOp, Meta, OpError

# ------------------------------------------------------------------ fills
defgrad("fill_any_grad", "Out@GRAD", "X@GRAD", (("value", "FLOAT", 0.0),))
defop("fill_any", "X", "Out", (("value", "FLOAT", 0.0),), infer=same_as_x,
      grad=grad_op("fill_any_grad", gouts=("Out",), wrt=("X",)), no_need_buffer=("X",))

defgrad("gaussian_inplace_grad", "out@GRAD", "x@GRAD",
        (("mean", "FLOAT", 0.0), ("std", "FLOAT", 1.0), ("seed", "INT", 0)))
defop("gaussian_inplace", "x", "out",
      (("mean", "FLOAT", 0.0), ("std", "FLOAT", 1.0), ("seed", "INT", 0)), infer=same_as_x,
      grad=grad_op("gaussian_inplace_grad", gouts=("out",), wrt=("x",)), random=True,
      no_need_buffer=("x",))

defop("exponential", "X", "Out", (("lambda", "FLOAT", 1.0),), infer=same_as_x,
      grad=GradOp("fill_zeros_like", {"X": "Out@GRAD"}, {"Out": "X@GRAD"}, lambda a: {}),
      random=True, no_need_buffer=("X",))


# ------------------------------------------------------------------ random draws
defop("bernoulli", "X", "Out", infer=same_as_x, random=True)

defgrad("poisson_grad", "Out@GRAD", "X@GRAD")
defop("poisson", "X", "Out", infer=same_as_x, random=True,
      grad=grad_op("poisson_grad", gouts=("Out",), wrt=("X",)))


def multinomial_check(shape, num_samples):
    """Paddle's checks of multinomial's input rank and sample count (shared
    with the kernel: the eager engine does not run infer_meta)."""
    rank = len(shape)
    if rank <= 0:
        raise OpError("multinomial: the number of dimensions of the input probability "
                      f"distribution should be > 0, but got {rank}")
    if rank > 2:
        raise OpError("multinomial: the number of dimensions of the input probability "
                      f"distribution should be <= 2, but got {rank}")
    if num_samples <= 0:
        raise OpError(f"multinomial: the number of samples should be > 0, but got "
                      f"{num_samples}")


def _multinomial_infer(metas, attrs):
    x, n = metas[0], int(attrs["num_samples"])
    multinomial_check(x.shape, n)
    return (Meta(tuple(x.shape[:-1]) + (n,), INT64),)


defop("multinomial", "X", "Out", (("num_samples", "INT", 1), ("replacement", "BOOLEAN", False)),
      infer=_multinomial_infer, random=True)


# ------------------------------------------------------------------ queries
defop("is_empty", "X", "Out", infer=lambda m, a: (Meta((), BOOL),), no_need_buffer=("X",))


# ------------------------------------------------------------------ top-p sampling
def _top_p_infer(metas, attrs):
    x, ps = metas[0], metas[1]
    if len(x.shape) < 1:
        raise OpError("top_p_sampling: x must have at least 1 dimension, got a 0-D tensor")
    if len(ps.shape) != 1:
        raise OpError(f"top_p_sampling: ps must be a 1-D tensor, got shape {list(ps.shape)}")
    out = tuple(x.shape[:-1]) + (1,)
    return (Meta(out, x.dtype), Meta(out, INT64))


# Paddle 2.6 has GPU kernels only; sampan's kernel is its CPU counterpart
defop("top_p_sampling", "x ps threshold?", "out ids", (("seed", "INT", -1),),
      infer=_top_p_infer, random=True)
