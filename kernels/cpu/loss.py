"""numpy kernels of the loss ops (softmax_with_cross_entropy, bce_loss,
sigmoid_cross_entropy_with_logits, huber_loss, kldiv_loss, nll_loss,
label_smooth) and of the accuracy metric op."""
import numpy as np

from ...ops import OpError
from ...ops.errors import OUT_OF_RANGE
from ..registry import kernel


def _want(need, i):
    return need is None or need[i]


def check_labels(op, lab, n_class, ignore_index, kind=ValueError):
    """Hard labels must lie in [0, n_class) unless they equal ignore_index (an
    error of Paddle's kind for the op: OutOfRange for softmax_with_cross_entropy)."""
    bad = ((lab < 0) | (lab >= n_class)) & (lab != ignore_index)
    if bad.any():
        v = int(lab[bad].reshape(-1)[0])
        raise OpError(f"{op}: label value {v} is out of range: there are {n_class} classes, "
                      f"so labels must be in [0, {n_class - 1}] (or equal ignore_index "
                      f"{ignore_index})", kind=kind)


# ------------------------------------------------------------------ softmax_with_cross_entropy
def _log_softmax(x, ax):
    m = x.max(axis=ax, keepdims=True)
    z = x - m
    lse = np.log(np.exp(z).sum(axis=ax, keepdims=True))
    return z - lse


def _hard_index(label, ax, n_class, ignore_index, op):
    lab = label.astype(np.int64, copy=False)
    check_labels(op, lab, n_class, ignore_index, OUT_OF_RANGE)
    valid = lab != ignore_index
    return np.where(valid, lab, 0), valid


@kernel("softmax_with_cross_entropy")
def softmax_with_cross_entropy(ins, attrs, need):
    logits, label = ins
    ax = attrs["axis"] % logits.ndim
    if attrs["use_softmax"]:
        logp = _log_softmax(logits, ax)
        sm = np.exp(logp)
    else:
        sm = logits.copy()
        with np.errstate(divide="ignore"):
            logp = np.log(logits)
    if attrs["soft_label"]:
        loss = -(label * logp).sum(axis=ax, keepdims=True)
    else:
        idx, valid = _hard_index(label, ax, logits.shape[ax], attrs["ignore_index"],
                                 "softmax_with_cross_entropy")
        picked = np.take_along_axis(logp, idx, axis=ax)
        loss = np.where(valid, -picked, 0)
    return sm, loss.astype(logits.dtype, copy=False)


@kernel("softmax_with_cross_entropy_grad")
def softmax_with_cross_entropy_grad(ins, attrs, need):
    label, sm, g = ins
    ax = attrs["axis"] % sm.ndim
    if attrs["soft_label"]:
        if attrs["use_softmax"]:
            return ((sm - label) * g,)
        return (-label / sm * g,)
    idx, valid = _hard_index(label, ax, sm.shape[ax], attrs["ignore_index"],
                             "softmax_with_cross_entropy_grad")
    gv = np.where(valid, g, 0).astype(sm.dtype, copy=False)
    if attrs["use_softmax"]:
        d = sm * gv
        at = np.take_along_axis(d, idx, axis=ax)
        np.put_along_axis(d, idx, at - gv, axis=ax)
        return (d,)
    d = np.zeros_like(sm)
    np.put_along_axis(d, idx, -gv / np.take_along_axis(sm, idx, axis=ax), axis=ax)
    return (d,)


# ------------------------------------------------------------------ elementwise losses
@kernel("bce_loss")
def bce_loss(ins, attrs, need):
    x, label = ins
    with np.errstate(divide="ignore"):
        lx = np.maximum(np.log(x), -100)
        l1 = np.maximum(np.log(1 - x), -100)
    return ((-(label * lx + (1 - label) * l1)).astype(x.dtype, copy=False),)


@kernel("bce_loss_grad")
def bce_loss_grad(ins, attrs, need):
    x, label, g = ins
    return ((g * (x - label) / np.maximum((1 - x) * x, 1e-12)).astype(x.dtype, copy=False),)


def _sig_mask(label, attrs):
    """(keep mask or None, normaliser) of sigmoid_cross_entropy_with_logits."""
    ii = attrs["ignore_index"]
    keep = label != ii
    norm = 1.0
    if attrs["normalize"]:
        norm = max(float(keep.sum()), 1e-5)
    return (None if keep.all() else keep), norm


@kernel("sigmoid_cross_entropy_with_logits")
def sigmoid_cross_entropy_with_logits(ins, attrs, need):
    x, label, pw = ins
    sp = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)        # softplus(-x)
    out = (1 - label) * x + (sp if pw is None else pw * sp)
    keep, norm = _sig_mask(label, attrs)
    if keep is not None:
        out = np.where(keep, out, 0)
    if norm != 1.0:
        out = out / norm
    return (out.astype(x.dtype, copy=False),)


