"""``paddle.fft``: discrete Fourier transforms over the ops ``fft_c2c`` (complex
to complex), ``fft_r2c`` (real input; one-sided when asked) and ``fft_c2r``
(Hermitian input, real output), as Paddle 2.6 composes them: an integer input
is cast to the default float dtype first (a complex transform casts a real
input to complex), ``n``/``s`` cut (``slice``) or zero-pad (``pad``) the
input, and the arguments are checked in Python (ValueError).

``fftfreq``/``rfftfreq`` are ``arange`` scaled, ``fftshift``/``ifftshift`` a
``roll`` by half the shape.  Not top-level names (``__all__`` is empty): the
package root makes this module ``sampan.fft``.
"""
import numbers
from collections.abc import Sequence

import numpy as np

from ..ops import bind, get_op
from ..ops.dtypes import to_np_dtype, complex_of, get_default_dtype
from .creation import arange
from .manipulation import slice as _slice, pad as _pad, roll, shape as _shape, concat
from .math import cast

__all__ = []

_C2C = get_op("fft_c2c")
_R2C = get_op("fft_r2c")
_C2R = get_op("fft_c2r")


# ------------------------------------------------------------------ argument checks
def _check_norm(norm):
    if norm not in ("forward", "backward", "ortho"):
        raise ValueError(f"Unexpected norm: {norm}. Norm should be forward, backward or ortho")


def _check_n(n):
    if not isinstance(n, int):
        raise ValueError(f"Invalid FFT argument n({n}), it shoule be an integer.")
    if n <= 0:
        raise ValueError(f"Invalid FFT argument n({n}), it should be positive.")


def _check_s(x, s):
    nd = len(x.shape)
    if not isinstance(s, Sequence):
        raise ValueError(f"Invalid FFT argument s({s}), it should be a sequence of integers.")
    if len(s) > nd:
        raise ValueError(f"Length of FFT argument s should not be larger than the rank of "
                         f"input. Received s: {s}, rank of x: {nd}")
    for size in s:
        if not isinstance(size, int) or size <= 0:
            raise ValueError(f"FFT sizes {s} contains invalid value ({size})")


def _check_axis(x, axis):
    nd = len(x.shape)
    if not isinstance(axis, int):
        raise ValueError(f"Invalid FFT axis ({axis}), it shoule be an integer.")
    if axis < -nd or axis >= nd:
        raise ValueError(f"Invalid FFT axis ({axis}), it should be in range [-{nd}, {nd})")


def _check_axes(x, axes):
    nd = len(x.shape)
    if not isinstance(axes, Sequence):
        raise ValueError(f"Invalid FFT axes ({axes}), it should be a sequence of integers.")
    if len(axes) > nd:
        raise ValueError(f"Length of fft axes should not be larger than the rank of input. "
                         f"Received, len of axes: {len(axes)}, rank of x: {nd}")
    for axis in axes:
        if not isinstance(axis, int) or axis < -nd or axis >= nd:
            raise ValueError(f"FFT axes {axes} contains invalid value ({axis}), it should be "
                             f"in range [-{nd}, {nd})")


def _check_2d(x, s, axes):
    if len(x.shape) < 2:
        raise ValueError(f"The rank of the input ({len(x.shape)}) should >= 2")
    if s is not None and (not isinstance(s, Sequence) or len(s) != 2):
        raise ValueError(f"Invalid FFT argument s ({s}), it should be a sequence of 2 integers.")
    if axes is not None and (not isinstance(axes, Sequence) or len(axes) != 2):
        raise ValueError(f"Invalid FFT argument axes ({axes}), it should be a sequence of 2 "
                         f"integers.")


# ------------------------------------------------------------------ input preparation
def _kind(x):
    return to_np_dtype(x.dtype).kind


def _is_integer(x):
    return _kind(x) in "iu"


def _is_real(x):
    """Paddle's is_integer or is_floating_point (bool is neither)."""
    return _kind(x) in "iuf"


def _as_real(x):
    """fft_r2c's input: integers become the default float dtype."""
    return cast(x, get_default_dtype()) if _is_integer(x) else x


def _as_complex(x):
    """fft_c2c / fft_c2r's input: integers become the default complex dtype, floats
    their complex dtype (float16 stays float16: no kernel takes it)."""
    if _is_integer(x):
        return cast(x, complex_of(get_default_dtype()))
    if _kind(x) == "f":
        return cast(x, complex_of(x.dtype))
    return x


