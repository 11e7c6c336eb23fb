"""Op-spec cases of ops/defs/static_builders.py and ops/defs/deform_conv.py:
row_conv, data_norm, nce, lookup_table, l1_norm, deformable_conv(_v1).
References loop with Paddle's index rules; nce's negatives are fixed by
``custom_neg_classes`` (or drawn with a fixed ``seed`` and checked for their
properties)."""
import numpy as np

from .spec import Case, rand


# ------------------------------------------------------------------ row_conv
def ref_row_conv(X, Filter):
    x = X[None] if X.ndim == 2 else X
    out = np.zeros_like(x)
    b, t, d = x.shape
    for bi in range(b):
        for ti in range(t):
            for w in range(Filter.shape[0]):
                if ti + w < t:
                    out[bi, ti] += x[bi, ti + w] * Filter[w]
    return out.reshape(X.shape)


# row_conv and l1_norm have float32 kernels only (as Paddle's CPU): looser steps
F32 = dict(rtol=1e-5, atol=1e-5, eps=1e-3, grad_tol=2e-3)
CASES = [
    Case("row_conv", {"X": rand(2, 5, 3, seed=801, dtype="float32"),
                      "Filter": rand(3, 3, seed=802, dtype="float32")}, ref=ref_row_conv, **F32),
    Case("row_conv", {"X": rand(4, 3, seed=803, dtype="float32"),
                      "Filter": rand(2, 3, seed=804, dtype="float32")},
         ref=ref_row_conv, id="row_conv_2d", **F32),
    Case("row_conv", {"X": rand(2, 2, 3, seed=805, dtype="float32"),
                      "Filter": rand(4, 3, seed=806, dtype="float32")},
         ref=ref_row_conv, id="row_conv_context_longer_than_sequence", **F32),
]


# ------------------------------------------------------------------ data_norm
def ref_data_norm(X, BatchSize, BatchSum, BatchSquareSum, scale_w=None, bias=None,
                  attrs=None):
    means = BatchSum / BatchSize
    scales = np.sqrt(BatchSize / BatchSquareSum)
    y = (X - means) * scales
    if attrs.get("enable_scale_and_shift"):
        y = y * scale_w + bias
    slot = attrs.get("slot_dim", -1)
    if slot > 0:
        for n in range(X.shape[0]):
            for i in range(0, X.shape[1], slot):
                if abs(X[n, i]) < 1e-7:
                    y[n, i:i + slot] = 0
    return y


_C = 6
_STATS = {"BatchSize": rand(_C, low=2.0, high=5.0, seed=811),
          "BatchSum": rand(_C, seed=812),
          "BatchSquareSum": rand(_C, low=1.0, high=4.0, seed=813)}
_SW = {"scale_w": rand(_C, low=0.5, high=1.5, seed=814), "bias": rand(_C, seed=815)}
XD = rand(5, _C, seed=816)
XD_SLOTS = XD.copy()
XD_SLOTS[1, 0] = XD_SLOTS[3, 2] = XD_SLOTS[4, 4] = 0.0      # hidden slots (show = 0)
CASES += [
    Case("data_norm", {"X": XD, **_STATS}, {"epsilon": 1e-5}, ref=ref_data_norm,
         grad=("X",), grad_outputs=("Y",)),
    Case("data_norm", {"X": XD, **_STATS, **_SW},
         {"enable_scale_and_shift": True}, ref=ref_data_norm,
         grad=("X", "scale_w", "bias"), grad_outputs=("Y",), id="data_norm_scale_shift"),
    Case("data_norm", {"X": XD, **_STATS, **_SW},
         {"enable_scale_and_shift": True, "slot_dim": 2}, ref=ref_data_norm,
         grad=("X", "scale_w", "bias"), grad_outputs=("Y",), id="data_norm_slots"),
    Case("data_norm", {"X": XD_SLOTS, **_STATS, **_SW},
         {"enable_scale_and_shift": True, "slot_dim": 2}, ref=ref_data_norm,
         grad=("scale_w", "bias"), grad_outputs=("Y",), id="data_norm_slots_hidden"),
    Case("data_norm", {"X": XD_SLOTS, **_STATS}, {"slot_dim": 3}, ref=ref_data_norm,
         grad=False, id="data_norm_slots_no_scale"),
]


