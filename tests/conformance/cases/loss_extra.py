"""``paddle.nn.functional``'s extra losses (nn/functional/loss_extra.py), and
their layers: square_error_cost, log_loss, dice_loss, soft_margin_loss,
hinge_embedding_loss, cosine_embedding_loss, multi_label_soft_margin_loss,
poisson_nll_loss, with every reduction, their options, float64 and the
argument errors.  Labels in {-1, 1} are written ``y * 2 - 1`` over 0/1 inputs,
so those ops are part of the recorded Program on both sides."""
from spec import C

CASES = []
REDUCTIONS = ("mean", "sum", "none")


def F(id, code, *args, **kw):
    CASES.append(C(id, code.replace("F.", "paddle.nn.functional."), *args, **kw))


# square_error_cost
F("square_error_cost.float32", "F.square_error_cost(x, y)", "float32[3,4]", "float32[3,4]",
  grad=True)
F("square_error_cost.float64", "F.square_error_cost(x, y)", "float64[2,5]", "float64[2,5]")
F("square_error_cost.bcast.float32", "F.square_error_cost(x, y)", "float32[3,4]",
  "float32[4]")

# log_loss: Paddle's log_loss op, float32 only
F("log_loss.float32", "F.log_loss(F.sigmoid(x), y)", "float32[5,1]", "float32[5,1]|idx2",
  grad=True)
F("log_loss.epsilon.float32", "F.log_loss(F.sigmoid(x), y, epsilon=0.01)", "float32[4,1]",
  "float32[4,1]|idx2", grad=True)
F("log_loss.bad_width", "F.log_loss(F.sigmoid(x), y)", "float32[3,4]", "float32[3,4]|idx2")
F("log_loss.bad_rank", "F.log_loss(F.sigmoid(x), y)", "float32[4]", "float32[4]|idx2")
F("log_loss.bad_shape", "F.log_loss(F.sigmoid(x), y)", "float32[3,1]", "float32[4,1]|idx2")
F("log_loss.float64", "F.log_loss(F.sigmoid(x), y)", "float64[3,1]", "float64[3,1]|idx2",
  note="Paddle registers log_loss for float32 only")

# dice_loss
F("dice_loss.float32", "F.dice_loss(F.softmax(x), y)", "float32[2,3,4]", "int64[2,3,1]|idx4",
  grad=True)
F("dice_loss.2d.float64", "F.dice_loss(F.softmax(x), y)", "float64[5,3]", "int64[5,1]|idx3")
F("dice_loss.int32_label.float32", "F.dice_loss(F.softmax(x), y, epsilon=0.1)",
  "float32[3,2]", "int32[3,1]|idx2")

# soft_margin_loss
for r in REDUCTIONS:
    F(f"soft_margin_loss.{r}.float32", f"F.soft_margin_loss(x, y * 2 - 1, reduction='{r}')",
      "float32[3,4]", "float32[3,4]|idx2", grad=True)
    F(f"SoftMarginLoss.{r}.float32",
      f"paddle.nn.SoftMarginLoss(reduction='{r}')(x, y * 2 - 1)",
      "float32[3,4]", "float32[3,4]|idx2")
F("soft_margin_loss.int_label.float64", "F.soft_margin_loss(x, y * 2 - 1)", "float64[6]",
  "int64[6]|idx2")
F("soft_margin_loss.bad_reduction", "F.soft_margin_loss(x, y, reduction='max')",
  "float32[3]", "float32[3]")
F("soft_margin_loss.bad_shape", "F.soft_margin_loss(x, y)", "float32[3]", "float32[1,3]")
F("SoftMarginLoss.bad_reduction", "paddle.nn.SoftMarginLoss(reduction='max')(x, y)",
  "float32[3]", "float32[3]")

# hinge_embedding_loss
for r in REDUCTIONS:
    F(f"hinge_embedding_loss.{r}.float32",
      f"F.hinge_embedding_loss(x, y * 2 - 1, reduction='{r}')",
      "float32[3,4]", "float32[3,4]|idx2", grad=True)
    F(f"HingeEmbeddingLoss.{r}.float32",
      f"paddle.nn.HingeEmbeddingLoss(margin=0.5, reduction='{r}')(x, y * 2 - 1)",
      "float32[3,4]", "float32[3,4]|idx2")
