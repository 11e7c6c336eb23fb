"""Detection ops of ``paddle.vision.ops`` (Paddle 2.6's op types, slots and
attributes): RoI pooling (``roi_align``, ``roi_pool``, ``psroi_pool``, with
grads), box geometry (``box_coder``, ``prior_box``, ``yolo_box``), ``nms``,
and the image file ops ``read_file`` / ``decode_jpeg``.

RoIs are ``(K, 4)`` boxes ``[x1, y1, x2, y2]`` in input-image coordinates;
``RoisNum`` (int32, one count per image of the batch) says which image each
box belongs to (without it every box belongs to image 0 of a batch of 1).
"""
import numpy as np

from ..declare import REQUIRED, defop, defgrad, grad_op
from ..meta_rules import INT32, INT64
from ..registry import Meta, OpError

UINT8 = np.dtype("uint8")


def _rois_checked(op, metas):
    x, rois = metas[0], metas[1]
    if len(x.shape) != 4:
        raise OpError(f"{op}: X must be a 4-D tensor (N, C, H, W), got {list(x.shape)}")
    if len(rois.shape) != 2 or rois.shape[1] not in (4, -1):
        raise OpError(f"{op}: ROIs must be a 2-D tensor of shape (num_rois, 4), got "
                      f"{list(rois.shape)}")
    num = metas[2] if len(metas) > 2 else None
    if num is not None and len(num.shape) != 1:
        raise OpError(f"{op}: RoisNum must be a 1-D tensor, got {list(num.shape)}")
    return x, rois


def _pooled(op, attrs):
    ph, pw = attrs["pooled_height"], attrs["pooled_width"]
    if ph <= 0 or pw <= 0:
        raise OpError(f"{op}: pooled_height ({ph}) and pooled_width ({pw}) must be positive")
    if attrs["spatial_scale"] <= 0:
        raise OpError(f"{op}: spatial_scale must be positive, got {attrs['spatial_scale']}")
    return ph, pw


def _roi_infer(op, argmax=False):
    def infer(metas, attrs):
        x, rois = _rois_checked(op, metas)
        ph, pw = _pooled(op, attrs)
        c = x.shape[1]
        if op == "psroi_pool":
            oc = attrs["output_channels"]
            if c >= 0 and c != oc * ph * pw:
                raise OpError(f"{op}: the channels of X ({c}) must equal output_channels "
                              f"({oc}) * pooled_height ({ph}) * pooled_width ({pw})")
            c = oc
        out = Meta((rois.shape[0], c, ph, pw), x.dtype)
        return (out, Meta(out.shape, INT64)) if argmax else (out,)
    return infer


_POOL = (("pooled_height", "INT", 1), ("pooled_width", "INT", 1),
         ("spatial_scale", "FLOAT", 1.0))
_ALIGN = _POOL + (("sampling_ratio", "INT", -1), ("aligned", "BOOLEAN", False))
_PS = _POOL[:2] + (("output_channels", "INT", 1), ("spatial_scale", "FLOAT", 1.0))

defgrad("roi_align_grad", "X ROIs RoisNum? Out@GRAD", "X@GRAD?", _ALIGN)
defop("roi_align", "X ROIs RoisNum?", "Out", _ALIGN, infer=_roi_infer("roi_align"),
      grad=grad_op("roi_align_grad", uses=("X", "ROIs", "RoisNum"), wrt=("X",)),
      same_dtype=("X", "ROIs"), no_grad_inputs=("ROIs", "RoisNum"))

defgrad("roi_pool_grad", "X ROIs RoisNum? Argmax Out@GRAD", "X@GRAD?", _POOL)
defop("roi_pool", "X ROIs RoisNum?", "Out Argmax", _POOL, infer=_roi_infer("roi_pool", True),
      grad=grad_op("roi_pool_grad", uses=("X", "ROIs", "RoisNum"), wrt=("X",),
                   extra_inputs={"Argmax": "Argmax"}),
      same_dtype=("X", "ROIs"), no_grad_inputs=("ROIs", "RoisNum"))