# ------------------------------------------------------------------ nce
def _nce_prob(attrs, v, probs=None):
    k = attrs["num_total_classes"]
    if attrs.get("sampler", 0) == 0:
        return np.full(v.shape, 1.0 / k)
    if attrs["sampler"] == 1:
        return np.log((v + 2.0) / (v + 1.0)) / np.log(k)
    return probs[v]


def ref_nce(Input, Label, Weight, Bias=None, SampleWeight=None, CustomDistProbs=None,
            attrs=None, labels=None):
    n = Input.shape[0]
    lab = Label.reshape(n, -1)
    ntrue = lab.shape[1]
    if labels is None:
        labels = np.concatenate([lab, np.tile(attrs["custom_neg_classes"], (n, 1))], axis=1)
    logits = np.zeros(labels.shape)
    cost = np.zeros((n, 1))
    for i in range(n):
        for j, c in enumerate(labels[i]):
            z = Input[i] @ Weight[c] + (0.0 if Bias is None else Bias[c, 0])
            o = 1.0 / (1.0 + np.exp(-z))
            q = _nce_prob(attrs, np.array(c), CustomDistProbs) * attrs["num_neg_samples"]
            logits[i, j] = o
            term = -np.log(o / (o + q)) if j < ntrue else -np.log(q / (o + q))
            cost[i, 0] += (1.0 if SampleWeight is None else SampleWeight[i, 0]) * term
    return cost, logits, labels.astype("int64")


_NCE = {"Input": rand(4, 5, seed=821), "Weight": rand(7, 5, seed=822),
        "Label": np.array([[0, 3], [2, 6], [5, 5], [1, 4]], "int64")}
_OUTS = ("Cost", "SampleLogits", "SampleLabels")
_DIST = np.array([0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1], "float32")


def _nce_sample_check(attrs, label):
    """Properties of drawn SampleLabels: the true labels first, then
    num_neg_samples classes in range."""
    def ok(got):
        k, nneg = attrs["num_total_classes"], attrs["num_neg_samples"]
        return bool(got.shape == (label.shape[0], label.shape[1] + nneg)
                    and np.array_equal(got[:, :label.shape[1]], label)
                    and got.min() >= 0 and got.max() < k)
    return ok


_RND = {"num_total_classes": 7, "num_neg_samples": 6, "seed": 5}
CASES += [
    Case("nce", {**_NCE, "Bias": rand(7, 1, seed=823)},
         {"num_total_classes": 7, "num_neg_samples": 3, "custom_neg_classes": [1, 4, 2]},
         ref=ref_nce, outputs=_OUTS, grad=("Input", "Weight", "Bias"),
         grad_outputs=("Cost",)),
    Case("nce", {**_NCE, "SampleWeight": rand(4, 1, low=0.5, high=2.0, seed=824)},
         {"num_total_classes": 7, "num_neg_samples": 2, "sampler": 1,
          "custom_neg_classes": [6, 0]},
         ref=ref_nce, outputs=_OUTS, grad=("Input", "Weight"), grad_outputs=("Cost",),
         id="nce_log_uniform_weighted"),
    Case("nce", {**_NCE, "Bias": rand(7, 1, seed=825), "CustomDistProbs": _DIST,
                 "CustomDistAlias": np.array([1, 3, 3, 5, 5, -1, 1], "int32"),
                 "CustomDistAliasProbs": np.array([.7, .8, .7, .9, .7, 1., .7], "float32")},
         {"num_total_classes": 7, "num_neg_samples": 3, "sampler": 2,
          "custom_neg_classes": [3, 3, 0]},
         ref=ref_nce, outputs=_OUTS, grad=("Input", "Weight", "Bias"),
         grad_outputs=("Cost",), id="nce_custom_dist"),
    Case("nce", {**_NCE, "Bias": rand(7, 1, seed=826)}, _RND,
         ref=lambda Label: _nce_sample_check(_RND, Label), outputs=("SampleLabels",),
         random_op=True, grad=("Input", "Weight", "Bias"), grad_outputs=("Cost",),
         id="nce_sampled"),
]


