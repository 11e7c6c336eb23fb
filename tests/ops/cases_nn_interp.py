"""Op-spec cases: linear_interp_v2 (3-D), bicubic_interp_v2 (4-D),
trilinear_interp_v2 and nearest_interp_v2 on 5-D inputs.  The references loop
over output positions with Paddle's index rules, one axis at a time."""
import numpy as np

from .spec import Case, rand

F32 = np.float32


def _ratio(n_in, n_out, align, scale=-1.0):
    if n_out <= 1:
        return F32(0)
    if align:
        return F32(n_in - 1) / F32(n_out - 1)
    return F32(1.0 / scale) if scale > 0 else F32(n_in) / F32(n_out)


def _linear_taps(n_in, n_out, align, mode, scale=-1.0):
    """Per output index: [(source index, weight), ...] of linear interpolation."""
    r = _ratio(n_in, n_out, align, scale)
    half = mode == 0 and not align
    taps = []
    for k in range(n_out):
        s = max(float(r) * (k + 0.5) - 0.5, 0.0) if half else float(r * F32(k))
        lo = min(int(s), n_in - 1)
        hi = min(lo + 1, n_in - 1)
        d = float(F32(s) - F32(lo))
        taps.append([(lo, 1.0 - d), (hi, d)])
    return taps


def _cubic(t, a=-0.75):
    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _cubic_taps(n_in, n_out, align):
    r = float(_ratio(n_in, n_out, align))
    taps = []
    for k in range(n_out):
        s = float(F32(r * k if align else r * (k + 0.5) - 0.5))
        base = int(np.floor(s))
        w = _cubic(s - base)
        taps.append([(min(max(base - 1 + j, 0), n_in - 1), w[j]) for j in range(4)])
    return taps


def _nearest_taps(n_in, n_out, align, scale=-1.0):
    r = _ratio(n_in, n_out, align, scale)
    return [[(min(int(r * F32(k) + F32(0.5)) if align else int(r * F32(k)), n_in - 1), 1.0)]
            for k in range(n_out)]


def ref_resize(x, taps_per_axis):
    """Resize the spatial axes (2, 3, ...) of x, one axis at a time."""
    out = x.astype(np.float64)
    for axis, taps in enumerate(taps_per_axis, start=2):
        moved = np.moveaxis(out, axis, 0)
        res = np.zeros((len(taps),) + moved.shape[1:])
        for k, tk in enumerate(taps):
            for src, w in tk:
                res[k] += w * moved[src]
        out = np.moveaxis(res, 0, axis)
    return out.astype(x.dtype)


X3 = rand(2, 3, 5, seed=91)
X4 = rand(1, 2, 4, 5, seed=92)
X5 = rand(1, 2, 2, 3, 4, seed=93)


def _last(a):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1))


CASES = [
    Case("linear_interp_v2", {"X": X3}, {"out_w": 8, "align_corners": False, "align_mode": 0,
                                         "interp_method": "linear"},
         ref=lambda X: ref_resize(X, [_linear_taps(5, 8, False, 0)]), id="linear_half_pixel"),
    Case("linear_interp_v2", {"X": X3}, {"out_w": 3, "align_corners": True,
                                         "interp_method": "linear"},
         ref=lambda X: ref_resize(X, [_linear_taps(5, 3, True, 1)]), id="linear_align"),
    Case("linear_interp_v2", {"X": X3}, {"scale": [1.5], "align_corners": False,
                                         "align_mode": 1, "interp_method": "linear"},
         ref=lambda X: ref_resize(X, [_linear_taps(5, 7, False, 1, 1.5)]),
         id="linear_scale_mode1"),
    Case("linear_interp_v2", {"X": _last(X3)}, {"out_w": 7, "align_corners": False,
                                                "align_mode": 0, "data_layout": "NHWC",
                                                "interp_method": "linear"},
         ref=lambda X: _last(ref_resize(np.moveaxis(X, -1, 1),
                                        [_linear_taps(5, 7, False, 0)])), id="linear_nwc"),
    Case("bicubic_interp_v2", {"X": X4}, {"out_h": 6, "out_w": 7, "align_corners": False,
                                          "interp_method": "bicubic"},
         ref=lambda X: ref_resize(X, [_cubic_taps(4, 6, False), _cubic_taps(5, 7, False)]),
         id="bicubic_half_pixel"),
    Case("bicubic_interp_v2", {"X": X4}, {"out_h": 3, "out_w": 8, "align_corners": True,
                                          "interp_method": "bicubic"},
         ref=lambda X: ref_resize(X, [_cubic_taps(4, 3, True), _cubic_taps(5, 8, True)]),
         id="bicubic_align"),
    Case("trilinear_interp_v2", {"X": X5}, {"out_d": 3, "out_h": 5, "out_w": 6,
                                            "align_corners": False, "align_mode": 0,
                                            "interp_method": "trilinear"},
         ref=lambda X: ref_resize(X, [_linear_taps(2, 3, False, 0), _linear_taps(3, 5, False, 0),
                                      _linear_taps(4, 6, False, 0)]),
         id="trilinear_half_pixel"),
    Case("trilinear_interp_v2", {"X": X5}, {"out_d": 4, "out_h": 2, "out_w": 4,
                                            "align_corners": True,
                                            "interp_method": "trilinear"},
         ref=lambda X: ref_resize(X, [_linear_taps(2, 4, True, 1), _linear_taps(3, 2, True, 1),
                                      _linear_taps(4, 4, True, 1)]),
         id="trilinear_align"),
    Case("nearest_interp_v2", {"X": X5}, {"out_d": 3, "out_h": 5, "out_w": 2,
                                          "align_corners": False, "interp_method": "nearest"},
         ref=lambda X: ref_resize(X, [_nearest_taps(2, 3, False), _nearest_taps(3, 5, False),
                                      _nearest_taps(4, 2, False)]),
         id="nearest_5d"),
]
