"""numpy kernels of the proposal ops of ops/defs/detection.py:
``distribute_fpn_proposals`` (boxes to FPN levels by scale),
``generate_proposals_v2`` (RPN: top scores, decode, clip, filter, NMS) and
``matrix_nms`` (scores decayed by overlap with higher-scored boxes), with
Paddle's CPU rules (pixel offsets, the adaptive ``eta`` threshold, orders)."""
import math

import numpy as np

from ...ops.errors import OpError
from ..registry import kernel

F = ("float32", "float64")


def _area(b, off):
    w, h = b[..., 2] - b[..., 0] + off, b[..., 3] - b[..., 1] + off
    return np.where((b[..., 2] < b[..., 0]) | (b[..., 3] < b[..., 1]), 0.0, w * h)


def _iou(a, b, off):
    """Jaccard overlap of every box of ``a`` with every box of ``b`` (Paddle's
    rule: 0 for disjoint boxes; ``off`` 1 for pixel boxes)."""
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = (x2 - x1 + off) * (y2 - y1 + off)
    disjoint = (b[None, :, 0] > a[:, None, 2]) | (b[None, :, 2] < a[:, None, 0]) | \
               (b[None, :, 1] > a[:, None, 3]) | (b[None, :, 3] < a[:, None, 1])
    union = _area(a, off)[:, None] + _area(b, off)[None, :] - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(disjoint, 0.0, inter / union)


@kernel("distribute_fpn_proposals", dtypes=F)
def distribute_fpn_proposals(ins, attrs, need):
    rois, num = ins
    lo, hi = attrs["min_level"], attrs["max_level"]
    off = 1.0 if attrs["pixel_offset"] else 0.0
    k = rois.shape[0]
    n_img = 1 if num is None else len(num)
    img = np.zeros(k, np.int64) if num is None else np.repeat(np.arange(n_img), num)
    scale = np.sqrt(_area(rois, off))
    with np.errstate(divide="ignore"):
        lvl = np.floor(np.log2(scale / attrs["refer_scale"] + 1e-8) + attrs["refer_level"])
    lvl = np.clip(lvl, lo, hi).astype(np.int64) - lo
    order = np.lexsort((np.arange(k), lvl))       # by level, then original (image) order
    restore = np.empty(k, np.int32)
    restore[order] = np.arange(k, dtype=np.int32)
    multi = [rois[lvl == i] for i in range(hi - lo + 1)]
    counts = None if num is None else \
        [np.bincount(img[lvl == i], minlength=n_img).astype(np.int32)
         for i in range(hi - lo + 1)]
    return multi, restore[:, None], counts


def _nms_keep(boxes, thresh, eta, off):
    """Greedy NMS over boxes sorted by score, with Paddle's adaptive threshold."""
    keep = []
    iou = _iou(boxes, boxes, off)
    for i in range(len(boxes)):
        if all(iou[i, j] <= thresh for j in keep):
            keep.append(i)
            if eta < 1 and thresh > 0.5:
                thresh *= eta
    return np.asarray(keep, np.int64)


