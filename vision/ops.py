"""``paddle.vision.ops``: the layers the vision models are built from, and
the detection ops (RoI pooling, box geometry, NMS, deformable convolution,
image files), each a few lines over its op record (ops/defs/detection.py,
ops/defs/deform_conv.py).

``ConvNormActivation`` is Conv2D -> norm layer -> activation as one
``Sequential`` (so its state-dict keys are ``0.weight``, ``1.weight``,
``1._mean`` ...), as the MobileNet, ShuffleNet and InceptionV3 models of
Paddle 2.6 use it.
"""
import numpy as np

from .. import tensor as T
from ..nn import BatchNorm2D, Conv2D, Layer, ReLU, Sequential
from ..nn.initializer import Normal
from ..ops import bind, get_op

__all__ = ["yolo_loss", "yolo_box", "prior_box", "box_coder", "deform_conv2d", "DeformConv2D",
           "read_file", "decode_jpeg", "roi_pool", "RoIPool", "psroi_pool", "PSRoIPool",
           "roi_align", "RoIAlign", "nms", "matrix_nms", "distribute_fpn_proposals",
           "generate_proposals"]


class ConvNormActivation(Sequential):
    """Conv2D, then ``norm_layer(out_channels)`` (skipped when None), then
    ``activation_layer()`` (skipped when None).  ``padding=None`` keeps the
    spatial size for stride 1 (``(kernel_size - 1) // 2 * dilation``);
    ``bias=None`` gives the convolution a bias only when there is no norm layer."""

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None,
                 groups=1, norm_layer=BatchNorm2D, activation_layer=ReLU, dilation=1,
                 bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [Conv2D(in_channels, out_channels, kernel_size, stride, padding,
                         dilation=dilation, groups=groups, bias_attr=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)


def _pair(v, what):
    if isinstance(v, int):
        return [v, v]
    v = list(v)
    if len(v) == 1:
        v = v * 2
    if len(v) != 2 or not all(isinstance(i, int) for i in v):
        raise ValueError(f"The {what} should be an int or a list/tuple of 2 ints, got {v}")
    return v


def _output_size(output_size, fn):
    if not isinstance(output_size, (int, tuple, list)):
        raise TypeError(f"The type of 'output_size' in {fn} must be int, tuple or list, but "
                        f"received {type(output_size)}.")
    return _pair(output_size, "output_size")


# ------------------------------------------------------------------ RoI pooling
def roi_align(x, boxes, boxes_num, output_size, spatial_scale=1.0, sampling_ratio=-1,
              aligned=True, name=None):
    ph, pw = _output_size(output_size, "roi_align")
    return bind(get_op("roi_align"), (x, boxes, boxes_num),
                {"pooled_height": ph, "pooled_width": pw, "spatial_scale": spatial_scale,
                 "sampling_ratio": sampling_ratio, "aligned": aligned})[0]


def roi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    ph, pw = _output_size(output_size, "roi_pool")
    return bind(get_op("roi_pool"), (x, boxes, boxes_num),
                {"pooled_height": ph, "pooled_width": pw, "spatial_scale": spatial_scale})[0]


def psroi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    ph, pw = _output_size(output_size, "psroi_pool")
    if len(x.shape) != 4:
        raise ValueError(f"Input features with shape should be (N, C, H, W), got {x.shape}")
    if ph * pw == 0:
        raise ValueError("output_size should not contain 0.")
    return bind(get_op("psroi_pool"), (x, boxes, boxes_num),
                {"pooled_height": ph, "pooled_width": pw,
                 "output_channels": int(x.shape[1] / (ph * pw)),
                 "spatial_scale": spatial_scale})[0]


class _RoILayer(Layer):
    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def extra_repr(self):
        return f"output_size={self._output_size}, spatial_scale={self._spatial_scale}"


class RoIAlign(_RoILayer):
    def forward(self, x, boxes, boxes_num, aligned=True):
        return roi_align(x, boxes, boxes_num, self._output_size, self._spatial_scale,
                         aligned=aligned)


class RoIPool(_RoILayer):
    def forward(self, x, boxes, boxes_num):
        return roi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)


class PSRoIPool(_RoILayer):
    def forward(self, x, boxes, boxes_num):
        return psroi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)


# ------------------------------------------------------------------ boxes
def box_coder(prior_box, prior_box_var, target_box, code_type="encode_center_size",
              box_normalized=True, axis=0, name=None):
    attrs = {"code_type": code_type, "box_normalized": box_normalized, "axis": axis}
    if isinstance(prior_box_var, (list, tuple)):
        attrs["variance"], prior_box_var = [float(v) for v in prior_box_var], None
    elif not hasattr(prior_box_var, "shape"):
        raise TypeError("Input prior_box_var must be Variable or list|tuple")
    return bind(get_op("box_coder"), (prior_box, prior_box_var, target_box), attrs)[0]


