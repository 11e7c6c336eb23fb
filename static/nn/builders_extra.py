"""More ``paddle.static.nn`` layer builders (Paddle 2.6): ``row_conv``,
``data_norm``, ``nce``, ``sparse_embedding`` and ``deform_conv2d``.  Each
creates Paddle's parameters (names, shapes, initializers) and appends Paddle's
op (ops/defs/static_builders.py, ops/defs/deform_conv.py).

Where sampan differs: ``sparse_embedding``'s table is a dense parameter (Paddle
declares a SELECTED_ROWS table that only a parameter server fills: on one
process its ``lookup_table`` raises NotFound), so the program runs and trains
here; ``data_norm``'s ``in_place`` makes no difference to the values, and its
``enable_scale_and_shift`` without a ``param_attr`` dict uses the default
initial values (Paddle raises AttributeError calling ``None.get``).
"""
import functools

import numpy as np

from ...ops import bind, get_op, in_static_mode
from ...ops.dtypes import to_np_dtype
from ...nn.initializer import Constant, Normal, Assign
from ...nn.param_attr import ParamAttr
from .common import _owner, _param, _act, _dtype

__all__ = ["row_conv", "data_norm", "nce", "sparse_embedding", "deform_conv2d"]


def _check_dtype(x, what, allowed, api):
    dt = str(to_np_dtype(_dtype(x)))
    if dt not in allowed:
        raise TypeError(f"The data type of '{what}' in {api} must be {allowed}, but "
                        f"received {dt}.")


def _static_only(fn):
    """Paddle's ``@static_only``: the builder refuses to run eagerly."""
    @functools.wraps(fn)
    def builder(*args, **kwargs):
        assert in_static_mode(), (
            f"In PaddlePaddle 2.x, we turn on dynamic graph mode by default, and "
            f"'{fn.__name__}()' is only supported in static graph mode. So if you want to use "
            f"this api, please call 'paddle.enable_static()' before this api to enter static "
            f"graph mode.")
        return fn(*args, **kwargs)
    return builder


def _pair(v, what):
    v = [v, v] if isinstance(v, (int, np.integer)) else list(v)
    if len(v) != 2:
        raise ValueError(f"{what} must be an int or a pair of ints, got {v}")
    return [int(e) for e in v]


# ------------------------------------------------------------------ row_conv
def row_conv(input, future_context_size, param_attr=None, act=None):
    """Lookahead row convolution: ``out[t] = sum_{w <= future_context_size}
    input[t + w] * W[w]`` over each sequence (input [B, T, D])."""
    _check_dtype(input, "input", ["float32"], "row_conv")
    with _owner("row_conv") as owner:
        w = _param(owner, [future_context_size + 1, input.shape[-1]], param_attr,
                   _dtype(input))
        out = bind(get_op("row_conv"), (input, w), {})[0]
        return _act(out, act)


# ------------------------------------------------------------------ data_norm
@_static_only
def data_norm(input, act=None, epsilon=1e-05, param_attr=None, data_layout="NCHW",
              in_place=False, name=None, moving_mean_name=None, moving_variance_name=None,
              do_model_average_for_mean_and_var=True, slot_dim=-1, sync_stats=False,
              summary_decay_rate=0.9999999, enable_scale_and_shift=False):
    """Normalize by running summaries (``<name>.batch_size``, ``.batch_sum``,
    ``.batch_square_sum``; ``name`` defaults to ``dn``, so unnamed data_norms
    share them), optionally scaled and shifted by ``<name>.scale_w``/``.bias``.
    ``param_attr`` may be a dict of the initial values (``batch_size``,
    ``batch_sum``, ``batch_square``, ``scale_w``, ``bias``)."""
    shape = list(input.shape)
    if len(shape) < 2:
        raise ValueError(f"The shape pf Input < 2 (got {len(shape)}D input, input shape "
                         f"is: {shape})")
    if data_layout == "NCHW":
        c = shape[1]
    elif data_layout == "NHWC":
        c = shape[-1]
    else:
        raise ValueError("unsupported data layout:" + data_layout)
    init = {"batch_size": 1e4, "batch_sum": 0.0, "batch_square": 1e4, "scale_w": 1.0,
            "bias": 0.0}
    if isinstance(param_attr, dict):
        init.update({k: param_attr[k] for k in init if k in param_attr})
    name = "dn" if name is None else name
    dt = _dtype(input)

    def stat(suffix, value):
        return _param(name, [c], ParamAttr(name=f"{name}.{suffix}",
                                           initializer=Constant(float(value)),
                                           trainable=True), dt)

    with _owner("data_norm"):
        sw = b = None
        if enable_scale_and_shift:
            sw = stat("scale_w", init["scale_w"])
            b = stat("bias", init["bias"])
        bsize = stat("batch_size", init["batch_size"])
        bsum = stat("batch_sum", init["batch_sum"])
        bsq = stat("batch_square_sum", init["batch_square"])
        attrs = {"epsilon": float(epsilon), "data_layout": data_layout,
                 "sync_stats": bool(sync_stats), "summary_decay_rate": float(summary_decay_rate)}
        if slot_dim > 0:
            attrs["slot_dim"] = int(slot_dim)
        if enable_scale_and_shift:
            attrs["enable_scale_and_shift"] = True
        y = bind(get_op("data_norm"), (sw, b, input, bsize, bsum, bsq), attrs)[0]
        return _act(y, act)


