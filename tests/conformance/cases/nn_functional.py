"""``paddle.nn.functional``: every public function of sampan's
``nn.functional``, with its options.  Activations (and the in-place ``*_``
forms), losses with every reduction and their options, convolutions and
their transposes (stride, padding as int / list / pairs / 'SAME' / 'VALID',
dilation, groups, channel-last), pooling, normalisation (training and not),
embedding, one_hot, pad (every mode), interpolate / upsample, linear,
normalize, cosine_similarity, label_smooth, pixel_shuffle, prelu and the
dropout family where it is deterministic (p=0 or training=False).

Parameters are arguments of the case (``w``, ``b`` as ``y``, ``z``, ...), so
the static Program holds only the ops of the function itself.  A float case
of each differentiable function also compares eager gradients (``grad=True``).
"""
from spec import C

CASES = []


def F(id, code, *args, **kw):
    """A case over ``F.<fn>``, written short: ``F.`` is paddle.nn.functional."""
    CASES.append(C(id, code.replace("F.", "paddle.nn.functional."), *args, **kw))


X23 = "float32[2,3]"
X4D = "float32[2,3,4,4]"

# ------------------------------------------------------------------ activations
# name: (call, extra options); each runs on float32 (with its gradient) and float64
ACTS = {
    "relu": "F.relu(x)", "relu6": "F.relu6(x)", "sigmoid": "F.sigmoid(x)",
    "log_sigmoid": "F.log_sigmoid(x)", "tanh": "F.tanh(x)", "silu": "F.silu(x)",
    "swish": "F.swish(x)", "mish": "F.mish(x)", "softsign": "F.softsign(x)",
    "tanhshrink": "F.tanhshrink(x)", "hardswish": "F.hardswish(x)",
    "hardsigmoid": "F.hardsigmoid(x)", "hardtanh": "F.hardtanh(x)",
    "hardshrink": "F.hardshrink(x)", "softshrink": "F.softshrink(x)",
    "thresholded_relu": "F.thresholded_relu(x)", "leaky_relu": "F.leaky_relu(x)",
    "elu": "F.elu(x)", "celu": "F.celu(x)", "selu": "F.selu(x)", "gelu": "F.gelu(x)",
    "gelu_tanh": "F.gelu(x, approximate=True)", "softplus": "F.softplus(x)",
    "softmax": "F.softmax(x)", "log_softmax": "F.log_softmax(x)",
}
for name, call in ACTS.items():
    F(f"{name}.float32", call, "float32[3,4]", grad=True)
    F(f"{name}.float64", call, "float64[3,4]")
    F(f"{name}.zero_d", call, "float32[]")

ACT_OPTIONS = {
    "leaky_relu.slope": "F.leaky_relu(x, negative_slope=0.2)",
    "leaky_relu.slope_neg": "F.leaky_relu(x, -0.5)",
    "elu.alpha": "F.elu(x, alpha=0.5)",
    "celu.alpha": "F.celu(x, alpha=2.0)",
    "celu.alpha_zero": "F.celu(x, alpha=0.0)",
    "selu.options": "F.selu(x, scale=1.5, alpha=2.0)",
    "selu.bad_scale": "F.selu(x, scale=0.5)",
    "selu.bad_alpha": "F.selu(x, alpha=-1.0)",
    "softplus.beta": "F.softplus(x, beta=2, threshold=1)",
    "softplus.beta_float": "F.softplus(x, beta=0.5, threshold=3.0)",
    "hardsigmoid.options": "F.hardsigmoid(x, slope=0.2, offset=0.3)",
    "hardtanh.range": "F.hardtanh(x, min=-0.5, max=1.5)",
    "hardshrink.threshold": "F.hardshrink(x, threshold=1.0)",
    "softshrink.threshold": "F.softshrink(x, threshold=0.3)",
    "softshrink.bad_threshold": "F.softshrink(x, threshold=-1.0)",
    "thresholded_relu.threshold": "F.thresholded_relu(x, threshold=0.5)",
    "softmax.axis0": "F.softmax(x, axis=0)",
    "softmax.axis1": "F.softmax(x, axis=1)",
    "softmax.dtype64": "F.softmax(x, dtype='float64')",
    "softmax.dtype64_axis0": "F.softmax(x, axis=0, dtype='float64')",
    "softmax.dtype32": "F.softmax(x, dtype='float32')",
    "log_softmax.axis0": "F.log_softmax(x, axis=0)",
    "log_softmax.dtype64": "F.log_softmax(x, dtype='float64')",
    "log_softmax.dtype64_axis1": "F.log_softmax(x, 1, 'float64')",
}
for name, call in ACT_OPTIONS.items():
    F(f"{name}.float32", call, "float32[3,4]", grad="bad" not in name and "zero" not in name)
F("softmax.3d.axis1", "F.softmax(x, axis=1)", "float32[2,3,4]", grad=True)
F("softmax.3d.axis_neg2", "F.softmax(x, axis=-2)", "float64[2,3,4]")
F("log_softmax.3d.axis1", "F.log_softmax(x, axis=1)", "float32[2,3,4]", grad=True)
F("softmax.1d", "F.softmax(x)", "float32[5]")
F("softmax.dtype64.float64_in", "F.softmax(x, dtype='float64')", "float64[3,4]")

# integer inputs: Paddle's activation kernels are float only
for name in ("relu", "sigmoid", "softmax", "tanh"):
    F(f"{name}.int64", ACTS[name], "int64[2,3]")
F("relu.int32", "F.relu(x)", "int32[2,3]")

# in-place forms: the result, and x itself afterwards
INPLACE = {"relu_": "F.relu_(x)", "elu_": "F.elu_(x)", "elu_.alpha": "F.elu_(x, 0.5)",
           "tanh_": "F.tanh_(x)", "softmax_": "F.softmax_(x)",
           "softmax_.axis0": "F.softmax_(x, axis=0)"}
for name, call in INPLACE.items():
    F(f"{name}.float32", call, "float32[3,4]")
    F(f"{name}.returns_x.float32", f"y = {call}\nreturn x", "float32[3,4]",
      modes=("eager",))
    F(f"{name}.float64", call, "float64[3,4]")

# prelu: one shared weight, one per channel, channel-last
F("prelu.shared.float32", "F.prelu(x, y)", X4D, "float32[1]", grad=True)
F("prelu.channel.float32", "F.prelu(x, y)", X4D, "float32[3]", grad=True)
F("prelu.channel.float64", "F.prelu(x, y)", "float64[2,3,4,4]", "float64[3]")
F("prelu.nhwc.float32", "F.prelu(x, y, data_format='NHWC')", "float32[2,4,4,3]",
  "float32[3]", grad=True)
F("prelu.2d.float32", "F.prelu(x, y)", "float32[4,3]", "float32[3]", grad=True)
F("prelu.3d.float32", "F.prelu(x, y, data_format='NCL')", "float32[2,3,5]", "float32[3]")
F("prelu.bad_channels", "F.prelu(x, y)", X4D, "float32[2]")
F("prelu.bad_format", "F.prelu(x, y, data_format='NCWH')", X4D, "float32[1]")

# ------------------------------------------------------------------ losses
REDUCTIONS = ("mean", "sum", "none")

# cross_entropy: hard labels [N] and [N,1], every reduction, ignore_index, weight,
# soft labels, axis, use_softmax, label_smoothing.
# The 'mean' of hard labels with a negative ignore_index (the default -100) is
# Paddle's reduce_mean in its static Program, which also counts labels equal to
# ignore_index and so disagrees with its eager answer (cases *.padded_label below);
# sampan divides by the count of the other labels in every mode, so those cases
# check values against numpy and not Paddle's op list.
CE_MEAN_BUG = ("Paddle 2.6.2's static cross_entropy 'mean' with a negative ignore_index is "
               "reduce_mean, counting ignored labels (disagrees with its eager result when a "
               "label equals ignore_index); sampan divides by the non-ignored count in every mode")


def _ce_mean(axis, label, dt, softmax=True):
    """numpy: the mean hard-label cross entropy of logits x (probabilities when
    not ``softmax``) at integer labels ``label`` along ``axis``."""
    lp = f"(x - np.log(np.exp(x).sum({axis}, keepdims=True)))" if softmax else "np.log(x)"
    return f"np.asarray(-np.take_along_axis({lp}, {label}, {axis}).mean(), '{dt}')"


def CE_MEAN(id, code, *args, axis=-1, label="y", dt="float32", softmax=True, **kw):
    F(id, code, *args, paddle_bug=CE_MEAN_BUG, want=_ce_mean(axis, label, dt, softmax), **kw)