defgrad("psroi_pool_grad", "X ROIs RoisNum? Out@GRAD", "X@GRAD?", _PS)
defop("psroi_pool", "X ROIs RoisNum?", "Out", _PS, infer=_roi_infer("psroi_pool"),
      grad=grad_op("psroi_pool_grad", uses=("X", "ROIs", "RoisNum"), wrt=("X",)),
      same_dtype=("X", "ROIs"), no_grad_inputs=("ROIs", "RoisNum"))


# ------------------------------------------------------------------ box geometry
CODE_TYPES = ("encode_center_size", "decode_center_size")


def _box_coder_infer(metas, attrs):
    prior, var, target = metas
    code = attrs["code_type"]
    if code not in CODE_TYPES:
        raise OpError(f"box_coder: code_type must be one of {list(CODE_TYPES)}, got {code!r}")
    if len(prior.shape) != 2 or prior.shape[1] not in (4, -1):
        raise OpError(f"box_coder: PriorBox must be a 2-D tensor (M, 4), got "
                      f"{list(prior.shape)}")
    if var is not None and (len(var.shape) != 2 or var.shape[1] not in (4, -1)):
        raise OpError(f"box_coder: PriorBoxVar must be a 2-D tensor (M, 4), got "
                      f"{list(var.shape)}")
    if var is None and attrs["variance"] and len(attrs["variance"]) != 4:
        raise OpError(f"box_coder: variance must have 4 values, got {attrs['variance']}")
    if code == "encode_center_size":
        if len(target.shape) != 2 or target.shape[1] not in (4, -1):
            raise OpError(f"box_coder: TargetBox must be a 2-D tensor (N, 4) to encode, got "
                          f"{list(target.shape)}")
        return (Meta((target.shape[0], prior.shape[0], 4), prior.dtype),)
    if len(target.shape) != 3 or target.shape[2] not in (4, -1):
        raise OpError(f"box_coder: TargetBox must be a 3-D tensor (N, M, 4) to decode, got "
                      f"{list(target.shape)}")
    axis = attrs["axis"]
    if axis not in (0, 1):
        raise OpError(f"box_coder: axis must be 0 or 1, got {axis}")
    m = target.shape[1 - axis]
    if prior.shape[0] >= 0 and m >= 0 and prior.shape[0] != m:
        raise OpError(f"box_coder: PriorBox has {prior.shape[0]} boxes, TargetBox's dim "
                      f"{1 - axis} is {m} (axis={axis})")
    return (Meta(target.shape, target.dtype),)


defop("box_coder", "PriorBox PriorBoxVar? TargetBox", "OutputBox",
      (("code_type", "STRING", "encode_center_size"), ("box_normalized", "BOOLEAN", True),
       ("axis", "INT", 0), ("variance", "FLOATS", [])),
      infer=_box_coder_infer, dtype_from="PriorBox")


def expand_aspect_ratios(ratios, flip):
    """[1.0] then each new ratio (and its inverse when ``flip``), as Paddle."""
    out = [1.0]
    for r in ratios:
        for v in ((r, 1.0 / r) if flip else (r,)):
            if all(abs(v - o) >= 1e-6 for o in out):
                out.append(v)
    return out


def num_priors(attrs):
    n = len(expand_aspect_ratios(attrs["aspect_ratios"], attrs["flip"])) * \
        len(attrs["min_sizes"])
    return n + len(attrs["max_sizes"] or [])


def check_prior_box(attrs):
    """The attribute checks of prior_box (its InferMeta's, run by the kernel too)."""
    mins, maxs = attrs["min_sizes"], attrs["max_sizes"] or []
    if not mins or any(v <= 0 for v in mins):
        raise OpError(f"prior_box: min_sizes must be positive, got {mins}")
    if maxs and len(maxs) != len(mins):
        raise OpError(f"prior_box: max_sizes ({len(maxs)}) must have as many values as "
                      f"min_sizes ({len(mins)})")
    for lo, hi in zip(mins, maxs):
        if hi <= lo:
            raise OpError(f"prior_box: max_size ({hi}) must be greater than min_size ({lo})")
    if len(attrs["variances"]) != 4:
        raise OpError(f"prior_box: variances must have 4 values, got {attrs['variances']}")


