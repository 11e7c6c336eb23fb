"""numpy kernels of the detection ops (ops/defs/detection.py), with Paddle's
CPU index rules: RoI Align samples a grid of bilinear points per bin (Paddle's
clamping at the border), RoI Pool takes the max over integer bins of rounded
boxes, PS-RoI Pool averages position-sensitive channels.  The RoI ops loop
over boxes (each has its own grid) and vectorise inside a box; their grads
scatter the same weights back with ``np.add.at``."""
import math

import numpy as np

from ...ops.defs.detection import check_prior_box, expand_aspect_ratios
from ...ops.errors import OpError
from ..registry import kernel

F = ("float32", "float64")


def _batch_ids(rois, num, n, op):
    """The image index of each box."""
    k = rois.shape[0]
    if num is None:
        if n != 1 and k:
            raise OpError(f"{op}: RoisNum is needed to assign {k} boxes to a batch of {n}")
        return np.zeros(k, np.int64)
    num = np.asarray(num).astype(np.int64)
    if num.shape[0] != n:
        raise OpError(f"{op}: RoisNum has {num.shape[0]} entries, the batch size is {n}")
    if num.sum() != k:
        raise OpError(f"{op}: RoisNum adds up to {int(num.sum())}, but there are {k} boxes")
    return np.repeat(np.arange(n), num)


def _round(v):
    """std::round: halves away from zero."""
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


# ------------------------------------------------------------------ roi_align
def _align_points(roi, h, w, attrs):
    """Per output bin: flat corner indices (P, G, 4) and weights (P, G, 4),
    P = pooled_height * pooled_width, G samples per bin; and the sample count."""
    ph, pw, scale = attrs["pooled_height"], attrs["pooled_width"], attrs["spatial_scale"]
    off = 0.5 if attrs["aligned"] else 0.0
    x1, y1, x2, y2 = (float(v) * scale - off for v in roi)
    rw, rh = x2 - x1, y2 - y1
    if not attrs["aligned"]:
        rw, rh = max(rw, 1.0), max(rh, 1.0)
    bh, bw = rh / ph, rw / pw
    sr = attrs["sampling_ratio"]
    gh = sr if sr > 0 else int(math.ceil(rh / ph))
    gw = sr if sr > 0 else int(math.ceil(rw / pw))
    count = max(gh * gw, 1)
    ys = y1 + np.arange(ph)[:, None] * bh + (np.arange(gh)[None, :] + 0.5) * bh / gh  # (ph, gh)
    xs = x1 + np.arange(pw)[:, None] * bw + (np.arange(gw)[None, :] + 0.5) * bw / gw  # (pw, gw)
    y = np.broadcast_to(ys[:, None, :, None], (ph, pw, gh, gw)).reshape(ph * pw, gh * gw)
    x = np.broadcast_to(xs[None, :, None, :], (ph, pw, gh, gw)).reshape(ph * pw, gh * gw)
    out = (y < -1.0) | (y > h) | (x < -1.0) | (x > w)
    y, x = np.maximum(y, 0.0), np.maximum(x, 0.0)
    yl, xl = y.astype(np.int64), x.astype(np.int64)
    top, right = yl >= h - 1, xl >= w - 1
    yl, xl = np.where(top, h - 1, yl), np.where(right, w - 1, xl)
    yh, xh = np.where(top, h - 1, yl + 1), np.where(right, w - 1, xl + 1)
    y, x = np.where(top, yl, y), np.where(right, xl, x)
    ly, lx = y - yl, x - xl
    hy, hx = 1.0 - ly, 1.0 - lx
    idx = np.stack([yl * w + xl, yl * w + xh, yh * w + xl, yh * w + xh], axis=-1)
    wt = np.stack([hy * hx, hy * lx, ly * hx, ly * lx], axis=-1)
    wt = np.where(out[..., None], 0.0, wt)
    return idx, wt, count


