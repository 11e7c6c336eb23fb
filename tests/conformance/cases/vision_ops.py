"""``paddle.vision.ops``: RoI Align / RoI Pool / PS-RoI Pool (functions and
layers, with the gradient of the features), box_coder (encode, decode on
either axis, variances as a list or a tensor), prior_box, yolo_box (clipped,
scale_x_y, iou_aware), nms (plain, with scores, per category with top_k),
deform_conv2d / DeformConv2D (with and without a mask), and their argument
errors."""
from spec import C

CASES = []
V = "paddle.vision.ops."

BOXES = ("b = paddle.to_tensor([[0.4, 0.6, 4.3, 3.9], [1.0, 1.2, 5.6, 3.1], [0.0, 0.0, 7.9, 5.8],"
         " [2.5, -1.0, 9.0, 4.0]], dtype=x.dtype)\n"
         "n = paddle.to_tensor([1, 3], dtype='int32')\n")


def R(id, code, *args, **kw):
    CASES.append(C(id, BOXES + "return " + code.replace("V.", V), *args, **kw))


X8 = "float32[2,8,6,7]"
for dt in ("float32", "float64"):
    R(f"roi_align.{dt}", "V.roi_align(x, b, n, 2)", f"{dt}[2,8,6,7]", grad=True)
R("roi_align.not_aligned", "V.roi_align(x, b, n, (3, 2), aligned=False)", X8, grad=True)
R("roi_align.scale.ratio", "V.roi_align(x, b, n, 2, spatial_scale=0.8, sampling_ratio=2)", X8,
  grad=True)
R("roi_align.layer", "V.RoIAlign(output_size=3, spatial_scale=0.8)(x, b, n)", X8)
R("roi_align.list_size", "V.roi_align(x, b, n, [2, 2])", X8)
R("roi_pool.float32", "V.roi_pool(x, b, n, 2)", X8, grad=True)
R("roi_pool.scale", "V.roi_pool(x, b, n, (3, 2), spatial_scale=0.5)", X8, grad=True)
R("roi_pool.layer", "V.RoIPool(output_size=3)(x, b, n)", X8)
# Paddle's static psroi_pool leaves RoisNum out and crashes reading the boxes' LoD:
# eager only (sampan's static op passes RoisNum)
E = {"modes": ("eager",)}
R("psroi_pool.float32", "V.psroi_pool(x, b, n, 2)", X8, grad=True, **E)
R("psroi_pool.float64", "V.psroi_pool(x, b, n, [2, 1], 0.7)", "float64[2,8,6,7]", grad=True,
  **E)
R("psroi_pool.layer", "V.PSRoIPool(2, 1.0)(x, b, n)", X8, **E)
R("psroi_pool.bad_channels", "V.psroi_pool(x, b, n, 3)", X8, **E)

PRIOR = "pb = paddle.to_tensor([[0.1, 0.1, 0.5, 0.6], [0.3, 0.2, 0.9, 0.8], [0.0, 0.4, 0.3, 0.9]], dtype=x.dtype)\n"
C_ = CASES.append
C_(C("box_coder.encode.list_var", PRIOR + f"return {V}box_coder(pb, [0.1, 0.1, 0.2, 0.2], x)",
     "float32[4,4]|pos"))
C_(C("box_coder.encode.tensor_var", PRIOR + f"return {V}box_coder(pb, y, x)",
     "float32[4,4]|pos", "float32[3,4]|pos"))
C_(C("box_coder.encode.unnormalized", PRIOR + f"return {V}box_coder(pb * 10, [1.0, 1, 2, 2], "
     "x * 10, box_normalized=False)", "float64[2,4]|pos"))
C_(C("box_coder.no_var", PRIOR + f"return {V}box_coder(pb, None, x)", "float32[2,4]|pos"))
C_(C("box_coder.decode.axis0", PRIOR + f"return {V}box_coder(pb, [0.1, 0.1, 0.2, 0.2], x, "
     "code_type='decode_center_size')", "float32[2,3,4]|unit"))
C_(C("box_coder.decode.axis1", PRIOR + f"return {V}box_coder(pb, y, x, "
     "code_type='decode_center_size', axis=1)", "float32[3,2,4]|unit", "float32[3,4]|pos"))
C_(C("box_coder.bad_code", PRIOR + f"return {V}box_coder(pb, [1.0] * 4, x, code_type='center')",
     "float32[2,4]|pos"))

C_(C("prior_box.basic", f"return {V}prior_box(x, y, [4.0])", "float32[1,3,2,3]",
     "float32[1,3,8,12]"))
C_(C("prior_box.full", f"return {V}prior_box(x, y, [2.0, 3.0], [4.0, 5.0], [2.0, 0.5], "
     "flip=True, clip=True, steps=[3.0, 4.0], offset=0.3)", "float32[1,3,3,2]",
     "float32[1,3,10,7]"))
C_(C("prior_box.order", f"return {V}prior_box(x, y, [2.0], [6.0], [2.0, 3.0], flip=True, "
     "min_max_aspect_ratios_order=True, variance=[0.2, 0.2, 0.1, 0.1])", "float64[1,3,2,2]",
     "float64[1,3,8,8]"))
