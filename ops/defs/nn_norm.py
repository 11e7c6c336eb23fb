"""Normalisation ops: batch_norm, layer_norm, group_norm, instance_norm, their
grads, and the double grads of batch_norm and instance_norm (Paddle has none
for layer_norm and group_norm).

batch_norm's running statistics are updated in place in Paddle: MeanOut and
VarianceOut share the variables of Mean and Variance (declared ``inplace``);
SavedVariance holds the batch's inverse standard deviation 1/sqrt(var + eps).
"""
from ..declare import defop, defgrad, grad_op, grad_chain, REQUIRED
from ..registry import GradOp, Meta, OpError


def norm_channel_axis(rank, layout):
    if layout in ("NCHW", "NCL", "NC", "NCDHW", "AnyLayout"):
        return 1
    if layout in ("NHWC", "NLC", "NDHWC"):
        return rank - 1
    raise OpError(f"data_layout must be 'NCHW' or 'NHWC', got '{layout}'")


def _vec(m, c, op, slot):
    if m is not None and len(m.shape) != 1:
        raise OpError(f"{op}: input {slot} must be 1-D, got shape {list(m.shape)}")
    if m is not None and c >= 0 and m.shape[0] >= 0 and m.shape[0] != c:
        raise OpError(f"{op}: input {slot} has {m.shape[0]} entries but the input has "
                      f"{c} channels")


# ------------------------------------------------------------------ batch_norm
_BN_ATTRS = (("is_test", "BOOLEAN", False), ("momentum", "FLOAT", 0.9),
             ("epsilon", "FLOAT", 1e-5), ("data_layout", "STRING", "NCHW"),
             ("use_global_stats", "BOOLEAN", False),
             ("trainable_statistics", "BOOLEAN", False))


def bn_global_stats(attrs):
    """Whether batch_norm normalises with the running statistics (Mean,
    Variance) rather than the batch's."""
    return (attrs["is_test"] and not attrs["trainable_statistics"]) or attrs["use_global_stats"]


def _bn_infer(metas, attrs):
    x, scale, bias, mean, var, _ = metas
    if not 2 <= len(x.shape) <= 5:
        raise OpError(f"batch_norm: input X must have rank 2 to 5, got shape {list(x.shape)}")
    c = x.shape[norm_channel_axis(len(x.shape), attrs["data_layout"])]
    for m, slot in ((scale, "Scale"), (bias, "Bias"), (mean, "Mean"), (var, "Variance")):
        _vec(m, c, "batch_norm", slot)
    stat = Meta((c,), x.dtype)
    return (Meta(x.shape, x.dtype), Meta(mean.shape, mean.dtype), Meta(var.shape, var.dtype),
            stat, stat, None)


def _bn_grad_infer(metas, attrs):
    x, scale, bias = metas[0], metas[1], metas[2]
    c = x.shape[norm_channel_axis(len(x.shape), attrs["data_layout"])]
    return (x, scale or Meta((c,), x.dtype), bias or Meta((c,), x.dtype))


_BN_DOUBLE = grad_chain(_BN_ATTRS, (
    "batch_norm_grad_grad",
    {"X": "X", "Scale?": "Scale", "Mean?": "Mean", "Variance?": "Variance",
     "SavedMean": "SavedMean", "SavedVariance": "SavedVariance", "DY": "Y@GRAD",
     "DDX?": "X@GRAD@GRAD", "DDScale?": "Scale@GRAD@GRAD", "DDBias?": "Bias@GRAD@GRAD"},
    {"DX": "X@GRAD", "DScale": "Scale@GRAD", "DDY": "Y@GRAD@GRAD"}))
_BN_DOUBLE_BATCH = GradOp(_BN_DOUBLE.type, {k: v for k, v in _BN_DOUBLE.inputs.items()
                                            if k not in ("Mean", "Variance")},
                          _BN_DOUBLE.outputs)


def _bn_double(attrs):
    # Paddle's maker gives the double grad the running statistics only when
    # the forward normalised with them
    return (_BN_DOUBLE if bn_global_stats(attrs) else _BN_DOUBLE_BATCH,)


defgrad("batch_norm_grad",
        "X Scale? Bias? Mean? Variance? SavedMean SavedVariance ReserveSpace? Y@GRAD",
        "X@GRAD Scale@GRAD? Bias@GRAD?", _BN_ATTRS, infer=_bn_grad_infer, grad=_bn_double,
        no_need_buffer=("Bias",))
defop("batch_norm", "X Scale? Bias? Mean Variance MomentumTensor?",
      "Y MeanOut VarianceOut SavedMean~ SavedVariance~ ReserveSpace?", _BN_ATTRS,
      infer=_bn_infer,
      grad=grad_op("batch_norm_grad",
                   uses=("X", "Scale", "Bias", "Mean", "Variance", "SavedMean",
                         "SavedVariance", "ReserveSpace"),
                   gouts=("Y",), wrt=("X", "Scale", "Bias")),
      inplace={"MeanOut": "Mean", "VarianceOut": "Variance"},
      no_grad_inputs=("Mean", "Variance", "MomentumTensor"))


# ------------------------------------------------------------------ layer_norm
_LN_ATTRS = (("epsilon", "FLOAT", 1e-5), ("begin_norm_axis", "INT", 1))


