"""Loss ops of the extra losses: log_loss (Paddle's ``log_loss`` op, slots
Predicted/Labels -> Loss, attribute epsilon).  The other extra losses of
``nn.functional.loss_extra`` are Python composites over existing ops, as in
Paddle."""
from ..declare import defop, defgrad, grad_op
from ..registry import Meta, OpError


def _log_loss_infer(metas, attrs):
    p, lab = metas
    if len(p.shape) != 2:
        raise OpError(f"log_loss: the dimensions of Input(Predicted) must be 2, but received "
                      f"shape {list(p.shape)}")
    if p.shape[1] not in (1, -1):
        raise OpError(f"log_loss: each row of Input(Predicted) contains a real value, so the "
                      f"2nd dimension of Input(Predicted) must be 1, but got {p.shape[1]}")
    if len(p.shape) != len(lab.shape) or any(a != b and a >= 0 and b >= 0
                                             for a, b in zip(p.shape, lab.shape)):
        raise OpError(f"log_loss: Labels must have the shape of Predicted {list(p.shape)}, "
                      f"got {list(lab.shape)}")
    return (p,)


_LOG_LOSS_ATTRS = (("epsilon", "FLOAT", 1e-4),)
defgrad("log_loss_grad", "Predicted Labels Loss@GRAD", "Predicted@GRAD", _LOG_LOSS_ATTRS,
        infer=lambda m, a: (m[0],))
defop("log_loss", "Predicted Labels", "Loss", _LOG_LOSS_ATTRS, infer=_log_loss_infer,
      grad=grad_op("log_loss_grad", uses=("Predicted", "Labels"), gouts=("Loss",),
                   wrt=("Predicted",)),
      no_grad_inputs=("Labels",))


# ------------------------------------------------------------------ warpctc
_CTC_ATTRS = (("blank", "INT", 0), ("norm_by_times", "BOOLEAN", False))


def _warpctc_infer(metas, attrs):
    logits, label, logits_len, label_len = metas
    if logits_len is None or label_len is None:
        raise OpError("warpctc: sampan has no LoD tensors, so LogitsLength and LabelLength "
                      "must be given (Logits padded as [max_logit_length, batch, classes])")
    if len(logits.shape) != 3:
        raise OpError(f"warpctc: Logits must be 3-D [max_logit_length, batch_size, "
                      f"num_classes + 1], got shape {list(logits.shape)}")
    if len(label.shape) != 2:
        raise OpError(f"warpctc: Label must be 2-D [batch_size, max_label_length], got shape "
                      f"{list(label.shape)}")
    c = logits.shape[2]
    if c >= 0 and not 0 <= attrs["blank"] < c:
        raise OpError(f"warpctc: blank must be in [0, {c}) (the number of classes of Logits), "
                      f"got {attrs['blank']}")
    return Meta((logits.shape[1], 1), logits.dtype), logits


defgrad("warpctc_grad", "WarpCTCGrad Logits LogitsLength? Loss@GRAD", "Logits@GRAD",
        _CTC_ATTRS, infer=lambda m, a: (m[1],))
defop("warpctc", "Logits Label LogitsLength? LabelLength?", "Loss WarpCTCGrad~", _CTC_ATTRS,
      infer=_warpctc_infer,
      grad=grad_op("warpctc_grad", uses=("WarpCTCGrad", "Logits", "LogitsLength"),
                   gouts=("Loss",), wrt=("Logits",)),
      no_grad_inputs=("Label", "LogitsLength", "LabelLength"))


# ------------------------------------------------------------------ hierarchical_sigmoid
_HS_ATTRS = (("num_classes", "INT", 2), ("trainer_id", "INT", 0),
             ("height_sections", "LONGS", []), ("epmap", "STRINGS", []),
             ("table_names", "STRINGS", []), ("is_sparse", "BOOLEAN", False))


