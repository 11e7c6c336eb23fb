"""Op-spec cases of the proposal and loss ops of ops/defs/detection.py:
distribute_fpn_proposals, generate_proposals_v2, matrix_nms (scalar-loop
references of Paddle's rules) and yolov3_loss (a scalar-loop reference, and the
finite-difference gradient of the features)."""
import math

import numpy as np

from .spec import Case, rand


def _area(b, off):
    if b[2] < b[0] or b[3] < b[1]:
        return 0.0
    return (b[2] - b[0] + off) * (b[3] - b[1] + off)


def _jaccard(a, b, off):
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    inter = (min(a[2], b[2]) - max(a[0], b[0]) + off) * (min(a[3], b[3]) - max(a[1], b[1]) + off)
    return inter / (_area(a, off) + _area(b, off) - inter)


# ------------------------------------------------------------------ distribute_fpn_proposals
def ref_fpn(FpnRois, RoisNum, attrs):
    lo, hi = attrs["min_level"], attrs["max_level"]
    off = 1.0 if attrs["pixel_offset"] else 0.0
    img = np.repeat(np.arange(len(RoisNum)), RoisNum)
    levels = []
    for r in FpnRois:
        lv = math.floor(math.log2(math.sqrt(_area(r, off)) / attrs["refer_scale"] + 1e-8)
                        + attrs["refer_level"])
        levels.append(min(max(lv, lo), hi))
    multi, counts, order = [], [], []
    for lv in range(lo, hi + 1):
        idx = [i for i, v in enumerate(levels) if v == lv]
        order += idx
        multi.append(FpnRois[idx].reshape(-1, 4))
        counts.append(np.array([sum(1 for i in idx if img[i] == b) for b in range(len(RoisNum))],
                               np.int32))
    restore = np.array([order.index(i) for i in range(len(FpnRois))], np.int32)[:, None]
    return multi, restore, counts


_lo = np.random.default_rng(1).uniform(0, 100, (9, 2))
FPN = np.concatenate([_lo, _lo + np.random.default_rng(2).uniform(5, 400, (9, 2))], 1)
CASES = [
    Case("distribute_fpn_proposals", {"FpnRois": FPN, "RoisNum": np.array([4, 5], np.int32)},
         {"min_level": 2, "max_level": 5, "refer_level": 4, "refer_scale": 224,
          "pixel_offset": False}, ref=ref_fpn, grad=False),
    Case("distribute_fpn_proposals", {"FpnRois": FPN, "RoisNum": np.array([9], np.int32)},
         {"min_level": 3, "max_level": 4, "refer_level": 4, "refer_scale": 100,
          "pixel_offset": True}, ref=ref_fpn, grad=False, id="distribute_fpn_proposals.offset"),
]


# ------------------------------------------------------------------ matrix_nms
def ref_matrix_nms(BBoxes, Scores, attrs):
    off = 0.0 if attrs["normalized"] else 1.0
    out, index, nums = [], [], []
    for b in range(Scores.shape[0]):
        rows = []
        for c in range(Scores.shape[1]):
            if c == attrs["background_label"]:
                continue
            cand = sorted((i for i in range(Scores.shape[2])
                           if Scores[b, c, i] > attrs["score_threshold"]),
                          key=lambda i: -Scores[b, c, i])
            if attrs["nms_top_k"] > -1:
                cand = cand[:attrs["nms_top_k"]]
            iou_max = [max([_jaccard(BBoxes[b, cand[i]], BBoxes[b, cand[j]], off)
                            for j in range(i)], default=0.0) for i in range(len(cand))]
            for i, bi in enumerate(cand):
                decay = 1.0
                for j in range(i):
                    iou = _jaccard(BBoxes[b, bi], BBoxes[b, cand[j]], off)
                    d = (math.exp((iou_max[j] ** 2 - iou ** 2) * attrs["gaussian_sigma"])
                         if attrs["use_gaussian"] else (1 - iou) / (1 - iou_max[j]))
                    decay = min(decay, d)
                s = Scores[b, c, bi] * decay
                if s > attrs["post_threshold"]:
                    rows.append((s, c, bi))
        rows.sort(key=lambda r: -r[0])
        if attrs["keep_top_k"] > -1:
            rows = rows[:attrs["keep_top_k"]]
        out += [[c, s, *BBoxes[b, i]] for s, c, i in rows]
        index += [b * BBoxes.shape[1] + i for _, _, i in rows]
        nums.append(len(rows))
    return (np.array(out).reshape(-1, 6), np.array(index, np.int32).reshape(-1, 1),
            np.array(nums, np.int32))


_blo = np.random.default_rng(3).uniform(0, 1, (2, 10, 2))
MBOX = np.concatenate([_blo, _blo + np.random.default_rng(4).uniform(0.2, 0.6, (2, 10, 2))], 2)
MSC = np.random.default_rng(5).uniform(0, 1, (2, 3, 10))
MN = {"score_threshold": 0.2, "nms_top_k": 6, "keep_top_k": 8, "post_threshold": 0.1,
      "use_gaussian": False, "gaussian_sigma": 2.0, "background_label": 0, "normalized": True}