@kernel("generate_proposals_v2", dtypes=F)
def generate_proposals_v2(ins, attrs, need):
    scores, deltas, im, anchors, var = ins
    n, a, h, w = scores.shape
    off = 1.0 if attrs["pixel_offset"] else 0.0
    anchors, var = anchors.reshape(-1, 4), var.reshape(-1, 4)
    rois, probs, nums = [], [], []
    for b in range(n):
        sc = scores[b].transpose(1, 2, 0).reshape(-1)
        dl = deltas[b].reshape(a, 4, h, w).transpose(2, 3, 0, 1).reshape(-1, 4)
        order = np.argsort(-sc, kind="stable")
        pre = attrs["pre_nms_topN"]
        if 0 < pre < len(order):
            order = order[:pre]
        an, vr, d = anchors[order], var[order], dl[order]
        aw, ah = an[:, 2] - an[:, 0] + off, an[:, 3] - an[:, 1] + off
        cx, cy = an[:, 0] + 0.5 * aw, an[:, 1] + 0.5 * ah
        px, py = vr[:, 0] * d[:, 0] * aw + cx, vr[:, 1] * d[:, 1] * ah + cy
        clip = math.log(1000.0 / 16.0)
        pw = np.exp(np.minimum(vr[:, 2] * d[:, 2], clip)) * aw
        ph = np.exp(np.minimum(vr[:, 3] * d[:, 3], clip)) * ah
        box = np.stack([px - pw / 2, py - ph / 2, px + pw / 2 - off, py + ph / 2 - off], 1)
        ih, iw = float(im[b, 0]), float(im[b, 1])
        box[:, 0::2] = np.clip(box[:, 0::2], 0, iw - off)
        box[:, 1::2] = np.clip(box[:, 1::2], 0, ih - off)
        ms = max(attrs["min_size"], 1.0)
        bw, bh = box[:, 2] - box[:, 0] + off, box[:, 3] - box[:, 1] + off
        ok = (bw >= ms) & (bh >= ms)
        if off:
            ok &= (box[:, 0] + bw / 2 <= iw) & (box[:, 1] + bh / 2 <= ih)
        box, s = box[ok], sc[order][ok]
        if len(box):
            keep = _nms_keep(box, attrs["nms_thresh"], attrs["eta"], off)
            post = attrs["post_nms_topN"]
            if 0 < post < len(keep):
                keep = keep[:post]
            box, s = box[keep], s[keep]
        rois.append(box)
        probs.append(s)
        nums.append(len(box))
    return (np.concatenate(rois).reshape(-1, 4).astype(deltas.dtype, copy=False),
            np.concatenate(probs).reshape(-1, 1).astype(scores.dtype, copy=False),
            np.asarray(nums, np.int32))


@kernel("matrix_nms", dtypes=F)
def matrix_nms(ins, attrs, need):
    boxes, scores = ins
    n, c, m = scores.shape
    if boxes.shape[1] != m:
        raise OpError(f"matrix_nms: BBoxes has {boxes.shape[1]} boxes, Scores {m}")
    off = 0.0 if attrs["normalized"] else 1.0
    sigma = attrs["gaussian_sigma"]
    outs, index, nums = [], [], []
    for b in range(n):
        rows = []                                   # (score, class, box index)
        for cls in range(c):
            if cls == attrs["background_label"]:
                continue
            sc = scores[b, cls]
            cand = np.nonzero(sc > attrs["score_threshold"])[0]
            cand = cand[np.argsort(-sc[cand], kind="stable")]
            top = attrs["nms_top_k"]
            if top > -1:
                cand = cand[:top]
            if not len(cand):
                continue
            iou = np.tril(_iou(boxes[b, cand], boxes[b, cand], off), -1)   # iou[i, j], j < i
            iou_max = iou.max(axis=1)
            if attrs["use_gaussian"]:
                decay = np.exp((iou_max[None, :] ** 2 - iou ** 2) * sigma)
            else:
                decay = (1 - iou) / (1 - iou_max[None, :])
            mask = np.tril(np.ones_like(iou, bool), -1)
            min_decay = np.where(mask, decay, 1.0).min(axis=1)
            ds = sc[cand] * min_decay
            for i in np.nonzero(ds > attrs["post_threshold"])[0]:
                rows.append((ds[i], cls, cand[i]))
        rows.sort(key=lambda r: -r[0])
        if attrs["keep_top_k"] > -1:
            rows = rows[:attrs["keep_top_k"]]
        for s, cls, i in rows:
            outs.append([cls, s, *boxes[b, i]])
            index.append(b * m + i)
        nums.append(len(rows))
    return (np.asarray(outs, boxes.dtype).reshape(-1, 6),
            np.asarray(index, np.int32).reshape(-1, 1), np.asarray(nums, np.int32))
