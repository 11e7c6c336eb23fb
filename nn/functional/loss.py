"""``paddle.nn.functional`` losses, following Paddle 2.6's definitions (and the
ops it emits): cross_entropy, softmax_with_cross_entropy, nll_loss, mse_loss,
l1_loss, binary_cross_entropy(_with_logits), smooth_l1_loss, kl_div,
margin_ranking_loss, label_smooth.

cross_entropy's 'mean' divides by the number of non-ignored labels (or by
their total class weight), as Paddle's eager path does; it is computed
without a data-dependent branch, so it builds the same graph in every mode.
"""
from ...ops import bind, get_op
from ... import tensor as T

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "nll_loss", "mse_loss", "l1_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "smooth_l1_loss",
           "kl_div", "margin_ranking_loss", "label_smooth"]

_SCE = get_op("softmax_with_cross_entropy")
_NLL = get_op("nll_loss")
_BCE = get_op("bce_loss")
_SIG_CE = get_op("sigmoid_cross_entropy_with_logits")
_HUBER = get_op("huber_loss")
_KLDIV = get_op("kldiv_loss")
_LABEL_SMOOTH = get_op("label_smooth")
_MEAN = get_op("mean")
_SUM = get_op("reduce_sum")


def _check_reduction(reduction, api, allowed=("sum", "mean", "none")):
    if reduction not in allowed:
        quoted = ", ".join(f"'{r}'" for r in allowed)
        raise ValueError(f"The value of 'reduction' in {api} should be {quoted}, but "
                         f"received {reduction}, which is not allowed.")


def _reduce(out, reduction):
    if reduction == "sum":
        return T.sum(out)
    if reduction == "mean":
        return T.mean(out)
    return out


# ------------------------------------------------------------------ softmax cross entropy
def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    attrs = {"soft_label": bool(soft_label), "use_softmax": True,
             "numeric_stable_mode": bool(numeric_stable_mode),
             "ignore_index": int(ignore_index), "axis": int(axis)}
    softmax, loss = bind(_SCE, (logits, label), attrs)
    return (loss, softmax) if return_softmax else loss


def _hard_class_weights(weight, label, ignore_index, axis, input):
    """Per-sample class weights of hard labels (shape of ``label``), zero where
    the label is ignored: Paddle's gather of ``weight`` at the valid labels."""
    if input.shape[axis] != weight.shape[-1]:
        raise ValueError(f"input's class_dimension({input.shape[axis]}) must equal to "
                         f"weight's class_dimension({weight.shape[-1]}) when weight is provided")
    valid = T.multiply(T.cast(label != ignore_index, label.dtype), label)
    mask = T.cast(label != ignore_index, input.dtype)
    if len(mask.shape) > 1 and mask.shape[axis] == 1:
        mask = T.squeeze(mask, axis)
    nd = len(valid.shape)
    if axis != -1 and axis != nd - 1:
        ax = axis % nd
        valid = T.transpose(valid, list(range(ax)) + list(range(ax + 1, nd)) + [ax])
    w = T.multiply(T.gather_nd(weight, valid), mask)
    return T.reshape(w, list(label.shape))


def _nonzero_guard(s):
    """s + equal(s, 0): keeps a division defined when every label is ignored."""
    return T.add(s, T.cast(T.equal(s, 0.0), s.dtype))


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",
                  soft_label=False, axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
    """Paddle 2.6's cross_entropy, building the ops its static path builds.

    One deliberate difference: the 'mean' of hard labels without ``weight``
    always divides by the number of labels that are not ``ignore_index``.
    Paddle's static path does so only for ``ignore_index >= 0`` and otherwise
    appends ``reduce_mean``, which counts labels equal to a negative
    ignore_index (the common -100 padding) and disagrees with its own eager
    result; sampan's every mode gives the eager answer (README, deviations)."""
    _check_reduction(reduction, "softmax_cross_entropy")
    if ignore_index > 0 and soft_label:
        raise ValueError(f"When soft_label == True, the value of 'ignore_index' in "
                         f"softmax_cross_entropy should be '-100', but received {ignore_index},"
                         f" which is not allowed.")
    in_dims = len(input.shape)
    if in_dims == 0:
        raise ValueError("The dimension of input should be larger than zero!")
    lab_dims = len(label.shape)
    if in_dims - 1 == lab_dims:
        label = T.unsqueeze(label, axis=axis)
    if in_dims - 1 != lab_dims and in_dims != lab_dims:
        raise ValueError(f"Expected input_dims - 1 = label_dims or input_dims == label_dims "
                         f"(got input_dims {in_dims}, label_dims {lab_dims})")
    if label_smoothing > 0.0:
        soft_label = True
        if in_dims - 1 == lab_dims:
            from .input_onehot import one_hot
            label = one_hot(T.squeeze(label, axis=axis), input.shape[-1])
        label = T.cast(label_smooth(label, epsilon=label_smoothing), input.dtype)
        lab_dims = len(label.shape)
    attrs = {"soft_label": bool(soft_label), "use_softmax": bool(use_softmax),
             "numeric_stable_mode": True, "ignore_index": int(ignore_index),
             "axis": int(axis)}
    out = bind(_SCE, (input, label), attrs)[1]
    sample_w = None
    if weight is not None:
        if soft_label:
            w = T.matmul(T.cast(label, weight.dtype), weight, transpose_y=True)
            sample_w = T.reshape(w, list(out.shape))
            out = T.cast(out, sample_w.dtype)
        else:
            sample_w = _hard_class_weights(weight, label, ignore_index, axis, input)
            if out.dtype != sample_w.dtype:
                out = T.cast(out, sample_w.dtype)
        out = T.multiply(out, sample_w)
    if reduction == "sum":
        return T.sum(out)
    if reduction == "mean":
        if ignore_index >= 0 or (sample_w is None and not soft_label):
            out_sum = T.sum(out)
            mask = label != ignore_index
            if sample_w is None:
                count = T.sum(T.cast(mask, out_sum.dtype))
            else:
                count = T.sum(T.multiply(T.cast(mask, sample_w.dtype), sample_w))
            return T.divide(out_sum, _nonzero_guard(count))
        if sample_w is not None:
            return T.divide(T.sum(out), _nonzero_guard(T.sum(sample_w)))
        return T.mean(out)
    if in_dims - 1 == lab_dims:
        out = T.squeeze(out, axis=axis)
    return out


