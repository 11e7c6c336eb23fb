"""More ``paddle.nn.functional`` losses, each composed as Paddle 2.6 composes
it (so a static Program holds Paddle's op sequence): square_error_cost,
log_loss (Paddle's ``log_loss`` op), dice_loss, soft_margin_loss,
hinge_embedding_loss, cosine_embedding_loss, multi_label_soft_margin_loss,
poisson_nll_loss, multi_margin_loss, triplet_margin_loss, sigmoid_focal_loss,
npair_loss, gaussian_nll_loss, triplet_margin_with_distance_loss, ctc_loss
(Paddle's ``warpctc`` op), hsigmoid_loss (``hierarchical_sigmoid``),
rnnt_loss (``warprnnt``), margin_cross_entropy (one rank; Paddle has
only a GPU kernel, sampan computes it on the CPU).

Where Paddle checks values (a negative variance, a distance that is not
positive), eager calls raise as Paddle's eager path does; in a static Program
the checks are Paddle's ops (``assert`` for gaussian_nll_loss)."""
import math

from ...dygraph import no_grad
from ...ops import bind, get_op, is_graph_value
from ... import tensor as T
from .activation import log_sigmoid, relu, sigmoid
from .loss import binary_cross_entropy_with_logits, softmax_with_cross_entropy
from .input_onehot import one_hot

__all__ = ["square_error_cost", "log_loss", "dice_loss", "soft_margin_loss",
           "hinge_embedding_loss", "cosine_embedding_loss",
           "multi_label_soft_margin_loss", "poisson_nll_loss", "multi_margin_loss",
           "triplet_margin_loss", "sigmoid_focal_loss", "npair_loss", "gaussian_nll_loss",
           "triplet_margin_with_distance_loss", "ctc_loss", "hsigmoid_loss",
           "rnnt_loss", "margin_cross_entropy"]

_LOG_LOSS = get_op("log_loss")
_ASSERT = get_op("assert")
_WARPCTC = get_op("warpctc")
_HSIGMOID = get_op("hierarchical_sigmoid")
_WARPRNNT = get_op("warprnnt")
_MCE = get_op("margin_cross_entropy")
_FLOATS = ("float32", "float64")


def _dtype_name(x):
    return str(x.dtype).replace("paddle.", "")


def _check_float(x, what, api, allowed=_FLOATS):
    if _dtype_name(x) not in allowed:
        raise TypeError(f"The data type of '{what}' in {api} must be one of {list(allowed)}, "
                        f"but received {_dtype_name(x)}.")


def _reduce(out, reduction, name=None):
    if reduction == "mean":
        return T.mean(out)
    if reduction == "sum":
        return T.sum(out)
    return out


def square_error_cost(input, label):
    """(input - label) ** 2, elementwise: Paddle's elementwise_sub then square."""
    return T.square(T.subtract(input, label))


def log_loss(input, label, epsilon=1e-4, name=None):
    """-label * log(input + epsilon) - (1 - label) * log(1 - input + epsilon),
    Paddle's ``log_loss`` op (float32 only, as Paddle registers it)."""
    return bind(_LOG_LOSS, (input, label), {"epsilon": float(epsilon)})[0]


def dice_loss(input, label, epsilon=0.00001, name=None):
    """1 - 2 |input * one_hot(label)| / (|input| + |one_hot(label)| + epsilon),
    per sample, averaged over the batch."""
    assert _dtype_name(input) in _FLOATS, "dice_loss: input must be float32 or float64"
    assert _dtype_name(label) in ("int32", "int64"), "dice_loss: label must be int32 or int64"
    assert len(input.shape) >= 2, "The rank of input should be greater than or equal to 2."
    assert len(input.shape) == len(label.shape), (
        "The rank of input and label should be equal, but received input: %d, label: %d."
        % (len(input.shape), len(label.shape)))
    assert label.shape[-1] == 1, (
        "The last dimension of label should be 1, but received %d." % label.shape[-1])
    assert list(input.shape[:-1]) == list(label.shape[:-1]), \
        "All dimensions should be equal except the last one."
    # Paddle asserts ``input.numel() > 0 and label.numel() > 0``: its static
    # Program holds those size/greater_than ops, the check itself is on shapes
    T.numel(input) > 0
    T.numel(label) > 0
    assert all(d != 0 for d in input.shape) and all(d != 0 for d in label.shape), \
        "Any dimension of input and label cannot be equal to 0."
    label = T.squeeze(label, [-1])
    label = one_hot(label, input.shape[-1])
    reduce_dim = list(range(1, len(input.shape)))
    inse = T.sum(input * label, axis=reduce_dim)
    dice_denominator = T.sum(input, axis=reduce_dim) + T.sum(label, axis=reduce_dim)
    dice_score = 1 - inse * 2 / (dice_denominator + epsilon)
    return T.mean(dice_score)


