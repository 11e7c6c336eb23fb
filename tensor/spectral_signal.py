"""``paddle.signal``: ``frame`` and ``overlap_add`` (ops of the same names) and
the short-time Fourier transforms ``stft`` / ``istft`` composed over them as
Paddle 2.6 does (pad, frame, window, fft_r2c / fft_c2c; fft_c2r / fft_c2c,
window, overlap_add, divided by the window's overlap-added square).

Not top-level names (``__all__`` is empty): the package root makes this module
``sampan.signal``; ``stft``/``istft`` are Tensor methods too.  Paddle's
argument checks are asserts (AssertionError) and ValueErrors; those it makes
only eagerly (lengths against the input's, the NOLA condition) are skipped for
static Variables, as in Paddle.
"""
from ..ops import bind, get_op, is_graph_value
from ..ops.dtypes import to_np_dtype
from .creation import ones
from .manipulation import pad as _pad, squeeze, squeeze_, unsqueeze, transpose, tile
from .math import multiply
from .spectral_fft import _r2c, _c2c, _c2r, _as_real, _as_complex

__all__ = []
METHODS = ["stft", "istft"]

_FRAME = get_op("frame")
_OVERLAP_ADD = get_op("overlap_add")


def _is_complex(x):
    return to_np_dtype(x.dtype).kind == "c"


def frame(x, frame_length, hop_length, axis=-1, name=None):
    """Slide a window of ``frame_length`` samples by ``hop_length`` along the first
    (``axis=0``) or last (``axis=-1``) axis: [..., seq] -> [..., frame_length,
    n_frames], or [seq, ...] -> [n_frames, frame_length, ...]."""
    if axis not in (0, -1):
        raise ValueError(f"Unexpected axis: {axis}. It should be 0 or -1.")
    if not isinstance(frame_length, int) or frame_length <= 0:
        raise ValueError(f"Unexpected frame_length: {frame_length}. It should be an positive "
                         f"integer.")
    if not isinstance(hop_length, int) or hop_length <= 0:
        raise ValueError(f"Unexpected hop_length: {hop_length}. It should be an positive "
                         f"integer.")
    seq = list(x.shape)[axis]
    if seq >= 0 and frame_length > seq:
        raise ValueError(f"Attribute frame_length should be less equal than sequence length, "
                         f"but got ({frame_length}) > ({seq}).")
    return bind(_FRAME, (x,), {"frame_length": frame_length, "hop_length": hop_length,
                               "axis": axis})[0]


def overlap_add(x, hop_length, axis=-1, name=None):
    """Add frames [..., frame_length, n_frames] (``axis=-1``) or [n_frames,
    frame_length, ...] (``axis=0``) back into one sequence, ``hop_length`` apart."""
    if axis not in (0, -1):
        raise ValueError(f"Unexpected axis: {axis}. It should be 0 or -1.")
    if not isinstance(hop_length, int) or hop_length <= 0:
        raise ValueError(f"Unexpected hop_length: {hop_length}. It should be an positive "
                         f"integer.")
    return bind(_OVERLAP_ADD, (x,), {"hop_length": hop_length, "axis": axis})[0]


