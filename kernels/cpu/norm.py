"""numpy kernels of batch_norm, layer_norm, group_norm, instance_norm, their
grads and the double grads of batch_norm and instance_norm.

All four normalise ``x`` over some axes; the shared backward is
``dx = inv_std * (dy' - mean(dy') - xhat * mean(dy' * xhat))`` with
``dy' = dy * scale``, the means taken over the normalised axes.
"""
import numpy as np

from ...ops.defs.nn_norm import norm_channel_axis, bn_global_stats
from ..registry import kernel


def _bshape(x, ax):
    s = [1] * x.ndim
    s[ax] = x.shape[ax]
    return tuple(s)


def _channel_axes(x, layout):
    ax = norm_channel_axis(x.ndim, layout)
    return ax, tuple(i for i in range(x.ndim) if i != ax)


def _norm_backward(dyw, xhat, inv, axes):
    """x-gradient of xhat = (x - mean) * inv over ``axes`` given dy * scale."""
    m1 = dyw.mean(axis=axes, keepdims=True)
    m2 = (dyw * xhat).mean(axis=axes, keepdims=True)
    return inv * (dyw - m1 - xhat * m2)


# ------------------------------------------------------------------ batch_norm
_bn_global = bn_global_stats


@kernel("batch_norm")
def batch_norm(ins, attrs, need):
    x, scale, bias, mean, var, mom = ins
    ax, axes = _channel_axes(x, attrs["data_layout"])
    bs = _bshape(x, ax)
    c = x.shape[ax]
    eps = attrs["epsilon"]
    dt = x.dtype
    scale = np.ones(c, dt) if scale is None else scale
    bias = np.zeros(c, dt) if bias is None else bias
    if _bn_global(attrs):
        inv = (1.0 / np.sqrt(var + eps)).astype(dt, copy=False)
        y = x * (scale * inv).reshape(bs)
        y += (bias - mean * inv * scale).reshape(bs)
        return y.astype(dt, copy=False), mean.copy(), var.copy(), mean.copy(), inv, None
    if x.size // c == 1:                 # one value per channel: Paddle leaves x as is
        return x.copy(), mean.copy(), var.copy(), np.zeros(c, dt), np.zeros(c, dt), None
    m = x.mean(axis=axes)
    d = x - m.reshape(bs)
    v = np.mean(d * d, axis=axes)
    momentum = attrs["momentum"] if mom is None else float(mom.reshape(-1)[0])
    mean_out = (mean * momentum + m * (1.0 - momentum)).astype(mean.dtype, copy=False)
    var_out = (var * momentum + v * (1.0 - momentum)).astype(var.dtype, copy=False)
    inv = (1.0 / np.sqrt(v + eps)).astype(dt, copy=False)
    y = d * (scale * inv).reshape(bs)
    y += bias.reshape(bs)
    return y, mean_out, var_out, m, inv, None


@kernel("batch_norm_grad")
def batch_norm_grad(ins, attrs, need):
    x, scale, bias, mean, var, saved_mean, saved_inv, _, dy = ins
    ax, axes = _channel_axes(x, attrs["data_layout"])
    bs = _bshape(x, ax)
    c = x.shape[ax]
    dt = x.dtype
    sc = np.ones(c, dt) if scale is None else scale
    want = need or (True, True, True)
    if _bn_global(attrs):
        m = mean
        inv = (1.0 / np.sqrt(var + attrs["epsilon"])).astype(dt, copy=False)
    else:
        m, inv = saved_mean, saved_inv
    xhat = (x - m.reshape(bs)) * inv.reshape(bs)
    dbias = dy.sum(axis=axes)
    dscale = (dy * xhat).sum(axis=axes)
    dx = None
    if want[0]:
        if _bn_global(attrs):
            dx = dy * (sc * inv).reshape(bs)
        else:
            k = x.size // c
            dx = (sc * inv / k).reshape(bs) * (k * dy - dbias.reshape(bs)
                                               - xhat * dscale.reshape(bs))
    return (dx, dscale if want[1] else None, dbias if want[2] else None)


# ------------------------------------------------------------------ layer_norm
def _ln_2d(x, axis):
    left = int(np.prod(x.shape[:axis], dtype=np.int64))
    return x.reshape(left, -1)


@kernel("layer_norm")
def layer_norm(ins, attrs, need):
    x, scale, bias = ins
    x2 = _ln_2d(x, attrs["begin_norm_axis"])
    mean = x2.mean(axis=1)
    d = x2 - mean[:, None]
    var = np.mean(d * d, axis=1)
    inv = (1.0 / np.sqrt(var + attrs["epsilon"])).astype(x.dtype, copy=False)
    y = d * inv[:, None]
    if scale is not None:
        y *= scale.reshape(-1)
    if bias is not None:
        y += bias.reshape(-1)
    return y.reshape(x.shape), mean, var


