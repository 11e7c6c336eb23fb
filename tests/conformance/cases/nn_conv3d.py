"""``paddle.nn.functional`` 3-D convolution and pooling, and local response
normalisation: conv3d, conv3d_transpose, max_pool3d, avg_pool3d,
adaptive_avg_pool3d, adaptive_max_pool3d, local_response_norm; the layers
Conv3D, Conv3DTranspose, MaxPool3D, AvgPool3D, AdaptiveAvgPool3D,
AdaptiveMaxPool3D, LocalResponseNorm.  (``static.nn.conv3d`` and
``conv3d_transpose``: tests/static/test_conv3d_builders.py.)"""
from spec import C

CASES = []


def F(id, code, *args, **kw):
    """A case over ``F.<fn>``: ``F.`` is paddle.nn.functional."""
    CASES.append(C(id, code.replace("F.", "paddle.nn.functional."), *args, **kw))


TOL = {"rtol": 1e-4, "atol": 1e-5}
LAYER = ("eager", "static")          # layers built inside the case (as nn_extra's)

# ------------------------------------------------------------------ conv3d
X = "float32[1,4,4,5,5]"
# gradients compared with Paddle's for these forms (tests/ops has numerical gradient checks
# of every form; the fixture stays small)
GRAD_FORMS = {"plain", "stride", "groups", "dilation", "depthwise", "output_size"}
CONV3D = {
    "plain": ("", X, "float32[6,4,3,3,3]"),
    "stride": ("stride=2", "float32[1,4,5,7,7]", "float32[6,4,3,3,3]"),
    "stride_list": ("stride=[1, 2, 1]", X, "float32[6,4,3,3,3]"),
    "pad_int": ("padding=1", X, "float32[6,4,3,3,3]"),
    "pad_list3": ("padding=[1, 0, 2]", X, "float32[6,4,3,3,3]"),
    "pad_list6": ("padding=[1, 0, 0, 2, 1, 1]", X, "float32[6,4,3,3,3]"),
    "pad_list6_sym": ("padding=[1, 1, 2, 2, 0, 0]", X, "float32[6,4,3,3,3]"),
    "pad_pairs": ("padding=[[0, 0], [0, 0], [1, 0], [1, 2], [0, 1]]", X,
                  "float32[6,4,3,3,3]"),
    "same": ("padding='SAME'", X, "float32[6,4,3,3,3]"),
    "same_stride": ("stride=2, padding='same'", "float32[1,4,5,7,7]", "float32[6,4,3,3,3]"),
    "valid": ("padding='VALID'", X, "float32[6,4,3,3,3]"),
    "dilation": ("dilation=2", "float32[1,4,5,7,7]", "float32[6,4,2,3,3]"),
    "dilation_pad": ("padding=2, dilation=[1, 2, 2]", X, "float32[6,4,3,3,3]"),
    "groups": ("groups=2", X, "float32[6,2,3,3,3]"),
    "depthwise": ("groups=4, padding=1", X, "float32[8,1,3,3,3]"),
    "kernel_rect": ("stride=[1, 2, 1], padding=[0, 1, 1]", X, "float32[6,4,1,2,3]"),
    "one_channel": ("", "float32[1,1,4,5,5]", "float32[3,1,2,3,3]"),
}
for name, (opts, xs, ws) in CONV3D.items():
    sep = ", " if opts else ""
    F(f"conv3d.{name}.float32", f"F.conv3d(x, y, z{sep}{opts})", xs, ws,
      f"float32[{ws[8:].split(',')[0]}]", grad=name in GRAD_FORMS, **TOL)
    F(f"conv3d.{name}.nobias.float32", f"F.conv3d(x, y{sep}{opts})", xs, ws, **TOL)
F("conv3d.ndhwc.float32", "F.conv3d(x, y, z, padding=1, data_format='NDHWC')",
  "float32[1,5,6,6,4]", "float32[6,4,3,3,3]", "float32[6]", grad=True, **TOL)
F("conv3d.ndhwc_stride.float32", "F.conv3d(x, y, stride=2, data_format='NDHWC')",
  "float32[1,5,7,7,4]", "float32[6,4,3,3,3]", **TOL)