# ------------------------------------------------------------------ nce
def _alias_table(dist):
    """Walker's alias table of ``dist`` (probabilities of the k classes):
    (alias, alias_probs); a class whose scaled probability is exactly 1 (or is
    left over) keeps itself (alias -1, probability 1 when left over)."""
    k = len(dist)
    alias, probs = [0] * k, [0.0] * k
    over, under = [], []
    for i, p in enumerate(dist):
        q = p * k
        if q > 1.0:
            over.append((i, q))
        elif q < 1.0:
            under.append((i, q))
        else:
            probs[i], alias[i] = q, -1
    while over and under:
        (bi, bq), (si, sq) = over.pop(0), under.pop(0)
        probs[si], alias[si] = sq, bi
        rest = bq + sq - 1.0
        if rest > 1.0:
            over.append((bi, rest))
        elif rest < 1.0:
            under.append((bi, rest))
        else:
            probs[bi], alias[bi] = rest, -1
    for i, _ in over[:1] + under[:1]:
        probs[i], alias[i] = 1.0, -1
    return alias, probs


@_static_only
def nce(input, label, num_total_classes, sample_weight=None, param_attr=None,
        bias_attr=None, num_neg_samples=None, name=None, sampler="uniform",
        custom_dist=None, seed=0, is_sparse=False):
    """Noise-contrastive estimation loss: ``nce``'s per-row cost divided by
    ``num_neg_samples + 1`` (a ``scale`` op)."""
    _check_dtype(input, "input", ["float32", "float64"], "nce")
    _check_dtype(label, "label", ["int64"], "nce")
    if len(input.shape) != 2:
        raise ValueError(f"The rank of `input` must be 2, but received {len(input.shape)}.")
    samplers = {"uniform": 0, "log_uniform": 1, "custom_dist": 2}
    if sampler not in samplers:     # Paddle raises a plain Exception here
        raise Exception(f"Unsupported sampler type: {sampler!r} (expected 'uniform', "
                        f"'log_uniform' or 'custom_dist').")
    if sampler == "custom_dist" and custom_dist is None:
        raise AssertionError("nce: sampler='custom_dist' needs custom_dist (the "
                             "num_total_classes probabilities)")
    nneg = 10 if num_neg_samples is None else int(num_neg_samples)
    dt = _dtype(input)
    with _owner("nce", name) as owner:
        w = _param(owner, [num_total_classes, input.shape[1]], param_attr, dt)
        b = _param(owner, [num_total_classes, 1], bias_attr, dt, is_bias=True)
        probs = alias = alias_probs = None
        if sampler == "custom_dist":
            dist = np.asarray(custom_dist, "float64").reshape(-1)
            if dist.size != num_total_classes:
                raise ValueError(f"nce: custom_dist has {dist.size} probabilities, "
                                 f"num_total_classes is {num_total_classes}")
            a, ap = _alias_table(dist.tolist())
            consts = []
            for arr in (dist.astype("float32"), np.array(a, "int32"),
                        np.array(ap, "float32")):
                v = _param(owner, list(arr.shape), ParamAttr(), arr.dtype, init=Assign(arr))
                v.stop_gradient = True
                consts.append(v)
            probs, alias, alias_probs = consts
        attrs = {"num_total_classes": int(num_total_classes), "num_neg_samples": nneg,
                 "seed": int(seed), "sampler": samplers[sampler], "is_sparse": bool(is_sparse),
                 "remote_prefetch": bool(is_sparse)}
        cost = bind(get_op("nce"), (input, label, w, b, sample_weight, probs, alias,
                                    alias_probs), attrs)[0]
    return cost / (nneg + 1)