def _hs_infer(metas, attrs):
    x, w, label, table, code, bias = metas
    if len(x.shape) != 2:
        raise OpError(f"hierarchical_sigmoid: X must be 2-D [N, D], got shape {list(x.shape)}")
    if len(w.shape) != 2 or (w.shape[1] >= 0 and x.shape[1] >= 0 and w.shape[1] != x.shape[1]):
        raise OpError(f"hierarchical_sigmoid: W must be 2-D [num_nodes, {x.shape[1]}], got "
                      f"shape {list(w.shape)}")
    if table is not None:
        width = table.shape[1] if len(table.shape) == 2 else -1
    else:
        width = max(int(attrs["num_classes"]) - 1, 1).bit_length()
    return (Meta((x.shape[0], 1), x.dtype), Meta((x.shape[0], width), x.dtype), w)


defgrad("hierarchical_sigmoid_grad",
        "X W Label PathTable? PathCode? Bias? PreOut Out@GRAD", "X@GRAD W@GRAD Bias@GRAD?",
        _HS_ATTRS, infer=lambda m, a: (m[0], m[1], m[5]))
defop("hierarchical_sigmoid", "X W Label PathTable? PathCode? Bias?", "Out PreOut~ W_Out~",
      _HS_ATTRS, infer=_hs_infer,
      grad=grad_op("hierarchical_sigmoid_grad",
                   uses=("X", "W", "Label", "PathTable", "PathCode", "Bias", "PreOut"),
                   wrt=("X", "W", "Bias")),
      inplace={"W_Out": "W"}, no_grad_inputs=("Label", "PathTable", "PathCode"))


# ------------------------------------------------------------------ warprnnt
_RNNT_ATTRS = (("blank", "INT", 0), ("fastemit_lambda", "FLOAT", 0.0))


def _warprnnt_infer(metas, attrs):
    x, label, in_len, lab_len = metas
    if len(x.shape) != 4:
        raise OpError(f"warprnnt: input must be 4-D [batch, max_logit_length, "
                      f"max_label_length + 1, num_classes], got shape {list(x.shape)}")
    if len(label.shape) != 2:
        raise OpError(f"warprnnt: label must be 2-D [batch, max_label_length], got shape "
                      f"{list(label.shape)}")
    return Meta((x.shape[0],), x.dtype), x


defgrad("warprnnt_grad", "input input_lengths warprnntgrad loss@GRAD", "input@GRAD",
        _RNNT_ATTRS, infer=lambda m, a: (m[0],))
defop("warprnnt", "input label input_lengths label_lengths", "loss warprnntgrad~", _RNNT_ATTRS,
      infer=_warprnnt_infer,
      grad=grad_op("warprnnt_grad", uses=("input", "input_lengths", "warprnntgrad"),
                   gouts=("loss",), wrt=("input",)),
      no_grad_inputs=("label", "input_lengths", "label_lengths"))


# ------------------------------------------------------------------ margin_cross_entropy
_MCE_ATTRS = (("return_softmax", "BOOLEAN", False), ("ring_id", "INT", 0), ("rank", "INT", 0),
              ("nranks", "INT", 1), ("margin1", "FLOAT", 1.0), ("margin2", "FLOAT", 0.5),
              ("margin3", "FLOAT", 0.0), ("scale", "FLOAT", 64.0))


def _mce_infer(metas, attrs):
    logits, label = metas
    if len(logits.shape) != 2:
        raise OpError(f"margin_cross_entropy: Logits must be 2-D [N, C], got shape "
                      f"{list(logits.shape)}")
    if len(label.shape) != 2 or label.shape[1] not in (1, -1):
        raise OpError(f"margin_cross_entropy: Label must be [N, 1], got shape "
                      f"{list(label.shape)}")
    return logits, Meta((logits.shape[0], 1), logits.dtype)


defgrad("margin_cross_entropy_grad", "Logits Label Softmax Loss@GRAD", "Logits@GRAD",
        _MCE_ATTRS, infer=lambda m, a: (m[0],))
defop("margin_cross_entropy", "Logits Label", "Softmax Loss", _MCE_ATTRS, infer=_mce_infer,
      grad=grad_op("margin_cross_entropy_grad", uses=("Logits", "Label", "Softmax"),
                   gouts=("Loss",), wrt=("Logits",)),
      no_grad_inputs=("Label",))