CASES += [
    Case("matrix_nms", {"BBoxes": MBOX, "Scores": MSC}, MN, ref=ref_matrix_nms, grad=False),
    Case("matrix_nms", {"BBoxes": MBOX * 10, "Scores": MSC},
         dict(MN, use_gaussian=True, background_label=-1, normalized=False, keep_top_k=-1,
              nms_top_k=-1), ref=ref_matrix_nms, grad=False, id="matrix_nms.gaussian"),
]


# ------------------------------------------------------------------ generate_proposals_v2
def ref_proposals(Scores, BboxDeltas, ImShape, Anchors, Variances, attrs):
    n, a, h, w = Scores.shape
    off = 1.0 if attrs["pixel_offset"] else 0.0
    rois, probs, nums = [], [], []
    for b in range(n):
        items = []
        for i in range(h):
            for j in range(w):
                for k in range(a):
                    items.append((Scores[b, k, i, j], BboxDeltas[b, 4 * k:4 * k + 4, i, j],
                                  Anchors[i, j, k], Variances[i, j, k]))
        items.sort(key=lambda t: -t[0])
        if 0 < attrs["pre_nms_topN"] < len(items):
            items = items[:attrs["pre_nms_topN"]]
        ih, iw = ImShape[b]
        boxes = []
        for s, d, an, v in items:
            aw, ah = an[2] - an[0] + off, an[3] - an[1] + off
            cx = v[0] * d[0] * aw + an[0] + aw / 2
            cy = v[1] * d[1] * ah + an[1] + ah / 2
            bw = math.exp(min(v[2] * d[2], math.log(1000 / 16))) * aw
            bh = math.exp(min(v[3] * d[3], math.log(1000 / 16))) * ah
            x1, y1 = cx - bw / 2, cy - bh / 2
            x2, y2 = cx + bw / 2 - off, cy + bh / 2 - off
            x1, x2 = (min(max(t, 0), iw - off) for t in (x1, x2))
            y1, y2 = (min(max(t, 0), ih - off) for t in (y1, y2))
            ws, hs = x2 - x1 + off, y2 - y1 + off
            ms = max(attrs["min_size"], 1.0)
            if ws >= ms and hs >= ms and (not off or (x1 + ws / 2 <= iw and y1 + hs / 2 <= ih)):
                boxes.append((s, [x1, y1, x2, y2]))
        keep, thr = [], attrs["nms_thresh"]
        for s, bx in boxes:
            if all(_jaccard(bx, k[1], off) <= thr for k in keep):
                keep.append((s, bx))
                if attrs["eta"] < 1 and thr > 0.5:
                    thr *= attrs["eta"]
        if 0 < attrs["post_nms_topN"] < len(keep):
            keep = keep[:attrs["post_nms_topN"]]
        rois += [k[1] for k in keep]
        probs += [k[0] for k in keep]
        nums.append(len(keep))
    return np.array(rois).reshape(-1, 4), np.array(probs).reshape(-1, 1), np.array(nums, np.int32)


_ys, _xs = np.meshgrid(np.arange(4) * 8.0, np.arange(5) * 8.0, indexing="ij")
_base = np.stack([_xs, _ys, _xs + 15, _ys + 15], -1)[:, :, None]
ANCH = np.concatenate([_base, _base * 1.3, _base * 0.7 + 2], 2)
GP = {"Scores": rand(2, 3, 4, 5, seed=6), "BboxDeltas": rand(2, 12, 4, 5, seed=7),
      "ImShape": np.array([[32.0, 40.0], [28.0, 36.0]]), "Anchors": ANCH,
      "Variances": np.ones_like(ANCH) * [0.1, 0.1, 0.2, 0.2]}
GA = {"pre_nms_topN": 6000, "post_nms_topN": 1000, "nms_thresh": 0.5, "min_size": 0.1,
      "eta": 1.0, "pixel_offset": False}
CASES += [
    Case("generate_proposals_v2", GP, GA, ref=ref_proposals, grad=False),
    Case("generate_proposals_v2", GP, dict(GA, pre_nms_topN=20, post_nms_topN=6,
                                           nms_thresh=0.6, min_size=2.0, pixel_offset=True),
         ref=ref_proposals, grad=False, id="generate_proposals_v2.topn.offset"),
    Case("generate_proposals_v2", GP, dict(GA, nms_thresh=0.8, eta=0.7), ref=ref_proposals,
         grad=False, id="generate_proposals_v2.eta"),
]


# ------------------------------------------------------------------ yolov3_loss
def _sce(x, t):
    return max(x, 0) - x * t + math.log1p(math.exp(-abs(x)))


def _sg(v):
    return 1 / (1 + math.exp(-v))