@kernel("roi_align", dtypes=F + ("int32",))
def roi_align(ins, attrs, need):
    x, rois, num = ins
    n, c, h, w = x.shape
    ph, pw = attrs["pooled_height"], attrs["pooled_width"]
    ids = _batch_ids(rois, num, n, "roi_align")
    out = np.zeros((rois.shape[0], c, ph * pw), x.dtype)
    flat = x.reshape(n, c, h * w)
    for r in range(rois.shape[0]):
        idx, wt, count = _align_points(rois[r], h, w, attrs)
        vals = flat[ids[r]][:, idx]                           # (c, P, G, 4)
        out[r] = (vals * wt).sum(axis=(2, 3)) / count
    return (out.reshape(rois.shape[0], c, ph, pw),)


@kernel("roi_align_grad", dtypes=F)
def roi_align_grad(ins, attrs, need):
    x, rois, num, gout = ins
    n, c, h, w = x.shape
    ids = _batch_ids(rois, num, n, "roi_align_grad")
    dx = np.zeros((n, c, h * w), x.dtype)
    g = gout.reshape(rois.shape[0], c, -1)
    for r in range(rois.shape[0]):
        idx, wt, count = _align_points(rois[r], h, w, attrs)
        contrib = g[r][:, :, None, None] * (wt / count)       # (c, P, G, 4)
        np.add.at(dx[ids[r]], (slice(None), idx.reshape(-1)), contrib.reshape(c, -1))
    return (dx.reshape(x.shape),)


# ------------------------------------------------------------------ roi_pool
def _pool_bins(roi, h, w, ph, pw, scale):
    """Integer [start, end) bin edges (ph,) and (pw,) of a rounded box, clipped."""
    x1, y1, x2, y2 = (_round(float(v) * scale) for v in roi)
    rh, rw = max(y2 - y1 + 1, 1.0), max(x2 - x1 + 1, 1.0)
    bh, bw = rh / ph, rw / pw
    i, j = np.arange(ph), np.arange(pw)
    hs = np.clip(np.floor(i * bh) + y1, 0, h).astype(np.int64)
    he = np.clip(np.ceil((i + 1) * bh) + y1, 0, h).astype(np.int64)
    ws = np.clip(np.floor(j * bw) + x1, 0, w).astype(np.int64)
    we = np.clip(np.ceil((j + 1) * bw) + x1, 0, w).astype(np.int64)
    return hs, he, ws, we