F("conv3d.ndhwc_pairs.float32",
  "F.conv3d(x, y, padding=[[0, 0], [1, 1], [0, 2], [1, 0], [0, 0]], data_format='NDHWC')",
  "float32[1,5,6,6,4]", "float32[6,4,3,3,3]", **TOL)
F("conv3d.ndhwc_groups.float32", "F.conv3d(x, y, z, groups=2, data_format='NDHWC')",
  "float32[1,4,5,5,4]", "float32[4,2,2,2,2]", "float32[4]", grad=True, **TOL)
F("conv3d.float64", "F.conv3d(x, y, z, padding=1, stride=[2, 1, 1])", "float64[1,3,5,5,5]",
  "float64[4,3,3,3,3]", "float64[4]", grad=True)
F("conv3d.bad_channels", "F.conv3d(x, y)", X, "float32[6,3,3,3,3]")
F("conv3d.bad_groups", "F.conv3d(x, y, groups=3)", X, "float32[6,4,3,3,3]")
F("conv3d.zero_groups", "F.conv3d(x, y, groups=0)", X, "float32[6,4,3,3,3]")
F("conv3d.bad_rank", "F.conv3d(x, y)", "float32[2,4,6,6]", "float32[6,4,3,3,3]")
F("conv3d.bad_format", "F.conv3d(x, y, data_format='NCHW')", X, "float32[6,4,3,3,3]")
F("conv3d.bad_padding", "F.conv3d(x, y, padding='FULL')", X, "float32[6,4,3,3,3]")
F("conv3d.bad_pairs", "F.conv3d(x, y, padding=[[1, 1], [0, 0], [1, 1], [1, 1], [1, 1]])",
  X, "float32[6,4,3,3,3]")
F("conv3d.too_small", "F.conv3d(x, y)", "float32[1,4,2,6,6]", "float32[6,4,3,3,3]")
F("conv3d.zero_stride", "F.conv3d(x, y, stride=[1, 0, 1])", X, "float32[6,4,3,3,3]")
F("conv3d.zero_dilation", "F.conv3d(x, y, dilation=0)", X, "float32[6,4,3,3,3]")

# ------------------------------------------------------------------ conv3d_transpose
# weight is [C_in, C_out / groups, k...]
XT = "float32[1,4,2,3,3]"
CONV3DT = {
    "plain": ("", XT, "float32[4,3,3,3,3]"),
    "stride": ("stride=2", XT, "float32[4,3,3,3,3]"),
    "stride_list": ("stride=[1, 2, 2]", XT, "float32[4,3,2,3,3]"),
    "pad": ("padding=1", XT, "float32[4,3,3,3,3]"),
    "pad_list6": ("padding=[1, 0, 0, 1, 1, 1]", XT, "float32[4,3,3,3,3]"),
    "stride_outpad": ("stride=2, padding=1, output_padding=1", XT, "float32[4,3,3,3,3]"),
    "outpad_list": ("stride=[2, 3, 2], output_padding=[1, 2, 0]", XT, "float32[4,3,2,2,2]"),
    "output_size": ("stride=2, padding=1, output_size=[4, 6, 6]", XT, "float32[4,3,3,3,3]"),
    "output_size_int": ("stride=2, output_size=9", "float32[1,4,4,4,4]",
                        "float32[4,3,2,2,2]"),
    "same": ("stride=2, padding='SAME'", XT, "float32[4,3,3,3,3]"),
    "valid": ("stride=2, padding='VALID'", XT, "float32[4,3,3,3,3]"),
    "dilation": ("dilation=2", XT, "float32[4,3,2,2,2]"),
    "groups": ("groups=2", XT, "float32[4,3,2,2,2]"),
    "depthwise": ("groups=4", XT, "float32[4,1,2,3,3]"),
}
for name, (opts, xs, ws) in CONV3DT.items():
    sep = ", " if opts else ""
    cout = int(ws[8:].split(",")[1]) * (2 if "groups=2" in opts else
                                        4 if "groups=4" in opts else 1)
    F(f"conv3d_transpose.{name}.float32", f"F.conv3d_transpose(x, y, z{sep}{opts})", xs, ws,
      f"float32[{cout}]", grad=name in GRAD_FORMS, **TOL)
    F(f"conv3d_transpose.{name}.nobias.float32", f"F.conv3d_transpose(x, y{sep}{opts})",
      xs, ws, **TOL)
