"""``paddle.static.nn`` builders row_conv, data_norm, nce and deform_conv2d, and
``paddle.static.ctr_metric_bundle``: static mode only (they build Programs).
Parameters get Constant/Assign initializers so the values are Paddle's; nce's
weights are zero, which makes its cost independent of the sampled negatives
under the uniform and (uniform) custom samplers.  sparse_embedding is not
here: on one process Paddle's lookup_table over its SELECTED_ROWS table raises
NotFound, sampan's dense table runs (tests/static/test_static_nn_builders.py)."""
from spec import C

CASES = []
S = ("static",)


def N(id, code, *args, **kw):
    """A case over ``N.<builder>``: ``N.`` is paddle.static.nn."""
    kw.setdefault("modes", S)
    CASES.append(C(id, code.replace("N.", "paddle.static.nn."), *args, **kw))


def assign(shape, lo=-1.0, hi=1.0):
    """A ParamAttr with an Assign initializer of evenly spaced values."""
    n = 1
    for d in shape:
        n *= d
    return (f"paddle.ParamAttr(initializer=paddle.nn.initializer.Assign("
            f"np.linspace({lo}, {hi}, {n}).reshape({list(shape)}).astype('float32')))")


def const(v):
    return f"paddle.ParamAttr(initializer=paddle.nn.initializer.Constant({v}))"


# ------------------------------------------------------------------ row_conv
N("row_conv.3d", f"N.row_conv(x, 2, param_attr={assign([3, 4])})", "float32[2,5,4]")
N("row_conv.act", f"N.row_conv(x, 1, param_attr={assign([2, 3])}, act='relu')",
  "float32[3,4,3]")
N("row_conv.long_context", f"N.row_conv(x, 4, param_attr={assign([5, 2])})", "float32[1,3,2]")
N("row_conv.float64", "N.row_conv(x, 2)", "float64[2,5,4]")

# ------------------------------------------------------------------ data_norm
N("data_norm.default", "N.data_norm(x)", "float32[6,5]")
N("data_norm.dict_init", "N.data_norm(x, param_attr={'batch_size': 3.0, 'batch_sum': 1.5, "
  "'batch_square': 2.0}, epsilon=1e-4)", "float32[6,5]")
N("data_norm.scale_shift", "N.data_norm(x, param_attr={'batch_size': 3.0, 'batch_sum': 1.5, "
  "'batch_square': 2.0, 'scale_w': 0.5, 'bias': 0.25}, enable_scale_and_shift=True)",
  "float32[6,5]")
N("data_norm.slot_dim", "N.data_norm(x * paddle.cast(y, 'float32'), param_attr="
  "{'batch_size': 3.0, 'batch_sum': 1.5, 'batch_square': 2.0}, slot_dim=2)",
  "float32[6,4]", "int32[6,4]|unit")
N("data_norm.slot_dim.scale_shift", "N.data_norm(x * paddle.cast(y, 'float32'), param_attr="
  "{'batch_size': 3.0, 'batch_sum': 1.5, 'batch_square': 2.0, 'scale_w': 2.0, 'bias': 0.5},"
  " slot_dim=2, enable_scale_and_shift=True)", "float32[6,4]", "int32[6,4]|unit")
N("data_norm.nhwc", "N.data_norm(x, data_layout='NHWC', act='tanh')", "float32[4,3]")
N("data_norm.train_summaries",
  "y = N.data_norm(x, param_attr={'batch_size': 2.0, 'batch_sum': 1.0, 'batch_square': 3.0})\n"
  "paddle.optimizer.SGD(0.1).minimize(paddle.sum(y * y))\n"
  "b = paddle.static.default_main_program().global_block()\n"
  "return y, b.var('dn.batch_size'), b.var('dn.batch_sum'), b.var('dn.batch_square_sum')",
  "float32[4,3]")
# x needs a gradient: Paddle's CPU data_norm_grad computes scale_w@GRAD and
# bias@GRAD only together with X@GRAD (without it, sgd finds scale_w@GRAD unset)
N("data_norm.train_scale_shift",
  "x.stop_gradient = False\n"
  "y = N.data_norm(x, param_attr={'scale_w': 1.5, 'bias': 0.2, 'batch_size': 2.0}, "
  "enable_scale_and_shift=True)\n"
  "paddle.optimizer.SGD(0.1).minimize(paddle.mean(y * y))\n"
  "b = paddle.static.default_main_program().global_block()\n"
  "return y, b.var('dn.scale_w'), b.var('dn.bias'), b.var('dn.batch_sum')",
  "float32[5,3]")
N("data_norm.rank1", "N.data_norm(x)", "float32[5]")
N("data_norm.bad_layout", "N.data_norm(x, data_layout='NCDHW')", "float32[5,3]")