def _prior_box_infer(metas, attrs):
    x, img = metas
    for name, m in (("Input", x), ("Image", img)):
        if len(m.shape) != 4:
            raise OpError(f"prior_box: {name} must be a 4-D tensor (N, C, H, W), got "
                          f"{list(m.shape)}")
    check_prior_box(attrs)
    shape = (x.shape[2], x.shape[3], num_priors(attrs), 4)
    return Meta(shape, x.dtype), Meta(shape, x.dtype)


defop("prior_box", "Input Image", "Boxes Variances",
      (("min_sizes", "FLOATS", []), ("max_sizes", "FLOATS", []),
       ("aspect_ratios", "FLOATS", [1.0]), ("variances", "FLOATS", [0.1, 0.1, 0.2, 0.2]),
       ("flip", "BOOLEAN", True), ("clip", "BOOLEAN", True), ("step_w", "FLOAT", 0.0),
       ("step_h", "FLOAT", 0.0), ("offset", "FLOAT", 0.5),
       ("min_max_aspect_ratios_order", "BOOLEAN", False)),
      infer=_prior_box_infer, no_need_buffer=("Input", "Image"))


def _yolo_box_infer(metas, attrs):
    x, size = metas
    if len(x.shape) != 4:
        raise OpError(f"yolo_box: X must be a 4-D tensor (N, C, H, W), got {list(x.shape)}")
    if len(size.shape) != 2 or size.shape[1] not in (2, -1):
        raise OpError(f"yolo_box: ImgSize must be a 2-D tensor (N, 2), got {list(size.shape)}")
    anchors, cls = attrs["anchors"], attrs["class_num"]
    if not anchors or len(anchors) % 2:
        raise OpError(f"yolo_box: anchors must hold (width, height) pairs, got {anchors}")
    if cls <= 0:
        raise OpError(f"yolo_box: class_num must be positive, got {cls}")
    an = len(anchors) // 2
    per = 5 + cls + (1 if attrs["iou_aware"] else 0)
    if x.shape[1] >= 0 and x.shape[1] != an * per:
        raise OpError(f"yolo_box: X's channels ({x.shape[1]}) must be anchor number ({an}) * "
                      f"({'6' if attrs['iou_aware'] else '5'} + class_num ({cls}))")
    if attrs["downsample_ratio"] <= 0:
        raise OpError(f"yolo_box: downsample_ratio must be positive")
    h, w = x.shape[2:]
    boxes = an * h * w if h >= 0 and w >= 0 else -1
    return Meta((x.shape[0], boxes, 4), x.dtype), Meta((x.shape[0], boxes, cls), x.dtype)


defop("yolo_box", "X ImgSize", "Boxes Scores",
      (("anchors", "INTS", []), ("class_num", "INT", 1), ("conf_thresh", "FLOAT", 0.01),
       ("downsample_ratio", "INT", 32), ("clip_bbox", "BOOLEAN", True),
       ("scale_x_y", "FLOAT", 1.0), ("iou_aware", "BOOLEAN", False),
       ("iou_aware_factor", "FLOAT", 0.5)),
      infer=_yolo_box_infer)


def _nms_infer(metas, attrs):
    b = metas[0]
    if len(b.shape) != 2 or b.shape[1] not in (4, -1):
        raise OpError(f"nms: Boxes must be a 2-D tensor (N, 4), got {list(b.shape)}")
    return (Meta((-1,), INT64),)


defop("nms", "Boxes", "KeepBoxesIdxs", (("iou_threshold", "FLOAT", 1.0),), infer=_nms_infer)


# ------------------------------------------------------------------ proposals
def _levels(attrs):
    lo, hi = attrs["min_level"], attrs["max_level"]
    if hi < lo:
        raise OpError(f"distribute_fpn_proposals: max_level ({hi}) must not be less than "
                      f"min_level ({lo})")
    return hi - lo + 1