F("conv3d_transpose.ndhwc.float32",
  "F.conv3d_transpose(x, y, z, stride=2, data_format='NDHWC')",
  "float32[1,3,4,4,4]", "float32[4,3,3,3,3]", "float32[3]", grad=True, **TOL)
F("conv3d_transpose.ndhwc_groups.float32",
  "F.conv3d_transpose(x, y, z, groups=2, padding=1, data_format='NDHWC')",
  "float32[1,3,4,4,4]", "float32[4,2,3,3,3]", "float32[4]", grad=True, **TOL)
F("conv3d_transpose.float64", "F.conv3d_transpose(x, y, z, stride=2, padding=[0, 1, 1])",
  "float64[1,3,3,3,3]", "float64[3,2,3,3,3]", "float64[2]", grad=True)
F("conv3d_transpose.bad_channels", "F.conv3d_transpose(x, y)", XT, "float32[3,3,3,3,3]")
F("conv3d_transpose.bad_groups", "F.conv3d_transpose(x, y, groups=3)", XT,
  "float32[4,3,3,3,3]")
F("conv3d_transpose.bad_outpad_size",
  "F.conv3d_transpose(x, y, stride=2, output_padding=1, output_size=[8, 10, 10])",
  XT, "float32[4,3,3,3,3]")
F("conv3d_transpose.bad_output_size",
  "F.conv3d_transpose(x, y, stride=2, output_size=[20, 9, 9])", XT, "float32[4,3,3,3,3]")
F("conv3d_transpose.outpad_too_big", "F.conv3d_transpose(x, y, stride=2, output_padding=2)",
  XT, "float32[4,3,3,3,3]")
F("conv3d_transpose.bad_rank", "F.conv3d_transpose(x, y)", "float32[2,4,4,4]",
  "float32[4,3,3,3,3]")
F("conv3d_transpose.bad_weight_rank", "F.conv3d_transpose(x, y)", XT, "float32[4,3,3,3]")
F("conv3d_transpose.bad_format", "F.conv3d_transpose(x, y, data_format='NHWC')", XT,
  "float32[4,3,3,3,3]")

# ------------------------------------------------------------------ conv layers
F("conv3d.layer", "m = paddle.nn.Conv3D(4, 6, 3, padding=1, "
  "weight_attr=paddle.nn.initializer.Constant(0.05), "
  "bias_attr=paddle.nn.initializer.Constant(0.25))\nreturn m(x)", X, modes=LAYER, **TOL)
F("conv3d.layer.set_weights",
  "m = paddle.nn.Conv3D(4, 6, [2, 3, 3], stride=[1, 2, 2], groups=2)\nm.weight.set_value(y)\n"
  "m.bias.set_value(z)\nreturn m(x)", X, "float32[6,2,2,3,3]", "float32[6]",
  modes=("eager",), **TOL)
F("conv3d.layer.ndhwc",
  "m = paddle.nn.Conv3D(4, 2, 2, data_format='NDHWC', bias_attr=False, "
  "weight_attr=paddle.nn.initializer.Constant(0.1))\nreturn m(x)", "float32[1,4,5,5,4]",
  modes=LAYER, **TOL)
F("conv3d.layer.padding_mode",
  "m = paddle.nn.Conv3D(4, 2, 3, padding=1, padding_mode='reflect', "
  "weight_attr=paddle.nn.initializer.Constant(0.1))\nreturn m(x)", X, modes=LAYER, **TOL)
F("conv3d.layer.shapes",
  "m = paddle.nn.Conv3D(4, 6, [1, 2, 3], groups=2)\nreturn [p.shape for p in m.parameters()]",
  modes=("eager",))
F("conv3d_transpose.layer",
  "m = paddle.nn.Conv3DTranspose(4, 3, 3, stride=2, "
  "weight_attr=paddle.nn.initializer.Constant(0.05), "
  "bias_attr=paddle.nn.initializer.Constant(-0.5))\nreturn m(x)", XT, modes=LAYER, **TOL)
