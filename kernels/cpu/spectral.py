"""numpy kernels of the complex-number ops (complex, real, imag, conj, angle,
as_complex, as_real), the FFTs (fft_c2c, fft_r2c, fft_c2r, with numpy.fft)
and frame / overlap_add, with their gradients.

The gradient convention (ops/defs/spectral.py): for a real loss L and a
complex z the gradient is dL/dRe(z) + i dL/dIm(z).  The FFTs are linear, so
their gradients are adjoints: the adjoint of the transform in one direction
with scale s is the transform in the other direction with the same scale s
(``_adjoint_norm``); a one-sided transform's adjoint zero-fills the bins it
dropped, and the real-output transform (c2r) counts each interior bin twice.
"""
import numpy as np

from ...ops import OpError
from ...ops.dtypes import complex_of, real_of
from ...ops.defs.spectral import (as_complex_shape, fft_axes, c2r_size, frame_shape,
                                  overlap_add_shape)
from ..registry import kernel, COMPLEX

REAL = ("float32", "float64")
_SIGNAL = REAL + ("int32", "int64") + COMPLEX


# ------------------------------------------------------------------ complex / real / imag
def _sum_to(g, shape):
    """Sum a broadcast gradient back to ``shape``."""
    if g.shape == tuple(shape):
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape)
                                      if d == 1 and g.shape[lead + i] != 1)
    return g.sum(axis=axes, keepdims=True).reshape(shape) if axes else g.reshape(shape)


@kernel("complex", dtypes=REAL)
def complex_(ins, attrs, need):
    x, y = ins
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), complex_of(x.dtype))
    out.real, out.imag = x, y
    return (out,)


@kernel("complex_grad", dtypes=REAL)
def complex_grad(ins, attrs, need):
    x, y, g = ins
    want = need or (True, True)
    return (_sum_to(g.real, x.shape).astype(x.dtype) if want[0] else None,
            _sum_to(g.imag, y.shape).astype(y.dtype) if want[1] else None)


@kernel("real", dtypes=COMPLEX)
def real(ins, attrs, need):
    return (np.array(ins[0].real),)


@kernel("imag", dtypes=COMPLEX)
def imag(ins, attrs, need):
    return (np.array(ins[0].imag),)


@kernel("real_grad", dtypes=REAL)
def real_grad(ins, attrs, need):
    g = ins[0]
    return (g.astype(complex_of(g.dtype)),)


@kernel("imag_grad", dtypes=REAL)
def imag_grad(ins, attrs, need):
    g = ins[0]
    out = np.zeros(g.shape, complex_of(g.dtype))
    out.imag = g
    return (out,)


@kernel("conj", dtypes=COMPLEX + REAL + ("int32", "int64"))
def conj(ins, attrs, need):
    x = ins[0]
    return (np.conj(x) if x.dtype.kind == "c" else x.copy(),)


@kernel("angle", dtypes=COMPLEX + REAL)
def angle(ins, attrs, need):
    x = ins[0]
    return (np.angle(x).astype(real_of(x.dtype), copy=False),)


@kernel("angle_grad", dtypes=COMPLEX + REAL)
def angle_grad(ins, attrs, need):
    # angle = atan2(Im z, Re z): dL/dRe = -g Im z / |z|^2, dL/dIm = g Re z / |z|^2,
    # so the gradient is g i z / |z|^2 (0 at z = 0); a real X has a flat angle
    x, g = ins
    if x.dtype.kind != "c":
        return (np.zeros_like(x),)
    sq = x.real * x.real + x.imag * x.imag
    safe = np.where(sq == 0, 1, sq)
    return (np.where(sq == 0, 0, g * (1j * x) / safe).astype(x.dtype, copy=False),)


@kernel("as_complex", dtypes=REAL)
def as_complex(ins, attrs, need):
    x = ins[0]
    as_complex_shape(x.shape)
    out = np.empty(x.shape[:-1], complex_of(x.dtype))
    out.real, out.imag = x[..., 0], x[..., 1]
    return (out,)