F("hinge_embedding_loss.margin.float64", "F.hinge_embedding_loss(x, y * 2 - 1, margin=2.0)",
  "float64[2,5]", "float64[2,5]|idx2")
F("hinge_embedding_loss.other_labels.float32", "F.hinge_embedding_loss(x, y)",
  "float32[8]", "float32[8]|idx3", note="labels other than 1 and -1 give 0")
F("hinge_embedding_loss.bad_reduction", "F.hinge_embedding_loss(x, y, reduction='max')",
  "float32[3]", "float32[3]")

# cosine_embedding_loss
for r in REDUCTIONS:
    F(f"cosine_embedding_loss.{r}.float32",
      f"F.cosine_embedding_loss(x, y, z * 2 - 1, margin=0.2, reduction='{r}')",
      "float32[4,5]", "float32[4,5]", "int64[4]|idx2", grad=True)
    F(f"CosineEmbeddingLoss.{r}.float32",
      f"paddle.nn.CosineEmbeddingLoss(margin=0.1, reduction='{r}')(x, y, z * 2 - 1)",
      "float32[4,5]", "float32[4,5]", "float32[4]|idx2")
F("cosine_embedding_loss.1d.float64", "F.cosine_embedding_loss(x, y, z * 2 - 1)",
  "float64[5]", "float64[5]", "int32[1]|idx2")
F("cosine_embedding_loss.bad_label_rank", "F.cosine_embedding_loss(x, y, z)",
  "float32[4,5]", "float32[4,5]", "int64[4,1]|idx2")
F("cosine_embedding_loss.bad_shapes", "F.cosine_embedding_loss(x, y, z)",
  "float32[4,5]", "float32[4,3]", "int64[4]|idx2")
F("cosine_embedding_loss.bad_rank", "F.cosine_embedding_loss(x, y, z)",
  "float32[2,4,5]", "float32[2,4,5]", "int64[2]|idx2")
F("cosine_embedding_loss.bad_dtype", "F.cosine_embedding_loss(x, y, z)",
  "int64[4,5]", "int64[4,5]", "int64[4]|idx2")
F("CosineEmbeddingLoss.bad_margin", "paddle.nn.CosineEmbeddingLoss(margin=1.5)(x, y, z)",
  "float32[4,5]", "float32[4,5]", "int64[4]|idx2")

# multi_label_soft_margin_loss
for r in REDUCTIONS:
    F(f"multi_label_soft_margin_loss.{r}.float32",
      f"F.multi_label_soft_margin_loss(x, y, reduction='{r}')",
      "float32[3,4]", "float32[3,4]|idx2", grad=True)
    F(f"MultiLabelSoftMarginLoss.{r}.float32",
      f"paddle.nn.MultiLabelSoftMarginLoss(reduction='{r}')(x, y)",
      "float32[3,4]", "float32[3,4]|idx2")
F("multi_label_soft_margin_loss.weight.float32",
  "F.multi_label_soft_margin_loss(x, y, weight=z)",
  "float32[3,4]", "float32[3,4]|idx2", "float32[4]|pos", grad=True)
F("MultiLabelSoftMarginLoss.weight.float64",
  "paddle.nn.MultiLabelSoftMarginLoss(weight=z, reduction='sum')(x, y)",
  "float64[2,5]", "float64[2,5]|idx2", "float64[2,5]|pos")
F("multi_label_soft_margin_loss.bad_shape", "F.multi_label_soft_margin_loss(x, y)",
  "float32[3,4]", "float32[3]")
F("multi_label_soft_margin_loss.bad_reduction",
  "F.multi_label_soft_margin_loss(x, y, reduction='max')", "float32[3,4]", "float32[3,4]")

# poisson_nll_loss
for r in REDUCTIONS:
    F(f"poisson_nll_loss.{r}.float32", f"F.poisson_nll_loss(x, y, reduction='{r}')",
      "float32[3,4]", "float32[3,4]|pos", grad=True)
    F(f"PoissonNLLLoss.{r}.float32", f"paddle.nn.PoissonNLLLoss(reduction='{r}')(x, y)",
      "float32[3,4]", "float32[3,4]|pos")
