"""Op-spec cases of ops/defs/detection.py: roi_align, roi_pool, psroi_pool
(references loop over boxes, bins and sample points with Paddle's index rules;
finite-difference gradients of the features), box_coder, prior_box, yolo_box,
nms and read_file."""
import math
import os
import tempfile

import numpy as np

from .spec import Case, rand

X = rand(2, 8, 6, 7, seed=11)
ROIS = np.array([[0.4, 0.6, 4.3, 3.9], [1.0, 1.2, 5.6, 3.1], [0.0, 0.0, 7.9, 5.8],
                 [2.5, -1.0, 9.0, 4.0], [3.1, 2.2, 3.4, 2.6]])
NUM = np.array([2, 3], np.int32)
IDS = np.repeat([0, 1], NUM)


def _bilinear(img, y, x):
    h, w = img.shape[-2:]
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return 0.0 * img[..., 0, 0]
    y, x = max(y, 0.0), max(x, 0.0)
    yl, xl = int(y), int(x)
    if yl >= h - 1:
        yl = yh = h - 1
        y = float(yl)
    else:
        yh = yl + 1
    if xl >= w - 1:
        xl = xh = w - 1
        x = float(xl)
    else:
        xh = xl + 1
    ly, lx = y - yl, x - xl
    return ((1 - ly) * (1 - lx) * img[..., yl, xl] + (1 - ly) * lx * img[..., yl, xh]
            + ly * (1 - lx) * img[..., yh, xl] + ly * lx * img[..., yh, xh])


def ref_roi_align(X, ROIs, RoisNum, attrs):
    ph, pw, s = attrs["pooled_height"], attrs["pooled_width"], attrs["spatial_scale"]
    al, sr = attrs["aligned"], attrs["sampling_ratio"]
    ids = np.repeat(np.arange(X.shape[0]), RoisNum)
    out = np.zeros((len(ROIs), X.shape[1], ph, pw))
    for r, roi in enumerate(ROIs):
        x1, y1, x2, y2 = (v * s - (0.5 if al else 0.0) for v in roi)
        rw, rh = x2 - x1, y2 - y1
        if not al:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = sr if sr > 0 else math.ceil(rh / ph)
        gw = sr if sr > 0 else math.ceil(rw / pw)
        for i in range(ph):
            for j in range(pw):
                acc = 0.0
                for a in range(gh):
                    for b in range(gw):
                        y = y1 + i * rh / ph + (a + 0.5) * rh / ph / gh
                        x = x1 + j * rw / pw + (b + 0.5) * rw / pw / gw
                        acc = acc + _bilinear(X[ids[r]], y, x)
                out[r, :, i, j] = acc / max(gh * gw, 1)
    return out


def _round(v):
    return math.floor(abs(v) + 0.5) * (1 if v >= 0 else -1)


def ref_roi_pool(X, ROIs, RoisNum, attrs):
    ph, pw, s = attrs["pooled_height"], attrs["pooled_width"], attrs["spatial_scale"]
    n, c, h, w = X.shape
    ids = np.repeat(np.arange(n), RoisNum)
    out = np.zeros((len(ROIs), c, ph, pw))
    for r, roi in enumerate(ROIs):
        x1, y1, x2, y2 = (_round(v * s) for v in roi)
        bh, bw = max(y2 - y1 + 1, 1) / ph, max(x2 - x1 + 1, 1) / pw
        for i in range(ph):
            for j in range(pw):
                hs = min(max(math.floor(i * bh) + y1, 0), h)
                he = min(max(math.ceil((i + 1) * bh) + y1, 0), h)
                ws = min(max(math.floor(j * bw) + x1, 0), w)
                we = min(max(math.ceil((j + 1) * bw) + x1, 0), w)
                if he > hs and we > ws:
                    out[r, :, i, j] = X[ids[r], :, hs:he, ws:we].max(axis=(1, 2))
    return out, None


