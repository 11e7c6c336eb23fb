"""Random tensors (rand, randn, uniform, normal, randint, randperm, ...) and the
generator controls (``seed``, ``get_rng_state``, ``set_rng_state``).

``seed(n)`` makes every later random op deterministic, but the streams are
numpy's (``np.random.default_rng``), so the values differ from real Paddle's
for the same seed.  A non-zero ``seed`` argument gives an op its own stream
(the same values on every call).
"""
import numpy as np

from ..kernels import random as _gen
from ..ops import bind, get_op, OpError
from ..ops.dtypes import to_enum, to_np_dtype
from .creation import int_list_args, is_var, full
from .creation_base import default_float

__all__ = ["seed", "get_rng_state", "set_rng_state", "rand", "randn", "standard_normal",
           "uniform", "normal", "randint", "randint_like", "randperm", "get_cuda_rng_state",
           "set_cuda_rng_state"]
EXTRA_METHODS = {}

_UNIFORM = get_op("uniform_random")
_GAUSSIAN = get_op("gaussian_random")
_RANDINT = get_op("randint")
_RANDPERM = get_op("randperm")


def seed(seed):
    """Seed the global generator (numpy PCG64, not Paddle's Philox/MT streams)."""
    return _gen.seed(seed)


def get_rng_state(device=None):
    return [_gen.get_state()]


def set_rng_state(state_list, device=None):
    state = state_list[0] if isinstance(state_list, (list, tuple)) else state_list
    _gen.set_state(state)


get_cuda_rng_state = get_rng_state
set_cuda_rng_state = set_rng_state


def _float_dtype(dtype, what):
    dt = default_float() if dtype is None else to_np_dtype(dtype)
    if dt.kind != "f":
        raise TypeError(f"{what} only supports float dtypes, got {dt}")
    return dt


def _random(op, shape, attrs):
    ints, st, sl = int_list_args(shape)
    attrs["shape"] = ints
    return bind(op, (st, sl), attrs)[0]


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None):
    dt = _float_dtype(dtype, "uniform")
    return _random(_UNIFORM, shape, {"dtype": to_enum(dt), "min": float(min),
                                     "max": float(max), "seed": int(seed)})


def rand(shape, dtype=None, name=None):
    return uniform(shape, dtype, 0.0, 1.0)


def _gaussian(shape, mean, std, dtype, seed=0):
    dt = _float_dtype(dtype, "gaussian")
    return _random(_GAUSSIAN, shape, {"dtype": to_enum(dt), "mean": float(mean),
                                      "std": float(std), "seed": int(seed)})


def randn(shape, dtype=None, name=None):
    return _gaussian(shape, 0.0, 1.0, dtype)


def standard_normal(shape, dtype=None, name=None):
    return _gaussian(shape, 0.0, 1.0, dtype)


def normal(mean=0.0, std=1.0, shape=None, name=None):
    """Samples of N(mean, std); ``mean``/``std`` may be tensors (then the
    output takes their broadcast shape and ``shape`` is ignored)."""
    if not is_var(mean) and not is_var(std):
        return _gaussian([1] if shape is None else shape, mean, std, None)
    ref = mean if is_var(mean) else std
    from .math import add, multiply
    z = _gaussian(ref.shape if not (is_var(mean) and is_var(std)) else
                  list(np.broadcast_shapes(tuple(mean.shape), tuple(std.shape))),
                  0.0, 1.0, ref.dtype)
    s = std if is_var(std) else full([1], std, ref.dtype)
    m = mean if is_var(mean) else full([1], mean, ref.dtype)
    return add(multiply(z, s), m)


def randint(low=0, high=None, shape=[1], dtype=None, name=None):  # noqa: B006 (Paddle's default)
    if high is None:
        if low <= 0:
            raise OpError(f"op 'randint': with high=None, low ({low}) must be > 0")
        low, high = 0, low
    if low >= high:
        raise OpError(f"op 'randint': low ({low}) must be less than high ({high})")
    dt = np.dtype("int64") if dtype is None else to_np_dtype(dtype)
    return _random(_RANDINT, shape, {"low": int(low), "high": int(high),
                                     "dtype": to_enum(dt)})


def randint_like(x, low=0, high=None, dtype=None, name=None):
    dt = to_np_dtype(x.dtype) if dtype is None else to_np_dtype(dtype)
    from .manipulation import shape
    out = randint(low, high, shape(x), "int64")      # the runtime shape, as Paddle
    if dt != np.dtype("int64"):
        from .math import cast
        out = cast(out, dt)
    return out


def randperm(n, dtype="int64", name=None):
    return bind(_RANDPERM, (), {"n": int(n), "dtype": to_enum(dtype)})[0]


def _uniform_(x, min=-1.0, max=1.0, seed=0, name=None):
    """In place: refill x with U(min, max) samples (Tensor.uniform_).  Unlike
    ``uniform``, Paddle's in-place kernel requires min < max."""
    if not min < max:
        raise OpError(f"op 'uniform_random_inplace': min ({min}) must be less than max ({max})")
    from .indexing import rebind
    return rebind(x, uniform(list(x.shape), x.dtype, min, max, seed), keep_grad=True)


EXTRA_METHODS["uniform_"] = _uniform_