F("poisson_nll_loss.no_log_input.float32",
  "F.poisson_nll_loss(x, y, log_input=False, epsilon=1e-6)",
  "float32[3,4]|pos", "float32[3,4]|pos", grad=True)
F("poisson_nll_loss.full.float32", "F.poisson_nll_loss(x, y, full=True)",
  "float32[3,4]", "float32[3,4]|pos", grad=True)
F("poisson_nll_loss.full.float64", "F.poisson_nll_loss(x, y, log_input=False, full=True)",
  "float64[2,5]|pos", "float64[2,5]|pos")
F("PoissonNLLLoss.full.float32",
  "paddle.nn.PoissonNLLLoss(log_input=False, full=True, reduction='sum')(x, y)",
  "float32[3,4]|pos", "float32[3,4]|pos")
F("poisson_nll_loss.bad_epsilon", "F.poisson_nll_loss(x, y, epsilon=0.0)",
  "float32[3,4]", "float32[3,4]|pos")
F("poisson_nll_loss.bad_shape", "F.poisson_nll_loss(x, y)", "float32[3,4]", "float32[4]|pos")
F("PoissonNLLLoss.bad_reduction", "paddle.nn.PoissonNLLLoss(reduction='max')(x, y)",
  "float32[3,4]", "float32[3,4]|pos")

# multi_margin_loss
for r in REDUCTIONS:
    F(f"multi_margin_loss.{r}.float32", f"F.multi_margin_loss(x, y, reduction='{r}')",
      "float32[4,5]", "int64[4]|idx5", grad=True)
    F(f"MultiMarginLoss.{r}.float32",
      f"paddle.nn.MultiMarginLoss(p=2, margin=0.5, reduction='{r}')(x, y)",
      "float32[4,5]", "int64[4]|idx5")
F("multi_margin_loss.p2.float64", "F.multi_margin_loss(x, y, p=2, margin=0.7)",
  "float64[3,4]", "int32[3]|idx4")
F("multi_margin_loss.weight.float32", "F.multi_margin_loss(x, y, weight=z)",
  "float32[4,5]", "int64[4]|idx5", "float32[5]|pos", grad=True)
F("MultiMarginLoss.weight.float32",
  "paddle.nn.MultiMarginLoss(weight=z, reduction='sum')(x, y)",
  "float32[4,5]", "int64[4]|idx5", "float32[5]|pos")
F("multi_margin_loss.bad_batch", "F.multi_margin_loss(x, y)", "float32[4,5]", "int64[3]|idx5")
F("multi_margin_loss.bad_weight", "F.multi_margin_loss(x, y, weight=z)",
  "float32[4,5]", "int64[4]|idx5", "float32[4]|pos")
F("MultiMarginLoss.bad_reduction", "paddle.nn.MultiMarginLoss(reduction='max')(x, y)",
  "float32[4,5]", "int64[4]|idx5")

# triplet_margin_loss
for r in REDUCTIONS:
    F(f"triplet_margin_loss.{r}.float32",
      f"F.triplet_margin_loss(x, y, z, reduction='{r}')",
      "float32[4,5]", "float32[4,5]", "float32[4,5]", grad=True)
    F(f"TripletMarginLoss.{r}.float32",
      f"paddle.nn.TripletMarginLoss(margin=0.5, p=1.0, reduction='{r}')(x, y, z)",
      "float32[4,5]", "float32[4,5]", "float32[4,5]")
F("triplet_margin_loss.swap.float32", "F.triplet_margin_loss(x, y, z, swap=True, p=3)",
  "float32[4,5]", "float32[4,5]", "float32[4,5]", grad=True)
F("triplet_margin_loss.float64", "F.triplet_margin_loss(x, y, z, margin=2.0, epsilon=0.0)",
  "float64[3,4]", "float64[3,4]", "float64[3,4]")