@kernel("sigmoid_cross_entropy_with_logits_grad")
def sigmoid_cross_entropy_with_logits_grad(ins, attrs, need):
    x, label, pw, g = ins
    sig = 0.5 * (1 + np.tanh(0.5 * x))                           # overflow-free sigmoid
    d = sig - label if pw is None else (1 - label) - pw * (1 - sig)
    d = d * g
    keep, norm = _sig_mask(label, attrs)
    if keep is not None:
        d = np.where(keep, d, 0)
    if norm != 1.0:
        d = d / norm
    return (d.astype(x.dtype, copy=False),)


@kernel("huber_loss")
def huber_loss(ins, attrs, need):
    x, y = ins
    if x.shape != y.shape:          # no broadcasting (numpy would)
        raise OpError(f"huber_loss: input X {list(x.shape)} and label Y {list(y.shape)} must "
                      f"have the same shape")
    delta = attrs["delta"]
    r = y - x
    a = np.abs(r)
    out = np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta))
    return out.astype(x.dtype, copy=False), r


@kernel("huber_loss_grad")
def huber_loss_grad(ins, attrs, need):
    r, g = ins
    d = np.clip(r, -attrs["delta"], attrs["delta"]) * g
    return (-d if _want(need, 0) else None), (d if _want(need, 1) else None)


def _kl_scale(x, reduction):
    if reduction == "mean":
        return 1.0 / max(x.size, 1)
    if reduction == "batchmean":
        return 1.0 / max(x.shape[0], 1) if x.ndim else 1.0
    return 1.0


@kernel("kldiv_loss")
def kldiv_loss(ins, attrs, need):
    x, t = ins
    pos = t > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        el = np.where(pos, t * (np.log(np.where(pos, t, 1)) - x), 0).astype(x.dtype, copy=False)
    r = attrs["reduction"]
    if r == "none":
        return (el,)
    return (np.asarray(el.sum() * _kl_scale(x, r), dtype=x.dtype),)


@kernel("kldiv_loss_grad")
def kldiv_loss_grad(ins, attrs, need):
    x, t, g = ins
    d = np.where(t > 0, -t, 0) * g * _kl_scale(x, attrs["reduction"])
    return (d.astype(x.dtype, copy=False),)


# ------------------------------------------------------------------ nll_loss
def _nll_parts(x, label, w, ignore_index):
    """Per-sample picked log-probabilities' index, the sample weights and mask."""
    lab = label.astype(np.int64, copy=False)
    check_labels("nll_loss", lab, x.shape[1], ignore_index)
    valid = lab != ignore_index
    idx = np.where(valid, lab, 0)
    sw = (np.ones(x.shape[1], x.dtype) if w is None else w)[idx] * valid
    return idx, sw.astype(x.dtype, copy=False)


@kernel("nll_loss")
def nll_loss(ins, attrs, need):
    x, label, w = ins
    idx, sw = _nll_parts(x, label, w, attrs["ignore_index"])
    picked = np.take_along_axis(x, idx[:, None], axis=1)[:, 0]
    loss = -picked * sw
    r = attrs["reduction"]
    if r == "none":
        return loss, np.zeros((), x.dtype)
    total = sw.sum()
    s = loss.sum()
    if r == "mean" and total != 0:
        s = s / total
    return np.asarray(s, x.dtype), np.asarray(total, x.dtype)


@kernel("nll_loss_grad")
def nll_loss_grad(ins, attrs, need):
    x, label, w, total, g = ins
    idx, sw = _nll_parts(x, label, w, attrs["ignore_index"])
    r = attrs["reduction"]
    if r == "mean" and total != 0:
        g = g / total
    d = np.zeros_like(x)
    np.put_along_axis(d, idx[:, None], (-sw * g)[:, None].astype(x.dtype, copy=False), axis=1)
    return (d,)


# ------------------------------------------------------------------ label_smooth
@kernel("label_smooth")
def label_smooth(ins, attrs, need):
    x, prior = ins
    eps = attrs["epsilon"]
    dt = x.dtype
    if prior is None:
        out = (1 - eps) * x + eps / x.shape[-1]
    else:
        out = (1 - eps) * x + eps * prior.reshape(-1)
    return (out.astype(dt, copy=False),)


@kernel("label_smooth_grad")
def label_smooth_grad(ins, attrs, need):
    g = ins[0]
    return ((g * (1 - attrs["epsilon"])).astype(g.dtype, copy=False),)


# ------------------------------------------------------------------ accuracy
@kernel("accuracy")
def accuracy(ins, attrs, need):
    _, idx, label = ins
    n = idx.shape[0]
    hit = (idx == label.reshape(n, 1)).any(axis=1)
    correct = int(hit.sum())
    acc = correct / n if n else 0.0
    return (np.asarray(acc, np.float32), np.asarray(correct, np.int32),
            np.asarray(n, np.int32))