@kernel("as_real", dtypes=COMPLEX)
def as_real(ins, attrs, need):
    x = ins[0]
    return (np.stack([x.real, x.imag], axis=-1),)


# ------------------------------------------------------------------ FFTs
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _adjoint_norm(norm):
    """The norm giving the opposite-direction transform the same scale."""
    return _SWAP[norm]


def _axes(x, attrs, op):
    """The transformed axes, checked as infer_meta checks them."""
    return fft_axes(x.shape, attrs, op)


def c2c(x, axes, norm, forward):
    f = np.fft.fftn if forward else np.fft.ifftn
    return np.asarray(f(x, axes=axes, norm=norm)).astype(x.dtype, copy=False)


def r2c(x, axes, norm, forward, onesided):
    """The transform of a real x (inverse direction when not ``forward``);
    ``onesided`` keeps the first n // 2 + 1 bins of the last axis."""
    cdt = complex_of(x.dtype)
    if not onesided:
        return c2c(x.astype(cdt), axes, norm, forward)
    if forward:
        out = np.fft.rfftn(x, axes=axes, norm=norm)
    else:   # ifft of a real x = conj(fft(x)) with the same scale
        out = np.conj(np.fft.rfftn(x, axes=axes, norm=_adjoint_norm(norm)))
    return np.asarray(out).astype(cdt, copy=False)


def c2r(x, axes, norm, forward, n):
    """The real transform of a Hermitian-symmetric x given by its first half on
    the last axis; the last axis' output length is n."""
    s = [x.shape[a] for a in axes[:-1]] + [n]
    if forward:   # fft of a Hermitian x = irfft(conj x) with the same scale
        out = np.fft.irfftn(np.conj(x), s=s, axes=axes, norm=_adjoint_norm(norm))
    else:
        out = np.fft.irfftn(x, s=s, axes=axes, norm=norm)
    return np.asarray(out).astype(real_of(x.dtype), copy=False)


def _fit(a, axis, m):
    """``a`` cut or zero-padded to length m along ``axis``."""
    k = a.shape[axis]
    if k > m:
        return np.take(a, np.arange(m), axis=axis)
    if k < m:
        pad = [(0, 0)] * a.ndim
        pad[axis] = (0, m - k)
        return np.pad(a, pad)
    return a


@kernel("fft_c2c", dtypes=COMPLEX)
def fft_c2c(ins, attrs, need):
    x = ins[0]
    return (c2c(x, _axes(x, attrs, "fft_c2c"), attrs["normalization"], attrs["forward"]),)


@kernel("fft_c2c_grad", dtypes=COMPLEX)
def fft_c2c_grad(ins, attrs, need):
    g = ins[0]
    return (c2c(g, _axes(g, attrs, "fft_c2c_grad"), _adjoint_norm(attrs["normalization"]),
                not attrs["forward"]),)


@kernel("fft_r2c", dtypes=REAL)
def fft_r2c(ins, attrs, need):
    x = ins[0]
    return (r2c(x, _axes(x, attrs, "fft_r2c"), attrs["normalization"], attrs["forward"],
                attrs["onesided"]),)


@kernel("fft_r2c_grad", dtypes=COMPLEX)
def fft_r2c_grad(ins, attrs, need):
    # Out = P F x (P keeps the one-sided bins): dX = Re(F^H P^T dOut)
    x, g = ins
    axes = _axes(x, attrs, "fft_r2c_grad")
    if attrs["onesided"]:
        g = _fit(g, axes[-1], x.shape[axes[-1]])
    full = c2c(g, axes, _adjoint_norm(attrs["normalization"]), not attrs["forward"])
    return (np.array(full.real, dtype=x.dtype),)


