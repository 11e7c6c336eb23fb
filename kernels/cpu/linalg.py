"""numpy kernels of matmul_v2, bmm, dot, their grads and matmul_v2's double and
triple grads (kernels/cpu/bilinear.py)."""
import numpy as np

from ..registry import kernel, NUMERIC, FLOATS
from .bilinear import Bilinear, register
from .elementwise import reduce_to


def _t(a):
    return np.swapaxes(a, -1, -2) if a.ndim >= 2 else a


def matmul(x, y, tx, ty):
    if tx and x.ndim >= 2:
        x = _t(x)
    if ty and y.ndim >= 2:
        y = _t(y)
    out = np.matmul(x, y)
    return out if type(out) is np.ndarray else np.asarray(out)    # vector . vector


@kernel("matmul_v2", dtypes=NUMERIC)
def matmul_v2(ins, attrs, need):
    x, y = ins
    return (matmul(x, y, attrs["trans_x"], attrs["trans_y"]),)


def _matmul_fast(attrs):
    tx, ty = attrs["trans_x"], attrs["trans_y"]
    if not tx and not ty:
        return np.matmul
    return lambda x, y: matmul(x, y, tx, ty)


matmul_v2.fast = _matmul_fast
matmul_v2.fresh = True


def matmul_grads(x, y, g, tx, ty, need=None):
    """dX, dY of matmul(x, y, tx, ty) given dOut, for every rank pair matmul
    accepts.  A vector X is the row matrix [1, K] and a vector Y the column
    [K, 1] (their transpose flags ignored, as in the forward); dOut gets those
    unit axes back, the products run on the batched matrices, and each gradient
    is summed over the batch dims its input was broadcast along, then takes its
    input's shape."""
    xv, yv = x.ndim == 1, y.ndim == 1
    x2 = x[None, :] if xv else x
    y2 = y[:, None] if yv else y
    tx, ty = tx and not xv, ty and not yv
    g2 = g[..., None] if yv else g          # [..., M] -> [..., M, 1]
    if xv:
        g2 = g2[..., None, :]               # [..., N] -> [..., 1, N]
    dx = dy = None
    if need is None or need[0]:
        # Out = X' Y' with X' = op(X): dX' = g Y'^T, and dX = dX'^T when transposed
        dx = matmul(y2, g2, ty, True) if tx else matmul(g2, y2, False, not ty)
        dx = reduce_to(dx, x2.shape).reshape(x.shape)
    if need is None or need[1]:
        dy = matmul(g2, x2, True, tx) if ty else matmul(x2, g2, not tx, False)
        dy = reduce_to(dy, y2.shape).reshape(y.shape)
    return dx, dy


@kernel("matmul_v2_grad", dtypes=NUMERIC)
def matmul_v2_grad(ins, attrs, need):
    x, y, g = ins
    if x.ndim == 2 and y.ndim == 2 and not attrs["trans_x"] and not attrs["trans_y"]:
        # the common Linear case: what matmul_grads computes, without its generality
        return (np.matmul(g, y.T) if need is None or need[0] else None,
                np.matmul(x.T, g) if need is None or need[1] else None)
    return matmul_grads(x, y, g, attrs["trans_x"], attrs["trans_y"], need)


matmul_v2_grad.fresh = True

# double and triple grads (matmul_v2's, and bmm's through matmul_v2_grad_grad)
MATMUL = Bilinear(lambda a, b, at: matmul(a, b, at["trans_x"], at["trans_y"]),
                  lambda a, b, d, at, need: matmul_grads(a, b, d, at["trans_x"],
                                                         at["trans_y"], need))
register(MATMUL, ("matmul_v2_grad_grad",), ("matmul_v2_triple_grad",), NUMERIC)


@kernel("bmm", dtypes=FLOATS)
def bmm(ins, attrs, need):
    return (np.matmul(ins[0], ins[1]),)


@kernel("bmm_grad", dtypes=NUMERIC)
def bmm_grad(ins, attrs, need):
    x, y, g = ins
    return matmul_grads(x, y, g, False, False, need)


@kernel("dot", dtypes=NUMERIC)
def dot(ins, attrs, need):
    x, y = ins
    return (np.asarray(np.sum(x * y, axis=-1)),)


@kernel("dot_grad", dtypes=NUMERIC)
def dot_grad(ins, attrs, need):
    x, y, g = ins
    g = g[..., None]                  # Out has X's shape without its last dim
    return (g * y if need is None or need[0] else None,
            g * x if need is None or need[1] else None)
