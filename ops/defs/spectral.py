"""Complex tensors and spectral ops: complex, real, imag, conj, angle,
as_complex, as_real; the FFTs fft_c2c, fft_r2c, fft_c2r; frame and
overlap_add (``paddle.signal``), with their gradients.

Gradients of complex values follow Paddle's convention: the gradient of a
real loss L with respect to a complex z is dL/dRe(z) + i dL/dIm(z), so a
complex-linear op's gradient is its adjoint, and a real input of an op with a
complex output gets the real part of the adjoint's result.
"""
from ..declare import defop, defgrad, grad_op, REQUIRED
from ..dtypes import complex_of, real_of
from ..meta_rules import broadcast_shapes, norm_axis
from ..registry import GradOp, Meta, OpError

# ------------------------------------------------------------------ complex / real / imag
defgrad("complex_grad", "X Y Out@GRAD", "X@GRAD? Y@GRAD?",
        infer=lambda m, a: (m[0], m[1]), dtype_from="X", no_need_buffer=("X", "Y"))
defop("complex", "X Y", "Out",
      infer=lambda m, a: (Meta(broadcast_shapes(m[0].shape, m[1].shape), complex_of(m[0].dtype)),),
      grad=grad_op("complex_grad", uses=("X", "Y"), wrt=("X", "Y")), same_dtype=("X", "Y"))


def _to_real(metas, attrs):
    x = metas[0]
    return (Meta(x.shape, real_of(x.dtype)),)


def _dout_to_complex(metas, attrs):
    g = metas[-1]
    return (Meta(g.shape, complex_of(g.dtype)),)


for _part in ("real", "imag"):
    defgrad(f"{_part}_grad", "Out@GRAD", "X@GRAD", infer=_dout_to_complex)
    defop(_part, "X", "Out", infer=_to_real, grad=grad_op(f"{_part}_grad"))

# conj is its own gradient (Paddle's backward emits a conj op)
defop("conj", "X", "Out", infer=lambda m, a: (m[0],),
      grad=(GradOp("conj", {"X": "Out@GRAD"}, {"Out": "X@GRAD"}),))

defgrad("angle_grad", "X Out@GRAD", "X@GRAD", infer=lambda m, a: (m[0],), dtype_from="X")
defop("angle", "X", "Out", infer=_to_real, grad=grad_op("angle_grad", uses=("X",)))


# ------------------------------------------------------------------ as_complex / as_real
def as_complex_shape(shape):
    """Out's shape of as_complex: X's without its last dim, which must be 2."""
    if len(shape) < 1:
        raise OpError(f"as_complex needs an input of rank >= 1, got shape {list(shape)}")
    if shape[-1] not in (2, -1):
        raise OpError(f"as_complex needs an input whose last dim is 2 (real and imaginary "
                      f"parts), got shape {list(shape)}")
    return tuple(shape[:-1])


def _as_complex_infer(metas, attrs):
    x = metas[0]
    return (Meta(as_complex_shape(x.shape), complex_of(x.dtype)),)


def _as_real_infer(metas, attrs):
    x = metas[0]
    return (Meta(tuple(x.shape) + (2,), real_of(x.dtype)),)


# each is the other's gradient (Paddle's backward emits them so)
defop("as_complex", "X", "Out", infer=_as_complex_infer,
      grad=(GradOp("as_real", {"X": "Out@GRAD"}, {"Out": "X@GRAD"}),))
defop("as_real", "X", "Out", infer=_as_real_infer,
      grad=(GradOp("as_complex", {"X": "Out@GRAD"}, {"Out": "X@GRAD"}),))


# ------------------------------------------------------------------ FFTs
NORMS = ("backward", "forward", "ortho")


def fft_axes(shape, attrs, op):
    """The transformed axes (normalized, checked) of an fft op."""
    nd = len(shape)
    axes = list(attrs["axes"])
    if not axes:
        raise OpError(f"{op}: axes must not be empty")
    if attrs["normalization"] not in NORMS:
        raise OpError(f"{op}: normalization must be one of {list(NORMS)}, got "
                      f"'{attrs['normalization']}'")
    out = [norm_axis(a, nd, f"{op}: axis") for a in axes]
    if len(set(out)) != len(out):
        raise OpError(f"{op}: axes {axes} repeat an axis")
    for a in out:
        if shape[a] == 0:
            raise OpError(f"{op}: the input's dim {a} (shape {list(shape)}) is 0; an FFT needs "
                          f"at least one point")
    return out


def c2r_size(m, attrs):
    """The length of fft_c2r's last transformed axis for an input of length m."""
    n = attrs["last_dim_size"]
    return n if n > 0 else (2 * (m - 1) if m > 0 else m)


def _c2c_infer(metas, attrs):
    x = metas[0]
    fft_axes(x.shape, attrs, "fft_c2c")
    return (Meta(tuple(x.shape), x.dtype),)


def _r2c_infer(metas, attrs):
    x = metas[0]
    axes = fft_axes(x.shape, attrs, "fft_r2c")
    shape = list(x.shape)
    if attrs["onesided"] and shape[axes[-1]] != -1:
        shape[axes[-1]] = shape[axes[-1]] // 2 + 1
    return (Meta(tuple(shape), complex_of(x.dtype)),)