def _resize(x, s, axes):
    """Cut (``slice``) or zero-pad (``pad``) ``x`` to length s[i] along axes[i]."""
    if len(s) != len(axes):
        raise ValueError("length of `s` should equals length of `axes`.")
    shape = list(x.shape)
    to_pad, to_cut = {}, {}
    for size, axis in zip(s, axes):
        if shape[axis] < size:
            to_pad[axis] = size - shape[axis]
        elif shape[axis] > size:
            to_cut[axis] = size
    if to_cut:
        x = _slice(x, list(to_cut), [0] * len(to_cut), list(to_cut.values()))
    if to_pad:
        widths = [0] * (2 * len(shape))
        for axis, p in to_pad.items():
            widths[2 * axis + 1] = p
        x = _pad(x, widths)
    return x


def _norm_axes(x, axes):
    nd = len(x.shape)
    return [a + nd if a < 0 else a for a in axes]


def _one_axis(x, n, axis, norm):
    _check_norm(norm)
    axis = -1 if axis is None else axis
    _check_axis(x, axis)
    axes = _norm_axes(x, [axis])
    if n is not None:
        _check_n(n)
    return axes


def _many_axes(x, s, axes, norm, keep_last):
    """Normalized axes (sorted: all of them for c2c, all but the last for r2c and
    c2r) and ``s`` in their order."""
    _check_norm(norm)
    if s is not None:
        _check_s(x, s)
    nd = len(x.shape)
    if axes is None:
        axes = list(range(nd)) if s is None else list(range(nd - len(s), nd))
        return axes, (list(s) if s is not None else None)
    _check_axes(x, axes)
    axes = _norm_axes(x, axes)
    head = axes[:-1] if keep_last else axes
    order = np.argsort(head, kind="stable").tolist()
    new_axes = [head[i] for i in order] + ([axes[-1]] if keep_last else [])
    if s is not None:
        if len(s) != len(axes):
            raise ValueError(f"Length of s ({len(s)}) and length of axes ({len(axes)}) does "
                             f"not match.")
        s = [s[i] for i in order] + ([s[-1]] if keep_last else [])
    return new_axes, s


# ------------------------------------------------------------------ the three transforms
def _c2c(x, s, axes, norm, forward):
    if s is not None:
        x = _resize(x, s, axes)
    return bind(_C2C, (x,), {"axes": axes, "normalization": norm, "forward": forward})[0]


def _r2c(x, s, axes, norm, forward, onesided):
    if s is not None:
        x = _resize(x, s, axes)
    return bind(_R2C, (x,), {"axes": axes, "normalization": norm, "forward": forward,
                             "onesided": onesided})[0]


