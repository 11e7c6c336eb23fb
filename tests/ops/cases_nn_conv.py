"""Op-spec cases: conv2d, depthwise_conv2d, conv2d_transpose, pool2d,
max_pool2d_with_index.  References are naive loops over output pixels,
written from Paddle's definitions (independent of the im2col kernels)."""
import numpy as np

from .spec import Case, rand


def _pads(p):
    return ((p[0], p[0]), (p[1], p[1])) if len(p) == 2 else ((p[0], p[1]), (p[2], p[3]))


def ref_conv(x, w, s=(1, 1), p=(0, 0), d=(1, 1), g=1):
    pt = _pads(p)
    xp = np.pad(x, ((0, 0), (0, 0), pt[0], pt[1]))
    n, c, h, wd = xp.shape
    o, cg, kh, kw = w.shape
    oh = (h - d[0] * (kh - 1) - 1) // s[0] + 1
    ow = (wd - d[1] * (kw - 1) - 1) // s[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // g
    for oc in range(o):
        gi = oc // og
        for i in range(oh):
            for j in range(ow):
                r, q = i * s[0], j * s[1]
                patch = xp[:, gi * cg:(gi + 1) * cg, r:r + d[0] * (kh - 1) + 1:d[0],
                           q:q + d[1] * (kw - 1) + 1:d[1]]
                out[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3))
    return out


def ref_convt(x, w, s=(1, 1), p=(0, 0), d=(1, 1), g=1, extra=(0, 0)):
    """Transposed conv by scattering each input pixel; ``extra`` = output_padding."""
    pt = _pads(p)
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    fh = (h - 1) * s[0] + d[0] * (kh - 1) + 1
    fw = (wd - 1) * s[1] + d[1] * (kw - 1) + 1
    oh = fh - pt[0][0] - pt[0][1] + extra[0]
    ow = fw - pt[1][0] - pt[1][1] + extra[1]
    buf = np.zeros((n, og * g, max(fh, pt[0][0] + oh), max(fw, pt[1][0] + ow)))
    cg = c // g
    for ic in range(c):
        gi = ic // cg
        for i in range(h):
            for j in range(wd):
                r, q = i * s[0], j * s[1]
                buf[:, gi * og:(gi + 1) * og, r:r + d[0] * (kh - 1) + 1:d[0],
                    q:q + d[1] * (kw - 1) + 1:d[1]] += x[:, ic, i, j][:, None, None, None] * w[ic]
    return buf[:, :, pt[0][0]:pt[0][0] + oh, pt[1][0]:pt[1][0] + ow]