for r in REDUCTIONS:
    ce = CE_MEAN if r == "mean" else F
    extra = {"label": "y[:, None]"} if r == "mean" else {}
    ce(f"cross_entropy.hard.{r}.float32", f"F.cross_entropy(x, y, reduction='{r}')",
       "float32[8,5]", "int64[8]|idx5", grad=True, **extra)
    ce(f"cross_entropy.hard_n1.{r}.float32", f"F.cross_entropy(x, y, reduction='{r}')",
       "float32[8,5]", "int64[8,1]|idx5", grad=True)
    ce(f"cross_entropy.hard.{r}.float64", f"F.cross_entropy(x, y, reduction='{r}')",
       "float64[8,5]", "int64[8]|idx5", **dict(extra, dt="float64") if extra else {})
    F(f"cross_entropy.padded_label.{r}.float32",
      f"F.cross_entropy(x, paddle.where(y < 2, paddle.full_like(y, -100), y), "
      f"reduction='{r}')", "float32[8,5]", "int64[8]|idx5", grad=True)
    F(f"cross_entropy.padded_label_neg1.{r}.float32",
      f"F.cross_entropy(x, paddle.where(y < 2, paddle.full_like(y, -1), y), "
      f"ignore_index=-1, reduction='{r}')", "float32[8,5]", "int64[8,1]|idx5")
    F(f"cross_entropy.padded_label_weight.{r}.float32",
      f"F.cross_entropy(x, paddle.where(y < 2, paddle.full_like(y, -100), y), "
      f"weight=z, reduction='{r}')", "float32[8,5]", "int64[8]|idx5", "float32[5]|pos")
    F(f"cross_entropy.ignore.{r}.float32",
      f"F.cross_entropy(x, y, ignore_index=1, reduction='{r}')",
      "float32[8,5]", "int64[8]|idx3", grad=True)
    F(f"cross_entropy.weight.{r}.float32",
      f"F.cross_entropy(x, y, weight=z, reduction='{r}')",
      "float32[8,5]", "int64[8]|idx5", "float32[5]|pos", grad=True)
    F(f"cross_entropy.weight_ignore.{r}.float32",
      f"F.cross_entropy(x, y, weight=z, ignore_index=2, reduction='{r}')",
      "float32[8,5]", "int64[8]|idx4", "float32[5]|pos", grad=True)
    F(f"cross_entropy.soft.{r}.float32",
      f"F.cross_entropy(x, y, soft_label=True, reduction='{r}')",
      "float32[4,5]", "float32[4,5]|pos", grad=True)
    F(f"cross_entropy.soft_weight.{r}.float32",
      f"F.cross_entropy(x, y, weight=z, soft_label=True, reduction='{r}')",
      "float32[4,5]", "float32[4,5]|pos", "float32[5]|pos")
    # Paddle 2.6.2's backward raises PreconditionNotMet when the label or the weight
    # needs a gradient here (matmul_grad of a 1-D transposed Y): logits only
    F(f"cross_entropy.soft_weight.grad_logits.{r}.float32",
      f"F.cross_entropy(x, y.detach(), weight=z.detach(), soft_label=True, "
      f"reduction='{r}')", "float32[4,5]", "float32[4,5]|pos", "float32[5]|pos",
      modes=("eager",), grad=True)
    ce(f"cross_entropy.axis1.{r}.float32",
       f"F.cross_entropy(x, y, axis=1, reduction='{r}')",
       "float32[2,5,3]", "int64[2,3]|idx5", grad=True,
       **({"axis": 1, "label": "y[:, None, :]"} if r == "mean" else {}))
    ce(f"cross_entropy.3d.{r}.float32", f"F.cross_entropy(x, y, reduction='{r}')",
       "float32[2,3,5]", "int64[2,3,1]|idx5", grad=True)
    ce(f"cross_entropy.no_softmax.{r}.float32",
       f"F.cross_entropy(x, y, use_softmax=False, reduction='{r}')",
       "float32[6,4]|pos", "int64[6]|idx4", grad=True,
       **({"softmax": False, "label": "y[:, None]"} if r == "mean" else {}))
    F(f"cross_entropy.smoothing.{r}.float32",
      f"F.cross_entropy(x, y, label_smoothing=0.1, reduction='{r}')",
      "float32[6,4]", "int64[6]|idx4", grad=True)
F("cross_entropy.soft_axis0.float32", "F.cross_entropy(x, y, soft_label=True, axis=0)",
  "float32[5,4]", "float32[5,4]|pos", grad=True)
F("cross_entropy.weight_axis1.float32",
  "F.cross_entropy(x, y, weight=z, axis=1, reduction='none')",
  "float32[2,5,3]", "int64[2,3]|idx5", "float32[5]|pos")
F("cross_entropy.no_softmax_soft.float32",
  "F.cross_entropy(x, y, soft_label=True, use_softmax=False)",
  "float32[4,5]|pos", "float32[4,5]|pos")
F("cross_entropy.smoothing_n1.float32", "F.cross_entropy(x, y, label_smoothing=0.2)",
  "float32[6,4]", "int64[6,1]|idx4")
CE_MEAN("cross_entropy.int32_label.float32", "F.cross_entropy(x, y)",
        "float32[6,4]", "int32[6]|idx4", label="y[:, None]")
F("cross_entropy.int32_label.sum.float32", "F.cross_entropy(x, y, reduction='sum')",
  "float32[6,4]", "int32[6]|idx4")
F("cross_entropy.weight64.float32", "F.cross_entropy(x, y, weight=z, reduction='none')",
  "float32[6,4]", "int64[6]|idx4", "float64[4]|pos")
F("cross_entropy.ignore0.mean.float32", "F.cross_entropy(x, y, ignore_index=0)",
  "float32[8,5]", "int64[8]|idx5", grad=True)
F("cross_entropy.all_ignored.float32", "F.cross_entropy(x, y * 0 + 2, ignore_index=2)",
  "float32[4,5]", "int64[4]|idx5")
F("cross_entropy.bad_reduction", "F.cross_entropy(x, y, reduction='max')",
  "float32[6,4]", "int64[6]|idx4")
F("cross_entropy.bad_rank", "F.cross_entropy(x, y)", "float32[6,4]", "int64[6,1,1]|idx4")
F("cross_entropy.bad_label_value", "F.cross_entropy(x, paddle.to_tensor([0, 1, 9]))",
  "float32[3,4]")
F("cross_entropy.soft_ignore", "F.cross_entropy(x, y, soft_label=True, ignore_index=2)",
  "float32[4,5]", "float32[4,5]|pos")
F("cross_entropy.weight_mismatch", "F.cross_entropy(x, y, weight=z)",
  "float32[6,4]", "int64[6]|idx4", "float32[3]|pos")

# softmax_with_cross_entropy (the fluid-style loss: label keeps its [N,1] form)
F("softmax_with_cross_entropy.hard.float32", "F.softmax_with_cross_entropy(x, y)",
  "float32[6,4]", "int64[6,1]|idx4", grad=True)
F("softmax_with_cross_entropy.hard.float64", "F.softmax_with_cross_entropy(x, y)",
  "float64[6,4]", "int64[6,1]|idx4")
F("softmax_with_cross_entropy.soft.float32",
  "F.softmax_with_cross_entropy(x, y, soft_label=True)",
  "float32[4,5]", "float32[4,5]|pos", grad=True)
F("softmax_with_cross_entropy.return_softmax.float32",
  "F.softmax_with_cross_entropy(x, y, return_softmax=True)",
  "float32[6,4]", "int64[6,1]|idx4", grad=True)
F("softmax_with_cross_entropy.ignore.float32",
  "F.softmax_with_cross_entropy(x, y, ignore_index=0)",
  "float32[6,4]", "int64[6,1]|idx3", grad=True)
F("softmax_with_cross_entropy.axis1.float32",
  "F.softmax_with_cross_entropy(x, y, axis=1)",
  "float32[2,4,3]", "int64[2,1,3]|idx4", grad=True)
F("softmax_with_cross_entropy.not_stable.float32",
  "F.softmax_with_cross_entropy(x, y, numeric_stable_mode=False)",
  "float32[6,4]", "int64[6,1]|idx4")
F("softmax_with_cross_entropy.bad_label", "F.softmax_with_cross_entropy(x, y)",
  "float32[6,4]", "int64[5,1]|idx4")

# nll_loss: 2-D, 4-D (the op's own layouts) and 3-D (reshaped), weight, ignore_index
for r in REDUCTIONS:
    F(f"nll_loss.2d.{r}.float32", f"F.nll_loss(x, y, reduction='{r}')",
      "float32[6,4]", "int64[6]|idx4", grad=True)
    F(f"nll_loss.weight.{r}.float32", f"F.nll_loss(x, y, weight=z, reduction='{r}')",
      "float32[6,4]", "int64[6]|idx4", "float32[4]|pos", grad=True)
    F(f"nll_loss.ignore.{r}.float32", f"F.nll_loss(x, y, ignore_index=1, reduction='{r}')",
      "float32[6,4]", "int64[6]|idx3", grad=True)
    F(f"nll_loss.4d.{r}.float32", f"F.nll_loss(x, y, reduction='{r}')",
      "float32[2,3,2,2]", "int64[2,2,2]|idx3", grad=True)
    F(f"nll_loss.3d.{r}.float32", f"F.nll_loss(x, y, reduction='{r}')",
      "float32[2,3,4]", "int64[2,4]|idx3", grad=True)
