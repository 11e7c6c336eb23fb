"""``paddle.nn.functional`` (and their layers), more of it: the in-place
hardtanh_ / leaky_relu_ / thresholded_relu_ (eager only: Paddle 2.6 returns
None from them in static mode), glu, maxout, rrelu, zeropad2d,
pixel_unshuffle, channel_shuffle, pairwise_distance, sequence_mask,
temporal_shift, bilinear, gumbel_softmax (random: properties), affine_grid,
max_unpool1d/2d/3d, unfold, fold, and the layers GLU, Maxout, RReLU,
PixelUnshuffle, ChannelShuffle, Unflatten, PairwiseDistance, Bilinear,
MaxUnPool1D/2D/3D, Unfold, Fold."""
from spec import C

CASES = []


def F(id, code, *args, **kw):
    """A case over ``F.<fn>``: ``F.`` is paddle.nn.functional."""
    CASES.append(C(id, code.replace("F.", "paddle.nn.functional."), *args, **kw))


X4D = "float32[2,4,4,6]"

# ------------------------------------------------------------------ in-place activations
INPLACE = {"hardtanh_": "F.hardtanh_(x)", "hardtanh_.range": "F.hardtanh_(x, -0.5, 0.3)",
           "leaky_relu_": "F.leaky_relu_(x)", "leaky_relu_.slope": "F.leaky_relu_(x, 0.2)",
           "thresholded_relu_": "F.thresholded_relu_(x)",
           "thresholded_relu_.threshold": "F.thresholded_relu_(x, threshold=0.4)"}
for name, call in INPLACE.items():
    F(f"{name}.float32", call, "float32[3,4]", modes=("eager",))
    F(f"{name}.returns_x.float32", f"y = {call}\nreturn x", "float32[3,4]", modes=("eager",))
    F(f"{name}.float64", call, "float64[3,4]", modes=("eager",))

# ------------------------------------------------------------------ glu
F("glu.float32", "F.glu(x)", "float32[3,4]", grad=True)
F("glu.float64", "F.glu(x)", "float64[3,4]", grad=True)
F("glu.axis0", "F.glu(x, axis=0)", "float32[4,3]", grad=True)
F("glu.axis1.3d", "F.glu(x, 1)", "float32[2,6,3]", grad=True)
F("glu.bad_axis", "F.glu(x, axis=2)", "float32[3,4]")
F("glu.odd", "F.glu(x)", "float32[3,5]")
F("glu.int", "F.glu(x)", "int32[3,4]")
F("glu.layer", "paddle.nn.GLU()(x)", "float32[3,4]", grad=True)
F("glu.layer.axis", "paddle.nn.GLU(axis=0)(x)", "float32[4,3]")

# ------------------------------------------------------------------ maxout
F("maxout.float32", "F.maxout(x, groups=2)", X4D, grad=True)
F("maxout.float64", "F.maxout(x, 2)", "float64[2,4,4,6]", grad=True)
F("maxout.groups4", "F.maxout(x, groups=4, axis=1)", X4D, grad=True)
F("maxout.nhwc", "F.maxout(x, groups=3, axis=-1)", X4D, grad=True)
F("maxout.axis3", "F.maxout(x, groups=2, axis=3)", X4D)
F("maxout.bad_axis", "F.maxout(x, groups=2, axis=2)", X4D)
F("maxout.layer", "paddle.nn.Maxout(groups=2)(x)", X4D)
F("maxout.layer.nhwc", "paddle.nn.Maxout(2, axis=-1)(x)", X4D)

# ------------------------------------------------------------------ zeropad2d
F("zeropad2d.float32", "F.zeropad2d(x, [1, 2, 0, 1])", "float32[2,3,4,4]", grad=True)
F("zeropad2d.float64", "F.zeropad2d(x, [1, 1, 1, 1])", "float64[2,3,4,4]")
F("zeropad2d.int", "F.zeropad2d(x, 1)", "int64[1,2,3,3]")
F("zeropad2d.nhwc", "F.zeropad2d(x, [0, 1, 2, 0], data_format='NHWC')", "float32[2,4,4,3]",
  grad=True)

