"""Op-spec cases of ops/defs/nn_sampling.py: grid_sampler (4-D and 5-D, every
mode / padding mode / align_corners, gradients of X and Grid) and
class_center_sample (random: properties).  The grid_sampler reference loops
over output points with the documented coordinate rules."""
import itertools
import math

import numpy as np

from .spec import Case, rand


def _source(g, size, pad, align):
    c = (g + 1) / 2 * (size - 1) if align else ((g + 1) * size - 1) / 2
    if pad == "border":
        c = min(max(c, 0.0), size - 1.0)
    elif pad == "reflection":
        lo, hi = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
        span = hi - lo
        if span <= 0:
            return 0.0
        t = abs(c - lo) % (2 * span)
        c = lo + (t if t <= span else 2 * span - t)
        c = min(max(c, 0.0), size - 1.0)
    return c


def _round(c):
    return int(math.floor(c + 0.5)) if c >= 0 else -int(math.floor(-c + 0.5))


def ref_grid_sample(x, grid, mode="bilinear", pad="zeros", align=True):
    n, ch = x.shape[:2]
    sizes = x.shape[2:]
    nd = len(sizes)
    out = np.zeros((n, ch) + grid.shape[1:-1], x.dtype)

    def at(b, idx):
        if all(0 <= i < s for i, s in zip(idx, sizes)):
            return x[(b, slice(None)) + tuple(idx)]
        return np.zeros(ch, x.dtype)

    for b in range(n):
        for pos in np.ndindex(*grid.shape[1:-1]):
            pt = grid[(b,) + pos]
            cs = [_source(pt[nd - 1 - k], sizes[k], pad, align) for k in range(nd)]
            if mode == "nearest":
                v = at(b, [_round(c) for c in cs])
            else:
                v = np.zeros(ch, np.float64)
                for bits in itertools.product((0, 1), repeat=nd):
                    w = 1.0
                    idx = []
                    for c, bit in zip(cs, bits):
                        f = math.floor(c)
                        w *= (c - f) if bit else (1 - (c - f))
                        idx.append(f + bit)
                    v = v + w * at(b, idx)
            out[(b, slice(None)) + pos] = v
    return out


X4 = rand(2, 3, 4, 5, seed=701)
G4 = rand(2, 3, 4, 2, low=-1.3, high=1.3, seed=702)
X5 = rand(1, 2, 3, 4, 3, seed=703)
G5 = rand(1, 2, 3, 2, 3, low=-1.2, high=1.2, seed=704)

CASES = []
for mode, pad, align in itertools.product(("bilinear", "nearest"),
                                          ("zeros", "border", "reflection"), (True, False)):
    attrs = {"mode": mode, "padding_mode": pad, "align_corners": align}
    tag = f"{mode}_{pad}_{'align' if align else 'noalign'}"
    CASES.append(Case("grid_sampler", {"X": X4, "Grid": G4}, attrs,
                      ref=lambda X, Grid, m=mode, p=pad, a=align: ref_grid_sample(X, Grid, m, p, a),
                      id=f"grid_sampler_{tag}"))
    CASES.append(Case("grid_sampler", {"X": X5, "Grid": G5}, attrs,
                      ref=lambda X, Grid, m=mode, p=pad, a=align: ref_grid_sample(X, Grid, m, p, a),
                      id=f"grid_sampler_5d_{tag}"))
CASES += [
    Case("grid_sampler", {"X": X4.astype("float32"), "Grid": G4.astype("float32")},
         ref=lambda X, Grid: ref_grid_sample(X, Grid), grad=False, rtol=1e-5, atol=1e-5,
         id="grid_sampler_float32"),
    # one-pixel axes (reflection over an empty range) and points exactly on pixels
    Case("grid_sampler", {"X": rand(1, 2, 1, 3, seed=705),
                          "Grid": np.array([[[[-1.0, 0.3], [0.0, -0.7], [1.0, 1.0]]]])},
         {"padding_mode": "reflection"},
         ref=lambda X, Grid: ref_grid_sample(X, Grid, "bilinear", "reflection", True),
         grad=False, id="grid_sampler_one_pixel"),
]


# ------------------------------------------------------------------ class_center_sample
def _ccs_checks(label, num_classes, num_samples):
    positive = np.unique(label)
    count = max(num_samples, positive.size)

    def remap_ok(got):
        return got.dtype == label.dtype and np.array_equal(positive[got], label)

    def centers_ok(got):
        neg = got[positive.size:]
        return (got.dtype == label.dtype and got.size == count
                and np.array_equal(got[:positive.size], positive)
                and np.unique(got).size == got.size
                and np.all((neg >= 0) & (neg < num_classes))
                and not np.isin(neg, positive).any())
    return remap_ok, centers_ok


LAB = np.array([17, 10, 5, 18, 8, 8, 19, 14, 10, 14], "int64")
CASES += [
    Case("class_center_sample", {"Label": LAB}, {"num_classes": 20, "num_samples": 6},
         ref=lambda Label: _ccs_checks(Label, 20, 6), random_op=True, grad=False,
         id="class_center_sample_all_positive"),
    Case("class_center_sample", {"Label": LAB}, {"num_classes": 20, "num_samples": 12},
         ref=lambda Label: _ccs_checks(Label, 20, 12), random_op=True, grad=False,
         id="class_center_sample_negatives"),
    Case("class_center_sample", {"Label": LAB.astype("int32")},
         {"num_classes": 20, "num_samples": 20, "fix_seed": True, "seed": 3},
         ref=lambda Label: _ccs_checks(Label, 20, 20), random_op=True, grad=False,
         id="class_center_sample_every_class_int32"),
]
