"""Op-spec cases: dropout, lookup_table_v2, nearest_interp_v2, bilinear_interp_v2.
Resize references loop over output pixels with Paddle's index rules."""
import numpy as np

from .spec import Case, rand

F32 = np.float32


def _ratio(n_in, n_out, align, scale=-1.0):
    if n_out <= 1:
        return F32(0)
    if align:
        return F32(n_in - 1) / F32(n_out - 1)
    return F32(1.0 / scale) if scale > 0 else F32(n_in) / F32(n_out)


def ref_nearest(x, oh, ow, align=False, scale=(-1.0, -1.0)):
    n, c, h, w = x.shape
    rh, rw = _ratio(h, oh, align, scale[0]), _ratio(w, ow, align, scale[1])
    out = np.zeros((n, c, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            si = int(rh * F32(i) + F32(0.5)) if align else int(rh * F32(i))
            sj = int(rw * F32(j) + F32(0.5)) if align else int(rw * F32(j))
            out[:, :, i, j] = x[:, :, si, sj]
    return out


def _src(r, k, n_in, half):
    if half:
        s = max(float(r * F32(k + 0.5) - F32(0.5)), 0.0)
    else:
        s = float(r * F32(k))
    lo = min(int(s), n_in - 1)
    return lo, min(lo + 1, n_in - 1), s - lo


def ref_bilinear(x, oh, ow, align=True, mode=1, scale=(-1.0, -1.0)):
    n, c, h, w = x.shape
    half = mode == 0 and not align
    rh, rw = _ratio(h, oh, align, scale[0]), _ratio(w, ow, align, scale[1])
    out = np.zeros((n, c, oh, ow), x.dtype)
    for i in range(oh):
        y0, y1, dy = _src(rh, i, h, half)
        for j in range(ow):
            x0, x1, dx = _src(rw, j, w, half)
            out[:, :, i, j] = ((1 - dy) * ((1 - dx) * x[:, :, y0, x0] + dx * x[:, :, y0, x1]) +
                               dy * ((1 - dx) * x[:, :, y1, x0] + dx * x[:, :, y1, x1]))
    return out


XI = rand(1, 2, 3, 4, seed=71)
W5 = rand(5, 4, seed=72)
IDS = np.array([[0, 2, 4], [2, 1, 1]], "int64")
XD = rand(3, 4, seed=73)


def _dropped_or_scaled(scale):
    return lambda X: (lambda out: bool(np.all(np.isclose(out, 0) | np.isclose(out, X * scale))))


def _nhwc(a):
    return a.transpose(0, 2, 3, 1)


CASES = [
    Case("dropout", {"X": XD}, {"dropout_prob": 0.3, "dropout_implementation": "upscale_in_train"},
         ref=_dropped_or_scaled(1 / 0.7), random_op=True, grad=False, id="dropout_upscale"),
    Case("dropout", {"X": XD}, {"dropout_prob": 0.4, "fix_seed": True, "seed": 5},
         ref=_dropped_or_scaled(1.0), random_op=True, id="dropout_downgrade_seeded",
         order2=True),
    Case("dropout", {"X": XD}, {"dropout_prob": 0.5, "fix_seed": True, "seed": 7,
                                "dropout_implementation": "upscale_in_train"},
         ref=_dropped_or_scaled(2.0), random_op=True, id="dropout_upscale_seeded",
         order2=True),
    Case("dropout", {"X": XD}, {"dropout_prob": 0.25, "is_test": True},
         ref=lambda X: X * 0.75, id="dropout_infer_downgrade"),
    Case("dropout", {"X": XD}, {"dropout_prob": 0.25, "is_test": True,
                                "dropout_implementation": "upscale_in_train"},
         ref=lambda X: X, id="dropout_infer_upscale"),
    Case("lookup_table_v2", {"Ids": IDS, "W": W5}, ref=lambda Ids, W: W[Ids]),
    Case("lookup_table_v2", {"Ids": IDS, "W": W5}, {"padding_idx": 2},
         ref=lambda Ids, W: W[Ids] * (Ids != 2)[..., None], id="lookup_padding_idx"),
    Case("nearest_interp_v2", {"X": XI}, {"out_h": 5, "out_w": 7, "align_corners": False,
                                          "interp_method": "nearest"},
         ref=lambda X: ref_nearest(X, 5, 7)),
    Case("nearest_interp_v2", {"X": XI}, {"out_h": 2, "out_w": 6, "align_corners": True,
                                          "interp_method": "nearest"},
         ref=lambda X: ref_nearest(X, 2, 6, align=True), id="nearest_align"),
    Case("nearest_interp_v2", {"X": XI}, {"scale": [2.0, 1.5], "align_corners": False,
                                          "interp_method": "nearest"},
         ref=lambda X: ref_nearest(X, 6, 6, scale=(2.0, 1.5)), id="nearest_scale"),
    Case("nearest_interp_v2", {"X": np.ascontiguousarray(_nhwc(XI))},
         {"out_h": 4, "out_w": 3, "align_corners": False, "interp_method": "nearest",
          "data_layout": "NHWC"},
         ref=lambda X: _nhwc(ref_nearest(X.transpose(0, 3, 1, 2), 4, 3)), id="nearest_nhwc"),
    Case("bilinear_interp_v2", {"X": XI}, {"out_h": 5, "out_w": 7},
         ref=lambda X: ref_bilinear(X, 5, 7), id="bilinear_align_corners"),
    Case("bilinear_interp_v2", {"X": XI}, {"out_h": 5, "out_w": 7, "align_corners": False,
                                           "align_mode": 0},
         ref=lambda X: ref_bilinear(X, 5, 7, align=False, mode=0), id="bilinear_half_pixel"),
    Case("bilinear_interp_v2", {"X": XI}, {"out_h": 2, "out_w": 3, "align_corners": False,
                                           "align_mode": 1},
         ref=lambda X: ref_bilinear(X, 2, 3, align=False, mode=1), id="bilinear_mode1_down"),
    Case("bilinear_interp_v2", {"X": XI}, {"scale": [1.5, 2.0], "align_corners": False,
                                           "align_mode": 0},
         ref=lambda X: ref_bilinear(X, 4, 8, align=False, mode=0, scale=(1.5, 2.0)),
         id="bilinear_scale"),
    Case("bilinear_interp_v2", {"X": XI, "OutSize": np.array([4, 5], "int32")},
         {"align_corners": False, "align_mode": 0},
         ref=lambda X, OutSize: ref_bilinear(X, 4, 5, align=False, mode=0),
         id="bilinear_outsize_tensor"),
    Case("bilinear_interp_v2", {"X": np.ascontiguousarray(_nhwc(XI))},
         {"out_h": 4, "out_w": 6, "data_layout": "NHWC"},
         ref=lambda X: _nhwc(ref_bilinear(X.transpose(0, 3, 1, 2), 4, 6)), id="bilinear_nhwc"),
]


def ref_pixel_shuffle(x, r):
    n, c, h, w = x.shape
    out = np.zeros((n, c // (r * r), h * r, w * r))
    for ch in range(c // (r * r)):
        for i in range(r):
            for j in range(r):
                out[:, ch, i::r, j::r] = x[:, ch * r * r + i * r + j]
    return out


XS = rand(1, 8, 2, 3, seed=74)
CASES += [
    Case("pixel_shuffle", {"X": XS}, {"upscale_factor": 2},
         ref=lambda X: ref_pixel_shuffle(X, 2)),
    Case("pixel_shuffle", {"X": np.ascontiguousarray(_nhwc(XS))},
         {"upscale_factor": 2, "data_format": "NHWC"},
         ref=lambda X: _nhwc(ref_pixel_shuffle(X.transpose(0, 3, 1, 2), 2)),
         id="pixel_shuffle_nhwc"),
]
