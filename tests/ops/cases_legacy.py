"""Op-spec cases: fluid-era ops (mul)."""
import numpy as np

from .spec import Case, rand


def _mul(X, Y, xn, yn):
    x2 = X.reshape(int(np.prod(X.shape[:xn])), -1)
    y2 = Y.reshape(int(np.prod(Y.shape[:yn])), -1)
    return (x2 @ y2).reshape(X.shape[:xn] + Y.shape[yn:])


CASES = [
    Case("mul", {"X": rand(2, 3, seed=31), "Y": rand(3, 4, seed=32)},
         ref=lambda X, Y: X @ Y, order2=True),
    Case("mul", {"X": rand(2, 3, 2, seed=33), "Y": rand(6, 3, seed=34)},
         ref=lambda X, Y: _mul(X, Y, 1, 1), id="mul_flatten_x"),
    Case("mul", {"X": rand(2, 3, 2, seed=35), "Y": rand(2, 2, 3, seed=36)},
         {"x_num_col_dims": 2, "y_num_col_dims": 1},
         ref=lambda X, Y: _mul(X, Y, 2, 1), id="mul_col_dims", order2=True),
]
