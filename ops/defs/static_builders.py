"""Ops of the ``paddle.static.nn`` builders (Paddle 2.6's slots and
attributes): row_conv, data_norm, nce (random: samples negative classes),
lookup_table (the v1 embedding ``sparse_embedding`` appends) and l1_norm
(``ctr_metric_bundle``), with their grads.

data_norm normalizes with running summaries held as parameters: ``Means =
BatchSum / BatchSize``, ``Scales = sqrt(BatchSize / BatchSquareSum)``,
``Y = (X - Means) * Scales`` (then ``* scale_w + bias`` when
``enable_scale_and_shift``).  Its grad op gives X, scale_w and bias their true
gradients and, as the "gradients" of the three summaries, this batch's
statistics (size, sum, squared deviation sum + size * epsilon), which the
optimizer then applies to the summary parameters as Paddle's CPU kernel does.
"""
import numpy as np

from ..declare import defop, defgrad, grad_op, REQUIRED
from ..registry import Meta, OpError

# ------------------------------------------------------------------ row_conv
# Out[b, t, d] = sum_{w < ctx, t + w < T} X[b, t + w, d] * Filter[w, d]
# (X [B, T, D]; a 2-D X [T, D] is one sequence)


def _row_conv_infer(metas, attrs):
    x, f = metas
    if len(x.shape) not in (2, 3):
        raise OpError(f"row_conv: input X must be 2-D [T, D] or 3-D [B, T, D], got shape "
                      f"{list(x.shape)}")
    if len(f.shape) != 2:
        raise OpError(f"row_conv: Filter must be 2-D [future_context_size + 1, D], got "
                      f"shape {list(f.shape)}")
    if x.shape[-1] >= 0 and f.shape[1] >= 0 and x.shape[-1] != f.shape[1]:
        raise OpError(f"row_conv: the last dim of X ({x.shape[-1]}) must equal Filter's "
                      f"width ({f.shape[1]})")
    return (Meta(tuple(x.shape), x.dtype),)


defgrad("row_conv_grad", "X Filter Out@GRAD", "X@GRAD? Filter@GRAD?")
defop("row_conv", "X Filter", "Out", infer=_row_conv_infer,
      grad=grad_op("row_conv_grad", uses=("X", "Filter"), wrt=("X", "Filter")),
      same_dtype=("X", "Filter"))


# ------------------------------------------------------------------ data_norm
_DN_ATTRS = (("epsilon", "FLOAT", 1e-4), ("slot_dim", "INT", -1),
             ("summary_decay_rate", "FLOAT", 0.9999999),
             ("enable_scale_and_shift", "BOOLEAN", False), ("data_layout", "STRING", "NCHW"),
             ("sync_stats", "BOOLEAN", False))


def dn_channels(shape, attrs):
    fmt = attrs["data_layout"]
    if fmt not in ("NCHW", "NHWC", "AnyLayout"):
        raise OpError(f"data_norm: data_layout must be 'NCHW' or 'NHWC', got '{fmt}'")
    return shape[-1] if fmt == "NHWC" else shape[1]


def _dn_infer(metas, attrs):
    sw, b, x, bsize, bsum, bsq = metas
    if len(x.shape) != 2:
        raise OpError(f"data_norm: input X must be 2-D [N, C], got shape {list(x.shape)}")
    c = dn_channels(x.shape, attrs)
    for name, m in (("BatchSize", bsize), ("BatchSum", bsum), ("BatchSquareSum", bsq)) + \
            ((("scale_w", sw), ("bias", b)) if attrs["enable_scale_and_shift"] else ()):
        if m is None:
            raise OpError(f"data_norm: input {name} is required "
                          f"(enable_scale_and_shift={attrs['enable_scale_and_shift']})")
        if len(m.shape) != 1 or (c >= 0 and m.shape[0] >= 0 and m.shape[0] != c):
            raise OpError(f"data_norm: {name} must be 1-D of the {c} channels, got shape "
                          f"{list(m.shape)}")
    return Meta(tuple(x.shape), x.dtype), Meta((c,), x.dtype), Meta((c,), x.dtype)