# ------------------------------------------------------------------ pixel_unshuffle
F("pixel_unshuffle.float32", "F.pixel_unshuffle(x, 2)", X4D, grad=True)
F("pixel_unshuffle.float64", "F.pixel_unshuffle(x, 2)", "float64[2,4,4,6]", grad=True)
F("pixel_unshuffle.nhwc", "F.pixel_unshuffle(x, 2, data_format='NHWC')", "float32[2,4,6,3]",
  grad=True)
F("pixel_unshuffle.factor3", "F.pixel_unshuffle(x, downscale_factor=3)", "float32[1,2,3,6]")
F("pixel_unshuffle.not_int", "F.pixel_unshuffle(x, 2.0)", X4D)
F("pixel_unshuffle.negative", "F.pixel_unshuffle(x, -1)", X4D)
F("pixel_unshuffle.rank3", "F.pixel_unshuffle(x, 2)", "float32[4,4,6]")
F("pixel_unshuffle.bad_format", "F.pixel_unshuffle(x, 2, 'NCDHW')", X4D)
F("pixel_unshuffle.layer", "paddle.nn.PixelUnshuffle(2)(x)", X4D)
F("pixel_unshuffle.layer.nhwc", "paddle.nn.PixelUnshuffle(2, 'NHWC')(x)", "float32[1,4,6,2]")

# ------------------------------------------------------------------ channel_shuffle
F("channel_shuffle.float32", "F.channel_shuffle(x, 2)", "float32[2,6,3,3]", grad=True)
F("channel_shuffle.float64", "F.channel_shuffle(x, 3)", "float64[2,6,3,3]", grad=True)
F("channel_shuffle.nhwc", "F.channel_shuffle(x, 3, data_format='NHWC')", "float32[2,3,3,6]",
  grad=True)
F("channel_shuffle.not_int", "F.channel_shuffle(x, 2.0)", "float32[2,6,3,3]")
F("channel_shuffle.zero", "F.channel_shuffle(x, 0)", "float32[2,6,3,3]")
F("channel_shuffle.rank3", "F.channel_shuffle(x, 2)", "float32[6,3,3]")
F("channel_shuffle.layer", "paddle.nn.ChannelShuffle(3)(x)", "float32[2,6,3,3]")
F("channel_shuffle.layer.nhwc", "paddle.nn.ChannelShuffle(2, 'NHWC')(x)", "float32[2,3,3,6]")

# ------------------------------------------------------------------ pairwise_distance
F("pairwise_distance.float32", "F.pairwise_distance(x, y)", "float32[4,5]", "float32[4,5]",
  grad=True)
F("pairwise_distance.float64", "F.pairwise_distance(x, y)", "float64[4,5]", "float64[4,5]",
  grad=True)
F("pairwise_distance.1d", "F.pairwise_distance(x, y)", "float32[5]", "float32[5]")
F("pairwise_distance.p1", "F.pairwise_distance(x, y, p=1)", "float32[4,5]", "float32[4,5]",
  grad=True)
F("pairwise_distance.p3_keepdim", "F.pairwise_distance(x, y, p=3.0, keepdim=True)",
  "float32[4,5]", "float32[4,5]", grad=True)
F("pairwise_distance.inf", "F.pairwise_distance(x, y, p=float('inf'))", "float32[4,5]",
  "float32[4,5]")
F("pairwise_distance.no_eps", "F.pairwise_distance(x, y, epsilon=0.0)", "float32[4,5]",
  "float32[4,5]")
F("pairwise_distance.broadcast", "F.pairwise_distance(x, y)", "float32[4,5]", "float32[5]")
F("pairwise_distance.int", "F.pairwise_distance(x, y)", "int32[4,5]", "int32[4,5]")
F("pairwise_distance.layer", "paddle.nn.PairwiseDistance()(x, y)", "float32[4,5]",
  "float32[4,5]")