C_(C("prior_box.bad_steps", f"return {V}prior_box(x, y, [2.0], steps=[1.0])",
     "float32[1,3,2,2]", "float32[1,3,8,8]"))

SIZE = "s = paddle.to_tensor([[64, 96], [80, 40]], dtype='int32')\n"
C_(C("yolo_box.basic", SIZE + f"return {V}yolo_box(x, s, [10, 13, 16, 30], 2, 0.3, 16)",
     "float32[2,14,3,4]"))
C_(C("yolo_box.noclip.scale", SIZE + f"return {V}yolo_box(x, s, [10, 13], 3, 0.01, 32, "
     "clip_bbox=False, scale_x_y=1.2)", "float64[2,8,2,2]"))
C_(C("yolo_box.iou_aware", SIZE + f"return {V}yolo_box(x, s, [10, 13, 16, 30], 1, 0.2, 8, "
     "iou_aware=True, iou_aware_factor=0.4)", "float32[2,14,2,3]"))
C_(C("yolo_box.int_thresh", SIZE + f"return {V}yolo_box(x, s, [10, 13], 1, 0, 8)",
     "float32[2,6,2,2]"))

NMS = ("b = paddle.to_tensor([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], "
       "[0.5, 0, 10, 9], [21, 19, 29, 31], [50, 50, 52, 53]], dtype='float32')\n"
       "s = paddle.to_tensor([0.9, 0.95, 0.3, 0.5, 0.8, 0.1], dtype='float32')\n"
       "c = paddle.to_tensor([0, 1, 0, 0, 1, 1], dtype='int64')\n")
C_(C("nms.plain", NMS + f"return {V}nms(b, 0.5)", modes=("eager", "static")))
C_(C("nms.plain.low", NMS + f"return {V}nms(b, 0.05)", modes=("eager", "static")))
C_(C("nms.scores", NMS + f"return {V}nms(b, 0.5, s)", modes=("eager",)))
C_(C("nms.categories", NMS + f"return {V}nms(b, 0.5, s, c, [0, 1])", modes=("eager",)))
C_(C("nms.categories.top_k", NMS + f"return {V}nms(b, 0.5, s, c, [0, 1], top_k=3)",
     modes=("eager",)))

# offsets y (|unit: within a pixel), mask z, filter w
DEF = "float32[2,6,6,5]", "float32[2,18,4,5]|unit", "float32[2,9,4,5]|pos", "float32[4,6,3,3]"
T = {"rtol": 1e-4, "atol": 1e-4}   # sums of 54 float32 products
C_(C("deform_conv2d.v1", f"return {V}deform_conv2d(x, y * 2, w, padding=[0, 1])", *DEF,
     grad=True, **T))
C_(C("deform_conv2d.mask.bias", f"return {V}deform_conv2d(x, y, w, "
     "bias=paddle.to_tensor([0.5, -1.0, 2.0, 0.0]), padding=[0, 1], mask=z / 2)", *DEF,
     grad=True, **T))
C_(C("deform_conv2d.stride.groups", f"return {V}deform_conv2d(x, y[:, :, :2, :3], w[:2], "
     "stride=2, padding=[0, 1], groups=2, dilation=1)", *DEF[:2], "float32[2,9,4,5]",
     "float32[4,3,3,3]", grad=True, **T))
C_(C("deform_conv2d.layer", f"layer = {V}DeformConv2D(6, 4, 3, padding=[0, 1])\n"
     "return layer(x, y, z).shape", *DEF[:3]))

# ------------------------------------------------------------------ proposals
FPN = ("r = paddle.to_tensor([[54.9, 71.5, 80.8, 102.2], [60.3, 54.5, 71.2, 305.1], "
       "[42.4, 64.6, 276.9, 326.2], [43.8, 89.2, 340.3, 360.1], [96.4, 38.3, 301.7, 213.6], "
       "[79.2, 52.9, 123.4, 171.7], [56.8, 92.6, 209.5, 200.4]], dtype=x.dtype)\n"
       "num = paddle.to_tensor([3, 4], dtype='int32')\n")
C_(C("distribute_fpn_proposals.basic", FPN + f"return {V}distribute_fpn_proposals(r, 2, 5, 4, "
     "224, rois_num=num)", "float32[1]"))
C_(C("distribute_fpn_proposals.offset", FPN + f"return {V}distribute_fpn_proposals(r, 3, 4, 4, "
     "100, pixel_offset=True, rois_num=num)", "float64[1]"))

GP = ("paddle.seed(0)\n"
      "ys, xs = paddle.meshgrid(paddle.arange(4, dtype='float32') * 8, "
      "paddle.arange(5, dtype='float32') * 8)\n"
      "base = paddle.stack([xs, ys, xs + 15, ys + 15], -1).unsqueeze(2)\n"
      "a = paddle.concat([base, base * 1.3, base * 0.7 + 2], 2)\n"
      "v = paddle.ones_like(a) * paddle.to_tensor([0.1, 0.1, 0.2, 0.2])\n"
      "im = paddle.to_tensor([[32.0, 40.0], [28.0, 36.0]])\n"
      "x = x + paddle.arange(120, dtype=x.dtype).reshape([2, 3, 4, 5]) * 1e-4   # no ties\n")