# ------------------------------------------------------------------ nce
# zero weights: every sampled logit is sigmoid(0), so with a uniform q the cost
# is the same whatever negatives are drawn
N("nce.uniform", f"N.nce(x, y, 6, param_attr={const(0.0)}, num_neg_samples=3)",
  "float32[4,3]", "int64[4,1]|idx6")
N("nce.two_true.weighted", f"N.nce(x, y, 8, sample_weight=z, param_attr={const(0.0)}, "
  "num_neg_samples=5, seed=3)", "float32[4,3]", "int64[4,2]|idx8", "float32[4,1]|pos")
N("nce.custom_dist", f"N.nce(x, y, 4, param_attr={const(0.0)}, bias_attr=False, "
  "num_neg_samples=2, sampler='custom_dist', custom_dist=[0.25, 0.25, 0.25, 0.25])",
  "float64[3,2]", "int64[3,1]|idx4")
N("nce.train", f"c = N.nce(x, y, 6, param_attr={const(0.0)}, num_neg_samples=3)\n"
  "loss = paddle.mean(c)\npaddle.optimizer.SGD(0.1).minimize(loss)\nreturn loss",
  "float32[4,3]", "int64[4,1]|idx6")
N("nce.bad_sampler", "N.nce(x, y, 6, sampler='zipf')", "float32[4,3]", "int64[4,1]|idx6")
N("nce.rank3", "N.nce(x, y, 6)", "float32[4,3,2]", "int64[4,1]|idx6")
N("nce.int32_label", "N.nce(x, y, 6)", "float32[4,3]", "int32[4,1]|idx6")

# ------------------------------------------------------------------ deform_conv2d
ATOL = dict(rtol=1e-5, atol=1e-5)
N("deform_conv2d.mask", f"N.deform_conv2d(x, y, z, 4, 3, padding=1, groups=2, "
  f"weight_attr={assign([4, 2, 3, 3])}, bias_attr={const(0.1)})",
  "float32[2,4,5,5]", "float32[2,18,5,5]|any", "float32[2,9,5,5]|pos", **ATOL)
N("deform_conv2d.v1", f"N.deform_conv2d(x, y, None, 3, 3, padding=1, "
  f"weight_attr={assign([3, 2, 3, 3])})",
  "float32[2,2,4,4]", "float32[2,18,4,4]|any", **ATOL)
N("deform_conv2d.deformable_groups", f"N.deform_conv2d(x, y, z, 2, [2, 3], stride=[2, 1], "
  f"dilation=[1, 2], padding=[1, 2], deformable_groups=2, weight_attr={assign([2, 4, 2, 3])},"
  f" bias_attr=False)",
  "float32[1,4,5,6]", "float32[1,24,3,6]|any", "float32[1,12,3,6]|pos", **ATOL)
N("deform_conv2d.float64", f"N.deform_conv2d(x, y, z, 2, 2, weight_attr={assign([2, 2, 2, 2])})",
  "float64[1,2,3,3]", "float64[1,8,2,2]|any", "float64[1,4,2,2]|pos")
# every input needs a gradient: Paddle's deformable_conv_grad InferShape crashes
# (SIGSEGV) on an absent Input@GRAD / Offset@GRAD / Mask@GRAD
N("deform_conv2d.train",
  "x.stop_gradient = False\ny.stop_gradient = False\nz.stop_gradient = False\n"
  f"out = N.deform_conv2d(x, y, z, 2, 3, padding=1, weight_attr={assign([2, 2, 3, 3])})\n"
  "loss = paddle.mean(out * out)\npaddle.optimizer.SGD(0.1).minimize(loss)\n"
  "return [loss] + paddle.static.default_main_program().all_parameters()",
  "float32[1,2,4,4]", "float32[1,18,4,4]|any", "float32[1,9,4,4]|pos", **ATOL)
N("deform_conv2d.bad_groups", "N.deform_conv2d(x, y, None, 4, 3, padding=1, groups=2)",
  "float32[1,3,4,4]", "float32[1,18,4,4]")
N("deform_conv2d.bad_offset", "N.deform_conv2d(x, y, None, 4, 3, padding=1)",
  "float32[1,2,4,4]", "float32[1,16,4,4]")
N("deform_conv2d.rank3", "N.deform_conv2d(x, y, None, 4, 3)", "float32[2,4,4]",
  "float32[1,18,2,2]")

# ------------------------------------------------------------------ ctr_metric_bundle
CASES.append(C("ctr_metric_bundle.weighted", "paddle.static.ctr_metric_bundle(x, y, z)",
               "float32[5,1]|pos", "float32[5,1]|unit", "float32[1,1]|pos", modes=S))
CASES.append(C("ctr_metric_bundle.default_weight", "paddle.static.ctr_metric_bundle(x, y)",
               "float32[6,1]|pos", "float32[6,1]|unit", modes=S))
CASES.append(C("ctr_metric_bundle.shape_mismatch", "paddle.static.ctr_metric_bundle(x, y)",
               "float32[6,1]", "float32[6,2]", modes=S))