def soft_margin_loss(input, label, reduction="mean", name=None):
    """log(1 + exp(-label * input)), reduced."""
    if reduction not in ("sum", "mean", "none"):
        raise ValueError("The value of 'reduction' in soft_margin_loss should be 'sum', "
                         "'mean' or 'none', but received %s, which is not allowed." % reduction)
    _check_float(input, "input", "soft_margin_loss")
    _check_float(label, "label", "soft_margin_loss",
                 ("int32", "int64", "float32", "float64"))
    if list(input.shape) != list(label.shape):
        raise ValueError("input's shape must equal to label's shape")
    label = T.cast(label, input.dtype)
    out = T.log(1 + T.exp(-label * input))
    return _reduce(out, reduction)


def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):
    """input where label == 1, relu(margin - input) where label == -1, reduced."""
    if reduction not in ("sum", "mean", "none"):
        raise ValueError("'reduction' in 'hinge_embedding_loss' should be 'sum', 'mean' or "
                         f"'none', but received {reduction}.")
    _check_float(input, "input", "hinge_embedding_loss")
    _check_float(label, "label", "hinge_embedding_loss")
    zero_ = T.zeros([1], dtype=input.dtype)
    loss = T.where(label == 1.0, input, zero_) + T.where(
        label == -1.0, relu(margin - input), zero_)
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, label, margin=0, reduction="mean", name=None):
    """1 - cos(input1, input2) where label == 1, max(0, cos - margin) where
    label == -1, reduced."""
    if len(label.shape) != 1:
        raise ValueError("1D target tensor expected, multi-target not supported")
    if list(input1.shape) != list(input2.shape):
        raise ValueError("the shape of input tensor 1 should be equal to input tensor 2, but "
                         "found inputs with different sizes")
    if len(input1.shape) > 2:
        raise ValueError("1D target tensor expects 1D or 2D input tensors, but found inputs "
                         "with different sizes")
    if _dtype_name(input1) not in _FLOATS:
        raise ValueError("The data type of input Variable must be 'float32' or 'float64'")
    if _dtype_name(label) not in ("int32", "int64", "float32", "float64"):
        raise ValueError("The data type of label Variable must be 'int32', 'int64', "
                         "'float32', 'float64'")
    prod_sum = T.sum(input1 * input2, axis=-1)
    mag_square1 = T.sum(T.square(input1), axis=-1) + 10e-12
    mag_square2 = T.sum(T.square(input2), axis=-1) + 10e-12
    denom = T.sqrt(mag_square1 * mag_square2)
    cos = prod_sum / denom
    zeros = T.zeros_like(cos)
    pos = 1 - cos
    neg = T.clip(cos - margin, min=0)
    out_pos = T.where(label == 1, pos, zeros)
    out_neg = T.where(label == -1, neg, zeros)
    out = out_pos + out_neg
    return _reduce(out, reduction)


def multi_label_soft_margin_loss(input, label, weight=None, reduction="mean", name=None):
    """-(label * log_sigmoid(input) + (1 - label) * log_sigmoid(-input)), times
    ``weight``, averaged over the last axis, then reduced."""
    if reduction not in ("sum", "mean", "none"):
        raise ValueError("'reduction' in 'multi_label_soft_margin_loss' should be 'sum', "
                         f"'mean' or 'none', but received {reduction}.")
    if list(input.shape) != list(label.shape):
        raise ValueError("The input and label should have same dimension,"
                         f"but received {list(input.shape)}!={list(label.shape)}")
    _check_float(input, "input", "multilabel_soft_margin_loss")
    _check_float(label, "label", "multilabel_soft_margin_loss")
    loss = -(label * log_sigmoid(input) + (1 - label) * log_sigmoid(-input))
    if weight is not None:
        _check_float(weight, "weight", "multilabel_soft_margin_loss")
        loss = loss * weight
    loss = T.mean(loss, axis=-1)
    return _reduce(loss, reduction)