F("pairwise_distance.layer.options",
  "paddle.nn.PairwiseDistance(p=1.5, epsilon=1e-3, keepdim=True)(x, y)",
  "float64[4,5]", "float64[4,5]")

# ------------------------------------------------------------------ Unflatten
F("unflatten.layer", "paddle.nn.Unflatten(1, [2, 3])(x)", "float32[4,6,8]", grad=True)
F("unflatten.layer.neg_axis", "paddle.nn.Unflatten(-1, (2, -1))(x)", "float32[4,6,8]")
F("unflatten.layer.int", "paddle.nn.Unflatten(0, [2, 2])(x)", "int64[4,3]")

# integer inputs: the kernels are float only
F("maxout.int", "F.maxout(x, 2)", "int32[1,4,2,2]")
F("pixel_unshuffle.int", "F.pixel_unshuffle(x, 2)", "int64[1,1,2,2]")
F("channel_shuffle.int", "F.channel_shuffle(x, 2)", "int32[1,4,2,2]")

# ------------------------------------------------------------------ rrelu
# training draws the negative slopes: the case checks they lie in [lower, upper]
F("rrelu.eval.float32", "F.rrelu(x, training=False)", "float32[3,4]", grad=True)
F("rrelu.eval.float64", "F.rrelu(x, 0.2, 0.4, False)", "float64[3,4]", grad=True)
F("rrelu.eval.bounds", "F.rrelu(x, lower=0.0, upper=1.0, training=False)", "float32[3,4]")
F("rrelu.train.in_range",
  "y = F.rrelu(x, 0.1, 0.3)\nr = y / x\n"
  "return paddle.logical_or(r == 1.0, paddle.logical_and(r >= 0.0999, r <= 0.3001)).all()",
  "float32[6,5]")
F("rrelu.train.positive_kept", "F.rrelu(x)", "float32[3,4]|pos")
F("rrelu.bad_type", "F.rrelu(x, lower=0, upper=1)", "float32[3,4]")
F("rrelu.bad_lower", "F.rrelu(x, lower=-0.1)", "float32[3,4]")
F("rrelu.bad_order", "F.rrelu(x, lower=0.5, upper=0.2)", "float32[3,4]")
F("rrelu.bad_upper", "F.rrelu(x, lower=0.5, upper=1.5)", "float32[3,4]")
F("rrelu.int", "F.rrelu(x, training=False)", "int32[3,4]")
F("rrelu.layer.eval", "m = paddle.nn.RReLU(0.1, 0.3)\nm.eval()\nreturn m(x)", "float32[3,4]")
F("rrelu.layer.train_positive", "paddle.nn.RReLU()(x)", "float32[3,4]|pos")

# ------------------------------------------------------------------ sequence_mask
F("sequence_mask.int64", "F.sequence_mask(x)", "int64[4]|idx6")
F("sequence_mask.maxlen", "F.sequence_mask(x, maxlen=7)", "int64[4]|idx6")
F("sequence_mask.dtype_float", "F.sequence_mask(x, 5, dtype='float32')", "int64[2,3]|idx5")
F("sequence_mask.dtype_bool", "F.sequence_mask(x, 4, 'bool')", "int32[3]|idx5")
F("sequence_mask.int32_in", "F.sequence_mask(x, 6, dtype='int32')", "int32[2,2]|idx6")
F("sequence_mask.maxlen_tensor", "F.sequence_mask(x, paddle.to_tensor([5], dtype='int32'))", "int64[3]|idx5",
  modes=("eager",))
F("sequence_mask.stop_gradient", "F.sequence_mask(x, 3).stop_gradient", "int64[3]|idx3",
  modes=("eager",))

# ------------------------------------------------------------------ temporal_shift
F("temporal_shift.float32", "F.temporal_shift(x, seg_num=2)", "float32[4,8,2,2]", grad=True)
F("temporal_shift.float64", "F.temporal_shift(x, 3, 0.2)", "float64[6,5,2,3]", grad=True)
F("temporal_shift.ratio", "F.temporal_shift(x, 2, shift_ratio=0.4)", "float32[4,5,3,2]",
  grad=True)