F("nll_loss.2d.float64", "F.nll_loss(x, y)", "float64[6,4]", "int64[6]|idx4")
F("nll_loss.5d.float32", "F.nll_loss(x, y, reduction='none')",
  "float32[2,3,2,2,2]", "int64[2,2,2,2]|idx3")
F("nll_loss.bad_reduction", "F.nll_loss(x, y, reduction='max')",
  "float32[6,4]", "int64[6]|idx4")
F("nll_loss.bad_rank", "F.nll_loss(x, y)", "float32[6]", "int64[6]|idx4")

# binary cross entropy: probabilities from sigmoid, 0/1 labels.
# With pos_weight, Paddle 2.6.2's sigmoid_cross_entropy_with_logits kernel leaves the
# max(-x, 0) term out of the weighted part (wrong for x < 0), and its gradient is wrong
# even where the value is right; sampan computes (1 - y) x + l softplus(-x),
# l = 1 + (pos_weight - 1) y (its gradient is checked by finite differences in
# tests/ops, case sigmoid_ce_pos_weight)
POS_WEIGHT_BUG = ("Paddle 2.6.2's sigmoid_cross_entropy_with_logits with pos_weight computes "
                  "(1-y)x + l*log(1+exp(-|x|)) + max(-x,0) (max term unweighted) and a wrong "
                  "gradient; sampan computes (1-y)x + l*softplus(-x)")


def _bce_pos_weight(pw, r, weight=""):
    """numpy: binary_cross_entropy_with_logits(x, y, pos_weight=<pw>) reduced by r."""
    el = (f"(((1 - y) * x + (1 + ({pw} - 1) * y) * "
          f"(np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0))){weight})")
    return {"mean": f"np.asarray({el}.mean(), 'float32')",
            "sum": f"np.asarray({el}.sum(), 'float32')",
            "none": f"({el}).astype('float32')"}[r]


for r in REDUCTIONS:
    F(f"binary_cross_entropy.{r}.float32",
      f"F.binary_cross_entropy(F.sigmoid(x), y, reduction='{r}')",
      "float32[3,4]", "float32[3,4]|idx2", grad=True)
    F(f"binary_cross_entropy.weight.{r}.float32",
      f"F.binary_cross_entropy(F.sigmoid(x), y, weight=z, reduction='{r}')",
      "float32[3,4]", "float32[3,4]|idx2", "float32[4]|pos", grad=True)
    F(f"bce_with_logits.{r}.float32",
      f"F.binary_cross_entropy_with_logits(x, y, reduction='{r}')",
      "float32[3,4]", "float32[3,4]|idx2", grad=True)
    F(f"bce_with_logits.weight.{r}.float32",
      f"F.binary_cross_entropy_with_logits(x, y, weight=z, reduction='{r}')",
      "float32[3,4]", "float32[3,4]|idx2", "float32[4]|pos", grad=True)
    F(f"bce_with_logits.pos_weight.{r}.float32",
      f"F.binary_cross_entropy_with_logits(x, y, pos_weight=z, reduction='{r}')",
      "float32[3,4]", "float32[3,4]|idx2", "float32[4]|pos",
      paddle_bug=POS_WEIGHT_BUG, want=_bce_pos_weight("z", r))
F("binary_cross_entropy.float64", "F.binary_cross_entropy(F.sigmoid(x), y)",
  "float64[3,4]", "float64[3,4]|idx2")
F("binary_cross_entropy.soft_label.float32", "F.binary_cross_entropy(F.sigmoid(x), y)",
  "float32[3,4]", "float32[3,4]|unit")
F("binary_cross_entropy.bad_reduction",
  "F.binary_cross_entropy(F.sigmoid(x), y, reduction='max')", "float32[3,4]",
  "float32[3,4]|idx2")
F("bce_with_logits.float64", "F.binary_cross_entropy_with_logits(x, y)",
  "float64[3,4]", "float64[3,4]|idx2")
F("bce_with_logits.weight_pos_weight.float32",
  "F.binary_cross_entropy_with_logits(x, y, weight=z, pos_weight=w)",
  "float32[3,4]", "float32[3,4]|idx2", "float32[4]|pos", "float32[4]|pos",
  paddle_bug=POS_WEIGHT_BUG, want=_bce_pos_weight("w", "mean", " * z"))
F("bce_with_logits.pos_weight_ones.float32",
  "F.binary_cross_entropy_with_logits(x, y, pos_weight=z * 0 + 1)",
  "float32[3,4]", "float32[3,4]|idx2", "float32[4]|pos", grad=True,
  note="a pos_weight of ones, where Paddle's value is right")
F("bce_with_logits.bad_reduction",
  "F.binary_cross_entropy_with_logits(x, y, reduction='max')", "float32[3,4]",
  "float32[3,4]|idx2")

# regression losses
for r in REDUCTIONS:
    F(f"mse_loss.{r}.float32", f"F.mse_loss(x, y, reduction='{r}')",
      "float32[3,4]", "float32[3,4]", grad=True)
    F(f"l1_loss.{r}.float32", f"F.l1_loss(x, y, reduction='{r}')",
      "float32[3,4]", "float32[3,4]", grad=True)
    F(f"smooth_l1_loss.{r}.float32", f"F.smooth_l1_loss(x, y, reduction='{r}')",
      "float32[3,4]", "float32[3,4]", grad=True)
    F(f"smooth_l1_loss.delta.{r}.float32",
      f"F.smooth_l1_loss(x, y, reduction='{r}', delta=0.5)",
      "float32[3,4]", "float32[3,4]", grad=True)
    F(f"margin_ranking_loss.{r}.float32",
      f"F.margin_ranking_loss(x, y, z, reduction='{r}')",
      "float32[6]", "float32[6]", "float32[6]|idx2", grad=True)
    F(f"margin_ranking_loss.margin.{r}.float32",
      f"F.margin_ranking_loss(x, y, z, margin=0.5, reduction='{r}')",
      "float32[6]", "float32[6]", "float32[6]", grad=True)
for r in REDUCTIONS + ("batchmean",):
    F(f"kl_div.{r}.float32", f"F.kl_div(x, y, reduction='{r}')",
      "float32[3,4]", "float32[3,4]|pos", grad=True)
for fn in ("mse_loss", "l1_loss", "smooth_l1_loss"):
    F(f"{fn}.float64", f"F.{fn}(x, y)", "float64[3,4]", "float64[3,4]")
    F(f"{fn}.bcast.float32", f"F.{fn}(x, y)", "float32[3,4]", "float32[4]")
    F(f"{fn}.bad_reduction", f"F.{fn}(x, y, reduction='max')", "float32[3,4]",
      "float32[3,4]")
F("kl_div.float64", "F.kl_div(x, y)", "float64[3,4]", "float64[3,4]|pos")
F("kl_div.mixed.float32_64", "F.kl_div(x, y)", "float32[3,4]", "float64[3,4]|pos")
F("kl_div.neg_label.float32", "F.kl_div(x, y, reduction='sum')", "float32[3,4]",
  "float32[3,4]")
F("kl_div.bad_reduction", "F.kl_div(x, y, reduction='max')", "float32[3,4]",
  "float32[3,4]|pos")
F("margin_ranking_loss.float64", "F.margin_ranking_loss(x, y, z)",
  "float64[6]", "float64[6]", "float64[6]")
F("margin_ranking_loss.bad_reduction", "F.margin_ranking_loss(x, y, z, reduction='max')",
  "float32[6]", "float32[6]", "float32[6]")

# label_smooth
F("label_smooth.float32", "F.label_smooth(x)", "float32[4,5]|idx2", grad=True)
F("label_smooth.epsilon.float32", "F.label_smooth(x, epsilon=0.3)", "float32[4,5]|idx2")
F("label_smooth.prior.float32", "F.label_smooth(x, prior_dist=y, epsilon=0.2)",
  "float32[4,5]|idx2", "float32[1,5]|pos", grad=True)
F("label_smooth.3d.float32", "F.label_smooth(x)", "float32[2,3,4]|idx2")
F("label_smooth.float64", "F.label_smooth(x)", "float64[4,5]|idx2")
F("label_smooth.bad_epsilon", "F.label_smooth(x, epsilon=1.5)", "float32[4,5]|idx2")
F("label_smooth.one_hot.float32", "F.label_smooth(F.one_hot(x, 4), epsilon=0.1)",
  "int64[5]|idx4")