def _dn_grad_infer(metas, attrs):
    sw, b, x = metas[:3]
    c = dn_channels(x.shape, attrs)
    stat = Meta((c,), x.dtype)
    return (Meta(tuple(x.shape), x.dtype), stat, stat, stat, sw, b)


defgrad("data_norm_grad", "scale_w? bias? X Means Scales Y@GRAD",
        "X@GRAD? BatchSize@GRAD? BatchSum@GRAD? BatchSquareSum@GRAD? scale_w@GRAD? bias@GRAD?",
        _DN_ATTRS, infer=_dn_grad_infer)
defop("data_norm", "scale_w? bias? X BatchSize BatchSum BatchSquareSum", "Y Means~ Scales~",
      _DN_ATTRS, infer=_dn_infer,
      grad=grad_op("data_norm_grad", uses=("scale_w", "bias", "X", "Means", "Scales"),
                   gouts=("Y",), wrt=("X", "BatchSize", "BatchSum", "BatchSquareSum",
                                      "scale_w", "bias")),
      dtype_from="X")


# ------------------------------------------------------------------ nce
# Each row's sampled classes are its true labels then num_neg_samples
# negatives drawn by the sampler (0 uniform, 1 log-uniform, 2 the custom
# distribution's alias table) -- or ``custom_neg_classes`` when given (Paddle's
# attribute for deterministic tests).  SampleLogits = sigmoid(x . W[c] + b[c]);
# with q = P(c) * num_neg_samples, Cost = w * sum(-log(o / (o + q)) for true
# classes, -log(q / (o + q)) for negatives).
_NCE_ATTRS = (("num_total_classes", "INT", REQUIRED), ("num_neg_samples", "INT", 10),
              ("sampler", "INT", 0), ("seed", "INT", 0), ("is_sparse", "BOOLEAN", False),
              ("remote_prefetch", "BOOLEAN", False), ("is_test", "BOOLEAN", False),
              ("custom_neg_classes", "INTS", []))


def _nce_infer(metas, attrs):
    x, label, w, b, sw, probs, alias, alias_probs = metas
    k, nneg, sampler = attrs["num_total_classes"], attrs["num_neg_samples"], attrs["sampler"]
    if len(x.shape) != 2:
        raise OpError(f"nce: Input must be 2-D [batch, dim], got shape {list(x.shape)}")
    if len(label.shape) not in (1, 2) or label.dtype.kind not in "iu":
        raise OpError(f"nce: Label must be a 1-D or 2-D integer tensor [batch, num_true], "
                      f"got {label.dtype} of shape {list(label.shape)}")
    if len(w.shape) != 2 or (w.shape[0] >= 0 and w.shape[0] != k):
        raise OpError(f"nce: Weight must be [num_total_classes={k}, dim], got shape "
                      f"{list(w.shape)}")
    if x.shape[1] >= 0 and w.shape[1] >= 0 and x.shape[1] != w.shape[1]:
        raise OpError(f"nce: Input's width ({x.shape[1]}) must equal Weight's ({w.shape[1]})")
    if x.shape[0] >= 0 and label.shape[0] >= 0 and x.shape[0] != label.shape[0]:
        raise OpError(f"nce: Input has {x.shape[0]} rows but Label has {label.shape[0]}")
    if k <= 0 or nneg <= 0:
        raise OpError(f"nce: num_total_classes ({k}) and num_neg_samples ({nneg}) must be "
                      f"positive")
    if sampler not in (0, 1, 2):
        raise OpError(f"nce: sampler must be 0 (uniform), 1 (log_uniform) or 2 "
                      f"(custom_dist), got {sampler}")
    if sampler == 2 and (probs is None or alias is None or alias_probs is None):
        raise OpError("nce: the custom_dist sampler needs CustomDistProbs, CustomDistAlias "
                      "and CustomDistAliasProbs")
    custom = attrs["custom_neg_classes"]
    if custom and len(custom) != nneg:
        raise OpError(f"nce: custom_neg_classes has {len(custom)} classes, num_neg_samples "
                      f"is {nneg}")
    ntrue = label.shape[1] if len(label.shape) == 2 else 1
    cols = ntrue + nneg if ntrue >= 0 else -1
    return (Meta((x.shape[0], 1), x.dtype), Meta((x.shape[0], cols), x.dtype),
            Meta((x.shape[0], cols), np.dtype("int64")))