F("TripletMarginLoss.swap.float32",
  "paddle.nn.TripletMarginLoss(swap=True, reduction='sum')(x, y, z)",
  "float32[4,5]", "float32[4,5]", "float32[4,5]")
F("triplet_margin_loss.bad_margin", "F.triplet_margin_loss(x, y, z, margin=-1.0)",
  "float32[4,5]", "float32[4,5]", "float32[4,5]")
F("triplet_margin_loss.bad_shape", "F.triplet_margin_loss(x, y, z)",
  "float32[4,5]", "float32[4,5]", "float32[4,4]")

# sigmoid_focal_loss ('sum' by default); labels are 0/1
for r in REDUCTIONS:
    F(f"sigmoid_focal_loss.{r}.float32", f"F.sigmoid_focal_loss(x, y, reduction='{r}')",
      "float32[3,4]", "float32[3,4]|idx2", grad=True)
F("sigmoid_focal_loss.normalizer.float32",
  "F.sigmoid_focal_loss(x, y, normalizer=z, alpha=0.5, gamma=1.5)",
  "float32[3,4]", "float32[3,4]|idx2", "float32[1]|pos", grad=True)
F("sigmoid_focal_loss.float64", "F.sigmoid_focal_loss(x, y, gamma=0.0, reduction='mean')",
  "float64[2,5]", "float64[2,5]|idx2")
F("sigmoid_focal_loss.bad_normalizer", "F.sigmoid_focal_loss(x, y, normalizer=z)",
  "float32[3,4]", "float32[3,4]|idx2", "float32[1,1]|pos")
F("sigmoid_focal_loss.bad_reduction", "F.sigmoid_focal_loss(x, y, reduction='max')",
  "float32[3,4]", "float32[3,4]|idx2")

# npair_loss
F("npair_loss.float32", "F.npair_loss(x, y, z)", "float32[4,3]", "float32[4,3]",
  "float32[4]|idx3", grad=True)
F("npair_loss.int64_labels.float32", "F.npair_loss(x, y, z, l2_reg=0.1)",
  "float32[5,2]", "float32[5,2]", "int64[5]|idx2")
NPAIR_F64_BUG = ("Paddle 2.6.2's npair_loss casts the same-label matrix to float32, so with "
                 "float64 embeddings its soft-label softmax_with_cross_entropy fails (float32 "
                 "label against float64 logits); sampan builds that matrix in the embeddings' "
                 "dtype and returns the float64 loss")
# numpy: the row-normalised same-label matrix, the soft-label
# cross entropy of x @ y.T, weighted by the labels, plus the L2 term
_NPAIR = ("(lambda L, S: np.asarray((np.mean((x ** 2).sum(1)) + np.mean((y ** 2).sum(1)))"
          " * 0.25 * 0.002 + np.mean((L * -(L * (S - np.log(np.exp(S).sum(1, keepdims=True))))"
          ".sum(1, keepdims=True)).sum(0))))"
          "((lambda E: E / E.sum(1, keepdims=True))((z[:, None] == z[None, :])"
          ".astype('float64')), x @ y.T)")
F("npair_loss.float64", "F.npair_loss(x, y, z)", "float64[3,4]", "float64[3,4]",
  "float64[3]|idx3", paddle_bug=NPAIR_F64_BUG, want=_NPAIR)

# gaussian_nll_loss: heteroscedastic, homoscedastic (one dim short, or last dim 1)
for r in REDUCTIONS:
    F(f"gaussian_nll_loss.{r}.float32", f"F.gaussian_nll_loss(x, y, z, reduction='{r}')",
      "float32[3,4]", "float32[3,4]", "float32[3,4]|pos", grad=True)
    F(f"GaussianNLLLoss.{r}.float32",
      f"paddle.nn.GaussianNLLLoss(full=True, reduction='{r}')(x, y, z)",
      "float32[3,4]", "float32[3,4]", "float32[3,4]|pos")
F("gaussian_nll_loss.full.float64", "F.gaussian_nll_loss(x, y, z, full=True, epsilon=0.5)",
  "float64[2,5]", "float64[2,5]", "float64[2,5]|pos", grad=True)