C_(C("generate_proposals.basic", GP + f"return {V}generate_proposals(x, y, im, a, v, "
     "return_rois_num=True)", "float32[2,3,4,5]|unit", "float32[2,12,4,5]|unit"))
C_(C("generate_proposals.topn.offset", GP + f"return {V}generate_proposals(x, y, im, a, v, "
     "pre_nms_top_n=20, post_nms_top_n=6, nms_thresh=0.6, min_size=2.0, pixel_offset=True, "
     "return_rois_num=True)", "float32[2,3,4,5]|unit", "float32[2,12,4,5]|unit"))
C_(C("generate_proposals.eta", GP + f"return {V}generate_proposals(x, y * 3, im, a, v, "
     "nms_thresh=0.8, eta=0.7, return_rois_num=True)", "float32[2,3,4,5]|unit",
     "float32[2,12,4,5]|unit"))

MN = ("lo = x[:, :, :2] * 20\n"
      "z = z + paddle.arange(z.numel(), dtype=z.dtype).reshape(z.shape) * 1e-4   # no ties\n"
      "b = paddle.concat([lo, lo + y * 10 + 1], -1)\n")
C_(C("matrix_nms.linear", MN + f"return {V}matrix_nms(b, z, 0.1, 0.05, 10, 8, "
     "return_index=True)", "float32[2,9,4]|pos", "float32[2,9,2]|pos", "float32[2,3,9]|pos"))
C_(C("matrix_nms.gaussian.unnormalized", MN + f"return {V}matrix_nms(b, z / 2, 0.2, 0.1, 5, "
     "-1, use_gaussian=True, gaussian_sigma=1.5, background_label=-1, normalized=False, "
     "return_index=True)", "float64[2,9,4]|pos", "float64[2,9,2]|pos", "float64[2,3,9]|pos"))
C_(C("matrix_nms.empty", MN + f"return {V}matrix_nms(b, z * 0.01, 0.5, 0.1, 10, 10, "
     "return_index=True)", "float32[1,4,4]|pos", "float32[1,4,2]|pos", "float32[1,2,4]|pos"))

# ------------------------------------------------------------------ yolo_loss
YL = ("gt = paddle.to_tensor([[[0.3, 0.4, 0.2, 0.3], [0.7, 0.6, 0.5, 0.4], [0.5, 0.5, 0.0, 0.1]],"
      " [[0.12, 0.8, 0.1, 0.15], [0.55, 0.3, 0.9, 0.6], [0.81, 0.2, 0.3, 0.05]]], dtype=x.dtype)\n"
      "lb = paddle.to_tensor([[1, 0, 2], [2, 1, 0]], dtype='int32')\n"
      "sc = paddle.to_tensor([[0.9, 0.6, 1.0], [1.0, 0.7, 0.8]], dtype=x.dtype)\n"
      "anchors = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119]\n")
C_(C("yolo_loss.basic", YL + f"return {V}yolo_loss(x, gt, lb, anchors, [0, 1, 2], 3, 0.7, 8)",
     "float32[2,24,4,4]", grad=True, rtol=1e-4, atol=1e-4))
C_(C("yolo_loss.score.no_smooth", YL + f"return {V}yolo_loss(x, gt, lb, anchors, [3, 4, 5], 3, "
     "0.5, 16, gt_score=sc, use_label_smooth=False, scale_x_y=1.2)", "float64[2,24,4,4]",
     grad=True))
C_(C("yolo_loss.ignore", YL + f"return {V}yolo_loss(x * 0.3, gt, lb, anchors, [1, 2], 3, 0.1, 4)",
     "float32[2,16,5,5]", grad=True, rtol=1e-4, atol=1e-4))
C_(C("prior_box.max_below_min", f"return {V}prior_box(x, y, [4.0], [2.0])", "float32[1,3,2,2]",
     "float32[1,3,8,8]"))
C_(C("prior_box.max_count", f"return {V}prior_box(x, y, [4.0, 3.0], [5.0])", "float32[1,3,2,2]",
     "float32[1,3,8,8]"))
C_(C("yolo_box.bad_channels", SIZE + f"return {V}yolo_box(x, s, [10, 13], 2, 0.1, 8)",
     "float32[2,6,2,2]"))
C_(C("roi_align.bad_rois", "b = paddle.to_tensor([[0.0, 1.0, 2.0]])\n"
     "n = paddle.to_tensor([1], dtype='int32')\n"
     f"return {V}roi_align(x, b, n, 2)", "float32[1,2,4,4]"))
C_(C("matrix_nms.box_count", f"return {V}matrix_nms(x, y, 0.1, 0.1, 5, 5)", "float32[1,5,4]",
     "float32[1,2,4]"))