F("conv3d_transpose.layer.output_size",
  "m = paddle.nn.Conv3DTranspose(4, 2, 3, stride=2, padding=1, bias_attr=False, "
  "weight_attr=paddle.nn.initializer.Constant(0.1))\nreturn m(x, output_size=[4, 6, 6])",
  XT, modes=LAYER, **TOL)
F("conv3d_transpose.layer.set_weights",
  "m = paddle.nn.Conv3DTranspose(4, 4, 2, groups=2, output_padding=1, stride=2)\n"
  "m.weight.set_value(y)\nm.bias.set_value(z)\nreturn m(x)",
  XT, "float32[4,2,2,2,2]", "float32[4]", modes=("eager",), **TOL)
F("conv3d_transpose.layer.shapes",
  "m = paddle.nn.Conv3DTranspose(4, 6, [1, 2, 3], groups=2)\n"
  "return [p.shape for p in m.parameters()]", modes=("eager",))

# ------------------------------------------------------------------ pooling
# (a case whose code contains "return" anywhere, as in return_mask, is taken as a
# function body by spec.C.body: those spell their ``return`` out)
XP = "float32[1,3,5,6,6]"
POOL3D = {
    "k2": "kernel_size=2",
    "k3s1": "kernel_size=3, stride=1",
    "k3s2p1": "kernel_size=3, stride=2, padding=1",
    "k_list": "kernel_size=[1, 2, 3], stride=[1, 2, 1]",
    "pad_list3": "kernel_size=3, stride=2, padding=[1, 0, 1]",
    "pad_list6": "kernel_size=3, stride=2, padding=[1, 0, 0, 1, 1, 1]",
    "pad_pairs": "kernel_size=2, padding=[[0, 0], [0, 0], [1, 0], [0, 1], [1, 1]]",
    "ceil": "kernel_size=3, stride=2, ceil_mode=True",
    "ceil_pad": "kernel_size=2, stride=2, padding=1, ceil_mode=True",
    "same": "kernel_size=3, stride=2, padding='SAME'",
    "valid": "kernel_size=3, stride=2, padding='VALID'",
}
for name, opts in POOL3D.items():
    F(f"max_pool3d.{name}.float32", f"F.max_pool3d(x, {opts})", XP, grad=True)
    F(f"avg_pool3d.{name}.float32", f"F.avg_pool3d(x, {opts})", XP, grad=True)
F("avg_pool3d.inclusive.float32", "F.avg_pool3d(x, 3, 2, 1, exclusive=False)", XP, grad=True)
F("avg_pool3d.inclusive_ceil.float32",
  "F.avg_pool3d(x, 3, 2, 1, ceil_mode=True, exclusive=False)", "float32[1,3,6,6,6]",
  grad=True)
F("avg_pool3d.divisor.float32", "F.avg_pool3d(x, 2, divisor_override=3)", XP, grad=True)
F("avg_pool3d.ndhwc.float32", "F.avg_pool3d(x, 3, 2, 1, data_format='NDHWC')",
  "float32[1,5,6,6,3]", grad=True)
F("avg_pool3d.float64", "F.avg_pool3d(x, [2, 3, 2], padding=1)", "float64[1,3,5,6,6]",
  grad=True)
F("max_pool3d.ndhwc.float32", "F.max_pool3d(x, 3, 2, 1, data_format='NDHWC')",
  "float32[1,5,6,6,3]", grad=True)
F("max_pool3d.float64", "F.max_pool3d(x, 2, ceil_mode=True)", "float64[1,3,5,6,6]",
  grad=True)
F("max_pool3d.mask.float32", "return F.max_pool3d(x, 2, return_mask=True)", XP, grad=True)
F("max_pool3d.mask_pad.float32", "return F.max_pool3d(x, 3, 2, 1, return_mask=True)", XP,
  grad=True)
F("max_pool3d.mask_rect.float64", "return F.max_pool3d(x, [1, 2, 3], [1, 2, 2], return_mask=True)",
  "float64[1,3,4,6,7]", grad=True)
F("max_pool3d.mask_ndhwc", "return F.max_pool3d(x, 2, return_mask=True, data_format='NDHWC')",
  "float32[1,6,6,6,3]")
