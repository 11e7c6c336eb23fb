"""Op-spec cases: the in-place fills (fill_any, gaussian_inplace, exponential),
the random draws (bernoulli, multinomial, poisson) and is_empty.

A fill's output does not depend on its input's values, so its gradient is
zero; the finite-difference checks run on draws made deterministic (a seeded
gaussian_inplace, an exponential of rate inf, a poisson of non-positive rates)."""
import numpy as np

from .spec import Case, rand

A = rand(3, 4, seed=71)
P = rand(40, 50, low=0.0, high=1.0, seed=72)


def _draws(shape, dtype, values=None, mean=None, tol=0.1):
    """A property check: shape, dtype, the values allowed and (roughly) the mean."""
    def check(a):
        ok = a.shape == tuple(shape) and a.dtype == np.dtype(dtype)
        if values is not None:
            ok = ok and bool(np.isin(a, values).all())
        if mean is not None:
            ok = ok and abs(float(a.mean()) - mean) < tol
        return bool(ok)
    return check


def _multinomial_rows(n, replace, allowed):
    def check(a):
        ok = a.shape == (len(allowed), n) and a.dtype == np.int64
        for row, cats in zip(a, allowed):
            ok = ok and set(row.tolist()) <= set(cats)
            if not replace:
                ok = ok and len(set(row.tolist())) == n
        return bool(ok)
    return check


CASES = [
    Case("fill_any", {"X": A}, {"value": 2.5}, ref=lambda X: np.full_like(X, 2.5)),
    Case("fill_any", {"X": np.array([1, -3], "int32")}, {"value": -2.7},
         ref=lambda X: np.array([-2, -2], "int32"), grad=False, id="fill_any_int"),
    Case("fill_any", {"X": np.array([True, False])}, {"value": 0.5},
         ref=lambda X: np.array([True, True]), grad=False, id="fill_any_bool"),
    Case("gaussian_inplace", {"x": P}, {"mean": 1.0, "std": 2.0, "seed": 3},
         ref=lambda x: _draws(P.shape, "float64", mean=1.0, tol=0.15), random_op=True),
    Case("gaussian_inplace", {"x": P.astype("float32")}, {"mean": -1.0, "std": 0.5},
         ref=lambda x: _draws(P.shape, "float32", mean=-1.0, tol=0.05), random_op=True,
         grad=False, id="gaussian_inplace_global"),
    Case("exponential", {"X": P}, {"lambda": 2.0},
         ref=lambda X: _draws(P.shape, "float64", mean=0.5, tol=0.05), random_op=True,
         grad=False, id="exponential_draws"),
    Case("exponential", {"X": A}, {"lambda": float("inf")},
         ref=lambda X: np.zeros_like(X), id="exponential_rate_inf"),
    Case("bernoulli", {"X": P}, ref=lambda X: _draws(P.shape, "float64", (0.0, 1.0),
                                                     mean=float(P.mean()), tol=0.05),
         random_op=True, grad=False),
    Case("bernoulli", {"X": np.array([0.0, 1.0, 1.0], "float32")},
         ref=lambda X: np.array([0.0, 1.0, 1.0], "float32"), grad=False, id="bernoulli_certain"),
    Case("poisson", {"X": np.full((40, 50), 3.0)},
         ref=lambda X: _draws((40, 50), "float64", mean=3.0, tol=0.15), random_op=True,
         grad=False, id="poisson_draws"),
    Case("poisson", {"X": -np.abs(A) - 0.5}, ref=lambda X: np.zeros_like(X),
         id="poisson_nonpositive_rate"),
    Case("multinomial", {"X": np.array([[0.2, 0.0, 0.8], [1.0, 1.0, 1.0]], "float32")},
         {"num_samples": 2}, ref=lambda X: _multinomial_rows(2, False, [(0, 2), (0, 1, 2)]),
         random_op=True, grad=False),
    Case("multinomial", {"X": np.array([0.0, 3.0, 1.0])}, {"num_samples": 5, "replacement": True},
         ref=lambda X: (lambda a: a.shape == (5,) and set(a.tolist()) <= {1, 2}),
         random_op=True, grad=False, id="multinomial_replacement"),
    Case("top_p_sampling", {"x": A.astype("float32"), "ps": np.array([-1.0, 0.0, -0.5], "float32")},
         ref=lambda x, ps: (x.max(-1, keepdims=True), x.argmax(-1)[:, None]), grad=False),
    Case("top_p_sampling", {"x": P[:4], "ps": np.full(4, 0.3), "threshold": np.array([0.5])},
         ref=lambda x, ps, threshold: (lambda a: a.shape == (4, 1) and bool((a >= 0.5).all()),
                                       lambda a: a.shape == (4, 1) and a.dtype == np.int64),
         random_op=True, grad=False, id="top_p_sampling_threshold"),
    Case("is_empty", {"X": A}, ref=lambda X: np.array(False), grad=False),
    Case("is_empty", {"X": np.zeros((2, 0), "int64")}, ref=lambda X: np.array(True),
         grad=False, id="is_empty_true"),
]