def ref_psroi_pool(X, ROIs, RoisNum, attrs):
    ph, pw, s, oc = (attrs[k] for k in ("pooled_height", "pooled_width", "spatial_scale",
                                        "output_channels"))
    n, c, h, w = X.shape
    ids = np.repeat(np.arange(n), RoisNum)
    out = np.zeros((len(ROIs), oc, ph, pw))
    for r, roi in enumerate(ROIs):
        x1, y1 = _round(roi[0]) * s, _round(roi[1]) * s
        x2, y2 = (_round(roi[2]) + 1) * s, (_round(roi[3]) + 1) * s
        bh, bw = max(y2 - y1, 0.1) / ph, max(x2 - x1, 0.1) / pw
        for o in range(oc):
            for i in range(ph):
                for j in range(pw):
                    hs = min(max(math.floor(bh * i + y1), 0), h)
                    he = min(max(math.ceil(bh * (i + 1) + y1), 0), h)
                    ws = min(max(math.floor(bw * j + x1), 0), w)
                    we = min(max(math.ceil(bw * (j + 1) + x1), 0), w)
                    if he > hs and we > ws:
                        out[r, o, i, j] = X[ids[r], (o * ph + i) * pw + j, hs:he, ws:we].mean()
    return out


def align(**kw):
    a = {"pooled_height": 2, "pooled_width": 3, "spatial_scale": 1.0, "sampling_ratio": -1,
         "aligned": True}
    a.update(kw)
    return a


RI = {"X": X, "ROIs": ROIS, "RoisNum": NUM}
# spatial scales a float32 attribute holds exactly (a Program stores FLOAT attributes as
# float32, so 0.7 would sample other points statically than eagerly)
CASES = [
    Case("roi_align", RI, align(), ref=ref_roi_align, grad=("X",)),
    Case("roi_align", RI, align(aligned=False, spatial_scale=0.5), ref=ref_roi_align,
         grad=("X",), id="roi_align.not_aligned.small_boxes"),
    Case("roi_align", RI, align(sampling_ratio=2, spatial_scale=0.75), ref=ref_roi_align,
         grad=("X",), id="roi_align.ratio"),
    Case("roi_align", {"X": X[:1], "ROIs": ROIS[:2]}, align(), grad=False,
         ref=lambda X, ROIs, attrs: ref_roi_align(X, ROIs, [2], attrs), id="roi_align.no_num"),
    Case("roi_pool", RI, {"pooled_height": 2, "pooled_width": 2, "spatial_scale": 1.0},
         ref=ref_roi_pool, grad=("X",)),
    Case("roi_pool", RI, {"pooled_height": 3, "pooled_width": 2, "spatial_scale": 0.625},
         ref=ref_roi_pool, grad=("X",), id="roi_pool.scale"),
    Case("psroi_pool", RI, {"pooled_height": 2, "pooled_width": 2, "output_channels": 2,
                            "spatial_scale": 1.0}, ref=ref_psroi_pool, grad=("X",)),
    Case("psroi_pool", RI, {"pooled_height": 2, "pooled_width": 1, "output_channels": 4,
                            "spatial_scale": 0.625}, ref=ref_psroi_pool, grad=("X",),
         id="psroi_pool.scale"),
]


# ------------------------------------------------------------------ box_coder
PRIOR = np.array([[0.1, 0.1, 0.5, 0.6], [0.3, 0.2, 0.9, 0.8], [0.0, 0.4, 0.3, 0.9]])
PVAR = np.array([[0.1, 0.1, 0.2, 0.2], [0.2, 0.1, 0.3, 0.2], [0.1, 0.3, 0.1, 0.2]])
TARGET = np.array([[0.2, 0.3, 0.6, 0.5], [0.0, 0.1, 0.7, 0.9]])


def ref_box_coder(PriorBox, TargetBox, attrs, PriorBoxVar=None):
    nm = 0.0 if attrs.get("box_normalized", True) else 1.0
    var = PriorBoxVar if PriorBoxVar is not None else \
        np.tile(attrs.get("variance") or [1.0] * 4, (len(PriorBox), 1))
    if attrs["code_type"] == "encode_center_size":
        out = np.zeros((len(TargetBox), len(PriorBox), 4))
        for i, t in enumerate(TargetBox):
            for j, p in enumerate(PriorBox):
                pw, ph = p[2] - p[0] + nm, p[3] - p[1] + nm
                tw, th = t[2] - t[0] + nm, t[3] - t[1] + nm
                out[i, j] = [((t[0] + t[2]) / 2 - (p[0] + pw / 2)) / pw,
                             ((t[1] + t[3]) / 2 - (p[1] + ph / 2)) / ph,
                             math.log(abs(tw / pw)), math.log(abs(th / ph))] / var[j]
        return out
    out = np.zeros(TargetBox.shape)
    for i in range(TargetBox.shape[0]):
        for j in range(TargetBox.shape[1]):
            k = j if attrs.get("axis", 0) == 0 else i
            p, v, t = PriorBox[k], var[k], TargetBox[i, j]
            pw, ph = p[2] - p[0] + nm, p[3] - p[1] + nm
            cx, cy = v[0] * t[0] * pw + p[0] + pw / 2, v[1] * t[1] * ph + p[1] + ph / 2
            w, h = math.exp(v[2] * t[2]) * pw, math.exp(v[3] * t[3]) * ph
            out[i, j] = [cx - w / 2, cy - h / 2, cx + w / 2 - nm, cy + h / 2 - nm]
    return out