def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-8,
                     reduction="mean", name=None):
    """exp(input) - label * input (log_input) or input - label * log(input +
    epsilon), plus Stirling's term where label > 1 when ``full``, reduced."""
    if epsilon <= 0:
        raise ValueError("The value of `epsilon` in poisson_nll_loss should be positve, but "
                         "received %f, which is not allowed" % epsilon)
    if reduction not in ("sum", "mean", "none"):
        raise ValueError("The value of 'reduction' in poisson_nll_loss should be 'sum', 'mean' "
                         "or 'none', but received %s, which is not allowed." % reduction)
    _check_float(input, "input", "poisson_nll_loss", ("float16", "bfloat16") + _FLOATS)
    _check_float(label, "label", "poisson_nll_loss", ("float16", "bfloat16") + _FLOATS)
    if list(input.shape) != list(label.shape):
        raise ValueError("input's shape must equal to label's shape")
    label = T.cast(label, input.dtype)
    if log_input:
        loss_out = T.exp(input) - label * input
    else:
        loss_out = input - label * T.log(input + epsilon)
    if full:
        stirling_approx = (label * T.log(label) - label
                           + 0.5 * T.log(2 * math.pi * label))
        loss_out = loss_out + T.where(label > 1, stirling_approx,
                                      T.zeros_like(stirling_approx))
    return _reduce(loss_out, reduction)


def multi_margin_loss(input, label, p=1, margin=1.0, weight=None, reduction="mean",
                      name=None):
    """mean over classes of max(0, weight[y] * (margin - x[y] + x[i])) ** p,
    less the term of i == y, reduced."""
    if reduction not in ("sum", "mean", "none"):
        raise ValueError("'reduction' in 'multi_margin_loss' should be 'sum', 'mean' or "
                         f"'none', but received {reduction}.")
    _check_float(input, "input", "multi_margin_loss")
    _check_float(label, "label", "multi_margin_loss", ("int32", "int64"))
    if not input.shape[0] == label.shape[0]:
        raise ValueError("The label's shape[0] should be equal to input's shape[0], but "
                         f"received input's shape[0] {input.shape[0]} and label's "
                         f"shape[0]:{label.shape[0]}. ")
    label = T.reshape(label, (-1, 1))
    index_sample = T.index_sample(input, label)
    if weight is not None:
        _check_float(weight, "weight", "multi_margin_loss")
        if not input.shape[1] == weight.shape[0]:
            raise ValueError("The weight's shape[0] should be equal to input's shape[1]"
                             f"but received weight's shape[0]: {weight.shape[0]} and input's "
                             f"shape[1]: {input.shape[1]}")
        weight = T.reshape(T.gather(weight, label, axis=0), (-1, 1))
        loss = T.mean(T.pow(T.clip(weight * (margin - index_sample + input), min=0.0), p),
                      axis=1) - weight * (margin ** p / T.shape(input)[1])
    else:
        loss = (T.mean(T.pow(T.clip(margin - index_sample + input, min=0.0), p), axis=1)
                - margin ** p / T.shape(input)[1])
    return _reduce(loss, reduction)