F("temporal_shift.nhwc", "F.temporal_shift(x, 2, data_format='NHWC')", "float32[4,2,2,8]",
  grad=True)
F("temporal_shift.bad_format", "F.temporal_shift(x, 2, data_format='NCL')", "float32[4,8,2,2]")
F("temporal_shift.int", "F.temporal_shift(x, 2)", "int32[4,8,2,2]")

# ------------------------------------------------------------------ bilinear
F("bilinear.float32", "F.bilinear(x, y, z, w)", "float32[3,4]", "float32[3,5]",
  "float32[2,4,5]", "float32[1,2]", grad=True, rtol=1e-5, atol=1e-5)
F("bilinear.float64", "F.bilinear(x, y, z, w)", "float64[3,4]", "float64[3,5]",
  "float64[2,4,5]", "float64[1,2]", grad=True)
F("bilinear.no_bias", "F.bilinear(x, y, z)", "float32[3,4]", "float32[3,5]",
  "float32[6,4,5]", grad=True, atol=1e-5)
F("bilinear.no_bias.kw", "F.bilinear(x1=x, x2=y, weight=z, bias=None)", "float64[2,3]",
  "float64[2,2]", "float64[1,3,2]")
F("bilinear.bad_width", "F.bilinear(x, y, z)", "float32[3,4]", "float32[3,5]",
  "float32[2,4,6]")
F("bilinear.layer",
  "m = paddle.nn.Bilinear(4, 5, 3, weight_attr=paddle.nn.initializer.Constant(0.5), "
  "bias_attr=paddle.nn.initializer.Constant(0.25))\nreturn m(x, y)",
  "float32[2,4]", "float32[2,5]", atol=1e-5, modes=("eager", "static"))
F("bilinear.layer.no_bias",
  "m = paddle.nn.Bilinear(4, 5, 3, weight_attr=paddle.nn.initializer.Constant(0.5), "
  "bias_attr=False)\nreturn m(x, y)",
  "float32[2,4]", "float32[2,5]", atol=1e-5, modes=("eager", "static"))
F("bilinear.layer.shapes",
  "m = paddle.nn.Bilinear(4, 5, 3)\nreturn [p.shape for p in m.parameters()]",
  modes=("eager",))

# ------------------------------------------------------------------ gumbel_softmax
# random: the cases check the properties of the samples, and the gradient
# (softmax's, from the sample) through a fixed weighting
F("gumbel_softmax.sums_to_one",
  "y = F.gumbel_softmax(x)\nreturn (y.sum(-1) - 1.0).abs().max() < 1e-5", "float32[4,6]")
F("gumbel_softmax.axis0.sums",
  "y = F.gumbel_softmax(x, temperature=0.5, axis=0)\nreturn (y.sum(0) - 1.0).abs().max() < 1e-5",
  "float64[4,6]")
F("gumbel_softmax.hard.one_hot",
  "y = F.gumbel_softmax(x, hard=True)\nreturn y.sum(-1), y.max(-1), y.dtype == x.dtype",
  "float32[3,5]")
F("gumbel_softmax.shape", "F.gumbel_softmax(x, 2.0, False, 1).shape", "float32[2,3,4]")
F("gumbel_softmax.grad_rule",
  "x.stop_gradient = False\ny = F.gumbel_softmax(x, temperature=0.5)\n"
  "(y * y.detach()).sum().backward()\n"
  "want = y * (y - (y * y).sum(-1, keepdim=True))\n"
  "return (x.grad - want).abs().max() < 1e-6", "float32[3,4]", modes=("eager",))
F("gumbel_softmax.hard.zero_grad",
  "x.stop_gradient = False\ny = F.gumbel_softmax(x, hard=True)\n"
  "(y * paddle.arange(4, dtype='float32')).sum().backward()\nreturn x.grad",
  "float32[3,4]", modes=("eager",))
F("gumbel_softmax.int", "F.gumbel_softmax(x)", "int32[3,4]")