@kernel("layer_norm_grad")
def layer_norm_grad(ins, attrs, need):
    x, scale, bias, mean, var, dy = ins
    want = need or (True, True, True)
    x2 = _ln_2d(x, attrs["begin_norm_axis"])
    dy2 = dy.reshape(x2.shape)
    inv = (1.0 / np.sqrt(var + attrs["epsilon"])).astype(x.dtype, copy=False)[:, None]
    xhat = (x2 - mean[:, None]) * inv
    dx = dscale = dbias = None
    if want[0]:
        dyw = dy2 * scale.reshape(-1) if scale is not None else dy2
        dx = _norm_backward(dyw, xhat, inv, 1).reshape(x.shape)
    if want[1] and scale is not None:
        dscale = (dy2 * xhat).sum(axis=0).reshape(scale.shape)
    if want[2] and (bias is not None or scale is not None):
        dbias = dy2.sum(axis=0).reshape((bias if bias is not None else scale).shape)
    return dx, dscale, dbias


# ------------------------------------------------------------------ group_norm / instance_norm
def _to_channel_first(x, layout):
    if norm_channel_axis(x.ndim, layout) == 1:
        return x, False
    return np.moveaxis(x, -1, 1), True


def _grouped(x, g):
    """(N, G, rest) view of a channel-first x."""
    return x.reshape(x.shape[0], g, -1)


def _group_stats(x3, eps):
    mean = x3.mean(axis=2)
    d = x3 - mean[..., None]
    var = np.mean(d * d, axis=2)
    inv = (1.0 / np.sqrt(var + eps)).astype(x3.dtype, copy=False)
    return mean, var, d * inv[..., None], inv


def _affine(y, scale, bias):
    cs = (1, y.shape[1]) + (1,) * (y.ndim - 2)
    if scale is not None:
        y = y * scale.reshape(cs)
    if bias is not None:
        y = y + bias.reshape(cs)
    return y


def _group_backward(x, scale, dy, mean, inv, g, want):
    """(dx, dscale, dbias) of group-normalising channel-first x into g groups."""
    n, c = x.shape[:2]
    cs = (1, c) + (1,) * (x.ndim - 2)
    red = (0,) + tuple(range(2, x.ndim))
    x3 = _grouped(x, g)
    xhat = (x3 - mean[..., None]) * inv[..., None]
    dx = dscale = dbias = None
    if want[0]:
        dyw = dy * scale.reshape(cs) if scale is not None else dy
        dx = _norm_backward(_grouped(dyw, g), xhat, inv[..., None], 2).reshape(x.shape)
    if want[1]:
        dscale = (dy * xhat.reshape(x.shape)).sum(axis=red)
    if want[2]:
        dbias = dy.sum(axis=red)
    return dx, dscale, dbias


@kernel("group_norm")
def group_norm(ins, attrs, need):
    x, scale, bias = ins
    xc, moved = _to_channel_first(x, attrs["data_layout"])
    mean, var, xhat, _ = _group_stats(_grouped(xc, attrs["groups"]), attrs["epsilon"])
    y = _affine(xhat.reshape(xc.shape), scale, bias)
    if moved:
        y = np.moveaxis(y, 1, -1)
    return y.astype(x.dtype, copy=False), mean, var


@kernel("group_norm_grad")
def group_norm_grad(ins, attrs, need):
    x, scale, bias, _, mean, var, dy = ins
    want = need or (True, True, True)
    xc, moved = _to_channel_first(x, attrs["data_layout"])
    dyc, _ = _to_channel_first(dy, attrs["data_layout"])
    inv = (1.0 / np.sqrt(var + attrs["epsilon"])).astype(x.dtype, copy=False)
    dx, dscale, dbias = _group_backward(xc, scale, dyc, mean, inv, attrs["groups"], want)
    if dx is not None and moved:
        dx = np.moveaxis(dx, 1, -1)
    return (dx, dscale if scale is not None else None, dbias if bias is not None else None)


@kernel("instance_norm")
def instance_norm(ins, attrs, need):
    x, scale, bias = ins
    mean, _, xhat, inv = _group_stats(_grouped(x, x.shape[1]), attrs["epsilon"])
    y = _affine(xhat.reshape(x.shape), scale, bias)
    return y.astype(x.dtype, copy=False), mean.reshape(-1), inv.reshape(-1)


@kernel("instance_norm_grad")
def instance_norm_grad(ins, attrs, need):
    x, scale, saved_mean, saved_inv, dy = ins
    n, c = x.shape[:2]
    want = need or (True, True, True)
    return _group_backward(x, scale, dy, saved_mean.reshape(n, c), saved_inv.reshape(n, c),
                           c, want)