def _iou_c(a, b):
    iw = min(a[0] + a[2] / 2, b[0] + b[2] / 2) - max(a[0] - a[2] / 2, b[0] - b[2] / 2)
    ih = min(a[1] + a[3] / 2, b[1] + b[3] / 2) - max(a[1] - a[3] / 2, b[1] - b[3] / 2)
    inter = 0.0 if iw < 0 or ih < 0 else iw * ih
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def ref_yolo_loss(X, GTBox, GTLabel, attrs, GTScore=None):
    n, _, h, w = X.shape
    an = np.array(attrs["anchors"], float).reshape(-1, 2)
    mask, cls = attrs["anchor_mask"], attrs["class_num"]
    p = X.reshape(n, len(mask), 5 + cls, h, w)
    size, s = attrs["downsample_ratio"] * h, attrs["scale_x_y"]
    sw = min(1 / cls, 1 / 40) if attrs["use_label_smooth"] else 0.0
    loss = np.zeros(n)
    for i in range(n):
        obj = np.zeros((len(mask), h, w))
        gts = [g for g in GTBox[i] if g[2] >= 1e-6 and g[3] >= 1e-6]
        for j, a in enumerate(mask):
            for k in range(h):
                for l in range(w):
                    pb = ((l + _sg(p[i, j, 0, k, l]) * s - 0.5 * (s - 1)) / w,
                          (k + _sg(p[i, j, 1, k, l]) * s - 0.5 * (s - 1)) / h,
                          math.exp(p[i, j, 2, k, l]) * an[a, 0] / size,
                          math.exp(p[i, j, 3, k, l]) * an[a, 1] / size)
                    if max([_iou_c(pb, g) for g in gts], default=0) > attrs["ignore_thresh"]:
                        obj[j, k, l] = -1
        for t, g in enumerate(GTBox[i]):
            if g[2] < 1e-6 or g[3] < 1e-6:
                continue
            ious = [_iou_c((0, 0, an[q, 0] / size, an[q, 1] / size), (0, 0, g[2], g[3]))
                    for q in range(len(an))]
            best = int(np.argmax(ious))
            if best not in mask:
                continue
            mi, gi, gj = mask.index(best), int(g[0] * w), int(g[1] * h)
            sc = 1.0 if GTScore is None else GTScore[i, t]
            c = p[i, mi, :, gj, gi]
            wt = (2 - g[2] * g[3]) * sc
            loss[i] += (_sce(c[0], g[0] * h - gi) + _sce(c[1], g[1] * h - gj)
                        + abs(math.log(g[2] * size / an[best, 0]) - c[2])
                        + abs(math.log(g[3] * size / an[best, 1]) - c[3])) * wt
            obj[mi, gj, gi] = sc
            loss[i] += sum(_sce(c[5 + q], 1 - sw if q == GTLabel[i, t] else sw)
                           for q in range(cls)) * sc
        for j in range(len(mask)):
            for k in range(h):
                for l in range(w):
                    o = obj[j, k, l]
                    if o > 1e-5:
                        loss[i] += _sce(p[i, j, 4, k, l], 1.0) * o
                    elif o > -0.5:
                        loss[i] += _sce(p[i, j, 4, k, l], 0.0)
    return loss


GT = np.array([[[0.3, 0.4, 0.2, 0.3], [0.7, 0.6, 0.5, 0.4], [0.5, 0.5, 0.0, 0.1]],
               [[0.12, 0.8, 0.1, 0.15], [0.55, 0.3, 0.9, 0.6], [0.81, 0.2, 0.3, 0.05]]])
LB = np.array([[1, 0, 2], [2, 1, 0]], np.int32)
YA = {"anchors": [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119], "anchor_mask": [0, 1, 2],
      "class_num": 3, "ignore_thresh": 0.7, "downsample_ratio": 8, "use_label_smooth": True,
      "scale_x_y": 1.0}
CASES += [
    Case("yolov3_loss", {"X": rand(2, 24, 4, 4, seed=8), "GTBox": GT, "GTLabel": LB}, YA,
         ref=ref_yolo_loss, grad=("X",)),
    Case("yolov3_loss", {"X": rand(2, 24, 4, 4, seed=9), "GTBox": GT, "GTLabel": LB,
                         "GTScore": np.array([[0.9, 0.6, 1.0], [1.0, 0.7, 0.8]])},
         dict(YA, anchor_mask=[3, 4, 5], ignore_thresh=0.5, downsample_ratio=16,
              use_label_smooth=False, scale_x_y=1.2), ref=ref_yolo_loss, grad=("X",),
         id="yolov3_loss.score"),
    Case("yolov3_loss", {"X": rand(2, 16, 5, 5, seed=10) * 0.3, "GTBox": GT, "GTLabel": LB},
         dict(YA, anchor_mask=[1, 2], ignore_thresh=0.1, downsample_ratio=4),
         ref=ref_yolo_loss, grad=("X",), id="yolov3_loss.ignore"),
]
