"""Loss ops: softmax_with_cross_entropy, bce_loss, sigmoid_cross_entropy_with_logits,
huber_loss, kldiv_loss, nll_loss, label_smooth, and the accuracy metric op.

Labels, targets and class weights never receive gradients (``no_grad_inputs``),
as in Paddle, whose grad ops only produce the gradient of the prediction.
"""
import numpy as np

from ..declare import defop, defgrad, grad_op
from ..meta_rules import norm_axis, same_as_x
from ..registry import Meta, OpError

INT32 = np.dtype("int32")


def _same_shape(a, b, op, names):
    if len(a.shape) != len(b.shape) or any(x != y and x >= 0 and y >= 0
                                           for x, y in zip(a.shape, b.shape)):
        raise OpError(f"{op}: input {names[1]} must have the shape of {names[0]} "
                      f"{list(a.shape)}, got {list(b.shape)}")


# ------------------------------------------------------------------ softmax_with_cross_entropy
_SCE_ATTRS = (("soft_label", "BOOLEAN", False), ("use_softmax", "BOOLEAN", True),
              ("numeric_stable_mode", "BOOLEAN", True), ("ignore_index", "INT", -100),
              ("axis", "INT", -1))


def _sce_infer(metas, attrs):
    logits, label = metas
    nd = len(logits.shape)
    ax = norm_axis(attrs["axis"], nd)
    if len(label.shape) != nd:
        raise OpError(f"softmax_with_cross_entropy: Label must have the rank of Logits "
                      f"({nd}), got shape {list(label.shape)} for Logits {list(logits.shape)}")
    if attrs["soft_label"]:
        _same_shape(logits, label, "softmax_with_cross_entropy (soft_label)",
                    ("Logits", "Label"))
    elif label.shape[ax] not in (1, -1):
        raise OpError(f"softmax_with_cross_entropy: a hard Label must have size 1 on axis "
                      f"{ax}, got shape {list(label.shape)}")
    elif any(a != b and a >= 0 and b >= 0 for i, (a, b) in
             enumerate(zip(logits.shape, label.shape)) if i != ax):
        raise OpError(f"softmax_with_cross_entropy: Label (shape {list(label.shape)}) must "
                      f"have the shape of Logits {list(logits.shape)} except on axis {ax}")
    loss = tuple(1 if i == ax else d for i, d in enumerate(logits.shape))
    return Meta(logits.shape, logits.dtype), Meta(loss, logits.dtype)


defgrad("softmax_with_cross_entropy_grad", "Label Softmax Loss@GRAD", "Logits@GRAD",
        _SCE_ATTRS, infer=lambda m, a: (m[1],))
defop("softmax_with_cross_entropy", "Logits Label", "Softmax Loss", _SCE_ATTRS,
      infer=_sce_infer,
      grad=grad_op("softmax_with_cross_entropy_grad", uses=("Label", "Softmax"),
                   gouts=("Loss",), wrt=("Logits",)),
      no_grad_inputs=("Label",))


# ------------------------------------------------------------------ elementwise losses
def _pair_infer(op, names):
    def infer(metas, attrs):
        _same_shape(metas[0], metas[1], op, names)
        return (metas[0],)
    return infer


defgrad("bce_loss_grad", "X Label Out@GRAD", "X@GRAD")
defop("bce_loss", "X Label", "Out", infer=_pair_infer("bce_loss", ("X", "Label")),
      grad=grad_op("bce_loss_grad", uses=("X", "Label")), no_grad_inputs=("Label",))

_SIG_ATTRS = (("normalize", "BOOLEAN", False), ("ignore_index", "INT", -100))
defgrad("sigmoid_cross_entropy_with_logits_grad", "X Label pos_weight? Out@GRAD", "X@GRAD",
        _SIG_ATTRS)
defop("sigmoid_cross_entropy_with_logits", "X Label pos_weight?", "Out", _SIG_ATTRS,
      infer=_pair_infer("sigmoid_cross_entropy_with_logits", ("X", "Label")),
      grad=grad_op("sigmoid_cross_entropy_with_logits_grad", uses=("X", "Label", "pos_weight")),
      no_grad_inputs=("Label", "pos_weight"))


def _huber_infer(metas, attrs):
    _same_shape(metas[0], metas[1], "huber_loss", ("X", "Y"))
    return metas[0], metas[0]


