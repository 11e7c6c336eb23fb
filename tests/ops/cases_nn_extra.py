"""Op-spec cases of ops/defs/nn_extra.py: pixel_unshuffle, channel_shuffle,
maxout, rrelu, sequence_mask, temporal_shift, bilinear_tensor_product,
gumbel_softmax, affine_grid, unpool / unpool3d, unfold / fold.  References
loop over output positions with Paddle's index rules; random ops check
properties."""
import numpy as np

from .spec import Case, rand


def _nhwc(x):
    return np.ascontiguousarray(x.transpose(0, 2, 3, 1))


def _nchw(x):
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def ref_pixel_unshuffle(x, r):
    n, c, h, w = x.shape
    out = np.zeros((n, c * r * r, h // r, w // r), x.dtype)
    for ch in range(c):
        for i in range(r):
            for j in range(r):
                out[:, ch * r * r + i * r + j] = x[:, ch, i::r, j::r]
    return out


def ref_channel_shuffle(x, g):
    n, c, h, w = x.shape
    out = np.zeros_like(x)
    k = c // g
    for i in range(g):
        for j in range(k):
            out[:, j * g + i] = x[:, i * k + j]
    return out


def ref_maxout(x, g):
    n, c, h, w = x.shape
    out = np.zeros((n, c // g, h, w), x.dtype)
    for i in range(c // g):
        out[:, i] = x[:, i * g:(i + 1) * g].max(axis=1)
    return out


XU = rand(2, 3, 4, 6, seed=301)
XC = rand(2, 6, 3, 2, seed=302)
XM = rand(2, 6, 3, 2, seed=303)
CASES = [
    Case("pixel_unshuffle", {"X": XU}, {"downscale_factor": 2},
         ref=lambda X: ref_pixel_unshuffle(X, 2)),
    Case("pixel_unshuffle", {"X": _nhwc(XU)}, {"downscale_factor": 2, "data_format": "NHWC"},
         ref=lambda X: _nhwc(ref_pixel_unshuffle(_nchw(X), 2)), id="pixel_unshuffle_nhwc"),
    Case("channel_shuffle", {"X": XC}, {"groups": 3}, ref=lambda X: ref_channel_shuffle(X, 3)),
    Case("channel_shuffle", {"X": XC}, {"groups": 2}, ref=lambda X: ref_channel_shuffle(X, 2),
         id="channel_shuffle_g2"),
    Case("channel_shuffle", {"X": _nhwc(XC)}, {"groups": 3, "data_format": "NHWC"},
         ref=lambda X: _nhwc(ref_channel_shuffle(_nchw(X), 3)), id="channel_shuffle_nhwc"),
    Case("maxout", {"X": XM}, {"groups": 2}, ref=lambda X: ref_maxout(X, 2)),
    Case("maxout", {"X": XM}, {"groups": 3, "axis": 1}, ref=lambda X: ref_maxout(X, 3),
         id="maxout_g3"),
    Case("maxout", {"X": _nhwc(XM)}, {"groups": 2, "axis": 3},
         ref=lambda X: _nhwc(ref_maxout(_nchw(X), 2)), id="maxout_nhwc"),
    Case("maxout", {"X": _nhwc(XM)}, {"groups": 2, "axis": -1},
         ref=lambda X: _nhwc(ref_maxout(_nchw(X), 2)), id="maxout_axis_neg"),
]


def _rrelu_train(lo, up):
    def check(X):
        def ok(out):
            slope = out[X < 0] / X[X < 0]
            return bool(np.all(out[X >= 0] == X[X >= 0]) and np.all(slope >= lo - 1e-12)
                        and np.all(slope <= up + 1e-12) and np.ptp(slope) > 0)
        return ok
    return check


XR = rand(4, 5, 6, seed=304)
XR = np.where(np.abs(XR) < 0.05, 0.3, XR)
CASES += [
    Case("rrelu", {"X": XR}, {"lower": 0.1, "upper": 0.3}, ref=_rrelu_train(0.1, 0.3),
         random_op=True, grad=False, id="rrelu_train"),
    Case("rrelu", {"X": XR}, {"lower": 0.1, "upper": 0.3, "is_test": True},
         ref=lambda X: np.where(X >= 0, X, 0.2 * X), id="rrelu_test"),
]


def ref_temporal_shift(x, t, r):
    nt, c, h, w = x.shape
    c1, c2 = int(c * r), int(c * 2 * r)
    out = np.zeros_like(x)
    for i in range(nt):
        it = i % t
        for ch in range(c):
            src = it - 1 if ch < c1 else it + 1 if ch < c2 else it
            if 0 <= src < t:
                out[i, ch] = x[i - it + src, ch]
    return out


XT = rand(6, 8, 2, 3, seed=305)
LENS = np.array([[3, 0], [5, 1]], "int64")
CASES += [
    Case("sequence_mask", {"X": LENS}, {"maxlen": 6, "out_dtype": 3},
         ref=lambda X: (np.arange(6) < X[..., None]).astype("int64"), grad=False),
    Case("sequence_mask", {"X": LENS}, {"out_dtype": 5},
         ref=lambda X: (np.arange(5) < X[..., None]).astype("float32"), grad=False,
         id="sequence_mask_max"),
    Case("sequence_mask", {"X": LENS, "MaxLenTensor": np.array([4], "int32")},
         {"out_dtype": 0}, ref=lambda X, MaxLenTensor: np.arange(4) < X[..., None],
         grad=False, id="sequence_mask_tensor"),
    Case("temporal_shift", {"X": XT}, {"seg_num": 3, "shift_ratio": 0.25},
         ref=lambda X: ref_temporal_shift(X, 3, 0.25)),
    Case("temporal_shift", {"X": XT}, {"seg_num": 2, "shift_ratio": 0.2},
         ref=lambda X: ref_temporal_shift(X, 2, 0.2), id="temporal_shift_r02"),
    Case("temporal_shift", {"X": _nhwc(XT)},
         {"seg_num": 3, "shift_ratio": 0.3, "data_format": "NHWC"},
         ref=lambda X: _nhwc(ref_temporal_shift(_nchw(X), 3, 0.3)), id="temporal_shift_nhwc"),
]


def ref_btp(X, Y, Weight, Bias=None):
    out = np.zeros((X.shape[0], Weight.shape[0]))
    for b in range(X.shape[0]):
        for k in range(Weight.shape[0]):
            out[b, k] = X[b] @ Weight[k] @ Y[b]
    return out if Bias is None else out + Bias


CASES += [
    Case("bilinear_tensor_product", {"X": rand(3, 4, seed=306), "Y": rand(3, 5, seed=307),
                                     "Weight": rand(2, 4, 5, seed=308),
                                     "Bias": rand(1, 2, seed=309)}, ref=ref_btp),
    Case("bilinear_tensor_product", {"X": rand(3, 4, seed=306), "Y": rand(3, 5, seed=307),
                                     "Weight": rand(2, 4, 5, seed=308)}, ref=ref_btp,
         id="bilinear_tensor_product_no_bias"),
]


def _gumbel_check(axis, hard):
    def check(X):
        def ok(out):
            s = out.sum(axis=axis)
            good = np.allclose(s, 1.0) and np.all(out >= 0)
            if hard:
                good = good and set(np.unique(out)) <= {0.0, 1.0}
            return bool(good)
        return ok
    return check


XG = rand(3, 4, 5, seed=310)
CASES += [
    # random, gradient-checked: the table reseeds before every forward run.  At
    # temperature 1 only: Paddle's grad (kept) leaves out the 1/temperature factor
    Case("gumbel_softmax", {"X": XG}, {}, ref=_gumbel_check(-1, False), random_op=True,
         id="gumbel_softmax_grad_check"),
    Case("gumbel_softmax", {"X": XG}, {"temperature": 0.5}, ref=_gumbel_check(-1, False),
         random_op=True, grad=False),
    Case("gumbel_softmax", {"X": XG}, {"axis": 1, "hard": True}, ref=_gumbel_check(1, True),
         random_op=True, grad=False, id="gumbel_softmax_hard"),
]

_SG = np.exp(XG) / np.exp(XG).sum(-1, keepdims=True)
CASES += [
    # the grad op checked on its own: softmax's backward from Out
    Case("gumbel_softmax_grad", {"Out": _SG, "Out@GRAD": rand(3, 4, 5, seed=311)},
         {"temperature": 0.5},
         ref=lambda Out, Out_GRAD: Out * (Out_GRAD - (Out_GRAD * Out).sum(-1, keepdims=True)),
         grad=False),
]


def ref_affine_grid(Theta, shape, align):
    def lin(n):
        v = np.linspace(-1, 1, n)
        return v if align else v * (n - 1) / n
    sizes = shape[2:]
    nd = len(sizes)
    out = np.zeros((Theta.shape[0],) + tuple(sizes) + (nd,))
    for idx in np.ndindex(*sizes):
        p = [lin(sizes[i])[idx[i]] for i in range(nd)][::-1] + [1.0]
        out[(slice(None),) + idx] = Theta @ np.array(p)
    return out


TH2 = rand(2, 2, 3, seed=312)
TH3 = rand(2, 3, 4, seed=313)
CASES += [
    Case("affine_grid", {"Theta": TH2}, {"output_shape": [2, 1, 3, 4]},
         ref=lambda Theta: ref_affine_grid(Theta, [2, 1, 3, 4], True)),
    Case("affine_grid", {"Theta": TH2}, {"output_shape": [2, 1, 3, 4], "align_corners": False},
         ref=lambda Theta: ref_affine_grid(Theta, [2, 1, 3, 4], False), id="affine_grid_unaligned"),
    Case("affine_grid", {"Theta": TH2, "OutputShape": np.array([2, 3, 2, 5], "int32")},
         ref=lambda Theta, OutputShape: ref_affine_grid(Theta, [2, 3, 2, 5], True),
         id="affine_grid_shape_tensor"),
    Case("affine_grid", {"Theta": TH3}, {"output_shape": [2, 1, 2, 3, 4]},
         ref=lambda Theta: ref_affine_grid(Theta, [2, 1, 2, 3, 4], True), id="affine_grid_3d"),
    Case("affine_grid", {"Theta": TH3}, {"output_shape": [2, 1, 2, 3, 2], "align_corners": False},
         ref=lambda Theta: ref_affine_grid(Theta, [2, 1, 2, 3, 2], False),
         id="affine_grid_3d_unaligned"),
]


def ref_unpool(X, Indices, h, w):
    n, c = X.shape[:2]
    out = np.zeros((n, c, h * w))
    for a in range(n):
        for b in range(c):
            for i, j in enumerate(Indices[a, b].reshape(-1)):
                out[a, b, j] = X[a, b].reshape(-1)[i]
    return out.reshape(n, c, h, w)


_UIDX = np.array([[[[0, 3], [9, 10]], [[5, 6], [8, 15]]]], "int32")
CASES += [
    Case("unpool", {"X": rand(1, 2, 2, 2, seed=314), "Indices": _UIDX},
         {"ksize": [2, 2], "strides": [2, 2], "output_size": [4, 4]},
         ref=lambda X, Indices: ref_unpool(X, Indices, 4, 4), grad=("X",)),
    Case("unpool", {"X": rand(1, 2, 2, 2, seed=315), "Indices": _UIDX.astype("int64")},
         {"ksize": [2, 2], "strides": [2, 2], "output_size": [4, 5]},
         ref=lambda X, Indices: ref_unpool(X, Indices, 4, 5), grad=("X",), id="unpool_wide"),
]


def ref_unfold(X, k, s, p, d):
    n, c, h, w = X.shape
    xp = np.pad(X, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
    oh = (h + p[0] + p[2] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + p[1] + p[3] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c * k[0] * k[1], oh * ow))
    for ch in range(c):
        for i in range(k[0]):
            for j in range(k[1]):
                row = (ch * k[0] + i) * k[1] + j
                for a in range(oh):
                    for b in range(ow):
                        out[:, row, a * ow + b] = xp[:, ch, a * s[0] + i * d[0],
                                                     b * s[1] + j * d[1]]
    return out


def ref_fold(X, size, k, s, p, d):
    # the adjoint of unfold: <unfold(e_i), X> for every unit input e_i
    n = X.shape[0]
    c = X.shape[1] // (k[0] * k[1])
    out = np.zeros((n, c) + tuple(size))
    for idx in np.ndindex(c, *size):
        e = np.zeros((1, c) + tuple(size))
        e[(0,) + idx] = 1.0
        out[(slice(None),) + idx] = (ref_unfold(e, k, s, p, d) * X).sum(axis=(1, 2))
    return out


XF = rand(2, 2, 5, 6, seed=316)
_UF1 = {"kernel_sizes": [2, 3], "strides": [1, 1], "paddings": [0, 0, 0, 0],
        "dilations": [1, 1]}
_UF2 = {"kernel_sizes": [3, 2], "strides": [2, 1], "paddings": [1, 0, 2, 1],
        "dilations": [1, 2]}
CASES += [
    Case("unfold", {"X": XF}, _UF1, ref=lambda X: ref_unfold(X, [2, 3], [1, 1], [0] * 4, [1, 1])),
    Case("unfold", {"X": XF}, _UF2,
         ref=lambda X: ref_unfold(X, [3, 2], [2, 1], [1, 0, 2, 1], [1, 2]), id="unfold_general"),
    Case("fold", {"X": rand(2, 12, 12, seed=317)}, dict(_UF1, output_sizes=[4, 6]),
         ref=lambda X: ref_fold(X, [4, 6], [2, 3], [1, 1], [0] * 4, [1, 1])),
    Case("fold", {"X": rand(1, 12, 12, seed=318)},
         dict(_UF2, paddings=[1, 0, 1, 0], output_sizes=[5, 6]),
         ref=lambda X: ref_fold(X, [5, 6], [3, 2], [2, 1], [1, 0, 1, 0], [1, 2]),
         id="fold_general"),
]

_UIDX3 = np.array([0, 5, 10, 17, 20, 27, 30, 35]).reshape(1, 1, 2, 2, 2).repeat(2, 1)
CASES += [
    Case("unpool3d", {"X": rand(1, 2, 2, 2, 2, seed=319), "Indices": _UIDX3.astype("int32")},
         {"ksize": [2, 2, 2], "strides": [2, 2, 2], "output_size": [3, 3, 4]},
         ref=lambda X, Indices: ref_unpool(X.reshape(1, 2, 2, 4), Indices.reshape(1, 2, 2, 4),
                                           1, 36).reshape(1, 2, 3, 3, 4), grad=("X",)),
]
