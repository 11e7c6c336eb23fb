"""numpy kernels of conv2d, depthwise_conv2d, conv2d_transpose, their grads and
double grads (kernels/cpu/bilinear.py).

Everything is computed in NCHW (NHWC inputs are viewed transposed) with
im2col: the input windows are copied once into a (N, C, kh, kw, oh, ow)
block (one strided copy per kernel offset, never a loop over pixels or the
batch), and the convolution is one batched matmul per call, grouped channels
as one more batch axis.  col2im (the adjoint) adds the blocks back.
"""
import numpy as np

from ...ops import OpError
from ...ops.defs.nn_conv import (conv_geometry, convt_geometry, channel_last,
                                 check_conv_channels)
from ..registry import kernel
from .bilinear import Bilinear, register


# ------------------------------------------------------------------ windows
def pad_hw(x, pads, value=0):
    (pt, pb), (pl, pr) = pads
    if pt == pb == pl == pr == 0:
        return x
    return np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=value)


def im2col(xp, kh, kw, strides, dil, oh, ow):
    """Windows of the padded NCHW ``xp`` as a (N, C, kh, kw, oh, ow) array."""
    n, c = xp.shape[:2]
    sh, sw = strides
    dh, dw = dil
    cols = np.empty((n, c, kh, kw, oh, ow), xp.dtype)
    for i in range(kh):
        r = i * dh
        for j in range(kw):
            q = j * dw
            cols[:, :, i, j] = xp[:, :, r:r + sh * (oh - 1) + 1:sh, q:q + sw * (ow - 1) + 1:sw]
    return cols


def col2im(cols, hp, wp, strides, dil):
    """Adjoint of im2col: sum the (N, C, kh, kw, oh, ow) blocks into (N, C, hp, wp)."""
    n, c, kh, kw, oh, ow = cols.shape
    sh, sw = strides
    dh, dw = dil
    out = np.zeros((n, c, hp, wp), cols.dtype)
    for i in range(kh):
        r = i * dh
        for j in range(kw):
            q = j * dw
            out[:, :, r:r + sh * (oh - 1) + 1:sh, q:q + sw * (ow - 1) + 1:sw] += cols[:, :, i, j]
    return out


def _crop(a, pads, h, w):
    (pt, _), (pl, _) = pads
    if pt == 0 and pl == 0 and a.shape[2] == h and a.shape[3] == w:
        return a
    return a[:, :, pt:pt + h, pl:pl + w]


def _nchw(a, last):
    return a.transpose(0, 3, 1, 2) if last else a


def _back(a, last):
    return a.transpose(0, 2, 3, 1) if last else a


# ------------------------------------------------------------------ conv2d
def _conv_setup(op, x, w, attrs):
    last = channel_last(attrs)
    x = _nchw(x, last)
    g = attrs["groups"]
    if x.shape[1] != w.shape[1] * g or w.shape[0] % g:
        check_conv_channels(op, x.shape[1], w.shape, g)
    pads, dil, strides, (oh, ow) = conv_geometry(x.shape[2:], w.shape[2:], attrs)
    return x, last, g, pads, dil, strides, oh, ow