# ------------------------------------------------------------------ nll
def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    _check_reduction(reduction, "nll_loss")
    shape = list(input.shape)
    nd = len(shape)
    if nd - 1 != len(label.shape) and nd != len(label.shape):
        raise ValueError(f"Expected input_dims - 1 = label_dims or input_dims == label_dims "
                         f"(got input_dims{nd}, label_dims{len(label.shape)})")
    if nd < 2:
        raise ValueError(f"Expected 2 or more dimensions (got {nd})")
    if shape[1] < 1:
        raise ValueError(f"Expected 1 or more classes (got num classes{shape[1]})")
    n, c = shape[0], shape[1]
    reshaped = nd not in (2, 4)
    if reshaped:
        input = T.reshape(input, [n, c, 1, -1])
        label = T.reshape(label, [n, 1, -1])
    attrs = {"ignore_index": int(ignore_index), "reduction": reduction}
    out = bind(_NLL, (input, label, weight), attrs)[0]
    if reshaped and reduction == "none":
        out = T.reshape(out, [n] + shape[2:])
    return out


# ------------------------------------------------------------------ regression losses
def mse_loss(input, label, reduction="mean", name=None):
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(f"'reduction' in 'mse_loss' should be 'sum', 'mean' or 'none', but "
                         f"received {reduction}.")
    return _reduce(T.square(T.subtract(input, label)), reduction)


def l1_loss(input, label, reduction="mean", name=None):
    _check_reduction(reduction, "L1Loss")
    return _reduce(T.abs(T.subtract(input, label)), reduction)


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, name=None):
    _check_reduction(reduction, "smooth_l1_loss")
    out = bind(_HUBER, (input, label), {"delta": float(delta)})[0]
    return _reduce(out, reduction)


# ------------------------------------------------------------------ binary losses
def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):
    _check_reduction(reduction, "binary_cross_entropy")
    out = bind(_BCE, (input, label))[0]
    if weight is not None:
        out = T.multiply(out, weight)
    return _reduce(out, reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean",
                                     pos_weight=None, name=None):
    _check_reduction(reduction, "binary_cross_entropy_with_logits")
    one = T.full([1], 1.0, dtype=logit.dtype)
    if pos_weight is not None:
        # the op takes the per-element log weight 1 + (pos_weight - 1) * label
        pos_weight = T.add(T.multiply(label, T.subtract(pos_weight, one)), one)
    attrs = {"normalize": False, "ignore_index": -100}
    out = bind(_SIG_CE, (logit, label, pos_weight), attrs)[0]
    if weight is not None:
        out = T.multiply(out, weight)
    return _reduce(out, reduction)


def kl_div(input, label, reduction="mean", name=None):
    """Paddle checks no ``reduction``: an unknown one returns the unreduced loss."""
    if input.dtype == "float32" and label.dtype == "float64":
        input = T.cast(input, "float64")
    elif input.dtype == "float64" and label.dtype == "float32":
        label = T.cast(label, "float64")
    out = bind(_KLDIV, (input, label), {"reduction": "none"})[0]
    if reduction == "mean":
        return T.mean(out)
    if reduction == "sum":
        return T.sum(out)
    if reduction == "batchmean" and len(input.shape) > 0:
        batch = T.shape(input)[0]
        return T.divide(T.sum(out), T.cast(batch, out.dtype))
    return out


def margin_ranking_loss(input, other, label, margin=0.0, reduction="mean", name=None):
    """relu(-label * (input - other) + margin); 'mean' is the ``mean`` op, as Paddle's."""
    _check_reduction(reduction, "MarginRankingLoss")
    diff = T.subtract(input, other)
    out = T.multiply(T.neg(label), diff)
    if margin != 0.0:
        out = T.add(out, T.full([1], margin, dtype=out.dtype))
    from .activation import relu
    out = relu(out)
    if reduction == "sum":      # Paddle's attributes: dim [0] under reduce_all
        return bind(_SUM, (out,), {"dim": [0], "keep_dim": False, "reduce_all": True})[0]
    if reduction == "mean":
        return bind(_MEAN, (out,))[0]
    return out


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    if epsilon > 1.0 or epsilon < 0.0:
        raise ValueError("The value of epsilon must be between 0 and 1.")
    return bind(_LABEL_SMOOTH, (label, prior_dist), {"epsilon": float(epsilon)})[0]