defgrad("huber_loss_grad", "Residual Out@GRAD", "X@GRAD? Y@GRAD?", (("delta", "FLOAT", 1.0),),
        infer=lambda m, a: (m[0], m[0]))
defop("huber_loss", "X Y", "Out Residual~", (("delta", "FLOAT", 1.0),), infer=_huber_infer,
      grad=grad_op("huber_loss_grad", uses=("Residual",), wrt=("X", "Y")))


_REDUCTIONS = ("none", "mean", "sum", "batchmean")


def _kl_infer(metas, attrs):
    x, t = metas
    _same_shape(x, t, "kldiv_loss", ("X", "Target"))
    r = attrs["reduction"]
    if r not in _REDUCTIONS:
        raise OpError(f"kldiv_loss: reduction must be one of {list(_REDUCTIONS)}, got '{r}'")
    return (Meta(x.shape if r == "none" else (), x.dtype),)


defgrad("kldiv_loss_grad", "X Target Loss@GRAD", "X@GRAD", (("reduction", "STRING", "mean"),))
defop("kldiv_loss", "X Target", "Loss", (("reduction", "STRING", "mean"),), infer=_kl_infer,
      grad=grad_op("kldiv_loss_grad", uses=("X", "Target"), gouts=("Loss",)),
      no_grad_inputs=("Target",))


# ------------------------------------------------------------------ nll_loss
_NLL_ATTRS = (("ignore_index", "LONG", -100), ("reduction", "STRING", "mean"))


def _nll_infer(metas, attrs):
    x, label, w = metas
    nd = len(x.shape)
    if nd not in (2, 4):
        raise OpError(f"nll_loss: input X must be 2-D [N, C] or 4-D [N, C, H, W], got "
                      f"shape {list(x.shape)}")
    want = (x.shape[0],) if nd == 2 else (x.shape[0],) + tuple(x.shape[2:])
    if len(label.shape) != len(want) or any(a != b and a >= 0 and b >= 0
                                            for a, b in zip(label.shape, want)):
        raise OpError(f"nll_loss: Label must have shape {list(want)} for X {list(x.shape)}, "
                      f"got {list(label.shape)}")
    if w is not None and (len(w.shape) != 1 or (w.shape[0] >= 0 and x.shape[1] >= 0
                                                 and w.shape[0] != x.shape[1])):
        raise OpError(f"nll_loss: Weight must be 1-D with {x.shape[1]} entries (one per "
                      f"class), got shape {list(w.shape)}")
    r = attrs["reduction"]
    if r not in ("none", "mean", "sum"):
        raise OpError(f"nll_loss: reduction must be 'none', 'mean' or 'sum', got '{r}'")
    return Meta(want if r == "none" else (), x.dtype), Meta((), x.dtype)


defgrad("nll_loss_grad", "X Label Weight? Total_weight Out@GRAD", "X@GRAD", _NLL_ATTRS)
defop("nll_loss", "X Label Weight?", "Out Total_weight", _NLL_ATTRS, infer=_nll_infer,
      grad=grad_op("nll_loss_grad", uses=("X", "Label", "Weight", "Total_weight")),
      no_grad_inputs=("Label", "Weight"))


# ------------------------------------------------------------------ label_smooth
defgrad("label_smooth_grad", "Out@GRAD", "X@GRAD", (("epsilon", "FLOAT", 0.0),),
        infer=lambda m, a: (m[0],))
defop("label_smooth", "X PriorDist?", "Out", (("epsilon", "FLOAT", 0.0),), infer=same_as_x,
      grad=grad_op("label_smooth_grad"), no_grad_inputs=("PriorDist",))


# ------------------------------------------------------------------ accuracy
def _acc_infer(metas, attrs):
    out, idx, label = metas
    if len(idx.shape) != 2:
        raise OpError(f"accuracy: Indices must be 2-D [N, k], got shape {list(idx.shape)}")
    if label.shape and label.shape[0] >= 0 and idx.shape[0] >= 0 \
            and label.shape[0] != idx.shape[0]:
        raise OpError(f"accuracy: Label has {label.shape[0]} rows but Indices has "
                      f"{idx.shape[0]}")
    return Meta((), np.dtype("float32")), Meta((), INT32), Meta((), INT32)


defop("accuracy", "Out Indices Label", "Accuracy Correct Total", infer=_acc_infer,
      dtype_from="Out")