# ------------------------------------------------------------------ convolutions
CONV2D = {
    "plain": ("", "float32[2,4,6,6]", "float32[6,4,3,3]"),
    "stride": ("stride=2", "float32[2,4,7,7]", "float32[6,4,3,3]"),
    "stride_list": ("stride=[2, 1]", "float32[2,4,7,7]", "float32[6,4,3,3]"),
    "pad_int": ("padding=1", "float32[2,4,6,6]", "float32[6,4,3,3]"),
    "pad_list2": ("padding=[1, 2]", "float32[2,4,6,6]", "float32[6,4,3,3]"),
    "pad_list4": ("padding=[1, 0, 2, 1]", "float32[2,4,6,6]", "float32[6,4,3,3]"),
    "pad_list4_sym": ("padding=[1, 1, 2, 2]", "float32[2,4,6,6]", "float32[6,4,3,3]"),
    "pad_pairs": ("padding=[[0, 0], [0, 0], [1, 2], [0, 1]]", "float32[2,4,6,6]",
                  "float32[6,4,3,3]"),
    "same": ("padding='SAME'", "float32[2,4,6,6]", "float32[6,4,3,3]"),
    "same_stride": ("stride=2, padding='SAME'", "float32[2,4,7,7]", "float32[6,4,3,3]"),
    "valid": ("padding='VALID'", "float32[2,4,6,6]", "float32[6,4,3,3]"),
    "dilation": ("dilation=2", "float32[2,4,7,7]", "float32[6,4,3,3]"),
    "dilation_pad": ("padding=2, dilation=2", "float32[2,4,6,6]", "float32[6,4,3,3]"),
    "groups": ("groups=2", "float32[2,4,6,6]", "float32[6,2,3,3]"),
    "depthwise": ("groups=4", "float32[2,4,6,6]", "float32[4,1,3,3]"),
    "depthwise_mult": ("groups=4, padding=1", "float32[2,4,6,6]", "float32[8,1,3,3]"),
    "kernel_rect": ("stride=[1, 2], padding=[0, 1]", "float32[2,4,6,6]",
                    "float32[6,4,2,3]"),
    "one_channel": ("", "float32[2,1,5,5]", "float32[3,1,3,3]"),
}
for name, (opts, xs, ws) in CONV2D.items():
    sep = ", " if opts else ""
    F(f"conv2d.{name}.float32", f"F.conv2d(x, y, z{sep}{opts})", xs, ws,
      f"float32[{ws[8:].split(',')[0]}]", grad=True, rtol=1e-4, atol=1e-5)
    F(f"conv2d.{name}.nobias.float32", f"F.conv2d(x, y{sep}{opts})", xs, ws,
      rtol=1e-4, atol=1e-5)
F("conv2d.nhwc.float32", "F.conv2d(x, y, z, padding=1, data_format='NHWC')",
  "float32[2,6,6,4]", "float32[6,4,3,3]", "float32[6]", grad=True, rtol=1e-4, atol=1e-5)
F("conv2d.nhwc_nobias.float32", "F.conv2d(x, y, stride=2, data_format='NHWC')",
  "float32[2,7,7,4]", "float32[6,4,3,3]", rtol=1e-4, atol=1e-5)
F("conv2d.nhwc_pairs.float32",
  "F.conv2d(x, y, padding=[[0, 0], [1, 1], [0, 2], [0, 0]], data_format='NHWC')",
  "float32[2,6,6,4]", "float32[6,4,3,3]", rtol=1e-4, atol=1e-5)
F("conv2d.float64", "F.conv2d(x, y, z, padding=1)", "float64[2,4,6,6]",
  "float64[6,4,3,3]", "float64[6]", grad=True)
F("conv2d.bad_channels", "F.conv2d(x, y)", "float32[2,4,6,6]", "float32[6,3,3,3]")
F("conv2d.bad_groups", "F.conv2d(x, y, groups=3)", "float32[2,4,6,6]", "float32[6,4,3,3]")
F("conv2d.bad_rank", "F.conv2d(x, y)", "float32[4,6,6]", "float32[6,4,3,3]")
F("conv2d.bad_format", "F.conv2d(x, y, data_format='NCWH')", "float32[2,4,6,6]",
  "float32[6,4,3,3]")
F("conv2d.bad_padding", "F.conv2d(x, y, padding='FULL')", "float32[2,4,6,6]",
  "float32[6,4,3,3]")
F("conv2d.bad_pairs", "F.conv2d(x, y, padding=[[1, 1], [0, 0], [1, 1], [1, 1]])",
  "float32[2,4,6,6]", "float32[6,4,3,3]")

CONV1D = {
    "plain": ("", "float32[2,4,8]", "float32[6,4,3]"),
    "stride": ("stride=2", "float32[2,4,9]", "float32[6,4,3]"),
    "pad_int": ("padding=1", "float32[2,4,8]", "float32[6,4,3]"),
    "pad_list2": ("padding=[1, 2]", "float32[2,4,8]", "float32[6,4,3]"),
    "pad_list1": ("padding=[2]", "float32[2,4,8]", "float32[6,4,3]"),
    "same": ("padding='SAME'", "float32[2,4,8]", "float32[6,4,3]"),
    "same_stride": ("stride=2, padding='SAME'", "float32[2,4,9]", "float32[6,4,3]"),
    "valid": ("padding='VALID'", "float32[2,4,8]", "float32[6,4,3]"),
    "dilation": ("dilation=2, padding=1", "float32[2,4,9]", "float32[6,4,3]"),
    "groups": ("groups=2", "float32[2,4,8]", "float32[6,2,3]"),
    "depthwise": ("groups=4", "float32[2,4,8]", "float32[4,1,3]"),
}
for name, (opts, xs, ws) in CONV1D.items():
    sep = ", " if opts else ""
    F(f"conv1d.{name}.float32", f"F.conv1d(x, y, z{sep}{opts})", xs, ws,
      f"float32[{ws[8:].split(',')[0]}]", grad=True, rtol=1e-4, atol=1e-5)
    F(f"conv1d.{name}.nobias.float32", f"F.conv1d(x, y{sep}{opts})", xs, ws,
      rtol=1e-4, atol=1e-5)
F("conv1d.nlc.float32", "F.conv1d(x, y, z, padding=1, data_format='NLC')",
  "float32[2,8,4]", "float32[6,4,3]", "float32[6]", grad=True, rtol=1e-4, atol=1e-5)
F("conv1d.float64", "F.conv1d(x, y, z, stride=2)", "float64[2,4,9]", "float64[6,4,3]",
  "float64[6]", grad=True)
F("conv1d.bad_rank", "F.conv1d(x, y)", "float32[2,4,8,1]", "float32[6,4,3]")
F("conv1d.bad_format", "F.conv1d(x, y, data_format='NCHW')", "float32[2,4,8]",
  "float32[6,4,3]")

# transposed convolutions: weight is [C_in, C_out / groups, k...]
CONV2DT = {
    "plain": ("", "float32[2,4,5,5]", "float32[4,3,3,3]"),
    "stride": ("stride=2", "float32[2,4,5,5]", "float32[4,3,3,3]"),
    "pad": ("padding=1", "float32[2,4,5,5]", "float32[4,3,3,3]"),
    "pad_list4": ("padding=[1, 0, 0, 1]", "float32[2,4,5,5]", "float32[4,3,3,3]"),
    "stride_outpad": ("stride=2, padding=1, output_padding=1", "float32[2,4,5,5]",
                      "float32[4,3,3,3]"),
    "output_size": ("stride=2, padding=1, output_size=[10, 10]", "float32[2,4,5,5]",
                    "float32[4,3,3,3]"),
    "same": ("stride=2, padding='SAME'", "float32[2,4,5,5]", "float32[4,3,3,3]"),
    "valid": ("stride=2, padding='VALID'", "float32[2,4,5,5]", "float32[4,3,3,3]"),
    "dilation": ("dilation=2", "float32[2,4,5,5]", "float32[4,3,3,3]"),
    "groups": ("groups=2", "float32[2,4,5,5]", "float32[4,3,3,3]"),
    "depthwise": ("groups=4", "float32[2,4,5,5]", "float32[4,1,3,3]"),
}
for name, (opts, xs, ws) in CONV2DT.items():
    sep = ", " if opts else ""
    cout = int(ws[8:].split(",")[1]) * (2 if "groups=2" in opts else
                                        4 if "groups=4" in opts else 1)
    F(f"conv2d_transpose.{name}.float32", f"F.conv2d_transpose(x, y, z{sep}{opts})", xs, ws,
      f"float32[{cout}]", grad=True, rtol=1e-4, atol=1e-5)
    F(f"conv2d_transpose.{name}.nobias.float32", f"F.conv2d_transpose(x, y{sep}{opts})",
      xs, ws, rtol=1e-4, atol=1e-5)
F("conv2d_transpose.nhwc.float32",
  "F.conv2d_transpose(x, y, z, stride=2, data_format='NHWC')",
  "float32[2,5,5,4]", "float32[4,3,3,3]", "float32[3]", grad=True, rtol=1e-4, atol=1e-5)