def _fpn_infer(metas, attrs):
    rois, num = metas
    if len(rois.shape) != 2 or rois.shape[1] not in (4, -1):
        raise OpError(f"distribute_fpn_proposals: FpnRois must be a 2-D tensor (K, 4), got "
                      f"{list(rois.shape)}")
    n = _levels(attrs)
    return ([Meta((-1, 4), rois.dtype) for _ in range(n)], Meta((rois.shape[0], 1), INT32),
            None if num is None else [Meta((-1,), INT32) for _ in range(n)])


defop("distribute_fpn_proposals", "FpnRois RoisNum?",
      "MultiFpnRois* RestoreIndex MultiLevelRoIsNum*?",
      (("min_level", "INT", 2), ("max_level", "INT", 5), ("refer_level", "INT", 4),
       ("refer_scale", "INT", 224), ("pixel_offset", "BOOLEAN", True)),
      infer=_fpn_infer)


def _proposals_infer(metas, attrs):
    scores, deltas, im, anchors, var = metas
    for name, m, nd in (("Scores", scores, 4), ("BboxDeltas", deltas, 4), ("ImShape", im, 2)):
        if len(m.shape) != nd:
            raise OpError(f"generate_proposals_v2: {name} must be a {nd}-D tensor, got "
                          f"{list(m.shape)}")
    if anchors.shape != var.shape:
        raise OpError(f"generate_proposals_v2: Anchors {list(anchors.shape)} and Variances "
                      f"{list(var.shape)} must have one shape")
    a = scores.shape[1]
    if a >= 0 and deltas.shape[1] >= 0 and deltas.shape[1] != 4 * a:
        raise OpError(f"generate_proposals_v2: BboxDeltas must have 4 * {a} channels, got "
                      f"{deltas.shape[1]}")
    return (Meta((-1, 4), deltas.dtype), Meta((-1, 1), scores.dtype),
            Meta((scores.shape[0],), INT32))


defop("generate_proposals_v2", "Scores BboxDeltas ImShape Anchors Variances",
      "RpnRois RpnRoiProbs RpnRoisNum?",
      (("pre_nms_topN", "INT", 6000), ("post_nms_topN", "INT", 1000),
       ("nms_thresh", "FLOAT", 0.5), ("min_size", "FLOAT", 0.1), ("eta", "FLOAT", 1.0),
       ("pixel_offset", "BOOLEAN", True)),
      infer=_proposals_infer, dtype_from="Scores")


def _matrix_nms_infer(metas, attrs):
    boxes, scores = metas
    if len(boxes.shape) != 3 or boxes.shape[2] not in (4, -1):
        raise OpError(f"matrix_nms: BBoxes must be a 3-D tensor (N, M, 4), got "
                      f"{list(boxes.shape)}")
    if len(scores.shape) != 3:
        raise OpError(f"matrix_nms: Scores must be a 3-D tensor (N, C, M), got "
                      f"{list(scores.shape)}")
    if -1 not in (boxes.shape[1], scores.shape[2]) and boxes.shape[1] != scores.shape[2]:
        raise OpError(f"matrix_nms: BBoxes has {boxes.shape[1]} boxes, Scores "
                      f"{scores.shape[2]}")
    return (Meta((-1, 6), boxes.dtype), Meta((-1, 1), INT32), Meta((-1,), INT32))


defop("matrix_nms", "BBoxes Scores", "Out Index RoisNum?",
      (("score_threshold", "FLOAT", REQUIRED), ("nms_top_k", "INT", REQUIRED),
       ("keep_top_k", "INT", REQUIRED), ("post_threshold", "FLOAT", 0.0),
       ("use_gaussian", "BOOLEAN", False), ("gaussian_sigma", "FLOAT", 2.0),
       ("background_label", "INT", 0), ("normalized", "BOOLEAN", True)),
      infer=_matrix_nms_infer)


