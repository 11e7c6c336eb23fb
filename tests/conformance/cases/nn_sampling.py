"""``paddle.nn.functional`` sampling: grid_sample (4-D and 5-D, every mode,
padding mode and align_corners, float32 / float64, gradients of x and grid;
argument and shape errors) and class_center_sample (random negatives: the
cases compare what is deterministic -- every center when the positives fill
num_samples, the remapped labels, the sorted positives in front, the set of
centers when every class is sampled -- and the errors)."""
from spec import C

CASES = []


def F(id, code, *args, **kw):
    """A case over ``F.<fn>``: ``F.`` is paddle.nn.functional."""
    if kw.get("paddle_code"):
        kw["paddle_code"] = kw["paddle_code"].replace("F.", "paddle.nn.functional.")
    CASES.append(C(id, code.replace("F.", "paddle.nn.functional."), *args, **kw))


# ------------------------------------------------------------------ grid_sample
# grid values lie in [-2, 2]: points outside the image exercise the padding modes
X4, G4 = "[2,3,4,5]", "[2,3,4,2]"
# Paddle 2.6.2's CPU kernel gives all zeros (and zero gradients) for 5-D inputs
# with mode='nearest', padding_mode='zeros'; recorded against its definition:
# the border-padded nearest sample where the rounded point lies inside x
NEAREST_5D_NOTE = "Paddle 2.6.2 returns zeros for 5-D nearest/zeros; recorded by definition"
NEAREST_5D_PADDLE = (
    "out = F.grid_sample(x, y, mode='nearest', padding_mode='border', align_corners={align})\n"
    "size = paddle.to_tensor([x.shape[4], x.shape[3], x.shape[2]], dtype=y.dtype)\n"
    "c = (y + 1) / 2 * (size - 1) if {align} else ((y + 1) * size - 1) / 2\n"
    "r = paddle.sign(c) * paddle.floor(paddle.abs(c) + 0.5)\n"
    "inside = paddle.logical_and(r >= 0, r <= size - 1).all(axis=-1)\n"
    "return out * inside.astype(x.dtype).unsqueeze(1)")
X5, G5 = "[1,2,3,4,3]", "[1,2,3,2,3]"
for mode in ("bilinear", "nearest"):
    for pad in ("zeros", "border", "reflection"):
        for align in (True, False):
            call = (f"F.grid_sample(x, y, mode='{mode}', padding_mode='{pad}', "
                    f"align_corners={align})")
            tag = f"{mode}.{pad}.{'align' if align else 'noalign'}"
            for dt in ("float32", "float64"):
                F(f"grid_sample.{tag}.{dt}", call, f"{dt}{X4}", f"{dt}{G4}", grad=True,
                  rtol=1e-5, atol=1e-5)
            if mode == "nearest" and pad == "zeros":     # Paddle returns zeros there
                F(f"grid_sample.5d.{tag}", call, f"float64{X5}", f"float64{G5}", grad=True,
                  note=NEAREST_5D_NOTE, paddle_code=NEAREST_5D_PADDLE.format(align=align))
                continue
            F(f"grid_sample.5d.{tag}", call, f"float64{X5}", f"float64{G5}", grad=True)
F("grid_sample.default", "F.grid_sample(x, y)", "float32[1,2,3,3]", "float32[1,4,4,2]|unit",
  grad=True, rtol=1e-5, atol=1e-5)
F("grid_sample.5d.float32", "F.grid_sample(x, y, align_corners=False)", "float32[2,1,2,3,4]",
  "float32[2,3,1,2,3]|unit", grad=True, rtol=1e-5, atol=1e-5)
F("grid_sample.positional", "F.grid_sample(x, y, 'nearest', 'border', False)",
  "float32[1,1,4,4]", "float32[1,2,3,2]")
F("grid_sample.affine_grid",
  "theta = paddle.to_tensor([[[0.8, -0.3, 0.1], [0.2, 0.9, -0.2]]], dtype='float32')\n"
  "return F.grid_sample(x, F.affine_grid(theta, [1, 2, 5, 4], align_corners=False), "
  "align_corners=False)", "float32[1,2,4,3]")
F("grid_sample.bad_mode", "F.grid_sample(x, y, mode='bicubic')", "float32[1,1,3,3]",
  "float32[1,2,2,2]")