def _ln_split(shape, axis):
    if not 0 < axis < max(len(shape), 1) + (len(shape) == 1):
        raise OpError(f"layer_norm: begin_norm_axis {axis} is out of range for an input "
                      f"of rank {len(shape)} (expected 1 <= axis < rank)")
    left = right = 1
    for d in shape[:axis]:
        left = -1 if d < 0 or left < 0 else left * d
    for d in shape[axis:]:
        right = -1 if d < 0 or right < 0 else right * d
    return left, right


def _ln_infer(metas, attrs):
    x, scale, bias = metas
    left, right = _ln_split(x.shape, attrs["begin_norm_axis"])
    for m, slot in ((scale, "Scale"), (bias, "Bias")):
        if m is not None:
            n = 1
            for d in m.shape:
                n *= d
            if right >= 0 and n >= 0 and n != right:
                raise OpError(f"layer_norm: input {slot} has {n} elements but the "
                              f"normalised part of X (shape {list(x.shape)[attrs['begin_norm_axis']:]}) "
                              f"has {right}")
    return Meta(x.shape, x.dtype), Meta((left,), x.dtype), Meta((left,), x.dtype)


defgrad("layer_norm_grad", "X Scale? Bias? Mean Variance Y@GRAD",
        "X@GRAD Scale@GRAD? Bias@GRAD?", _LN_ATTRS, no_need_buffer=("Bias",))
defop("layer_norm", "X Scale? Bias?", "Y Mean~ Variance~", _LN_ATTRS, infer=_ln_infer,
      grad=grad_op("layer_norm_grad", uses=("X", "Scale", "Bias", "Mean", "Variance"),
                    gouts=("Y",), wrt=("X", "Scale", "Bias")))


# ------------------------------------------------------------------ group_norm
_GN_ATTRS = (("epsilon", "FLOAT", 1e-5), ("groups", "INT", REQUIRED),
             ("data_layout", "STRING", "NCHW"))


def _gn_infer(metas, attrs):
    x, scale, bias = metas
    if len(x.shape) < 2:
        raise OpError(f"group_norm: input X must have rank >= 2, got shape {list(x.shape)}")
    c = x.shape[norm_channel_axis(len(x.shape), attrs["data_layout"])]
    g = attrs["groups"]
    if g <= 0 or (c >= 0 and c % g):
        raise OpError(f"group_norm: the {c} channels must be divisible by groups ({g})")
    for m, slot in ((scale, "Scale"), (bias, "Bias")):
        _vec(m, c, "group_norm", slot)
    stat = Meta((x.shape[0], g), x.dtype)
    return Meta(x.shape, x.dtype), stat, stat


defgrad("group_norm_grad", "X Scale? Bias? Y Mean Variance Y@GRAD",
        "X@GRAD Scale@GRAD? Bias@GRAD?", _GN_ATTRS, no_need_buffer=("Bias",))
defop("group_norm", "X Scale? Bias?", "Y Mean~ Variance~", _GN_ATTRS, infer=_gn_infer,
      grad=grad_op("group_norm_grad", uses=("X", "Scale", "Bias", "Y", "Mean", "Variance"),
                    gouts=("Y",), wrt=("X", "Scale", "Bias")))


# ------------------------------------------------------------------ instance_norm
_IN_ATTRS = (("epsilon", "FLOAT", 1e-5),)


def _in_infer(metas, attrs):
    x, scale, bias = metas
    if len(x.shape) < 2:
        raise OpError(f"instance_norm: input X must have rank >= 2, got shape {list(x.shape)}")
    for m, slot in ((scale, "Scale"), (bias, "Bias")):
        _vec(m, x.shape[1], "instance_norm", slot)
    n, c = x.shape[0], x.shape[1]
    nc = -1 if n < 0 or c < 0 else n * c
    return Meta(x.shape, x.dtype), Meta((nc,), x.dtype), Meta((nc,), x.dtype)


defgrad("instance_norm_grad", "X Scale? SavedMean SavedVariance Y@GRAD",
        "X@GRAD Scale@GRAD? Bias@GRAD?", _IN_ATTRS,
        infer=lambda m, a: (m[0], m[1] or Meta((m[0].shape[1],), m[0].dtype),
                            m[1] or Meta((m[0].shape[1],), m[0].dtype)),
        grad=grad_chain(_IN_ATTRS, (
            "instance_norm_double_grad",
            {"x": "X", "fwd_scale?": "Scale", "saved_mean": "SavedMean",
             "saved_variance": "SavedVariance", "grad_y": "Y@GRAD",
             "grad_x@GRAD?": "X@GRAD@GRAD", "grad_scale@GRAD?": "Scale@GRAD@GRAD",
             "grad_bias@GRAD?": "Bias@GRAD@GRAD"},
            {"x@GRAD": "X@GRAD", "fwd_scale@GRAD": "Scale@GRAD",
             "grad_y@GRAD": "Y@GRAD@GRAD"})))
defop("instance_norm", "X Scale? Bias?", "Y SavedMean~ SavedVariance~", _IN_ATTRS,
      infer=_in_infer,
      grad=grad_op("instance_norm_grad", uses=("X", "Scale", "SavedMean", "SavedVariance"),
                    gouts=("Y",), wrt=("X", "Scale", "Bias")))