# ------------------------------------------------------------------ lookup_table
W_LT = rand(6, 3, seed=831)
IDS = np.array([[[1], [4]], [[0], [4]], [[5], [2]]], "int64")
CASES += [
    Case("lookup_table", {"W": W_LT, "Ids": IDS}, ref=lambda W, Ids: W[Ids[..., 0]]),
    Case("lookup_table", {"W": W_LT, "Ids": IDS}, {"padding_idx": 4},
         ref=lambda W, Ids: np.where((Ids == 4), 0, W[Ids[..., 0]]), id="lookup_table_pad"),
]

# ------------------------------------------------------------------ l1_norm
XL = rand(3, 4, seed=841, dtype="float32")
XL = np.where(np.abs(XL) < 0.05, 0.3, XL).astype("float32")
CASES += [Case("l1_norm", {"X": XL}, ref=lambda X: np.array(np.abs(X).sum(), "float32"),
               **F32)]


# ------------------------------------------------------------------ deformable_conv
def _bilinear(img, h, w):
    H, W = img.shape
    if not (h > -1 and w > -1 and h < H and w < W):
        return 0.0
    h0, w0 = int(np.floor(h)), int(np.floor(w))
    lh, lw = h - h0, w - w0
    val = 0.0
    for r, c, wt in ((h0, w0, (1 - lh) * (1 - lw)), (h0, w0 + 1, (1 - lh) * lw),
                     (h0 + 1, w0, lh * (1 - lw)), (h0 + 1, w0 + 1, lh * lw)):
        if 0 <= r < H and 0 <= c < W:
            val += wt * img[r, c]
    return val


def ref_deform(Input, Offset, Filter, Mask=None, attrs=None):
    sh, sw = attrs.get("strides", [1, 1])
    ph, pw = attrs.get("paddings", [0, 0])
    dh, dw = attrs.get("dilations", [1, 1])
    g, dg = attrs.get("groups", 1), attrs.get("deformable_groups", 1)
    n, c, h, w = Input.shape
    o, cg, kh, kw = Filter.shape
    oh, ow = Offset.shape[2:]
    k = kh * kw
    out = np.zeros((n, o, oh, ow))
    for b in range(n):
        for oc in range(o):
            gi = oc // (o // g)
            for y in range(oh):
                for x in range(ow):
                    s = 0.0
                    for ci in range(cg):
                        ch = gi * cg + ci
                        d = ch // (c // dg)
                        for i in range(kh):
                            for j in range(kw):
                                t = i * kw + j
                                hy = y * sh - ph + i * dh + Offset[b, d * 2 * k + 2 * t, y, x]
                                wx = x * sw - pw + j * dw + Offset[b, d * 2 * k + 2 * t + 1, y, x]
                                m = 1.0 if Mask is None else Mask[b, d * k + t, y, x]
                                s += Filter[oc, ci, i, j] * _bilinear(Input[b, ch], hy, wx) * m
                    out[b, oc, y, x] = s
    return out


CASES += [
    Case("deformable_conv", {"Input": rand(2, 4, 5, 5, seed=851),
                             "Offset": rand(2, 36, 5, 5, low=-1.5, high=1.5, seed=852),
                             "Filter": rand(4, 2, 3, 3, seed=853),
                             "Mask": rand(2, 18, 5, 5, low=0.2, high=1.0, seed=854)},
         {"paddings": [1, 1], "groups": 2, "deformable_groups": 2}, ref=ref_deform,
         rtol=1e-9, atol=1e-9),
    Case("deformable_conv", {"Input": rand(1, 2, 6, 5, seed=855),
                             "Offset": rand(1, 8, 3, 2, low=-1.0, high=1.0, seed=856),
                             "Filter": rand(3, 2, 2, 2, seed=857),
                             "Mask": rand(1, 4, 3, 2, low=0.2, high=1.0, seed=858)},
         {"strides": [2, 2], "dilations": [2, 1], "paddings": [1, 0]}, ref=ref_deform,
         rtol=1e-9, atol=1e-9, id="deformable_conv_stride_dilation"),
    Case("deformable_conv_v1", {"Input": rand(2, 2, 4, 4, seed=861),
                                "Offset": rand(2, 18, 4, 4, low=-2.0, high=2.0, seed=862),
                                "Filter": rand(3, 2, 3, 3, seed=863)},
         {"paddings": [1, 1]}, ref=ref_deform, rtol=1e-9, atol=1e-9),
]
