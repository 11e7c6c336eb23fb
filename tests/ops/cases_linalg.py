"""Op-spec cases: matmul_v2 over every rank pair it accepts (vectors, matrices,
batches broadcast against each other, with and without transposes), with
double and triple grads; bmm; dot (vectors and batched rows)."""
import numpy as np

from .spec import Case, rand


def _mm(tx=False, ty=False):
    """numpy's matmul with Paddle's transposes (ignored for a vector)."""
    def ref(X, Y):
        x = np.swapaxes(X, -1, -2) if tx and X.ndim > 1 else X
        y = np.swapaxes(Y, -1, -2) if ty and Y.ndim > 1 else Y
        return np.asarray(np.matmul(x, y))
    return ref


def _matmul(x_shape, y_shape, tx=False, ty=False, order=3, id=None):
    attrs = {k: v for k, v in (("trans_x", tx), ("trans_y", ty)) if v}
    return Case("matmul_v2", {"X": rand(*x_shape, seed=6), "Y": rand(*y_shape, seed=7)}, attrs,
                ref=_mm(tx, ty), order2=order == 2, order3=order == 3, id=id or
                f"matmul_{'x'.join(map(str, x_shape))}_{'x'.join(map(str, y_shape))}"
                + ("_tx" if tx else "") + ("_ty" if ty else ""))


CASES = [
    Case("matmul_v2", {"X": rand(2, 3, seed=6), "Y": rand(3, 4, seed=7)}, ref=_mm(),
         order3=True),
    # vector operands: a vector X is a row, a vector Y a column; flags ignored
    _matmul((3,), (3,)),
    _matmul((3,), (3,), tx=True, ty=True),
    _matmul((3,), (3, 2)),
    _matmul((3,), (2, 3), ty=True),
    _matmul((3,), (2, 3, 2)),
    _matmul((3,), (2, 2, 3), tx=True, ty=True),
    _matmul((2, 3), (3,)),
    _matmul((3, 2), (3,), tx=True),
    _matmul((2, 2, 3), (3,)),
    _matmul((2, 3, 2), (3,), tx=True, ty=True),
    # batches, broadcast against each other and against a matrix
    _matmul((2, 3, 2), (4, 3), tx=True, ty=True),
    _matmul((2, 2, 3), (3, 2)),
    _matmul((2, 3), (2, 3, 2)),
    _matmul((2, 1, 2, 3), (3, 3, 2)),
    _matmul((2, 1, 3, 2), (3, 2, 3), tx=True, ty=True),
    _matmul((1, 2, 3), (2, 1, 3, 2), id="matmul_bcast_leading_1"),
    _matmul((2, 1, 3, 4), (5, 4, 6), order=2),
    # bmm's gradient is matmul_v2's double grad
    Case("bmm", {"X": rand(2, 2, 3, seed=8), "Y": rand(2, 3, 2, seed=9)},
         ref=lambda X, Y: X @ Y, order2=True),
    Case("dot", {"X": rand(3, seed=8), "Y": rand(3, seed=9)},
         ref=lambda X, Y: np.asarray(X @ Y), id="dot_vectors"),
    Case("dot", {"X": rand(2, 3, seed=8), "Y": rand(2, 3, seed=9)},
         ref=lambda X, Y: (X * Y).sum(-1)),
]