def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-6,
                        swap=False, reduction="mean", name=None):
    """max(0, d(input, positive) - d(input, negative) + margin) with the
    p-norm pairwise distance (``swap``: the smaller of d(a, n) and d(p, n))."""
    if reduction not in ("sum", "mean", "none"):
        raise ValueError("'reduction' in 'triplet_margin_loss' should be 'sum', 'mean' or "
                         f"'none', but received {reduction}.")
    if margin < 0:
        raise ValueError("The margin between positive samples and negative samples should "
                         "be greater than 0.")
    for x, what in ((input, "input"), (positive, "positive"), (negative, "negative")):
        _check_float(x, what, "triplet_margin_loss")
    if not list(input.shape) == list(positive.shape) == list(negative.shape):
        raise ValueError("input's shape must equal to positive's shape and  negative's shape")
    from .extra import pairwise_distance     # paddle.nn.PairwiseDistance's function
    positive_dist = pairwise_distance(input, positive, p, epsilon=epsilon)
    negative_dist = pairwise_distance(input, negative, p, epsilon=epsilon)
    if swap:
        swap_dist = pairwise_distance(positive, negative, p, epsilon=epsilon)
        negative_dist = T.minimum(negative_dist, swap_dist)
    loss = T.clip(positive_dist - negative_dist + margin, min=0.0)
    return _reduce(loss, reduction)


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0,
                       reduction="sum", name=None):
    """alpha_t * (1 - p_t) ** gamma * BCE-with-logits, divided by
    ``normalizer``, reduced ('sum' by default), composed as Paddle's static
    path composes it."""
    if reduction not in ("sum", "mean", "none"):
        raise ValueError("The value of 'reduction' in sigmoid_focal_loss should be 'sum', "
                         "'mean' or 'none', but received %s, which is not allowed." % reduction)
    if normalizer is not None:
        _check_float(normalizer, "normalizer", "sigmoid_focal_loss")
        if len(normalizer.shape) > 1:
            raise ValueError("Expected zero or one dimension of normalizer in "
                             f"sigmoid_focal_loss but got {len(normalizer.shape)}.")
    _check_float(logit, "logit", "sigmoid_focal_loss")
    _check_float(label, "label", "sigmoid_focal_loss")
    loss = binary_cross_entropy_with_logits(logit, label, None, reduction="none")
    pred = sigmoid(logit)
    p_t = pred * label + (1 - pred) * (1 - label)
    alpha_t = alpha * label + (1 - alpha) * (1 - label)
    loss = T.multiply(alpha_t, loss)
    gamma_t = T.pow((1 - p_t), gamma)
    loss = T.multiply(gamma_t, loss)
    if normalizer is not None:
        loss = T.divide(loss, normalizer)
    return _reduce(loss, reduction)


def npair_loss(anchor, positive, labels, l2_reg=0.002):
    """The N-pair loss: soft-label cross entropy of anchor @ positive.T
    against the row-normalised same-label matrix, plus an L2 term."""
    if any(d == 0 for d in anchor.shape):
        raise ValueError("The dims of anchor should be greater than 0.")
    if any(d == 0 for d in positive.shape):
        raise ValueError("The dims of positive should be greater than 0.")
    _check_float(anchor, "anchor", "npair_loss")
    _check_float(positive, "positive", "positive")
    _check_float(labels, "labels", "labels", ("float32", "float64", "int64"))
    beta = 0.25
    batch_size = labels.shape[0]
    labels = T.reshape(labels, shape=[batch_size, 1])
    labels = T.tile(labels, repeat_times=[1, batch_size])
    # Paddle casts to float32, which breaks float64 embeddings (the soft label
    # must have the logits' dtype): the anchor's dtype here, float32 for float32
    ldtype = "float64" if _dtype_name(anchor) == "float64" else "float32"
    labels = T.cast(T.equal(labels, T.transpose(labels, perm=[1, 0])), ldtype)
    labels = labels / T.sum(labels, axis=1, keepdim=True)
    l2loss = (T.mean(T.sum(T.square(anchor), 1))
              + T.mean(T.sum(T.square(positive), 1)))
    l2loss = l2loss * beta * l2_reg
    similarity_matrix = T.matmul(anchor, positive, transpose_x=False, transpose_y=True)
    softmax_ce = softmax_with_cross_entropy(logits=similarity_matrix, label=labels,
                                            soft_label=True)
    cross_entropy = T.sum(labels * softmax_ce, 0)
    celoss = T.mean(cross_entropy)
    return l2loss + celoss


