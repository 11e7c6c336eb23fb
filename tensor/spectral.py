"""Complex numbers: ``paddle.complex``, ``real``, ``imag``, ``conj``, ``angle``,
``polar``, ``is_complex``, ``as_complex``, ``as_real`` (and their Tensor
methods).  ``paddle.fft`` is ``spectral_fft.py``, ``paddle.signal``
``spectral_signal.py``.
"""
from ..ops import bind, get_op, is_graph_value
from ..ops.dtypes import to_np_dtype
from ..dygraph.tensor import Tensor
from .math import cos, sin

__all__ = ["complex", "real", "imag", "conj", "angle", "polar", "is_complex", "as_complex",
           "as_real"]
METHODS = ["real", "imag", "conj", "angle", "polar", "is_complex", "as_complex", "as_real"]

_COMPLEX = get_op("complex")
_REAL = get_op("real")
_IMAG = get_op("imag")
_CONJ = get_op("conj")
_ANGLE = get_op("angle")
_AS_COMPLEX = get_op("as_complex")
_AS_REAL = get_op("as_real")


def complex(real, imag, name=None):
    """``real + i imag`` (broadcast), complex64 from float32, complex128 from float64."""
    return bind(_COMPLEX, (real, imag))[0]


def real(x, name=None):
    """The real part of a complex tensor."""
    return bind(_REAL, (x,))[0]


def imag(x, name=None):
    """The imaginary part of a complex tensor."""
    return bind(_IMAG, (x,))[0]


def conj(x, name=None):
    """The complex conjugate (a copy for a real tensor)."""
    return bind(_CONJ, (x,))[0]


def angle(x, name=None):
    """The argument of each element, in (-pi, pi] (0 or pi for a real tensor)."""
    return bind(_ANGLE, (x,))[0]


def polar(abs, angle, name=None):
    """``abs * (cos(angle) + i sin(angle))``, composed as Paddle does (its
    float32/float64 check is static-mode only; eagerly an integer input fails in
    ``cos``)."""
    return complex(abs * cos(angle), abs * sin(angle))


def is_complex(x):
    """Whether ``x`` holds complex64 or complex128."""
    if not (isinstance(x, Tensor) or is_graph_value(x)):
        raise TypeError(f"Expected Tensor, but received type of x: {type(x)}")
    return to_np_dtype(x.dtype).kind == "c"


def as_complex(x, name=None):
    """A [..., 2] real tensor read as [...] complex numbers (real, imaginary)."""
    return bind(_AS_COMPLEX, (x,))[0]


def as_real(x, name=None):
    """A complex tensor as [..., 2] real numbers (real, imaginary)."""
    return bind(_AS_REAL, (x,))[0]