F("max_pool3d.valid_ceil", "F.max_pool3d(x, 2, padding='VALID', ceil_mode=True)", XP)
F("max_pool3d.bad_padding", "F.max_pool3d(x, 2, padding='FULL')", XP)
F("max_pool3d.bad_format", "F.max_pool3d(x, 2, data_format='NCHW')", XP)
F("max_pool3d.bad_rank", "F.max_pool3d(x, 2)", "float32[2,3,6,6]")
F("avg_pool3d.bad_rank", "F.avg_pool3d(x, 2)", "float32[3,6,6]")
F("avg_pool3d.bad_format", "F.avg_pool3d(x, 2, data_format='NDHW')", XP)
# a window larger than the input still gives one output (Paddle's C division)
F("max_pool3d.big_kernel.float32", "F.max_pool3d(x, [6, 7, 2])", XP, grad=True)
F("avg_pool3d.big_kernel.float32", "F.avg_pool3d(x, [6, 3, 7], stride=[2, 3, 2])", XP,
  grad=True)
F("avg_pool3d.big_kernel_stride1", "F.avg_pool3d(x, [6, 3, 7], stride=[1, 3, 2])", XP)
F("avg_pool3d.big_kernel_inclusive.float32",
  "F.avg_pool3d(x, 7, stride=2, padding=1, exclusive=False, ceil_mode=True)", XP, grad=True)
F("max_pool3d.big_kernel_mask.float32", "return F.max_pool3d(x, [2, 7, 3], return_mask=True)",
  XP, grad=True)
F("max_pool3d.too_big", "F.max_pool3d(x, 12, stride=2)", XP)
F("max_pool3d.zero_kernel", "F.max_pool3d(x, 0)", XP)
F("max_pool3d.zero_stride", "F.max_pool3d(x, 2, stride=[1, 0, 1])", XP)
F("avg_pool3d.zero_kernel", "F.avg_pool3d(x, [2, 0, 2])", XP)
F("max_pool3d.mask_zero_kernel", "return F.max_pool3d(x, 0, return_mask=True)", XP)
# an adaptive output size 0 gives an empty output, as Paddle's adaptive max pooling
# does (its adaptive avg pooling dies of SIGFPE)
F("adaptive_avg_pool3d.zero", "F.adaptive_avg_pool3d(x, [2, 0, 2])", XP,
  paddle_bug="crashes (SIGFPE) on an adaptive output size 0",
  want="np.zeros((1, 3, 2, 0, 2), 'float32')")
F("adaptive_max_pool3d.zero", "F.adaptive_max_pool3d(x, 0)", XP)
F("adaptive_max_pool3d.zero_dim", "F.adaptive_max_pool3d(x, [0, 2, 2])", XP)
F("max_pool3d.layer", "paddle.nn.MaxPool3D(3, 2, 1)(x)", XP, grad=True)
F("max_pool3d.layer.mask", "return paddle.nn.MaxPool3D(2, return_mask=True)(x)", XP)
F("max_pool3d.layer.ceil_ndhwc", "paddle.nn.MaxPool3D(2, ceil_mode=True, data_format='NDHWC')(x)",
  "float32[1,5,5,5,3]")
F("avg_pool3d.layer", "paddle.nn.AvgPool3D(2, 2, 1, exclusive=False)(x)", XP, grad=True)
F("avg_pool3d.layer.divisor", "paddle.nn.AvgPool3D(2, divisor_override=4)(x)", XP)

ADAPTIVE3D = {"int": "3", "list": "[2, 3, 4]", "one": "1", "none_dim": "[None, 2, None]",
              "same": "[5, 6, 6]", "uneven": "[3, 4, 5]"}
for name, size in ADAPTIVE3D.items():
    F(f"adaptive_avg_pool3d.{name}.float32", f"F.adaptive_avg_pool3d(x, {size})", XP,
      grad=True)
    F(f"adaptive_max_pool3d.{name}.float32", f"F.adaptive_max_pool3d(x, {size})", XP,
      grad=True)
F("adaptive_avg_pool3d.ndhwc.float32", "F.adaptive_avg_pool3d(x, [2, 3, 4], "
  "data_format='NDHWC')", "float32[1,5,6,6,3]", grad=True)
F("adaptive_avg_pool3d.float64", "F.adaptive_avg_pool3d(x, 2)", "float64[1,3,5,6,6]",
  grad=True)