def ref_pool(x, k, s=None, p=(0, 0), kind="max", ceil=False, exclusive=True):
    """Paddle's pooling loop: windows clipped to the input, avg divides by the
    clipped size (exclusive) or by kh*kw."""
    s = s or k
    pt = _pads(p)
    n, c, h, w = x.shape
    outs = []
    for a, size in enumerate((h, w)):
        span = size + pt[a][0] + pt[a][1] - k[a]
        outs.append((span + s[a] - 1) // s[a] + 1 if ceil else span // s[a] + 1)
    out = np.zeros((n, c) + tuple(outs))
    for i in range(outs[0]):
        for j in range(outs[1]):
            hs, ws = i * s[0] - pt[0][0], j * s[1] - pt[1][0]
            he, we = min(hs + k[0], h), min(ws + k[1], w)
            hs, ws = max(hs, 0), max(ws, 0)
            blk = x[:, :, hs:he, ws:we]
            if kind == "max":
                out[:, :, i, j] = blk.max(axis=(2, 3))
            else:
                div = (he - hs) * (we - ws) if exclusive else k[0] * k[1]
                out[:, :, i, j] = blk.sum(axis=(2, 3)) / div
    return out


def ref_adaptive(x, o, kind):
    n, c, h, w = x.shape
    out = np.zeros((n, c) + tuple(o))
    for i in range(o[0]):
        for j in range(o[1]):
            hs, he = (i * h) // o[0], -((-(i + 1) * h) // o[0])
            ws, we = (j * w) // o[1], -((-(j + 1) * w) // o[1])
            blk = x[:, :, hs:he, ws:we]
            out[:, :, i, j] = blk.max(axis=(2, 3)) if kind == "max" else blk.mean(axis=(2, 3))
    return out


def _nhwc(f):
    return lambda *a, **k: f(*a, **k).transpose(0, 2, 3, 1)


def _t(a):
    return np.ascontiguousarray(a.transpose(0, 3, 1, 2))


X1 = rand(1, 2, 4, 4, seed=11)
W1 = rand(3, 2, 3, 3, seed=12)
X5 = rand(1, 1, 5, 5, seed=13)
W5 = rand(2, 1, 2, 2, seed=14)
XG = rand(1, 4, 3, 3, seed=15)
WG = rand(4, 2, 2, 2, seed=16)
XN = rand(1, 4, 4, 2, seed=17)          # NHWC
WN = rand(2, 2, 3, 3, seed=18)
XD = rand(1, 3, 4, 4, seed=19)
WD = rand(3, 1, 3, 3, seed=20)
XT = rand(1, 2, 3, 3, seed=21)
WT = rand(2, 3, 3, 3, seed=22)
WT1 = rand(2, 1, 3, 3, seed=23)
XP = rand(1, 2, 4, 4, seed=24)
XP5 = rand(1, 1, 5, 7, seed=25)

CASES = [
    Case("conv2d", {"Input": X1, "Filter": W1}, {"paddings": [1, 1]},
         ref=lambda Input, Filter: ref_conv(Input, Filter, p=(1, 1)), id="conv2d_pad1"),
    Case("conv2d", {"Input": X5, "Filter": W5}, {"strides": [2, 2], "paddings": [1, 0, 0, 1]},
         ref=lambda Input, Filter: ref_conv(Input, Filter, s=(2, 2), p=(1, 0, 0, 1)),
         id="conv2d_stride_asym_pad", order2=True),
    Case("conv2d", {"Input": X5, "Filter": W5}, {"dilations": [2, 2], "paddings": [1, 1]},
         ref=lambda Input, Filter: ref_conv(Input, Filter, p=(1, 1), d=(2, 2)),
         id="conv2d_dilation"),
    Case("conv2d", {"Input": XG, "Filter": WG}, {"groups": 2},
         ref=lambda Input, Filter: ref_conv(Input, Filter, g=2), id="conv2d_groups",
         order2=True),
    Case("conv2d", {"Input": XN, "Filter": WN},
         {"strides": [2, 2], "padding_algorithm": "SAME", "data_format": "NHWC"},
         ref=lambda Input, Filter: ref_conv(_t(Input), Filter, s=(2, 2), p=(0, 1, 0, 1))
         .transpose(0, 2, 3, 1), id="conv2d_same_nhwc", order2=True),
    Case("conv2d", {"Input": X1, "Filter": W1}, {"paddings": [5, 5], "padding_algorithm": "VALID"},
         ref=lambda Input, Filter: ref_conv(Input, Filter), grad=False, id="conv2d_valid"),
    Case("depthwise_conv2d", {"Input": XD, "Filter": WD}, {"groups": 3, "paddings": [1, 1]},
         ref=lambda Input, Filter: ref_conv(Input, Filter, p=(1, 1), g=3), order2=True),
    Case("conv2d_transpose", {"Input": XT, "Filter": WT},
         {"strides": [2, 2], "paddings": [1, 1], "output_padding": [1, 1]},
         ref=lambda Input, Filter: ref_convt(Input, Filter, s=(2, 2), p=(1, 1), extra=(1, 1))),
    Case("conv2d_transpose", {"Input": XT, "Filter": WT},
         {"strides": [2, 1], "paddings": [0, 1, 1, 0], "dilations": [1, 2]},
         ref=lambda Input, Filter: ref_convt(Input, Filter, s=(2, 1), p=(0, 1, 1, 0), d=(1, 2)),
         id="conv2d_transpose_dilation", order2=True),
    Case("conv2d_transpose", {"Input": XT, "Filter": WT},
         {"strides": [2, 2], "output_size": [8, 7]},
         ref=lambda Input, Filter: ref_convt(Input, Filter, s=(2, 2), extra=(1, 0)),
         grad=False, id="conv2d_transpose_output_size"),
    Case("conv2d_transpose", {"Input": XT.transpose(0, 2, 3, 1).copy(), "Filter": WT1.repeat(2, 1)},
         {"groups": 2, "data_format": "NHWC"},
         ref=lambda Input, Filter: ref_convt(_t(Input), Filter, g=2).transpose(0, 2, 3, 1),
         id="conv2d_transpose_groups_nhwc", order2=True),
    Case("depthwise_conv2d_transpose", {"Input": XT, "Filter": WT1}, {"groups": 2},
         ref=lambda Input, Filter: ref_convt(Input, Filter, g=2)),
    # ---------------------------------------------------------------- pool2d
    Case("pool2d", {"X": XP}, {"ksize": [2, 2], "strides": [2, 2], "pooling_type": "max"},
         ref=lambda X: ref_pool(X, (2, 2)), id="pool2d_max_tiled"),
    Case("pool2d", {"X": XP}, {"ksize": [2, 2], "strides": [2, 2], "pooling_type": "avg"},
         ref=lambda X: ref_pool(X, (2, 2), kind="avg"), id="pool2d_avg_tiled"),
    Case("pool2d", {"X": XP5}, {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1],
                                "pooling_type": "max", "ceil_mode": True},
         ref=lambda X: ref_pool(X, (3, 3), (2, 2), (1, 1), ceil=True), id="pool2d_max_pad_ceil"),
    Case("pool2d", {"X": XP5}, {"ksize": [3, 2], "strides": [2, 1], "paddings": [1, 0, 1, 1],
                                "pooling_type": "avg"},
         ref=lambda X: ref_pool(X, (3, 2), (2, 1), (1, 0, 1, 1), kind="avg"),
         id="pool2d_avg_exclusive", order2=True),
    Case("pool2d", {"X": XP5}, {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1],
                                "pooling_type": "avg", "exclusive": False, "ceil_mode": True},
         ref=lambda X: ref_pool(X, (3, 3), (2, 2), (1, 1), kind="avg", exclusive=False,
                                ceil=True), id="pool2d_avg_inclusive_ceil"),
    Case("pool2d", {"X": XP5}, {"ksize": [2, 3], "adaptive": True, "pooling_type": "avg"},
         ref=lambda X: ref_adaptive(X, (2, 3), "avg"), id="pool2d_adaptive_avg", order2=True),
    Case("pool2d", {"X": XP5}, {"ksize": [2, 3], "adaptive": True, "pooling_type": "max"},
         ref=lambda X: ref_adaptive(X, (2, 3), "max"), id="pool2d_adaptive_max"),
    Case("pool2d", {"X": XP}, {"ksize": [1, 1], "global_pooling": True, "pooling_type": "avg"},
         ref=lambda X: X.mean(axis=(2, 3), keepdims=True), id="pool2d_global_avg",
         order2=True),
    Case("pool2d", {"X": XP.transpose(0, 2, 3, 1).copy()},
         {"ksize": [3, 3], "strides": [2, 2], "padding_algorithm": "SAME",
          "pooling_type": "max", "data_format": "NHWC"},
         ref=lambda X: ref_pool(_t(X), (3, 3), (2, 2), (0, 1, 0, 1)).transpose(0, 2, 3, 1),
         id="pool2d_same_nhwc"),
    Case("max_pool2d_with_index", {"X": XP5}, {"ksize": [2, 2], "strides": [2, 2]},
         ref=lambda X: (ref_pool(X, (2, 2)), None), id="max_pool_with_index"),
    Case("max_pool2d_with_index", {"X": np.arange(16.0).reshape(1, 1, 4, 4)},
         {"ksize": [2, 2], "strides": [2, 2], "paddings": [1, 1]},
         ref=lambda X: (ref_pool(X, (2, 2), p=(1, 1)),
                        np.array([[[[0, 2, 3], [8, 10, 11], [12, 14, 15]]]], "int32")),
         grad=False, id="max_pool_with_index_mask"),
    Case("max_pool2d_with_index", {"X": XP5}, {"ksize": [2, 3], "adaptive": True},
         ref=lambda X: (ref_adaptive(X, (2, 3), "max"), None), id="max_pool_with_index_adaptive"),
]