# ------------------------------------------------------------------ sparse_embedding
_TABLES = ("CommonSparseTable", "SSDSparseTable", "MemorySparseTable")
_ENTRIES = ("ProbabilityEntry", "CountFilterEntry", "ShowClickEntry")


def sparse_embedding(input, size, padding_idx=None, is_test=False, entry=None,
                     table_class="MemorySparseTable", param_attr=None, dtype="float32",
                     slot=None):
    """The parameter-server embedding: a ``lookup_table`` (v1: ids end in a
    dim of 1) over a ``[vocab, dim]`` table named ``sparse_embedding_<n>.w_0``."""
    _check_dtype(input, "input", ["int64"], "paddle.incubate.layers.sparse_embedding")
    if str(to_np_dtype(dtype)) not in ("float32", "float64"):
        raise TypeError(f"The data type of 'dtype' in paddle.static.nn.sparse_embedding "
                        f"must be ['float32', 'float64'], but received {dtype}.")
    if int(np.prod(input.shape)) == 0:
        raise ValueError("input size should not be 0")
    if table_class not in _TABLES:
        raise ValueError(f"table_class must be in [{', '.join(_TABLES)}]")
    entry_str = "none"
    if entry is not None:
        if type(entry).__name__ not in _ENTRIES:
            raise ValueError("entry must be instance in [paddle.distributed.ProbabilityEntry, "
                             "paddle.distributed.CountFilterEntry, "
                             "paddle.distributed.ShowClickEntry]")
        entry_str = entry._to_attr()
    pad = -1 if padding_idx is None else padding_idx if padding_idx >= 0 \
        else size[0] + padding_idx
    with _owner("sparse_embedding") as owner:
        w = _param(owner, list(size), param_attr, dtype)
        attrs = {"padding_idx": int(pad), "is_sparse": True, "is_distributed": True,
                 "remote_prefetch": True, "is_test": bool(is_test), "entry": entry_str,
                 "table_class": table_class, "slot": 0 if slot is None else int(slot)}
        return bind(get_op("lookup_table"), (w, input), attrs)[0]


# ------------------------------------------------------------------ deform_conv2d
def _deformable_conv(input, offset, mask, num_filters, filter_size, stride, padding,
                     dilation, groups, deformable_groups, im2col_step, param_attr,
                     bias_attr, modulated, name):
    _check_dtype(input, "input", ["float32", "float64"], "deformable_conv")
    _check_dtype(offset, "offset", ["float32", "float64"], "deformable_conv")
    if len(input.shape) != 4:
        raise ValueError(f"The input should be of [N, C, H, W] format, but received "
                         f"{list(input.shape)}")
    c = input.shape[1]
    if groups is None:
        cg = c
    else:
        if groups == 0:
            raise ValueError("groups should not be 0.")
        if c % groups:
            raise ValueError("num_channels must be divisible by groups.")
        cg = c // groups
    ks = _pair(filter_size, "filter_size")
    n_elem = ks[0] * ks[1] * c
    if n_elem <= 0:
        raise ValueError(f"Invalid filter number, excepted number is larger than 0, but "
                         f"received {n_elem}, please check the input shape and filter size.")
    dt = _dtype(input)
    with _owner("deformable_conv", name) as owner:
        w = _param(owner, [num_filters, cg] + ks, param_attr, dt,
                   init=Normal(0.0, (2.0 / n_elem) ** 0.5))
        attrs = {"strides": _pair(stride, "stride"), "paddings": _pair(padding, "padding"),
                 "dilations": _pair(dilation, "dilation"), "groups": groups,
                 "deformable_groups": deformable_groups, "im2col_step": im2col_step}
        if modulated:
            out = bind(get_op("deformable_conv"), (input, offset, w, mask), attrs)[0]
        else:
            out = bind(get_op("deformable_conv_v1"), (input, offset, w), attrs)[0]
        b = _param(owner, [num_filters], bias_attr, dt, is_bias=True)
        if b is not None:
            out = bind(get_op("elementwise_add"), (out, b), {"axis": 1})[0]
        return out


@_static_only
def deform_conv2d(x, offset, mask, num_filters, filter_size, stride=1, padding=0,
                  dilation=1, groups=1, deformable_groups=1, im2col_step=1,
                  weight_attr=None, bias_attr=None, name=None):
    """2-D deformable convolution: ``deformable_conv`` (v2) with a ``mask``,
    ``deformable_conv_v1`` without; then the bias (``elementwise_add``)."""
    return _deformable_conv(x, offset, mask, num_filters, filter_size, stride, padding,
                            dilation, groups, deformable_groups, im2col_step, weight_attr,
                            bias_attr, mask is not None, name)