F("adaptive_max_pool3d.mask.float32",
  "return F.adaptive_max_pool3d(x, [2, 3, 4], return_mask=True)",
  XP, grad=True)
F("adaptive_max_pool3d.mask_uneven.float32", "return F.adaptive_max_pool3d(x, 4, return_mask=True)",
  XP)
F("adaptive_max_pool3d.float64", "F.adaptive_max_pool3d(x, [3, 2, 2])", "float64[1,3,5,6,6]",
  grad=True)
F("adaptive_avg_pool3d.bad_format", "F.adaptive_avg_pool3d(x, 2, data_format='NCHW')", XP)
F("adaptive_max_pool3d.bad_rank", "F.adaptive_max_pool3d(x, 2)", "float32[3,6,6,6]")
F("adaptive_avg_pool3d.layer", "paddle.nn.AdaptiveAvgPool3D([2, None, 3])(x)", XP,
  grad=True)
F("adaptive_avg_pool3d.layer.ndhwc",
  "paddle.nn.AdaptiveAvgPool3D(2, data_format='NDHWC')(x)", "float32[1,5,6,6,3]")
F("adaptive_max_pool3d.layer", "paddle.nn.AdaptiveMaxPool3D(3)(x)", XP, grad=True)
F("adaptive_max_pool3d.layer.mask", "return paddle.nn.AdaptiveMaxPool3D([2, 3, 3], "
  "return_mask=True)(x)", XP)

# interpolate's 'area' mode on 5-D inputs is adaptive_avg_pool3d; max_unpool3d inverts
# max_pool3d's mask
F("interpolate.area.3d.float32", "F.interpolate(x, size=[2, 4, 3], mode='area')", XP,
  grad=True)
F("max_unpool3d.roundtrip.float32",
  "out, mask = F.max_pool3d(x, 2, return_mask=True)\nreturn F.max_unpool3d(out, mask, 2)",
  "float32[1,3,4,6,6]", grad=True)

# ------------------------------------------------------------------ local_response_norm
LRN = {
    "ncl": ("size=3", "float32[2,6,5]"),
    "ncl_even": ("size=4, data_format='NCL'", "float32[2,6,5]"),
    "nlc": ("size=3, data_format='NLC'", "float32[2,5,6]"),
    "nchw": ("size=5", "float32[2,7,4,5]"),
    "nchw_even": ("size=2, alpha=0.1, beta=0.5, k=2.0", "float32[2,5,3,4]"),
    "nhwc": ("size=3, alpha=0.01, data_format='NHWC'", "float32[2,4,5,6]"),
    "ncdhw": ("size=4, alpha=0.2, beta=0.6, k=1.5, data_format='NCDHW'",
              "float32[1,6,3,4,4]"),
    "ndhwc": ("size=3, data_format='NDHWC'", "float32[1,3,4,4,6]"),
    "size1": ("size=1, alpha=0.5", "float32[2,4,3,3]"),
    "big_size": ("size=9, alpha=0.3", "float32[2,4,3,3]"),
}
for name, (opts, xs) in LRN.items():
    F(f"local_response_norm.{name}.float32", f"F.local_response_norm(x, {opts})", xs,
      grad=True, **TOL)
F("local_response_norm.float64", "F.local_response_norm(x, 3, alpha=0.1)",
  "float64[2,5,4,4]", grad=True)
F("local_response_norm.bad_format", "F.local_response_norm(x, 3, data_format='NWC')",
  "float32[2,5,4]")
F("local_response_norm.rank2", "F.local_response_norm(x, 3)", "float32[4,5]")
F("local_response_norm.size0", "F.local_response_norm(x, 0)", "float32[2,5,4,4]")
F("local_response_norm.layer", "paddle.nn.LocalResponseNorm(3, alpha=0.1, k=2.0)(x)",
  "float32[2,5,4,4]", grad=True, **TOL)
F("local_response_norm.layer.ndhwc",
  "paddle.nn.LocalResponseNorm(4, beta=0.5, data_format='NDHWC')(x)", "float32[1,3,3,3,5]",
  **TOL)
F("local_response_norm.layer.repr",
  "return str(paddle.nn.LocalResponseNorm(3, data_format='NHWC'))",
  modes=("eager",))