def _center_window(window, win_length, n_fft):
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = _pad(window, [left, n_fft - win_length - left])
    return window


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=True, name=None):
    """The short-time Fourier transform of x ([seq] or [batch, seq]):
    [(batch,) n_fft // 2 + 1 (onesided) or n_fft, n_frames]."""
    rank = len(x.shape)
    assert rank in (1, 2), f"x should be a 1D or 2D real tensor, but got rank of x is {rank}"
    if rank == 1:
        x = unsqueeze(x, 0)
    if hop_length is None:
        hop_length = int(n_fft // 4)
    assert hop_length > 0, f"hop_length should be > 0, but got {hop_length}."
    if win_length is None:
        win_length = n_fft
    if not is_graph_value(x):
        assert 0 < n_fft <= x.shape[-1], \
            f"n_fft should be in (0, seq_length({x.shape[-1]})], but got {n_fft}."
    assert 0 < win_length <= n_fft, \
        f"win_length should be in (0, n_fft({n_fft})], but got {win_length}."
    if window is not None:
        assert len(window.shape) == 1 and window.shape[0] == win_length, \
            (f"expected a 1D window tensor of size equal to win_length({win_length}), but got "
             f"window with shape {list(window.shape)}.")
    else:
        window = ones((win_length,), dtype=x.dtype)
    window = _center_window(window, win_length, n_fft)
    if center:
        assert pad_mode in ("constant", "reflect"), \
            f'pad_mode should be "reflect" or "constant", but got "{pad_mode}".'
        p = n_fft // 2
        x = squeeze(_pad(unsqueeze(x, -1), [p, p], mode=pad_mode, data_format="NLC"), -1)
    frames = transpose(frame(x, n_fft, hop_length, -1), [0, 2, 1])   # [batch, n_frames, n_fft]
    frames = multiply(frames, window)
    norm = "ortho" if normalized else "backward"
    if _is_complex(frames):
        assert not onesided, \
            "onesided should be False when input or window is a complex Tensor."
    if not _is_complex(x):
        out = _r2c(_as_real(frames), None, [len(frames.shape) - 1], norm, True, onesided)
    else:
        out = _c2c(_as_complex(frames), None, [len(frames.shape) - 1], norm, True)
    out = transpose(out, [0, 2, 1])                                  # [batch, n_fft, n_frames]
    if rank == 1:
        out = squeeze_(out, 0)
    return out


def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=True, length=None, return_complex=False, name=None):
    """The inverse of stft (least-squares overlap-add): x [(batch,) fft_size,
    n_frames] complex -> [(batch,) seq] (complex when ``return_complex``)."""
    rank = len(x.shape)
    assert rank in (2, 3), f"x should be a 2D or 3D complex tensor, but got rank of x is {rank}"
    if rank == 2:
        x = unsqueeze(x, 0)
    if hop_length is None:
        hop_length = int(n_fft // 4)
    if win_length is None:
        win_length = n_fft
    assert 0 < hop_length <= win_length, \
        f"hop_length should be in (0, win_length({win_length})], but got {hop_length}."
    assert 0 < win_length <= n_fft, \
        f"win_length should be in (0, n_fft({n_fft})], but got {win_length}."
    n_frames, fft_size = x.shape[-1], x.shape[-2]
    if not is_graph_value(x):
        if onesided:
            assert fft_size == n_fft // 2 + 1, (
                f"fft_size should be equal to n_fft // 2 + 1({n_fft // 2 + 1}) when onesided "
                f"is True, but got {fft_size}.")
        else:
            assert fft_size == n_fft, (f"fft_size should be equal to n_fft({n_fft}) when "
                                       f"onesided is False, but got {fft_size}.")
    if window is not None:
        assert len(window.shape) == 1 and window.shape[0] == win_length, (
            f"expected a 1D window tensor of size equal to win_length({win_length}), but got "
            f"window with shape {list(window.shape)}.")
    else:
        single = to_np_dtype(x.dtype).name in ("float32", "complex64")
        window = ones((win_length,), dtype="float32" if single else "float64")
    window = _center_window(window, win_length, n_fft)
    x = transpose(x, [0, 2, 1])                                      # [batch, n_frames, fft_size]
    norm = "ortho" if normalized else "backward"
    last = [len(x.shape) - 1]
    if return_complex:
        assert not onesided, ("onesided should be False when input(output of istft) or window "
                              "is a complex Tensor.")
        out = _c2c(_as_complex(x), None, last, norm, False)
    else:
        assert not _is_complex(window), \
            "Data type of window should not be complex when return_complex is False."
        if onesided is False:
            x = x[:, :, :n_fft // 2 + 1]
        out = _c2r(_as_complex(x), None, last, norm, False)
    out = transpose(multiply(out, window), [0, 2, 1])                # [batch, n_fft, n_frames]
    out = overlap_add(out, hop_length, -1)                           # [batch, seq]
    envelope = overlap_add(transpose(tile(unsqueeze(multiply(window, window), 0),
                                          [n_frames, 1]), [1, 0]), hop_length, -1)
    if length is None:
        if center:
            half = n_fft // 2
            out = out[:, half:-half]
            envelope = envelope[half:-half]
    else:
        start = n_fft // 2 if center else 0
        out = out[:, start:start + length]
        envelope = envelope[start:start + length]
    if not is_graph_value(envelope) and float(envelope.abs().min()) < 1e-11:
        raise ValueError(
            "Abort istft because Nonzero Overlap Add (NOLA) condition failed. For more "
            "information about NOLA constraint please see `scipy.signal.check_NOLA`"
            "(https://docs.scipy.org/doc/scipy/reference/generated/scipy.signal.check_NOLA.html).")
    out = out / envelope
    if rank == 2:
        out = squeeze_(out, 0)
    return out