def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-6, reduction="mean",
                      name=None):
    """0.5 * (log(max(variance, epsilon)) + (input - label) ** 2 / max(variance,
    epsilon)), plus 0.5 * log(2 pi) when ``full``, reduced.  The clamped
    variance gets no gradient (Paddle clamps it under no_grad)."""
    if list(variance.shape) != list(input.shape):
        if list(input.shape[:-1]) == list(variance.shape):
            variance = T.unsqueeze(variance, -1)
        elif (list(input.shape[:-1]) == list(variance.shape[:-1])
              and variance.shape[-1] == 1):
            pass
        else:
            raise ValueError("variance is of incorrect shape")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    _check_float(input, "Input", "gaussian_nll_loss")
    _check_float(label, "Label", "gaussian_nll_loss")
    _check_float(variance, "Variance", "gaussian_nll_loss")
    if is_graph_value(variance):
        # Paddle's static path: Assert(all(variance > 0), [variance], 6)
        bind(_ASSERT, (T.all(variance > 0), [variance]), {"summarize": 6})
    elif bool(T.any(variance < 0)):
        raise ValueError("variance has negative entry/entries")
    variance = T.clone(variance)
    with no_grad():
        variance = T.clip(variance, min=epsilon)
    loss = 0.5 * (T.log(variance) + T.square(input - label) / variance)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(input, positive, negative, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean", name=None):
    """max(0, d(input, positive) - d(input, negative) + margin) for a given
    ``distance_function`` (default: the 2-norm pairwise distance)."""
    if reduction not in ("sum", "mean", "none"):
        raise ValueError("'reduction' in 'triplet_margin_with_distance_loss' should be 'sum', "
                         f"'mean' or 'none', but received {reduction}.")
    if margin < 0:
        raise ValueError("The margin between positive samples and negative samples should "
                         "be greater than 0.")
    for x, what in ((input, "input"), (positive, "positive"), (negative, "negative")):
        _check_float(x, what, "triplet_margin_with_distance_loss")
    if not list(input.shape) == list(positive.shape) == list(negative.shape):
        raise ValueError("input's shape must equal to positive's shape and  negative's shape")
    if distance_function is None:
        from .extra import pairwise_distance     # paddle.nn.PairwiseDistance(2)
        distance_function = lambda a, b: pairwise_distance(a, b, 2.0)  # noqa: E731
    positive_dist = distance_function(input, positive)
    negative_dist = distance_function(input, negative)
    if swap:
        swap_dist = distance_function(positive, negative)
        negative_dist = T.minimum(negative_dist, swap_dist)
    pos_ok = T.all(positive_dist > 0)
    neg_ok = T.all(negative_dist > 0)
    if not is_graph_value(pos_ok) and (not bool(pos_ok) or not bool(neg_ok)):
        raise ValueError("The positive distance or negative distance should be greater than "
                         "0, The distance functions should be checked.")
    loss = T.clip(positive_dist - negative_dist + margin, min=0.0)
    return _reduce(loss, reduction)


def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=0, reduction="mean",
             norm_by_times=False):
    """The CTC loss of padded sequences: Paddle's ``warpctc`` op over the
    unscaled ``log_probs`` [max_logit_length, batch, num_classes + 1] (it
    applies the softmax), int32 ``labels`` [batch, max_label_length] and int64
    lengths.  'mean' divides each loss by its label length first;
    ``norm_by_times`` scales the gradient by 1 / input length."""
    # the warpctc kernel's dtypes (ValueError, as Paddle's eager kernel raises)
    for x, what, allowed in ((log_probs, "Logits", _FLOATS), (labels, "Label", ("int32",)),
                             (input_lengths, "LogitsLength", ("int64",)),
                             (label_lengths, "LabelLength", ("int64",))):
        if _dtype_name(x) not in allowed:
            raise ValueError(f"warpctc: the data type of {what} must be one of "
                             f"{list(allowed)}, but received {_dtype_name(x)}")
    loss_out = bind(_WARPCTC, (log_probs, labels, input_lengths, label_lengths),
                    {"blank": int(blank), "norm_by_times": bool(norm_by_times)})[0]
    loss_out = T.squeeze(loss_out, [-1])
    assert reduction in ["mean", "sum", "none"]
    if reduction == "mean":
        loss_out = T.mean(loss_out / label_lengths)
    elif reduction == "sum":
        loss_out = T.sum(loss_out)
    return loss_out


