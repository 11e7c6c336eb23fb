"""numpy kernel of ``yolov3_loss`` (ops/defs/detection.py) and its grad, with
Paddle's CPU rules: predictions overlapping any ground truth by more than
``ignore_thresh`` are left out of the objectness loss; each ground truth is
matched to the anchor of best shape IoU and, when that anchor is in
``anchor_mask``, adds a location loss (sigmoid cross-entropy for x, y, L1 for
w, h, weighted by (2 - w*h) * score), a class loss (label-smoothed when asked)
and a positive objectness target.  One pass computes the loss and d loss / d X,
so the grad kernel is the forward's adjoint by construction."""
import numpy as np

from ..registry import kernel

F = ("float32", "float64")


def _sig(v):
    return 1.0 / (1.0 + np.exp(-v))


def _sce(x, label):
    """Sigmoid cross-entropy of logit ``x`` and its derivative."""
    return np.maximum(x, 0) - x * label + np.log1p(np.exp(-np.abs(x))), _sig(x) - label


def _iou_center(ax, ay, aw, ah, bx, by, bw, bh):
    iw = np.minimum(ax + aw / 2, bx + bw / 2) - np.maximum(ax - aw / 2, bx - bw / 2)
    ih = np.minimum(ay + ah / 2, by + bh / 2) - np.maximum(ay - ah / 2, by - bh / 2)
    inter = np.where((iw < 0) | (ih < 0), 0.0, iw * ih)
    return inter / (aw * ah + bw * bh - inter)


def _yolo_loss(x, box, label, score, attrs):
    """(loss (N,), d loss_i / d X, objectness mask, gt match mask)."""
    n, _, h, w = x.shape
    anchors = np.asarray(attrs["anchors"], np.float64).reshape(-1, 2)
    mask = list(attrs["anchor_mask"])
    cls = attrs["class_num"]
    m = len(mask)
    b = box.shape[1]
    size = attrs["downsample_ratio"] * h
    s = attrs["scale_x_y"]
    bias = -0.5 * (s - 1.0)
    pos, neg = 1.0, 0.0
    if attrs["use_label_smooth"]:
        sw = min(1.0 / cls, 1.0 / 40)
        pos, neg = 1.0 - sw, sw
    score = np.ones((n, b)) if score is None else score
    p = x.reshape(n, m, 5 + cls, h, w).astype(np.float64)
    grad = np.zeros_like(p)
    loss = np.zeros(n)
    obj = np.zeros((n, m, h, w))
    match = np.zeros((n, b), np.int32)
    cols, rows = np.arange(w)[None, :], np.arange(h)[:, None]
    valid = (box[:, :, 2] >= 1e-6) & (box[:, :, 3] >= 1e-6)
    for i in range(n):
        gts = box[i][valid[i]].astype(np.float64)
        for j, a in enumerate(mask):                       # ignore well-predicted cells
            px = (cols + _sig(p[i, j, 0]) * s + bias) / w
            py = (rows + _sig(p[i, j, 1]) * s + bias) / h
            pw = np.exp(p[i, j, 2]) * anchors[a, 0] / size
            ph = np.exp(p[i, j, 3]) * anchors[a, 1] / size
            best = np.zeros((h, w))
            for g in gts:
                best = np.maximum(best, _iou_center(px, py, pw, ph, *g))
            obj[i, j][best > attrs["ignore_thresh"]] = -1
        for t in range(b):
            if not valid[i, t]:
                match[i, t] = -1
                continue
            gx, gy, gw, gh = (float(v) for v in box[i, t])
            gi, gj = int(gx * w), int(gy * h)
            ious = _iou_center(0, 0, anchors[:, 0] / size, anchors[:, 1] / size, 0, 0, gw, gh)
            best_n, best_iou = 0, 0.0
            for k, v in enumerate(ious):                   # first strict maximum
                if v > best_iou:
                    best_n, best_iou = k, v
            mi = mask.index(best_n) if best_n in mask else -1
            match[i, t] = mi
            if mi < 0:
                continue
            sc = float(score[i, t])
            cell = p[i, mi, :, gj, gi]
            g = grad[i, mi, :, gj, gi]
            wgt = (2.0 - gw * gh) * sc
            for e, target in ((0, gx * h - gi), (1, gy * h - gj)):
                v, d = _sce(cell[e], target)
                loss[i] += v * wgt
                g[e] += d * wgt
            for e, target in ((2, np.log(gw * size / anchors[best_n, 0])),
                              (3, np.log(gh * size / anchors[best_n, 1]))):
                loss[i] += abs(target - cell[e]) * wgt
                g[e] += (1.0 if cell[e] > target else -1.0) * wgt
            obj[i, mi, gj, gi] = sc
            labels = np.where(np.arange(cls) == int(label[i, t]), pos, neg)
            v, d = _sce(cell[5:], labels)
            loss[i] += v.sum() * sc
            g[5:] += d * sc
        conf = p[i, :, 4]
        v1, d1 = _sce(conf, 1.0)
        v0, d0 = _sce(conf, 0.0)
        positive, negative = obj[i] > 1e-5, (obj[i] <= 1e-5) & (obj[i] > -0.5)
        loss[i] += (v1 * obj[i])[positive].sum() + v0[negative].sum()
        grad[i, :, 4] += np.where(positive, d1 * obj[i], 0) + np.where(negative, d0, 0)
    return loss, grad.reshape(x.shape), obj, match


@kernel("yolov3_loss", dtypes=F)
def yolov3_loss(ins, attrs, need):
    x, box, label, score = ins
    loss, _, obj, match = _yolo_loss(x, box, label, score, attrs)
    return loss.astype(x.dtype), obj.astype(x.dtype), match


@kernel("yolov3_loss_grad", dtypes=F)
def yolov3_loss_grad(ins, attrs, need):
    x, box, label, score, _, _, gloss = ins
    _, d, _, _ = _yolo_loss(x, box, label, score, attrs)
    return ((d * gloss.reshape(-1, 1, 1, 1)).astype(x.dtype), None, None, None)