# ------------------------------------------------------------------ affine_grid
F("affine_grid.float32", "F.affine_grid(x, [2, 3, 4, 5])", "float32[2,2,3]", grad=True)
F("affine_grid.float64", "F.affine_grid(x, (2, 1, 3, 3), align_corners=False)",
  "float64[2,2,3]", grad=True)
F("affine_grid.unaligned", "F.affine_grid(x, [1, 2, 4, 6], False)", "float32[1,2,3]", grad=True)
F("affine_grid.3d", "F.affine_grid(x, [2, 1, 2, 3, 4])", "float32[2,3,4]", grad=True)
F("affine_grid.3d.unaligned", "F.affine_grid(x, [1, 1, 3, 2, 2], align_corners=False)",
  "float64[1,3,4]", grad=True)
F("affine_grid.shape_tensor",
  "F.affine_grid(x, paddle.to_tensor([2, 1, 3, 4], dtype='int32'))", "float32[2,2,3]",
  modes=("eager",))
F("affine_grid.not_tensor", "F.affine_grid(x.numpy(), [2, 1, 3, 4])", "float32[2,2,3]",
  modes=("eager",))
F("affine_grid.int", "F.affine_grid(x, [1, 1, 2, 2])", "int32[1,2,3]")

# ------------------------------------------------------------------ max unpooling
# the indices come from max_pool*d(return_mask=True) inside the case
UNPOOL2 = "o, i = F.max_pool2d(x, {pool}, return_mask=True)\nreturn F.max_unpool2d(o, i, {args})"
F("max_unpool2d.float32", UNPOOL2.format(pool="2, 2", args="2"), "float32[2,3,6,6]",
  grad=True)
F("max_unpool2d.float64", UNPOOL2.format(pool="2, 2", args="kernel_size=2, stride=2"),
  "float64[1,2,4,6]", grad=True)
F("max_unpool2d.output_size", UNPOOL2.format(pool="2, 2", args="2, output_size=[7, 7]"),
  "float32[1,1,6,6]", grad=True)
F("max_unpool2d.output_size4",
  UNPOOL2.format(pool="2, 2", args="2, output_size=[1, 1, 5, 7]"), "float32[1,1,4,6]")
F("max_unpool2d.stride_pad",
  UNPOOL2.format(pool="3, 2, padding=1", args="3, 2, padding=1"), "float32[1,2,5,5]")
F("max_unpool2d.bad_output_size", UNPOOL2.format(pool="2, 2", args="2, output_size=[9, 9]"),
  "float32[1,1,6,6]")
F("max_unpool2d.bad_rank", "F.max_unpool2d(x, y, 2)", "float32[1,4,4]", "int32[1,4,4]|idx4")
F("max_unpool2d.bad_format", UNPOOL2.format(pool="2, 2", args="2, data_format='NHWC'"),
  "float32[1,1,4,4]")
F("max_unpool2d.layer",
  "o, i = F.max_pool2d(x, 2, return_mask=True)\nreturn paddle.nn.MaxUnPool2D(2)(o, i)",
  "float32[1,2,4,4]")
UNPOOL1 = "o, i = F.max_pool1d(x, {pool}, return_mask=True)\nreturn F.max_unpool1d(o, i, {args})"
F("max_unpool1d.float32", UNPOOL1.format(pool="2, 2", args="2"), "float32[2,3,8]", grad=True)
F("max_unpool1d.float64", UNPOOL1.format(pool="2", args="2, stride=2"), "float64[1,2,6]",
  grad=True)
F("max_unpool1d.output_size", UNPOOL1.format(pool="2, 2", args="2, output_size=[9]"),
  "float32[1,2,8]")
F("max_unpool1d.bad_format", UNPOOL1.format(pool="2, 2", args="2, data_format='NLC'"),
  "float32[1,2,8]")
F("max_unpool1d.layer",
  "o, i = F.max_pool1d(x, 2, return_mask=True)\nreturn paddle.nn.MaxUnPool1D(2)(o, i)",
  "float32[1,2,8]")