ENC = {"code_type": "encode_center_size"}
DEC = {"code_type": "decode_center_size"}
CASES += [
    Case("box_coder", {"PriorBox": PRIOR, "PriorBoxVar": PVAR, "TargetBox": TARGET}, ENC,
         ref=ref_box_coder, grad=False),
    Case("box_coder", {"PriorBox": PRIOR * 10, "TargetBox": TARGET * 10},
         dict(ENC, box_normalized=False, variance=[0.1, 0.1, 0.2, 0.2]), ref=ref_box_coder,
         grad=False, id="box_coder.encode.unnormalized"),
    Case("box_coder", {"PriorBox": PRIOR, "PriorBoxVar": PVAR,
                       "TargetBox": rand(2, 3, 4, seed=3)}, DEC, ref=ref_box_coder,
         grad=False, id="box_coder.decode"),
    Case("box_coder", {"PriorBox": PRIOR, "TargetBox": rand(3, 2, 4, seed=4)},
         dict(DEC, axis=1, box_normalized=False), ref=ref_box_coder, grad=False,
         id="box_coder.decode.axis1"),
]


# ------------------------------------------------------------------ prior_box
def ref_prior_box(Input, Image, attrs):
    fh, fw = Input.shape[2:]
    ih, iw = Image.shape[2:]
    sw = attrs["step_w"] or iw / fw
    sh = attrs["step_h"] or ih / fh
    ars = [1.0]
    for r in attrs["aspect_ratios"]:
        for v in ([r, 1 / r] if attrs["flip"] else [r]):
            if all(abs(v - o) >= 1e-6 for o in ars):
                ars.append(v)
    boxes = []
    for i in range(fh):
        for j in range(fw):
            cx, cy = (j + attrs["offset"]) * sw, (i + attrs["offset"]) * sh
            cell = []
            for k, s in enumerate(attrs["min_sizes"]):
                sq = [(math.sqrt(s * attrs["max_sizes"][k]),) * 2] if attrs["max_sizes"] else []
                rs = [(s * math.sqrt(a), s / math.sqrt(a)) for a in ars]
                if attrs["min_max_aspect_ratios_order"]:
                    cell += rs[:1] + sq + rs[1:]
                else:
                    cell += rs + sq
            boxes.append([[(cx - bw / 2) / iw, (cy - bh / 2) / ih, (cx + bw / 2) / iw,
                           (cy + bh / 2) / ih] for bw, bh in cell])
    out = np.array(boxes).reshape(fh, fw, -1, 4)
    if attrs["clip"]:
        out = np.clip(out, 0, 1)
    return out, np.broadcast_to(np.array(attrs["variances"]), out.shape)


def prior(**kw):
    a = {"min_sizes": [2.0], "max_sizes": [], "aspect_ratios": [1.0],
         "variances": [0.1, 0.1, 0.2, 0.2], "flip": True, "clip": True, "step_w": 0.0,
         "step_h": 0.0, "offset": 0.5, "min_max_aspect_ratios_order": False}
    a.update(kw)
    return a


PI = {"Input": rand(1, 3, 3, 2, seed=5), "Image": rand(1, 3, 10, 7, seed=6)}
CASES += [
    Case("prior_box", PI, prior(), ref=ref_prior_box, grad=False),
    Case("prior_box", PI, prior(min_sizes=[2.0, 3.0], max_sizes=[4.0, 5.0],
                                aspect_ratios=[2.0, 0.5], clip=False, step_w=3.0,
                                step_h=4.0, offset=0.3), ref=ref_prior_box, grad=False,
         id="prior_box.full"),
    Case("prior_box", PI, prior(max_sizes=[6.0], aspect_ratios=[2.0, 3.0],
                                min_max_aspect_ratios_order=True), ref=ref_prior_box,
         grad=False, id="prior_box.order"),
]


# ------------------------------------------------------------------ yolo_box
def _sig(v):
    return 1 / (1 + math.exp(-v))