_NCE_IN = ("Input", "Label", "Weight", "Bias", "SampleWeight", "CustomDistProbs",
           "CustomDistAlias", "CustomDistAliasProbs")
defgrad("nce_grad", "Input Label Weight Bias? SampleWeight? CustomDistProbs? CustomDistAlias? "
        "CustomDistAliasProbs? SampleLogits SampleLabels Cost@GRAD",
        "Input@GRAD? Weight@GRAD? Bias@GRAD?", _NCE_ATTRS)
defop("nce", "Input Label Weight Bias? SampleWeight? CustomDistProbs? CustomDistAlias? "
      "CustomDistAliasProbs?", "Cost SampleLogits~ SampleLabels~", _NCE_ATTRS,
      infer=_nce_infer,
      grad=grad_op("nce_grad", uses=_NCE_IN + ("SampleLogits", "SampleLabels"),
                   gouts=("Cost",), wrt=("Input", "Weight", "Bias")),
      random=True, dtype_from="Input",
      no_grad_inputs=("Label", "SampleWeight", "CustomDistProbs", "CustomDistAlias",
                      "CustomDistAliasProbs"))


# ------------------------------------------------------------------ lookup_table
# The v1 embedding: Ids end in a dim of 1, Out = W[Ids[..., 0]] of shape
# Ids.shape[:-1] + [D]; rows equal to padding_idx (-1: none) are zeros.
_LT_ATTRS = (("is_sparse", "BOOLEAN", False), ("is_distributed", "BOOLEAN", False),
             ("padding_idx", "LONG", -1), ("remote_prefetch", "BOOLEAN", False),
             ("entry_config", "STRING", ""), ("is_test", "BOOLEAN", False),
             ("entry", "STRING", "none"), ("table_class", "STRING", "none"),
             ("table_names", "STRINGS", []), ("trainer_id", "INT", 0), ("slot", "INT", 0),
             ("grad_inplace", "BOOLEAN", False), ("epmap", "STRINGS", []),
             ("height_sections", "LONGS", []))


def _lt_infer(metas, attrs):
    w, ids = metas
    if len(w.shape) != 2:
        raise OpError(f"lookup_table: W must be a 2-D table [vocab, dim], got shape "
                      f"{list(w.shape)}")
    if ids.dtype.kind not in "iu":
        raise OpError(f"lookup_table: Ids must be an integer tensor, got {ids.dtype}")
    if not ids.shape or ids.shape[-1] not in (1, -1):
        raise OpError(f"lookup_table: the last dimension of Ids must be 1, got shape "
                      f"{list(ids.shape)}")
    return (Meta(tuple(ids.shape[:-1]) + (w.shape[1],), w.dtype),)


defgrad("lookup_table_grad", "W Ids Out@GRAD", "W@GRAD", _LT_ATTRS, no_need_buffer=("W",))
defop("lookup_table", "W Ids", "Out", _LT_ATTRS, infer=_lt_infer,
      grad=grad_op("lookup_table_grad", uses=("W", "Ids"), wrt=("W",)),
      dtype_from="W", no_grad_inputs=("Ids",))


# ------------------------------------------------------------------ l1_norm
defgrad("l1_norm_grad", "X Out@GRAD", "X@GRAD", infer=lambda m, a: (m[0],))
defop("l1_norm", "X", "Out", infer=lambda m, a: (Meta((), m[0].dtype),),
      grad=grad_op("l1_norm_grad", uses=("X",)))