# ------------------------------------------------------------------ unfold / fold
F("unfold.float32", "F.unfold(x, 2)", "float32[2,3,4,5]", grad=True)
F("unfold.float64", "F.unfold(x, [2, 3], strides=2, paddings=1, dilations=1)",
  "float64[1,2,5,6]", grad=True)
F("unfold.pad4_dilation", "F.unfold(x, [3, 2], [1, 2], [1, 0, 2, 1], [2, 1])",
  "float32[2,2,6,5]", grad=True)
F("unfold.pad2", "F.unfold(x, 2, paddings=[1, 0])", "float32[1,2,3,4]")
F("unfold.bad_rank", "F.unfold(x, 2)", "float32[3,4,5]")
F("unfold.bad_kernel", "F.unfold(x, [2, 2, 2])", "float32[1,2,4,4]")
F("unfold.bad_pad", "F.unfold(x, 2, paddings=[1, 1, 1])", "float32[1,2,4,4]")
F("unfold.int", "F.unfold(x, 2)", "int32[1,2,4,4]")
F("unfold.layer", "paddle.nn.Unfold(kernel_sizes=[2, 2], strides=2)(x)", "float32[1,3,4,4]")
F("fold.float32", "F.fold(x, [4, 5], 2)", "float32[2,12,12]", grad=True)
F("fold.float64", "F.fold(x, 4, [2, 2], strides=2)", "float64[1,8,4]", grad=True)
F("fold.pad_dilation", "F.fold(x, [5, 6], [3, 2], strides=[2, 1], paddings=[1, 0, 1, 0], "
  "dilations=[1, 2])", "float32[1,12,12]", grad=True)
F("fold.pad_inconsistent", "F.fold(x, [5, 6], [3, 2], strides=[2, 1], paddings=[1, 0, 2, 1], "
  "dilations=[1, 2])", "float32[1,12,12]")
F("fold.pad4", "F.fold(x, [4, 5], 2, paddings=[1, 0, 0, 1])", "float32[1,8,20]")
F("fold.pad2", "F.fold(x, [3, 4], 2, paddings=[1, 0])", "float32[1,8,12]")
F("fold.tuple_pad", "F.fold(x, [4, 5], 2, paddings=(0, 0))", "float32[2,12,12]")
F("fold.bad_rank", "F.fold(x, [4, 5], 2)", "float32[2,12,12,1]")
F("fold.bad_blocks", "F.fold(x, [4, 5], 2)", "float32[2,12,10]")
F("fold.layer", "paddle.nn.Fold([4, 5], 2)(x)", "float32[2,12,12]")
# max_unpool3d: one index per 2x2x2 window (no max_pool3d here), built in the case
IDX3 = ("i = paddle.to_tensor([[[[[0, 3], [12, 15]], [[32, 35], [44, 47]]]]], dtype='int32')"
        ".tile([{n}, {c}, 1, 1, 1])\n")
F("max_unpool3d.float32", IDX3.format(n=2, c=3) + "return F.max_unpool3d(x, i, 2)",
  "float32[2,3,2,2,2]", grad=True)
F("max_unpool3d.float64", IDX3.format(n=1, c=2) + "return F.max_unpool3d(x, i, 2, stride=2)",
  "float64[1,2,2,2,2]", grad=True)
F("max_unpool3d.output_size",
  IDX3.format(n=1, c=1) + "return F.max_unpool3d(x, i, 2, output_size=[5, 4, 5])",
  "float32[1,1,2,2,2]")
F("max_unpool3d.bad_rank", "F.max_unpool3d(x, y, 2)", "float32[1,2,2,2]", "int32[1,2,2,2]|idx4")
F("max_unpool3d.bad_format",
  IDX3.format(n=1, c=1) + "return F.max_unpool3d(x, i, 2, data_format='NDHWC')",
  "float32[1,1,2,2,2]")
F("max_unpool3d.layer", IDX3.format(n=1, c=2) + "return paddle.nn.MaxUnPool3D(2)(x, i)",
  "float32[1,2,2,2,2]")