def ref_yolo_box(X, ImgSize, attrs):
    an = len(attrs["anchors"]) // 2
    cls, ds, s = attrs["class_num"], attrs["downsample_ratio"], attrs["scale_x_y"]
    n, _, h, w = X.shape
    iou = X[:, :an] if attrs["iou_aware"] else None
    p = (X[:, an:] if attrs["iou_aware"] else X).reshape(n, an, 5 + cls, h, w)
    boxes, scores = np.zeros((n, an, h, w, 4)), np.zeros((n, an, h, w, cls))
    for b in range(n):
        ih, iw = ImgSize[b]
        for a in range(an):
            for i in range(h):
                for j in range(w):
                    t = p[b, a, :, i, j]
                    conf = _sig(t[4])
                    if iou is not None:
                        f = attrs["iou_aware_factor"]
                        conf = conf ** (1 - f) * _sig(iou[b, a, i, j]) ** f
                    if conf < attrs["conf_thresh"]:
                        continue
                    cx = (j + _sig(t[0]) * s - 0.5 * (s - 1)) * iw / w
                    cy = (i + _sig(t[1]) * s - 0.5 * (s - 1)) * ih / h
                    bw = math.exp(t[2]) * attrs["anchors"][2 * a] * iw / (ds * w)
                    bh = math.exp(t[3]) * attrs["anchors"][2 * a + 1] * ih / (ds * h)
                    box = [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]
                    if attrs["clip_bbox"]:
                        box = [max(box[0], 0), max(box[1], 0), min(box[2], iw - 1),
                               min(box[3], ih - 1)]
                    boxes[b, a, i, j] = box
                    scores[b, a, i, j] = [conf * _sig(v) for v in t[5:]]
    return boxes.reshape(n, -1, 4), scores.reshape(n, -1, cls)


def yolo(**kw):
    a = {"anchors": [10, 13, 16, 30], "class_num": 2, "conf_thresh": 0.4,
         "downsample_ratio": 16, "clip_bbox": True, "scale_x_y": 1.0, "iou_aware": False,
         "iou_aware_factor": 0.5}
    a.update(kw)
    return a


SIZE = np.array([[64, 96], [80, 40]], np.int32)
CASES += [
    Case("yolo_box", {"X": rand(2, 14, 3, 4, low=-2, high=2, seed=7), "ImgSize": SIZE}, yolo(),
         ref=ref_yolo_box, grad=False),
    Case("yolo_box", {"X": rand(2, 8, 2, 2, low=-2, high=2, seed=8), "ImgSize": SIZE},
         yolo(anchors=[10, 13], class_num=3, clip_bbox=False, scale_x_y=1.2,
              conf_thresh=0.01), ref=ref_yolo_box, grad=False, id="yolo_box.scale"),
    Case("yolo_box", {"X": rand(2, 14, 2, 3, low=-2, high=2, seed=9), "ImgSize": SIZE},
         yolo(class_num=1, iou_aware=True, iou_aware_factor=0.4), ref=ref_yolo_box,
         grad=False, id="yolo_box.iou_aware"),
]


# ------------------------------------------------------------------ nms, read_file
def ref_nms(Boxes, attrs):
    keep = []
    for i, b in enumerate(Boxes):
        ok = True
        for k in keep:
            c = Boxes[k]
            iw = max(min(b[2], c[2]) - max(b[0], c[0]), 0)
            ih = max(min(b[3], c[3]) - max(b[1], c[1]), 0)
            inter = iw * ih
            union = (b[2] - b[0]) * (b[3] - b[1]) + (c[2] - c[0]) * (c[3] - c[1]) - inter
            if inter / union > attrs["iou_threshold"]:
                ok = False
                break
        if ok:
            keep.append(i)
    return np.array(keep, np.int64)


_lo = np.random.default_rng(10).uniform(0, 20, (12, 2))
NMS_BOXES = np.concatenate([_lo, _lo + np.random.default_rng(11).uniform(2, 8, (12, 2))], 1)
CASES += [Case("nms", {"Boxes": NMS_BOXES}, {"iou_threshold": t}, ref=ref_nms, grad=False,
               id=f"nms.{t}") for t in (0.1, 0.3, 0.7)]

_FILE = os.path.join(tempfile.gettempdir(), "sampan_cases_detection_read_file.bin")
_BYTES = bytes(range(256)) * 3 + b"sampan"
with open(_FILE, "wb") as _fh:
    _fh.write(_BYTES)
CASES.append(Case("read_file", {}, {"filename": _FILE},
                  ref=lambda: np.frombuffer(_BYTES, np.uint8), grad=False))