def _c2r_infer(metas, attrs):
    x = metas[0]
    axes = fft_axes(x.shape, attrs, "fft_c2r")
    shape = list(x.shape)
    last = axes[-1]
    if attrs["last_dim_size"] > 0 or shape[last] != -1:
        n = c2r_size(shape[last], attrs)
        if n <= 0:
            raise OpError(f"fft_c2r: the output length along axis {last} is {n} (input shape "
                          f"{list(x.shape)}, last_dim_size {attrs['last_dim_size']}); it must "
                          f"be positive")
        shape[last] = n
    return (Meta(tuple(shape), real_of(x.dtype)),)


def _c2r_grad_infer(metas, attrs):
    g = metas[-1]
    shape = list(g.shape)
    last = norm_axis(attrs["axes"][-1], len(shape))
    if shape[last] != -1:
        shape[last] = shape[last] // 2 + 1
    return (Meta(tuple(shape), complex_of(g.dtype)),)


_FFT_ATTRS = (("axes", "LONGS", REQUIRED), ("normalization", "STRING", REQUIRED),
              ("forward", "BOOLEAN", REQUIRED))
_R2C_ATTRS = _FFT_ATTRS + (("onesided", "BOOLEAN", REQUIRED),)
_C2R_ATTRS = _FFT_ATTRS + (("last_dim_size", "LONG", 0),)

defgrad("fft_c2c_grad", "Out@GRAD", "X@GRAD", _FFT_ATTRS, infer=lambda m, a: (m[0],))
defop("fft_c2c", "X", "Out", _FFT_ATTRS, infer=_c2c_infer, grad=grad_op("fft_c2c_grad"))

defgrad("fft_r2c_grad", "X Out@GRAD", "X@GRAD", _R2C_ATTRS, infer=lambda m, a: (m[0],),
        no_need_buffer=("X",))
defop("fft_r2c", "X", "Out", _R2C_ATTRS, infer=_r2c_infer,
      grad=grad_op("fft_r2c_grad", uses=("X",)))

defgrad("fft_c2r_grad", "Out@GRAD", "X@GRAD", _C2R_ATTRS, infer=_c2r_grad_infer)
defop("fft_c2r", "X", "Out", _C2R_ATTRS, infer=_c2r_infer, grad=grad_op("fft_c2r_grad"))


# ------------------------------------------------------------------ frame / overlap_add
def _signal_axis(attrs, op):
    axis = attrs["axis"]
    if axis not in (0, -1):
        raise OpError(f"{op}: axis must be 0 or -1, got {axis}")
    return axis


def _positive(attrs, name, op):
    v = attrs[name]
    if v <= 0:
        raise OpError(f"{op}: {name} must be positive, got {v}")
    return v


def frame_shape(shape, attrs):
    """Out's shape of frame: [..., frame_length, n_frames] (axis -1) or
    [n_frames, frame_length, ...] (axis 0)."""
    axis = _signal_axis(attrs, "frame")
    fl = _positive(attrs, "frame_length", "frame")
    hop = _positive(attrs, "hop_length", "frame")
    if len(shape) < 1:
        raise OpError(f"frame needs an input of rank >= 1, got shape {list(shape)}")
    seq = shape[-1] if axis == -1 else shape[0]
    if seq != -1 and fl > seq:
        raise OpError(f"frame: frame_length ({fl}) must be <= the sequence length ({seq}) "
                      f"(input shape {list(shape)}, axis {axis})")
    n = -1 if seq == -1 else 1 + (seq - fl) // hop
    if axis == -1:
        return tuple(shape[:-1]) + (fl, n)
    return (n, fl) + tuple(shape[1:])


def overlap_add_shape(shape, attrs):
    """Out's shape of overlap_add: frames [..., frame_length, n_frames] (axis -1)
    or [n_frames, frame_length, ...] (axis 0) added into one sequence."""
    axis = _signal_axis(attrs, "overlap_add")
    hop = _positive(attrs, "hop_length", "overlap_add")
    if len(shape) < 2:
        raise OpError(f"overlap_add needs an input of rank >= 2, got shape {list(shape)}")
    fl, n = (shape[-2], shape[-1]) if axis == -1 else (shape[1], shape[0])
    if fl != -1 and hop > fl:
        raise OpError(f"overlap_add: hop_length ({hop}) must be <= the frame length ({fl}) "
                      f"(input shape {list(shape)}, axis {axis})")
    seq = -1 if -1 in (fl, n) else (n - 1) * hop + fl
    if axis == -1:
        return tuple(shape[:-2]) + (seq,)
    return (seq,) + tuple(shape[2:])


_FRAME_ATTRS = (("frame_length", "INT", REQUIRED), ("hop_length", "INT", REQUIRED),
                ("axis", "INT", -1))
_OLA_ATTRS = (("hop_length", "INT", REQUIRED), ("axis", "INT", -1))

defgrad("frame_grad", "X Out@GRAD", "X@GRAD", _FRAME_ATTRS, infer=lambda m, a: (m[0],),
        no_need_buffer=("X",))
defop("frame", "X", "Out", _FRAME_ATTRS,
      infer=lambda m, a: (Meta(frame_shape(m[0].shape, a), m[0].dtype),),
      grad=grad_op("frame_grad", uses=("X",)))

defgrad("overlap_add_grad", "X Out@GRAD", "X@GRAD", _OLA_ATTRS, infer=lambda m, a: (m[0],),
        no_need_buffer=("X",))
defop("overlap_add", "X", "Out", _OLA_ATTRS,
      infer=lambda m, a: (Meta(overlap_add_shape(m[0].shape, a), m[0].dtype),),
      grad=grad_op("overlap_add_grad", uses=("X",)))