F("conv2d_transpose.float64", "F.conv2d_transpose(x, y, z, stride=2)",
  "float64[2,4,5,5]", "float64[4,3,3,3]", "float64[3]", grad=True)
# positional arguments in Paddle's orders: dilation before groups in conv2d_transpose
# (output_size before data_format), after them in conv1d/conv3d_transpose; the
# layers Conv2DTranspose and Conv3DTranspose take dilation before groups too
F("conv2d_transpose.positional.float32", "F.conv2d_transpose(x, y, None, 1, 0, 0, 2, 2)",
  "float32[2,4,5,5]", "float32[4,3,3,3]", rtol=1e-4, atol=1e-5)
F("conv1d_transpose.positional.float32", "F.conv1d_transpose(x, y, None, 1, 0, 0, 2, 3)",
  "float32[2,4,7]", "float32[4,3,3]", rtol=1e-4, atol=1e-5)
F("conv2d_transpose.layer_positional",
  "paddle.seed(1)\nm = paddle.nn.Conv2DTranspose(4, 6, 3, 1, 0, 0, 3, 2)\n"
  "return m(x).shape, m.weight.shape, m._dilation, m._groups", "float32[2,4,5,5]")
F("conv3d_transpose.layer_positional",
  "m = paddle.nn.Conv3DTranspose(4, 6, 3, 1, 0, 0, 3, 2)\n"
  "return m(x).shape, m.weight.shape", "float32[1,4,3,3,3]")
F("conv1d_transpose.layer_positional",
  "m = paddle.nn.Conv1DTranspose(4, 6, 3, 1, 0, 0, 2, 3)\n"
  "return m(x).shape, m.weight.shape", "float32[1,4,5]")
F("conv2d_transpose.bad_channels", "F.conv2d_transpose(x, y)", "float32[2,4,5,5]",
  "float32[3,3,3,3]")
F("conv2d_transpose.bad_outpad_size",
  "F.conv2d_transpose(x, y, stride=2, output_padding=1, output_size=[10, 10])",
  "float32[2,4,5,5]", "float32[4,3,3,3]")

CONV1DT = {
    "plain": ("", "float32[2,4,6]", "float32[4,3,3]"),
    "stride": ("stride=2", "float32[2,4,6]", "float32[4,3,3]"),
    "pad": ("padding=1", "float32[2,4,6]", "float32[4,3,3]"),
    "stride_outpad": ("stride=2, padding=1, output_padding=1", "float32[2,4,6]",
                      "float32[4,3,3]"),
    "output_size": ("stride=2, output_size=14", "float32[2,4,6]", "float32[4,3,3]"),
    "same": ("stride=2, padding='SAME'", "float32[2,4,6]", "float32[4,3,3]"),
    "dilation": ("dilation=2", "float32[2,4,6]", "float32[4,3,3]"),
    "groups": ("groups=2", "float32[2,4,6]", "float32[4,3,3]"),
}
for name, (opts, xs, ws) in CONV1DT.items():
    sep = ", " if opts else ""
    cout = int(ws[8:].split(",")[1]) * (2 if "groups=2" in opts else 1)
    F(f"conv1d_transpose.{name}.float32", f"F.conv1d_transpose(x, y, z{sep}{opts})", xs, ws,
      f"float32[{cout}]", grad=True, rtol=1e-4, atol=1e-5)
    F(f"conv1d_transpose.{name}.nobias.float32", f"F.conv1d_transpose(x, y{sep}{opts})",
      xs, ws, rtol=1e-4, atol=1e-5)
F("conv1d_transpose.nlc.float32",
  "F.conv1d_transpose(x, y, z, stride=2, data_format='NLC')",
  "float32[2,6,4]", "float32[4,3,3]", "float32[3]", grad=True, rtol=1e-4, atol=1e-5)
F("conv1d_transpose.float64", "F.conv1d_transpose(x, y, z)",
  "float64[2,4,6]", "float64[4,3,3]", "float64[3]")

# ------------------------------------------------------------------ pooling
POOL2D = {
    "k2": "kernel_size=2",
    "k3s1": "kernel_size=3, stride=1",
    "k3s2p1": "kernel_size=3, stride=2, padding=1",
    "k_list": "kernel_size=[2, 3], stride=[2, 1]",
    "pad_list4": "kernel_size=3, stride=2, padding=[1, 0, 1, 0]",
    "ceil": "kernel_size=3, stride=2, ceil_mode=True",
    "ceil_pad": "kernel_size=2, stride=2, padding=1, ceil_mode=True",
    "same": "kernel_size=3, stride=2, padding='SAME'",
    "valid": "kernel_size=3, stride=2, padding='VALID'",
}
for name, opts in POOL2D.items():
    F(f"max_pool2d.{name}.float32", f"F.max_pool2d(x, {opts})", "float32[2,3,7,7]",
      grad=True)
    F(f"avg_pool2d.{name}.float32", f"F.avg_pool2d(x, {opts})", "float32[2,3,7,7]",
      grad=True)
F("avg_pool2d.inclusive.float32", "F.avg_pool2d(x, 3, 2, 1, exclusive=False)",
  "float32[2,3,7,7]", grad=True)
F("avg_pool2d.inclusive_ceil.float32",
  "F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, exclusive=False)", "float32[2,3,6,6]")
F("avg_pool2d.divisor.float32", "F.avg_pool2d(x, 2, divisor_override=3)",
  "float32[2,3,6,6]", grad=True)
F("avg_pool2d.nhwc.float32", "F.avg_pool2d(x, 3, 2, 1, data_format='NHWC')",
  "float32[2,7,7,3]", grad=True)
F("avg_pool2d.float64", "F.avg_pool2d(x, 2)", "float64[2,3,6,6]")
F("max_pool2d.nhwc.float32", "F.max_pool2d(x, 3, 2, 1, data_format='NHWC')",
  "float32[2,7,7,3]", grad=True)
F("max_pool2d.float64", "F.max_pool2d(x, 2)", "float64[2,3,6,6]")
F("max_pool2d.mask.float32", "F.max_pool2d(x, 2, return_mask=True)", "float32[2,3,6,6]",
  grad=True)
F("max_pool2d.mask_pad.float32", "F.max_pool2d(x, 3, 2, 1, return_mask=True)",
  "float32[2,3,7,7]")
F("max_pool2d.mask_nhwc", "F.max_pool2d(x, 2, return_mask=True, data_format='NHWC')",
  "float32[2,6,6,3]")
F("max_pool2d.valid_ceil", "F.max_pool2d(x, 2, padding='VALID', ceil_mode=True)",
  "float32[2,3,6,6]")
F("max_pool2d.bad_format", "F.max_pool2d(x, 2, data_format='NCL')", "float32[2,3,6,6]")
F("max_pool2d.bad_rank", "F.max_pool2d(x, 2)", "float32[2,3,6]")
F("avg_pool2d.bad_rank", "F.avg_pool2d(x, 2)", "float32[3,6,6]")

POOL1D = {
    "k2": "kernel_size=2",
    "k3s1": "kernel_size=3, stride=1",
    "k3s2p1": "kernel_size=3, stride=2, padding=1",
    "pad_list2": "kernel_size=3, stride=2, padding=[1, 0]",
    "ceil": "kernel_size=3, stride=2, ceil_mode=True",
    "same": "kernel_size=3, stride=2, padding='SAME'",
    "valid": "kernel_size=3, padding='VALID'",
}
for name, opts in POOL1D.items():
    F(f"max_pool1d.{name}.float32", f"F.max_pool1d(x, {opts})", "float32[2,3,9]",
      grad=True)
    F(f"avg_pool1d.{name}.float32", f"F.avg_pool1d(x, {opts})", "float32[2,3,9]",
      grad=True)
F("avg_pool1d.inclusive.float32", "F.avg_pool1d(x, 3, 2, 1, exclusive=False)",
  "float32[2,3,9]", grad=True)
F("avg_pool1d.float64", "F.avg_pool1d(x, 2)", "float64[2,3,8]")
F("max_pool1d.float64", "F.max_pool1d(x, 2)", "float64[2,3,8]")
F("max_pool1d.mask.float32", "F.max_pool1d(x, 2, return_mask=True)", "float32[2,3,8]",
  grad=True)
F("max_pool1d.bad_rank", "F.max_pool1d(x, 2)", "float32[2,3,8,8]")

ADAPTIVE2D = {"int": "3", "list": "[2, 3]", "one": "1", "none_dim": "[None, 2]",
              "same": "[6, 6]", "uneven": "[4, 5]"}
for name, size in ADAPTIVE2D.items():
    F(f"adaptive_avg_pool2d.{name}.float32", f"F.adaptive_avg_pool2d(x, {size})",
      "float32[2,3,6,6]", grad=True)
    F(f"adaptive_max_pool2d.{name}.float32", f"F.adaptive_max_pool2d(x, {size})",
      "float32[2,3,6,6]", grad=True)