F("gaussian_nll_loss.short_var.float32", "F.gaussian_nll_loss(x, y, z)",
  "float32[3,4]", "float32[3,4]", "float32[3]|pos", grad=True)
F("gaussian_nll_loss.var_dim1.float32", "F.gaussian_nll_loss(x, y, z, reduction='none')",
  "float32[3,4]", "float32[3,4]", "float32[3,1]|pos")
F("gaussian_nll_loss.zero_var.float32", "F.gaussian_nll_loss(x, y, z * 0)",
  "float32[3,4]", "float32[3,4]", "float32[3,4]|pos", modes=("eager",),
  note="a zero variance is clamped to epsilon eagerly (Paddle's static assert refuses it)")
F("gaussian_nll_loss.neg_var", "F.gaussian_nll_loss(x, y, -z)",
  "float32[3,4]", "float32[3,4]", "float32[3,4]|pos")
F("gaussian_nll_loss.bad_var_shape", "F.gaussian_nll_loss(x, y, z)",
  "float32[3,4]", "float32[3,4]", "float32[3,2]|pos")
F("gaussian_nll_loss.bad_reduction", "F.gaussian_nll_loss(x, y, z, reduction='max')",
  "float32[3,4]", "float32[3,4]", "float32[3,4]|pos")

# triplet_margin_with_distance_loss: the default distance, a function, swap
for r in REDUCTIONS:
    F(f"triplet_margin_with_distance_loss.{r}.float32",
      f"F.triplet_margin_with_distance_loss(x, y, z, reduction='{r}')",
      "float32[4,5]", "float32[4,5]", "float32[4,5]", grad=True)
    F(f"TripletMarginWithDistanceLoss.{r}.float32",
      f"paddle.nn.TripletMarginWithDistanceLoss(margin=0.5, reduction='{r}')(x, y, z)",
      "float32[4,5]", "float32[4,5]", "float32[4,5]")
F("triplet_margin_with_distance_loss.fn.float32",
  "F.triplet_margin_with_distance_loss(x, y, z, distance_function="
  "lambda a, b: paddle.abs(a - b).sum(-1), swap=True, margin=2.0)",
  "float32[4,5]", "float32[4,5]", "float32[4,5]", grad=True)
F("triplet_margin_with_distance_loss.float64",
  "F.triplet_margin_with_distance_loss(x, y, z, margin=0.0)",
  "float64[3,4]", "float64[3,4]", "float64[3,4]")
F("triplet_margin_with_distance_loss.zero_dist",
  "F.triplet_margin_with_distance_loss(x, x, z, distance_function="
  "lambda a, b: paddle.abs(a - b).sum(-1))",
  "float32[4,5]", "float32[4,5]", "float32[4,5]", modes=("eager",),
  note="a distance that is not positive is refused eagerly")
F("triplet_margin_with_distance_loss.bad_margin",
  "F.triplet_margin_with_distance_loss(x, y, z, margin=-0.5)",
  "float32[4,5]", "float32[4,5]", "float32[4,5]")
TMWD_LAYER_BUG = ("Paddle 2.6.2's TripletMarginWithDistanceLoss.forward drops its "
                  "distance_function (always the 2-norm); sampan uses the one given")
F("TripletMarginWithDistanceLoss.fn.float32",
  "paddle.nn.TripletMarginWithDistanceLoss(distance_function="
  "lambda a, b: paddle.abs(a - b).sum(-1))(x, y, z)",
  "float32[4,5]", "float32[4,5]", "float32[4,5]", paddle_bug=TMWD_LAYER_BUG,
  want="np.asarray(np.maximum(np.abs(x - y).sum(-1) - np.abs(x - z).sum(-1) + 1.0, 0)"
       ".mean(), 'float32')")

# ctc_loss: Paddle's warpctc op over unscaled logits [T, B, C]; labels y + 1 avoid the blank
_CTC_LENS = ("paddle.to_tensor([6, 4, 5], dtype='int64'), "
             "paddle.to_tensor([3, 1, 2], dtype='int64')")