def prior_box(input, image, min_sizes, max_sizes=None, aspect_ratios=[1.0],
              variance=[0.1, 0.1, 0.2, 0.2], flip=False, clip=False, steps=[0.0, 0.0],
              offset=0.5, min_max_aspect_ratios_order=False, name=None):
    def floats(v):
        return [float(i) for i in (v if isinstance(v, (list, tuple)) else [v])]
    if not isinstance(steps, (list, tuple)) or len(steps) != 2:
        raise ValueError("steps should be (step_w, step_h)")
    attrs = {"min_sizes": floats(min_sizes), "aspect_ratios": floats(aspect_ratios),
             "variances": floats(variance), "flip": flip, "clip": clip,
             "step_w": float(steps[0]), "step_h": float(steps[1]), "offset": float(offset),
             "min_max_aspect_ratios_order": min_max_aspect_ratios_order,
             "max_sizes": floats(max_sizes) if max_sizes else []}
    box, var = bind(get_op("prior_box"), (input, image), attrs)
    return box, var


def yolo_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh,
              downsample_ratio, gt_score=None, use_label_smooth=True, name=None, scale_x_y=1.0):
    """YOLOv3 loss per image (N,): location, objectness and class terms."""
    return bind(get_op("yolov3_loss"), (x, gt_box, gt_label, gt_score),
                {"anchors": [int(a) for a in anchors],
                 "anchor_mask": [int(a) for a in anchor_mask], "class_num": class_num,
                 "ignore_thresh": float(ignore_thresh), "downsample_ratio": downsample_ratio,
                 "use_label_smooth": use_label_smooth, "scale_x_y": float(scale_x_y)})[0]


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True,
             name=None, scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
    if not isinstance(anchors, (list, tuple)):
        raise TypeError(f"The type of 'anchors' in yolo_box must be list or tuple, but "
                        f"received {type(anchors)}.")
    boxes, scores = bind(get_op("yolo_box"), (x, img_size),
                         {"anchors": [int(a) for a in anchors], "class_num": class_num,
                          "conf_thresh": float(conf_thresh), "downsample_ratio": downsample_ratio,
                          "clip_bbox": clip_bbox, "scale_x_y": float(scale_x_y),
                          "iou_aware": iou_aware, "iou_aware_factor": iou_aware_factor})
    return boxes, scores


def _nms(boxes, iou_threshold):
    return bind(get_op("nms"), (boxes,), {"iou_threshold": float(iou_threshold)})[0]


def nms(boxes, iou_threshold=0.3, scores=None, category_idxs=None, categories=None,
        top_k=None):
    """Indices of the boxes kept by non-maximum suppression: in box order
    without ``scores``; by descending score with them, per category when
    ``category_idxs`` (and the list of ``categories``) are given."""
    if scores is None:
        return _nms(boxes, iou_threshold)
    if category_idxs is None:
        order = T.argsort(scores, descending=True)
        return order[_nms(boxes[order], iou_threshold)]
    if top_k is not None and top_k > scores.shape[0]:
        raise AssertionError("top_k should be smaller equal than the number of boxes")
    if categories is None:
        raise AssertionError("if category_idxs is given, categories which is a list of "
                             "unique id of all categories is necessary")
    mask = T.zeros_like(scores, dtype="int32")
    for cid in categories:
        idxs = T.nonzero(T.equal(category_idxs, T.to_tensor(cid, category_idxs.dtype)))
        idxs = T.reshape(idxs, [idxs.shape[0]])
        if idxs.shape[0] == 0:
            continue
        if idxs.shape[0] == 1:
            keep = idxs
        else:
            order = T.argsort(scores[idxs], descending=True)
            keep = idxs[order[_nms(boxes[idxs][order], iou_threshold)]]
        mask = T.scatter(mask, keep, T.ones_like(keep, dtype="int32"), overwrite=True)
    kept = T.nonzero(mask)
    kept = T.reshape(kept, [kept.shape[0]])
    if top_k is None:
        return kept[T.argsort(scores[kept], descending=True)]
    _, sub = T.topk(scores[kept], min(top_k, kept.shape[0]))
    return kept[sub]


def matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k,
               use_gaussian=False, gaussian_sigma=2.0, background_label=0, normalized=True,
               return_index=False, return_rois_num=True, name=None):
    """Matrix NMS: rows ``[label, score, x1, y1, x2, y2]`` of the kept boxes,
    their count per image (``return_rois_num``) and their flat index
    (``return_index``): ``(out, rois_num, index)``."""
    out, index, rois_num = bind(get_op("matrix_nms"), (bboxes, scores), {
        "score_threshold": float(score_threshold), "post_threshold": float(post_threshold),
        "nms_top_k": int(nms_top_k), "keep_top_k": int(keep_top_k),
        "use_gaussian": use_gaussian, "gaussian_sigma": float(gaussian_sigma),
        "background_label": int(background_label), "normalized": normalized})
    return out, rois_num if return_rois_num else None, index if return_index else None


def distribute_fpn_proposals(fpn_rois, min_level, max_level, refer_level, refer_scale,
                             pixel_offset=False, rois_num=None, name=None):
    """Boxes to FPN levels by scale: ``(multi_rois, restore_ind, rois_num_per_level)``."""
    if max_level - min_level + 1 >= 100:
        raise AssertionError("Only support max to 100 levels, (max_level - min_level + 1 "
                             "< 100)")
    multi, restore, nums = bind(get_op("distribute_fpn_proposals"), (fpn_rois, rois_num), {
        "min_level": min_level, "max_level": max_level, "refer_level": refer_level,
        "refer_scale": refer_scale, "pixel_offset": pixel_offset})
    return multi, restore, nums


def generate_proposals(scores, bbox_deltas, img_size, anchors, variances, pre_nms_top_n=6000,
                       post_nms_top_n=1000, nms_thresh=0.5, min_size=0.1, eta=1.0,
                       pixel_offset=False, return_rois_num=False, name=None):
    """RPN proposals: ``(rpn_rois, rpn_roi_probs, rpn_rois_num)``."""
    rois, probs, num = bind(get_op("generate_proposals_v2"),
                            (scores, bbox_deltas, img_size, anchors, variances), {
        "pre_nms_topN": pre_nms_top_n, "post_nms_topN": post_nms_top_n,
        "nms_thresh": nms_thresh, "min_size": min_size, "eta": eta,
        "pixel_offset": pixel_offset})
    return rois, probs, num if return_rois_num else None


# ------------------------------------------------------------------ deformable conv
def deform_conv2d(x, offset, weight, bias=None, stride=1, padding=0, dilation=1,
                  deformable_groups=1, groups=1, mask=None, name=None):
    attrs = {"strides": _pair(stride, "stride"), "paddings": _pair(padding, "padding"),
             "dilations": _pair(dilation, "dilation"), "groups": groups,
             "deformable_groups": deformable_groups, "im2col_step": 1}
    if mask is None:
        out = bind(get_op("deformable_conv_v1"), (x, offset, weight), attrs)[0]
    else:
        out = bind(get_op("deformable_conv"), (x, offset, weight, mask), attrs)[0]
    if bias is not None:
        out = bind(get_op("elementwise_add"), (out, bias), {"axis": 1})[0]
    return out


class DeformConv2D(Layer):
    """Deformable convolution (v1 without a mask, v2 with one) with its own
    weight ``[out, in / groups, kh, kw]`` (Normal(0, sqrt(2 / (kh*kw*in)))) and bias."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, deformable_groups=1, groups=1, weight_attr=None, bias_attr=None):
        super().__init__()
        if weight_attr is False:
            raise AssertionError("weight_attr should not be False in Conv.")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups.")
        self._stride = _pair(stride, "stride")
        self._padding = _pair(padding, "padding")
        self._dilation = _pair(dilation, "dilation")
        self._kernel_size = _pair(kernel_size, "kernel_size")
        self._deformable_groups, self._groups = deformable_groups, groups
        std = (2.0 / (np.prod(self._kernel_size) * in_channels)) ** 0.5
        self.weight = self.create_parameter(
            shape=[out_channels, in_channels // groups] + self._kernel_size,
            attr=weight_attr, default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter(attr=bias_attr, shape=[out_channels], is_bias=True)

    def forward(self, x, offset, mask=None):
        return deform_conv2d(x, offset, self.weight, self.bias, self._stride, self._padding,
                             self._dilation, self._deformable_groups, self._groups, mask)


# ------------------------------------------------------------------ image files
def read_file(filename, name=None):
    """The bytes of a file as a 1-D uint8 tensor."""
    return bind(get_op("read_file"), (), {"filename": filename})[0]


def decode_jpeg(x, mode="unchanged", name=None):
    """A JPEG file's bytes (uint8, 1-D) decoded to a (C, H, W) uint8 image;
    ``mode`` 'gray' or 'rgb' converts.  Decoding on the CPU needs Pillow."""
    return bind(get_op("decode_jpeg"), (x,), {"mode": mode})[0]