# ------------------------------------------------------------------ yolov3_loss
_YOLO_LOSS = (("anchors", "INTS", []), ("anchor_mask", "INTS", []), ("class_num", "INT", 1),
              ("ignore_thresh", "FLOAT", 0.7), ("downsample_ratio", "INT", 32),
              ("use_label_smooth", "BOOLEAN", True), ("scale_x_y", "FLOAT", 1.0))


def _yolo_loss_infer(metas, attrs):
    x, box, label, score = metas
    if len(x.shape) != 4:
        raise OpError(f"yolov3_loss: X must be a 4-D tensor (N, C, H, W), got {list(x.shape)}")
    anchors, mask, cls = attrs["anchors"], attrs["anchor_mask"], attrs["class_num"]
    if not anchors or len(anchors) % 2:
        raise OpError(f"yolov3_loss: anchors must hold (width, height) pairs, got {anchors}")
    if not mask or any(m < 0 or m >= len(anchors) // 2 for m in mask):
        raise OpError(f"yolov3_loss: anchor_mask {mask} must index the "
                      f"{len(anchors) // 2} anchors")
    if cls <= 0:
        raise OpError(f"yolov3_loss: class_num must be positive, got {cls}")
    if x.shape[1] >= 0 and x.shape[1] != len(mask) * (5 + cls):
        raise OpError(f"yolov3_loss: X's channels ({x.shape[1]}) must be mask number "
                      f"({len(mask)}) * (5 + class_num ({cls}))")
    if x.shape[2] >= 0 and x.shape[3] >= 0 and x.shape[2] != x.shape[3]:
        raise OpError(f"yolov3_loss: X's height ({x.shape[2]}) and width ({x.shape[3]}) "
                      f"must be equal")
    if len(box.shape) != 3 or box.shape[2] not in (4, -1):
        raise OpError(f"yolov3_loss: GTBox must be a 3-D tensor (N, B, 4), got "
                      f"{list(box.shape)}")
    if len(label.shape) != 2:
        raise OpError(f"yolov3_loss: GTLabel must be a 2-D tensor (N, B), got "
                      f"{list(label.shape)}")
    n, b = x.shape[0], box.shape[1]
    return (Meta((n,), x.dtype), Meta((n, len(mask)) + tuple(x.shape[2:]), x.dtype),
            Meta((n, b), INT32))


defgrad("yolov3_loss_grad", "X GTBox GTLabel GTScore? ObjectnessMask GTMatchMask Loss@GRAD",
        "X@GRAD? GTBox@GRAD? GTLabel@GRAD? GTScore@GRAD?", _YOLO_LOSS)
defop("yolov3_loss", "X GTBox GTLabel GTScore?", "Loss ObjectnessMask~ GTMatchMask~",
      _YOLO_LOSS, infer=_yolo_loss_infer,
      grad=grad_op("yolov3_loss_grad", uses=("X", "GTBox", "GTLabel", "GTScore"),
                   gouts=("Loss",), wrt=("X",),
                   extra_inputs={"ObjectnessMask": "ObjectnessMask",
                                 "GTMatchMask": "GTMatchMask"}),
      no_grad_inputs=("GTBox", "GTLabel", "GTScore"))


# ------------------------------------------------------------------ image files
defop("read_file", "", "Out", (("filename", "STRING", ""),),
      infer=lambda metas, attrs: (Meta((-1,), UINT8),), side_effect=True)


def _decode_infer(metas, attrs):
    x = metas[0]
    if attrs["mode"] not in ("unchanged", "gray", "rgb"):
        raise OpError(f"decode_jpeg: mode must be 'unchanged', 'gray' or 'rgb', got "
                      f"{attrs['mode']!r}")
    if len(x.shape) != 1:
        raise OpError(f"decode_jpeg: X must be a 1-D uint8 tensor of file bytes, got "
                      f"{list(x.shape)}")
    return (Meta((-1, -1, -1), UINT8),)


defop("decode_jpeg", "X", "Out", (("mode", "STRING", "unchanged"),), infer=_decode_infer)

__all__ = ["expand_aspect_ratios", "num_priors", "check_prior_box", "CODE_TYPES"]