for r in REDUCTIONS:
    F(f"ctc_loss.{r}.float32", f"F.ctc_loss(x, y + 1, {_CTC_LENS}, reduction='{r}')",
      "float32[6,3,5]", "int32[3,3]|idx4", grad=True)
    F(f"CTCLoss.{r}.float32", f"paddle.nn.CTCLoss(reduction='{r}')(x, y + 1, {_CTC_LENS})",
      "float32[6,3,5]", "int32[3,3]|idx4")
F("ctc_loss.norm_by_times.float32",
  f"F.ctc_loss(x, y + 1, {_CTC_LENS}, reduction='sum', norm_by_times=True)",
  "float32[6,3,5]", "int32[3,3]|idx4", grad=True)
F("ctc_loss.blank_last.float64",
  "F.ctc_loss(x, y, paddle.full([2], 7, 'int64'), paddle.full([2], 3, 'int64'), blank=4)",
  "float64[7,2,5]", "int32[2,3]|idx4", grad=True)
F("ctc_loss.repeats.float32",
  "F.ctc_loss(x, y * 0 + 2, paddle.full([2], 6, 'int64'), "
  "paddle.to_tensor([3, 0], dtype='int64'), reduction='none')",
  "float32[6,2,4]", "int32[2,3]|idx4", grad=True,
  note="repeated labels need a blank between them; a label length of 0")
F("CTCLoss.blank.float32",
  "paddle.nn.CTCLoss(blank=2)(x, y, paddle.full([2], 5, 'int64'), "
  "paddle.full([2], 2, 'int64'), norm_by_times=True)",
  "float32[5,2,3]", "int32[2,2]|idx2", grad=True)
F("ctc_loss.bad_label_dtype",
  "F.ctc_loss(x, y, paddle.full([2], 5, 'int64'), paddle.full([2], 2, 'int64'))",
  "float32[5,2,3]", "int64[2,2]|idx2")
F("ctc_loss.bad_length_dtype",
  "F.ctc_loss(x, y, paddle.full([2], 5, 'int32'), paddle.full([2], 2, 'int32'))",
  "float32[5,2,3]", "int32[2,2]|idx2")

# hsigmoid_loss: Paddle's hierarchical_sigmoid op; the default tree, a custom one
F("hsigmoid_loss.float32", "F.hsigmoid_loss(x, y, 6, z, w)",
  "float32[4,3]", "int64[4]|idx6", "float32[5,3]", "float32[5,1]", grad=True)
F("hsigmoid_loss.no_bias.float64", "F.hsigmoid_loss(x, y, 5, z)",
  "float64[3,4]", "int64[3]|idx5", "float64[4,4]", grad=True)
F("hsigmoid_loss.label_2d.float32", "F.hsigmoid_loss(x, y, 2, z, w)",
  "float32[3,2]", "int64[3,1]|idx2", "float32[1,2]", "float32[1,1]", grad=True)
_HS_TREE = ("path_table=paddle.to_tensor([[0, 1, -1], [0, 2, 3], [0, 1, -1]], "
            "dtype='int64'), path_code=paddle.to_tensor([[1, 0, -1], [0, 1, 1], "
            "[0, 1, -1]], dtype='int64')")
F("hsigmoid_loss.custom.float32", f"F.hsigmoid_loss(x, y, 4, z, w, {_HS_TREE})",
  "float32[3,3]", "int64[3]|idx4", "float32[4,3]", "float32[4,1]", grad=True)
F("HSigmoidLoss.float32",
  "m = paddle.nn.HSigmoidLoss(3, 5, weight_attr=paddle.ParamAttr(initializer="
  "paddle.nn.initializer.Constant(0.3)), bias_attr=paddle.ParamAttr(initializer="
  "paddle.nn.initializer.Constant(-0.2)))\nreturn m(x, y), m.weight.shape, m.bias.shape",
  "float32[4,3]", "int64[4]|idx5", modes=("eager",),
  note="the layer's parameters (constant-initialised) and their shapes")
F("HSigmoidLoss.custom.shapes",
  "m = paddle.nn.HSigmoidLoss(3, 4, is_custom=True)\nreturn m.weight.shape, m.bias.shape",
  modes=("eager",))
F("hsigmoid_loss.bad_num_classes", "F.hsigmoid_loss(x, y, 1, z)",
  "float32[4,3]", "int64[4]|idx1", "float32[1,3]")