def _c2r(x, s, axes, norm, forward):
    """``s[-1]`` (when given) is the output length of the last axis; the input is
    resized to s[-1] // 2 + 1 there."""
    attrs = {"axes": axes, "normalization": norm, "forward": forward}
    if s is not None:
        x = _resize(x, list(s[:-1]) + [s[-1] // 2 + 1], axes)
        attrs["last_dim_size"] = s[-1]
    return bind(_C2R, (x,), attrs)[0]


_REAL_INPUT = ("r2c", "r2c_full")     # fft_r2c: one-sided, and both sides


def _transform(x, s, axes, norm, forward, kind):
    if kind == "c2c":
        return _c2c(x, s, axes, norm, forward)
    if kind in _REAL_INPUT:
        return _r2c(x, s, axes, norm, forward, kind == "r2c")
    return _c2r(x, s, axes, norm, forward)


def _fft1(x, n, axis, norm, forward, kind):
    x = _as_real(x) if kind in _REAL_INPUT else _as_complex(x)
    axes = _one_axis(x, n, axis, norm)
    return _transform(x, None if n is None else [n], axes, norm, forward, kind)


def _fftn(x, s, axes, norm, forward, kind):
    x = _as_real(x) if kind in _REAL_INPUT else _as_complex(x)
    axes, s = _many_axes(x, s, axes, norm, keep_last=kind != "c2c")
    return _transform(x, s, axes, norm, forward, kind)


def _full_kind(x):
    """fft/ifft of a real (or integer) tensor is fft_r2c with both sides."""
    return "r2c_full" if _is_real(x) else "c2c"


# ------------------------------------------------------------------ 1-D
def fft(x, n=None, axis=-1, norm="backward", name=None):
    return _fft1(x, n, axis, norm, True, _full_kind(x))


def ifft(x, n=None, axis=-1, norm="backward", name=None):
    return _fft1(x, n, axis, norm, False, _full_kind(x))


def rfft(x, n=None, axis=-1, norm="backward", name=None):
    return _fft1(x, n, axis, norm, True, "r2c")


def irfft(x, n=None, axis=-1, norm="backward", name=None):
    return _fft1(x, n, axis, norm, False, "c2r")


def hfft(x, n=None, axis=-1, norm="backward", name=None):
    return _fft1(x, n, axis, norm, True, "c2r")


def ihfft(x, n=None, axis=-1, norm="backward", name=None):
    return _fft1(x, n, axis, norm, False, "r2c")


# ------------------------------------------------------------------ N-D
def fftn(x, s=None, axes=None, norm="backward", name=None):
    return _fftn(x, s, axes, norm, True, _full_kind(x))


def ifftn(x, s=None, axes=None, norm="backward", name=None):
    return _fftn(x, s, axes, norm, False, _full_kind(x))


def rfftn(x, s=None, axes=None, norm="backward", name=None):
    return _fftn(x, s, axes, norm, True, "r2c")


def irfftn(x, s=None, axes=None, norm="backward", name=None):
    return _fftn(x, s, axes, norm, False, "c2r")


def hfftn(x, s=None, axes=None, norm="backward", name=None):
    return _fftn(x, s, axes, norm, True, "c2r")


def ihfftn(x, s=None, axes=None, norm="backward", name=None):
    return _fftn(x, s, axes, norm, False, "r2c")


# ------------------------------------------------------------------ 2-D
def fft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    _check_2d(x, s, axes)
    return fftn(x, s, axes, norm, name)


def ifft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    _check_2d(x, s, axes)
    return ifftn(x, s, axes, norm, name)


def rfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    _check_2d(x, s, axes)
    return rfftn(x, s, axes, norm, name)


def irfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    _check_2d(x, s, axes)
    return irfftn(x, s, axes, norm, name)


def hfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    _check_2d(x, s, axes)
    return hfftn(x, s, axes, norm, name)


def ihfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    _check_2d(x, s, axes)
    return ihfftn(x, s, axes, norm, name)


# ------------------------------------------------------------------ frequencies and shifts
def _freq_dtype(dtype):
    return get_default_dtype() if dtype is None else dtype


def fftfreq(n, d=1.0, dtype=None, name=None):
    """The sample frequencies of an n-point FFT with sample spacing d:
    [0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (n d)."""
    if d * n == 0:
        raise ValueError("d or n should not be 0.")
    val = 1.0 / (n * d)
    neg = n // 2
    indices = roll(arange(-neg, (n + 1) // 2, dtype=_freq_dtype(dtype)), -neg)
    return indices * val


def rfftfreq(n, d=1.0, dtype=None, name=None):
    """The sample frequencies of rfft: [0, 1, ..., n//2] / (n d)."""
    if d * n == 0:
        raise ValueError("d or n should not be 0.")
    val = 1.0 / (n * d)
    return arange(0, 1 + n // 2, dtype=_freq_dtype(dtype)) * val


def _shift(x, axes, half):
    """``roll`` by ``half(n)`` along each of ``axes`` (every axis when None), the
    shifts computed from ``paddle.shape(x)`` as Paddle does."""
    shape = _shape(x)
    if axes is None:
        axes = list(range(len(x.shape)))
        shifts = half(shape)
    elif isinstance(axes, numbers.Integral):
        shifts = half(shape[axes])
    else:
        shifts = concat([half(shape[a:a + 1]) for a in axes])
    return roll(x, shifts, axes)


def fftshift(x, axes=None, name=None):
    """Move the zero-frequency term to the center: roll by n // 2 along axes."""
    return _shift(x, axes, lambda n: n // 2)


def ifftshift(x, axes=None, name=None):
    """The inverse of fftshift: roll by (n + 1) // 2 along axes."""
    return _shift(x, axes, lambda n: (n + 1) // 2)
