"""numpy kernels of the resize ops over any number of spatial dims:
linear_interp_v2 (W), bicubic_interp_v2 (H, W), trilinear_interp_v2 (D, H, W)
and nearest_interp_v2 on 5-D inputs (nn_misc.py keeps the 4-D nearest and
bilinear kernels), with their grads.

Resizing is separable: along each spatial axis an output index reads a few
source indices with fixed weights, i.e. a [n_out, n_in] matrix.  Forward
contracts the input with each axis' matrix, backward with its transpose.  The
sampling rules (source index, weights, computed in float32 where Paddle's
kernels use float) follow Paddle's phi kernels:

- nearest: ``int(ratio * k + 0.5)`` with align_corners, else ``int(ratio * k)``;
- linear: with ``align_mode == 0`` and no align_corners the half-pixel source
  ``ratio * (k + 0.5) - 0.5`` (clamped at 0), else ``ratio * k``; the two
  neighbours weighted by the fraction;
- cubic: source ``ratio * k`` (align_corners) or ``ratio * (k + 0.5) - 0.5``,
  four neighbours ``floor(src) - 1 .. + 2`` clamped to the edge, Keys' cubic
  convolution weights with A = -0.75.
"""
import numpy as np

from ...ops import OpError
from ...ops.defs.nn_misc import interp_sizes, interp_ratio, F32
from ..registry import kernel, FLOATS

_CUBIC_A = -0.75


def _nearest_matrix(n_in, n_out, scale, align):
    r = interp_ratio(n_in, n_out, scale, align)
    k = np.arange(n_out, dtype=F32)
    src = (r * k + F32(0.5)) if align else r * k
    idx = np.minimum(src.astype(np.int64), n_in - 1)
    m = np.zeros((n_out, n_in), np.float64)
    m[np.arange(n_out), idx] = 1.0
    return m


def _linear_matrix(n_in, n_out, scale, align, align_mode):
    r = np.float64(interp_ratio(n_in, n_out, scale, align))
    k = np.arange(n_out, dtype=np.float64)
    half = align_mode == 0 and not align
    src = r * (k + 0.5) - 0.5 if half else r * k
    lo = np.minimum(np.maximum(src.astype(np.int64), 0), n_in - 1)   # C's truncation
    hi = np.minimum(lo + 1, n_in - 1)
    frac = (np.maximum(src, 0).astype(F32) if half else src.astype(F32)) - lo.astype(F32)
    rows = np.arange(n_out)
    m = np.zeros((n_out, n_in), np.float64)
    np.add.at(m, (rows, lo), (F32(1) - frac).astype(np.float64))
    np.add.at(m, (rows, hi), frac.astype(np.float64))
    return m


def _cubic_weights(t):
    """Keys' cubic convolution weights of the 4 neighbours at fraction ``t``."""
    a = _CUBIC_A

    def near(x):        # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):         # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _cubic_matrix(n_in, n_out, scale, align, dtype):
    r = interp_ratio(n_in, n_out, scale, align)
    k = np.arange(n_out, dtype=np.float64)
    # Paddle computes the source in double and keeps it in the kernel's math type
    mt = np.float64 if dtype == np.float64 else F32
    src = (np.float64(r) * k if align else np.float64(r) * (k + 0.5) - 0.5).astype(mt)
    base = np.floor(src)
    t = src - base
    rows = np.arange(n_out)
    m = np.zeros((n_out, n_in), np.float64)
    for j, w in enumerate(_cubic_weights(t)):
        idx = np.clip(base.astype(np.int64) - 1 + j, 0, n_in - 1)
        np.add.at(m, (rows, idx), w.astype(np.float64))
    return m


def _plan(ins, attrs, method, dtype):
    """(channels-first view of X, channels_last, per-axis matrices)."""
    x, out_size, size_list, scale = ins[:4]
    last = attrs["data_layout"] == "NHWC"
    xc = np.moveaxis(x, -1, 1) if last else x
    spatial = xc.shape[2:]
    sizes = [int(np.asarray(t).reshape(-1)[0]) for t in size_list] if size_list else None
    outs, scales = interp_sizes(spatial, attrs, out_size, sizes, scale)
    if any(o <= 0 for o in outs):
        raise OpError(f"interpolation output size must be positive, got {outs}")
    align = attrs["align_corners"]
    mats = []
    for n_in, n_out, sc in zip(spatial, outs, scales):
        if method == "nearest":
            mats.append(_nearest_matrix(n_in, n_out, sc, align))
        elif method == "cubic":
            mats.append(_cubic_matrix(n_in, n_out, sc, align, dtype))
        else:
            mats.append(_linear_matrix(n_in, n_out, sc, align, attrs["align_mode"]))
    return xc, last, mats


def _contract(a, mats, transpose=False):
    """Apply each spatial axis' matrix (or its transpose) to ``a`` (N, C, ...)."""
    for axis, m in enumerate(mats, start=2):
        m = (m.T if transpose else m).astype(a.dtype, copy=False)
        a = np.moveaxis(np.tensordot(a, m, axes=([axis], [1])), -1, axis)
    return a


def _forward(method):
    def fn(ins, attrs, need):
        x = ins[0]
        work = F32 if x.dtype.kind in "iu" else x.dtype
        xc, last, mats = _plan(ins, attrs, method, np.dtype(work))
        out = _contract(xc.astype(work, copy=False), mats)
        if x.dtype.kind in "iu":
            out = out.astype(x.dtype) if method == "nearest" else \
                np.trunc(out).astype(x.dtype)
        out = np.moveaxis(out, 1, -1) if last else out
        return (np.ascontiguousarray(out),)
    return fn


def _backward(method):
    def fn(ins, attrs, need):
        x, g = ins[0], ins[4]
        xc, last, mats = _plan(ins, attrs, method, x.dtype)
        gc = np.moveaxis(g, -1, 1) if last else g
        dx = _contract(gc, mats, transpose=True).astype(x.dtype, copy=False)
        return (np.ascontiguousarray(np.moveaxis(dx, 1, -1) if last else dx),)
    return fn


nearest_nd = _forward("nearest")
nearest_nd_grad = _backward("nearest")

kernel("linear_interp_v2", "trilinear_interp_v2", dtypes=FLOATS + ("uint8",))(
    _forward("linear"))
kernel("linear_interp_v2_grad", "trilinear_interp_v2_grad")(_backward("linear"))
kernel("bicubic_interp_v2")(_forward("cubic"))
kernel("bicubic_interp_v2_grad")(_backward("cubic"))