F("HSigmoidLoss.bad_num_classes", "paddle.nn.HSigmoidLoss(3, 1)(x, y)",
  "float32[4,3]", "int64[4]|idx1")

# rnnt_loss: Paddle's warprnnt op over [B, T, U + 1, V] (log-probabilities as given on
# the CPU); labels y + 1 avoid the blank; FastEmit scales only the gradient
_RNNT_LENS = ("paddle.to_tensor([4, 3], dtype='int32'), "
              "paddle.to_tensor([2, 1], dtype='int32')")
for r in REDUCTIONS:
    F(f"rnnt_loss.{r}.float32",
      f"F.rnnt_loss(F.log_softmax(x), y + 1, {_RNNT_LENS}, reduction='{r}')",
      "float32[2,4,3,5]", "int32[2,2]|idx4", grad=True)
    F(f"RNNTLoss.{r}.float32",
      f"paddle.nn.RNNTLoss(fastemit_lambda=0.0, reduction='{r}')(x, y + 1, {_RNNT_LENS})",
      "float32[2,4,3,5]", "int32[2,2]|idx4", grad=True)
F("rnnt_loss.fastemit.float64",
  f"F.rnnt_loss(x, y + 1, {_RNNT_LENS}, fastemit_lambda=0.5, reduction='sum')",
  "float64[2,4,3,5]", "int32[2,2]|idx4", grad=True)
F("rnnt_loss.blank_last.float32",
  "F.rnnt_loss(F.log_softmax(x), y, paddle.full([2], 3, 'int32'), "
  "paddle.to_tensor([2, 0], dtype='int32'), blank=3, reduction='none')",
  "float32[2,3,3,4]", "int32[2,2]|idx3", grad=True)
F("rnnt_loss.bad_label_dtype",
  f"F.rnnt_loss(x, y, {_RNNT_LENS})", "float32[2,4,3,5]", "int64[2,2]|idx4")

# margin_cross_entropy: Paddle 2.6.2 has no CPU kernel (Unavailable); sampan computes it
MCE_CPU = ("Paddle 2.6.2's margin_cross_entropy has only a GPU kernel (its CPU kernel raises "
           "Unavailable); sampan computes it on one rank, as the GPU kernel does")


def _mce_want(m1, m2, m3, s, r, dtype="float32"):
    z = (f"(np.where(np.arange(x.shape[1])[None, :] == y.reshape(-1)[:, None], "
         f"np.cos({m1} * np.arccos(np.clip(x.astype('float64'), -1, 1)) + {m2}) - {m3}, "
         f"x.astype('float64')) * {s})")
    loss = (f"(lambda Z: -(Z - Z.max(1, keepdims=True) - np.log(np.exp(Z - Z.max(1, "
            f"keepdims=True)).sum(1, keepdims=True)))[np.arange(x.shape[0]), "
            f"y.reshape(-1)])({z})")
    return {"mean": f"np.asarray({loss}.mean(), '{dtype}')",
            "sum": f"np.asarray({loss}.sum(), '{dtype}')",
            "none": f"{loss}.reshape(-1, 1).astype('{dtype}')"}[r]


for r in REDUCTIONS:
    F(f"margin_cross_entropy.{r}.float32",
      f"F.margin_cross_entropy(x, y, reduction='{r}')",
      "float32[4,5]|unit", "int64[4]|idx5", paddle_bug=MCE_CPU,
      want=_mce_want(1.0, 0.5, 0.0, 64.0, r))
F("margin_cross_entropy.margins.float64",
  "F.margin_cross_entropy(x, y, margin1=0.9, margin2=0.2, margin3=0.1, scale=8.0, "
  "reduction='sum')", "float64[3,6]|unit", "int32[3,1]|idx6", paddle_bug=MCE_CPU,
  want=_mce_want(0.9, 0.2, 0.1, 8.0, "sum", "float64"))
F("margin_cross_entropy.bad_label_rank", "F.margin_cross_entropy(x, y)",
  "float32[4,5]|unit", "int64[1,4,1]|idx5")