@kernel("fft_c2r", dtypes=COMPLEX)
def fft_c2r(ins, attrs, need):
    x = ins[0]
    axes = _axes(x, attrs, "fft_c2r")
    n = c2r_size(x.shape[axes[-1]], attrs)
    if n <= 0:
        raise OpError(f"fft_c2r: the output length along axis {axes[-1]} is {n} (input shape "
                      f"{list(x.shape)}); it must be positive")
    return (c2r(x, axes, attrs["normalization"], attrs["forward"], n),)


@kernel("fft_c2r_grad", dtypes=REAL)
def fft_c2r_grad(ins, attrs, need):
    # Out = C(x) uses each interior bin k of the last axis twice (k and n - k,
    # conjugated) and the DC (and Nyquist) bin once, through its real part; so
    # dX is the forward-direction one-sided transform of dOut with the same
    # scale, interior bins doubled (conjugated for the forward fft of x)
    g = ins[0]
    axes = _axes(g, attrs, "fft_c2r_grad")
    last = axes[-1]
    n = g.shape[last]
    norm, forward = attrs["normalization"], attrs["forward"]
    if forward:
        dx = np.conj(r2c(g, axes, norm, True, True))
    else:
        dx = r2c(g, axes, _adjoint_norm(norm), True, True)
    hi = (n + 1) // 2            # bins 1 .. hi - 1 appear twice
    idx = [slice(None)] * g.ndim
    idx[last] = slice(1, hi)
    dx[tuple(idx)] *= 2
    return (dx,)


# ------------------------------------------------------------------ frame / overlap_add
def _frames(attrs, seq):
    fl, hop = attrs["frame_length"], attrs["hop_length"]
    return fl, hop, 1 + (seq - fl) // hop


def frame_array(x, attrs):
    seq = x.shape[-1] if attrs["axis"] == -1 else x.shape[0]
    fl, hop, n = _frames(attrs, seq)
    if attrs["axis"] == -1:
        idx = np.arange(fl)[:, None] + hop * np.arange(n)[None, :]
        return x[..., idx]
    idx = hop * np.arange(n)[:, None] + np.arange(fl)[None, :]
    return x[idx]


def overlap_add_array(x, hop, axis):
    if axis == -1:
        fl, n = x.shape[-2], x.shape[-1]
        out = np.zeros(x.shape[:-2] + ((n - 1) * hop + fl,), x.dtype)
        for j in range(n):
            out[..., j * hop:j * hop + fl] += x[..., :, j]
        return out
    n, fl = x.shape[0], x.shape[1]
    out = np.zeros(((n - 1) * hop + fl,) + x.shape[2:], x.dtype)
    for j in range(n):
        out[j * hop:j * hop + fl] += x[j]
    return out


@kernel("frame", dtypes=_SIGNAL)
def frame(ins, attrs, need):
    frame_shape(ins[0].shape, attrs)            # checks, as infer_meta does
    return (frame_array(ins[0], attrs),)


@kernel("frame_grad", dtypes=_SIGNAL)
def frame_grad(ins, attrs, need):
    # every frame sample came from one sequence sample: add them back; samples
    # past the last whole frame get no gradient
    x, g = ins
    out = overlap_add_array(g, attrs["hop_length"], attrs["axis"])
    seq_axis = -1 if attrs["axis"] == -1 else 0
    return (_fit(out, seq_axis % x.ndim, x.shape[seq_axis]),)


@kernel("overlap_add", dtypes=_SIGNAL)
def overlap_add(ins, attrs, need):
    overlap_add_shape(ins[0].shape, attrs)      # checks, as infer_meta does
    return (overlap_add_array(ins[0], attrs["hop_length"], attrs["axis"]),)


@kernel("overlap_add_grad", dtypes=_SIGNAL)
def overlap_add_grad(ins, attrs, need):
    x, g = ins
    fl = x.shape[-2] if attrs["axis"] == -1 else x.shape[1]
    return (frame_array(g, {"frame_length": fl, "hop_length": attrs["hop_length"],
                            "axis": attrs["axis"]}),)

