"""Op-spec cases: conv3d, conv3d_transpose, pool3d, max_pool3d_with_index.
References are naive loops over output (or input) positions for any number
of spatial dims, written from Paddle's definitions (independent of the
im2col / strided-slice kernels)."""
import itertools

import numpy as np

from .spec import Case, rand


def _pairs(p, nd):
    return [(v, v) for v in p] if len(p) == nd else list(zip(p[0::2], p[1::2]))


def _positions(shape):
    return itertools.product(*map(range, shape))


def ref_conv(x, w, s=(1, 1, 1), p=(0, 0, 0), d=(1, 1, 1), g=1):
    nd = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + _pairs(p, nd))
    o, cg = w.shape[:2]
    ks = w.shape[2:]
    out_sp = [(i - dd * (k - 1) - 1) // ss + 1 for i, k, ss, dd in zip(xp.shape[2:], ks, s, d)]
    out = np.zeros(x.shape[:1] + (o,) + tuple(out_sp))
    og = o // g
    for oc in range(o):
        gi = oc // og
        for pos in _positions(out_sp):
            win = tuple(slice(q * ss, q * ss + dd * (k - 1) + 1, dd)
                        for q, ss, dd, k in zip(pos, s, d, ks))
            patch = xp[(slice(None), slice(gi * cg, (gi + 1) * cg)) + win]
            out[(slice(None), oc) + pos] = (patch * w[oc]).reshape(len(x), -1).sum(axis=1)
    return out


def ref_convt(x, w, s=(1, 1, 1), p=(0, 0, 0), d=(1, 1, 1), g=1, extra=(0, 0, 0)):
    """Transposed conv by scattering each input position; ``extra`` = output_padding."""
    nd = x.ndim - 2
    pads = _pairs(p, nd)
    n, c = x.shape[:2]
    og = w.shape[1]
    ks = w.shape[2:]
    full = [(i - 1) * ss + dd * (k - 1) + 1 for i, ss, dd, k in zip(x.shape[2:], s, d, ks)]
    out_sp = [f - a - b + e for f, (a, b), e in zip(full, pads, extra)]
    buf = np.zeros((n, og * g) + tuple(max(f, a + o) for f, (a, _), o in
                                       zip(full, pads, out_sp)))
    cg = c // g
    for ic in range(c):
        gi = ic // cg
        for pos in _positions(x.shape[2:]):
            win = tuple(slice(q * ss, q * ss + dd * (k - 1) + 1, dd)
                        for q, ss, dd, k in zip(pos, s, d, ks))
            v = x[(slice(None), ic) + pos].reshape((n, 1) + (1,) * nd)
            buf[(slice(None), slice(gi * og, (gi + 1) * og)) + win] += v * w[ic]
    return buf[(slice(None), slice(None)) +
               tuple(slice(a, a + o) for (a, _), o in zip(pads, out_sp))]


def ref_pool(x, k, s=None, p=(0, 0, 0), kind="max", ceil=False, exclusive=True):
    """Paddle's pooling loop: windows clipped to the input; avg divides by the
    clipped size (exclusive) or by the window up to the input plus its leading
    pad.  Also returns the flat index of each window's first maximum."""
    s = s or k
    nd = x.ndim - 2
    pads = _pairs(p, nd)
    sp = x.shape[2:]
    out_sp = []
    for a, size in enumerate(sp):
        span = size + pads[a][0] + pads[a][1] - k[a]
        out_sp.append((span + s[a] - 1) // s[a] + 1 if ceil else span // s[a] + 1)
    out = np.zeros(x.shape[:2] + tuple(out_sp))
    idx = np.zeros(x.shape[:2] + tuple(out_sp), np.int32)
    for pos in _positions(out_sp):
        start = [q * ss - pd[0] for q, ss, pd in zip(pos, s, pads)]
        end = [min(a + kk, size) for a, kk, size in zip(start, k, sp)]
        lo = [max(a, 0) for a in start]
        blk = x[(slice(None), slice(None)) + tuple(slice(a, b) for a, b in zip(lo, end))]
        flat = blk.reshape(x.shape[:2] + (-1,))
        if kind == "max":
            out[(Ellipsis,) + pos] = flat.max(axis=-1)
            local = np.unravel_index(flat.argmax(axis=-1), blk.shape[2:])
            idx[(Ellipsis,) + pos] = np.ravel_multi_index(
                tuple(a + l for a, l in zip(lo, local)), sp)
        else:
            if exclusive:
                div = np.prod([b - a for a, b in zip(lo, end)])
            else:
                div = np.prod([min(a + kk, size + pd[0]) - a
                               for a, kk, size, pd in zip(start, k, sp, pads)])
            out[(Ellipsis,) + pos] = flat.sum(axis=-1) / div
    return out, idx


def ref_adaptive(x, o, kind):
    sp = x.shape[2:]
    out = np.zeros(x.shape[:2] + tuple(o))
    for pos in _positions(o):
        win = tuple(slice((q * i) // oo, -((-(q + 1) * i) // oo))
                    for q, i, oo in zip(pos, sp, o))
        blk = x[(slice(None), slice(None)) + win].reshape(x.shape[:2] + (-1,))
        out[(Ellipsis,) + pos] = blk.max(axis=-1) if kind == "max" else blk.mean(axis=-1)
    return out


def _last(a):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1))


def _first(a):
    return np.ascontiguousarray(np.moveaxis(a, -1, 1))


X1 = rand(1, 2, 3, 4, 4, seed=41)
W1 = rand(3, 2, 2, 3, 2, seed=42)
X5 = rand(1, 1, 4, 5, 5, seed=43)
W5 = rand(2, 1, 2, 2, 2, seed=44)
XG = rand(1, 4, 3, 3, 3, seed=45)
WG = rand(4, 2, 2, 2, 2, seed=46)
XN = rand(1, 3, 4, 4, 2, seed=47)          # NDHWC
WN = rand(2, 2, 2, 3, 3, seed=48)
XT = rand(1, 2, 2, 3, 3, seed=49)
WT = rand(2, 3, 2, 2, 3, seed=50)
WT1 = rand(2, 1, 2, 2, 2, seed=51)
XP = rand(1, 2, 4, 4, 4, seed=52)
XP5 = rand(1, 2, 3, 5, 4, seed=53)

_MAX = {"pooling_type": "max"}
_AVG = {"pooling_type": "avg"}

CASES = [
    # ---------------------------------------------------------------- conv3d
    Case("conv3d", {"Input": X1, "Filter": W1}, {"paddings": [1, 0, 1]},
         ref=lambda Input, Filter: ref_conv(Input, Filter, p=(1, 0, 1)), id="conv3d_pad"),
    Case("conv3d", {"Input": X5, "Filter": W5},
         {"strides": [2, 2, 1], "paddings": [1, 0, 0, 1, 1, 0]},
         ref=lambda Input, Filter: ref_conv(Input, Filter, s=(2, 2, 1), p=(1, 0, 0, 1, 1, 0)),
         id="conv3d_stride_asym_pad", order2=True),
    Case("conv3d", {"Input": X5, "Filter": W5}, {"dilations": [1, 2, 2], "paddings": [0, 1, 1]},
         ref=lambda Input, Filter: ref_conv(Input, Filter, p=(0, 1, 1), d=(1, 2, 2)),
         id="conv3d_dilation"),
    Case("conv3d", {"Input": XG, "Filter": WG}, {"groups": 2},
         ref=lambda Input, Filter: ref_conv(Input, Filter, g=2), id="conv3d_groups",
         order2=True),
    # SAME with stride 2 over (3, 4, 4), kernel (2, 3, 3): pads (0,1), (0,1), (0,1)
    Case("conv3d", {"Input": XN, "Filter": WN},
         {"strides": [2, 2, 2], "padding_algorithm": "SAME", "data_format": "NDHWC"},
         ref=lambda Input, Filter: _last(ref_conv(_first(Input), Filter, s=(2, 2, 2),
                                                  p=(0, 1, 0, 1, 0, 1))),
         id="conv3d_same_ndhwc"),
    Case("conv3d", {"Input": X1, "Filter": W1},
         {"paddings": [5, 5, 5], "padding_algorithm": "VALID"},
         ref=lambda Input, Filter: ref_conv(Input, Filter), grad=False, id="conv3d_valid"),
    Case("conv3d", {"Input": rand(1, 2, 2, 4, 4, seed=54), "Filter": W1},
         ref=lambda Input, Filter: ref_conv(Input, Filter), id="conv3d_one_depth"),
    Case("conv3d", {"Input": rand(1, 2, 1, 4, 4, seed=55), "Filter": W1},
         ref=lambda Input, Filter: np.zeros((1, 3, 0, 2, 3)), grad=False, id="conv3d_empty"),
    # ---------------------------------------------------------------- conv3d_transpose
    Case("conv3d_transpose", {"Input": XT, "Filter": WT},
         {"strides": [2, 2, 2], "paddings": [1, 1, 1], "output_padding": [1, 0, 1]},
         ref=lambda Input, Filter: ref_convt(Input, Filter, s=(2, 2, 2), p=(1, 1, 1),
                                             extra=(1, 0, 1)), id="conv3d_transpose_outpad"),
    Case("conv3d_transpose", {"Input": XT, "Filter": WT},
         {"strides": [2, 1, 1], "paddings": [0, 1, 1, 0, 0, 0], "dilations": [1, 2, 1]},
         ref=lambda Input, Filter: ref_convt(Input, Filter, s=(2, 1, 1),
                                             p=(0, 1, 1, 0, 0, 0), d=(1, 2, 1)),
         id="conv3d_transpose_dilation"),
    Case("conv3d_transpose", {"Input": XT, "Filter": WT},
         {"strides": [2, 2, 2], "output_size": [5, 6, 8]},
         ref=lambda Input, Filter: ref_convt(Input, Filter, s=(2, 2, 2), extra=(1, 0, 1)),
         grad=False, id="conv3d_transpose_output_size"),
    Case("conv3d_transpose", {"Input": _last(XT), "Filter": WT1.repeat(2, 1)},
         {"groups": 2, "data_format": "NHWC"},
         ref=lambda Input, Filter: _last(ref_convt(_first(Input), Filter, g=2)),
         id="conv3d_transpose_groups_ndhwc"),
    # ---------------------------------------------------------------- pool3d
    Case("pool3d", {"X": XP}, {"ksize": [2, 2, 2], "strides": [2, 2, 2], **_MAX},
         ref=lambda X: ref_pool(X, (2, 2, 2))[0], id="pool3d_max_tiled"),
    Case("pool3d", {"X": XP}, {"ksize": [2, 2, 2], "strides": [2, 2, 2], **_AVG},
         ref=lambda X: ref_pool(X, (2, 2, 2), kind="avg")[0], id="pool3d_avg_tiled"),
    Case("pool3d", {"X": XP5}, {"ksize": [2, 3, 3], "strides": [1, 2, 2],
                                "paddings": [1, 1, 1], "ceil_mode": True, **_MAX},
         ref=lambda X: ref_pool(X, (2, 3, 3), (1, 2, 2), (1, 1, 1), ceil=True)[0],
         id="pool3d_max_pad_ceil"),
    Case("pool3d", {"X": XP5}, {"ksize": [2, 3, 2], "strides": [1, 2, 1],
                                "paddings": [1, 0, 1, 1, 0, 1], **_AVG},
         ref=lambda X: ref_pool(X, (2, 3, 2), (1, 2, 1), (1, 0, 1, 1, 0, 1), kind="avg")[0],
         id="pool3d_avg_exclusive"),
    Case("pool3d", {"X": XP5}, {"ksize": [2, 3, 3], "strides": [2, 2, 2],
                                "paddings": [1, 1, 1], "exclusive": False, "ceil_mode": True,
                                **_AVG},
         ref=lambda X: ref_pool(X, (2, 3, 3), (2, 2, 2), (1, 1, 1), kind="avg",
                                exclusive=False, ceil=True)[0],
         id="pool3d_avg_inclusive_ceil"),
    Case("pool3d", {"X": XP5}, {"ksize": [2, 3, 3], "adaptive": True, **_AVG},
         ref=lambda X: ref_adaptive(X, (2, 3, 3), "avg"), id="pool3d_adaptive_avg"),
    Case("pool3d", {"X": XP5}, {"ksize": [2, 3, 3], "adaptive": True, **_MAX},
         ref=lambda X: ref_adaptive(X, (2, 3, 3), "max"), id="pool3d_adaptive_max"),
    Case("pool3d", {"X": XP}, {"ksize": [1, 1, 1], "global_pooling": True, **_AVG},
         ref=lambda X: X.mean(axis=(2, 3, 4), keepdims=True), id="pool3d_global_avg"),
    Case("pool3d", {"X": XP}, {"ksize": [1, 1, 1], "global_pooling": True, **_MAX},
         ref=lambda X: X.max(axis=(2, 3, 4), keepdims=True), id="pool3d_global_max"),
    # SAME, stride 2, kernel 3 over 4: pads (0, 1) on every dim
    Case("pool3d", {"X": _last(XP)},
         {"ksize": [3, 3, 3], "strides": [2, 2, 2], "padding_algorithm": "SAME",
          "data_format": "NDHWC", **_MAX},
         ref=lambda X: _last(ref_pool(_first(X), (3, 3, 3), (2, 2, 2), (0, 1, 0, 1, 0, 1))[0]),
         id="pool3d_same_ndhwc"),
    # windows larger than the input: one output per axis, the window clipped (Paddle
    # divides like C, so a negative span still gives one window)
    Case("pool3d", {"X": XP5}, {"ksize": [4, 6, 2], "strides": [4, 6, 2], **_MAX},
         ref=lambda X: ref_pool(X, (3, 5, 2), (3, 5, 2))[0], id="pool3d_max_big_window"),
    Case("pool3d", {"X": XP5}, {"ksize": [5, 3, 6], "strides": [3, 2, 4], **_AVG},
         ref=lambda X: ref_pool(X, (3, 3, 4), (3, 2, 4), kind="avg")[0],
         id="pool3d_avg_big_window"),
    # ---------------------------------------------------------------- max_pool3d_with_index
    Case("max_pool3d_with_index", {"X": XP5}, {"ksize": [1, 2, 2], "strides": [1, 2, 2]},
         ref=lambda X: ref_pool(X, (1, 2, 2)), id="max_pool3d_with_index"),
    Case("max_pool3d_with_index", {"X": XP5},
         {"ksize": [2, 2, 3], "strides": [2, 2, 2], "paddings": [1, 1, 1]},
         ref=lambda X: ref_pool(X, (2, 2, 3), (2, 2, 2), (1, 1, 1)),
         id="max_pool3d_with_index_pad"),
    Case("max_pool3d_with_index", {"X": np.arange(64.0).reshape(1, 1, 4, 4, 4)},
         {"ksize": [2, 2, 2], "strides": [2, 2, 2], "paddings": [1, 1, 1]},
         ref=lambda X: (ref_pool(X, (2, 2, 2), p=(1, 1, 1))[0],
                        np.array([0, 2, 3, 8, 10, 11, 12, 14, 15], "int32").reshape(1, 1, 1, 3, 3)
                        + np.array([0, 32, 48], "int32").reshape(1, 1, 3, 1, 1)),
         grad=False, id="max_pool3d_with_index_mask"),
    Case("max_pool3d_with_index", {"X": XP5}, {"ksize": [2, 3, 3], "adaptive": True},
         ref=lambda X: (ref_adaptive(X, (2, 3, 3), "max"),
                        None), id="max_pool3d_with_index_adaptive"),
]