def hsigmoid_loss(input, label, num_classes, weight, bias=None, path_table=None,
                  path_code=None, is_sparse=False, name=None):
    """Hierarchical sigmoid: Paddle's ``hierarchical_sigmoid`` op over the
    default complete binary tree of ``num_classes`` leaves, or the custom tree
    of ``path_table``/``path_code``.  ``weight`` is [num_nodes, D], ``bias``
    [num_nodes, 1]; the result is [N, 1].  ``is_sparse`` is recorded on the op;
    the weight's gradient is dense."""
    if num_classes < 2:
        raise ValueError(f"Expected num_classes >= 2 (got {num_classes})")
    _check_float(input, "input", "hsigmoid_loss")
    _check_float(label, "label", "hsigmoid_loss", ("int64",))
    _check_float(weight, "weight", "hsigmoid_loss")
    if bias is not None:
        _check_float(bias, "bias", "hsigmoid_loss")
    for v, what in ((path_table, "path_table"), (path_code, "path_code")):
        if v is not None:
            _check_float(v, what, "hsigmoid_loss", ("int64",))
    attrs = {"num_classes": int(num_classes), "is_sparse": bool(is_sparse)}
    return bind(_HSIGMOID, (input, weight, label, path_table, path_code, bias), attrs)[0]


def rnnt_loss(input, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.001,
              reduction="mean", name=None):
    """The RNN-T loss: Paddle's ``warprnnt`` op over ``input`` [B, T, U + 1, V]
    (on the CPU it takes log-probabilities as given: apply log_softmax first),
    int32 labels [B, U] and int32 lengths.  ``fastemit_lambda`` scales the
    label transitions' gradient by 1 + lambda; 'mean' is the sum over B."""
    for x, what, allowed in ((input, "input", _FLOATS), (label, "label", ("int32",)),
                             (input_lengths, "input_lengths", ("int32",)),
                             (label_lengths, "label_lengths", ("int32",))):
        if _dtype_name(x) not in allowed:
            raise ValueError(f"warprnnt: the data type of {what} must be one of "
                             f"{list(allowed)}, but received {_dtype_name(x)}")
    B = input.shape[0]
    loss_out = bind(_WARPRNNT, (input, label, input_lengths, label_lengths),
                    {"blank": int(blank), "fastemit_lambda": float(fastemit_lambda)})[0]
    assert reduction in ["mean", "sum", "none"]
    if reduction == "mean":
        loss_out = T.sum(loss_out) / B
    elif reduction == "sum":
        loss_out = T.sum(loss_out)
    return loss_out


def margin_cross_entropy(logits, label, margin1=1.0, margin2=0.5, margin3=0.0, scale=64.0,
                         group=None, return_softmax=False, reduction="mean"):
    """ArcFace-style margin softmax cross entropy on one rank: the label's
    cosine x becomes cos(margin1 * acos(x) + margin2) - margin3, the logits
    are scaled by ``scale``, then softmax cross entropy.  Paddle 2.6.2 has this
    op on the GPU only; sampan computes it (model parallelism over ranks,
    ``group``, is not supported: one rank)."""
    assert reduction in ["mean", "sum", "none", None]
    if not (group is False or group is None or hasattr(group, "is_member")):
        raise ValueError("Expected group is False, None or instance of "
                         f"paddle.distributed.collective.Group (got group: {group})")
    if hasattr(group, "is_member") and not group.is_member():
        return None
    input_dims = len(list(logits.shape))
    label_dims = len(list(label.shape))
    if input_dims - 1 != label_dims and input_dims != label_dims:
        raise ValueError("Expected input_dims - 1 = label_dims or input_dims == label_dims "
                         f"(got input_dims{input_dims}, label_dims{label_dims})")
    if input_dims - 1 == label_dims:
        label = T.unsqueeze(label, axis=-1)
    _check_float(logits, "logits", "margin_cross_entropy", ("float16",) + _FLOATS)
    _check_float(label, "label", "margin_cross_entropy", ("int32", "int64"))
    attrs = {"return_softmax": bool(return_softmax), "ring_id": 0, "rank": 0, "nranks": 1,
             "margin1": float(margin1), "margin2": float(margin2), "margin3": float(margin3),
             "scale": float(scale)}
    softmax, loss = bind(_MCE, (logits, label), attrs)
    if reduction == "mean":
        loss = T.mean(loss)
    elif reduction == "sum":
        loss = T.sum(loss)
    return (loss, softmax) if return_softmax else loss