def conv_forward(x, w, g, pads, dil, strides, oh, ow):
    n = x.shape[0]
    o, cg, kh, kw = w.shape
    cols = im2col(pad_hw(x, pads), kh, kw, strides, dil, oh, ow)
    k = cg * kh * kw
    if g == 1:
        out = np.matmul(w.reshape(o, k), cols.reshape(n, k, oh * ow))
    else:
        out = np.matmul(w.reshape(g, o // g, k), cols.reshape(n, g, k, oh * ow))
    return out.reshape(n, o, oh, ow)


def conv_backward(x, w, gout, g, pads, dil, strides, need):
    """Input and Filter gradients of conv_forward."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh, ow = gout.shape[2:]
    k = cg * kh * kw
    go = gout.reshape(n, g, o // g, oh * ow)
    dx = dw = None
    if need is None or need[1]:
        xp = pad_hw(x, pads)
        cols = im2col(xp, kh, kw, strides, dil, oh, ow).reshape(n, g, k, oh * ow)
        dw = np.matmul(go, cols.swapaxes(-1, -2)).sum(axis=0).reshape(w.shape)
    if need is None or need[0]:
        wt = w.reshape(g, o // g, k).swapaxes(-1, -2)            # (g, k, o/g)
        dcols = np.matmul(wt, go).reshape(n, c, kh, kw, oh, ow)
        (pt, pb), (pl, pr) = pads
        dxp = col2im(dcols, h + pt + pb, wd + pl + pr, strides, dil)
        dx = _crop(dxp, pads, h, wd)
    return dx, dw


@kernel("conv2d", "depthwise_conv2d")
def conv2d(ins, attrs, need):
    x, w = ins
    x, last, g, pads, dil, strides, oh, ow = _conv_setup("conv2d", x, w, attrs)
    return (_back(conv_forward(x, w, g, pads, dil, strides, oh, ow), last),)


@kernel("conv2d_grad", "depthwise_conv2d_grad")
def conv2d_grad(ins, attrs, need):
    x, w, gout = ins
    x, last, g, pads, dil, strides, _, _ = _conv_setup("conv2d_grad", x, w, attrs)
    dx, dw = conv_backward(x, w, _nchw(gout, last), g, pads, dil, strides, need)
    return (None if dx is None else _back(dx, last)), dw


# ------------------------------------------------------------------ conv2d_transpose
def _convt_setup(x, w, attrs):
    last = channel_last(attrs)
    x = _nchw(x, last)
    g = attrs["groups"]
    if x.shape[1] != w.shape[0] or w.shape[0] % g:
        raise OpError(f"conv2d_transpose: Input channels ({x.shape[1]}) must equal Filter's "
                      f"first dimension ({w.shape[0]}) and be divisible by groups ({g})")
    pads, dil, strides, (oh, ow) = convt_geometry(x.shape[2:], w.shape[2:], attrs)
    return x, last, g, pads, dil, strides, oh, ow


def _buffer_size(h, k, s, d, pad, o):
    """Rows of the uncropped transposed-conv output that cover [pad, pad + o)."""
    return max((h - 1) * s + d * (k - 1) + 1, pad + o)


@kernel("conv2d_transpose", "depthwise_conv2d_transpose")
def conv2d_transpose(ins, attrs, need):
    x, w = ins
    x, last, g, pads, dil, strides, oh, ow = _convt_setup(x, w, attrs)
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    k = og * kh * kw
    wt = w.reshape(g, c // g, k).swapaxes(-1, -2)               # (g, k, c/g)
    cols = np.matmul(wt, x.reshape(n, g, c // g, h * wd))      # (n, g, k, h*w)
    cols = cols.reshape(n, g * og, kh, kw, h, wd)
    hb = _buffer_size(h, kh, strides[0], dil[0], pads[0][0], oh)
    wb = _buffer_size(wd, kw, strides[1], dil[1], pads[1][0], ow)
    out = col2im(cols, hb, wb, strides, dil)
    return (_back(_crop(out, pads, oh, ow), last),)


@kernel("conv2d_transpose_grad", "depthwise_conv2d_transpose_grad")
def conv2d_transpose_grad(ins, attrs, need):
    x, w, gout = ins
    x, last, g, pads, dil, strides, oh, ow = _convt_setup(x, w, attrs)
    gout = _nchw(gout, last)
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    k = og * kh * kw
    hb = _buffer_size(h, kh, strides[0], dil[0], pads[0][0], oh)
    wb = _buffer_size(wd, kw, strides[1], dil[1], pads[1][0], ow)
    gb = np.zeros((n, g * og, hb, wb), gout.dtype)
    (pt, _), (pl, _) = pads
    gb[:, :, pt:pt + oh, pl:pl + ow] = gout
    cols = im2col(gb, kh, kw, strides, dil, h, wd).reshape(n, g, k, h * wd)
    dx = dw = None
    if need is None or need[0]:
        dx = np.matmul(w.reshape(g, c // g, k), cols).reshape(n, c, h, wd)
        dx = _back(dx, last)
    if need is None or need[1]:
        xs = x.reshape(n, g, c // g, h * wd)
        dw = np.matmul(xs, cols.swapaxes(-1, -2)).sum(axis=0).reshape(w.shape)
    return dx, dw


# ------------------------------------------------------------------ double grads
# a convolution is bilinear in Input and Filter (kernels/cpu/bilinear.py)
def _bilinear(fwd, grad):
    return Bilinear(lambda a, b, attrs: fwd((a, b), attrs, None)[0],
                    lambda a, b, d, attrs, need: grad((a, b, d), attrs, need))


register(_bilinear(conv2d, conv2d_grad), ("conv2d_grad_grad", "depthwise_conv2d_grad_grad"))
register(_bilinear(conv2d_transpose, conv2d_transpose_grad), ("conv2d_transpose_grad_grad",))