F("adaptive_avg_pool2d.nhwc.float32", "F.adaptive_avg_pool2d(x, 2, data_format='NHWC')",
  "float32[2,6,6,3]", grad=True)
F("adaptive_avg_pool2d.float64", "F.adaptive_avg_pool2d(x, 2)", "float64[2,3,6,6]")
F("adaptive_max_pool2d.mask.float32", "F.adaptive_max_pool2d(x, 2, return_mask=True)",
  "float32[2,3,6,6]", grad=True)
F("adaptive_max_pool2d.float64", "F.adaptive_max_pool2d(x, [3, 2])", "float64[2,3,6,6]")
for name, size in (("int", "3"), ("one", "1"), ("uneven", "4"), ("same", "7")):
    F(f"adaptive_avg_pool1d.{name}.float32", f"F.adaptive_avg_pool1d(x, {size})",
      "float32[2,3,7]", grad=True)
    F(f"adaptive_max_pool1d.{name}.float32", f"F.adaptive_max_pool1d(x, {size})",
      "float32[2,3,7]", grad=True)
F("adaptive_max_pool1d.mask.float32", "F.adaptive_max_pool1d(x, 3, return_mask=True)",
  "float32[2,3,7]", grad=True)
F("adaptive_avg_pool1d.float64", "F.adaptive_avg_pool1d(x, 3)", "float64[2,3,7]")
F("adaptive_avg_pool2d.bad_rank", "F.adaptive_avg_pool2d(x, 2)", "float32[3,6,6]")

# ------------------------------------------------------------------ normalisation
BN = "float32[4,3,2,2]", "float32[3]", "float32[3]|pos", "float32[3]", "float32[3]"
for training in (False, True):
    t = "train" if training else "eval"
    F(f"batch_norm.{t}.float32", f"F.batch_norm(x, y, z, w, v, training={training})",
      *BN, grad=True, rtol=1e-4, atol=1e-5)
    F(f"batch_norm.{t}.stats.float32",
      f"out = F.batch_norm(x, y, z, w, v, training={training}, momentum=0.8)\n"
      f"return out, y, z", *BN, modes=("eager",), rtol=1e-4, atol=1e-5)
    F(f"batch_norm.{t}.2d.float32", f"F.batch_norm(x, y, z, w, v, training={training})",
      "float32[6,3]", *BN[1:], rtol=1e-4, atol=1e-5)
    F(f"batch_norm.{t}.3d.float32",
      f"F.batch_norm(x, y, z, w, v, training={training}, data_format='NCL')",
      "float32[4,3,5]", *BN[1:], rtol=1e-4, atol=1e-5)
    F(f"batch_norm.{t}.nhwc.float32",
      f"F.batch_norm(x, y, z, w, v, training={training}, data_format='NHWC')",
      "float32[4,2,2,3]", *BN[1:], rtol=1e-4, atol=1e-5)
    F(f"batch_norm.{t}.float64", f"F.batch_norm(x, y, z, w, v, training={training})",
      "float64[4,3,2,2]", "float64[3]", "float64[3]|pos", "float64[3]", "float64[3]")
F("batch_norm.global_stats.float32",
  "F.batch_norm(x, y, z, w, v, training=True, use_global_stats=True)", *BN,
  rtol=1e-4, atol=1e-5)
F("batch_norm.local_stats_eval.float32",
  "F.batch_norm(x, y, z, w, v, training=False, use_global_stats=False)", *BN,
  rtol=1e-4, atol=1e-5)
F("batch_norm.epsilon.float32", "F.batch_norm(x, y, z, w, v, epsilon=0.1)", *BN,
  rtol=1e-4, atol=1e-5)
F("batch_norm.no_affine.float32", "F.batch_norm(x, y, z, None, None, training=True)",
  *BN[:3], rtol=1e-4, atol=1e-5)
# weight and bias default to None (the positional-only call of Paddle code)
F("batch_norm.default_affine.float32", "F.batch_norm(x, y, z, training=True)", *BN[:3],
  grad=True, rtol=1e-4, atol=1e-5)
F("batch_norm.default_affine_eval.float32", "F.batch_norm(x, y, z)", *BN[:3],
  rtol=1e-4, atol=1e-5)
F("batch_norm.bad_format", "F.batch_norm(x, y, z, w, v, data_format='NCWH')", *BN)
F("batch_norm.bad_rank", "F.batch_norm(x, y, z, w, v)", "float32[3]", *BN[1:])

F("layer_norm.last.float32", "F.layer_norm(x, 4, y, z)", "float32[2,3,4]",
  "float32[4]", "float32[4]", grad=True, rtol=1e-4, atol=1e-5)
F("layer_norm.two_dims.float32", "F.layer_norm(x, [3, 4], y, z)", "float32[2,3,4]",
  "float32[12]", "float32[12]", grad=True, rtol=1e-4, atol=1e-5)
F("layer_norm.tuple.float32", "F.layer_norm(x, (3, 4))", "float32[2,3,4]", grad=True,
  rtol=1e-4, atol=1e-5)
F("layer_norm.no_affine.float32", "F.layer_norm(x, 4)", "float32[2,3,4]",
  rtol=1e-4, atol=1e-5)
F("layer_norm.weight_only.float32", "F.layer_norm(x, 4, weight=y)", "float32[2,3,4]",
  "float32[4]", grad=True, rtol=1e-4, atol=1e-5)
F("layer_norm.epsilon.float32", "F.layer_norm(x, [4], y, z, epsilon=0.5)",
  "float32[3,4]", "float32[4]", "float32[4]", rtol=1e-4, atol=1e-5)
F("layer_norm.float64", "F.layer_norm(x, 4, y, z)", "float64[2,3,4]", "float64[4]",
  "float64[4]", grad=True)
F("layer_norm.bad_shape", "F.layer_norm(x, [3])", "float32[2,3,4]")

GN_PADDLE = ("n, c = x.shape[0], x.shape[1]\n"
             "g = x.reshape([n, {g}, -1])\n"
             "m = g.mean(axis=-1, keepdim=True)\n"
             "v = ((g - m) ** 2).mean(axis=-1, keepdim=True)\n"
             "out = ((g - m) / paddle.sqrt(v + {eps})).reshape(x.shape)\n"
             "{affine}return out")
GN_NOTE = "Paddle 2.6.2 has no F.group_norm; recorded against its definition"
for name, code, g, eps, affine, args in (
        ("plain", "F.group_norm(x, 3)", 3, 1e-5, "", ("float32[2,6,2,2]",)),
        ("affine", "F.group_norm(x, 2, weight=y, bias=z)", 2, 1e-5,
         "out = out * y.reshape([1, -1, 1, 1]) + z.reshape([1, -1, 1, 1])\n",
         ("float32[2,6,2,2]", "float32[6]", "float32[6]")),
        ("epsilon", "F.group_norm(x, 1, epsilon=0.1)", 1, 0.1, "", ("float32[2,4,3]",)),
        ("float64", "F.group_norm(x, 2)", 2, 1e-5, "", ("float64[2,4,3,3]",))):
    F(f"group_norm.{name}", code, *args, note=GN_NOTE, grad=name != "float64",
      rtol=1e-4, atol=1e-5,
      paddle_code=GN_PADDLE.format(g=g, eps=eps, affine=affine))

F("instance_norm.plain.float32", "F.instance_norm(x)", "float32[2,3,4,4]", grad=True,
  rtol=1e-4, atol=1e-5)
F("instance_norm.affine.float32", "F.instance_norm(x, weight=y, bias=z)",
  "float32[2,3,4,4]", "float32[3]", "float32[3]", grad=True, rtol=1e-4, atol=1e-5)
F("instance_norm.eps.float32", "F.instance_norm(x, eps=0.1)", "float32[2,3,5]",
  rtol=1e-4, atol=1e-5)
F("instance_norm.running.float32", "F.instance_norm(x, y, z, use_input_stats=True)",
  "float32[2,3,4,4]", "float32[3]", "float32[3]|pos", rtol=1e-4, atol=1e-5)
F("instance_norm.float64", "F.instance_norm(x)", "float64[2,3,4,4]")

F("normalize.default.float32", "F.normalize(x)", "float32[3,4]", grad=True)
F("normalize.p1.float32", "F.normalize(x, p=1)", "float32[3,4]", grad=True)
F("normalize.axis0.float32", "F.normalize(x, axis=0)", "float32[3,4]", grad=True)
F("normalize.axis_neg.float32", "F.normalize(x, p=3, axis=-1)", "float32[2,3,4]")
F("normalize.1d.float32", "F.normalize(x, axis=0)", "float32[5]")
F("normalize.epsilon.float32", "F.normalize(x, epsilon=10.0)", "float32[3,4]")
F("normalize.float64", "F.normalize(x)", "float64[3,4]")

F("cosine_similarity.default.float32", "F.cosine_similarity(x, y)", "float32[3,4]",
  "float32[3,4]", grad=True)