@kernel("roi_pool", dtypes=F + ("int32",))
def roi_pool(ins, attrs, need):
    x, rois, num = ins
    n, c, h, w = x.shape
    ph, pw = attrs["pooled_height"], attrs["pooled_width"]
    ids = _batch_ids(rois, num, n, "roi_pool")
    k = rois.shape[0]
    out = np.zeros((k, c, ph, pw), x.dtype)
    arg = np.full((k, c, ph, pw), -1, np.int64)
    for r in range(k):
        hs, he, ws, we = _pool_bins(rois[r], h, w, ph, pw, attrs["spatial_scale"])
        img = x[ids[r]]
        for i in range(ph):
            for j in range(pw):
                if he[i] <= hs[i] or we[j] <= ws[j]:
                    continue
                win = img[:, hs[i]:he[i], ws[j]:we[j]].reshape(c, -1)
                a = win.argmax(axis=1)
                out[r, :, i, j] = win[np.arange(c), a]
                ww = we[j] - ws[j]
                arg[r, :, i, j] = (hs[i] + a // ww) * w + ws[j] + a % ww
    return out, arg


@kernel("roi_pool_grad", dtypes=F)
def roi_pool_grad(ins, attrs, need):
    x, rois, num, arg, gout = ins
    n, c, h, w = x.shape
    ids = _batch_ids(rois, num, n, "roi_pool_grad")
    dx = np.zeros((n, c, h * w), x.dtype)
    k = rois.shape[0]
    a = arg.reshape(k, c, -1)
    g = gout.reshape(k, c, -1)
    ok = a >= 0
    rr, cc, _ = np.nonzero(ok)
    np.add.at(dx, (ids[rr], cc, a[ok]), g[ok])
    return (dx.reshape(x.shape),)


# ------------------------------------------------------------------ psroi_pool
def _ps_bins(roi, h, w, attrs):
    ph, pw, scale = attrs["pooled_height"], attrs["pooled_width"], attrs["spatial_scale"]
    x1, y1 = _round(float(roi[0])) * scale, _round(float(roi[1])) * scale
    x2, y2 = (_round(float(roi[2])) + 1.0) * scale, (_round(float(roi[3])) + 1.0) * scale
    rh, rw = max(y2 - y1, 0.1), max(x2 - x1, 0.1)
    bh, bw = rh / ph, rw / pw
    i, j = np.arange(ph), np.arange(pw)
    hs = np.clip(np.floor(bh * i + y1), 0, h).astype(np.int64)
    he = np.clip(np.ceil(bh * (i + 1) + y1), 0, h).astype(np.int64)
    ws = np.clip(np.floor(bw * j + x1), 0, w).astype(np.int64)
    we = np.clip(np.ceil(bw * (j + 1) + x1), 0, w).astype(np.int64)
    return hs, he, ws, we


def _ps_channels(oc, ph, pw):
    """Input channel of (output channel, bin row, bin col)."""
    return ((np.arange(oc)[:, None, None] * ph + np.arange(ph)[None, :, None]) * pw
            + np.arange(pw)[None, None, :])


@kernel("psroi_pool", dtypes=F)
def psroi_pool(ins, attrs, need):
    x, rois, num = ins
    n, c, h, w = x.shape
    ph, pw, oc = attrs["pooled_height"], attrs["pooled_width"], attrs["output_channels"]
    if c != oc * ph * pw:
        raise OpError(f"psroi_pool: the channels of X ({c}) must equal output_channels ({oc}) "
                      f"* pooled_height ({ph}) * pooled_width ({pw})")
    ids = _batch_ids(rois, num, n, "psroi_pool")
    chan = _ps_channels(oc, ph, pw)
    out = np.zeros((rois.shape[0], oc, ph, pw), x.dtype)
    for r in range(rois.shape[0]):
        hs, he, ws, we = _ps_bins(rois[r], h, w, attrs)
        img = x[ids[r]]
        for i in range(ph):
            for j in range(pw):
                area = (he[i] - hs[i]) * (we[j] - ws[j])
                if area > 0:
                    out[r, :, i, j] = img[chan[:, i, j], hs[i]:he[i], ws[j]:we[j]] \
                        .sum(axis=(1, 2)) / area
    return (out,)


@kernel("psroi_pool_grad", dtypes=F)
def psroi_pool_grad(ins, attrs, need):
    x, rois, num, gout = ins
    n, c, h, w = x.shape
    ph, pw, oc = attrs["pooled_height"], attrs["pooled_width"], attrs["output_channels"]
    ids = _batch_ids(rois, num, n, "psroi_pool_grad")
    chan = _ps_channels(oc, ph, pw)
    dx = np.zeros_like(x)
    for r in range(rois.shape[0]):
        hs, he, ws, we = _ps_bins(rois[r], h, w, attrs)
        for i in range(ph):
            for j in range(pw):
                area = (he[i] - hs[i]) * (we[j] - ws[j])
                if area > 0:
                    dx[ids[r], chan[:, i, j], hs[i]:he[i], ws[j]:we[j]] += \
                        (gout[r, :, i, j] / area)[:, None, None]
    return (dx,)


# ------------------------------------------------------------------ box geometry
def _center_size(b, norm, mid):
    """Centers and sizes.  Paddle takes a prior's center as x1 + w / 2 and an
    encoded target's as (x1 + x2) / 2 (``mid``): they differ by norm / 2."""
    w = b[..., 2] - b[..., 0] + norm
    h = b[..., 3] - b[..., 1] + norm
    if mid:
        return (b[..., 0] + b[..., 2]) / 2, (b[..., 1] + b[..., 3]) / 2, w, h
    return b[..., 0] + w / 2, b[..., 1] + h / 2, w, h


@kernel("box_coder", dtypes=F)
def box_coder(ins, attrs, need):
    prior, var, target = ins
    norm = 0.0 if attrs["box_normalized"] else 1.0
    encode = attrs["code_type"] == "encode_center_size"
    pcx, pcy, pw, ph = _center_size(prior, norm, False)
    if var is None:
        var = np.asarray(attrs["variance"] or [1.0] * 4, prior.dtype)[None, :]
    if encode:
        tcx, tcy, tw, th = (v[:, None] for v in _center_size(target, norm, True))
        out = np.stack([(tcx - pcx) / pw, (tcy - pcy) / ph,
                        np.log(np.abs(tw / pw)), np.log(np.abs(th / ph))], axis=-1)
        return ((out / var[None, :, :]).astype(prior.dtype, copy=False),)
    # decode: the prior of target[i, j] is prior[j] (axis 0) or prior[i] (axis 1)
    ex = (lambda a: a[None, :]) if attrs["axis"] == 0 else (lambda a: a[:, None])
    pcx, pcy, pw, ph = ex(pcx), ex(pcy), ex(pw), ex(ph)
    v = ex(var) if var.shape[0] == prior.shape[0] else var[None]
    cx = v[..., 0] * target[..., 0] * pw + pcx
    cy = v[..., 1] * target[..., 1] * ph + pcy
    tw = np.exp(v[..., 2] * target[..., 2]) * pw
    th = np.exp(v[..., 3] * target[..., 3]) * ph
    out = np.stack([cx - tw / 2, cy - th / 2, cx + tw / 2 - norm, cy + th / 2 - norm], axis=-1)
    return (out.astype(target.dtype, copy=False),)


@kernel("prior_box", dtypes=F)
def prior_box(ins, attrs, need):
    x, img = ins
    check_prior_box(attrs)
    fh, fw = x.shape[2:]
    ih, iw = img.shape[2:]
    sw = attrs["step_w"] if attrs["step_w"] > 0 else iw / fw
    sh = attrs["step_h"] if attrs["step_h"] > 0 else ih / fh
    ratios = expand_aspect_ratios(attrs["aspect_ratios"], attrs["flip"])
    maxs = attrs["max_sizes"] or []
    half = []                                   # (box half width, half height) per prior
    for i, s in enumerate(attrs["min_sizes"]):
        square = [(math.sqrt(s * maxs[i]) / 2,) * 2] if maxs else []
        if attrs["min_max_aspect_ratios_order"]:
            half += [(s / 2, s / 2)] + square + [(s * math.sqrt(r) / 2, s / math.sqrt(r) / 2)
                                                 for r in ratios if abs(r - 1.0) >= 1e-6]
        else:
            half += [(s * math.sqrt(r) / 2, s / math.sqrt(r) / 2) for r in ratios] + square
    half = np.asarray(half, np.float64)
    cx = (np.arange(fw) + attrs["offset"]) * sw
    cy = (np.arange(fh) + attrs["offset"]) * sh
    cx = np.broadcast_to(cx[None, :, None], (fh, fw, len(half)))
    cy = np.broadcast_to(cy[:, None, None], (fh, fw, len(half)))
    boxes = np.stack([(cx - half[:, 0]) / iw, (cy - half[:, 1]) / ih,
                      (cx + half[:, 0]) / iw, (cy + half[:, 1]) / ih], axis=-1)
    if attrs["clip"]:
        boxes = np.clip(boxes, 0.0, 1.0)
    var = np.broadcast_to(np.asarray(attrs["variances"], x.dtype), boxes.shape)
    return boxes.astype(x.dtype), np.ascontiguousarray(var)


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


@kernel("yolo_box", dtypes=F)
def yolo_box(ins, attrs, need):
    x, size = ins
    n, _, h, w = x.shape
    anchors = np.asarray(attrs["anchors"], x.dtype).reshape(-1, 2)
    an, cls = anchors.shape[0], attrs["class_num"]
    if attrs["iou_aware"]:
        iou, x = _sigmoid(x[:, :an]), x[:, an:]
    p = x.reshape(n, an, 5 + cls, h, w)
    img_h = size[:, 0].astype(x.dtype)[:, None, None, None]
    img_w = size[:, 1].astype(x.dtype)[:, None, None, None]
    in_h, in_w = attrs["downsample_ratio"] * h, attrs["downsample_ratio"] * w
    s = attrs["scale_x_y"]
    bias = -0.5 * (s - 1.0)
    cx = (np.arange(w)[None, None, None, :] + _sigmoid(p[:, :, 0]) * s + bias) * img_w / w
    cy = (np.arange(h)[None, None, :, None] + _sigmoid(p[:, :, 1]) * s + bias) * img_h / h
    bw = np.exp(p[:, :, 2]) * anchors[None, :, 0, None, None] * img_w / in_w
    bh = np.exp(p[:, :, 3]) * anchors[None, :, 1, None, None] * img_h / in_h
    conf = _sigmoid(p[:, :, 4])
    if attrs["iou_aware"]:
        f = attrs["iou_aware_factor"]
        conf = conf ** (1.0 - f) * iou ** f
    keep = conf >= attrs["conf_thresh"]
    boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=-1)
    if attrs["clip_bbox"]:
        boxes[..., 0] = np.maximum(boxes[..., 0], 0)
        boxes[..., 1] = np.maximum(boxes[..., 1], 0)
        boxes[..., 2] = np.minimum(boxes[..., 2], img_w - 1)
        boxes[..., 3] = np.minimum(boxes[..., 3], img_h - 1)
    boxes = np.where(keep[..., None], boxes, 0)
    scores = np.where(keep[..., None], (conf[:, :, None] * _sigmoid(p[:, :, 5:]))
                      .transpose(0, 1, 3, 4, 2), 0)
    return (boxes.reshape(n, -1, 4).astype(x.dtype, copy=False),
            scores.reshape(n, -1, cls).astype(x.dtype, copy=False))