# ------------------------------------------------------------------ double grads
def _norm_double(x, dy, ddx, gamma, ddgamma, ddbeta, mean, inv, want):
    """Double grad of y = gamma * xhat + beta, xhat = (x - mean) * inv with the
    statistics of each row of the (R, M) arrays (gamma ... inv: (R, 1) or None).
    With P(c) = c - mean(c) - xhat mean(c xhat) (the first-order grad is
    dX = gamma inv P(dY)), a = DDX, g = DY, A = mean(g), B = mean(g xhat):
      DDY    = gamma inv P(a) + DDScale xhat + DDBias
      DScale = inv M (mean(a g) - A mean(a) - B mean(a xhat))     (per row)
      DX     = -gamma inv^2 (xhat (mean(a g) - A mean(a) - B mean(a xhat))
                             + B P(a) + mean(a xhat) P(g))  + DDScale inv P(g)."""
    xhat = (x - mean) * inv
    gamma = 1 if gamma is None else gamma

    def m(v):
        return v.mean(axis=1, keepdims=True)

    def proj(c):
        return c - m(c) - xhat * m(c * xhat)
    a = np.zeros_like(x) if ddx is None else ddx
    big_a, big_b, ax = m(dy), m(dy * xhat), m(a * xhat)
    s = m(a * dy) - big_a * m(a) - big_b * ax
    dx = dscale = ddy = None
    if want[0]:
        dx = -gamma * inv * inv * (xhat * s + big_b * proj(a) + ax * proj(dy))
        if ddgamma is not None:
            dx = dx + ddgamma * inv * proj(dy)
    if want[1]:
        dscale = inv * x.shape[1] * s
    if want[2]:
        ddy = gamma * inv * proj(a)
        if ddgamma is not None:
            ddy = ddy + ddgamma * xhat
        if ddbeta is not None:
            ddy = ddy + ddbeta
    return dx, dscale, ddy


def _rows(a, ax):
    """A channel-``ax`` array as (C, rest) rows, and the inverse."""
    moved = np.moveaxis(a, ax, 0)
    return moved.reshape(moved.shape[0], -1), lambda r: np.moveaxis(r.reshape(moved.shape), 0, ax)


@kernel("batch_norm_grad_grad")
def batch_norm_grad_grad(ins, attrs, need):
    x, scale, mean, var, saved_mean, saved_inv, dy, ddx, ddscale, ddbias = ins
    want = need or (True, True, True)
    ax, _ = _channel_axes(x, attrs["data_layout"])
    x2, back = _rows(x, ax)
    dy2, ddx2 = _rows(dy, ax)[0], None if ddx is None else _rows(ddx, ax)[0]

    def col(v):
        return None if v is None else v.reshape(-1, 1)
    if not _bn_global(attrs):
        dx, dscale, ddy = _norm_double(x2, dy2, ddx2, col(scale), col(ddscale), col(ddbias),
                                       col(saved_mean), col(saved_inv), want)
    else:
        # fixed statistics: xhat is an affine function of x, dX = scale inv dY
        inv = col((1.0 / np.sqrt(var + attrs["epsilon"])).astype(x.dtype, copy=False))
        xhat = (x2 - col(mean)) * inv
        a = np.zeros_like(x2) if ddx2 is None else ddx2
        sc = 1 if scale is None else col(scale)
        dx = (0 if ddscale is None else col(ddscale)) * inv * dy2
        dscale = inv * (a * dy2).sum(axis=1, keepdims=True)
        ddy = sc * inv * a + (0 if ddscale is None else col(ddscale) * xhat) + \
            (0 if ddbias is None else col(ddbias))
    return (back(np.broadcast_to(dx, x2.shape)) if want[0] else None,
            dscale.reshape(-1) if want[1] and scale is not None else None,
            back(np.broadcast_to(ddy, x2.shape)) if want[2] else None)


@kernel("instance_norm_double_grad")
def instance_norm_double_grad(ins, attrs, need):
    x, scale, saved_mean, saved_inv, dy, ddx, ddscale, ddbias = ins
    want = need or (True, True, True)
    n, c = x.shape[:2]

    def per_row(v):            # a per-channel vector as one entry per (n, c) row
        return None if v is None else np.tile(v, n).reshape(-1, 1)
    dx, dscale, ddy = _norm_double(
        x.reshape(n * c, -1), dy.reshape(n * c, -1),
        None if ddx is None else ddx.reshape(n * c, -1), per_row(scale), per_row(ddscale),
        per_row(ddbias), saved_mean.reshape(-1, 1), saved_inv.reshape(-1, 1), want)
    return (dx.reshape(x.shape) if want[0] else None,
            dscale.reshape(n, c).sum(axis=0) if want[1] and scale is not None else None,
            ddy.reshape(x.shape) if want[2] else None)