F("cosine_similarity.axis0.float32", "F.cosine_similarity(x, y, axis=0)", "float32[3,4]",
  "float32[3,4]", grad=True)
F("cosine_similarity.bcast.float32", "F.cosine_similarity(x, y, axis=-1)",
  "float32[3,4]", "float32[1,4]", grad=True)
F("cosine_similarity.eps.float32", "F.cosine_similarity(x, y, eps=0.5)", "float32[2,3]",
  "float32[2,3]")
F("cosine_similarity.float64", "F.cosine_similarity(x, y)", "float64[3,4]",
  "float64[3,4]")

# ------------------------------------------------------------------ embedding, one_hot
F("embedding.plain.float32", "F.embedding(x, y)", "int64[2,3]|idx6", "float32[6,4]",
  grad=True)
F("embedding.padding_idx.float32", "F.embedding(x, y, padding_idx=0)",
  "int64[2,5]|idx3", "float32[6,4]", grad=True)
F("embedding.padding_neg.float32", "F.embedding(x, y, padding_idx=-1)",
  "int64[8]|idx6", "float32[6,4]", grad=True)
F("embedding.int32_ids.float32", "F.embedding(x, y)", "int32[4]|idx6", "float32[6,4]")
F("embedding.1d.float64", "F.embedding(x, y)", "int64[4]|idx6", "float64[6,3]")
F("embedding.bad_padding_idx", "F.embedding(x, y, padding_idx=6)", "int64[4]|idx6",
  "float32[6,4]")
F("embedding.sparse.float32", "F.embedding(x, y, sparse=True)", "int64[4]|idx6",
  "float32[6,4]")

F("one_hot.int64", "F.one_hot(x, 5)", "int64[4]|idx5")
F("one_hot.int32", "F.one_hot(x, 5)", "int32[2,3]|idx5")
F("one_hot.2d.int64", "F.one_hot(x, num_classes=4)", "int64[3,1]|idx4")
F("one_hot.zero_d", "F.one_hot(x, 3)", "int64[]|idx3")
F("one_hot.bad_float", "F.one_hot(x, 3)", "float32[4]")

# ------------------------------------------------------------------ pad
F("pad.constant_full.float32", "F.pad(x, [1, 0, 0, 2])", X23, grad=True)
F("pad.constant_full_value.float32", "F.pad(x, [0, 1, 2, 1], value=1.5)", X23)
F("pad.constant_full_3d.int64", "F.pad(x, [1, 1, 0, 0, 2, 0], value=7)", "int64[2,2,3]")
F("pad.constant_full.float64", "F.pad(x, [1, 2], value=-1.0)", "float64[3]")
for mode in ("constant", "reflect", "replicate", "circular"):
    F(f"pad.{mode}.4d.float32", f"F.pad(x, [1, 2, 0, 1], mode='{mode}')",
      "float32[1,2,3,4]", grad=True)
    F(f"pad.{mode}.4d_nhwc.float32",
      f"F.pad(x, [1, 0, 2, 1], mode='{mode}', data_format='NHWC')", "float32[1,3,4,2]",
      grad=True)
    F(f"pad.{mode}.3d.float32", f"F.pad(x, [2, 1], mode='{mode}', data_format='NCL')",
      "float32[2,2,4]", grad=True)
    F(f"pad.{mode}.3d_nlc.float32", f"F.pad(x, [0, 2], mode='{mode}', data_format='NLC')",
      "float32[2,4,2]")
    F(f"pad.{mode}.5d.float32",
      f"F.pad(x, [1, 0, 0, 1, 1, 1], mode='{mode}', data_format='NCDHW')",
      "float32[1,2,2,3,3]", grad=True)
    F(f"pad.{mode}.4d.float64", f"F.pad(x, [1, 1, 1, 1], mode='{mode}')",
      "float64[1,2,3,3]")
F("pad.constant.4d_value.float32", "F.pad(x, [1, 1, 1, 1], value=2.5)", "float32[1,2,3,3]")
F("pad.constant.3d_value.float32", "F.pad(x, [1, 2], value=-1.0, data_format='NCL')",
  "float32[2,2,3]")
F("pad.reflect.too_wide", "F.pad(x, [4, 0, 0, 0], mode='reflect')", "float32[1,2,3,3]")
F("pad.bad_mode", "F.pad(x, [1, 1, 1, 1], mode='edge')", "float32[1,2,3,3]")
F("pad.bad_rank", "F.pad(x, [1, 1], mode='reflect')", "float32[2,3]")
F("pad.bad_format", "F.pad(x, [1, 1, 1, 1], mode='reflect', data_format='NCL')",
  "float32[1,2,3,3]")

# ------------------------------------------------------------------ interpolate
INTERP = {
    "nearest.size": "size=[6, 8]",
    "nearest.scale": "scale_factor=2",
    "nearest.scale_list": "scale_factor=[2, 1.5]",
    "nearest.scale_down": "scale_factor=0.5",
    "nearest.size_down": "size=[3, 2]",
    "bilinear.size": "size=[6, 8], mode='bilinear'",
    "bilinear.size_align": "size=[6, 8], mode='bilinear', align_corners=True",
    "bilinear.scale": "scale_factor=2, mode='bilinear'",
    "bilinear.scale_align": "scale_factor=1.5, mode='bilinear', align_corners=True",
    "bilinear.align_mode1": "size=[7, 5], mode='bilinear', align_mode=1",
    "bilinear.down": "size=[2, 3], mode='bilinear'",
    "bicubic.size": "size=[6, 8], mode='bicubic'",
    "bicubic.align": "size=[6, 8], mode='bicubic', align_corners=True",
    "bicubic.scale": "scale_factor=2, mode='bicubic'",
    "area.size": "size=[2, 3], mode='area'",
    "area.up": "size=[5, 6], mode='area'",
}
for name, opts in INTERP.items():
    F(f"interpolate.{name}.float32", f"F.interpolate(x, {opts})", "float32[1,2,4,4]",
      grad=True, rtol=1e-4, atol=1e-5)
F("interpolate.nearest.nhwc.float32",
  "F.interpolate(x, size=[6, 8], data_format='NHWC')", "float32[1,4,4,2]", grad=True)
F("interpolate.bilinear.nhwc.float32",
  "F.interpolate(x, scale_factor=2, mode='bilinear', data_format='NHWC')",
  "float32[1,4,4,2]", grad=True)
F("interpolate.bilinear.float64", "F.interpolate(x, size=[5, 7], mode='bilinear')",
  "float64[1,2,4,4]")
F("interpolate.nearest.float64", "F.interpolate(x, scale_factor=3)", "float64[1,1,2,3]")
F("interpolate.linear.size.float32", "F.interpolate(x, size=[7], mode='linear', "
  "data_format='NCW')", "float32[2,3,4]", grad=True)
F("interpolate.linear.align.float32", "F.interpolate(x, scale_factor=2, mode='linear', "
  "align_corners=True, data_format='NCW')", "float32[2,3,4]", grad=True)
F("interpolate.nearest.3d.float32", "F.interpolate(x, size=[8], data_format='NCW')",
  "float32[2,3,4]", grad=True)
F("interpolate.trilinear.float32", "F.interpolate(x, size=[3, 4, 5], mode='trilinear', "
  "data_format='NCDHW')", "float32[1,2,2,3,3]", grad=True, rtol=1e-4, atol=1e-5)
F("interpolate.nearest.5d.float32", "F.interpolate(x, scale_factor=2, "
  "data_format='NCDHW')", "float32[1,2,2,3,3]")
F("interpolate.area.1d.float32", "F.interpolate(x, size=[3], mode='area', "
  "data_format='NCW')", "float32[2,3,7]")
F("interpolate.size_tensor.float32", "F.interpolate(x, size=[y, 6])", "float32[1,2,4,4]",
  "int32[1]|pos", modes=("eager",))
F("interpolate.bad_mode", "F.interpolate(x, size=[6, 8], mode='cubic')",
  "float32[1,2,4,4]")
F("interpolate.nearest_align", "F.interpolate(x, size=[6, 8], align_corners=True)",
  "float32[1,2,4,4]")
F("interpolate.both", "F.interpolate(x, size=[6, 8], scale_factor=2)", "float32[1,2,4,4]")
F("interpolate.neither", "F.interpolate(x)", "float32[1,2,4,4]")
F("interpolate.bad_size_len", "F.interpolate(x, size=[6])", "float32[1,2,4,4]")
F("upsample.nearest.float32", "F.upsample(x, scale_factor=2)", "float32[1,2,3,3]",
  grad=True)
F("upsample.bilinear.float32", "F.upsample(x, size=[5, 5], mode='bilinear', "
  "align_corners=True)", "float32[1,2,3,3]", grad=True, rtol=1e-4, atol=1e-5)
F("upsample.bicubic.float32", "F.upsample(x, scale_factor=2, mode='bicubic')",
  "float32[1,2,3,3]", rtol=1e-4, atol=1e-5)