F("grid_sample.bad_padding", "F.grid_sample(x, y, padding_mode='circular')",
  "float32[1,1,3,3]", "float32[1,2,2,2]")
F("grid_sample.align_not_bool", "F.grid_sample(x, y, align_corners=1)", "float32[1,1,3,3]",
  "float32[1,2,2,2]")
F("grid_sample.bad_grid_last", "F.grid_sample(x, y)", "float32[1,2,3,4]", "float32[1,2,2,3]")
F("grid_sample.bad_batch", "F.grid_sample(x, y)", "float32[1,2,3,4]", "float32[2,2,2,2]")
F("grid_sample.rank2", "F.grid_sample(x, y)", "float32[2,3]", "float32[2,3]")
F("grid_sample.int", "F.grid_sample(x, y)", "int32[1,1,2,2]", "float32[1,2,2,2]",
  modes=("eager",))
F("grid_sample.mixed_dtype", "F.grid_sample(x, y)", "float32[1,1,2,2]", "float64[1,2,2,2]",
  modes=("eager",))

# ------------------------------------------------------------------ class_center_sample
LABEL = ("paddle.to_tensor([17, 10, 5, 18, 8, 8, 19, 14, 10, 14], dtype='{dt}')")
F("class_center_sample.positives_fill",
  f"label = {LABEL.format(dt='int64')}\nreturn F.class_center_sample(label, 20, 6)")
F("class_center_sample.positives_exact",
  f"label = {LABEL.format(dt='int64')}\nreturn F.class_center_sample(label, 20, 7)")
F("class_center_sample.int32",
  f"label = {LABEL.format(dt='int32')}\nreturn F.class_center_sample(label, 25, 3)")
F("class_center_sample.random_labels", "F.class_center_sample(x, 10, 1)", "int64[12]|idx10")
F("class_center_sample.negatives",
  f"label = {LABEL.format(dt='int64')}\n"
  "remapped, centers = F.class_center_sample(label, 20, 12)\n"
  "return remapped, centers[:7]")
F("class_center_sample.negatives.count",
  f"label = {LABEL.format(dt='int64')}\n"
  "remapped, centers = F.class_center_sample(label, 20, 12)\n"
  "return centers.shape, paddle.unique(centers).shape", modes=("eager",))
F("class_center_sample.every_class",
  f"label = {LABEL.format(dt='int32')}\n"
  "remapped, centers = F.class_center_sample(label, 20, 20)\n"
  "return remapped, centers[:7], paddle.sort(centers)")
F("class_center_sample.negatives_valid",
  "remapped, centers = F.class_center_sample(x, 30, 16)\n"
  "hit = (centers.unsqueeze(1) == x.unsqueeze(0)).any(axis=1)\n"
  "n = paddle.unique(x).shape[0]\n"
  "return remapped, hit[:n].all(), hit[n:].any(), (centers >= 0).all(), "
  "(centers < 30).all(), paddle.unique(centers).shape",
  "int64[9]|idx30", modes=("eager",))
F("class_center_sample.group_false",
  f"label = {LABEL.format(dt='int64')}\nreturn F.class_center_sample(label, 20, 5, group=False)",
  modes=("eager",))
F("class_center_sample.stop_gradient",
  f"label = {LABEL.format(dt='int64')}\n"
  "a, b = F.class_center_sample(label, 20, 6)\nreturn a.stop_gradient, b.stop_gradient",
  modes=("eager",))
F("class_center_sample.too_many", "F.class_center_sample(x, 20, 21)", "int64[6]|idx20")
F("class_center_sample.zero_samples", "F.class_center_sample(x, 20, 0)", "int64[6]|idx20",
  modes=("eager",))
F("class_center_sample.zero_classes", "F.class_center_sample(x, 0, 0)", "int64[6]|idx20",
  modes=("eager",))
F("class_center_sample.rank2", "F.class_center_sample(x, 20, 5)", "int64[2,3]|idx20")
F("class_center_sample.empty", "F.class_center_sample(x, 20, 5)", "int64[0]")
F("class_center_sample.float_label", "F.class_center_sample(x, 20, 5)", "float32[6]",
  modes=("eager",))
F("class_center_sample.bad_group", "F.class_center_sample(x, 20, 5, group=3)",
  "int64[6]|idx20")
F("class_center_sample.float_count", "F.class_center_sample(x, 20.0, 5.0)", "int64[6]|idx20",
  modes=("eager",))