@kernel("nms", dtypes=F)
def nms(ins, attrs, need):
    b = ins[0]
    k = b.shape[0]
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    alive = np.ones(k, bool)
    keep = []
    for i in range(k):
        if not alive[i]:
            continue
        keep.append(i)
        rest = np.arange(i + 1, k)
        iw = np.maximum(np.minimum(b[i, 2], b[rest, 2]) - np.maximum(b[i, 0], b[rest, 0]), 0)
        ih = np.maximum(np.minimum(b[i, 3], b[rest, 3]) - np.maximum(b[i, 1], b[rest, 1]), 0)
        inter = iw * ih
        iou = inter / (area[i] + area[rest] - inter)
        alive[rest[iou > attrs["iou_threshold"]]] = False
    return (np.asarray(keep, np.int64),)


# ------------------------------------------------------------------ image files
@kernel("read_file", dtypes=("uint8", "float32"))
def read_file(ins, attrs, need):
    try:
        with open(attrs["filename"], "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise OpError(f"read_file: cannot read {attrs['filename']!r}: {exc}") from None
    return (np.frombuffer(data, np.uint8).copy(),)


@kernel("decode_jpeg", dtypes=("uint8",))
def decode_jpeg(ins, attrs, need):
    mode = attrs["mode"]
    if mode not in ("unchanged", "gray", "rgb"):
        raise OpError(f"decode_jpeg: mode must be 'unchanged', 'gray' or 'rgb', got {mode!r}")
    try:
        from PIL import Image
    except ImportError:
        raise OpError("decode_jpeg needs the Pillow package to decode JPEG on the CPU "
                      "(pip install Pillow); Paddle 2.6.2 decodes on the GPU only",
                      kind=NotImplementedError) from None
    import io
    try:
        img = Image.open(io.BytesIO(np.asarray(ins[0], np.uint8).tobytes()))
        img.load()
    except Exception as exc:
        raise OpError(f"decode_jpeg: the bytes are not a decodable JPEG image ({exc})") from None
    if mode == "gray":
        img = img.convert("L")
    elif mode == "rgb" or img.mode not in ("L", "RGB"):
        img = img.convert("RGB")
    a = np.asarray(img, np.uint8)
    a = a[:, :, None] if a.ndim == 2 else a
    return (np.ascontiguousarray(a.transpose(2, 0, 1)),)