# ------------------------------------------------------------------ pixel_shuffle, linear
F("pixel_shuffle.nchw.float32", "F.pixel_shuffle(x, 2)", "float32[2,8,2,3]", grad=True)
F("pixel_shuffle.nhwc.float32", "F.pixel_shuffle(x, 2, data_format='NHWC')",
  "float32[2,2,3,8]", grad=True)
F("pixel_shuffle.factor3.float64", "F.pixel_shuffle(x, 3)", "float64[1,9,2,2]")
F("pixel_shuffle.int64", "F.pixel_shuffle(x, 2)", "int64[1,4,2,2]")
F("pixel_shuffle.bad_rank", "F.pixel_shuffle(x, 2)", "float32[8,2,3]")
F("pixel_shuffle.bad_format", "F.pixel_shuffle(x, 2, data_format='NCL')",
  "float32[2,8,2,3]")

F("linear.bias.float32", "F.linear(x, y, z)", "float32[3,4]", "float32[4,5]",
  "float32[5]", grad=True)
F("linear.nobias.float32", "F.linear(x, y)", "float32[3,4]", "float32[4,5]", grad=True)
F("linear.3d.float32", "F.linear(x, y, z)", "float32[2,3,4]", "float32[4,5]",
  "float32[5]", grad=True)
F("linear.1d.float32", "F.linear(x, y, z)", "float32[4]", "float32[4,5]", "float32[5]",
  grad=True)
F("linear.float64", "F.linear(x, y, z)", "float64[3,4]", "float64[4,5]", "float64[5]",
  grad=True)
F("linear.bad_shape", "F.linear(x, y)", "float32[3,4]", "float32[5,4]")

# ------------------------------------------------------------------ dropout family
# deterministic forms only: p=0, or training=False
for name, call in (
        ("dropout.p0", "F.dropout(x, p=0.0)"),
        ("dropout.p0_int", "F.dropout(x, p=0)"),
        ("dropout.eval", "F.dropout(x, p=0.5, training=False)"),
        ("dropout.eval_downscale", "F.dropout(x, p=0.3, training=False, "
                                   "mode='downscale_in_infer')"),
        ("dropout.eval_axis", "F.dropout(x, p=0.5, axis=1, training=False)"),
        ("dropout.eval_axis_downscale", "F.dropout(x, p=0.4, axis=[0, 1], "
                                        "training=False, mode='downscale_in_infer')"),
        ("dropout.p0_axis", "F.dropout(x, p=0.0, axis=0)"),
        ("dropout.p1_eval", "F.dropout(x, p=1.0, training=False)"),
        ("dropout2d.eval", "F.dropout2d(x.reshape([1, 2, 3, 2]), training=False)"),
        ("dropout2d.p0", "F.dropout2d(x.reshape([1, 2, 3, 2]), p=0.0)"),
        ("dropout3d.eval", "F.dropout3d(x.reshape([1, 2, 3, 1, 2]), training=False)"),
        ("dropout3d.p0", "F.dropout3d(x.reshape([1, 2, 3, 1, 2]), p=0.0)"),
        ("alpha_dropout.eval", "F.alpha_dropout(x, p=0.5, training=False)"),
        ("alpha_dropout.p0", "F.alpha_dropout(x, p=0.0)")):
    F(f"{name}.float32", call, "float32[3,4]", grad=True)
F("dropout.p0.float64", "F.dropout(x, p=0.0)", "float64[3,4]")
F("dropout.eval.float64", "F.dropout(x, 0.2, training=False)", "float64[3,4]")
F("dropout.eval.int64", "F.dropout(x, 0.2, training=False)", "int64[3,4]")
F("dropout.p1.float32", "F.dropout(x, p=1.0)", "float32[3,4]")
F("dropout.bad_p", "F.dropout(x, p=1.5)", "float32[3,4]")
F("dropout.bad_p_type", "F.dropout(x, p='0.5')", "float32[3,4]")
F("dropout.bad_mode", "F.dropout(x, p=0.5, mode='scale')", "float32[3,4]")
F("dropout2d.bad_rank", "F.dropout2d(x, training=False)", "float32[3,4]")
F("dropout2d.bad_format", "F.dropout2d(x, training=False, data_format='NCL')",
  "float32[1,2,3,4]")
F("alpha_dropout.bad_p", "F.alpha_dropout(x, p=-0.1)", "float32[3,4]")

# added after the first recording: depthwise transposed 1-D conv, negative padding
F("conv1d_transpose.depthwise.float32", "F.conv1d_transpose(x, y, z, groups=4)",
  "float32[2,4,6]", "float32[4,1,3]", "float32[4]", grad=True, rtol=1e-4, atol=1e-5)
F("conv1d_transpose.bad_outpad", "F.conv1d_transpose(x, y, stride=1, output_padding=2)",
  "float32[2,4,6]", "float32[4,3,3]")
F("conv2d.neg_padding", "F.conv2d(x, y, padding=-1)", "float32[2,4,6,6]",
  "float32[6,4,3,3]")
F("conv1d.neg_padding", "F.conv1d(x, y, padding=[-1])", "float32[2,4,8]", "float32[6,4,3]")
F("max_pool2d.neg_padding", "F.max_pool2d(x, 2, padding=-1)", "float32[2,3,6,6]",
  paddle_bug="Paddle 2.6.2's pooling accepts a negative padding (it crops the input); "
             "sampan refuses it as Paddle's convolutions do", want="error")
F("avg_pool1d.neg_padding", "F.avg_pool1d(x, 2, padding=[-1])", "float32[2,3,8]",
  paddle_bug="Paddle 2.6.2's pooling accepts a negative padding (it crops the input); "
             "sampan refuses it as Paddle's convolutions do", want="error")
F("interpolate.linear.nwc.float32", "F.interpolate(x, size=[9], mode='linear', "
  "data_format='NWC')", "float32[2,4,3]", grad=True)
F("interpolate.linear.align_mode1.float64", "F.interpolate(x, scale_factor=1.7, "
  "mode='linear', align_mode=1, data_format='NCW')", "float64[1,2,5]", grad=True)
F("interpolate.linear.down.float32", "F.interpolate(x, size=[3], mode='linear', "
  "data_format='NCW')", "float32[1,2,7]")
F("interpolate.bicubic.nhwc.float32", "F.interpolate(x, size=[5, 7], mode='bicubic', "
  "data_format='NHWC')", "float32[1,4,4,2]", grad=True, rtol=1e-4, atol=1e-5)
F("interpolate.bicubic.down.float64", "F.interpolate(x, size=[3, 2], mode='bicubic')",
  "float64[1,2,5,5]", grad=True)
F("interpolate.trilinear.align.float32", "F.interpolate(x, scale_factor=[2, 1.5, 2], "
  "mode='trilinear', align_corners=True, data_format='NCDHW')", "float32[1,2,2,2,3]",
  grad=True, rtol=1e-4, atol=1e-5)
F("interpolate.trilinear.ndhwc.float64", "F.interpolate(x, size=[3, 3, 4], "
  "mode='trilinear', data_format='NDHWC')", "float64[1,2,2,3,2]", grad=True)
F("interpolate.nearest.5d_size.float32", "F.interpolate(x, size=[3, 4, 5], "
  "data_format='NCDHW')", "float32[1,2,2,3,3]", grad=True)
F("interpolate.nearest.int64", "F.interpolate(x, scale_factor=2)", "int64[1,1,2,3]")
F("interpolate.area.nhwc.float32", "F.interpolate(x, size=[2, 2], mode='area', "
  "data_format='NHWC')", "float32[1,4,4,3]")
F("interpolate.linear.4d", "F.interpolate(x, size=[6, 8], mode='linear')",
  "float32[1,2,4,4]")
F("interpolate.trilinear.4d", "F.interpolate(x, size=[6, 8], mode='trilinear')",
  "float32[1,2,4,4]")
F("interpolate.bad_format_3d", "F.interpolate(x, size=[6], mode='linear')",
  "float32[1,2,4]")
# asymmetric pooling pads (Paddle's kernels bound windows by the leading pad)
F("avg_pool2d.asym_inclusive_ceil.float32",
  "F.avg_pool2d(x, 3, 2, padding=[1, 0, 0, 2], ceil_mode=True, exclusive=False)",
  "float32[1,2,6,7]", grad=True)
F("avg_pool2d.asym_exclusive.float32", "F.avg_pool2d(x, 2, 2, padding=[0, 1, 1, 0])",
  "float32[1,2,5,5]", grad=True)
F("max_pool2d.asym_ceil.float32",
  "F.max_pool2d(x, 3, 2, padding=[0, 2, 1, 1], ceil_mode=True)", "float32[1,2,6,6]",
  grad=True)
F("avg_pool1d.ceil_inclusive.float32", "F.avg_pool1d(x, 3, 2, 1, exclusive=False, "
  "ceil_mode=True)", "float32[2,3,8]", grad=True)
