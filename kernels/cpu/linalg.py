"""numpy kernels of matmul_v2, bmm, dot and their grads."""
import numpy as np

from ..registry import kernel, NUMERIC
from .elementwise import reduce_to


def _t(a):
    return np.swapaxes(a, -1, -2) if a.ndim >= 2 else a


def matmul(x, y, tx, ty):
    if tx and x.ndim >= 2:
        x = _t(x)
    if ty and y.ndim >= 2:
        y = _t(y)
    return np.matmul(x, y)


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
    """dX, dY of matmul(x, y, tx, ty) given dOut, with vector and batch handling."""
    xv, yv = x.ndim == 1, y.ndim == 1
    x2 = x[None, :] if xv else x
    y2 = y[:, None] if yv else y
    g2 = g
    if xv:
        g2 = np.expand_dims(g2, -2)
    if yv:
        g2 = np.expand_dims(g2, -1)
    dx = dy = None
    if need is None or need[0]:
        if tx:
            dx = matmul(y2, g2, ty, True)        # dX^T = Y' g^T  -> dX = (Y' g^T)
        else:
            dx = matmul(g2, y2, False, not ty)
        dx = reduce_to(dx, x2.shape)
        dx = dx.reshape(x.shape)
    if need is None or need[1]:
        if ty:
            dy = matmul(g2, x2, True, tx)
        else:
            dy = matmul(x2, g2, not tx, False)
        dy = reduce_to(dy, y2.shape)
        dy = dy.reshape(y.shape)
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


@kernel("matmul_v2_grad_grad", dtypes=NUMERIC)
def matmul_v2_grad_grad(ins, attrs, need):
    """Out = X@Y; DX = DOut@Y^T, DY = X^T@DOut (with transposes).  Given DDX, DDY:
    DDOut = DDX@Y + X@DDY; DX' = DOut-side term from DDY; DY' from DDX."""
    x, y, dout, ddx, ddy = ins
    tx, ty = attrs["trans_x"], attrs["trans_y"]
    dx = dy = ddout = None
    want = need or (True, True, True)
    if want[2]:
        ddout = 0
        if ddx is not None:
            ddout = ddout + matmul(ddx, y, tx, ty)
        if ddy is not None:
            ddout = ddout + matmul(x, ddy, tx, ty)
        if isinstance(ddout, int):
            ddout = np.zeros_like(dout)
    if want[0] or want[1]:
        # DX = f(DOut, Y) is linear in Y: d/dY <DDX, DX> = grad of Y in matmul with DOut
        if want[0]:
            dx = (matmul_grads(x, ddy, dout, tx, ty, (True, False))[0]
                  if ddy is not None else np.zeros_like(x))
        if want[1]:
            dy = (matmul_grads(ddx, y, dout, tx, ty, (False, True))[1]
                  if ddx is not None else np.zeros_like(y))
    return dx, dy, ddout


@kernel("bmm", dtypes=NUMERIC)
def bmm(ins, attrs, need):
    return (np.matmul(ins[0], ins[1]),)


@kernel("bmm_grad", dtypes=NUMERIC)
def bmm_grad(ins, attrs, need):
    x, y, g = ins
    return matmul_grads(x, y, g, False, False, need)


@kernel("dot", dtypes=NUMERIC)
def dot(ins, attrs, need):
    x, y = ins
    return (np.sum(x * y, axis=-1),)


@kernel("dot_grad", dtypes=NUMERIC)
def dot_grad(ins, attrs, need):
    x, y, g = ins
    g = np.expand_dims(g, -1)
    return (g * y if need is None or need[0] else None,
            g * x if need is None or need[1] else None)
